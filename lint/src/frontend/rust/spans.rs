//! Cheap spans of expressions: the first and the last token of a node, found by descending into
//! it, instead of `syn::spanned::Spanned`, which prints the whole subtree to tokens on every call.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Member, UnOp};

/// The span of the first token of `e`.
pub(crate) fn first(e: &Expr) -> Span {
    match e {
        Expr::Array(x) => x.bracket_token.span.open(),
        Expr::Repeat(x) => x.bracket_token.span.open(),
        Expr::Tuple(x) => x.paren_token.span.open(),
        Expr::Paren(x) => x.paren_token.span.open(),
        Expr::Assign(x) => first(&x.left),
        Expr::Binary(x) => first(&x.left),
        Expr::Await(x) => first(&x.base),
        Expr::Call(x) => first(&x.func),
        Expr::Cast(x) => first(&x.expr),
        Expr::Field(x) => first(&x.base),
        Expr::Group(x) => first(&x.expr),
        Expr::Index(x) => first(&x.expr),
        Expr::MethodCall(x) => first(&x.receiver),
        Expr::Try(x) => first(&x.expr),
        Expr::Range(x) => x.start.as_deref().map_or_else(|| x.limits.span(), first),
        Expr::Reference(x) => x.and_token.span,
        Expr::Unary(x) => match &x.op {
            UnOp::Deref(t) => t.span,
            UnOp::Not(t) => t.span,
            UnOp::Neg(t) => t.span,
            _ => e.span(),
        },
        Expr::Lit(x) => x.lit.span(),
        Expr::Path(x) if x.qself.is_none() && x.attrs.is_empty() => path_first(&x.path),
        Expr::Macro(x) if x.attrs.is_empty() => path_first(&x.mac.path),
        Expr::Block(x) if x.label.is_none() && x.attrs.is_empty() => {
            x.block.brace_token.span.open()
        }
        Expr::If(x) => x.if_token.span,
        Expr::Match(x) => x.match_token.span,
        Expr::Let(x) => x.let_token.span,
        Expr::Return(x) => x.return_token.span,
        Expr::Break(x) => x.break_token.span,
        Expr::Continue(x) => x.continue_token.span,
        Expr::Unsafe(x) => x.unsafe_token.span,
        Expr::ForLoop(x) if x.label.is_none() => x.for_token.span,
        Expr::While(x) if x.label.is_none() => x.while_token.span,
        Expr::Loop(x) if x.label.is_none() => x.loop_token.span,
        Expr::Struct(x) if x.qself.is_none() => path_first(&x.path),
        _ => e.span(),
    }
}

/// The span of the last token of `e`.
pub(crate) fn last(e: &Expr) -> Span {
    match e {
        Expr::Array(x) => x.bracket_token.span.close(),
        Expr::Repeat(x) => x.bracket_token.span.close(),
        Expr::Tuple(x) => x.paren_token.span.close(),
        Expr::Paren(x) => x.paren_token.span.close(),
        Expr::Call(x) => x.paren_token.span.close(),
        Expr::MethodCall(x) => x.paren_token.span.close(),
        Expr::Index(x) => x.bracket_token.span.close(),
        Expr::Assign(x) => last(&x.right),
        Expr::Binary(x) => last(&x.right),
        Expr::Unary(x) => last(&x.expr),
        Expr::Reference(x) => last(&x.expr),
        Expr::Let(x) => last(&x.expr),
        Expr::Closure(x) => last(&x.body),
        Expr::Group(x) => last(&x.expr),
        Expr::Await(x) => x.await_token.span,
        Expr::Try(x) => x.question_token.span,
        Expr::Cast(x) => x.ty.span(),
        Expr::Field(x) => match &x.member {
            Member::Named(i) => i.span(),
            Member::Unnamed(i) => i.span,
        },
        Expr::Lit(x) => x.lit.span(),
        Expr::Path(x) => path_last(&x.path).unwrap_or_else(|| e.span()),
        Expr::Macro(x) => x.mac.delimiter.span().close(),
        Expr::Block(x) => x.block.brace_token.span.close(),
        Expr::Unsafe(x) => x.block.brace_token.span.close(),
        Expr::Const(x) => x.block.brace_token.span.close(),
        Expr::Async(x) => x.block.brace_token.span.close(),
        Expr::TryBlock(x) => x.block.brace_token.span.close(),
        Expr::Loop(x) => x.body.brace_token.span.close(),
        Expr::While(x) => x.body.brace_token.span.close(),
        Expr::ForLoop(x) => x.body.brace_token.span.close(),
        Expr::Match(x) => x.brace_token.span.close(),
        Expr::Struct(x) => x.brace_token.span.close(),
        Expr::If(x) => match &x.else_branch {
            Some((_, e)) => last(e),
            None => x.then_branch.brace_token.span.close(),
        },
        Expr::Range(x) => x.end.as_deref().map_or_else(|| x.limits.span(), last),
        Expr::Return(x) => x.expr.as_deref().map_or(x.return_token.span, last),
        Expr::Break(x) => x.expr.as_deref().map_or(x.break_token.span, last),
        _ => e.span(),
    }
}

