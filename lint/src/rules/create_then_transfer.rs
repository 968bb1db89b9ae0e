use std::collections::HashSet;

use crate::checker::Checker;
use crate::engine::meets::carries_binding;
use crate::frontend::is_shape_factory;
use crate::ir::{Device, EventKind, ValueKind};
use crate::rule::{declare_rule, Violation};
use crate::utils::written;

declare_rule! {
    /// ## What it does
    /// Checks for tensors that a forward path builds on a hard-coded device (usually the host)
    /// and then moves to the input's or the model's device before using them. Not data that
    /// exists only on the host: the caller's data wrapped (`torch.as_tensor(obs)`), or what the
    /// host computed from the caller's non-tensor arguments (`torch.from_numpy(targets)` with
    /// targets rasterised from annotations), where the upload is the one copy the data needs.
    /// In Python, a host-built index into a device tensor (`logits[torch.arange(b), last]`) is
    /// such a move too: `PyTorch` copies the index to the tensor's device before indexing. Not
    /// in a Python `except` handler (recovery, run only after a failure), nor an empty tensor
    /// (`torch.tensor([])` seeding an accumulator), whose move copies no data.
    ///
    /// ## Why is this bad?
    /// Every call pays for building the tensor on the host and for a host-to-device copy, which
    /// also synchronises with the host. It is correct, only slow.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// fn causal_mask(t: usize) -> Result<Tensor> {
    ///     let mask: Vec<u8> = (0..t * t).map(|i| u8::from(i % t > i / t)).collect();
    ///     Tensor::from_slice(&mask, (t, t), &Device::Cpu)
    /// }
    /// struct Falcon;
    /// impl Falcon {
    ///     fn forward(&self, input_ids: &Tensor) -> Result<Tensor> {
    ///         let mask = causal_mask(8)?.to_device(input_ids.device())?;
    ///         input_ids.broadcast_add(&mask)
    ///     }
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Attention(nn.Module):
    ///     def forward(self, x):
    ///         t = x.shape[1]
    ///         mask = torch.triu(torch.ones(t, t), diagonal=1).to(x.device)
    ///         return x.masked_fill(mask.bool(), 0.0)
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{Device, Result, Tensor};
    /// fn causal_mask(t: usize, device: &Device) -> Result<Tensor> {
    ///     let mask: Vec<u8> = (0..t * t).map(|i| u8::from(i % t > i / t)).collect();
    ///     Tensor::from_slice(&mask, (t, t), device)
    /// }
    /// struct Falcon;
    /// impl Falcon {
    ///     fn forward(&self, input_ids: &Tensor) -> Result<Tensor> {
    ///         let mask = causal_mask(8, input_ids.device())?;
    ///         input_ids.broadcast_add(&mask)
    ///     }
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Attention(nn.Module):
    ///     def forward(self, x):
    ///         t = x.shape[1]
    ///         mask = torch.ones(t, t, device=x.device).triu(1)
    ///         return x.masked_fill(mask.bool(), 0.0)
    /// ```
    ///
    /// ## Known problems
    /// Data that only exists on the host (a `Vec` filled in a loop) must be copied once anyway;
    /// then the fix is to build it once, at construction, and keep it as a buffer.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P103 (candle-transformers `falcon.rs`, `prepare_attn_mask`)
    pub(crate) struct CreateThenTransfer {
        tensor: String,
        device: String,
        target: String,
        /// Used as an index into the target (`logits[torch.arange(b), last]`): `PyTorch` copies it
        /// to the target's device, a transfer no `.to()` names.
        by_indexing: bool,
    }
}

impl Violation for CreateThenTransfer {
    fn message(&self) -> String {
        if self.by_indexing {
            return format!(
                "`{}` is built on `{}` and indexes `{}`, which copies it to that device on every \
                 forward call",
                self.tensor, self.device, self.target
            );
        }
        format!(
            "`{}` is built on `{}` and then moved to `{}` on every forward call",
            self.tensor, self.device, self.target
        )
    }

