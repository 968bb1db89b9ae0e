use std::collections::HashSet;

use crate::checker::Checker;
use crate::ir::{Device, EventKind, Span};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for timers (`Instant::now()` ... `start.elapsed()`) that measure device work with no
    /// synchronisation (`device.synchronize()`, or a host read that waits for the device) between
    /// the last device work and the reading of the timer.
    ///
    /// ## Why is this bad?
    /// Accelerator work is queued asynchronously: without a synchronise the timer measures how
    /// long it took to *queue* the work, not to run it, and the figure is wrong by orders of
    /// magnitude.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use std::time::Instant;
    /// use candle_core::{Result, Tensor};
    /// fn time_matmul(a: &Tensor, b: &Tensor) -> Result<f64> {
    ///     let start = Instant::now();
    ///     let _c = a.matmul(b)?;
    ///     Ok(start.elapsed().as_secs_f64())
    /// }
    /// ```
    ///
    /// ```python
    /// import time
    /// import torch
    ///
    /// def time_matmul():
    ///     x = torch.randn(1024, 1024, device="cuda")
    ///     start = time.time()
    ///     y = x @ x
    ///     return time.time() - start
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use std::time::Instant;
    /// use candle_core::{Result, Tensor};
    /// fn time_matmul(a: &Tensor, b: &Tensor) -> Result<f64> {
    ///     let start = Instant::now();
    ///     let _c = a.matmul(b)?;
    ///     a.device().synchronize()?;
    ///     Ok(start.elapsed().as_secs_f64())
    /// }
    /// ```
    ///
    /// ```python
    /// import time
    /// import torch
    ///
    /// def time_matmul():
    ///     x = torch.randn(1024, 1024, device="cuda")
    ///     start = time.time()
    ///     y = x @ x
    ///     torch.cuda.synchronize()
    ///     return time.time() - start
    /// ```
    ///
    /// A blocking copy to the host (`.cpu()`, `.item()`, `to_vec1()`) waits for the device, as do
    /// the `torch.linalg` functions that check for errors on the host (`lu_factor`, `solve`,
    /// `inv`, `cholesky`, `eigh`, `svd`, `pinv`; not their `_ex` forms), and
    /// so does a called function of the tree that reads device data on the host (a generation
    /// loop deciding on the host when to stop), and so does formatting a tensor for a log
    /// (`print("{:.0f}".format(acc.sum()))`). Calls of host libraries (`numpy`, `scipy`) queue no
    /// device work, nor do calls of functions of the tree whose modules never import `torch`
    /// and call nothing that does. A reading given to a sleep
    /// (`time.sleep(1 / fps - (time.perf_counter() - t0))`) paces a loop and is not reported, nor
    /// is one compared with a limit (`time.time() - t0 >= time_limit`, `start.elapsed() >
    /// budget`: a deadline), nor is work on values known to be on the host. A blocking copy to the
    /// device (`images.to(device)`, no `non_blocking=True`) returns when the copy is done, so
    /// timing it alone is right.
    ///
    /// ## Known problems
    /// On the CPU, work is synchronous and the measurement is right; the rule cannot always tell
    /// the device, so CPU-only timing code may be reported. Most timers in library code measure
    /// work that already waits somewhere the rule cannot see (a callback, a callee of another
    /// package, a boolean-mask store). Off by default (pedantic; `--select P302` or
    /// `extend-select` turns it on, as for a benchmark script): right 11 times in 76 on nine sets
    /// of packages it was never run on (`docs/precision.md`, rounds 16 to 24).
    ///
    /// ## References
    /// - `../shared/RULES.md`, P302
    pub(crate) struct UnsynchronizedTiming {
        read: String,
        python: bool,
    }
}

impl Violation for UnsynchronizedTiming {
    fn message(&self) -> String {
        format!(
            "`{}` reads the timer while device work may still be queued",
            self.read
        )
    }

