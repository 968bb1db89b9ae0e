//! What placer knows about `torch`, as data. Names are qualified after import aliases are resolved
//! (`import torch as th`, `from torch import nn, zeros`): `zeros` below means `torch.zeros`.
//! The lowering in `lower.rs` reads only these tables.

/// `torch.*` functions that create a tensor. Without `device=` the tensor is on the CPU.
pub(crate) const FACTORIES: &[&str] = &[
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
    "randint",
    "randperm",
    "tensor",
    "as_tensor",
    "from_numpy",
    "triu",
    "tril",
    // The sample frequencies of a window length and a spacing (`d` is a number).
    "fft.fftfreq",
    "fft.rfftfreq",
    // The legacy constructors: always on the CPU (`torch.cuda.FloatTensor` is not one of them).
    "Tensor",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "BoolTensor",
    "ByteTensor",
];

/// The legacy constructors among [`FACTORIES`] (`torch.Tensor(ndarray)`, `torch.LongTensor(ids)`).
pub(crate) fn is_legacy_constructor(name: &str) -> bool {
    name.ends_with("Tensor")
}

/// Factories whose result is floating point unless `dtype=` says otherwise: built with the
/// input's device but no dtype, they do not follow the input's half precision.
pub(crate) const FLOAT_FACTORIES: &[&str] = &["zeros", "ones", "full", "empty", "rand", "randn"];

/// Factories that take an existing tensor (or array) and keep its data: `torch.triu(x)` is where
/// `x` is, `torch.from_numpy(a)` is on the CPU.
pub(crate) const WRAPPING_FACTORIES: &[&str] = &["triu", "tril"];

/// `torch.*_like(x)` functions: the result inherits `x`'s device and dtype.
pub(crate) fn is_like_factory(name: &str) -> bool {
    matches!(
        name,
        "zeros_like"
            | "ones_like"
            | "full_like"
            | "empty_like"
            | "rand_like"
            | "randn_like"
            | "randint_like"
    )
}

/// Tensor methods that create a tensor on the receiver's device with its dtype.
pub(crate) const INHERITING_METHODS: &[&str] = &[
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_tensor",
];

/// Tensor methods that change the dtype (a helper converted after creation has the right dtype);
/// `to` here is `.to(dtype)`, a transfer having been recognised before.
pub(crate) const DTYPE_METHODS: &[&str] = &[
    "to", "float", "half", "bfloat16", "double", "long", "int", "bool", "type", "type_as", "short",
    "byte", "char",
];

/// Tensor methods whose result is not part of the autograd graph: detached copies and index or
/// integer results (`.numpy()` on them works).
pub(crate) const NO_GRAD_RESULTS: &[&str] = &[
    "detach", "detach_", "argmax", "argmin", "argsort", "argwhere", "nonzero", "long", "int",
    "bool", "round", "sign", "isnan", "isinf", "isfinite",
];

/// Ops whose result is boolean or integer whatever the operands' dtype (a helper compared is no
/// longer a floating-point helper).
pub(crate) const BOOL_OPS: &[&str] = &[
    "ge",
    "gt",
    "le",
    "lt",
    "eq",
    "ne",
    "isnan",
    "isinf",
    "isfinite",
    "logical_and",
    "logical_or",
    "logical_not",
    "argmax",
    "argmin",
    "argsort",
    "bernoulli",
];

/// Ops that take an index tensor, which must be on their input's device even when it is 0-dim
/// (`gather`, `index_select`: unlike elementwise ops, they do not take a 0-dim host tensor as a
/// scalar).
pub(crate) const INDEX_OPS: &[&str] = &[
    "gather",
    "index_select",
    "take_along_dim",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_add",
    "index_copy",
    "index_fill",
];

/// Methods that copy a tensor's data to the host and wait for the device.
pub(crate) const HOST_READS: &[&str] = &["item", "numpy"];

/// Host reads whose name is too common (numpy arrays have it too) unless the receiver is known to
/// be a tensor.
pub(crate) const TENSOR_ONLY_HOST_READS: &[&str] = &["tolist"];

/// Builtins that read a tensor's value on the host (`bool(t)`, `float(t)`).
pub(crate) const HOST_READ_BUILTINS: &[&str] = &["bool", "float", "int"];

