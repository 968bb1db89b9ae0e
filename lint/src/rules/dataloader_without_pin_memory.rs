use std::collections::HashSet;

use crate::checker::Checker;
use crate::ir::{Device, EventKind};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for a `DataLoader` built without `pin_memory=True` whose batches the consuming loop
    /// moves to an accelerator.
    ///
    /// ## Why is this bad?
    /// Batches in pageable memory are copied through a staging buffer, synchronously. With pinned
    /// memory the copy is faster and can overlap compute (`non_blocking=True`).
    ///
    /// ## Example
    /// ```python
    /// from torch.utils.data import DataLoader
    ///
    /// def train(dataset, model, device):
    ///     loader = DataLoader(dataset, batch_size=64, shuffle=True)
    ///     for x, y in loader:
    ///         model(x.to(device))
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// from torch.utils.data import DataLoader
    ///
    /// def train(dataset, model, device):
    ///     loader = DataLoader(dataset, batch_size=64, shuffle=True, pin_memory=True)
    ///     for x, y in loader:
    ///         model(x.to(device, non_blocking=True))
    /// ```
    ///
    /// ## Known problems
    /// Pinned memory is page-locked: on machines short of RAM, or for CPU-only training, leaving
    /// it off is right. That is why the rule is pedantic.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P204
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "`DataLoader` and Device Transfer"
    pub(crate) struct DataloaderWithoutPinMemory;
}

impl Violation for DataloaderWithoutPinMemory {
    fn message(&self) -> String {
        "the batches of this `DataLoader` go to an accelerator but are not in pinned memory"
            .to_string()
    }

    fn help(&self) -> Option<String> {
        Some("pass `pin_memory=True`".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut reported = HashSet::new();
    for (_, func) in checker.functions() {
        for event in &func.events {
            let EventKind::LoaderNew {
                pin_memory: None,
                batches,
                ..
            } = &event.kind
            else {
                continue;
            };
            if batches.origin.as_ref().is_some_and(|o| o.is_transfer) {
                continue;
            }
            // A transfer of one of its batches, inside a loop, to somewhere that is not the host.
            let moved = func.events.iter().any(|e| {
                matches!(&e.kind, EventKind::Transfer { source, to, .. }
                    if e.loop_id.is_some()
                        && *to != Device::Cpu
                        && source.origin.as_ref().is_some_and(|o| o.span == event.span))
            });
            if moved && reported.insert(event.span.clone()) {
                checker.report(&DataloaderWithoutPinMemory, event.span.clone());
            }
        }
    }
}
