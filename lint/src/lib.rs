//! placer-lint: finds device-placement bugs in machine-learning model code.
//!
//! Each file is parsed once and lowered into a placement IR ([`ir`]); rules read the IR, never
//! the syntax tree. Facts that need the whole tree (which functions are on a forward path, what
//! device a helper returns its tensor on) are computed across files before the rules run.
//!
//! ```
//! use placer_lint::{check_source, Settings};
//!
//! let src = r#"
//! use candle_core::{Device, Tensor};
//! struct M;
//! impl M {
//!     fn forward(&self, xs: &Tensor) -> candle_core::Result<Tensor> {
//!         let mask = Tensor::ones((4, 4), candle_core::DType::F32, &Device::Cpu)?;
//!         xs.broadcast_mul(&mask)
//!     }
//! }
//! "#;
//! let diagnostics = check_source("model.rs".as_ref(), src, &Settings::default());
//! assert_eq!(diagnostics[0].rule.name(), "tensor-on-default-device");
//! ```

#![warn(missing_docs, clippy::print_stdout, clippy::print_stderr)]

pub mod baseline;
mod checker;
pub mod config;
pub mod diagnostic;
pub mod diff;
mod engine;
pub mod fix;
mod frontend;
pub mod ir;
mod manifest;
pub mod notebook;
pub mod registry;
pub mod render;
pub mod rule;
mod rules;
pub mod settings;
mod stack;
mod suppression;
mod text;
mod utils;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashSet;

pub use diagnostic::{Diagnostic, Severity};
pub use registry::Rule;
pub use settings::Settings;
pub use suppression::{add_allow, add_allow_edits, AllowEdits};

/// Checks one file's source on its own (calls are followed within the file only).
pub fn check_source(path: &Path, source: &str, settings: &Settings) -> Vec<Diagnostic> {
    stack::on_large_stack(|| check_source_here(path, source, settings))
}

fn check_source_here(path: &Path, source: &str, settings: &Settings) -> Vec<Diagnostic> {
    let file = if frontend::python::is_python(path) {
        let mut file =
            frontend::python::lower_file(0, path, &Arc::from(source), &FxHashSet::default());
        frontend::rust::apply_settings(&mut file, settings);
        file
    } else {
        let test_target = manifest::DeclaredTargets::default().is_test_target(path);
        frontend::rust::lower_file(0, path, &Arc::from(source), settings, test_target, false)
    };
    let files = vec![file];
    let program = checker::Program::new(&files);
    let diagnostics = checker::Checker::new(&program, &files[0], settings).run();
    finish(&files[0], diagnostics, settings)
}

/// What every file's findings go through after the rules: `per-file-ignores`, suppression
/// comments (reporting the unused ones), then output order.
fn finish(
    file: &ir::File,
    mut diagnostics: Vec<Diagnostic>,
    settings: &Settings,
) -> Vec<Diagnostic> {
    diagnostics.retain(|d| !settings.is_ignored_in(d.rule, &file.path));
    let mut diagnostics = suppression::apply(&file.path, &file.source, diagnostics, settings);
    sort(&mut diagnostics);
    diagnostics
}

/// The text diagnostics' spans point into: for a notebook, its code cells joined (each after a
/// marker line naming the cell); for any other file, `source` itself.
pub fn analysed_source(path: &Path, source: &str) -> Arc<str> {
    if frontend::python::is_notebook(path) {
        if let Ok(code) = frontend::python::notebook::code_cells(source) {
            return Arc::from(code);
        }
    }
    Arc::from(source)
}

/// A checked file with its findings.
#[derive(Clone, Debug)]
pub struct FileReport {
    /// The path, as found by the walk.
    pub path: PathBuf,
    /// Its source (lossily decoded if it was not UTF-8), for rendering.
    pub source: Arc<str>,
    /// Its findings, by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// The result of checking a tree.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Files with at least one finding, by path.
    pub files: Vec<FileReport>,
    /// How many files were checked (every one is read and parsed).
    pub files_checked: usize,
    /// How many of those were lowered and analysed (the others name no tensor API).
    pub files_lowered: usize,
    /// Wall time of the whole check, in seconds.
    pub elapsed_secs: f64,
    /// What could not be checked and was skipped (an unreadable directory), one message each.
    pub skipped: Vec<String>,
}

