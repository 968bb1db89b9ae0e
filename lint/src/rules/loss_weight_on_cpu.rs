use crate::checker::Checker;
use crate::ir::{Device, EventKind, ValueKind};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for a loss or module built with a host tensor argument (`weight=torch.tensor(..)`,
    /// `pos_weight=..`) that is never moved, in a function that moves a model to an accelerator.
    ///
    /// ## Why is this bad?
    /// The loss keeps its weight on the CPU while the logits are on the GPU: the loss call raises
    /// "Expected all tensors to be on the same device".
    ///
    /// ## Example
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// def setup(device):
    ///     model = nn.Linear(128, 3).to(device)
    ///     criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 1.0]))
    ///     return model, criterion
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// def setup(device):
    ///     model = nn.Linear(128, 3).to(device)
    ///     criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 1.0], device=device))
    ///     return model, criterion
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P403
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "Debugging Device Problems"
    pub(crate) struct LossWeightOnCpu {
        keyword: String,
        class: String,
    }
}

impl Violation for LossWeightOnCpu {
    fn message(&self) -> String {
        format!(
            "`{}=` of `{}` is a host tensor, but the model is moved to an accelerator",
            self.keyword, self.class
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "create the `{}` tensor on the model's device, or move the `{}` with `.to(device)`",
            self.keyword, self.class
        ))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        // A model is moved to an accelerator here.
        let Some(model_moved) = func.events.iter().find(|e| {
            matches!(&e.kind, EventKind::Transfer { source, to, .. }
                if source.kind == ValueKind::Module && *to != Device::Cpu)
        }) else {
            continue;
        };
        for event in &func.events {
            let EventKind::ModuleNew { class, tensor_args } = &event.kind else {
                continue;
            };
            // A weight built on the host...
            let Some((keyword, weight)) = tensor_args.iter().find(|(k, v)| {
                crate::frontend::python::tables::WEIGHT_KEYWORDS.contains(&k.as_str()) && {
                    let (device, origin) = checker.resolve(v);
                    device == Device::Cpu && origin.is_some_and(|o| !o.is_transfer)
                }
            }) else {
                continue;
            };
            // ...for a module that is never moved.
            let moved = func.events.iter().any(|e| {
                matches!(&e.kind, EventKind::Transfer { source, .. }
                    if source.origin.as_ref().is_some_and(|o| o.span == event.span))
            });
            if moved {
                continue;
            }
            let violation = LossWeightOnCpu {
                keyword: keyword.clone(),
                class: class.clone(),
            };
            checker
                .report(&violation, weight.span.clone())
                .label(model_moved.span.clone(), "the model is moved here");
        }
    }
}
