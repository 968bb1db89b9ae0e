//! Suppression comments: `// placer: allow(P101)` at the end of the offending line or alone on
//! the line above, `// placer: allow-file(P101)` for a whole file, and in Python `# placer:
//! allow(P101)` or ruff's `# noqa: P101`. A suppression that suppresses nothing is reported as
//! `unused-suppression` (as ruff's `RUF100`).

use std::path::Path;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, LineIndex};
use crate::ir::Span;
use crate::registry::Rule;
use crate::rule::Violation;
use crate::rules::unused_suppression::UnusedSuppression;
use crate::settings::Settings;

/// One selector inside `allow(...)`.
#[derive(Debug)]
struct Entry {
    /// The rules it names (a code, a name, or a code prefix like `P3`); empty if unknown.
    rules: Vec<Rule>,
    /// Its text, for messages.
    text: String,
    /// Its byte range in the source.
    span: Span,
    used: bool,
}

#[derive(Debug)]
struct Directive {
    /// The 0-based line it applies to; `None` for the whole file.
    line: Option<usize>,
    /// The whole comment, from its marker to the end of the line.
    comment: Span,
    /// The comment is alone on its line.
    own_line: bool,
    /// A `# noqa:` comment: honoured, never judged (other tools share it and may own its codes).
    noqa: bool,
    /// The byte after the `)` closing a `placer: allow(..)`, and where its `placer:` starts.
    allow: Option<(usize, usize)>,
    entries: Vec<Entry>,
}

/// Whether `path` is Python (comments start with `#`).
fn is_python(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "py" || e == "pyi" || e == "ipynb")
}

/// The rules a selector names: a code, a name, or a code prefix (`P3`).
pub(crate) fn rules_for_selector(s: &str) -> Vec<Rule> {
    if let Some(rule) = Rule::from_code_or_name(s) {
        return vec![rule];
    }
    let upper = s.to_ascii_uppercase();
    if upper.len() >= 2 && upper.starts_with('P') && upper[1..].bytes().all(|b| b.is_ascii_digit())
    {
        return Rule::ALL
            .iter()
            .copied()
            .filter(|r| r.code().starts_with(&upper))
            .collect();
    }
    Vec::new()
}

/// Parses the selectors of `(a, b)` starting at `open` (the byte after the marker); returns them
/// and the byte after the closing `)`.
fn entries(source: &str, open: usize, line_end: usize) -> Option<(Vec<Entry>, usize)> {
    let rest = &source[open..line_end];
    let inner_start = open + rest.find('(')? + 1;
    let inner_end = inner_start + source[inner_start..line_end].find(')')?;
    let mut out = Vec::new();
    let mut at = inner_start;
    for part in source[inner_start..inner_end].split(',') {
        let trimmed = part.trim();
        let start = at + (part.len() - part.trim_start().len());
        at += part.len() + 1;
        if trimmed.is_empty() {
            continue;
        }
        out.push(Entry {
            rules: rules_for_selector(trimmed),
            text: trimmed.to_string(),
            span: start..start + trimmed.len(),
            used: false,
        });
    }
    Some((out, inner_end + 1))
}

/// Parses `noqa: P101, P102` codes (only placer's codes; others belong to other tools).
fn noqa_entries(source: &str, colon: usize, line_end: usize) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut at = colon + 1;
    for part in source[colon + 1..line_end].split([',', ' ']) {
        let start = at;
        at += part.len() + 1;
        let code = part.trim();
        let is_placer_code = code.len() == 4
            && code.starts_with('P')
            && code[1..].bytes().all(|b| b.is_ascii_digit());
        if is_placer_code {
            out.push(Entry {
                rules: rules_for_selector(code),
                text: code.to_string(),
                span: start..start + code.len(),
                used: false,
            });
        } else if !code.is_empty() && !code.starts_with(|c: char| c.is_ascii_uppercase()) {
            break; // the comment's prose
        }
    }
    out
}

