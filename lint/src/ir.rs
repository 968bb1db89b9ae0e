//! The placement IR: what a file says about where tensors live, in a form every rule can read.
//!
//! A frontend (today the Rust one, later Python) walks a file once and produces one [`File`]: its
//! functions, and per function the spanned [`Event`]s (tensor creations with their device,
//! transfers, host reads, ops and their operands, synchronisations, timer reads) in source order,
//! the loops they sit in, and the calls the function makes. Rules never see a syntax tree.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// A byte range into the file's source.
pub type Span = Range<usize>;

/// Index of a loop in [`Function::loops`].
pub type LoopId = u32;

/// Index of a local binding in [`Function::bindings`].
pub type BindingId = u32;

/// The local bindings an expression reads.
pub type Reads = smallvec::SmallVec<[BindingId; 4]>;

/// The loops a binding is assigned in (inline up to two: no allocation in the common case).
pub type AssignedIn = smallvec::SmallVec<[Option<LoopId>; 2]>;

/// The bindings a binding's values were computed from (inline up to four: no allocation in the
/// common case).
pub type DerivedFrom = smallvec::SmallVec<[BindingId; 4]>;

/// Index of a file in the checked tree.
pub type FileId = u32;

/// What is statically known about the device a value lives on (or, for a device value, names).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// Hard-coded host: `Device::Cpu`, `TensorOptions::default()`, tch `Tensor::from_slice`.
    Cpu,
    /// Hard-coded accelerator: `Device::Cuda(1)`, `Device::new_cuda(0)`; `None` = current device.
    Cuda(Option<u32>),
    /// The shape-only `Meta` device.
    Meta,
    /// burn's `Default::default()` in a device position: the backend's default device.
    BackendDefault,
    /// The device of a function argument, or of a tensor computed from one.
    Input,
    /// A device stored on the model (`self.device`, `vb.device()`).
    Cached,
    /// Nothing is known.
    Unknown,
    /// The device of what a call returns; resolved against the whole tree by the checker.
    Call(Arc<CallRef>),
    /// The device of a field of the receiver (`self.mask`): what the type's constructors store
    /// there, resolved against the whole tree by the checker.
    Field(Arc<FieldRef>),
}

/// A field of a type, read through `self`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldRef {
    /// The type's name (last path segment).
    pub self_type: String,
    /// The field's name.
    pub name: String,
}

impl Device {
    /// Whether the device is written into the code rather than derived from data.
    pub fn is_hard_coded(&self) -> bool {
        matches!(
            self,
            Device::Cpu | Device::Cuda(_) | Device::Meta | Device::BackendDefault
        )
    }
}

/// A call whose result device depends on the callee.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallRef {
    /// Which function is called.
    pub target: CallTarget,
    /// The device of the first tensor argument, used when the callee returns an input-derived value;
    /// in Python, of the device argument where one is given (`to_device(t, rows.device)`): a
    /// callee given a device that returns an input-derived value has placed it there.
    pub arg_device: Device,
    /// Where that argument's device was decided, if in a factory or transfer: a helper that
    /// returns a tensor on its argument's device keeps the argument's origin.
    pub arg_origin: Option<Arc<Origin>>,
    /// The call expression.
    pub span: Span,
}

/// How a call names its callee; resolved by name against the functions of the linted tree.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallTarget {
    /// `self.name(..)`, `Self::name(..)` or `Type::name(..)`: a method of that type.
    Method {
        /// The implementing type's name (last path segment).
        self_type: String,
        /// The method's name.
        name: String,
    },
    /// `name(..)` or `module::name(..)`: a free function.
    Free {
        /// The function's name (last path segment).
        name: String,
    },
}

