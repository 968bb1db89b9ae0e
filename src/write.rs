//! Writing users' files without ever losing one (`--fix`, `--add-allow`, `--write-baseline`,
//! `rules --markdown`).
//!
//! Every write goes to a new temporary file in the target's directory, is flushed to disk with
//! the original's permissions (and owner, where allowed), and is renamed over the target: an
//! interrupted or failing write leaves the original whole. An edit of a checked file is made to
//! the file as it is on disk now, only if it still analyses to the text that was checked, and
//! the rename happens only if the file still holds the bytes the edit was made to; otherwise the
//! file is left as it is and the caller is told why.
//!
//! A checked path that is a symbolic link is written through (its target replaced, the link
//! kept) only when the target is inside the checked paths.
//!
//! For tests, `PLACER_TEST_FAIL_WRITE=TEXT` makes every write of a file whose path contains
//! `TEXT` fail half-way, as a full disk would (the original must come out unchanged).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use placer_lint::diagnostic::Edit;
use placer_lint::notebook::Notebook;

/// The environment variable that injects a write failure (see the module docs).
const FAIL_WRITE: &str = "PLACER_TEST_FAIL_WRITE";

/// The checked paths as locations: a path's last component is not resolved, so that a symbolic
/// link given on the command line does not make its target count as checked.
pub(crate) struct Roots(Vec<PathBuf>);

impl Roots {
    /// The roots of `paths` (the command line's checked paths).
    pub(crate) fn new(paths: &[PathBuf]) -> Self {
        let roots = paths
            .iter()
            .filter_map(|p| {
                let abs = std::path::absolute(p).ok()?;
                match (abs.parent(), abs.file_name()) {
                    (Some(parent), Some(name)) if !matches!(name.to_str(), Some("." | "..")) => {
                        Some(std::fs::canonicalize(parent).ok()?.join(name))
                    }
                    _ => std::fs::canonicalize(&abs).ok(),
                }
            })
            .collect();
        Roots(roots)
    }

    /// The file a write to `path` lands in: its resolved path, if that is inside a root.
    pub(crate) fn target(&self, path: &Path) -> Result<PathBuf, String> {
        let real = std::fs::canonicalize(path).map_err(|e| format!("cannot resolve: {e}"))?;
        if self.0.iter().any(|r| real.starts_with(r)) {
            Ok(real)
        } else {
            Err(format!(
                "resolves (through a symbolic link) to {}, outside the checked paths; not written",
                real.display()
            ))
        }
    }
}

/// Applies `edits` (sorted, non-overlapping, in positions of `analysed`, the text that was
/// checked) to the checked file `path`, keeping a notebook a notebook. `parses` says whether a
/// new content of `path` still parses. Fails, leaving the file as it is, if the file changed
/// since it was checked, is a link out of the checked paths, would not parse, or cannot be
/// written.
pub(crate) fn edit_file(
    path: &Path,
    analysed: &str,
    edits: &[Edit],
    roots: &Roots,
    parses: impl Fn(&Path, &str) -> bool,
) -> Result<PathBuf, String> {
    let target = roots.target(path)?;
    let (bytes, new) = edited(path, &target, analysed, edits)?;
    if !parses(path, &new) {
        return Err("the fixed file would not parse; left unchanged".to_string());
    }
    replace(&target, Some(&bytes), new.as_bytes())?;
    Ok(target)
}

/// The bytes of `target` now and its new text after `edits`, or why there is none.
fn edited(
    path: &Path,
    target: &Path,
    analysed: &str,
    edits: &[Edit],
) -> Result<(Vec<u8>, String), String> {
    let bytes = read_regular(target)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| "is not valid UTF-8".to_string())?;
    if *placer_lint::analysed_source(path, text) != *analysed {
        return Err("changed since it was checked; left as it is".to_string());
    }
    let new = if is_notebook(path) {
        Notebook::parse(text)?.apply(edits)?.json
    } else {
        placer_lint::fix::apply_edits(text, edits)
    };
    Ok((bytes, new))
}

