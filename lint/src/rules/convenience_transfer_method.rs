use crate::checker::Checker;
use crate::ir::EventKind;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for transfers written with the convenience methods `.cuda()` and `.cpu()`.
    ///
    /// ## Why is this bad?
    /// `.cuda()` names one backend: the code cannot run on a machine without CUDA, on Apple's
    /// `mps` or on another accelerator without edits. `.to(device)` with a device chosen once
    /// keeps the code device-agnostic (and also converts dtypes).
    ///
    /// ## Example
    /// ```python
    /// def step(model, x):
    ///     return model(x.cuda())
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// def step(model, x, device):
    ///     return model(x.to(device))
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P207
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "Moving Tensors Between Devices"
    pub(crate) struct ConvenienceTransferMethod {
        method: String,
    }
}

impl Violation for ConvenienceTransferMethod {
    fn message(&self) -> String {
        format!("`.{}()` ties the code to one device", self.method)
    }

    fn help(&self) -> Option<String> {
        Some("use `.to(device)` with a device chosen once".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            if !matches!(event.kind, EventKind::Transfer { .. }) {
                continue;
            }
            let text = checker.text(&event.span);
            let method = if text.starts_with("cuda(") {
                "cuda"
            } else if text.starts_with("cpu(") {
                "cpu"
            } else {
                continue;
            };
            checker.report(
                &ConvenienceTransferMethod {
                    method: method.to_string(),
                },
                event.span.clone(),
            );
        }
    }
}
