//! CUDA-only behaviour: transfers of every dtype, pinned memory and non-blocking copies,
//! memory accounting, and a real cpu/cuda mismatch. Each test runs on a GPU machine and skips
//! here with the reason printed.

mod common;

use placer_runtime::{DType, Device, Error, Tensor};

fn gpu() -> Option<Device> {
    let d = common::cuda();
    if d.is_none() {
        common::skip_notice();
    }
    d
}

#[test]
fn should_round_trip_every_dtype_through_the_gpu() {
    let Some(dev) = gpu() else { return };
    let x = Tensor::arange(-3.0, 5.0, 1.0, Device::Cpu).unwrap();
    for dtype in DType::ALL {
        let h = x.to_dtype(dtype).unwrap();
        let d = h.to(&dev).unwrap();
        assert_eq!((d.device(), d.dtype()), (dev, dtype));
        let back = d.to(&Device::Cpu).unwrap();
        assert_eq!(
            common::host(&back.to_dtype(DType::F32).unwrap()),
            common::host(&h.to_dtype(DType::F32).unwrap())
        );
        // A strided view transfers its own elements only.
        let v = h
            .reshape([2, 4])
            .unwrap()
            .t()
            .unwrap()
            .narrow(0, 1, 2)
            .unwrap();
        let dv = v.to(&dev).unwrap().to(&Device::Cpu).unwrap();
        assert_eq!(
            common::host(&dv.to_dtype(DType::F32).unwrap()),
            common::host(&v.to_dtype(DType::F32).unwrap())
        );
    }
}

#[test]
fn should_copy_pinned_memory_without_blocking() {
    let Some(dev) = gpu() else { return };
    let x = Tensor::randn([256, 64], Device::Cpu).unwrap();
    let p = x.pin_memory().unwrap();
    assert!(p.is_pinned() && !x.is_pinned());
    assert_eq!(p.to_vec::<f32>().unwrap(), x.to_vec::<f32>().unwrap());
    let d = p.to_non_blocking(&dev).unwrap();
    // Ops queue behind the copy on the same stream; the host read synchronises.
    let y = d.mul_scalar(2.0).unwrap().to_vec::<f32>().unwrap();
    let want: Vec<f32> = x.to_vec::<f32>().unwrap().iter().map(|v| v * 2.0).collect();
    assert_eq!(y, want);
    dev.synchronize().unwrap();
}

#[test]
fn should_account_device_memory_of_live_tensors() {
    let Some(dev) = gpu() else { return };
    dev.synchronize().unwrap();
    let before = dev.memory_allocated();
    let t = Tensor::zeros([1024, 1024], dev).unwrap();
    assert!(dev.memory_allocated() >= before + 4 * 1024 * 1024);
    assert_eq!(dev.memory_reserved(), dev.memory_allocated());
    drop(t);
    assert!(dev.memory_allocated() <= before + 4);
    dev.empty_cache().unwrap();
}

#[test]
fn should_name_the_cpu_tensor_in_a_real_cuda_mismatch() {
    let Some(dev) = gpu() else { return };
    let x = Tensor::ones([2, 2], dev).unwrap();
    let line = line!() + 1;
    let y = Tensor::ones([2, 2], Device::Cpu).unwrap();
    let err = x.add(&y).unwrap_err();
    assert!(matches!(err, Error::DeviceMismatch { .. }));
    let want = format!(
        "device mismatch in add: lhs on {dev}, rhs on cpu (rhs created at {}:{line}:",
        file!()
    );
    assert!(err.to_string().starts_with(&want), "{err}");
}

#[test]
fn should_pick_the_gpu_when_available() {
    let Some(dev) = gpu() else { return };
    assert_eq!(Device::cuda_if_available(0), dev);
    assert!(Device::cuda_device_count() >= 1);
    let missing = Device::Cuda(Device::cuda_device_count());
    let err = Tensor::zeros([1], missing).unwrap_err();
    assert!(matches!(err, Error::CudaUnavailable { .. }), "{err}");
}
