//! Every op against a naive reference on the CPU (and on CUDA when present), with proptest over
//! shapes and broadcasting; and on meta for shape/device propagation.
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

use common::{assert_close, bcast_index, bcast_shape, devices, host, indices, values};
use placer_runtime::{DType, Device, Tensor};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// An output shape and two operand shapes that broadcast to it (leading dims dropped and
/// some dims set to 1, chosen by `bits`).
fn broadcast_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (prop::collection::vec(1usize..5, 0..4), any::<u32>()).prop_map(|(out, bits)| {
        let derive = |shift: u32| {
            let drop = ((bits >> shift) & 3) as usize % (out.len() + 1);
            out[drop..]
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    if (bits >> (shift + 2 + i as u32)) & 1 == 1 {
                        1
                    } else {
                        d
                    }
                })
                .collect::<Vec<_>>()
        };
        (derive(0), derive(12))
    })
}

fn tensor(dims: &[usize], seed: u64, dev: Device) -> (Vec<f32>, Tensor) {
    let v = values(dims.iter().product(), seed);
    let t = Tensor::from_vec(v.clone(), dims, dev).expect("from_vec");
    (v, t)
}

type Naive = fn(f32, f32) -> f32;

fn binary_cases() -> Vec<(&'static str, Naive)> {
    vec![
        ("add", |a, b| a + b),
        ("sub", |a, b| a - b),
        ("mul", |a, b| a * b),
        ("div", |a, b| a / b),
        ("maximum", f32::max),
        ("minimum", f32::min),
    ]
}