impl Report {
    /// All diagnostics, in output order.
    pub fn diagnostics(&self) -> impl Iterator<Item = (&FileReport, &Diagnostic)> {
        self.files
            .iter()
            .flat_map(|f| f.diagnostics.iter().map(move |d| (f, d)))
    }
}

/// Why a check could not run.
#[derive(Debug)]
pub enum Error {
    /// A path given on the command line does not exist.
    PathNotFound(PathBuf),
    /// Walking the tree failed.
    Walk(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::PathNotFound(p) => write!(f, "path not found: {}", p.display()),
            Error::Walk(e) => write!(f, "cannot walk the tree: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// Lists the `.rs`, `.py`, `.pyi` and `.ipynb` files under `paths`, honouring `.gitignore`,
/// sorted. A path naming a file is taken whatever its extension. A file reached twice (`a.rs
/// ./a.rs`, or a directory and a file in it) is listed once. Directories that cannot be read
/// are skipped (see [`discover_reporting`]).
///
/// # Errors
/// [`Error::PathNotFound`] if a path does not exist.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    discover_reporting(paths).map(|(files, _)| files)
}

/// As [`discover`], also returning a message for each directory or entry that could not be
/// read (they are skipped; the rest of the tree is still listed).
///
/// # Errors
/// [`Error::PathNotFound`] if a path does not exist.
pub fn discover_reporting(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<String>), Error> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(Error::PathNotFound(path.clone()));
        }
        if path.is_file() {
            out.push(path.clone());
            continue;
        }
        for entry in ignore::WalkBuilder::new(path).require_git(false).build() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    skipped.push(format!("cannot read {e}; skipped"));
                    continue;
                }
            };
            let p = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file())
                && p.extension()
                    .is_some_and(|e| e == "rs" || e == "py" || e == "pyi" || e == "ipynb")
            {
                // `placer check .` reports `src/m.rs`, not `./src/m.rs`, as ruff and rustc.
                out.push(p.strip_prefix("./").unwrap_or(p).to_path_buf());
            }
        }
    }
    out.sort();
    out.dedup();
    if paths.len() > 1 {
        // Two paths can reach one file under two names: keep the first name.
        let mut seen = std::collections::HashSet::new();
        out.retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    }
    Ok((out, skipped))
}

/// Reads a file; a file that is not UTF-8 yields its lossy text and the offset of the first bad byte.
fn read(path: &Path) -> (Arc<str>, Option<(usize, String)>) {
    decode(std::fs::read(path))
}

/// A file's contents as text, as [`read`] gives them.
fn decode(contents: std::io::Result<Vec<u8>>) -> (Arc<str>, Option<(usize, String)>) {
    match contents {
        Err(e) => (Arc::from(""), Some((0, format!("cannot read file: {e}")))),
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => (Arc::from(s), None),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                (
                    Arc::from(text),
                    Some((
                        at,
                        format!("file is not valid UTF-8 (invalid byte at offset {at})"),
                    )),
                )
            }
        },
    }
}

fn anchors() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        use frontend::rust::tables as t;
        // Substring anchors first, identifier anchors last (see `may_match`).
        let substrings = t::ANCHORS.iter().chain(t::HOST_READS).chain(t::EMPTY_CACHE);
        aho_corasick::AhoCorasick::new(substrings.chain(t::IDENT_ANCHORS))
            .expect("anchor patterns are valid")
    })
}

/// Whether a source could produce any finding: it names at least one API anchor.
pub fn may_match(source: &str) -> bool {
    use frontend::rust::tables as t;
    let substrings = t::ANCHORS.len() + t::HOST_READS.len() + t::EMPTY_CACHE.len();
    let bytes = source.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    anchors().find_overlapping_iter(source).any(|m| {
        m.pattern().as_usize() < substrings
            || (m.start() == 0 || !ident(bytes[m.start() - 1]))
                && bytes.get(m.end()).is_none_or(|&b| !ident(b))
    })
}

/// Whether a text names a tensor API ([`may_match`]) or one of the user's own factories.
pub(crate) fn anchored(text: &str, extra_factories: &[String]) -> bool {
    may_match(text) || extra_factories.iter().any(|f| text.contains(f.as_str()))
}

