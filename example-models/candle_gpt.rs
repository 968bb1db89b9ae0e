//! A GPT-style decoder block in candle, with the bugs RULES.md describes.
use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{linear, Linear, VarBuilder};

fn causal_mask(t: usize) -> Result<Tensor> {
    let mask: Vec<u8> = (0..t)
        .flat_map(|i| (0..t).map(move |j| u8::from(j > i)))
        .collect();
    // P103 create-then-transfer: built on the host on every forward call, then copied.
    Tensor::from_slice(&mask, (t, t), &Device::Cpu)
}

pub struct Attention {
    qkv: Linear,
    proj: Linear,
    n_head: usize,
}

impl Attention {
    pub fn new(vb: VarBuilder, d_model: usize, n_head: usize) -> Result<Self> {
        Ok(Self {
            qkv: linear(d_model, 3 * d_model, vb.pp("qkv"))?,
            proj: linear(d_model, d_model, vb.pp("proj"))?,
            n_head,
        })
    }
}

impl Module for Attention {
    fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let (b, t, c) = xs.dims3()?;
        let qkv = self.qkv.forward(xs)?;
        let q = qkv.narrow(D::Minus1, 0, c)?;
        let k = qkv.narrow(D::Minus1, c, c)?;
        let v = qkv.narrow(D::Minus1, 2 * c, c)?;
        let scores = (q.matmul(&k.t()?)? / (c as f64 / self.n_head as f64).sqrt())?;
        let mask = causal_mask(t)?.to_device(xs.device())?;
        let scores = mask.broadcast_as((b, t, t))?.where_cond(
            &Tensor::new(f32::NEG_INFINITY, xs.device())?.broadcast_as((b, t, t))?,
            &scores,
        )?;
        // P101 tensor-on-default-device: a CPU tensor meets the (CUDA) activations.
        let temperature = Tensor::ones((b, t, t), DType::F32, &Device::Cpu)?;
        let probs = candle_nn::ops::softmax_last_dim(&(scores / temperature)?)?;
        self.proj.forward(&probs.matmul(&v)?)
    }
}

/// Mean loss over an evaluation set.
pub fn evaluate(model: &Attention, batches: &[Tensor], targets: &[Tensor]) -> Result<f32> {
    let mut total = 0f32;
    for (xs, ys) in batches.iter().zip(targets) {
        let out = model.forward(xs)?;
        let loss = (out - ys)?.sqr()?.mean_all()?;
        // P301 host-sync-in-loop: one device synchronisation per batch.
        total += loss.to_scalar::<f32>()?;
    }
    Ok(total / batches.len() as f32)
}

/// Clamps activations on the host, step by step.
pub fn clamp_steps(xs: &Tensor, steps: usize) -> Result<Tensor> {
    let device = xs.device().clone();
    let mut xs = xs.clone();
    for _ in 0..steps {
        let host = xs.to_device(&Device::Cpu)?;
        // P201 device-round-trip-in-loop: to the host and back on every step.
        xs = host.clamp(0f32, 1f32)?.to_device(&device)?;
    }
    Ok(xs)
}
