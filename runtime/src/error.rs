//! The runtime's error type.

use crate::{DType, Device};
use std::fmt;
use std::panic::Location;

/// Which operand of an op an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The first tensor (`self`).
    Lhs,
    /// The other tensor.
    Rhs,
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operand::Lhs => "lhs",
            Operand::Rhs => "rhs",
        })
    }
}

/// Formats ` (rhs created at file:line:col)` when the origin is known.
struct CreatedAt(Operand, Option<&'static Location<'static>>);

impl fmt::Display for CreatedAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(loc) => write!(f, " ({} created at {loc})", self.0),
            None => Ok(()),
        }
    }
}

/// Formats a shape as `[2, 3]`.
struct Dims<'a>(&'a [usize]);

impl fmt::Display for Dims<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// Errors from the CUDA libraries, kept apart so that [`Error`] stays small.
#[derive(thiserror::Error, Debug)]
pub enum CudaError {
    /// An error from the CUDA driver API.
    #[error("cuda driver: {0}")]
    Driver(#[from] cudarc::driver::DriverError),
    /// An error from cuBLAS.
    #[error("cublas: {0}")]
    Cublas(#[from] cudarc::cublas::result::CublasError),
    /// An error from NVRTC while compiling the runtime's kernels.
    #[error("nvrtc: {0}")]
    Nvrtc(#[from] cudarc::nvrtc::CompileError),
}

/// Every error the runtime returns. Shape, dtype and device problems are errors, never panics.
#[derive(thiserror::Error, Debug)]
pub enum Error {
    // ----- Device -----
    /// Two operands of an op live on different devices (and neither is a 0-dim CPU tensor).
    /// `origin` is the creation site of the operand named by `culprit`: the CPU operand when
    /// exactly one is on the CPU, `rhs` otherwise.
    #[error("device mismatch in {op}: lhs on {lhs}, rhs on {rhs}{}", CreatedAt(*culprit, *origin))]
    DeviceMismatch {
        /// The op, e.g. "add".
        op: &'static str,
        /// Device of the first operand.
        lhs: Device,
        /// Device of the other operand.
        rhs: Device,
        /// Which operand `origin` describes.
        culprit: Operand,
        /// Where that operand was created (`None` with the `origins` feature off).
        origin: Option<&'static Location<'static>>,
    },
    /// CUDA was asked for but cannot be used (no driver, no GPU with that ordinal, no NVRTC).
    #[error("cuda unavailable: {reason}")]
    CudaUnavailable {
        /// Why, e.g. "libcuda not found".
        reason: String,
    },
    /// Data was read from a tensor on the meta device, which has none.
    #[error("cannot read data of a meta tensor in {op}")]
    MetaData {
        /// The op that needed the data.
        op: &'static str,
    },
    /// A module's tensors are on more than one device ([`Module::device`](crate::Module::device)).
    #[error(
        "module tensors are on more than one device: {}",
        list_placements(placements)
    )]
    MixedDevices {
        /// Every tensor's dotted name and device, in declaration order.
        placements: Vec<(String, Device)>,
    },
    /// `pin_memory` or a pinned-memory transfer on a tensor that is not on the CPU.
    #[error("cannot pin a tensor on {device}: only cpu tensors can be pinned")]
    NotPinnable {
        /// The device of the tensor.
        device: Device,
    },

    // ----- DType -----
    /// Two operands have different dtypes (the runtime does not promote types).
    #[error("dtype mismatch in {op}: lhs is {lhs}, rhs is {rhs}")]
    DTypeMismatch {
        /// The op.
        op: &'static str,
        /// Dtype of the first operand (or the expected dtype).
        lhs: DType,
        /// Dtype of the other operand (or the one given).
        rhs: DType,
    },
    /// The op is not defined for this dtype on this device.
    #[error("{op} does not support {dtype} on {device}")]
    UnsupportedDType {
        /// The op.
        op: &'static str,
        /// The dtype.
        dtype: DType,
        /// The device.
        device: Device,
    },

    // ----- Shape -----
    /// Shapes that must agree (or broadcast) do not.
    #[error("shape mismatch in {op}: lhs {}, rhs {}", Dims(lhs), Dims(rhs))]
    ShapeMismatch {
        /// The op.
        op: &'static str,
        /// Shape of the first operand (or the expected shape).
        lhs: Box<[usize]>,
        /// Shape of the other operand (or the one given).
        rhs: Box<[usize]>,
    },
    /// A tensor has the wrong number of dimensions.
    #[error("rank mismatch in {op}: expected {expected} dims, got {got}")]
    RankMismatch {
        /// The op.
        op: &'static str,
        /// The rank required (the minimum, for ops that take "at least").
        expected: usize,
        /// The rank given.
        got: usize,
    },
    /// A dimension index is outside `-rank..rank`.
    #[error("dim out of range in {op}: dim {dim} for a tensor of rank {rank}")]
    DimOutOfRange {
        /// The op.
        op: &'static str,
        /// The dim given.
        dim: i64,
        /// The rank of the tensor.
        rank: usize,
    },
    /// An index or range is outside `0..size`.
    #[error("index out of range in {op}: {index} for a dim of size {size}")]
    IndexOutOfRange {
        /// The op.
        op: &'static str,
        /// The offending index (the end of a range for `narrow`).
        index: i64,
        /// The size of the dim.
        size: usize,
    },
    /// A shape too large to address: the product of its non-zero dims, times the size of an
    /// element, exceeds `isize::MAX` bytes (or a dim computation overflows `usize`). Reported
    /// before any memory is allocated, on every device, meta included.
    #[error(
        "shape overflow in {op}: {} of {dtype} exceeds the addressable size (isize::MAX bytes)",
        Dims(dims)
    )]
    ShapeOverflow {
        /// The op.
        op: &'static str,
        /// The shape that does not fit (for a dim sum in `cat`, the dims added so far).
        dims: Box<[usize]>,
        /// The dtype of the tensor that would have this shape.
        dtype: DType,
    },
    /// Data of the wrong number of elements for a shape.
    #[error("element count mismatch in {op}: shape needs {expected} elements, got {got}")]
    ElementCountMismatch {
        /// The op.
        op: &'static str,
        /// Elements the shape needs.
        expected: usize,
        /// Elements given.
        got: usize,
    },

    // ----- Op -----
    /// A scalar that an integer tensor cannot take without changing its value. In scalar
    /// arithmetic (`add_scalar`, `mul_scalar`, `affine`): not a whole number (NaN, infinite,
    /// fractional) or outside the dtype's range (`i64`; `-255..=255` for `u8`, which wraps as
    /// in PyTorch); PyTorch would promote the result to a float dtype, but the runtime's `f64`
    /// scalars cannot tell `2` from `2.0`, so it returns this error instead of guessing
    /// (convert with [`Tensor::to_dtype`](crate::Tensor::to_dtype) first). In fills (`full`,
    /// `masked_fill`): NaN, infinite, or outside the range after truncation.
    #[error(
        "scalar out of range in {op}: {value} is not a whole number in the range of {dtype} \
         (convert the tensor with to_dtype to compute in floating point)"
    )]
    ScalarOutOfRange {
        /// The op.
        op: &'static str,
        /// The scalar given.
        value: f64,
        /// The dtype of the tensor.
        dtype: DType,
    },

    /// An op got an argument outside its domain (e.g. `cat` of no tensors, `linspace` with 0
    /// steps).
    #[error("invalid argument to {op}: {msg}")]
    InvalidArgument {
        /// The op.
        op: &'static str,
        /// What is wrong.
        msg: &'static str,
    },

    // ----- Module -----
    /// `load_state_dict(strict)`: the module has a tensor the state dict lacks.
    #[error("missing key in load_state_dict: {key}")]
    MissingKey {
        /// The dotted name.
        key: String,
    },
    /// `load_state_dict(strict)`: the state dict has a tensor the module lacks.
    #[error("unexpected key in load_state_dict: {key}")]
    UnexpectedKey {
        /// The dotted name.
        key: String,
    },

    // ----- Backend -----
    /// Memory for a result could not be allocated. Host allocations are fallible
    /// (`try_reserve`), so this is returned instead of aborting the process.
    #[error("out of memory in {op}: cannot allocate {bytes} bytes on {device}")]
    OutOfMemory {
        /// The op.
        op: &'static str,
        /// The size of the allocation that failed, in bytes (saturated at `usize::MAX`).
        bytes: usize,
        /// Where the allocation was attempted.
        device: Device,
    },
    /// The CUDA driver, cuBLAS or NVRTC failed.
    #[error(transparent)]
    Cuda(Box<CudaError>),
}

