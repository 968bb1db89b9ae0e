//! A tch training loop with the usual transfer and timing mistakes.
use std::time::Instant;
use tch::{nn, nn::ModuleT, nn::OptimizerConfig, Device, Kind, Tensor};

pub fn train(vs: &nn::VarStore, net: &impl ModuleT, images: &Tensor, labels: &Tensor) -> f64 {
    let device = vs.device();
    let class_weights = Tensor::from_slice(&[1.0f32, 2.0, 1.0]);
    let mut opt = nn::Adam::default().build(vs, 1e-3).unwrap();
    let mut epoch_loss = 0.0;
    for batch in 0..100 {
        let xs = images.narrow(0, batch * 64, 64).to_device(device);
        let ys = labels.narrow(0, batch * 64, 64).to_device(device);
        // P202 loop-invariant-transfer: the same weights are copied on every step.
        let weights = class_weights.to_device(device);
        let logits = net.forward_t(&xs, true);
        let loss = logits.cross_entropy_for_logits(&ys) * weights.mean(Kind::Float);
        opt.backward_step(&loss);
        // P301 host-sync-in-loop
        epoch_loss += f64::try_from(&loss).unwrap();
    }
    epoch_loss
}

/// Times one forward pass, in seconds.
pub fn time_forward(net: &impl ModuleT, xs: &Tensor) -> f64 {
    let start = Instant::now();
    let _logits = net.forward_t(xs, false);
    // P302 unsynchronized-timing (pedantic, `--extend-select P302`): the CUDA work is queued, not
    // finished, when the clock is read.
    start.elapsed().as_secs_f64()
}

/// Builds the evaluation mask on a fixed GPU.
pub fn eval_mask(n: i64) -> Tensor {
    // P102 hardcoded-device-ordinal: a library deciding which GPU its caller uses.
    let mask = Tensor::ones([n, n], (Kind::Float, Device::Cuda(1)));
    let scale = Tensor::ones([n, n], (Kind::Float, Device::Cpu));
    // P501 mixed-device-op: cuda:1 meets cpu.
    mask * scale
}