/// `torch.*` functions (torch-relative names) whose positional arguments are tensors they compute
/// with: a parameter passed there is a tensor (`torch.gather(output, 1, index)`).
pub(crate) const TENSOR_FUNCTIONS: &[&str] = &[
    "gather",
    "index_select",
    "take_along_dim",
    "scatter",
    "masked_fill",
    "masked_select",
    "where",
    "matmul",
    "mm",
    "bmm",
    "cdist",
    "outer",
    "cumsum",
    "logsumexp",
    "softmax",
    "log_softmax",
    "topk",
    "sort",
    "argsort",
    "bucketize",
    "searchsorted",
    "diag_embed",
    "diagonal",
    "nonzero",
    "isnan",
    "isinf",
    "clamp",
    "sigmoid",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sum",
    "mean",
    "prod",
    "quantile",
    "square",
    "std",
    "var",
    "cumprod",
    "argmax",
    "argmin",
    "amax",
    "amin",
    "log1p",
    "expm1",
    "linalg.cholesky",
    "linalg.cholesky_ex",
    "linalg.solve",
    "linalg.norm",
];

/// Members only a `torch.Tensor` has: not a number, a list, a config object or a `NumPy` array
/// (which has `shape`, `reshape`, `squeeze`, `repeat`, `nonzero`, ..).
pub(crate) const TENSOR_ONLY_MEMBERS: &[&str] = &[
    "device",
    "unsqueeze",
    "permute",
    "long",
    "half",
    "cuda",
    "contiguous",
    "numel",
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_tensor",
    "masked_fill",
    "expand",
    "expand_as",
    "type_as",
    "is_cuda",
    "narrow",
    "index_select",
    "masked_select",
    "repeat_interleave",
    "unbind",
];

/// Members whose use on a parameter says the function takes a tensor there (`x.shape`,
/// `x.permute(..)`): those of `torch.Tensor` that lists, numbers and configs do not have.
pub(crate) const TENSOR_EVIDENCE: &[&str] = &[
    "shape",
    "size",
    "dim",
    "ndim",
    "device",
    "dtype",
    "unsqueeze",
    "squeeze",
    "permute",
    "view",
    "reshape",
    "transpose",
    "flatten",
    "float",
    "half",
    "long",
    "bool",
    "to",
    "cuda",
    "cpu",
    "contiguous",
    "numel",
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_tensor",
    "masked_fill",
    "expand",
    "expand_as",
    "repeat",
    "cumsum",
    "clone",
    "detach",
    "matmul",
    "type_as",
    "is_cuda",
    "narrow",
    "index_select",
    "gather",
    "scatter",
    "argmax",
    "softmax",
    "nonzero",
    "masked_select",
    "repeat_interleave",
    "flip",
    "chunk",
    "split",
    "unbind",
];

/// `NumPy` functions (by name in that module) that return an array, never a scalar.
pub(crate) fn numpy_returns_array(name: &str) -> bool {
    matches!(
        name,
        "array"
            | "asarray"
            | "ascontiguousarray"
            | "loadtxt"
            | "genfromtxt"
            | "load"
            | "fromfile"
            | "frombuffer"
            | "zeros"
            | "ones"
            | "empty"
            | "full"
            | "arange"
            | "linspace"
            | "logspace"
            | "eye"
            | "identity"
            | "stack"
            | "concatenate"
            | "vstack"
            | "hstack"
            | "meshgrid"
            | "triu"
            | "tril"
            | "diag"
    )
}

/// Tensor attributes and methods that give its sizes (`x.shape`, `x.size(0)`, `x.numel()`):
/// host integers that say nothing of the tensor's device.
pub(crate) fn is_size_member(name: &str) -> bool {
    matches!(
        name,
        "shape" | "size" | "dim" | "ndim" | "ndimension" | "numel" | "nelement"
    )
}

/// Tensor attributes and methods whose result is not a tensor.
pub(crate) const NON_TENSOR_MEMBERS: &[&str] = &[
    // List methods: a receiver that may be a tensor but is appended to is a list.
    "append",
    "extend",
    "insert",
    "shape",
    "size",
    "dim",
    "ndim",
    "ndimension",
    "numel",
    "dtype",
    "is_cuda",
    "is_floating_point",
    "is_complex",
    "requires_grad",
    "stride",
    "element_size",
    "is_contiguous",
    "data_ptr",
    "nelement",
    "get_device",
    "grad_fn",
    "is_leaf",
    "layout",
    "is_pinned",
    "storage",
    "untyped_storage",
    "names",
    "backward",
    "register_hook",
    "retain_grad",
];

