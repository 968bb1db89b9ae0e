use crate::checker::Checker;
use crate::ir::{Device, EventKind, Span};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for a model moved to an accelerator (`model.to(device)`, `model.cuda()`) that is then
    /// called with a batch still on the host: straight from a `DataLoader` whose dataset was not
    /// moved, or a tensor built on the CPU, with no `.to(device)` in between.
    ///
    /// ## Why is this bad?
    /// The model's weights are on the GPU and the input is on the CPU: the first layer raises
    /// "Expected all tensors to be on the same device".
    ///
    /// ## Example
    /// ```python
    /// import torch
    /// from torch import nn
    /// from torch.utils.data import DataLoader, TensorDataset
    ///
    /// dataset = TensorDataset(torch.randn(1000, 10), torch.randn(1000, 1))
    /// model = nn.Linear(10, 1)
    /// model.cuda()
    /// for batch_x, batch_y in DataLoader(dataset, batch_size=32):
    ///     output = model(batch_x)
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    /// from torch import nn
    /// from torch.utils.data import DataLoader, TensorDataset
    ///
    /// device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    /// dataset = TensorDataset(torch.randn(1000, 10), torch.randn(1000, 1))
    /// model = nn.Linear(10, 1).to(device)
    /// for batch_x, batch_y in DataLoader(dataset, batch_size=32):
    ///     output = model(batch_x.to(device))
    /// ```
    ///
    /// ## Known problems
    /// Only a model held in a local variable and called in the same function is followed.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P402
    /// - `../shared/reference/why-tensors-on-different-devices.md`, Example 1
    pub(crate) struct ModelInputDeviceMismatch {
        input: String,
        model: String,
    }
}

impl Violation for ModelInputDeviceMismatch {
    fn message(&self) -> String {
        format!(
            "`{}` is on the host but model `{}` was moved to an accelerator",
            self.input, self.model
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!("move the batch first: `{}.to(device)`", self.input))
    }
}

/// Whether the loader built at `span` (in this file) iterates a dataset class of the tree that
/// moves its data to a device itself, possibly defined in another file.
fn dataset_moves(checker: &Checker<'_>, span: &Span) -> bool {
    checker.file.functions.iter().any(|f| {
        f.events.iter().any(|e| match &e.kind {
            EventKind::LoaderNew {
                dataset_class: Some(class),
                ..
            } => e.span == *span && checker.program.class_moves_to_device(class),
            _ => false,
        })
    })
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            let EventKind::ModuleCall { module, inputs } = &event.kind else {
                continue;
            };
            // The model was moved off the host...
            let Some(moved) = module.origin.as_ref().filter(|o| o.is_transfer) else {
                continue;
            };
            if module.device == Device::Cpu {
                continue;
            }
            // ...and an input is on the host, where a factory or a loader put it.
            let Some(input) = inputs.iter().find(|i| {
                let (device, origin) = checker.resolve(i);
                device == Device::Cpu
                    && origin.is_some_and(|o| !o.is_transfer && !dataset_moves(checker, &o.span))
            }) else {
                continue;
            };
            let violation = ModelInputDeviceMismatch {
                input: checker.text(&input.span),
                model: checker.text(&module.span),
            };
            checker
                .report(&violation, input.span.clone())
                .label(moved.span.clone(), "model moved here");
        }
    }
}
