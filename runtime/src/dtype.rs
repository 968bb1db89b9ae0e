//! Element types.

use half::{bf16, f16};
use std::fmt;

/// The element type of a tensor.
///
/// Every dtype works on the CPU. On CUDA, `F32` runs every op natively; `F16` and `BF16` ops
/// compute through `F32` (cast, op, cast back); `I64`, `U8` and `Bool` support transfers, casts,
/// comparisons, `where_` and indexing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit IEEE float (PyTorch's default, `torch.float32`).
    F32,
    /// 16-bit IEEE float (`torch.float16`).
    F16,
    /// 16-bit brain float (`torch.bfloat16`).
    BF16,
    /// 64-bit signed integer (`torch.int64`), the index dtype.
    I64,
    /// 8-bit unsigned integer (`torch.uint8`).
    U8,
    /// Boolean (`torch.bool`), one byte per element.
    Bool,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 6] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::U8,
        DType::Bool,
    ];

    /// Returns the size of one element in bytes.
    pub fn size_in_bytes(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I64 => 8,
            DType::U8 | DType::Bool => 1,
        }
    }

    /// Returns true for `F32`, `F16` and `BF16`.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16)
    }

    /// Returns the name PyTorch uses, without the `torch.` prefix ("float32", "int64", ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::Bool => "bool",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that is the element type of a [`DType`]: `f32`, `half::f16`, `half::bf16`,
/// `i64`, `u8` and `bool`.
///
/// Used by host reads ([`Tensor::to_vec`](crate::Tensor::to_vec)) and by
/// [`Tensor::from_vec`](crate::Tensor::from_vec). Sealed: the set of dtypes is closed.
pub trait WithDType:
    Copy + Send + Sync + PartialOrd + PartialEq + fmt::Debug + 'static + sealed::Sealed
{
    /// The dtype whose elements have this Rust type.
    const DTYPE: DType;
    /// Converts to `f64` (`true` is 1, `false` is 0).
    fn to_f64(self) -> f64;
    /// Converts from `f64` as `as` does (saturating for integers, `!= 0` for bool).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f32` (`true` is 1, `false` is 0).
    fn to_f32(self) -> f32;
    /// Converts from `f32` as `as` does (saturating for integers, `!= 0` for bool).
    fn from_f32(v: f32) -> Self;
    #[doc(hidden)]
    fn wrap(v: Vec<Self>) -> crate::storage::cpu::CpuStorage;
    #[doc(hidden)]
    fn unwrap(s: &crate::storage::cpu::CpuStorage) -> Option<&[Self]>;
}

macro_rules! with_dtype {
    ($t:ty, $variant:ident, $to64:expr, $from64:expr, $to32:expr, $from32:expr) => {
        impl sealed::Sealed for $t {}
        impl WithDType for $t {
            const DTYPE: DType = DType::$variant;
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn to_f64(self) -> f64 {
                $to64(self)
            }
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::float_cmp
            )]
            fn from_f64(v: f64) -> Self {
                $from64(v)
            }
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn to_f32(self) -> f32 {
                $to32(self)
            }
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::float_cmp
            )]
            fn from_f32(v: f32) -> Self {
                $from32(v)
            }
            fn wrap(v: Vec<Self>) -> crate::storage::cpu::CpuStorage {
                crate::storage::cpu::CpuStorage::$variant(v)
            }
            fn unwrap(s: &crate::storage::cpu::CpuStorage) -> Option<&[Self]> {
                match s {
                    crate::storage::cpu::CpuStorage::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

with_dtype!(
    f32,
    F32,
    |x: f32| f64::from(x),
    |v: f64| v as f32,
    |x: f32| x,
    |v: f32| v
);
with_dtype!(
    f16,
    F16,
    |x: f16| x.to_f64(),
    f16::from_f64,
    |x: f16| x.to_f32(),
    f16::from_f32
);
with_dtype!(
    bf16,
    BF16,
    |x: bf16| x.to_f64(),
    bf16::from_f64,
    |x: bf16| x.to_f32(),
    bf16::from_f32
);
with_dtype!(
    i64,
    I64,
    |x: i64| x as f64,
    |v: f64| v as i64,
    |x: i64| x as f32,
    |v: f32| v as i64
);
with_dtype!(
    u8,
    U8,
    |x: u8| f64::from(x),
    |v: f64| v as u8,
    |x: u8| f32::from(x),
    |v: f32| v as u8
);
with_dtype!(
    bool,
    Bool,
    |x: bool| f64::from(u8::from(x)),
    |v: f64| v != 0.0,
    |x: bool| f32::from(u8::from(x)),
    |v: f32| v != 0.0
);
