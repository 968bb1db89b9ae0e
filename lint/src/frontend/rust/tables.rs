//! What placer knows about the tensor APIs of placer-runtime, candle 0.11, tch 0.26 and burn 0.2x,
//! as data. The lowering in `lower.rs` reads only these tables, so teaching placer a new API (or a
//! user's own factory) is a table edit.
//!
//! Every identifier that can produce an IR event is one of these names, which is also what makes
//! [`ANCHORS`] (the byte scan that decides which files get only their call graph lowered) safe: a
//! file containing none of the anchors produces no event any rule reads except through its calls.

/// Type names whose associated functions in [`FACTORIES`] create tensors (after `use` aliases are
/// resolved), and whose presence in a parameter's type makes that parameter a tensor.
pub(crate) const TENSOR_TYPES: &[&str] = &["Tensor"];

/// Field types that are a tensor, or hold host data, rather than a sub-module with weights: their
/// methods are judged as tensor methods (burn's `Param`, candle's `Var` and `QTensor`), or compute
/// on the host.
pub(crate) const TENSOR_HOLDER_TYPES: &[&str] = &[
    "Param",
    "Var",
    "QTensor",
    "RunningState",
    "String",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "Tokenizer",
    "LogitsProcessor",
];

/// Associated functions of a tensor type that create a tensor. The device is taken from whichever
/// argument evaluates to a device (`&Device::Cpu`, `(Kind::Float, Device::Cpu)`, `x.options()`).
pub(crate) const FACTORIES: &[&str] = &[
    // shared by several APIs
    "zeros",
    "ones",
    "full",
    "empty",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "rand",
    "randn",
    "from_vec",
    "from_slice",
    "from_iter",
    "new",
    "triu",
    "tril",
    // candle
    "arange_step",
    "tril2",
    "triu2",
    "rand_like_on",
    // tch
    "arange_start",
    "arange_start_step",
    "randint",
    "randperm",
    "of_slice",
    "from",
    "try_from",
    "zeros_like_on",
    // burn
    "from_data",
    "from_floats",
    "from_ints",
    "from_bool",
    "random",
];

/// Factories that copy host data into the tensor (`Tensor::from_vec(v, n, &dev)`): the copy from
/// the host buffer is done when they return, so they leave no device work queued.
pub(crate) const HOST_DATA_FACTORIES: &[&str] = &[
    "from_vec",
    "from_slice",
    "from_iter",
    "new",
    "of_slice",
    "from",
    "try_from",
    "from_data",
    "from_floats",
    "from_ints",
    "from_bool",
];

/// Factories that create on the host when no device argument is given: tch's `Tensor::from_slice`
/// and `Tensor::from(..)`, candle's and tch's `Tensor::try_from(..)` always build on CPU.
pub(crate) const HOST_FACTORIES: &[&str] = &["from_slice", "of_slice", "from", "try_from"];

/// Methods of a tensor that create a tensor on the receiver's device (`x.zeros_like()`,
/// `x.new_zeros(..)`). The result inherits the receiver's device.
pub(crate) const INHERITING_METHODS: &[&str] = &[
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "empty_like",
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_tensor",
];

/// Associated functions of a tensor type that combine the tensors they are given (`Tensor::cat`).
pub(crate) const COMBINING_FACTORIES: &[&str] = &[
    "cat",
    "stack",
    "where_cond",
    "einsum",
    "concat",
    "zeros_like",
    "ones_like",
];

/// Methods that move a tensor (or a module) to another device.
pub(crate) const TRANSFERS: &[&str] = &["to_device", "to", "cuda", "cpu", "to_device_"];

/// Methods that copy a tensor's data to the host and wait for the device, whatever the receiver
/// looks like (their names are specific to tensors).
pub(crate) const HOST_READS: &[&str] = &[
    "to_vec0",
    "to_vec1",
    "to_vec2",
    "to_vec3",
    "to_scalar",
    "double_value",
    "int64_value",
    "into_scalar",
    "into_data",
    "to_data",
];

/// Host reads whose names are too common to trust unless the receiver is known to be a tensor.
pub(crate) const TENSOR_ONLY_HOST_READS: &[&str] = &["item", "to_vec", "tolist"];

/// Whether a type name is a primitive number type (`f64`, `usize`).
pub(crate) fn is_number_type(name: &str) -> bool {
    matches!(
        name,
        "f32"
            | "f64"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "usize"
            | "isize"
    )
}

/// Primitive types whose `try_from(&tensor)` is a host read (tch: `f64::try_from(&t)`).
pub(crate) const HOST_SCALAR_TYPES: &[&str] = &[
    "f32", "f64", "i64", "i32", "u32", "u8", "bool", "f16", "bf16", "Vec",
];

/// Tensor methods whose result is not a tensor.
pub(crate) const NON_TENSOR_METHODS: &[&str] = &[
    "device",
    "dtype",
    "kind",
    "shape",
    "dims",
    "dims0",
    "dims1",
    "dims2",
    "dims3",
    "dims4",
    "dims5",
    "dim",
    "size",
    "size1",
    "size2",
    "size3",
    "size4",
    "size5",
    "rank",
    "elem_count",
    "numel",
    "stride",
    "layout",
    "is_contiguous",
    "is_empty",
    "len",
    "options",
    "requires_grad",
    "is_pinned",
    "origin",
    "id",
    "defined",
];

