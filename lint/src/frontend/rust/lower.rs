//! Lowers one Rust file into the placement IR in a single walk.
//!
//! Items (modules, impls, functions) are walked with `syn::visit`; inside a function body the
//! walk is an abstract evaluation: every expression is visited once and yields a [`Value`] (kind,
//! device, where the device came from), and the placement-relevant ones emit [`Event`]s.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use proc_macro2::Span as PmSpan;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt, Token};

use super::spans::Name;
use super::tables as t;
use crate::frontend::eval::{model_state, reads_of, tensor, Val};
use crate::ir::{
    Arg, Binding, BindingId, CallRef, CallTarget, Device, Event, EventKind, FieldRef, File, FileId,
    Function, FunctionMeta, Loop, LoopId, Origin, Param, Reads, Span, Value, ValueKind,
};
use crate::settings::Settings;

/// Lowers `source` (the contents of `path`) into a [`File`].
///
/// Test modules (`#[cfg(test)]`, `mod tests`) are not walked unless `settings.include_tests`: no
/// code outside them can call into them, and their findings are not reported. The settings'
/// `test-paths`, `forward-methods` and `extra-factories` apply. `test_target`: the crate's manifest
/// declares the file as a test, bench or example target (all of it is test code). With
/// `skip_unanchored` (the prefilter, per function), a function that names no tensor API has only
/// its calls lowered.
pub(crate) fn lower_file(
    id: FileId,
    path: &Path,
    source: &Arc<str>,
    settings: &Settings,
    test_target: bool,
    skip_unanchored: bool,
) -> File {
    let path_is_test = test_target || is_test_path(path) || settings.is_test_path(path);
    let is_binary = is_binary_file(path, source);
    let mut file = File::new(id, path, source.clone(), is_binary);
    if let Some(error) = super::too_deep(source) {
        file.syntax_error = Some(error);
        return file;
    }
    // Strip what `syn::parse_file` strips (a BOM, a shebang line), remembering the offset.
    let mut base = 0;
    if source.starts_with('\u{feff}') {
        base = '\u{feff}'.len_utf8();
    }
    let rest = &source[base..];
    if rest.starts_with("#!") && !rest[2..].trim_start().starts_with('[') {
        base += rest.find('\n').unwrap_or(rest.len());
    }
    let new_lowerer = || {
        let mut lowerer = Lowerer::new(id, base, source, path_is_test);
        lowerer.skip_test_modules = !settings.include_tests;
        lowerer.extra_factories = &settings.extra_factories;
        lowerer.skip_unanchored = skip_unanchored;
        lowerer.is_binary = is_binary;
        lowerer.begin_function(FunctionMeta {
            is_test: path_is_test,
            ..FunctionMeta::default()
        });
        lowerer
    };
    // Item by item, as `syn::File` parses: each item is lowered while its syntax tree is still in
    // the cache, then dropped. `use` renames apply to the whole file, so a file that has one after
    // code (rare) is lowered again with every `use` collected first.
    let mut lowerer = new_lowerer();
    let streamed = (|input: ParseStream<'_>| -> syn::Result<bool> {
        for attr in input.call(syn::Attribute::parse_inner)? {
            lowerer.visit_attribute(&attr);
        }
        let (mut code_seen, mut late_use) = (false, false);
        while !input.is_empty() {
            let item: syn::Item = input.parse()?;
            let uses = lowerer.uses_version;
            lowerer.collect_uses(std::slice::from_ref(&item), true);
            late_use |= code_seen && lowerer.uses_version != uses;
            code_seen |= !matches!(item, syn::Item::Use(_) | syn::Item::ExternCrate(_));
            lowerer.visit_item(&item);
        }
        Ok(late_use)
    })
    .parse_str(&source[base..]);
    match streamed {
        Err(err) => {
            let range = err.span().byte_range();
            let start = (range.start + base).min(source.len());
            let end = (range.end + base).clamp(start, source.len());
            file.syntax_error = Some((start..end, err.to_string()));
        }
        Ok(late_use) => {
            if late_use {
                if let Ok(ast) = syn::parse_str::<syn::File>(&source[base..]) {
                    lowerer = new_lowerer();
                    lowerer.collect_uses(&ast.items, true);
                    lowerer.visit_file(&ast);
                }
            }
            lowerer.end_function();
            file.functions = lowerer.functions;
            file.dead_code = lowerer.dead_code;
            apply_settings(&mut file, settings);
        }
    }
    // Spans are plain byte ranges now: free proc-macro2's per-thread source map.
    proc_macro2::extra::invalidate_current_thread_spans();
    file
}

/// Applies the settings to a lowered file's functions: with `include_tests`, test code is
/// analysed as any other code (a `forward` in a test module starts a forward path); functions
/// named in `forward-methods` are forward entries.
pub(crate) fn apply_settings(file: &mut File, settings: &Settings) {
    if settings.include_tests {
        for f in &mut file.functions {
            if f.meta.is_test {
                f.meta.is_test = false;
                let in_module_trait = f
                    .meta
                    .trait_name
                    .as_deref()
                    .is_some_and(|tr| t::MODULE_TRAITS.contains(&tr));
                f.meta.is_forward_entry = t::is_forward_name(&f.meta.name) || in_module_trait;
            }
        }
    }
    if settings.forward_methods.is_empty() {
        return;
    }
    for f in &mut file.functions {
        if !f.meta.is_test && settings.is_forward_method(&f.meta.name) {
            f.meta.is_forward_entry = true;
        }
    }
}

/// Whether a file is a binary's entry or an example: by its path (`main.rs`, `build.rs`,
/// `bin/`, `examples/`), or, for a `[[bin]]` target at another path (`src/bin.rs`), by a
/// top-level `fn main` (at the start of a line: not in a module, a doc comment or a string).
pub(super) fn is_binary_file(path: &Path, source: &str) -> bool {
    // `contains` (a vectorised search) first: most files have no `fn main(` at all, and this
    // runs on every file.
    is_binary_path(path)
        || source.contains("fn main(")
            && source.lines().any(|l| {
                let l = l.strip_prefix("pub ").unwrap_or(l);
                let l = l.strip_prefix("async ").unwrap_or(l);
                l.starts_with("fn main(")
            })
}

fn is_binary_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "main.rs"
        || name == "build.rs"
        || path
            .components()
            .any(|c| matches!(c.as_os_str().to_str(), Some("bin" | "examples" | "example")))
}

/// Whether every function in the file is test code: a test, bench or example target, or a file
/// named like a test module.
pub(crate) fn is_test_path(path: &Path) -> bool {
    let name = path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests"
        || name == "test"
        || name.starts_with("test_")
        || name.ends_with("_test")
        || name.ends_with("_tests")
        || path.components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some("tests" | "benches" | "examples" | "example")
            )
        })
}

/// The state of the function being lowered.
// Independent facts about the function, each read in a different place: not a state machine.
#[allow(clippy::struct_excessive_bools)]
struct FnState {
    func: Function,
    /// The bindings in scope, innermost last; a scope is a suffix starting at a `scope_starts`
    /// entry. Functions have a few dozen bindings: a reverse scan beats hashing.
    in_scope: Vec<BindingId>,
    scope_starts: Vec<usize>,
    env: Vec<Value>,
    loop_stack: Vec<LoopId>,
    log_depth: u32,
    periodic_depth: u32,
    /// Inside a `match` arm for a bare backend name (`"cuda"`, `"Metal"`: a device parser):
    /// ordinal 0 there spells that backend's default device, not a choice of GPU.
    bare_backend_depth: u32,
    timer_live: bool,
    /// Parameters of a primitive number type (`gamma: f64`).
    number_params: Vec<String>,
    /// Parameters whose type is a struct of the file seen so far, or a trait of it with methods
    /// that return host data (`guider: &Guider`, `b: &mut dyn TextDecoder`), by binding: their
    /// method calls resolve to the tree.
    param_types: Vec<(BindingId, String)>,
    /// How many `break`/`return` expressions have been evaluated so far.
    exits: u32,
    /// The function handles device-generic data (it has a `self` receiver or a tensor
    /// parameter) and is library code: a new CUDA device chosen here is not the data's.
    generic_scope: bool,
    /// The function is a constructor of its impl's type (it returns `Self`).
    constructor: bool,
    /// The function returns a tuple of tensors and other data that is no host scalar
    /// (`(Tensor, Vec<String>)`): the tensors it returns are what it returns, device-wise.
    tuple_return: bool,
    /// Bindings whose host data built a tensor inside a loop (`Tensor::new(tokens.as_slice(),
    /// dev)`), with that loop: a host read fed back into one of them is that loop's next input.
    uploads: crate::frontend::Uploads,
}

// Independent facts about the file and the walk, each read in a different place: not a state
// machine.
#[allow(clippy::struct_excessive_bools)]
struct Lowerer<'a> {
    file: FileId,
    src: &'a str,
    /// Byte offset of each line of the parsed text (in `src`) and whether the line is ASCII.
    lines: Vec<(usize, bool)>,
    path_is_test: bool,
    /// Private functions marked `#[allow(dead_code)]` (see [`crate::ir::File::dead_code`]).
    dead_code: Vec<Span>,
    /// A binary's entry or an example (`main.rs`, `bin/`, `examples/`): it chooses the device.
    is_binary: bool,
    /// `use a::B as C` renames: `C` -> `B`.
    aliases: HashMap<String, String>,
    /// What `Default::default()` means in a device position.
    default_device: Option<Device>,
    /// Type aliases of the file that name a backend computing on the host (`type B =
    /// Autodiff<NdArray<f32>>`): a tensor or device of such a backend is on the host.
    host_backends: HashSet<String>,
    /// Type aliases of the file for anything else.
    other_aliases: HashSet<String>,
    /// The type parameters of the impl blocks being walked (`impl<B: Backend>`).
    impl_generics: Vec<Vec<String>>,
    /// Bumped whenever a `use` changes `aliases` or `default_device`.
    uses_version: u32,
    functions: Vec<Function>,
    stack: Vec<FnState>,
    /// `(self type, trait)` of the impl blocks being walked.
    impls: Vec<(Option<String>, Option<String>)>,
    /// The structs of the file: their names, and each named field's type when it is one of
    /// them (through `Option`, `Box`, `Arc`, `Rc`), so that `self.encoder.forward(..)` is a call
    /// of `Encoder::forward`.
    structs: HashSet<String>,
    field_types: HashMap<(String, String), String>,
    /// The trait being walked, and the methods of the file's traits that are declared to return
    /// host data (`fn forward(&mut self, ..) -> Vec<f32>`), by `(trait, method)`.
    current_trait: Option<String>,
    host_trait_methods: HashSet<(String, String)>,
    test_depth: u32,
    /// Do not walk test modules at all.
    skip_test_modules: bool,
    /// The user's own factories (config `extra-factories`).
    extra_factories: &'a [String],
    /// Lower only the calls of functions that name no tensor API (see `lower_fn`).
    skip_unanchored: bool,
}

impl<'a> Lowerer<'a> {
    fn new(file: FileId, base: usize, src: &'a str, path_is_test: bool) -> Self {
        // One vectorised scan for the newlines; an all-ASCII file (most) needs no per-line check.
        let text = &src.as_bytes()[base..];
        let all_ascii = text.is_ascii();
        let mut lines = Vec::with_capacity(text.len() / 32);
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', text)
            .map(|i| i + 1)
            .chain([text.len()])
        {
            if end > start {
                lines.push((base + start, all_ascii || text[start..end].is_ascii()));
            }
            start = end;
        }
        Lowerer {
            file,
            src,
            lines,
            path_is_test,
            dead_code: Vec::new(),
            is_binary: false,
            aliases: HashMap::new(),
            default_device: None,
            host_backends: HashSet::new(),
            other_aliases: HashSet::new(),
            impl_generics: Vec::new(),
            uses_version: 0,
            functions: Vec::new(),
            stack: Vec::new(),
            impls: Vec::new(),
            structs: HashSet::default(),
            current_trait: None,
            host_trait_methods: HashSet::default(),
            field_types: HashMap::default(),
            test_depth: 0,
            skip_test_modules: false,
            extra_factories: &[],
            skip_unanchored: false,
        }
    }

    // ---------------------------------------------------------------- spans, text, aliases

    fn span(&self, node: &impl Spanned) -> Span {
        self.pm_span(node.span())
    }

