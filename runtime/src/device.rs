//! Devices: where a tensor's storage lives and where its ops run.

use crate::error::Result;
use crate::storage::cuda;
use std::fmt;

/// The device a tensor lives on, as `torch.device`.
///
/// `Display` gives PyTorch's spelling: "cpu", "cuda:0", "meta".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// Host memory; ops run on the CPU (rayon for large tensors).
    #[default]
    Cpu,
    /// The NVIDIA GPU with this 0-based `ordinal` (`cuda:<ordinal>`).
    Cuda(usize),
    /// No data at all: tensors carry shape and dtype only, and every op checks devices and
    /// shapes and returns a meta tensor (as PyTorch's `meta` device). Use it as a stand-in for
    /// an accelerator in tests.
    Meta,
}

impl Device {
    /// Returns `Device::Cuda(ordinal)` when the CUDA driver is present and has a GPU with that
    /// ordinal, `Device::Cpu` otherwise. Decided at run time, never panics.
    ///
    /// As `torch.device("cuda" if torch.cuda.is_available() else "cpu")`.
    pub fn cuda_if_available(ordinal: usize) -> Device {
        if cuda::ordinal_available(ordinal).is_ok() {
            Device::Cuda(ordinal)
        } else {
            Device::Cpu
        }
    }

    /// Returns whether CUDA can be used at all (driver, NVRTC and at least one GPU), as
    /// `torch.cuda.is_available()`.
    pub fn is_cuda_available() -> bool {
        cuda::device_count() > 0
    }

    /// Returns the number of visible CUDA GPUs: 0 when the driver is missing, as
    /// `torch.cuda.device_count()`.
    pub fn cuda_device_count() -> usize {
        cuda::device_count()
    }

    /// Waits until all work queued on this device has finished, as `torch.cuda.synchronize`.
    /// A no-op on the CPU and on meta.
    ///
    /// # Errors
    /// [`Error::CudaUnavailable`](crate::Error::CudaUnavailable) for a CUDA device that cannot
    /// be used, [`Error::Cuda`](crate::Error::Cuda) if the driver reports an error.
    pub fn synchronize(&self) -> Result<()> {
        match self {
            Device::Cpu | Device::Meta => Ok(()),
            Device::Cuda(ordinal) => cuda::synchronize(*ordinal),
        }
    }

    /// Returns the bytes of device memory held by live tensors on this device (0 for the CPU
    /// and meta), as `torch.cuda.memory_allocated`.
    pub fn memory_allocated(&self) -> usize {
        match self {
            Device::Cuda(ordinal) => cuda::memory_allocated(*ordinal),
            Device::Cpu | Device::Meta => 0,
        }
    }

    /// Returns the bytes of device memory reserved by the runtime, as
    /// `torch.cuda.memory_reserved`. The runtime has no caching allocator of its own, so this
    /// equals [`Device::memory_allocated`]. It does not count the driver's stream-ordered
    /// pool: a freed block goes back to the pool at once (`cuMemFreeAsync`) but the pool may
    /// keep it until the device is synchronised, so the driver (and `nvidia-smi`) can show more.
    pub fn memory_reserved(&self) -> usize {
        self.memory_allocated()
    }

    /// Releases cached, unused memory, as `torch.cuda.empty_cache`. On CUDA the runtime
    /// returns device memory to the driver's stream-ordered pool when the last tensor using
    /// it is dropped; this synchronises the device, after which the pool releases the freed
    /// blocks. On the CPU it drops the pool of recycled large f32 buffers (at most 8) that
    /// elementwise ops reuse. Don't call it in a loop.
    ///
    /// # Errors
    /// As [`Device::synchronize`].
    pub fn empty_cache(&self) -> Result<()> {
        if self.is_cpu() {
            crate::storage::cpu_pool::clear();
        }
        self.synchronize()
    }

    /// Returns true for `Device::Cpu`.
    pub fn is_cpu(&self) -> bool {
        matches!(self, Device::Cpu)
    }

    /// Returns true for any `Device::Cuda`.
    pub fn is_cuda(&self) -> bool {
        matches!(self, Device::Cuda(_))
    }

    /// Returns true for `Device::Meta`.
    pub fn is_meta(&self) -> bool {
        matches!(self, Device::Meta)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(ordinal) => write!(f, "cuda:{ordinal}"),
            Device::Meta => f.write_str("meta"),
        }
    }
}

impl From<&Device> for Device {
    fn from(d: &Device) -> Device {
        *d
    }
}
