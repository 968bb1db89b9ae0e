//! CPU and CUDA tensors with PyTorch's device semantics, and errors that point at the culprit.
//!
//! Every tensor lives on a [`Device`]: `Cpu`, `Cuda(ordinal)` or `Meta` (shape and dtype, no
//! data). Factories take the placement explicitly ([`Tensor::zeros`]`(shape, opts)` with a
//! `Device`, `(DType, Device)`, [`Tensor::options`] or [`TensorOptions::default`]), and every
//! factory, transfer and op records where it was called. Ops on tensors on different devices
//! fail with [`Error::DeviceMismatch`], whose message names the op, both devices and where the
//! stray operand was created:
//!
//! ```
//! use placer_runtime::{Device, Tensor};
//! let x = Tensor::ones([2, 3], Device::Meta)?; // Meta stands in for an accelerator
//! let mask = Tensor::ones([2, 3], Device::Cpu)?;
//! let err = x.mul(&mask).unwrap_err().to_string();
//! assert!(err.starts_with("device mismatch in mul: lhs on meta, rhs on cpu (rhs created at "));
//! # Ok::<(), placer_runtime::Error>(())
//! ```
//!
//! CUDA is detected at run time ([`Device::cuda_if_available`]); without a driver every CUDA
//! request returns [`Error::CudaUnavailable`], never a panic.
//!
//! # API at a glance
//! - Factories (all `#[track_caller]`, options = `Device`, `(DType, Device)`, `x.options()` or
//!   `TensorOptions::default()`): [`Tensor::zeros`], `ones`, `full`, `empty`, `arange`,
//!   `linspace`, `eye`, `rand`, `randn`, `from_vec`, `from_slice`, `scalar`, `triu`, `tril`;
//!   from a tensor: `zeros_like`, `ones_like`, `full_like`, `empty_like`, `rand_like`,
//!   `randn_like`, `new_zeros`, `new_ones`, `new_full`, `new_empty`, `new_tensor`.
//! - Transfers: [`Tensor::to`] (alias `to_device`), `to_non_blocking`, `to_dtype`,
//!   `pin_memory`, `is_pinned`, `contiguous`.
//! - Host reads (synchronising on CUDA): [`Tensor::to_vec`], [`Tensor::item`].
//! - Device: [`Device::cuda_if_available`], `is_cuda_available`, `cuda_device_count`,
//!   `synchronize`, `memory_allocated`, `memory_reserved`, `empty_cache`.
//! - Modules: the [`Module`] trait (`to`, `to_dtype`, `named_parameters`, `state_dict`, ...)
//!   and [`nn::Linear`], [`nn::Embedding`], [`nn::LayerNorm`].
#![warn(missing_docs)]
// Tensor code names dims as in the math (m, n, k, d) and strides by operand (a_rs, b_rs).
#![allow(clippy::many_single_char_names, clippy::similar_names)]

extern crate self as placer_runtime;

mod device;
mod dtype;
mod error;
mod module;
pub mod nn;
mod ops;
mod rng;
mod shape;
mod storage;
mod tensor;

pub use device::Device;
pub use dtype::{DType, WithDType};
pub use error::{Context, CudaError, Error, Operand, Result, WithContext};
pub use half::{bf16, f16};
pub use module::{join_name, Module, ModuleField, StateDict, TensorKind};
pub use placer_macros::module;
pub use rng::manual_seed;
pub use shape::{Dim, Shape};
pub use tensor::{Origin, Tensor, TensorOptions};