    /// The span of a pattern; a binding (`x`, `mut x`, `ref x`) without printing it to tokens.
    fn pat_span(&self, pat: &Pat) -> Span {
        match pat {
            Pat::Ident(p) if p.subpat.is_none() && p.attrs.is_empty() => {
                let ident = self.ident_range(&p.ident);
                let first = p
                    .by_ref
                    .as_ref()
                    .map(|t| t.span)
                    .or(p.mutability.as_ref().map(|t| t.span))
                    .map_or(ident.start, |s| self.pm_span(s).start);
                first..ident.end
            }
            _ => self.span(pat),
        }
    }

    /// The byte range of an expression, from its first to its last token.
    fn expr_span(&self, e: &Expr) -> Span {
        // A lone identifier (most paths are locals): one lookup instead of two.
        if let Expr::Path(p) = e {
            if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
                let seg = &p.path.segments[0];
                if matches!(seg.arguments, syn::PathArguments::None) {
                    return self.ident_range(&seg.ident);
                }
            }
        }
        let start = self.offset(super::spans::first(e).start());
        let end = self.offset(super::spans::last(e).end());
        start..end.max(start)
    }

    fn pm_span(&self, span: PmSpan) -> Span {
        let start = self.offset(span.start());
        start..self.offset(span.end()).max(start)
    }

    /// The byte offset in the whole source of a proc-macro2 line/column (1-based line, column in
    /// characters), through our own line table: `Span::byte_range` rescans characters on every call.
    fn offset(&self, lc: proc_macro2::LineColumn) -> usize {
        let Some(&(line_start, ascii)) = self.lines.get(lc.line.saturating_sub(1)) else {
            return self.src.len();
        };
        let byte = if ascii {
            line_start + lc.column
        } else {
            let line = &self.src[line_start..];
            line_start
                + line
                    .char_indices()
                    .nth(lc.column)
                    .map_or(line.len(), |(i, _)| i)
        };
        byte.min(self.src.len())
    }

    fn text(&self, span: &Span) -> String {
        crate::ir::snippet(self.src, span)
    }

    /// An identifier's byte range with one position lookup: it ends where its characters end.
    fn ident_range(&self, ident: &proc_macro2::Ident) -> Span {
        let start = self.offset(ident.span().start());
        let rest = self.src.get(start..).unwrap_or("");
        let prefix = if rest.starts_with("r#") { 2 } else { 0 };
        let body = &rest[prefix..];
        // ASCII identifiers (nearly all) byte by byte; a non-ASCII one by characters.
        let ascii = body
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'));
        let len = match ascii {
            Some(i) if body.as_bytes()[i].is_ascii() => i,
            None => body.len(),
            Some(_) => body
                .char_indices()
                .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
                .map_or(body.len(), |(i, _)| i),
        };
        start..start + prefix + len
    }

    /// A path segment's name with `use .. as ..` renames resolved.
    /// The device of `self.<name>` in the method being lowered: the field's, wherever the type's
    /// constructors put it (unknown outside an impl).
    fn self_field(&self, name: &str) -> Device {
        match self.impls.last() {
            Some((Some(self_type), _)) => Device::Field(Arc::new(FieldRef {
                self_type: self_type.clone(),
                name: name.to_string(),
            })),
            _ => Device::Unknown,
        }
    }

    /// Whether a field of `self` is a sub-module: its type, declared in this file, is a type
    /// (not a primitive) that holds no tensor of its own (`Tensor`, burn's `Param`, candle's
    /// `Var`) and is no device, string or map.
    fn is_submodule_field(&self, field: &FieldRef) -> bool {
        self.field_types
            .get(&(field.self_type.clone(), field.name.clone()))
            .is_some_and(|ty| {
                ty.starts_with(|c: char| c.is_ascii_uppercase())
                    && !t::TENSOR_TYPES.contains(&ty.as_str())
                    && !t::TENSOR_HOLDER_TYPES.contains(&ty.as_str())
                    && !t::is_device_type(ty)
            })
    }

    fn seg_name(&self, ident: &proc_macro2::Ident) -> Name {
        let raw = Name::of(ident);
        if self.aliases.is_empty() {
            return raw;
        }
        match self.aliases.get(&*raw) {
            Some(original) => Name::from(original.as_str()),
            None => raw,
        }
    }

    /// Records `use` renames and which APIs the file imports, and (`type_aliases`: outside test
    /// modules) the file's type aliases of host-only backends.
    fn collect_uses(&mut self, items: &[syn::Item], type_aliases: bool) {
        for item in items {
            match item {
                syn::Item::Use(u) => self.collect_use_tree(&u.tree, true),
                syn::Item::ExternCrate(c) => self.note_crate(&c.ident.to_string()),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.collect_uses(items, type_aliases && !is_test_attrs(&m.attrs));
                    }
                }
                // (A name some module of the file aliases to another backend is ambiguous.)
                syn::Item::Type(t) if type_aliases => {
                    let name = t.ident.to_string();
                    if self.other_aliases.contains(&name) {
                        continue;
                    }
                    let changed = if self.is_host_backend(&t.ty) {
                        self.host_backends.insert(name)
                    } else {
                        let was_host = self.host_backends.remove(&name);
                        self.other_aliases.insert(name);
                        was_host
                    };
                    if changed {
                        self.uses_version += 1;
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether a type names a backend that computes on the host: burn's `NdArray` (through
    /// `Autodiff<..>` too), or an alias of the file for one.
    fn is_host_backend(&self, ty: &syn::Type) -> bool {
        type_mentions(ty, |n| {
            t::HOST_BACKENDS.contains(&n) || self.host_backends.contains(n)
        })
    }

    fn collect_use_tree(&mut self, tree: &syn::UseTree, first: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                if first {
                    self.note_crate(&p.ident.to_string());
                }
                self.collect_use_tree(&p.tree, false);
            }
            syn::UseTree::Rename(r) => {
                if first {
                    self.note_crate(&r.ident.to_string());
                }
                let original = r.ident.to_string();
                if self.aliases.get(&r.rename.to_string()) != Some(&original) {
                    self.aliases.insert(r.rename.to_string(), original);
                    self.uses_version += 1;
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.collect_use_tree(t, first);
                }
            }
            syn::UseTree::Name(_) | syn::UseTree::Glob(_) => {}
        }
    }

    fn note_crate(&mut self, name: &str) {
        let before = self.default_device.clone();
        match name {
            "placer_runtime" | "placer" => self.default_device = Some(Device::Cpu),
            n if n.starts_with("burn") && self.default_device.is_none() => {
                self.default_device = Some(Device::BackendDefault);
            }
            _ => {}
        }
        if self.default_device != before {
            self.uses_version += 1;
        }
    }

    // ---------------------------------------------------------------- functions, bindings, events

    fn begin_function(&mut self, meta: FunctionMeta) {
        self.stack.push(FnState {
            func: Function {
                meta,
                ..Function::default()
            },
            in_scope: Vec::new(),
            scope_starts: Vec::new(),
            env: Vec::new(),
            loop_stack: Vec::new(),
            log_depth: 0,
            periodic_depth: 0,
            bare_backend_depth: 0,
            timer_live: false,
            number_params: Vec::new(),
            param_types: Vec::new(),
            exits: 0,
            generic_scope: false,
            constructor: false,
            tuple_return: false,
            uploads: crate::frontend::Uploads::default(),
        });
    }

    fn end_function(&mut self) {
        if let Some(mut state) = self.stack.pop() {
            // The IR of the whole tree stays in memory until the checker is done: without the
            // slack of growing vectors it takes half the memory (and page faults).
            state.func.shrink_to_fit();
            self.functions.push(state.func);
        }
    }

    fn st(&mut self) -> &mut FnState {
        self.stack.last_mut().expect("a function is always open")
    }

    fn emit(&mut self, kind: EventKind, span: Span) -> u32 {
        let st = self.st();
        let event = Event {
            kind,
            span,
            loop_id: st.loop_stack.last().copied(),
            in_log: st.log_depth > 0,
            in_periodic: st.periodic_depth > 0,
            in_handler: false,
        };
        st.func.events.push(event);
        u32::try_from(st.func.events.len() - 1).unwrap_or(u32::MAX)
    }

    fn bind(&mut self, name: &str, mut value: Value) -> BindingId {
        let st = self.st();
        let id = BindingId::try_from(st.func.bindings.len()).unwrap_or(BindingId::MAX);
        // A number read out of a tensor carries no device: what is computed from it is not
        // computed from that tensor (for the parameter-meet summaries).
        let derived = if value.kind == ValueKind::Host {
            crate::ir::DerivedFrom::new()
        } else {
            crate::frontend::derived_from(&st.func.bindings, &value.reads)
        };
        st.func.bindings.push(Binding {
            name: name.to_string(),
            def_loop: st.loop_stack.last().copied(),
            assigned_in: crate::ir::AssignedIn::new(),
            derived_from: derived,
            moved: false,
        });
        value.var = None;
        st.env.push(value);
        st.in_scope.push(id);
        id
    }

    fn lookup(&mut self, name: &str) -> Option<BindingId> {
        let st = self.st();
        let bindings = &st.func.bindings;
        st.in_scope
            .iter()
            .rev()
            .copied()
            .find(|&id| bindings[id as usize].name == name)
    }

    fn assign(&mut self, id: BindingId, value: Value) {
        if let Some(read) = value.host_read.clone() {
            self.feed_back(id, read, value.span.clone());
        }
        let st = self.st();
        let lp = st.loop_stack.last().copied();
        st.func.bindings[id as usize].assigned_in.push(lp);
        let mut value = value;
        value.var = None;
        st.env[id as usize] = value;
    }

    /// Records that the bindings `reads` is computed from are the host data of a tensor built
    /// here, if this is inside a loop.
    fn record_upload(&mut self, reads: &[BindingId]) {
        let st = self.st();
        st.uploads.record(&st.func.bindings, reads, &st.loop_stack);
    }

    /// A value read out of a tensor by `read` is stored into `target` (`tokens.push(next)`,
    /// `next = ..`): if a loop enclosing this point builds a tensor from `target`'s data, the
    /// read is that loop's next input (autoregressive generation, a forecast window), which the
    /// host needs: a [`EventKind::HostDecision`].
    fn feed_back(&mut self, target: BindingId, read: Span, span: Span) {
        let st = self.st();
        let fed = st.uploads.feeds(target, &st.loop_stack);
        if fed {
            self.emit(EventKind::HostDecision { read }, span);
        }
    }

    /// Records a value the function returns; a tuple `(ids, texts)` of a function declared to
    /// return tensors beside other data returns its tensors' (common) device.
    fn push_return(&mut self, val: Val) {
        let st = self.st();
        if st.tuple_return && !val.v.is_tensorish() {
            if let Some(joined) = val.elems.into_iter().reduce(join) {
                st.func.returns.push(joined);
                return;
            }
        }
        st.func.returns.push(val.v);
    }

    fn push_scope(&mut self) {
        let st = self.st();
        let start = st.in_scope.len();
        st.scope_starts.push(start);
    }

    fn pop_scope(&mut self) {
        let st = self.st();
        if let Some(start) = st.scope_starts.pop() {
            st.in_scope.truncate(start);
        }
    }

    fn bind_pat(&mut self, pat: &Pat, value: &Value) {
        match pat {
            Pat::Ident(p) => {
                self.bind(&Name::of(&p.ident), value.clone());
            }
            Pat::Type(p) => self.bind_pat(&p.pat, value),
            Pat::Reference(p) => self.bind_pat(&p.pat, value),
            Pat::Paren(p) => self.bind_pat(&p.pat, value),
            // `Some(x)`, `Ok(x)`: x is the wrapped value.
            Pat::TupleStruct(p) if p.elems.len() == 1 => {
                let wrapped = p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Some" || s.ident == "Ok");
                let inner = if wrapped {
                    value.clone()
                } else {
                    Value::unknown(value.span.clone())
                };
                self.bind_pat(&p.elems[0], &inner);
            }
            _ => {
                // Tuples, structs, slices: the parts of a tensor op's result (`let (values,
                // indices) = t.sort(..)`) live where it does; of anything else nothing is known.
                let mut names = Vec::new();
                collect_pat_idents(pat, &mut names);
                let component = if value.is_tensorish() || value.kind == ValueKind::Host {
                    value.clone()
                } else {
                    // `(idx, &p)` of host data read out of a tensor: still from that read.
                    let mut v = Value::unknown(value.span.clone());
                    v.host_read.clone_from(&value.host_read);
                    v
                };
                for name in names {
                    self.bind(&name, component.clone());
                }
            }
        }
    }

    fn fn_meta(
        &self,
        sig: &syn::Signature,
        attrs: &[syn::Attribute],
        in_impl: bool,
    ) -> FunctionMeta {
        let context = if in_impl {
            self.impls.last().cloned().unwrap_or((None, None))
        } else {
            (None, None)
        };
        let in_test = self.path_is_test || self.test_depth > 0;
        function_meta(sig, attrs, context, in_test, self.ident_range(&sig.ident))
    }

    /// Records a private function marked `#[allow(dead_code)]` (see [`crate::ir::File::dead_code`]).
    fn note_dead_code(
        &mut self,
        vis: &syn::Visibility,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        body: &syn::Block,
    ) {
        if matches!(vis, syn::Visibility::Inherited) && allows_dead_code(attrs) {
            let span = self.pm_span(sig.fn_token.span).start
                ..self.pm_span(body.brace_token.span.close()).end;
            self.dead_code.push(span);
        }
    }

    fn lower_fn(&mut self, meta: FunctionMeta, sig: &syn::Signature, body: &syn::Block) {
        if self.skip_unanchored {
            // A function that names no tensor API (nor its impl's type) is, as a file that names
            // none (see `crate::may_match`), only calls: lowered as the call-graph-only lowering
            // does. The file is lowered in full if one of those calls turns out to return a
            // tensor on a hard-coded device (see `needing_full_lowering`).
            let span = self.pm_span(sig.fn_token.span).start
                ..self.pm_span(body.brace_token.span.close()).end;
            let self_type = self.impls.last().and_then(|(ty, _)| ty.clone());
            let text = self.src.get(span.clone()).unwrap_or("");
            if !crate::anchored(text, self.extra_factories)
                && !self_type.as_deref().is_some_and(crate::may_match)
            {
                let in_test = self.path_is_test || self.test_depth > 0;
                let functions = super::call_graph::function_calls(
                    meta,
                    self_type,
                    in_test,
                    &self.aliases,
                    body,
                );
                self.functions.extend(functions);
                return;
            }
        }
        self.begin_function(meta);
        // `fn train(device: &<NdArrayBackend as Backend>::Device) -> Model<NdArrayBackend>`; a
        // generic parameter of the function or its impl (`B: Backend`) is not an alias.
        let shadowed = !self.host_backends.is_empty() && {
            let generics: Vec<String> = sig
                .generics
                .type_params()
                .map(|p| p.ident.to_string())
                .chain(self.impl_generics.iter().flatten().cloned())
                .collect();
            self.host_backends.iter().any(|a| generics.contains(a))
        };
        let host_signature = !shadowed
            && (sig.inputs.iter().any(|input| match input {
                syn::FnArg::Typed(arg) => self.is_host_backend(&arg.ty),
                syn::FnArg::Receiver(_) => false,
            }) || matches!(&sig.output, syn::ReturnType::Type(_, ty) if self.is_host_backend(ty)));
        self.st().func.meta.host_compute = host_signature;
        // A constructor (it returns `Self`) given a device, or any function given a
        // `VarBuilder`, puts weights where its caller says.
        let self_type = self.impls.last().and_then(|(ty, _)| ty.clone());
        let constructor = matches!(&sig.output, syn::ReturnType::Type(_, ty)
            if type_mentions(ty, |n| n == "Self" || self_type.as_deref() == Some(n)));
        self.st().constructor = constructor;
        for input in &sig.inputs {
            if let syn::FnArg::Typed(arg) = input {
                let span = self.pat_span(&arg.pat);
                if type_mentions(&arg.ty, |n| {
                    t::WEIGHT_SOURCES.contains(&n) || constructor && t::is_device_type(n)
                }) {
                    self.st().func.meta.weights = crate::ir::WeightsPlace::Caller;
                }
                let kind = if type_mentions(&arg.ty, |n| t::TENSOR_TYPES.contains(&n)) {
                    ValueKind::Tensor
                } else if type_mentions(&arg.ty, t::is_device_type) {
                    ValueKind::Device
                } else {
                    ValueKind::Other
                };
                // A tensor parameter, and a device parameter (`dev: &Device`), are
                // device-generic: the device of parameter k, whatever the caller passes; of a
                // backend that computes on the host (`Tensor<NdArrayBackend, 2>`), the host.
                let device = match kind {
                    ValueKind::Tensor | ValueKind::Device if self.is_host_backend(&arg.ty) => {
                        Device::Cpu
                    }
                    ValueKind::Tensor | ValueKind::Device => Device::Input,
                    _ => Device::Unknown,
                };
                let mut value = Value::unknown(span.clone());
                value.kind = kind;
                value.device = device;
                if let (syn::Pat::Ident(id), syn::Type::Path(ty)) = (&*arg.pat, &*arg.ty) {
                    if ty
                        .path
                        .get_ident()
                        .is_some_and(|t| t::is_number_type(&t.to_string()))
                    {
                        self.st().number_params.push(id.ident.to_string());
                    }
                }
                let first = self.st().func.bindings.len();
                self.bind_pat(&arg.pat, &value);
                let st = self.st();
                let binding = (st.func.bindings.len() == first + 1)
                    .then(|| BindingId::try_from(first).unwrap_or(BindingId::MAX));
                if let (Some(b), Some(ty)) = (binding, receiver_type_name(&arg.ty)) {
                    // (A trait matters only for its methods that return host data.)
                    let host_trait = self.host_trait_methods.iter().any(|(tr, _)| *tr == ty);
                    if self.structs.contains(&ty) || host_trait {
                        self.st().param_types.push((b, ty));
                    }
                }
                let name = binding.map_or_else(
                    || self.src.get(span.clone()).unwrap_or("_").to_string(),
                    |b| {
                        self.stack.last().expect("open").func.bindings[b as usize]
                            .name
                            .clone()
                    },
                );
                self.st().func.params.push(Param {
                    name,
                    binding,
                    tensor_use: true,
                    kind,
                    default: None,
                    host_data: false,
                    cuda_only: false,
                    sentinel_default: false,
                    falls_back: false,
                });
            }
        }
        // A method of a model-holding type, or a function given tensors, handles device-generic
        // data; `main`, binaries, examples and tests choose the device for everyone.
        let receiver = sig
            .inputs
            .iter()
            .any(|input| matches!(input, syn::FnArg::Receiver(_)));
        let (is_binary, st) = (self.is_binary, self.st());
        st.generic_scope = !is_binary
            && !st.func.meta.is_test
            && (receiver || st.func.params.iter().any(|p| p.kind == ValueKind::Tensor));
        st.tuple_return = tensor_tuple_return(&sig.output);
        let tail = self.eval_block(body);
        self.push_return(tail);
        self.end_function();
    }

    // ---------------------------------------------------------------- evaluation

    fn eval_block(&mut self, block: &syn::Block) -> Val {
        self.push_scope();
        let mut last = Val::new(Value::unknown(self.pm_span(block.brace_token.span.join())));
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let v = self.eval_stmt(stmt);
            if i + 1 == n {
                if let Some(v) = v {
                    last = v;
                }
            }
        }
        self.pop_scope();
        last
    }

    /// Evaluates a statement; returns the value of a tail expression.
    fn eval_stmt(&mut self, stmt: &Stmt) -> Option<Val> {
        // `#[cfg(debug_assertions)] { .. }`: checks that release builds leave out; their reads
        // serve the check, as a log line's do.
        let debug_only = match stmt {
            Stmt::Local(local) => is_debug_only(&local.attrs),
            Stmt::Expr(e, _) => expr_attrs(e).is_some_and(is_debug_only),
            _ => false,
        };
        if debug_only {
            self.st().log_depth += 1;
            let v = self.eval_stmt_in_build(stmt);
            self.st().log_depth -= 1;
            return v;
        }
        self.eval_stmt_in_build(stmt)
    }

    fn eval_stmt_in_build(&mut self, stmt: &Stmt) -> Option<Val> {
        match stmt {
            Stmt::Local(local) => {
                let value = match &local.init {
                    Some(init) => {
                        let v = self.eval(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            self.eval(diverge);
                        }
                        v.v
                    }
                    None => Value::unknown(self.pat_span(&local.pat)),
                };
                self.bind_pat(&local.pat, &value);
                None
            }
            Stmt::Item(item) => {
                self.visit_item(item);
                None
            }
            Stmt::Expr(e, semi) => {
                let v = self.eval(e);
                semi.is_none().then_some(v)
            }
            Stmt::Macro(m) => {
                self.eval_macro(&m.mac);
                None
            }
        }
    }

    #[allow(clippy::too_many_lines)]
    fn eval(&mut self, expr: &Expr) -> Val {
        // Wrappers are their operand: no span of their own to compute.
        match expr {
            Expr::Reference(r) => return self.eval(&r.expr),
            Expr::Paren(p) => return self.eval(&p.expr),
            Expr::Group(g) => return self.eval(&g.expr),
            Expr::Try(t) => return self.eval(&t.expr),
            Expr::Await(a) => return self.eval(&a.base),
            Expr::Unary(u) => return self.eval(&u.expr),
            // A literal is never a tensor, a device or host data.
            Expr::Lit(_) => return Val::new(Value::unknown(0..0)),
            Expr::Cast(c) => {
                let mut v = self.eval(&c.expr);
                // `n.to_scalar::<f32>()? as usize`: a shape or index, which the host needs.
                if matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("usize") || p.path.is_ident("isize"))
                {
                    v.v.host_read = None;
                    v.v.kind = ValueKind::Other;
                }
                return v;
            }
            _ => {}
        }
        let span = self.expr_span(expr);
        match expr {
            Expr::Path(p) => Val::new(self.eval_path(&p.path, span)),
            Expr::MethodCall(m) => self.eval_method(m, span),
            Expr::Call(c) => self.eval_call(c, span),
            Expr::Binary(b) => self.eval_binary(b, span),
            Expr::Assign(a) => {
                let rhs = self.eval(&a.right);
                self.assign_to(&a.left, rhs.v);
                Val::new(Value::unknown(span))
            }
            Expr::Field(f) => {
                let base = self.eval(&f.base);
                let mut v = Value::unknown(span.clone());
                v.reads = base.v.reads;
                if let syn::Member::Named(name) = &f.member {
                    let name = Name::of(name);
                    if t::is_device_field(&name) {
                        v.kind = ValueKind::Device;
                        v.device = Device::Cached;
                    } else if is_self_path(&f.base) {
                        // `self.mask`: model state, where the type's constructors put it.
                        v.device = self.self_field(&name);
                        if matches!(v.device, Device::Field(_)) {
                            v.kind = ValueKind::MaybeTensor;
                        }
                    }
                }
                Val::new(v)
            }
            Expr::Index(i) => {
                let base = self.eval(&i.expr);
                let idx = self.eval(&i.index);
                let mut v = base.v;
                v.var = None;
                v.reads.extend(idx.v.reads);
                // `self.layers[i]`: an element of model state, where the field's stores put it.
                let element_of_field = matches!(v.device, Device::Field(_));
                if v.kind != ValueKind::Host && v.kind != ValueKind::Tensor && !element_of_field {
                    v = Value::unknown(span.clone());
                }
                v.span = span;
                Val::new(v)
            }
            Expr::Array(a) => self.eval_aggregate(a.elems.iter(), span),
            Expr::Tuple(tu) => self.eval_aggregate(tu.elems.iter(), span),
            Expr::Block(b) => self.eval_block(&b.block),
            Expr::Unsafe(u) => self.eval_block(&u.block),
            Expr::Const(c) => self.eval_block(&c.block),
            Expr::TryBlock(tb) => self.eval_block(&tb.block),
            Expr::If(i) => self.eval_if(i),
            Expr::Match(m) => {
                let scrutinee = self.eval(&m.expr);
                let mut result: Option<Value> = None;
                for arm in &m.arms {
                    self.push_scope();
                    self.bind_pat(&arm.pat, &scrutinee.v);
                    if let Some((_, guard)) = &arm.guard {
                        self.eval(guard);
                    }
                    let bare_backend = matches_bare_backend(&arm.pat);
                    if bare_backend {
                        self.st().bare_backend_depth += 1;
                    }
                    let v = self.eval(&arm.body);
                    if bare_backend {
                        self.st().bare_backend_depth -= 1;
                    }
                    self.pop_scope();
                    result = Some(match result {
                        None => v.v,
                        Some(prev) => join(prev, v.v),
                    });
                }
                Val::new(result.unwrap_or_else(|| Value::unknown(span)))
            }
            Expr::ForLoop(f) => {
                let iter = self.eval(&f.expr);
                self.enter_loop(span.clone(), &f.body);
                self.push_scope();
                let mut item = Value::unknown(self.pat_span(&f.pat));
                item.reads = iter.v.reads;
                // Each item of host data read out of a tensor comes from that read (the index
                // of the winning probability a sampler picks, too).
                item.host_read = iter.v.host_read;
                // `for layer in self.layers.iter()`: each element is model state of the field's
                // element type, so `layer.forward(..)` is a call of that type's method.
                let mut pat = &*f.pat;
                if let Some(field) = iterated_field(&f.expr)
                    .map(|field| self.self_field(&field.to_string()))
                    .filter(|d| matches!(d, Device::Field(_)))
                {
                    item.kind = ValueKind::MaybeTensor;
                    item.device = field;
                    if let (syn::Pat::Tuple(t), true) = (pat, is_enumerate(&f.expr)) {
                        if let (2, Some(elem)) = (t.elems.len(), t.elems.last()) {
                            pat = elem;
                        }
                    }
                }
                self.bind_pat(pat, &item);
                self.eval_block(&f.body);
                self.pop_scope();
                self.exit_loop();
                Val::new(Value::unknown(span))
            }
            Expr::While(w) => {
                self.enter_loop(span.clone(), &w.body);
                self.push_scope();
                let cond = self.eval(&w.cond);
                if let Some(read) = cond.v.host_read {
                    self.emit(EventKind::HostDecision { read }, cond.v.span);
                }
                self.eval_block(&w.body);
                self.pop_scope();
                self.exit_loop();
                Val::new(Value::unknown(span))
            }
            Expr::Loop(l) => {
                self.enter_loop(span.clone(), &l.body);
                self.eval_block(&l.body);
                self.exit_loop();
                Val::new(Value::unknown(span))
            }
            Expr::Let(l) => {
                let v = self.eval(&l.expr);
                self.bind_pat(&l.pat, &v.v);
                Val::new(Value::unknown(span))
            }
            Expr::Closure(c) => {
                self.push_scope();
                for input in &c.inputs {
                    self.bind_pat(input, &Value::unknown(self.pat_span(input)));
                }
                self.eval(&c.body);
                self.pop_scope();
                Val::new(Value::unknown(span))
            }
            Expr::Return(r) => {
                self.st().exits += 1;
                if let Some(e) = &r.expr {
                    let v = self.eval(e);
                    self.push_return(v);
                }
                Val::new(Value::unknown(span))
            }
            Expr::Break(b) => {
                self.st().exits += 1;
                if let Some(e) = &b.expr {
                    self.eval(e);
                }
                Val::new(Value::unknown(span))
            }
            Expr::Macro(m) => self.eval_macro(&m.mac),
            Expr::Struct(s) => {
                // `Self { .. }` / `Type { .. }` in the type's own impl: what the fields hold.
                let own = self
                    .impls
                    .last()
                    .and_then(|(ty, _)| ty.clone())
                    .filter(|ty| {
                        s.path
                            .segments
                            .last()
                            .is_some_and(|seg| seg.ident == "Self" || seg.ident == ty.as_str())
                    });
                // `LayerWeights { .. }` built in another type's method: that type's fields.
                let other = match (&own, s.path.segments.last()) {
                    (None, Some(seg)) if self.structs.contains(&seg.ident.to_string()) => {
                        Some(seg.ident.to_string())
                    }
                    _ => None,
                };
                // Whether the tensors stored are all on the device the constructor is given.
                let mut state: Option<bool> = None;
                for field in &s.fields {
                    let value = self.eval(&field.expr);
                    if value.v.is_tensorish() {
                        match value.v.device {
                            Device::Input => state = Some(state.unwrap_or(true)),
                            Device::Unknown | Device::Call(_) | Device::Field(_) => {}
                            _ => state = Some(false),
                        }
                    }
                    let syn::Member::Named(name) = &field.member else {
                        continue;
                    };
                    let at = self.expr_span(&field.expr);
                    if own.is_some() {
                        self.emit(
                            EventKind::SetAttr {
                                attr: Name::of(name).to_string(),
                                value: value.v,
                                registered: false,
                            },
                            at,
                        );
                    } else if let Some(ty) = &other {
                        self.emit(
                            EventKind::StoreField {
                                self_type: ty.clone(),
                                field: Name::of(name).to_string(),
                                value: value.v,
                            },
                            at,
                        );
                    }
                }
                if let Some(rest) = &s.rest {
                    self.eval(rest);
                }
                // A constructor that builds its tensors on the device (or beside the tensors) it
                // is given returns an object on that device: `Decoder::new(&cfg, &dev)` lives on
                // `dev`, as a tensor built there would.
                let mut v = Value::unknown(span);
                if own.is_some() && state == Some(true) {
                    v.kind = ValueKind::MaybeTensor;
                    v.device = Device::Input;
                }
                Val::new(v)
            }
            Expr::Range(r) => {
                if let Some(s) = &r.start {
                    self.eval(s);
                }
                if let Some(e) = &r.end {
                    self.eval(e);
                }
                Val::new(Value::unknown(span))
            }
            Expr::Repeat(r) => {
                self.eval(&r.expr);
                self.eval(&r.len);
                Val::new(Value::unknown(span))
            }
            Expr::Yield(y) => {
                if let Some(e) = &y.expr {
                    self.eval(e);
                }
                Val::new(Value::unknown(span))
            }
            Expr::Async(a) => self.eval_block(&a.block),
            _ => Val::new(Value::unknown(span)),
        }
    }

    fn enter_loop(&mut self, span: Span, body: &syn::Block) {
        let lets = body
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Local(l) => {
                    Some(self.pm_span(l.let_token.span).start..self.pm_span(l.semi_token.span).end)
                }
                _ => None,
            })
            .collect();
        let st = self.st();
        let parent = st.loop_stack.last().copied();
        st.func.loops.push(Loop { span, parent, lets });
        let id = LoopId::try_from(st.func.loops.len() - 1).unwrap_or(LoopId::MAX);
        st.loop_stack.push(id);
    }

    fn exit_loop(&mut self) {
        self.st().loop_stack.pop();
    }

    fn eval_aggregate<'e>(&mut self, elems: impl Iterator<Item = &'e Expr>, span: Span) -> Val {
        let mut v = Value::unknown(span);
        let mut out = Vec::new();
        for e in elems {
            let ev = self.eval(e);
            v.reads.extend(ev.v.reads.iter().copied());
            if v.host_read.is_none() {
                v.host_read.clone_from(&ev.v.host_read);
            }
            if ev.v.kind == ValueKind::Device && v.kind != ValueKind::Device {
                // tch options `(Kind::Float, Device::Cpu)`: the tuple carries the device.
                v.kind = ValueKind::Device;
                v.device.clone_from(&ev.v.device);
                v.origin.clone_from(&ev.v.origin);
            }
            out.extend(ev.tensors());
        }
        Val { v, elems: out }
    }

    fn eval_if(&mut self, i: &syn::ExprIf) -> Val {
        let cond_span = self.expr_span(&i.cond);
        let periodic = self.src.get(cond_span).is_some_and(|c| c.contains('%'));
        self.push_scope();
        let cond = self.eval(&i.cond);
        if periodic {
            self.st().periodic_depth += 1;
        }
        // `if tracing::enabled!(Level::TRACE) { .. }`, `if log_enabled!(Level::Debug)`: work
        // done only for the log.
        let log_gate = matches!(&*i.cond, Expr::Macro(m) if m.mac.path.segments.last()
            .is_some_and(|s| s.ident == "enabled" || s.ident == "log_enabled"));
        if log_gate {
            self.st().log_depth += 1;
        }
        // `if s == "cuda" { return Ok(Device::Cuda(0)); }`: a parser of the caller's device
        // name, as a `"cuda" =>` match arm.
        let bare_backend = compares_bare_backend(&i.cond);
        if bare_backend {
            self.st().bare_backend_depth += 1;
        }
        let exits_before = self.st().exits;
        let then = self.eval_block(&i.then_branch);
        if bare_backend {
            self.st().bare_backend_depth -= 1;
        }
        if log_gate {
            self.st().log_depth -= 1;
        }
        if periodic {
            self.st().periodic_depth -= 1;
        }
        if let (Some(read), true) = (cond.v.host_read, self.st().exits > exits_before) {
            self.emit(EventKind::HostDecision { read }, cond.v.span);
        }
        self.pop_scope();
        match &i.else_branch {
            Some((_, e)) => {
                let other = self.eval(e);
                Val::new(join(then.v, other.v))
            }
            None => Val::new(Value::unknown(self.pm_span(i.if_token.span))),
        }
    }

    fn assign_to(&mut self, lhs: &Expr, value: Value) {
        match lhs {
            Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = Name::of(&p.path.segments[0].ident);
                if let Some(id) = self.lookup(&name) {
                    self.assign(id, value);
                }
            }
            _ => {
                self.eval(lhs);
            }
        }
    }

    fn eval_path(&mut self, path: &syn::Path, span: Span) -> Value {
        if path.segments.len() == 1 && path.leading_colon.is_none() {
            let name = Name::of(&path.segments[0].ident);
            if let Some(id) = self.lookup(&name) {
                let st = self.stack.last().expect("function");
                let mut v = st.env[id as usize].clone();
                v.var = Some(id);
                v.reads = smallvec::smallvec![id];
                v.span = span;
                return v;
            }
        }
        let segs: Vec<Name> = path
            .segments
            .iter()
            .map(|s| self.seg_name(&s.ident))
            .collect();
        let mut v = Value::unknown(span.clone());
        if segs.len() >= 2 && t::is_device_type(&segs[segs.len() - 2]) {
            let device = match t::device_ctor(&segs[segs.len() - 1]) {
                Some(t::DeviceCtor::Cpu) => Some(Device::Cpu),
                Some(t::DeviceCtor::Meta) => Some(Device::Meta),
                Some(t::DeviceCtor::Accelerator) => Some(Device::Cuda(None)),
                _ => None,
            };
            if let Some(device) = device {
                v.kind = ValueKind::Device;
                v.origin = Some(Arc::new(self.origin(
                    span.clone(),
                    Some(span.clone()),
                    self.text(&span),
                )));
                v.device = device;
            }
        }
        v
    }

    fn origin(&self, span: Span, device_span: Option<Span>, device_text: String) -> Origin {
        let function = self
            .stack
            .last()
            .map(|s| s.func.meta.name.clone())
            .unwrap_or_default();
        Origin {
            file: self.file,
            span,
            device_span,
            device_text,
            function,
            is_transfer: false,
            wraps_host_data: false,
            flag_host: false,
        }
    }

    fn eval_args<'e>(&mut self, args: impl Iterator<Item = &'e Expr>) -> Vec<Val> {
        args.map(|a| self.eval(a)).collect()
    }

    /// Emits an op event if two or more tensors meet; returns their values.
    fn maybe_op(&mut self, name: &str, operands: Vec<Value>, span: Span) {
        if operands.is_empty() {
            return;
        }
        // Only values known to be tensors make device work; what a local function returns may be
        // anything until the checker resolves it.
        let work = operands.iter().any(Value::is_tensor);
        if work {
            self.device_work(span.clone(), &operands);
        }
        if operands.len() >= 2 {
            self.emit(
                EventKind::Op {
                    name: name.to_string(),
                    operands,
                    opaque: false,
                },
                span,
            );
        }
    }

    /// Records device work on `inputs` (see [`EventKind::DeviceWork`]) while a timer is live:
    /// work on tensors known to be on the host (`Device::Cpu`) ran before it returned.
    fn device_work(&mut self, span: Span, inputs: &[Value]) {
        if self.st().timer_live {
            let inputs = inputs.to_vec();
            self.emit(EventKind::DeviceWork { inputs }, span);
        }
    }

    #[allow(clippy::too_many_lines)]
    fn eval_method(&mut self, m: &syn::ExprMethodCall, span: Span) -> Val {
        let recv = self.eval(&m.receiver);
        // `Tensor::from_vec(..).and_then(|t| t.to_device(device))`: the closure runs on what the
        // receiver holds; the result is what it returns.
        if let (true, [Expr::Closure(c)]) = (
            m.method == "and_then" || m.method == "map",
            m.args.iter().collect::<Vec<_>>().as_slice(),
        ) {
            if c.inputs.len() == 1 && recv.v.is_tensorish() {
                self.push_scope();
                self.bind_pat(&c.inputs[0], &recv.v);
                let mut v = self.eval(&c.body);
                self.pop_scope();
                v.v.span = span;
                return v;
            }
        }
        let args = self.eval_args(m.args.iter());
        let name = Name::of(&m.method);
        let name = name.as_ref();
        let is_self = matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self"));
        let mut all: Vec<&Value> = vec![&recv.v];
        all.extend(args.iter().map(|a| &a.v));
        let reads = reads_of(&all);
        let arg_tensors: Vec<Value> = args.iter().flat_map(Val::tensors).collect();
        let first_arg_device = arg_tensors
            .first()
            .map_or(Device::Unknown, |v| v.device.clone());

        // `tokens.push(next)` of a token read out of a tensor: maybe the next step's input.
        if let (true, Some(target)) = (t::COLLECTION_METHODS.contains(&name), recv.v.var) {
            if let Some(read) = args.iter().find_map(|a| a.v.host_read.clone()) {
                self.feed_back(target, read, span.clone());
            }
        }

        // Timers.
        if let (ValueKind::Timer(start), "elapsed") = (recv.v.kind, name) {
            self.emit(
                EventKind::TimerRead {
                    start,
                    end: None,
                    pacing: false,
                },
                span.clone(),
            );
        }
        if name == "duration_since" {
            if let Some(ValueKind::Timer(start)) = args.first().map(|a| a.v.kind) {
                let end = crate::frontend::timer_end(start, recv.v.kind);
                self.emit(
                    EventKind::TimerRead {
                        start,
                        end,
                        pacing: false,
                    },
                    span.clone(),
                );
            }
        }

        // `masks.push(t)` into a local `Vec`: its elements are tensors where `t` is, which a
        // later `Tensor::cat(&masks, 0)` keeps.
        if name == "push" && args.len() == 1 && args[0].v.is_tensorish() {
            if let Expr::Path(p) = &*m.receiver {
                if let Some(id) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    let st = self.st();
                    let old = st.env[id as usize].clone();
                    let mut pushed = args[0].v.clone();
                    pushed.var = None;
                    pushed.kind = ValueKind::MaybeTensor;
                    pushed.span = old.span.clone();
                    st.env[id as usize] = if old.is_tensorish() {
                        join(old, pushed)
                    } else {
                        pushed
                    };
                    let mut v = Value::unknown(span);
                    v.reads = reads;
                    return Val::new(v);
                }
            }
        }

        // `vb.get((n, d), "weight")`, `vb.pp("emb").get(..)`: a weight the VarBuilder loads on
        // its device, which is the model's.
        if matches!(
            name,
            "get"
                | "get_with_hints"
                | "get_with_hints_dtype"
                | "get_unchecked"
                | "get_unchecked_dtype"
        ) && names_var_builder(&m.receiver)
        {
            let mut v = tensor(span, Device::Cached, None);
            v.kind = ValueKind::Tensor;
            v.reads = reads;
            return Val::new(v);
        }

        // Transfers.
        if t::TRANSFERS.contains(&name) {
            let target = match name {
                "cuda" => Some((Device::Cuda(None), None)),
                "cpu" => Some((Device::Cpu, None)),
                _ => args.first().and_then(|a| {
                    (a.v.kind == ValueKind::Device || name != "to")
                        .then(|| (a.v.device.clone(), Some(a.v.clone())))
                }),
            };
            if let Some((to, to_value)) = target {
                let method_span = self.pm_span(m.method.span()).start..span.end;
                let to_value = to_value.unwrap_or_else(|| Value::unknown(method_span.clone()));
                let device_text = self.text(&to_value.span);
                self.emit(
                    EventKind::Transfer {
                        source: recv.v.clone(),
                        to: to.clone(),
                        to_value: to_value.clone(),
                        by_indexing: false,
                    },
                    method_span.clone(),
                );
                let mut origin = self.origin(
                    method_span.clone(),
                    Some(to_value.span.clone()),
                    device_text,
                );
                origin.is_transfer = true;
                let mut v = tensor(span.clone(), to.clone(), Some(Arc::new(origin)));
                if recv.v.kind != ValueKind::Tensor && recv.v.kind != ValueKind::Other {
                    v.kind = recv.v.kind;
                }
                if to == Device::Cpu {
                    v.host_read = Some(method_span);
                }
                v.reads = reads;
                return Val::new(v);
            }
        }

        // A sampler given logits (candle-transformers' `LogitsProcessor::sample(&logits)`)
        // copies them to the host and returns a token id: a host read of the argument.
        if name == "sample" && !recv.v.is_tensorish() {
            if let Some(logits) = args.iter().find(|a| a.v.is_tensorish()) {
                let method_span = self.pm_span(m.method.span()).start..span.end;
                self.emit(
                    EventKind::HostRead {
                        source: logits.v.clone(),
                        method: name.to_string(),
                    },
                    method_span.clone(),
                );
                let mut v = Value::unknown(span);
                v.kind = ValueKind::Host;
                v.host_read = Some(method_span);
                v.reads = reads;
                return Val::new(v);
            }
        }

        // Host reads.
        let tensor_recv = recv.v.is_tensorish();
        if t::HOST_READS.contains(&name) && (tensor_recv || recv.v.kind == ValueKind::Other)
            || t::TENSOR_ONLY_HOST_READS.contains(&name) && recv.v.is_tensor()
        {
            let method_span = self.pm_span(m.method.span()).start..span.end;
            self.emit(
                EventKind::HostRead {
                    source: recv.v.clone(),
                    method: name.to_string(),
                },
                method_span.clone(),
            );
            let mut v = Value::unknown(span);
            v.kind = ValueKind::Host;
            v.host_read = Some(method_span);
            v.reads = reads;
            return Val::new(v);
        }

        if t::SYNCHRONIZE.contains(&name) {
            self.emit(EventKind::Synchronize, span.clone());
            return Val::new(Value::unknown(span));
        }
        if t::EMPTY_CACHE.contains(&name) {
            self.emit(EventKind::EmptyCache, span.clone());
            return Val::new(Value::unknown(span));
        }

        // `x.device()`, `x.options()` (of a tensor only), `vb.device()`.
        if (name == "device" || name == "options" && tensor_recv) && m.args.is_empty() {
            let mut v = Value::unknown(span.clone());
            v.kind = ValueKind::Device;
            v.device = if tensor_recv {
                recv.v.device.clone()
            } else {
                Device::Cached
            };
            v.origin.clone_from(&recv.v.origin);
            v.reads = reads;
            return Val::new(v);
        }

        // Calls of a sub-module's methods, when its type is a struct of this file.
        if let Device::Field(field) = &recv.v.device {
            let ty = self
                .field_types
                .get(&(field.self_type.clone(), field.name.clone()))
                .filter(|ty| self.structs.contains(ty.as_str()))
                .cloned();
            if let Some(self_type) = ty {
                let target = CallTarget::Method {
                    self_type,
                    name: name.to_string(),
                };
                return Val::new(self.local_call(
                    target,
                    &args,
                    arg_tensors,
                    first_arg_device,
                    span,
                    reads,
                ));
            }
        }

        // A method of a parameter whose type is a struct of this file (`guider.calculate(..)`
        // with `guider: &Guider`), or of a trait of this file declared to return host data
        // (`b.forward(&ids)` with `b: &mut dyn TextDecoder`, `-> Vec<f32>`): no device work
        // of its own is queued by the latter, whatever the implementation did to get it.
        let param_type = recv.v.var.and_then(|b| {
            let st = self.stack.last()?;
            st.param_types
                .iter()
                .find(|(p, _)| *p == b)
                .map(|(_, ty)| ty.clone())
        });
        if let Some(ty) = param_type {
            if self
                .host_trait_methods
                .contains(&(ty.clone(), name.to_string()))
            {
                let mut v = Value::unknown(span);
                v.reads = reads;
                return Val::new(v);
            }
            if self.structs.contains(&ty) {
                let target = CallTarget::Method {
                    self_type: ty,
                    name: name.to_string(),
                };
                return Val::new(self.local_call(
                    target,
                    &args,
                    arg_tensors,
                    first_arg_device,
                    span,
                    reads,
                ));
            }
        }

        // Calls of this type's own methods.
        if is_self {
            if let Some((Some(self_type), _)) = self.impls.last().cloned() {
                let target = CallTarget::Method {
                    self_type,
                    name: name.to_string(),
                };
                return Val::new(self.local_call(
                    target,
                    &args,
                    arg_tensors,
                    first_arg_device,
                    span,
                    reads,
                ));
            }
        }

        // Running a module: the output lives where the input does.
        // `forward` is no tensor method: a receiver not known to be a tensor (a field of unknown
        // type, what a helper returns) is a module there.
        if t::is_forward_name(name) && !recv.v.is_tensor() || t::APPLY_METHODS.contains(&name) {
            let device = if tensor_recv && t::APPLY_METHODS.contains(&name) {
                recv.v.clone()
            } else if let Some(first) = arg_tensors.first() {
                first.clone()
            } else {
                // A module's output is a tensor even when its input is not known to be one.
                Value::unknown(span.clone())
            };
            // A sub-module of the model (`self.embeddings.forward(&ids)`, `ids.apply(&self.emb)`)
            // holds weights on the model's device: its input meets them there.
            let (module, input) = if tensor_recv && t::APPLY_METHODS.contains(&name) {
                (args.first().map(|a| &a.v), Some(&recv.v))
            } else {
                (Some(&recv.v), arg_tensors.first())
            };
            if let (Some(module), Some(input)) = (module, input) {
                if matches!(module.device, Device::Field(_)) && !module.is_tensor() {
                    let weights = model_state(module.span.clone());
                    self.emit(
                        EventKind::Op {
                            name: name.to_string(),
                            operands: vec![input.clone(), weights],
                            opaque: false,
                        },
                        span.clone(),
                    );
                }
            }
            let inputs: &[Value] = if tensor_recv && t::APPLY_METHODS.contains(&name) {
                std::slice::from_ref(&recv.v)
            } else {
                &arg_tensors
            };
            self.device_work(span.clone(), inputs);
            let mut v = tensor(span, device.device, device.origin);
            if device.kind == ValueKind::MaybeTensor {
                // Applied to what a call returns: still only maybe a tensor.
                v.kind = ValueKind::MaybeTensor;
            }
            v.reads = reads;
            return Val::new(v);
        }

        // Any other method of a sub-module of the model given tensors (`self.model.encode(&ids)`,
        // the field declared with a type that is no tensor): its weights are on the model's
        // device, where the arguments meet them. What the method does with them is not known
        // (it may move them, or compute on the host): the meeting is opaque.
        if let Device::Field(field) = &recv.v.device {
            if !recv.v.is_tensor()
                && !arg_tensors.is_empty()
                && !t::COLLECTION_METHODS.contains(&name)
                && self.is_submodule_field(field)
            {
                let weights = model_state(recv.v.span.clone());
                if arg_tensors.iter().any(Value::is_tensor) {
                    self.device_work(span.clone(), &arg_tensors);
                }
                let mut operands = arg_tensors;
                operands.push(weights);
                self.emit(
                    EventKind::Op {
                        name: name.to_string(),
                        operands,
                        opaque: true,
                    },
                    span.clone(),
                );
                // What it returns is judged as any method of model state's: where the field is.
                let mut v = recv.v.clone();
                v.var = None;
                v.span = span;
                v.reads = reads;
                return Val::new(v);
            }
        }

        if tensor_recv {
            // `features.insert(k, t)` on what an unresolved call returned (`HashMap::new()`): a
            // collection, which no tensor type's methods are named like.
            if t::NON_TENSOR_METHODS.contains(&name)
                || !recv.v.is_tensor() && t::COLLECTION_METHODS.contains(&name)
            {
                let mut v = Value::unknown(span);
                v.reads = reads;
                return Val::new(v);
            }
            if !t::CROSS_DEVICE_METHODS.contains(&name) {
                let mut operands = vec![recv.v.clone()];
                operands.extend(arg_tensors);
                self.maybe_op(name, operands, span.clone());
            }
            // Any other tensor method keeps the receiver's device; `x.clone()` is still `x`.
            let mut v = recv.v.clone();
            if name != "clone" {
                v.var = None;
            }
            v.span = span.clone();
            v.reads = reads;
            if t::INHERITING_METHODS.contains(&name) {
                v.origin = None;
                v.host_read = None;
            }
            return Val::new(v);
        }

        // `w.device().clone()`: the same device; `Device::cuda_if_available(0).unwrap_or(..)`
        // the one chosen (the fallback only applies where there is no accelerator).
        if recv.v.kind == ValueKind::Device
            && matches!(
                name,
                "clone" | "to_owned" | "unwrap" | "expect" | "unwrap_or" | "unwrap_or_else"
            )
        {
            let mut v = recv.v.clone();
            v.var = None;
            v.span = span;
            v.reads = reads;
            return Val::new(v);
        }

        if recv.v.kind == ValueKind::Host {
            // `v.iter().sum::<f32>()`: still host data from the same read.
            let mut v = recv.v.clone();
            v.var = None;
            v.span = span;
            v.reads = reads;
            return Val::new(v);
        }

        // A method of something unknown given tensors: assume it computes on them.
        if !arg_tensors.is_empty() && !t::COLLECTION_METHODS.contains(&name) {
            let first = arg_tensors[0].clone();
            self.maybe_op(name, arg_tensors, span.clone());
            let mut v = tensor(span, first.device, first.origin);
            v.kind = first.kind;
            v.reads = reads;
            return Val::new(v);
        }
        let mut v = Value::unknown(span);
        v.reads = reads;
        Val::new(v)
    }

    fn local_call(
        &mut self,
        target: CallTarget,
        args: &[Val],
        arg_tensors: Vec<Value>,
        arg_device: Device,
        span: Span,
        reads: Reads,
    ) -> Value {
        self.emit(
            EventKind::Call {
                target: target.clone(),
                args: args
                    .iter()
                    .map(|a| Arg {
                        keyword: None,
                        value: a.v.clone(),
                    })
                    .collect(),
            },
            span.clone(),
        );
        let name = match &target {
            CallTarget::Method { name, .. } | CallTarget::Free { name } => name.clone(),
        };
        let mut arg_origin = arg_tensors.first().and_then(|v| v.origin.clone());
        // Given no tensor (a field or a call's result may be none), a method that builds on its
        // device parameter builds on the device it is given (`Self::tokenize(&self.tok, &dev)`,
        // `Decoder::new(&cfg, &dev)`); methods outside the tree resolve to nothing. (A free
        // function outside the tree given a device is no factory unless `extra-factories` says.)
        let mut arg_device = arg_device;
        if matches!(target, CallTarget::Method { .. }) && !arg_tensors.iter().any(Value::is_tensor)
        {
            if let Some(device) = args.iter().find(|a| a.v.kind == ValueKind::Device) {
                arg_device.clone_from(&device.v.device);
                arg_origin.clone_from(&device.v.origin);
            }
        }
        self.maybe_op(&name, arg_tensors, span.clone());
        let mut v = tensor(
            span.clone(),
            Device::Call(Arc::new(CallRef {
                target,
                arg_device,
                arg_origin,
                span: span.clone(),
            })),
            None,
        );
        v.kind = ValueKind::MaybeTensor;
        v.reads = reads;
        v
    }

    #[allow(clippy::too_many_lines)]
    fn eval_call(&mut self, c: &syn::ExprCall, span: Span) -> Val {
        let args = self.eval_args(c.args.iter());
        let all: Vec<&Value> = args.iter().map(|a| &a.v).collect();
        let reads = reads_of(&all);
        let arg_tensors: Vec<Value> = args.iter().flat_map(Val::tensors).collect();
        let first_arg_device = arg_tensors
            .first()
            .map_or(Device::Unknown, |v| v.device.clone());
        let Expr::Path(p) = &*c.func else {
            self.eval(&c.func);
            let mut v = Value::unknown(span);
            v.reads = reads;
            return Val::new(v);
        };
        let segs: Vec<Name> = p
            .path
            .segments
            .iter()
            .map(|s| self.seg_name(&s.ident))
            .collect();
        let last = segs.last().map_or("", AsRef::as_ref);
        let prev = if segs.len() >= 2 {
            segs[segs.len() - 2].as_ref()
        } else {
            ""
        };

        // Wrappers pass their argument through: `Ok(mask)`, `Some(x)`, `Box::new(m)`.
        if matches!(last, "Ok" | "Some" | "Box" | "Rc" | "Arc")
            || (matches!(prev, "Box" | "Rc" | "Arc") && last == "new")
        {
            if let Some(a) = args.into_iter().next() {
                return a;
            }
            return Val::new(Value::unknown(span));
        }

        if prev == "Instant" && last == "now" {
            let idx = self.emit(EventKind::TimerStart, span.clone());
            self.st().timer_live = true;
            let mut v = Value::unknown(span);
            v.kind = ValueKind::Timer(idx);
            return Val::new(v);
        }

        if t::SYNCHRONIZE.contains(&last) && !segs.is_empty() {
            self.emit(EventKind::Synchronize, span.clone());
            return Val::new(Value::unknown(span));
        }
        if t::EMPTY_CACHE.contains(&last) {
            self.emit(EventKind::EmptyCache, span.clone());
            return Val::new(Value::unknown(span));
        }

        // burn's `B::Device::default()`: the backend's device type, its default device (below).
        let backend_device_type = prev == "Device"
            && (segs.len() >= 3 || p.qself.is_some())
            && self.default_device.is_some();
        // Device constructors: `Device::Cuda(1)`, `Device::new_cuda(0)`, `CudaDevice::new(0)`.
        if t::is_device_type(prev) && !(backend_device_type && last == "default") {
            if let Some(ctor) = t::device_ctor(last) {
                let ordinal = c.args.first().and_then(int_literal);
                let literal_accelerator = matches!(ctor, t::DeviceCtor::Accelerator)
                    || (prev != "Device" && last == "new" && ordinal.is_some());
                let spells_default = ordinal == Some(0) && self.st().bare_backend_depth > 0;
                if let (true, Some(ordinal), false) = (literal_accelerator, ordinal, spells_default)
                {
                    self.emit(EventKind::DeviceOrdinal { ordinal }, span.clone());
                }
                // candle's `Device::cuda_if_available(0)` in a method of a model type or a
                // function given tensors: a new CUDA device (candle gives each its own id), not
                // the one the data lives on.
                let fresh = t::FRESH_DEVICE_CTORS.contains(&last)
                    && c.args.len() == 1
                    && self.st().generic_scope;
                let device = match ctor {
                    _ if literal_accelerator || fresh => Device::Cuda(ordinal),
                    t::DeviceCtor::Cpu => Device::Cpu,
                    t::DeviceCtor::Meta => Device::Meta,
                    _ => Device::Unknown,
                };
                let mut v = Value::unknown(span.clone());
                v.kind = ValueKind::Device;
                if device.is_hard_coded() {
                    v.origin = Some(Arc::new(self.origin(
                        span.clone(),
                        Some(span.clone()),
                        self.text(&span),
                    )));
                }
                v.device = device;
                v.reads = reads;
                return Val::new(v);
            }
        }

        // `Default::default()` / `TensorOptions::default()` where it means a device, and burn's
        // `B::Device::default()`.
        if last == "default"
            && (prev == "Default" || prev == "TensorOptions" || backend_device_type)
            && args.is_empty()
        {
            let device = if prev == "TensorOptions" {
                Some(Device::Cpu)
            } else {
                self.default_device.clone()
            };
            if let Some(device) = device {
                let mut v = Value::unknown(span.clone());
                v.kind = ValueKind::Device;
                v.origin = Some(Arc::new(self.origin(
                    span.clone(),
                    Some(span.clone()),
                    self.text(&span),
                )));
                v.device = device;
                return Val::new(v);
            }
        }

        // Host reads through conversions: `f64::try_from(&t)`, `Vec::<f32>::try_from(t)`.
        // tch's conversions are the only common `f64::try_from(x)` / `Vec::<f32>::try_from(x)`
        // in model code, so an argument of unknown kind counts too.
        if last == "try_from"
            && t::HOST_SCALAR_TYPES.contains(&prev)
            && args.first().is_some_and(|a| {
                // A call's result is not enough: `u8::try_from(helper() % 26)` is plain Rust.
                a.v.is_tensor()
                    || (a.v.kind == ValueKind::Other && matches!(prev, "f32" | "f64" | "Vec"))
            })
        {
            let source = args[0].v.clone();
            self.emit(
                EventKind::HostRead {
                    source,
                    method: format!("{prev}::try_from"),
                },
                span.clone(),
            );
            let mut v = Value::unknown(span.clone());
            v.kind = ValueKind::Host;
            v.host_read = Some(span);
            v.reads = reads;
            return Val::new(v);
        }

        // `VarBuilder::from_tensors(.., &Device::Cpu)`: weights loaded onto the host; so are
        // those a constructor has built by a function given the host (`init_model(.., &Device::Cpu)`,
        // not a tensor factory).
        let host_builder = self.st().constructor && !t::TENSOR_TYPES.contains(&prev);
        if (t::is_weight_loader(prev, last) || host_builder)
            && args.iter().any(|a| {
                a.v.kind == ValueKind::Device
                    && a.v.device == Device::Cpu
                    && a.v.origin.as_ref().is_some_and(|o| !o.is_transfer)
            })
        {
            let meta = &mut self.st().func.meta;
            if meta.weights == crate::ir::WeightsPlace::Unknown {
                meta.weights = crate::ir::WeightsPlace::Host;
            }
        }

        // Tensor factories.
        if t::TENSOR_TYPES.contains(&prev) {
            // Any constructor of a tensor type given host data (`Tensor::new(tokens.as_slice(),
            // dev)`, a crate's own `Tensor::from_i64_slice`) uploads it.
            self.record_upload(&reads);
            // tch's `Tensor::from(0.5 * x)`: a 0-dim tensor, which libtorch lets mix with a
            // tensor on any device (as PyTorch's `torch.tensor(0.5)`): host data, not placed.
            let number = |e: &syn::Expr| match e {
                syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                    self.stack
                        .last()
                        .is_some_and(|st| st.number_params.iter().any(|n| i == n))
                }),
                other => is_scalar_expr(other),
            };
            if last == "from" && c.args.len() == 1 && number(&c.args[0]) {
                let mut v = tensor(span.clone(), Device::Unknown, None);
                let text = "Device::Cpu".to_string();
                v.host_scalar = Some(Arc::new(self.origin(span, None, text)));
                v.reads = reads;
                return Val::new(v);
            }
            if t::FACTORIES.contains(&last) {
                return Val::new(self.factory(last, &args, span, reads));
            }
            if t::COMBINING_FACTORIES.contains(&last) {
                let first = arg_tensors.first().cloned();
                self.maybe_op(last, arg_tensors, span.clone());
                let mut v = match first {
                    Some(f) => tensor(span, f.device, f.origin),
                    None => tensor(span, Device::Unknown, None),
                };
                v.reads = reads;
                return Val::new(v);
            }
        }

        // burn's `Param::from_tensor(t)`: a parameter of a module, which `to_device` / `fork` move
        // with the module: it is on the model's device, wherever `t` was built.
        if prev == "Param" && last == "from_tensor" && args.len() == 1 {
            let mut v = tensor(span, Device::Cached, None);
            v.reads = reads;
            return Val::new(v);
        }

        // The user's own factories, by their last path segment.
        if self.extra_factories.iter().any(|f| f == last) {
            return Val::new(self.factory(last, &args, span, reads));
        }

        // Functions that may be defined in the linted tree.
        let self_type = self.impls.last().and_then(|(ty, _)| ty.as_deref());
        let target = call_target(&segs, self_type);
        if let Some(target) = target {
            return Val::new(self.local_call(
                target,
                &args,
                arg_tensors,
                first_arg_device,
                span,
                reads,
            ));
        }
        let mut v = Value::unknown(span);
        v.reads = reads;
        Val::new(v)
    }

    fn factory(&mut self, name: &str, args: &[Val], span: Span, reads: Reads) -> Value {
        let device_arg = args.iter().find(|a| a.v.kind == ValueKind::Device);
        let (device, origin) = match device_arg {
            Some(a) => {
                // Point at the device itself: `Device::Cpu` inside `(Kind::Float, Device::Cpu)`.
                let (device_span, text) = match &a.v.origin {
                    Some(o) if o.device_span.is_some() => {
                        (o.device_span.clone(), o.device_text.clone())
                    }
                    _ => (Some(a.v.span.clone()), self.text(&a.v.span)),
                };
                let origin = self.origin(span.clone(), device_span, text);
                (a.v.device.clone(), Some(Arc::new(origin)))
            }
            // One argument, the data: `Tensor::from_slice(..)` (tch), `Tensor::try_from(x)`. With
            // more (candle's `from_slice(data, shape, &dev)`), the device is an argument whose
            // value is not known here.
            None if t::HOST_FACTORIES.contains(&name) && args.len() <= 1 => {
                // The host, implicitly.
                let text = "Device::Cpu".to_string();
                (
                    Device::Cpu,
                    Some(Arc::new(self.origin(span.clone(), None, text))),
                )
            }
            None => (Device::Unknown, None),
        };
        // Only a device decided here is this factory's origin; an inherited one keeps its own.
        let origin = if device.is_hard_coded() { origin } else { None };
        let from_host = if crate::frontend::is_shape_factory(name) {
            // A size or step read from a tensor is needed on the host to build this one
            // (a data-dependent shape): like a loop's end, not an avoidable sync.
            for read in args.iter().filter_map(|a| a.v.host_read.clone()) {
                self.emit(EventKind::HostDecision { read }, span.clone());
            }
            None
        } else {
            args.iter().find_map(|a| a.v.host_read.clone())
        };
        let on_host = device == Device::Cpu;
        let mut v = tensor(span.clone(), device, origin);
        v.reads = reads;
        if on_host {
            // Built on the host from host data: still a host copy, on its way back or not.
            v.host_read.clone_from(&from_host);
        }
        self.emit(
            EventKind::Create {
                factory: name.to_string(),
                value: v.clone(),
                from_host,
            },
            span.clone(),
        );
        if !t::HOST_DATA_FACTORIES.contains(&name) {
            self.device_work(span, std::slice::from_ref(&v));
        }
        v
    }

    fn eval_binary(&mut self, b: &syn::ExprBinary, span: Span) -> Val {
        use syn::BinOp as B;
        let before = self.st().func.events.len();
        let lhs = self.eval(&b.left);
        let rhs = self.eval(&b.right);
        let reads = reads_of(&[&lhs.v, &rhs.v]);
        let arith = matches!(
            b.op,
            B::Add(_) | B::Sub(_) | B::Mul(_) | B::Div(_) | B::Rem(_)
        );
        let compound = matches!(
            b.op,
            B::AddAssign(_) | B::SubAssign(_) | B::MulAssign(_) | B::DivAssign(_) | B::RemAssign(_)
        );
        if !(arith || compound) {
            // `start.elapsed() > timeout`: a deadline compares the reading with a limit; it
            // measures nothing.
            if matches!(
                b.op,
                B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) | B::Eq(_) | B::Ne(_)
            ) {
                for e in &mut self.st().func.events[before..] {
                    if let EventKind::TimerRead { pacing, .. } = &mut e.kind {
                        *pacing = true;
                    }
                }
            }
            // Comparisons keep the host read they use: `if next == eos { break }`.
            let mut v = Value::unknown(span);
            v.reads = reads;
            v.host_read = lhs.v.host_read.or(rhs.v.host_read);
            return Val::new(v);
        }
        if let (ValueKind::Timer(start), B::Sub(_)) = (rhs.v.kind, &b.op) {
            let end = crate::frontend::timer_end(start, lhs.v.kind);
            self.emit(
                EventKind::TimerRead {
                    start,
                    end,
                    pacing: false,
                },
                span.clone(),
            );
        }
        let op = self.text(&self.pm_span(b.op.span()));
        if lhs.v.is_tensorish() && rhs.v.is_tensorish() {
            self.maybe_op(&op, vec![lhs.v.clone(), rhs.v.clone()], span.clone());
        } else if let Some(read) = if compound {
            // `total -= x.item()`: the read fed in this time is the right-hand side's, not the one
            // an earlier loop left in `total`.
            rhs.v.host_read.clone().or_else(|| lhs.v.host_read.clone())
        } else {
            lhs.v.host_read.clone().or_else(|| rhs.v.host_read.clone())
        } {
            if lhs.v.kind == ValueKind::Host || rhs.v.kind == ValueKind::Host {
                self.emit(EventKind::HostArith { read }, span.clone());
            }
        }
        let mut v = if lhs.v.is_tensorish() || !rhs.v.is_tensorish() {
            lhs.v.clone()
        } else {
            rhs.v.clone()
        };
        if rhs.v.kind == ValueKind::Host && !v.is_tensorish() {
            v.kind = ValueKind::Host;
            if v.host_read.is_none() {
                v.host_read.clone_from(&rhs.v.host_read);
            }
        }
        v.var = None;
        v.reads = reads;
        v.span = span.clone();
        if compound {
            self.assign_to(&b.left, v.clone());
            return Val::new(Value::unknown(span));
        }
        Val::new(v)
    }

    fn eval_macro(&mut self, mac: &syn::Macro) -> Val {
        let start = mac
            .path
            .segments
            .first()
            .map_or(0, |s| self.pm_span(s.ident.span()).start);
        let span = start..self.pm_span(mac.delimiter.span().close()).end;
        let name = mac
            .path
            .segments
            .last()
            .map_or_else(|| Name::from(""), |s| Name::of(&s.ident));
        let is_log = t::LOG_MACROS.contains(&name.as_ref());
        // Most macros in model code log or wrap FFI calls: skip parsing one that names nothing a
        // rule reads (timer reads count). `vec![a, b]` is kept: its elements may be tensors.
        if &*name != "vec" {
            let text = self.src.get(span.clone()).unwrap_or("");
            if !crate::may_match(text)
                && !text.contains("elapsed")
                && !text.contains("duration_since")
            {
                return Val::new(Value::unknown(span));
            }
        }
        let Ok(args) = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated) else {
            return Val::new(Value::unknown(span));
        };
        if is_log {
            self.st().log_depth += 1;
        }
        let val = self.eval_aggregate(args.iter(), span);
        if is_log {
            self.st().log_depth -= 1;
        }
        val
    }
}

