//! CUDA backend (placeholder while the CPU core lands).
#![allow(unsafe_code)]

use super::cpu::CpuStorage;
use crate::error::{Error, Result};
use crate::ops::{BinaryOp, CmpOp, ReduceOp, UnaryOp};
use crate::shape::Layout;
use crate::DType;

#[allow(dead_code)]
pub(crate) struct CudaStorage {
    ordinal: usize,
}

pub(crate) struct PinnedHost;

#[allow(dead_code)]
impl CudaStorage {
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }
}

fn unavailable() -> Error {
    Error::CudaUnavailable {
        reason: "not built".into(),
    }
}

pub(crate) fn ordinal_available(_o: usize) -> Result<()> {
    Err(unavailable())
}
pub(crate) fn device_count() -> usize {
    0
}
pub(crate) fn synchronize(_o: usize) -> Result<()> {
    Err(unavailable())
}
pub(crate) fn memory_allocated(_o: usize) -> usize {
    0
}
pub(crate) fn htod(_o: usize, _d: &CpuStorage) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn htod_pinned(
    _o: usize,
    _p: &PinnedHost,
    _r: std::ops::Range<usize>,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn dtoh(_c: &CudaStorage, _l: &Layout) -> Result<CpuStorage> {
    Err(unavailable())
}
pub(crate) fn pin(_d: &CpuStorage) -> Result<PinnedHost> {
    Err(unavailable())
}
pub(crate) fn full(_o: usize, _d: DType, _n: usize, _v: f64) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn to_dtype(_c: &CudaStorage, _l: &Layout, _d: DType) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn contiguous(_c: &CudaStorage, _l: &Layout) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn binary(
    _op: BinaryOp,
    _a: &CudaStorage,
    _la: &Layout,
    _b: &CudaStorage,
    _lb: &Layout,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn cmp(
    _op: CmpOp,
    _a: &CudaStorage,
    _la: &Layout,
    _b: &CudaStorage,
    _lb: &Layout,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn affine(_a: &CudaStorage, _la: &Layout, _m: f64, _ad: f64) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn unary(_op: UnaryOp, _a: &CudaStorage, _la: &Layout) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn reduce(
    _op: ReduceOp,
    _a: &CudaStorage,
    _la: &Layout,
    _d: usize,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn softmax(_a: &CudaStorage, _la: &Layout, _d: usize) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn layer_norm(
    _a: &CudaStorage,
    _la: &Layout,
    _w: Option<(&CudaStorage, &Layout)>,
    _b: Option<(&CudaStorage, &Layout)>,
    _e: f64,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn matmul(
    _a: &CudaStorage,
    _la: &Layout,
    _b: &CudaStorage,
    _lb: &Layout,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn where_(
    _c: &CudaStorage,
    _lc: &Layout,
    _a: &CudaStorage,
    _la: &Layout,
    _b: &CudaStorage,
    _lb: &Layout,
) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn cat(_p: &[(&CudaStorage, &Layout)], _d: usize) -> Result<CudaStorage> {
    Err(unavailable())
}
pub(crate) fn index_select(
    _a: &CudaStorage,
    _la: &Layout,
    _i: &CudaStorage,
    _li: &Layout,
    _d: usize,
    _op: &'static str,
) -> Result<CudaStorage> {
    Err(unavailable())
}
