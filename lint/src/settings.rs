//! Which rules run, at what level, on what code: the resolved form of `placer.toml` and the
//! command line (see [`crate::config`]).

use std::path::{Path, PathBuf};

use globset::GlobSet;

use crate::diagnostic::Severity;
use crate::registry::Rule;

/// Options for a check run.
#[derive(Clone, Debug)]
pub struct Settings {
    enabled: Vec<bool>,
    levels: Vec<Option<Severity>>,
    /// Also lint test code (`#[test]`, `#[cfg(test)]`, `tests/`, `benches/`, `examples/`, and the
    /// `[[test]]`, `[[bench]]` and `[[example]]` targets a `Cargo.toml` declares at other paths).
    pub include_tests: bool,
    /// Skip the analysis of files that contain none of the API names a rule could fire on (they
    /// are still parsed, for `syntax-error`). Turning it off changes only speed, never findings.
    pub prefilter: bool,
    /// Method names that start a forward path besides `forward*` (config key `forward-methods`).
    pub forward_methods: Vec<String>,
    /// The user's own tensor constructors (config key `extra-factories`): a call whose last path
    /// segment is one of these creates a tensor on the device passed to it.
    pub extra_factories: Vec<String>,
    /// Files matching these are test code (config key `test-paths`), matched relative to
    /// [`Settings::root`].
    pub test_paths: GlobSet,
    /// Files matching these are not checked (config key `exclude`), relative to [`Settings::root`].
    pub exclude: GlobSet,
    /// Rules not reported in files matching a glob (config key `per-file-ignores`).
    pub per_file_ignores: Vec<(GlobSet, Vec<Rule>)>,
    /// The directory globs are relative to, absolute: the config file's directory; empty (paths
    /// as given, relative to the working directory) without a config file.
    pub root: PathBuf,
}

impl Default for Settings {
    /// The rules of the default-on categories (correctness, suspicious, perf, style).
    fn default() -> Self {
        Settings {
            enabled: Rule::ALL
                .iter()
                .map(|r| r.category().is_default_on())
                .collect(),
            levels: vec![None; Rule::ALL.len()],
            include_tests: false,
            prefilter: true,
            forward_methods: Vec::new(),
            extra_factories: Vec::new(),
            test_paths: GlobSet::empty(),
            exclude: GlobSet::empty(),
            per_file_ignores: Vec::new(),
            root: PathBuf::new(),
        }
    }
}

fn index(rule: Rule) -> usize {
    Rule::ALL.iter().position(|r| *r == rule).unwrap_or(0)
}

impl Settings {
    /// Settings that run exactly `rules` (plus `syntax-error`, which is always on).
    pub fn only(rules: &[Rule]) -> Self {
        let mut s = Settings::default();
        for (i, r) in Rule::ALL.iter().enumerate() {
            s.enabled[i] = *r == Rule::SyntaxError || rules.contains(r);
        }
        s
    }

    /// Turns `rule` on or off (`syntax-error` cannot be turned off).
    pub fn set_enabled(&mut self, rule: Rule, on: bool) {
        self.enabled[index(rule)] = on || rule == Rule::SyntaxError;
    }

    /// Whether `rule` runs.
    pub fn is_enabled(&self, rule: Rule) -> bool {
        self.enabled[index(rule)]
    }

    /// Sets the severity `rule` reports with, overriding its category's (`deny` → error,
    /// `warn` → warning), as clippy's `-D`/`-W`.
    pub fn set_severity(&mut self, rule: Rule, severity: Severity) {
        self.levels[index(rule)] = Some(severity);
    }

    /// The severity findings of `rule` carry.
    pub fn severity(&self, rule: Rule) -> Severity {
        self.levels[index(rule)].unwrap_or_else(|| rule.category().severity())
    }

    /// `path` relative to [`Settings::root`] when it is under it, for glob matching.
    fn relative(&self, path: &Path) -> PathBuf {
        if self.root.as_os_str().is_empty() {
            return path.to_path_buf();
        }
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        abs.strip_prefix(&self.root)
            .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
    }

    /// Whether `path` is excluded from checking by `exclude`.
    pub fn is_excluded(&self, path: &Path) -> bool {
        !self.exclude.is_empty() && self.exclude.is_match(self.relative(path))
    }

    /// Whether `path` is test code by `test-paths`.
    pub fn is_test_path(&self, path: &Path) -> bool {
        !self.test_paths.is_empty() && self.test_paths.is_match(self.relative(path))
    }

    /// Whether `rule` is ignored in `path` by `per-file-ignores`.
    pub fn is_ignored_in(&self, rule: Rule, path: &Path) -> bool {
        if self.per_file_ignores.is_empty() {
            return false;
        }
        let rel = self.relative(path);
        self.per_file_ignores
            .iter()
            .any(|(globs, rules)| rules.contains(&rule) && globs.is_match(&rel))
    }

    /// Whether `name` starts a forward path: `forward*`, `__call__`, or a `forward-methods` entry.
    pub fn is_forward_method(&self, name: &str) -> bool {
        self.forward_methods.iter().any(|m| m == name)
    }
}
