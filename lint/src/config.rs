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
        check_types(&table).map_err(&err)?;
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
        Config::load_reporting(path, &mut Vec::new())
    }

    /// As [`Config::load`], adding a warning to `warnings` for a placer table that is not
    /// read: one in the wrong place (`[placer]` in a `Cargo.toml`), or in a file that is not
    /// valid TOML.
    ///
    /// # Errors
    /// As [`Config::load`]; also a file that is not a regular file (a FIFO would block).
    pub fn load_reporting(
        path: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Config>, ConfigError> {
        let bytes = crate::read_regular_file(path).map_err(|e| ConfigError {
            path: Some(path.to_path_buf()),
            message: format!("cannot read: {e}"),
        })?;
        let text = String::from_utf8(bytes).map_err(|_| ConfigError {
            path: Some(path.to_path_buf()),
            message: "cannot read: not UTF-8".to_string(),
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
        // Only the placer table matters; a Cargo.toml this parser rejects is cargo's business,
        // but a placer table in it is not read, and the user should know.
        let table = match toml::from_str::<toml::Table>(&text) {
            Ok(table) => table,
            Err(e) => {
                if text.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with('[') && l.contains("placer")
                }) {
                    warnings.push(format!(
                        "{}: not valid TOML, so its placer table is not read: {}",
                        path.display(),
                        e.message()
                    ));
                }
                return Ok(None);
            }
        };
        let expected: Vec<String> = nested.iter().map(|keys| keys.join(".")).collect();
        for found in placer_tables(&table, "") {
            if !expected.contains(&found) {
                warnings.push(format!(
                    "{}: `[{found}]` is not read; placer reads `[{}]`",
                    path.display(),
                    expected.join("]` or `[")
                ));
            }
        }
        for keys in nested {
            let mut at: Option<&toml::Table> = Some(&table);
            for k in *keys {
                at = at.and_then(|t| t.get(*k)).and_then(toml::Value::as_table);
            }
            if let Some(t) = at {
                return Config::from_table(t.clone(), Some(path))
                    .map_err(|mut e| {
                        e.message = format!("in `[{}]`: {}", keys.join("."), e.message);
                        e
                    })
                    .map(Some);
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
        Config::discover_reporting(path, &mut Vec::new())
    }

    /// As [`Config::discover`], adding to `warnings` each placer table seen on the way that is
    /// not read (see [`Config::load_reporting`]).
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn discover_reporting(
        path: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Config>, ConfigError> {
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
                    if let Some(config) = Config::load_reporting(&candidate, warnings)? {
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

/// The dotted paths of every table named `placer` in a manifest (at most four levels deep).
fn placer_tables(table: &toml::Table, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    if prefix.matches('.').count() >= 3 {
        return out;
    }
    for (key, value) in table {
        let Some(inner) = value.as_table() else {
            continue;
        };
        let here = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if key == "placer" {
            out.push(here.clone());
        }
        out.extend(placer_tables(inner, &here));
    }
    out
}

/// What each key's value must be, in words, and whether a value is one.
fn expected_type(key: &str) -> (&'static str, fn(&toml::Value) -> bool) {
    fn strings(v: &toml::Value) -> bool {
        v.as_array()
            .is_some_and(|a| a.iter().all(toml::Value::is_str))
    }
    match key {
        "select" | "extend-select" | "ignore" => ("a list of rules", strings),
        "exclude" | "test-paths" => ("a list of globs", strings),
        "forward-methods" | "extra-factories" => ("a list of names", strings),
        "rules" => ("a table of rule levels (`P101 = \"allow\"`)", |v| {
            v.as_table()
                .is_some_and(|t| t.values().all(toml::Value::is_str))
        }),
        "per-file-ignores" => ("a table of globs to lists of rules", |v| {
            v.as_table().is_some_and(|t| t.values().all(strings))
        }),
        "include-tests" => ("`true` or `false`", toml::Value::is_bool),
        _ => ("", |_| true),
    }
}

/// Checks every key's value type, naming the key, what it should be and what it is.
fn check_types(table: &toml::Table) -> Result<(), String> {
    for (key, value) in table {
        let (expected, ok) = expected_type(key);
        if ok(value) {
            continue;
        }
        let inner = match value {
            toml::Value::Array(a) => a.iter().find(|v| !v.is_str()).map(toml::Value::type_str),
            toml::Value::Table(t) => t
                .values()
                .find(|v| !v.is_str() && !v.is_array())
                .or_else(|| t.values().find(|v| !v.is_str()))
                .map(toml::Value::type_str),
            _ => None,
        };
        let found = match inner {
            Some(t) => format!("{} holding {}", article(value.type_str()), article(t)),
            None => article(value.type_str()),
        };
        return Err(format!("`{key}`: expected {expected}, found {found}"));
    }
    Ok(())
}

/// `a string`, `an integer`, `a list` (TOML's arrays).
fn article(type_str: &str) -> String {
    let name = match type_str {
        "array" => "list",
        other => other,
    };
    if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {name}")
    } else {
        format!("a {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_name_the_key_and_the_types_of_a_wrong_value() {
        let e = Config::parse("select = \"P101\"\n", None).unwrap_err();
        assert_eq!(
            e.message,
            "`select`: expected a list of rules, found a string"
        );
        let e = Config::parse("include-tests = \"yes\"\n", None).unwrap_err();
        assert_eq!(
            e.message,
            "`include-tests`: expected `true` or `false`, found a string"
        );
        let e = Config::parse("exclude = [1]\n", None).unwrap_err();
        assert_eq!(
            e.message,
            "`exclude`: expected a list of globs, found a list holding an integer"
        );
    }

    #[test]
    fn should_name_the_table_of_a_wrong_value_and_warn_of_unread_tables() {
        let dir = std::env::temp_dir().join(format!("placer-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"x\"\n[package.metadata.placer]\nselect = \"P101\"\n",
        )
        .unwrap();
        let e = Config::load(&manifest).unwrap_err();
        assert!(e.message.contains("in `[package.metadata.placer]`: `select`: expected a list of rules, found a string"), "{}", e.message);
        std::fs::write(
            &manifest,
            "[package]\nname = \"x\"\n[placer]\nselect = [\"P101\"]\n",
        )
        .unwrap();
        let mut warnings = Vec::new();
        assert!(Config::load_reporting(&manifest, &mut warnings)
            .unwrap()
            .is_none());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("`[placer]` is not read"),
            "{warnings:?}"
        );
        std::fs::write(
            &manifest,
            "[package\n[package.metadata.placer]\nselect = [\"P101\"]\n",
        )
        .unwrap();
        let mut warnings = Vec::new();
        assert!(Config::load_reporting(&manifest, &mut warnings)
            .unwrap()
            .is_none());
        assert!(warnings[0].contains("not valid TOML"), "{warnings:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
