//! The `Module` trait: a tree of named parameters and buffers that moves as a whole, as
//! `torch.nn.Module`. Implemented by hand for the `nn` layers and the standard containers,
//! and by the `#[module]` attribute for user structs.

use crate::error::{Error, Result};
use crate::{DType, Device, Tensor};
use std::collections::{BTreeMap, HashMap};

/// Whether a tensor of a module is a trainable parameter or a buffer (a mask, running
/// statistic or positional encoding: moved with the module, not trained), as
/// `nn.Parameter` vs `register_buffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKind {
    /// A parameter (`named_parameters`).
    Parameter,
    /// A buffer (`named_buffers`).
    Buffer,
}

/// Parameters and buffers by dotted name ("layers.0.weight"), as `model.state_dict()`.
pub type StateDict = BTreeMap<String, Tensor>;

/// Joins a parent prefix and a field name with a dot.
pub fn join_name(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else if name.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A tree of tensors that moves, converts and serialises as one, as `torch.nn.Module`.
///
/// Implementors provide the two visitors; everything else is provided. `kind` is the kind the
/// parent assigns (a bare [`Tensor`] reports it; containers pass it through; a module struct
/// decides for its own fields). `prefix` is the dotted name of `self`.
pub trait Module {
    /// Calls `f(name, tensor, kind)` for every tensor, in declaration order.
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind));

    /// Calls `f(name, tensor, kind)` for every tensor, letting it replace the tensor; stops at
    /// the first error.
    ///
    /// # Errors
    /// The first error `f` returns.
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()>;

    /// Moves every parameter and buffer to `device`, in place, as `model.to(device)`.
    ///
    /// # Errors
    /// As [`Tensor::to`].
    fn to(&mut self, device: &Device) -> Result<()> {
        self.visit_mut("", TensorKind::Parameter, &mut |_, t, _| {
            *t = t.to_impl(*device, false, t.origin())?;
            Ok(())
        })
    }

    /// Converts every floating-point parameter and buffer to `dtype` (integer and bool tensors
    /// are left alone), as `model.to(dtype)`.
    ///
    /// # Errors
    /// As [`Tensor::to_dtype`].
    fn to_dtype(&mut self, dtype: DType) -> Result<()> {
        self.visit_mut("", TensorKind::Parameter, &mut |_, t, _| {
            if t.dtype().is_float() {
                *t = Tensor::to_dtype(t, dtype)?;
            }
            Ok(())
        })
    }

    /// Returns the parameters with their dotted names, in declaration order, as
    /// `model.named_parameters()`.
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        named(self, TensorKind::Parameter)
    }

    /// Returns the parameters in declaration order, as `model.parameters()`.
    fn parameters(&self) -> Vec<Tensor> {
        named(self, TensorKind::Parameter)
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }

    /// Returns the buffers with their dotted names, in declaration order, as
    /// `model.named_buffers()`.
    fn named_buffers(&self) -> Vec<(String, Tensor)> {
        named(self, TensorKind::Buffer)
    }

    /// Returns the buffers in declaration order, as `model.buffers()`.
    fn buffers(&self) -> Vec<Tensor> {
        named(self, TensorKind::Buffer)
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }

    /// Returns every parameter and buffer by dotted name, as `model.state_dict()` (the tensors
    /// are cheap clones sharing storage).
    fn state_dict(&self) -> StateDict {
        let mut out = StateDict::new();
        self.visit("", TensorKind::Parameter, &mut |n, t, _| {
            out.insert(n.to_string(), t.clone());
        });
        out
    }

    /// Replaces every tensor with the entry of the same name, moved to the device the tensor is
    /// on now, as `model.load_state_dict(sd, strict)`.
    ///
    /// # Errors
    /// [`Error::MissingKey`] / [`Error::UnexpectedKey`] (only when `strict`) for names present
    /// on one side only; [`Error::ShapeMismatch`] / [`Error::DTypeMismatch`] when an entry
    /// does not fit; transfer errors as [`Tensor::to`].
    fn load_state_dict(&mut self, state: &StateDict, strict: bool) -> Result<()> {
        let mut used = 0;
        self.visit_mut("", TensorKind::Parameter, &mut |n, t, _| {
            let Some(src) = state.get(n) else {
                return if strict {
                    Err(Error::MissingKey { key: n.to_string() })
                } else {
                    Ok(())
                };
            };
            used += 1;
            if src.dims() != t.dims() {
                return Err(Error::ShapeMismatch {
                    op: "load_state_dict",
                    lhs: t.dims().into(),
                    rhs: src.dims().into(),
                });
            }
            if src.dtype() != t.dtype() {
                return Err(Error::DTypeMismatch {
                    op: "load_state_dict",
                    lhs: t.dtype(),
                    rhs: src.dtype(),
                });
            }
            *t = src.to_impl(t.device(), false, src.origin())?;
            Ok(())
        })?;
        if strict && used != state.len() {
            let names = self.state_dict();
            if let Some(k) = state.keys().find(|k| !names.contains_key(*k)) {
                return Err(Error::UnexpectedKey { key: k.clone() });
            }
        }
        Ok(())
    }

    /// Returns the device of the first parameter (or buffer), `None` for a module without
    /// tensors. As `next(model.parameters()).device`.
    fn device(&self) -> Option<Device> {
        let mut d = None;
        self.visit("", TensorKind::Parameter, &mut |_, t, _| {
            d = d.or(Some(t.device()));
        });
        d
    }
}

