//! The device-mismatch cases of the PyTorch device chapter ("mask created inside forward",
//! "labels still on CPU", "positional encoding stored as unregistered tensor", "loss weight
//! tensor created on CPU"), reproduced with `Device::Meta` standing in for the accelerator.
//! Each asserts that the error names the op, both devices and the line that created the stray
//! tensor.
// Naive references index with small integers and compare floats exactly where exact.
#![allow(
    clippy::many_single_char_names,
    clippy::similar_names,
    clippy::float_cmp,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    clippy::items_after_statements
)]

mod common;

use placer_runtime::{DType, Device, Error, Operand, Result, Tensor};

/// The accelerator stand-in: everything device-side runs here without data.
const ACCEL: Device = Device::Meta;

/// Asserts the full message: `device mismatch in {op}: lhs on {lhs}, rhs on {rhs} ({side}
/// created at {file}:{line}:{col})`, for the tensor created on `line` of this file.
#[track_caller]
fn assert_mismatch(err: &Error, op: &str, lhs: Device, rhs: Device, side: &str, line: u32) {
    let msg = err.to_string();
    let prefix = format!(
        "device mismatch in {op}: lhs on {lhs}, rhs on {rhs} ({side} created at {}:{line}:",
        file!()
    );
    assert!(msg.starts_with(&prefix), "\n got: {msg}\nwant: {prefix}..");
    assert!(msg.ends_with(')'), "{msg}");
    assert!(matches!(err, Error::DeviceMismatch { .. }), "{err:?}");
}

// ---------------------------------------------------------------- mask created in forward

struct MaskedModel {
    scale: f64,
}

impl MaskedModel {
    /// Buggy: the mask is built on the CPU whatever the input's device.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mask = Tensor::full(x.dims(), self.scale, Device::Cpu)?; // MASK_LINE
        x.mul(&mask)
    }

    /// Fixed: the mask inherits the input's device and dtype.
    fn forward_fixed(&self, x: &Tensor) -> Result<Tensor> {
        let mask = Tensor::full(x.dims(), self.scale, x.options())?;
        x.mul(&mask)
    }
}

fn line_of(marker: &str) -> u32 {
    let src = include_str!("device_semantics.rs");
    let idx = src
        .lines()
        .position(|l| l.contains(marker) && !l.contains("line_of("))
        .expect("marker line");
    u32::try_from(idx + 1).unwrap()
}

const MODEL: MaskedModel = MaskedModel { scale: 1.0 };

#[test]
fn should_name_the_mask_created_in_forward() {
    let x = Tensor::randn([4, 8], ACCEL).unwrap();
    let err = MODEL.forward(&x).unwrap_err();
    assert_mismatch(
        &err,
        "mul",
        ACCEL,
        Device::Cpu,
        "rhs",
        line_of("// MASK_LINE"),
    );
    let y = MODEL.forward_fixed(&x).unwrap();
    assert_eq!((y.device(), y.dims()), (ACCEL, &[4usize, 8][..]));
}

// ---------------------------------------------------------------- labels left on the CPU

#[test]
fn should_name_labels_left_on_cpu() {
    let w = Tensor::randn([8, 3], Device::Cpu)
        .unwrap()
        .to(&ACCEL)
        .unwrap();
    let batch = Tensor::randn([4, 8], Device::Cpu).unwrap();
    let labels_line = line!() + 1;
    let labels = Tensor::from_vec(vec![0i64, 2, 1, 0], 4, Device::Cpu).unwrap();
    let x = batch.to(&ACCEL).unwrap(); // the batch is moved ...
    let logits = x.matmul(&w).unwrap();
    // ... the labels are not: picking the target logits fails in index_select.
    let err = logits.index_select(1, &labels).unwrap_err();
    assert_mismatch(&err, "index_select", ACCEL, Device::Cpu, "rhs", labels_line);
    // A one-hot comparison fails the same way, in eq.
    let classes = Tensor::arange(0.0, 3.0, 1.0, (DType::I64, ACCEL)).unwrap();
    let err = labels.unsqueeze(1).unwrap().eq(&classes).unwrap_err();
    let unsqueeze_line = line!() - 1;
    // The culprit is the CPU side, here the lhs (a view made by unsqueeze on that line).
    assert_mismatch(&err, "eq", Device::Cpu, ACCEL, "lhs", unsqueeze_line);
    // Moved, it works.
    let labels = labels.to(&ACCEL).unwrap();
    assert!(logits.index_select(1, &labels).unwrap().device().is_meta());
}

// ---------------------------------------------------------------- unregistered positional encoding

