//! Jupyter notebooks: the code cells are joined into one Python source, each cell preceded by a
//! marker line (`# %% [placer cell 3]`) from which output maps a position back to its cell.

/// The marker line's prefix; the 1-based cell index follows, then `]`.
pub(crate) const CELL_MARKER: &str = "# %% [placer cell ";

/// Joins the code cells of a notebook's JSON text, or says why it is not a notebook.
pub(crate) fn code_cells(json: &str) -> Result<String, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("invalid notebook JSON: {e}"))?;
    let cells = value
        .get("cells")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| "invalid notebook: no `cells` array".to_string())?;
    let mut out = String::new();
    for (i, cell) in cells.iter().enumerate() {
        if cell.get("cell_type").and_then(serde_json::Value::as_str) != Some("code") {
            continue;
        }
        out.push_str(CELL_MARKER);
        out.push_str(&(i + 1).to_string());
        out.push_str("]\n");
        match cell.get("source") {
            Some(serde_json::Value::String(s)) => out.push_str(s),
            Some(serde_json::Value::Array(lines)) => {
                for line in lines.iter().filter_map(serde_json::Value::as_str) {
                    out.push_str(line);
                }
            }
            _ => {}
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}
