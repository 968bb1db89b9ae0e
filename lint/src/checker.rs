//! Runs the enabled rules over the IR of a tree, with the facts that need the whole tree: which
//! functions are on a forward path (following calls across files), and what device each function
//! returns its tensors on.

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Label};
use crate::engine::meets::Meets;
use crate::ir::{
    CallTarget, Device, EventKind, File, FileId, Function, Origin, Span, Value, ValueKind,
};
use crate::registry::Rule;
use crate::rule::Violation;
use crate::settings::Settings;

/// A function of the tree: file index and function index.
pub(crate) type FnRef = (FileId, u32);

/// The functions a call may reach (nearly always one: inline, no allocation).
pub(crate) type Callees = smallvec::SmallVec<[FnRef; 2]>;

/// What a function returns, device-wise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    device: Device,
    origin: Option<Arc<Origin>>,
}

impl Summary {
    fn unknown() -> Self {
        Summary {
            device: Device::Unknown,
            origin: None,
        }
    }
}

/// Joins what several returns (or several same-named callees) give: equal devices stay, anything
/// else is unknown.
fn join(acc: Option<Summary>, s: Summary) -> Summary {
    match acc {
        None => s,
        Some(prev) if prev.device == s.device => prev,
        Some(_) => Summary::unknown(),
    }
}

/// The lowered tree with its cross-file facts.
pub(crate) struct Program<'a> {
    pub(crate) files: &'a [File],
    /// Position in `files` of each file id (`usize::MAX` for ids of skipped files).
    position: Vec<usize>,
    /// Methods by (implementing type, name).
    methods: HashMap<(&'a str, &'a str), Vec<FnRef>>,
    /// Free functions by name.
    free: HashMap<&'a str, Vec<FnRef>>,
    forward: HashSet<FnRef>,
    /// Functions called from a loop body of the tree (a training step, a scheduler step), and
    /// what they call: they run once per iteration.
    per_iteration: HashSet<FnRef>,
    summaries: HashMap<FnRef, Summary>,
    /// What the constructors of a type store in each field: (type, field) → device.
    fields: HashMap<(&'a str, &'a str), Summary>,
    /// Parameter-meet summaries (see [`crate::engine::meets`]).
    meets: HashMap<FnRef, Meets>,
    /// Per file (in the order of `files`) and function, [`Program::tree_call_spans`]: read by the
    /// meet summaries and by rules, so found once.
    tree_calls: Vec<Vec<HashSet<Span>>>,
    /// Functions every call site of the tree gives only host-built tensors: host-only code.
    host_only: HashSet<FnRef>,
    /// Python classes that are `nn.Module`s, through the class hierarchy of the whole tree.
    module_classes: HashSet<&'a str>,
    /// Python classes of the tree: their bases' names (last path segment), first base first.
    bases: HashMap<&'a str, Vec<&'a str>>,
    /// (class, attribute) pairs some method of the class registers as a buffer or parameter.
    registered: HashSet<(&'a str, &'a str)>,
    /// Functions that wait for the device before they return: they synchronize or read device
    /// data on the host (`.item()`, `to_vec1()`), themselves or in a function they call.
    synchronizing: HashSet<FnRef>,
    /// Functions that may touch tensors: those of files that name a tensor API (see
    /// [`File::tensor_api`], [`Function::calls_only`]), test code, and their callers,
    /// transitively. The others (a `NumPy` helper module's) queue no device work.
    touching: HashSet<FnRef>,
    /// Rust types whose weights are on the host by construction: a method loads them onto
    /// `Device::Cpu` and no method takes them from its caller (a `VarBuilder` or a device).
    host_models: HashSet<&'a str>,
    /// The tree builds on torch's global default device: a Python file outside the tests
    /// calls `torch.get_default_device()`, or sets a default device other than the CPU
    /// (`torch.set_default_device(args.device)`). Its factories without `device=` follow the
    /// data (see [`Program::follows_default_device`]).
    default_device_tree: bool,
    /// Python parameters with an accelerator default (`device="cuda"`) that every call of
    /// their function in the tree (outside tests; at least one) passes: (function, parameter).
    overridden_defaults: HashSet<(FnRef, u16)>,
    /// Python packages of the tree: the directories holding one of its `__init__.py` files.
    packages: HashSet<&'a std::path::Path>,
}

impl<'a> Program<'a> {
    /// Indexes `files` and computes every cross-file fact: forward paths, return summaries and
    /// the rest ([`Program::index`], then [`Program::complete`]).
    pub(crate) fn new(files: &'a [File]) -> Self {
        Self::index(files).complete()
    }

    /// Indexes `files` (functions by name, class bases) and computes return summaries only: all
    /// that deciding which call-graph-only files need full lowering reads.
    pub(crate) fn index(files: &'a [File]) -> Self {
        // Independent: the name maps (serial, calls resolve in file order) beside the rest.
        let ((methods, free), registered) =
            rayon::join(|| function_names(files), || registered_attributes(files));
        let mut program = Program {
            files,
            position: {
                let ids = files.iter().map(|f| f.id as usize + 1).max().unwrap_or(0);
                let mut position = vec![usize::MAX; ids];
                for (i, f) in files.iter().enumerate() {
                    position[f.id as usize] = i;
                }
                position
            },
            methods,
            free,
            forward: HashSet::default(),
            per_iteration: HashSet::default(),
            summaries: HashMap::default(),
            fields: HashMap::default(),
            meets: HashMap::default(),
            host_only: HashSet::default(),
            host_models: HashSet::default(),
            module_classes: module_classes(files),
            bases: files
                .iter()
                .flat_map(|f| &f.classes)
                .map(|c| {
                    let bases = c
                        .bases
                        .iter()
                        .map(|b| b.rsplit('.').next().unwrap_or(b))
                        .collect();
                    (c.name.as_str(), bases)
                })
                .collect(),
            registered,
            synchronizing: HashSet::default(),
            touching: HashSet::default(),
            overridden_defaults: HashSet::default(),
            tree_calls: Vec::new(),
            packages: files
                .iter()
                .filter(|f| f.path.file_name().is_some_and(|n| n == "__init__.py"))
                .filter_map(|f| f.path.parent())
                .collect(),
            default_device_tree: files.par_iter().any(|f| {
                crate::frontend::python::is_python(&f.path)
                    && !crate::frontend::python::is_test_path(&f.path)
                    && uses_default_device(&f.source)
            }),
        };
        program.summaries = program.return_summaries();
        program
    }

