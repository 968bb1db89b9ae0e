use crate::checker::Checker;
use crate::ir::{Device, EventKind};
use crate::rule::{declare_rule, Violation};
use crate::utils::device_name;

declare_rule! {
    /// ## What it does
    /// Checks for `.numpy()` on a tensor known to be on an accelerator, with no `.cpu()` before it,
    /// and on a tensor that requires grad (a model's output outside `torch.no_grad()` or
    /// `torch.inference_mode()`, or anything computed from it) with no `.detach()` before it.
    ///
    /// ## Why is this bad?
    /// `numpy` arrays live in host memory: `PyTorch` raises "can't convert cuda:0 device type
    /// tensor to numpy. Use `Tensor.cpu()` to copy the tensor to host memory first". And they
    /// have no autograd graph: on a tensor in one it raises "Can't call `numpy()` on `Tensor` that
    /// requires grad. Use `tensor.detach().numpy()` instead".
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
    /// Only tensors whose device is written in the code are known to be on an accelerator. A
    /// tensor is known to require grad when it is the output of a model moved to a device in the
    /// same function (`model = Net().to(device)`), or computed from one, in code not under
    /// `no_grad`/`inference_mode`: a module never moved may have no parameters (padding,
    /// activations), and parameters and `requires_grad=True` factories are not tracked.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P206
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "`NumPy` Conversion"
    pub(crate) struct HostReadOfDeviceTensor {
        tensor: String,
        /// The accelerator it is on; `None` when the problem is that it requires grad.
        device: Option<String>,
    }
}

impl Violation for HostReadOfDeviceTensor {
    fn message(&self) -> String {
        match &self.device {
            Some(device) => format!("`.numpy()` on `{}`, which is on {device}", self.tensor),
            None => format!(
                "`.numpy()` on `{}`, which requires grad (a model's output outside `torch.no_grad()`)",
                self.tensor
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match &self.device {
            Some(_) => format!("copy it to the host first: `{}.cpu().numpy()`", self.tensor),
            None => format!(
                "detach it first (`{}.detach().numpy()`), or compute it under `torch.no_grad()`",
                self.tensor
            ),
        })
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
            let on_accelerator = matches!(device, Device::Cuda(_) | Device::Meta);
            if !on_accelerator && !source.requires_grad {
                continue;
            }
            let violation = HostReadOfDeviceTensor {
                tensor: checker.text(&source.span),
                device: on_accelerator.then(|| device_name(&device)),
            };
            let file = checker.file.id;
            let diagnostic = checker.report(&violation, event.span.clone());
            if let Some(o) = origin.filter(|o| o.file == file && on_accelerator) {
                let span = o.device_span.clone().unwrap_or(o.span.clone());
                diagnostic.label(span, "placed on the device here");
            }
        }
    }
}
