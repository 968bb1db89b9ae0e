//! CUDA backend on cudarc (driver API, NVRTC, cuBLAS), loaded at run time.
//!
//! Availability is decided at run time: cudarc panics when a library is missing, so every
//! entry point goes through [`backend`], which checks `is_culib_present()` for libcuda, NVRTC
//! and cuBLAS before the first call and caches the outcome per ordinal (an error carries the
//! reason). Per ordinal: one context, its default stream, one cuBLAS handle, and the kernels
//! of `cuda_kernels.cu`, compiled with NVRTC once per compute capability: to a CUBIN for the
//! device's `sm_XY` (which loads on any driver that knows the GPU), falling back to PTX for
//! the oldest architecture NVRTC supports (JIT-compiled by the driver, which needs a driver at
//! least as new as NVRTC). A failure names both attempts and the NVRTC and driver versions.
//!
//! Every call that needs the context current binds it first (cudarc's launches and copies
//! do; the cuBLAS calls and the frees in `Drop` are bound here), so storages may be used and
//! dropped on any thread, with several GPUs.
//!
//! Memory: allocations are stream-ordered (`cuMemAllocAsync`/`cuMemFreeAsync` on the
//! device's default stream). A freed block returns to the driver's pool at once but may stay
//! reserved by the pool until the stream is synchronised; [`memory_allocated`] counts the
//! bytes of live storages only. Empty tensors get a one-element allocation (the driver may
//! not return a pointer for 0 bytes).
//!
//! Ops read strided inputs and write contiguous outputs, except matmul: cuBLAS reads
//! contiguous `[batch, m, k]`/`[batch, k, n]` operands, so transposed, strided or broadcast
//! operands are first copied (unlike the CPU backend, which reads them in place), and
//! `layer_norm` copies a strided input, weight or bias to contiguous memory first. f32 runs
//! every op; f16/bf16 go through f32 above this layer, except matmul (cuBLAS, f32
//! accumulation); i64/u8/bool have copies, casts, comparisons, `where`, indexing, and integer
//! arithmetic.
#![allow(unsafe_code)]

use super::cpu::{split3, CpuStorage};
use crate::error::{CudaError, Error, Result};
use crate::ops::{BinaryOp, CmpOp, ReduceOp, UnaryOp};
use crate::shape::Layout;
use crate::{DType, Device};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, StridedBatchedConfig};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr,
    LaunchConfig, PinnedHostSlice, PushKernelArg, ValidAsZeroBits,
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

/// The NVRTC version as "major.minor", or why it is unknown.
fn nvrtc_version() -> String {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: libnvrtc is present (checked by the callers); nvrtcVersion writes two ints.
    let r = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&raw mut major, &raw mut minor) };
    if r == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        format!("{major}.{minor}")
    } else {
        format!("unknown ({r:?})")
    }
}

/// The CUDA version the driver supports, as "major.minor", or why it is unknown.
fn driver_version() -> String {
    let mut v = 0;
    // SAFETY: libcuda is present (checked by the callers); cuDriverGetVersion writes one int.
    let r = unsafe { cudarc::driver::sys::cuDriverGetVersion(&raw mut v) };
    if r == cudarc::driver::sys::CUresult::CUDA_SUCCESS {
        format!("{}.{}", v / 1000, (v % 1000) / 10)
    } else {
        format!("unknown ({r:?})")
    }
}

/// The architectures NVRTC can compile for (e.g. 50, 52, ..., 90), ascending.
fn nvrtc_archs() -> std::result::Result<Vec<i32>, String> {
    let mut n = 0;
    // SAFETY: libnvrtc is present; the first call writes the count, the second fills a
    // buffer of exactly that many ints.
    unsafe {
        if cudarc::nvrtc::sys::nvrtcGetNumSupportedArchs(&raw mut n)
            != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS
        {
            return Err("nvrtcGetNumSupportedArchs failed".into());
        }
        let mut archs = vec![0; usize::try_from(n).unwrap_or(0)];
        if cudarc::nvrtc::sys::nvrtcGetSupportedArchs(archs.as_mut_ptr())
            != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS
        {
            return Err("nvrtcGetSupportedArchs failed".into());
        }
        archs.sort_unstable();
        Ok(archs)
    }
}

