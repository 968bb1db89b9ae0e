//! The rule machinery: categories, the `declare_rule!` macro and the [`Violation`] trait.

use crate::diagnostic::Severity;

/// A rule's category, as in clippy: decides whether it is on by default and its severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Code that fails or measures wrong on an accelerator. On, error.
    Correctness,
    /// Code that is probably wrong. On, warning.
    Suspicious,
    /// Code that runs, but slower than it should (host round trips, syncs). On, warning.
    Perf,
    /// Code that works but is written in a way that hurts portability. On, warning.
    Style,
    /// Stricter checks with more false positives. Off.
    Pedantic,
    /// New rules still being tuned. Off.
    Nursery,
}

impl Category {
    /// The category's name as users write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Correctness => "correctness",
            Category::Suspicious => "suspicious",
            Category::Perf => "perf",
            Category::Style => "style",
            Category::Pedantic => "pedantic",
            Category::Nursery => "nursery",
        }
    }

    /// Whether rules of this category run without being selected.
    pub fn is_default_on(self) -> bool {
        !matches!(self, Category::Pedantic | Category::Nursery)
    }

    /// The severity of its findings.
    pub fn severity(self) -> Severity {
        match self {
            Category::Correctness => Severity::Error,
            _ => Severity::Warning,
        }
    }
}

/// A rule's finding, before it is placed in a file.
pub(crate) trait Violation {
    /// What is wrong: lowercase, no trailing period, code in backticks.
    fn message(&self) -> String;
    /// What to do, in the imperative.
    fn help(&self) -> Option<String> {
        None
    }
}

/// Declares a rule's violation struct and keeps its doc comment as `EXPLANATION` (clippy's
/// technique: the doc lines are `concat!`ed, no proc macro needed).
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])+ $vis:vis struct $name:ident $body:tt) => {
        $(#[doc = $doc])+
        $vis struct $name $body

        impl $name {
            /// The rule's documentation, as written above its violation struct.
            pub(crate) const EXPLANATION: &'static str = concat!($($doc, "\n"),+);
        }
    };
}
pub(crate) use declare_rule;
