//! Parameter-meet summaries: which parameters of a function meet which device-generic values
//! inside it (or inside what it calls), so that a tensor built on a hard-coded device and passed
//! as an argument is caught where it is passed, not only where it is used.
//!
//! A function's summary is a set of [`Meet`]s: "parameter `k` meets parameter `j`" or "parameter
//! `k` meets the model's own state" (a tensor on the model's device: built on `self.device`,
//! `vb.device()`). It is computed bottom-up over the call graph and iterated to a fixpoint
//! (recursive calls and strongly connected components converge in a few rounds; the number of
//! rounds is bounded by [`MAX_ROUNDS`]), as Pysa and Infer compute their interprocedural
//! summaries. Each meet keeps a [`Witness`]: the op where the meeting happens, and the chain of
//! calls that leads there, for the finding's labels.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

use crate::checker::{Callees, Checker, FnRef, Program};
use crate::ir::{Arg, CallTarget, Device, EventKind, FileId, Function, Origin, Span, Value};

/// Summaries stop growing after this many rounds over the whole tree.
pub(crate) const MAX_ROUNDS: usize = 16;

/// How the lowerers name a `torch.distributed` collective's op (`torch.distributed.all_reduce`).
pub(crate) const COLLECTIVE_PREFIX: &str = "torch.distributed.";

/// An op's name as findings show it (`all_reduce`, not `torch.distributed.all_reduce`).
pub(crate) fn op_name(name: &str) -> &str {
    name.strip_prefix(COLLECTIVE_PREFIX).unwrap_or(name)
}

/// Calls are followed at most this deep when building a witness chain (labels only).
const MAX_CHAIN: usize = 6;

/// What a parameter meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Partner {
    /// Another parameter of the same function (index into [`Function::params`]).
    Param(u16),
    /// The model's own state: a tensor on the device stored on the model.
    Model,
    /// The accelerator a `torch.distributed` collective computes on (NCCL takes accelerator
    /// tensors only), whoever calls.
    Collective,
}

/// Where a meeting happens: the op, in the function that does it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Witness {
    /// The file of the op.
    pub(crate) file: FileId,
    /// The op expression.
    pub(crate) span: Span,
    /// The op's name (`matmul`, `+`, `masked_fill`).
    pub(crate) op: String,
    /// The functions the argument is passed through, outermost first (`mask()`, `forward_attn()`),
    /// ending with the one that holds the op.
    pub(crate) chain: Vec<String>,
}

/// One fact of a summary: parameter `param` meets `partner` at `witness`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Meet {
    /// The parameter (index into [`Function::params`]).
    pub(crate) param: u16,
    /// What it meets.
    pub(crate) partner: Partner,
    /// Where.
    pub(crate) witness: Arc<Witness>,
    /// The parameter reaches the op only through the result of a call that returns a tensor
    /// on its arguments' device (`attention_output` computed by `self.attention(x, mask)`), here
    /// or in a callee: a witness where it is passed along as it is wins over such a one.
    pub(crate) derived: bool,
}

/// A function's parameter-meet summary.
pub(crate) type Meets = SmallVec<[Meet; 2]>;

/// The parameters of `func` (of `file`) whose value `v` carries (read directly or computed
/// from), unless `v` was moved by a transfer (then it lives where it was moved to). Each with
/// whether it is carried only through the result of a call of the tree that returns a tensor on
/// its arguments' device (`self.transpose_for_scores(&q)`, `softmax(&x)`).
pub(crate) fn carried_params(
    program: &Program<'_>,
    file: FileId,
    func: &Function,
    v: &Value,
) -> SmallVec<[(u16, bool); 2]> {
    let mut out = SmallVec::new();
    if !v.is_tensorish() || v.origin.as_ref().is_some_and(|o| o.is_transfer) {
        return out;
    }
    let call = matches!(v.device, Device::Call(_));
    let follows_args = call && is_generic(&program.resolve(v, file).0);
    for (i, p) in func.params.iter().enumerate() {
        let Some(b) = p.binding else { continue };
        // The parameter's binding, or a later one of the same name (`if lengths is None:
        // lengths = ..` rebinds it; the caller's value still flows on the other branch).
        let carries = |id: u32| {
            id == b
                || func
                    .bindings
                    .get(id as usize)
                    .is_some_and(|binding| binding.name == p.name && !binding.moved)
        };
        let index = u16::try_from(i).unwrap_or(u16::MAX);
        // ...or a local computed from it here.
        if v.var.is_some_and(carries) || v.reads.iter().any(|&r| carries(r)) {
            out.push((index, false));
        } else if computed_from(func, v, follows_args, carries) {
            // Through a call's result only when `v` is one.
            out.push((index, call));
        }
    }
    out
}