/// The kind of value an expression evaluates to, as far as placement is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// A tensor.
    Tensor,
    /// What a call of a function returns: a tensor if the callee returns one. Its device is a
    /// [`Device::Call`], so it only matters once the checker resolves the callee.
    MaybeTensor,
    /// A device (or options carrying one, such as tch's `(Kind, Device)`).
    Device,
    /// Host data read out of a tensor (`to_vec1`, `to_scalar`, `item`).
    Host,
    /// An `Instant` taken for timing; the payload is the index of its [`EventKind::TimerStart`].
    Timer(u32),
    /// A `torch.nn.Module` instance (`nn.Linear(..)`, a model class): built on the host, moved in
    /// place by `.to(..)` / `.cuda()`. Its device is where its parameters are.
    Module,
    /// A `torch.utils.data.DataLoader`: its device and origin are those of the batches it yields.
    Loader,
    /// Anything else.
    Other,
}

/// Where a value's device was decided.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The file of `span`.
    pub file: FileId,
    /// The factory call, or the transfer.
    pub span: Span,
    /// The device argument, when the device is written there.
    pub device_span: Option<Span>,
    /// How the device is written (`Device::Cpu`, `(Kind::Float, Device::Cpu)`), for messages.
    pub device_text: String,
    /// The function the origin sits in.
    pub function: String,
    /// Whether the device was decided by a transfer rather than a factory.
    pub is_transfer: bool,
    /// The factory wraps data the host computed (`torch.from_numpy(canvas)` of a `NumPy` array a
    /// function filled, `torch.tensor(encoded)` of labels encoded in Python): there is nothing
    /// to build on a device instead, the upload is the one copy that data needs.
    pub wraps_host_data: bool,
    /// The host placement the code chose on purpose: one arm of a device flag (`else:` of `if
    /// use_gpu: x = x.cuda()`; the tensor is on the host exactly when the flag says the run
    /// is), or an assertion (`assert t.device.type == "cpu"`).
    pub flag_host: bool,
}

/// The abstract value of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// What kind of value this is.
    pub kind: ValueKind,
    /// Its device.
    pub device: Device,
    /// Where that device was decided, if in a factory or transfer.
    pub origin: Option<Arc<Origin>>,
    /// For host data or a tensor moved to the host: the host read or transfer that produced it.
    pub host_read: Option<Span>,
    /// The local binding, if the expression is a plain path to one.
    pub var: Option<BindingId>,
    /// Every local binding the expression reads (inline up to four: no allocation in the
    /// common case).
    pub reads: Reads,
    /// The expression's span.
    pub span: Span,
    /// `PyTorch`: the tensor is part of an autograd graph (a module's output outside
    /// `torch.no_grad()`, an `nn.Parameter`, `requires_grad=True`), so `.numpy()` on it raises.
    pub requires_grad: bool,
    /// Built on the host from a host scalar (`torch.tensor(scale - 1)`, then `.repeat(n)`): its
    /// [`Value::device`] stays unknown, since a 0-dim tensor mixes with any device as an
    /// operand, but it is host data when it is passed to a function, and a host tensor when it
    /// is updated in place with device data (`acc += loss`). The factory that built it.
    pub host_scalar: Option<Arc<Origin>>,
}

impl Value {
    /// A value nothing is known about.
    pub fn unknown(span: Span) -> Self {
        Value {
            kind: ValueKind::Other,
            device: Device::Unknown,
            origin: None,
            host_read: None,
            var: None,
            reads: Reads::new(),
            span,
            requires_grad: false,
            host_scalar: None,
        }
    }

    /// Whether the value is known to be a tensor.
    pub fn is_tensor(&self) -> bool {
        self.kind == ValueKind::Tensor
    }

    /// Whether the value is, or may be, a tensor (a call's result).
    pub fn is_tensorish(&self) -> bool {
        matches!(self.kind, ValueKind::Tensor | ValueKind::MaybeTensor)
    }
}

/// One placement-relevant thing a function does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// What happens.
    pub kind: EventKind,
    /// The expression that does it.
    pub span: Span,
    /// The innermost loop around it.
    pub loop_id: Option<LoopId>,
    /// Inside a logging or formatting macro (`println!`, `tracing::info!`, `format!`).
    pub in_log: bool,
    /// Inside an `if` whose condition uses `%` (periodic work: `if step % 100 == 0`).
    pub in_periodic: bool,
    /// Inside a Python `except` handler: recovery code, run after a failure.
    pub in_handler: bool,
}

