use crate::checker::Checker;
use crate::ir::EventKind;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for CUDA chosen unconditionally (`device = "cuda"`, `torch.device("cuda")`,
    /// `device="cuda"`, `.cuda()`) in a file that never asks whether CUDA is there
    /// (`torch.cuda.is_available()`).
    ///
    /// ## Why is this bad?
    /// On a machine without a CUDA GPU (a laptop, CI, Apple silicon) the first CUDA tensor raises
    /// "Torch not compiled with CUDA enabled" or "no CUDA GPUs are available", where the code
    /// could have run on the CPU.
    ///
    /// ## Example
    /// ```python
    /// import torch
    ///
    /// device = "cuda"
    /// x = torch.randn(32, 128, device=device)
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    ///
    /// device = "cuda" if torch.cuda.is_available() else "cpu"
    /// x = torch.randn(32, 128, device=device)
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P104
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "CUDA Tensors"
    pub(crate) struct CudaWithoutFallback;
}

impl Violation for CudaWithoutFallback {
    fn message(&self) -> String {
        "`cuda` is chosen with no fallback for machines without it".to_string()
    }

    fn help(&self) -> Option<String> {
        Some("choose the device once with `torch.cuda.is_available()` and pass it on".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let file = checker.file;
    // A file that checks for CUDA anywhere has its fallback.
    let checks = file
        .functions
        .iter()
        .flat_map(|f| &f.events)
        .any(|e| matches!(e.kind, EventKind::AvailabilityCheck));
    if checks {
        return;
    }
    for (_, func) in checker.functions() {
        for event in &func.events {
            if matches!(event.kind, EventKind::AcceleratorChoice) {
                checker.report(&CudaWithoutFallback, event.span.clone());
            }
        }
    }
}