fn directives(path: &Path, source: &str) -> Vec<Directive> {
    let python = is_python(path);
    let comment = if python { "#" } else { "//" };
    let mut out = Vec::new();
    // Only a line holding `placer:` or (Python) `noqa:` can hold a directive: read those lines
    // alone, in order, each once (a large tree has many `noqa` lines and few directives).
    let bytes = source.as_bytes();
    let noqa = python.then(|| memchr::memmem::find_iter(bytes, "noqa:"));
    let mut starts: Vec<usize> = memchr::memmem::find_iter(bytes, "placer:")
        .chain(noqa.into_iter().flatten())
        .map(|at| memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1))
        .collect();
    if starts.is_empty() {
        return out;
    }
    starts.sort_unstable();
    starts.dedup();
    let (mut counted_to, mut lines_before) = (0, 0);
    for line_start in starts {
        lines_before += memchr::memchr_iter(b'\n', &bytes[counted_to..line_start]).count();
        counted_to = line_start;
        let line_no = lines_before;
        let line = source[line_start..]
            .split_inclusive('\n')
            .next()
            .unwrap_or_default();
        let line_end = line_start + line.trim_end_matches(['\n', '\r']).len();
        let text = &source[line_start..line_end];
        // A doc comment's text is documentation, not a directive.
        let first = text.find(comment);
        if first.is_some_and(|i| {
            let rest = &text[i + comment.len()..];
            comment == "//" && (rest.starts_with('/') || rest.starts_with('!'))
        }) {
            continue;
        }
        let found = text.match_indices(comment).map(|(i, _)| i).find_map(|i| {
            let after = text[i + comment.len()..].trim_start();
            if let Some(rest) = after.strip_prefix("placer:") {
                let rest = rest.trim_start();
                let (file_level, tail) = if let Some(t) = rest.strip_prefix("allow-file") {
                    (true, t)
                } else if let Some(t) = rest.strip_prefix("allow") {
                    (false, t)
                } else {
                    return None;
                };
                let open = line_end - tail.len();
                let body = &text[i + comment.len()..];
                let placer =
                    line_start + i + comment.len() + (body.len() - body.trim_start().len());
                let (entries, close) = entries(source, open, line_end)?;
                Some((i, file_level, entries, Some((close, placer))))
            } else if python {
                let rest = after.strip_prefix("noqa:")?;
                let colon = line_end - rest.len() - 1;
                let entries = noqa_entries(source, colon, line_end);
                // A noqa for other tools only: a placer comment may follow it.
                (!entries.is_empty()).then_some((i, false, entries, None))
            } else {
                None
            }
        });
        let Some((i, file_level, entries, allow)) = found else {
            continue;
        };
        if entries.is_empty() {
            continue;
        }
        let own_line = text[..i].trim().is_empty();
        out.push(Directive {
            line: if file_level { None } else { Some(line_no) },
            comment: line_start + i..line_end,
            own_line,
            noqa: allow.is_none(),
            allow,
            entries,
        });
    }
    // A comment alone on its line applies to the next line of code.
    if !out.iter().any(|d| d.own_line && d.line.is_some()) {
        return out;
    }
    let lines: Vec<&str> = source.lines().collect();
    for d in &mut out {
        if let (Some(line), true) = (d.line, d.own_line) {
            let next = (line + 1..lines.len()).find(|&l| {
                let t = lines[l].trim_start();
                !t.is_empty() && !t.starts_with(comment)
            });
            d.line = Some(next.unwrap_or(line + 1));
        }
    }
    out
}

/// Drops the diagnostics a suppression comment covers and reports every suppression entry that
/// covered nothing (if `unused-suppression` is enabled and the entry's rules ran).
pub(crate) fn apply(
    path: &Path,
    source: &str,
    diagnostics: Vec<Diagnostic>,
    settings: &Settings,
) -> Vec<Diagnostic> {
    let mut directives = directives(path, source);
    if directives.is_empty() {
        return diagnostics;
    }
    let index = LineIndex::new(source);
    let mut kept = Vec::with_capacity(diagnostics.len());
    for d in diagnostics {
        if d.rule == Rule::SyntaxError {
            kept.push(d);
            continue;
        }
        let (line, _) = index.line_col(source, d.span.start);
        let mut suppressed = false;
        for dir in &mut directives {
            if dir.line.is_some_and(|l| l + 1 != line) {
                continue;
            }
            for e in &mut dir.entries {
                if e.rules.contains(&d.rule) {
                    e.used = true;
                    suppressed = true;
                }
            }
        }
        if !suppressed {
            kept.push(d);
        }
    }
    let rule = Rule::UnusedSuppression;
    if !settings.is_enabled(rule) || settings.is_ignored_in(rule, path) {
        return kept;
    }
    for dir in directives.iter().filter(|d| !d.noqa) {
        let ran = |e: &Entry| e.rules.iter().any(|r| settings.is_enabled(*r));
        let unused: Vec<&Entry> = dir
            .entries
            .iter()
            .filter(|e| !e.used && (e.rules.is_empty() || ran(e)))
            .collect();
        if unused.is_empty() {
            continue;
        }
        let all_unused = unused.len() == dir.entries.len();
        for e in &unused {
            let violation = UnusedSuppression {
                selector: e.text.clone(),
                unknown: e.rules.is_empty(),
            };
            let fix = if all_unused {
                Fix {
                    edits: vec![removal_of_directive(source, dir)],
                    applicability: Applicability::Safe,
                }
            } else {
                Fix {
                    edits: vec![removal_in_list(source, &e.span)],
                    applicability: Applicability::Safe,
                }
            };
            kept.push(Diagnostic {
                rule,
                path: path.to_path_buf(),
                message: violation.message(),
                span: e.span.clone(),
                labels: Vec::new(),
                help: violation.help(),
                fix: Some(fix),
                severity: settings.severity(rule),
            });
        }
    }
    kept
}

