//! Batched matrix multiplication.

use super::{check_same_dtype, common_device, internal};
use crate::error::{Error, Result};
use crate::shape::{broadcast_shape, check_dims};
use crate::storage::{cpu_matmul, cuda, Storage};
use crate::tensor::{caller, Tensor};

impl Tensor {
    /// Returns the matrix product, batched over leading dims that broadcast, as
    /// `torch.matmul` for operands of rank 2 or more. CPU: `gemm` (f16 natively, bf16 through
    /// f32), which reads transposed and broadcast views in place, without copies. CUDA: cuBLAS
    /// (f32, f16 and bf16 with f32 accumulation) on contiguous `[batch, m, k]` and
    /// `[batch, k, n]` buffers: both operands are copied into such buffers first (broadcast
    /// batch dims materialised), so a transposed or broadcast operand costs a copy.
    ///
    /// # Shapes
    /// - self: `[...a, m, k]`, rhs: `[...b, k, n]`
    /// - output: `[...broadcast(a, b), m, n]`, on the common device.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`]; [`Error::DTypeMismatch`]; [`Error::RankMismatch`] if either
    /// operand has rank < 2; [`Error::ShapeMismatch`] if the inner dims differ or the batch dims
    /// don't broadcast; [`Error::ShapeOverflow`] if an operand broadcast to the batch dims, or
    /// the output, is too large to address; [`Error::OutOfMemory`] if the host allocation
    /// fails; [`Error::UnsupportedDType`] for integer and bool tensors.
    ///
    /// # Examples
    /// ```
    /// use placer_runtime::{Device, Tensor};
    /// let a = Tensor::ones([2, 3], Device::Cpu)?;
    /// let b = Tensor::ones([3, 4], Device::Cpu)?;
    /// assert_eq!(a.matmul(&b)?.to_vec::<f32>()?, vec![3.0; 8]);
    /// # Ok::<(), placer_runtime::Error>(())
    /// ```
    #[track_caller]
    pub fn matmul(&self, rhs: &Tensor) -> Result<Tensor> {
        let origin = caller();
        let op = "matmul";
        let device = common_device(op, &[self, rhs])?;
        let dtype = check_same_dtype(op, self, rhs)?;
        for t in [self, rhs] {
            if t.rank() < 2 {
                return Err(Error::RankMismatch {
                    op,
                    expected: 2,
                    got: t.rank(),
                });
            }
        }
        if !dtype.is_float() {
            return Err(Error::UnsupportedDType { op, dtype, device });
        }
        let (ra, rb) = (self.rank(), rhs.rank());
        let (m, k) = (self.dims()[ra - 2], self.dims()[ra - 1]);
        let (k2, n) = (rhs.dims()[rb - 2], rhs.dims()[rb - 1]);
        if k != k2 {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.dims().into(),
                rhs: rhs.dims().into(),
            });
        }
        let batch = broadcast_shape(op, &self.dims()[..ra - 2], &rhs.dims()[..rb - 2])?;
        let mut da = batch.clone();
        da.extend([m, k]);
        let mut db = batch.clone();
        db.extend([k, n]);
        let mut dims = batch;
        dims.extend([m, n]);
        for d in [&da, &db, &dims] {
            check_dims(op, d, dtype)?;
        }
        let la = self.layout().broadcast_as(op, &da)?;
        let lb = rhs.layout().broadcast_as(op, &db)?;
        let storage = match (self.storage(), rhs.storage()) {
            (Storage::Meta, Storage::Meta) => Storage::Meta,
            (Storage::Cuda(x), Storage::Cuda(y)) => Storage::Cuda(cuda::matmul(x, &la, y, &lb)?),
            (x, y) => match (x.as_cpu(), y.as_cpu()) {
                (Some(x), Some(y)) => Storage::Cpu(cpu_matmul(x, &la, y, &lb)?),
                _ => return Err(internal(op)),
            },
        };
        Ok(Tensor::from_parts(storage, dims, dtype, device, origin))
    }
}