/// Whether `v` reads a local that this function computed from a binding `is_source` accepts
/// (`mask = x.permute(..) == 0` is computed from `x`). A call's result is not, unless
/// `call_follows_args` (the callee returns a tensor on its arguments' device): it may be an
/// `int` computed from a tensor.
fn computed_from(
    func: &Function,
    v: &Value,
    call_follows_args: bool,
    is_source: impl Fn(u32) -> bool,
) -> bool {
    (call_follows_args || !matches!(v.device, Device::Call(_)))
        && v.reads.iter().any(|&r| {
            func.bindings
                .get(r as usize)
                .is_some_and(|binding| binding.derived_from.iter().any(|&d| is_source(d)))
        })
}

/// The argument a call passes for parameter `index` of `callee`: the positional one, or the
/// keyword argument named as the parameter.
pub(crate) fn arg_for<'a>(args: &'a [Arg], callee: &Function, index: u16) -> Option<&'a Arg> {
    let index = usize::from(index);
    let name = callee.params.get(index).map(|p| p.name.as_str());
    args.iter()
        .find(|a| a.keyword.is_some() && a.keyword.as_deref() == name)
        .or_else(|| args.iter().filter(|a| a.keyword.is_none()).nth(index))
}

/// Whether a call passes `self` along: `self.f(..)` / `Self::f(..)` from a method of the same
/// type, so the callee's model state is the caller's.
pub(crate) fn is_self_call(target: &CallTarget, caller: &Function) -> bool {
    matches!(target, CallTarget::Method { self_type, .. }
        if caller.meta.self_type.as_deref() == Some(self_type.as_str()))
}

/// The parameter-meet summaries of every function of the tree that has parameters.
///
/// Round 0 computes each function's own meets; each later round recomputes, from the previous
/// round's summaries, only the callers of functions whose summary grew (a worklist over the
/// reverse call graph), each round's functions in parallel.
pub(crate) fn summaries(program: &Program<'_>) -> HashMap<FnRef, Meets> {
    let funcs: Vec<FnRef> = program
        .files
        .iter()
        .flat_map(|file| {
            file.functions
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.params.is_empty() && !f.calls_only)
                .map(move |(i, _)| (file.id, u32::try_from(i).unwrap_or(u32::MAX)))
        })
        .collect();
    // Round 0: the ops of each function itself.
    let mut all: HashMap<FnRef, Meets> = funcs
        .par_iter()
        .filter_map(|&r| {
            let local = local_meets(program, r);
            (!local.is_empty()).then_some((r, local))
        })
        .collect();
    // Who calls whom with arguments: only those calls can carry a callee's meets up.
    let calls_of: Vec<(FnRef, Callees)> = funcs
        .par_iter()
        .map(|&r| {
            let mut out = Callees::new();
            for event in &program.function(r).events {
                if let EventKind::Call { target, args } = &event.kind {
                    if !args.is_empty() {
                        out.extend(program.resolve_call(target, r.0));
                    }
                }
            }
            (r, out)
        })
        .collect();
    let mut callers: HashMap<FnRef, Vec<FnRef>> = HashMap::default();
    for (r, cs) in &calls_of {
        for &c in cs {
            callers.entry(c).or_default().push(*r);
        }
    }
    // Later rounds: what the callees' summaries say about the arguments passed to them.
    let mut changed: Vec<FnRef> = all.keys().copied().collect();
    for _ in 0..MAX_ROUNDS {
        let mut dirty: Vec<FnRef> = changed
            .iter()
            .filter_map(|c| callers.get(c))
            .flatten()
            .copied()
            .collect();
        dirty.sort_unstable();
        dirty.dedup();
        if dirty.is_empty() {
            break;
        }
        let added: Vec<(FnRef, Meets)> = dirty
            .par_iter()
            .filter_map(|&r| {
                let added = call_meets(program, r, &all);
                (!added.is_empty()).then_some((r, added))
            })
            .collect();
        changed.clear();
        for (r, added) in added {
            let entry = all.entry(r).or_default();
            let mut grew = false;
            for meet in added {
                grew |= push_meet(entry, meet.param, meet.partner, &meet.witness, meet.derived);
            }
            if grew {
                changed.push(r);
            }
        }
    }
    all
}

