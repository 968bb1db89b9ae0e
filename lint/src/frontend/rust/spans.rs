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
