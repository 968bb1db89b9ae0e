//! CPU storage and kernels: contiguous fast paths, rayon for large elementwise ops, f16/bf16
//! computed through f32.

use crate::dtype::WithDType;
use crate::error::{Error, Result};
use crate::ops::{BinaryOp, CmpOp, ReduceOp, UnaryOp};
use crate::shape::Layout;
use crate::{DType, Device};
use half::{bf16, f16};
use rayon::prelude::*;

/// Elementwise ops on more elements than this use rayon.
const PAR_THRESHOLD: usize = 1 << 15;
/// Elements per rayon task in the pooled f32 path.
const CHUNK: usize = 1 << 14;

/// Host data of one tensor storage, one variant per dtype.
#[derive(Clone, Debug)]
pub enum CpuStorage {
    /// `DType::F32`.
    F32(Vec<f32>),
    /// `DType::F16`.
    F16(Vec<f16>),
    /// `DType::BF16`.
    BF16(Vec<bf16>),
    /// `DType::I64`.
    I64(Vec<i64>),
    /// `DType::U8`.
    U8(Vec<u8>),
    /// `DType::Bool`.
    Bool(Vec<bool>),
}

/// Runs `$body` with `$v` bound to the typed `Vec` of a `CpuStorage`, whatever its dtype.
macro_rules! with_cpu {
    ($s:expr, |$v:ident| $body:expr) => {
        match $s {
            CpuStorage::F32($v) => $body,
            CpuStorage::F16($v) => $body,
            CpuStorage::BF16($v) => $body,
            CpuStorage::I64($v) => $body,
            CpuStorage::U8($v) => $body,
            CpuStorage::Bool($v) => $body,
        }
    };
}

/// As `with_cpu!`, wrapping the body's `Vec` result back into a `CpuStorage` of the same dtype.
macro_rules! map_cpu {
    ($s:expr, |$v:ident| $body:expr) => {
        match $s {
            CpuStorage::F32($v) => CpuStorage::F32($body),
            CpuStorage::F16($v) => CpuStorage::F16($body),
            CpuStorage::BF16($v) => CpuStorage::BF16($body),
            CpuStorage::I64($v) => CpuStorage::I64($body),
            CpuStorage::U8($v) => CpuStorage::U8($body),
            CpuStorage::Bool($v) => CpuStorage::Bool($body),
        }
    };
}

/// An empty vector with room for `n` elements, or [`Error::OutOfMemory`] when the host cannot
/// provide it (instead of aborting the process, as `Vec::with_capacity` would).
pub(crate) fn try_vec<T>(op: &'static str, n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
        op,
        bytes: n.saturating_mul(std::mem::size_of::<T>()),
        device: Device::Cpu,
    })?;
    Ok(v)
}

/// `n` copies of `value`, allocated fallibly.
fn try_filled<T: Clone>(op: &'static str, n: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_vec(op, n)?;
    v.resize(n, value);
    Ok(v)
}

fn unsupported(op: &'static str, dtype: DType) -> Error {
    Error::UnsupportedDType {
        op,
        dtype,
        device: Device::Cpu,
    }
}

impl CpuStorage {
    pub(crate) fn dtype(&self) -> DType {
        match self {
            CpuStorage::F32(_) => DType::F32,
            CpuStorage::F16(_) => DType::F16,
            CpuStorage::BF16(_) => DType::BF16,
            CpuStorage::I64(_) => DType::I64,
            CpuStorage::U8(_) => DType::U8,
            CpuStorage::Bool(_) => DType::Bool,
        }
    }

    pub(crate) fn len(&self) -> usize {
        with_cpu!(self, |v| v.len())
    }

    /// A storage of `n` copies of `value` converted to `dtype`.
    pub(crate) fn full(op: &'static str, dtype: DType, n: usize, value: f64) -> Result<Self> {
        fn f<T: WithDType>(op: &'static str, n: usize, v: f64) -> Result<Vec<T>> {
            try_filled(op, n, T::from_f64(v))
        }
        Ok(match dtype {
            DType::F32 => CpuStorage::F32(f(op, n, value)?),
            DType::F16 => CpuStorage::F16(f(op, n, value)?),
            DType::BF16 => CpuStorage::BF16(f(op, n, value)?),
            DType::I64 => CpuStorage::I64(f(op, n, value)?),
            DType::U8 => CpuStorage::U8(f(op, n, value)?),
            DType::Bool => CpuStorage::Bool(f(op, n, value)?),
        })
    }

