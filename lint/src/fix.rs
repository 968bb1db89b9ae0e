//! Applying fixes (`placer check --fix`, `--unsafe-fixes`, `--diff`), as ruff: edits of
//! non-overlapping fixes are applied in one pass; overlapping ones wait for the next pass.

use crate::diagnostic::{Applicability, Diagnostic, Edit};

/// Applies to `source` the fixes of `diagnostics` whose applicability is allowed (safe ones, and
/// unsafe ones when `unsafe_fixes`), skipping a fix that overlaps one already taken. Returns the
/// new source and how many fixes were applied, or `None` if none applied.
pub fn apply(
    source: &str,
    diagnostics: &[Diagnostic],
    unsafe_fixes: bool,
) -> Option<(String, usize)> {
    let (edits, applied) = select(source, diagnostics, unsafe_fixes)?;
    Some((apply_edits(source, &edits), applied))
}

/// The edits [`apply`] would make to `source`, sorted and non-overlapping, and how many fixes
/// they come from; `None` if no fix applies.
pub fn select(
    source: &str,
    diagnostics: &[Diagnostic],
    unsafe_fixes: bool,
) -> Option<(Vec<Edit>, usize)> {
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
    let mut taken: Vec<&Edit> = Vec::new();
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
    let mut edits: Vec<Edit> = taken.into_iter().cloned().collect();
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    Some((edits, applied))
}

/// Applies sorted, non-overlapping `edits` to `source`. Edits out of bounds, or not on character
/// boundaries, are skipped.
pub fn apply_edits(source: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for e in edits {
        if e.range.start < at || source.get(e.range.clone()).is_none() {
            continue;
        }
        out.push_str(&source[at..e.range.start]);
        out.push_str(e.content.as_deref().unwrap_or(""));
        at = e.range.end;
    }
    out.push_str(&source[at..]);
    out
}
