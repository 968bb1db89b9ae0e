use std::collections::HashSet;

use crate::checker::Checker;
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::engine::meets::{call_meetings, is_generic_data, op_name, COLLECTIVE_PREFIX};
use crate::ir::{
    Arg, CallTarget, Device, EventKind, FileId, Function, Origin, Span, Value, ValueKind,
};
use crate::rule::{declare_rule, Violation};
use crate::utils::{device_name, written};

declare_rule! {
    /// ## What it does
    /// Checks for tensors created on a hard-coded device (`Device::Cpu`, `Device::Cuda(0)`,
    /// burn's `Default::default()`, tch's `Tensor::from_slice`, `PyTorch` factories without
    /// `device=`) that meet a device-generic value in an op: the input of a forward path, any
    /// tensor or device parameter of a function, the model's own device (`vb.device()`,
    /// `self.device`), or anything computed from them. The meeting is followed through bindings,
    /// returns and arguments: a tensor passed to a function of the tree whose parameter meets
    /// such a value there (or deeper) is reported where it is created, with the calls in between.
    /// A stateful sub-module of the model (its weights are on the model's device), a
    /// `torch.distributed` collective, called directly or through a function of the tree that
    /// hands its parameter to one (NCCL takes accelerator tensors only; not in a file that sets
    /// up a gloo group, which a test of the configured backend, `backend == "gloo"`, is not;
    /// `"cuda"`, each rank's current device, is where NCCL computes), an in-place update of a 0-dim host tensor (`acc += loss`) and, on a
    /// forward path, a host-built table indexed with tensors (`torch.eye(n)[target]`: `PyTorch`
    /// takes indices on the host or on the table's device) are meeting points too. A 0-dim tch
    /// `Tensor::from(number)` mixes with any device, as `PyTorch`'s 0-dim tensors do in elementwise
    /// ops (not as the index of `gather`/`index_select`, nor in a collective). In `PyTorch`,
    /// `"cuda" if torch.cuda.is_available() else "cpu"` is hard-coded: the accelerator wherever
    /// there is one, whatever device the data is on. In Rust, a
    /// new CUDA device chosen where device-generic data is handled (candle's
    /// `Device::cuda_if_available(0)` in a method taking `self` or a function given tensors; not in
    /// a loader without either, a binary or a test) is hard-coded as well: candle gives every new
    /// CUDA device an id of its own, which the model's tensors do not share.
    ///
    /// ## Why is this bad?
    /// The model works while it runs on that one device and fails as soon as the input lives
    /// anywhere else: on CUDA the op returns a device-mismatch error (candle `DeviceMismatchBinaryOp`,
    /// tch "Expected all tensors to be on the same device").
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{DType, Device, Result, Tensor};
    /// struct Attention;
    /// impl Attention {
    ///     fn forward(&self, xs: &Tensor) -> Result<Tensor> {
    ///         let mask = Tensor::ones((4, 4), DType::F32, &Device::Cpu)?;
    ///         xs.broadcast_mul(&mask)
    ///     }
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Scale(nn.Module):
    ///     def forward(self, x):
    ///         mask = torch.ones(x.shape[0], x.shape[1])
    ///         return x * mask
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{DType, Device, Result, Tensor};
    /// struct Attention;
    /// impl Attention {
    ///     fn forward(&self, xs: &Tensor) -> Result<Tensor> {
    ///         let mask = Tensor::ones((4, 4), DType::F32, xs.device())?;
    ///         xs.broadcast_mul(&mask)
    ///     }
    /// }
    /// ```
    ///
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Scale(nn.Module):
    ///     def forward(self, x):
    ///         mask = torch.ones(x.shape[0], x.shape[1], device=x.device, dtype=x.dtype)
    ///         return x * mask
    /// ```
    ///
    /// ## Known problems
    /// Calls are followed by name: a helper is resolved to the functions of the linted tree with
    /// that name (methods of the same type for `self.f()`), so two same-named helpers with
    /// different behaviour hide each other. Devices stored on the model (`self.device`) are
    /// trusted. A function is taken as host-only code, and not checked, when every call of it
    /// outside tests passes it tensors built on the host, or what a host-only caller was given
    /// (a data parser's helpers, calls deep), a weight initialiser run only as
    /// `self.apply(init_weights)` in a module's `__init__` (the weights are still on the host
    /// there) and what it calls, and so is a function that computes with torch's
    /// eager quantized kernels (`torch.nn.quantized.functional`, `torch.ops.quantized`), which
    /// run on the CPU only. So are the methods of a Rust type whose weights are on the host by
    /// construction (a method loads them with `VarBuilder::from_*` / `safetensors::load*` on the
    /// literal `Device::Cpu`, and no method takes a `VarBuilder` or, returning `Self`, a
    /// device), and a Python parameter the function hands to `NumPy` (`x.numpy()`) is host
    /// data; done on every call (or `torch.histogram`, which has no CUDA kernel, on a tensor it
    /// was given) it makes the whole function host-only. In a tree written for torch's global
    /// default device (a Python file outside the tests calls `torch.get_default_device()`, other
    /// than as the fallback for a device not given, or `torch.set_default_device(..)` with
    /// anything but `"cpu"`), a factory with no device
    /// written follows that default and is not reported (`torch.from_numpy` still is). Code
    /// that places by a flag (`if self.use_gpu: x = x.cuda()` / `else:` on the host) is judged
    /// arm by arm for each later `if` on the same flag, and its host arm is not reported here
    /// (`mixed-device-op` still reports a `.cuda()` tensor in it). Tensors given to a model's
    /// constructor are taken for host data (configuration, built before the model moves). Types
    /// are matched by name across the tree. A method placer does not know, called
    /// on what may be a tensor, is taken for a tensor op on its arguments: a host tensor given
    /// to a host-only method of another type (`SparseTensor.partition(node_weight=w)`, METIS on
    /// the CPU) is reported.
    ///
    /// ## Fix
    /// Unsafe (`--unsafe-fixes`): the device argument is rewritten to the input's device
    /// (`&Device::Cpu` becomes `&xs.device()`). Offered when the input is a plain name or field;
    /// check that it is in scope where the tensor is built.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P101
    /// - `../shared/reference/pytorch-devices-chapter.txt`, on creating tensors inside `forward`
    pub(crate) struct TensorOnDefaultDevice {
        tensor: String,
        device: String,
        input: String,
        op: String,
        /// For a tensor passed to a function of the tree: the calls down to the op.
        via: Option<String>,
        python: bool,
        /// The partner is the model's state (a sub-module's weights), not a tensor with a
        /// `.device` of its own.
        model_state: bool,
        /// The device is a new CUDA device (candle `Device::cuda_if_available(0)`,
        /// `Device::new_cuda(0)`), which no other tensor's device equals.
        fresh: bool,
    }
}

