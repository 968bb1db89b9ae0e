use crate::checker::Checker;
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::ir::{Device, EventKind, Function, Loop, LoopId, Span, ValueKind};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for transfers inside a loop of a value that is defined before the loop and not
    /// changed in it, to a device that does not change in it either. Not a module (one the loop
    /// calls, or trains through `.parameters()`): `model.to(device)` moves its parameters in
    /// place, so a repeated move is a no-op, and a round trip (`model.cpu()`, save,
    /// `model.cuda()`) is a checkpoint of a model the loop changes. Nor a tensor built on the host
    /// moved to the host (`grid.cpu()` of a `torch.linspace` grid): that returns it, copying nothing.
    ///
    /// ## Why is this bad?
    /// The same copy is made on every iteration: a host-to-device copy per step where one before
    /// the loop would do.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// fn score(batches: &[Tensor], weights: &Tensor, device: &Device) -> Result<Vec<Tensor>> {
    ///     let mut out = Vec::new();
    ///     for batch in batches {
    ///         let w = weights.to_device(device)?;
    ///         out.push(batch.matmul(&w)?);
    ///     }
    ///     Ok(out)
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def run(model, batches, device):
    ///     weights = torch.ones(10)
    ///     for batch in batches:
    ///         model(batch * weights.to(device))
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// fn score(batches: &[Tensor], weights: &Tensor, device: &Device) -> Result<Vec<Tensor>> {
    ///     let w = weights.to_device(device)?;
    ///     let mut out = Vec::new();
    ///     for batch in batches {
    ///         out.push(batch.matmul(&w)?);
    ///     }
    ///     Ok(out)
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def run(model, batches, device):
    ///     weights = torch.ones(10).to(device)
    ///     for batch in batches:
    ///         model(batch * weights)
    /// ```
    ///
    /// ## Known problems
    /// Only local variables are tracked: a transfer of `self.w` in a loop is not reported.
    ///
    /// ## Fix
    /// Unsafe (`--unsafe-fixes`): when the transfer is a `let` statement of its own directly in
    /// the loop's body (`let w = self.w.to_device(&dev)?;`), the statement moves to just before
    /// the loop. The transfer then also runs when the loop runs zero times.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P202
    pub(crate) struct LoopInvariantTransfer {
        value: String,
        target: String,
    }
}

impl Violation for LoopInvariantTransfer {
    fn message(&self) -> String {
        format!(
            "`{}` is moved to `{}` on every iteration, but neither changes in the loop",
            self.value, self.target
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!("move `{}` once, before the loop", self.value))
    }
}

/// Whether binding `b` keeps its value throughout loop `lp`.
fn invariant(func: &Function, b: u32, lp: LoopId) -> bool {
    let binding = &func.bindings[b as usize];
    !func.loop_within(binding.def_loop, lp)
        && !binding.assigned_in.iter().any(|l| func.loop_within(*l, lp))
}

/// Moves `let w = x.to_device(&d)?;` from the loop's body to just before the loop, when the
/// statement is directly in the body, starts its own line, and its initializer is the transfer
/// alone (with `?`). Unsafe: the transfer then runs even if the loop runs zero times, and the
/// binding is visible after the loop.
fn hoist(source: &str, lp: &Loop, transfer: &Span) -> Option<Fix> {
    let stmt = lp
        .lets
        .iter()
        .find(|l| l.start <= transfer.start && transfer.end <= l.end)?;
    let text = source.get(stmt.clone())?;
    let eq = text.find('=')?;
    let init_start = stmt.start + eq + 1;
    let before = source.get(init_start..transfer.start)?;
    let after = source.get(transfer.end..stmt.end)?;
    // The initializer is `<receiver>.to_device(..)?`: a plain name or field path as receiver (the
    // event's span starts at the method), nothing after but `?`.
    let receiver = before.trim();
    let plain = receiver.is_empty()
        || receiver.ends_with('.')
            && receiver
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    if !plain || !after.trim_end_matches(';').trim().chars().all(|c| c == '?') {
        return None;
    }
    let line_start = |at: usize| source[..at].rfind('\n').map_or(0, |i| i + 1);
    let stmt_line = line_start(stmt.start);
    let loop_line = line_start(lp.span.start);
    if !source[stmt_line..stmt.start].trim().is_empty() {
        return None;
    }
    let rest = &source[stmt.end..];
    let line_end = rest.find('\n').map_or(source.len(), |i| stmt.end + i + 1);
    if !source[stmt.end..line_end].trim().is_empty() {
        return None;
    }
    let indent: String = source[loop_line..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    Some(Fix {
        edits: vec![
            Edit {
                range: loop_line..loop_line,
                content: Some(format!("{indent}{text}\n").into()),
            },
            Edit {
                range: stmt_line..line_end,
                content: None,
            },
        ],
        applicability: Applicability::Unsafe,
    })
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            let Some(lp) = event.loop_id else { continue };
            // (Not a host-built index copied by indexing: that is P103's, with no `.to()` to
            // hoist.)
            let EventKind::Transfer {
                source,
                to,
                to_value,
                by_indexing: false,
            } = &event.kind
            else {
                continue;
            };
            // A module moved in a loop moves its parameters in place: once they are there, the
            // same move is a no-op; one that goes back and forth each iteration (`model.cpu()`,
            // save, `model.cuda()`) does so on purpose (a checkpoint, freeing the device).
            let source_text = &checker.file.source;
            let loop_text = source_text
                .get(func.loops[lp as usize].span.clone())
                .unwrap_or("");
            if source.kind == ValueKind::Module
                || is_called_in(
                    loop_text,
                    source_text.get(source.span.clone()).unwrap_or(""),
                )
            {
                continue;
            }
            // The moved value is a local defined outside the loop and never reassigned in it...
            let Some(var) = source.var else { continue };
            if !invariant(func, var, lp) {
                continue;
            }
            // ...and so is everything the target device is computed from.
            if !to_value.reads.iter().all(|b| invariant(func, *b, lp)) {
                continue;
            }
            // Already moved there before the loop (`latent = latent.to(device)`, then
            // `latent.to(device)` in it): the transfer returns the tensor itself and copies
            // nothing.
            let target = checker.text(&to_value.span);
            let (source_device, origin) = checker.resolve(source);
            if origin.is_some_and(|o| o.is_transfer && o.device_text == target) {
                continue;
            }
            // A host-built tensor moved to the host (`grid.cpu()` of a `torch.linspace` grid):
            // the move returns the tensor itself.
            if *to == Device::Cpu && source_device == Device::Cpu {
                continue;
            }
            let fix = hoist(&checker.file.source, &func.loops[lp as usize], &event.span);
            checker
                .report(
                    &LoopInvariantTransfer {
                        value: checker.text(&source.span),
                        target,
                    },
                    event.span.clone(),
                )
                .fix = fix;
        }
    }
}

/// Whether `name` is called in `text` (`model(x)`, `model.train()`): a module, not a tensor.
fn is_called_in(text: &str, name: &str) -> bool {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return false;
    }
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = &text[at + name.len()..];
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && (after.starts_with('(')
                || [
                    ".parameters(",
                    ".train(",
                    ".eval(",
                    ".zero_grad(",
                    ".state_dict(",
                ]
                .iter()
                .any(|m| after.starts_with(m)))
    })
}