/// A tensor built on a hard-coded device, passed by a call for a parameter that meets, inside
/// the callee (or deeper), a device-generic value the caller also passes, or the model's state.
pub(crate) struct CallMeeting<'e> {
    /// The argument passed.
    pub(crate) arg: &'e Arg,
    /// Where the argument's device was written.
    pub(crate) origin: Arc<Origin>,
    /// The callee's parameter it is passed as.
    pub(crate) param: String,
    /// The callee, as the labels show it (`Type::name`).
    pub(crate) callee_name: String,
    /// What it meets, as the message shows it: the caller's argument, or "the model's state".
    pub(crate) partner: String,
    /// The device of what it meets.
    pub(crate) partner_device: Device,
    /// Where it meets it.
    pub(crate) witness: Arc<Witness>,
}

/// The [`CallMeeting`]s of a call of `func` (on a forward path or not) to `target` with `args`,
/// read from the callees' parameter-meet summaries.
pub(crate) fn call_meetings<'e>(
    checker: &Checker<'_>,
    func: &Function,
    forward: bool,
    target: &CallTarget,
    args: &'e [Arg],
) -> Vec<CallMeeting<'e>> {
    let program = checker.program;
    let mut out = Vec::new();
    for callee in program.resolve_call(target, checker.file.id) {
        let callee_fn = program.function(callee);
        for meet in program.meets(callee) {
            let Some(arg) = arg_for(args, callee_fn, meet.param) else {
                continue;
            };
            // An object built on the host (`StratifiedRaySampler()`, a module) is not a tensor:
            // where its methods' results live is not where it was built.
            if !arg.value.is_tensorish() {
                continue;
            }
            let (mut device, mut origin) = checker.resolve(&arg.value);
            // A 0-dim host tensor mixes with accelerator tensors in ops, not in a collective.
            if meet.partner == Partner::Collective && device == Device::Unknown {
                if let Some(scalar) = &arg.value.host_scalar {
                    (device, origin) = (Device::Cpu, Some(scalar.clone()));
                }
            }
            let Some(origin) = origin else { continue };
            // `"cuda"`, the current device each rank sets, is where NCCL computes.
            if meet.partner == Partner::Collective && device == Device::Cuda(None) {
                continue;
            }
            if !device.is_hard_coded() || origin.is_transfer {
                continue;
            }
            let (partner, partner_device) = match meet.partner {
                Partner::Param(j) => {
                    let Some(other) = arg_for(args, callee_fn, j) else {
                        continue;
                    };
                    let (d, _) = checker.resolve(&other.value);
                    // (The callee uses its parameter as a tensor, `torch.cat((X, T))`: that is
                    // the evidence an unannotated parameter passed along as it is lacks here.
                    // Not a parameter it converts, `torch.from_numpy(batch[i])`.)
                    let used_as_tensor = callee_fn
                        .params
                        .get(usize::from(j))
                        .is_some_and(|p| p.tensor_use && !p.host_data);
                    if !is_generic_data(func, &other.value, &d, forward || used_as_tensor) {
                        continue;
                    }
                    (checker.text(&other.value.span), d)
                }
                Partner::Model if is_self_call(target, func) => {
                    ("the model's state".to_string(), Device::Cached)
                }
                Partner::Model => continue,
                Partner::Collective => (
                    "the accelerator of the process group".to_string(),
                    Device::Cached,
                ),
            };
            out.push(CallMeeting {
                arg,
                origin,
                param: callee_fn
                    .params
                    .get(usize::from(meet.param))
                    .map_or_else(String::new, |p| p.name.clone()),
                callee_name: qualified_name(program, callee.0, callee_fn),
                partner,
                partner_device,
                witness: meet.witness.clone(),
            });
        }
    }
    out
}