fn named<M: Module + ?Sized>(m: &M, want: TensorKind) -> Vec<(String, Tensor)> {
    let mut out = Vec::new();
    m.visit("", TensorKind::Parameter, &mut |n, t, k| {
        if k == want {
            out.push((n.to_string(), t.clone()));
        }
    });
    out
}

impl Module for Tensor {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        f(prefix, self, kind);
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        f(prefix, self, kind)
    }
}

impl<T: Module> Module for Option<T> {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        if let Some(m) = self {
            m.visit(prefix, kind, f);
        }
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        match self {
            Some(m) => m.visit_mut(prefix, kind, f),
            None => Ok(()),
        }
    }
}

impl<T: Module + ?Sized> Module for Box<T> {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        (**self).visit(prefix, kind, f);
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        (**self).visit_mut(prefix, kind, f)
    }
}

/// Elements are named by index: "layers.0", "layers.1", ... (as `nn.ModuleList`).
impl<T: Module> Module for [T] {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        for (i, m) in self.iter().enumerate() {
            m.visit(&join_name(prefix, &i.to_string()), kind, f);
        }
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        for (i, m) in self.iter_mut().enumerate() {
            m.visit_mut(&join_name(prefix, &i.to_string()), kind, f)?;
        }
        Ok(())
    }
}

impl<T: Module> Module for Vec<T> {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        self.as_slice().visit(prefix, kind, f);
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        self.as_mut_slice().visit_mut(prefix, kind, f)
    }
}

impl<T: Module, const N: usize> Module for [T; N] {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        self.as_slice().visit(prefix, kind, f);
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        self.as_mut_slice().visit_mut(prefix, kind, f)
    }
}

/// Entries are named by key and visited in key order (as `nn.ModuleDict`, whose order is
/// insertion order; a `HashMap` has none, so the runtime sorts).
impl<T: Module, S: std::hash::BuildHasher> Module for HashMap<String, T, S> {
    fn visit(&self, prefix: &str, kind: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        let mut keys: Vec<&String> = self.keys().collect();
        keys.sort();
        for k in keys {
            if let Some(m) = self.get(k) {
                m.visit(&join_name(prefix, k), kind, f);
            }
        }
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        let mut entries: Vec<(&String, &mut T)> = self.iter_mut().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        for (k, m) in entries {
            m.visit_mut(&join_name(prefix, k), kind, f)?;
        }
        Ok(())
    }
}
