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

/// The lines of `text` that contain `needle` (which holds no line break), each once, in order,
/// cut as [`str::lines`] cuts them (without the `\n` or `\r\n` that ends them).
///
/// The same as `text.lines().filter(|l| l.contains(needle))`, but the search is one vectorised
/// pass over the text: a line without the needle is never split off.
pub(crate) fn lines_containing<'t>(
    text: &'t str,
    needle: &'t str,
) -> impl Iterator<Item = &'t str> {
    debug_assert!(!needle.is_empty() && !needle.contains('\n'));
    let bytes = text.as_bytes();
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut from = 0;
    std::iter::from_fn(move || {
        let hit = from + finder.find(&bytes[from..])?;
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
        let (end, next) = match memchr::memchr(b'\n', &bytes[hit..]) {
            Some(i) => {
                let nl = hit + i;
                // (`lines` drops a `\r` only before a `\n`.)
                let end = if nl > start && bytes[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                (end, nl + 1)
            }
            None => (bytes.len(), bytes.len()),
        };
        from = next;
        Some(&text[start..end])
    })
}

#[cfg(test)]
mod tests {
    use super::{lines_containing, AnyOf};

    #[test]
    fn lines_containing_cuts_lines_as_lines_does() {
        let texts = [
            "",
            "def f():\n  pass\ndef g(): def h\r\nx\rdef \n\ndef",
            "a def \r\n\r\ndef x\r",
            "def \ndef \n",
            "\r\ndef ",
            "no match\nat all",
        ];
        for text in texts {
            let want: Vec<&str> = text.lines().filter(|l| l.contains("def ")).collect();
            let got: Vec<&str> = lines_containing(text, "def ").collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

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
