//! The run cache (`.placer_cache/`): a check of an unchanged tree with unchanged settings and the
//! same placer version reads its findings back instead of parsing anything.
//!
//! Findings depend on the whole tree (forward paths and helper devices cross files), so the key
//! covers every checked file's path and content: any change re-checks the tree.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use placer_lint::diagnostic::Diagnostic;
use placer_lint::{Analysis, FileReport, Report, Settings};
use serde::{Deserialize, Serialize};

use crate::Fatal;

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    files_checked: usize,
    files_lowered: usize,
    files: Vec<(PathBuf, Vec<Diagnostic>)>,
}

/// The key of a run: placer's version, the run (settings and checked paths), and every file's
/// path and content.
fn key(run: &str, files: &[(PathBuf, Vec<u8>)]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(run.as_bytes());
    for (path, content) in files {
        h.update(path.to_string_lossy().as_bytes());
        h.update(&[0]);
        h.update(&(content.len() as u64).to_le_bytes());
        h.update(content);
    }
    format!("{:032x}", h.digest128())
}

/// Checks `paths`, reading the findings from `dir` when nothing changed since the last run with
/// the same paths and settings, and storing them otherwise. The analysed tree comes back when
/// the check ran.
pub(crate) fn check(
    dir: &Path,
    paths: &[PathBuf],
    settings: &Settings,
) -> Result<(Report, Option<Analysis>), Fatal> {
    let start = std::time::Instant::now();
    let mut found = placer_lint::discover(paths)?;
    found.retain(|p| !settings.is_excluded(p));
    let files: Vec<(PathBuf, Vec<u8>)> = found
        .into_iter()
        .map(|p| {
            let content = std::fs::read(&p).unwrap_or_default();
            (p, content)
        })
        .collect();
    let run = format!("{settings:?}{paths:?}");
    let key = key(&run, &files);
    // One slot per set of checked paths and settings, so alternating trees do not evict each other.
    let slot = format!("{:016x}.json", xxhash_rust::xxh3::xxh3_64(run.as_bytes()));
    let file = dir.join(env!("CARGO_PKG_VERSION")).join(slot);
    if let Some(entry) = std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Entry>(&b).ok())
        .filter(|e| e.key == key)
    {
        let sources: std::collections::HashMap<&Path, &[u8]> = files
            .iter()
            .map(|(p, c)| (p.as_path(), c.as_slice()))
            .collect();
        let reports = entry
            .files
            .into_iter()
            .map(|(path, diagnostics)| {
                let bytes = sources.get(path.as_path()).copied().unwrap_or_default();
                let source: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).as_ref());
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
        };
        return Ok((report, None));
    }
    let (report, analysis) = placer_lint::analyse_paths(paths, settings)?;
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
    // A cache that cannot be written only costs time.
    if let Some(parent) = file.parent() {
        if std::fs::create_dir_all(parent).is_ok() {
            let _ = std::fs::write(dir.join(".gitignore"), "# Created by placer\n*\n");
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let tmp = file.with_extension("tmp");
                if std::fs::write(&tmp, bytes).is_ok() {
                    let _ = std::fs::rename(&tmp, &file);
                }
            }
        }
    }
    Ok((report, Some(analysis)))
}
