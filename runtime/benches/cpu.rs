//! CPU benchmarks: f32 matmul against candle-core in the same run, and elementwise add against
//! a plain memcpy of the same number of bytes.
//!
//! Run with `cargo bench -p placer-runtime --bench cpu` (see docs/performance.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use placer_runtime::{Device, Tensor};
use std::hint::black_box;
use std::time::Duration;

fn matmul(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_f32");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    for n in [512usize, 1024, 2048] {
        // FLOPs per product: 2 n^3.
        group.throughput(Throughput::Elements(2 * (n as u64).pow(3)));
        // The same sizes in both libraries, one after the other.
        let dev = candle_core::Device::Cpu;
        let ca = candle_core::Tensor::randn(0f32, 1f32, (n, n), &dev).expect("candle randn");
        let cb = candle_core::Tensor::randn(0f32, 1f32, (n, n), &dev).expect("candle randn");
        group.bench_with_input(BenchmarkId::new("candle", n), &n, |bench, _| {
            bench.iter(|| black_box(ca.matmul(&cb).expect("candle matmul")));
        });
        let a = Tensor::randn([n, n], Device::Cpu).expect("randn");
        let b = Tensor::randn([n, n], Device::Cpu).expect("randn");
        group.bench_with_input(BenchmarkId::new("placer", n), &n, |bench, _| {
            bench.iter(|| black_box(a.matmul(&b).expect("matmul")));
        });
    }
    group.finish();
}

fn add(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_f32");
    group.sample_size(20);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for n in [1usize << 20, 1 << 24] {
        // Throughput in output bytes; add also reads 2x that, memcpy reads 1x.
        group.throughput(Throughput::Bytes(4 * n as u64));
        let a = Tensor::randn([n], Device::Cpu).expect("randn");
        let b = Tensor::randn([n], Device::Cpu).expect("randn");
        group.bench_with_input(BenchmarkId::new("placer_add", n), &n, |bench, _| {
            bench.iter(|| black_box(a.add(&b).expect("add")));
        });
        let src = vec![1.0f32; n];
        // A fresh output buffer each time, as add allocates its output.
        group.bench_with_input(BenchmarkId::new("memcpy_alloc", n), &n, |bench, _| {
            bench.iter(|| black_box(src.clone()));
        });
        let mut dst = vec![0.0f32; n];
        group.bench_with_input(BenchmarkId::new("memcpy_prealloc", n), &n, |bench, _| {
            bench.iter(|| {
                dst.copy_from_slice(black_box(&src));
                black_box(&dst);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, matmul, add);
criterion_main!(benches);
