//! Shapes, dimension indices and strided layouts.

use crate::error::{Error, Result};
use crate::DType;

/// The shape of a tensor: the size of each dimension, outermost first (row-major).
///
/// Built from `[usize; N]`, `&[usize]`, `Vec<usize>`, a single `usize` (1-D) or `()` (0-dim).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape(Vec<usize>);

impl Shape {
    /// Returns the sizes of the dimensions.
    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    /// Returns the number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// Returns the number of elements (1 for a 0-dim shape, 0 when any dim is 0), saturating
    /// at `usize::MAX` when the product overflows (see [`Shape::checked_elem_count`]).
    pub fn elem_count(&self) -> usize {
        self.checked_elem_count().unwrap_or(usize::MAX)
    }

    /// Returns the number of elements, or `None` when the product of the dims overflows
    /// `usize` (0 when any dim is 0).
    pub fn checked_elem_count(&self) -> Option<usize> {
        if self.0.contains(&0) {
            return Some(0);
        }
        nonzero_product(&self.0)
    }

    /// Returns the row-major (C-contiguous) strides in elements, saturating at `usize::MAX`
    /// for a shape whose element count overflows (no tensor has such a shape).
    pub fn contiguous_strides(&self) -> Vec<usize> {
        contiguous_strides(&self.0)
    }
}

/// The product of the non-zero dims, or `None` on overflow.
fn nonzero_product(dims: &[usize]) -> Option<usize> {
    dims.iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Checks that a tensor of `dtype` may have the shape `dims` and returns its element count.
///
/// The rule, enforced for every tensor the runtime builds (factories, views and op outputs):
/// the product of the non-zero dims, times the element size, is at most `isize::MAX` bytes.
/// Then every element count, stride, offset and byte size computed from these dims (of this
/// tensor, of any view of it, and of any dtype as wide as `dtype`) fits in `usize` and in a
/// Rust allocation, so the kernels can use plain arithmetic.
///
/// # Errors
/// [`Error::ShapeOverflow`] otherwise.
pub(crate) fn check_dims(op: &'static str, dims: &[usize], dtype: DType) -> Result<usize> {
    let limit = usize::try_from(isize::MAX).unwrap_or(usize::MAX);
    let bytes = nonzero_product(dims).and_then(|n| n.checked_mul(dtype.size_in_bytes()));
    match bytes {
        Some(b) if b <= limit => {
            // The element count: the non-zero product, unless a dim is 0.
            Ok(if dims.contains(&0) {
                0
            } else {
                b / dtype.size_in_bytes()
            })
        }
        _ => Err(Error::ShapeOverflow {
            op,
            dims: dims.into(),
            dtype,
        }),
    }
}

/// Row-major strides; saturating, so that no caller can make it overflow (the runtime only
/// calls it on dims that passed [`check_dims`], where nothing saturates).
pub(crate) fn contiguous_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; dims.len()];
    let mut acc: usize = 1;
    for (s, d) in strides.iter_mut().zip(dims).rev() {
        *s = acc;
        acc = acc.saturating_mul(*d);
    }
    strides
}

impl From<Vec<usize>> for Shape {
    fn from(v: Vec<usize>) -> Self {
        Shape(v)
    }
}
impl From<&[usize]> for Shape {
    fn from(v: &[usize]) -> Self {
        Shape(v.to_vec())
    }
}
impl From<&Vec<usize>> for Shape {
    fn from(v: &Vec<usize>) -> Self {
        Shape(v.clone())
    }
}
impl<const N: usize> From<[usize; N]> for Shape {
    fn from(v: [usize; N]) -> Self {
        Shape(v.to_vec())
    }
}
impl<const N: usize> From<&[usize; N]> for Shape {
    fn from(v: &[usize; N]) -> Self {
        Shape(v.to_vec())
    }
}
impl From<usize> for Shape {
    fn from(v: usize) -> Self {
        Shape(vec![v])
    }
}
impl From<()> for Shape {
    fn from((): ()) -> Self {
        Shape(Vec::new())
    }
}
impl From<&Shape> for Shape {
    fn from(s: &Shape) -> Self {
        s.clone()
    }
}

