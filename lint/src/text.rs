//! Substring searches over whole sources and classes, in one pass.
//!
//! The frontends and a few rules ask whether a file or a class mentions any of a handful of
//! words (`register_buffer`, `autocast`, `__main__`, ..). Asked with one `str::contains` per
//! word with `str::contains`, those reads were about a tenth of the analysis of a large tree.
//! [`AnyOf`] keeps one `memchr::memmem` searcher per word (SIMD, keyed on the word's rarest
//! bytes), built once. (An aho-corasick automaton over all the words, one pass, was slower: its
//! prefilter keys on the words' first bytes, `if ` and `reg`, which Python source is full of.)

use std::sync::OnceLock;

use memchr::memmem::Finder;

/// A fixed set of words searched for together, the searchers built on first use.
pub(crate) struct AnyOf {
    words: &'static [&'static str],
    finders: OnceLock<Vec<Finder<'static>>>,
}

impl AnyOf {
    /// The set of `words` (none empty).
    pub(crate) const fn new(words: &'static [&'static str]) -> Self {
        Self {
            words,
            finders: OnceLock::new(),
        }
    }

    /// Whether `text` contains any of the words.
    pub(crate) fn in_text(&self, text: &str) -> bool {
        self.finders
            .get_or_init(|| self.words.iter().map(Finder::new).collect())
            .iter()
            .any(|f| f.find(text.as_bytes()).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::AnyOf;

    static WORDS: AnyOf = AnyOf::new(&["register_buffer", "Parameter(", "fp16"]);

    #[test]
    fn finds_any_word_anywhere() {
        assert!(WORDS.in_text("self.register_buffer('x', t)"));
        assert!(WORDS.in_text("w = nn.Parameter(torch.ones(3))"));
        assert!(WORDS.in_text("if args.fp16:"));
        assert!(!WORDS.in_text("self.x = torch.ones(3)"));
        assert!(!WORDS.in_text(""));
    }
}
