use crate::checker::Checker;
use crate::ir::{EventKind, Function, LoopId};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for transfers inside a loop of a value that is defined before the loop and not
    /// changed in it, to a device that does not change in it either.
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

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            let Some(lp) = event.loop_id else { continue };
            let EventKind::Transfer {
                source, to_value, ..
            } = &event.kind
            else {
                continue;
            };
            // The moved value is a local defined outside the loop and never reassigned in it...
            let Some(var) = source.var else { continue };
            if !invariant(func, var, lp) {
                continue;
            }
            // ...and so is everything the target device is computed from.
            if !to_value.reads.iter().all(|b| invariant(func, *b, lp)) {
                continue;
            }
            checker.report(
                &LoopInvariantTransfer {
                    value: checker.text(&source.span),
                    target: checker.text(&to_value.span),
                },
                event.span.clone(),
            );
        }
    }
}