/// The implementing type and the implemented trait of an impl block (last path segments).
pub(super) fn impl_context(i: &syn::ItemImpl) -> (Option<String>, Option<String>) {
    let self_type = match &*i.self_ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    let trait_name = i
        .trait_
        .as_ref()
        .and_then(|(_, path, _)| path.segments.last().map(|s| s.ident.to_string()));
    (self_type, trait_name)
}

/// Name, place and role of a function, given the impl block it is in (`context`) and whether its
/// place makes it test code (`test_place`: a test target or a test module).
pub(super) fn function_meta(
    sig: &syn::Signature,
    attrs: &[syn::Attribute],
    context: (Option<String>, Option<String>),
    test_place: bool,
    span: Span,
) -> FunctionMeta {
    let (self_type, trait_name) = context;
    let name = sig.ident.to_string();
    let is_test = test_place || is_test_attrs(attrs);
    let in_module_trait = trait_name
        .as_deref()
        .is_some_and(|tr| t::MODULE_TRAITS.contains(&tr));
    FunctionMeta {
        is_forward_entry: !is_test && (t::is_forward_name(&name) || in_module_trait),
        name,
        self_type,
        trait_name,
        span,
        is_test,
        host_compute: false,
        weights: crate::ir::WeightsPlace::Unknown,
    }
}

