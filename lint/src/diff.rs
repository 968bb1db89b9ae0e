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
                "-c",
                "core.quotePath=false",
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
                current = diff_path(name).map(|n| top.join(n));
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

    /// The changed lines of every repository holding one of `paths` (each path's own
    /// repository, not the current directory's), merged.
    ///
    /// # Errors
    /// As [`ChangedLines::since`], for any of them.
    pub fn since_for_paths(base: &str, paths: &[PathBuf]) -> Result<Self, String> {
        let mut tops = Vec::new();
        for path in paths {
            let dir = if path.is_dir() {
                path.clone()
            } else {
                match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                }
            };
            let top = PathBuf::from(git(&dir, &["rev-parse", "--show-toplevel"])?.trim());
            let top = top.canonicalize().unwrap_or(top);
            if !tops.contains(&top) {
                tops.push(top);
            }
        }
        let mut all = ChangedLines::default();
        for top in tops {
            all.files.extend(ChangedLines::since(base, &top)?.files);
        }
        Ok(all)
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

/// The path of a `+++ b/<path>` header line of `git diff` (after `+++ `): unquoted when git
/// quoted it (C-style, for tabs, quotes, backslashes, control and non-UTF-8 bytes), without the
/// tab git appends to names with spaces; `None` for `/dev/null`.
fn diff_path(name: &str) -> Option<PathBuf> {
    let bytes = if let Some(quoted) = name.strip_prefix('"') {
        unquote(quoted)?
    } else {
        name.strip_suffix('\t').unwrap_or(name).as_bytes().to_vec()
    };
    let rest = bytes.strip_prefix(b"b/")?;
    Some(path_from_bytes(rest.to_vec()))
}

/// The bytes of a C-style quoted string after its opening `"`, up to the closing one.
fn unquote(quoted: &str) -> Option<Vec<u8>> {
    let b = quoted.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut at = 0;
    while at < b.len() {
        match b[at] {
            b'"' => return Some(out),
            b'\\' => {
                let escaped = *b.get(at + 1)?;
                at += 2;
                out.push(match escaped {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 0x0b,
                    b'f' => 0x0c,
                    b'r' => b'\r',
                    b'0'..=b'7' => {
                        let digits = b.get(at - 1..at + 2)?;
                        at += 2;
                        let v = digits.iter().try_fold(0u32, |acc, &d| {
                            (b'0'..=b'7')
                                .contains(&d)
                                .then(|| acc * 8 + u32::from(d - b'0'))
                        })?;
                        u8::try_from(v).ok()?
                    }
                    other => other,
                });
            }
            byte => {
                out.push(byte);
                at += 1;
            }
        }
    }
    None
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_read_quoted_and_spaced_paths_of_git_diff_headers() {
        assert_eq!(
            diff_path("b/src/a b.rs\t"),
            Some(PathBuf::from("src/a b.rs"))
        );
        assert_eq!(diff_path("b/src/ü.rs"), Some(PathBuf::from("src/ü.rs")));
        assert_eq!(
            diff_path("\"b/src/t\\tab.rs\""),
            Some(PathBuf::from("src/t\tab.rs"))
        );
        assert_eq!(
            diff_path("\"b/src/\\303\\274.rs\""),
            Some(PathBuf::from("src/ü.rs"))
        );
        assert_eq!(
            diff_path("\"b/q\\\"uote.rs\""),
            Some(PathBuf::from("q\"uote.rs"))
        );
        assert_eq!(diff_path("/dev/null"), None);
    }
}
