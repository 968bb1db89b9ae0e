//! The `placer` command line: a thin layer over `placer-lint`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use placer_lint::render::{self, Style};
use placer_lint::{Rule, Settings};

// syn's token trees are allocation-heavy: mimalloc makes parsing markedly faster than glibc malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Finds device-placement bugs in machine-learning model code.
#[derive(Parser)]
#[command(name = "placer", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check Rust files for device-placement bugs.
    Check(CheckArgs),
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
}

#[derive(clap::Args)]
#[allow(clippy::struct_excessive_bools)]
struct CheckArgs {
    /// Files or directories to check (directories are walked honouring .gitignore).
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// How to print findings.
    #[arg(long, value_enum, default_value_t = OutputFormat::Full)]
    output_format: OutputFormat,
    /// Run only these rules (codes or names, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    select: Vec<String>,
    /// Also run these rules (e.g. off-by-default pedantic ones).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    extend_select: Vec<String>,
    /// Do not run these rules.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    ignore: Vec<String>,
    /// Also check test code (#[test], #[cfg(test)], tests/, benches/, examples/).
    #[arg(long)]
    include_tests: bool,
    /// Parse every file even if it names no tensor API (for benchmarking; findings are the same).
    #[arg(long, hide = true)]
    no_prefilter: bool,
    /// Only read and parse the files, report nothing (for benchmarking).
    #[arg(long, hide = true)]
    parse_only: bool,
}

fn parse_rules(names: &[String]) -> Result<Vec<Rule>, String> {
    names
        .iter()
        .map(|n| {
            Rule::from_code_or_name(n.trim())
                .ok_or_else(|| format!("unknown rule `{n}` (see `placer rules` for the list)"))
        })
        .collect()
}

fn settings(args: &CheckArgs) -> Result<Settings, String> {
    let mut settings = if args.select.is_empty() {
        Settings::default()
    } else {
        Settings::only(&parse_rules(&args.select)?)
    };
    for rule in parse_rules(&args.extend_select)? {
        settings.set_enabled(rule, true);
    }
    for rule in parse_rules(&args.ignore)? {
        settings.set_enabled(rule, false);
    }
    settings.include_tests = args.include_tests;
    settings.prefilter = !args.no_prefilter;
    Ok(settings)
}

fn check(args: &CheckArgs) -> ExitCode {
    let settings = match settings(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("placer: error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.parse_only {
        let start = std::time::Instant::now();
        return match placer_lint::parse_only(&args.paths) {
            Ok(n) => {
                eprintln!("parsed {n} files in {:.3} s", start.elapsed().as_secs_f64());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("placer: error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let report = match placer_lint::check_paths(&args.paths, &settings) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("placer: error: {e}");
            return ExitCode::from(2);
        }
    };
    if report.files_checked == 0 {
        eprintln!("placer: error: no Rust files found under the given paths");
        return ExitCode::from(2);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = match args.output_format {
        OutputFormat::Full => {
            let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let style = if color { Style::Color } else { Style::Plain };
            let width = std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.parse().ok())
                .unwrap_or(100);
            report.files.iter().try_for_each(|f| {
                out.write_all(
                    render::full(&f.path, &f.source, &f.diagnostics, style, width).as_bytes(),
                )
            })
        }
        OutputFormat::Concise => report.files.iter().try_for_each(|f| {
            out.write_all(render::concise(&f.path, &f.source, &f.diagnostics).as_bytes())
        }),
        OutputFormat::Json => {
            let all: Vec<_> = report
                .files
                .iter()
                .flat_map(|f| render::json(&f.path, &f.source, &f.diagnostics))
                .collect();
            serde_json::to_writer_pretty(&mut out, &all)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
        }
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("placer: error: cannot write output: {e}");
            return ExitCode::from(2);
        }
    }
    let total = report.diagnostics().count();
    let errors = report
        .diagnostics()
        .filter(|(_, d)| d.severity() == placer_lint::Severity::Error)
        .count();
    eprintln!(
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
    );
    if total == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn rules_markdown(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, content) in placer_lint::registry::rules_markdown() {
        std::fs::write(dir.join(name), content)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check(&args),
        Command::Rules { markdown: None } => {
            print!("{}", placer_lint::registry::rules_table());
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
                eprintln!("placer: error: unknown rule `{rule}` (see `placer rules` for the list)");
                return ExitCode::from(2);
            };
            println!("# {} ({})\n", rule.name(), rule.code());
            print!("{}", rule.explain_text());
            ExitCode::SUCCESS
        }
    }
}
