//! The run cache (`.placer_cache/`): a check of an unchanged tree with unchanged settings and the
//! same placer version reads its findings back instead of parsing anything.
//!
//! Findings depend on the whole tree (forward paths and helper devices cross files), so the key
//! covers every checked file's path and content: any change re-checks the tree. Each file is read
//! once: the key and the findings come from the same bytes.
//!
//! The cache never touches what is not its own: it lives at the project root (the directory of
//! the nearest configuration, or the checked paths' common ancestor, as ruff's), writes only into
//! a directory it created or one marked as a placer cache (`CACHEDIR.TAG`), creates its files
//! with `create_new` or a fresh temporary file renamed into place, and follows no symbolic link
//! inside it.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use placer_lint::config::Config;
use placer_lint::diagnostic::Diagnostic;
use placer_lint::{Analysis, FileReport, Report, Settings};
use serde::{Deserialize, Serialize};

use crate::Fatal;

/// The cache directory's name at the project root.
const NAME: &str = ".placer_cache";

/// The first line of a `CACHEDIR.TAG` (<https://bford.info/cachedir/>).
const TAG_SIGNATURE: &str = "Signature: 8a477f597d28d172789f06886806bc55";

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    files_checked: usize,
    files_lowered: usize,
    files: Vec<(PathBuf, Vec<Diagnostic>)>,
}

/// The running executable's size and modification time: two builds of one version (a
/// development build, `cargo install --path .` of a newer commit) may find different things, so
/// neither reads the other's findings. Empty when the executable cannot be inspected.
fn build_stamp() -> String {
    let Some(meta) = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::metadata(exe).ok())
    else {
        return String::new();
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{}:{modified}", meta.len())
}

/// The key of a run: placer's version and build, the run (settings and checked paths), every
/// file's path and content (or the error reading it), and the `Cargo.toml` manifests above the
/// Rust files (their `[[example]]`, `[[bench]]` and `[[test]]` paths say which files are test code).
fn key(run: &str, files: &[(PathBuf, std::io::Result<Vec<u8>>)]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(build_stamp().as_bytes());
    h.update(run.as_bytes());
    for (manifest, content) in manifests_above(files) {
        h.update(manifest.to_string_lossy().as_bytes());
        h.update(&[0]);
        h.update(&(content.len() as u64).to_le_bytes());
        h.update(&content);
    }
    for (path, content) in files {
        h.update(path.to_string_lossy().as_bytes());
        h.update(&[0]);
        match content {
            Ok(content) => {
                h.update(&(content.len() as u64).to_le_bytes());
                h.update(content);
            }
            Err(e) => {
                h.update(&u64::MAX.to_le_bytes());
                h.update(e.to_string().as_bytes());
            }
        }
    }
    format!("{:032x}", h.digest128())
}

/// The default cache directory for `paths`: `.placer_cache` in the directory of the nearest
/// configuration, or else in the checked paths' common ancestor.
pub(crate) fn default_dir(paths: &[PathBuf]) -> PathBuf {
    let config_dir = paths.iter().find_map(|p| {
        let source = Config::discover(p).ok()??.source?;
        let dir = std::path::absolute(source).ok()?;
        Some(dir.parent()?.to_path_buf())
    });
    if let Some(dir) = config_dir {
        return dir.join(NAME);
    }
    let mut common: Option<PathBuf> = None;
    for p in paths {
        let Ok(abs) = std::path::absolute(p) else {
            continue;
        };
        let dir = if abs.is_dir() {
            abs
        } else {
            abs.parent().map_or(abs.clone(), Path::to_path_buf)
        };
        common = Some(match common {
            None => dir,
            Some(c) => c
                .ancestors()
                .find(|a| dir.starts_with(a))
                .map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
        });
    }
    common.unwrap_or_else(|| PathBuf::from(".")).join(NAME)
}

/// The `Cargo.toml` files in the directories at and above each Rust file's, with their
/// contents, in a stable order; each directory is looked at once.
fn manifests_above(files: &[(PathBuf, std::io::Result<Vec<u8>>)]) -> Vec<(PathBuf, Vec<u8>)> {
    let mut seen = std::collections::HashSet::new();
    let mut manifests = Vec::new();
    for (path, _) in files {
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let Ok(abs) = std::path::absolute(path) else {
            continue;
        };
        for dir in abs.ancestors().skip(1) {
            if !seen.insert(dir.to_path_buf()) {
                break;
            }
            let manifest = dir.join("Cargo.toml");
            if let Ok(content) = placer_lint::read_regular_file(&manifest) {
                manifests.push((manifest, content));
            }
        }
    }
    manifests.sort_by(|a, b| a.0.cmp(&b.0));
    manifests
}

