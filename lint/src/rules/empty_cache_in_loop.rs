use crate::checker::Checker;
use crate::ir::EventKind;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for calls that release the caching allocator's memory (`empty_cache()`) inside a
    /// loop. Not in an `except` handler: releasing the cache after an out-of-memory error, before
    /// retrying with a smaller batch, is its documented use. Nor right before a `return`,
    /// `break` or `raise` that ends the iteration (with no `continue` before it): that runs once
    /// per loop, not per iteration. Nor directly in a loop whose variable names the epoch
    /// (`for epoch in range(epochs):`, not in a batch loop inside it): once per pass over the
    /// data, a release between coarse units of work. Nor in a loop whose body also calls
    /// `gc.collect()`: collecting the garbage and then handing the cache back is a deliberate
    /// release of whole models or experiments between iterations (each one builds its own), not a
    /// per-step habit. Like every performance rule, not in a private module-level
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
            if !matches!(event.kind, EventKind::EmptyCache) || event.in_periodic {
                continue;
            }
            let Some(lp) = event.loop_id else { continue };
            // Once per epoch (`for epoch in range(epochs):`, directly in the epoch loop, not in
            // a batch loop inside it): a release between passes over the data, each a coarse
            // unit of work, not one per step.
            let loop_source = func
                .loops
                .get(lp as usize)
                .and_then(|l| checker.file.source.get(l.span.clone()))
                .unwrap_or("");
            if is_epoch_loop(loop_source) || collects_garbage(loop_source) {
                continue;
            }
            checker.report(&EmptyCacheInLoop, event.span.clone());
        }
    }
}

/// Whether a loop's first line (`for epoch in range(n):`, `for epoch in 0..epochs {`) names
/// the epoch it counts.
fn is_epoch_loop(source: &str) -> bool {
    let line = source.lines().next().unwrap_or("");
    let Some(rest) = line.trim_start().strip_prefix("for ") else {
        return false;
    };
    let rest = rest.to_ascii_lowercase();
    let Some((target, _)) = rest.split_once(" in ") else {
        return false;
    };
    // (The name bound must be the epoch: not `for step, batch in enumerate(epoch_iterator):`,
    // a batch loop, nor `for it in range(epochs):` of an attack whose "epochs" are its steps.)
    target.contains("epoch") && !target.contains("batch") && !target.contains("step")
}

/// Whether a loop's source calls Python's `gc.collect()` (outside a comment): the iteration
/// releases what it built on purpose, a model or a whole experiment, before the next one.
fn collects_garbage(source: &str) -> bool {
    source.lines().any(|line| {
        let code = line.split('#').next().unwrap_or("");
        code.contains("gc.collect(")
    })
}

#[cfg(test)]
mod tests {
    use super::{collects_garbage, is_epoch_loop};

    #[test]
    fn garbage_collection_in_the_loop_is_seen_outside_comments() {
        assert!(collects_garbage(
            "for job in jobs:\n    run(job)\n    gc.collect()\n    torch.cuda.empty_cache()"
        ));
        assert!(!collects_garbage(
            "for x in loader:\n    model(x)  # gc.collect() is too slow here\n    torch.cuda.empty_cache()"
        ));
    }

    #[test]
    fn epoch_loops_are_told_from_batch_loops() {
        assert!(is_epoch_loop("for epoch in range(epochs):\n    train()"));
        assert!(is_epoch_loop(
            "for iepoch in range(start_epoch, max_epoch + 1):"
        ));
        assert!(!is_epoch_loop("for it in tqdm(range(epochs)):"));
        assert!(is_epoch_loop("for epoch in 0..epochs {"));
        assert!(!is_epoch_loop("for x, y in loader:\n    epoch_loss += 1"));
        assert!(!is_epoch_loop("while epoch < n:"));
        assert!(!is_epoch_loop(
            "for step, batch in enumerate(epoch_iterator):"
        ));
    }
}
