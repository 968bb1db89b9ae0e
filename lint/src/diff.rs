//! Changed-code mode (`placer check --diff-base origin/main`): the lines changed since a git
//! revision, so that only findings in them are reported, for pull requests.

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::Command;

/// 1-based line ranges changed per file (absolute, canonical paths). A file absent from the map
/// is unchanged; an untracked file is changed everywhere.
#[derive(Clone, Debug, Default)]
pub struct ChangedLines {
    files: HashMap<PathBuf, Vec<RangeInclusive<usize>>>,
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl ChangedLines {
    /// The lines changed in the working tree since the merge base of `base` and `HEAD` (as a pull
    /// request sees them), plus every line of untracked files, in the repository containing
    /// `dir`.
    ///
    /// # Errors
    /// A message if git is missing, `dir` is not in a repository, or `base` is unknown.
    pub fn since(base: &str, dir: &Path) -> Result<Self, String> {
        let top = PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"])?.trim());
        let top = top.canonicalize().unwrap_or(top);
        git(
            &top,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{base}^{{commit}}"),
            ],
        )
        .map_err(|_| format!("unknown git revision `{base}`"))?;
        let merge_base = git(&top, &["merge-base", base, "HEAD"])
            .map_or_else(|_| base.to_string(), |s| s.trim().to_string());
        let diff = git(
            &top,
            &[
                "diff",
                "--unified=0",
                "--no-color",
                "--no-ext-diff",
                "--no-renames",
                &merge_base,
            ],
        )?;
        let mut files: HashMap<PathBuf, Vec<RangeInclusive<usize>>> = HashMap::new();
        let mut current: Option<PathBuf> = None;
        for line in diff.lines() {
            if let Some(name) = line.strip_prefix("+++ ") {
                current = name.strip_prefix("b/").map(|n| top.join(n));
                if let Some(path) = &current {
                    files.entry(path.clone()).or_default();
                }
            } else if let (Some(hunk), Some(path)) = (line.strip_prefix("@@ "), &current) {
                // `@@ -a,b +c,d @@`: lines c..c+d-1 of the new file (d defaults to 1).
                let Some(new) = hunk.split(' ').find_map(|p| p.strip_prefix('+')) else {
                    continue;
                };
                let mut parts = new.split(',');
                let start: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                let count: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(1);
                if count > 0 {
                    files
                        .entry(path.clone())
                        .or_default()
                        .push(start..=start + count - 1);
                }
            }
        }
        let untracked = git(&top, &["ls-files", "--others", "--exclude-standard", "-z"])?;
        for name in untracked.split('\0').filter(|n| !n.is_empty()) {
            files.insert(top.join(name), vec![1..=usize::MAX]);
        }
        Ok(ChangedLines { files })
    }

    /// Whether any of lines `first..=last` (1-based) of `path` changed.
    pub fn touches(&self, path: &Path, first: usize, last: usize) -> bool {
        let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.files.get(&abs).is_some_and(|ranges| {
            ranges
                .iter()
                .any(|r| *r.start() <= last && first <= *r.end())
        })
    }
}
