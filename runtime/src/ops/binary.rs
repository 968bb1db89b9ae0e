//! Elementwise binary ops with broadcasting, comparisons and scalar arithmetic.

use super::{check_same_dtype, common_device, cuda_via_f32, internal, on_device, BinaryOp, CmpOp};
use crate::error::{Error, Result};
use crate::shape::{broadcast_shape, check_dims};
use crate::storage::{cpu, cuda, Storage};
use crate::tensor::{caller, Origin, Tensor};
use crate::DType;

macro_rules! binary_fns {
    ($($name:ident, $op:ident, $torch:literal, $what:literal;)*) => {$(
        #[doc = concat!("Returns ", $what, " elementwise, with broadcasting, as `", $torch, "`.")]
        ///
        /// # Shapes
        /// - self: `[...a]`, rhs: `[...b]`, broadcast as in PyTorch (trailing dims equal or 1)
        /// - output: the broadcast shape, on the common device. A 0-dim CPU operand mixes with
        ///   any device.
        ///
        /// # Errors
        /// [`Error::DeviceMismatch`] if the operands are on different devices;
        /// [`Error::DTypeMismatch`] if their dtypes differ (no type promotion);
        /// [`Error::ShapeMismatch`] if the shapes don't broadcast; [`Error::ShapeOverflow`] if
        /// the broadcast shape is too large to address; [`Error::OutOfMemory`] if the host
        /// allocation fails; [`Error::UnsupportedDType`] for arithmetic on bool or division of
        /// integers.
        #[track_caller]
        pub fn $name(&self, rhs: &Tensor) -> Result<Tensor> {
            self.binary_impl(rhs, BinaryOp::$op, caller())
        }
    )*};
}

macro_rules! cmp_fns {
    ($($name:ident, $op:ident, $torch:literal;)*) => {$(
        #[doc = concat!("Returns the bool tensor of `", $torch, "` elementwise, with broadcasting.")]
        ///
        /// # Shapes
        /// - output: the broadcast shape, dtype `Bool`, on the common device.
        ///
        /// # Errors
        /// As [`Tensor::add`] (comparisons work for every dtype, bool included).
        #[track_caller]
        pub fn $name(&self, rhs: &Tensor) -> Result<Tensor> {
            self.cmp_impl(rhs, CmpOp::$op, caller())
        }
    )*};
}

impl Tensor {
    binary_fns! {
        add, Add, "torch.add", "`self + rhs`";
        sub, Sub, "torch.sub", "`self - rhs`";
        mul, Mul, "torch.mul", "`self * rhs`";
        div, Div, "torch.div", "`self / rhs` (floats only)";
        maximum, Maximum, "torch.maximum", "the larger of `self` and `rhs` (NaN if either is NaN)";
        minimum, Minimum, "torch.minimum", "the smaller of `self` and `rhs` (NaN if either is NaN)";
    }

    cmp_fns! {
        eq, Eq, "self == rhs";
        ne, Ne, "self != rhs";
        lt, Lt, "self < rhs";
        le, Le, "self <= rhs";
        gt, Gt, "self > rhs";
        ge, Ge, "self >= rhs";
    }

    /// Both operands on the common device, and the broadcast dims, checked for an output of
    /// `out_dtype` (`None`: the operands' dtype).
    fn operands(
        &self,
        rhs: &Tensor,
        op: &'static str,
        out_dtype: Option<DType>,
        origin: Option<Origin>,
    ) -> Result<(Tensor, Tensor, Vec<usize>)> {
        let device = common_device(op, &[self, rhs])?;
        let dtype = check_same_dtype(op, self, rhs)?;
        let dims = broadcast_shape(op, self.dims(), rhs.dims())?;
        check_dims(op, &dims, out_dtype.unwrap_or(dtype))?;
        Ok((
            on_device(self, device, origin)?,
            on_device(rhs, device, origin)?,
            dims,
        ))
    }

    pub(crate) fn binary_impl(
        &self,
        rhs: &Tensor,
        op: BinaryOp,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let (a, b, dims) = self.operands(rhs, op.name(), None, origin)?;
        let (dtype, device) = (a.dtype(), a.device());
        let arith = !matches!(op, BinaryOp::Maximum | BinaryOp::Minimum);
        if (dtype == DType::Bool && arith) || (op == BinaryOp::Div && !dtype.is_float()) {
            return Err(Error::UnsupportedDType {
                op: op.name(),
                dtype,
                device,
            });
        }
        if cuda_via_f32(device, dtype) {
            let (x, y) = (a.to_dtype(DType::F32)?, b.to_dtype(DType::F32)?);
            let out = x.binary_impl(&y, op, origin)?.to_dtype(dtype)?;
            return Ok(out.with_origin(origin));
        }
        let la = a.layout().broadcast_as(op.name(), &dims)?;
        let lb = b.layout().broadcast_as(op.name(), &dims)?;
        let storage = match (a.storage(), b.storage()) {
            (Storage::Meta, Storage::Meta) => Storage::Meta,
            (Storage::Cuda(x), Storage::Cuda(y)) => {
                Storage::Cuda(cuda::binary(op, x, &la, y, &lb)?)
            }
            (x, y) => match (x.as_cpu(), y.as_cpu()) {
                (Some(x), Some(y)) => Storage::Cpu(cpu::binary(op, x, &la, y, &lb)?),
                _ => return Err(internal(op.name())),
            },
        };
        Ok(Tensor::from_parts(storage, dims, dtype, device, origin))
    }

