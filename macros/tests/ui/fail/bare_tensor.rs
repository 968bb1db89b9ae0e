use placer_runtime::{module, Tensor};

// Both mistakes are reported at once.
#[module]
struct Attention {
    weight: Tensor,
    masks: Vec<Tensor>,
}

fn main() {}
