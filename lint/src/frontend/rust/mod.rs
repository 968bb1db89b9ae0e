//! The Rust frontend: `syn` parsing and lowering, with the API tables it reads.

mod call_graph;
mod depth;
mod lower;
mod spans;
pub(crate) mod tables;

pub(crate) use call_graph::lower_calls_only;
pub(crate) use depth::MAX_NESTING;
pub(crate) use lower::{apply_settings, is_test_path, lower_file};

/// Why a Rust source is too deeply nested to parse (see [`depth`]): the span where the limit
/// is passed and a message, or `None` if it is not.
pub(crate) fn too_deep(source: &str) -> Option<(crate::ir::Span, String)> {
    let at = depth::exceeds(source, MAX_NESTING)?;
    let end = source[at..]
        .chars()
        .next()
        .map_or(at, |c| at + c.len_utf8());
    Some((
        at..end,
        format!(
            "nested more than {MAX_NESTING} levels deep (brackets and chained operators); placer does not analyse files this deep"
        ),
    ))
}
