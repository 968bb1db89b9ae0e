//! Selection and assembly: `where_`, `masked_fill`, `cat`, `index_select`, `embedding`.

use super::{common_device, internal, on_device};
use crate::error::{Error, Result};
use crate::shape::{broadcast_shape, check_dims, Dim};
use crate::storage::{cpu, cuda, Storage};
use crate::tensor::{caller, Origin, Tensor};
use crate::DType;

impl Tensor {
    /// Returns `on_true` where `self` (a bool condition) is true and `on_false` elsewhere, as
    /// `torch.where(cond, on_true, on_false)`.
    ///
    /// # Shapes
    /// - self: `[...c]` (bool), on_true: `[...a]`, on_false: `[...b]`, broadcast together
    /// - output: the broadcast shape, dtype of `on_true`, on the common device.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`]; [`Error::DTypeMismatch`] if the condition is not bool or the
    /// branches differ; [`Error::ShapeMismatch`] if the shapes don't broadcast;
    /// [`Error::ShapeOverflow`] if the broadcast shape is too large to address;
    /// [`Error::OutOfMemory`] if the host allocation fails.
    #[track_caller]
    pub fn where_(&self, on_true: &Tensor, on_false: &Tensor) -> Result<Tensor> {
        self.where_impl(on_true, on_false, "where", caller())
    }

    fn where_impl(
        &self,
        on_true: &Tensor,
        on_false: &Tensor,
        op: &'static str,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let device = common_device(op, &[self, on_true, on_false])?;
        if self.dtype() != DType::Bool {
            return Err(Error::DTypeMismatch {
                op,
                lhs: DType::Bool,
                rhs: self.dtype(),
            });
        }
        let dtype = on_true.dtype();
        if on_false.dtype() != dtype {
            return Err(Error::DTypeMismatch {
                op,
                lhs: dtype,
                rhs: on_false.dtype(),
            });
        }
        let dims = broadcast_shape(op, self.dims(), on_true.dims())?;
        let dims = broadcast_shape(op, &dims, on_false.dims())?;
        check_dims(op, &dims, dtype)?;
        let c = on_device(self, device, origin)?;
        let a = on_device(on_true, device, origin)?;
        let b = on_device(on_false, device, origin)?;
        let lc = c.layout().broadcast_as(op, &dims)?;
        let la = a.layout().broadcast_as(op, &dims)?;
        let lb = b.layout().broadcast_as(op, &dims)?;
        let storage = match (c.storage(), a.storage(), b.storage()) {
            (Storage::Meta, _, _) => Storage::Meta,
            (Storage::Cuda(c), Storage::Cuda(a), Storage::Cuda(b)) => {
                Storage::Cuda(cuda::where_(c, &lc, a, &la, b, &lb)?)
            }
            (c, a, b) => match (c.as_cpu(), a.as_cpu(), b.as_cpu()) {
                (Some(c), Some(a), Some(b)) => Storage::Cpu(cpu::where_(c, &lc, a, &la, b, &lb)?),
                _ => return Err(internal(op)),
            },
        };
        Ok(Tensor::from_parts(storage, dims, dtype, device, origin))
    }

    /// Returns `self` with `value` wherever `mask` is true, as `x.masked_fill(mask, value)`.
    ///
    /// # Shapes
    /// - self: `[...x]`, mask: `[...m]` (bool) broadcastable to `[...x]`
    /// - output: the broadcast shape, same dtype as `self`, on the common device.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] if `mask` is on another device; [`Error::DTypeMismatch`] if
    /// it is not bool; [`Error::ShapeMismatch`]; [`Error::ShapeOverflow`];
    /// [`Error::OutOfMemory`]; [`Error::ScalarOutOfRange`] for an integer tensor and a value
    /// it cannot hold (NaN, infinite, or saturated by the conversion, as in [`Tensor::full`]).
    #[track_caller]
    pub fn masked_fill(&self, mask: &Tensor, value: f64) -> Result<Tensor> {
        let origin = caller();
        // Check the devices first, so that the error names self and mask.
        common_device("masked_fill", &[self, mask])?;
        let fill = Tensor::full_impl_at(value, self.dtype(), self.device(), origin)?;
        mask.where_impl(&fill, self, "masked_fill", origin)
    }

    fn full_impl_at(
        value: f64,
        dtype: DType,
        device: crate::Device,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let opts = crate::TensorOptions::from((dtype, device));
        Ok(Tensor::full_impl("masked_fill", &().into(), value, opts)?.with_origin(origin))
    }