/// What NVRTC emits: a CUBIN (SASS) for one real architecture, or PTX for a virtual one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// `--gpu-architecture=sm_XY`, output from `nvrtcGetCUBIN`.
    Cubin(i32),
    /// `--gpu-architecture=compute_XY`, output from `nvrtcGetPTX`.
    Ptx(i32),
}

impl Target {
    fn option(self) -> String {
        match self {
            Target::Cubin(a) => format!("--gpu-architecture=sm_{a}"),
            Target::Ptx(a) => format!("--gpu-architecture=compute_{a}"),
        }
    }
}

/// Compiles the kernels for `target` (cached per target for the process).
fn compile(target: Target) -> std::result::Result<cudarc::nvrtc::Ptx, String> {
    type Images = HashMap<String, std::result::Result<cudarc::nvrtc::Ptx, String>>;
    static IMAGES: OnceLock<Mutex<Images>> = OnceLock::new();
    let option = target.option();
    let mut images = IMAGES
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    images
        .entry(option.clone())
        .or_insert_with(|| match target {
            Target::Ptx(_) => {
                let opts = cudarc::nvrtc::CompileOptions {
                    options: vec![option.clone()],
                    ..Default::default()
                };
                cudarc::nvrtc::compile_ptx_with_opts(KERNELS, opts)
                    .map_err(|e| format!("NVRTC {option}: {e}"))
            }
            Target::Cubin(_) => compile_cubin(&option).map(cudarc::nvrtc::Ptx::from_binary),
        })
        .clone()
}

/// Compiles the kernels to a CUBIN with NVRTC's C API (cudarc's safe API returns PTX only).
fn compile_cubin(option: &str) -> std::result::Result<Vec<u8>, String> {
    use cudarc::nvrtc::{result, sys};
    let src = std::ffi::CString::new(KERNELS).map_err(|e| e.to_string())?;
    let prog = result::create_program(&src, None).map_err(|e| format!("NVRTC {option}: {e}"))?;
    // SAFETY: `prog` was created above and is destroyed once, at the end; `src` outlives it.
    // nvrtcGetCUBINSize writes the size, and nvrtcGetCUBIN fills a buffer of that size.
    let out = unsafe {
        let compiled = result::compile_program(prog, &[option]).map_err(|e| {
            let log = result::get_program_log(prog)
                .map(|l| {
                    let bytes: Vec<u8> = l.iter().map(|&c| c.to_ne_bytes()[0]).collect();
                    String::from_utf8_lossy(&bytes)
                        .trim_end_matches('\0')
                        .to_string()
                })
                .unwrap_or_default();
            format!("NVRTC {option}: {e}: {log}")
        });
        compiled.and_then(|()| {
            let mut size = 0usize;
            if sys::nvrtcGetCUBINSize(prog, &raw mut size) != sys::nvrtcResult::NVRTC_SUCCESS {
                return Err(format!("NVRTC {option}: nvrtcGetCUBINSize failed"));
            }
            let mut cubin = vec![0u8; size];
            if sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast())
                != sys::nvrtcResult::NVRTC_SUCCESS
            {
                return Err(format!("NVRTC {option}: nvrtcGetCUBIN failed"));
            }
            Ok(cubin)
        })
    };
    // SAFETY: created above, not destroyed yet.
    let _ = unsafe { result::destroy_program(prog) };
    out
}

/// Loads the kernels into `ctx`: a CUBIN for the device's compute capability, else PTX for
/// the oldest architecture NVRTC supports. The error names both attempts and the versions.
fn load_kernels(ctx: &Arc<CudaContext>) -> std::result::Result<Arc<CudaModule>, String> {
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| format!("cuDeviceGetAttribute(compute capability) failed: {e}"))?;
    let arch = major * 10 + minor;
    let cubin = compile(Target::Cubin(arch)).and_then(|image| {
        ctx.load_module(image)
            .map_err(|e| format!("cuModuleLoadData(sm_{arch} cubin): {e}"))
    });
    let first = match cubin {
        Ok(m) => return Ok(m),
        Err(e) => e,
    };
    let oldest = nvrtc_archs()?.first().copied().unwrap_or(arch).min(arch);
    compile(Target::Ptx(oldest))
        .and_then(|image| {
            ctx.load_module(image)
                .map_err(|e| format!("cuModuleLoadData(compute_{oldest} ptx): {e}"))
        })
        .map_err(|second| {
            format!(
                "cannot load the runtime's kernels on a sm_{arch} GPU (NVRTC {}, driver \
                 supports CUDA {}): {first}; fallback: {second}",
                nvrtc_version(),
                driver_version()
            )
        })
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
    let module = load_kernels(&ctx)?;
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
        // The slice in `data` is freed right after this (cuMemFreeAsync), which needs this
        // device's context current on the dropping thread; cudarc does not bind it there.
        // An error is recorded in the context and reported by its next call.
        let ctx = self.backend.stream.context();
        ctx.record_err(ctx.bind_to_thread());
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

