// Generics, lifetimes, tuple structs, containers, plain data and Device fields are accepted.
use std::collections::HashMap;

use placer_runtime::nn::Linear;
use placer_runtime::{module, DType, Device, Module, Tensor};

#[module]
struct Head {
    #[param]
    scale: Tensor,
}

#[module]
struct Block<'a, M: Module> {
    inner: M,
    heads: Vec<Head>,
    experts: HashMap<String, Linear>,
    pair: [Head; 2],
    boxed: Box<Head>,
    maybe: Option<Linear>,
    #[buffer]
    masks: Vec<Tensor>,
    #[buffer(persistent = false)]
    rope: Option<Tensor>,
    device: Device,
    dtype: DType,
    #[skip]
    label: &'a str,
    n_heads: usize,
    name: String,
}

#[module]
struct Pair(#[param] Tensor, Linear);

fn main() {
    fn is_module<M: Module>() {}
    is_module::<Block<'static, Linear>>();
    is_module::<Pair>();
}
