//! The Rust frontend: `syn` parsing and lowering, with the API tables it reads.

mod lower;
mod spans;
pub(crate) mod tables;

pub(crate) use lower::{is_test_path, lower_calls_only, lower_file};