/// The number of elements to allocate for `n`: at least one, because the driver may return
/// no pointer for a 0-byte allocation (and freeing that later fails on an unrelated call).
pub(crate) fn padded_len(n: usize) -> usize {
    n.max(1)
}

/// Checks the byte size of `n` elements of `T` (cudarc multiplies without a check) and maps
/// the driver's out-of-memory error to [`Error::OutOfMemory`].
fn alloc_checked<T>(
    b: &Backend,
    n: usize,
    f: impl FnOnce(usize) -> std::result::Result<CudaSlice<T>, cudarc::driver::DriverError>,
) -> Result<CudaSlice<T>> {
    let n = padded_len(n);
    let bytes = n
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| isize::try_from(b).is_ok())
        .ok_or(Error::OutOfMemory {
            op: "alloc",
            bytes: usize::MAX,
            device: Device::Cuda(b.ordinal),
        })?;
    f(n).map_err(|e| {
        if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            Error::OutOfMemory {
                op: "alloc",
                bytes,
                device: Device::Cuda(b.ordinal),
            }
        } else {
            e.into()
        }
    })
}

fn alloc<T: DeviceRepr + ValidAsZeroBits>(b: &Backend, n: usize) -> Result<CudaSlice<T>> {
    // Zeroed: a few microseconds more than uninitialised, and no unsafe.
    alloc_checked(b, n, |n| b.stream.alloc_zeros::<T>(n))
}

/// A padded device copy of `v` (see [`padded_len`]): allocated first, then copied, so that an
/// empty host slice never reaches `cuMemAllocAsync` with 0 bytes (as `clone_htod` would).
fn htod_slice<T: DeviceRepr + ValidAsZeroBits, S>(b: &Backend, v: &S) -> Result<CudaSlice<T>>
where
    S: cudarc::driver::HostSlice<T> + ?Sized,
{
    let mut dst = alloc::<T>(b, v.len())?;
    if v.len() > 0 {
        b.stream.memcpy_htod(v, &mut dst)?;
    }
    Ok(dst)
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
    let data = match host {
        CpuStorage::F32(v) => CudaData::F32(htod_slice(&b, v.as_slice())?),
        CpuStorage::F16(v) => CudaData::F16(htod_slice(&b, v.as_slice())?),
        CpuStorage::BF16(v) => CudaData::BF16(htod_slice(&b, v.as_slice())?),
        CpuStorage::I64(v) => CudaData::I64(htod_slice(&b, v.as_slice())?),
        CpuStorage::U8(v) => CudaData::U8(htod_slice(&b, v.as_slice())?),
        CpuStorage::Bool(v) => {
            let mut bytes = super::cpu::try_vec("to", v.len())?;
            bytes.extend(v.iter().map(|&x| u8::from(x)));
            CudaData::Bool(htod_slice(&b, bytes.as_slice())?)
        }
    };
    Ok(CudaStorage::new(&b, data))
}

/// Page-locked host copy of a CPU storage (allocated through `cuda:0`'s context, portable),
/// and the copies from it still in flight.
pub(crate) struct PinnedHost {
    data: PinnedData,
    /// One event per asynchronous copy out of `data`, recorded on the copying stream right
    /// after the copy was queued. cudarc records its own event only when a context has
    /// several streams, so with the runtime's single stream nothing would keep the buffer
    /// alive until the copy has read it: `Drop` waits on these events before freeing.
    in_flight: Mutex<Vec<CudaEvent>>,
    /// The number of elements (the pinned buffer holds `padded_len(len)`).
    len: usize,
}

enum PinnedData {
    F32(PinnedHostSlice<f32>),
    F16(PinnedHostSlice<f16>),
    BF16(PinnedHostSlice<bf16>),
    I64(PinnedHostSlice<i64>),
    U8(PinnedHostSlice<u8>),
    Bool(PinnedHostSlice<u8>),
}

