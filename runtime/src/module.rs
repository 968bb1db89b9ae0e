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
    /// A buffer (`named_buffers`), saved in the state dict.
    Buffer,
    /// A buffer not saved in the state dict, as `register_buffer(.., persistent=False)`.
    NonPersistentBuffer,
}

impl TensorKind {
    /// Whether the tensor is a buffer, persistent or not.
    pub fn is_buffer(self) -> bool {
        matches!(self, TensorKind::Buffer | TensorKind::NonPersistentBuffer)
    }

    /// Whether the tensor belongs in the state dict (parameters and persistent buffers).
    pub fn is_persistent(self) -> bool {
        self != TensorKind::NonPersistentBuffer
    }
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

    /// Calls `f` on every [`Device`] field (a cached device kept next to the tensors), so that
    /// [`Module::to`] keeps it in step. The default visits none; `#[module]` visits the struct's
    /// `Device` fields and its sub-modules'.
    fn visit_devices_mut(&mut self, f: &mut dyn FnMut(&mut Device)) {
        let _ = f;
    }

    /// Moves every parameter and buffer to `device`, in place, and updates every `Device`
    /// field, as `model.to(device)`. All or nothing: every tensor is copied first, and only when
    /// every copy succeeded are they swapped in; on error the module is unchanged.
    ///
    /// # Errors
    /// As [`Tensor::to`] (e.g. [`Error::CudaUnavailable`]).
    fn to(&mut self, device: &Device) -> Result<()> {
        let mut moved = Vec::new();
        let mut failed = None;
        self.visit("", TensorKind::Parameter, &mut |_, t, _| {
            if failed.is_none() {
                match t.to_impl(*device, false, t.origin()) {
                    Ok(m) => moved.push(m),
                    Err(e) => failed = Some(e),
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        swap_in(self, moved);
        let device = *device;
        self.visit_devices_mut(&mut |d| *d = device);
        Ok(())
    }

    /// Converts every floating-point parameter and buffer to `dtype` (integer and bool tensors
    /// are left alone), as `model.to(dtype)`. All or nothing, as [`Module::to`].
    ///
    /// # Errors
    /// As [`Tensor::to_dtype`].
    fn to_dtype(&mut self, dtype: DType) -> Result<()> {
        let mut converted = Vec::new();
        let mut failed = None;
        self.visit("", TensorKind::Parameter, &mut |_, t, _| {
            if failed.is_some() {
                return;
            }
            if t.dtype().is_float() {
                match Tensor::to_dtype(t, dtype) {
                    Ok(c) => converted.push(c),
                    Err(e) => failed = Some(e),
                }
            } else {
                converted.push(t.clone());
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        swap_in(self, converted);
        Ok(())
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
        self.visit("", TensorKind::Parameter, &mut |n, t, k| {
            if k.is_persistent() {
                out.insert(n.to_string(), t.clone());
            }
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
        self.visit_mut("", TensorKind::Parameter, &mut |n, t, k| {
            if !k.is_persistent() {
                return Ok(());
            }
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

    /// Returns the one device all parameters and buffers are on (`None` for a module without
    /// tensors), as `next(model.parameters()).device` but checked.
    ///
    /// # Errors
    /// [`Error::MixedDevices`] listing which tensor sits where when they are on more than one
    /// device.
    fn device(&self) -> Result<Option<Device>> {
        let mut all: Vec<(String, Device)> = Vec::new();
        self.visit("", TensorKind::Parameter, &mut |n, t, _| {
            all.push((n.to_string(), t.device()));
        });
        let Some(first) = all.first().map(|(_, d)| *d) else {
            return Ok(None);
        };
        if all.iter().all(|(_, d)| *d == first) {
            Ok(Some(first))
        } else {
            Err(Error::MixedDevices { placements: all })
        }
    }
}

/// Replaces the tensors of `m`, in visiting order, with `new` (which has one per tensor).
fn swap_in<M: Module + ?Sized>(m: &mut M, new: Vec<Tensor>) {
    let mut new = new.into_iter();
    // Cannot fail: the closure never returns an error.
    let _ = m.visit_mut("", TensorKind::Parameter, &mut |_, t, _| {
        if let Some(n) = new.next() {
            *t = n;
        }
        Ok(())
    });
}

/// A field of a `#[module]` struct: a module part (anything implementing [`Module`]: tensors,
/// containers of module parts, sub-modules), plain data (numbers, `bool`, `char`, `String`,
/// [`DType`]) or a [`Device`] (updated by [`Module::to`]). The attribute requires every field
/// not marked `#[skip]` to implement it, so no tensor can hide from `to()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a module part: placer cannot tell whether it holds tensors",
    label = "not a tensor, a sub-module, a container of them, or plain data",
    note = "mark the field `#[skip]` or implement `placer_runtime::Module` for `{Self}`"
)]
pub trait ModuleField {
    /// Visits the field's tensors, as [`Module::visit`] (plain data has none).
    fn visit_field(
        &self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &Tensor, TensorKind),
    );

    /// Visits the field's tensors mutably, as [`Module::visit_mut`].
    ///
    /// # Errors
    /// The first error `f` returns.
    fn visit_field_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()>;

    /// Visits the field's `Device` fields, as [`Module::visit_devices_mut`].
    fn visit_devices_mut(&mut self, f: &mut dyn FnMut(&mut Device));
}

impl<T: Module + ?Sized> ModuleField for T {
    fn visit_field(
        &self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &Tensor, TensorKind),
    ) {
        self.visit(prefix, kind, f);
    }
    fn visit_field_mut(
        &mut self,
        prefix: &str,
        kind: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        self.visit_mut(prefix, kind, f)
    }
    fn visit_devices_mut(&mut self, f: &mut dyn FnMut(&mut Device)) {
        Module::visit_devices_mut(self, f);
    }
}

impl ModuleField for Device {
    fn visit_field(&self, _: &str, _: TensorKind, _: &mut dyn FnMut(&str, &Tensor, TensorKind)) {}
    fn visit_field_mut(
        &mut self,
        _: &str,
        _: TensorKind,
        _: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        Ok(())
    }
    fn visit_devices_mut(&mut self, f: &mut dyn FnMut(&mut Device)) {
        f(self);
    }
}

/// Plain data: no tensors, no devices.
macro_rules! plain_data {
    ($($t:ty),* $(,)?) => {$(
        impl ModuleField for $t {
            fn visit_field(&self, _: &str, _: TensorKind, _: &mut dyn FnMut(&str, &Tensor, TensorKind)) {}
            fn visit_field_mut(
                &mut self,
                _: &str,
                _: TensorKind,
                _: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
            ) -> Result<()> {
                Ok(())
            }
            fn visit_devices_mut(&mut self, _: &mut dyn FnMut(&mut Device)) {}
        }
    )*};
}

plain_data!(
    bool,
    char,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    String,
    &'static str,
    DType,
);

fn named<M: Module + ?Sized>(m: &M, want: TensorKind) -> Vec<(String, Tensor)> {
    let mut out = Vec::new();
    m.visit("", TensorKind::Parameter, &mut |n, t, k| {
        if k == want || (want.is_buffer() && k.is_buffer()) {
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
