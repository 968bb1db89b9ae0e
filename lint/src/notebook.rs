//! Jupyter notebooks as placer reads and edits them.
//!
//! The code cells are joined into one Python source, each cell preceded by a marker line
//! (`# %% [placer cell 3 9f86d081884c7d65]`); findings and fixes are positions in that joined
//! code. The marker ends with a tag, the hash of the notebook's JSON text: a cell whose code
//! contains marker-like text (a notebook about placer, say) cannot carry its own notebook's hash,
//! so only real markers are taken for cell boundaries. A notebook whose kernel is not Python (R,
//! Julia: `metadata.kernelspec.language` or `metadata.language_info.name`) has no code cells. An edit is
//! written back into the cell's `source` in the notebook's JSON, which is otherwise kept byte for
//! byte (outputs, metadata, markdown cells, indentation, key order, escapes).

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::diagnostic::Edit;

/// The marker line's prefix; the 1-based cell index follows, then a space, the tag and `]`.
pub const CELL_MARKER: &str = "# %% [placer cell ";

/// The cell index and tag of a marker line (without its line break), if it is one.
pub fn parse_marker(line: &str) -> Option<(usize, &str)> {
    let rest = line.strip_prefix(CELL_MARKER)?.strip_suffix(']')?;
    let (index, tag) = rest.split_once(' ')?;
    Some((index.parse().ok()?, tag))
}

/// Whether a notebook's kernel runs Python: its metadata names no language, or names Python.
fn is_python_kernel(json: &str) -> bool {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(json) else {
        return true;
    };
    let metadata = value.get("metadata");
    let languages = [
        metadata
            .and_then(|m| m.get("kernelspec"))
            .and_then(|k| k.get("language")),
        metadata
            .and_then(|m| m.get("language_info"))
            .and_then(|l| l.get("name")),
    ];
    languages
        .iter()
        .flatten()
        .filter_map(|l| l.as_str())
        .all(|l| l.eq_ignore_ascii_case("python") || l.eq_ignore_ascii_case("python3"))
}

/// A notebook's JSON text with its code cells located.
#[derive(Debug)]
pub struct Notebook<'a> {
    json: &'a str,
    code: String,
    cells: Vec<CodeCell>,
}

/// One code cell of a [`Notebook`].
#[derive(Clone, Debug)]
pub struct CodeCell {
    /// Its 1-based index among all the notebook's cells (as `cell 3` in output).
    pub index: usize,
    /// The byte range of its code in the joined code (after its marker line).
    pub code: Range<usize>,
    /// The byte range of its `source` value in the JSON text; `None` if it has none.
    source_json: Option<Range<usize>>,
    /// The joined code has a newline after the cell that the cell itself does not end with.
    added_newline: bool,
}

/// One cell an edit changed: its code before and after (as in the joined code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellChange {
    /// The cell's 1-based index among all cells.
    pub index: usize,
    /// Its code before the edits.
    pub old: String,
    /// Its code after the edits.
    pub new: String,
}

/// The result of [`Notebook::apply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    /// The notebook's new JSON text.
    pub json: String,
    /// The cells that changed, in order.
    pub changes: Vec<CellChange>,
}

#[derive(Deserialize)]
struct RawNotebook<'a> {
    #[serde(borrow)]
    cells: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawCell<'a> {
    #[serde(borrow, default)]
    cell_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source: Option<&'a RawValue>,
}

/// The byte range of `raw` (a slice of `json`) in `json`.
fn range_in(json: &str, raw: &RawValue) -> Option<Range<usize>> {
    let text = raw.get();
    let start = (text.as_ptr() as usize).checked_sub(json.as_ptr() as usize)?;
    let range = start..start + text.len();
    (json.get(range.clone())?.as_ptr() == text.as_ptr()).then_some(range)
}

/// A cell's `source`: a string, or an array of strings that are concatenated.
fn decode_source(raw: &RawValue) -> String {
    if let Ok(s) = serde_json::from_str::<String>(raw.get()) {
        return s;
    }
    let lines: Vec<serde_json::Value> = serde_json::from_str(raw.get()).unwrap_or_default();
    lines
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect::<String>()
}

