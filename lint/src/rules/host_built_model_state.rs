use std::collections::HashSet;

use crate::checker::Checker;
use crate::engine::meets::{call_meetings, is_generic_data};
use crate::ir::{Arg, CallTarget, Device, EventKind, FileId, Function, Span};
use crate::rule::{declare_rule, Violation};
use crate::utils::{device_name, written};

declare_rule! {
    /// ## What it does
    /// Checks for a model's tensor field built on a hard-coded device when the model is
    /// constructed (`new`, `load`, `init`: `Self { mask: Tensor::ones(.., &Device::Cpu)?, .. }`)
    /// and read where it meets a device-generic value: the input of a method, a tensor built on
    /// the model's device (`vb.device()`, a `device` parameter), or the model's weights.
    ///
    /// ## Why is this bad?
    /// The weights follow the device the model is loaded on (candle's `VarBuilder`, tch's
    /// `VarStore`, burn's `init(device)`), but the field stays where it was built: Rust has no
    /// `to(device)` that would move it later. On CUDA every call fails with a device-mismatch error
    /// (candle `DeviceMismatchBinaryOp`), or the field is copied on every use.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{DType, Device, Result, Tensor};
    /// use candle_nn::VarBuilder;
    /// pub struct Rotary {
    ///     inv_freq: Tensor,
    /// }
    /// impl Rotary {
    ///     pub fn new(dim: usize, _vb: VarBuilder) -> Result<Self> {
    ///         let inv: Vec<f32> = (0..dim).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    ///         Ok(Self { inv_freq: Tensor::new(inv.as_slice(), &Device::Cpu)? })
    ///     }
    ///     pub fn forward(&self, positions: &Tensor) -> Result<Tensor> {
    ///         positions.broadcast_mul(&self.inv_freq)
    ///     }
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{DType, Device, Result, Tensor};
    /// use candle_nn::VarBuilder;
    /// pub struct Rotary {
    ///     inv_freq: Tensor,
    /// }
    /// impl Rotary {
    ///     pub fn new(dim: usize, vb: VarBuilder) -> Result<Self> {
    ///         let inv: Vec<f32> = (0..dim).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    ///         Ok(Self { inv_freq: Tensor::new(inv.as_slice(), vb.device())? })
    ///     }
    ///     pub fn forward(&self, positions: &Tensor) -> Result<Tensor> {
    ///         positions.broadcast_mul(&self.inv_freq)
    ///     }
    /// }
    /// ```
    ///
    /// ## Known problems
    /// Fields are tracked through `self.field` reads in the type's own methods and struct
    /// literals of the type (`Self { .. }`) in its own impl; a field set in several places with
    /// different devices is not judged. `PyTorch` attributes are covered by
    /// `unregistered-buffer` (P401) instead: a registered buffer moves with the model.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P106
    pub(crate) struct HostBuiltModelState {
        field: String,
        device: String,
        constructor: String,
        input: String,
        op: String,
    }
}

impl Violation for HostBuiltModelState {
    fn message(&self) -> String {
        format!(
            "model state `self.{}` is built on `{}` in `{}()` but meets device-generic `{}` in `{}`",
            self.field, self.device, self.constructor, self.input, self.op
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "build it in `{}()` on the device the weights are loaded on (`vb.device()`, the device \
             parameter)",
            self.constructor
        ))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut seen = HashSet::new();
    for (index, func) in checker.functions() {
        let here = (checker.file.id, u32::try_from(index).unwrap_or(u32::MAX));
        let forward = checker.is_forward(index);
        if checker.program.is_host_only(here) {
            continue;
        }
        let tree_calls = checker.program.tree_call_spans(here);
        for event in &func.events {
            if let EventKind::Call { target, args } = &event.kind {
                check_call(checker, &mut seen, forward, func, target, args);
                continue;
            }
            let EventKind::Op { name, operands, .. } = &event.kind else {
                continue;
            };
            if tree_calls.contains(&event.span) {
                continue;
            }
            let resolved: Vec<_> = operands.iter().map(|o| (o, checker.resolve(o))).collect();
            // A device-generic operand...
            let Some((input, (generic, _))) = resolved
                .iter()
                .find(|(o, (d, _))| is_generic_data(func, o, d, forward))
            else {
                continue;
            };
            let generic = generic.clone();
            for (operand, (device, origin)) in &resolved {
                // ...meets a field of the receiver...
                let Device::Field(field) = &operand.device else {
                    continue;
                };
                // ...that its constructors built on a hard-coded device.
                let Some(origin) = origin else { continue };
                if !device.is_hard_coded() || origin.is_transfer {
                    continue;
                }
                if !seen.insert((origin.file, origin.span.clone())) {
                    continue;
                }
                let violation = HostBuiltModelState {
                    field: field.name.clone(),
                    device: written(origin).to_string(),
                    constructor: origin.function.clone(),
                    input: checker.text(&input.span),
                    op: crate::engine::meets::op_name(name).to_string(),
                };
                let local = origin.file == checker.file.id;
                let span = match (&origin.device_span, local) {
                    (Some(s), true) => s.clone(),
                    (None, true) => origin.span.clone(),
                    _ => operand.span.clone(),
                };
                let elsewhere = checker.describe_origin(origin);
                let input_text = violation.input.clone();
                let diagnostic = checker.report(&violation, span);
                diagnostic.label(
                    event.span.clone(),
                    format!(
                        "read in `{}()`, where it meets `{input_text}` ({}) here",
                        func.meta.name,
                        device_name(&generic)
                    ),
                );
                if let Some(place) = elsewhere {
                    diagnostic.label(
                        operand.span.clone(),
                        format!("`self.{}` is built at {place}", field.name),
                    );
                }
            }
        }
    }
}

/// A field built on a hard-coded device, passed to a function of the tree whose parameter meets
/// (there or deeper) a device-generic value the caller also passes, or the model's own state.
fn check_call(
    checker: &mut Checker<'_>,
    seen: &mut HashSet<(FileId, Span)>,
    forward: bool,
    func: &Function,
    target: &CallTarget,
    args: &[Arg],
) {
    for meeting in call_meetings(checker, func, forward, target, args) {
        let (arg, origin, witness) = (meeting.arg, &meeting.origin, &meeting.witness);
        let Device::Field(field) = &arg.value.device else {
            continue;
        };
        if !seen.insert((origin.file, origin.span.clone())) {
            continue;
        }
        let violation = HostBuiltModelState {
            field: field.name.clone(),
            device: written(origin).to_string(),
            constructor: origin.function.clone(),
            input: meeting.partner.clone(),
            op: witness.op.clone(),
        };
        let local = origin.file == checker.file.id;
        let span = match (&origin.device_span, local) {
            (Some(s), true) => s.clone(),
            (None, true) => origin.span.clone(),
            _ => arg.value.span.clone(),
        };
        let elsewhere = checker.describe_origin(origin);
        let witness_here = witness.file == checker.file.id;
        let diagnostic = checker.report(&violation, span);
        diagnostic.label(
            arg.value.span.clone(),
            format!(
                "passed as `{}` to `{}()` here, where it meets `{}` ({})",
                meeting.param,
                meeting.callee_name,
                meeting.partner,
                device_name(&meeting.partner_device)
            ),
        );
        if witness_here {
            diagnostic.label(
                witness.span.clone(),
                format!(
                    "meets it in `{}` here (through `{}()`)",
                    witness.op,
                    witness.chain.join("()` → `")
                ),
            );
        }
        if let Some(place) = elsewhere {
            diagnostic.label(
                arg.value.span.clone(),
                format!("`self.{}` is built at {place}", field.name),
            );
        }
    }
}