/// The function a path call names: `Self::f` / `Type::f` a method, `f` / `module::f` a free
/// function; `Self::Variant(..)` and `Kind::Float(..)` (capitalised) are constructors, not calls.
pub(super) fn call_target<S: AsRef<str>>(
    segs: &[S],
    self_type: Option<&str>,
) -> Option<CallTarget> {
    let first_upper = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
    let last = segs.last()?.as_ref();
    if first_upper(last) {
        return None;
    }
    let prev = segs.len().checked_sub(2).map(|i| segs[i].as_ref());
    match prev {
        Some("Self") => self_type.map(|ty| CallTarget::Method {
            self_type: ty.to_string(),
            name: last.to_string(),
        }),
        Some(ty) if first_upper(ty) => Some(CallTarget::Method {
            self_type: ty.to_string(),
            name: last.to_string(),
        }),
        _ => Some(CallTarget::Free {
            name: last.to_string(),
        }),
    }
}

/// The last path segment of a field's type, through `Option`, `Box`, `Arc`, `Rc` and the
/// element type of `Vec` and `VecDeque` (`Option<Box<Encoder>>` → `Encoder`, `Vec<Layer>` →
/// `Layer`).
fn wrapped_type_name(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let name = seg.ident.to_string();
    if matches!(
        name.as_str(),
        "Option" | "Box" | "Arc" | "Rc" | "Vec" | "VecDeque"
    ) {
        if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
            if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                return wrapped_type_name(inner);
            }
        }
        return None;
    }
    Some(name)
}

