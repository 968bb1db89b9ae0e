use crate::checker::Checker;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Reports a file that placer cannot analyse because it does not parse (as Rust, or as Python 3),
    /// is not UTF-8, or nests more than 1000 levels deep. A file of a Rust 2015 crate (no
    /// `edition` in its `Cargo.toml`, or `edition = "2015"`) that only the 2015 edition accepts
    /// (anonymous trait-method parameters) is reported as a note, not an error: placer reads
    /// Rust 2018 and later.
    ///
    /// ## Why is this bad?
    /// Every other rule skips the file, so the device bugs in it go unreported. The rest of the
    /// run goes on.
    ///
    /// ## Example
    /// ```rust,ignore
    /// fn forward(&self, xs: &Tensor) -> Result<Tensor> {
    ///     xs.matmul(&self.w
    /// }
    /// ```
    ///
    /// ```python
    /// def forward(self, x):
    ///     return self.w @ (x
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// fn forward(&self, xs: &Tensor) -> Result<Tensor> {
    ///     xs.matmul(&self.w)
    /// }
    /// ```
    ///
    /// ```python
    /// def forward(self, x):
    ///     return self.w @ x
    /// ```
    pub(crate) struct SyntaxError {
        message: String,
        unsupported: bool,
    }
}

impl Violation for SyntaxError {
    fn message(&self) -> String {
        let mut m = self.message.clone();
        if let Some(first) = m.get(..1) {
            let lower = first.to_lowercase();
            m.replace_range(..1, &lower);
        }
        if self.unsupported {
            return format!(
                "file not analysed: Rust 2015 code that placer cannot read ({}); placer reads the 2018 edition and later",
                m.trim_end_matches('.')
            );
        }
        format!("cannot parse file: {}", m.trim_end_matches('.'))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    // A file that did not parse has no functions: its error is the only finding.
    let Some((span, message)) = checker.file.syntax_error.clone() else {
        return;
    };
    let unsupported = checker.file.unsupported;
    let d = checker.report(
        &SyntaxError {
            message,
            unsupported,
        },
        span,
    );
    if unsupported {
        d.severity = crate::diagnostic::Severity::Note;
    }
}
