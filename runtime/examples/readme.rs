//! The README's `#[module]` example, kept compiling and running here.
use placer_runtime::nn::Linear;
use placer_runtime::{module, Device, Module, Result, Tensor};

#[module]
struct Mlp {
    fc1: Linear, // sub-modules move recursively
    fc2: Linear,
    #[buffer]
    scale: Tensor, // moves with the model, saved in state_dict()
    device: Device, // kept in step by to()
}

fn main() -> Result<()> {
    let device = Device::cuda_if_available(0); // cuda:0 with a GPU, else cpu
    let f = Device::Cpu;
    let mut mlp = Mlp {
        fc1: Linear::new(784, 256, true, f)?,
        fc2: Linear::new(256, 10, true, f)?,
        scale: Tensor::ones([10], f)?,
        device: f,
    };
    mlp.to(&device)?; // every tensor moves
    let x = Tensor::randn([32, 784], Device::Cpu)?.to(&device)?; // move the batch once
    let logits = mlp
        .fc2
        .forward(&mlp.fc1.forward(&x)?.relu()?)?
        .mul(&mlp.scale)?;
    println!(
        "{:?} on {} (model on {})",
        logits.dims(),
        logits.device(),
        mlp.device
    );
    Ok(())
}
