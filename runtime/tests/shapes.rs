//! Shapes no memory can hold, allocations the host cannot give, and scalars an integer tensor
//! cannot take: each is an `Err` from the safe API, never a panic, an abort or a wild read.
//! Named cases first, then property tests over any dims (huge and zero included).
#![allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]

use placer_runtime::{DType, Device, Error, Tensor};
use proptest::prelude::*;

const HUGE: usize = 1 << 63;

#[track_caller]
fn assert_overflow<T: std::fmt::Debug>(r: placer_runtime::Result<T>, op: &str) {
    match r {
        Err(Error::ShapeOverflow { op: got, .. }) => assert_eq!(got, op),
        other => panic!("expected a shape overflow in {op}, got {other:?}"),
    }
}

#[test]
fn should_reject_a_shape_whose_element_count_overflows() {
    for dev in [Device::Cpu, Device::Meta] {
        assert_overflow(Tensor::zeros([2, HUGE], dev), "zeros");
        assert_overflow(Tensor::ones([HUGE, 2], (DType::U8, dev)), "ones");
        assert_overflow(Tensor::rand([usize::MAX, 3], dev), "rand");
        assert_overflow(Tensor::eye(1 << 40, dev), "eye");
    }
    let err = Tensor::zeros([2, HUGE], Device::Cpu)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "shape overflow in zeros: [2, {HUGE}] of float32 exceeds the addressable size \
             (isize::MAX bytes)"
        )
    );
}

#[test]
fn should_reject_a_shape_whose_element_count_wraps_to_one() {
    // 3 * 0xaaaa_aaaa_aaaa_aaab wraps to exactly 1: from_vec with one element, item, softmax,
    // narrow and index_select all took it for a one-element tensor.
    let inverse_of_3 = 0xaaaa_aaaa_aaaa_aaab_usize;
    assert_eq!(3usize.wrapping_mul(inverse_of_3), 1);
    assert_overflow(
        Tensor::from_vec(vec![1.0f32], [3, inverse_of_3], Device::Cpu),
        "from_vec",
    );
    let one = Tensor::ones([1, 1], Device::Cpu).unwrap();
    assert_overflow(one.reshape([3, inverse_of_3]), "reshape");
    assert_overflow(one.broadcast_as([3, inverse_of_3]), "broadcast_as");
}

#[test]
fn should_reject_matmul_operands_and_outputs_that_overflow() {
    for dev in [Device::Cpu, Device::Meta] {
        // The issue's [1 << 63, 2] operand cannot be built, even as a stride-0 view.
        let row = Tensor::ones([1, 2], dev).unwrap();
        assert_overflow(row.broadcast_as([HUGE, 2]), "broadcast_as");
        // Two valid views whose product has 2^80 elements.
        let one = Tensor::ones([1, 1], dev).unwrap();
        let a = one.broadcast_as([1 << 40, 1]).unwrap();
        let b = one.broadcast_as([1, 1 << 40]).unwrap();
        assert_overflow(a.matmul(&b), "matmul");
        // Batch dims broadcast against a large matrix.
        let batch = Tensor::ones([1, 1, 1], dev)
            .unwrap()
            .broadcast_as([1 << 40, 1, 1])
            .unwrap();
        let wide = one.broadcast_as([1, 1 << 30]).unwrap();
        assert_overflow(batch.matmul(&wide), "matmul");
        // Elementwise broadcasting of two valid views, cat, index_select.
        let col = one.broadcast_as([1 << 40, 1]).unwrap();
        assert_overflow(col.add(&b), "add");
        assert_overflow(col.lt(&b), "lt");
        let half = Tensor::ones([1], (DType::U8, dev))
            .unwrap()
            .broadcast_as([1 << 62])
            .unwrap();
        assert_overflow(Tensor::cat(&[&half, &half, &half], 0), "cat");
        // A u8 view whose i64 sum or conversion needs 8x the bytes.
        let bytes = Tensor::ones([1, 1], (DType::U8, dev))
            .unwrap()
            .broadcast_as([1 << 61, 2])
            .unwrap();
        assert_overflow(bytes.sum(1, false), "sum");
        assert_overflow(bytes.to_dtype(DType::I64), "to_dtype");
        // [2^50, 2^10] f32 is a valid view; selecting 2^14 columns gives 2^64 elements.
        let ids = Tensor::zeros([1 << 14], (DType::I64, dev)).unwrap();
        let wide = one.broadcast_as([1 << 50, 1 << 10]).unwrap();
        assert_overflow(wide.index_select(1, &ids), "index_select");
    }
}

