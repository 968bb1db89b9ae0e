use crate::checker::Checker;
use crate::diagnostic::{Applicability, Edit, Fix};
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
    /// ## Fix
    /// Safe: `.cpu()` becomes `.to("cpu")`, `.cuda()` becomes `.to("cuda")` (the same device),
    /// from where passing a `device` variable is one edit.
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

/// `cpu()` → `to("cpu")`, `cuda()` → `to("cuda")`, `cuda(1)` → `to("cuda:1")`, keeping a
/// `non_blocking=` keyword. The same device in both spellings (`"cuda"` is the current CUDA
/// device, as `.cuda()`), so the fix is safe; `None` for other argument lists.
fn to_call(text: &str, method: &str) -> Option<String> {
    let args = text
        .strip_prefix(method)?
        .strip_prefix('(')?
        .strip_suffix(')')?;
    let mut device = method.to_string();
    let mut rest = Vec::new();
    for arg in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        if arg.starts_with("non_blocking") {
            rest.push(arg.to_string());
        } else if method == "cuda" && arg.bytes().all(|b| b.is_ascii_digit()) && rest.is_empty() {
            device = format!("cuda:{arg}");
        } else {
            return None;
        }
    }
    let mut out = format!("to(\"{device}\"");
    for r in rest {
        out.push_str(", ");
        out.push_str(&r);
    }
    out.push(')');
    Some(out)
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
            let fix = to_call(&text, method).map(|replacement| Fix {
                edits: vec![Edit {
                    range: event.span.clone(),
                    content: Some(replacement.into()),
                }],
                applicability: Applicability::Safe,
            });
            checker
                .report(
                    &ConvenienceTransferMethod {
                        method: method.to_string(),
                    },
                    event.span.clone(),
                )
                .fix = fix;
        }
    }
}
