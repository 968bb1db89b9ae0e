//! The `placer` command line: a thin layer over `placer-lint`, shared by the `placer` and
//! `cargo-placer` binaries.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use placer_lint::baseline::Baseline;
use placer_lint::config::{Config, ConfigError};
use placer_lint::diagnostic::Diagnostic;
use placer_lint::render::{self, Style};
use placer_lint::{Analysis, FileReport, Report, Rule, Settings, Severity};

mod cache;
mod write;

/// Finds device-placement bugs in machine-learning model code.
#[derive(Parser)]
#[command(name = "placer", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// The doc comments are clap's help texts, where backticks would show: "PyTorch" stays plain.
#[allow(clippy::doc_markdown)]
#[derive(Subcommand)]
enum Command {
    /// Check Rust (candle, tch, burn, placer-runtime) and Python (PyTorch) files and Jupyter
    /// notebooks for device-placement bugs.
    Check(Box<CheckArgs>),
    /// List every rule: code, name, category, default level and summary.
    Rules {
        /// Write one Markdown page per rule (and an index) into this directory instead.
        #[arg(long, value_name = "DIR")]
        markdown: Option<PathBuf>,
    },
    /// Print a rule's documentation.
    Explain {
        /// A rule code (`P101`) or name (`tensor-on-default-device`).
        rule: String,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// miette's graphical report, with source snippets and labels.
    Full,
    /// One line per finding: `path:line:col: level[CODE/name]: message`.
    Concise,
    /// A JSON array of findings (schema: docs/json.md).
    Json,
    /// One JSON object per line, same fields as `json`.
    JsonLines,
    /// SARIF 2.1.0, for code-scanning tabs (GitHub, GitLab, Azure DevOps).
    Sarif,
    /// GitHub Actions workflow annotations (`::error file=..,line=..::message`).
    Github,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    /// Colour on a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(clap::Args)]
#[allow(clippy::struct_excessive_bools)]
struct CheckArgs {
    /// Files or directories to check: `.rs`, `.py`, `.pyi` and `.ipynb` files (directories are
    /// walked honouring .gitignore).
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// How to print findings (`full` is plain, without colour, when piped).
    #[arg(long, value_enum, default_value_t = OutputFormat::Full)]
    output_format: OutputFormat,
    /// Use this configuration file instead of the nearest `placer.toml` / `Cargo.toml` table.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run only these rules (codes, names, prefixes like `P3`, or categories; comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    select: Vec<String>,
    /// Also run these rules (e.g. off-by-default pedantic ones).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    extend_select: Vec<String>,
    /// Do not run these rules.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    ignore: Vec<String>,
    /// Also check test code (Rust `#[test]`, `#[cfg(test)]`, `tests/`, `benches/`, `examples/`,
    /// and `[[test]]`, `[[bench]]` and `[[example]]` targets `Cargo.toml` declares elsewhere;
    /// Python `test_*.py`, `*_test.py`, `conftest.py`, `tests/`, `test/`, `testing/`). Python
    /// `examples/` and scripts are checked as scripts that choose their own device.
    #[arg(long)]
    include_tests: bool,
    /// Print the number of findings per rule after the findings.
    #[arg(long)]
    statistics: bool,
    /// Exit with 0 even when something is reported.
    #[arg(long)]
    exit_zero: bool,
    /// Print only the findings: no summary line.
    #[arg(short, long)]
    quiet: bool,
    /// When to colour `full` output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Append a `// placer: allow(..)` comment to every line with a finding (for adoption).
    #[arg(long, conflicts_with_all = ["fix", "diff", "write_baseline"])]
    add_allow: bool,
    /// Record the current findings in FILE (for adoption); exits 0.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Report only findings not recorded in this baseline FILE.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Report only findings on lines changed since this git revision (e.g. `origin/main`).
    #[arg(long, value_name = "REV")]
    diff_base: Option<String>,
    /// Apply safe fixes.
    #[arg(long)]
    fix: bool,
    /// Also apply unsafe fixes (with `--fix` or `--diff`).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them; exits 1 if there are any.
    #[arg(long)]
    diff: bool,
    /// Do not read or write the cache (`.placer_cache/`).
    #[arg(long, env = "PLACER_NO_CACHE", value_parser = clap::builder::FalseyValueParser::new())]
    no_cache: bool,
    /// Where to keep the cache [default: `.placer_cache` in the project root: the directory of
    /// the nearest configuration, or the checked paths' common ancestor].
    #[arg(long, value_name = "DIR", env = "PLACER_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Parse every file even if it names no tensor API (for benchmarking; findings are the same).
    #[arg(long, hide = true)]
    no_prefilter: bool,
    /// Only read and parse the files, report nothing (for benchmarking).
    #[arg(long, hide = true)]
    parse_only: bool,
}

/// A usage or environment error: printed, exit code 2.
struct Fatal(String);

impl From<ConfigError> for Fatal {
    fn from(e: ConfigError) -> Self {
        Fatal(e.to_string())
    }
}

impl From<placer_lint::Error> for Fatal {
    fn from(e: placer_lint::Error) -> Self {
        Fatal(e.to_string())
    }
}

fn resolve(names: &[String], flag: &str) -> Result<Vec<Rule>, Fatal> {
    let mut out = Vec::new();
    for n in names {
        out.extend(
            placer_lint::config::resolve_selector(n)
                .map_err(|e| Fatal(format!("{e} in `--{flag}`")))?,
        );
    }
    Ok(out)
}

/// The command line's rule choices, applied on top of a configuration's.
fn apply_flags(settings: &mut Settings, args: &CheckArgs) -> Result<(), Fatal> {
    if !args.select.is_empty() {
        let chosen = resolve(&args.select, "select")?;
        for &rule in Rule::ALL {
            settings.set_enabled(rule, chosen.contains(&rule));
        }
    }
    for rule in resolve(&args.extend_select, "extend-select")? {
        settings.set_enabled(rule, true);
    }
    for rule in resolve(&args.ignore, "ignore")? {
        settings.set_enabled(rule, false);
    }
    settings.include_tests |= args.include_tests;
    settings.prefilter = !args.no_prefilter;
    Ok(())
}

/// The checked paths grouped by the configuration that applies to them (`--config` for all).
fn groups(args: &CheckArgs) -> Result<Vec<(Settings, Vec<PathBuf>)>, Fatal> {
    let mut warnings = Vec::new();
    let explicit = match &args.config {
        Some(file) => Some(
            Config::load_reporting(file, &mut warnings)?
                .ok_or_else(|| Fatal(format!("{}: no placer table in it", file.display())))?,
        ),
        None => None,
    };
    let mut by_config: BTreeMap<Option<PathBuf>, (Option<Config>, Vec<PathBuf>)> = BTreeMap::new();
    for path in &args.paths {
        if !path.exists() {
            return Err(Fatal(format!("path not found: {}", path.display())));
        }
        let config = match &explicit {
            Some(c) => Some(c.clone()),
            None => Config::discover_reporting(path, &mut warnings)?,
        };
        let key = config.as_ref().and_then(|c| c.source.clone());
        by_config
            .entry(key)
            .or_insert_with(|| (config, Vec::new()))
            .1
            .push(path.clone());
    }
    warnings.dedup();
    for w in &warnings {
        say(&format!("placer: warning: {w}"));
    }
    by_config
        .into_values()
        .map(|(config, paths)| {
            let mut settings = match config {
                Some(c) => c.settings(&Settings::default())?,
                None => Settings::default(),
            };
            apply_flags(&mut settings, args)?;
            Ok((settings, paths))
        })
        .collect()
}

/// Checks every group (through the cache) and merges the reports in path order.
/// Checks every group; returns the merged report and the analysed trees behind it.
fn run(
    groups: &[(Settings, Vec<PathBuf>)],
    args: &CheckArgs,
) -> Result<(Report, Vec<Analysis>), Fatal> {
    let mut merged = Report::default();
    let mut trees = Vec::new();
    for (settings, paths) in groups {
        let (report, tree) = if args.no_cache {
            let (report, tree) = placer_lint::analyse_paths(paths, settings)?;
            (report, Some(tree))
        } else {
            cache::check(args.cache_dir.as_deref(), paths, settings)?
        };
        trees.extend(tree);
        merged.files.extend(report.files);
        merged.files_checked += report.files_checked;
        merged.files_lowered += report.files_lowered;
        merged.elapsed_secs += report.elapsed_secs;
        merged.skipped.extend(report.skipped);
    }
    merged.files.sort_by(|a, b| a.path.cmp(&b.path));
    merged.files.dedup_by(|a, b| a.path == b.path);
    Ok((merged, trees))
}

/// Whether a rewritten file still parses (a fix must never break a file).
fn parses(path: &Path, source: &str) -> bool {
    placer_lint::check_source(path, source, &Settings::only(&[]))
        .iter()
        .all(|d| d.rule != Rule::SyntaxError)
}

/// `--fix`: applies fixes and re-checks until nothing more applies (at most 10 passes).
/// Returns how many fixes were applied, the last report, and which files were written.
fn fix_in_place(
    groups: &[(Settings, Vec<PathBuf>)],
    args: &CheckArgs,
) -> Result<(usize, Report, write::Writes), Fatal> {
    let roots = write::Roots::new(&args.paths);
    let mut written = write::Writes::default();
    let mut total = 0;
    for _ in 0..10 {
        let (report, _) = run(groups, args)?;
        let mut applied = 0;
        written.next_pass();
        for f in &report.files {
            if written.has_failed(&f.path) || written.already_written(&f.path) {
                continue;
            }
            let Some((edits, n)) =
                placer_lint::fix::select(&f.source, &f.diagnostics, args.unsafe_fixes)
            else {
                continue;
            };
            let outcome = write::edit_file(&f.path, &f.source, &edits, &roots, parses);
            if written.record(&f.path, outcome) {
                applied += n;
            }
        }
        total += applied;
        if applied == 0 {
            return Ok((total, report, written));
        }
    }
    Ok((total, run(groups, args)?.0, written))
}

/// `--diff`: the fixes of one pass as a unified diff; the number of fixes.
fn fix_diff(report: &Report, unsafe_fixes: bool, out: &mut impl Write) -> std::io::Result<usize> {
    let mut total = 0;
    for f in &report.files {
        let Some((fixed, n)) = placer_lint::fix::apply(&f.source, &f.diagnostics, unsafe_fixes)
        else {
            continue;
        };
        total += n;
        let name = f.path.display().to_string();
        let header = |name: &str| {
            if f.path.is_absolute() {
                (name.to_string(), name.to_string())
            } else {
                (format!("a/{name}"), format!("b/{name}"))
            }
        };
        // A notebook's fixes are shown per cell, with lines counted within the cell.
        let edits = placer_lint::fix::select(&f.source, &f.diagnostics, unsafe_fixes)
            .map(|(edits, _)| edits)
            .unwrap_or_default();
        if let Some(changes) = write::notebook_changes(&f.path, &f.source, &edits) {
            for c in changes {
                let (old, new) = header(&format!("{name}:cell {}", c.index));
                let diff = similar::TextDiff::from_lines(&c.old, &c.new);
                write!(out, "{}", diff.unified_diff().header(&old, &new))?;
            }
            continue;
        }
        let (old, new) = header(&name);
        let diff = similar::TextDiff::from_lines(&*f.source, &fixed);
        write!(out, "{}", diff.unified_diff().header(&old, &new))?;
    }
    Ok(total)
}

/// Drops findings the baseline records and, with `--diff-base`, findings outside changed lines.
fn filter(report: &mut Report, args: &CheckArgs) -> Result<(), Fatal> {
    if let Some(file) = &args.baseline {
        let bytes = placer_lint::read_regular_file(file)
            .map_err(|e| Fatal(format!("cannot read baseline {}: {e}", file.display())))?;
        let baseline = Baseline::parse(&String::from_utf8_lossy(&bytes))
            .map_err(|e| Fatal(format!("{}: {e}", file.display())))?;
        let mut keep = baseline.filter();
        for f in &mut report.files {
            let (path, source) = (f.path.clone(), f.source.clone());
            f.diagnostics.retain(|d| keep.is_new(&path, &source, d));
        }
    }
    if let Some(base) = &args.diff_base {
        let changed = placer_lint::diff::ChangedLines::since_for_paths(base, &args.paths)
            .map_err(|e| Fatal(format!("--diff-base: {e}")))?;
        for f in &mut report.files {
            let index = placer_lint::diagnostic::LineIndex::new(&f.source);
            let (path, source) = (f.path.clone(), f.source.clone());
            f.diagnostics.retain(|d| {
                let first = index.line_col(&source, d.span.start).0;
                let last = index.line_col(&source, d.span.end).0;
                changed.touches(&path, first, last)
            });
        }
    }
    report.files.retain(|f| !f.diagnostics.is_empty());
    Ok(())
}

fn write_output(report: &Report, args: &CheckArgs, out: &mut impl Write) -> std::io::Result<()> {
    let terminal = std::io::stdout().is_terminal();
    match args.output_format {
        OutputFormat::Full => {
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none(),
            };
            let style = if color { Style::Color } else { Style::Plain };
            let width = std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.parse().ok())
                .unwrap_or(100);
            for text in render::full_all(&report.files, style, width) {
                out.write_all(text.as_bytes())?;
            }
        }
        OutputFormat::Concise => {
            for f in &report.files {
                out.write_all(render::concise(&f.path, &f.source, &f.diagnostics).as_bytes())?;
            }
        }
        OutputFormat::Github => {
            for f in &report.files {
                out.write_all(render::github(&f.path, &f.source, &f.diagnostics).as_bytes())?;
            }
        }
        OutputFormat::Json => {
            let all: Vec<_> = report
                .files
                .iter()
                .flat_map(|f| render::json(&f.path, &f.source, &f.diagnostics))
                .collect();
            serde_json::to_writer_pretty(&mut *out, &all).map_err(io_error)?;
            out.write_all(b"\n")?;
        }
        OutputFormat::JsonLines => {
            for f in &report.files {
                for d in render::json(&f.path, &f.source, &f.diagnostics) {
                    serde_json::to_writer(&mut *out, &d).map_err(io_error)?;
                    out.write_all(b"\n")?;
                }
            }
        }
        OutputFormat::Sarif => {
            let files: Vec<render::FileFindings<'_>> = report
                .files
                .iter()
                .map(|f| (f.path.as_path(), &*f.source, f.diagnostics.as_slice()))
                .collect();
            serde_json::to_writer_pretty(&mut *out, &render::sarif(&files)).map_err(io_error)?;
            out.write_all(b"\n")?;
        }
    }
    if args.statistics {
        let mut counts: BTreeMap<Rule, usize> = BTreeMap::new();
        for (_, d) in report.diagnostics() {
            *counts.entry(d.rule).or_default() += 1;
        }
        for (rule, n) in counts {
            let fixable = report
                .diagnostics()
                .filter(|(_, d)| d.rule == rule && d.fix.is_some())
                .count();
            let mark = if fixable > 0 { " [*]" } else { "" };
            writeln!(out, "{n:5}\t{}\t{}{mark}", rule.code(), rule.name())?;
        }
    }
    Ok(())
}

