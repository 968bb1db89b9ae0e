//! A cheap upper bound of how deeply a Rust file nests, checked before `syn` parses it.
//!
//! `syn` parses recursively, and the lowering and the syntax tree's destructor recurse once per
//! level of the tree: 5 000 nested parentheses, or a 5 000-term sum (a left-nested tree of 5 000
//! binary expressions), would overflow any fixed stack and abort the whole run. Files are parsed
//! on threads with a large stack (see `crate::stack`), and a file whose estimate exceeds
//! [`MAX_NESTING`] is not parsed at all: it gets a `syntax-error` finding saying so, and the run
//! goes on.
//!
//! The estimate walks the bytes once, skipping comments, string and character literals. It
//! counts, at every point, the open brackets (`(`, `[`, `{`, and `<` as in `Vec<Vec<T>>`) plus
//! the operators and chaining keywords (`+`, `.`, `?`, `!`, `=`, `else`, `as`, `return`, ...)
//! seen since the last `,` or `;` at each enclosing level: an estimate of the syntax tree's
//! depth there. Ranges and `|` are not counted (the alternatives of a pattern are flat, and a
//! generated table can have thousands); chains the estimate misses are left to the large stack,
//! which holds tens of thousands of levels.

/// How deep a Rust file may nest (brackets, plus operators and `else`s chained in one
/// expression) before placer declines to parse it.
pub(crate) const MAX_NESTING: usize = 1000;

/// One open bracket (or `<`) and the chaining tokens seen at its level since the last separator.
#[derive(Clone, Copy)]
struct Level {
    angle: bool,
    ops: usize,
}