/// The type a parameter's methods are looked up on: `&Guider`, `&mut dyn TextDecoder`,
/// `Box<dyn Decoder>`, `impl Decoder` (the first trait bound), by last path segment.
fn receiver_type_name(ty: &syn::Type) -> Option<String> {
    let bound = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        })
    };
    match ty {
        syn::Type::Reference(r) => receiver_type_name(&r.elem),
        syn::Type::Paren(p) => receiver_type_name(&p.elem),
        syn::Type::TraitObject(t) => bound(&t.bounds),
        syn::Type::ImplTrait(t) => bound(&t.bounds),
        syn::Type::Path(p) => {
            let seg = p.path.segments.last()?;
            if matches!(seg.ident.to_string().as_str(), "Box" | "Arc" | "Rc") {
                if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                    if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                        return receiver_type_name(inner);
                    }
                }
                return None;
            }
            Some(seg.ident.to_string())
        }
        _ => None,
    }
}

/// Whether a declared return type is host data only: numbers, `bool`, `String`, and vectors,
/// slices, arrays, tuples, `Option`s and `Result`s of them (`Vec<f32>`, `Result<(u32, f32)>`).
fn returns_host_data(output: &syn::ReturnType) -> bool {
    fn host(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(host),
            syn::Type::Array(a) => host(&a.elem),
            syn::Type::Slice(s) => host(&s.elem),
            syn::Type::Reference(r) => host(&r.elem),
            syn::Type::Path(p) => {
                let Some(seg) = p.path.segments.last() else {
                    return false;
                };
                let name = seg.ident.to_string();
                if t::is_number_type(&name) || matches!(name.as_str(), "bool" | "String" | "str") {
                    return true;
                }
                if !matches!(name.as_str(), "Vec" | "Option" | "Result" | "Box") {
                    return false;
                }
                let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
                    return false;
                };
                matches!(args.args.first(), Some(syn::GenericArgument::Type(inner)) if host(inner))
            }
            _ => false,
        }
    }
    matches!(output, syn::ReturnType::Type(_, ty) if host(ty))
}

