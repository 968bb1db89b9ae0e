//! Elementwise functions of one tensor.

use super::{cuda_via_f32, internal, UnaryOp};
use crate::error::{Error, Result};
use crate::storage::{cpu, cuda, Storage};
use crate::tensor::{caller, Origin, Tensor};
use crate::DType;

macro_rules! unary_fns {
    ($($name:ident, $op:ident, $what:literal, $torch:literal;)*) => {$(
        #[doc = concat!("Returns ", $what, " elementwise, as `", $torch, "`.")]
        ///
        /// # Shapes
        /// - output: same as `self`, same dtype, on the same device.
        ///
        /// # Errors
        /// [`Error::UnsupportedDType`] for integer and bool tensors (except `neg`, `abs` and
        /// `relu` of i64).
        #[track_caller]
        pub fn $name(&self) -> Result<Tensor> {
            self.unary_impl(UnaryOp::$op, caller())
        }
    )*};
}

impl Tensor {
    unary_fns! {
        neg, Neg, "`-x`", "torch.neg";
        exp, Exp, "`e^x`", "torch.exp";
        log, Log, "the natural logarithm", "torch.log";
        sqrt, Sqrt, "the square root", "torch.sqrt";
        tanh, Tanh, "the hyperbolic tangent", "torch.tanh";
        gelu, Gelu, "`x * Φ(x)` (the exact, erf-based GELU)", "torch.nn.functional.gelu";
        relu, Relu, "`max(x, 0)`", "torch.relu";
        silu, Silu, "`x * sigmoid(x)`", "torch.nn.functional.silu";
        abs, Abs, "`|x|`", "torch.abs";
    }

    pub(crate) fn unary_impl(&self, op: UnaryOp, origin: Option<Origin>) -> Result<Tensor> {
        let (dtype, device) = (self.dtype(), self.device());
        let int_ok =
            dtype == DType::I64 && matches!(op, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu);
        if !dtype.is_float() && !int_ok {
            return Err(Error::UnsupportedDType {
                op: op.name(),
                dtype,
                device,
            });
        }
        if cuda_via_f32(device, dtype) {
            let out = self
                .to_dtype(DType::F32)?
                .unary_impl(op, origin)?
                .to_dtype(dtype)?;
            return Ok(out.with_origin(origin));
        }
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(x) => Storage::Cuda(cuda::unary(op, x, self.layout())?),
            s => Storage::Cpu(cpu::unary(
                op,
                s.as_cpu().ok_or_else(|| internal(op.name()))?,
                self.layout(),
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
}