    /// Converts host `f64` values to `dtype`.
    pub(crate) fn from_f64s(op: &'static str, dtype: DType, vals: &[f64]) -> Result<Self> {
        fn f<T: WithDType>(op: &'static str, v: &[f64]) -> Result<Vec<T>> {
            let mut out = try_vec(op, v.len())?;
            out.extend(v.iter().map(|&x| T::from_f64(x)));
            Ok(out)
        }
        Ok(match dtype {
            DType::F32 => CpuStorage::F32(f(op, vals)?),
            DType::F16 => CpuStorage::F16(f(op, vals)?),
            DType::BF16 => CpuStorage::BF16(f(op, vals)?),
            DType::I64 => CpuStorage::I64(f(op, vals)?),
            DType::U8 => CpuStorage::U8(f(op, vals)?),
            DType::Bool => CpuStorage::Bool(f(op, vals)?),
        })
    }

    /// Converts host `f32` values to `dtype`.
    pub(crate) fn from_f32s(op: &'static str, dtype: DType, vals: Vec<f32>) -> Result<Self> {
        fn f<T: WithDType>(op: &'static str, v: &[f32]) -> Result<Vec<T>> {
            let mut out = try_vec(op, v.len())?;
            out.extend(v.iter().map(|&x| T::from_f32(x)));
            Ok(out)
        }
        Ok(match dtype {
            DType::F32 => CpuStorage::F32(vals),
            DType::F16 => CpuStorage::F16(f(op, &vals)?),
            DType::BF16 => CpuStorage::BF16(f(op, &vals)?),
            DType::I64 => CpuStorage::I64(f(op, &vals)?),
            DType::U8 => CpuStorage::U8(f(op, &vals)?),
            DType::Bool => CpuStorage::Bool(f(op, &vals)?),
        })
    }
}

// ---------------------------------------------------------------- elementwise helpers

