//! Applying fixes (`placer check --fix`, `--unsafe-fixes`, `--diff`), as ruff: edits of
//! non-overlapping fixes are applied in one pass; overlapping ones wait for the next pass.

use crate::diagnostic::{Applicability, Diagnostic};

/// Applies to `source` the fixes of `diagnostics` whose applicability is allowed (safe ones, and
/// unsafe ones when `unsafe_fixes`), skipping a fix that overlaps one already taken. Returns the
/// new source and how many fixes were applied, or `None` if none applied.
pub fn apply(
    source: &str,
    diagnostics: &[Diagnostic],
    unsafe_fixes: bool,
) -> Option<(String, usize)> {
    let mut fixes: Vec<_> = diagnostics
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| match f.applicability {
            Applicability::Safe => true,
            Applicability::Unsafe => unsafe_fixes,
            Applicability::DisplayOnly => false,
        })
        .filter(|f| !f.edits.is_empty())
        .collect();
    fixes.sort_by_key(|f| f.edits.iter().map(|e| e.range.start).min());
    let mut taken: Vec<&crate::diagnostic::Edit> = Vec::new();
    let mut applied = 0;
    for fix in fixes {
        let overlaps = fix.edits.iter().any(|e| {
            taken.iter().any(|t| {
                e.range.start < t.range.end.max(t.range.start + 1)
                    && t.range.start < e.range.end.max(e.range.start + 1)
            })
        });
        let in_bounds = fix
            .edits
            .iter()
            .all(|e| e.range.start <= e.range.end && source.get(e.range.clone()).is_some());
        if overlaps || !in_bounds {
            continue;
        }
        taken.extend(fix.edits.iter());
        applied += 1;
    }
    if applied == 0 {
        return None;
    }
    taken.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for e in taken {
        out.push_str(&source[at..e.range.start]);
        out.push_str(e.content.as_deref().unwrap_or(""));
        at = e.range.end;
    }
    out.push_str(&source[at..]);
    Some((out, applied))
}
