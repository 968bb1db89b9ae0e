use crate::checker::Checker;
use crate::ir::{Device, EventKind, Span};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for `.to(device, non_blocking=True)` on batches of a `DataLoader` built without
    /// `pin_memory=True`, or on a tensor just built on the host (pageable memory).
    ///
    /// ## Why is this bad?
    /// A copy from pageable host memory cannot be asynchronous: CUDA stages it through a pinned
    /// buffer and the call returns only when the copy is done. The code looks overlapped but is
    /// not.
    ///
    /// ## Example
    /// ```python
    /// from torch.utils.data import DataLoader
    ///
    /// def train(dataset, model, device):
    ///     for x, y in DataLoader(dataset, batch_size=64):
    ///         model(x.to(device, non_blocking=True))
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// from torch.utils.data import DataLoader
    ///
    /// def train(dataset, model, device):
    ///     for x, y in DataLoader(dataset, batch_size=64, pin_memory=True):
    ///         model(x.to(device, non_blocking=True))
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P203
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "`DataLoader` and Device Transfer"
    pub(crate) struct NonBlockingWithoutPinnedMemory {
        tensor: String,
    }
}

impl Violation for NonBlockingWithoutPinnedMemory {
    fn message(&self) -> String {
        format!(
            "`non_blocking=True` on `{}`, which is not in pinned memory: the copy is synchronous",
            self.tensor
        )
    }

    fn help(&self) -> Option<String> {
        Some("build the loader with `pin_memory=True` (or call `.pin_memory()` first)".into())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let file = checker.file;
    // Loaders of this file without pinned memory, by their span.
    let unpinned: Vec<Span> = file
        .functions
        .iter()
        .flat_map(|f| &f.events)
        .filter_map(|e| match &e.kind {
            EventKind::LoaderNew {
                pin_memory: None, ..
            } => Some(e.span.clone()),
            _ => None,
        })
        .collect();
    let pinned: Vec<Span> = file
        .functions
        .iter()
        .flat_map(|f| &f.events)
        .filter_map(|e| match &e.kind {
            EventKind::LoaderNew {
                pin_memory: Some(_),
                ..
            } => Some(e.span.clone()),
            _ => None,
        })
        .collect();
    for (_, func) in checker.functions() {
        for event in &func.events {
            let EventKind::NonBlocking { source } = &event.kind else {
                continue;
            };
            let (device, origin) = checker.resolve(source);
            let Some(origin) = origin.filter(|o| !o.is_transfer && o.file == file.id) else {
                continue;
            };
            // A batch of an unpinned loader, or a tensor a factory just built on the host.
            let from_loader = unpinned.contains(&origin.span);
            if !(from_loader || device == Device::Cpu && !pinned.contains(&origin.span)) {
                continue;
            }
            let tensor = checker.text(&source.span);
            let diagnostic = checker.report(
                &NonBlockingWithoutPinnedMemory { tensor },
                event.span.clone(),
            );
            if from_loader {
                diagnostic.label(
                    origin.span.clone(),
                    "loader built without `pin_memory=True`",
                );
            }
        }
    }
}
