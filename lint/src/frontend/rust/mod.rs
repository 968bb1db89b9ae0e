//! The Rust frontend: `syn` parsing and lowering, with the API tables it reads.

mod call_graph;
mod lower;
mod spans;
pub(crate) mod tables;

pub(crate) use call_graph::lower_calls_only;
pub(crate) use lower::{apply_settings, is_test_path, lower_file};