impl PinnedHost {
    /// The number of elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Records, on `stream`, the end of a copy just queued from this buffer; completed
    /// events are dropped.
    fn record_copy(&self, stream: &CudaStream) -> Result<()> {
        let event = stream.record_event(Some(
            cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC,
        ))?;
        let mut events = self
            .in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        events.retain(|e| !e.is_complete());
        events.push(event);
        Ok(())
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // Wait for every copy still reading the buffer; `data` is freed (cuMemFreeHost) after.
        let events = self
            .in_flight
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for e in events.drain(..) {
            e.context().record_err(e.synchronize());
        }
    }
}

fn pin_slice<T: DeviceRepr + ValidAsZeroBits + Copy>(
    b: &Backend,
    v: &[T],
) -> Result<PinnedHostSlice<T>> {
    let ctx = b.stream.context();
    let n = padded_len(v.len());
    if n.checked_mul(std::mem::size_of::<T>())
        .is_none_or(|bytes| isize::try_from(bytes).is_err())
    {
        // cudarc panics on these sizes.
        return Err(Error::OutOfMemory {
            op: "pin_memory",
            bytes: usize::MAX,
            device: Device::Cpu,
        });
    }
    // SAFETY: the allocation is uninitialised; its first `v.len()` elements are written by
    // `copy_from_slice` below before anything reads them, and only those are ever copied to
    // a device (`htod_pinned` copies `len` elements).
    let mut p = unsafe {
        ctx.alloc_pinned_with_flags::<T>(n, cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE)?
    };
    p.as_mut_slice()?[..v.len()].copy_from_slice(v);
    Ok(p)
}

pub(crate) fn pin(host: &CpuStorage) -> Result<PinnedHost> {
    let b = backend(0)?;
    let data = match host {
        CpuStorage::F32(v) => PinnedData::F32(pin_slice(&b, v)?),
        CpuStorage::F16(v) => PinnedData::F16(pin_slice(&b, v)?),
        CpuStorage::BF16(v) => PinnedData::BF16(pin_slice(&b, v)?),
        CpuStorage::I64(v) => PinnedData::I64(pin_slice(&b, v)?),
        CpuStorage::U8(v) => PinnedData::U8(pin_slice(&b, v)?),
        CpuStorage::Bool(v) => {
            let mut bytes = super::cpu::try_vec("pin_memory", v.len())?;
            bytes.extend(v.iter().map(|&x| u8::from(x)));
            PinnedData::Bool(pin_slice(&b, &bytes)?)
        }
    };
    Ok(PinnedHost {
        data,
        in_flight: Mutex::new(Vec::new()),
        len: host.len(),
    })
}

