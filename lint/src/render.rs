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
    source: NamedSource<Excerpt>,
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
            Severity::Note => miette::Severity::Advice,
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

/// Lines longer than this (in bytes) are not shown whole: `full` output shows a window of
/// [`SNIPPET_CONTEXT`] bytes either side of the finding (a minified or generated file can have a
/// line of megabytes).
pub const MAX_SNIPPET_LINE: usize = 400;

/// How much of a long line `full` output shows before and after the finding, in bytes.
pub const SNIPPET_CONTEXT: usize = 120;

/// A slice of a file's text as miette reads it: lines numbered from `line_offset`, columns
/// counted in characters (as every other output format counts them), the first line's from
/// `col_offset`.
struct Excerpt {
    text: Arc<str>,
    line_offset: usize,
    col_offset: usize,
}

impl miette::SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        // miette reads a `[u8]` source from its start to the span, once per label and snippet:
        // quadratic in a large file with many findings. Read from a line start far enough above
        // the span instead (the span's line, its context lines and one more, so that the read
        // sees exactly the lines it would have), and count the lines skipped.
        let bytes = self.text.as_bytes();
        let mut cut = span.offset().min(bytes.len());
        for _ in 0..context_lines_before + 2 {
            cut = memchr::memrchr(b'\n', &bytes[..cut]).unwrap_or(0);
        }
        if cut > 0 {
            cut += 1;
        }
        let skipped = line_breaks(&bytes[..cut]);
        let shifted = SourceSpan::new((span.offset() - cut.min(span.offset())).into(), span.len());
        let inner = bytes[cut..].read_span(&shifted, context_lines_before, context_lines_after)?;
        let line = inner.line() + skipped;
        let mut column = inner.column();
        if context_lines_before == 0 {
            // miette counts bytes; count characters.
            let offset = span.offset().min(self.text.len());
            let line_start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
            column = crate::diagnostic::char_column(&self.text, line_start, offset) - 1;
            if line == 0 {
                column += self.col_offset;
            }
        }
        Ok(Box::new(miette::MietteSpanContents::new(
            inner.data(),
            SourceSpan::new((inner.span().offset() + cut).into(), inner.span().len()),
            line + self.line_offset,
            column,
            inner.line_count() + skipped,
        )))
    }
}

/// The line breaks in `bytes` as miette counts them: `\n`, `\r\n` and a lone `\r`.
fn line_breaks(bytes: &[u8]) -> usize {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    let lone_returns = memchr::memchr_iter(b'\r', bytes)
        .filter(|&i| bytes.get(i + 1) != Some(&b'\n'))
        .count();
    newlines + lone_returns
}

/// [`full`] for every file of a report, rendered in parallel; in the order of `files`.
pub fn full_all(files: &[crate::FileReport], style: Style, width: usize) -> Vec<String> {
    use rayon::prelude::*;
    crate::stack::in_pool(|| {
        files
            .par_iter()
            .map(|f| full(&f.path, &f.source, &f.diagnostics, style, width))
            .collect()
    })
}

/// Renders diagnostics of one file with miette's graphical handler, `width` columns wide.
/// Columns are characters; a finding on or near a line longer than [`MAX_SNIPPET_LINE`] is shown
/// with a window of its line only.
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
        let (name, base) = match cells.at(d.span.start) {
            Some(cell) => (
                format!("{}:cell {}", path.display(), cell.index),
                cell.range.clone(),
            ),
            None => (path.display().to_string(), 0..source.len()),
        };
        let (range, line_offset, col_offset) = excerpt_range(source, &base, d);
        let shifted = shift_into(d, &range);
        let text: Arc<str> = if range == (0..source.len()) {
            Arc::clone(source)
        } else {
            Arc::from(&source[range])
        };
        let item = WithSource {
            diagnostic: &shifted,
            source: NamedSource::new(
                name,
                Excerpt {
                    text,
                    line_offset,
                    col_offset,
                },
            ),
            code: qualified_code(d),
        };
        // Writing into a String cannot fail.
        let _ = handler.render_report(&mut out, &item);
    }
    out
}

