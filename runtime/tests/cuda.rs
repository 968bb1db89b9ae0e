//! CUDA-only behaviour: transfers of every dtype, pinned memory and non-blocking copies,
//! memory accounting, a real cpu/cuda mismatch, and CUDA against the CPU where the grid, the
//! dtypes or the layouts differ from the op tests. Each test runs on a GPU machine and skips
//! here with the reason printed; under `PLACER_REQUIRE_CUDA=1` a skip is a failure.
//!
//! The tests hold one lock: the memory counters are per device and per process, and the
//! accounting test must not see another test's allocations.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

mod common;

use placer_runtime::{DType, Device, Error, Tensor};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// `cuda:0` and the lock that serialises this file's GPU tests, or None (having said why).
fn gpu() -> Option<(Device, MutexGuard<'static, ()>)> {
    static GPU: Mutex<()> = Mutex::new(());
    let d = common::cuda();
    if d.is_none() {
        common::skip_notice();
    }
    let guard = GPU.lock().unwrap_or_else(PoisonError::into_inner);
    d.map(|d| (d, guard))
}

/// Asserts that `got` (on any device) holds exactly the elements of `want` (on the CPU),
/// with the same dims and dtype.
#[track_caller]
fn assert_same(got: &Tensor, want: &Tensor) {
    assert_eq!((got.dims(), got.dtype()), (want.dims(), want.dtype()));
    let got = got.to(&Device::Cpu).unwrap();
    match want.dtype() {
        DType::F32 => assert_eq!(got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap()),
        DType::F16 => assert_eq!(
            got.to_vec::<half::f16>().unwrap(),
            want.to_vec::<half::f16>().unwrap()
        ),
        DType::BF16 => assert_eq!(
            got.to_vec::<half::bf16>().unwrap(),
            want.to_vec::<half::bf16>().unwrap()
        ),
        DType::I64 => assert_eq!(got.to_vec::<i64>().unwrap(), want.to_vec::<i64>().unwrap()),
        DType::U8 => assert_eq!(got.to_vec::<u8>().unwrap(), want.to_vec::<u8>().unwrap()),
        DType::Bool => assert_eq!(
            got.to_vec::<bool>().unwrap(),
            want.to_vec::<bool>().unwrap()
        ),
    }
}

#[test]
fn should_round_trip_every_dtype_through_the_gpu() {
    let Some((dev, _lock)) = gpu() else { return };
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
    let Some((dev, _lock)) = gpu() else { return };
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
    let Some((dev, _lock)) = gpu() else { return };
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
    let Some((dev, _lock)) = gpu() else { return };
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
    let Some((dev, _lock)) = gpu() else { return };
    assert_eq!(Device::cuda_if_available(0), dev);
    assert!(Device::cuda_device_count() >= 1);
    let missing = Device::Cuda(Device::cuda_device_count());
    let err = Tensor::zeros([1], missing).unwrap_err();
    assert!(matches!(err, Error::CudaUnavailable { .. }), "{err}");
}

