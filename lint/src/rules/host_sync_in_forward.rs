use std::collections::HashSet;

use crate::checker::Checker;
use crate::engine::meets::is_generic;
use crate::ir::{Device, EventKind};
use crate::rule::{declare_rule, Violation};
use crate::utils::loop_decisions;

declare_rule! {
    /// ## What it does
    /// Checks forward paths (`forward` of a module and what it calls) for host reads of device
    /// data outside logging: `.item()`, `.tolist()`, `float(t)`, `int(t)`, `if t:` in `PyTorch`;
    /// `to_scalar`, `to_vec1` and friends in candle; `double_value`, `int64_value` in tch.
    ///
    /// ## Why is this bad?
    /// A host read waits for every queued kernel to finish and copies the value back: the device
    /// queue drains once per forward call, and the next kernels start only after the host has
    /// the value. In a model called thousands of times this stall dominates small batches.
    ///
    /// ## Example
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Pool(nn.Module):
    ///     def forward(self, x, lengths):
    ///         longest = int(lengths.max().item())
    ///         return x[:, :longest].mean(dim=1)
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Pool(nn.Module):
    ///     def forward(self, x, lengths):
    ///         mask = torch.arange(x.shape[1], device=x.device)[None, :] < lengths[:, None]
    ///         return (x * mask[..., None]).sum(dim=1) / lengths[:, None]
    /// ```
    ///
    /// ## Known problems
    /// Many forward-path reads are needed on the host by design (mixture-of-experts routing,
    /// image grids, sequence lengths for packing). Reads that decide when a loop ends, reads
    /// inside a logging call or an `if step % N == 0` block, and validation checks (an `if` whose
    /// body ends in `raise`, an `assert`) are not reported; suppress the other by-design reads
    /// with `placer: allow(P305)`. Off by default (pedantic; `--select P305` or `extend-select`
    /// turns it on): right 36 times in 50 on the tuning corpora, but only 5 times in 44 on three
    /// sets of packages it was never run on (`docs/precision.md`, rounds 16 to 18), where most
    /// forward-path reads are set-up values the algorithm needs on the host.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P305 (and P301 for reads in a loop that feed host arithmetic)
    pub(crate) struct HostSyncInForward {
        read: String,
        function: String,
    }
}

impl Violation for HostSyncInForward {
    fn message(&self) -> String {
        format!(
            "`{}` reads device data on the host in `{}()`, on a forward path: the device queue \
             drains on every call",
            self.read, self.function
        )
    }

    fn help(&self) -> Option<String> {
        Some("keep the value on the device (masks, `torch.where`), or compute it once outside the forward path".to_string())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut seen = HashSet::new();
    let source = checker.file.source.clone();
    for (index, func) in checker.functions() {
        if !checker.is_forward(index) {
            continue;
        }
        // Reads the host needs anyway: they decide when a loop ends.
        let decisions = loop_decisions(func);
        for event in &func.events {
            let EventKind::HostRead {
                source: read,
                method,
            } = &event.kind
            else {
                continue;
            };
            // Logging and periodic work, `.numpy()` (host-read-of-device-tensor's), loop ends.
            if event.in_log || event.in_periodic || method == "numpy" {
                continue;
            }
            if decisions.contains(&&event.span) {
                continue;
            }
            // In a loop and feeding host arithmetic: host-sync-in-loop's.
            let in_loop_arith = event.loop_id.is_some()
                && func.events.iter().any(
                    |e| matches!(&e.kind, EventKind::HostArith { read } if *read == event.span),
                );
            if in_loop_arith {
                continue;
            }
            // The tensor read must be device data: the input's, a parameter's or the model's (a
            // helper's result may be a host bool: `if helper(x):`).
            if !read.is_tensorish()
                || matches!(read.device, Device::Call(_))
                || !is_generic(&checker.resolve(read).0)
            {
                continue;
            }
            if !seen.insert(event.span.clone()) {
                continue;
            }
            let text = source.get(event.span.clone()).unwrap_or("").to_string();
            checker.report(
                &HostSyncInForward {
                    read: crate::ir::snippet(&text, &(0..text.len())),
                    function: func.meta.name.clone(),
                },
                event.span.clone(),
            );
        }
    }
}
