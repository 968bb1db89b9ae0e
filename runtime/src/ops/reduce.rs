//! Reductions over one dim, softmax and layer norm.

use super::{common_device, cuda_via_f32, internal, ReduceOp};
use crate::error::{Error, Result};
use crate::shape::{check_dims, Dim, Layout};
use crate::storage::{cpu, cuda, Storage};
use crate::tensor::{caller, Origin, Tensor};
use crate::DType;

impl Tensor {
    /// Returns the sum over `dim`, as `torch.sum(x, dim, keepdim)`. Floats accumulate in f32;
    /// i64, u8 and bool sum to i64 (as PyTorch).
    ///
    /// # Shapes
    /// - self: `[..., d, ...]` with `d` at `dim` (negative counts from the end)
    /// - output: `[..., 1, ...]` with `keepdim`, `[..., ...]` without; on the same device.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::ShapeOverflow`] if the i64 output of a u8/bool sum
    /// is too large to address; [`Error::OutOfMemory`] if the host allocation fails.
    #[track_caller]
    pub fn sum(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor> {
        self.reduce_impl(ReduceOp::Sum, dim, keepdim, caller())
    }

    /// Returns the mean over `dim`, as `torch.mean(x, dim, keepdim)` (floats only).
    ///
    /// # Shapes
    /// As [`Tensor::sum`].
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::UnsupportedDType`] for non-float tensors.
    #[track_caller]
    pub fn mean(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor> {
        self.reduce_impl(ReduceOp::Mean, dim, keepdim, caller())
    }

    /// Returns the maximum over `dim` (NaN if any element is NaN), as
    /// `torch.amax(x, dim, keepdim)` (the values of `torch.max(x, dim)`).
    ///
    /// # Shapes
    /// As [`Tensor::sum`].
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::InvalidArgument`] if `dim` has size 0.
    #[track_caller]
    pub fn max(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor> {
        self.reduce_impl(ReduceOp::Max, dim, keepdim, caller())
    }

    /// Returns the index (i64) of the first maximum over `dim`, as `torch.argmax(x, dim,
    /// keepdim)`.
    ///
    /// # Shapes
    /// As [`Tensor::sum`]; dtype `I64`.
    ///
    /// # Errors
    /// As [`Tensor::max`].
    #[track_caller]
    pub fn argmax(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor> {
        self.reduce_impl(ReduceOp::Argmax, dim, keepdim, caller())
    }

    fn reduce_impl(
        &self,
        op: ReduceOp,
        dim: impl Dim,
        keepdim: bool,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let (dtype, device) = (self.dtype(), self.device());
        let d = dim.to_index(self.rank(), op.name())?;
        let out_dtype = match (op, dtype) {
            (ReduceOp::Argmax, _) | (ReduceOp::Sum, DType::I64 | DType::U8 | DType::Bool) => {
                DType::I64
            }
            (ReduceOp::Mean, t) if !t.is_float() => {
                return Err(Error::UnsupportedDType {
                    op: op.name(),
                    dtype,
                    device,
                })
            }
            (_, t) => t,
        };
        if self.dims()[d] == 0 && matches!(op, ReduceOp::Max | ReduceOp::Argmax) {
            return Err(Error::InvalidArgument {
                op: op.name(),
                msg: "cannot reduce an empty dim",
            });
        }
        if cuda_via_f32(device, dtype) {
            let out = self
                .to_dtype(DType::F32)?
                .reduce_impl(op, d, keepdim, origin)?
                .to_dtype(out_dtype)?;
            return Ok(out.with_origin(origin));
        }
        let mut dims = self.dims().to_vec();
        if keepdim {
            dims[d] = 1;
        } else {
            dims.remove(d);
        }
        // i64 sums and indices are wider than u8/bool inputs.
        check_dims(op.name(), &dims, out_dtype)?;
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(x) => Storage::Cuda(cuda::reduce(op, x, self.layout(), d)?),
            s => Storage::Cpu(cpu::reduce(
                op,
                s.as_cpu().ok_or_else(|| internal(op.name()))?,
                self.layout(),
                d,
            )?),
        };
        Ok(Tensor::from_parts(storage, dims, out_dtype, device, origin))
    }

    /// Returns the softmax over `dim`, as `torch.softmax(x, dim)` (floats only; f16/bf16
    /// compute in f32).
    ///
    /// # Shapes
    /// - output: same as `self`, on the same device.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::UnsupportedDType`] for non-float tensors.
    #[track_caller]
    pub fn softmax(&self, dim: impl Dim) -> Result<Tensor> {
        let origin = caller();
        let (dtype, device) = (self.dtype(), self.device());
        let d = dim.to_index(self.rank(), "softmax")?;
        if !dtype.is_float() {
            return Err(Error::UnsupportedDType {
                op: "softmax",
                dtype,
                device,
            });
        }
        if cuda_via_f32(device, dtype) {
            let out = self.to_dtype(DType::F32)?.softmax(d)?.to_dtype(dtype)?;
            return Ok(out.with_origin(origin));
        }
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(x) => Storage::Cuda(cuda::softmax(x, self.layout(), d)?),
            s => Storage::Cpu(cpu::softmax(
                s.as_cpu().ok_or_else(|| internal("softmax"))?,
                self.layout(),
                d,
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

    /// Returns layer normalisation over the last dim, as
    /// `torch.nn.functional.layer_norm(x, [d], weight, bias, eps)`:
    /// `(x - mean) / sqrt(var + eps) * weight + bias`, with the biased variance. On CUDA the
    /// input, the weight and the bias are each copied into a contiguous buffer first.
    ///
    /// # Shapes
    /// - self: `[..., d]`; weight, bias: `[d]`
    /// - output: `[..., d]`, on the same device.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] if weight or bias is on another device;
    /// [`Error::DTypeMismatch`]; [`Error::ShapeMismatch`] if weight or bias is not `[d]`;
    /// [`Error::RankMismatch`] for a 0-dim `self`; [`Error::UnsupportedDType`] for non-floats.
    #[track_caller]
    pub fn layer_norm(
        &self,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let origin = caller();
        let op = "layer_norm";
        let mut operands = vec![self];
        operands.extend(weight);
        operands.extend(bias);
        let device = common_device(op, &operands)?;
        let dtype = self.dtype();
        if self.rank() == 0 {
            return Err(Error::RankMismatch {
                op,
                expected: 1,
                got: 0,
            });
        }
        let d = self.dims()[self.rank() - 1];
        for p in operands.iter().skip(1) {
            if p.dtype() != dtype {
                return Err(Error::DTypeMismatch {
                    op,
                    lhs: dtype,
                    rhs: p.dtype(),
                });
            }
            if p.dims() != [d] {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: vec![d].into(),
                    rhs: p.dims().into(),
                });
            }
        }
        if !dtype.is_float() {
            return Err(Error::UnsupportedDType { op, dtype, device });
        }
        if cuda_via_f32(device, dtype) {
            let f = |t: Option<&Tensor>| t.map(|t| t.to_dtype(DType::F32)).transpose();
            let (w, b) = (f(weight)?, f(bias)?);
            let out = self
                .to_dtype(DType::F32)?
                .layer_norm(w.as_ref(), b.as_ref(), eps)?
                .to_dtype(dtype)?;
            return Ok(out.with_origin(origin));
        }
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(x) => {
                let (w, b) = (cuda_part(weight, op)?, cuda_part(bias, op)?);
                Storage::Cuda(cuda::layer_norm(x, self.layout(), w, b, eps)?)
            }
            s => {
                let (w, b) = (cpu_part(weight, op)?, cpu_part(bias, op)?);
                let x = s.as_cpu().ok_or_else(|| internal(op))?;
                Storage::Cpu(cpu::layer_norm(x, self.layout(), w, b, eps)?)
            }
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

fn cuda_part<'a>(
    t: Option<&'a Tensor>,
    op: &'static str,
) -> Result<Option<(&'a cuda::CudaStorage, &'a Layout)>> {
    t.map(|t| match t.storage() {
        Storage::Cuda(c) => Ok((c, t.layout())),
        _ => Err(internal(op)),
    })
    .transpose()
}

fn cpu_part<'a>(
    t: Option<&'a Tensor>,
    op: &'static str,
) -> Result<Option<(&'a cpu::CpuStorage, &'a Layout)>> {
    t.map(|t| {
        t.storage()
            .as_cpu()
            .map(|c| (c, t.layout()))
            .ok_or_else(|| internal(op))
    })
    .transpose()
}
