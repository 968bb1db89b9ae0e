use crate::checker::Checker;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for suppression comments (`// placer: allow(...)`, `allow-file(...)`, and in
    /// Python `# placer: allow(...)`) that suppress nothing: the rule they name ran and reported
    /// nothing on that line (or in that file), or the rule does not exist. `# noqa: P101` is
    /// honoured but never judged: other tools share that comment and may own the same code.
    ///
    /// ## Why is this bad?
    /// A stale suppression hides the next real finding on that line: after the code changes, a
    /// new device bug there is silenced by a comment written for an old one. This is ruff's
    /// `RUF100`.
    ///
    /// Suppressions of rules that did not run (disabled in the configuration or deselected on
    /// the command line) are not reported.
    ///
    /// ## Example
    /// ```rust,ignore
    /// use candle_core::{Result, Tensor};
    /// fn forward(xs: &Tensor) -> Result<Tensor> {
    ///     let mask = xs.ones_like()?; // placer: allow(tensor-on-default-device)
    ///     xs.mul(&mask)
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// use candle_core::{Result, Tensor};
    /// fn forward(xs: &Tensor) -> Result<Tensor> {
    ///     let mask = xs.ones_like()?;
    ///     xs.mul(&mask)
    /// }
    /// ```
    ///
    /// ## Fix
    /// Removing the selector is safe; when no selector is left, `placer: allow(..)` goes, and the
    /// whole comment only if nothing else (another tool's comment, a note) is in it.
    ///
    /// ## References
    /// - [ruff `RUF100`](https://docs.astral.sh/ruff/rules/unused-noqa/)
    pub(crate) struct UnusedSuppression {
        pub(crate) selector: String,
        pub(crate) unknown: bool,
    }
}

impl Violation for UnusedSuppression {
    fn message(&self) -> String {
        if self.unknown {
            format!("suppression names an unknown rule `{}`", self.selector)
        } else {
            format!("suppression of `{}` suppresses nothing", self.selector)
        }
    }

    fn help(&self) -> Option<String> {
        Some(if self.unknown {
            let names = crate::registry::Rule::ALL
                .iter()
                .flat_map(|r| [r.code(), r.name()]);
            match crate::config::nearest(&self.selector, names) {
                Some(near) => format!("did you mean `{near}`?"),
                None => "use a rule code or name from `placer rules`".to_string(),
            }
        } else {
            "remove it".to_string()
        })
    }
}

/// Reported after the other rules, when suppressions are applied (`suppression.rs`).
pub(crate) fn check(_checker: &mut Checker<'_>) {}