#[test]
fn should_return_out_of_memory_instead_of_aborting() {
    // 4e15 bytes: past any host's address space, but a valid shape.
    let n = 1_000_000_000_000_000usize;
    match Tensor::zeros([n], Device::Cpu) {
        Err(Error::OutOfMemory { op, bytes, device }) => {
            assert_eq!((op, bytes, device), ("zeros", 4 * n, Device::Cpu));
        }
        other => panic!("expected out of memory, got {other:?}"),
    }
    // The same shape is fine on meta, and ops on a huge view fail when they allocate.
    let m = Tensor::zeros([n], Device::Meta).unwrap();
    assert_eq!(m.dims(), &[n]);
    let view = Tensor::ones([1], Device::Cpu)
        .unwrap()
        .broadcast_as([n])
        .unwrap();
    for r in [
        view.exp(),
        view.contiguous(),
        view.add(&view),
        view.softmax(0),
    ] {
        assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    }
    assert!(matches!(
        view.to_vec::<f32>(),
        Err(Error::OutOfMemory { .. })
    ));
    assert!(matches!(view.sum(0, false), Err(Error::OutOfMemory { .. })));
    assert!(matches!(
        Tensor::arange(0.0, 1e15, 1.0, Device::Cpu),
        Err(Error::OutOfMemory { .. })
    ));
}

#[test]
fn should_build_arange_on_meta_without_host_values() {
    // 1e15 f64 values would be 8 PB of host memory.
    let t = Tensor::arange(0.0, 1e15, 1.0, Device::Meta).unwrap();
    assert_eq!(
        (t.dims(), t.device()),
        (&[1_000_000_000_000_000][..], Device::Meta)
    );
    let t = Tensor::linspace(0.0, 1.0, 1 << 50, Device::Meta).unwrap();
    assert_eq!(t.dims(), &[1 << 50]);
    let t = Tensor::triu(1 << 30, 1, (DType::Bool, Device::Meta)).unwrap();
    assert_eq!(t.dims(), &[1 << 30, 1 << 30]);
    // A length past usize, and non-finite bounds, are errors.
    assert_overflow(Tensor::arange(0.0, 1e30, 1.0, Device::Meta), "arange");
    for (start, end) in [(0.0, f64::INFINITY), (f64::NAN, 1.0)] {
        let r = Tensor::arange(start, end, 1.0, Device::Meta);
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    }
}

#[test]
fn should_reject_scalars_an_integer_tensor_cannot_take() {
    for dev in [Device::Cpu, Device::Meta] {
        let x = Tensor::from_vec(vec![1i64, 2], 2, dev).unwrap();
        for (v, op) in [
            (f64::NAN, "add_scalar"),
            (f64::INFINITY, "add_scalar"),
            (0.5, "add_scalar"),
            (1e19, "add_scalar"),
        ] {
            match x.add_scalar(v) {
                Err(Error::ScalarOutOfRange { op: o, dtype, .. }) => {
                    assert_eq!((o, dtype), (op, DType::I64));
                }
                other => panic!("i64 + {v}: expected an error, got {other:?}"),
            }
        }
        assert!(matches!(
            x.mul_scalar(2.5),
            Err(Error::ScalarOutOfRange {
                op: "mul_scalar",
                ..
            })
        ));
        assert!(matches!(
            x.affine(1.0, -0.25),
            Err(Error::ScalarOutOfRange { op: "affine", .. })
        ));
        let u = Tensor::from_vec(vec![1u8, 250], 2, dev).unwrap();
        assert!(u.add_scalar(256.0).is_err() && u.add_scalar(-256.0).is_err());
    }
    let msg = Tensor::from_vec(vec![1i64], 1, Device::Cpu)
        .unwrap()
        .add_scalar(f64::NAN)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with(
            "scalar out of range in add_scalar: NaN is not a whole number in the range of int64"
        ),
        "{msg}"
    );
}

