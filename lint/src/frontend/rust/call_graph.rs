//! The call-graph-only lowering of code that names no tensor API: whole files (they are parsed
//! anyway, for `syntax-error`) and single functions of fully lowered files. Their calls are all
//! that can carry a forward path or a helper's device through them. Walks items like `lower.rs`
//! does, but keeps only calls and returned calls.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use syn::visit::Visit;
use syn::{Expr, Stmt};

use super::lower::{
    call_target, function_meta, impl_context, is_binary_file, is_test_attrs, is_test_path,
};
use crate::ir::{
    CallRef, CallTarget, Device, Event, EventKind, File, FileId, Function, FunctionMeta, Value,
    ValueKind,
};

/// Lowers only the call graph of a file: its functions with their calls and the calls they
/// return. For files the prefilter skips: they are parsed anyway (for `syntax-error`), and their
/// calls are all that can carry a forward path or a helper's device through them. `test_target`:
/// the crate's manifest declares the file as a test, bench or example target.
pub(crate) fn lower_calls_only(
    id: FileId,
    path: &Path,
    source: &Arc<str>,
    test_target: bool,
) -> File {
    let mut file = File::new(id, path, source.clone(), is_binary_file(path, source));
    file.calls_only = true;
    if let Some(error) = super::too_deep(source) {
        file.syntax_error = Some(error);
        return file;
    }
    match syn::parse_file(source) {
        Err(err) => {
            // Reported with its position by the full lowering, which the caller then runs.
            file.syntax_error = Some((0..0, err.to_string()));
        }
        Ok(ast) => {
            let no_aliases = HashMap::new();
            let mut walker = CallGraph {
                path_is_test: test_target || is_test_path(path),
                test_depth: 0,
                impls: Vec::new(),
                stack: vec![Function::default()],
                functions: Vec::new(),
                aliases: &no_aliases,
            };
            walker.stack[0].meta.is_test = walker.path_is_test;
            walker.stack[0].calls_only = true;
            walker.visit_file(&ast);
            walker.functions.extend(walker.stack.pop());
            file.functions = walker.functions;
        }
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    file
}

/// Lowers only the calls of one function of a fully lowered file, for a function that names no
/// tensor API: `meta` is its metadata, `self_type` the type of the impl it is a method of,
/// `in_test` whether it is test code, `aliases` the file's `use .. as ..` renames. Returns the
/// functions nested in it, then itself (the order the full lowering gives).
pub(crate) fn function_calls(
    meta: FunctionMeta,
    self_type: Option<String>,
    in_test: bool,
    aliases: &HashMap<String, String>,
    body: &syn::Block,
) -> Vec<Function> {
    let mut walker = CallGraph {
        path_is_test: in_test,
        test_depth: 0,
        impls: vec![(self_type, None)],
        stack: Vec::new(),
        functions: Vec::new(),
        aliases,
    };
    walker.body(meta, body);
    walker.functions
}

struct CallGraph<'a> {
    path_is_test: bool,
    test_depth: u32,
    impls: Vec<(Option<String>, Option<String>)>,
    stack: Vec<Function>,
    functions: Vec<Function>,
    /// `use a::B as C` renames: `C` -> `B`.
    aliases: &'a HashMap<String, String>,
}

impl CallGraph<'_> {
    fn target(&self, e: &Expr) -> Option<CallTarget> {
        let self_type = || self.impls.last().and_then(|(ty, _)| ty.as_deref());
        match e {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => {
                    let segs: Vec<String> = p
                        .path
                        .segments
                        .iter()
                        .map(|s| {
                            let name = s.ident.to_string();
                            self.aliases.get(&name).cloned().unwrap_or(name)
                        })
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
                arg_origin: None,
                span: 0..0,
            }));
            if let Some(f) = self.stack.last_mut() {
                f.returns.push(v);
            }
        }
    }

    /// A function: its calls, and its returned calls. Methods see their impl's type (the top
    /// of `impls`); the caller hides it for free functions, as `lower.rs` does.
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
        self.body(function_meta(sig, attrs, context, in_test, 0..0), body);
    }

    fn body(&mut self, meta: FunctionMeta, body: &syn::Block) {
        self.stack.push(Function {
            meta,
            calls_only: true,
            ..Function::default()
        });
        self.visit_block(body);
        if let Some(Stmt::Expr(tail, None)) = body.stmts.last() {
            self.returned(tail);
        }
        self.functions.extend(self.stack.pop());
    }
}

impl<'ast> Visit<'ast> for CallGraph<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_test_attrs(&m.attrs) || m.ident == "tests";
        self.test_depth += u32::from(test);
        self.impls.push((None, None));
        syn::visit::visit_item_mod(self, m);
        self.impls.pop();
        self.test_depth -= u32::from(test);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let test = is_test_attrs(&i.attrs);
        self.test_depth += u32::from(test);
        self.impls.push(impl_context(i));
        syn::visit::visit_item_impl(self, i);
        self.impls.pop();
        self.test_depth -= u32::from(test);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A free function (also one nested in a method) is not a method of an enclosing impl.
        self.impls.push((None, None));
        self.function(&f.sig, &f.attrs, false, &f.block);
        self.impls.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.sig, &f.attrs, true, &f.block);
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
                    kind: EventKind::Call {
                        target,
                        args: Vec::new(),
                    },
                    span: 0..0,
                    loop_id: None,
                    in_log: false,
                    in_periodic: false,
                    in_handler: false,
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