/// Whether a declared return type is a tuple (in `Result` or `Option`) that holds a tensor and,
/// beside it, no host scalar (`Result<(Tensor, Vec<String>)>`, not `(Tensor, usize)`): a caller that
/// destructures it gives every name the tensors' device, which a shape must not get.
fn tensor_tuple_return(output: &syn::ReturnType) -> bool {
    const SCALARS: &[&str] = &[
        "usize", "isize", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64",
        "bool", "char",
    ];
    let syn::ReturnType::Type(_, ty) = output else {
        return false;
    };
    let mut ty = &**ty;
    // `Result<(..)>`, `anyhow::Result<(..), E>`, `Option<(..)>`: the first type argument.
    while let syn::Type::Path(p) = ty {
        let Some(seg) = p.path.segments.last() else {
            return false;
        };
        let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
            return false;
        };
        let Some(syn::GenericArgument::Type(inner)) = args.args.first() else {
            return false;
        };
        if !matches!(seg.ident.to_string().as_str(), "Result" | "Option") {
            return false;
        }
        ty = inner;
    }
    let syn::Type::Tuple(tuple) = ty else {
        return false;
    };
    let tensor = |t: &syn::Type| type_mentions(t, |n| t::TENSOR_TYPES.contains(&n));
    tuple.elems.iter().any(tensor)
        && tuple
            .elems
            .iter()
            .all(|e| tensor(e) || !type_mentions(e, |n| SCALARS.contains(&n)))
}