/// The cell-by-cell changes `edits` make to the notebook `path` (for `--diff`), or `None` if it
/// is not a notebook or no longer matches `analysed`.
pub(crate) fn notebook_changes(
    path: &Path,
    analysed: &str,
    edits: &[Edit],
) -> Option<Vec<placer_lint::notebook::CellChange>> {
    if !is_notebook(path) {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    if *placer_lint::analysed_source(path, &text) != *analysed {
        return None;
    }
    Some(Notebook::parse(&text).ok()?.apply(edits).ok()?.changes)
}

/// `path:line` for a 1-based line of `analysed`; in a notebook `path:cell N:line`, the line
/// counted within the cell, as findings are shown.
pub(crate) fn location(path: &Path, analysed: &str, line: usize) -> String {
    if is_notebook(path) {
        // The first line is a marker; its tag marks the real ones (see `placer_lint::notebook`).
        let tag = analysed
            .lines()
            .next()
            .and_then(placer_lint::notebook::parse_marker)
            .map(|(_, tag)| tag);
        let cell = analysed
            .lines()
            .take(line.saturating_sub(1))
            .enumerate()
            .filter_map(|(i, l)| {
                let (n, t) = placer_lint::notebook::parse_marker(l)?;
                (Some(t) == tag).then_some((i + 1, n))
            })
            .last();
        if let Some((marker_line, cell)) = cell {
            return format!("{}:cell {cell}:{}", path.display(), line - marker_line);
        }
    }
    format!("{}:{line}", path.display())
}

fn is_notebook(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}

/// Reads a regular file (never a FIFO or device, which could block or never end).
fn read_regular(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file".to_string());
    }
    std::fs::read(path).map_err(|e| format!("cannot read: {e}"))
}

/// Replaces (or creates) `target` with `content` atomically: a temporary file in the same
/// directory, flushed to disk with the original's permissions, renamed over it. With
/// `expected`, the rename happens only if `target` still holds exactly those bytes.
pub(crate) fn replace(
    target: &Path,
    expected: Option<&[u8]>,
    content: &[u8],
) -> Result<(), String> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let original = std::fs::metadata(target).ok();
    if original.as_ref().is_some_and(|m| !m.is_file()) {
        return Err("is not a regular file; not replaced".to_string());
    }
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".placer-tmp");
    #[cfg(unix)]
    if original.is_none() {
        // A new file gets the mode any new file gets (0666 less the umask), not a temporary
        // file's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a temporary file in {}: {e}", dir.display()))?;
    let failing = std::env::var_os(FAIL_WRITE)
        .is_some_and(|s| !s.is_empty() && target.to_string_lossy().contains(&*s.to_string_lossy()));
    let written = if failing {
        tmp.write_all(&content[..content.len() / 2])
            .and_then(|()| Err(std::io::Error::from(std::io::ErrorKind::StorageFull)))
    } else {
        tmp.write_all(content)
    };
    written
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| format!("cannot write: {e}; left unchanged"))?;
    if let Some(meta) = &original {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(|e| format!("cannot keep its permissions: {e}; left unchanged"))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Best effort: only the owner's own files or root can keep the owner.
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(meta.uid()), Some(meta.gid()));
        }
    }
    if let Some(expected) = expected {
        let now = std::fs::read(target).map_err(|e| format!("cannot read: {e}"))?;
        if now != expected {
            return Err("changed while placer was writing it; left as it is".to_string());
        }
    }
    tmp.persist(target)
        .map_err(|e| format!("cannot replace: {}; left unchanged", e.error))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Which files a run wrote and which it could not, for the summary.
#[derive(Default)]
pub(crate) struct Writes {
    /// The files written, as checked.
    pub(crate) written: Vec<PathBuf>,
    /// The files left as they were, with why.
    pub(crate) failed: Vec<(PathBuf, String)>,
    /// Their resolved paths, so that a file reached twice (a link and its target) is written once.
    targets: std::collections::HashSet<PathBuf>,
}