/// `f` of every element of `l`, in row-major order, into a fallibly allocated vector (the
/// allocation comes first, so a huge broadcast view fails at once instead of looping).
pub(crate) fn map<T, U, F>(op: &'static str, data: &[T], l: &Layout, f: F) -> Result<Vec<U>>
where
    T: Copy + Sync,
    U: Send,
    F: Fn(T) -> U + Sync + Send,
{
    let mut out = try_vec(op, l.elem_count())?;
    if let Some(r) = l.contiguous_range() {
        let s = &data[r];
        if s.len() >= PAR_THRESHOLD {
            // Fills the reserved capacity in place (no reallocation).
            s.par_iter().map(|&x| f(x)).collect_into_vec(&mut out);
        } else {
            out.extend(s.iter().map(|&x| f(x)));
        }
    } else {
        out.extend(l.offsets().map(|o| f(data[o])));
    }
    Ok(out)
}

/// `f` of the pairs of elements of two layouts of the same dims, in row-major order.
pub(crate) fn zip<T, U, V, F>(
    op: &'static str,
    a: &[T],
    la: &Layout,
    b: &[U],
    lb: &Layout,
    f: F,
) -> Result<Vec<V>>
where
    T: Copy + Sync,
    U: Copy + Sync,
    V: Send,
    F: Fn(T, U) -> V + Sync + Send,
{
    let mut out = try_vec(op, la.elem_count())?;
    match (la.contiguous_range(), lb.contiguous_range()) {
        (Some(ra), Some(rb)) => {
            let (a, b) = (&a[ra], &b[rb]);
            if a.len() >= PAR_THRESHOLD {
                a.par_iter()
                    .zip(b.par_iter())
                    .map(|(&x, &y)| f(x, y))
                    .collect_into_vec(&mut out);
            } else {
                out.extend(a.iter().zip(b).map(|(&x, &y)| f(x, y)));
            }
        }
        (Some(ra), None) if trailing_block(lb).is_some() => {
            // rhs repeats one contiguous block (a bias row): walk lhs linearly.
            let (start, block) = trailing_block(lb).unwrap_or((0, 1));
            let a = &a[ra];
            let b = &b[start..start + block];
            for chunk in a.chunks(block) {
                out.extend(chunk.iter().zip(b).map(|(&x, &y)| f(x, y)));
            }
        }
        _ => out.extend(la.offsets().zip(lb.offsets()).map(|(i, j)| f(a[i], b[j]))),
    }
    Ok(out)
}

/// When `l` is leading broadcast dims (stride 0) over a contiguous trailing block, returns
/// (start offset, block length).
fn trailing_block(l: &Layout) -> Option<(usize, usize)> {
    let lead = l.strides.iter().take_while(|&&s| s == 0).count();
    let tail = Layout {
        dims: l.dims[lead..].to_vec(),
        strides: l.strides[lead..].to_vec(),
        offset: l.offset,
    };
    let block = tail.elem_count();
    (lead > 0 && block > 0 && tail.is_contiguous()).then_some((l.offset, block))
}

fn zip3<A, B, C, V, F>(
    op: &'static str,
    (a, la): (&[A], &Layout),
    (b, lb): (&[B], &Layout),
    (c, lc): (&[C], &Layout),
    f: F,
) -> Result<Vec<V>>
where
    A: Copy,
    B: Copy,
    C: Copy,
    F: Fn(A, B, C) -> V,
{
    let mut out = try_vec(op, la.elem_count())?;
    out.extend(
        la.offsets()
            .zip(lb.offsets())
            .zip(lc.offsets())
            .map(|((i, j), k)| f(a[i], b[j], c[k])),
    );
    Ok(out)
}

/// Copies the elements of `l` into a new contiguous vector.
pub(crate) fn contiguous_vec<T: Copy + Send + Sync>(
    op: &'static str,
    data: &[T],
    l: &Layout,
) -> Result<Vec<T>> {
    let mut out = try_vec(op, l.elem_count())?;
    if let Some(r) = l.contiguous_range() {
        out.extend_from_slice(&data[r]);
    } else {
        out.extend(l.offsets().map(|o| data[o]));
    }
    Ok(out)
}

pub(crate) fn contiguous(op: &'static str, s: &CpuStorage, l: &Layout) -> Result<CpuStorage> {
    Ok(map_cpu!(s, |v| contiguous_vec(op, v, l)?))
}

// ---------------------------------------------------------------- arithmetic

/// Arithmetic for the dtypes that have it (not bool).
pub(crate) trait Arith: WithDType {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
}

macro_rules! arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn add(self, o: Self) -> Self { self + o }
            fn sub(self, o: Self) -> Self { self - o }
            fn mul(self, o: Self) -> Self { self * o }
            fn div(self, o: Self) -> Self { self / o }
        }
    )*};
}
arith_float!(f32, f16, bf16);

macro_rules! arith_int {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            // Integer division is rejected before the kernel runs; this never divides by zero.
            fn div(self, o: Self) -> Self { self.checked_div(o).unwrap_or(0) }
        }
    )*};
}
arith_int!(i64, u8);

/// True for NaN (the only value not comparable with itself).
fn is_nan<T: PartialOrd>(x: &T) -> bool {
    x.partial_cmp(x).is_none()
}

/// The larger operand, NaN if either is NaN (as `torch.maximum`).
fn nan_max<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if is_nan(&a) || (!is_nan(&b) && a >= b) {
        a
    } else {
        b
    }
}

fn nan_min<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if is_nan(&a) || (!is_nan(&b) && a <= b) {
        a
    } else {
        b
    }
}

fn binary_typed<T: Arith>(
    op: BinaryOp,
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
) -> Result<Vec<T>> {
    let name = op.name();
    match op {
        BinaryOp::Add => zip(name, a, la, b, lb, T::add),
        BinaryOp::Sub => zip(name, a, la, b, lb, T::sub),
        BinaryOp::Mul => zip(name, a, la, b, lb, T::mul),
        BinaryOp::Div => zip(name, a, la, b, lb, T::div),
        BinaryOp::Maximum => zip(name, a, la, b, lb, nan_max),
        BinaryOp::Minimum => zip(name, a, la, b, lb, nan_min),
    }
}

