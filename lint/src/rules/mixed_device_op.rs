use crate::checker::Checker;
use crate::ir::EventKind;
use crate::rule::{declare_rule, Violation};
use crate::utils::{conflict, device_name, written};

declare_rule! {
    /// ## What it does
    /// Checks for ops (binary ops, `matmul`, `cat`, indexing, ...) whose operands are on devices
    /// known statically to differ: CPU and CUDA, `cuda:0` and `cuda:1`, meta and anything else.
    /// Checked in every function, not only forward paths.
    ///
    /// ## Why is this bad?
    /// The op cannot run: candle returns `Error::DeviceMismatchBinaryOp`, tch panics with
    /// "Expected all tensors to be on the same device", placer-runtime returns
    /// `Error::DeviceMismatch`. No library copies across devices implicitly.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use tch::{Device, Kind, Tensor};
    /// fn scores() -> Tensor {
    ///     let q = Tensor::randn([4, 8], (Kind::Float, Device::Cuda(0)));
    ///     let k = Tensor::randn([8, 4], (Kind::Float, Device::Cpu));
    ///     q.matmul(&k)
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def mismatch():
    ///     x = torch.randn(3, device="cuda")
    ///     y = torch.randn(3, device="cpu")
    ///     return x + y
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use tch::{Device, Kind, Tensor};
    /// fn scores(device: Device) -> Tensor {
    ///     let q = Tensor::randn([4, 8], (Kind::Float, device));
    ///     let k = Tensor::randn([8, 4], (Kind::Float, device));
    ///     q.matmul(&k)
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def fixed():
    ///     x = torch.randn(3, device="cuda")
    ///     y = torch.randn(3, device="cpu")
    ///     return x + y.to(x.device)
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P501
    pub(crate) struct MixedDeviceOp {
        op: String,
        lhs: String,
        lhs_device: String,
        rhs: String,
        rhs_device: String,
        python: bool,
    }
}

impl Violation for MixedDeviceOp {
    fn message(&self) -> String {
        format!(
            "`{}` on {} and `{}` on {} meet in `{}`",
            self.lhs, self.lhs_device, self.rhs, self.rhs_device, self.op
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "create both on the same device, or move `{}` with `{}` first",
            self.rhs,
            if self.python {
                ".to(..)"
            } else {
                ".to_device(..)"
            }
        ))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            let EventKind::Op { name, operands, .. } = &event.kind else {
                continue;
            };
            let resolved: Vec<_> = operands.iter().map(|o| (o, checker.resolve(o))).collect();
            // The first pair of operands whose devices are known and differ.
            let pair = resolved.iter().enumerate().find_map(|(i, a)| {
                resolved[i + 1..]
                    .iter()
                    .find(|b| conflict(&a.1 .0, &b.1 .0))
                    .map(|b| (a, b))
            });
            let Some(((lhs, (lhs_dev, lhs_origin)), (rhs, (rhs_dev, rhs_origin)))) = pair else {
                continue;
            };
            let violation = MixedDeviceOp {
                op: crate::engine::meets::op_name(name).to_string(),
                lhs: checker.text(&lhs.span),
                lhs_device: device_name(lhs_dev),
                rhs: checker.text(&rhs.span),
                rhs_device: device_name(rhs_dev),
                python: checker.is_python(),
            };
            let file = checker.file.id;
            let texts = [violation.lhs.clone(), violation.rhs.clone()];
            let diagnostic = checker.report(&violation, event.span.clone());
            for (text, origin) in texts.iter().zip([lhs_origin, rhs_origin]) {
                if let Some(origin) = origin.as_ref().filter(|o| o.file == file) {
                    let span = origin.device_span.clone().unwrap_or(origin.span.clone());
                    diagnostic.label(
                        span,
                        format!("`{}` is placed on `{}` here", text, written(origin)),
                    );
                }
            }
        }
    }
}