/// Tensor methods that take another tensor but are legal across devices (copies).
pub(crate) const CROSS_DEVICE_METHODS: &[&str] = &["copy_", "set_", "to"];

/// Tensor methods whose arguments are sizes, dims or a shape template, never data they compute
/// with: `pos.repeat(bs, 1)` with `bs` of unknown kind, `x.expand_as(y)` (only `y`'s shape is read).
pub(crate) const SHAPE_METHODS: &[&str] = &[
    "repeat",
    "expand",
    "expand_as",
    "view",
    "view_as",
    "reshape",
    "reshape_as",
    "permute",
    "transpose",
    "unsqueeze",
    "squeeze",
    "flatten",
    "unflatten",
    "tile",
    "flip",
    "roll",
    "chunk",
    "split",
    "unfold",
    "narrow",
    "movedim",
    "swapaxes",
    "swapdims",
];

/// Functions documented to take some tensor arguments on the host whatever the device of the
/// others: `ctc_loss`'s targets and lengths (cuDNN's CTC even requires them there),
/// `pack_padded_sequence`'s lengths ("a 1D CPU int64 tensor": CUDA lengths raise).
pub(crate) const HOST_ARGUMENT_FUNCTIONS: &[&str] = &["ctc_loss", "pack_padded_sequence"];

/// Functions of `torch` / `torch.nn.functional` whose arguments after the first are sizes,
/// amounts or shifts the host reads (`F.pad(x, (0, n - x.shape[-1]))`), not tensors that meet it.
/// Also `torch.jit.trace(f, example_inputs)`: it hands the inputs to `f`, which is where they meet.
pub(crate) const SIZE_ARGUMENT_FUNCTIONS: &[&str] =
    &["pad", "interpolate", "tile", "roll", "narrow", "trace"];

/// `torch.nn` layers that hold weights, which a subclass's `super().forward(x)` applies to `x`.
pub(crate) const NN_LAYERS_WITH_WEIGHTS: &[&str] = &[
    "Embedding",
    "EmbeddingBag",
    "Linear",
    "Bilinear",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LayerNorm",
    "GroupNorm",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LSTM",
    "GRU",
    "RNN",
    "MultiheadAttention",
];

/// Methods that put a value into a host collection: given tensors, they compute nothing.
pub(crate) const COLLECTION_METHODS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "put",
    "setdefault",
    "get",
    "pop",
    "index",
    "count",
    "remove",
];

/// Whether an argument of `.to(..)` (its source text) names a dtype rather than a device or a
/// tensor: `dtype`, `self.dtype_float`, `torch_dtype`, `half_type`, `precision`.
pub(crate) fn names_dtype(arg: &str) -> bool {
    mentions_any(
        arg,
        &[
            "dtype",
            "type",
            "float",
            "half",
            "bf16",
            "fp16",
            "fp32",
            "precision",
            "int",
            "bool",
        ],
    )
}

/// Whether a function's name says it returns sizes or counts (host numbers): `get_image_size`,
/// `get_dimensions`, `num_classes`, `count_params`.
pub(crate) fn returns_sizes(name: &str) -> bool {
    ["size", "sizes", "shape", "dimensions"]
        .iter()
        .any(|w| ends_with_ignore_case(name, w))
        || ["num_", "count_", "len_"].iter().any(|w| {
            name.get(..w.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(w))
        })
}

/// Whether a function's name asks a yes/no question about its arguments (`is_tensor`,
/// `has_torch_function_unary`): its answer is a Python `bool` decided from metadata, not a tensor.
/// `is_nonzero` is the exception: it reads the one value of its tensor.
pub(crate) fn names_predicate(name: &str) -> bool {
    (name.starts_with("is_") || name.starts_with("has_")) && name != "is_nonzero"
}

/// Whether `text` ends with the lowercase word `w`, in any case.
fn ends_with_ignore_case(text: &str, w: &str) -> bool {
    text.len() >= w.len()
        && text
            .get(text.len() - w.len()..)
            .is_some_and(|e| e.eq_ignore_ascii_case(w))
}