/// The kinds of [`Event`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A tensor factory call.
    Create {
        /// The factory's name (`zeros`, `from_slice`).
        factory: String,
        /// The result's value (device, origin).
        value: Value,
        /// The host read or host transfer that produced the data it is built from, if any.
        from_host: Option<Span>,
    },
    /// A device transfer (`to_device`, `to`, `cuda`, `cpu`).
    Transfer {
        /// The tensor being moved.
        source: Value,
        /// The target device.
        to: Device,
        /// The target device's value (its span and text).
        to_value: Value,
        /// `PyTorch`'s copy of a host-built index into the tensor it indexes
        /// (`logits[torch.arange(b), last]`, `to_value` being `logits`): no `.to()` is written.
        by_indexing: bool,
    },
    /// A synchronising copy to the host (`to_vec1`, `to_scalar`, `item`).
    HostRead {
        /// The tensor read.
        source: Value,
        /// The method used.
        method: String,
    },
    /// An operation combining two or more tensors.
    Op {
        /// The op's name (`matmul`, `+`, `cat`).
        name: String,
        /// The tensor operands.
        operands: Vec<Value>,
        /// The callee is not known to compute on its operands where they are: a callable of
        /// unknown kind (`model(x, mask)`), or a method of an object that is not a tensor
        /// (`self.scheduler.add_noise(x, noise, t)`), which may move what it is given.
        opaque: bool,
    },
    /// A host value read out of a tensor feeds host arithmetic or accumulation here.
    HostArith {
        /// The host read it came from.
        read: Span,
    },
    /// A host value read out of a tensor decides whether a loop ends here (`if next == eos
    /// { break }`, `while loss > tol`), sizes a tensor built here (`arange_step(0., 1., 1. /
    /// n as f64, dev)`), or is stored here into host data that an enclosing loop builds its
    /// next input from (`tokens.push(next)` before `Tensor::new(tokens.as_slice(), dev)`): the
    /// host needs it, whatever else happens to it.
    HostDecision {
        /// The host read it came from.
        read: Span,
    },
    /// Device work that could be asynchronous (a tensor op or a module call), recorded only while
    /// a timer is live.
    DeviceWork {
        /// The values it works on or builds, where known (empty: work whatever they are).
        /// Work on values that turn out to be on the host (`torch.as_tensor(action)`, a
        /// function outside the tree given no tensor) queues nothing.
        inputs: Vec<Value>,
    },
    /// An explicit `synchronize`, or a loop exit decided on a reduction of what may be a tensor
    /// (`if (next == eos).all(): break`), which waits for the device as well.
    Synchronize,
    /// An `empty_cache` call.
    EmptyCache,
    /// `Instant::now()`.
    TimerStart,
    /// Reading a timer (`start.elapsed()`, `now - start`).
    TimerRead {
        /// The index of the [`EventKind::TimerStart`] event it reads.
        start: u32,
        /// The index of the later clock reading it subtracts `start` from (`end - start` with
        /// `end = time.time()`, `end.duration_since(start)`), where the interval ends; `None`
        /// when the clock is read here (`start.elapsed()`, `time.time() - start`).
        end: Option<u32>,
        /// The reading paces a loop rather than measuring it: it is given to a sleep
        /// (`time.sleep(1 / fps - (time.perf_counter() - t0))`, or through a variable), or
        /// compared with a limit (`time.time() - t0 >= limit`, a deadline).
        pacing: bool,
    },
    /// A device with a literal ordinal (`Device::Cuda(1)`, `Device::new_cuda(0)`).
    DeviceOrdinal {
        /// The ordinal.
        ordinal: u32,
    },
    /// A call to a function that may be in the linted tree.
    Call {
        /// The callee.
        target: CallTarget,
        /// The arguments, in order (positional first, then keyword arguments with their
        /// keyword); the receiver of a method call is not one. Empty in call-graph-only lowering.
        args: Vec<Arg>,
    },
    /// A module instance is called on inputs (`model(x)`).
    ModuleCall {
        /// The module.
        module: Value,
        /// The tensor inputs.
        inputs: Vec<Value>,
    },
    /// A module instance is built (`nn.CrossEntropyLoss(weight=w)`, `Model()`).
    ModuleNew {
        /// The class's name (last segment).
        class: String,
        /// The keyword arguments that are tensors, by keyword.
        tensor_args: Vec<(String, Value)>,
    },
    /// A data loader is built (`DataLoader(dataset, pin_memory=True)`).
    LoaderNew {
        /// The `pin_memory=True` keyword, if given.
        pin_memory: Option<Span>,
        /// The class of the dataset, when it is an instance of a class of the tree.
        dataset_class: Option<String>,
        /// The batches it yields (device and origin).
        batches: Value,
    },
    /// A copy requested as asynchronous (`non_blocking=True`); the span is the keyword.
    NonBlocking {
        /// The tensor copied.
        source: Value,
    },
    /// `self.name = value` in a method, `self.register_buffer("name", value)`, or a field of a
    /// struct literal of the method's own type (`Self { name: value }`).
    SetAttr {
        /// The attribute's name.
        attr: String,
        /// The value stored.
        value: Value,
        /// Registered with the module (a buffer or a parameter): `to(device)` moves it.
        registered: bool,
    },
    /// A field of a struct literal of another type of the file (`LayerWeights { neg_inf, .. }`
    /// built in `ModelWeights::load`): what that type's field holds.
    StoreField {
        /// The struct's name (last path segment).
        self_type: String,
        /// The field's name.
        field: String,
        /// The value stored.
        value: Value,
    },
    /// `self.name` is read in a method.
    GetAttr {
        /// The attribute's name.
        attr: String,
    },
    /// An accelerator is chosen in the code (`"cuda"`, `torch.device("cuda")`, `.cuda()`).
    AcceleratorChoice,
    /// The code asks whether an accelerator is there (`torch.cuda.is_available()`).
    AvailabilityCheck,
    /// A floating-point factory takes no `dtype` (the default dtype, not the input's).
    DefaultDtype,
}