    fn help(&self) -> Option<String> {
        let sync = if self.python {
            "torch.cuda.synchronize()"
        } else {
            "device.synchronize()"
        };
        Some(format!("call `{sync}` before reading the timer"))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let source = checker.file.source.clone();
    for (_, func) in checker.functions() {
        let mut seen = HashSet::new();
        // Calls given a device (`stage(frames, device=device)`): they compute there.
        let device_calls: HashSet<&Span> = func
            .events
            .iter()
            .filter(|e| {
                matches!(&e.kind, EventKind::Call { args, .. }
                    if args.iter().any(|a| a.value.kind == crate::ir::ValueKind::Device))
            })
            .map(|e| &e.span)
            .collect();
        for (j, event) in func.events.iter().enumerate() {
            let EventKind::TimerRead { start, end, pacing } = event.kind else {
                continue;
            };
            // A reading given to a sleep paces a loop: it measures nothing.
            if pacing {
                continue;
            }
            let start = start as usize;
            if start >= j || !seen.insert(event.span.clone()) {
                continue;
            }
            // The last device work between the start and the read (the later clock reading, for
            // `end - start`: work queued after `end = time.time()` is not measured, unless a loop
            // runs that work again before the next reading)...
            let stop = end
                .map(|e| (e as usize).min(j))
                .filter(|&e| func.events[e].loop_id == func.events[start].loop_id)
                .unwrap_or(j);
            let between = &func.events[start + 1..stop];
            // Calls of functions of the tree that wait for the device themselves (return
            // `.item()`): a synchronisation, and the op recorded for their arguments is theirs.
            let waiting: HashSet<&Span> = between
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Call { target, .. }
                        if checker
                            .program
                            .resolve_call(target, checker.file.id)
                            .iter()
                            .any(|&c| checker.program.is_synchronizing(c)) =>
                    {
                        Some(&e.span)
                    }
                    _ => None,
                })
                .collect();
            // Calls of functions of the tree that touch no tensor, nor does anything they call
            // (a NumPy helper module's `create_masks(stats, ly, lx)`): no device work.
            let host_calls: HashSet<&Span> = between
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Call { target, .. } => {
                        let callees = checker.program.resolve_call(target, checker.file.id);
                        (!callees.is_empty()
                            && callees.iter().all(|&c| !checker.program.touches_tensors(c)))
                        .then_some(&e.span)
                    }
                    _ => None,
                })
                .collect();
            // Work inside a returned expression (`return super()._predict(..)` in a branch)
            // ends the call: the timer read after it runs on the other paths only.
            let returned = |span: &Span| {
                func.returns.iter().any(|r| {
                    r.span.start <= span.start
                        && span.end <= r.span.end
                        && !(r.span.start <= event.span.start && event.span.end <= r.span.end)
                })
            };
            let Some(work) = between.iter().rposition(|e| match &e.kind {
                _ if returned(&e.span) => false,
                EventKind::Op { .. } | EventKind::DeviceWork { .. }
                    if waiting.contains(&e.span) || host_calls.contains(&e.span) || e.in_log =>
                {
                    false
                }
                // A copy to the host waits for the work before it; it is not work left queued.
                EventKind::Transfer {
                    to: Device::Cpu, ..
                } if crate::utils::blocking(&func.events, &e.span) => false,
                // A blocking copy from the host to the device (`images.to(device)`) returns when
                // the copy is done (PyTorch synchronises the stream after it), and a tensor
                // already there is not copied: nothing is left queued. (A cast to what may be a
                // dtype, `t.to(compute_dtype)`, is device work.)
                EventKind::Transfer {
                    source: moved,
                    to,
                    to_value,
                    ..
                } if checker.is_python()
                    && !to_value.is_tensor()
                    && matches!(
                        to,
                        Device::Cuda(_) | Device::Input | Device::Cached | Device::Cpu
                    )
                    && crate::utils::blocking(&func.events, &e.span)
                    && matches!(
                        checker.resolve(moved).0,
                        Device::Cpu | Device::Unknown | Device::Input
                    ) =>
                {
                    false
                }
                // (Rust: work on what is not known to be on the host may be queued.)
                EventKind::DeviceWork { inputs } => {
                    inputs.is_empty()
                        || inputs.iter().any(|v| {
                            if checker.is_python() {
                                on_device(checker, None, v)
                            } else {
                                checker.resolve(v).0 != Device::Cpu
                            }
                        })
                }
                EventKind::Transfer { .. } => true,
                // Rust: a sub-module's method of unknown kind (`self.model.generate(&ids)`, which
                // may return host data) is work where the frontend recorded it as such.
                EventKind::Op { opaque: true, .. } if !checker.is_python() => false,
                // What local helpers return counts once it resolves to a tensor somewhere.
                // (An op on what only untyped parameters carry, `offsets[lo:hi]`, is not known
                // to be device work; a callable given it, `model(x)`, is.)
                EventKind::Op { operands, name, .. } => {
                    // (Nor a call given a device: `stage(frames, device=device)` computes there.)
                    let untyped =
                        (name != "module call" && !device_calls.contains(&e.span)).then_some(func);
                    operands.iter().any(|o| on_device(checker, untyped, o))
                }
                _ => false,
            }) else {
                continue;
            };
            // ...is not followed by anything that waits for the device.
            let waits = |e: &crate::ir::Event| match &e.kind {
                EventKind::Synchronize | EventKind::HostRead { .. } => true,
                // Formatting a tensor for a log (`"{:.0f}".format(acc.sum())`, an f-string in
                // `print`) reads its value on the host.
                EventKind::Op { operands, .. } if e.in_log => {
                    operands.iter().any(|o| on_device(checker, None, o))
                }
                EventKind::DeviceWork { inputs } if e.in_log => {
                    inputs.iter().any(|o| on_device(checker, None, o))
                }
                EventKind::Transfer {
                    to: Device::Cpu, ..
                } => crate::utils::blocking(&func.events, &e.span),
                EventKind::Call { .. } => waiting.contains(&e.span),
                _ => false,
            };
            // A wait inside the work's own expression runs at its end
            // (`y.sum_all().and_then(|t| t.to_scalar())`: the closure's read is recorded first).
            let work_span = &between[work].span;
            let synced = between[work + 1..].iter().any(waits)
                || between[..work].iter().any(|e| {
                    work_span.start <= e.span.start && e.span.end <= work_span.end && waits(e)
                });
            if synced {
                continue;
            }
            let text = source.get(event.span.clone()).unwrap_or("").to_string();
            checker
                .report(
                    &UnsynchronizedTiming {
                        read: text,
                        python: checker.is_python(),
                    },
                    event.span.clone(),
                )
                .label(func.events[start].span.clone(), "timer started here")
                .label(between[work].span.clone(), "device work queued here");
        }
    }
}