/// The edit removing a `placer: allow(..)` whose selectors are all unused, and nothing else on its
/// line: the whole comment (and the line, if the comment is alone on it) when nothing follows it;
/// up to the next comment when another follows (`# placer: allow(P101)  # noqa: E501`); only
/// `placer: allow(..)` when prose follows (`# placer: allow(P101) -- reason` keeps `# -- reason`).
fn removal_of_directive(source: &str, dir: &Directive) -> Edit {
    let (close, placer) = dir.allow.unwrap_or((dir.comment.end, dir.comment.start));
    let rest = &source[close..dir.comment.end];
    let after = close + (rest.len() - rest.trim_start().len());
    let marker = if source[dir.comment.start..].starts_with('#') {
        "#"
    } else {
        "//"
    };
    let range = if rest.trim().is_empty() {
        if dir.own_line {
            let start = source[..dir.comment.start].rfind('\n').map_or(0, |i| i + 1);
            let end = source[dir.comment.end..]
                .find('\n')
                .map_or(source.len(), |i| dir.comment.end + i + 1);
            start..end
        } else {
            let before = source[..dir.comment.start].trim_end_matches([' ', '\t']);
            before.len()..dir.comment.end
        }
    } else if source[after..].starts_with(marker) {
        dir.comment.start..after
    } else {
        placer..after
    };
    Edit {
        range,
        content: None,
    }
}

/// The edit removing one selector from `allow(a, b)` with its separating comma.
fn removal_in_list(source: &str, span: &Span) -> Edit {
    let after = &source[span.end..];
    let trailing = after.len() - after.trim_start_matches([' ', ',']).len();
    if after.trim_start_matches([' ', ',']).starts_with(')') || trailing == 0 {
        // The last entry: take the comma before it.
        let before = source[..span.start].trim_end_matches([' ', ',']);
        Edit {
            range: before.len()..span.end,
            content: None,
        }
    } else {
        Edit {
            range: span.start..span.end + trailing,
            content: None,
        }
    }
}

/// What [`add_allow_edits`] would do to a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowEdits {
    /// Sorted, non-overlapping insertions.
    pub edits: Vec<Edit>,
    /// How many findings the new or extended comments suppress.
    pub suppressed: usize,
    /// The 1-based lines that got no comment, and why.
    pub skipped: Vec<(usize, String)>,
}

/// Where a comment can go without changing what the code means: per 0-based line, whether its
/// end is inside a string (or, in Python, the line continues with `\`), and whether its start is
/// inside a string.
struct Placement {
    end_ok: Vec<bool>,
    start_ok: Vec<bool>,
}

impl Placement {
    fn new(path: &Path, source: &str) -> Self {
        let lines = source.split_inclusive('\n').count().max(1);
        let mut p = Placement {
            end_ok: vec![true; lines],
            start_ok: vec![true; lines],
        };
        if is_python(path) {
            p.python(path, source);
        } else {
            p.rust(source);
        }
        p
    }

    /// Marks every line a multi-line token spans, from its 0-based first to its 0-based last
    /// line: the ends of all but the last, the starts of all but the first.
    fn spans(&mut self, first: usize, last: usize) {
        for l in first..last.min(self.end_ok.len()) {
            self.end_ok[l] = false;
        }
        for l in first + 1..=last.min(self.start_ok.len() - 1) {
            self.start_ok[l] = false;
        }
    }

    fn python(&mut self, path: &Path, source: &str) {
        use ruff_python_ast::token::TokenKind;
        use ruff_text_size::Ranged;
        let kind = if crate::frontend::python::is_notebook(path) {
            ruff_python_ast::PySourceType::Ipynb
        } else {
            ruff_python_ast::PySourceType::Python
        };
        let parsed = ruff_python_parser::parse_unchecked_source(source, kind);
        let index = LineIndex::new(source);
        let line = |offset: usize| index.line_col(source, offset).0 - 1;
        let mut strings: Vec<(usize, usize)> = Vec::new();
        let mut comments: Vec<(usize, usize)> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        for token in parsed.tokens() {
            let (start, end) = (token.start().to_usize(), token.end().to_usize());
            match token.kind() {
                TokenKind::String => strings.push((start, end)),
                TokenKind::FStringStart | TokenKind::TStringStart => open.push(start),
                TokenKind::FStringEnd | TokenKind::TStringEnd => {
                    if let Some(s) = open.pop() {
                        strings.push((s, end));
                    }
                }
                TokenKind::Comment => comments.push((start, end)),
                _ => {}
            }
        }
        for &(start, end) in &strings {
            self.spans(line(start), line(end));
        }
        // A line that ends with `\` outside a string or comment continues on the next one.
        let mut at = 0;
        for (l, text) in source.split_inclusive('\n').enumerate() {
            let body = text.trim_end_matches(['\n', '\r']);
            if body.ends_with('\\') {
                let slash = at + body.len() - 1;
                let inside =
                    |spans: &[(usize, usize)]| spans.iter().any(|&(s, e)| s <= slash && slash < e);
                if !inside(&strings) && !inside(&comments) {
                    self.end_ok[l] = false;
                    if l + 1 < self.start_ok.len() {
                        self.start_ok[l + 1] = false;
                    }
                }
            }
            at += text.len();
        }
    }

