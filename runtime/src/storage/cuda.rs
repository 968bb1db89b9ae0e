//! CUDA backend on cudarc (driver API, NVRTC, cuBLAS), loaded at run time.
//!
//! Availability is decided at run time: cudarc panics when a library is missing, so every
//! entry point goes through [`backend`], which checks `is_culib_present()` for libcuda, NVRTC
//! and cuBLAS before the first call and caches the outcome per ordinal (an error carries the
//! reason). Per ordinal: one context, its default stream, one cuBLAS handle, and the kernels
//! of `cuda_kernels.cu` (compiled once per process with NVRTC, loaded once per ordinal).
//!
//! Ops read strided inputs and write contiguous outputs. f32 runs every op; f16/bf16 go
//! through f32 above this layer, except matmul (cuBLAS `gemm_ex`, f32 accumulation); i64/u8/
//! bool have copies, casts, comparisons, `where`, indexing, and integer arithmetic.
#![allow(unsafe_code)]

use super::cpu::{split3, CpuStorage};
use crate::error::{CudaError, Error, Result};
use crate::ops::{BinaryOp, CmpOp, ReduceOp, UnaryOp};
use crate::shape::Layout;
use crate::{DType, Device};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, StridedBatchedConfig};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, LaunchConfig,
    PinnedHostSlice, PushKernelArg, ValidAsZeroBits,
};
use half::{bf16, f16};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

const KERNELS: &str = include_str!("cuda_kernels.cu");
const MAX_RANK: usize = 8;

// ---------------------------------------------------------------- availability and backends

pub(crate) struct Backend {
    ordinal: usize,
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    module: Arc<CudaModule>,
    functions: Mutex<HashMap<String, CudaFunction>>,
    allocated: AtomicUsize,
}

type Cached = std::result::Result<Arc<Backend>, String>;

fn backends() -> &'static Mutex<HashMap<usize, Cached>> {
    static B: OnceLock<Mutex<HashMap<usize, Cached>>> = OnceLock::new();
    B.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Checks for the shared libraries without calling into them (cudarc would panic).
fn libraries_present() -> std::result::Result<(), String> {
    // SAFETY: `is_culib_present` only tries `dlopen` on the candidate library names and drops
    // the handle; it calls no CUDA function.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("libcuda not found (no NVIDIA driver)".into());
    }
    // SAFETY: as above, for libnvrtc.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("libnvrtc not found (needed to compile the runtime's kernels)".into());
    }
    // SAFETY: as above, for libcublas.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err("libcublas not found".into());
    }
    Ok(())
}

fn driver_device_count() -> std::result::Result<usize, String> {
    static COUNT: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    COUNT
        .get_or_init(|| {
            // Only libcuda is needed to count devices.
            // SAFETY: see `libraries_present`.
            if !unsafe { cudarc::driver::sys::is_culib_present() } {
                return Err("libcuda not found (no NVIDIA driver)".into());
            }
            CudaContext::device_count()
                .map_err(|e| format!("cuInit/cuDeviceGetCount failed: {e}"))
                .map(|n| usize::try_from(n).unwrap_or(0))
        })
        .clone()
}

fn ptx() -> std::result::Result<cudarc::nvrtc::Ptx, String> {
    static PTX: OnceLock<std::result::Result<cudarc::nvrtc::Ptx, String>> = OnceLock::new();
    PTX.get_or_init(|| {
        cudarc::nvrtc::compile_ptx(KERNELS)
            .map_err(|e| format!("NVRTC failed to compile the runtime's kernels: {e}"))
    })
    .clone()
}

fn create(ordinal: usize) -> Cached {
    libraries_present()?;
    let count = driver_device_count()?;
    if ordinal >= count {
        return Err(format!("no GPU with ordinal {ordinal} ({count} visible)"));
    }
    let ctx = CudaContext::new(ordinal)
        .map_err(|e| format!("cannot create a context on cuda:{ordinal}: {e}"))?;
    let stream = ctx.default_stream();
    let blas = CudaBlas::new(stream.clone()).map_err(|e| format!("cuBLAS init failed: {e}"))?;
    let module = ctx
        .load_module(ptx()?)
        .map_err(|e| format!("cannot load the runtime's kernels: {e}"))?;
    Ok(Arc::new(Backend {
        ordinal,
        stream,
        blas,
        module,
        functions: Mutex::new(HashMap::new()),
        allocated: AtomicUsize::new(0),
    }))
}

/// The cached backend for `ordinal`, or `Error::CudaUnavailable` with the reason.
pub(crate) fn backend(ordinal: usize) -> Result<Arc<Backend>> {
    let mut map = backends()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    map.entry(ordinal)
        .or_insert_with(|| create(ordinal))
        .clone()
        .map_err(|reason| Error::CudaUnavailable { reason })
}

