use std::collections::HashSet;

use crate::checker::Checker;
use crate::ir::{CallTarget, Device, EventKind, Span, ValueKind};
use crate::rule::{declare_rule, Violation};
use crate::utils::loop_decisions;

declare_rule! {
    /// ## What it does
    /// Checks for host reads (`to_scalar`, `to_vec1`, `item`, `f64::try_from(&t)`) inside a loop
    /// whose value feeds host arithmetic or is accumulated (`total += loss.to_scalar::<f32>()?`).
    /// Reads that are only logged (inside `println!`, `tracing::info!`, ..., or under a verbosity
    /// flag, `if verbose > 1:`) or done every N steps
    /// (`if step % 100 == 0`, or the counter tested against a schedule: `if i in marks:` in
    /// `for i in range(steps)`) are not reported, nor reads in a function whose signature names a
    /// backend that computes on the host only (burn's `NdArray`, directly or through a type alias
    /// of the file), or in a method of a type whose weights are loaded onto `Device::Cpu` by
    /// construction (see tensor-on-default-device): no device to wait for. Nor are reads in a
    /// loop that synchronises on every iteration anyway (`torch.cuda.synchronize()`, or a
    /// `torch.linalg` function that waits for the device to check for errors, such as
    /// `torch.linalg.solve`), that branches on a tensor (`if mask.any():`), or that decides on
    /// a read (`if loss.isnan(): raise ..`, `if n < k: continue`): the host waits there anyway,
    /// and the read adds no stall that a device-side accumulator would remove. Reads of a tensor
    /// already copied to the host before the loop (by this function or by a helper it called
    /// there, `pos = _ensure_cpu(pos)`) wait for nothing, and a private module-level Python
    /// function (`_name`) that nothing in the checked tree names is not checked: it never runs.
    ///
    /// ## Why is this bad?
    /// A host read waits for the device to finish all queued work and copies the value back. Done
    /// on every step it serialises host and device, so the GPU idles while Python-speed host code
    /// runs.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{Result, Tensor};
    /// fn mean_loss(losses: &[Tensor]) -> Result<f32> {
    ///     let mut total = 0f32;
    ///     for loss in losses {
    ///         total += loss.to_scalar::<f32>()?;
    ///     }
    ///     Ok(total / losses.len() as f32)
    /// }
    /// ```
    ///
    /// ```python
    /// def train(model, loader, criterion):
    ///     total = 0.0
    ///     for x, y in loader:
    ///         total += criterion(model(x), y).item()
    ///     return total
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{Result, Tensor};
    /// fn mean_loss(losses: &[Tensor]) -> Result<f32> {
    ///     let total = Tensor::stack(losses, 0)?.mean_all()?;
    ///     total.to_scalar::<f32>()
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    ///
    /// def train(model, loader, criterion):
    ///     total = torch.zeros(())
    ///     for x, y in loader:
    ///         total += criterion(model(x), y).detach()
    ///     return total.item()
    /// ```
    ///
    /// ## Known problems
    /// `.item()` of a Python parameter that the function never uses as a tensor is not reported:
    /// it may be a `NumPy` scalar or a number (an image size). Nor is `.item()` of a value not
    /// known to be a tensor in a file that imports `numpy` and never imports `torch`.
    ///
    /// A read whose result decides when the loop stops (`if next == eos { break }`, a line search
    /// testing its step, the bounds of an inner `range()` computed in this iteration), which
    /// tensor the loop carries on with (an adaptive step's accept / reject), or is fed back into the host data the loop builds its next input from
    /// (a sampled token pushed onto the prompt, a forecast slid into the input window), is
    /// needed on the host and is not reported, even when it also feeds arithmetic. Nor is a count
    /// of categories read from the data (`int(parents[:, d].max()) + 1`): a size the host lays out
    /// what it builds next with. A read done only on some iterations (`if step == 1 { .. }`) is reported: the
    /// rule cannot tell how often the branch runs.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P301
    pub(crate) struct HostSyncInLoop {
        read: String,
    }
}

