//! A two-layer MLP on `Device::cuda_if_available(0)`, moved with `to`.
use placer_runtime::nn::Linear;
use placer_runtime::{Device, Module, Result, Tensor};

fn main() -> Result<()> {
    let device = Device::cuda_if_available(0); // cuda:0 with a GPU, else cpu
    let mut fc1 = Linear::new(784, 256, true, Device::Cpu)?;
    let mut fc2 = Linear::new(256, 10, true, Device::Cpu)?;
    fc1.to(&device)?; // every parameter moves with its layer
    fc2.to(&device)?;
    let batch = Tensor::randn([32, 784], Device::Cpu)?; // e.g. from a data loader
    let x = batch.to(&device)?; // move the batch once, before the model
    let probs = fc2.forward(&fc1.forward(&x)?.relu()?)?.softmax(-1)?;
    assert_eq!((probs.dims(), probs.device()), (&[32, 10][..], device));
    let predicted = probs.argmax(-1, false)?.to_vec::<i64>()?; // one host read, at the end
    println!("on {device}: first predictions {:?}", &predicted[..4]);
    Ok(())
}
