//! Configuration files: `placer.toml` (or `.placer.toml`), a `[workspace.metadata.placer]` or
//! `[package.metadata.placer]` table in `Cargo.toml`, or `[tool.placer]` in `pyproject.toml`,
//! found by walking up from a checked path; resolved into [`Settings`].
//!
//! ```toml
//! select = ["P1", "host-sync-in-loop"]   # codes, names, prefixes, categories, or "ALL"
//! extend-select = ["P104"]
//! ignore = ["P102"]
//! exclude = ["generated/**"]
//! forward-methods = ["step", "decode"]
//! extra-factories = ["make_causal_mask"]
//! test-paths = ["integration/**"]
//!
//! [per-file-ignores]
//! "examples/**" = ["P102"]
//!
//! [rules]                                # per-rule level, as clippy's -A/-W/-D
//! host-sync-in-loop = "allow"
//! P501 = "deny"
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::diagnostic::Severity;
use crate::registry::Rule;
use crate::settings::Settings;

/// The keys a configuration table may have.
pub const KEYS: &[&str] = &[
    "select",
    "extend-select",
    "ignore",
    "rules",
    "per-file-ignores",
    "exclude",
    "forward-methods",
    "extra-factories",
    "test-paths",
    "include-tests",
];

/// A configuration as written, before rule names and globs are resolved.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Config {
    /// Rules to run instead of the default set.
    pub select: Option<Vec<String>>,
    /// Rules to run in addition.
    pub extend_select: Vec<String>,
    /// Rules not to run.
    pub ignore: Vec<String>,
    /// Per-rule level: `allow`, `warn` or `deny`.
    pub rules: BTreeMap<String, String>,
    /// Glob → rules not reported in matching files.
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    /// Globs of files not to check.
    pub exclude: Vec<String>,
    /// Extra method names that start a forward path.
    pub forward_methods: Vec<String>,
    /// The user's own tensor constructors.
    pub extra_factories: Vec<String>,
    /// Globs of files that are test code.
    pub test_paths: Vec<String>,
    /// Also check test code.
    pub include_tests: Option<bool>,
    /// Where it was read from (set by the loader).
    #[serde(skip)]
    pub source: Option<PathBuf>,
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file, if the error is in one.
    pub path: Option<PathBuf>,
    /// What is wrong, naming the key and the nearest valid one.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The candidate closest to `word` (Jaro-Winkler ≥ 0.7), for "did you mean" hints.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| {
            (
                strsim::jaro_winkler(&word.to_lowercase(), &c.to_lowercase()),
                c,
            )
        })
        .filter(|(score, _)| *score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

fn did_you_mean(hint: Option<&str>) -> String {
    hint.map(|h| format!("; did you mean `{h}`?"))
        .unwrap_or_default()
}

/// The rules a selector names: a code (`P101`), a name, a code prefix (`P3`), a category
/// (`perf`), or `ALL`.
///
/// # Errors
/// A message naming the selector and the nearest valid one.
pub fn resolve_selector(selector: &str) -> Result<Vec<Rule>, String> {
    let s = selector.trim();
    if s.eq_ignore_ascii_case("all") {
        return Ok(Rule::ALL.to_vec());
    }
    let by_code = crate::suppression::rules_for_selector(s);
    if !by_code.is_empty() {
        return Ok(by_code);
    }
    let by_category: Vec<Rule> = Rule::ALL
        .iter()
        .copied()
        .filter(|r| r.category().as_str() == s)
        .collect();
    if !by_category.is_empty() {
        return Ok(by_category);
    }
    let names = Rule::ALL.iter().flat_map(|r| [r.code(), r.name()]).chain([
        "correctness",
        "suspicious",
        "perf",
        "style",
        "pedantic",
        "nursery",
    ]);
    Err(format!(
        "unknown rule `{s}`{}",
        did_you_mean(nearest(s, names))
    ))
}

fn resolve_all(selectors: &[String], key: &str) -> Result<Vec<Rule>, String> {
    let mut out = Vec::new();
    for s in selectors {
        out.extend(resolve_selector(s).map_err(|e| format!("{e} in `{key}`"))?);
    }
    Ok(out)
}

fn globs(patterns: &[String], key: &str) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        let glob = Glob::new(p).map_err(|e| format!("bad glob `{p}` in `{key}`: {e}"))?;
        builder.add(glob);
        // `dir` and `dir/` also mean everything under it, as in .gitignore.
        let dir = p.trim_end_matches('/');
        if !dir.contains('*') {
            if let Ok(g) = Glob::new(&format!("{dir}/**")) {
                builder.add(g);
            }
        }
    }
    builder
        .build()
        .map_err(|e| format!("bad glob in `{key}`: {e}"))
}

/// How specific a selector is (longer prefixes, then exact codes and names, win).
fn specificity(selector: &str) -> usize {
    if Rule::from_code_or_name(selector).is_some() {
        usize::MAX
    } else {
        selector.len()
    }
}

