//! Which rules run and on what code.

use crate::registry::Rule;

/// Options for a check run.
#[derive(Clone, Debug)]
pub struct Settings {
    enabled: Vec<bool>,
    /// Also lint test code (`#[test]`, `#[cfg(test)]`, `tests/`, `benches/`, `examples/`).
    pub include_tests: bool,
    /// Skip the analysis of files that contain none of the API names a rule could fire on (they
    /// are still parsed, for `syntax-error`). Turning it off changes only speed, never findings.
    pub prefilter: bool,
}

impl Default for Settings {
    /// The rules of the default-on categories (correctness, suspicious, perf, style).
    fn default() -> Self {
        Settings {
            enabled: Rule::ALL
                .iter()
                .map(|r| r.category().is_default_on())
                .collect(),
            include_tests: false,
            prefilter: true,
        }
    }
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

    /// Turns `rule` on or off.
    pub fn set_enabled(&mut self, rule: Rule, on: bool) {
        if let Some(i) = Rule::ALL.iter().position(|r| *r == rule) {
            self.enabled[i] = on || rule == Rule::SyntaxError;
        }
    }

    /// Whether `rule` runs.
    pub fn is_enabled(&self, rule: Rule) -> bool {
        Rule::ALL
            .iter()
            .position(|r| *r == rule)
            .is_some_and(|i| self.enabled[i])
    }
}