/// The field of `self` a `for` loop iterates: `self.layers`, `&self.layers`, `&mut self.layers`,
/// and those with `.iter()`, `.iter_mut()` or `.into_iter()`, then `.enumerate()` or not.
fn iterated_field(e: &Expr) -> Option<&syn::Ident> {
    match e {
        Expr::Reference(r) => iterated_field(&r.expr),
        Expr::Paren(p) => iterated_field(&p.expr),
        Expr::Field(f) if is_self_path(&f.base) => match &f.member {
            syn::Member::Named(name) => Some(name),
            syn::Member::Unnamed(_) => None,
        },
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "iter" | "iter_mut" | "into_iter" | "enumerate"
                ) =>
        {
            iterated_field(&m.receiver)
        }
        _ => None,
    }
}

/// Whether a `for` loop's iterable ends with `.enumerate()` (its items are `(index, element)`).
fn is_enumerate(e: &Expr) -> bool {
    matches!(e, Expr::MethodCall(m) if m.method == "enumerate")
}

/// `self`, as an expression.
fn is_self_path(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("self"))
}

/// Whether a `match` arm's pattern is a bare backend name, `"cuda"` or `"metal"` in any case
/// (alone or among alternatives): the user asked for that backend, not for one of its devices.
/// So is its first device named with its ordinal (`"cuda:0" => Device::new_cuda(0)?`): a parser
/// of the caller's device name, which names the ordinal itself.
fn matches_bare_backend(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Lit(l) => is_bare_backend_literal(&l.lit),
        syn::Pat::Or(o) => o.cases.iter().any(matches_bare_backend),
        _ => false,
    }
}