struct PositionalEncoding {
    proj: Tensor,
    pe: Tensor,
}

impl PositionalEncoding {
    fn new(max_len: usize, d: usize) -> Result<Self> {
        Ok(Self {
            proj: Tensor::randn([d, d], Device::Cpu)?,
            pe: Tensor::randn([max_len, d], Device::Cpu)?, // PE_LINE
        })
    }

    /// Buggy hand-written move: forgets `pe`, as a tensor attribute that is not a registered
    /// buffer is not moved by `model.to(device)` in PyTorch.
    fn to(&mut self, device: &Device) -> Result<()> {
        self.proj = self.proj.to(device)?;
        Ok(())
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let t = x.dim(0)?;
        x.matmul(&self.proj)?.add(&self.pe.narrow(0, 0, t)?)
    }
}

#[test]
fn should_name_the_unregistered_positional_encoding() {
    let mut m = PositionalEncoding::new(16, 4).unwrap();
    m.to(&ACCEL).unwrap();
    let x = Tensor::randn([5, 4], ACCEL).unwrap();
    let err = m.forward(&x).unwrap_err();
    // `narrow` made the view, inside forward; its origin is that line, and `pe` itself shows
    // where the buffer came from.
    let Error::DeviceMismatch {
        op,
        lhs,
        rhs,
        culprit,
        origin,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (*op, *lhs, *rhs, *culprit),
        ("add", ACCEL, Device::Cpu, Operand::Rhs)
    );
    assert_eq!(origin.unwrap().file(), file!());
    assert_eq!(m.pe.origin().unwrap().line(), line_of("// PE_LINE"));
    assert!(err
        .to_string()
        .starts_with("device mismatch in add: lhs on meta, rhs on cpu (rhs created at "));
}

// ---------------------------------------------------------------- loss weight on the CPU

struct WeightedMse {
    weight: Tensor,
}

impl WeightedMse {
    fn new() -> Result<Self> {
        Ok(Self {
            weight: Tensor::from_vec(vec![1.0f32, 2.0, 0.5], 3, Device::Cpu)?, // WEIGHT_LINE
        })
    }

    fn forward(&self, pred: &Tensor, target: &Tensor) -> Result<Tensor> {
        let d = pred.sub(target)?;
        d.mul(&d)?.mul(&self.weight)?.mean(-1, false)
    }
}

#[test]
fn should_name_the_loss_weight_left_on_cpu() {
    let loss = WeightedMse::new().unwrap();
    let pred = Tensor::randn([4, 3], ACCEL).unwrap();
    let target = Tensor::randn([4, 3], ACCEL).unwrap();
    let err = loss.forward(&pred, &target).unwrap_err();
    assert_mismatch(
        &err,
        "mul",
        ACCEL,
        Device::Cpu,
        "rhs",
        line_of("// WEIGHT_LINE"),
    );
    let moved = WeightedMse {
        weight: loss.weight.to(&ACCEL).unwrap(),
    };
    assert_eq!(moved.forward(&pred, &target).unwrap().dims(), &[4]);
}

// ---------------------------------------------------------------- rules around the cases

#[test]
fn should_format_the_issue_example_for_cuda() {
    let here = std::panic::Location::caller();
    let err = Error::DeviceMismatch {
        op: "add",
        lhs: Device::Cuda(0),
        rhs: Device::Cpu,
        culprit: Operand::Rhs,
        origin: Some(here),
    };
    assert_eq!(
        err.to_string(),
        format!("device mismatch in add: lhs on cuda:0, rhs on cpu (rhs created at {here})")
    );
}

#[test]
fn should_let_zero_dim_cpu_tensors_mix_with_any_device() {
    let x = Tensor::randn([2, 3], ACCEL).unwrap();
    let s = Tensor::scalar(2.0, Device::Cpu).unwrap();
    assert_eq!(x.mul(&s).unwrap().device(), ACCEL);
    assert_eq!(s.mul(&x).unwrap().device(), ACCEL);
    // A 1-element 1-D CPU tensor is not a scalar: PyTorch rejects it too.
    let one = Tensor::ones([1], Device::Cpu).unwrap();
    assert!(matches!(x.mul(&one), Err(Error::DeviceMismatch { .. })));
}

