use crate::checker::Checker;
use crate::ir::EventKind;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks library code for devices with a literal ordinal: `Device::Cuda(1)` (tch,
    /// placer-runtime), `Device::new_cuda(0)` (candle), `CudaDevice::new(0)` /
    /// `LibTorchDevice::Cuda(0)` (burn). Binaries (`main.rs`, `bin/`, `build.rs`, any file with a
    /// top-level `fn main`; Python: a `__main__` guard, module-level argument parsing, or a module
    /// that prints, saves a tensor or edits `sys.path` when imported), examples and tests are not
    /// checked, nor is a probe that only asks
    /// whether a device exists (`Device::new_metal(0).is_ok()`), nor ordinal 0 as the fallback
    /// when no device was given (`if device is None:`, `"cuda:0" if device is None else ..`,
    /// `device or "cuda:0"`), where it spells the default GPU, nor a parser's arm for the name
    /// the caller gave (`"cuda" | "cuda:0" => Device::new_cuda(0)`). A parameter's default
    /// (`device="cuda:0"`) is reported by `hard-coded-device-default` (P107) instead: the device
    /// is a parameter already.
    ///
    /// ## Why is this bad?
    /// The library decides for its caller which GPU it runs on: on a multi-GPU machine the caller's
    /// tensors are on another ordinal and every op fails with a device mismatch, and on a machine
    /// without that GPU creating the device fails.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// pub fn load_embeddings(data: &[f32]) -> Result<Tensor> {
    ///     let device = Device::new_cuda(0)?;
    ///     Tensor::from_slice(data, data.len(), &device)
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def load_embeddings(data):
    ///     return torch.tensor(data, device="cuda:0")
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// pub fn load_embeddings(data: &[f32], device: &Device) -> Result<Tensor> {
    ///     Tensor::from_slice(data, data.len(), device)
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def load_embeddings(data, device):
    ///     return torch.tensor(data, device=device)
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P102
    pub(crate) struct HardcodedDeviceOrdinal {
        ordinal: u32,
        text: String,
    }
}

impl Violation for HardcodedDeviceOrdinal {
    fn message(&self) -> String {
        format!(
            "device ordinal {} is hard-coded in library code: `{}`",
            self.ordinal, self.text
        )
    }

    fn help(&self) -> Option<String> {
        Some("take the device as a parameter and let the caller choose it".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    // Binaries and examples choose the device for everyone: that is where it belongs.
    if checker.file.is_binary {
        return;
    }
    let source = checker.file.source.clone();
    // A parameter's default (`device="cuda:0"`) is hard-coded-device-default's (P107): the
    // device is a parameter already, and one default is one finding.
    let defaults: Vec<std::ops::Range<usize>> = checker
        .functions()
        .flat_map(|(_, f)| f.params.iter().filter_map(|p| p.default.as_ref()))
        .map(|d| d.span.clone())
        .collect();
    for (_, func) in checker.functions() {
        // Tests pick a device for themselves, even when test code is linted.
        if func.meta.is_test {
            continue;
        }
        for event in &func.events {
            let EventKind::DeviceOrdinal { ordinal } = event.kind else {
                continue;
            };
            if defaults
                .iter()
                .any(|d| d.start <= event.span.start && event.span.end <= d.end)
            {
                continue;
            }
            // `Device::new_metal(0).is_ok()` only asks whether a device exists (a listing of
            // what the machine has): nothing is placed on it.
            let after = source.get(event.span.end..).unwrap_or("");
            if after.starts_with(".is_ok()") || after.starts_with(".is_err()") {
                continue;
            }
            let text = source.get(event.span.clone()).unwrap_or("").to_string();
            checker.report(
                &HardcodedDeviceOrdinal { ordinal, text },
                event.span.clone(),
            );
        }
    }
}
