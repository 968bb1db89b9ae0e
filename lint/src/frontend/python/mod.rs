//! The Python frontend: `ruff_python_parser` parsing and lowering, with the `torch` table it reads.

mod lower;
pub(crate) mod notebook;
pub(crate) mod tables;

pub(crate) use lower::{is_test_path, lower_file};

/// Whether a path is Python source (`.py`, `.pyi`) or a Jupyter notebook (`.ipynb`).
pub(crate) fn is_python(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "py" || e == "pyi" || e == "ipynb")
}

/// Whether a path is a Jupyter notebook.
pub(crate) fn is_notebook(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}