    fn rust(&mut self, source: &str) {
        fn walk(stream: proc_macro2::TokenStream, out: &mut Vec<(usize, usize)>) {
            for tree in stream {
                match tree {
                    proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                    proc_macro2::TokenTree::Literal(lit) => {
                        let span = lit.span();
                        let (first, last) = (span.start().line, span.end().line);
                        if last > first {
                            out.push((first.saturating_sub(1), last.saturating_sub(1)));
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut multi_line = Vec::new();
        if let Ok(stream) = source.parse::<proc_macro2::TokenStream>() {
            walk(stream, &mut multi_line);
        }
        proc_macro2::extra::invalidate_current_thread_spans();
        for (first, last) in multi_line {
            self.spans(first, last);
        }
    }
}

/// Adds a suppression comment for every finding to the end of its line (merging with a
/// suppression already there), for adopting placer on existing code as `ruff --add-noqa`.
/// Returns the new source, or `None` if nothing changed. Findings of `syntax-error` and
/// `unused-suppression` are skipped, and so are lines where no comment can go (see
/// [`add_allow_edits`]).
pub fn add_allow(path: &Path, source: &str, diagnostics: &[Diagnostic]) -> Option<String> {
    let planned = add_allow_edits(path, source, diagnostics);
    if planned.edits.is_empty() {
        return None;
    }
    Some(crate::fix::apply_edits(source, &planned.edits))
}

/// The insertions [`add_allow`] makes. A comment goes at the end of the finding's line, or, where
/// that end is inside a multi-line string or (in Python) before a `\` continuation, alone on a
/// new line above it; a line where neither is valid is skipped and named in
/// [`AllowEdits::skipped`].
pub fn add_allow_edits(path: &Path, source: &str, diagnostics: &[Diagnostic]) -> AllowEdits {
    let marker = if is_python(path) { "#" } else { "//" };
    let index = LineIndex::new(source);
    let mut per_line: std::collections::BTreeMap<usize, (Vec<&'static str>, usize)> =
        std::collections::BTreeMap::new();
    for d in diagnostics {
        if matches!(d.rule, Rule::SyntaxError | Rule::UnusedSuppression) {
            continue;
        }
        let (line, _) = index.line_col(source, d.span.start);
        let (codes, count) = per_line.entry(line - 1).or_default();
        *count += 1;
        if !codes.contains(&d.rule.code()) {
            codes.push(d.rule.code());
        }
    }
    let mut out = AllowEdits::default();
    if per_line.is_empty() {
        return out;
    }
    let placement = Placement::new(path, source);
    let mut start = 0;
    for (i, line) in source.split_inclusive('\n').enumerate() {
        let line_start = start;
        start += line.len();
        let Some((codes, count)) = per_line.get(&i) else {
            continue;
        };
        let body = line.trim_end_matches(['\n', '\r']);
        let existing = format!("{marker} placer: allow(");
        if let Some(at) = body.find(&existing).filter(|_| placement.end_ok[i]) {
            let close = body[at..].find(')').map_or(body.len(), |c| at + c);
            let mut added = String::new();
            for c in codes {
                if !body[at..close].contains(c) {
                    added.push_str(", ");
                    added.push_str(c);
                }
            }
            if !added.is_empty() {
                let at = line_start + close;
                out.edits.push(Edit {
                    range: at..at,
                    content: Some(added.into()),
                });
            }
            out.suppressed += count;
        } else if placement.end_ok[i] {
            let at = line_start + body.len();
            out.edits.push(Edit {
                range: at..at,
                content: Some(format!("  {marker} placer: allow({})", codes.join(", ")).into()),
            });
            out.suppressed += count;
        } else if placement.start_ok[i] {
            let indent = &body[..body.len() - body.trim_start().len()];
            out.edits.push(Edit {
                range: line_start..line_start,
                content: Some(
                    format!("{indent}{marker} placer: allow({})\n", codes.join(", ")).into(),
                ),
            });
            out.suppressed += count;
        } else {
            out.skipped.push((
                i + 1,
                "the line is inside a multi-line string or continues another line".to_string(),
            ));
        }
    }
    out
}
