use crate::checker::Checker;
use crate::ir::{Device, EventKind, Span};
use crate::rule::{declare_rule, Violation};
use crate::utils::loop_decisions;

declare_rule! {
    /// ## What it does
    /// Checks for values that, within one iteration of a loop, go to the host (a transfer to the
    /// CPU, or a host read such as `to_vec1`/`to_scalar`) and come back to a device (a transfer,
    /// or a factory fed with the host copy). `torch.tensor([[t[k]]])` of an element of a device
    /// tensor reads that element on the host.
    ///
    /// ## Why is this bad?
    /// Each iteration pays two copies and a synchronisation: the device drains its queue, the host
    /// waits, then the device waits for the copy back. Done per step of a training or inference
    /// loop, it can dominate the run time.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// fn clamp_steps(xs: &Tensor, device: &Device, steps: usize) -> Result<Tensor> {
    ///     let mut xs = xs.clone();
    ///     for _ in 0..steps {
    ///         let host = xs.to_device(&Device::Cpu)?;
    ///         xs = host.clamp(0f32, 1f32)?.to_device(device)?;
    ///     }
    ///     Ok(xs)
    /// }
    /// ```
    ///
    /// ```python
    /// def run(loader, model, device):
    ///     for x, y in loader:
    ///         output = model(x.to(device))
    ///         output_cpu = output.cpu()
    ///         output = output_cpu.to(device)
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// fn clamp_steps(xs: &Tensor, device: &Device, steps: usize) -> Result<Tensor> {
    ///     let mut xs = xs.to_device(device)?;
    ///     for _ in 0..steps {
    ///         xs = xs.clamp(0f32, 1f32)?;
    ///     }
    ///     Ok(xs)
    /// }
    /// ```
    ///
    /// ```python
    /// def run(loader, model, device):
    ///     for x, y in loader:
    ///         output = model(x.to(device))
    /// ```
    ///
    /// ## Known problems
    /// A host copy that also decides when the loop ends (`if next_token == eos { break }`, as in
    /// autoregressive generation) is needed on the host anyway and is not reported.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P201
    pub(crate) struct DeviceRoundTripInLoop {
        value: String,
    }
}

impl Violation for DeviceRoundTripInLoop {
    fn message(&self) -> String {
        format!(
            "`{}` goes to the host and back to a device in every iteration of this loop",
            self.value
        )
    }

    fn help(&self) -> Option<String> {
        Some("keep the value on the device inside the loop; copy to the host once, after it".into())
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    for (_, func) in checker.functions() {
        // Host copies the host needs anyway: they decide when a loop ends (a sampled token).
        let decisions = loop_decisions(func);
        for event in &func.events {
            let Some(lp) = event.loop_id else { continue };
            // The way back: a transfer off the host, or a factory fed with host data.
            let (host, value, target): (Span, String, Device) = match &event.kind {
                EventKind::Transfer {
                    source, to_value, ..
                } => {
                    let Some(host) = source.host_read.clone() else {
                        continue;
                    };
                    (
                        host,
                        checker.text(&source.span),
                        checker.resolve(to_value).0,
                    )
                }
                EventKind::Create {
                    value,
                    from_host: Some(host),
                    ..
                } => (
                    host.clone(),
                    checker.text(&value.span),
                    checker.resolve(value).0,
                ),
                _ => continue,
            };
            if target == Device::Cpu || decisions.contains(&&host) {
                continue;
            }
            // A sampled token fed back (autoregressive decoding): the sampler reads the logits
            // on the host by design.
            let sampled = func.events.iter().any(|e| {
                e.span == host
                    && matches!(&e.kind, EventKind::HostRead { method, .. } if method == "sample")
            });
            if sampled {
                continue;
            }
            // A read of a tensor built on the host (`int(w * torch.rand(2)[0])`) never left it.
            let host_built = func.events.iter().any(|e| {
                e.span == host
                    && matches!(&e.kind, EventKind::HostRead { source, .. } if {
                        let (device, origin) = checker.resolve(source);
                        source.host_scalar.is_some()
                            || device == Device::Cpu && origin.is_some_and(|o| !o.is_transfer)
                    })
            });
            if host_built {
                continue;
            }
            // Both ends in the same iteration: the host end sits inside this loop too.
            let loop_span = &func.loops[lp as usize].span;
            if !(loop_span.start <= host.start && host.end <= loop_span.end) {
                continue;
            }
            checker
                .report(&DeviceRoundTripInLoop { value }, event.span.clone())
                .label(host, "copied to the host here");
        }
    }
}