fn path_first(path: &syn::Path) -> Span {
    match (&path.leading_colon, path.segments.first()) {
        (Some(c), _) => c.spans[0],
        (None, Some(seg)) => seg.ident.span(),
        (None, None) => Span::call_site(),
    }
}

fn path_last(path: &syn::Path) -> Option<Span> {
    let seg = path.segments.last()?;
    Some(match &seg.arguments {
        syn::PathArguments::None => seg.ident.span(),
        syn::PathArguments::AngleBracketed(a) => a.gt_token.span,
        syn::PathArguments::Parenthesized(_) => return None,
    })
}

/// An identifier's text with `r#` stripped, kept inline when short (nearly all are).
///
/// Read through the identifier's `Display`: no allocation, and no source-map lookup, which
/// reading the text out of the source by position would need (`Span::start` borrows
/// proc-macro2's thread-local source map and binary-searches it twice).
pub(crate) struct Name {
    len: u8,
    buf: [u8; Name::INLINE],
    heap: Option<String>,
}

impl Name {
    const INLINE: usize = 38;

    /// The text of `ident`, `r#` stripped.
    pub(crate) fn of(ident: &proc_macro2::Ident) -> Self {
        use std::fmt::Write as _;
        let mut name = Name::from("");
        // Writing into a `Name` cannot fail: text that does not fit inline moves to the heap.
        let _ = write!(name, "{ident}");
        if name.starts_with("r#") {
            let text = name[2..].to_string();
            name = Name::from(text.as_str());
        }
        name
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Self {
        let mut name = Name {
            len: 0,
            buf: [0; Name::INLINE],
            heap: None,
        };
        if text.len() <= Name::INLINE {
            name.buf[..text.len()].copy_from_slice(text.as_bytes());
            name.len = u8::try_from(text.len()).unwrap_or(0);
        } else {
            name.heap = Some(text.to_string());
        }
        name
    }
}

impl std::fmt::Write for Name {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if let Some(heap) = &mut self.heap {
            heap.push_str(s);
            return Ok(());
        }
        let len = usize::from(self.len);
        if len + s.len() <= Name::INLINE {
            self.buf[len..len + s.len()].copy_from_slice(s.as_bytes());
            self.len = u8::try_from(len + s.len()).unwrap_or(0);
        } else {
            let mut heap = String::with_capacity(len + s.len());
            heap.push_str(self);
            heap.push_str(s);
            self.heap = Some(heap);
        }
        Ok(())
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.heap {
            Some(heap) => heap,
            // Only whole `&str`s are copied in, so the bytes are UTF-8.
            None => std::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or(""),
        }
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn name_strips_raw_prefix_and_spills_long_identifiers_to_the_heap() {
        let ident = |s: &str| proc_macro2::Ident::new(s, proc_macro2::Span::call_site());
        assert_eq!(&*Name::of(&ident("xs")), "xs");
        assert_eq!(
            &*Name::of(&proc_macro2::Ident::new_raw(
                "type",
                proc_macro2::Span::call_site()
            )),
            "type"
        );
        let long = "a_very_long_identifier_name_that_does_not_fit_inline_at_all";
        assert_eq!(&*Name::of(&ident(long)), long);
        assert_eq!(&*Name::of(&ident("é_unicode")), "é_unicode");
    }
}