/// Writes `f(a[i], b[i])` into `out` in parallel chunks.
fn run(out: &mut [f32], a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32 + Sync) {
    out.par_chunks_mut(CHUNK)
        .zip(a.par_chunks(CHUNK).zip(b.par_chunks(CHUNK)))
        .for_each(|(o, (x, y))| {
            for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
                *o = f(x, y);
            }
        });
}

/// Large contiguous f32 operands: write into a recycled buffer, in parallel chunks.
fn binary_f32_pooled(
    op: BinaryOp,
    a: &[f32],
    la: &Layout,
    b: &[f32],
    lb: &Layout,
) -> Option<Vec<f32>> {
    let (ra, rb) = (la.contiguous_range()?, lb.contiguous_range()?);
    let (a, b) = (&a[ra], &b[rb]);
    let mut out = super::cpu_pool::take_f32(a.len())?;
    match op {
        BinaryOp::Add => run(&mut out, a, b, |x, y| x + y),
        BinaryOp::Sub => run(&mut out, a, b, |x, y| x - y),
        BinaryOp::Mul => run(&mut out, a, b, |x, y| x * y),
        BinaryOp::Div => run(&mut out, a, b, |x, y| x / y),
        BinaryOp::Maximum => run(&mut out, a, b, nan_max),
        BinaryOp::Minimum => run(&mut out, a, b, nan_min),
    }
    Some(out)
}

pub(crate) fn binary(
    op: BinaryOp,
    a: &CpuStorage,
    la: &Layout,
    b: &CpuStorage,
    lb: &Layout,
) -> Result<CpuStorage> {
    Ok(match (a, b) {
        (CpuStorage::F32(a), CpuStorage::F32(b)) => {
            CpuStorage::F32(match binary_f32_pooled(op, a, la, b, lb) {
                Some(v) => v,
                None => binary_typed(op, a, la, b, lb)?,
            })
        }
        (CpuStorage::F16(a), CpuStorage::F16(b)) => {
            CpuStorage::F16(binary_typed(op, a, la, b, lb)?)
        }
        (CpuStorage::BF16(a), CpuStorage::BF16(b)) => {
            CpuStorage::BF16(binary_typed(op, a, la, b, lb)?)
        }
        (CpuStorage::I64(a), CpuStorage::I64(b)) => {
            CpuStorage::I64(binary_typed(op, a, la, b, lb)?)
        }
        (CpuStorage::U8(a), CpuStorage::U8(b)) => CpuStorage::U8(binary_typed(op, a, la, b, lb)?),
        (CpuStorage::Bool(a), CpuStorage::Bool(b)) => CpuStorage::Bool(match op {
            BinaryOp::Maximum => zip(op.name(), a, la, b, lb, |x, y| x | y)?,
            BinaryOp::Minimum => zip(op.name(), a, la, b, lb, |x, y| x & y)?,
            _ => return Err(unsupported(op.name(), DType::Bool)),
        }),
        _ => {
            return Err(Error::DTypeMismatch {
                op: op.name(),
                lhs: a.dtype(),
                rhs: b.dtype(),
            })
        }
    })
}

fn cmp_typed<T: WithDType>(
    op: CmpOp,
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
) -> Result<Vec<bool>> {
    let name = op.name();
    match op {
        CmpOp::Eq => zip(name, a, la, b, lb, |x, y| x == y),
        CmpOp::Ne => zip(name, a, la, b, lb, |x, y| x != y),
        CmpOp::Lt => zip(name, a, la, b, lb, |x, y| x < y),
        CmpOp::Le => zip(name, a, la, b, lb, |x, y| x <= y),
        CmpOp::Gt => zip(name, a, la, b, lb, |x, y| x > y),
        CmpOp::Ge => zip(name, a, la, b, lb, |x, y| x >= y),
    }
}

pub(crate) fn cmp(
    op: CmpOp,
    a: &CpuStorage,
    la: &Layout,
    b: &CpuStorage,
    lb: &Layout,
) -> Result<CpuStorage> {
    Ok(CpuStorage::Bool(match (a, b) {
        (CpuStorage::F32(a), CpuStorage::F32(b)) => cmp_typed(op, a, la, b, lb)?,
        (CpuStorage::F16(a), CpuStorage::F16(b)) => cmp_typed(op, a, la, b, lb)?,
        (CpuStorage::BF16(a), CpuStorage::BF16(b)) => cmp_typed(op, a, la, b, lb)?,
        (CpuStorage::I64(a), CpuStorage::I64(b)) => cmp_typed(op, a, la, b, lb)?,
        (CpuStorage::U8(a), CpuStorage::U8(b)) => cmp_typed(op, a, la, b, lb)?,
        (CpuStorage::Bool(a), CpuStorage::Bool(b)) => cmp_typed(op, a, la, b, lb)?,
        _ => {
            return Err(Error::DTypeMismatch {
                op: op.name(),
                lhs: a.dtype(),
                rhs: b.dtype(),
            })
        }
    }))
}