/// Checks `paths`, reading the findings from `dir` (or the default directory) when nothing
/// changed since the last run with the same paths and settings, and storing them otherwise. The
/// analysed tree comes back when the check ran.
pub(crate) fn check(
    dir: Option<&Path>,
    paths: &[PathBuf],
    settings: &Settings,
) -> Result<(Report, Option<Analysis>), Fatal> {
    let start = std::time::Instant::now();
    let dir = dir.map_or_else(|| default_dir(paths), Path::to_path_buf);
    let (mut found, skipped) = placer_lint::discover_reporting(paths)?;
    found.retain(|p| !settings.is_excluded(p));
    let files: Vec<(PathBuf, std::io::Result<Vec<u8>>)> = found
        .into_iter()
        .map(|p| {
            let content = std::fs::read(&p);
            (p, content)
        })
        .collect();
    let run = format!("{settings:?}{paths:?}");
    let key = key(&run, &files);
    // One slot per set of checked paths and settings, so alternating trees do not evict each other.
    let slot = format!("{:016x}.json", xxhash_rust::xxh3::xxh3_64(run.as_bytes()));
    let version_dir = dir.join(env!("CARGO_PKG_VERSION"));
    // A FIFO, a device or a link in place of the entry is never read (`read_entry`).
    if let Some(entry) = read_entry(&version_dir.join(&slot)).filter(|e| e.key == key) {
        let sources: std::collections::HashMap<&Path, &[u8]> = files
            .iter()
            .map(|(p, c)| (p.as_path(), c.as_deref().unwrap_or_default()))
            .collect();
        let reports = entry
            .files
            .into_iter()
            .map(|(path, diagnostics)| {
                let bytes = sources.get(path.as_path()).copied().unwrap_or_default();
                // The text the findings point into, as a cold run has it (a notebook's cells).
                let source = placer_lint::analysed_source(&path, &String::from_utf8_lossy(bytes));
                FileReport {
                    path,
                    source,
                    diagnostics,
                }
            })
            .collect();
        let report = Report {
            files: reports,
            files_checked: entry.files_checked,
            files_lowered: entry.files_lowered,
            elapsed_secs: start.elapsed().as_secs_f64(),
            skipped,
        };
        return Ok((report, None));
    }
    let (mut report, analysis) = placer_lint::analyse_contents(files, settings);
    report.skipped = skipped;
    let entry = Entry {
        key,
        files_checked: report.files_checked,
        files_lowered: report.files_lowered,
        files: report
            .files
            .iter()
            .map(|f| (f.path.clone(), f.diagnostics.clone()))
            .collect(),
    };
    // A cache that cannot be written only costs time; one that is not placer's is never touched.
    match prepare(&dir) {
        Ok(()) => {
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let _ = store(&version_dir, &slot, &bytes);
            }
        }
        Err(why) => {
            static WARNED: AtomicBool = AtomicBool::new(false);
            if !WARNED.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "placer: warning: not writing the cache to {}: {why}",
                    dir.display()
                );
            }
        }
    }
    Ok((report, Some(analysis)))
}

/// Reads a cache entry if `file` is a regular file (not a link, FIFO or directory).
fn read_entry(file: &Path) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(file).ok()?;
    if !meta.file_type().is_file() {
        return None;
    }
    let bytes = std::fs::read(file).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Whether `dir` (a real directory) is marked as a placer cache: by its `CACHEDIR.TAG`, or by the
/// `.gitignore` that placer 0.1 wrote.
fn is_ours(dir: &Path) -> bool {
    let marked = |name: &str, is: &dyn Fn(&str) -> bool| {
        let file = dir.join(name);
        std::fs::symlink_metadata(&file).is_ok_and(|m| m.file_type().is_file())
            && std::fs::read_to_string(&file).is_ok_and(|t| is(&t))
    };
    marked("CACHEDIR.TAG", &|t| {
        t.starts_with(TAG_SIGNATURE) && t.contains("placer")
    }) || marked(".gitignore", &|t| t.starts_with("# Created by placer\n"))
}

/// Makes `dir` a placer cache directory: creates it if missing, marks it if it is empty, accepts
/// it if it is already one; refuses anything else (a link, a file, a directory with other files).
fn prepare(dir: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            match std::fs::create_dir(dir) {
                Ok(()) => {}
                // Another run created it at the same moment.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Err(e) => return Err(e.to_string()),
        Ok(m) if m.file_type().is_symlink() => {
            return Err("it is a symbolic link".to_string());
        }
        Ok(m) if !m.is_dir() => return Err("it is not a directory".to_string()),
        Ok(_) => {}
    }
    if is_ours(dir) {
        return Ok(());
    }
    let empty = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .next()
        .is_none();
    if !empty {
        return Err("it exists and is not a placer cache".to_string());
    }
    let tag = format!(
        "{TAG_SIGNATURE}\n# This file is a cache directory tag created by placer.\n# For information about cache directory tags see https://bford.info/cachedir/\n"
    );
    for (name, content) in [
        ("CACHEDIR.TAG", tag.as_str()),
        (".gitignore", "# Created by placer\n*\n"),
    ] {
        create_new(&dir.join(name), content.as_bytes())?;
    }
    if is_ours(dir) {
        Ok(())
    } else {
        Err("it could not be marked as a placer cache".to_string())
    }
}

/// Creates `file` with `content`, never replacing or following anything already there (another
/// run that created it first is fine).
fn create_new(file: &Path, content: &[u8]) -> Result<(), String> {
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
    {
        Ok(mut f) => f.write_all(content).map_err(|e| e.to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Stores `bytes` as `slot` in `version_dir` (a real directory inside the cache, created if
/// missing) through a fresh temporary file renamed into place.
fn store(version_dir: &Path, slot: &str, bytes: &[u8]) -> Result<(), String> {
    match std::fs::symlink_metadata(version_dir) {
        Ok(m) if m.file_type().is_dir() => {}
        Ok(_) => return Err("not a directory".to_string()),
        Err(_) => match std::fs::create_dir(version_dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let m = std::fs::symlink_metadata(version_dir).map_err(|e| e.to_string())?;
                if !m.file_type().is_dir() {
                    return Err("not a directory".to_string());
                }
            }
            Err(e) => return Err(e.to_string()),
        },
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".entry.")
        .tempfile_in(version_dir)
        .map_err(|e| e.to_string())?;
    tmp.write_all(bytes).map_err(|e| e.to_string())?;
    // The rename replaces whatever has the slot's name (a link included) without following it.
    tmp.persist(version_dir.join(slot))
        .map_err(|e| e.error.to_string())?;
    Ok(())
}