/// The part of `base` (a byte range of `source`) to show for `d`: all of it, or, when a line
/// the finding touches (or one next to it) is longer than [`MAX_SNIPPET_LINE`], a window of the
/// finding's line. Also the line (0-based, within `base`) and character column the part starts
/// at.
fn excerpt_range(
    source: &str,
    base: &std::ops::Range<usize>,
    d: &Diagnostic,
) -> (std::ops::Range<usize>, usize, usize) {
    let start = d.span.start.clamp(base.start, base.end);
    let line_start = source[base.start..start]
        .rfind('\n')
        .map_or(base.start, |i| base.start + i + 1);
    let line_end = source[start..base.end]
        .find('\n')
        .map_or(base.end, |i| start + i);
    let spans = std::iter::once(&d.span).chain(d.labels.iter().map(|l| &l.span));
    let long = spans.into_iter().any(|s| {
        let from = s.start.clamp(base.start, base.end);
        let to = s.end.clamp(from, base.end);
        // From the start of the line before to the end of the line after.
        let before = source[base.start..from]
            .rfind('\n')
            .and_then(|i| source[base.start..base.start + i].rfind('\n'))
            .map_or(base.start, |i| base.start + i + 1);
        let after = source[to..base.end]
            .match_indices('\n')
            .nth(1)
            .map_or(base.end, |(i, _)| to + i);
        source[before..after]
            .split('\n')
            .any(|l| l.len() > MAX_SNIPPET_LINE)
    });
    if !long {
        return (base.clone(), 0, 0);
    }
    let floor = |mut i: usize| {
        while !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(start.saturating_sub(SNIPPET_CONTEXT).max(line_start));
    let span_end = d
        .span
        .end
        .clamp(start, line_end)
        .min(start + SNIPPET_CONTEXT);
    let mut to = (span_end + SNIPPET_CONTEXT).min(line_end);
    while !source.is_char_boundary(to) {
        to += 1;
    }
    let line_offset = source[base.start..line_start].matches('\n').count();
    let col_offset = crate::diagnostic::char_column(source, line_start, from) - 1;
    (from..to, line_offset, col_offset)
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
        let mut at = 0;
        // The first line is always a marker; its tag marks the real ones (see `notebook`).
        let mut tag = None;
        for (i, line) in source.split_inclusive('\n').enumerate() {
            let marker = crate::frontend::python::notebook::parse_marker(
                line.strip_suffix('\n').unwrap_or(line),
            );
            let index = match (marker, tag) {
                (Some((index, t)), None) if i == 0 => {
                    tag = Some(t);
                    Some(index)
                }
                (Some((index, t)), Some(real)) if t == real => Some(index),
                _ => None,
            };
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
        let level = match d.severity() {
            Severity::Note => "notice",
            other => other.as_str(),
        };
        let _ = writeln!(
            out,
            "::{level} file={file},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}",
            github_escape(&qualified_code(d), true),
            github_escape(&message, false)
        );
    }
    out
}

/// The bytes percent-encoded in an artifact URI: all but RFC 3986's unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`) and the `/` separating segments.
const URI_ESCAPED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A path as a SARIF `artifactLocation.uri` (RFC 3986): a relative reference for a relative
/// path, a `file:///` URI for an absolute one, every other byte percent-encoded (spaces, `#`,
/// `%`, `?`, a backslash in a Unix file name), and a name that is not UTF-8 encoded byte by
/// byte, so that two such names never become the same URI.
pub fn artifact_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes: std::borrow::Cow<'_, [u8]> = {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
    };
    #[cfg(not(unix))]
    let bytes: std::borrow::Cow<'_, [u8]> =
        std::borrow::Cow::Owned(path.to_string_lossy().replace('\\', "/").into_bytes());
    let mut bytes: &[u8] = &bytes;
    while let Some(rest) = bytes.strip_prefix(b"./") {
        bytes = rest;
    }
    let encoded = percent_encoding::percent_encode(bytes, URI_ESCAPED).to_string();
    if bytes.starts_with(b"/") {
        format!("file://{encoded}")
    } else {
        encoded
    }
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
        Severity::Note => "note",
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
        let uri = artifact_uri(path);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_percent_encode_artifact_uris() {
        assert_eq!(
            artifact_uri(Path::new("./src/a b#1%?.rs")),
            "src/a%20b%231%25%3F.rs"
        );
        assert_eq!(artifact_uri(Path::new("src/ü.rs")), "src/%C3%BC.rs");
        assert_eq!(artifact_uri(Path::new("/abs/x.rs")), "file:///abs/x.rs");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            assert_eq!(artifact_uri(Path::new("a\\b.rs")), "a%5Cb.rs");
            let a = artifact_uri(Path::new(std::ffi::OsStr::from_bytes(b"\xff.rs")));
            let b = artifact_uri(Path::new(std::ffi::OsStr::from_bytes(b"\xfe.rs")));
            assert_eq!((a.as_str(), b.as_str()), ("%FF.rs", "%FE.rs"));
        }
    }
}