/// Whether an operand of an op may hold device work: a tensor not known to be on the host, or
/// what a call returns once it resolves to a device. A value that a function outside the tree
/// computed from a non-tensor (`pickle.loads(read_chunks(stream))`) is not.
/// Whether every parameter `operand` carries is one `func` never annotates or uses as a tensor
/// (and it carries at least one).
fn only_untyped_parameters(
    checker: &Checker<'_>,
    func: &crate::ir::Function,
    operand: &crate::ir::Value,
) -> bool {
    let carried =
        crate::engine::meets::carried_params(checker.program, checker.file.id, func, operand);
    !carried.is_empty()
        && carried.iter().all(|&(k, _)| {
            func.params
                .get(usize::from(k))
                .is_some_and(|p| !p.tensor_use && p.kind != crate::ir::ValueKind::Tensor)
        })
}

fn on_device(
    checker: &Checker<'_>,
    untyped_in: Option<&crate::ir::Function>,
    operand: &crate::ir::Value,
) -> bool {
    match checker.resolve(operand).0 {
        Device::Cpu => false,
        Device::Unknown => operand.is_tensor(),
        Device::Input => {
            operand.is_tensor()
                || !checker.is_python()
                || match &operand.device {
                    Device::Call(call) => !checker
                        .program
                        .resolve_call(&call.target, checker.file.id)
                        .is_empty(),
                    // (Not what only parameters the function never uses as tensors carry:
                    // `read_xyz_at(path, offsets[lo:hi])` of byte offsets.)
                    _ => !untyped_in.is_some_and(|f| only_untyped_parameters(checker, f, operand)),
                }
        }
        _ => true,
    }
}