/// Tensor methods that take another tensor but are legal across devices (copies).
pub(crate) const CROSS_DEVICE_METHODS: &[&str] = &["copy_", "copy_from", "set_data", "copy_data"];

/// Calls that block until the device's queue is drained.
pub(crate) const SYNCHRONIZE: &[&str] = &["synchronize", "sync", "device_synchronize"];

/// Calls that release cached device memory.
pub(crate) const EMPTY_CACHE: &[&str] = &["empty_cache"];

/// Methods that run a module: the result lives where the input does.
pub(crate) fn is_forward_name(name: &str) -> bool {
    name.starts_with("forward") || name == "__call__"
}

/// Module traits whose every method is on the forward path (candle `Module`/`ModuleT`, tch
/// `nn::Module`/`nn::ModuleT`).
pub(crate) const MODULE_TRAITS: &[&str] = &["Module", "ModuleT"];

/// Methods that apply a module to the receiver (tch/candle `xs.apply(&m)`).
pub(crate) const APPLY_METHODS: &[&str] = &["apply", "apply_t", "apply_op"];

/// Macros whose arguments are only logged or formatted.
pub(crate) const LOG_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "info",
    "debug",
    "warn",
    "error",
    "trace",
    "log",
    "event",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "bail",
    "anyhow",
    "dbg",
];

/// Methods that put a value into a host collection: given tensors, they compute nothing.
/// Backends that compute on the host only: a tensor or device of one is host data. burn's
/// `NdArray` (`burn-ndarray`: `ndarray` arrays in main memory).
pub(crate) const HOST_BACKENDS: &[&str] = &["NdArray", "NdArrayBackend", "NdArrayDevice"];

/// Types a constructor takes its weights from, device included: the caller chooses where the
/// weights live.
pub(crate) const WEIGHT_SOURCES: &[&str] =
    &["VarBuilder", "ShardedVarBuilder", "VarMap", "VarStore"];

/// Whether `prev::last` loads weights onto a device it is given: candle's
/// `VarBuilder::from_*` and `safetensors::load*`.
pub(crate) fn is_weight_loader(prev: &str, last: &str) -> bool {
    prev == "VarBuilder" && last.starts_with("from_")
        || prev == "safetensors" && last.starts_with("load")
}

pub(crate) const COLLECTION_METHODS: &[&str] = &["push", "extend", "insert", "push_back"];

/// Whether `name` is a device type (`Device`, burn's `NdArrayDevice`, `WgpuDevice`, ...).
pub(crate) fn is_device_type(name: &str) -> bool {
    name.ends_with("Device") && name != "MetalDevice"
}

/// Variants and constructors of device types, and what device they denote.
pub(crate) enum DeviceCtor {
    /// Host.
    Cpu,
    /// Accelerator; the argument (if a literal) is the ordinal.
    Accelerator,
    /// The meta device.
    Meta,
    /// Decided at run time (`cuda_if_available`).
    Runtime,
}

/// Looks up `Type::name` on a device type.
pub(crate) fn device_ctor(name: &str) -> Option<DeviceCtor> {
    Some(match name {
        "Cpu" => DeviceCtor::Cpu,
        "Cuda"
        | "new_cuda"
        | "new_cuda_with_stream"
        | "DiscreteGpu"
        | "IntegratedGpu"
        | "new_metal"
        | "Mps"
        | "Vulkan"
        | "Metal"
        | "cuda"
        | "metal" => DeviceCtor::Accelerator,
        "Meta" => DeviceCtor::Meta,
        "cuda_if_available" | "BestAvailable" | "default" | "new" => DeviceCtor::Runtime,
        _ => return None,
    })
}

/// Device constructors decided at run time that still create a new device: candle's
/// `Device::cuda_if_available(ordinal)` returns a CUDA device with an id of its own, which no tensor
/// built on another device shares (tch's argument-less `Device::cuda_if_available()` is a plain
/// enum value, and is not one).
pub(crate) const FRESH_DEVICE_CTORS: &[&str] = &["cuda_if_available"];

/// Field names that hold a model's device (`self.device`).
pub(crate) fn is_device_field(name: &str) -> bool {
    name == "device" || name == "dev" || name.ends_with("_device")
}

/// Substrings of which at least one occurs in every file that can produce an event a rule reads
/// (with [`IDENT_ANCHORS`], [`HOST_READS`] and [`EMPTY_CACHE`], which count as anchors too). Tensors come from tensor-typed parameters or factories (`Tensor`);
/// devices from device types, `.device()`, device fields, `TensorOptions`, or what
/// `Default::default()` means in a burn or placer-runtime file; host reads, timers, cache calls
/// and forward entries by their names; tch's `f64::try_from(&t)` by its spelling. A call's result
/// only matters through a function of another file, which the checker handles on its own.
pub(crate) const ANCHORS: &[&str] = &[
    "Tensor",
    "Device",
    "device",
    "Instant",
    "forward",
    "Module",
    "__call__",
    "burn",
    "placer_runtime",
    "placer::",
    "f32::try_from",
    "f64::try_from",
    "Vec::try_from",
    ">::try_from",
    // A candle `VarBuilder`'s weights, on the model's device (`vb.get(..)`, `vb.pp(..)`).
    "VarBuilder",
    "vb.",
];

/// Anchors that count only as a whole identifier (`.cuda()`, `.cpu()`, `self.dev`): as substrings
/// they are in too many words.
pub(crate) const IDENT_ANCHORS: &[&str] = &["dev", "cuda", "cpu"];
