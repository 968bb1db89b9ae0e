use std::sync::Mutex;

use placer_runtime::{module, Tensor};

struct Cache {
    _kv: Tensor,
}

#[module]
struct Decoder {
    cache: Cache,
    lock: Mutex<u8>,
}

fn main() {}