impl TensorOnDefaultDevice {
    /// How the message names the device: a new CUDA device is said to be one.
    fn device_phrase(&self) -> String {
        if self.fresh {
            format!("a new CUDA device (`{}`)", self.device)
        } else {
            format!("`{}`", self.device)
        }
    }
}

/// Whether a device is written as a candle constructor that creates a new CUDA device.
fn is_new_cuda_device(written: &str) -> bool {
    written.contains("cuda_if_available(") || written.contains("new_cuda(")
}

impl Violation for TensorOnDefaultDevice {
    fn message(&self) -> String {
        match &self.via {
            None if self.model_state => format!(
                "`{}` is created on {} but meets `{}`, which computes on the model's device, \
                 in `{}`",
                self.tensor,
                self.device_phrase(),
                self.input,
                self.op
            ),
            None => format!(
                "`{}` is created on {} but meets device-generic `{}` in `{}`",
                self.tensor,
                self.device_phrase(),
                self.input,
                self.op
            ),
            Some(via) => {
                let partner = code_or_description(&self.input);
                format!(
                    "`{}` is created on {} and passed to `{via}()`, where it meets {partner} in `{}`",
                    self.tensor,
                    self.device_phrase(),
                    self.op
                )
            }
        }
    }

    fn help(&self) -> Option<String> {
        if self.fresh && self.model_state {
            return Some(
                "create it on the device the model was loaded on (keep that device in the model): \
                 every new CUDA device has an id of its own"
                    .to_string(),
            );
        }
        if self.fresh {
            return Some(format!(
                "create it on the device of `{}`: every new CUDA device has an id of its own",
                self.input
            ));
        }
        if self.via.is_some() {
            let partner = code_or_description(&self.input);
            return Some(format!(
                "create it on the device of {partner} (or move it there before the call)"
            ));
        }
        if self.model_state {
            return Some(
                "create it on the model's device (the device of an input tensor, or of one of \
                 the module's parameters), or move it there before the call"
                    .to_string(),
            );
        }
        if !simple_input(&self.input) {
            return Some(format!(
                "create it on the device of `{}` (pass that tensor's device)",
                self.input
            ));
        }
        if self.python {
            return Some(format!(
                "create it on the input's device: pass `device={}.device`",
                self.input
            ));
        }
        Some(format!(
            "create it on the input's device: pass `{}.device()` instead of `{}`",
            self.input, self.device
        ))
    }
}

/// `input` in backticks when it is code; a description of what is met ("the model's state",
/// "the accelerator of the process group") as it is.
fn code_or_description(input: &str) -> String {
    if input.starts_with("the ") {
        input.to_string()
    } else {
        format!("`{input}`")
    }
}