/// An argument of a [`EventKind::Call`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// `Some(name)` for a keyword argument (`f(mask=m)`).
    pub keyword: Option<String>,
    /// Its value.
    pub value: Value,
}

/// A parameter of a function (the receiver, `self`, is not one).
#[allow(clippy::struct_excessive_bools)] // independent facts about one parameter
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name (the pattern's text for a destructuring pattern).
    pub name: String,
    /// The local binding it introduces; `None` for a pattern that binds several names.
    pub binding: Option<BindingId>,
    /// The function uses it as a tensor (`x.shape`, `x.permute(..)`, `x.device`): an
    /// unannotated Python parameter used so is taken for one.
    pub tensor_use: bool,
    /// What its type annotation (or, unannotated, its name and default) says it holds: a
    /// tensor, a device, a tensor of unknown kind ([`ValueKind::MaybeTensor`]) or other data.
    pub kind: ValueKind,
    /// Python: the default value, when the signature gives one (`device="cuda"`).
    pub default: Option<Value>,
    /// Python: the function calls `.numpy()` on it, or on a value computed from it without a
    /// transfer (`transform(p).numpy()`). That raises for a tensor on an accelerator, so the
    /// function is only given it on the host: it is host data, not device-generic.
    pub host_data: bool,
    /// Python: the function only works with a CUDA device in it: on every call it hands it to
    /// a CUDA-only API (`.cuda(device)`, `torch.cuda.memory_allocated(device)`), or raises
    /// unless it is one (`if device.type != "cuda": raise ..`, `assert device.type == "cuda"`).
    pub cuda_only: bool,
    /// Python: the body tests it against its own default (`device == "cuda"` with
    /// `device="cuda"`): the default is a sentinel for "not given" that the body replaces.
    pub sentinel_default: bool,
    /// Python: the body tests it against its own default beside `torch.cuda.is_available()`
    /// (`if device == "cuda" and not torch.cuda.is_available(): self.device = "cpu"`): where
    /// there is no accelerator, it falls back to the host.
    pub falls_back: bool,
}

