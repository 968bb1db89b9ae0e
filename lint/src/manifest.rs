//! What a crate's `Cargo.toml` says about its files: the test, bench and example targets it
//! declares at paths cargo would not infer (`[[example]] path = "bench/encoder.rs"`).
//!
//! Cargo infers these targets from `tests/`, `benches/` and `examples/`, which the Rust frontend
//! recognises by path; a target declared elsewhere is test code all the same (it is not part of
//! the library a user calls, and `placer check` skips it unless `include-tests` is set).

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// The `[[test]]`, `[[bench]]` and `[[example]]` target files of the crates a run meets, read once
/// per manifest.
#[derive(Debug, Default)]
pub(crate) struct DeclaredTargets {
    /// Per directory looked at: the target files of the crate whose manifest is the nearest one
    /// with a `[package]` table at or above it (`None` when there is none).
    by_dir: HashMap<PathBuf, Option<std::sync::Arc<HashSet<PathBuf>>>>,
}

impl DeclaredTargets {
    /// Whether `path` is a test, bench or example target that its crate's manifest declares with
    /// an explicit `path`. `false` for a file outside any crate, or when the manifest cannot be
    /// read or parsed (cargo reports that; the file is then checked as library code).
    pub(crate) fn is_test_target(&mut self, path: &Path) -> bool {
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            return false;
        }
        let Ok(abs) = std::path::absolute(path) else {
            return false;
        };
        let abs = normalise(&abs);
        let Some(dir) = abs.parent() else {
            return false;
        };
        self.targets_of(dir)
            .is_some_and(|targets| targets.contains(&abs))
    }

    /// The declared target files of the crate that owns `dir`, cached for `dir` and every
    /// directory walked through on the way to its manifest.
    fn targets_of(&mut self, dir: &Path) -> Option<std::sync::Arc<HashSet<PathBuf>>> {
        let mut walked = Vec::new();
        let found = dir
            .ancestors()
            .find_map(|d| {
                if let Some(cached) = self.by_dir.get(d) {
                    return Some(cached.clone());
                }
                walked.push(d.to_path_buf());
                read_manifest(d).map(|targets| targets.map(std::sync::Arc::new))
            })
            .flatten();
        for d in walked {
            self.by_dir.insert(d, found.clone());
        }
        found
    }
}

/// The crate manifest in `dir`: `None` when there is no `Cargo.toml` or it has no `[package]`
/// table (a virtual workspace manifest: the crate is further up); `Some(None)` when it cannot be
/// parsed; otherwise its table.
#[allow(clippy::option_option)]
pub(crate) fn package_manifest(dir: &Path) -> Option<Option<toml::Table>> {
    let text = crate::read_regular_file(&dir.join("Cargo.toml")).ok()?;
    let Ok(table) = toml::from_str::<toml::Table>(&String::from_utf8_lossy(&text)) else {
        return Some(None);
    };
    table.get("package").and_then(toml::Value::as_table)?;
    Some(Some(table))
}

/// Reads `dir/Cargo.toml` as [`package_manifest`] does, keeping the declared test, bench and
/// example target files, made absolute.
#[allow(clippy::option_option)]
fn read_manifest(dir: &Path) -> Option<Option<HashSet<PathBuf>>> {
    let Some(table) = package_manifest(dir)? else {
        return Some(None);
    };
    let mut targets = HashSet::new();
    for kind in ["test", "bench", "example"] {
        let Some(list) = table.get(kind).and_then(toml::Value::as_array) else {
            continue;
        };
        for target in list {
            if let Some(rel) = target.get("path").and_then(toml::Value::as_str) {
                targets.insert(normalise(&dir.join(rel)));
            }
        }
    }
    Some(Some(targets))
}

/// `path` without `.` components and with each `..` applied to the component before it (no file
/// system access: symbolic links are not followed).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_take_declared_example_bench_and_test_paths_as_test_targets() {
        let dir = std::env::temp_dir().join(format!("placer-manifest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bench")).unwrap();
        std::fs::create_dir_all(dir.join("src/bin")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"x\"\n\
             [[bin]]\nname = \"infer\"\npath = \"src/bin/infer.rs\"\n\
             [[example]]\nname = \"speed\"\npath = \"./bench/speed.rs\"\n\
             [[bench]]\nname = \"b\"\npath = \"perf/../perf/b.rs\"\n\
             [[test]]\nname = \"parity\"\npath = \"checks/parity.rs\"\n",
        )
        .unwrap();
        let mut targets = DeclaredTargets::default();
        assert!(targets.is_test_target(&dir.join("bench/speed.rs")));
        assert!(targets.is_test_target(&dir.join("perf/b.rs")));
        assert!(targets.is_test_target(&dir.join("checks/./parity.rs")));
        // A binary target and library code are not test code.
        assert!(!targets.is_test_target(&dir.join("src/bin/infer.rs")));
        assert!(!targets.is_test_target(&dir.join("bench/model.rs")));
        assert!(!targets.is_test_target(&dir.join("src/lib.rs")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn should_look_past_a_virtual_manifest_and_survive_a_broken_one() {
        let dir = std::env::temp_dir().join(format!("placer-manifest-ws-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("crates/a/bench")).unwrap();
        std::fs::create_dir_all(dir.join("crates/b")).unwrap();
        // The workspace root holds a crate too: its targets are not `a`'s.
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"root\"\n[[example]]\nname = \"e\"\npath = \"crates/b/e.rs\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("crates/Cargo.toml"),
            "[workspace]\nmembers = [\"a\"]\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("crates/a/Cargo.toml"),
            "[package]\nname = \"a\"\n[[example]]\nname = \"s\"\npath = \"bench/s.rs\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("crates/b/Cargo.toml"), "[package\nname = ").unwrap();
        let mut targets = DeclaredTargets::default();
        assert!(targets.is_test_target(&dir.join("crates/a/bench/s.rs")));
        // `b`'s own manifest does not parse: its files are checked as library code, and the
        // root crate's declaration does not reach past it.
        assert!(!targets.is_test_target(&dir.join("crates/b/e.rs")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