    fn help(&self) -> Option<String> {
        if self.by_indexing {
            return Some(format!("build it on `{}.device` directly", self.target));
        }
        Some(format!(
            "build it on `{}` directly, or create it once at construction and keep it as a buffer",
            self.target
        ))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut seen = HashSet::new();
    for (index, func) in checker.functions() {
        if !checker.is_forward(index) {
            continue;
        }
        for (at, event) in func.events.iter().enumerate() {
            let EventKind::Transfer {
                source,
                to_value,
                by_indexing,
                ..
            } = &event.kind
            else {
                continue;
            };
            // The moved tensor was built on a device written in the code...
            let (device, Some(origin)) = checker.resolve(source) else {
                continue;
            };
            // A module built and moved is not a tensor (PyTorch: `Loss(..).to(device)`); work in
            // an `except` handler is done only after a failure, not per call.
            if source.kind == ValueKind::Module || event.in_handler {
                continue;
            }
            // A function that then stores a tensor on the module builds a cache once (and again
            // when it grows), not a tensor per call (PyTorch: `self.register_buffer("w", w)`).
            let cached = func.events[at + 1..].iter().any(|e| {
                // (An update of model state, `self.running_mean = torch.add(.., self.running_mean)`,
                // is not such a cache.)
                matches!(&e.kind, EventKind::SetAttr { value, registered, .. }
                    if *registered
                        || value.is_tensorish()
                            && (value.device != Device::Cached
                                || value.span.start <= event.span.start
                                    && event.span.end <= value.span.end))
            });
            if cached {
                continue;
            }
            if !device.is_hard_coded() || origin.is_transfer || origin.wraps_host_data {
                continue;
            }
            // An empty tensor (`torch.tensor([])`, `torch.LongTensor([[], []])`), the seed of an
            // accumulator: moving it copies no data.
            let built = checker.file.source.get(origin.span.clone()).unwrap_or("");
            if origin.file == checker.file.id && has_empty_data(built) {
                continue;
            }
            // A function that copies data to the host before building this one works on the host
            // on purpose (clustering with SciPy, then the result moved back): data it wraps
            // (`torch.from_numpy(assignment)`), or a table it fills with the copied data, is
            // built where that data is. A table of sizes only (`torch.eye(n)`) could have been
            // built on the device all the same.
            // The caller's host data wrapped and uploaded (`torch.as_tensor(obs).cuda()` of NumPy
            // observations, `Tensor::from_vec(data, ..)` of a `Vec` passed in): the upload is the
            // one copy that data needs; there is nothing to build on the device instead.
            if origin.file == checker.file.id && wraps_parameter(func, &checker.text(&origin.span))
            {
                continue;
            }
            if origin.file == checker.file.id {
                let copied: Vec<Option<u32>> = func
                    .events
                    .iter()
                    .filter_map(|e| match &e.kind {
                        EventKind::Transfer {
                            to: Device::Cpu,
                            source: copied,
                            ..
                        } if copied.kind != ValueKind::Module
                            && e.span.end <= origin.span.start =>
                        {
                            Some(copied.var)
                        }
                        _ => None,
                    })
                    .collect();
                let sizes_only = is_shape_factory(factory_name(&checker.text(&origin.span)));
                let host_work = !copied.is_empty()
                    && (!sizes_only
                        || copied
                            .iter()
                            .flatten()
                            .any(|&b| carries_binding(func, source, b)));
                if host_work {
                    continue;
                }
            }
            // ...and goes somewhere else (a device that is not written in the code, or another one).
            let (target, _) = checker.resolve(to_value);
            if target == device || target == Device::Cpu {
                continue;
            }
            // (To where a parameter is, in a function every call of the tree gives host tensors,
            // `.to(data.device)` in the host arm of an `if data.is_cuda:` dispatch: descript-
            // audiotools, unseen set 26. It stays on the host.)
            let here = (checker.file.id, u32::try_from(index).unwrap_or(u32::MAX));
            if target == Device::Input && checker.program.is_host_only(here) {
                continue;
            }
            // A host index copies itself to a device-generic tensor only: into one whose device
            // the analysis cannot tell, it may be a host tensor indexed on the host.
            if *by_indexing && !matches!(target, Device::Input | Device::Cached) {
                continue;
            }
            if !seen.insert((origin.file, origin.span.clone())) {
                continue;
            }
            let local = origin.file == checker.file.id;
            let span = match (&origin.device_span, local) {
                (Some(s), true) => s.clone(),
                (None, true) => origin.span.clone(),
                _ => event.span.clone(),
            };
            let violation = CreateThenTransfer {
                tensor: checker.text(&source.span),
                device: written(&origin).to_string(),
                target: checker.text(&to_value.span),
                by_indexing: *by_indexing,
            };
            let elsewhere = checker.describe_origin(&origin);
            let function = func.meta.name.clone();
            let diagnostic = checker.report(&violation, span);
            if local && *by_indexing {
                diagnostic.label(event.span.clone(), format!("copied here, in `{function}`"));
            } else if local {
                diagnostic.label(event.span.clone(), format!("moved here, in `{function}`"));
            } else if let Some(place) = elsewhere {
                diagnostic.label(source.span.clone(), format!("built at {place}"));
            }
        }
    }
}

/// Whether a factory call's text has an empty literal as its data: `torch.tensor([])`,
/// `torch.LongTensor([[], []])`, `torch.tensor((), dtype=torch.long)`.
fn has_empty_data(call: &str) -> bool {
    let Some((_, args)) = call.split_once('(') else {
        return false;
    };
    let args = args.trim_start();
    if !args.starts_with(['[', '(']) {
        return false;
    }
    let mut depth = 0usize;
    for c in args.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return true;
                }
            }
            ',' | ' ' | '\n' | '\t' => {}
            _ => return false,
        }
    }
    false
}

/// The called name of a factory call's text: `zeros` in `torch.zeros(n)` or `Tensor::zeros(..)`.
fn factory_name(call: &str) -> &str {
    crate::utils::called_name(call).unwrap_or(call)
}

/// Whether a factory call's text wraps a parameter of `func` as its data:
/// `torch.from_numpy(x)`, `torch.as_tensor(obs, dtype=..)`, `Tensor::from_vec(data, ..)`.
fn wraps_parameter(func: &crate::ir::Function, call: &str) -> bool {
    const WRAPPERS: &[&str] = &[
        "from_numpy",
        "as_tensor",
        "tensor",
        "frombuffer",
        "from_dlpack",
        "from_vec",
        "from_slice",
        "new",
    ];
    // The data converted to a NumPy array first (`torch.as_tensor(np.asarray(x))`) is still the
    // caller's data.
    const NUMPY_CONVERSIONS: &[&str] = &[
        "np.asarray(",
        "np.array(",
        "np.ascontiguousarray(",
        "numpy.asarray(",
        "numpy.array(",
    ];
    if !WRAPPERS.contains(&factory_name(call)) {
        return false;
    }
    let Some((_, mut args)) = call.split_once('(') else {
        return false;
    };
    while let Some(inner) = NUMPY_CONVERSIONS
        .iter()
        .find_map(|w| args.trim_start().strip_prefix(w))
    {
        args = inner;
    }
    let first = args
        .split([',', ')'])
        .next()
        .unwrap_or("")
        .trim()
        .trim_start_matches('&');
    func.params.iter().any(|p| p.name == first)
}
