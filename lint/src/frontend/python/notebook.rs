//! Jupyter notebooks: the code cells are joined into one Python source, each cell preceded by a
//! marker line (`# %% [placer cell 3 9f86d081884c7d65]`) from which output maps a position back
//! to its cell (see [`crate::notebook`], which also writes edits back).

pub(crate) use crate::notebook::parse_marker;

/// Joins the code cells of a notebook's JSON text, or says why it is not a notebook. A
/// notebook whose kernel is not Python (R, Julia: `metadata.kernelspec.language` or
/// `metadata.language_info.name`) has no Python code: the result is empty.
pub(crate) fn code_cells(json: &str) -> Result<String, String> {
    crate::notebook::Notebook::parse(json).map(crate::notebook::Notebook::into_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_join_code_cells_after_tagged_markers() {
        let nb = r#"{"cells": [{"cell_type": "markdown", "source": "x"},
            {"cell_type": "code", "source": ["a = 1\n", "b = 2"]}], "metadata": {}}"#;
        let code = code_cells(nb).unwrap();
        let first = code.lines().next().unwrap();
        let (index, tag) = parse_marker(first).unwrap();
        assert_eq!(index, 2);
        assert_eq!(tag.len(), 16);
        assert!(code.ends_with("a = 1\nb = 2\n"), "{code}");
    }

    #[test]
    fn should_read_no_python_from_r_or_julia_notebooks() {
        for meta in [
            r#"{"kernelspec": {"language": "R", "name": "ir"}}"#,
            r#"{"language_info": {"name": "julia"}}"#,
        ] {
            let nb = format!(
                r#"{{"cells": [{{"cell_type": "code", "source": "x <- c(1, 2)"}}], "metadata": {meta}}}"#
            );
            assert_eq!(code_cells(&nb).unwrap(), "");
        }
        let py = r#"{"cells": [{"cell_type": "code", "source": "x = 1"}],
            "metadata": {"kernelspec": {"language": "python"}, "language_info": {"name": "python"}}}"#;
        assert!(code_cells(py).unwrap().ends_with("x = 1\n"));
    }
}