#[test]
fn should_compute_integer_scalar_ops_exactly_and_wrapping() {
    // 2^53 + 1 is not an f64: computing through f64 lost the last bit.
    let big = (1i64 << 53) + 1;
    let x = Tensor::from_vec(vec![big, -3, i64::MAX], 3, Device::Cpu).unwrap();
    assert_eq!(
        x.add_scalar(0.0).unwrap().to_vec::<i64>().unwrap(),
        vec![big, -3, i64::MAX]
    );
    assert_eq!(
        x.affine(2.0, 1.0).unwrap().to_vec::<i64>().unwrap(),
        vec![2 * big + 1, -5, i64::MAX.wrapping_mul(2).wrapping_add(1)]
    );
    // u8 wraps modulo 256 (as PyTorch), and takes -255..=255.
    let u = Tensor::from_vec(vec![250u8, 3], 2, Device::Cpu).unwrap();
    assert_eq!(
        u.add_scalar(10.0).unwrap().to_vec::<u8>().unwrap(),
        vec![4, 13]
    );
    assert_eq!(
        u.add_scalar(-4.0).unwrap().to_vec::<u8>().unwrap(),
        vec![246, 255]
    );
    assert_eq!(
        u.mul_scalar(2.0).unwrap().to_vec::<u8>().unwrap(),
        vec![244, 6]
    );
    // Floats take any scalar.
    let f = Tensor::from_vec(vec![1.0f32], 1, Device::Cpu).unwrap();
    assert!(f.add_scalar(f64::NAN).unwrap().to_vec::<f32>().unwrap()[0].is_nan());
}

// ---------------------------------------------------------------- property tests

/// A dim: zero, one, small, or huge. Huge dims are 2^48 or more, so that any tensor holding
/// one (and no zero) needs more bytes than a 47-bit user address space: the allocation fails
/// at once instead of running.
fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        2 => Just(0usize),
        2 => Just(1usize),
        4 => 2usize..5,
        2 => (48u32..64).prop_map(|k| 1usize << k),
        1 => (1usize << 48)..=usize::MAX,
    ]
}

fn dims() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(dim(), 0..5)
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

/// Ok or one of the errors a shape, an allocation or a dtype may cause: never a panic.
fn assert_err_kind<T: std::fmt::Debug>(r: &placer_runtime::Result<T>) {
    if let Err(e) = r {
        assert!(
            matches!(
                e,
                Error::ShapeOverflow { .. }
                    | Error::OutOfMemory { .. }
                    | Error::UnsupportedDType { .. }
                    | Error::ShapeMismatch { .. }
                    | Error::RankMismatch { .. }
                    | Error::DimOutOfRange { .. }
                    | Error::IndexOutOfRange { .. }
                    | Error::ElementCountMismatch { .. }
                    | Error::InvalidArgument { .. }
                    | Error::DTypeMismatch { .. }
                    | Error::MetaData { .. }
            ),
            "unexpected error {e:?}"
        );
    }
}

/// The element count when it fits, else None.
fn count(d: &[usize]) -> Option<usize> {
    d.iter().try_fold(1usize, |a, &x| a.checked_mul(x))
}

