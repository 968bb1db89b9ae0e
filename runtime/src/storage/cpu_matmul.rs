//! CPU matrix multiplication through the `gemm` crate (f32 and f16 natively, bf16 through f32).
#![allow(unsafe_code)]

use super::cpu::{map, try_vec, CpuStorage};
use crate::dtype::WithDType;
use crate::error::{Error, Result};
use crate::shape::Layout;
use crate::{DType, Device};
use half::f16;

/// Batched matmul: `lhs` is `[batch.., m, k]` and `rhs` `[batch.., k, n]`, both already
/// broadcast to the same batch dims (any strides). Returns a contiguous `[batch.., m, n]`.
pub(crate) fn matmul(
    a: &CpuStorage,
    la: &Layout,
    b: &CpuStorage,
    lb: &Layout,
) -> Result<CpuStorage> {
    match (a, b) {
        (CpuStorage::F32(x), CpuStorage::F32(y)) => Ok(CpuStorage::F32(gemm_typed(x, la, y, lb)?)),
        (CpuStorage::F16(x), CpuStorage::F16(y)) => Ok(CpuStorage::F16(gemm_typed(x, la, y, lb)?)),
        (CpuStorage::BF16(x), CpuStorage::BF16(y)) => {
            let x = map("matmul", x, la, WithDType::to_f32)?;
            let y = map("matmul", y, lb, WithDType::to_f32)?;
            let out = gemm_typed(
                &x,
                &Layout::contiguous(la.dims.clone()),
                &y,
                &Layout::contiguous(lb.dims.clone()),
            )?;
            CpuStorage::from_f32s("matmul", DType::BF16, out)
        }
        (x, y) if x.dtype() != y.dtype() => Err(Error::DTypeMismatch {
            op: "matmul",
            lhs: x.dtype(),
            rhs: y.dtype(),
        }),
        (x, _) => Err(Error::UnsupportedDType {
            op: "matmul",
            dtype: x.dtype(),
            device: Device::Cpu,
        }),
    }
}

trait GemmElem: Copy + 'static {
    const ZERO: Self;
    const ONE: Self;
}
impl GemmElem for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}
impl GemmElem for f16 {
    const ZERO: Self = f16::ZERO;
    const ONE: Self = f16::ONE;
}

#[allow(clippy::cast_possible_wrap)]
fn gemm_typed<T: GemmElem>(a: &[T], la: &Layout, b: &[T], lb: &Layout) -> Result<Vec<T>> {
    let r = la.dims.len();
    let (m, k, n) = (la.dims[r - 2], la.dims[r - 1], lb.dims[r - 1]);
    let batch_dims = la.dims[..r - 2].to_vec();
    let batch: usize = batch_dims.iter().product();
    // The output shape [batch.., m, n] passed `check_dims` in `Tensor::matmul`: no overflow.
    let len = batch * m * n;
    let mut out = try_vec("matmul", len)?;
    out.resize(len, T::ZERO);
    if m == 0 || n == 0 {
        return Ok(out);
    }
    // Offsets of each batch's first element in a and b.
    let batch_a = Layout {
        dims: batch_dims.clone(),
        strides: la.strides[..r - 2].to_vec(),
        offset: la.offset,
    };
    let batch_b = Layout {
        dims: batch_dims,
        strides: lb.strides[..r - 2].to_vec(),
        offset: lb.offset,
    };
    let (a_rs, a_cs) = (la.strides[r - 2] as isize, la.strides[r - 1] as isize);
    let (b_rs, b_cs) = (lb.strides[r - 2] as isize, lb.strides[r - 1] as isize);
    let threads = rayon::current_num_threads();
    let parallelism = if m.saturating_mul(n).saturating_mul(k) >= 64 * 64 * 64 && threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    for ((oa, ob), dst) in batch_a
        .offsets()
        .zip(batch_b.offsets())
        .zip(out.chunks_mut(m * n))
    {
        if k == 0 {
            continue; // the product of empty matrices is zeros
        }
        let last_a = oa as isize + (m as isize - 1) * a_rs + (k as isize - 1) * a_cs;
        let last_b = ob as isize + (k as isize - 1) * b_rs + (n as isize - 1) * b_cs;
        debug_assert!(last_a < a.len() as isize && last_b < b.len() as isize);
        if last_a >= a.len() as isize || last_b >= b.len() as isize {
            continue;
        }
        // SAFETY: every element gemm reads, `oa + i*a_rs + j*a_cs` for i < m, j < k (and the
        // same for b), lies in `a` (resp. `b`): the strides are non-negative and the largest
        // offset was checked just above. `dst` is a distinct, exclusively borrowed slice of
        // exactly m*n elements written row-major (row stride n, column stride 1). `read_dst` is
        // false, so dst need not be initialised (it is, anyway).
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr().add(oa),
                a_cs,
                a_rs,
                b.as_ptr().add(ob),
                b_cs,
                b_rs,
                T::ZERO,
                T::ONE,
                false,
                false,
                false,
                parallelism,
            );
        }
    }
    Ok(out)
}
