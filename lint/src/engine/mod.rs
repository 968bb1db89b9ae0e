//! The device-flow engine: facts computed over the whole tree's IR, for every rule to read.
//! Nothing here knows Rust or Python syntax.

pub(crate) mod meets;