#[test]
fn should_fail_cuda_tests_when_cuda_is_required_but_missing() {
    if common::cuda().is_some() {
        eprintln!("CUDA is usable here: nothing to check");
        return;
    }
    // Under PLACER_REQUIRE_CUDA=1 this test itself must fail, as every other CUDA test.
    common::skip_notice();
    let exe = std::env::current_exe().expect("test binary path");
    let run = |require: bool| {
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(["--exact", "should_pick_the_gpu_when_available"]);
        if require {
            cmd.env("PLACER_REQUIRE_CUDA", "1");
        } else {
            cmd.env_remove("PLACER_REQUIRE_CUDA");
        }
        let out = cmd.output().expect("run the test binary");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (ok, text) = run(false);
    assert!(
        ok,
        "without PLACER_REQUIRE_CUDA the test skips and passes:\n{text}"
    );
    assert!(text.contains("1 passed"), "{text}");
    let (ok, text) = run(true);
    assert!(
        !ok,
        "with PLACER_REQUIRE_CUDA=1 the test must fail:\n{text}"
    );
    let want = format!(
        "PLACER_REQUIRE_CUDA=1 but the CUDA backend cannot be used: {}",
        common::cuda_reason()
    );
    assert!(text.contains(&want), "missing {want:?} in\n{text}");
    assert!(common::cuda_reason().starts_with("cuda unavailable: "));
}

#[test]
fn should_match_the_cpu_for_integer_ops_and_casts_from_integers() {
    let Some((dev, _lock)) = gpu() else { return };
    let vals: Vec<i64> = vec![
        -300,
        -2,
        -1,
        0,
        1,
        2,
        7,
        255,
        256,
        1 << 40,
        i64::MIN,
        i64::MAX,
    ];
    let i = Tensor::from_vec(vals.clone(), [3, 4], Device::Cpu).unwrap();
    let u = Tensor::from_vec(
        vals.iter().map(|&v| v as u8).collect::<Vec<_>>(),
        [3, 4],
        Device::Cpu,
    )
    .unwrap();
    let b = i
        .gt(&Tensor::zeros([3, 4], (DType::I64, Device::Cpu)).unwrap())
        .unwrap();
    for x in [&i, &u, &b] {
        let d = x.to(&dev).unwrap();
        for dtype in DType::ALL {
            assert_same(&d.to_dtype(dtype).unwrap(), &x.to_dtype(dtype).unwrap());
            // Casts from a strided view read the right elements.
            let dt = d.t().unwrap().to_dtype(dtype).unwrap();
            assert_same(&dt, &x.t().unwrap().to_dtype(dtype).unwrap());
        }
        if x.dtype() != DType::Bool {
            assert_same(&d.add(&d).unwrap(), &x.add(x).unwrap());
            assert_same(&d.mul(&d).unwrap(), &x.mul(x).unwrap());
            assert_same(
                &d.sub(&d.t().unwrap().t().unwrap()).unwrap(),
                &x.sub(x).unwrap(),
            );
            assert_same(&d.affine(3.0, -7.0).unwrap(), &x.affine(3.0, -7.0).unwrap());
            assert_same(
                &d.maximum(&d.flip_rows()).unwrap(),
                &x.maximum(&x.flip_rows()).unwrap(),
            );
        }
        assert_same(&d.sum(1, false).unwrap(), &x.sum(1, false).unwrap());
        assert_same(&d.argmax(0, true).unwrap(), &x.argmax(0, true).unwrap());
        assert_same(
            &d.lt(&d.flip_rows()).unwrap(),
            &x.lt(&x.flip_rows()).unwrap(),
        );
    }
    let d = i.to(&dev).unwrap();
    for (got, want) in [
        (d.neg().unwrap(), i.neg().unwrap()),
        (d.abs().unwrap(), i.abs().unwrap()),
        (d.relu().unwrap(), i.relu().unwrap()),
    ] {
        assert_same(&got, &want);
    }
}

/// Rows in reverse order (a copy), for ops that need two different operands.
trait FlipRows {
    fn flip_rows(&self) -> Tensor;
}

impl FlipRows for Tensor {
    fn flip_rows(&self) -> Tensor {
        let n = self.dims()[0];
        let ids: Vec<i64> = (0..n as i64).rev().collect();
        let ids = Tensor::from_vec(ids, n, Device::Cpu)
            .unwrap()
            .to(&self.device())
            .unwrap();
        self.index_select(0, &ids).unwrap()
    }
}

#[test]
fn should_repeat_the_grid_stride_loop_above_2_pow_24_elements() {
    let Some((dev, _lock)) = gpu() else { return };
    // 65_535 blocks of 256 threads cover 2^24 - 256 elements per pass.
    let n = (1usize << 24) + 4099;
    let v: Vec<f32> = (0..n).map(|k| (k % 1000) as f32 - 500.0).collect();
    let x = Tensor::from_vec(v, n, Device::Cpu).unwrap();
    let d = x.to(&dev).unwrap();
    assert_same(&d.add(&d).unwrap(), &x.add(&x).unwrap());
    assert_same(&d.relu().unwrap(), &x.relu().unwrap());
    assert_same(
        &d.to_dtype(DType::I64).unwrap(),
        &x.to_dtype(DType::I64).unwrap(),
    );
    assert_same(
        &d.to_dtype(DType::F16).unwrap(),
        &x.to_dtype(DType::F16).unwrap(),
    );
    assert_same(
        &d.gt(&d.neg().unwrap()).unwrap(),
        &x.gt(&x.neg().unwrap()).unwrap(),
    );
    // A strided copy of the whole tensor (the last elements are past the first pass).
    let rows = |t: &Tensor| {
        t.narrow(0, 0, n - n % 7)
            .unwrap()
            .reshape([n / 7, 7])
            .unwrap()
    };
    assert_same(
        &rows(&d).t().unwrap().contiguous().unwrap(),
        &rows(&x).t().unwrap().contiguous().unwrap(),
    );
}

#[test]
fn should_copy_strided_views_to_and_from_the_device() {
    let Some((dev, _lock)) = gpu() else { return };
    let base = Tensor::arange(0.0, 60.0, 1.0, Device::Cpu).unwrap();
    for dtype in DType::ALL {
        let h = base.to_dtype(dtype).unwrap().reshape([3, 4, 5]).unwrap();
        let views = |t: &Tensor| {
            vec![
                t.transpose(0, 2).unwrap(),
                t.narrow(1, 1, 2).unwrap(),
                t.permute(&[1, 2, 0]).unwrap().narrow(2, 1, 2).unwrap(),
                t.narrow(0, 1, 1)
                    .unwrap()
                    .broadcast_as([2, 3, 4, 5])
                    .unwrap(),
            ]
        };
        let d = h.to(&dev).unwrap();
        // Host views copied to the device, and device views copied to the host.
        for (hv, dv) in views(&h).iter().zip(views(&d)) {
            assert_same(&hv.to(&dev).unwrap(), &hv.contiguous().unwrap());
            assert_same(&dv, &hv.contiguous().unwrap());
            assert_same(&dv.contiguous().unwrap(), &hv.contiguous().unwrap());
        }
    }
}

#[test]
fn should_round_trip_pinned_memory_with_the_source_dropped_early() {
    let Some((dev, _lock)) = gpu() else { return };
    for (round, n) in [0usize, 1, 1000, 1 << 23].into_iter().enumerate() {
        let want: Vec<f32> = (0..n).map(|k| (k + round) as f32).collect();
        let d = {
            let x = Tensor::from_vec(want.clone(), n, Device::Cpu).unwrap();
            let p = x.pin_memory().unwrap();
            drop(x);
            // The copy is queued; the pinned buffer is dropped before it may have run.
            p.to_non_blocking(&dev).unwrap()
        };
        // Overwrite freed host memory with new pinned buffers, then read the copy back.
        let _noise = Tensor::zeros([n.max(1)], Device::Cpu)
            .unwrap()
            .pin_memory()
            .unwrap();
        assert_eq!(d.to_vec::<f32>().unwrap(), want, "{n} elements");
    }
    dev.synchronize().unwrap();
}

#[test]
fn should_free_and_multiply_on_threads_that_never_bound_the_context() {
    let Some((dev, _lock)) = gpu() else { return };
    let a = Tensor::ones([64, 32], dev).unwrap();
    let b = Tensor::ones([32, 16], dev).unwrap();
    let c = std::thread::spawn(move || {
        let c = a.matmul(&b).unwrap();
        drop((a, b));
        c
    })
    .join()
    .unwrap();
    std::thread::spawn(move || drop(c)).join().unwrap();
    // A free that failed would be reported by the next call on the context.
    dev.synchronize().unwrap();
    let x = Tensor::ones([4], dev).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0; 4]);
}

#[test]
fn should_copy_between_two_devices() {
    let Some((dev, _lock)) = gpu() else { return };
    if Device::cuda_device_count() < 2 {
        eprintln!("skipping: one CUDA device visible, the two-device test needs two");
        return;
    }
    let other = Device::Cuda(1);
    let x = Tensor::arange(0.0, 24.0, 1.0, Device::Cpu)
        .unwrap()
        .reshape([4, 6])
        .unwrap();
    let d0 = x.to(&dev).unwrap();
    let d1 = d0.to(&other).unwrap();
    assert_eq!(d1.device(), other);
    assert_same(
        &d1.matmul(&d1.t().unwrap()).unwrap(),
        &x.matmul(&x.t().unwrap()).unwrap(),
    );
    assert_same(
        &d1.t().unwrap().to(&dev).unwrap(),
        &x.t().unwrap().contiguous().unwrap(),
    );
    let err = d0.add(&d1).unwrap_err();
    assert!(matches!(err, Error::DeviceMismatch { .. }), "{err}");
    // Drop on the other device from another thread, then use both.
    std::thread::spawn(move || drop(d1)).join().unwrap();
    other.synchronize().unwrap();
    dev.synchronize().unwrap();
}
