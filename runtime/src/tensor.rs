//! `Tensor`: an n-dimensional array on a device, with cheap clones and views.

use crate::device::Device;
use crate::dtype::{DType, WithDType};
use crate::error::{Error, Result};
use crate::shape::{check_dims, Dim, Layout, Shape};
use crate::storage::cpu::{self, CpuStorage};
use crate::storage::{cuda, Storage};
use std::fmt;
use std::panic::Location;
use std::sync::Arc;

/// Where a tensor was created: the caller of the factory, transfer or op that made it.
pub type Origin = &'static Location<'static>;

#[track_caller]
pub(crate) fn caller() -> Option<Origin> {
    if cfg!(feature = "origins") {
        Some(Location::caller())
    } else {
        None
    }
}

/// Dtype and device for a factory, as PyTorch's `dtype=`/`device=` keyword arguments.
///
/// Built from a [`Device`] (dtype left to the factory: f32, or the element type of the data
/// for [`Tensor::from_vec`]), a `(DType, Device)` pair, [`Tensor::options`] (same dtype and
/// device as an existing tensor), or `TensorOptions::default()` (CPU, f32: PyTorch's default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TensorOptions {
    /// The dtype, `None` for the factory's default.
    pub dtype: Option<DType>,
    /// The device.
    pub device: Device,
}

impl TensorOptions {
    /// Returns these options with `dtype` set.
    #[must_use]
    pub fn dtype(self, dtype: DType) -> Self {
        TensorOptions {
            dtype: Some(dtype),
            ..self
        }
    }

    /// Returns these options with `device` set.
    #[must_use]
    pub fn device(self, device: Device) -> Self {
        TensorOptions { device, ..self }
    }

    fn dtype_or_f32(self) -> DType {
        self.dtype.unwrap_or(DType::F32)
    }
}

impl From<Device> for TensorOptions {
    fn from(device: Device) -> Self {
        TensorOptions {
            dtype: None,
            device,
        }
    }
}
impl From<&Device> for TensorOptions {
    fn from(device: &Device) -> Self {
        (*device).into()
    }
}
impl From<(DType, Device)> for TensorOptions {
    fn from((dtype, device): (DType, Device)) -> Self {
        TensorOptions {
            dtype: Some(dtype),
            device,
        }
    }
}
impl From<(DType, &Device)> for TensorOptions {
    fn from((dtype, device): (DType, &Device)) -> Self {
        (dtype, *device).into()
    }
}
impl From<DType> for TensorOptions {
    fn from(dtype: DType) -> Self {
        (dtype, Device::Cpu).into()
    }
}

pub(crate) struct Inner {
    pub(crate) storage: Arc<Storage>,
    pub(crate) layout: Layout,
    pub(crate) dtype: DType,
    pub(crate) device: Device,
    pub(crate) origin: Option<Origin>,
}

/// An n-dimensional array of one [`DType`] on one [`Device`].
///
/// Cloning is cheap (reference-counted). Views (`reshape` of contiguous data, `transpose`,
/// `narrow`, `broadcast_as`, ...) share storage with their source. Tensors are immutable: every
/// op returns a new tensor. There is no autograd.
///
/// Every factory, transfer and op records its caller ([`Tensor::origin`]); device-mismatch
/// errors use it to point at the stray operand.
#[derive(Clone)]
pub struct Tensor(pub(crate) Arc<Inner>);

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor[{:?}, {}, {}]",
            self.dims(),
            self.dtype(),
            self.device()
        )?;
        if let Some(o) = self.origin() {
            write!(f, " created at {o}")?;
        }
        Ok(())
    }
}

