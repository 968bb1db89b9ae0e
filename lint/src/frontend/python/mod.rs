//! The Python frontend: `ruff_python_parser` parsing and lowering, with the PyTorch table it reads.

mod lower;
pub(crate) mod tables;

pub(crate) use lower::{is_test_path, lower_file};

/// Whether a path is Python source (`.py`, `.pyi`).
pub(crate) fn is_python(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "py" || e == "pyi")
}