/// A loop (`for`, `while`, `loop`) of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The whole loop expression.
    pub span: Span,
    /// The enclosing loop.
    pub parent: Option<LoopId>,
    /// The `let` statements directly in the loop's body (`let` to `;`), for hoisting fixes.
    pub lets: Vec<Span>,
}

/// A local binding (`let x`, a parameter, a `for` pattern).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Its name.
    pub name: String,
    /// The innermost loop it is defined in.
    pub def_loop: Option<LoopId>,
    /// Every loop in which it is assigned after its definition.
    pub assigned_in: AssignedIn,
    /// The bindings its values were computed from, transitively (`mask = x.permute(..) == 0`
    /// is derived from `x`), parameters included.
    pub derived_from: DerivedFrom,
    /// Python: a parameter's name bound again, unconditionally, to that parameter moved by a
    /// transfer (`edge_list = edge_list.to(device)`): from here on it holds the moved tensor,
    /// not the caller's.
    pub moved: bool,
}

/// Where a function sits and what it is for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionMeta {
    /// The function's name (empty for a file's top-level items).
    pub name: String,
    /// The implementing type, for methods.
    pub self_type: Option<String>,
    /// The implemented trait, for trait impl methods (last path segment).
    pub trait_name: Option<String>,
    /// The function's name identifier.
    pub span: Span,
    /// Test code: `#[test]`, inside `#[cfg(test)]`, or in a test/bench/example path.
    pub is_test: bool,
    /// A forward entry: `forward*` / `__call__`, or a method of a module trait impl.
    pub is_forward_entry: bool,
    /// The function computes on the host by construction, so the tensors it computes with are
    /// host tensors: with torch's eager quantized kernels (`torch.quantize_per_tensor`,
    /// `torch.nn.quantized.functional`, `torch.ops.quantized`), which run on the CPU only; with
    /// `torch.histogram` (no CUDA kernel) or `.numpy()` (raises on device data) applied on every
    /// call to a tensor it was given or to the model's own state; or (Rust) with a backend its
    /// signature names that computes on the host only (burn's `NdArray`, directly or through a
    /// type alias of the file).
    pub host_compute: bool,
    /// Rust: where the function puts the weights it loads.
    pub weights: WeightsPlace,
}

/// Where a Rust function puts the weights it loads (see [`FunctionMeta::weights`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightsPlace {
    /// Nothing known: it loads none, or not on a device written in the code.
    #[default]
    Unknown,
    /// Onto the host: `VarBuilder::from_tensors(.., &dev)` or `safetensors::load_buffer(bytes,
    /// &dev)` with `dev` the literal `Device::Cpu`.
    Host,
    /// Where its caller says: it takes a `VarBuilder`, or it is a constructor (it returns `Self`)
    /// given a device.
    Caller,
}

/// A function lowered to events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Name, place and role.
    pub meta: FunctionMeta,
    /// Events in source order.
    pub events: Vec<Event>,
    /// Loops; [`Event::loop_id`] indexes this.
    pub loops: Vec<Loop>,
    /// Local bindings; [`Value::var`] indexes this.
    pub bindings: Vec<Binding>,
    /// The parameters, in order, the receiver left out.
    pub params: Vec<Param>,
    /// The values the function returns (tail expression, `return`, `Ok(..)`).
    pub returns: Vec<Value>,
    /// Only its calls and returned calls were lowered: it names no tensor API, or its file
    /// names none (see [`File::calls_only`]).
    pub calls_only: bool,
}

impl Function {
    /// Frees the spare capacity of its vectors (the IR of a tree is kept until it is checked).
    pub fn shrink_to_fit(&mut self) {
        self.events.shrink_to_fit();
        self.loops.shrink_to_fit();
        self.bindings.shrink_to_fit();
        self.params.shrink_to_fit();
        self.returns.shrink_to_fit();
    }

    /// Whether loop `inner` is `outer` or nested in it.
    pub fn loop_within(&self, inner: Option<LoopId>, outer: LoopId) -> bool {
        let mut cur = inner;
        while let Some(id) = cur {
            if id == outer {
                return true;
            }
            cur = self.loops[id as usize].parent;
        }
        false
    }
}