/// Asynchronous copy of a whole pinned buffer to the device (queued on the stream). The
/// buffer is kept alive until the copy has run: an event recorded after it is waited on
/// before the pinned memory is freed.
pub(crate) fn htod_pinned(ordinal: usize, pinned: &PinnedHost) -> Result<CudaStorage> {
    let b = backend(ordinal)?;
    let data = match &pinned.data {
        PinnedData::F32(p) => CudaData::F32(htod_slice(&b, p)?),
        PinnedData::F16(p) => CudaData::F16(htod_slice(&b, p)?),
        PinnedData::BF16(p) => CudaData::BF16(htod_slice(&b, p)?),
        PinnedData::I64(p) => CudaData::I64(htod_slice(&b, p)?),
        PinnedData::U8(p) => CudaData::U8(htod_slice(&b, p)?),
        PinnedData::Bool(p) => CudaData::Bool(htod_slice(&b, p)?),
    };
    pinned.record_copy(&b.stream)?;
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
            // The bytes are read only after the stream has finished the copy.
            let bytes = s.clone_dtoh(d)?;
            s.synchronize()?;
            let mut v = super::cpu::try_vec("to", n)?;
            v.extend(bytes.iter().take(n).map(|&x| x != 0));
            CpuStorage::Bool(v)
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
    htod(ordinal, &CpuStorage::full("full", dtype, n, value)?)
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
    // Integer scalars were checked to be whole numbers in range (`ops::binary`), so these
    // casts are exact (u8 wraps modulo 256, as the CPU does).
    #[allow(clippy::cast_possible_truncation)]
    let (m32, a32) = (mul as f32, add as f32);
    #[allow(clippy::cast_possible_truncation)]
    let (mi, ai) = (mul as i64, add as i64);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (mu, au) = (mi as u8, ai as u8);
    let mut args = b.stream.launch_builder(&f);
    args.arg(&n64);
    args.arg(&inf);
    with_data!(&a.data, |s| {
        args.arg(s);
    });
    with_data!(&mut out, |s| {
        args.arg(s);
    });
    match ty {
        "f32" => {
            args.arg(&m32);
            args.arg(&a32);
        }
        "i64" => {
            args.arg(&mi);
            args.arg(&ai);
        }
        _ => {
            args.arg(&mu);
            args.arg(&au);
        }
    }
    // SAFETY: `affine_<ty>(u64, Info, const T*, T*, T mul, T add)` with T = float, long long
    // or unsigned char, as pushed; the input offsets lie in `a`, `out` has `n` elements.
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
    // cuBLAS runs in the thread's current context, which cudarc does not set for it.
    b.stream.context().bind_to_thread()?;
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

    /// True when `PLACER_REQUIRE_CUDA=1`: a missing library is then a failure, not a skip.
    fn require_cuda() -> bool {
        std::env::var_os("PLACER_REQUIRE_CUDA").is_some_and(|v| v == "1")
    }

    /// True when libnvrtc can be loaded; otherwise prints why the test skips, or fails under
    /// `PLACER_REQUIRE_CUDA=1`.
    fn nvrtc_or_skip() -> bool {
        // SAFETY: see `libraries_present`.
        if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return true;
        }
        assert!(
            !require_cuda(),
            "PLACER_REQUIRE_CUDA=1 but libnvrtc was not found (dlopen of libnvrtc failed)"
        );
        eprintln!("skipping: libnvrtc not found");
        false
    }

    /// Compiles the kernels to PTX for the oldest architecture NVRTC supports (the fallback;
    /// no GPU or driver needed), and checks that every name the launch code uses is an entry
    /// point.
    #[test]
    fn should_compile_every_kernel_the_launch_code_names() {
        if !nvrtc_or_skip() {
            return;
        }
        let archs = nvrtc_archs().unwrap_or_else(|e| panic!("{e}"));
        let oldest = *archs.first().expect("NVRTC supports no architecture");
        let ptx = compile(Target::Ptx(oldest)).unwrap_or_else(|e| panic!("{e}"));
        let src = ptx.to_src();
        for name in expected_kernels() {
            assert!(
                src.contains(&format!(".entry {name}(")),
                "missing kernel {name}"
            );
        }
    }

    /// Compiles a CUBIN for the newest architecture NVRTC supports (the first choice on a GPU)
    /// and checks that every kernel name is in its symbol table.
    #[test]
    fn should_compile_a_cubin_for_a_real_architecture() {
        if !nvrtc_or_skip() {
            return;
        }
        let archs = nvrtc_archs().unwrap_or_else(|e| panic!("{e}"));
        let newest = *archs.last().expect("NVRTC supports no architecture");
        let image =
            compile_cubin(&Target::Cubin(newest).option()).unwrap_or_else(|e| panic!("{e}"));
        assert!(image.starts_with(b"\x7fELF"), "a CUBIN is an ELF image");
        let has = |name: &str| {
            image
                .windows(name.len() + 1)
                .any(|w| w[..name.len()] == *name.as_bytes() && w[name.len()] == 0)
        };
        for name in expected_kernels() {
            assert!(has(&name), "missing kernel {name} in the sm_{newest} cubin");
        }
    }

    #[test]
    fn should_ask_nvrtc_for_sass_of_the_device_and_ptx_of_a_virtual_arch() {
        assert_eq!(Target::Cubin(90).option(), "--gpu-architecture=sm_90");
        assert_eq!(Target::Ptx(52).option(), "--gpu-architecture=compute_52");
    }

    #[test]
    fn should_report_missing_cuda_as_unavailable() {
        if device_count() > 0 {
            return;
        }
        let err = backend(0).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            !require_cuda(),
            "PLACER_REQUIRE_CUDA=1 but no CUDA device can be used: {err}"
        );
        assert!(err.starts_with("cuda unavailable: "), "{err}");
        assert_eq!(memory_allocated(0), 0);
    }

    #[test]
    fn should_allocate_at_least_one_element() {
        assert_eq!(padded_len(0), 1);
        assert_eq!(padded_len(1), 1);
        assert_eq!(padded_len(7), 7);
    }
}
