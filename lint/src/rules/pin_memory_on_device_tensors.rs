use crate::checker::Checker;
use crate::ir::{Device, EventKind};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for `DataLoader(..., pin_memory=True)` over a dataset that already holds or returns
    /// accelerator tensors: its class moves data to a device in `__init__` or `__getitem__`, or it
    /// is built from tensors moved with `.to(device)`.
    ///
    /// ## Why is this bad?
    /// Only dense CPU tensors can be pinned: the loader's pin-memory thread raises "cannot pin
    /// 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned". Data already on the device
    /// gains nothing from pinning anyway.
    ///
    /// ## Example
    /// ```python
    /// import torch
    /// from torch.utils.data import DataLoader, Dataset
    ///
    /// class OnDevice(Dataset):
    ///     def __init__(self, x, device):
    ///         self.x = x.to(device)
    ///
    ///     def __getitem__(self, i):
    ///         return self.x[i]
    ///
    /// loader = DataLoader(OnDevice(torch.randn(100, 4), "cuda"), pin_memory=True)
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    /// from torch.utils.data import DataLoader, Dataset
    ///
    /// class OnHost(Dataset):
    ///     def __init__(self, x):
    ///         self.x = x
    ///
    ///     def __getitem__(self, i):
    ///         return self.x[i]
    ///
    /// loader = DataLoader(OnHost(torch.randn(100, 4)), pin_memory=True)
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P205
    /// - `../shared/reference/why-tensors-on-different-devices.md`, Example 3
    pub(crate) struct PinMemoryOnDeviceTensors;
}

impl Violation for PinMemoryOnDeviceTensors {
    fn message(&self) -> String {
        "`pin_memory=True` on a loader whose dataset is already on an accelerator".to_string()
    }

    fn help(&self) -> Option<String> {
        Some("keep the dataset on the host and move each batch, or drop `pin_memory=True`".into())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            let EventKind::LoaderNew {
                pin_memory: Some(pin),
                dataset_class,
                batches,
            } = &event.kind
            else {
                continue;
            };
            let moved_class = dataset_class
                .as_deref()
                .is_some_and(|c| checker.program.class_moves_to_device(c));
            let moved_tensors = batches.origin.as_ref().is_some_and(|o| o.is_transfer)
                && batches.device != Device::Cpu;
            if moved_class || moved_tensors {
                checker.report(&PinMemoryOnDeviceTensors, pin.clone());
            }
        }
    }
}