/// Whether source text mentions any of the lowercase `words`, in any case (names written by
/// hand: `metrics_to_log`, `torch_dtype`, `deviceModule`).
fn mentions_any(text: &str, words: &[&str]) -> bool {
    let lower = text.to_ascii_lowercase();
    words.iter().any(|w| lower.contains(w))
}

/// Whether a receiver (its source text) names a device module or an accelerator, whose
/// `empty_cache()` is the caching allocator's: `torch.cuda`, `device_module`, `torch.mps`,
/// `get_accelerator()`, `getattr(torch, device_type)`.
pub(crate) fn names_device_module(receiver: &str) -> bool {
    mentions_any(
        receiver,
        &[
            "cuda",
            "torch",
            "mps",
            "xpu",
            "npu",
            "device",
            "accelerator",
            "backend",
        ],
    )
}

/// Whether a dict (its source text) collects values for a logger: `metrics_to_log`, `metrics`,
/// `log_dict`, `stats`.
pub(crate) fn names_metrics(dict: &str) -> bool {
    mentions_any(dict, &["metric", "log", "stats"])
}

/// Whether a callee (its source text) sleeps or busy-waits: `time.sleep`, `precise_sleep`,
/// `busy_wait`, `asyncio.sleep`. A timer reading given to one paces a loop.
pub(crate) fn is_sleep_call(callee: &str) -> bool {
    // Plain byte loops rather than `rsplit` and `contains`: this runs for every call of every
    // file, and the segment after the last dot is short.
    let bytes = callee.as_bytes();
    let last = bytes
        .iter()
        .rposition(|&b| b == b'.')
        .map_or(bytes, |dot| &bytes[dot + 1..]);
    last.windows(5).any(|w| w[0] == b's' && w == b"sleep")
        || last == b"busy_wait"
        || last == b"wait_until"
}

/// Calls whose arguments are only logged or formatted (a host read there is for logging).
pub(crate) fn is_log_call(qualified: Option<&str>, method: Option<&str>) -> bool {
    if let Some(q) = qualified {
        if matches!(
            q,
            "print" | "pprint" | "pprint.pprint" | "repr" | "str" | "format"
        ) || q.starts_with("logging.")
            || q.starts_with("warnings.")
            || q.starts_with("wandb.")
        {
            return true;
        }
    }
    method.is_some_and(|m| {
        matches!(
            m,
            "info"
                | "debug"
                | "warning"
                | "warn"
                | "error"
                | "critical"
                | "exception"
                | "log"
                | "write"
                | "set_postfix"
                | "set_description"
                | "add_scalar"
                | "add_scalars"
                | "log_metrics"
                | "log_dict"
                | "format"
                | "info_once"
                | "warning_once"
                | "warning_advice"
        )
    })
}

/// Builtins and helpers that iterate over what they are given (a loader keeps yielding batches).
pub(crate) const PASS_THROUGH_ITERATORS: &[&str] =
    &["enumerate", "iter", "tqdm", "tqdm.tqdm", "zip"];

/// Fully qualified names of the data loader class.
pub(crate) fn is_data_loader(q: &str) -> bool {
    matches!(
        q,
        "torch.utils.data.DataLoader" | "torch.utils.data.dataloader.DataLoader"
    )
}

/// Timer reads (`time.time()`): a subtraction of two measures time.
pub(crate) const TIMERS: &[&str] = &["time.time", "time.perf_counter", "time.monotonic"];

/// Keyword arguments of a module or loss constructor that hold a tensor which `model.to(device)`
/// does not move when the loss is not moved too.
pub(crate) const WEIGHT_KEYWORDS: &[&str] = &["weight", "pos_weight"];