    pub(crate) fn cmp_impl(
        &self,
        rhs: &Tensor,
        op: CmpOp,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let (a, b, dims) = self.operands(rhs, op.name(), Some(DType::Bool), origin)?;
        let (dtype, device) = (a.dtype(), a.device());
        if cuda_via_f32(device, dtype) {
            let (x, y) = (a.to_dtype(DType::F32)?, b.to_dtype(DType::F32)?);
            return x.cmp_impl(&y, op, origin);
        }
        let la = a.layout().broadcast_as(op.name(), &dims)?;
        let lb = b.layout().broadcast_as(op.name(), &dims)?;
        let storage = match (a.storage(), b.storage()) {
            (Storage::Meta, Storage::Meta) => Storage::Meta,
            (Storage::Cuda(x), Storage::Cuda(y)) => Storage::Cuda(cuda::cmp(op, x, &la, y, &lb)?),
            (x, y) => match (x.as_cpu(), y.as_cpu()) {
                (Some(x), Some(y)) => Storage::Cpu(cpu::cmp(op, x, &la, y, &lb)?),
                _ => return Err(internal(op.name())),
            },
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            DType::Bool,
            device,
            origin,
        ))
    }

    /// Returns `self * mul + add` elementwise, as `x * mul + add` with Python scalars. The
    /// result keeps the dtype of `self`. Floats compute in f32. Integer tensors compute
    /// exactly, wrapping on overflow as PyTorch does, and take only scalars that are whole
    /// numbers in the dtype's range (`u8` also takes `-255..0`, wrapping); PyTorch would
    /// promote an integer tensor meeting a float scalar to float32, but an `f64` cannot say
    /// whether the caller meant `2` or `2.0`, so such scalars are an error instead.
    ///
    /// # Shapes
    /// - output: same as `self`, on the same device.
    ///
    /// # Errors
    /// [`Error::UnsupportedDType`] for bool; [`Error::ScalarOutOfRange`] for an integer
    /// tensor and a scalar that is NaN, infinite, fractional or out of range (e.g.
    /// `i64.add_scalar(f64::NAN)`); [`Error::OutOfMemory`] if the host allocation fails.
    #[track_caller]
    pub fn affine(&self, mul: f64, add: f64) -> Result<Tensor> {
        self.affine_impl("affine", mul, add, caller())
    }

    fn affine_impl(
        &self,
        op: &'static str,
        mul: f64,
        add: f64,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let (dtype, device) = (self.dtype(), self.device());
        if dtype == DType::Bool {
            return Err(Error::UnsupportedDType { op, dtype, device });
        }
        if !dtype.is_float() {
            check_int_scalar(op, mul, dtype)?;
            check_int_scalar(op, add, dtype)?;
        }
        if cuda_via_f32(device, dtype) {
            let out = self
                .to_dtype(DType::F32)?
                .affine_impl(op, mul, add, origin)?
                .to_dtype(dtype)?;
            return Ok(out.with_origin(origin));
        }
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(x) => Storage::Cuda(cuda::affine(x, self.layout(), mul, add)?),
            s => Storage::Cpu(cpu::affine(
                op,
                s.as_cpu().ok_or_else(|| internal(op))?,
                self.layout(),
                mul,
                add,
            )?),
        };
        Ok(Tensor::from_parts(
            storage,
            self.dims().to_vec(),
            dtype,
            device,
            origin,
        ))
    }

    /// Returns `self + value` elementwise, as `x + value` with a Python scalar.
    ///
    /// # Shapes
    /// - output: same as `self`, on the same device.
    ///
    /// # Errors
    /// As [`Tensor::affine`]: `i64.add_scalar(0.5)` is [`Error::ScalarOutOfRange`].
    #[track_caller]
    pub fn add_scalar(&self, value: f64) -> Result<Tensor> {
        self.affine_impl("add_scalar", 1.0, value, caller())
    }

    /// Returns `self * value` elementwise, as `x * value` with a Python scalar.
    ///
    /// # Shapes
    /// - output: same as `self`, on the same device.
    ///
    /// # Errors
    /// As [`Tensor::affine`].
    #[track_caller]
    pub fn mul_scalar(&self, value: f64) -> Result<Tensor> {
        self.affine_impl("mul_scalar", value, 0.0, caller())
    }
}

/// Checks that an integer tensor of `dtype` can take the scalar `value` exactly: a whole
/// number, in `i64`'s range for `I64` and in `-255..=255` for `U8` (applied modulo 256, as
/// PyTorch allows). The backends then cast it with `as`, exactly.
fn check_int_scalar(op: &'static str, value: f64, dtype: DType) -> Result<()> {
    // -2^63 and 2^63 are exact in f64; i64 covers [-2^63, 2^63).
    #[allow(clippy::cast_precision_loss)]
    let (lo, hi) = match dtype {
        DType::U8 => (-255.0, 256.0),
        _ => (i64::MIN as f64, -(i64::MIN as f64)),
    };
    if value.is_finite() && value.fract() == 0.0 && value >= lo && value < hi {
        Ok(())
    } else {
        Err(Error::ScalarOutOfRange { op, value, dtype })
    }
}