/// A `serde_json` error as the I/O error behind it, so that a closed pipe is still one.
fn io_error(e: serde_json::Error) -> std::io::Error {
    match e.io_error_kind() {
        Some(kind) => std::io::Error::new(kind, e),
        None => std::io::Error::other(e),
    }
}

/// Prints a line to stderr; a closed stderr is not worth a panic.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Findings that count as problems (notes do not).
fn problems(report: &Report) -> usize {
    report
        .diagnostics()
        .filter(|(_, d)| d.severity() != Severity::Note)
        .count()
}

fn summary(report: &Report) {
    let total = problems(report);
    let notes = report.diagnostics().count() - total;
    let errors = report
        .diagnostics()
        .filter(|(_, d)| d.severity() == Severity::Error)
        .count();
    if notes > 0 {
        say(&format!(
            "{notes} note{}: file{} placer does not read (see above)",
            plural(notes),
            plural(notes)
        ));
    }
    say(&format!(
        "{total} problem{} ({errors} error{}, {} warning{}) in {} file{}, checked {} file{} in {:.2} s",
        plural(total),
        plural(errors),
        total - errors,
        plural(total - errors),
        report.files.len(),
        plural(report.files.len()),
        report.files_checked,
        plural(report.files_checked),
        report.elapsed_secs
    ));
    let fixable = report
        .diagnostics()
        .filter(|(_, d)| d.fix.is_some())
        .count();
    if fixable > 0 {
        say(&format!(
            "{fixable} fixable with `--fix` or `--unsafe-fixes` (see `--diff`)"
        ));
    }
}

