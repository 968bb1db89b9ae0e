use crate::checker::Checker;
use crate::ir::EventKind;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for calls that release the caching allocator's memory (`empty_cache()`) inside a
    /// loop. Not in an `except` handler: releasing the cache after an out-of-memory error, before
    /// retrying with a smaller batch, is its documented use. Nor right before a `return`,
    /// `break` or `raise` that ends the iteration (with no `continue` before it): that runs once
    /// per loop, not per iteration. Like every performance rule, not in a private module-level
    /// Python function (`_name`) that nothing in the checked tree names: code that never runs
    /// costs nothing.
    ///
    /// ## Why is this bad?
    /// Freed blocks go back to the driver and the next iteration allocates them again with
    /// `cudaMalloc`, which synchronises the device. It does not make more memory available to the
    /// loop itself.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use placer_runtime::{Device, Result, Tensor};
    /// fn run(batches: &[Tensor], device: &Device) -> Result<()> {
    ///     for batch in batches {
    ///         let _y = batch.relu()?;
    ///         device.empty_cache()?;
    ///     }
    ///     Ok(())
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def train(model, loader):
    ///     for x, y in loader:
    ///         model(x)
    ///         torch.cuda.empty_cache()
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use placer_runtime::{Device, Result, Tensor};
    /// fn run(batches: &[Tensor], device: &Device) -> Result<()> {
    ///     for batch in batches {
    ///         let _y = batch.relu()?;
    ///     }
    ///     device.empty_cache()?;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def train(model, loader):
    ///     for x, y in loader:
    ///         model(x)
    ///     torch.cuda.empty_cache()
    /// ```
    ///
    /// ## References
    /// - `../shared/RULES.md`, P303
    pub(crate) struct EmptyCacheInLoop;
}

impl Violation for EmptyCacheInLoop {
    fn message(&self) -> String {
        "`empty_cache()` inside a loop returns memory the next iteration allocates again"
            .to_string()
    }

    fn help(&self) -> Option<String> {
        Some("call it once, after the loop, if at all".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        for event in &func.events {
            // Every N steps (`if step % 100 == 0`) is the accepted way to bound fragmentation.
            if matches!(event.kind, EventKind::EmptyCache)
                && event.loop_id.is_some()
                && !event.in_periodic
            {
                checker.report(&EmptyCacheInLoop, event.span.clone());
            }
        }
    }
}