/// A dimension index: a `usize`, or a negative `i32`/`isize`/`i64` counted from the end as in
/// PyTorch (`-1` is the last dim).
pub trait Dim: Copy {
    /// Resolves the index for a tensor of rank `rank`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] when the index is outside `-rank..rank`.
    fn to_index(self, rank: usize, op: &'static str) -> Result<usize>;
    /// Resolves the index for inserting a new dim (`unsqueeze`): range `-(rank+1)..=rank`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] when the index is out of range.
    fn to_index_plus_one(self, rank: usize, op: &'static str) -> Result<usize>;
}

fn resolve(dim: i64, rank: usize, op: &'static str) -> Result<usize> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let d = if dim < 0 { dim + r } else { dim };
    if (0..r).contains(&d) {
        Ok(usize::try_from(d).unwrap_or(0))
    } else {
        Err(Error::DimOutOfRange { op, dim, rank })
    }
}

macro_rules! dim_int {
    ($($t:ty),*) => {$(
        impl Dim for $t {
            #[allow(clippy::cast_possible_wrap, clippy::cast_lossless)]
            fn to_index(self, rank: usize, op: &'static str) -> Result<usize> {
                resolve(self as i64, rank, op)
            }
            #[allow(clippy::cast_possible_wrap, clippy::cast_lossless)]
            fn to_index_plus_one(self, rank: usize, op: &'static str) -> Result<usize> {
                resolve(self as i64, rank + 1, op)
            }
        }
    )*};
}
dim_int!(usize, i32, isize, i64);

/// Returns the shape both operands broadcast to, following NumPy/PyTorch rules.
pub(crate) fn broadcast_shape(
    op: &'static str,
    lhs: &[usize],
    rhs: &[usize],
) -> Result<Vec<usize>> {
    let rank = lhs.len().max(rhs.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let l = if i + lhs.len() >= rank {
            lhs[i + lhs.len() - rank]
        } else {
            1
        };
        let r = if i + rhs.len() >= rank {
            rhs[i + rhs.len() - rank]
        } else {
            1
        };
        out[i] = if l == r || r == 1 {
            l
        } else if l == 1 {
            r
        } else {
            return Err(Error::ShapeMismatch {
                op,
                lhs: lhs.into(),
                rhs: rhs.into(),
            });
        };
    }
    Ok(out)
}

/// How a tensor's elements sit in its storage: shape, strides in elements, and start offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) dims: Vec<usize>,
    pub(crate) strides: Vec<usize>,
    pub(crate) offset: usize,
}

impl Layout {
    pub(crate) fn contiguous(dims: Vec<usize>) -> Layout {
        let strides = contiguous_strides(&dims);
        Layout {
            dims,
            strides,
            offset: 0,
        }
    }

    /// The element count. Layouts of tensors passed [`check_dims`], so the product cannot
    /// overflow; it saturates rather than wraps all the same.
    pub(crate) fn elem_count(&self) -> usize {
        if self.dims.contains(&0) {
            return 0;
        }
        nonzero_product(&self.dims).unwrap_or(usize::MAX)
    }

    /// True when the elements are in row-major order with no gaps (size-1 dims may have any
    /// stride).
    pub(crate) fn is_contiguous(&self) -> bool {
        let mut acc: usize = 1;
        for (&d, &s) in self.dims.iter().zip(&self.strides).rev() {
            if d != 1 && s != acc {
                return false;
            }
            acc = acc.saturating_mul(d);
        }
        true
    }

    /// The storage range when contiguous.
    pub(crate) fn contiguous_range(&self) -> Option<std::ops::Range<usize>> {
        self.is_contiguous()
            .then(|| self.offset..self.offset + self.elem_count())
    }

    /// Returns this layout viewed with `dims` (broadcast: size-1 or missing leading dims get
    /// stride 0).
    pub(crate) fn broadcast_as(&self, op: &'static str, dims: &[usize]) -> Result<Layout> {
        let err = || Error::ShapeMismatch {
            op,
            lhs: self.dims.clone().into(),
            rhs: dims.into(),
        };
        if dims.len() < self.dims.len() {
            return Err(err());
        }
        let extra = dims.len() - self.dims.len();
        let mut strides = vec![0; dims.len()];
        for i in 0..dims.len() {
            if i < extra {
                continue;
            }
            let (d, s) = (self.dims[i - extra], self.strides[i - extra]);
            if d == dims[i] {
                strides[i] = s;
            } else if d == 1 {
                strides[i] = 0;
            } else {
                return Err(err());
            }
        }
        Ok(Layout {
            dims: dims.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// Storage offsets of every element in row-major order.
    pub(crate) fn offsets(&self) -> StridedIndex<'_> {
        StridedIndex::new(self)
    }
}

/// Iterator over the storage offsets of a strided layout, in row-major element order.
pub(crate) struct StridedIndex<'a> {
    next: Option<usize>,
    index: Vec<usize>,
    layout: &'a Layout,
}

impl<'a> StridedIndex<'a> {
    fn new(layout: &'a Layout) -> Self {
        let next = (layout.elem_count() > 0).then_some(layout.offset);
        StridedIndex {
            next,
            index: vec![0; layout.dims.len()],
            layout,
        }
    }
}

impl Iterator for StridedIndex<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let current = self.next?;
        let mut next = current;
        let mut done = true;
        for ((i, &d), &s) in self
            .index
            .iter_mut()
            .zip(&self.layout.dims)
            .zip(&self.layout.strides)
            .rev()
        {
            if *i + 1 < d {
                *i += 1;
                next += s;
                done = false;
                break;
            }
            next -= *i * s;
            *i = 0;
        }
        self.next = if done { None } else { Some(next) };
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_broadcast_trailing_dims() {
        assert_eq!(
            broadcast_shape("t", &[2, 1, 3], &[4, 1]).unwrap(),
            vec![2, 4, 3]
        );
        assert!(broadcast_shape("t", &[2, 3], &[3, 2]).is_err());
    }

    #[test]
    fn should_visit_transposed_offsets_in_row_major_order() {
        let l = Layout {
            dims: vec![3, 2],
            strides: vec![1, 3],
            offset: 1,
        };
        let offs: Vec<_> = l.offsets().collect();
        assert_eq!(offs, vec![1, 4, 2, 5, 3, 6]);
        assert!(!l.is_contiguous());
    }
}