impl<'a> Notebook<'a> {
    /// Parses a notebook's JSON text, or says why it is not a notebook.
    pub fn parse(json: &'a str) -> Result<Self, String> {
        let top: RawNotebook<'a> =
            serde_json::from_str(json).map_err(|e| format!("invalid notebook JSON: {e}"))?;
        let cells: Vec<&'a RawValue> =
            top.cells
                .and_then(|c| serde_json::from_str(c.get()).ok())
                .ok_or_else(|| "invalid notebook: no `cells` array".to_string())?;
        let mut code = String::new();
        let mut out = Vec::new();
        let tag = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(json.as_bytes()));
        let cells = if is_python_kernel(json) {
            cells
        } else {
            Vec::new()
        };
        for (i, raw) in cells.into_iter().enumerate() {
            let Ok(cell) = serde_json::from_str::<RawCell<'a>>(raw.get()) else {
                continue;
            };
            if cell.cell_type.as_deref() != Some("code") {
                continue;
            }
            code.push_str(CELL_MARKER);
            code.push_str(&(i + 1).to_string());
            code.push(' ');
            code.push_str(&tag);
            code.push_str("]\n");
            let start = code.len();
            let text = cell.source.map(decode_source).unwrap_or_default();
            code.push_str(&text);
            let added_newline = !code.ends_with('\n');
            if added_newline {
                code.push('\n');
            }
            out.push(CodeCell {
                index: i + 1,
                code: start..code.len(),
                source_json: cell.source.and_then(|s| range_in(json, s)),
                added_newline,
            });
        }
        Ok(Notebook {
            json,
            code,
            cells: out,
        })
    }

    /// The code cells joined, each after its marker line: the text findings point into.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Consumes the notebook, returning the joined code.
    pub fn into_code(self) -> String {
        self.code
    }

    /// The code cells, in order.
    pub fn cells(&self) -> &[CodeCell] {
        &self.cells
    }

    /// The code cell whose code contains byte `offset` of the joined code.
    pub fn cell_at(&self, offset: usize) -> Option<&CodeCell> {
        self.cells
            .iter()
            .find(|c| c.code.start <= offset && offset < c.code.end.max(c.code.start + 1))
    }

    /// Applies `edits` (sorted, non-overlapping, in joined-code positions) to the cells they fall
    /// in and re-serialises only those cells' `source` values. Fails, changing nothing, if an
    /// edit is not inside one code cell or touches a cell whose source cannot be rewritten.
    pub fn apply(&self, edits: &[Edit]) -> Result<Edited, String> {
        let mut per_cell: Vec<(usize, Vec<Edit>)> = Vec::new();
        for e in edits {
            let Some(at) = self
                .cells
                .iter()
                .position(|c| c.code.start <= e.range.start && e.range.end <= c.code.end)
            else {
                return Err("an edit falls outside the notebook's code cells".to_string());
            };
            let start = self.cells[at].code.start;
            let local = Edit {
                range: e.range.start - start..e.range.end - start,
                content: e.content.clone(),
            };
            match per_cell.last_mut() {
                Some((i, list)) if *i == at => list.push(local),
                _ => per_cell.push((at, vec![local])),
            }
        }
        let mut replacements: Vec<(Range<usize>, String)> = Vec::new();
        let mut changes = Vec::new();
        for (at, local) in per_cell {
            let cell = &self.cells[at];
            let old = &self.code[cell.code.clone()];
            let new = crate::fix::apply_edits(old, &local);
            if new == old {
                continue;
            }
            let mut text = new.as_str();
            if cell.added_newline {
                text = text.strip_suffix('\n').unwrap_or(text);
            }
            let Some(range) = cell.source_json.clone() else {
                return Err(format!("cell {} has no `source` to edit", cell.index));
            };
            let value = reserialise(&self.json[range.clone()], text)
                .ok_or_else(|| format!("cell {}: its `source` cannot be rewritten", cell.index))?;
            replacements.push((range, value));
            changes.push(CellChange {
                index: cell.index,
                old: old.to_string(),
                new,
            });
        }
        let mut json = String::with_capacity(self.json.len() + 64);
        let mut at = 0;
        for (range, value) in replacements {
            json.push_str(&self.json[at..range.start]);
            json.push_str(&value);
            at = range.end;
        }
        json.push_str(&self.json[at..]);
        Ok(Edited { json, changes })
    }
}

