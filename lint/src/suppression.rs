//! Suppression comments: `// placer: allow(P101)` at the end of the offending line or alone on
//! the line above, `// placer: allow-file(P101)` for a whole file, and in Python `# placer:
//! allow(P101)` or ruff's `# noqa: P101`. A suppression that suppresses nothing is reported as
//! `unused-suppression` (as ruff's `RUF100`).

use std::fmt::Write as _;
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

/// Parses the selectors of `(a, b)` starting at `open` (the byte after the marker).
fn entries(source: &str, open: usize, line_end: usize) -> Option<Vec<Entry>> {
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
    Some(out)
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
    let comment = if is_python(path) { "#" } else { "//" };
    let mut out = Vec::new();
    let quick = |needle: &str| source.contains(needle);
    let has_noqa = is_python(path) && quick("noqa");
    if !quick("placer:") && !has_noqa {
        return out;
    }
    let mut start = 0;
    for (line_no, line) in source.split_inclusive('\n').enumerate() {
        let line_start = start;
        start += line.len();
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
                let entries = entries(source, open, line_end)?;
                Some((i, file_level, entries))
            } else if has_noqa {
                let rest = after.strip_prefix("noqa:")?;
                let colon = line_end - rest.len() - 1;
                Some((i, false, noqa_entries(source, colon, line_end)))
            } else {
                None
            }
        });
        let Some((i, file_level, entries)) = found else {
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
            entries,
        });
    }
    // A comment alone on its line applies to the next line of code.
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
    for dir in &directives {
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
                // Remove the whole comment (and the line, if it is alone on it).
                let range = if dir.own_line {
                    let start = source[..dir.comment.start].rfind('\n').map_or(0, |i| i + 1);
                    let end = source[dir.comment.end..]
                        .find('\n')
                        .map_or(source.len(), |i| dir.comment.end + i + 1);
                    start..end
                } else {
                    let before = source[..dir.comment.start].trim_end_matches([' ', '\t']);
                    before.len()..dir.comment.end
                };
                Fix {
                    edits: vec![Edit {
                        range,
                        content: None,
                    }],
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

/// Adds a suppression comment for every finding to the end of its line (merging with a
/// suppression already there), for adopting placer on existing code as `ruff --add-noqa`.
/// Returns the new source, or `None` if nothing changed. Findings of `syntax-error` and
/// `unused-suppression` are skipped.
pub fn add_allow(path: &Path, source: &str, diagnostics: &[Diagnostic]) -> Option<String> {
    let marker = if is_python(path) { "#" } else { "//" };
    let index = LineIndex::new(source);
    let mut per_line: std::collections::BTreeMap<usize, Vec<&'static str>> =
        std::collections::BTreeMap::new();
    for d in diagnostics {
        if matches!(d.rule, Rule::SyntaxError | Rule::UnusedSuppression) {
            continue;
        }
        let (line, _) = index.line_col(source, d.span.start);
        let codes = per_line.entry(line - 1).or_default();
        if !codes.contains(&d.rule.code()) {
            codes.push(d.rule.code());
        }
    }
    if per_line.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(source.len() + per_line.len() * 24);
    for (i, line) in source.split_inclusive('\n').enumerate() {
        let Some(codes) = per_line.get(&i) else {
            out.push_str(line);
            continue;
        };
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let existing = format!("{marker} placer: allow(");
        if let Some(at) = body.find(&existing) {
            let close = body[at..].find(')').map_or(body.len(), |c| at + c);
            out.push_str(&body[..close]);
            for c in codes {
                if !body[at..close].contains(c) {
                    out.push_str(", ");
                    out.push_str(c);
                }
            }
            out.push_str(&body[close..]);
        } else {
            out.push_str(body);
            let _ = write!(out, "  {marker} placer: allow({})", codes.join(", "));
        }
        out.push_str(ending);
    }
    Some(out)
}
