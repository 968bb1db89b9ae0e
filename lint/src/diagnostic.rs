//! Diagnostics as rules report them, and their positions for output.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::ir::Span;
use crate::registry::Rule;

/// How serious a finding is; derived from the rule's category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Severity {
    /// A note: something placer could not do, not a problem in the code (a file in a syntax it
    /// does not read). Notes do not make `placer check` fail.
    Note,
    /// A warning (`suspicious`, `perf`, `style`, `pedantic`, `nursery`).
    Warning,
    /// An error (`correctness`).
    Error,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A secondary span with a message: where a device came from, where two devices meet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// Byte range in the diagnostic's file.
    pub span: Span,
    /// What happens there, e.g. "created on `Device::Cpu` here".
    pub message: String,
}

/// Whether applying a [`Fix`] keeps the program's behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Applicability {
    /// Provably keeps behaviour; applied by `--fix`.
    Safe,
    /// Changes behaviour in some cases; applied only on request.
    Unsafe,
    /// Shown, never applied.
    DisplayOnly,
}

/// One text replacement; `content: None` deletes the range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    /// Byte range replaced.
    pub range: Span,
    /// Replacement text.
    pub content: Option<Box<str>>,
}

/// A mechanical fix: sorted, non-overlapping edits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// The edits.
    pub edits: Vec<Edit>,
    /// Whether it may be applied automatically.
    pub applicability: Applicability,
}

/// One finding of one rule in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The rule that reported it.
    pub rule: Rule,
    /// The file.
    pub path: PathBuf,
    /// What is wrong (lowercase, no trailing period, code in backticks).
    pub message: String,
    /// The primary span: the smallest expression that shows the problem (bytes).
    pub span: Span,
    /// Secondary spans.
    pub labels: Vec<Label>,
    /// What to do, in the imperative.
    pub help: Option<String>,
    /// A mechanical fix, if the rule has one.
    pub fix: Option<Fix>,
    /// Error or warning: the rule category's, unless the settings set the rule's level.
    pub severity: Severity,
}

impl Diagnostic {
    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.severity
    }
}

/// Maps byte offsets of a source to 1-based lines and character columns.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `source`.
    pub fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line and 1-based column (in characters, a leading byte-order mark not
    /// counted) of byte `offset` in `source`.
    pub fn line_col(&self, source: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(source.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        (line + 1, char_column(source, start, offset))
    }
}

/// The 1-based column, in characters, of byte `offset` on the line starting at byte
/// `line_start` of `source`. A byte-order mark at the start of the file is not a column; an
/// offset inside a character counts that character as before it.
pub fn char_column(source: &str, line_start: usize, offset: usize) -> usize {
    let offset = offset.min(source.len());
    let line_start = line_start.min(offset);
    let text = &source.as_bytes()[line_start..offset];
    // Characters are the bytes that do not continue one (0b10xx_xxxx).
    let chars = text.iter().filter(|&&b| b.cast_signed() >= -0x40).count();
    let bom = usize::from(line_start == 0 && source.starts_with('\u{feff}') && offset > 0);
    chars - bom + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_count_columns_in_characters_without_the_byte_order_mark() {
        let src = "\u{feff}let é = x;\nü(y)";
        let index = LineIndex::new(src);
        let x = src.find('x').unwrap();
        assert_eq!(index.line_col(src, x), (1, 9));
        assert_eq!(index.line_col(src, 0), (1, 1));
        let y = src.find('y').unwrap();
        assert_eq!(index.line_col(src, y), (2, 3));
    }
}
