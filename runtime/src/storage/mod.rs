//! Tensor storage: host data, device data, or nothing (meta).

pub(crate) mod cpu;
mod cpu_matmul;
pub(crate) mod cuda;

pub(crate) use cpu_matmul::matmul as cpu_matmul;

use cpu::CpuStorage;

/// The data behind one or more tensors (views share it through an `Arc`). Not `Clone`: copying
/// device memory can fail.
pub(crate) enum Storage {
    /// Pageable host memory.
    Cpu(CpuStorage),
    /// Host data with a page-locked (pinned) copy used for asynchronous host-to-device copies.
    PinnedCpu(CpuStorage, cuda::PinnedHost),
    /// Device memory on one GPU.
    Cuda(cuda::CudaStorage),
    /// No data (shape and dtype only, kept by the tensor).
    Meta,
}

impl Storage {
    /// Host data, for CPU storage.
    pub(crate) fn as_cpu(&self) -> Option<&CpuStorage> {
        match self {
            Storage::Cpu(c) | Storage::PinnedCpu(c, _) => Some(c),
            _ => None,
        }
    }
}