/// `Type::name` for a method, `name` for a free function, as the finding's labels show it.
pub(crate) fn qualified_name(program: &Program<'_>, file: FileId, func: &Function) -> String {
    let sep = if crate::frontend::python::is_python(&program.file(file).path) {
        "."
    } else {
        "::"
    };
    match &func.meta.self_type {
        Some(ty) => format!("{ty}{sep}{}", func.meta.name),
        None => func.meta.name.clone(),
    }
}

/// Whether a resolved device is device-generic: an input's, a parameter's or the model's.
pub(crate) fn is_generic(device: &Device) -> bool {
    matches!(device, Device::Input | Device::Cached)
}

/// Whether `value` (resolved to `device`) is device-generic data where it is used: on a forward
/// path any input-derived value is; elsewhere it must be known to be a tensor (an unannotated
/// Python parameter may be a float, a shape or a config) or live on the model's device. A value
/// computed from a parameter the function hands to `NumPy` ([`crate::ir::Param::host_data`]) is
/// host data.
pub(crate) fn is_generic_data(
    func: &Function,
    value: &Value,
    device: &Device,
    forward: bool,
) -> bool {
    is_generic(device)
        && !func
            .params
            .iter()
            .any(|p| p.host_data && p.binding.is_some_and(|b| carries_binding(func, value, b)))
        && (forward
            || value.kind == crate::ir::ValueKind::Tensor
            || *device == Device::Cached
            || func.params.iter().any(|p| {
                p.tensor_use && p.binding.is_some_and(|b| carries_binding(func, value, b))
            }))
}

/// Whether `value` (of `func`) reads binding `b` or a local computed from it, a call's result
/// included.
pub(crate) fn carries_binding(func: &Function, value: &Value, b: u32) -> bool {
    value.var == Some(b) || value.reads.contains(&b) || computed_from(func, value, true, |d| d == b)
}

/// Adds a meet unless one of the same parameter and partner is there; a meet that is not
/// `derived` replaces a derived one. Returns whether `out` changed.
fn push_meet(
    out: &mut Meets,
    param: u16,
    partner: Partner,
    witness: &Arc<Witness>,
    derived: bool,
) -> bool {
    if partner == Partner::Param(param) {
        return false;
    }
    if let Some(m) = out
        .iter_mut()
        .find(|m| m.param == param && m.partner == partner)
    {
        if m.derived && !derived {
            m.witness = witness.clone();
            m.derived = false;
            return true;
        }
        return false;
    }
    out.push(Meet {
        param,
        partner,
        witness: witness.clone(),
        derived,
    });
    true
}

