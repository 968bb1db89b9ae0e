//! Output formats: `full` (miette's graphical report), `concise` (one rustc-style line per
//! finding), `json` and `json-lines` (stable objects, documented in `docs/json.md`), `sarif`
//! (SARIF 2.1.0, for code-scanning tabs) and `github` (GitHub Actions workflow annotations).

use std::fmt;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};
use serde::Serialize;

use crate::diagnostic::{Applicability, Diagnostic, LineIndex, Severity};

/// A diagnostic with its source attached, as miette wants it.
struct WithSource<'a> {
    diagnostic: &'a Diagnostic,
    source: NamedSource<Arc<str>>,
    code: String,
}

impl fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for WithSource<'_> {}

fn source_span(span: &std::ops::Range<usize>) -> SourceSpan {
    SourceSpan::from(span.start..span.end.max(span.start))
}

impl miette::Diagnostic for WithSource<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity() {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = LabeledSpan::new_primary_with_span(None, source_span(&self.diagnostic.span));
        let rest = self
            .diagnostic
            .labels
            .iter()
            .map(|l| LabeledSpan::new_with_span(Some(l.message.clone()), source_span(&l.span)));
        Some(Box::new(std::iter::once(primary).chain(rest)))
    }
}

/// How `full` output looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Unicode with colours, for a terminal.
    Color,
    /// Unicode without colours, for pipes, files and snapshots.
    Plain,
}

/// The `P101/tensor-on-default-device` form used in every output format.
pub fn qualified_code(d: &Diagnostic) -> String {
    format!("{}/{}", d.rule.code(), d.rule.name())
}

/// Renders diagnostics of one file with miette's graphical handler, `width` columns wide.
pub fn full(
    path: &Path,
    source: &Arc<str>,
    diagnostics: &[Diagnostic],
    style: Style,
    width: usize,
) -> String {
    let theme = match style {
        Style::Color => GraphicalTheme::unicode(),
        Style::Plain => GraphicalTheme::unicode_nocolor(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_links(false)
        .with_width(width);
    let mut out = String::new();
    let cells = Cells::new(path, source);
    for d in diagnostics {
        // In a notebook, show the finding's cell on its own, numbered as in the notebook.
        let (name, text, shifted);
        let d = if let Some(cell) = cells.at(d.span.start) {
            name = format!("{}:cell {}", path.display(), cell.index);
            text = Arc::from(&source[cell.range.clone()]);
            shifted = shift_into(d, &cell.range);
            &shifted
        } else {
            name = path.display().to_string();
            text = Arc::clone(source);
            d
        };
        let item = WithSource {
            diagnostic: d,
            source: NamedSource::new(name, text),
            code: qualified_code(d),
        };
        // Writing into a String cannot fail.
        let _ = handler.render_report(&mut out, &item);
    }
    out
}

/// `d` with its spans made relative to `range`; labels outside it are dropped.
fn shift_into(d: &Diagnostic, range: &std::ops::Range<usize>) -> Diagnostic {
    let inside = |s: &std::ops::Range<usize>| range.start <= s.start && s.end <= range.end;
    let shift = |s: &std::ops::Range<usize>| s.start - range.start..s.end - range.start;
    let mut out = d.clone();
    out.span = if inside(&d.span) {
        shift(&d.span)
    } else {
        let start = d.span.start - range.start;
        start..start
    };
    out.labels = d
        .labels
        .iter()
        .filter(|l| inside(&l.span))
        .map(|l| crate::diagnostic::Label {
            span: shift(&l.span),
            message: l.message.clone(),
        })
        .collect();
    out
}

/// One line per finding: `path:line:col: warning[P103/create-then-transfer]: message`; in a
/// notebook `path:cell 3:line:col`.
pub fn concise(path: &Path, source: &str, diagnostics: &[Diagnostic]) -> String {
    let index = LineIndex::new(source);
    let cells = Cells::new(path, source);
    let mut out = String::new();
    for d in diagnostics {
        let (line, col) = index.line_col(source, d.span.start);
        let (cell, line) = cells.locate(line);
        let cell = cell.map(|c| format!("cell {c}:")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{}:{cell}{line}:{col}: {}[{}]: {}",
            path.display(),
            d.severity().as_str(),
            qualified_code(d),
            d.message
        );
    }
    out
}

/// One code cell of a notebook's joined source.
struct Cell {
    /// Its 1-based index in the notebook.
    index: usize,
    /// The 1-based line of its marker in the joined source.
    marker_line: usize,
    /// The byte range of its code (after the marker line, up to the next marker).
    range: std::ops::Range<usize>,
}

/// The cells of a notebook's joined source, found by their marker lines; empty for other files.
struct Cells(Vec<Cell>);

impl Cells {
    fn new(path: &Path, source: &str) -> Self {
        let mut cells: Vec<Cell> = Vec::new();
        if path.extension().is_none_or(|e| e != "ipynb") {
            return Cells(cells);
        }
        let marker = crate::frontend::python::notebook::CELL_MARKER;
        let mut at = 0;
        for (i, line) in source.split_inclusive('\n').enumerate() {
            let index = line
                .trim_end()
                .strip_prefix(marker)
                .and_then(|l| l.strip_suffix(']'))
                .and_then(|l| l.parse().ok());
            if let Some(index) = index {
                if let Some(last) = cells.last_mut() {
                    last.range.end = at;
                }
                cells.push(Cell {
                    index,
                    marker_line: i + 1,
                    range: at + line.len()..source.len(),
                });
            }
            at += line.len();
        }
        Cells(cells)
    }

    /// The cell and the line within it of a 1-based line of the joined source.
    fn locate(&self, line: usize) -> (Option<usize>, usize) {
        match self.0.iter().rev().find(|c| c.marker_line < line) {
            Some(c) => (Some(c.index), line - c.marker_line),
            None => (None, line),
        }
    }

    /// The cell whose code contains byte `offset`.
    fn at(&self, offset: usize) -> Option<&Cell> {
        self.0
            .iter()
            .find(|c| c.range.start <= offset && offset < c.range.end.max(c.range.start + 1))
    }
}

/// One finding in the `json` output format. Lines and columns are 1-based; columns count
/// characters; `end_*` is exclusive.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JsonDiagnostic {
    /// The file, as walked.
    pub path: String,
    /// Start line.
    pub line: usize,
    /// Start column.
    pub column: usize,
    /// End line.
    pub end_line: usize,
    /// End column (exclusive).
    pub end_column: usize,
    /// The rule's code, e.g. `P101`.
    pub code: &'static str,
    /// The rule's name, e.g. `tensor-on-default-device`.
    pub name: &'static str,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to do, if the rule says.
    pub help: Option<String>,
    /// Secondary spans: where each device came from, where devices meet.
    pub labels: Vec<JsonLabel>,
    /// The baseline fingerprint (see `placer_lint::baseline`): stable across line shifts.
    pub fingerprint: String,
    /// The mechanical fix, if the rule has one.
    pub fix: Option<JsonFix>,
    /// In a notebook: the 1-based cell the finding is in (lines are then within the cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<usize>,
}

/// A fix in the `json` output format.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JsonFix {
    /// `safe` (applied by `--fix`) or `unsafe` (needs `--unsafe-fixes`).
    pub applicability: &'static str,
    /// The replacements, in source order.
    pub edits: Vec<JsonEdit>,
}