impl From<CudaError> for Error {
    fn from(e: CudaError) -> Self {
        Error::Cuda(Box::new(e))
    }
}

impl From<cudarc::driver::DriverError> for Error {
    fn from(e: cudarc::driver::DriverError) -> Self {
        CudaError::from(e).into()
    }
}

impl From<cudarc::cublas::result::CublasError> for Error {
    fn from(e: cudarc::cublas::result::CublasError) -> Self {
        CudaError::from(e).into()
    }
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns early with an [`Error`] built from the given expression, as `anyhow::bail!`.
#[macro_export]
macro_rules! bail {
    ($e:expr) => {
        return ::std::result::Result::Err(::std::convert::From::from($e))
    };
}

/// An error with a message that says what the caller was doing.
#[derive(Debug)]
pub struct WithContext {
    context: String,
    source: Error,
}

impl WithContext {
    /// Returns the runtime error underneath.
    pub fn inner(&self) -> &Error {
        &self.source
    }
}

impl fmt::Display for WithContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.context, self.source)
    }
}

impl std::error::Error for WithContext {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Adds a message to a runtime error, as `anyhow::Context`.
pub trait Context<T> {
    /// Wraps the error with `context`.
    ///
    /// # Errors
    /// The original error, wrapped.
    fn context(self, context: impl Into<String>) -> Result<T, WithContext>;
    /// Wraps the error with a message computed only on error.
    ///
    /// # Errors
    /// The original error, wrapped.
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T, WithContext>;
}

impl<T> Context<T> for Result<T> {
    fn context(self, context: impl Into<String>) -> Result<T, WithContext> {
        self.map_err(|source| WithContext {
            context: context.into(),
            source,
        })
    }
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T, WithContext> {
        self.map_err(|source| WithContext {
            context: f().into(),
            source,
        })
    }
}

/// `weight on cuda:0, mask on cpu`, grouping names by device.
fn list_placements(placements: &[(String, Device)]) -> String {
    let mut devices: Vec<Device> = Vec::new();
    for (_, d) in placements {
        if !devices.contains(d) {
            devices.push(*d);
        }
    }
    devices
        .iter()
        .map(|d| {
            let names: Vec<&str> = placements
                .iter()
                .filter(|(_, e)| e == d)
                .map(|(n, _)| n.as_str())
                .collect();
            format!("{} on {d}", names.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