/// Whether an unannotated parameter's name says it holds host data: a size, a count, an index,
/// a flag, a config, a callable (`num_heads`, `max_len`, `hidden_size`, `is_causal`, `config`).
pub(crate) fn is_host_value_name(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "num_", "n_", "max_", "min_", "is_", "use_", "return_", "output_", "do_", "has_", "with_",
    ];
    const SUFFIXES: &[&str] = &[
        "_size", "_len", "_length", "_dim", "_dims", "_num", "_count", "_idx", "_index", "_config",
        "_fn", "_func", "_rate", "_prob", "_eps", "_name", "_type", "_mode", "_path", "_steps",
        "_shape", "_id",
    ];
    const NAMES: &[&str] = &[
        "config",
        "bsz",
        "dim",
        "size",
        "steps",
        "height",
        "width",
        "length",
        "seq_len",
        "beg",
        "end",
        "start",
        "stop",
        "step",
        "eps",
        "training",
        "dtype",
        "shape",
        "name",
        "kwargs",
        "args",
        "cls",
        "n",
        "k",
        "p",
        "h",
        "w",
        "i",
        "j",
        "idx",
        "index",
        "layer_idx",
        "axis",
        "epoch",
        "batch_size",
        "q_size",
        "k_size",
        "klen",
        "qlen",
        "mode",
        "reduction",
        "d_model",
    ];
    NAMES.contains(&name)
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Whether a string literal names CUDA (`"cuda"`, `"cuda:1"`).
pub(crate) fn is_cuda_string(s: &str) -> bool {
    device_string(s).is_some_and(|(kind, _)| kind == "cuda")
}

/// Whether a name looks like it holds a device (`device`, `dev`, `target_device`).
pub(crate) fn is_device_name(name: &str) -> bool {
    name == "device" || name == "dev" || name.ends_with("_device") || name == "map_location"
}

/// A device string (`"cuda:1"`, `"cpu"`, `"meta"`) and what it denotes: `(kind, ordinal)`.
pub(crate) fn device_string(s: &str) -> Option<(&'static str, Option<u32>)> {
    match s {
        "cpu" => Some(("cpu", None)),
        "cuda" => Some(("cuda", None)),
        "meta" => Some(("meta", None)),
        "mps" | "xpu" | "npu" | "hpu" | "xla" => Some(("accelerator", None)),
        _ => {
            let rest = s.strip_prefix("cuda:")?;
            rest.parse::<u32>().ok().map(|n| ("cuda", Some(n)))
        }
    }
}

/// torch's eager quantized kernels, which run on the CPU only (FBGEMM, QNNPACK):
/// `torch.quantize_per_tensor`, `torch.nn.quantized.functional.conv2d`, `torch.ops.quantized.mul`.
pub(crate) fn is_quantized_kernel(qualified: &str) -> bool {
    matches!(
        qualified,
        "torch.quantize_per_tensor" | "torch.quantize_per_channel"
    ) || [
        "torch.nn.quantized.",
        "torch.ao.nn.quantized.",
        "torch.ops.quantized.",
    ]
    .iter()
    .any(|p| qualified.starts_with(p))
}

/// Libraries that compute on the host only (`numpy`, `scipy`, `sklearn`, `pandas`, `cv2`, `PIL`,
/// the standard library's `math`, `statistics`, `random`, `itertools`, `json`, `re`, `os`,
/// `glob` and `shutil`): a call of theirs queues no device work, whatever it is given (a CUDA
/// tensor given to `numpy` raises instead; `itertools.chain(..)` only iterates). `root` is the
/// first segment of a dotted name (`numpy` of `numpy.zeros_like`): a call of the module itself
/// (`random(..)`) is not theirs.
pub(crate) fn is_host_library(root: &str) -> bool {
    matches!(
        root,
        "numpy"
            | "scipy"
            | "sklearn"
            | "pandas"
            | "cv2"
            | "PIL"
            | "math"
            | "statistics"
            | "random"
            | "itertools"
            | "json"
            | "re"
            | "os"
            | "glob"
            | "shutil"
    )
}

/// Python builtins: calls of these are never calls into the linted tree.
pub(crate) fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "len"
            | "range"
            | "isinstance"
            | "issubclass"
            | "getattr"
            | "hasattr"
            | "setattr"
            | "delattr"
            | "super"
            | "print"
            | "int"
            | "float"
            | "str"
            | "bool"
            | "list"
            | "dict"
            | "tuple"
            | "set"
            | "frozenset"
            | "min"
            | "max"
            | "sum"
            | "zip"
            | "enumerate"
            | "sorted"
            | "reversed"
            | "any"
            | "all"
            | "abs"
            | "round"
            | "type"
            | "id"
            | "iter"
            | "next"
            | "map"
            | "filter"
            | "repr"
            | "format"
            | "open"
            | "callable"
            | "vars"
            | "dir"
            | "divmod"
            | "pow"
            | "hash"
            | "slice"
            | "object"
            | "property"
            | "staticmethod"
            | "classmethod"
            | "bytes"
            | "ord"
            | "chr"
            | "locals"
            | "globals"
            | "exec"
            | "eval"
            | "hex"
            | "bin"
            | "oct"
            | "input"
            | "compile"
            | "__import__"
    )
}

