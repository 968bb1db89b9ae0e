use crate::checker::Checker;
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Reports a file that placer cannot analyse because it does not parse (as Rust, or as Python 3)
    /// or is not UTF-8.
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
    }
}

impl Violation for SyntaxError {
    fn message(&self) -> String {
        let mut m = self.message.clone();
        if let Some(first) = m.get(..1) {
            let lower = first.to_lowercase();
            m.replace_range(..1, &lower);
        }
        format!("cannot parse file: {}", m.trim_end_matches('.'))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    // A file that did not parse has no functions: its error is the only finding.
    let Some((span, message)) = checker.file.syntax_error.clone() else {
        return;
    };
    checker.report(&SyntaxError { message }, span);
}