impl Writes {
    /// Whether `path` already failed (it is not tried again).
    pub(crate) fn has_failed(&self, path: &Path) -> bool {
        self.failed.iter().any(|(p, _)| p == path)
    }

    /// Records the outcome of writing `path`; a failure is reported at once.
    pub(crate) fn record(&mut self, path: &Path, outcome: Result<PathBuf, String>) -> bool {
        match outcome {
            Ok(target) => {
                self.targets.insert(target);
                if !self.written.iter().any(|p| p == path) {
                    self.written.push(path.to_path_buf());
                }
                true
            }
            Err(why) => {
                eprintln!("placer: warning: {}: {why}", path.display());
                self.failed.push((path.to_path_buf(), why));
                false
            }
        }
    }

    /// Whether the file `path` resolves to was already written in this pass.
    pub(crate) fn already_written(&self, path: &Path) -> bool {
        std::fs::canonicalize(path).is_ok_and(|t| self.targets.contains(&t))
    }

    /// Forgets the resolved paths written (a new pass may write them again).
    pub(crate) fn next_pass(&mut self) {
        self.targets.clear();
    }

    /// When some files could not be written: names the files written and those that were not.
    pub(crate) fn summary(&self) {
        if self.failed.is_empty() {
            return;
        }
        let names = |paths: &mut dyn Iterator<Item = &PathBuf>| {
            paths
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !self.written.is_empty() {
            eprintln!("placer: written: {}", names(&mut self.written.iter()));
        }
        eprintln!(
            "placer: not written (left as they were): {}",
            names(&mut self.failed.iter().map(|(p, _)| p))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_keep_permissions_and_refuse_a_changed_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.py");
        std::fs::write(&file, "old\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        }
        replace(&file, Some(b"old\n"), b"new\n").expect("replaced");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "new\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
        // Not what was read: left alone, and no temporary file stays behind.
        let err = replace(&file, Some(b"old\n"), b"newer\n").expect_err("refused");
        assert!(err.contains("changed"), "{err}");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[test]
    fn should_name_a_notebook_line_by_its_cell() {
        let code = "# %% [placer cell 2 00ff]\na = 1\n# %% [placer cell 4 00ff]\nb = 2\nc = 3\n";
        assert_eq!(location(Path::new("n.ipynb"), code, 5), "n.ipynb:cell 4:2");
        // Marker-like text in a cell, without the notebook's tag, is code.
        let code = "# %% [placer cell 2 00ff]\na = 1\n# %% [placer cell 4 beef]\nb = 2\n";
        assert_eq!(location(Path::new("n.ipynb"), code, 4), "n.ipynb:cell 2:3");
        assert_eq!(location(Path::new("m.py"), code, 5), "m.py:5");
    }

    #[cfg(unix)]
    #[test]
    fn should_create_a_new_file_with_the_usual_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("baseline.json");
        replace(&file, None, b"{}\n").expect("written");
        let probe = dir.path().join("probe");
        std::fs::write(&probe, "").expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        // The mode any new file gets here (0666 less the umask), not a temporary file's 0600.
        assert_eq!(mode(&file), mode(&probe));
    }

    #[test]
    fn should_not_overwrite_an_edit_made_since_the_check() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.py");
        std::fs::write(&file, "x = 1  # edited by the user meanwhile\n").expect("write");
        let roots = Roots::new(&[dir.path().to_path_buf()]);
        let edits = [Edit {
            range: 0..1,
            content: Some("y".into()),
        }];
        let err = edit_file(&file, "x = 1\n", &edits, &roots, |_, _| true).expect_err("refused");
        assert!(err.contains("changed since it was checked"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&file).expect("read"),
            "x = 1  # edited by the user meanwhile\n"
        );
        // Unchanged since the check: written.
        std::fs::write(&file, "x = 1\n").expect("write");
        edit_file(&file, "x = 1\n", &edits, &roots, |_, _| true).expect("written");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "y = 1\n");
    }
}