/// A class defined in a file (Python), for resolving module hierarchies across files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// Its name.
    pub name: String,
    /// Its bases, as written with import aliases resolved (`torch.nn.Module`, `BertPreTrainedModel`).
    pub bases: Vec<String>,
    /// Its `__init__` or `__getitem__` moves data to an accelerator (a dataset of device tensors).
    pub moves_to_device: bool,
    /// It holds state that `.to(device)` moves: it builds a sub-module or registers a parameter
    /// or buffer.
    pub stateful: bool,
}

/// What a file's source says about its placement, after lowering.
#[allow(clippy::struct_excessive_bools)] // independent facts about one file
#[derive(Clone, Debug)]
pub struct File {
    /// Index in the checked tree.
    pub id: FileId,
    /// The path as given to the checker.
    pub path: PathBuf,
    /// The source text (kept for rendering diagnostics).
    pub source: Arc<str>,
    /// The lowered functions; the file's top-level items are a function with an empty name.
    pub functions: Vec<Function>,
    /// A read or parse error: its span and message.
    pub syntax_error: Option<(Span, String)>,
    /// The parse error is in code of an edition placer does not read (Rust 2015): reported as
    /// a note, not an error.
    pub unsupported: bool,
    /// Whether the file is a binary's entry (`main.rs`, `bin/`, `build.rs`) or example.
    pub is_binary: bool,
    /// Only the call graph was lowered (functions, their calls and returned calls): the file
    /// names no tensor API, or is test code that is not checked.
    pub calls_only: bool,
    /// The file may touch tensors: a Python file that imports `torch`; every Rust file (those
    /// naming no tensor API are [`File::calls_only`]).
    pub tensor_api: bool,
    /// The classes it defines (Python).
    pub classes: Vec<Class>,
    /// For a notebook: the byte offset in `source` where each code cell starts.
    pub cells: Vec<usize>,
    /// Python: the type aliases for a tensor the module defines at its top level
    /// (`HomMatrix: TypeAlias = Float[torch.Tensor, "D D"]`, jaxtyping's style).
    pub tensor_aliases: Vec<String>,
    /// Python: bare names used as parameter annotations that the file could not resolve
    /// (`tf: HomMatrix` with `HomMatrix` imported): a tensor if another file of the tree
    /// defines the name as a tensor alias (see [`File::tensor_aliases`]).
    pub unresolved_annotations: Vec<String>,
    /// Rust: the extent of each private function its author marked `#[allow(dead_code)]`, the
    /// author's own word that nothing calls it; findings inside are dropped.
    pub dead_code: Vec<Span>,
    /// Python: the functions handed to `Module.apply` (`self.apply(init_weights)`, a weight
    /// initialiser), each with whether that call is in a class's `__init__` on `self`: there the
    /// module is still being built, on the host, before any `.to(device)`.
    pub apply_callbacks: Vec<(CallTarget, bool)>,
}

/// The source text of `span`, whitespace runs folded and cut after 48 characters, for messages.
pub fn snippet(source: &str, span: &Span) -> String {
    const MAX_CHARS: usize = 48;
    let raw = source.get(span.clone()).unwrap_or("");
    let mut out = String::new();
    let mut last_space = false;
    for (count, ch) in raw.chars().enumerate() {
        if count >= MAX_CHARS {
            out.push('…');
            break;
        }
        if ch.is_whitespace() {
            if !last_space && !out.is_empty() {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(ch);
            last_space = false;
        }
    }
    out
}

impl File {
    /// A file with nothing lowered yet: no functions, no syntax error.
    pub fn new(id: FileId, path: &std::path::Path, source: Arc<str>, is_binary: bool) -> Self {
        File {
            id,
            path: path.to_path_buf(),
            source,
            functions: Vec::new(),
            syntax_error: None,
            unsupported: false,
            is_binary,
            calls_only: false,
            tensor_api: true,
            classes: Vec::new(),
            cells: Vec::new(),
            tensor_aliases: Vec::new(),
            unresolved_annotations: Vec::new(),
            dead_code: Vec::new(),
            apply_callbacks: Vec::new(),
        }
    }
}