fn run_binary(name: &str, a: &Tensor, b: &Tensor) -> placer_runtime::Result<Tensor> {
    match name {
        "add" => a.add(b),
        "sub" => a.sub(b),
        "mul" => a.mul(b),
        "div" => a.div(b),
        "maximum" => a.maximum(b),
        _ => a.minimum(b),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn should_match_naive_binary_ops_with_broadcasting((sa, sb) in broadcast_pair(), seed in any::<u64>()) {
        let out = bcast_shape(&sa, &sb).unwrap();
        for dev in devices() {
            let (va, a) = tensor(&sa, seed, dev);
            let (vb, b) = tensor(&sb, seed ^ 1, dev);
            for (name, f) in binary_cases() {
                let got = run_binary(name, &a, &b).unwrap();
                prop_assert_eq!(got.dims(), out.as_slice());
                prop_assert_eq!(got.device(), dev);
                let want: Vec<f32> = indices(&out)
                    .iter()
                    .map(|i| f(va[bcast_index(i, &sa)], vb[bcast_index(i, &sb)]))
                    .collect();
                assert_close(&host(&got), &want, 1e-6);
                // Same shapes on meta, no data.
                let m = run_binary(name, &a.to(&Device::Meta).unwrap(), &b.to(&Device::Meta).unwrap()).unwrap();
                prop_assert_eq!(m.dims(), out.as_slice());
                prop_assert_eq!(m.device(), Device::Meta);
            }
        }
    }

    #[test]
    fn should_match_naive_comparisons((sa, sb) in broadcast_pair(), seed in any::<u64>()) {
        let out = bcast_shape(&sa, &sb).unwrap();
        for dev in devices() {
            let va = values(sa.iter().product(), seed);
            // Few distinct values, so that equality happens.
            let vb: Vec<f32> = values(sb.iter().product(), seed ^ 7).iter().map(|x| x.round()).collect();
            let va: Vec<f32> = va.iter().map(|x| x.round()).collect();
            let a = Tensor::from_vec(va.clone(), sa.as_slice(), dev).unwrap();
            let b = Tensor::from_vec(vb.clone(), sb.as_slice(), dev).unwrap();
            type Cmp = fn(&f32, &f32) -> bool;
            let cases: [(&str, Cmp); 6] = [("eq", f32::eq), ("ne", f32::ne), ("lt", f32::lt), ("le", f32::le), ("gt", f32::gt), ("ge", f32::ge)];
            for (name, f) in cases {
                let got = match name {
                    "eq" => a.eq(&b), "ne" => a.ne(&b), "lt" => a.lt(&b),
                    "le" => a.le(&b), "gt" => a.gt(&b), _ => a.ge(&b),
                }.unwrap();
                prop_assert_eq!(got.dtype(), DType::Bool);
                let want: Vec<bool> = indices(&out).iter().map(|i| f(&va[bcast_index(i, &sa)], &vb[bcast_index(i, &sb)])).collect();
                prop_assert_eq!(got.to_vec::<bool>().unwrap(), want);
            }
        }
    }

    #[test]
    fn should_match_naive_unary_ops(dims in prop::collection::vec(1usize..6, 0..4), seed in any::<u64>()) {
        for dev in devices() {
            let (v, x) = tensor(&dims, seed, dev);
            let pos = x.abs().unwrap().add_scalar(0.5).unwrap();
            let vpos: Vec<f32> = v.iter().map(|a| a.abs() + 0.5).collect();
            let check = |got: Tensor, want: Vec<f32>| {
                assert_eq!(got.dims(), dims.as_slice());
                assert_close(&host(&got), &want, 1e-5);
            };
            check(x.neg().unwrap(), v.iter().map(|a| -a).collect());
            check(x.exp().unwrap(), v.iter().map(|a| a.exp()).collect());
            check(pos.log().unwrap(), vpos.iter().map(|a| a.ln()).collect());
            check(pos.sqrt().unwrap(), vpos.iter().map(|a| a.sqrt()).collect());
            check(x.tanh().unwrap(), v.iter().map(|a| a.tanh()).collect());
            check(x.relu().unwrap(), v.iter().map(|a| a.max(0.0)).collect());
            check(x.silu().unwrap(), v.iter().map(|a| a / (1.0 + (-a).exp())).collect());
            check(x.gelu().unwrap(), v.iter().map(|&a| gelu_ref(a)).collect());
            check(x.affine(2.0, -1.0).unwrap(), v.iter().map(|a| a * 2.0 - 1.0).collect());
            let m = x.to(&Device::Meta).unwrap().gelu().unwrap();
            prop_assert_eq!(m.dims(), dims.as_slice());
            prop_assert!(m.device().is_meta());
        }
    }

    #[test]
    fn should_match_naive_batched_matmul(
        m in 1usize..6, k in 1usize..6, n in 1usize..6,
        (ba, bb) in broadcast_pair(),
        transpose_rhs in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Keep the batch small: at most 2 batch dims.
        let ba: Vec<usize> = ba.into_iter().take(2).collect();
        let bb: Vec<usize> = bb.into_iter().take(2).collect();
        let Some(batch) = bcast_shape(&ba, &bb) else { return Ok(()) };
        for dev in devices() {
            let sa: Vec<usize> = ba.iter().copied().chain([m, k]).collect();
            let sb: Vec<usize> = bb.iter().copied().chain([k, n]).collect();
            let (va, a) = tensor(&sa, seed, dev);
            let (vb, b) = if transpose_rhs {
                // Build [.., n, k] and view it transposed: a strided operand.
                let st: Vec<usize> = bb.iter().copied().chain([n, k]).collect();
                let (vt, t) = tensor(&st, seed ^ 3, dev);
                let b = t.transpose(-1, -2).unwrap();
                let vb = indices(&sb).iter().map(|i| {
                    let mut j = i.clone();
                    let r = j.len();
                    j.swap(r - 1, r - 2);
                    vt[bcast_index(&j, &st)]
                }).collect::<Vec<_>>();
                (vb, b)
            } else {
                tensor(&sb, seed ^ 3, dev)
            };
            let got = a.matmul(&b).unwrap();
            let out: Vec<usize> = batch.iter().copied().chain([m, n]).collect();
            prop_assert_eq!(got.dims(), out.as_slice());
            let want: Vec<f32> = indices(&out).iter().map(|i| {
                let r = i.len();
                (0..k).map(|kk| {
                    let mut ia = i[..r - 2].to_vec(); ia.extend([i[r - 2], kk]);
                    let mut ib = i[..r - 2].to_vec(); ib.extend([kk, i[r - 1]]);
                    va[bcast_index(&ia, &sa)] * vb[bcast_index(&ib, &sb)]
                }).sum()
            }).collect();
            assert_close(&host(&got), &want, 1e-4);
            let meta = a.to(&Device::Meta).unwrap().matmul(&b.to(&Device::Meta).unwrap()).unwrap();
            prop_assert_eq!(meta.dims(), out.as_slice());
        }
    }

    #[test]
    fn should_match_naive_reductions(dims in prop::collection::vec(1usize..5, 1..4), seed in any::<u64>(), keepdim in any::<bool>()) {
        for dev in devices() {
            let (v, x) = tensor(&dims, seed, dev);
            for d in 0..dims.len() {
                let mut out = dims.clone();
                out[d] = 1;
                let groups: Vec<Vec<f32>> = indices(&out).iter().map(|i| {
                    (0..dims[d]).map(|k| { let mut j = i.clone(); j[d] = k; v[bcast_index(&j, &dims)] }).collect()
                }).collect();
                let mut want_dims = dims.clone();
                if keepdim { want_dims[d] = 1 } else { want_dims.remove(d); }
                let sum = x.sum(d, keepdim).unwrap();
                prop_assert_eq!(sum.dims(), want_dims.as_slice());
                assert_close(&host(&sum), &groups.iter().map(|g| g.iter().sum()).collect::<Vec<f32>>(), 1e-5);
                #[allow(clippy::cast_precision_loss)]
                let mean: Vec<f32> = groups.iter().map(|g| g.iter().sum::<f32>() / g.len() as f32).collect();
                assert_close(&host(&x.mean(d, keepdim).unwrap()), &mean, 1e-5);
                let max: Vec<f32> = groups.iter().map(|g| g.iter().copied().fold(f32::NEG_INFINITY, f32::max)).collect();
                assert_close(&host(&x.max(d, keepdim).unwrap()), &max, 0.0);
                let argmax: Vec<i64> = groups.iter().map(|g| {
                    let m = g.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    g.iter().position(|&e| e == m).unwrap() as i64
                }).collect();
                let am = x.argmax(d, keepdim).unwrap();
                prop_assert_eq!(am.dtype(), DType::I64);
                prop_assert_eq!(am.to_vec::<i64>().unwrap(), argmax);
                let meta = x.to(&Device::Meta).unwrap().sum(d, keepdim).unwrap();
                prop_assert_eq!(meta.dims(), want_dims.as_slice());
            }
        }
    }

    #[test]
    fn should_match_naive_softmax_and_layer_norm(dims in prop::collection::vec(1usize..6, 1..4), seed in any::<u64>()) {
        for dev in devices() {
            let (v, x) = tensor(&dims, seed, dev);
            let r = dims.len();
            let d = dims[r - 1];
            let rows: Vec<&[f32]> = v.chunks(d).collect();
            let sm: Vec<f32> = rows.iter().flat_map(|row| {
                let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let s: f32 = row.iter().map(|a| (a - m).exp()).sum();
                row.iter().map(move |a| (a - m).exp() / s)
            }).collect();
            assert_close(&host(&x.softmax(-1).unwrap()), &sm, 1e-5);
            // softmax over the first dim equals softmax of the transpose over the last.
            let first = x.softmax(0).unwrap();
            let via_t = x.transpose(0, -1).unwrap().softmax(-1).unwrap().transpose(0, -1).unwrap();
            assert_close(&host(&first), &host(&via_t.contiguous().unwrap()), 1e-5);

            let w = values(d, seed ^ 9);
            let b = values(d, seed ^ 0xa);
            let wt = Tensor::from_vec(w.clone(), d, dev).unwrap();
            let bt = Tensor::from_vec(b.clone(), d, dev).unwrap();
            #[allow(clippy::cast_precision_loss)]
            let ln: Vec<f32> = rows.iter().flat_map(|row| {
                let mean = row.iter().sum::<f32>() / d as f32;
                let var = row.iter().map(|a| (a - mean).powi(2)).sum::<f32>() / d as f32;
                let (w, b) = (w.clone(), b.clone());
                row.iter().enumerate().map(move |(j, a)| (a - mean) / (var + 1e-5).sqrt() * w[j] + b[j])
            }).collect();
            assert_close(&host(&x.layer_norm(Some(&wt), Some(&bt), 1e-5).unwrap()), &ln, 1e-4);
            let meta = x.to(&Device::Meta).unwrap();
            let m = meta.layer_norm(Some(&wt.to(&Device::Meta).unwrap()), None, 1e-5).unwrap();
            prop_assert_eq!(m.dims(), dims.as_slice());
            let sm = meta.softmax(-1).unwrap();
            prop_assert_eq!(sm.dims(), dims.as_slice());
        }
    }

    #[test]
    fn should_match_naive_where_and_masked_fill((sa, sb) in broadcast_pair(), seed in any::<u64>()) {
        let out = bcast_shape(&sa, &sb).unwrap();
        for dev in devices() {
            let (va, a) = tensor(&sa, seed, dev);
            let (vc, c) = tensor(&sb, seed ^ 5, dev);
            let mask = c.gt(&Tensor::scalar(0.0, Device::Cpu).unwrap()).unwrap();
            let got = a.masked_fill(&mask, -9.0).unwrap();
            let want: Vec<f32> = indices(&out).iter().map(|i| {
                if vc[bcast_index(i, &sb)] > 0.0 { -9.0 } else { va[bcast_index(i, &sa)] }
            }).collect();
            prop_assert_eq!(got.dims(), out.as_slice());
            assert_close(&host(&got), &want, 0.0);
            let zeros = a.zeros_like().unwrap();
            let w = mask.where_(&zeros, &a).unwrap();
            let want: Vec<f32> = indices(&out).iter().map(|i| {
                if vc[bcast_index(i, &sb)] > 0.0 { 0.0 } else { va[bcast_index(i, &sa)] }
            }).collect();
            assert_close(&host(&w), &want, 0.0);
        }
    }

    #[test]
    fn should_match_naive_cat_and_index_select(dims in prop::collection::vec(1usize..5, 1..4), extra in 1usize..4, seed in any::<u64>(), ids in prop::collection::vec(0usize..100, 0..6)) {
        for dev in devices() {
            let (va, a) = tensor(&dims, seed, dev);
            for d in 0..dims.len() {
                let mut sb = dims.clone();
                sb[d] = extra;
                let (vb, b) = tensor(&sb, seed ^ 0xb, dev);
                let got = Tensor::cat(&[&a, &b], d).unwrap();
                let mut out = dims.clone();
                out[d] += extra;
                prop_assert_eq!(got.dims(), out.as_slice());
                let want: Vec<f32> = indices(&out).iter().map(|i| {
                    if i[d] < dims[d] { va[bcast_index(i, &dims)] } else {
                        let mut j = i.clone(); j[d] -= dims[d]; vb[bcast_index(&j, &sb)]
                    }
                }).collect();
                assert_close(&host(&got), &want, 0.0);

                let idx: Vec<i64> = ids.iter().map(|&i| (i % dims[d]) as i64).collect();
                let it = Tensor::from_vec(idx.clone(), idx.len(), dev).unwrap();
                let sel = a.index_select(d, &it).unwrap();
                let mut out = dims.clone();
                out[d] = idx.len();
                prop_assert_eq!(sel.dims(), out.as_slice());
                let want: Vec<f32> = indices(&out).iter().map(|i| {
                    let mut j = i.clone(); j[d] = idx[i[d]] as usize; va[bcast_index(&j, &dims)]
                }).collect();
                assert_close(&host(&sel), &want, 0.0);
            }
        }
    }
}

/// GELU with erf from its Taylor series in f64 (independent of the runtime's approximation).
fn gelu_ref(x: f32) -> f32 {
    let z = f64::from(x) / std::f64::consts::SQRT_2;
    let mut term = z;
    let mut sum = z;
    for n in 1..80 {
        term *= -z * z / f64::from(n);
        sum += term / f64::from(2 * n + 1);
    }
    let erf = 2.0 / std::f64::consts::PI.sqrt() * sum;
    #[allow(clippy::cast_possible_truncation)]
    let y = (0.5 * f64::from(x) * (1.0 + erf)) as f32;
    y
}

fn should_embed_ids_of_any_shape(dev: Device) {
    {
        let w =
            Tensor::from_vec((0..12).map(|x| x as f32).collect::<Vec<_>>(), [4, 3], dev).unwrap();
        let ids = Tensor::from_vec(vec![3i64, 0, 2, 2], [2, 2], dev).unwrap();
        let e = w.embedding(&ids).unwrap();
        assert_eq!(e.dims(), &[2, 2, 3]);
        assert_eq!(
            host(&e),
            vec![9., 10., 11., 0., 1., 2., 6., 7., 8., 6., 7., 8.]
        );
        let bad = Tensor::from_vec(vec![4i64], 1, dev).unwrap();
        let err = w.embedding(&bad).unwrap_err().to_string();
        assert!(err.contains("index out of range in embedding: 4"), "{err}");
    }
}

fn should_compute_half_precision_through_f32(dev: Device) {
    {
        for dtype in [DType::F16, DType::BF16] {
            let v = values(24, 3);
            let x = Tensor::from_vec(v.clone(), [2, 3, 4], (dtype, dev)).unwrap();
            assert_eq!(x.dtype(), dtype);
            let y = x
                .matmul(&x.transpose(1, 2).unwrap())
                .unwrap()
                .softmax(-1)
                .unwrap();
            assert_eq!(y.dtype(), dtype);
            let xf = Tensor::from_vec(v, [2, 3, 4], dev).unwrap();
            let yf = xf
                .matmul(&xf.transpose(1, 2).unwrap())
                .unwrap()
                .softmax(-1)
                .unwrap();
            assert_close(&host(&y), &host(&yf), 3e-2);
            let s = x.sum(-1, false).unwrap();
            assert_eq!(s.dtype(), dtype);
            assert_close(&host(&s), &host(&xf.sum(-1, false).unwrap()), 2e-2);
        }
    }
}

fn should_do_integer_and_bool_arithmetic_where_defined(dev: Device) {
    {
        let a = Tensor::from_vec(vec![1i64, -2, 3], 3, dev).unwrap();
        let b = Tensor::from_vec(vec![4i64, 5, -6], 3, dev).unwrap();
        assert_eq!(a.add(&b).unwrap().to_vec::<i64>().unwrap(), vec![5, 3, -3]);
        assert_eq!(
            a.mul(&b).unwrap().to_vec::<i64>().unwrap(),
            vec![4, -10, -18]
        );
        assert_eq!(
            a.maximum(&b).unwrap().to_vec::<i64>().unwrap(),
            vec![4, 5, 3]
        );
        assert_eq!(a.sum(0, false).unwrap().item::<i64>().unwrap(), 2);
        let err = a.div(&b).unwrap_err().to_string();
        assert_eq!(err, format!("div does not support int64 on {dev}"));
        let t = a.gt(&b).unwrap();
        assert!(t.add(&t).is_err(), "bool arithmetic is rejected");
        assert_eq!(t.sum(0, false).unwrap().item::<i64>().unwrap(), 1);
    }
}

fn should_convert_dtypes_like_as_casts(dev: Device) {
    {
        let x = Tensor::from_vec(vec![-1.7f32, 0.0, 2.5, 300.0], 4, dev).unwrap();
        assert_eq!(
            x.to_dtype(DType::I64).unwrap().to_vec::<i64>().unwrap(),
            vec![-1, 0, 2, 300]
        );
        assert_eq!(
            x.to_dtype(DType::U8).unwrap().to_vec::<u8>().unwrap(),
            vec![0, 0, 2, 255]
        );
        assert_eq!(
            x.to_dtype(DType::Bool).unwrap().to_vec::<bool>().unwrap(),
            vec![true, false, true, true]
        );
        let h = x.to_dtype(DType::F16).unwrap();
        assert_eq!(
            h.to_vec::<half::f16>().unwrap()[2],
            half::f16::from_f32(2.5)
        );
        let back = h.to_dtype(DType::F32).unwrap().to_vec::<f32>().unwrap();
        assert_close(&back, &[-1.7, 0.0, 2.5, 300.0], 1e-3);
        let b = x
            .to_dtype(DType::BF16)
            .unwrap()
            .to_dtype(DType::F32)
            .unwrap();
        assert_close(&b.to_vec::<f32>().unwrap(), &[-1.7, 0.0, 2.5, 300.0], 1e-2);
    }
}

#[test]
fn should_reuse_dropped_buffers_without_touching_live_tensors() {
    let n = 300_000;
    let va = values(n, 1);
    let vb = values(n, 2);
    let a = Tensor::from_vec(va.clone(), n, Device::Cpu).unwrap();
    let b = Tensor::from_vec(vb.clone(), n, Device::Cpu).unwrap();
    // The first result is dropped, so its buffer can serve the next op.
    drop(a.add(&b).unwrap());
    let live = a.mul(&b).unwrap();
    let next = a.sub(&b).unwrap();
    let want_mul: Vec<f32> = va.iter().zip(&vb).map(|(x, y)| x * y).collect();
    let want_sub: Vec<f32> = va.iter().zip(&vb).map(|(x, y)| x - y).collect();
    assert_eq!(live.to_vec::<f32>().unwrap(), want_mul);
    assert_eq!(next.to_vec::<f32>().unwrap(), want_sub);
    assert!(!live.same_storage(&next));
}

/// Runs every op on tensors with a zero dim on `dev`, and on meta, and checks dims, device
/// and values against the CPU (on CUDA this takes the padded one-element allocations of empty
/// storages through every kernel launcher, which must launch nothing).
fn should_run_every_op_on_empty_tensors(dev: Device) {
    for device in [dev, Device::Meta] {
        let on = |t: Tensor| t.to(&device).unwrap();
        let x = on(Tensor::zeros([2, 0, 3], Device::Cpu).unwrap());
        let cpu = Tensor::zeros([2, 0, 3], Device::Cpu).unwrap();
        let ids = on(Tensor::from_vec(Vec::<i64>::new(), 0, Device::Cpu).unwrap());
        let cpu_ids = Tensor::from_vec(Vec::<i64>::new(), 0, Device::Cpu).unwrap();
        let w = on(Tensor::ones([3], Device::Cpu).unwrap());
        let cpu_w = Tensor::ones([3], Device::Cpu).unwrap();
        let mask = x.gt(&x).unwrap();
        let cases: Vec<(&str, Tensor, Tensor)> = vec![
            ("add", x.add(&x).unwrap(), cpu.add(&cpu).unwrap()),
            ("exp", x.exp().unwrap(), cpu.exp().unwrap()),
            (
                "affine",
                x.affine(2.0, 1.0).unwrap(),
                cpu.affine(2.0, 1.0).unwrap(),
            ),
            (
                "to_dtype",
                x.to_dtype(DType::I64).unwrap(),
                cpu.to_dtype(DType::I64).unwrap(),
            ),
            (
                "f16",
                x.to_dtype(DType::F16).unwrap(),
                cpu.to_dtype(DType::F16).unwrap(),
            ),
            (
                "contiguous",
                x.transpose(0, 2).unwrap().contiguous().unwrap(),
                cpu.transpose(0, 2).unwrap().contiguous().unwrap(),
            ),
            (
                "sum over the empty dim",
                x.sum(1, false).unwrap(),
                cpu.sum(1, false).unwrap(),
            ),
            ("mean", x.mean(0, true).unwrap(), cpu.mean(0, true).unwrap()),
            ("max", x.max(2, false).unwrap(), cpu.max(2, false).unwrap()),
            (
                "argmax",
                x.argmax(0, false).unwrap(),
                cpu.argmax(0, false).unwrap(),
            ),
            ("softmax", x.softmax(-1).unwrap(), cpu.softmax(-1).unwrap()),
            (
                "layer_norm",
                x.layer_norm(Some(&w), Some(&w), 1e-5).unwrap(),
                cpu.layer_norm(Some(&cpu_w), Some(&cpu_w), 1e-5).unwrap(),
            ),
            (
                "matmul",
                x.matmul(&x.transpose(1, 2).unwrap()).unwrap(),
                cpu.matmul(&cpu.transpose(1, 2).unwrap()).unwrap(),
            ),
            (
                "matmul k=0",
                x.transpose(1, 2).unwrap().matmul(&x).unwrap(),
                cpu.transpose(1, 2).unwrap().matmul(&cpu).unwrap(),
            ),
            (
                "cat",
                Tensor::cat(&[&x, &x], 1).unwrap(),
                Tensor::cat(&[&cpu, &cpu], 1).unwrap(),
            ),
            (
                "index_select",
                x.index_select(2, &ids).unwrap(),
                cpu.index_select(2, &cpu_ids).unwrap(),
            ),
            (
                "where",
                mask.where_(&x, &x).unwrap(),
                cpu.gt(&cpu).unwrap().where_(&cpu, &cpu).unwrap(),
            ),
            (
                "masked_fill",
                x.masked_fill(&mask, 1.0).unwrap(),
                cpu.masked_fill(&cpu.gt(&cpu).unwrap(), 1.0).unwrap(),
            ),
            (
                "narrow",
                x.narrow(2, 1, 0).unwrap().contiguous().unwrap(),
                cpu.narrow(2, 1, 0).unwrap().contiguous().unwrap(),
            ),
            ("eq", x.eq(&x).unwrap(), cpu.eq(&cpu).unwrap()),
        ];
        for (name, got, want) in cases {
            assert_eq!(got.dims(), want.dims(), "{name}");
            assert_eq!(got.device(), device, "{name}");
            if !device.is_meta() {
                let back = got.to(&Device::Cpu).unwrap();
                assert_eq!(
                    host(&back.to_dtype(DType::F32).unwrap()),
                    host(&want.to_dtype(DType::F32).unwrap()),
                    "{name}"
                );
            }
        }
        // Reductions over the empty dim of a non-empty output give the identities.
        if !device.is_meta() {
            assert_eq!(host(&x.sum(1, false).unwrap()), vec![0.0; 6]);
            assert_eq!(
                host(&x.transpose(1, 2).unwrap().matmul(&x).unwrap()),
                vec![0.0; 18]
            );
            assert!(
                x.max(1, false).is_err(),
                "max over an empty dim is an error"
            );
        }
    }
}

test_device!(
    should_run_every_op_on_empty_tensors,
    should_embed_ids_of_any_shape,
    should_compute_half_precision_through_f32,
    should_do_integer_and_bool_arithmetic_where_defined,
    should_convert_dtypes_like_as_casts,
);