fn exercise(x: &Tensor) {
    let r = x.rank();
    let last = x.dims().last().copied().unwrap_or(1);
    assert_err_kind(&x.add(x));
    assert_err_kind(&x.maximum(x));
    assert_err_kind(&x.eq(x));
    assert_err_kind(&x.add_scalar(1.0));
    assert_err_kind(&x.neg());
    assert_err_kind(&x.to_dtype(DType::I64));
    assert_err_kind(&x.contiguous());
    assert_err_kind(&x.flatten_all());
    assert_err_kind(&x.item::<f32>());
    assert_err_kind(&x.unsqueeze(0));
    assert_err_kind(&x.to(&Device::Meta));
    if x.elem_count() <= 4096 || !x.device().is_cpu() {
        assert_err_kind(&x.to_vec::<f32>());
    }
    if r > 0 {
        assert_err_kind(&x.sum(0, false));
        assert_err_kind(&x.max(-1, true));
        assert_err_kind(&x.argmax(0, false));
        assert_err_kind(&x.softmax(-1));
        assert_err_kind(&x.layer_norm(None, None, 1e-5));
        assert_err_kind(&x.narrow(0, 0, x.dims()[0].min(1)));
        assert_err_kind(&x.transpose(0, -1));
        assert_err_kind(&Tensor::cat(&[x, x], 0));
        let ids = Tensor::from_vec(vec![0i64], 1, x.device()).unwrap();
        assert_err_kind(&x.index_select(-1, &ids));
        let mask = x.gt(x);
        if let Ok(mask) = mask {
            assert_err_kind(&x.masked_fill(&mask, 0.0));
            assert_err_kind(&mask.where_(x, x));
        }
    }
    if r >= 2 {
        assert_err_kind(&x.t());
        // A valid product over a huge inner dim is a long computation, not an error: the CPU
        // runs it only with a small inner dim.
        if !x.device().is_cpu() || last < 1 << 48 {
            assert_err_kind(&x.matmul(&x.transpose(-1, -2).unwrap()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn should_build_factories_of_any_shape_or_return_an_error(d in dims(), dt in dtype()) {
        for dev in [Device::Cpu, Device::Meta] {
            let zeros = Tensor::zeros(d.as_slice(), (dt, dev));
            assert_err_kind(&zeros);
            if let Ok(z) = &zeros {
                prop_assert_eq!(z.dims(), d.as_slice());
                prop_assert_eq!(Some(z.elem_count()), count(&d));
                exercise(z);
            }
            assert_err_kind(&Tensor::full(d.as_slice(), 2.0, (dt, dev)));
            assert_err_kind(&Tensor::rand(d.as_slice(), (DType::F32, dev)));
            assert_err_kind(&Tensor::from_vec(Vec::<f32>::new(), d.as_slice(), (dt, dev)));
            for &n in d.iter().take(1) {
                assert_err_kind(&Tensor::eye(n, (dt, dev)));
                assert_err_kind(&Tensor::linspace(0.0, 1.0, n, (dt, dev)));
                #[allow(clippy::cast_precision_loss)]
                let end = n as f64;
                assert_err_kind(&Tensor::arange(0.0, end, 1.0, (dt, dev)));
            }
        }
    }

    #[test]
    fn should_run_ops_on_views_of_any_shape_or_return_an_error(d in dims(), dt in dtype()) {
        for dev in [Device::Cpu, Device::Meta] {
            let base = Tensor::ones(vec![1; d.len()], (dt, dev)).unwrap();
            let view = base.broadcast_as(d.as_slice());
            assert_err_kind(&view);
            if let Ok(v) = &view {
                prop_assert_eq!(v.dims(), d.as_slice());
                exercise(v);
                assert_err_kind(&v.reshape(count(&d).unwrap_or(usize::MAX)));
            }
        }
    }
}

#[test]
fn should_refuse_fill_values_an_integer_tensor_cannot_hold() {
    for dev in [Device::Cpu, Device::Meta] {
        for (value, dtype) in [
            (f64::NAN, DType::I64),
            (f64::NEG_INFINITY, DType::I64),
            (1e19, DType::I64),
            (256.0, DType::U8),
            (-1.0, DType::U8),
        ] {
            let r = Tensor::full([2], value, (dtype, dev));
            assert!(
                matches!(r, Err(Error::ScalarOutOfRange { op: "full", .. })),
                "full({value}) as {dtype}: {r:?}"
            );
        }
        let x = Tensor::zeros([2], (DType::I64, dev)).unwrap();
        let mask = x.eq(&x).unwrap();
        assert!(matches!(
            x.masked_fill(&mask, f64::NAN),
            Err(Error::ScalarOutOfRange {
                op: "masked_fill",
                ..
            })
        ));
        assert!(x.full_like(f64::INFINITY).is_err());
    }
    // Truncation toward zero stays (as `as` and PyTorch), and floats and bool take anything.
    let t = Tensor::full([2], -2.7, (DType::I64, Device::Cpu)).unwrap();
    assert_eq!(t.to_vec::<i64>().unwrap(), vec![-2, -2]);
    let b = Tensor::full([1], f64::NAN, (DType::Bool, Device::Cpu)).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), vec![true]);
    assert!(Tensor::full([1], f64::NAN, Device::Cpu).is_ok());
}