pub(crate) fn ordinal_available(ordinal: usize) -> Result<()> {
    backend(ordinal).map(|_| ())
}

pub(crate) fn device_count() -> usize {
    if libraries_present().is_err() {
        return 0;
    }
    driver_device_count().unwrap_or(0)
}

pub(crate) fn synchronize(ordinal: usize) -> Result<()> {
    Ok(backend(ordinal)?.stream.synchronize()?)
}

pub(crate) fn memory_allocated(ordinal: usize) -> usize {
    let map = backends()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match map.get(&ordinal) {
        Some(Ok(b)) => b.allocated.load(Ordering::Relaxed),
        _ => 0,
    }
}

impl Backend {
    fn function(&self, name: &str) -> Result<CudaFunction> {
        let mut f = self
            .functions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(func) = f.get(name) {
            return Ok(func.clone());
        }
        let func = self.module.load_function(name)?;
        f.insert(name.to_string(), func.clone());
        Ok(func)
    }
}

fn launch_config(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(256).clamp(1, 65_535);
    LaunchConfig {
        grid_dim: (u32::try_from(blocks).unwrap_or(65_535), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

// ---------------------------------------------------------------- storage

/// Device memory of one tensor storage. Bool is stored as one byte per element (0 or 1).
pub(crate) enum CudaData {
    F32(CudaSlice<f32>),
    F16(CudaSlice<f16>),
    BF16(CudaSlice<bf16>),
    I64(CudaSlice<i64>),
    U8(CudaSlice<u8>),
    Bool(CudaSlice<u8>),
}

pub(crate) struct CudaStorage {
    data: CudaData,
    backend: Arc<Backend>,
    bytes: usize,
}

impl Drop for CudaStorage {
    fn drop(&mut self) {
        self.backend
            .allocated
            .fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

impl CudaStorage {
    fn new(backend: &Arc<Backend>, data: CudaData) -> CudaStorage {
        let bytes = match &data {
            CudaData::F32(s) => s.num_bytes(),
            CudaData::F16(s) => s.num_bytes(),
            CudaData::BF16(s) => s.num_bytes(),
            CudaData::I64(s) => s.num_bytes(),
            CudaData::U8(s) | CudaData::Bool(s) => s.num_bytes(),
        };
        backend.allocated.fetch_add(bytes, Ordering::Relaxed);
        CudaStorage {
            data,
            backend: backend.clone(),
            bytes,
        }
    }

    pub(crate) fn ordinal(&self) -> usize {
        self.backend.ordinal
    }

    fn dtype(&self) -> DType {
        match self.data {
            CudaData::F32(_) => DType::F32,
            CudaData::F16(_) => DType::F16,
            CudaData::BF16(_) => DType::BF16,
            CudaData::I64(_) => DType::I64,
            CudaData::U8(_) => DType::U8,
            CudaData::Bool(_) => DType::Bool,
        }
    }
}

fn unsupported(op: &'static str, s: &CudaStorage) -> Error {
    Error::UnsupportedDType {
        op,
        dtype: s.dtype(),
        device: Device::Cuda(s.ordinal()),
    }
}

fn alloc<T: DeviceRepr + ValidAsZeroBits>(b: &Backend, n: usize) -> Result<CudaSlice<T>> {
    // Zeroed: a few microseconds more than uninitialised, and no unsafe.
    Ok(b.stream.alloc_zeros::<T>(n.max(1))?)
}

fn new_data(b: &Backend, dtype: DType, n: usize) -> Result<CudaData> {
    Ok(match dtype {
        DType::F32 => CudaData::F32(alloc(b, n)?),
        DType::F16 => CudaData::F16(alloc(b, n)?),
        DType::BF16 => CudaData::BF16(alloc(b, n)?),
        DType::I64 => CudaData::I64(alloc(b, n)?),
        DType::U8 => CudaData::U8(alloc(b, n)?),
        DType::Bool => CudaData::Bool(alloc(b, n)?),
    })
}

// ---------------------------------------------------------------- strided launch info

/// Mirrors `struct Info` in `cuda_kernels.cu`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Info {
    dims: [u64; MAX_RANK],
    strides: [[u64; MAX_RANK]; 4],
    offsets: [u64; 4],
    rank: i32,
    pad: i32,
}

// SAFETY: `Info` is `repr(C)`, `Copy`, has no pointers, and its layout (8-byte fields, then two
// i32) matches the C struct `Info` the kernels take by value.
unsafe impl DeviceRepr for Info {}

/// The launch info for operands that all have `dims` (already broadcast).
fn info(op: &'static str, layouts: &[&Layout]) -> Result<Info> {
    let dims = &layouts[0].dims;
    if dims.len() > MAX_RANK {
        return Err(Error::RankMismatch {
            op,
            expected: MAX_RANK,
            got: dims.len(),
        });
    }
    let mut inf = Info {
        dims: [1; MAX_RANK],
        strides: [[0; MAX_RANK]; 4],
        offsets: [0; 4],
        rank: i32::try_from(dims.len()).unwrap_or(0),
        pad: 0,
    };
    for (i, &d) in dims.iter().enumerate() {
        inf.dims[i] = d as u64;
    }
    for (w, l) in layouts.iter().enumerate() {
        inf.offsets[w] = l.offset as u64;
        for (i, &s) in l.strides.iter().enumerate() {
            inf.strides[w][i] = s as u64;
        }
    }
    Ok(inf)
}

/// Runs `$body` with `$s` bound to the typed slice, for any dtype.
macro_rules! with_data {
    ($d:expr, |$s:ident| $body:expr) => {
        match $d {
            CudaData::F32($s) => $body,
            CudaData::F16($s) => $body,
            CudaData::BF16($s) => $body,
            CudaData::I64($s) => $body,
            CudaData::U8($s) | CudaData::Bool($s) => $body,
        }
    };
}

/// The element-width suffix of the copy-like kernels.
fn width(dtype: DType) -> &'static str {
    match dtype.size_in_bytes() {
        1 => "b1",
        2 => "b2",
        4 => "b4",
        _ => "b8",
    }
}

/// The type suffix of the arithmetic kernels.
fn type_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        DType::I64 => "i64",
        DType::U8 => "u8",
        DType::Bool => "bool",
    }
}

// ---------------------------------------------------------------- transfers

pub(crate) fn htod(ordinal: usize, host: &CpuStorage) -> Result<CudaStorage> {
    let b = backend(ordinal)?;
    let s = &b.stream;
    let data = match host {
        CpuStorage::F32(v) => CudaData::F32(s.clone_htod(v)?),
        CpuStorage::F16(v) => CudaData::F16(s.clone_htod(v)?),
        CpuStorage::BF16(v) => CudaData::BF16(s.clone_htod(v)?),
        CpuStorage::I64(v) => CudaData::I64(s.clone_htod(v)?),
        CpuStorage::U8(v) => CudaData::U8(s.clone_htod(v)?),
        CpuStorage::Bool(v) => {
            let bytes: Vec<u8> = v.iter().map(|&x| u8::from(x)).collect();
            CudaData::Bool(s.clone_htod(&bytes)?)
        }
    };
    Ok(CudaStorage::new(&b, data))
}

/// Page-locked host copy of a CPU storage (allocated through `cuda:0`'s context, portable).
pub(crate) enum PinnedHost {
    F32(PinnedHostSlice<f32>),
    F16(PinnedHostSlice<f16>),
    BF16(PinnedHostSlice<bf16>),
    I64(PinnedHostSlice<i64>),
    U8(PinnedHostSlice<u8>),
    Bool(PinnedHostSlice<u8>),
}

impl PinnedHost {
    pub(crate) fn len(&self) -> usize {
        match self {
            PinnedHost::F32(p) => p.len(),
            PinnedHost::F16(p) => p.len(),
            PinnedHost::BF16(p) => p.len(),
            PinnedHost::I64(p) => p.len(),
            PinnedHost::U8(p) | PinnedHost::Bool(p) => p.len(),
        }
    }
}

fn pin_slice<T: DeviceRepr + ValidAsZeroBits + Copy>(
    b: &Backend,
    v: &[T],
) -> Result<PinnedHostSlice<T>> {
    let ctx = b.stream.context();
    // SAFETY: the allocation is uninitialised; it is fully written by `copy_from_slice` below
    // before anything reads it (lengths are equal by construction).
    let mut p = unsafe {
        ctx.alloc_pinned_with_flags::<T>(
            v.len().max(1),
            cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE,
        )?
    };
    p.as_mut_slice()?[..v.len()].copy_from_slice(v);
    Ok(p)
}

pub(crate) fn pin(host: &CpuStorage) -> Result<PinnedHost> {
    let b = backend(0)?;
    Ok(match host {
        CpuStorage::F32(v) => PinnedHost::F32(pin_slice(&b, v)?),
        CpuStorage::F16(v) => PinnedHost::F16(pin_slice(&b, v)?),
        CpuStorage::BF16(v) => PinnedHost::BF16(pin_slice(&b, v)?),
        CpuStorage::I64(v) => PinnedHost::I64(pin_slice(&b, v)?),
        CpuStorage::U8(v) => PinnedHost::U8(pin_slice(&b, v)?),
        CpuStorage::Bool(v) => {
            let bytes: Vec<u8> = v.iter().map(|&x| u8::from(x)).collect();
            PinnedHost::Bool(pin_slice(&b, &bytes)?)
        }
    })
}

/// Asynchronous copy of a whole pinned buffer to the device (queued on the stream).
pub(crate) fn htod_pinned(ordinal: usize, pinned: &PinnedHost) -> Result<CudaStorage> {
    let b = backend(ordinal)?;
    let s = &b.stream;
    let data = match pinned {
        PinnedHost::F32(p) => CudaData::F32(s.clone_htod(p)?),
        PinnedHost::F16(p) => CudaData::F16(s.clone_htod(p)?),
        PinnedHost::BF16(p) => CudaData::BF16(s.clone_htod(p)?),
        PinnedHost::I64(p) => CudaData::I64(s.clone_htod(p)?),
        PinnedHost::U8(p) => CudaData::U8(s.clone_htod(p)?),
        PinnedHost::Bool(p) => CudaData::Bool(s.clone_htod(p)?),
    };
    Ok(CudaStorage::new(&b, data))
}

/// Synchronous copy of the elements of `l` to the host, in row-major order.
pub(crate) fn dtoh(c: &CudaStorage, l: &Layout) -> Result<CpuStorage> {
    let dense;
    let src = if l.is_contiguous() && l.offset == 0 && l.elem_count() == c.len() {
        c
    } else {
        dense = contiguous(c, l)?;
        &dense
    };
    let n = l.elem_count();
    let s = &c.backend.stream;
    let host = match &src.data {
        CudaData::F32(d) => CpuStorage::F32(s.clone_dtoh(d)?),
        CudaData::F16(d) => CpuStorage::F16(s.clone_dtoh(d)?),
        CudaData::BF16(d) => CpuStorage::BF16(s.clone_dtoh(d)?),
        CudaData::I64(d) => CpuStorage::I64(s.clone_dtoh(d)?),
        CudaData::U8(d) => CpuStorage::U8(s.clone_dtoh(d)?),
        CudaData::Bool(d) => {
            CpuStorage::Bool(s.clone_dtoh(d)?.into_iter().map(|x| x != 0).collect())
        }
    };
    s.synchronize()?;
    Ok(truncate(host, n))
}

/// Drops the padding element of empty allocations.
fn truncate(mut h: CpuStorage, n: usize) -> CpuStorage {
    match &mut h {
        CpuStorage::F32(v) => v.truncate(n),
        CpuStorage::F16(v) => v.truncate(n),
        CpuStorage::BF16(v) => v.truncate(n),
        CpuStorage::I64(v) => v.truncate(n),
        CpuStorage::U8(v) => v.truncate(n),
        CpuStorage::Bool(v) => v.truncate(n),
    }
    h
}

impl CudaStorage {
    fn len(&self) -> usize {
        with_data!(&self.data, |s| s.len())
    }
}

pub(crate) fn full(ordinal: usize, dtype: DType, n: usize, value: f64) -> Result<CudaStorage> {
    if value == 0.0 {
        let b = backend(ordinal)?;
        let data = new_data(&b, dtype, n)?;
        return Ok(CudaStorage::new(&b, data));
    }
    htod(ordinal, &CpuStorage::full(dtype, n, value))
}

// ---------------------------------------------------------------- elementwise launches

/// Launches `name(n, info, inputs.., out)` over `n` output elements.
fn launch_map(
    b: &Backend,
    name: &str,
    n: usize,
    inf: &Info,
    inputs: &[&CudaData],
    out: &mut CudaData,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let f = b.function(name)?;
    let n64 = n as u64;
    let mut args = b.stream.launch_builder(&f);
    args.arg(&n64);
    args.arg(inf);
    for d in inputs {
        with_data!(*d, |s| {
            args.arg(s);
        });
    }
    with_data!(out, |s| {
        args.arg(s);
    });
    // SAFETY: `name` is a kernel of `cuda_kernels.cu` taking (u64 n, Info, const T* inputs..,
    // T* out) with the element types of these slices; every input offset computed from `inf`
    // lies inside its slice (the layouts index their own storage), and `out` holds at least
    // `n` elements (allocated by the caller for this shape).
    unsafe { args.launch(launch_config(n)) }?;
    Ok(())
}

pub(crate) fn contiguous(c: &CudaStorage, l: &Layout) -> Result<CudaStorage> {
    let b = &c.backend;
    let n = l.elem_count();
    let mut out = new_data(b, c.dtype(), n)?;
    let dst = Layout::contiguous(l.dims.clone());
    let inf = info("contiguous", &[l, &dst])?;
    launch_map(
        b,
        &format!("copy_{}", width(c.dtype())),
        n,
        &inf,
        &[&c.data],
        &mut out,
    )?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn to_dtype(c: &CudaStorage, l: &Layout, dtype: DType) -> Result<CudaStorage> {
    let b = &c.backend;
    let n = l.elem_count();
    let mut out = new_data(b, dtype, n)?;
    let inf = info("to_dtype", &[l])?;
    let name = format!("cast_{}_{}", type_name(c.dtype()), type_name(dtype));
    launch_map(b, &name, n, &inf, &[&c.data], &mut out)?;
    Ok(CudaStorage::new(b, out))
}

fn arith_type(op: &'static str, s: &CudaStorage) -> Result<&'static str> {
    match s.dtype() {
        DType::F32 => Ok("f32"),
        DType::I64 => Ok("i64"),
        DType::U8 | DType::Bool => Ok("u8"),
        DType::F16 | DType::BF16 => Err(unsupported(op, s)),
    }
}

pub(crate) fn binary(
    op: BinaryOp,
    a: &CudaStorage,
    la: &Layout,
    c: &CudaStorage,
    lc: &Layout,
) -> Result<CudaStorage> {
    let b = &a.backend;
    let ty = arith_type(op.name(), a)?;
    if matches!((op, a.dtype()), (BinaryOp::Div, DType::I64 | DType::U8)) {
        return Err(unsupported(op.name(), a));
    }
    let n = la.elem_count();
    let mut out = new_data(b, a.dtype(), n)?;
    let inf = info(op.name(), &[la, lc])?;
    launch_map(
        b,
        &format!("{}_{ty}", op.name()),
        n,
        &inf,
        &[&a.data, &c.data],
        &mut out,
    )?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn cmp(
    op: CmpOp,
    a: &CudaStorage,
    la: &Layout,
    c: &CudaStorage,
    lc: &Layout,
) -> Result<CudaStorage> {
    let b = &a.backend;
    let ty = arith_type(op.name(), a)?;
    let n = la.elem_count();
    let mut out = new_data(b, DType::Bool, n)?;
    let inf = info(op.name(), &[la, lc])?;
    launch_map(
        b,
        &format!("{}_{ty}", op.name()),
        n,
        &inf,
        &[&a.data, &c.data],
        &mut out,
    )?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn unary(op: UnaryOp, a: &CudaStorage, la: &Layout) -> Result<CudaStorage> {
    let b = &a.backend;
    let ty = match (a.dtype(), op) {
        (DType::F32, _) => "f32",
        (DType::I64, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu) => "i64",
        _ => return Err(unsupported(op.name(), a)),
    };
    let n = la.elem_count();
    let mut out = new_data(b, a.dtype(), n)?;
    let inf = info(op.name(), &[la])?;
    launch_map(
        b,
        &format!("{}_{ty}", op.name()),
        n,
        &inf,
        &[&a.data],
        &mut out,
    )?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn affine(a: &CudaStorage, la: &Layout, mul: f64, add: f64) -> Result<CudaStorage> {
    let b = &a.backend;
    let n = la.elem_count();
    let mut out = new_data(b, a.dtype(), n)?;
    if n == 0 {
        return Ok(CudaStorage::new(b, out));
    }
    let inf = info("affine", &[la])?;
    let n64 = n as u64;
    let ty = match a.dtype() {
        DType::F32 => "f32",
        DType::I64 => "i64",
        DType::U8 => "u8",
        _ => return Err(unsupported("affine", a)),
    };
    let f = b.function(&format!("affine_{ty}"))?;
    #[allow(clippy::cast_possible_truncation)]
    let (m32, a32) = (mul as f32, add as f32);
    let mut args = b.stream.launch_builder(&f);
    args.arg(&n64);
    args.arg(&inf);
    with_data!(&a.data, |s| {
        args.arg(s);
    });
    with_data!(&mut out, |s| {
        args.arg(s);
    });
    if ty == "f32" {
        args.arg(&m32);
        args.arg(&a32);
    } else {
        args.arg(&mul);
        args.arg(&add);
    }
    // SAFETY: `affine_<ty>(u64, Info, const T*, T*, S mul, S add)` with S = float for f32 and
    // double otherwise, as pushed; the input offsets lie in `a`, `out` has `n` elements.
    unsafe { args.launch(launch_config(n)) }?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn where_(
    c: &CudaStorage,
    lc: &Layout,
    x: &CudaStorage,
    lx: &Layout,
    y: &CudaStorage,
    ly: &Layout,
) -> Result<CudaStorage> {
    let b = &x.backend;
    let n = lx.elem_count();
    let mut out = new_data(b, x.dtype(), n)?;
    let inf = info("where", &[lc, lx, ly])?;
    let name = format!("where_{}", width(x.dtype()));
    launch_map(b, &name, n, &inf, &[&c.data, &x.data, &y.data], &mut out)?;
    Ok(CudaStorage::new(b, out))
}

// ---------------------------------------------------------------- reductions

/// Launches `name(n, d, inner, src, out)` on a contiguous `[outer, d, inner]` source.
fn launch_reduce(
    b: &Backend,
    name: &str,
    (outer, d, inner): (usize, usize, usize),
    src: &CudaData,
    out: &mut CudaData,
) -> Result<()> {
    let n = outer * inner;
    if n == 0 {
        return Ok(());
    }
    let f = b.function(name)?;
    let (n64, d64, i64_) = (n as u64, d as u64, inner as u64);
    let mut args = b.stream.launch_builder(&f);
    args.arg(&n64);
    args.arg(&d64);
    args.arg(&i64_);
    with_data!(src, |s| {
        args.arg(s);
    });
    with_data!(out, |s| {
        args.arg(s);
    });
    // SAFETY: `name(u64 n, u64 d, u64 inner, const T* src, U* out)`: `src` is contiguous with
    // outer*d*inner elements, `out` has n = outer*inner (or outer*d*inner for softmax, whose
    // caller allocates that many) elements.
    unsafe { args.launch(launch_config(n)) }?;
    Ok(())
}

pub(crate) fn reduce(
    op: ReduceOp,
    a: &CudaStorage,
    la: &Layout,
    dim: usize,
) -> Result<CudaStorage> {
    let b = &a.backend;
    let src = contiguous(a, la)?;
    let shape3 = split3(&la.dims, dim);
    let ty = arith_type(op.name(), a)?;
    let out_dtype = match (op, a.dtype()) {
        (ReduceOp::Argmax, _) | (ReduceOp::Sum, DType::I64 | DType::U8 | DType::Bool) => DType::I64,
        (ReduceOp::Mean, t) if t != DType::F32 => return Err(unsupported("mean", a)),
        (_, t) => t,
    };
    let mut out = new_data(b, out_dtype, shape3.0 * shape3.2)?;
    launch_reduce(
        b,
        &format!("{}_{ty}", op.name()),
        shape3,
        &src.data,
        &mut out,
    )?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn softmax(a: &CudaStorage, la: &Layout, dim: usize) -> Result<CudaStorage> {
    let b = &a.backend;
    if a.dtype() != DType::F32 {
        return Err(unsupported("softmax", a));
    }
    let src = contiguous(a, la)?;
    let mut out = new_data(b, DType::F32, la.elem_count())?;
    launch_reduce(b, "softmax_f32", split3(&la.dims, dim), &src.data, &mut out)?;
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn layer_norm(
    x: &CudaStorage,
    lx: &Layout,
    w: Option<(&CudaStorage, &Layout)>,
    bias: Option<(&CudaStorage, &Layout)>,
    eps: f64,
) -> Result<CudaStorage> {
    let b = &x.backend;
    if x.dtype() != DType::F32 {
        return Err(unsupported("layer_norm", x));
    }
    let d = lx.dims.last().copied().unwrap_or(1);
    let rows = lx.elem_count().checked_div(d).unwrap_or(0);
    let src = contiguous(x, lx)?;
    let w = w.map(|(s, l)| contiguous(s, l)).transpose()?;
    let bias = bias.map(|(s, l)| contiguous(s, l)).transpose()?;
    let mut out = new_data(b, DType::F32, lx.elem_count())?;
    if rows == 0 {
        return Ok(CudaStorage::new(b, out));
    }
    let (CudaData::F32(xs), CudaData::F32(ys)) = (&src.data, &mut out) else {
        return Err(unsupported("layer_norm", x));
    };
    let (wv, bv) = (f32_slice(w.as_ref()), f32_slice(bias.as_ref()));
    let (has_w, has_b) = (i32::from(wv.is_some()), i32::from(bv.is_some()));
    let f = b.function("layer_norm_f32")?;
    let (r64, d64) = (rows as u64, d as u64);
    #[allow(clippy::cast_possible_truncation)]
    let eps32 = eps as f32;
    let mut args = b.stream.launch_builder(&f);
    args.arg(&r64);
    args.arg(&d64);
    args.arg(xs);
    // Absent weight/bias: pass the input pointer, never read (has_w/has_b = 0).
    args.arg(wv.unwrap_or(xs));
    args.arg(bv.unwrap_or(xs));
    args.arg(ys);
    args.arg(&eps32);
    args.arg(&has_w);
    args.arg(&has_b);
    // SAFETY: `layer_norm_f32(u64 rows, u64 d, const float* x, const float* w, const float* b,
    // float* out, float eps, int has_w, int has_b)`: x and out hold rows*d floats; w and b hold
    // d floats when their flag is set (shapes checked by the caller).
    unsafe { args.launch(launch_config(rows)) }?;
    Ok(CudaStorage::new(b, out))
}

/// The f32 slice of an optional storage.
fn f32_slice(s: Option<&CudaStorage>) -> Option<&CudaSlice<f32>> {
    match s.map(|s| &s.data) {
        Some(CudaData::F32(v)) => Some(v),
        _ => None,
    }
}

// ---------------------------------------------------------------- matmul (cuBLAS)

fn gemm_batched<T>(
    b: &Backend,
    (batch, m, k, n): (usize, usize, usize, usize),
    lhs: &CudaSlice<T>,
    rhs: &CudaSlice<T>,
    out: &mut CudaSlice<T>,
    one: T,
    zero: T,
) -> Result<()>
where
    CudaBlas: Gemm<T>,
{
    let int = |x: usize| {
        i32::try_from(x).map_err(|_| Error::InvalidArgument {
            op: "matmul",
            msg: "dimension too large for cuBLAS",
        })
    };
    let long = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees B (n x k, ld n) times
    // A (k x m, ld k), giving C^T (n x m, ld n), i.e. C in row-major.
    let cfg = StridedBatchedConfig {
        gemm: GemmConfig {
            transa: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
            transb: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
            m: int(n)?,
            n: int(m)?,
            k: int(k)?,
            alpha: one,
            lda: int(n)?,
            ldb: int(k)?,
            beta: zero,
            ldc: int(n)?,
        },
        batch_size: int(batch)?,
        stride_a: long(k * n),
        stride_b: long(m * k),
        stride_c: long(m * n),
    };
    // SAFETY: rhs holds batch*k*n, lhs batch*m*k and out batch*m*n contiguous elements (made
    // contiguous by the caller), matching the strides and leading dimensions above.
    unsafe { b.blas.gemm_strided_batched(cfg, rhs, lhs, out) }.map_err(CudaError::from)?;
    Ok(())
}

pub(crate) fn matmul(
    a: &CudaStorage,
    la: &Layout,
    c: &CudaStorage,
    lc: &Layout,
) -> Result<CudaStorage> {
    let b = &a.backend;
    let r = la.dims.len();
    let (m, k, n) = (la.dims[r - 2], la.dims[r - 1], lc.dims[r - 1]);
    let batch: usize = la.dims[..r - 2].iter().product();
    let mut out = new_data(b, a.dtype(), batch * m * n)?;
    if batch * m * n == 0 || k == 0 {
        return Ok(CudaStorage::new(b, out));
    }
    // Materialise broadcast batch dims and strided views as contiguous [batch, m, k] / [batch, k, n].
    let lhs = contiguous(a, la)?;
    let rhs = contiguous(c, lc)?;
    let dims = (batch, m, k, n);
    match (&lhs.data, &rhs.data, &mut out) {
        (CudaData::F32(x), CudaData::F32(y), CudaData::F32(o)) => {
            gemm_batched(b, dims, x, y, o, 1.0, 0.0)?;
        }
        (CudaData::F16(x), CudaData::F16(y), CudaData::F16(o)) => {
            gemm_batched(b, dims, x, y, o, f16::ONE, f16::ZERO)?;
        }
        (CudaData::BF16(x), CudaData::BF16(y), CudaData::BF16(o)) => {
            gemm_batched(b, dims, x, y, o, bf16::ONE, bf16::ZERO)?;
        }
        _ => return Err(unsupported("matmul", a)),
    }
    Ok(CudaStorage::new(b, out))
}

// ---------------------------------------------------------------- cat and index_select

pub(crate) fn cat(parts: &[(&CudaStorage, &Layout)], dim: usize) -> Result<CudaStorage> {
    let (first, l0) = parts[0];
    let b = &first.backend;
    let mut dims = l0.dims.clone();
    dims[dim] = parts.iter().map(|(_, l)| l.dims[dim]).sum();
    let total: usize = dims.iter().product();
    let mut out = new_data(b, first.dtype(), total)?;
    let out_layout = Layout::contiguous(dims);
    let mut start = 0;
    for (s, l) in parts {
        // The destination is the slice [start, start + len) of `dim` in the output.
        let mut dst = out_layout.clone();
        dst.dims[dim] = l.dims[dim];
        dst.offset = start * out_layout.strides[dim];
        let inf = info("cat", &[l, &dst])?;
        launch_map(
            b,
            &format!("copy_{}", width(s.dtype())),
            l.elem_count(),
            &inf,
            &[&s.data],
            &mut out,
        )?;
        start += l.dims[dim];
    }
    Ok(CudaStorage::new(b, out))
}

pub(crate) fn index_select(
    a: &CudaStorage,
    la: &Layout,
    ids: &CudaStorage,
    li: &Layout,
    dim: usize,
    op: &'static str,
) -> Result<CudaStorage> {
    let b = &a.backend;
    // Check the indices on the host (a synchronising copy), as the kernel cannot fail.
    let host = dtoh(ids, li)?;
    let CpuStorage::I64(idx) = &host else {
        return Err(unsupported(op, ids));
    };
    let (outer, d, inner) = split3(&la.dims, dim);
    for &i in idx {
        if usize::try_from(i).map_or(true, |u| u >= d) {
            return Err(Error::IndexOutOfRange {
                op,
                index: i,
                size: d,
            });
        }
    }
    let k = idx.len();
    let src = contiguous(a, la)?;
    let dense_ids = contiguous(ids, li)?;
    let n = outer * k * inner;
    let mut out = new_data(b, a.dtype(), n)?;
    if n == 0 {
        return Ok(CudaStorage::new(b, out));
    }
    let CudaData::I64(idv) = &dense_ids.data else {
        return Err(unsupported(op, ids));
    };
    let f = b.function(&format!("index_select_{}", width(a.dtype())))?;
    let (n64, d64, in64, k64) = (n as u64, d as u64, inner as u64, k as u64);
    let mut args = b.stream.launch_builder(&f);
    args.arg(&n64);
    args.arg(&d64);
    args.arg(&in64);
    args.arg(&k64);
    args.arg(idv);
    with_data!(&src.data, |s| {
        args.arg(s);
    });
    with_data!(&mut out, |s| {
        args.arg(s);
    });
    // SAFETY: `index_select_<w>(u64 n, u64 d, u64 inner, u64 k, const long long* ids, const T*
    // src, T* dst)`: src is contiguous [outer, d, inner], ids holds k values in 0..d (checked
    // above), dst holds n = outer*k*inner elements of the same width.
    unsafe { args.launch(launch_config(n)) }?;
    Ok(CudaStorage::new(b, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel name the launch code can build.
    fn expected_kernels() -> Vec<String> {
        let mut names = Vec::new();
        for w in ["b1", "b2", "b4", "b8"] {
            for k in ["copy", "where", "index_select"] {
                names.push(format!("{k}_{w}"));
            }
        }
        for ty in ["f32", "i64", "u8"] {
            for op in ["add", "sub", "mul", "maximum", "minimum"] {
                names.push(format!("{op}_{ty}"));
            }
            for op in ["eq", "ne", "lt", "le", "gt", "ge"] {
                names.push(format!("{op}_{ty}"));
            }
            for op in ["sum", "max", "argmax", "affine"] {
                names.push(format!("{op}_{ty}"));
            }
        }
        for op in [
            "div",
            "neg",
            "exp",
            "log",
            "sqrt",
            "tanh",
            "gelu",
            "relu",
            "silu",
            "abs",
            "mean",
            "softmax",
            "layer_norm",
        ] {
            names.push(format!("{op}_f32"));
        }
        for op in ["neg", "abs", "relu"] {
            names.push(format!("{op}_i64"));
        }
        for a in DType::ALL {
            for b in DType::ALL {
                if a != b {
                    names.push(format!("cast_{}_{}", type_name(a), type_name(b)));
                }
            }
        }
        names
    }

    /// Compiles the kernels when libnvrtc is present (no GPU or driver needed), and checks
    /// that every name the launch code uses is an entry point.
    #[test]
    fn should_compile_every_kernel_the_launch_code_names() {
        // SAFETY: see `libraries_present`.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            eprintln!("skipping: libnvrtc not found");
            return;
        }
        let ptx = ptx().unwrap_or_else(|e| panic!("{e}"));
        let src = ptx.to_src();
        for name in expected_kernels() {
            assert!(
                src.contains(&format!(".entry {name}(")),
                "missing kernel {name}"
            );
        }
    }

    #[test]
    fn should_report_missing_cuda_as_unavailable() {
        if device_count() > 0 {
            return;
        }
        let err = backend(0).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("cuda unavailable: "), "{err}");
        assert_eq!(memory_allocated(0), 0);
    }
}