/// The meets of one function's own ops.
fn local_meets(program: &Program<'_>, r: FnRef) -> Meets {
    let func = program.function(r);
    let mut out = Meets::new();
    let calls = program.tree_call_spans(r);
    let forward = program.is_forward(r.0, r.1 as usize);
    // The function's name for witnesses, built once (reading the path's extension and
    // formatting cost more than the rest of a witness).
    let mut own_name: Option<String> = None;
    for event in &func.events {
        let EventKind::Op {
            name,
            operands,
            opaque,
        } = &event.kind
        else {
            continue;
        };
        // A call of a function of the tree is judged by that function's summary instead, and a
        // callee of unknown kind is evidence only on a forward path.
        if calls.contains(&event.span) || *opaque && !forward {
            continue;
        }
        let carried: Vec<SmallVec<[(u16, bool); 2]>> = operands
            .iter()
            .map(|o| carried_params(program, r.0, func, o))
            .collect();
        // A meet starts from an operand that carries a parameter: without one, there is none
        // (and no witness to build).
        if carried.iter().all(SmallVec::is_empty) {
            continue;
        }
        let witness = Arc::new(Witness {
            file: r.0,
            span: event.span.clone(),
            op: op_name(name).to_string(),
            chain: vec![own_name
                .get_or_insert_with(|| qualified_name(program, r.0, func))
                .clone()],
        });
        for (i, ks) in carried.iter().enumerate() {
            for &(k, k_derived) in ks {
                for (j, other) in operands.iter().enumerate() {
                    if i == j {
                        continue;
                    }
                    for &(p, _) in &carried[j] {
                        push_meet(&mut out, k, Partner::Param(p), &witness, k_derived);
                    }
                    if carried[j].is_empty() && program.resolve(other, r.0).0 == Device::Cached {
                        // The collective's own operand (first) is the process group's device.
                        let partner = if j == 0 && name.starts_with(COLLECTIVE_PREFIX) {
                            Partner::Collective
                        } else {
                            Partner::Model
                        };
                        push_meet(&mut out, k, partner, &witness, k_derived);
                    }
                }
            }
        }
    }
    out
}

/// The meets a function gets from its calls: an argument carrying parameter `a` passed where
/// the callee's parameter meets something the caller also passes (or its own model state).
fn call_meets(program: &Program<'_>, r: FnRef, all: &HashMap<FnRef, Meets>) -> Meets {
    let func = program.function(r);
    let mut out = Meets::new();
    for event in &func.events {
        let EventKind::Call { target, args } = &event.kind else {
            continue;
        };
        if args.is_empty() {
            continue;
        }
        for callee in program.resolve_call(target, r.0) {
            let Some(meets) = all.get(&callee) else {
                continue;
            };
            let callee_fn = program.function(callee);
            for meet in meets {
                let Some(arg) = arg_for(args, callee_fn, meet.param) else {
                    continue;
                };
                let from = carried_params(program, r.0, func, &arg.value);
                if from.is_empty() {
                    continue;
                }
                let mut witness = (*meet.witness).clone();
                if witness.chain.len() < MAX_CHAIN {
                    witness.chain.insert(0, qualified_name(program, r.0, func));
                }
                let witness = Arc::new(witness);
                let partners: SmallVec<[(Partner, bool); 2]> = match meet.partner {
                    Partner::Param(j) => {
                        let Some(other) = arg_for(args, callee_fn, j) else {
                            continue;
                        };
                        let mut ps: SmallVec<[(Partner, bool); 2]> =
                            carried_params(program, r.0, func, &other.value)
                                .into_iter()
                                .map(|(p, derived)| (Partner::Param(p), derived))
                                .collect();
                        if ps.is_empty() && program.resolve(&other.value, r.0).0 == Device::Cached {
                            ps.push((Partner::Model, false));
                        }
                        ps
                    }
                    Partner::Model if is_self_call(target, func) => {
                        SmallVec::from_slice(&[(Partner::Model, false)])
                    }
                    Partner::Model => SmallVec::new(),
                    Partner::Collective => SmallVec::from_slice(&[(Partner::Collective, false)]),
                };
                for &(a, a_derived) in &from {
                    for &(p, _) in &partners {
                        push_meet(&mut out, a, p, &witness, meet.derived || a_derived);
                    }
                }
            }
        }
    }
    out
}