/// `x * mul + add` elementwise (scalar ops): f32 arithmetic for floats; for integers, exact
/// wrapping integer arithmetic (the scalars were checked to be whole numbers in range by
/// `ops::int_scalar`, so the casts below are exact; `u8` wraps modulo 256 as in PyTorch).
pub(crate) fn affine(
    op: &'static str,
    s: &CpuStorage,
    l: &Layout,
    mul: f64,
    add: f64,
) -> Result<CpuStorage> {
    #[allow(clippy::cast_possible_truncation)]
    let (m32, a32) = (mul as f32, add as f32);
    #[allow(clippy::cast_possible_truncation)]
    let (mi, ai) = (mul as i64, add as i64);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (mu, au) = (mi as u8, ai as u8);
    Ok(match s {
        CpuStorage::F32(v) => CpuStorage::F32(map(op, v, l, |x| x * m32 + a32)?),
        CpuStorage::F16(v) => {
            CpuStorage::F16(map(op, v, l, |x| f16::from_f32(x.to_f32() * m32 + a32))?)
        }
        CpuStorage::BF16(v) => {
            CpuStorage::BF16(map(op, v, l, |x| bf16::from_f32(x.to_f32() * m32 + a32))?)
        }
        CpuStorage::I64(v) => {
            CpuStorage::I64(map(op, v, l, |x| x.wrapping_mul(mi).wrapping_add(ai))?)
        }
        CpuStorage::U8(v) => {
            CpuStorage::U8(map(op, v, l, |x| x.wrapping_mul(mu).wrapping_add(au))?)
        }
        CpuStorage::Bool(_) => return Err(unsupported(op, DType::Bool)),
    })
}

// ---------------------------------------------------------------- unary

/// The Gauss error function, Abramowitz–Stegun 7.1.26 (absolute error below 1.5e-7).
pub(crate) fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_4 * t - 1.453_152_1) * t) + 1.421_413_8) * t - 0.284_496_72) * t
            + 0.254_829_6)
            * t
            * (-x * x).exp();
    y.copysign(x)
}

pub(crate) fn unary_f32(op: UnaryOp, x: f32) -> f32 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Gelu => 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2)),
        UnaryOp::Relu => {
            if x > 0.0 || x.is_nan() {
                x
            } else {
                0.0
            }
        }
        UnaryOp::Silu => x / (1.0 + (-x).exp()),
        UnaryOp::Abs => x.abs(),
    }
}

fn unary_typed<T: WithDType>(op: UnaryOp, v: &[T], l: &Layout) -> Result<Vec<T>> {
    let name = op.name();
    // One monomorphic closure per op, so that the contiguous loop can be vectorised.
    macro_rules! go {
        ($($o:ident),*) => {
            match op {
                $(UnaryOp::$o => map(name, v, l, |x| T::from_f32(unary_f32(UnaryOp::$o, x.to_f32()))),)*
            }
        };
    }
    go!(Neg, Exp, Log, Sqrt, Tanh, Gelu, Relu, Silu, Abs)
}

pub(crate) fn unary(op: UnaryOp, s: &CpuStorage, l: &Layout) -> Result<CpuStorage> {
    let name = op.name();
    Ok(match s {
        CpuStorage::F32(v) => CpuStorage::F32(unary_typed(op, v, l)?),
        CpuStorage::F16(v) => CpuStorage::F16(unary_typed(op, v, l)?),
        CpuStorage::BF16(v) => CpuStorage::BF16(unary_typed(op, v, l)?),
        CpuStorage::I64(v) => match op {
            UnaryOp::Neg => CpuStorage::I64(map(name, v, l, i64::wrapping_neg)?),
            UnaryOp::Abs => CpuStorage::I64(map(name, v, l, i64::wrapping_abs)?),
            UnaryOp::Relu => CpuStorage::I64(map(name, v, l, |x| x.max(0))?),
            _ => return Err(unsupported(op.name(), DType::I64)),
        },
        other => return Err(unsupported(op.name(), other.dtype())),
    })
}

