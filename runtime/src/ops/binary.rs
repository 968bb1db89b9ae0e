//! Elementwise binary ops with broadcasting, comparisons and scalar arithmetic.

use super::{check_same_dtype, common_device, cuda_via_f32, internal, on_device, BinaryOp, CmpOp};
use crate::error::{Error, Result};
use crate::shape::broadcast_shape;
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
        /// [`Error::ShapeMismatch`] if the shapes don't broadcast; [`Error::UnsupportedDType`]
        /// for arithmetic on bool or division of integers.
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
        /// As [`Tensor::add`] (comparisons work for every dtype).
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

    fn operands(
        &self,
        rhs: &Tensor,
        op: &'static str,
        origin: Option<Origin>,
    ) -> Result<(Tensor, Tensor, Vec<usize>)> {
        let device = common_device(op, &[self, rhs])?;
        check_same_dtype(op, self, rhs)?;
        let dims = broadcast_shape(op, self.dims(), rhs.dims())?;
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
        let (a, b, dims) = self.operands(rhs, op.name(), origin)?;
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
        let (a, b, dims) = self.operands(rhs, op.name(), origin)?;
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
    /// result keeps the dtype of `self` (integers compute in f64 and truncate).
    ///
    /// # Shapes
    /// - output: same as `self`, on the same device.
    ///
    /// # Errors
    /// [`Error::UnsupportedDType`] for bool.
    #[track_caller]
    pub fn affine(&self, mul: f64, add: f64) -> Result<Tensor> {
        let origin = caller();
        let (dtype, device) = (self.dtype(), self.device());
        if dtype == DType::Bool {
            return Err(Error::UnsupportedDType {
                op: "affine",
                dtype,
                device,
            });
        }
        if cuda_via_f32(device, dtype) {
            let out = self
                .to_dtype(DType::F32)?
                .affine(mul, add)?
                .to_dtype(dtype)?;
            return Ok(out.with_origin(origin));
        }
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(x) => Storage::Cuda(cuda::affine(x, self.layout(), mul, add)?),
            s => Storage::Cpu(cpu::affine(
                s.as_cpu().ok_or_else(|| internal("affine"))?,
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
    /// As [`Tensor::affine`].
    #[track_caller]
    pub fn add_scalar(&self, value: f64) -> Result<Tensor> {
        self.affine(1.0, value)
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
        self.affine(value, 0.0)
    }
}
