//! Rotary position embeddings in burn.
use burn::tensor::{backend::Backend, Tensor};

pub struct Rope<B: Backend> {
    theta: f32,
    _b: core::marker::PhantomData<B>,
}

impl<B: Backend> Rope<B> {
    pub fn forward(&self, x: Tensor<B, 3>) -> Tensor<B, 3> {
        let [_, seq, dim] = x.dims();
        // P101 tensor-on-default-device: the backend's default device, not the input's.
        let positions = Tensor::<B, 1, burn::tensor::Int>::arange(0..seq as i64, &Default::default())
            .float()
            .reshape([seq, 1]);
        let freqs = Tensor::<B, 1, burn::tensor::Int>::arange(0..dim as i64, &x.device())
            .float()
            .mul_scalar(-self.theta.ln() / dim as f32)
            .exp()
            .reshape([1, dim]);
        let angles = positions.matmul(freqs).unsqueeze::<3>();
        x.mul(angles.cos())
    }
}