// ---------------------------------------------------------------- dtype conversion

fn convert<T: WithDType, U: WithDType>(v: &[T], l: &Layout) -> Result<Vec<U>> {
    map("to_dtype", v, l, |x| U::from_f64(x.to_f64()))
}

pub(crate) fn to_dtype(s: &CpuStorage, l: &Layout, dtype: DType) -> Result<CpuStorage> {
    if s.dtype() == dtype {
        return contiguous("to_dtype", s, l);
    }
    Ok(with_cpu!(s, |v| match dtype {
        DType::F32 => CpuStorage::F32(convert(v, l)?),
        DType::F16 => CpuStorage::F16(convert(v, l)?),
        DType::BF16 => CpuStorage::BF16(convert(v, l)?),
        DType::I64 => CpuStorage::I64(convert(v, l)?),
        DType::U8 => CpuStorage::U8(convert(v, l)?),
        DType::Bool => CpuStorage::Bool(convert(v, l)?),
    }))
}

// ---------------------------------------------------------------- where

pub(crate) fn where_(
    cond: &CpuStorage,
    lc: &Layout,
    a: &CpuStorage,
    la: &Layout,
    b: &CpuStorage,
    lb: &Layout,
) -> Result<CpuStorage> {
    let CpuStorage::Bool(c) = cond else {
        return Err(Error::DTypeMismatch {
            op: "where",
            lhs: DType::Bool,
            rhs: cond.dtype(),
        });
    };
    macro_rules! go {
        ($($v:ident),*) => {
            match (a, b) {
                $((CpuStorage::$v(a), CpuStorage::$v(b)) => {
                    CpuStorage::$v(zip3("where", (c, lc), (a, la), (b, lb), |c, x, y| if c { x } else { y })?)
                })*
                _ => {
                    return Err(Error::DTypeMismatch { op: "where", lhs: a.dtype(), rhs: b.dtype() })
                }
            }
        };
    }
    Ok(go!(F32, F16, BF16, I64, U8, Bool))
}

// ---------------------------------------------------------------- reductions