/// A string literal naming a backend, `"cuda"` or `"metal"` in any case, or its first device
/// (`"cuda:0"`): see [`matches_bare_backend`].
fn is_bare_backend_literal(lit: &syn::Lit) -> bool {
    matches!(lit, syn::Lit::Str(s) if matches!(
        s.value().to_ascii_lowercase().as_str(),
        "cuda" | "metal" | "gpu" | "cuda:0" | "metal:0" | "gpu:0"
    ))
}

/// Whether an `if` condition compares a name with a bare backend name (`s == "cuda"`,
/// `name.eq_ignore_ascii_case("cuda")`): see [`matches_bare_backend`].
fn compares_bare_backend(cond: &Expr) -> bool {
    let bare = |e: &Expr| matches!(e, Expr::Lit(l) if is_bare_backend_literal(&l.lit));
    match cond {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => bare(&b.left) || bare(&b.right),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
            compares_bare_backend(&b.left) || compares_bare_backend(&b.right)
        }
        Expr::MethodCall(m) if m.method == "eq_ignore_ascii_case" || m.method == "eq" => m
            .args
            .first()
            .is_some_and(|a| bare(a) || matches!(a, Expr::Reference(r) if bare(&r.expr))),
        Expr::Paren(p) => compares_bare_backend(&p.expr),
        _ => false,
    }
}

/// Joins the values of two branches: equal devices stay, a known device wins over an unknown one.
fn join(a: Value, b: Value) -> Value {
    let known = |v: &Value| v.kind != ValueKind::Other && v.device != Device::Unknown;
    match (known(&a), known(&b)) {
        (true, false) => a,
        (false, true) => b,
        (true, true) if a.device == b.device => a,
        (true, true) => {
            let mut v = a;
            v.device = Device::Unknown;
            v.origin = None;
            v
        }
        (false, false) => {
            // `if sample { sampled } else { argmax }`: a token from the same read either way.
            let read = a.host_read.clone().or_else(|| b.host_read.clone());
            let mut v = if a.kind == ValueKind::Other { b } else { a };
            if v.host_read.is_none() {
                v.host_read = read;
            }
            v
        }
    }
}

fn int_literal(e: &Expr) -> Option<u32> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        Expr::Paren(p) => int_literal(&p.expr),
        _ => None,
    }
}

fn collect_pat_idents(pat: &Pat, out: &mut Vec<String>) {
    struct Idents<'o>(&'o mut Vec<String>);
    impl<'ast> Visit<'ast> for Idents<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Idents(out).visit_pat(pat);
}

/// Whether a type names (anywhere in it, generics included) an identifier matching `pred`.
fn type_mentions(ty: &syn::Type, pred: impl Fn(&str) -> bool) -> bool {
    struct Finder<F> {
        pred: F,
        found: bool,
    }
    impl<'ast, F: Fn(&str) -> bool> Visit<'ast> for Finder<F> {
        fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
            if (self.pred)(&Name::of(&seg.ident)) {
                self.found = true;
            }
            syn::visit::visit_path_segment(self, seg);
        }
    }
    let mut f = Finder { pred, found: false };
    f.visit_type(ty);
    f.found
}

/// Whether a type derives a module trait (burn's `#[derive(Module)]`).
fn derives_module(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths.iter().any(|p| {
                        p.segments.last().is_some_and(|s| {
                            t::MODULE_TRAITS.contains(&s.ident.to_string().as_str())
                        })
                    })
                })
    })
}

/// Whether the attributes keep an item or statement out of release builds:
/// `#[cfg(debug_assertions)]`.
fn is_debug_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("debug_assertions"))
    })
}

/// The outer attributes of the expression kinds that carry them as statements.
fn expr_attrs(e: &Expr) -> Option<&[syn::Attribute]> {
    match e {
        Expr::Block(b) => Some(&b.attrs),
        Expr::If(i) => Some(&i.attrs),
        Expr::ForLoop(f) => Some(&f.attrs),
        Expr::Macro(m) => Some(&m.attrs),
        Expr::MethodCall(m) => Some(&m.attrs),
        Expr::Call(c) => Some(&c.attrs),
        Expr::Unsafe(u) => Some(&u.attrs),
        _ => None,
    }
}

/// `#[allow(dead_code)]` (or `#[allow(unused)]`), alone or among other lints.
fn allows_dead_code(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("allow")
            && a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .is_ok_and(|lints| {
                    lints
                        .iter()
                        .any(|l| l.is_ident("dead_code") || l.is_ident("unused"))
                })
    })
}

pub(super) fn is_test_attrs(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        let last = path.segments.last().map(|s| s.ident.to_string());
        match last.as_deref() {
            Some("test" | "bench" | "rstest" | "test_case") => true,
            Some("cfg") => a
                .parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test")),
            _ => false,
        }
    })
}

impl<'ast> Visit<'ast> for Lowerer<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_test_attrs(&m.attrs) || m.ident == "tests";
        if test && self.skip_test_modules {
            return;
        }
        if test {
            self.test_depth += 1;
        }
        // Items in a module are not methods of an enclosing impl.
        self.impls.push((None, None));
        syn::visit::visit_item_mod(self, m);
        self.impls.pop();
        if test {
            self.test_depth -= 1;
        }
    }

    fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
        let name = i.ident.to_string();
        let module = derives_module(&i.attrs);
        if let syn::Fields::Named(fields) = &i.fields {
            for field in &fields.named {
                let (Some(ident), Some(ty)) = (&field.ident, wrapped_type_name(&field.ty)) else {
                    continue;
                };
                // A burn module's `Param` field is a parameter, on the module's device wherever
                // it is built (`to_device` moves it): a store the constructors' stores join.
                if module && ty == "Param" {
                    let span = self.ident_range(ident);
                    self.emit(
                        EventKind::StoreField {
                            self_type: name.clone(),
                            field: ident.to_string(),
                            value: tensor(span.clone(), Device::Cached, None),
                        },
                        span,
                    );
                }
                self.field_types
                    .insert((name.clone(), ident.to_string()), ty);
            }
        }
        self.structs.insert(name);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if is_test_attrs(&i.attrs) {
            self.test_depth += 1;
        }
        self.impls.push(impl_context(i));
        self.impl_generics.push(
            i.generics
                .type_params()
                .map(|p| p.ident.to_string())
                .collect(),
        );
        syn::visit::visit_item_impl(self, i);
        self.impl_generics.pop();
        self.impls.pop();
        if is_test_attrs(&i.attrs) {
            self.test_depth -= 1;
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.note_dead_code(&f.vis, &f.attrs, &f.sig, &f.block);
        let meta = self.fn_meta(&f.sig, &f.attrs, false);
        self.impls.push((None, None));
        self.lower_fn(meta, &f.sig, &f.block);
        self.impls.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.note_dead_code(&f.vis, &f.attrs, &f.sig, &f.block);
        let meta = self.fn_meta(&f.sig, &f.attrs, true);
        self.lower_fn(meta, &f.sig, &f.block);
    }

    fn visit_item_trait(&mut self, i: &'ast syn::ItemTrait) {
        let outer = self.current_trait.replace(i.ident.to_string());
        syn::visit::visit_item_trait(self, i);
        self.current_trait = outer;
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(tr) = &self.current_trait {
            if returns_host_data(&f.sig.output) {
                self.host_trait_methods
                    .insert((tr.clone(), f.sig.ident.to_string()));
            }
        }
        if let Some(body) = &f.default {
            let meta = self.fn_meta(&f.sig, &f.attrs, false);
            self.lower_fn(meta, &f.sig, body);
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        // Expressions outside function bodies (consts, statics, array lengths).
        self.eval(e);
    }

    fn visit_item_macro(&mut self, _: &'ast syn::ItemMacro) {}

    fn visit_foreign_item_fn(&mut self, f: &'ast syn::ForeignItemFn) {
        // An `extern` declaration: a function with no body, known so that calls resolve to it.
        let meta = self.fn_meta(&f.sig, &f.attrs, false);
        self.begin_function(meta);
        self.end_function();
    }
}

/// Whether an expression is a number, not a slice or a vector: a literal, arithmetic, a field
/// (`self.gamma`), a dereference or a cast (`Tensor::from(-0.5 * c.ln())`).
fn is_scalar_expr(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_)),
        syn::Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Deref(_)) && is_scalar_operand(&u.expr)
        }
        syn::Expr::Binary(b) => is_scalar_operand(&b.left) && is_scalar_operand(&b.right),
        syn::Expr::Paren(p) => is_scalar_expr(&p.expr),
        syn::Expr::Cast(_) | syn::Expr::Field(_) => true,
        _ => false,
    }
}

/// An operand of scalar arithmetic: a scalar expression, a name or a method call on one
/// (`(2.0 * PI).ln()`).
fn is_scalar_operand(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) => true,
        syn::Expr::MethodCall(m) => is_scalar_operand(&m.receiver),
        other => is_scalar_expr(other),
    }
}

/// Whether `e` is a candle `VarBuilder` by its name (`vb`, `vb_attn`, `&vb`, `self.vb`), or a
/// prefixed one (`vb.pp("attn")`, `vb.push_prefix(..)`).
fn names_var_builder(e: &Expr) -> bool {
    let named = |name: &str| {
        name == "vb"
            || name.starts_with("vb_")
            || name.ends_with("_vb")
            || name == "var_builder"
            || name == "varbuilder"
    };
    match e {
        Expr::Path(p) => p.path.get_ident().is_some_and(|i| named(&i.to_string())),
        Expr::Field(f) => matches!(&f.member, syn::Member::Named(n) if named(&n.to_string())),
        Expr::Reference(r) => names_var_builder(&r.expr),
        Expr::Paren(p) => names_var_builder(&p.expr),
        Expr::MethodCall(m) => {
            matches!(
                m.method.to_string().as_str(),
                "pp" | "push_prefix" | "set_prefix" | "set_dtype" | "set_device" | "clone"
            ) && names_var_builder(&m.receiver)
        }
        _ => false,
    }
}