impl Tensor {
    pub(crate) fn from_parts(
        storage: Storage,
        dims: Vec<usize>,
        dtype: DType,
        device: Device,
        origin: Option<Origin>,
    ) -> Tensor {
        // Every shape was checked before its storage was made (see `check_dims`).
        debug_assert!(
            check_dims("from_parts", &dims, dtype).is_ok(),
            "unchecked shape {dims:?}"
        );
        Tensor(Arc::new(Inner {
            storage: Arc::new(storage),
            layout: Layout::contiguous(dims),
            dtype,
            device,
            origin,
        }))
    }

    /// A view of the same storage with another layout.
    pub(crate) fn view(&self, layout: Layout, origin: Option<Origin>) -> Tensor {
        Tensor(Arc::new(Inner {
            storage: self.0.storage.clone(),
            layout,
            dtype: self.0.dtype,
            device: self.0.device,
            origin,
        }))
    }

    pub(crate) fn storage(&self) -> &Storage {
        &self.0.storage
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.0.layout
    }

    // ------------------------------------------------------------------ accessors

    /// Returns the shape.
    pub fn shape(&self) -> Shape {
        Shape::from(self.dims())
    }

    /// Returns the size of each dimension, outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.0.layout.dims
    }

    /// Returns the size of dimension `dim` (negative counts from the end), as `x.size(dim)`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    pub fn dim(&self, dim: impl Dim) -> Result<usize> {
        Ok(self.dims()[dim.to_index(self.rank(), "dim")?])
    }

    /// Returns the strides in elements.
    pub fn strides(&self) -> &[usize] {
        &self.0.layout.strides
    }

    /// Returns the number of dimensions (0 for a scalar tensor).
    pub fn rank(&self) -> usize {
        self.dims().len()
    }

    /// Returns the number of elements, as `x.numel()`.
    pub fn elem_count(&self) -> usize {
        self.0.layout.elem_count()
    }

    /// Returns the dtype.
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }

    /// Returns the device the data lives on.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// Returns the dtype and device of this tensor, for factories: `Tensor::zeros(s, x.options())`.
    pub fn options(&self) -> TensorOptions {
        (self.dtype(), self.device()).into()
    }

    /// Returns where this tensor was created (the caller of the factory, transfer or op), or
    /// `None` when the `origins` feature is off.
    pub fn origin(&self) -> Option<Origin> {
        self.0.origin
    }

    /// Returns whether the elements are in row-major order without gaps, as `x.is_contiguous()`.
    pub fn is_contiguous(&self) -> bool {
        self.0.layout.is_contiguous()
    }

    /// Returns whether the data is in page-locked host memory (see [`Tensor::pin_memory`]).
    pub fn is_pinned(&self) -> bool {
        matches!(self.storage(), Storage::PinnedCpu(..))
    }

    /// Returns whether `self` and `other` are views of the same storage.
    pub fn same_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0.storage, &other.0.storage)
    }

    // ------------------------------------------------------------------ factories

    /// Builds a tensor from host data of the given CPU storage on `device`.
    #[track_caller]
    pub(crate) fn from_cpu_storage(
        data: CpuStorage,
        dims: Vec<usize>,
        device: Device,
    ) -> Result<Tensor> {
        let origin = caller();
        let dtype = data.dtype();
        let storage = match device {
            Device::Cpu => Storage::Cpu(data),
            Device::Meta => Storage::Meta,
            Device::Cuda(ordinal) => Storage::Cuda(cuda::htod(ordinal, &data)?),
        };
        Ok(Tensor::from_parts(storage, dims, dtype, device, origin))
    }

    #[track_caller]
    pub(crate) fn full_impl(
        op: &'static str,
        shape: &Shape,
        value: f64,
        opts: TensorOptions,
    ) -> Result<Tensor> {
        let origin = caller();
        let dtype = opts.dtype_or_f32();
        let dims = shape.dims().to_vec();
        let n = check_dims(op, &dims, dtype)?;
        check_fill_value(op, value, dtype)?;
        let storage = match opts.device {
            Device::Cpu => Storage::Cpu(CpuStorage::full(op, dtype, n, value)?),
            Device::Meta => Storage::Meta,
            Device::Cuda(ordinal) => Storage::Cuda(cuda::full(ordinal, dtype, n, value)?),
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            dtype,
            opts.device,
            origin,
        ))
    }

    /// Returns a tensor filled with zeros, as `torch.zeros(shape, dtype=, device=)`.
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`, dtype `opts.dtype` (f32 by default).
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] if the shape has more bytes than can be addressed (checked on
    /// every device, meta included); [`Error::OutOfMemory`] if the host allocation fails;
    /// [`Error::CudaUnavailable`] / [`Error::Cuda`] for a CUDA device that cannot be used.
    ///
    /// # Examples
    /// ```
    /// use placer_runtime::{Device, Tensor};
    /// let x = Tensor::zeros([2, 3], Device::Cpu)?;
    /// assert_eq!(x.to_vec::<f32>()?, vec![0.0; 6]);
    /// # Ok::<(), placer_runtime::Error>(())
    /// ```
    #[track_caller]
    pub fn zeros(shape: impl Into<Shape>, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_impl("zeros", &shape.into(), 0.0, opts.into())
    }

    /// Returns a tensor filled with ones, as `torch.ones`.
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn ones(shape: impl Into<Shape>, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_impl("ones", &shape.into(), 1.0, opts.into())
    }

    /// Returns a tensor filled with `value` (converted to the dtype as `as` does: integers
    /// truncate toward zero, bool is `value != 0`), as `torch.full`.
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`.
    ///
    /// # Errors
    /// [`Error::ScalarOutOfRange`] for an integer dtype and a NaN or infinite `value`, or one
    /// that `as` would saturate (outside `i64`, or outside `0..256` for `u8`), as PyTorch
    /// refuses them; otherwise as [`Tensor::zeros`].
    #[track_caller]
    pub fn full(
        shape: impl Into<Shape>,
        value: f64,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        Tensor::full_impl("full", &shape.into(), value, opts.into())
    }

    /// Returns an uninitialised tensor, as `torch.empty`. The runtime zero-fills it (reading
    /// it is safe, but don't rely on the values).
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn empty(shape: impl Into<Shape>, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_impl("empty", &shape.into(), 0.0, opts.into())
    }

    /// Returns the 1-D tensor `start, start + step, ...` up to but excluding `end`, as
    /// `torch.arange(start, end, step)`.
    ///
    /// # Shapes
    /// - output: `[ceil((end - start) / step)]`, on `opts.device`.
    ///
    /// On meta no values are computed, whatever the length.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `start` or `end` is not finite, or `step` is 0, not
    /// finite or has the wrong sign; [`Error::ShapeOverflow`] if the length does not fit;
    /// otherwise as [`Tensor::zeros`].
    #[track_caller]
    pub fn arange(
        start: f64,
        end: f64,
        step: f64,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let op = "arange";
        let opts = opts.into();
        if !start.is_finite() || !end.is_finite() {
            return Err(Error::InvalidArgument {
                op,
                msg: "start and end must be finite",
            });
        }
        if step == 0.0 || !step.is_finite() || (end - start) * step < 0.0 {
            return Err(Error::InvalidArgument {
                op,
                msg: "step must be non-zero and point from start to end",
            });
        }
        let len = ((end - start) / step).ceil().max(0.0);
        // `as` saturates: a length of 2^64 or more becomes usize::MAX, which check_dims rejects.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = len as usize;
        let dtype = opts.dtype_or_f32();
        check_dims(op, &[n], dtype)?;
        #[allow(clippy::cast_precision_loss)]
        Tensor::from_f64_fn(op, n, |i| start + i as f64 * step, vec![n], opts)
    }

    /// A tensor of `dims` holding `f(i)` for the `n` row-major indices `i`, converted to the
    /// options' dtype; on meta `f` is never called (the shape was checked by the caller).
    #[track_caller]
    fn from_f64_fn(
        op: &'static str,
        n: usize,
        f: impl Fn(usize) -> f64,
        dims: Vec<usize>,
        opts: TensorOptions,
    ) -> Result<Tensor> {
        let dtype = opts.dtype_or_f32();
        if opts.device.is_meta() {
            return Ok(Tensor::from_parts(
                Storage::Meta,
                dims,
                dtype,
                Device::Meta,
                caller(),
            ));
        }
        let mut vals = cpu::try_vec(op, n)?;
        vals.extend((0..n).map(f));
        let data = CpuStorage::from_f64s(op, dtype, &vals)?;
        Tensor::from_cpu_storage(data, dims, opts.device)
    }

    /// Returns `steps` evenly spaced values from `start` to `end` inclusive, as
    /// `torch.linspace`.
    ///
    /// # Shapes
    /// - output: `[steps]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn linspace(
        start: f64,
        end: f64,
        steps: usize,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let opts = opts.into();
        check_dims("linspace", &[steps], opts.dtype_or_f32())?;
        #[allow(clippy::cast_precision_loss)]
        let f = |i: usize| {
            if steps == 1 {
                start
            } else {
                start + (end - start) * i as f64 / (steps - 1) as f64
            }
        };
        Tensor::from_f64_fn("linspace", steps, f, vec![steps], opts)
    }

    /// Returns the `n x n` identity matrix, as `torch.eye(n)`.
    ///
    /// # Shapes
    /// - output: `[n, n]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn eye(n: usize, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::tri_impl("eye", n, |i, j| i == j, opts.into())
    }

    /// Returns an `n x n` matrix of ones on and above diagonal `diagonal` (0 is the main
    /// diagonal, 1 the one above) and zeros below, as `torch.triu(torch.ones(n, n), diagonal)`.
    /// With dtype `Bool` and `diagonal = 1` it is a causal attention mask.
    ///
    /// # Shapes
    /// - output: `[n, n]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn triu(n: usize, diagonal: i64, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::tri_impl("triu", n, |i, j| sub(j, i) >= diagonal, opts.into())
    }

    /// Returns an `n x n` matrix of ones on and below diagonal `diagonal` and zeros above, as
    /// `torch.tril(torch.ones(n, n), diagonal)`.
    ///
    /// # Shapes
    /// - output: `[n, n]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn tril(n: usize, diagonal: i64, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::tri_impl("tril", n, |i, j| sub(j, i) <= diagonal, opts.into())
    }

    #[track_caller]
    fn tri_impl(
        op: &'static str,
        n: usize,
        f: impl Fn(usize, usize) -> bool,
        opts: TensorOptions,
    ) -> Result<Tensor> {
        let count = check_dims(op, &[n, n], opts.dtype_or_f32())?;
        let g = |k: usize| if f(k / n, k % n) { 1.0 } else { 0.0 };
        Tensor::from_f64_fn(op, count, g, vec![n, n], opts)
    }

    /// Returns samples from the uniform distribution on `[0, 1)`, as `torch.rand`. Uses the
    /// runtime's generator (see [`manual_seed`](crate::manual_seed)); values are drawn on the
    /// host and copied to the device.
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn rand(shape: impl Into<Shape>, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        let (shape, opts) = (shape.into(), opts.into());
        let n = check_dims("rand", shape.dims(), opts.dtype_or_f32())?;
        let vals = if opts.device.is_meta() {
            Vec::new()
        } else {
            crate::rng::uniform(n)?
        };
        Tensor::random_impl("rand", &shape, vals, opts)
    }

    /// Returns samples from the standard normal distribution, as `torch.randn`.
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn randn(shape: impl Into<Shape>, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        let (shape, opts) = (shape.into(), opts.into());
        let n = check_dims("randn", shape.dims(), opts.dtype_or_f32())?;
        let vals = if opts.device.is_meta() {
            Vec::new()
        } else {
            crate::rng::normal(n)?
        };
        Tensor::random_impl("randn", &shape, vals, opts)
    }

    #[track_caller]
    fn random_impl(
        op: &'static str,
        shape: &Shape,
        vals: Vec<f32>,
        opts: TensorOptions,
    ) -> Result<Tensor> {
        let dtype = opts.dtype_or_f32();
        if !dtype.is_float() {
            return Err(Error::UnsupportedDType {
                op,
                dtype,
                device: opts.device,
            });
        }
        let data = CpuStorage::from_f32s(op, dtype, vals)?;
        Tensor::from_cpu_storage(data, shape.dims().to_vec(), opts.device)
    }

    /// Returns a tensor holding `data` in row-major order, as `torch.tensor(data).reshape(shape)`.
    /// The dtype is that of `T` unless `opts` names one (then the data is converted).
    ///
    /// # Shapes
    /// - output: `shape`, on `opts.device`.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] for a shape too large to address; [`Error::ElementCountMismatch`]
    /// if `data.len()` is not the shape's element count; otherwise as [`Tensor::zeros`].
    ///
    /// # Examples
    /// ```
    /// use placer_runtime::{Device, Tensor};
    /// let x = Tensor::from_vec(vec![1i64, 2, 3, 4], [2, 2], Device::Cpu)?;
    /// assert_eq!(x.dims(), &[2, 2]);
    /// # Ok::<(), placer_runtime::Error>(())
    /// ```
    #[track_caller]
    pub fn from_vec<T: WithDType>(
        data: Vec<T>,
        shape: impl Into<Shape>,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let (shape, opts) = (shape.into(), opts.into());
        let expected = check_dims("from_vec", shape.dims(), opts.dtype.unwrap_or(T::DTYPE))?;
        if data.len() != expected {
            return Err(Error::ElementCountMismatch {
                op: "from_vec",
                expected,
                got: data.len(),
            });
        }
        let mut storage = T::wrap(data);
        if let Some(dtype) = opts.dtype {
            if dtype != T::DTYPE {
                let l = Layout::contiguous(vec![storage.len()]);
                storage = cpu::to_dtype(&storage, &l, dtype)?;
            }
        }
        Tensor::from_cpu_storage(storage, shape.dims().to_vec(), opts.device)
    }

    /// As [`Tensor::from_vec`], copying from a slice.
    ///
    /// # Errors
    /// As [`Tensor::from_vec`].
    #[track_caller]
    pub fn from_slice<T: WithDType>(
        data: &[T],
        shape: impl Into<Shape>,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        Tensor::from_vec(data.to_vec(), shape, opts)
    }

    /// Returns a 0-dim tensor holding `value`, as `torch.tensor(value)`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn scalar(value: f64, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_impl("scalar", &Shape::from(()), value, opts.into())
    }

    // ------------------------------------------------------------------ *_like / new_*

    /// Returns zeros with the shape, dtype and device of `self`, as `torch.zeros_like`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn zeros_like(&self) -> Result<Tensor> {
        Tensor::full_impl("zeros_like", &self.shape(), 0.0, self.options())
    }

    /// Returns ones with the shape, dtype and device of `self`, as `torch.ones_like`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn ones_like(&self) -> Result<Tensor> {
        Tensor::full_impl("ones_like", &self.shape(), 1.0, self.options())
    }

    /// Returns `value` everywhere, with the shape, dtype and device of `self`, as
    /// `torch.full_like`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn full_like(&self, value: f64) -> Result<Tensor> {
        Tensor::full_impl("full_like", &self.shape(), value, self.options())
    }

    /// As [`Tensor::zeros_like`] (`torch.empty_like`).
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn empty_like(&self) -> Result<Tensor> {
        Tensor::full_impl("empty_like", &self.shape(), 0.0, self.options())
    }

    /// Returns uniform samples with the shape, dtype and device of `self`, as `torch.rand_like`.
    ///
    /// # Errors
    /// As [`Tensor::rand`].
    #[track_caller]
    pub fn rand_like(&self) -> Result<Tensor> {
        Tensor::rand(self.shape(), self.options())
    }

    /// Returns normal samples with the shape, dtype and device of `self`, as `torch.randn_like`.
    ///
    /// # Errors
    /// As [`Tensor::randn`].
    #[track_caller]
    pub fn randn_like(&self) -> Result<Tensor> {
        Tensor::randn(self.shape(), self.options())
    }

    /// Returns zeros of `shape` with the dtype and device of `self`, as `x.new_zeros(shape)`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn new_zeros(&self, shape: impl Into<Shape>) -> Result<Tensor> {
        Tensor::full_impl("new_zeros", &shape.into(), 0.0, self.options())
    }

    /// Returns ones of `shape` with the dtype and device of `self`, as `x.new_ones(shape)`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn new_ones(&self, shape: impl Into<Shape>) -> Result<Tensor> {
        Tensor::full_impl("new_ones", &shape.into(), 1.0, self.options())
    }

    /// Returns `value` in `shape` with the dtype and device of `self`, as `x.new_full`.
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn new_full(&self, shape: impl Into<Shape>, value: f64) -> Result<Tensor> {
        Tensor::full_impl("new_full", &shape.into(), value, self.options())
    }

    /// As [`Tensor::new_zeros`] (`x.new_empty`).
    ///
    /// # Errors
    /// As [`Tensor::zeros`].
    #[track_caller]
    pub fn new_empty(&self, shape: impl Into<Shape>) -> Result<Tensor> {
        Tensor::full_impl("new_empty", &shape.into(), 0.0, self.options())
    }

    /// Returns `data` in `shape` with the dtype and device of `self`, as `x.new_tensor(data)`.
    ///
    /// # Errors
    /// As [`Tensor::from_vec`].
    #[track_caller]
    pub fn new_tensor<T: WithDType>(
        &self,
        data: Vec<T>,
        shape: impl Into<Shape>,
    ) -> Result<Tensor> {
        Tensor::from_vec(data, shape, self.options())
    }

    // ------------------------------------------------------------------ transfers

    /// Returns this tensor on `device`, as `torch.Tensor.to(device)`. A cheap clone (same
    /// storage, same origin) when already there; otherwise a copy whose origin is the caller.
    /// A copy to the CPU from CUDA waits for the device (a synchronising host copy); a copy
    /// between two GPUs goes through the host.
    ///
    /// # Errors
    /// [`Error::MetaData`] when copying out of a meta tensor (it has no data);
    /// [`Error::CudaUnavailable`] / [`Error::Cuda`] for CUDA problems.
    ///
    /// # Examples
    /// ```
    /// use placer_runtime::{Device, Tensor};
    /// let dev = Device::cuda_if_available(0);
    /// let x = Tensor::ones([2, 2], Device::Cpu)?.to(&dev)?;
    /// assert_eq!(x.device(), dev);
    /// # Ok::<(), placer_runtime::Error>(())
    /// ```
    #[track_caller]
    pub fn to(&self, device: &Device) -> Result<Tensor> {
        self.to_impl(*device, false, caller())
    }

    /// The same as [`Tensor::to`] (candle's spelling).
    ///
    /// # Errors
    /// As [`Tensor::to`].
    #[track_caller]
    pub fn to_device(&self, device: &Device) -> Result<Tensor> {
        self.to_impl(*device, false, caller())
    }

    /// As [`Tensor::to`] with `non_blocking=True`: from pinned host memory (see
    /// [`Tensor::pin_memory`]) to CUDA the copy is queued on the device's stream and this
    /// returns at once; ops on the result run after the copy. From pageable memory the copy is
    /// synchronous, as in PyTorch.
    ///
    /// # Errors
    /// As [`Tensor::to`].
    #[track_caller]
    pub fn to_non_blocking(&self, device: &Device) -> Result<Tensor> {
        self.to_impl(*device, true, caller())
    }

    pub(crate) fn to_impl(
        &self,
        device: Device,
        non_blocking: bool,
        origin: Option<Origin>,
    ) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let dims = self.dims().to_vec();
        let storage = match (self.storage(), device) {
            (_, Device::Meta) => Storage::Meta,
            (Storage::Meta, _) => return Err(Error::MetaData { op: "to" }),
            // The whole pinned buffer, in order: one asynchronous copy.
            (Storage::PinnedCpu(_, pinned), Device::Cuda(ordinal))
                if non_blocking && self.layout().contiguous_range() == Some(0..pinned.len()) =>
            {
                Storage::Cuda(cuda::htod_pinned(ordinal, pinned)?)
            }
            (_, Device::Cuda(ordinal)) => {
                let host = self.cpu_data("to")?;
                Storage::Cuda(cuda::htod(ordinal, &host)?)
            }
            (Storage::Cuda(c), Device::Cpu) => Storage::Cpu(cuda::dtoh(c, self.layout())?),
            (Storage::Cpu(_) | Storage::PinnedCpu(..), Device::Cpu) => return Ok(self.clone()),
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            self.dtype(),
            device,
            origin,
        ))
    }

    /// Returns a copy in page-locked host memory, as `torch.Tensor.pin_memory()`, so that
    /// [`Tensor::to_non_blocking`] can copy it to CUDA asynchronously. The runtime keeps the
    /// pageable copy for CPU ops as well (pinned tensors use twice the host memory).
    ///
    /// # Errors
    /// [`Error::NotPinnable`] if the tensor is not on the CPU; [`Error::CudaUnavailable`]
    /// without a CUDA driver (PyTorch needs an accelerator to pin memory, too).
    #[track_caller]
    pub fn pin_memory(&self) -> Result<Tensor> {
        let origin = caller();
        if !self.device().is_cpu() {
            return Err(Error::NotPinnable {
                device: self.device(),
            });
        }
        if self.is_pinned() {
            return Ok(self.clone());
        }
        let host = self.cpu_data("pin_memory")?;
        let pinned = cuda::pin(&host)?;
        let dims = self.dims().to_vec();
        Ok(Tensor::from_parts(
            Storage::PinnedCpu(host, pinned),
            dims,
            self.dtype(),
            Device::Cpu,
            origin,
        ))
    }

    /// Returns this tensor converted to `dtype` on the same device, as
    /// `torch.Tensor.to(dtype)`. A cheap clone if the dtype is already `dtype`. Float to integer
    /// truncates toward zero and saturates; anything to bool is `!= 0`.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] if the shape does not fit in `dtype`'s wider elements;
    /// [`Error::OutOfMemory`] if the host allocation fails; [`Error::Cuda`] for CUDA failures.
    #[track_caller]
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        let origin = caller();
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let dims = self.dims().to_vec();
        // A wider dtype needs more bytes for the same shape.
        check_dims("to_dtype", &dims, dtype)?;
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(c) => Storage::Cuda(cuda::to_dtype(c, self.layout(), dtype)?),
            s => Storage::Cpu(cpu::to_dtype(
                s.as_cpu().ok_or(Error::MetaData { op: "to_dtype" })?,
                self.layout(),
                dtype,
            )?),
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            dtype,
            self.device(),
            origin,
        ))
    }

    /// Returns a tensor with the same elements in row-major order without gaps, as
    /// `x.contiguous()`: `self` (a cheap clone) when already contiguous, a copy otherwise.
    ///
    /// # Errors
    /// [`Error::Cuda`] for CUDA failures.
    #[track_caller]
    pub fn contiguous(&self) -> Result<Tensor> {
        let origin = caller();
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        let dims = self.dims().to_vec();
        let storage = match self.storage() {
            Storage::Meta => Storage::Meta,
            Storage::Cuda(c) => Storage::Cuda(cuda::contiguous(c, self.layout())?),
            s => Storage::Cpu(cpu::contiguous(
                "contiguous",
                s.as_cpu().ok_or(Error::MetaData { op: "contiguous" })?,
                self.layout(),
            )?),
        };
        Ok(Tensor::from_parts(
            storage,
            dims,
            self.dtype(),
            self.device(),
            origin,
        ))
    }

    // ------------------------------------------------------------------ host reads

    /// Contiguous host copy of the elements.
    pub(crate) fn cpu_data(&self, op: &'static str) -> Result<CpuStorage> {
        match self.storage() {
            Storage::Meta => Err(Error::MetaData { op }),
            Storage::Cuda(c) => cuda::dtoh(c, self.layout()),
            s => cpu::contiguous(op, s.as_cpu().ok_or(Error::MetaData { op })?, self.layout()),
        }
    }

    /// Returns the elements in row-major order as a host vector, as `x.flatten().tolist()`. On
    /// CUDA this copies to the host and waits for the device (a synchronising host read).
    ///
    /// # Errors
    /// [`Error::DTypeMismatch`] if `T` is not the tensor's dtype; [`Error::MetaData`] on meta;
    /// [`Error::Cuda`] for CUDA failures.
    ///
    /// # Examples
    /// ```
    /// use placer_runtime::{Device, Tensor};
    /// let x = Tensor::arange(0.0, 3.0, 1.0, Device::Cpu)?;
    /// assert_eq!(x.to_vec::<f32>()?, vec![0.0, 1.0, 2.0]);
    /// # Ok::<(), placer_runtime::Error>(())
    /// ```
    pub fn to_vec<T: WithDType>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype() {
            return Err(Error::DTypeMismatch {
                op: "to_vec",
                lhs: self.dtype(),
                rhs: T::DTYPE,
            });
        }
        let data = self.cpu_data("to_vec")?;
        Ok(T::unwrap(&data).map(<[T]>::to_vec).unwrap_or_default())
    }

    /// Returns the single element of a one-element tensor, as `x.item()`. On CUDA a
    /// synchronising host read.
    ///
    /// # Errors
    /// [`Error::ElementCountMismatch`] if the tensor does not have exactly one element;
    /// otherwise as [`Tensor::to_vec`].
    pub fn item<T: WithDType>(&self) -> Result<T> {
        if self.elem_count() != 1 {
            return Err(Error::ElementCountMismatch {
                op: "item",
                expected: 1,
                got: self.elem_count(),
            });
        }
        let v = self.to_vec::<T>()?;
        v.first().copied().ok_or(Error::ElementCountMismatch {
            op: "item",
            expected: 1,
            got: 0,
        })
    }
}

/// Checks that an integer tensor of `dtype` can hold `value` after truncation toward zero
/// (the conversion of [`Tensor::full`]): a NaN, an infinity or a value `as` would saturate
/// would silently become another number.
fn check_fill_value(op: &'static str, value: f64, dtype: DType) -> Result<()> {
    // -2^63 and 2^63 are exact in f64.
    #[allow(clippy::cast_precision_loss)]
    let (lo, hi) = match dtype {
        DType::I64 => (i64::MIN as f64, -(i64::MIN as f64)),
        DType::U8 => (0.0, 256.0),
        _ => return Ok(()),
    };
    let t = value.trunc();
    if t.is_finite() && t >= lo && t < hi {
        Ok(())
    } else {
        Err(Error::ScalarOutOfRange { op, value, dtype })
    }
}

fn sub(a: usize, b: usize) -> i64 {
    i64::try_from(a).unwrap_or(i64::MAX) - i64::try_from(b).unwrap_or(i64::MAX)
}