impl Config {
    /// Parses a configuration table, checking every key.
    ///
    /// # Errors
    /// An unknown key (with the nearest valid one) or a value of the wrong type.
    pub fn from_table(table: toml::Table, path: Option<&Path>) -> Result<Config, ConfigError> {
        let err = |message: String| ConfigError {
            path: path.map(Path::to_path_buf),
            message,
        };
        for key in table.keys() {
            if !KEYS.contains(&key.as_str()) {
                return Err(err(format!(
                    "unknown key `{key}`{}",
                    did_you_mean(nearest(key, KEYS.iter().copied()))
                )));
            }
        }
        let mut config: Config = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| err(e.message().to_string()))?;
        config.source = path.map(Path::to_path_buf);
        Ok(config)
    }

    /// Parses the text of a `placer.toml`.
    ///
    /// # Errors
    /// As [`Config::from_table`], or TOML syntax errors.
    pub fn parse(text: &str, path: Option<&Path>) -> Result<Config, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError {
            path: path.map(Path::to_path_buf),
            message: e.to_string().trim_end().to_string(),
        })?;
        Config::from_table(table, path)
    }

    /// Reads a configuration file: a `placer.toml`, or the placer table of a `Cargo.toml` or
    /// `pyproject.toml`. `Ok(None)` when a `Cargo.toml`/`pyproject.toml` has no placer table.
    ///
    /// # Errors
    /// The file cannot be read, or [`Config::parse`] fails.
    pub fn load(path: &Path) -> Result<Option<Config>, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: Some(path.to_path_buf()),
            message: format!("cannot read: {e}"),
        })?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let nested: &[&[&str]] = match name {
            "Cargo.toml" => &[
                &["package", "metadata", "placer"],
                &["workspace", "metadata", "placer"],
            ],
            "pyproject.toml" => &[&["tool", "placer"]],
            _ => return Config::parse(&text, Some(path)).map(Some),
        };
        // Only the placer table matters; a Cargo.toml this parser rejects is cargo's business.
        let Ok(table) = toml::from_str::<toml::Table>(&text) else {
            return Ok(None);
        };
        for keys in nested {
            let mut at: Option<&toml::Table> = Some(&table);
            for k in *keys {
                at = at.and_then(|t| t.get(*k)).and_then(toml::Value::as_table);
            }
            if let Some(t) = at {
                return Config::from_table(t.clone(), Some(path)).map(Some);
            }
        }
        Ok(None)
    }

    /// Finds the configuration that applies to `path`: the nearest directory at or above it
    /// holding `placer.toml`, `.placer.toml`, or a `Cargo.toml`/`pyproject.toml` with a placer
    /// table.
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn discover(path: &Path) -> Result<Option<Config>, ConfigError> {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let start = if abs.is_dir() {
            Some(abs.as_path())
        } else {
            abs.parent()
        };
        for dir in start.into_iter().flat_map(Path::ancestors) {
            for name in [
                "placer.toml",
                ".placer.toml",
                "Cargo.toml",
                "pyproject.toml",
            ] {
                let candidate = dir.join(name);
                if candidate.is_file() {
                    if let Some(config) = Config::load(&candidate)? {
                        return Ok(Some(config));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Resolves rule selectors, levels and globs into [`Settings`], on top of `base` (which
    /// carries command-line options such as `prefilter`).
    ///
    /// # Errors
    /// An unknown rule (with the nearest valid one), a bad level or a bad glob.
    pub fn settings(&self, base: &Settings) -> Result<Settings, ConfigError> {
        self.settings_inner(base).map_err(|message| ConfigError {
            path: self.source.clone(),
            message,
        })
    }

    fn settings_inner(&self, base: &Settings) -> Result<Settings, String> {
        let mut s = match &self.select {
            Some(select) => {
                let mut s = Settings::only(&resolve_all(select, "select")?);
                s.prefilter = base.prefilter;
                s.include_tests = base.include_tests;
                s
            }
            None => base.clone(),
        };
        for rule in resolve_all(&self.extend_select, "extend-select")? {
            s.set_enabled(rule, true);
        }
        for rule in resolve_all(&self.ignore, "ignore")? {
            s.set_enabled(rule, false);
        }
        let mut levels: Vec<(&String, &String)> = self.rules.iter().collect();
        levels.sort_by_key(|(sel, _)| specificity(sel));
        for (selector, level) in levels {
            let rules = resolve_selector(selector).map_err(|e| format!("{e} in `rules`"))?;
            for rule in rules {
                match level.as_str() {
                    "allow" => s.set_enabled(rule, false),
                    "warn" => {
                        s.set_enabled(rule, true);
                        s.set_severity(rule, Severity::Warning);
                    }
                    "deny" => {
                        s.set_enabled(rule, true);
                        s.set_severity(rule, Severity::Error);
                    }
                    other => {
                        return Err(format!(
                            "unknown level `{other}` for `{selector}` in `rules`{} (levels: allow, warn, deny)",
                            did_you_mean(nearest(other, ["allow", "warn", "deny"]))
                        ))
                    }
                }
            }
        }
        for (glob, selectors) in &self.per_file_ignores {
            let rules = resolve_all(selectors, "per-file-ignores")?;
            s.per_file_ignores.push((
                globs(std::slice::from_ref(glob), "per-file-ignores")?,
                rules,
            ));
        }
        s.exclude = globs(&self.exclude, "exclude")?;
        s.test_paths = globs(&self.test_paths, "test-paths")?;
        s.forward_methods
            .extend(self.forward_methods.iter().cloned());
        s.extra_factories
            .extend(self.extra_factories.iter().cloned());
        if let Some(include) = self.include_tests {
            s.include_tests = s.include_tests || include;
        }
        if let Some(dir) = self.source.as_ref().and_then(|p| p.parent()) {
            s.root = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        }
        Ok(s)
    }
}
