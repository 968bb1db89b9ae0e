use placer_runtime::{module, Tensor};

#[module]
struct Model {
    #[buffer = true]
    mask: Tensor,
    #[skip(always)]
    note: String,
    #[buffer(persistent = "no")]
    rope: Tensor,
}

fn main() {}