/// Reads, parses and lowers one file. `test_target`: its crate's manifest declares it as a test,
/// bench or example target.
fn lower(
    id: usize,
    path: &Path,
    contents: std::io::Result<Vec<u8>>,
    settings: &Settings,
    test_target: bool,
) -> ir::File {
    let (source, bad) = decode(contents);
    let id = ir::FileId::try_from(id).unwrap_or(ir::FileId::MAX);
    if let Some((at, message)) = bad {
        let at = at.min(source.len());
        let end = source[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8());
        let mut file = ir::File::new(id, path, source, false);
        file.syntax_error = Some((at..end, message));
        return file;
    }
    if frontend::python::is_python(path) {
        let file = frontend::python::lower_file(id, path, &source, &FxHashSet::default());
        return finish_python(file, settings);
    }
    let test_only = !settings.include_tests
        && (test_target || frontend::rust::is_test_path(path) || settings.is_test_path(path));
    if test_only || settings.prefilter && !anchored(&source, &settings.extra_factories) {
        // Every file is parsed, since `syntax-error` can fire in any file. A file that names no
        // tensor API can take part in a finding only through its calls, so only its call graph
        // is lowered; test code that is not checked needs not even that (nothing outside a test
        // target can call into one).
        let mut file = frontend::rust::lower_calls_only(id, path, &source, test_target);
        if file.syntax_error.is_none() {
            if test_only {
                file.functions.clear();
            }
            frontend::rust::apply_settings(&mut file, settings);
            return file;
        }
    }
    let mut file =
        frontend::rust::lower_file(id, path, &source, settings, test_target, settings.prefilter);
    mark_unsupported(&mut file);
    file
}

/// Marks a Rust file that does not parse as unsupported when its crate is of the 2015 edition
/// (whose syntax `syn` does not fully read), unless it is too deep to parse at all.
fn mark_unsupported(file: &mut ir::File) {
    if file.syntax_error.is_some()
        && frontend::rust::too_deep(&file.source).is_none()
        && crate_edition(&file.path).as_deref() == Some("2015")
    {
        file.unsupported = true;
    }
}

/// The edition of the crate `path` belongs to: the `package.edition` of the nearest
/// `Cargo.toml` with a `[package]` table above it (`"2015"` when it names none, as cargo reads
/// it); `None` when no such manifest is found or the edition comes from the workspace.
pub fn crate_edition(path: &Path) -> Option<String> {
    let abs = std::path::absolute(path).ok()?;
    let table = abs
        .ancestors()
        .skip(1)
        .find_map(manifest::package_manifest)??;
    let package = table.get("package").and_then(toml::Value::as_table)?;
    match package.get("edition") {
        None => Some("2015".to_string()),
        Some(toml::Value::String(e)) => Some(e.clone()),
        Some(_) => None,
    }
}

/// Reads a file, refusing anything but a regular file (following symlinks): a FIFO or a device
/// given where a file is expected would block the run or never end.
///
/// # Errors
/// The file cannot be read, or is not a regular file ([`std::io::ErrorKind::InvalidInput`]).
pub fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    std::fs::read(path)
}