/// The byte offset at which `source`'s estimated nesting first exceeds `limit`, if it does.
pub(crate) fn exceeds(source: &str, limit: usize) -> Option<usize> {
    let b = source.as_bytes();
    let mut stack = vec![Level {
        angle: false,
        ops: 0,
    }];
    // Open levels plus the chaining tokens counted in them.
    let mut depth = 0usize;
    let mut i = 0;
    let bump = |stack: &mut Vec<Level>, depth: &mut usize, n: usize| {
        if let Some(top) = stack.last_mut() {
            top.ops += n;
        }
        *depth += n;
    };
    let reset = |stack: &mut Vec<Level>, depth: &mut usize| {
        if let Some(top) = stack.last_mut() {
            *depth -= top.ops;
            top.ops = 0;
        }
    };
    // Pops levels down to (and including) the innermost bracket level.
    let close = |stack: &mut Vec<Level>, depth: &mut usize| {
        while stack.len() > 1 {
            let top = stack.pop().expect("len > 1");
            *depth -= top.ops + 1;
            if !top.angle {
                break;
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = skip_block_comment(b, i);
                continue;
            }
            b'"' => {
                i = skip_string(b, i + 1);
                continue;
            }
            b'\'' => {
                i = skip_quote(source, i);
                continue;
            }
            b'r' | b'b' | b'c' if starts_literal(b, i) => {
                i = skip_prefixed_literal(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => {
                stack.push(Level {
                    angle: false,
                    ops: 0,
                });
                depth += 1;
            }
            b')' | b']' => close(&mut stack, &mut depth),
            b'}' => {
                close(&mut stack, &mut depth);
                // A block ends a statement or an item, unless a chain goes on after it
                // (`} else if`, `}.method()`, `}?`).
                let next = next_token(b, i + 1);
                let chained = b[next..].starts_with(b"else")
                    || matches!(b.get(next), Some(b'.' | b'?' | b'+' | b'*' | b'-' | b'/'));
                if !chained {
                    reset(&mut stack, &mut depth);
                }
            }
            b'<' => {
                if b.get(i + 1) == Some(&b'=') {
                    bump(&mut stack, &mut depth, 1);
                    i += 1;
                } else {
                    stack.push(Level {
                        angle: true,
                        ops: 0,
                    });
                    depth += 1;
                }
            }
            b'>' => {
                // `->` and `=>` close nothing; `>` closes a `<` level if one is open here.
                let arrow = i > 0 && matches!(b[i - 1], b'-' | b'=');
                if !arrow && stack.last().is_some_and(|l| l.angle) {
                    let top = stack.pop().expect("angle level");
                    depth -= top.ops + 1;
                } else {
                    bump(&mut stack, &mut depth, 1);
                }
            }
            b',' => reset(&mut stack, &mut depth),
            b';' => {
                // A statement ends: `<` levels opened by comparisons end with it.
                while stack.len() > 1 && stack.last().is_some_and(|l| l.angle) {
                    let top = stack.pop().expect("angle level");
                    depth -= top.ops + 1;
                }
                reset(&mut stack, &mut depth);
            }
            // A range (`..`, `..=`, `...`) does not chain, and `|` mostly separates the flat
            // alternatives of a pattern (`'a'..='z' | '0'..='9' | ...` in generated tables):
            // neither nests.
            b'.' if b.get(i + 1) == Some(&b'.') => {
                i += 2;
                if matches!(b.get(i), Some(b'=' | b'.')) {
                    i += 1;
                }
                continue;
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'!' | b'&' | b'=' | b'.' | b'?' | b'@' => {
                bump(&mut stack, &mut depth, 1);
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                if matches!(
                    &b[start..i],
                    b"else" | b"as" | b"return" | b"break" | b"yield" | b"move" | b"box" | b"dyn"
                ) {
                    bump(&mut stack, &mut depth, 1);
                }
                if depth > limit {
                    return Some(start);
                }
                continue;
            }
            _ => {}
        }
        if depth > limit {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The offset of the next non-whitespace byte at or after `i`.
fn next_token(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Past a (nested) block comment starting at `i`.
fn skip_block_comment(b: &[u8], mut i: usize) -> usize {
    let mut level = 0usize;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            level += 1;
            i += 2;
        } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
            level -= 1;
            i += 2;
            if level == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// Past the closing quote of a string whose body starts at `i`.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Past a character literal (`'a'`, `'\n'`, `'é'`) or a lifetime's quote (`'a`) at `i`.
fn skip_quote(source: &str, i: usize) -> usize {
    let b = source.as_bytes();
    if b.get(i + 1) == Some(&b'\\') {
        // An escape (`'\n'`, `'\''`): the literal ends at the next quote after the escaped
        // character.
        let from = (i + 3).min(b.len());
        return memchr::memchr(b'\'', &b[from..]).map_or(b.len(), |n| from + n + 1);
    }
    let Some(ch) = source.get(i + 1..).and_then(|s| s.chars().next()) else {
        return i + 1;
    };
    let after = i + 1 + ch.len_utf8();
    if b.get(after) == Some(&b'\'') {
        after + 1
    } else {
        // A lifetime or label: its name is an identifier, skipped by the caller.
        i + 1
    }
}

/// Whether a raw, byte or C string literal starts at `i` (`r"`, `r#"`, `b"`, `br"`, `b'`, `c"`,
/// `cr#"`), not an identifier.
fn starts_literal(b: &[u8], i: usize) -> bool {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return false;
    }
    let mut j = i + 1;
    if matches!(b[i], b'b' | b'c') && b.get(j) == Some(&b'r') {
        j += 1;
    }
    if b[i] == b'b' && b.get(j) == Some(&b'\'') {
        return true;
    }
    let raw = b[i] == b'r' || j > i + 1;
    while raw && b.get(j) == Some(&b'#') {
        j += 1;
    }
    b.get(j) == Some(&b'"')
}

/// Past a literal that [`starts_literal`] found at `i`.
fn skip_prefixed_literal(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if b.get(j) == Some(&b'r') {
        j += 1;
    }
    if b.get(j) == Some(&b'\'') {
        // A byte literal: `b'x'`, `b'\''`.
        let mut k = j + 1;
        if b.get(k) == Some(&b'\\') {
            k += 2;
        } else {
            k += 1;
        }
        return memchr::memchr(b'\'', b.get(k..).unwrap_or_default())
            .map_or(b.len(), |n| k + n + 1);
    }
    let raw = b[i] == b'r' || j > i + 1;
    if !raw {
        return skip_string(b, j + 1);
    }
    let mut hashes = 0;
    while b.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    // `j` is at the opening quote; the literal ends at `"` followed by as many `#`.
    let mut k = j + 1;
    while let Some(n) = memchr::memchr(b'"', b.get(k..).unwrap_or_default()) {
        let end = k + n + 1;
        if b.get(end..end + hashes)
            .is_some_and(|h| h.iter().all(|&c| c == b'#'))
        {
            return end + hashes;
        }
        k = end;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_of(src: &str) -> usize {
        (0..=MAX_NESTING * 10)
            .find(|&l| exceeds(src, l).is_none())
            .unwrap_or(usize::MAX)
    }

    #[test]
    fn should_flag_deep_parentheses_and_long_sums_but_not_ordinary_code() {
        let parens = format!(
            "fn f() {{ let x = {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert!(exceeds(&parens, MAX_NESTING).is_some());
        let terms = vec!["t"; 5000].join(" + ");
        let sum = format!("fn f(t: u8) {{ let x = {terms}; }}");
        assert!(exceeds(&sum, MAX_NESTING).is_some());
        let else_ifs = format!(
            "fn f(x: u8) {{ if x == 0 {{}}{} }}",
            " else if x == 1 {}".repeat(2000)
        );
        assert!(exceeds(&else_ifs, MAX_NESTING).is_some());
        let generics = format!("type T = {}u8{};", "Vec<".repeat(2000), ">".repeat(2000));
        assert!(exceeds(&generics, MAX_NESTING).is_some());
        // Many statements, items and arguments side by side are not deep.
        let wide = "fn g(a: &u8) -> Option<Vec<u8>> { let y = a.b().c()?; y + 1; }\n".repeat(5000);
        assert_eq!(exceeds(&wide, MAX_NESTING), None);
        let list = format!(
            "const A: [f32; 5000] = [{}];",
            vec!["1.0 + 2.0"; 5000].join(", ")
        );
        assert_eq!(exceeds(&list, MAX_NESTING), None);
        let ranges = vec!["'\\u{2DE0}'..='\\u{2E5D}'"; 5000].join("\n | ");
        let table =
            format!("fn is_x(c: char) -> bool {{ match c {{ {ranges} => true, _ => false }} }}");
        assert_eq!(exceeds(&table, MAX_NESTING), None);
    }

    #[test]
    fn should_skip_brackets_in_strings_comments_and_char_literals() {
        let src = format!(
            "// {c}\n/* {c} /* nested */ {c} */\nconst S: &str = \"{c}\\\"{c}\";\nconst R: &str = r#\"{c}\"{c}\"#;\nconst C: char = '(';\nconst B: u8 = b'(';\nfn f<'a>(x: &'a u8) {{}}\n",
            c = "(".repeat(3000)
        );
        assert_eq!(exceeds(&src, MAX_NESTING), None);
        assert!(depth_of(&src) < 10, "{}", depth_of(&src));
    }

    #[test]
    fn should_point_at_where_the_limit_is_passed() {
        let src = format!("fn f() {{ {} }}", "(".repeat(20));
        assert_eq!(exceeds(&src, 10), Some(9 + 9));
    }
}