/// `torch.nn` modules that hold no parameters or buffers: activations, dropout, pooling,
/// padding, reshaping, resampling. A tensor given to one meets nothing of the model's.
const STATELESS_MODULES: &[&str] = &[
    "Identity",
    "Flatten",
    "Unflatten",
    "Upsample",
    "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
    "PixelShuffle",
    "PixelUnshuffle",
    "ChannelShuffle",
    "Softmax",
    "Softmax2d",
    "LogSoftmax",
    "Softmin",
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "ELU",
    "CELU",
    "SELU",
    "GELU",
    "SiLU",
    "Mish",
    "Sigmoid",
    "LogSigmoid",
    "Tanh",
    "Tanhshrink",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Hardtanh",
    "Hardswish",
    "Hardsigmoid",
    "Hardshrink",
    "Threshold",
    "GLU",
    "CosineSimilarity",
    "PairwiseDistance",
    "Fold",
    "Unfold",
];

/// Whether a module class (last segment) is known to hold no parameters or buffers: a
/// parameter-free `torch.nn` module, any dropout, pooling or padding module, or a loss.
pub(crate) fn is_stateless_module(class: &str) -> bool {
    STATELESS_MODULES.contains(&class)
        || class.contains("Dropout")
        || class.contains("Pool")
        || class.ends_with("Pad1d")
        || class.ends_with("Pad2d")
        || class.ends_with("Pad3d")
        || class.ends_with("Loss")
}

/// `torch.distributed` collectives (torch-relative names after `torch.distributed.`): the
/// tensors they are given must be on the device the process group computes on.
pub(crate) const COLLECTIVES: &[&str] = &[
    "all_reduce",
    "all_gather",
    "all_gather_into_tensor",
    "all_to_all",
    "all_to_all_single",
    "broadcast",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
];

/// Elementwise `torch` functions: of a 0-dim tensor they return a 0-dim tensor where it is.
pub(crate) const ELEMENTWISE_FUNCTIONS: &[&str] = &[
    "abs",
    "ceil",
    "clamp",
    "clip",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "neg",
    "negative",
    "pow",
    "reciprocal",
    "relu",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
];

/// Bases of dataset classes (`torch.utils.data`), by last segment: their methods run in the
/// data loader's host workers.
pub(crate) const DATASET_BASES: &[&str] = &["Dataset", "IterableDataset"];

/// `torch.linalg` functions (by name in that module) that, given CUDA inputs, synchronise that
/// device with the host to check for errors (each one's `PyTorch` documentation says so; their
/// `_ex` variants do not).
pub(crate) const SYNCHRONIZING_LINALG: &[&str] = &[
    "cholesky",
    "inv",
    "solve",
    "lu_factor",
    "eig",
    "eigvals",
    "eigh",
    "eigvalsh",
    "svd",
    "svdvals",
    "pinv",
    "matrix_rank",
];

/// Reductions that, given no `dim`, reduce every element to one 0-dim tensor (`t.sum()`,
/// `torch.amax(t)`).
pub(crate) const FULL_REDUCTIONS: &[&str] = &[
    "sum",
    "mean",
    "prod",
    "amax",
    "amin",
    "max",
    "min",
    "median",
    "std",
    "var",
    "norm",
    "nansum",
    "nanmean",
    "nanmedian",
    "count_nonzero",
    "all",
    "any",
];

/// Whether `name` (after `torch.`) is one of `PyTorch`'s dtypes (`float64`, `long`, `complex64`,
/// `bfloat16`, `uint8`, `float8_e4m3fn`), not a device or a tensor.
pub(crate) fn is_dtype_name(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "cfloat", "cdouble",
        "chalf",
    ];
    const PREFIXES: &[&str] = &["float", "int", "uint", "complex", "bfloat", "qint", "quint"];
    NAMES.contains(&name)
        || PREFIXES.iter().any(|p| {
            name.strip_prefix(p).is_some_and(|rest| {
                rest.chars().next().is_some_and(|c| c.is_ascii_digit())
                    && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
}