/// A cell's new `source` value in the style of its old one (`raw`): a string stays a string; an
/// array of lines keeps its layout, and lines that did not change keep their exact JSON text.
fn reserialise(raw: &str, text: &str) -> Option<String> {
    if raw.trim_start().starts_with('"') {
        return serde_json::to_string(text).ok();
    }
    let elements: Vec<&RawValue> = serde_json::from_str(raw).ok()?;
    let mut old: HashMap<String, &str> = HashMap::new();
    let mut spans = Vec::new();
    for e in &elements {
        let s: String = serde_json::from_str(e.get()).ok()?;
        old.entry(s).or_insert(e.get());
        spans.push(range_in(raw, e)?);
    }
    let (open, separator, close) = match (spans.first(), spans.get(1), spans.last()) {
        (Some(first), second, Some(last)) => {
            let open = &raw[1..first.start];
            let separator = match second {
                Some(second) => raw[first.end..second.start].to_string(),
                None => format!(",{open}"),
            };
            let close = &raw[last.end..raw.len() - 1];
            (open.to_string(), separator, close.to_string())
        }
        _ => (String::new(), ", ".to_string(), String::new()),
    };
    if text.is_empty() {
        return Some("[]".to_string());
    }
    let mut out = String::from("[");
    out.push_str(&open);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i > 0 {
            out.push_str(&separator);
        }
        match old.get(line) {
            Some(raw) => out.push_str(raw),
            None => out.push_str(&serde_json::to_string(line).ok()?),
        }
    }
    out.push_str(&close);
    out.push(']');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Caf\\u00e9 \u{1F600}\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"import torch\\n\",\n    \"x = torch.ones(2)  # caf\\u00e9\\n\",\n    \"y = x\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

    #[test]
    fn should_join_code_cells_after_markers() {
        let nb = Notebook::parse(NB).expect("parses");
        let tag = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(NB.as_bytes()));
        assert_eq!(
            nb.code(),
            format!("# %% [placer cell 2 {tag}]\nimport torch\nx = torch.ones(2)  # café\ny = x\n")
        );
        assert_eq!(nb.cells().len(), 1);
        assert_eq!(nb.cells()[0].index, 2);
    }

    #[test]
    fn should_edit_only_the_changed_line_of_the_cell() {
        let nb = Notebook::parse(NB).expect("parses");
        let at = nb.code().find("y = x").expect("line") + "y = x".len();
        let edits = [Edit {
            range: at..at,
            content: Some("  # placer: allow(P101)".into()),
        }];
        let edited = nb.apply(&edits).expect("applies");
        let expected = NB.replace("\"y = x\"", "\"y = x  # placer: allow(P101)\"");
        assert_eq!(edited.json, expected);
        assert_eq!(edited.changes.len(), 1);
        assert_eq!(edited.changes[0].index, 2);
        // The result is a notebook with the edit in the cell.
        let again = Notebook::parse(&edited.json).expect("parses");
        assert!(again.code().contains("y = x  # placer: allow(P101)\n"));
    }

    #[test]
    fn should_split_a_new_line_into_its_own_element() {
        let nb = Notebook::parse(NB).expect("parses");
        let at = nb.code().find("x = torch").expect("line");
        let edits = [Edit {
            range: at..at,
            content: Some("# placer: allow(P101)\n".into()),
        }];
        let edited = nb.apply(&edits).expect("applies");
        assert!(
            edited
                .json
                .contains("\"import torch\\n\",\n    \"# placer: allow(P101)\\n\",\n    \"x = torch.ones(2)  # caf\\u00e9\\n\","),
            "{}",
            edited.json
        );
    }

    #[test]
    fn should_refuse_an_edit_outside_the_cells() {
        let nb = Notebook::parse(NB).expect("parses");
        let edits = [Edit {
            range: 0..3,
            content: None,
        }];
        assert!(nb.apply(&edits).is_err());
    }

    #[test]
    fn should_keep_a_string_source_a_string() {
        let json = r#"{"cells": [{"cell_type": "code", "source": "a = 1\nb = 2"}], "x": 1}"#;
        let nb = Notebook::parse(json).expect("parses");
        let at = nb.code().find("b = 2").expect("line");
        let edited = nb
            .apply(&[Edit {
                range: at..at + 1,
                content: Some("c".into()),
            }])
            .expect("applies");
        assert_eq!(
            edited.json,
            r#"{"cells": [{"cell_type": "code", "source": "a = 1\nc = 2"}], "x": 1}"#
        );
    }
}