    /// Computes the facts [`Program::index`] leaves out: forward paths, per-iteration and
    /// synchronizing functions, field devices, parameter-meet summaries, host-only functions.
    pub(crate) fn complete(mut self) -> Self {
        let program = &mut self;
        program.tree_calls = program
            .files
            .par_iter()
            .map(|file| {
                file.functions
                    .iter()
                    .map(|f| program.find_tree_call_spans(f, file.id))
                    .collect()
            })
            .collect();
        // Independent of each other: they read only the call graph.
        let ((forward, per_iteration), synchronizing) = rayon::join(
            || {
                rayon::join(
                    || program.forward_functions(),
                    || program.per_iteration_functions(),
                )
            },
            || program.synchronizing_functions(),
        );
        program.forward = forward;
        program.per_iteration = per_iteration;
        (program.synchronizing, program.touching) = synchronizing;
        program.fields = program.field_summaries();
        program.meets = crate::engine::meets::summaries(program);
        program.host_only = program.host_only_functions();
        program.host_models = program.host_model_types();
        program.overridden_defaults = program.overridden_device_defaults();
        self
    }

    /// Whether every call of `r` in the tree (outside tests; there is at least one) passes its
    /// parameter `index`: a default there decides nothing for the tree's own code.
    pub(crate) fn is_default_overridden(&self, r: FnRef, index: u16) -> bool {
        self.overridden_defaults.contains(&(r, index))
    }

