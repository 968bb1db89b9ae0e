//! Tensor ops, split by family. Each op checks devices, dtypes and shapes, then dispatches to
//! the CPU, CUDA or meta backend.

mod binary;
mod index;
mod matmul;
mod reduce;
mod unary;
mod view;

use crate::error::{Error, Operand, Result};
use crate::tensor::{Origin, Tensor};
use crate::{DType, Device};

/// Elementwise arithmetic with broadcasting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Maximum,
    Minimum,
}

impl BinaryOp {
    pub(crate) fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
        }
    }
}

/// Elementwise comparisons, giving bool tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub(crate) fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
        }
    }
}

/// Elementwise functions of one float tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnaryOp {
    Neg,
    Exp,
    Log,
    Sqrt,
    Tanh,
    Gelu,
    Relu,
    Silu,
    Abs,
}

impl UnaryOp {
    pub(crate) fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Gelu => "gelu",
            UnaryOp::Relu => "relu",
            UnaryOp::Silu => "silu",
            UnaryOp::Abs => "abs",
        }
    }
}

/// Reductions over one dim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduceOp {
    Sum,
    Mean,
    Max,
    Argmax,
}

impl ReduceOp {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Argmax => "argmax",
        }
    }
}

/// True for a 0-dim CPU tensor, which PyTorch lets mix with tensors on any device.
fn is_cpu_scalar(t: &Tensor) -> bool {
    t.rank() == 0 && t.device().is_cpu()
}

/// Checks that all operands share a device (0-dim CPU tensors may mix with any device) and
/// returns it. The error names the first operand as `lhs` and the first mismatching one as
/// `rhs`; its origin is the CPU operand's when exactly one of the two is on the CPU.
pub(crate) fn common_device(op: &'static str, operands: &[&Tensor]) -> Result<Device> {
    let Some(first) = operands.first() else {
        return Ok(Device::Cpu);
    };
    let anchor = operands.iter().find(|t| !is_cpu_scalar(t)).unwrap_or(first);
    let device = anchor.device();
    // The error's lhs is the first operand, or the first one that sets the device when the
    // first is a (freely moving) 0-dim CPU tensor.
    let lhs: &Tensor = if is_cpu_scalar(first) { anchor } else { first };
    for t in operands {
        if t.device() != device && !is_cpu_scalar(t) {
            let rhs: &Tensor = t;
            let culprit = if lhs.device().is_cpu() && !rhs.device().is_cpu() {
                Operand::Lhs
            } else {
                Operand::Rhs
            };
            let origin = match culprit {
                Operand::Lhs => lhs.origin(),
                Operand::Rhs => rhs.origin(),
            };
            return Err(Error::DeviceMismatch {
                op,
                lhs: lhs.device(),
                rhs: rhs.device(),
                culprit,
                origin,
            });
        }
    }
    Ok(device)
}

/// Moves a 0-dim CPU operand to `device` (a no-op otherwise).
pub(crate) fn on_device(t: &Tensor, device: Device, origin: Option<Origin>) -> Result<Tensor> {
    if t.device() == device {
        Ok(t.clone())
    } else {
        t.to_impl(device, false, origin)
    }
}

pub(crate) fn check_same_dtype(op: &'static str, a: &Tensor, b: &Tensor) -> Result<DType> {
    if a.dtype() == b.dtype() {
        Ok(a.dtype())
    } else {
        Err(Error::DTypeMismatch {
            op,
            lhs: a.dtype(),
            rhs: b.dtype(),
        })
    }
}

pub(crate) fn internal(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        msg: "operands on different backends (internal error)",
    }
}

/// True when an op on `t` runs on CUDA in f32 (f16/bf16 are cast there and back).
pub(crate) fn cuda_via_f32(device: Device, dtype: DType) -> bool {
    device.is_cuda() && matches!(dtype, DType::F16 | DType::BF16)
}

impl Tensor {
    /// The same tensor with another origin.
    pub(crate) fn with_origin(self, origin: Option<Origin>) -> Tensor {
        if self.origin() == origin {
            return self;
        }
        Tensor(std::sync::Arc::new(crate::tensor::Inner {
            storage: self.0.storage.clone(),
            layout: self.0.layout.clone(),
            dtype: self.0.dtype,
            device: self.0.device,
            origin,
        }))
    }
}
