use std::collections::HashSet;

use crate::checker::Checker;
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::ir::{Device, EventKind, Span};
use crate::rule::{declare_rule, Violation};
use crate::utils::{device_name, written};

declare_rule! {
    /// ## What it does
    /// Checks for tensors created on a hard-coded device (`Device::Cpu`, `Device::Cuda(0)`,
    /// burn's `Default::default()`, tch's `Tensor::from_slice`) in a forward path that then meet
    /// the input, or a tensor computed from it, in an op.
    ///
    /// ## Why is this bad?
    /// The model works while it runs on that one device and fails as soon as the input lives
    /// anywhere else: on CUDA the op returns a device-mismatch error (candle `DeviceMismatchBinaryOp`,
    /// tch "Expected all tensors to be on the same device").
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{DType, Device, Result, Tensor};
    /// struct Attention;
    /// impl Attention {
    ///     fn forward(&self, xs: &Tensor) -> Result<Tensor> {
    ///         let mask = Tensor::ones((4, 4), DType::F32, &Device::Cpu)?;
    ///         xs.broadcast_mul(&mask)
    ///     }
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Scale(nn.Module):
    ///     def forward(self, x):
    ///         mask = torch.ones(x.shape[0], x.shape[1])
    ///         return x * mask
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{DType, Device, Result, Tensor};
    /// struct Attention;
    /// impl Attention {
    ///     fn forward(&self, xs: &Tensor) -> Result<Tensor> {
    ///         let mask = Tensor::ones((4, 4), DType::F32, xs.device())?;
    ///         xs.broadcast_mul(&mask)
    ///     }
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Scale(nn.Module):
    ///     def forward(self, x):
    ///         mask = torch.ones(x.shape[0], x.shape[1], device=x.device, dtype=x.dtype)
    ///         return x * mask
    /// ```
    ///
    /// ## Known problems
    /// Calls are followed by name: a helper is resolved to the functions of the linted tree with
    /// that name (methods of the same type for `self.f()`), so two same-named helpers with
    /// different behaviour hide each other. Devices stored on the model (`self.device`) are
    /// trusted.
    ///
    /// ## Fix
    /// Unsafe (`--unsafe-fixes`): the device argument is rewritten to the input's device
    /// (`&Device::Cpu` becomes `&xs.device()`). Offered when the input is a plain name or field;
    /// check that it is in scope where the tensor is built.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P101
    /// - `../shared/reference/pytorch-devices-chapter.txt`, on creating tensors inside `forward`
    pub(crate) struct TensorOnDefaultDevice {
        tensor: String,
        device: String,
        input: String,
        op: String,
        python: bool,
    }
}

impl Violation for TensorOnDefaultDevice {
    fn message(&self) -> String {
        format!(
            "`{}` is created on `{}` in a forward path but meets input-derived `{}` in `{}`",
            self.tensor, self.device, self.input, self.op
        )
    }

    fn help(&self) -> Option<String> {
        if self.python {
            return Some(format!(
                "create it on the input's device: pass `device={}.device`",
                self.input
            ));
        }
        Some(format!(
            "create it on the input's device: pass `{}.device()` instead of `{}`",
            self.input, self.device
        ))
    }
}

/// Rewrites the device argument to the input's device (`&Device::Cpu` → `&xs.device()`). Unsafe:
/// the input must be in scope where the tensor is built, and the tensor then moves with the
/// input. Only offered when the input is a plain name or field path.
fn device_fix(checker: &Checker<'_>, device: &Span, input: &str) -> Option<Fix> {
    let written = checker.file.source.get(device.clone())?;
    if !simple_input(input) {
        return None;
    }
    let content = if checker.is_python() {
        // `device="cpu"` → `device=x.device`
        format!("{input}.device")
    } else {
        let borrow = if written.starts_with('&') { "&" } else { "" };
        format!("{borrow}{input}.device()")
    };
    Some(Fix {
        edits: vec![Edit {
            range: device.clone(),
            content: Some(content.into()),
        }],
        applicability: Applicability::Unsafe,
    })
}

/// A plain name or field path (`xs`, `self.x`): safe to repeat in another expression.
fn simple_input(input: &str) -> bool {
    !input.is_empty()
        && input
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && !input.starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// `torch.ones(n)` → `torch.ones(n, device=x.device)`: the keyword added before the call's
/// closing parenthesis.
fn device_keyword_fix(checker: &Checker<'_>, call: &Span, input: &str) -> Option<Fix> {
    let text = checker.file.source.get(call.clone())?;
    if !simple_input(input) || !text.ends_with(')') || text.contains("device") {
        return None;
    }
    let inner = text[..text.len() - 1].trim_end();
    let sep = if inner.ends_with('(') || inner.ends_with(',') {
        ""
    } else {
        ", "
    };
    let at = call.end - 1;
    Some(Fix {
        edits: vec![Edit {
            range: at..at,
            content: Some(format!("{sep}device={input}.device").into()),
        }],
        applicability: Applicability::Unsafe,
    })
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut seen = HashSet::new();
    for (index, func) in checker.functions() {
        // Only forward paths: construction code may build on the host on purpose.
        if !checker.is_forward(index) {
            continue;
        }
        for event in &func.events {
            let EventKind::Op { name, operands } = &event.kind else {
                continue;
            };
            let resolved: Vec<_> = operands.iter().map(|o| (o, checker.resolve(o))).collect();
            // One operand must come from the input...
            let Some((input, _)) = resolved.iter().find(|(_, (d, _))| *d == Device::Input) else {
                continue;
            };
            for (operand, (device, origin)) in &resolved {
                // ...and another must have been created on a device written in the code.
                let Some(origin) = origin else { continue };
                if !device.is_hard_coded() || origin.is_transfer {
                    continue;
                }
                if !seen.insert((origin.file, origin.span.clone())) {
                    continue;
                }
                let local = origin.file == checker.file.id;
                let span = match (&origin.device_span, local) {
                    (Some(s), true) => s.clone(),
                    (None, true) => origin.span.clone(),
                    _ => operand.span.clone(),
                };
                let violation = TensorOnDefaultDevice {
                    tensor: checker.text(&operand.span),
                    device: written(origin).to_string(),
                    input: checker.text(&input.span),
                    op: name.clone(),
                    python: checker.is_python(),
                };
                let elsewhere = checker.describe_origin(origin);
                let (tensor, input) = (violation.tensor.clone(), violation.input.clone());
                let fix = match (&origin.device_span, local) {
                    (Some(device), true) => device_fix(checker, device, &input),
                    // PyTorch's `torch.ones(n)`: add `device=x.device`.
                    (None, true) if checker.is_python() => {
                        device_keyword_fix(checker, &origin.span, &input)
                    }
                    _ => None,
                };
                let diagnostic = checker.report(&violation, span);
                diagnostic.fix = fix;
                diagnostic.label(
                    event.span.clone(),
                    format!("meets `{}` ({}) here", input, device_name(&Device::Input)),
                );
                if let Some(place) = elsewhere {
                    diagnostic.label(
                        operand.span.clone(),
                        format!(
                            "`{}` is created on `{}` at {place}",
                            tensor,
                            written(origin)
                        ),
                    );
                }
            }
        }
    }
}
