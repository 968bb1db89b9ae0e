//! Tensor storage: host data, device data, or nothing (meta).

pub(crate) mod cpu;
mod cpu_matmul;
pub(crate) mod cpu_pool;
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

impl Drop for Storage {
    fn drop(&mut self) {
        if let Storage::Cpu(CpuStorage::F32(v)) = self {
            if v.len() >= cpu_pool::MIN_POOLED {
                cpu_pool::give_f32(std::mem::take(v));
            }
        }
    }
}