/// One replacement of a fix, in the `json` output format.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JsonEdit {
    /// Start line.
    pub line: usize,
    /// Start column.
    pub column: usize,
    /// End line.
    pub end_line: usize,
    /// End column (exclusive).
    pub end_column: usize,
    /// The new text (empty to delete).
    pub content: String,
}

/// A secondary span in the `json` output format.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JsonLabel {
    /// Start line.
    pub line: usize,
    /// Start column.
    pub column: usize,
    /// End line.
    pub end_line: usize,
    /// End column (exclusive).
    pub end_column: usize,
    /// What happens there.
    pub message: String,
}

/// Converts a file's diagnostics into their `json` form.
pub fn json(path: &Path, source: &str, diagnostics: &[Diagnostic]) -> Vec<JsonDiagnostic> {
    let index = LineIndex::new(source);
    let cells = Cells::new(path, source);
    diagnostics
        .iter()
        .map(|d| {
            let (line, column) = index.line_col(source, d.span.start);
            let (end_line, end_column) = index.line_col(source, d.span.end);
            let (cell, line) = cells.locate(line);
            let end_line = cells.locate(end_line).1;
            JsonDiagnostic {
                cell,
                path: path.display().to_string(),
                line,
                column,
                end_line,
                end_column,
                code: d.rule.code(),
                name: d.rule.name(),
                severity: d.severity().as_str(),
                message: d.message.clone(),
                help: d.help.clone(),
                labels: d
                    .labels
                    .iter()
                    .map(|l| {
                        let (line, column) = index.line_col(source, l.span.start);
                        let (end_line, end_column) = index.line_col(source, l.span.end);
                        let (line, end_line) = (cells.locate(line).1, cells.locate(end_line).1);
                        JsonLabel {
                            line,
                            column,
                            end_line,
                            end_column,
                            message: l.message.clone(),
                        }
                    })
                    .collect(),
                fingerprint: crate::baseline::fingerprint(path, source, d),
                fix: d.fix.as_ref().map(|f| JsonFix {
                    applicability: match f.applicability {
                        Applicability::Safe => "safe",
                        Applicability::Unsafe => "unsafe",
                        Applicability::DisplayOnly => "display-only",
                    },
                    edits: f
                        .edits
                        .iter()
                        .map(|e| {
                            let (line, column) = index.line_col(source, e.range.start);
                            let (end_line, end_column) = index.line_col(source, e.range.end);
                            JsonEdit {
                                line,
                                column,
                                end_line,
                                end_column,
                                content: e.content.as_deref().unwrap_or("").to_string(),
                            }
                        })
                        .collect(),
                }),
            }
        })
        .collect()
}