/// The files with call-graph-only code that may call a helper returning a tensor on a
/// hard-coded device: ops on such a helper's result are the only events code without API names
/// can produce, so these files must be lowered in full. A call-graph-only file qualifies when its
/// text contains the helper's name, and its type for a method (its calls are not resolved
/// through `use` renames); a call-graph-only function of a fully lowered file when it calls such
/// a helper.
fn needing_full_lowering(program: &checker::Program<'_>, files: &[ir::File]) -> Vec<usize> {
    let needs = program.names_needed();
    let mut strings: Vec<&str> = needs.iter().flatten().map(String::as_str).collect();
    strings.sort_unstable();
    strings.dedup();
    if strings.is_empty() {
        return Vec::new();
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&strings) else {
        return Vec::new();
    };
    let ids: Vec<Vec<usize>> = needs
        .iter()
        .map(|need| {
            need.iter()
                .filter_map(|s| strings.binary_search(&s.as_str()).ok())
                .collect()
        })
        .collect();
    files
        .par_iter()
        .enumerate()
        .filter(|(_, f)| {
            if !f.calls_only {
                return f
                    .functions
                    .iter()
                    .any(|g| g.calls_only && program.calls_hard_coded_helper(g, f.id));
            }
            if f.functions.is_empty() {
                return false;
            }
            let mut found = vec![false; strings.len()];
            for m in ac.find_overlapping_iter(&*f.source) {
                found[m.pattern().as_usize()] = true;
            }
            ids.iter().any(|need| need.iter().all(|&i| found[i]))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The analysed tree behind a [`Report`] from [`analyse_paths`]: every file's source and IR.
///
/// Dropping it frees them, which takes a while on a big tree (10 ms for 500 files); a process
/// about to exit can skip that with [`std::mem::forget`], as rustc does with its arenas.
pub struct Analysis {
    _files: Vec<ir::File>,
}

/// As [`check_paths`], but hands back the analysed tree instead of freeing it, so that the
/// caller decides when (or whether) to pay for that.
///
/// # Errors
/// As [`check_paths`].
pub fn analyse_paths(paths: &[PathBuf], settings: &Settings) -> Result<(Report, Analysis), Error> {
    let (report, files) = check_tree(paths, settings)?;
    Ok((report, Analysis { _files: files }))
}

/// Checks every `.rs`, `.py`, `.pyi` and `.ipynb` file under `paths`: files are read, parsed and lowered in parallel, then the
/// rules run per file in parallel. Output is sorted by path, line and column.
///
/// # Errors
/// [`Error::PathNotFound`] if a path does not exist; [`Error::Walk`] if the walk fails.
pub fn check_paths(paths: &[PathBuf], settings: &Settings) -> Result<Report, Error> {
    check_tree(paths, settings).map(|(report, _)| report)
}

/// As [`analyse_paths`], for files the caller has already found and read (each path with its
/// contents, or the error reading it): the findings come from exactly these bytes, so that a
/// cache keyed on them never stores findings of another version of a file.
pub fn analyse_contents(
    files: Vec<(PathBuf, std::io::Result<Vec<u8>>)>,
    settings: &Settings,
) -> (Report, Analysis) {
    let start = Instant::now();
    let (found, contents): (Vec<PathBuf>, Vec<_>) = files.into_iter().unzip();
    let (report, files) = check_found(
        start,
        &found,
        contents.into_iter().map(Some).collect(),
        settings,
    );
    (report, Analysis { _files: files })
}

/// [`check_paths`], returning the lowered files as well.
fn check_tree(paths: &[PathBuf], settings: &Settings) -> Result<(Report, Vec<ir::File>), Error> {
    stack::in_pool(|| check_tree_in_pool(paths, settings))
}

fn check_tree_in_pool(
    paths: &[PathBuf],
    settings: &Settings,
) -> Result<(Report, Vec<ir::File>), Error> {
    let start = Instant::now();
    let (mut found, skipped) = discover_reporting(paths)?;
    found.retain(|p| !settings.is_excluded(p));
    let contents = found.iter().map(|_| None).collect();
    let (mut report, files) = check_found(start, &found, contents, settings);
    report.skipped = skipped;
    Ok((report, files))
}

/// Checks the files `found`, with their contents where already read (read here otherwise).
fn check_found(
    start: Instant,
    found: &[PathBuf],
    mut contents: Vec<Option<std::io::Result<Vec<u8>>>>,
    settings: &Settings,
) -> (Report, Vec<ir::File>) {
    let mut declared = manifest::DeclaredTargets::default();
    let test_targets: Vec<bool> = found.iter().map(|p| declared.is_test_target(p)).collect();
    let work: Vec<(usize, Option<std::io::Result<Vec<u8>>>)> = largest_first(found)
        .into_iter()
        .map(|i| (i, contents[i].take()))
        .collect();
    let mut files: Vec<ir::File> = work
        .into_par_iter()
        .with_max_len(1)
        .map(|(i, c)| {
            let c = c.unwrap_or_else(|| std::fs::read(&found[i]));
            lower(i, &found[i], c, settings, test_targets[i])
        })
        .collect();
    let files_checked = files.len();
    files.sort_by_key(|f| f.id);
    relower_with_aliases(&mut files, settings);
    // Lower in full what the call-graph-only files turn out to need, until nothing more is.
    let program = loop {
        let program = checker::Program::index(&files);
        let needed = needing_full_lowering(&program, &files);
        if needed.is_empty() {
            break program.complete();
        }
        drop(program);
        let fresh: Vec<(usize, ir::File)> = needed
            .par_iter()
            .map(|&i| {
                let f = &files[i];
                let full = frontend::rust::lower_file(
                    f.id,
                    &f.path,
                    &f.source,
                    settings,
                    test_targets[i],
                    false,
                );
                (i, full)
            })
            .collect();
        for (i, full) in fresh {
            files[i] = full;
        }
    };
    let mut reports: Vec<FileReport> = files
        .par_iter()
        .filter_map(|file| {
            let diagnostics = checker::Checker::new(&program, file, settings).run();
            let diagnostics = finish(file, diagnostics, settings);
            if diagnostics.is_empty() {
                return None;
            }
            Some(FileReport {
                path: file.path.clone(),
                source: file.source.clone(),
                diagnostics,
            })
        })
        .collect();
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    let files_lowered = files.iter().filter(|f| !f.calls_only).count();
    drop(program);
    let report = Report {
        files: reports,
        files_checked,
        files_lowered,
        elapsed_secs: start.elapsed().as_secs_f64(),
        skipped: Vec::new(),
    };
    (report, files)
}

/// Applies the settings to a lowered Python file: test code is dropped unless checked.
fn finish_python(mut file: ir::File, settings: &Settings) -> ir::File {
    let is_test = frontend::python::is_test_path(&file.path) || settings.is_test_path(&file.path);
    if !settings.include_tests && is_test {
        file.functions.clear();
    }
    frontend::rust::apply_settings(&mut file, settings);
    file
}

/// Lowers again, with the tree's tensor type aliases, the Python files that annotate a
/// parameter with an alias another file defines (`tf: HomMatrix`, imported from `types.py`):
/// lowering is per file, and only the whole tree knows the alias.
fn relower_with_aliases(files: &mut [ir::File], settings: &Settings) {
    let aliases: FxHashSet<String> = files
        .iter()
        .flat_map(|f| f.tensor_aliases.iter().cloned())
        .collect();
    if aliases.is_empty() {
        return;
    }
    let needed: Vec<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            !frontend::python::is_notebook(&f.path)
                && f.unresolved_annotations.iter().any(|n| aliases.contains(n))
        })
        .map(|(i, _)| i)
        .collect();
    let fresh: Vec<(usize, ir::File)> = needed
        .par_iter()
        .map(|&i| {
            let f = &files[i];
            let file = frontend::python::lower_file(f.id, &f.path, &f.source, &aliases);
            (i, finish_python(file, settings))
        })
        .collect();
    for (i, file) in fresh {
        files[i] = file;
    }
}

/// Indices of `paths`, largest file first: with one file per task, the tail of a parallel run is
/// small files on every core instead of one core parsing a 500 KB generated file alone.
fn largest_first(paths: &[PathBuf]) -> Vec<usize> {
    let mut order: Vec<(usize, u64)> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (i, std::fs::metadata(p).map_or(0, |m| m.len())))
        .collect();
    order.sort_by_key(|&(i, len)| (std::cmp::Reverse(len), i));
    order.into_iter().map(|(i, _)| i).collect()
}

/// Reads and parses every file under `paths` (`syn` for Rust, ruff's parser for Python) in
/// parallel without lowering or checking
/// (the baseline the analysis is benchmarked against). Returns the number of files that parsed.
///
/// # Errors
/// As [`check_paths`].
pub fn parse_only(paths: &[PathBuf]) -> Result<usize, Error> {
    let found = discover(paths)?;
    Ok(stack::in_pool(|| parse_all(&found)))
}

fn parse_all(found: &[PathBuf]) -> usize {
    largest_first(found)
        .par_iter()
        .with_max_len(1)
        .filter(|&&i| {
            let (source, _) = read(&found[i]);
            if frontend::python::is_python(&found[i]) {
                let code = analysed_source(&found[i], &source);
                return stack::guarded(|| ruff_python_parser::parse_module(&code).is_ok())
                    .unwrap_or(false);
            }
            if frontend::rust::too_deep(&source).is_some() {
                return false;
            }
            let parsed = syn::parse_file(&source).is_ok();
            proc_macro2::extra::invalidate_current_thread_spans();
            parsed
        })
        .count()
}

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (&a.path, a.span.start, a.span.end, a.rule).cmp(&(
            &b.path,
            b.span.start,
            b.span.end,
            b.rule,
        ))
    });
}