    /// See [`Program::overridden_defaults`]: one pass over the tree's calls, done only when
    /// some Python function has an accelerator default.
    fn overridden_device_defaults(&self) -> HashSet<(FnRef, u16)> {
        let mut targets: HashMap<FnRef, Vec<u16>> = HashMap::default();
        for file in self.files {
            if !crate::frontend::python::is_python(&file.path) {
                continue;
            }
            for (i, f) in file.functions.iter().enumerate() {
                let params: Vec<u16> = f
                    .params
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| {
                        p.default.as_ref().is_some_and(|d| {
                            d.kind == ValueKind::Device && matches!(d.device, Device::Cuda(_))
                        })
                    })
                    .filter_map(|(k, _)| u16::try_from(k).ok())
                    .collect();
                if !params.is_empty() {
                    targets.insert((file.id, u32::try_from(i).unwrap_or(u32::MAX)), params);
                }
            }
        }
        if targets.is_empty() {
            return HashSet::default();
        }
        // Per target: (calls, calls passing each of its defaulted parameters); per file in
        // parallel, then summed.
        let seen = self
            .files
            .par_iter()
            .map(|file| {
                let mut seen: HashMap<FnRef, (u32, Vec<u32>)> = HashMap::default();
                for f in file.functions.iter().filter(|f| !f.meta.is_test) {
                    for event in &f.events {
                        let EventKind::Call { target, args } = &event.kind else {
                            continue;
                        };
                        for callee in self.resolve_call(target, file.id) {
                            let Some(params) = targets.get(&callee) else {
                                continue;
                            };
                            let callee_fn = self.function(callee);
                            let entry = seen
                                .entry(callee)
                                .or_insert_with(|| (0, vec![0; params.len()]));
                            entry.0 += 1;
                            for (slot, &k) in entry.1.iter_mut().zip(params) {
                                if crate::engine::meets::arg_for(args, callee_fn, k).is_some() {
                                    *slot += 1;
                                }
                            }
                        }
                    }
                }
                seen
            })
            .reduce(HashMap::default, |mut a, b| {
                for (r, (calls, passing)) in b {
                    let entry = a.entry(r).or_insert_with(|| (0, vec![0; passing.len()]));
                    entry.0 += calls;
                    for (slot, n) in entry.1.iter_mut().zip(passing) {
                        *slot += n;
                    }
                }
                a
            });
        seen.into_iter()
            .flat_map(|(r, (calls, passing))| {
                let params = &targets[&r];
                params
                    .iter()
                    .zip(passing)
                    .filter(move |(_, n)| calls > 0 && *n == calls)
                    .map(move |(&k, _)| (r, k))
            })
            .collect()
    }

    /// Whether a tensor created at `origin` (in the Python file `file`) is on the global default
    /// device of a tree that sets one ([`Program::default_device_tree`]): a factory with no
    /// device written, not a transfer, and not `torch.from_numpy` (always on the host).
    pub(crate) fn follows_default_device(&self, origin: &crate::ir::Origin) -> bool {
        self.default_device_tree
            && origin.device_span.is_none()
            && !origin.is_transfer
            && crate::frontend::python::is_python(&self.file(origin.file).path)
            && !self
                .file(origin.file)
                .source
                .get(origin.span.clone())
                .is_some_and(|text| text.contains("from_numpy"))
    }

    /// See [`Program::host_models`].
    fn host_model_types(&self) -> HashSet<&'a str> {
        let mut host: HashSet<&'a str> = HashSet::default();
        let mut caller: HashSet<&'a str> = HashSet::default();
        for file in self.files {
            for f in &file.functions {
                let Some(ty) = f.meta.self_type.as_deref() else {
                    continue;
                };
                match f.meta.weights {
                    crate::ir::WeightsPlace::Host => {
                        host.insert(ty);
                    }
                    crate::ir::WeightsPlace::Caller => {
                        caller.insert(ty);
                    }
                    crate::ir::WeightsPlace::Unknown => {}
                }
            }
        }
        host.retain(|ty| !caller.contains(ty));
        host
    }

    /// Whether `func` (of `file`) computes on the host by construction: with host-only kernels
    /// or backends ([`crate::ir::FunctionMeta::host_compute`]), or as a method of a Rust type
    /// whose weights are on the host (`Self` built only from weights loaded onto `Device::Cpu`).
    pub(crate) fn is_host_compute(&self, file: FileId, func: &Function) -> bool {
        func.meta.host_compute
            || !self.host_models.is_empty()
                && func
                    .meta
                    .self_type
                    .as_deref()
                    .is_some_and(|ty| self.host_models.contains(ty))
                && !crate::frontend::python::is_python(&self.file(file).path)
    }

    /// Whether `r` may touch tensors (queue device work, read device data), itself or through
    /// what it calls. If not, neither its file nor those of its callees name a tensor API.
    pub(crate) fn touches_tensors(&self, r: FnRef) -> bool {
        self.touching.contains(&r)
    }

    /// Whether a call of `r` waits for the device before it returns.
    pub(crate) fn is_synchronizing(&self, r: FnRef) -> bool {
        self.synchronizing.contains(&r)
    }

    /// The functions that synchronize or read device data on the host, and their callers,
    /// transitively; and the functions that may touch tensors (those of files that name a
    /// tensor API, and their callers): one pass over the calls builds the reverse call graph,
    /// then a walk up it from the functions that wait (that touch tensors) themselves.
    fn synchronizing_functions(&self) -> (HashSet<FnRef>, HashSet<FnRef>) {
        // Per file, in parallel: its (callee, caller) edges, and its functions that wait and
        // that touch tensors themselves.
        let per_file: Vec<_> = self
            .files
            .par_iter()
            .map(|file| {
                let mut edges = Vec::new();
                let mut work = Vec::new();
                let mut touching = Vec::new();
                for (i, f) in file.functions.iter().enumerate() {
                    let r = (file.id, u32::try_from(i).unwrap_or(u32::MAX));
                    if file.tensor_api && !f.calls_only || f.meta.is_test {
                        touching.push(r);
                    }
                    for e in &f.events {
                        match &e.kind {
                            EventKind::Synchronize | EventKind::HostRead { .. } => work.push(r),
                            // A blocking copy of device data to the host waits too (`outs.append(y.cpu())`).
                            EventKind::Transfer {
                                to: Device::Cpu,
                                source,
                                ..
                            } if source.device != Device::Cpu
                                && crate::utils::blocking(&f.events, &e.span) =>
                            {
                                work.push(r);
                            }
                            EventKind::Call { target, .. } => {
                                for callee in self.resolve_call(target, file.id) {
                                    edges.push((callee, r));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                (edges, work, touching)
            })
            .collect();
        let mut callers: HashMap<FnRef, Vec<FnRef>> = HashMap::default();
        let mut work: Vec<FnRef> = Vec::new();
        let mut touching: Vec<FnRef> = Vec::new();
        for (edges, w, t) in per_file {
            for (callee, caller) in edges {
                callers.entry(callee).or_default().push(caller);
            }
            work.extend(w);
            touching.extend(t);
        }
        let up_from = |mut work: Vec<FnRef>| {
            let mut out: HashSet<FnRef> = HashSet::default();
            while let Some(r) = work.pop() {
                if out.insert(r) {
                    if let Some(up) = callers.get(&r) {
                        work.extend(up.iter().copied().filter(|c| !out.contains(c)));
                    }
                }
            }
            out
        };
        (up_from(work), up_from(touching))
    }

    /// What each type's methods store in each of its fields (`Self { mask, .. }` in `new`,
    /// `self.mask = ..`), and what struct literals of the type in other types' methods store
    /// (`LayerWeights { neg_inf, .. }` in `ModelWeights::load`): the join of every store; in
    /// Rust a store on a hard-coded device wins (the field is there when that constructor ran).
    fn field_summaries(&self) -> HashMap<(&'a str, &'a str), Summary> {
        let mut acc: HashMap<(&'a str, &'a str), Option<Summary>> = HashMap::default();
        for file in self.files {
            let rust = !crate::frontend::python::is_python(&file.path);
            for f in &file.functions {
                for event in &f.events {
                    let (ty, attr, value) = match &event.kind {
                        EventKind::SetAttr { attr, value, .. } => {
                            let Some(ty) = f.meta.self_type.as_deref() else {
                                continue;
                            };
                            (ty, attr, value)
                        }
                        EventKind::StoreField {
                            self_type,
                            field,
                            value,
                        } => (self_type.as_str(), field, value),
                        _ => continue,
                    };
                    let (device, origin) = self.resolve(value, file.id);
                    let s = Summary { device, origin };
                    let slot = acc.entry((ty, attr.as_str())).or_default();
                    // A Rust field one constructor builds on a hard-coded device is there
                    // whenever that constructor built the value (`from_ggml` beside `from_gguf`).
                    let built_hard_coded = |s: &Summary| {
                        s.device.is_hard_coded()
                            && s.origin.as_ref().is_some_and(|o| !o.is_transfer)
                    };
                    *slot = Some(match slot.take() {
                        Some(prev) if rust && built_hard_coded(&prev) => prev,
                        Some(_) if rust && built_hard_coded(&s) => s,
                        prev => join(prev, s),
                    });
                }
            }
        }
        acc.into_iter()
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .filter(|(_, s)| s.device != Device::Unknown)
            .collect()
    }

    /// The parameter-meet summary of a function (empty if none of its parameters meets anything).
    pub(crate) fn meets(&self, r: FnRef) -> &[crate::engine::meets::Meet] {
        self.meets.get(&r).map_or(&[], |m| m.as_slice())
    }

    /// Whether `name` occurs once in the whole tree's sources, as a word (its definition and
    /// nothing else: no call, no reference, no string naming it).
    pub(crate) fn names_once(&self, name: &str) -> bool {
        let finder = memchr::memmem::Finder::new(name.as_bytes());
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut count = 0;
        for file in self.files {
            let bytes = file.source.as_bytes();
            for at in finder.find_iter(bytes) {
                let before = at.checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(at + name.len()).copied();
                if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
                    count += 1;
                    if count > 1 {
                        return false;
                    }
                }
            }
        }
        count == 1
    }

    /// Whether every call of `r` in the tree passes it only tensors built on the host (and there
    /// is at least one such call): its tensor parameters are host tensors by construction.
    pub(crate) fn is_host_only(&self, r: FnRef) -> bool {
        self.host_only.contains(&r)
    }

    /// The host-only functions, to a fixpoint: a function whose callers are host-only passes
    /// host tensors along (a data parser's `orient_poses(poses)` gives `rotation_between` host
    /// vectors too). Bounded by [`crate::engine::meets::MAX_ROUNDS`].
    fn host_only_functions(&self) -> HashSet<FnRef> {
        let seeds = self.construction_callbacks();
        let mut host = seeds.clone();
        for _ in 0..crate::engine::meets::MAX_ROUNDS {
            let mut next = self.host_only_round(&host);
            next.extend(seeds.iter().copied());
            if next == host {
                break;
            }
            host = next;
        }
        host
    }

    /// Weight initialisers run only while a module is built: every `Module.apply(f)` of the tree
    /// that hands over `f` is `self.apply(f)` in a class's `__init__`, and nothing calls `f`
    /// directly. The module's weights are still on the host there (it is moved with
    /// `.to(device)` afterwards), so `f`'s tensors are host tensors (omnisafe's
    /// `init_weights`, unseen set 27).
    fn construction_callbacks(&self) -> HashSet<FnRef> {
        let mut at_construction = HashSet::default();
        let mut elsewhere = HashSet::default();
        for file in self.files {
            for (target, constructing) in &file.apply_callbacks {
                let set = if *constructing {
                    &mut at_construction
                } else {
                    &mut elsewhere
                };
                set.extend(self.resolve_call(target, file.id));
            }
        }
        if at_construction.is_empty() {
            return at_construction;
        }
        // (Called directly too: its arguments decide, as for any function. Only calls by one of
        // the initialisers' names are resolved, the files in parallel.)
        let names: HashSet<&str> = at_construction
            .iter()
            .map(|&r| self.function(r).meta.name.as_str())
            .collect();
        let names = &names;
        let called: HashSet<FnRef> = self
            .files
            .par_iter()
            .flat_map_iter(|file| {
                file.functions
                    .iter()
                    .flat_map(|f| &f.events)
                    .filter_map(move |event| match &event.kind {
                        EventKind::Call { target, .. } => {
                            let (CallTarget::Free { name } | CallTarget::Method { name, .. }) =
                                target;
                            let last = name.rsplit('.').next().unwrap_or(name);
                            names
                                .contains(last)
                                .then(|| self.resolve_call(target, file.id))
                        }
                        _ => None,
                    })
                    .flatten()
            })
            .collect();
        at_construction.retain(|r| !elsewhere.contains(r) && !called.contains(r));
        at_construction
    }

    /// One round of [`Program::host_only_functions`], given the host-only functions found so far:
    /// the files in parallel, their verdicts joined (a callee is host-only if every file says so).
    fn host_only_round(&self, known: &HashSet<FnRef>) -> HashSet<FnRef> {
        let seen = self
            .files
            .par_iter()
            .map(|file| self.host_only_calls(file, known))
            .reduce(HashMap::default, |mut a, b| {
                for (r, host) in b {
                    *a.entry(r).or_insert(true) &= host;
                }
                a
            });
        seen.into_iter()
            .filter(|(_, host)| *host)
            .map(|(r, _)| r)
            .collect()
    }

    /// Per callee of `file`'s calls with tensor arguments: whether every such argument was
    /// host-built (see [`Program::host_only_round`]).
    fn host_only_calls(&self, file: &File, known: &HashSet<FnRef>) -> HashMap<FnRef, bool> {
        let mut seen: HashMap<FnRef, bool> = HashMap::default();
        // Tests run library code on the host by habit: their calls are no evidence.
        for (index, f) in file
            .functions
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.meta.is_test)
        {
            let caller = (file.id, u32::try_from(index).unwrap_or(u32::MAX));
            let host_caller = known.contains(&caller);
            // (`layer.weight`, read off a parameter the caller never used as a tensor, is no
            // tensor to `carried_params`: its reads say where it came from.)
            let carries = |f: &Function, v: &Value| {
                !crate::engine::meets::carried_params(self, file.id, f, v).is_empty()
                    || v.var
                        .iter()
                        .chain(v.reads.iter())
                        .any(|r| f.params.iter().any(|p| p.binding == Some(*r)))
            };
            for event in &f.events {
                let EventKind::Call { target, args } = &event.kind else {
                    continue;
                };
                for callee in self.resolve_call(target, file.id) {
                    let callee_fn = self.function(callee);
                    // The arguments the callee takes as tensors (`weights`, not the `total`
                    // it does arithmetic with), and the tensors the caller gives it
                    // (`angles = torch.zeros(n)` filled and passed on, torch-structure,
                    // unseen set 25).
                    let tensors: Vec<&Value> = (0..callee_fn.params.len())
                        .filter_map(|i| {
                            let p = &callee_fn.params[i];
                            let typed = p.tensor_use || p.kind == ValueKind::Tensor;
                            let arg = crate::engine::meets::arg_for(
                                args,
                                callee_fn,
                                u16::try_from(i).ok()?,
                            )?;
                            (typed || arg.value.is_tensor()).then_some(&arg.value)
                        })
                        // (A host-only caller's own parameters, and what it reads off them,
                        // `trunc(layer.weight)` in a weight initialiser, count whatever their
                        // kind.)
                        .filter(|v| v.is_tensorish() || host_caller && carries(f, v))
                        .collect();
                    if tensors.is_empty() {
                        continue;
                    }
                    let host = tensors.iter().all(|v| {
                        v.host_scalar.is_some()
                            || match self.resolve(v, file.id).0 {
                                Device::Cpu => true,
                                // What a host-only caller's tensor parameters carry.
                                Device::Input | Device::Unknown => host_caller && carries(f, v),
                                _ => false,
                            }
                    });
                    let entry = seen.entry(callee).or_insert(true);
                    *entry &= host;
                }
            }
        }
        seen
    }

    /// The spans of the calls in function `r` that reach a function of the tree, or construct a
    /// Python class of the tree by a name the file could not tell from a function (`dataset(x,
    /// labels)` of a lowercase class imported from the package): a construction stores what it
    /// is given; it computes nothing with it. Found by [`Program::complete`].
    pub(crate) fn tree_call_spans(&self, r: FnRef) -> &HashSet<Span> {
        &self.tree_calls[self.position[r.0 as usize]][r.1 as usize]
    }

    /// See [`Program::tree_call_spans`].
    fn find_tree_call_spans(&self, func: &Function, file: FileId) -> HashSet<Span> {
        func.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Call { target, .. }
                    if !self.resolve_call(target, file).is_empty()
                        || matches!(target, CallTarget::Free { name }
                            if self.bases.contains_key(name.rsplit('.').next().unwrap_or(name))) =>
                {
                    Some(e.span.clone())
                }
                _ => None,
            })
            .collect()
    }

    pub(crate) fn file(&self, id: FileId) -> &'a File {
        &self.files[self.position[id as usize]]
    }

    pub(crate) fn function(&self, r: FnRef) -> &'a Function {
        &self.file(r.0).functions[r.1 as usize]
    }

    /// The functions a call may reach: a type's methods, or free functions (same file first for
    /// both).
    pub(crate) fn resolve_call(&self, target: &CallTarget, from: FileId) -> Callees {
        match target {
            CallTarget::Method { self_type, name } => self.resolve_method(self_type, name, from),
            CallTarget::Free { name } => {
                // `module.function`: a function of the tree's module of that name (Python's
                // `from ..utils import common_functions as c_f; c_f.to_device(..)`), or of a
                // package of that name, which re-exports it from one of its modules (`from .
                // import registration; registration.registration_wrapper(..)`).
                if let Some((module, function)) = name.rsplit_once('.') {
                    let Some(free) = self.free.get(function) else {
                        return Callees::new();
                    };
                    return free
                        .iter()
                        .copied()
                        .filter(|r| self.in_module(&self.file(r.0).path, module))
                        .collect();
                }
                let Some(free) = self.free.get(name.as_str()) else {
                    return Callees::new();
                };
                let local: Callees = free.iter().copied().filter(|r| r.0 == from).collect();
                if local.is_empty() {
                    Callees::from_slice(free)
                } else {
                    local
                }
            }
        }
    }

    /// The method `name` of type `self_type` a call may reach, see [`Self::resolve_call`].
    fn resolve_method(&self, self_type: &str, name: &str, from: FileId) -> Callees {
        // The type's own method, else the nearest base class's that has it (Python
        // classes of the tree, bases named by their last path segment), bases searched
        // depth first, left to right: Python's method resolution order except for
        // diamonds. A base outside the tree (`nn.Module`) defines none of the tree's
        // methods, so `class M(nn.Module, Mixin)` finds `Mixin`'s.
        // Inline: a class hierarchy is seldom more than a few levels deep.
        let mut work: smallvec::SmallVec<[&str; 8]> = smallvec::smallvec![self_type];
        let mut seen: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
        while let Some(ty) = work.pop() {
            if seen.contains(&ty) || seen.len() >= 32 {
                continue;
            }
            seen.push(ty);
            if let Some(found) = self.methods.get(&(ty, name)) {
                // A type of the caller's own file shadows same-named types elsewhere
                // (every candle model file has its own `MLP`).
                let local: Callees = found.iter().copied().filter(|r| r.0 == from).collect();
                return if local.is_empty() {
                    Callees::from_slice(found)
                } else {
                    local
                };
            }
            if let Some(bases) = self.bases.get(ty) {
                work.extend(bases.iter().rev().copied());
            }
        }
        Callees::new()
    }

    /// Whether the Python file at `path` is module `module` (`module.py`, `module/__init__.py`)
    /// or lies in the package `module` of the tree (a directory of that name holding an
    /// `__init__.py`), at any depth below it.
    fn in_module(&self, path: &std::path::Path, module: &str) -> bool {
        // A dotted module path (`tools.initializers.SHARP_style_probe(..)`, cdtools, unseen set
        // 26): the module is its last part, inside a directory named by the part before.
        let (parent, last) = match module.rsplit_once('.') {
            Some((parent, last)) => (Some(parent.rsplit('.').next().unwrap_or(parent)), last),
            None => (None, module),
        };
        let in_parent = |dir: Option<&std::path::Path>| {
            parent.is_none_or(|p| {
                dir.and_then(std::path::Path::file_name)
                    .is_some_and(|n| n == p)
            })
        };
        // (The directory holding the module: a package's `__init__.py` is one level down.)
        let holder = if path.file_stem().is_some_and(|s| s == "__init__") {
            path.parent().and_then(std::path::Path::parent)
        } else {
            path.parent()
        };
        module_of(path) == Some(last) && in_parent(holder)
            || path.ancestors().skip(1).any(|dir| {
                dir.file_name().is_some_and(|n| n == last)
                    && self.packages.contains(dir)
                    && in_parent(dir.parent())
            })
    }

    /// The functions on a forward path: the entries (`forward` of modules, configured forward
    /// methods) and everything they call, test code left out.
    /// The functions a loop body of the tree calls, and what they call, transitively.
    fn per_iteration_functions(&self) -> HashSet<FnRef> {
        let mut work: Vec<FnRef> = Vec::new();
        for file in self.files {
            for f in file.functions.iter().filter(|f| !f.meta.is_test) {
                for event in &f.events {
                    if let (EventKind::Call { target, .. }, Some(_)) = (&event.kind, event.loop_id)
                    {
                        work.extend(self.resolve_call(target, file.id));
                    }
                }
            }
        }
        self.reachable(work)
    }

    /// `seeds` and every non-test function they call, transitively.
    fn reachable(&self, mut work: Vec<FnRef>) -> HashSet<FnRef> {
        let mut out = HashSet::default();
        while let Some(r) = work.pop() {
            if self.function(r).meta.is_test || !out.insert(r) {
                continue;
            }
            for event in &self.function(r).events {
                if let EventKind::Call { target, .. } = &event.kind {
                    work.extend(
                        self.resolve_call(target, r.0)
                            .into_iter()
                            .filter(|c| !out.contains(c)),
                    );
                }
            }
        }
        out
    }

    /// Whether a function runs once per call of a forward path or per iteration of a loop. A
    /// method named `step` counts: optimizers and LR and diffusion schedulers are stepped once
    /// per iteration by convention, through receivers whose type the tree does not name.
    pub(crate) fn is_hot(&self, file: FileId, func: usize) -> bool {
        let r = (file, u32::try_from(func).unwrap_or(u32::MAX));
        self.forward.contains(&r)
            || self.per_iteration.contains(&r)
            || self.function(r).meta.name == "step" && self.function(r).meta.self_type.is_some()
    }

    fn forward_functions(&self) -> HashSet<FnRef> {
        let mut forward = HashSet::default();
        let mut work: Vec<FnRef> = Vec::new();
        for file in self.files {
            for (i, f) in file.functions.iter().enumerate() {
                let module_forward = f.meta.name == "forward"
                    && f.meta
                        .self_type
                        .as_deref()
                        .is_some_and(|c| self.is_module_class(c));
                if (f.meta.is_forward_entry || module_forward) && !f.meta.is_test {
                    work.push((file.id, u32::try_from(i).unwrap_or(u32::MAX)));
                }
            }
        }
        let subclasses = self.subclasses();
        while let Some(r) = work.pop() {
            if !forward.insert(r) {
                continue;
            }
            for event in &self.function(r).events {
                // A call made for a log line, a debug-build check or an error report (`raise
                // ValueError(self.describe(x))`) does not run on the forward path proper.
                if event.in_log {
                    continue;
                }
                if let EventKind::Call { target, .. } = &event.kind {
                    // A base class's `forward` calling `self._forward(..)` runs the subclass's
                    // override (a template method: mmaction2's losses, botorch's transforms).
                    let overrides = match target {
                        CallTarget::Method { self_type, name } => subclasses
                            .get(self_type.as_str())
                            .into_iter()
                            .flatten()
                            .filter_map(|sub| self.methods.get(&(*sub, name.as_str())))
                            .flatten()
                            .copied()
                            .collect(),
                        CallTarget::Free { .. } => Vec::new(),
                    };
                    for callee in self.resolve_call(target, r.0).into_iter().chain(overrides) {
                        let f = self.function(callee);
                        if !f.meta.is_test && !forward.contains(&callee) {
                            work.push(callee);
                        }
                    }
                }
            }
        }
        forward
    }

    /// Every Python class of the tree by each of its base classes, transitively (bounded depth).
    fn subclasses(&self) -> HashMap<&'a str, Vec<&'a str>> {
        let mut out: HashMap<&'a str, Vec<&'a str>> = HashMap::default();
        for (&class, bases) in &self.bases {
            let mut work: Vec<&'a str> = bases.clone();
            let mut seen: HashSet<&'a str> = HashSet::default();
            while let Some(base) = work.pop() {
                if base == class || !seen.insert(base) || seen.len() > 64 {
                    continue;
                }
                out.entry(base).or_default().push(class);
                if let Some(more) = self.bases.get(base) {
                    work.extend(more.iter().copied());
                }
            }
        }
        out
    }

    /// Computes what every function returns, device-wise, following calls (memoised; a
    /// recursive cycle resolves to unknown).
    fn return_summaries(&self) -> HashMap<FnRef, Summary> {
        struct Builder<'p, 'a> {
            program: &'p Program<'a>,
            memo: RefCell<HashMap<FnRef, Summary>>,
            in_progress: RefCell<Vec<FnRef>>,
        }
        impl Builder<'_, '_> {
            fn summary(&self, r: FnRef) -> Summary {
                if let Some(s) = self.memo.borrow().get(&r) {
                    return s.clone();
                }
                {
                    let mut in_progress = self.in_progress.borrow_mut();
                    if in_progress.contains(&r) || in_progress.len() > 16 {
                        return Summary::unknown();
                    }
                    in_progress.push(r);
                }
                let mut result: Option<Summary> = None;
                for ret in &self.program.function(r).returns {
                    if ret.is_tensorish() {
                        let s = self.program.resolve_with(
                            &ret.device,
                            ret.origin.as_ref(),
                            r.0,
                            0,
                            &|c| self.summary(c),
                        );
                        result = Some(join(result, s));
                    }
                }
                self.in_progress.borrow_mut().pop();
                let s = result.unwrap_or_else(Summary::unknown);
                self.memo.borrow_mut().insert(r, s.clone());
                s
            }
        }
        let builder = Builder {
            program: self,
            memo: RefCell::new(HashMap::default()),
            in_progress: RefCell::new(Vec::new()),
        };
        // Only functions that return a tensor have a summary worth keeping; a missing summary
        // reads as unknown.
        for file in self.files {
            for (i, f) in file.functions.iter().enumerate() {
                if f.returns.iter().any(Value::is_tensorish) {
                    builder.summary((file.id, u32::try_from(i).unwrap_or(u32::MAX)));
                }
            }
        }
        let mut summaries = builder.memo.into_inner();
        summaries.retain(|_, s| s.device != Device::Unknown);
        summaries
    }

    /// The device a value ends up on once calls are resolved, with `summary_of` giving what each
    /// callee returns. A callee that returns its input's device gives the call's first tensor
    /// argument's device; a library function (not in the tree) given tensors computes where
    /// they are.
    fn resolve_with(
        &self,
        device: &Device,
        origin: Option<&Arc<Origin>>,
        file: FileId,
        depth: u32,
        summary_of: &dyn Fn(FnRef) -> Summary,
    ) -> Summary {
        if let Device::Field(field) = device {
            // Model state: a field built on a hard-coded device stays there; one built on the
            // model's (or a parameter's) device is on the model's device.
            return match self
                .fields
                .get(&(field.self_type.as_str(), field.name.as_str()))
            {
                Some(s) if s.device.is_hard_coded() => s.clone(),
                Some(s) if matches!(s.device, Device::Input | Device::Cached) => Summary {
                    device: Device::Cached,
                    origin: None,
                },
                _ => Summary::unknown(),
            };
        }
        let Device::Call(call) = device else {
            return Summary {
                device: device.clone(),
                origin: origin.cloned(),
            };
        };
        if depth > 16 {
            return Summary::unknown();
        }
        let callees = self.resolve_call(&call.target, file);
        if callees.is_empty() {
            return match call.target {
                CallTarget::Free { .. } => self.resolve_with(
                    &call.arg_device,
                    call.arg_origin.as_ref(),
                    file,
                    depth + 1,
                    summary_of,
                ),
                CallTarget::Method { .. } => Summary::unknown(),
            };
        }
        let mut result = None;
        for callee in callees {
            let mut s = summary_of(callee);
            if s.device == Device::Input {
                s = self.resolve_with(
                    &call.arg_device,
                    call.arg_origin.as_ref(),
                    file,
                    depth + 1,
                    summary_of,
                );
            }
            result = Some(join(result, s));
        }
        result.unwrap_or_else(Summary::unknown)
    }

    /// The device of a value, with calls resolved through the callees' return summaries.
    pub(crate) fn resolve(&self, value: &Value, file: FileId) -> (Device, Option<Arc<Origin>>) {
        let s = self.resolve_with(&value.device, value.origin.as_ref(), file, 0, &|r| {
            self.summaries
                .get(&r)
                .cloned()
                .unwrap_or_else(Summary::unknown)
        });
        (s.device, s.origin)
    }

    /// What call-graph-only files must be lowered in full for, each as substrings that must all
    /// occur in such a file: the name of a function that returns a tensor on a hard-coded device,
    /// and its type for a method (a file that may call it).
    pub(crate) fn names_needed(&self) -> Vec<Vec<String>> {
        let mut needs = std::collections::BTreeSet::new();
        for (r, summary) in &self.summaries {
            if summary.device.is_hard_coded() {
                let meta = &self.function(*r).meta;
                let mut need = vec![meta.name.clone()];
                need.extend(meta.self_type.clone());
                needs.insert(need);
            }
        }
        needs
            .into_iter()
            .filter(|n| n.iter().all(|s| !s.is_empty()))
            .collect()
    }

    /// Whether `function` (of file `file`) calls a function of the tree that returns a tensor on
    /// a hard-coded device.
    pub(crate) fn calls_hard_coded_helper(&self, function: &Function, file: FileId) -> bool {
        function.events.iter().any(|event| match &event.kind {
            EventKind::Call { target, .. } => {
                self.resolve_call(target, file).iter().any(|callee| {
                    self.summaries
                        .get(callee)
                        .is_some_and(|s| s.device.is_hard_coded())
                })
            }
            _ => false,
        })
    }

    /// Whether a Python class of the tree is an `nn.Module` (directly or through its bases).
    pub(crate) fn is_module_class(&self, name: &str) -> bool {
        self.module_classes.contains(name)
    }

    /// Whether a base class of `class` (of the tree, transitively) registers `attr` as a buffer or
    /// parameter: assigning a tensor to that name in the subclass updates the registered one.
    pub(crate) fn base_registers(&self, class: &str, attr: &str) -> bool {
        let mut work: Vec<&str> = self.bases.get(class).cloned().unwrap_or_default();
        let mut seen: HashSet<&str> = HashSet::default();
        while let Some(ty) = work.pop() {
            if !seen.insert(ty) || seen.len() > 64 {
                continue;
            }
            if self.registered.contains(&(ty, attr)) {
                return true;
            }
            if let Some(bases) = self.bases.get(ty) {
                work.extend(bases.iter().copied());
            }
        }
        false
    }

    /// Whether a Python class of the tree subclasses `nn.Parameter` (or `nn.Buffer`), directly or
    /// through other classes of the tree (geoopt's `ManifoldParameter(ManifoldTensor,
    /// nn.Parameter)`): assigning an instance to a module attribute registers it.
    pub(crate) fn is_parameter_class(&self, name: &str) -> bool {
        let mut work = vec![name];
        let mut seen: Vec<&str> = Vec::new();
        while let Some(ty) = work.pop() {
            if seen.contains(&ty) || seen.len() >= 32 {
                continue;
            }
            seen.push(ty);
            let Some(bases) = self.bases.get(ty) else {
                continue;
            };
            if bases.iter().any(|b| matches!(*b, "Parameter" | "Buffer")) {
                return true;
            }
            work.extend(bases.iter().copied());
        }
        false
    }

    /// Whether a Python class of the tree moves its data to an accelerator when built or indexed.
    pub(crate) fn class_moves_to_device(&self, name: &str) -> bool {
        self.files
            .iter()
            .flat_map(|f| &f.classes)
            .any(|c| c.name == name && c.moves_to_device)
    }

    /// Whether a function is on a forward path.
    pub(crate) fn is_forward(&self, file: FileId, func: usize) -> bool {
        self.forward
            .contains(&(file, u32::try_from(func).unwrap_or(u32::MAX)))
    }
}