impl Violation for HostSyncInLoop {
    fn message(&self) -> String {
        format!(
            "`{}` synchronises with the device on every iteration to feed host arithmetic",
            self.read
        )
    }

    fn help(&self) -> Option<String> {
        Some("accumulate on the device and read the result once, after the loop".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut seen = HashSet::new();
    let source = checker.file.source.clone();
    // A Python file that computes with NumPy and never imports torch (nor `*`, nor any `Tensor`
    // wrapper): `.item()` of what is not known to be a tensor reads a NumPy scalar
    // (`statistics[key].item()`).
    let numpy_file = checker.is_python()
        && !checker.file.tensor_api
        && source.contains("import numpy")
        && !source.contains("import *")
        && !source.contains("Tensor");
    for (index, func) in checker.functions() {
        // Every caller passes this function host-built tensors: its tensor parameters (and what
        // it computes from them) are on the host.
        let host_only = checker
            .program
            .is_host_only((checker.file.id, u32::try_from(index).unwrap_or(u32::MAX)));
        // Code that computes on a host-only backend waits for no device.
        if checker.program.is_host_compute(checker.file.id, func) {
            continue;
        }
        // Reads the host needs anyway: they decide when a loop ends (a line search's step, a
        // generated token).
        let decisions = loop_decisions(func);
        // Loops whose every iteration synchronizes explicitly (`torch.cuda.synchronize()`, a
        // benchmark's; `torch.linalg.solve`): a device accumulator would not spare them a stall. (Not extended to
        // calls of waiting functions or copies to the host: on the read corpora that drops as
        // many true findings as false ones.)
        // (With the read that waits, for reads: the read itself does not drain its loop.)
        let drained: Vec<(crate::ir::LoopId, Option<&Span>)> = func
            .events
            .iter()
            // (A check that raises, `if not torch.isfinite(loss).item(): raise ..`, is lowered as
            // a log line, so that its own read is not reported; it still waits when its test
            // reads the device itself. A test of a host sum the reported reads feed, `if
            // epoch_loss != epoch_loss: raise`, waits for nothing more.)
            .filter(|e| {
                let test_reads = match &e.kind {
                    EventKind::HostDecision { read } => {
                        e.span.start <= read.start && read.end <= e.span.end
                    }
                    EventKind::HostRead { method, .. } => method == "bool",
                    _ => false,
                };
                !e.in_periodic && (!e.in_log || test_reads)
            })
            .filter_map(|e| {
                let lp = e.loop_id?;
                // ...and loops whose every iteration branches on a tensor (`if mask.any():`) or
                // decides on a read (`if res.max().item() < tol: break`): the host waits there
                // anyway, and another read in the same iteration adds no stall of its own.
                match &e.kind {
                    EventKind::Synchronize => Some((lp, None)),
                    EventKind::HostDecision { read } => Some((lp, Some(read))),
                    EventKind::HostRead { method, .. } if method == "bool" => {
                        Some((lp, Some(&e.span)))
                    }
                    _ => None,
                }
            })
            .collect();
        for event in &func.events {
            let EventKind::HostArith { read } = &event.kind else {
                continue;
            };
            if decisions.contains(&read) || is_cardinality(&source, read, &event.span) {
                continue;
            }
            // The arithmetic is real work (not logging, not every N steps)...
            if event.loop_id.is_none() || event.in_log || event.in_periodic {
                continue;
            }
            // ...and the read it uses is inside a loop too, under the same conditions.
            let Some(read_event) = func.events.iter().find(|e| {
                e.span == *read
                    && matches!(
                        e.kind,
                        EventKind::HostRead { .. } | EventKind::Transfer { .. }
                    )
            }) else {
                continue;
            };
            let Some(lp) = read_event.loop_id else {
                continue;
            };
            if read_event.in_log || read_event.in_periodic || !func.loop_within(event.loop_id, lp) {
                continue;
            }
            if drained.iter().any(|&(d, by)| by != Some(read) && d == lp) {
                continue;
            }
            // A tensor built on the host (no `device=`, from a file or NumPy) is read without
            // waiting for any device; one moved there (`.cpu().item()`) was waited for.
            let (EventKind::HostRead { source: tensor, .. }
            | EventKind::Transfer { source: tensor, .. }) = &read_event.kind
            else {
                continue;
            };
            // A sampler returning a token id reads on the host by design (pedantic at most).
            if matches!(&read_event.kind, EventKind::HostRead { method, .. } if method == "sample")
            {
                continue;
            }
            // A parameter never used as a tensor may be a NumPy scalar or a Python number
            // (`dest_width.item()` of an image size): not known to be device data.
            let untyped_parameter = tensor.kind != ValueKind::Tensor
                && tensor.var.is_some()
                && func
                    .params
                    .iter()
                    .any(|p| p.binding == tensor.var && !p.tensor_use);
            if untyped_parameter {
                continue;
            }
            if numpy_file && !tensor.is_tensor() {
                continue;
            }
            let (device, origin) = checker.resolve(tensor);
            // (Moved by this function before the loop, `norms = t.cpu()` and then `float(norms[i])`
            // per iteration: the loop reads host memory; the one wait was before it.)
            // (Or moved by a helper called before the loop, `pos = _ensure_cpu(pos)` and then
            // `pos[i].item()`, dagua, unseen set 25: no call in the loop reaches the function that
            // moved it, and the tensor read comes from a binding the loop never assigns.)
            let invariant = |id: &crate::ir::BindingId| {
                func.bindings.get(*id as usize).is_some_and(|b| {
                    !func.loop_within(b.def_loop, lp)
                        && !b.assigned_in.iter().any(|&l| func.loop_within(l, lp))
                })
            };
            let called_in_loop = |callee: &str| {
                func.events.iter().any(|e| {
                    matches!(&e.kind, EventKind::Call { target, .. }
                        if matches!(target, CallTarget::Method { name, .. }
                            | CallTarget::Free { name } if name == callee))
                        && func.loop_within(e.loop_id, lp)
                })
            };
            let moved_before_loop = origin.as_ref().is_some_and(|o| {
                let here = o.file == checker.file.id && o.function == func.meta.name;
                o.is_transfer
                    && if here {
                        o.span.start > func.meta.span.start
                            && o.span.end <= func.loops[lp as usize].span.start
                    } else {
                        tensor.reads.iter().any(invariant) && !called_in_loop(&o.function)
                    }
            });
            let moved_off_a_device =
                origin.as_ref().is_some_and(|o| o.is_transfer) && !moved_before_loop;
            if tensor.host_scalar.is_some()
                || device == Device::Cpu && !moved_off_a_device
                || matches!(device, Device::Input | Device::Unknown) && host_only
            {
                continue;
            }
            if !seen.insert(read.clone()) {
                continue;
            }
            let text = source.get(read.clone()).unwrap_or("").to_string();
            let diagnostic = checker.report(&HostSyncInLoop { read: text }, read.clone());
            if event.span.start > read.end || event.span.end < read.start {
                diagnostic.label(event.span.clone(), "used in host arithmetic here");
            }
        }
    }
}

/// Whether `arith` is `<read> + 1` with `read` the largest value of a tensor
/// (`int(parents[:, d].max()) + 1`, `labels.max().item() + 1`): a count of categories, a size the
/// host needs to lay out what it builds next; no device accumulator stands in for it.
fn is_cardinality(source: &str, read: &Span, arith: &Span) -> bool {
    let text = source.get(read.clone()).unwrap_or("");
    let plus_one = read.start == arith.start
        && source
            .get(read.end..arith.end)
            .is_some_and(|rest| rest.trim() == "+ 1" || rest.trim() == "+1");
    // (`int(t.max())`, `t.max().item()`, `int(t.max().item())`: the closing parentheses aside.)
    let inner = text.trim_end_matches(')');
    let largest = [".max(", ".max().item(", ".amax(", ".amax().item("]
        .iter()
        .any(|m| inner.ends_with(m));
    plus_one && largest
}