/// Reduces dim `dim` of a layout; the output has that dim removed, contiguous.
pub(crate) fn reduce(op: ReduceOp, s: &CpuStorage, l: &Layout, dim: usize) -> Result<CpuStorage> {
    // Reads element (o, k, i) of the contiguous [outer, d, inner] view.
    fn fold<T: Copy, A: Copy>(
        op: ReduceOp,
        v: &[T],
        (outer, d, inner): (usize, usize, usize),
        init: A,
        f: impl Fn(A, T, usize) -> A,
    ) -> Result<Vec<A>> {
        let mut out = try_vec(op.name(), outer * inner)?;
        if outer * inner == 0 {
            // Nothing to compute; don't walk a huge `outer` of empty rows.
            return Ok(out);
        }
        for o in 0..outer {
            for i in 0..inner {
                let mut acc = init;
                for k in 0..d {
                    acc = f(acc, v[(o * d + k) * inner + i], k);
                }
                out.push(acc);
            }
        }
        Ok(out)
    }
    let (outer, d, inner) = split3(&l.dims, dim);
    let src = contiguous(op.name(), s, l)?;
    let n_out = outer * inner;
    if d == 0 && matches!(op, ReduceOp::Max | ReduceOp::Argmax) {
        return Err(Error::InvalidArgument {
            op: op.name(),
            msg: "cannot reduce an empty dim",
        });
    }
    let dims = (outer, d, inner);
    #[allow(clippy::cast_precision_loss)]
    let dn = d as f32;
    Ok(match op {
        ReduceOp::Sum | ReduceOp::Mean => {
            let mean = matches!(op, ReduceOp::Mean);
            match &src {
                CpuStorage::I64(v) if !mean => {
                    CpuStorage::I64(fold(op, v, dims, 0i64, |a, x, _| a.wrapping_add(x))?)
                }
                CpuStorage::U8(v) if !mean => {
                    CpuStorage::I64(fold(op, v, dims, 0i64, |a, x, _| {
                        a.wrapping_add(i64::from(x))
                    })?)
                }
                CpuStorage::Bool(v) if !mean => {
                    CpuStorage::I64(fold(op, v, dims, 0i64, |a, x, _| {
                        a.wrapping_add(i64::from(x))
                    })?)
                }
                s if s.dtype().is_float() => {
                    let mut sums: Vec<f32> =
                        with_cpu!(s, |v| fold(op, v, dims, 0f32, |a, x, _| a + x.to_f32())?);
                    if mean {
                        for x in &mut sums {
                            *x /= dn;
                        }
                    }
                    CpuStorage::from_f32s(op.name(), s.dtype(), sums)?
                }
                s => return Err(unsupported(op.name(), s.dtype())),
            }
        }
        ReduceOp::Max => map_cpu!(&src, |v| {
            let first: Vec<_> = fold(op, v, dims, None, |a, x, _| match a {
                None => Some(x),
                Some(m) => Some(nan_max(m, x)),
            })?;
            let mut out = try_vec(op.name(), first.len())?;
            // d > 0 (checked above), so every fold saw an element.
            out.extend(first.into_iter().flatten());
            out
        }),
        ReduceOp::Argmax => CpuStorage::I64(with_cpu!(&src, |v| {
            let best = fold(op, v, dims, None, |a: Option<(_, usize)>, x, k| match a {
                None => Some((x, k)),
                // Keep the first maximum; a NaN wins and stays.
                Some((m, j)) => {
                    if !is_nan(&m)
                        && (is_nan(&x) || x.partial_cmp(&m) == Some(std::cmp::Ordering::Greater))
                    {
                        Some((x, k))
                    } else {
                        Some((m, j))
                    }
                }
            })?;
            let mut out = try_vec(op.name(), best.len())?;
            out.extend(
                best.into_iter()
                    .map(|b| b.map_or(0, |(_, k)| i64::try_from(k).unwrap_or(i64::MAX))),
            );
            out
        })),
    })
    .inspect(|r| debug_assert_eq!(r.len(), n_out))
}

/// Sizes of the dims before `dim`, of `dim`, and after it.
pub(crate) fn split3(dims: &[usize], dim: usize) -> (usize, usize, usize) {
    (
        dims[..dim].iter().product(),
        dims[dim],
        dims[dim + 1..].iter().product(),
    )
}

pub(crate) fn softmax(s: &CpuStorage, l: &Layout, dim: usize) -> Result<CpuStorage> {
    if !s.dtype().is_float() {
        return Err(unsupported("softmax", s.dtype()));
    }
    let (outer, d, inner) = split3(&l.dims, dim);
    let src = with_cpu!(s, |v| map("softmax", v, l, WithDType::to_f32)?);
    let mut out = try_filled("softmax", src.len(), 0f32)?;
    // An empty tensor may still have a huge `outer` (e.g. [2^48, 0]): skip the walk.
    let outer = if out.is_empty() { 0 } else { outer };
    for o in 0..outer {
        for i in 0..inner {
            let idx = |k: usize| (o * d + k) * inner + i;
            let m = (0..d)
                .map(|k| src[idx(k)])
                .fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0f32;
            for k in 0..d {
                let e = (src[idx(k)] - m).exp();
                out[idx(k)] = e;
                sum += e;
            }
            for k in 0..d {
                out[idx(k)] /= sum;
            }
        }
    }
    CpuStorage::from_f32s("softmax", s.dtype(), out)
}