/// The functions of `files` by name: methods by (implementing type, name), free functions by
/// name; each list in file order.
#[allow(clippy::type_complexity)] // the two maps [`Program`] keeps
fn function_names(
    files: &[File],
) -> (HashMap<(&str, &str), Vec<FnRef>>, HashMap<&str, Vec<FnRef>>) {
    let count: usize = files.iter().map(|f| f.functions.len()).sum();
    let mut methods: HashMap<(&str, &str), Vec<FnRef>> =
        HashMap::with_capacity_and_hasher(count, rustc_hash::FxBuildHasher);
    let mut free: HashMap<&str, Vec<FnRef>> =
        HashMap::with_capacity_and_hasher(count / 4, rustc_hash::FxBuildHasher);
    for file in files {
        for (i, f) in file.functions.iter().enumerate() {
            let r = (file.id, u32::try_from(i).unwrap_or(u32::MAX));
            let name = f.meta.name.as_str();
            match &f.meta.self_type {
                _ if name.is_empty() => {}
                Some(ty) => methods.entry((ty.as_str(), name)).or_default().push(r),
                None => free.entry(name).or_default().push(r),
            }
        }
    }
    (methods, free)
}

/// See [`Program::registered`]: every event of every method, files in parallel.
fn registered_attributes(files: &[File]) -> HashSet<(&str, &str)> {
    files
        .par_iter()
        .flat_map_iter(|file| {
            file.functions
                .iter()
                .filter_map(|f| Some((f.meta.self_type.as_deref()?, &f.events)))
                .flat_map(|(ty, events)| {
                    events.iter().filter_map(move |e| match &e.kind {
                        EventKind::SetAttr {
                            attr,
                            registered: true,
                            ..
                        } => Some((ty, attr.as_str())),
                        _ => None,
                    })
                })
        })
        .collect()
}

