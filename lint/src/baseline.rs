//! Baselines: the findings a codebase already has, recorded so that only new ones are reported
//! (`placer check --write-baseline FILE`, then `--baseline FILE`).
//!
//! A finding is identified by its rule, its file and a fingerprint of the code it points at (the
//! text of its line with whitespace collapsed, plus the flagged expression), so it survives lines
//! inserted or removed above it. Identical findings in one file are counted, not merged: a
//! baseline with one `.item()` in a loop hides one, not a second one pasted next to it.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// The fingerprint of a finding: rule code, path and offending code, hashed with xxh3 (64-bit),
/// as 16 hex digits. Stable across runs, machines and line shifts.
pub fn fingerprint(path: &Path, source: &str, d: &Diagnostic) -> String {
    // A span that is not on character boundaries of `source` (a finding from another text)
    // must not panic: round it down to the nearest boundary.
    let floor = |mut i: usize| {
        i = i.min(source.len());
        while !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(d.span.start);
    let end = floor(d.span.end.max(start));
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[end..].find('\n').map_or(source.len(), |i| end + i);
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let key = format!(
        "{}\0{}\0{}\0{}",
        d.rule.code(),
        portable(path),
        collapse(source.get(line_start..line_end).unwrap_or("")),
        collapse(source.get(start..end).unwrap_or(""))
    );
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
}

/// A path with `/` separators and no leading `./`, as baselines store it.
pub fn portable(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// One recorded finding.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Entry {
    /// Rule code, e.g. `P101`.
    pub code: String,
    /// File, `/`-separated, as walked.
    pub path: String,
    /// [`fingerprint`] of the finding.
    pub fingerprint: String,
    /// The line it was on when recorded (informational; not used for matching).
    pub line: usize,
    /// Its message when recorded (informational).
    pub message: String,
}

/// A baseline file: `{"version": 1, "findings": [...]}`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Baseline {
    /// Format version; 1.
    pub version: u32,
    /// The recorded findings, by path and line.
    pub findings: Vec<Entry>,
}

impl Baseline {
    /// The format version this placer writes and reads.
    pub const VERSION: u32 = 1;

    /// Parses a baseline file's text, checking its version.
    ///
    /// # Errors
    /// A message if the text is not a baseline, or one of another version.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let baseline: Baseline =
            serde_json::from_str(text).map_err(|e| format!("not a placer baseline: {e}"))?;
        if baseline.version != Baseline::VERSION {
            return Err(format!(
                "baseline version {} is not supported (this placer reads version {})",
                baseline.version,
                Baseline::VERSION
            ));
        }
        Ok(baseline)
    }

    /// Records `findings` (each with its file's path and source).
    pub fn from_findings<'a>(
        findings: impl IntoIterator<Item = (&'a Path, &'a str, &'a Diagnostic)>,
    ) -> Self {
        let mut out: Vec<Entry> = findings
            .into_iter()
            .map(|(path, source, d)| Entry {
                code: d.rule.code().to_string(),
                path: portable(path),
                fingerprint: fingerprint(path, source, d),
                line: crate::diagnostic::LineIndex::new(source)
                    .line_col(source, d.span.start)
                    .0,
                message: d.message.clone(),
            })
            .collect();
        out.sort_by(|a, b| (&a.path, a.line, &a.code).cmp(&(&b.path, b.line, &b.code)));
        Baseline {
            version: Baseline::VERSION,
            findings: out,
        }
    }

    /// A filter that lets through only findings not in the baseline. Each recorded finding
    /// hides one matching finding.
    pub fn filter(&self) -> BaselineFilter {
        let mut remaining = HashMap::new();
        for e in &self.findings {
            *remaining
                .entry((e.code.clone(), e.path.clone(), e.fingerprint.clone()))
                .or_insert(0usize) += 1;
        }
        BaselineFilter { remaining }
    }
}

/// Matches findings against a [`Baseline`], consuming its entries.
#[derive(Debug)]
pub struct BaselineFilter {
    remaining: HashMap<(String, String, String), usize>,
}

impl BaselineFilter {
    /// Whether the finding is new (not covered by a remaining baseline entry). A covered finding
    /// uses up its entry.
    pub fn is_new(&mut self, path: &Path, source: &str, d: &Diagnostic) -> bool {
        let key = (
            d.rule.code().to_string(),
            portable(path),
            fingerprint(path, source, d),
        );
        match self.remaining.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Rule;

    #[test]
    fn should_not_panic_on_a_span_inside_a_character() {
        let d = Diagnostic {
            rule: Rule::MixedDeviceOp,
            path: "n.ipynb".into(),
            message: String::new(),
            span: 2..5,
            labels: Vec::new(),
            help: None,
            fix: None,
            severity: crate::Severity::Error,
        };
        // 'é' spans bytes 1..3: offset 2 is inside it.
        let a = fingerprint(Path::new("n.ipynb"), "xé = y + z\n", &d);
        assert_eq!(a.len(), 16);
    }
}
