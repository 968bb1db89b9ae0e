//! The call-graph-only lowering of files that name no tensor API: they are parsed anyway (for
//! `syntax-error`), and their calls are all that can carry a forward path or a helper's device
//! through them. Walks items like `lower.rs` does, but keeps only calls and returned calls.

use std::path::Path;
use std::sync::Arc;

use syn::visit::Visit;
use syn::{Expr, Stmt};

use super::lower::{
    call_target, function_meta, impl_context, is_binary_path, is_test_attrs, is_test_path,
};
use crate::ir::{
    CallRef, CallTarget, Device, Event, EventKind, File, FileId, Function, FunctionMeta, Value,
    ValueKind,
};

/// Lowers only the call graph of a file: its functions with their calls and the calls they
/// return. For files the prefilter skips: they are parsed anyway (for `syntax-error`), and their
/// calls are all that can carry a forward path or a helper's device through them.
pub(crate) fn lower_calls_only(id: FileId, path: &Path, source: &Arc<str>) -> File {
    let mut file = File::new(id, path, source.clone(), is_binary_path(path));
    file.calls_only = true;
    match syn::parse_file(source) {
        Err(err) => {
            // Reported with its position by the full lowering, which the caller then runs.
            file.syntax_error = Some((0..0, err.to_string()));
        }
        Ok(ast) => {
            let mut walker = CallGraph {
                path_is_test: is_test_path(path),
                test_depth: 0,
                impls: Vec::new(),
                stack: vec![Function::default()],
                functions: Vec::new(),
            };
            walker.stack[0].meta.is_test = walker.path_is_test;
            walker.visit_file(&ast);
            walker.functions.extend(walker.stack.pop());
            file.functions = walker.functions;
        }
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    file
}

struct CallGraph {
    path_is_test: bool,
    test_depth: u32,
    impls: Vec<(Option<String>, Option<String>)>,
    stack: Vec<Function>,
    functions: Vec<Function>,
}

impl CallGraph {
    fn target(&self, e: &Expr) -> Option<CallTarget> {
        let self_type = || self.impls.last().and_then(|(ty, _)| ty.as_deref());
        match e {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => {
                    let segs: Vec<String> = p
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    call_target(&segs, self_type())
                }
                _ => None,
            },
            Expr::MethodCall(m) => match &*m.receiver {
                Expr::Path(p) if p.path.is_ident("self") => {
                    self_type().map(|ty| CallTarget::Method {
                        self_type: ty.to_string(),
                        name: m.method.to_string(),
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Records a returned call (through `?`, `Ok(..)`, `Some(..)`, parentheses) as a return.
    fn returned(&mut self, e: &Expr) {
        let mut e = e;
        loop {
            match e {
                Expr::Try(t) => e = &t.expr,
                Expr::Paren(p) => e = &p.expr,
                Expr::Call(c)
                    if c.args.len() == 1
                        && matches!(&*c.func, Expr::Path(p)
                            if p.path.is_ident("Ok") || p.path.is_ident("Some")) =>
                {
                    e = &c.args[0];
                }
                _ => break,
            }
        }
        if let Some(target) = self.target(e) {
            let mut v = Value::unknown(0..0);
            v.kind = ValueKind::MaybeTensor;
            v.device = Device::Call(Arc::new(CallRef {
                target,
                arg_device: Device::Unknown,
                span: 0..0,
            }));
            if let Some(f) = self.stack.last_mut() {
                f.returns.push(v);
            }
        }
    }

    fn function(
        &mut self,
        sig: &syn::Signature,
        attrs: &[syn::Attribute],
        in_impl: bool,
        body: &syn::Block,
    ) {
        let context = if in_impl {
            self.impls.last().cloned().unwrap_or((None, None))
        } else {
            (None, None)
        };
        let in_test = self.path_is_test || self.test_depth > 0;
        self.stack.push(Function {
            meta: function_meta(sig, attrs, context, in_test, 0..0),
            ..Function::default()
        });
        self.impls.push((None, None));
        self.visit_block(body);
        self.impls.pop();
        if let Some(Stmt::Expr(tail, None)) = body.stmts.last() {
            self.returned(tail);
        }
        self.functions.extend(self.stack.pop());
    }
}

impl<'ast> Visit<'ast> for CallGraph {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_test_attrs(&m.attrs) || m.ident == "tests";
        self.test_depth += u32::from(test);
        self.impls.push((None, None));
        syn::visit::visit_item_mod(self, m);
        self.impls.pop();
        self.test_depth -= u32::from(test);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.impls.push(impl_context(i));
        syn::visit::visit_item_impl(self, i);
        self.impls.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(&f.sig, &f.attrs, false, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        // The impl's type is on the stack; `function` hides it from nested items.
        let impls = self.impls.clone();
        self.function(&f.sig, &f.attrs, true, &f.block);
        self.impls = impls;
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.function(&f.sig, &f.attrs, false, body);
        }
    }

    fn visit_foreign_item_fn(&mut self, f: &'ast syn::ForeignItemFn) {
        self.functions.push(Function {
            meta: FunctionMeta {
                name: f.sig.ident.to_string(),
                ..FunctionMeta::default()
            },
            ..Function::default()
        });
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Some(target) = self.target(e) {
            if let Some(f) = self.stack.last_mut() {
                f.events.push(Event {
                    kind: EventKind::Call { target },
                    span: 0..0,
                    loop_id: None,
                    in_log: false,
                    in_periodic: false,
                });
            }
        }
        if let Expr::Return(r) = e {
            if let Some(x) = &r.expr {
                self.returned(x);
            }
        }
        syn::visit::visit_expr(self, e);
    }
}