/// Rewrites the device argument to the input's device (`&Device::Cpu` → `&xs.device()`). Unsafe:
/// the input must be in scope where the tensor is built, and the tensor then moves with the
/// input. Only offered when the input is a plain name or field path.
fn device_fix(checker: &Checker<'_>, device: &Span, input: &str) -> Option<Fix> {
    let written = checker.file.source.get(device.clone())?;
    if !simple_input(input) {
        return None;
    }
    let content = if checker.is_python() {
        // `device="cpu"` → `device=x.device`
        format!("{input}.device")
    } else {
        let borrow = if written.starts_with('&') { "&" } else { "" };
        format!("{borrow}{input}.device()")
    };
    Some(Fix {
        edits: vec![Edit {
            range: device.clone(),
            content: Some(content.into()),
        }],
        applicability: Applicability::Unsafe,
    })
}

/// A plain name or field path (`xs`, `self.x`): safe to repeat in another expression.
fn simple_input(input: &str) -> bool {
    !input.is_empty()
        && input
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && !input.starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// `torch.ones(n)` → `torch.ones(n, device=x.device)`: the keyword added before the call's
/// closing parenthesis.
fn device_keyword_fix(checker: &Checker<'_>, call: &Span, input: &str) -> Option<Fix> {
    let text = checker.file.source.get(call.clone())?;
    if !simple_input(input) || !text.ends_with(')') || text.contains("device") {
        return None;
    }
    // The legacy constructors (`torch.Tensor(data)`) refuse a device other than the CPU.
    if text
        .split_once('(')
        .is_some_and(|(callee, _)| callee.trim_end().ends_with("Tensor"))
    {
        return None;
    }
    let inner = text[..text.len() - 1].trim_end();
    let sep = if inner.ends_with('(') || inner.ends_with(',') {
        ""
    } else {
        ", "
    };
    let at = call.end - 1;
    Some(Fix {
        edits: vec![Edit {
            range: at..at,
            content: Some(format!("{sep}device={input}.device").into()),
        }],
        applicability: Applicability::Unsafe,
    })
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let mut seen = HashSet::new();
    for (index, func) in checker.functions() {
        let here = (checker.file.id, u32::try_from(index).unwrap_or(u32::MAX));
        // Host-only code (every caller passes it host-built tensors) may build on the host.
        let forward = checker.is_forward(index);
        // So does code that computes with the CPU-only quantized kernels.
        if checker.program.is_host_only(here)
            || checker.program.is_host_compute(checker.file.id, func)
        {
            continue;
        }
        let tree_calls = checker.program.tree_call_spans(here);
        for event in &func.events {
            match &event.kind {
                // A call of a function of the tree is judged by that function's summary.
                // Outside a forward path, a callee of unknown kind is no evidence of a meeting,
                // unless (Rust) it is given a tensor on an accelerator the code chose itself:
                // wherever a sub-module computes, a new CUDA device is not the model's.
                EventKind::Op {
                    name,
                    operands,
                    opaque,
                } if !tree_calls.contains(&event.span)
                    && (forward || !opaque || !checker.is_python()) =>
                {
                    check_op(
                        checker,
                        &mut seen,
                        func,
                        (forward, !forward && *opaque),
                        &event.span,
                        name,
                        operands,
                    );
                }
                EventKind::Call { target, args } if !args.is_empty() => {
                    check_call(checker, &mut seen, forward, func, target, args);
                }
                _ => {}
            }
        }
    }
}

/// An op whose operands mix a hard-coded-device tensor with a device-generic one; `forward`:
/// whether it is on a forward path, and whether only accelerator tensors count (an opaque op
/// outside one).
fn check_op(
    checker: &mut Checker<'_>,
    seen: &mut HashSet<(FileId, Span)>,
    func: &Function,
    (forward, accelerator_only): (bool, bool),
    at: &Span,
    name: &str,
    operands: &[Value],
) {
    let resolved: Vec<_> = operands.iter().map(|o| (o, checker.resolve(o))).collect();
    // One operand must be device-generic (the input's, a parameter's or the model's device)...
    let Some((input, (generic, _))) = resolved
        .iter()
        .find(|(o, (d, _))| is_generic_data(func, o, d, forward))
    else {
        return;
    };
    let generic = generic.clone();
    for (operand, (device, origin)) in &resolved {
        // ...and another must have been created on a device written in the code (model state
        // built so is host-built-model-state's).
        let Some(origin) = origin else { continue };
        if matches!(operand.device, Device::Field(_)) {
            continue;
        }
        if !device.is_hard_coded()
            || origin.is_transfer
            || accelerator_only && !matches!(device, Device::Cuda(_))
            || checker.program.follows_default_device(origin)
            || origin.flag_host
        {
            continue;
        }
        // `"cuda"` (the current device, which each rank sets to its own) in a collective is
        // where NCCL computes.
        if name.starts_with(COLLECTIVE_PREFIX) && *device == Device::Cuda(None) {
            continue;
        }
        if !seen.insert((origin.file, origin.span.clone())) {
            continue;
        }
        let violation = TensorOnDefaultDevice {
            tensor: checker.text(&operand.span),
            device: written(origin).to_string(),
            input: checker.text(&input.span),
            op: op_name(name).to_string(),
            via: None,
            python: checker.is_python(),
            model_state: input.kind == ValueKind::Module,
            fresh: is_new_cuda_device(written(origin)),
        };
        let (diagnostic, input) =
            report_at_origin(checker, &violation, origin, &operand.span, input);
        diagnostic.label(
            at.clone(),
            format!("meets `{input}` ({}) here", device_name(&generic)),
        );
    }
}

/// A call that passes a hard-coded-device tensor for a parameter that meets, inside the callee
/// (or deeper), a device-generic value the caller also passes, or the model's own state.
fn check_call(
    checker: &mut Checker<'_>,
    seen: &mut HashSet<(FileId, Span)>,
    forward: bool,
    func: &Function,
    target: &CallTarget,
    args: &[Arg],
) {
    let program = checker.program;
    for meeting in call_meetings(checker, func, forward, target, args) {
        // Model state built so is host-built-model-state's.
        let (arg, origin) = (meeting.arg, &meeting.origin);
        if matches!(arg.value.device, Device::Field(_))
            || program.follows_default_device(origin)
            || origin.flag_host
        {
            continue;
        }
        if !seen.insert((origin.file, origin.span.clone())) {
            continue;
        }
        let witness = &meeting.witness;
        let violation = TensorOnDefaultDevice {
            tensor: checker.text(&arg.value.span),
            device: written(origin).to_string(),
            input: meeting.partner.clone(),
            op: witness.op.clone(),
            via: Some(witness.chain.join("()` → `")),
            python: checker.is_python(),
            model_state: false,
            fresh: is_new_cuda_device(written(origin)),
        };
        let where_op = if witness.file == checker.file.id {
            None
        } else {
            let file = program.file(witness.file);
            let index = crate::diagnostic::LineIndex::new(&file.source);
            let (line, col) = index.line_col(&file.source, witness.span.start);
            Some(format!("{}:{line}:{col}", file.path.display()))
        };
        let local_op = where_op.is_none();
        let (diagnostic, _) =
            report_at_origin(checker, &violation, origin, &arg.value.span, &arg.value);
        diagnostic.label(
            arg.value.span.clone(),
            format!(
                "passed as `{}` to `{}()` here",
                meeting.param, meeting.callee_name
            ),
        );
        if local_op {
            diagnostic.label(
                witness.span.clone(),
                format!("meets it in `{}` here", witness.op),
            );
        } else if let Some(place) = where_op {
            diagnostic.label(
                arg.value.span.clone(),
                format!("meets it in `{}` at {place}", witness.op),
            );
        }
    }
}

/// Reports the violation at the tensor's creation (its device argument when written there, in
/// this file) with the fix, and a label at `operand` when it was created in another file.
fn report_at_origin<'c>(
    checker: &'c mut Checker<'_>,
    violation: &TensorOnDefaultDevice,
    origin: &Origin,
    operand: &Span,
    input: &Value,
) -> (&'c mut crate::diagnostic::Diagnostic, String) {
    let local = origin.file == checker.file.id;
    let span = match (&origin.device_span, local) {
        (Some(s), true) => s.clone(),
        (None, true) => origin.span.clone(),
        _ => operand.clone(),
    };
    let elsewhere = checker.describe_origin(origin);
    let input_text = checker.text(&input.span);
    // A sub-module met on the model's device (`self.embeddings.forward(&ids)`) has no `.device()`
    // of its own to write into a fix.
    // A new device (`Device::cuda_if_available(0)?`) is not a plain argument to rewrite.
    let fix = if violation.via.is_some() || violation.fresh || input.device == Device::Cached {
        None
    } else {
        match (&origin.device_span, local) {
            (Some(device), true) => device_fix(checker, device, &input_text),
            // PyTorch's `torch.ones(n)`: add `device=x.device`.
            (None, true) if checker.is_python() => {
                device_keyword_fix(checker, &origin.span, &input_text)
            }
            _ => None,
        }
    };
    let tensor = violation.tensor.clone();
    let written = written(origin).to_string();
    let diagnostic = checker.report(violation, span);
    diagnostic.fix = fix;
    if let Some(place) = elsewhere {
        diagnostic.label(
            operand.clone(),
            format!("`{tensor}` is created on `{written}` at {place}"),
        );
    }
    (diagnostic, input_text)
}
