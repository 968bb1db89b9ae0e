use placer_runtime::module;

#[module]
fn forward() {}

fn main() {}