/// The Python classes of the tree that derive from `torch.nn.Module`, directly (`nn.Module`, any
/// `torch.nn` class) or through other classes of the tree, by name.
fn module_classes(files: &[File]) -> HashSet<&str> {
    let classes: Vec<&crate::ir::Class> = files.iter().flat_map(|f| &f.classes).collect();
    let mut modules: HashSet<&str> = HashSet::default();
    loop {
        let before = modules.len();
        for class in &classes {
            let is_module = class.bases.iter().any(|b| {
                let last = b.rsplit('.').next().unwrap_or(b);
                b.starts_with("torch.nn.") || last == "Module" || modules.contains(last)
            });
            if is_module {
                modules.insert(class.name.as_str());
            }
        }
        if modules.len() == before {
            return modules;
        }
    }
}

/// What a rule sees: the program, the file being checked, and the diagnostics so far.
pub(crate) struct Checker<'a> {
    pub(crate) program: &'a Program<'a>,
    pub(crate) file: &'a File,
    pub(crate) settings: &'a Settings,
    rule: Rule,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(program: &'a Program<'a>, file: &'a File, settings: &'a Settings) -> Self {
        Checker {
            program,
            file,
            settings,
            rule: Rule::SyntaxError,
            diagnostics: Vec::new(),
        }
    }

    /// Runs every enabled rule over the file.
    pub(crate) fn run(mut self) -> Vec<Diagnostic> {
        for &rule in Rule::ALL {
            if self.settings.is_enabled(rule) {
                self.rule = rule;
                rule.check(&mut self);
            }
        }
        self.drop_costs_of_dead_code();
        self.diagnostics
    }

    /// Code that never runs fails nowhere and costs nothing: drops every finding inside a
    /// private Rust function marked `#[allow(dead_code)]` (unsloth-rs's reference kernel
    /// launchers, unseen set 26), and the findings of the performance rules inside a private
    /// module-level Python function (`_name`) that nothing in the tree names but its own `def` (a
    /// superseded implementation left in the package: dagua's `_graphviz_fdp_update_positions`,
    /// unseen set 25).
    fn drop_costs_of_dead_code(&mut self) {
        // Rust: every finding in a private function marked `#[allow(dead_code)]`.
        if !self.file.dead_code.is_empty() {
            let dead = &self.file.dead_code;
            self.diagnostics.retain(|d| {
                !dead
                    .iter()
                    .any(|f| f.start <= d.span.start && d.span.end <= f.end)
            });
        }
        let perf = |d: &Diagnostic| d.rule.category() == crate::rule::Category::Perf;
        if !self.diagnostics.iter().any(perf)
            || self.file.path.extension().is_none_or(|e| e != "py")
        {
            return;
        }
        let source = &self.file.source;
        let dead: Vec<Span> = self
            .file
            .functions
            .iter()
            .filter(|f| {
                f.meta.self_type.is_none()
                    && f.meta.name.starts_with('_')
                    && !f.meta.name.starts_with("__")
            })
            .filter_map(|f| {
                let body = python_block(source, f.meta.span.start);
                let costs = self
                    .diagnostics
                    .iter()
                    .any(|d| perf(d) && body.start <= d.span.start && d.span.end <= body.end);
                (costs && self.program.names_once(&f.meta.name)).then_some(body)
            })
            .collect();
        if dead.is_empty() {
            return;
        }
        self.diagnostics.retain(|d| {
            !(perf(d)
                && dead
                    .iter()
                    .any(|f| f.start <= d.span.start && d.span.end <= f.end))
        });
    }

    /// The functions rules look at: test code is left out unless the settings include it.
    pub(crate) fn functions(&self) -> impl Iterator<Item = (usize, &'a Function)> + 'a {
        let include_tests = self.settings.include_tests;
        self.file
            .functions
            .iter()
            .enumerate()
            .filter(move |(_, f)| include_tests || !f.meta.is_test)
    }

    /// Whether function `index` of the current file is on a forward path.
    pub(crate) fn is_forward(&self, index: usize) -> bool {
        self.program.is_forward(self.file.id, index)
    }

    /// The device of a value, calls resolved.
    pub(crate) fn resolve(&self, value: &Value) -> (Device, Option<Arc<Origin>>) {
        self.program.resolve(value, self.file.id)
    }

    /// Whether the current file is Python (for the wording of help texts).
    pub(crate) fn is_python(&self) -> bool {
        crate::frontend::python::is_python(&self.file.path)
    }

    /// The source text of a span of the current file, shortened, for messages.
    pub(crate) fn text(&self, span: &Span) -> String {
        crate::ir::snippet(&self.file.source, span)
    }

    /// Reports a violation of the running rule at `span`.
    pub(crate) fn report(&mut self, violation: &impl Violation, span: Span) -> &mut Diagnostic {
        self.diagnostics.push(Diagnostic {
            rule: self.rule,
            path: self.file.path.clone(),
            message: violation.message(),
            span,
            labels: Vec::new(),
            help: violation.help(),
            fix: None,
            severity: self.settings.severity(self.rule),
        });
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// Where an origin is, for a message: `path:line:col` when it is in another file.
    pub(crate) fn describe_origin(&self, origin: &Origin) -> Option<String> {
        if origin.file == self.file.id {
            return None;
        }
        let file = self.program.file(origin.file);
        let index = crate::diagnostic::LineIndex::new(&file.source);
        let at = origin.device_span.as_ref().unwrap_or(&origin.span).start;
        let (line, col) = index.line_col(&file.source, at);
        Some(format!("{}:{line}:{col}", file.path.display()))
    }
}

impl Diagnostic {
    /// Adds a secondary label.
    pub(crate) fn label(&mut self, span: Span, message: impl Into<String>) -> &mut Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
}

/// The extent of the Python block whose header line holds byte `at` (a `def`): from that line's
/// start to the end of the last line indented deeper than it (blank and comment lines aside).
fn python_block(source: &str, at: usize) -> Span {
    let start = source[..at.min(source.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent = |line: &str| line.len() - line.trim_start().len();
    let header = indent(&source[start..]);
    // (The header runs to the line where its brackets close: `def f(\n    x,\n) -> None:`.)
    let mut depth = 0i32;
    let mut end = start;
    for (i, b) in source.bytes().enumerate().skip(start) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'\n' if depth <= 0 => {
                end = i;
                break;
            }
            _ => {}
        }
        end = i + 1;
    }
    let mut pos = end;
    while pos < source.len() {
        let line_start = pos + 1;
        let line_end = source[line_start..]
            .find('\n')
            .map_or(source.len(), |i| line_start + i);
        let line = &source[line_start..line_end];
        let text = line.trim_start();
        if !text.is_empty() && !text.starts_with('#') {
            if indent(line) <= header {
                break;
            }
            end = line_end;
        }
        pos = line_end;
    }
    start..end
}

/// The Python module a file defines, by its name: the file stem, or the package's directory for
/// an `__init__.py`.
fn module_of(path: &std::path::Path) -> Option<&str> {
    let stem = path.file_stem()?.to_str()?;
    if stem == "__init__" {
        return path.parent()?.file_name()?.to_str();
    }
    Some(stem)
}

/// Whether Python `source` uses the global default device as the place it computes, in code (not
/// a comment or a docstring's quoted name): `torch.get_default_device()`,
/// `torch.set_default_device(..)` with anything but `"cpu"`, or `torch.set_default_tensor_type(..)`
/// with a CUDA tensor type.
///
/// A fallback for a device not given (`if device is None: device = torch.get_default_device()`,
/// `.. if device is not None else torch.get_default_device()`) is not: the code takes the device
/// it is given, and builds on the default only where a factory would anyway.
fn uses_default_device(source: &str) -> bool {
    // Each of the three calls below is spelled out in a line that uses the default device: a file
    // naming none of them (nearly every file) is not read line by line. They share `t_default_`,
    // searched for first: one pass over most files rather than three.
    static SHARED: crate::text::AnyOf = crate::text::AnyOf::new(&["t_default_"]);
    static CALLS: crate::text::AnyOf = crate::text::AnyOf::new(&[
        "get_default_device(",
        "set_default_device(",
        "set_default_tensor_type(",
    ]);
    if !SHARED.in_text(source) || !CALLS.in_text(source) {
        return false;
    }
    let mut previous = "";
    source.lines().any(|line| {
        let code = line.split('#').next().unwrap_or("");
        let after_none_test = {
            let p = previous.trim();
            p.starts_with("if ") && p.ends_with(" is None:")
        };
        if !code.trim().is_empty() {
            previous = code;
        }
        code.match_indices("torch.").any(|(at, _)| {
            if code[..at].ends_with('`') {
                return false;
            }
            let call = &code[at + "torch.".len()..];
            let arg = |name: &str| call.strip_prefix(name).map(str::trim_start);
            let fallback = after_none_test || code[..at].trim_end().ends_with("is not None else");
            call.starts_with("get_default_device(") && !fallback
                || arg("set_default_device(")
                    .is_some_and(|a| !(a.starts_with("\"cpu\"") || a.starts_with("'cpu'")))
                || arg("set_default_tensor_type(")
                    .is_some_and(|a| a.split(')').next().is_some_and(|a| a.contains("cuda")))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::python_block;

    #[test]
    fn a_python_block_runs_to_the_end_of_its_indented_body() {
        let source = "import torch\n\n\ndef _port(\n    x,\n    y,\n) -> None:\n    a = 1\n\n    # a comment at any indent\n# a comment at the margin\n    return a\n\n\ndef after():\n    pass\n";
        let at = source.find("_port").unwrap();
        let block = &source[python_block(source, at)];
        assert!(block.starts_with("def _port("), "{block:?}");
        assert!(block.ends_with("    return a"), "{block:?}");
        assert!(!block.contains("after"), "{block:?}");

        // A one-line header, the last block of the file, nested in a class.
        let source =
            "class A:\n    def _m(self):\n        return 1\n    def n(self):\n        pass";
        let at = source.find("_m").unwrap();
        assert_eq!(
            &source[python_block(source, at)],
            "    def _m(self):\n        return 1"
        );
        let at = source.find("n(self)").unwrap();
        assert_eq!(
            &source[python_block(source, at)],
            "    def n(self):\n        pass"
        );
    }
}
