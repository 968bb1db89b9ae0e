//! Diagnostics as rules report them, and their positions for output.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::ir::Span;
use crate::registry::Rule;

/// How serious a finding is; derived from the rule's category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Severity {
    /// A warning (`suspicious`, `perf`, `style`, `pedantic`, `nursery`).
    Warning,
    /// An error (`correctness`).
    Error,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
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

    /// The 1-based line and 1-based column (in characters) of byte `offset` in `source`.
    pub fn line_col(&self, source: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(source.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = source
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }
}