fn parse_only(args: &CheckArgs) -> ExitCode {
    let start = std::time::Instant::now();
    match placer_lint::parse_only(&args.paths) {
        Ok(n) => {
            eprintln!("parsed {n} files in {:.3} s", start.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("placer: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--add-allow`: adds suppression comments to the checked files; returns how many findings they
/// suppress and which files were written.
fn add_allow(report: &Report, args: &CheckArgs) -> (usize, write::Writes) {
    let roots = write::Roots::new(&args.paths);
    let mut written = write::Writes::default();
    let mut added = 0;
    for f in &report.files {
        let planned = placer_lint::add_allow_edits(&f.path, &f.source, &f.diagnostics);
        for (line, why) in &planned.skipped {
            let at = write::location(&f.path, &f.source, *line);
            eprintln!("placer: warning: {at}: no suppression comment added: {why}");
        }
        if planned.edits.is_empty() || written.already_written(&f.path) {
            continue;
        }
        let outcome = write::edit_file(&f.path, &f.source, &planned.edits, &roots, parses);
        if written.record(&f.path, outcome) {
            added += planned.suppressed;
        }
    }
    (added, written)
}

fn write_baseline(report: &Report, file: &Path) -> Result<usize, Fatal> {
    let findings = report.files.iter().flat_map(|f: &FileReport| {
        f.diagnostics
            .iter()
            .map(move |d: &Diagnostic| (f.path.as_path(), &*f.source, d))
    });
    let baseline = Baseline::from_findings(findings);
    let text = serde_json::to_string_pretty(&baseline).map_err(|e| Fatal(e.to_string()))?;
    write::replace(file, None, (text + "\n").as_bytes())
        .map_err(|e| Fatal(format!("cannot write {}: {e}", file.display())))?;
    Ok(baseline.findings.len())
}

fn check(args: &CheckArgs) -> Result<ExitCode, Fatal> {
    if args.parse_only {
        return Ok(parse_only(args));
    }
    let groups = groups(args)?;
    let mut fixed = 0;
    let mut trees = Vec::new();
    let mut written = write::Writes::default();
    // `--fix --diff` shows the fixes and writes nothing.
    let mut report = if args.fix && !args.diff {
        let (n, report, w) = fix_in_place(&groups, args)?;
        fixed = n;
        written = w;
        report
    } else {
        let (report, analysed) = run(&groups, args)?;
        trees = analysed;
        report
    };
    // The process exits once the report is out: the OS frees the analysed trees at once, where
    // dropping them would walk every file's IR first (as rustc leaves its arenas).
    std::mem::forget(trees);
    if report.files_checked == 0 {
        return Err(Fatal("no files to check under the given paths".to_string()));
    }
    if args.add_allow {
        let (n, written) = add_allow(&report, args);
        if !args.quiet {
            eprintln!("added suppressions for {n} finding{}", plural(n));
        }
        written.summary();
        return Ok(if written.failed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        });
    }
    if let Some(file) = &args.write_baseline {
        let n = write_baseline(&report, file)?;
        if !args.quiet {
            eprintln!("wrote {n} finding{} to {}", plural(n), file.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    filter(&mut report, args)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.diff {
        let n = match fix_diff(&report, args.unsafe_fixes, &mut out) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Err(e) => return Err(Fatal(format!("cannot write output: {e}"))),
        };
        if !args.quiet {
            eprintln!("{n} fix{} available", if n == 1 { "" } else { "es" });
        }
        return Ok(if n == 0 || args.exit_zero {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    for skipped in &report.skipped {
        say(&format!("placer: warning: {skipped}"));
    }
    // A reader that stops early (`| head`) is not an error: stop writing, quietly.
    if let Err(e) = write_output(&report, args, &mut out).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Fatal(format!("cannot write output: {e}")));
        }
    }
    if !args.quiet {
        if fixed > 0 {
            eprintln!("fixed {fixed} problem{}", plural(fixed));
        }
        summary(&report);
    }
    written.summary();
    if !written.failed.is_empty() {
        return Ok(ExitCode::from(2));
    }
    let total = problems(&report);
    Ok(if total == 0 || args.exit_zero {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Writes `text` to stdout; a reader that stopped early (`| head -1`) ends it quietly.
fn print_quietly(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn rules_markdown(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, content) in placer_lint::registry::rules_markdown() {
        write::replace(&dir.join(name), None, content.as_bytes()).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// Runs the command line given by `args` (program name first) and returns the exit code:
/// 0 nothing reported, 1 findings reported, 2 usage error or nothing could be checked.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = Cli::parse_from(args);
    match cli.command {
        Command::Check(args) => match check(&args) {
            Ok(code) => code,
            Err(Fatal(message)) => {
                say(&format!("placer: error: {message}"));
                ExitCode::from(2)
            }
        },
        Command::Rules { markdown: None } => {
            print_quietly(&placer_lint::registry::rules_table());
            ExitCode::SUCCESS
        }
        Command::Rules {
            markdown: Some(dir),
        } => match rules_markdown(&dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("placer: error: cannot write {}: {e}", dir.display());
                ExitCode::from(2)
            }
        },
        Command::Explain { rule } => {
            let Some(rule) = Rule::from_code_or_name(&rule) else {
                let names = Rule::ALL.iter().flat_map(|r| [r.code(), r.name()]);
                let hint = placer_lint::config::nearest(&rule, names)
                    .map(|h| format!("; did you mean `{h}`?"))
                    .unwrap_or_default();
                eprintln!("placer: error: unknown rule `{rule}`{hint} (see `placer rules`)");
                return ExitCode::from(2);
            };
            print_quietly(&format!(
                "# {} ({})\n\n{}",
                rule.name(),
                rule.code(),
                rule.explain_text()
            ));
            ExitCode::SUCCESS
        }
    }
}
