//! Shared test helpers: device lists, `test_device!`, `assert_close`, naive references.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::many_single_char_names,
    clippy::float_cmp
)]

use placer_runtime::{Device, Tensor};
use std::sync::Once;

/// The devices an op test runs on: the CPU, plus `cuda:0` when a GPU is present.
pub fn devices() -> Vec<Device> {
    let mut d = vec![Device::Cpu];
    match cuda() {
        Some(c) => d.push(c),
        None => skip_notice(),
    }
    d
}

/// True when `PLACER_REQUIRE_CUDA=1`: on a GPU machine, a CUDA backend that cannot be used
/// must fail the tests instead of skipping them.
pub fn require_cuda() -> bool {
    std::env::var_os("PLACER_REQUIRE_CUDA").is_some_and(|v| v == "1")
}

/// `cuda:0` when usable, else None (after `skip_notice`'s check).
pub fn cuda() -> Option<Device> {
    let d = Device::cuda_if_available(0);
    d.is_cuda().then_some(d)
}

/// Why `cuda:0` cannot be used: the backend's error, which names the library or the call
/// that failed ("libcuda not found", "cuBLAS init failed: ...", "cannot load the runtime's
/// kernels ...").
pub fn cuda_reason() -> String {
    Tensor::zeros([1], Device::Cuda(0))
        .err()
        .map_or_else(|| "unknown".to_string(), |e| e.to_string())
}

/// Says once why the CUDA variants skip; under `PLACER_REQUIRE_CUDA=1` fails the test instead.
#[track_caller]
pub fn skip_notice() {
    static ONCE: Once = Once::new();
    assert!(
        !require_cuda(),
        "PLACER_REQUIRE_CUDA=1 but the CUDA backend cannot be used: {}",
        cuda_reason()
    );
    ONCE.call_once(|| {
        eprintln!("skipping CUDA variants: {}", cuda_reason());
    });
}

/// `test_device!(name)` expands to `name::cpu` and `name::cuda` tests that call the function
/// `name(Device)`; the CUDA one prints why it skips when no GPU is present.
#[macro_export]
macro_rules! test_device {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn cpu() {
                super::$name(placer_runtime::Device::Cpu);
            }
            #[test]
            fn cuda() {
                match $crate::common::cuda() {
                    Some(d) => super::$name(d),
                    None => $crate::common::skip_notice(),
                }
            }
        }
    )*};
}

/// Asserts that two float slices have the same length and agree within `tol` (absolute plus
/// relative), treating NaN as equal to NaN.
#[track_caller]
pub fn assert_close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "length differs");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * (1.0 + w.abs());
        assert!(
            ok,
            "element {i}: got {g}, want {w} (tol {tol})\n got: {got:?}\nwant: {want:?}"
        );
    }
}

/// Host f32 copy of any float tensor.
pub fn host(t: &Tensor) -> Vec<f32> {
    t.to_dtype(placer_runtime::DType::F32)
        .and_then(|t| t.to_vec::<f32>())
        .expect("host read")
}

/// Row-major index of `idx` in `dims`, broadcasting: dims of size 1 read index 0, missing
/// leading dims are ignored.
pub fn bcast_index(idx: &[usize], dims: &[usize]) -> usize {
    let extra = idx.len() - dims.len();
    let mut off = 0;
    for (k, &d) in dims.iter().enumerate() {
        let i = if d == 1 { 0 } else { idx[extra + k] };
        off = off * d + i;
    }
    off
}

/// All multi-indices of `dims` in row-major order.
pub fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|mut lin| {
            let mut idx = vec![0; dims.len()];
            for k in (0..dims.len()).rev() {
                idx[k] = lin % dims[k];
                lin /= dims[k];
            }
            idx
        })
        .collect()
}

/// The NumPy broadcast of two shapes, or None.
pub fn bcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|i| {
            let x = if i + a.len() >= r {
                a[i + a.len() - r]
            } else {
                1
            };
            let y = if i + b.len() >= r {
                b[i + b.len() - r]
            } else {
                1
            };
            if x == y || y == 1 {
                Some(x)
            } else if x == 1 {
                Some(y)
            } else {
                None
            }
        })
        .collect()
}

/// Deterministic pseudo-random values in [-2, 2) for `n` elements.
pub fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            #[allow(clippy::cast_precision_loss)]
            let u = (s >> 40) as f32 / (1u64 << 24) as f32;
            u * 4.0 - 2.0
        })
        .collect()
}
