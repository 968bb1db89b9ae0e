//! Views: new shapes and strides over the same storage, no data copied (except `reshape` of
//! non-contiguous data, as in PyTorch).

use crate::error::{Error, Result};
use crate::shape::{check_dims, Dim, Layout, Shape};
use crate::tensor::{caller, Tensor};

impl Tensor {
    /// Returns the elements in a new shape, as `x.reshape(shape)`: a view sharing storage when
    /// `self` is contiguous, a copy otherwise.
    ///
    /// # Shapes
    /// - output: `shape` (same element count), on the same device.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] if `shape` is too large to address;
    /// [`Error::ElementCountMismatch`] if the element counts differ.
    #[track_caller]
    pub fn reshape(&self, shape: impl Into<Shape>) -> Result<Tensor> {
        let origin = caller();
        let shape = shape.into();
        let expected = check_dims("reshape", shape.dims(), self.dtype())?;
        if expected != self.elem_count() {
            return Err(Error::ElementCountMismatch {
                op: "reshape",
                expected,
                got: self.elem_count(),
            });
        }
        let src = if self.is_contiguous() {
            self.clone()
        } else {
            self.contiguous()?
        };
        let mut layout = Layout::contiguous(shape.dims().to_vec());
        layout.offset = src.layout().offset;
        Ok(src.view(layout, origin))
    }

    /// Returns a view with dims `d0` and `d1` swapped, as `x.transpose(d0, d1)`.
    ///
    /// # Shapes
    /// - output: `self`'s shape with `d0` and `d1` swapped, on the same device.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    #[track_caller]
    pub fn transpose(&self, d0: impl Dim, d1: impl Dim) -> Result<Tensor> {
        let origin = caller();
        let (a, b) = (
            d0.to_index(self.rank(), "transpose")?,
            d1.to_index(self.rank(), "transpose")?,
        );
        let mut l = self.layout().clone();
        l.dims.swap(a, b);
        l.strides.swap(a, b);
        Ok(self.view(l, origin))
    }

    /// Returns a view with the last two dims swapped (the matrix transpose), as `x.mT`.
    ///
    /// # Shapes
    /// - self: `[..., m, n]`; output: `[..., n, m]`, on the same device.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if `self` has rank < 2.
    #[track_caller]
    pub fn t(&self) -> Result<Tensor> {
        if self.rank() < 2 {
            return Err(Error::RankMismatch {
                op: "t",
                expected: 2,
                got: self.rank(),
            });
        }
        self.transpose(-2, -1)
    }

    /// Returns a view with the dims reordered, as `x.permute(dims)`.
    ///
    /// # Shapes
    /// - output: dim `i` is `self`'s dim `dims[i]`, on the same device.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `dims` is not a permutation of `0..rank`.
    #[track_caller]
    pub fn permute(&self, dims: &[usize]) -> Result<Tensor> {
        let origin = caller();
        let mut seen = vec![false; self.rank()];
        if dims.len() != self.rank() {
            return Err(Error::RankMismatch {
                op: "permute",
                expected: self.rank(),
                got: dims.len(),
            });
        }
        for &d in dims {
            if d >= self.rank() || std::mem::replace(&mut seen[d], true) {
                return Err(Error::InvalidArgument {
                    op: "permute",
                    msg: "dims must be a permutation of 0..rank",
                });
            }
        }
        let l = self.layout();
        let layout = Layout {
            dims: dims.iter().map(|&d| l.dims[d]).collect(),
            strides: dims.iter().map(|&d| l.strides[d]).collect(),
            offset: l.offset,
        };
        Ok(self.view(layout, origin))
    }

    /// Returns the view of `len` elements of dim `dim` starting at `start`, as
    /// `x.narrow(dim, start, len)`.
    ///
    /// # Shapes
    /// - output: `self`'s shape with `len` at `dim`, on the same device.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::IndexOutOfRange`] if `start + len` exceeds the dim.
    #[track_caller]
    pub fn narrow(&self, dim: impl Dim, start: usize, len: usize) -> Result<Tensor> {
        let origin = caller();
        let d = dim.to_index(self.rank(), "narrow")?;
        let size = self.dims()[d];
        if start.checked_add(len).is_none_or(|end| end > size) {
            return Err(Error::IndexOutOfRange {
                op: "narrow",
                index: i64::try_from(start.saturating_add(len)).unwrap_or(i64::MAX),
                size,
            });
        }
        let mut l = self.layout().clone();
        if len > 0 {
            l.offset = start
                .checked_mul(l.strides[d])
                .and_then(|o| o.checked_add(l.offset))
                .ok_or_else(|| Error::ShapeOverflow {
                    op: "narrow",
                    dims: self.dims().into(),
                    dtype: self.dtype(),
                })?;
        }
        l.dims[d] = len;
        Ok(self.view(l, origin))
    }

    /// Returns a view broadcast to `shape` (size-1 dims repeated with stride 0, leading dims
    /// added), as `x.expand(shape)`.
    ///
    /// # Shapes
    /// - output: `shape`, on the same device.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if `self` does not broadcast to `shape`;
    /// [`Error::ShapeOverflow`] if `shape` is too large to address (a view allocates nothing,
    /// but ops on it would).
    #[track_caller]
    pub fn broadcast_as(&self, shape: impl Into<Shape>) -> Result<Tensor> {
        let origin = caller();
        let shape = shape.into();
        check_dims("broadcast_as", shape.dims(), self.dtype())?;
        let l = self.layout().broadcast_as("broadcast_as", shape.dims())?;
        Ok(self.view(l, origin))
    }

    /// Returns a view with a size-1 dim inserted at `dim`, as `x.unsqueeze(dim)`.
    ///
    /// # Shapes
    /// - output: rank + 1, on the same device.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] unless `dim` is in `-(rank+1)..=rank`;
    /// [`Error::ShapeOverflow`] if the new dim's stride overflows (no checked tensor has such
    /// strides).
    #[track_caller]
    pub fn unsqueeze(&self, dim: impl Dim) -> Result<Tensor> {
        let origin = caller();
        let d = dim.to_index_plus_one(self.rank(), "unsqueeze")?;
        let mut l = self.layout().clone();
        let stride = match l.strides.get(d) {
            Some(&s) => s
                .checked_mul(l.dims[d])
                .ok_or_else(|| Error::ShapeOverflow {
                    op: "unsqueeze",
                    dims: self.dims().into(),
                    dtype: self.dtype(),
                })?,
            None => 1,
        };
        l.dims.insert(d, 1);
        l.strides.insert(d, stride);
        Ok(self.view(l, origin))
    }

    /// Returns a view without dim `dim` if it has size 1 (`self` otherwise), as
    /// `x.squeeze(dim)`.
    ///
    /// # Shapes
    /// - output: rank - 1 when the dim has size 1, on the same device.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    #[track_caller]
    pub fn squeeze(&self, dim: impl Dim) -> Result<Tensor> {
        let origin = caller();
        let d = dim.to_index(self.rank(), "squeeze")?;
        if self.dims()[d] != 1 {
            return Ok(self.clone());
        }
        let mut l = self.layout().clone();
        l.dims.remove(d);
        l.strides.remove(d);
        Ok(self.view(l, origin))
    }

    /// Returns all elements as a 1-D tensor, as `x.flatten()` (a view when contiguous).
    ///
    /// # Shapes
    /// - output: `[elem_count]`, on the same device.
    ///
    /// # Errors
    /// [`Error::Cuda`] if a copy on CUDA fails.
    #[track_caller]
    pub fn flatten_all(&self) -> Result<Tensor> {
        self.reshape(self.elem_count())
    }
}
