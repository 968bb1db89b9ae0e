use crate::checker::Checker;
use crate::ir::{Device, EventKind};
use crate::rule::{declare_rule, Violation};
use crate::utils::device_name;

declare_rule! {
    /// ## What it does
    /// Checks for `.numpy()` on a tensor known to be on an accelerator, with no `.cpu()` before it.
    ///
    /// ## Why is this bad?
    /// `numpy` arrays live in host memory: `PyTorch` raises "can't convert cuda:0 device type
    /// tensor to numpy. Use `Tensor.cpu()` to copy the tensor to host memory first".
    ///
    /// ## Example
    /// ```python
    /// import torch
    ///
    /// x = torch.randn(3, device="cuda")
    /// arr = x.numpy()
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    ///
    /// x = torch.randn(3, device="cuda")
    /// arr = x.detach().cpu().numpy()
    /// ```
    ///
    /// ## Known problems
    /// Only tensors whose device is written in the code are known to be on an accelerator;
    /// `.numpy()` on a tensor that requires grad (which raises too) is not checked.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P206
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "`NumPy` Conversion"
    pub(crate) struct HostReadOfDeviceTensor {
        tensor: String,
        device: String,
    }
}

impl Violation for HostReadOfDeviceTensor {
    fn message(&self) -> String {
        format!(
            "`.numpy()` on `{}`, which is on {}",
            self.tensor, self.device
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "copy it to the host first: `{}.cpu().numpy()`",
            self.tensor
        ))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            let EventKind::HostRead { source, method } = &event.kind else {
                continue;
            };
            if method != "numpy" {
                continue;
            }
            let (device, origin) = checker.resolve(source);
            if !matches!(device, Device::Cuda(_) | Device::Meta) {
                continue;
            }
            let violation = HostReadOfDeviceTensor {
                tensor: checker.text(&source.span),
                device: device_name(&device),
            };
            let file = checker.file.id;
            let diagnostic = checker.report(&violation, event.span.clone());
            if let Some(o) = origin.filter(|o| o.file == file) {
                let span = o.device_span.clone().unwrap_or(o.span.clone());
                diagnostic.label(span, "placed on the device here");
            }
        }
    }
}