/// Layer norm over the last dim of `x` (`rows` rows of `d` elements); weight and bias have `d`
/// elements.
pub(crate) fn layer_norm(
    x: &CpuStorage,
    lx: &Layout,
    w: Option<(&CpuStorage, &Layout)>,
    b: Option<(&CpuStorage, &Layout)>,
    eps: f64,
) -> Result<CpuStorage> {
    if !x.dtype().is_float() {
        return Err(unsupported("layer_norm", x.dtype()));
    }
    let d = lx.dims.last().copied().unwrap_or(1);
    let op = "layer_norm";
    let xs = with_cpu!(x, |v| map(op, v, lx, WithDType::to_f32)?);
    let f32s = |(s, l): (&CpuStorage, &Layout)| with_cpu!(s, |v| map(op, v, l, WithDType::to_f32));
    let ws = w.map(f32s).transpose()?;
    let bs = b.map(f32s).transpose()?;
    #[allow(clippy::cast_possible_truncation)]
    let eps = eps as f32;
    #[allow(clippy::cast_precision_loss)]
    let dn = d as f32;
    let mut out = try_filled(op, xs.len(), 0f32)?;
    if d > 0 {
        for (row, o) in xs.chunks(d).zip(out.chunks_mut(d)) {
            let mean = row.iter().sum::<f32>() / dn;
            let var = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / dn;
            let inv = 1.0 / (var + eps).sqrt();
            for j in 0..d {
                let mut y = (row[j] - mean) * inv;
                if let Some(w) = &ws {
                    y *= w[j];
                }
                if let Some(b) = &bs {
                    y += b[j];
                }
                o[j] = y;
            }
        }
    }
    CpuStorage::from_f32s(op, x.dtype(), out)
}

// ---------------------------------------------------------------- indexing

/// Concatenates contiguous copies of the inputs along `dim`; all have the same dims except
/// `dim`.
pub(crate) fn cat(parts: &[(&CpuStorage, &Layout)], dim: usize) -> Result<CpuStorage> {
    fn go<T: Copy + Send + Sync>(parts: &[(&[T], &Layout)], dim: usize) -> Result<Vec<T>> {
        let outer: usize = parts[0].1.dims[..dim].iter().product();
        let mut blocks: Vec<(Vec<T>, usize)> = try_vec("cat", parts.len())?;
        for (v, l) in parts {
            let block = l.dims[dim..].iter().product();
            blocks.push((contiguous_vec("cat", v, l)?, block));
        }
        // The output shape was checked (`check_dims`), so the sum cannot overflow.
        let total: usize = blocks.iter().map(|(v, _)| v.len()).sum();
        let mut out = try_vec("cat", total)?;
        // An empty output may still have a huge `outer`: skip the walk.
        let outer = if total == 0 { 0 } else { outer };
        for o in 0..outer {
            for (v, block) in &blocks {
                out.extend_from_slice(&v[o * block..(o + 1) * block]);
            }
        }
        Ok(out)
    }
    macro_rules! go {
        ($($v:ident),*) => {
            match parts[0].0 {
                $(CpuStorage::$v(_) => {
                    let mut typed = Vec::with_capacity(parts.len());
                    for (s, l) in parts {
                        let CpuStorage::$v(v) = s else {
                            return Err(Error::DTypeMismatch { op: "cat", lhs: parts[0].0.dtype(), rhs: s.dtype() });
                        };
                        typed.push((v.as_slice(), *l));
                    }
                    CpuStorage::$v(go(&typed, dim)?)
                })*
            }
        };
    }
    Ok(go!(F32, F16, BF16, I64, U8, Bool))
}

pub(crate) fn index_select(
    s: &CpuStorage,
    l: &Layout,
    idx: &CpuStorage,
    li: &Layout,
    dim: usize,
    op: &'static str,
) -> Result<CpuStorage> {
    let CpuStorage::I64(iv) = idx else {
        return Err(Error::DTypeMismatch {
            op,
            lhs: DType::I64,
            rhs: idx.dtype(),
        });
    };
    let ids = contiguous_vec(op, iv, li)?;
    let (outer, d, inner) = split3(&l.dims, dim);
    let mut checked = try_vec(op, ids.len())?;
    for &i in &ids {
        match usize::try_from(i) {
            Ok(u) if u < d => checked.push(u),
            _ => {
                return Err(Error::IndexOutOfRange {
                    op,
                    index: i,
                    size: d,
                })
            }
        }
    }
    Ok(map_cpu!(s, |v| {
        let src = contiguous_vec(op, v, l)?;
        // The output shape [outer, k, inner] was checked by the caller (`check_dims`).
        let n = outer * checked.len() * inner;
        let mut out = try_vec(op, n)?;
        let outer = if n == 0 { 0 } else { outer };
        for o in 0..outer {
            for &k in &checked {
                let start = (o * d + k) * inner;
                out.extend_from_slice(&src[start..start + inner]);
            }
        }
        out
    }))
}