    /// Returns the tensors joined along `dim`, as `torch.cat(tensors, dim)`.
    ///
    /// # Shapes
    /// - tensors: `[..., d_i, ...]`, equal except at `dim`
    /// - output: `[..., sum(d_i), ...]`, on the common device.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty list; [`Error::DeviceMismatch`];
    /// [`Error::DTypeMismatch`]; [`Error::ShapeMismatch`]; [`Error::DimOutOfRange`];
    /// [`Error::ShapeOverflow`] if the joined shape is too large to address;
    /// [`Error::OutOfMemory`] if the host allocation fails.
    #[track_caller]
    pub fn cat(tensors: &[&Tensor], dim: impl Dim) -> Result<Tensor> {
        let origin = caller();
        let op = "cat";
        let Some(first) = tensors.first() else {
            return Err(Error::InvalidArgument {
                op,
                msg: "no tensors to concatenate",
            });
        };
        let device = common_device(op, tensors)?;
        let d = dim.to_index(first.rank(), op)?;
        let mut dims = first.dims().to_vec();
        dims[d] = 0;
        for t in tensors {
            if t.dtype() != first.dtype() {
                return Err(Error::DTypeMismatch {
                    op,
                    lhs: first.dtype(),
                    rhs: t.dtype(),
                });
            }
            let same = t.rank() == first.rank()
                && t.dims()
                    .iter()
                    .zip(first.dims())
                    .enumerate()
                    .all(|(i, (a, b))| i == d || a == b);
            if !same {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: first.dims().into(),
                    rhs: t.dims().into(),
                });
            }
            dims[d] = dims[d]
                .checked_add(t.dims()[d])
                .ok_or_else(|| Error::ShapeOverflow {
                    op,
                    dims: dims.clone().into(),
                    dtype: first.dtype(),
                })?;
        }
        check_dims(op, &dims, first.dtype())?;
        let moved: Vec<Tensor> = tensors
            .iter()
            .map(|t| on_device(t, device, origin))
            .collect::<Result<_>>()?;
        let storage = if device.is_meta() {
            Storage::Meta
        } else if device.is_cuda() {
            let parts: Vec<_> = moved
                .iter()
                .map(|t| match t.storage() {
                    Storage::Cuda(c) => Ok((c, t.layout())),
                    _ => Err(internal(op)),
                })
                .collect::<Result<_>>()?;
            Storage::Cuda(cuda::cat(&parts, d)?)
        } else {
            let parts: Vec<_> = moved
                .iter()
                .map(|t| {
                    t.storage()
                        .as_cpu()
                        .map(|c| (c, t.layout()))
                        .ok_or_else(|| internal(op))
                })
                .collect::<Result<_>>()?;
            Storage::Cpu(cpu::cat(&parts, d)?)
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            first.dtype(),
            device,
            origin,
        ))
    }

    /// Returns the slices of `self` at `indices` along `dim`, as
    /// `torch.index_select(x, dim, indices)`.
    ///
    /// # Shapes
    /// - self: `[..., d, ...]`, indices: `[k]` (i64, values in `0..d`)
    /// - output: `[..., k, ...]`, on the common device.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] if `indices` is on another device; [`Error::DTypeMismatch`] if
    /// it is not i64; [`Error::RankMismatch`] if it is not 1-D; [`Error::IndexOutOfRange`]
    /// (checked on the host: on CUDA this reads the indices back, a synchronising copy);
    /// [`Error::ShapeOverflow`] if the output shape is too large to address;
    /// [`Error::OutOfMemory`] if the host allocation fails.
    #[track_caller]
    pub fn index_select(&self, dim: impl Dim, indices: &Tensor) -> Result<Tensor> {
        self.index_select_impl(dim, indices, "index_select", caller())
    }

    fn index_select_impl(
        &self,
        dim: impl Dim,
        indices: &Tensor,
        op: &'static str,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        let device = common_device(op, &[self, indices])?;
        let d = dim.to_index(self.rank(), op)?;
        if indices.dtype() != DType::I64 {
            return Err(Error::DTypeMismatch {
                op,
                lhs: DType::I64,
                rhs: indices.dtype(),
            });
        }
        if indices.rank() != 1 {
            return Err(Error::RankMismatch {
                op,
                expected: 1,
                got: indices.rank(),
            });
        }
        let idx = on_device(indices, device, origin)?;
        let mut dims = self.dims().to_vec();
        dims[d] = idx.elem_count();
        check_dims(op, &dims, self.dtype())?;
        let storage = match (self.storage(), idx.storage()) {
            (Storage::Meta, _) => Storage::Meta,
            (Storage::Cuda(x), Storage::Cuda(i)) => Storage::Cuda(cuda::index_select(
                x,
                self.layout(),
                i,
                idx.layout(),
                d,
                op,
            )?),
            (x, i) => match (x.as_cpu(), i.as_cpu()) {
                (Some(x), Some(i)) => {
                    Storage::Cpu(cpu::index_select(x, self.layout(), i, idx.layout(), d, op)?)
                }
                _ => return Err(internal(op)),
            },
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            self.dtype(),
            device,
            origin,
        ))
    }

    /// Returns the rows of `weight` (`self`) at `ids`, as
    /// `torch.nn.functional.embedding(ids, weight)`.
    ///
    /// # Shapes
    /// - self (weight): `[vocab, d_model]`, ids: `[...]` (i64, values in `0..vocab`)
    /// - output: `[..., d_model]`, on the common device.
    ///
    /// # Errors
    /// As [`Tensor::index_select`]; [`Error::RankMismatch`] if `self` is not 2-D.
    #[track_caller]
    pub fn embedding(&self, ids: &Tensor) -> Result<Tensor> {
        let origin = caller();
        let op = "embedding";
        common_device(op, &[self, ids])?;
        if self.rank() != 2 {
            return Err(Error::RankMismatch {
                op,
                expected: 2,
                got: self.rank(),
            });
        }
        let flat = ids.reshape(ids.elem_count())?;
        let rows = self.index_select_impl(0usize, &flat, op, origin)?;
        let mut dims = ids.dims().to_vec();
        dims.push(self.dims()[1]);
        Ok(rows.reshape(dims)?.with_origin(origin))
    }
}
