use placer_runtime::nn::Linear;
use placer_runtime::{module, Tensor};

#[module(strict)]
struct Model {
    #[param]
    #[buffer]
    w: Tensor,
    #[buffer(persist = false)]
    mask: Tensor,
    #[param]
    proj: Linear,
    #[param(trainable)]
    b: Tensor,
}

fn main() {}
