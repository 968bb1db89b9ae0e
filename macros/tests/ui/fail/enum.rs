use placer_runtime::{module, Tensor};

#[module]
enum Layer {
    Dense(Tensor),
}

fn main() {}