/// Escapes a GitHub workflow command's message (`%`, CR, LF), or a property value when
/// `property` (also `:` and `,`), as the Actions toolkit's `escapeData`/`escapeProperty`.
pub fn github_escape(s: &str, property: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

/// GitHub Actions workflow annotations, one per finding:
/// `::error file=src/m.rs,line=6,col=55,endLine=6,endColumn=66,title=P101/…::message`.
pub fn github(path: &Path, source: &str, diagnostics: &[Diagnostic]) -> String {
    let index = LineIndex::new(source);
    let file = github_escape(&crate::baseline::portable(path), true);
    let mut out = String::new();
    for d in diagnostics {
        let (line, col) = index.line_col(source, d.span.start);
        let (end_line, end_col) = index.line_col(source, d.span.end);
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let _ = writeln!(
            out,
            "::{} file={file},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}",
            d.severity().as_str(),
            github_escape(&qualified_code(d), true),
            github_escape(&message, false)
        );
    }
    out
}

/// The files of a run, for [`sarif`]: path, source, findings.
pub type FileFindings<'a> = (&'a Path, &'a str, &'a [Diagnostic]);

fn sarif_region(
    index: &LineIndex,
    source: &str,
    span: &std::ops::Range<usize>,
) -> serde_json::Value {
    let (line, col) = index.line_col(source, span.start);
    let (end_line, end_col) = index.line_col(source, span.end);
    serde_json::json!({
        "startLine": line,
        "startColumn": col,
        "endLine": end_line,
        "endColumn": end_col,
    })
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// One SARIF 2.1.0 log with every rule's metadata and one result per finding, each with a
/// `partialFingerprints` entry (`placer/v1`, the baseline fingerprint) so code-scanning tracks
/// findings across commits.
pub fn sarif(files: &[FileFindings<'_>]) -> serde_json::Value {
    use crate::registry::Rule;
    let rules: Vec<serde_json::Value> = Rule::ALL
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.code(),
                "name": r.name(),
                "shortDescription": { "text": r.summary() },
                "fullDescription": { "text": r.summary() },
                "help": { "text": r.explain(), "markdown": r.explain() },
                "defaultConfiguration": {
                    "level": sarif_level(r.category().severity()),
                    "enabled": r.category().is_default_on() || *r == Rule::SyntaxError,
                },
                "properties": { "tags": [r.category().as_str()] },
            })
        })
        .collect();
    let mut results = Vec::new();
    for &(path, source, diagnostics) in files {
        let index = LineIndex::new(source);
        let uri = crate::baseline::portable(path);
        let location = |span: &std::ops::Range<usize>| {
            serde_json::json!({
                "artifactLocation": { "uri": uri },
                "region": sarif_region(&index, source, span),
            })
        };
        for d in diagnostics {
            let rule_index = Rule::ALL.iter().position(|r| *r == d.rule).unwrap_or(0);
            let mut text = d.message.clone();
            if let Some(help) = &d.help {
                text.push_str("; ");
                text.push_str(help);
            }
            let related: Vec<serde_json::Value> = d
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    serde_json::json!({
                        "id": i,
                        "physicalLocation": location(&l.span),
                        "message": { "text": l.message },
                    })
                })
                .collect();
            results.push(serde_json::json!({
                "ruleId": d.rule.code(),
                "ruleIndex": rule_index,
                "level": sarif_level(d.severity()),
                "message": { "text": text },
                "locations": [{ "physicalLocation": location(&d.span) }],
                "relatedLocations": related,
                "partialFingerprints": {
                    "placer/v1": crate::baseline::fingerprint(path, source, d),
                },
            }));
        }
    }
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "placer",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://example.invalid/placer",
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}