#[test]
fn should_check_every_operand_of_multi_input_ops() {
    let x = Tensor::randn([2, 3], ACCEL).unwrap();
    let cpu = Tensor::randn([2, 3], Device::Cpu).unwrap();
    let w = Tensor::ones([3], Device::Cpu).unwrap();
    let cond = x.gt(&x).unwrap();
    let ops: Vec<(&str, Result<Tensor>)> = vec![
        ("cat", Tensor::cat(&[&x, &x, &cpu], 0)),
        ("where", cond.where_(&x, &cpu)),
        ("masked_fill", x.masked_fill(&cpu.gt(&cpu).unwrap(), 0.0)),
        ("layer_norm", x.layer_norm(Some(&w), None, 1e-5)),
        ("matmul", x.matmul(&cpu.t().unwrap())),
        (
            "embedding",
            cpu.embedding(&Tensor::zeros([2], (DType::I64, ACCEL)).unwrap()),
        ),
    ];
    for (op, r) in ops {
        let err = r.unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("device mismatch in {op}: ")),
            "{msg}"
        );
        assert!(msg.contains("cpu") && msg.contains("meta"), "{msg}");
    }
}

#[test]
fn should_refuse_to_read_data_from_meta() {
    let x = Tensor::zeros([2], ACCEL).unwrap();
    assert!(matches!(x.to_vec::<f32>(), Err(Error::MetaData { .. })));
    assert!(matches!(
        x.item::<f32>(),
        Err(Error::ElementCountMismatch { .. })
    ));
    assert!(matches!(
        x.sum(0, false).unwrap().item::<f32>(),
        Err(Error::MetaData { .. })
    ));
    assert!(matches!(x.to(&Device::Cpu), Err(Error::MetaData { .. })));
}

#[test]
fn should_not_copy_when_already_on_the_device() {
    let x = Tensor::ones([3], Device::Cpu).unwrap();
    let y = x.to(&Device::Cpu).unwrap();
    assert!(y.same_storage(&x));
    assert_eq!(y.origin(), x.origin());
    let line = line!() + 1;
    let m = x.to(&ACCEL).unwrap();
    assert_eq!(
        m.origin().unwrap().line(),
        line,
        "a transfer records its own origin"
    );
}

#[test]
fn should_record_the_factory_call_site() {
    let line = line!() + 1;
    let t = Tensor::zeros([1], Device::Cpu).unwrap();
    let o = t.origin().unwrap();
    assert_eq!((o.file(), o.line()), (file!(), line));
    let line = line!() + 1;
    let z = t.new_zeros([2]).unwrap().zeros_like().unwrap();
    assert_eq!(z.origin().unwrap().line(), line);
}

#[test]
fn should_report_cuda_unavailable_without_panicking() {
    if common::cuda().is_some() {
        eprintln!("a GPU is present: nothing to check here");
        return;
    }
    assert_eq!(Device::cuda_if_available(0), Device::Cpu);
    assert_eq!(Device::cuda_device_count(), 0);
    assert!(!Device::is_cuda_available());
    let cuda = Device::Cuda(0);
    for r in [
        Tensor::zeros([2], cuda),
        Tensor::ones([2], Device::Cpu).unwrap().to(&cuda),
        Tensor::randn([2], cuda),
        Tensor::ones([2], Device::Cpu).unwrap().pin_memory(),
    ] {
        let err = r.unwrap_err();
        assert!(matches!(err, Error::CudaUnavailable { .. }), "{err:?}");
        assert!(err.to_string().starts_with("cuda unavailable: "), "{err}");
    }
    assert!(matches!(
        cuda.synchronize(),
        Err(Error::CudaUnavailable { .. })
    ));
    assert_eq!(cuda.memory_allocated(), 0);
}

#[test]
fn should_refuse_to_pin_non_cpu_tensors() {
    let x = Tensor::zeros([2], ACCEL).unwrap();
    assert!(matches!(
        x.pin_memory(),
        Err(Error::NotPinnable {
            device: Device::Meta
        })
    ));
    assert!(!x.is_pinned());
}

#[test]
fn should_display_devices_as_pytorch() {
    assert_eq!(Device::Cpu.to_string(), "cpu");
    assert_eq!(Device::Cuda(1).to_string(), "cuda:1");
    assert_eq!(Device::Meta.to_string(), "meta");
}

#[test]
fn should_keep_the_error_small() {
    assert!(
        std::mem::size_of::<Error>() <= 64,
        "{}",
        std::mem::size_of::<Error>()
    );
}

#[test]
fn should_not_blame_a_zero_dim_cpu_operand() {
    let cond = Tensor::scalar(1.0, (DType::Bool, Device::Cpu)).unwrap();
    let x = Tensor::randn([2], ACCEL).unwrap();
    let line = line!() + 1;
    let y = Tensor::randn([2], Device::Cpu).unwrap();
    let err = cond.where_(&x, &y).unwrap_err();
    assert_mismatch(&err, "where", ACCEL, Device::Cpu, "rhs", line);
}
