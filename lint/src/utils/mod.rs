//! Matchers shared by rules. Rules never import other rules.

use crate::ir::{Device, EventKind, Function, Origin, Span};

/// How a device reads in a message: `cpu`, `cuda:1`, `meta`.
pub(crate) fn device_name(device: &Device) -> String {
    match device {
        Device::Cpu => "cpu".to_string(),
        Device::Cuda(Some(n)) => format!("cuda:{n}"),
        Device::Cuda(None) => "an accelerator".to_string(),
        Device::Meta => "meta".to_string(),
        Device::BackendDefault => "the backend's default device".to_string(),
        Device::Input => "the input's device".to_string(),
        Device::Cached => "the model's device".to_string(),
        Device::Unknown | Device::Call(_) | Device::Field(_) => "an unknown device".to_string(),
    }
}

/// Whether two statically known devices are certainly different.
pub(crate) fn conflict(a: &Device, b: &Device) -> bool {
    match (a, b) {
        (Device::Cpu, Device::Cuda(_)) | (Device::Cuda(_), Device::Cpu) => true,
        (Device::Cuda(Some(x)), Device::Cuda(Some(y))) => x != y,
        (Device::Meta, other) | (other, Device::Meta) => {
            matches!(other, Device::Cpu | Device::Cuda(_))
        }
        _ => false,
    }
}

/// How an origin's device is written, for messages (`Device::Cpu`).
pub(crate) fn written(origin: &Origin) -> &str {
    origin
        .device_text
        .strip_prefix('&')
        .unwrap_or(&origin.device_text)
}

/// The host reads of a function whose values decide when a loop ends (`if next == eos { break }`):
/// the host needs those anyway.
pub(crate) fn loop_decisions(func: &Function) -> Vec<&Span> {
    func.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::HostDecision { read } => Some(read),
            _ => None,
        })
        .collect()
}

/// Whether the copy at `span` blocks the host: no `non_blocking=True` was recorded inside it
/// ([`EventKind::NonBlocking`]).
pub(crate) fn blocking(events: &[crate::ir::Event], span: &Span) -> bool {
    !events.iter().any(|n| {
        matches!(n.kind, EventKind::NonBlocking { .. })
            && span.start <= n.span.start
            && n.span.end <= span.end
    })
}

/// The name a call's source text calls, its last path segment: `zeros` in `torch.zeros(n)` or
/// `Tensor::zeros(..)`, `Spline` in `mypkg.modules.Spline(1)`; `None` for text that calls nothing.
pub(crate) fn called_name(call: &str) -> Option<&str> {
    let (callee, _) = call.split_once('(')?;
    Some(callee.rsplit(['.', ':']).next().unwrap_or(callee).trim())
}
