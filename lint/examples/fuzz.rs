//! A structure-aware fuzzer that runs on stable Rust: mutates seed files (token deletion,
//! duplication, nesting, splicing, byte noise) and runs each mutant through
//! parse → lower → check → every output format → fix → re-parse, as `.rs`, `.py` and `.ipynb`.
//!
//! A panic is a crash: the input is written to `FUZZ_OUT/crash-N.<ext>` and counted. A stack
//! overflow aborts the process; the input being run is always in `FUZZ_OUT/current.<ext>`, so
//! the driver (`scripts/fuzz.sh`) can keep it.
//!
//! Usage: `cargo run --release -p placer-lint --example fuzz -- SEED_DIR...`
//! env: `FUZZ_SECS` (time budget, default 60), `FUZZ_SEED` (RNG seed), `FUZZ_OUT` (default
//! `target/fuzz`). Prints executions, crashes and fix statistics at the end; exits 1 on a crash.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use placer_lint::render::{self, Style};
use placer_lint::{Rule, Settings};

/// xorshift64*: a small deterministic generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.next() % (n as u64)).unwrap_or(0)
        }
    }
}

/// Splits source into tokens: identifier/number runs, whitespace runs, single other chars.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut kind = 0u8;
    for (i, c) in s.char_indices() {
        let k = if c.is_alphanumeric() || c == '_' {
            1
        } else if c.is_whitespace() {
            2
        } else {
            3
        };
        if i > start && (k != kind || k == 3) {
            out.push(&s[start..i]);
            start = i;
        }
        kind = k;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

const DICTIONARY: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ".",
    "?",
    "&",
    "'",
    "\"",
    "#",
    "//",
    "/*",
    "*/",
    "r#\"",
    "\n",
    "\t",
    "\u{feff}",
    "é",
    "😀",
    "中",
    "\\",
    "Device::Cpu",
    "Device::Cuda(1)",
    ".to_device(&dev)?",
    "Tensor::zeros((2, 2), DType::F32, &Device::Cpu)?",
    "fn forward(&self, xs: &Tensor) -> Result<Tensor> {",
    "impl Module for M {",
    "for i in 0..10 {",
    "loss.item()",
    "torch.zeros(3)",
    "x.cuda()",
    ".to(x.device)",
    "def forward(self, x):",
    "class M(nn.Module):",
    "    ",
    "# placer: allow(P101)",
    "// placer: allow(",
    "# noqa: P101",
    "# %% [placer cell 2]",
    "# %% [placer cell 1 0000000000000000]",
    "async",
    "dyn",
    "if x:",
    "else",
    "lambda",
    "yield",
    "await",
    "::<",
    ">>",
    "=>",
    "->",
    "..=",
    "|",
    "||",
    "@",
];

/// One mutation of `src`, by token.
fn mutate(rng: &mut Rng, src: &str, other: &str) -> String {
    let toks = tokens(src);
    if toks.is_empty() {
        return DICTIONARY[rng.below(DICTIONARY.len())].to_string();
    }
    let count = toks.len();
    let from = rng.below(count);
    let to = (from + 1 + rng.below(16)).min(count);
    let mut out: Vec<&str> = Vec::with_capacity(count + 8);
    let nest;
    let pieces;
    match rng.below(8) {
        // Delete a run of tokens.
        0 => {
            out.extend(&toks[..from]);
            out.extend(&toks[to..]);
        }
        // Duplicate a run.
        1 => {
            out.extend(&toks[..to]);
            out.extend(&toks[from..]);
        }
        // Nest a run in brackets, many times.
        2 => {
            let deep = rng.below(10) == 0;
            let depth = 1 + rng.below(if deep { 1500 } else { 20 });
            let (open, close) = [("(", ")"), ("[", "]"), ("{", "}")][rng.below(3)];
            nest = (open.repeat(depth), close.repeat(depth));
            out.extend(&toks[..from]);
            out.push(&nest.0);
            out.extend(&toks[from..to]);
            out.push(&nest.1);
            out.extend(&toks[to..]);
        }
        // Insert a dictionary token.
        3 | 4 => {
            out.extend(&toks[..from]);
            out.push(DICTIONARY[rng.below(DICTIONARY.len())]);
            out.extend(&toks[from..]);
        }
        // Splice in a run of another seed.
        5 => {
            let other_toks = tokens(other);
            let at = rng.below(other_toks.len());
            let until = (at + 1 + rng.below(64)).min(other_toks.len());
            pieces = other_toks[at..until].concat();
            out.extend(&toks[..from]);
            out.push(&pieces);
            out.extend(&toks[to..]);
        }
        // Swap two tokens.
        6 => {
            let mut t = toks.clone();
            t.swap(from, rng.below(count));
            return t.concat();
        }
        // Repeat a run many times (long lines, long chains).
        _ => {
            let many = rng.below(10) == 0;
            let times = 1 + rng.below(if many { 3000 } else { 10 });
            pieces = toks[from..to].concat().repeat(times);
            out.extend(&toks[..from]);
            out.push(&pieces);
            out.extend(&toks[to..]);
        }
    }
    out.concat()
}

/// A notebook holding `code` split into cells, with a markdown cell of multibyte text.
fn notebook(rng: &mut Rng, code: &str) -> String {
    let lines: Vec<&str> = code.split_inclusive('\n').collect();
    let mut cells = vec![serde_json::json!({
        "cell_type": "markdown", "metadata": {}, "source": ["# Modèle 😀 中文\n"]
    })];
    let mut at = 0;
    while at < lines.len() {
        let take = 1 + rng.below(8);
        let end = (at + take).min(lines.len());
        cells.push(serde_json::json!({
            "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
            "source": lines[at..end],
        }));
        at = end;
    }
    let kernel = if rng.below(8) == 0 { "R" } else { "python" };
    serde_json::json!({
        "cells": cells,
        "metadata": {"kernelspec": {"language": kernel, "name": "k"}},
        "nbformat": 4, "nbformat_minor": 5,
    })
    .to_string()
}

struct Stats {
    execs: u64,
    crashes: u64,
    fixed: u64,
    fix_broke_parse: u64,
}

/// Runs one input through everything; panics on a bug.
fn run_one(path: &Path, source: &str, stats: &mut Stats) {
    let settings = Settings::only(Rule::ALL);
    let diagnostics = placer_lint::check_source(path, source, &settings);
    let shown = placer_lint::analysed_source(path, source);
    let _ = render::full(path, &shown, &diagnostics, Style::Plain, 100);
    let _ = render::concise(path, &shown, &diagnostics);
    let _ = render::github(path, &shown, &diagnostics);
    let json = render::json(path, &shown, &diagnostics);
    let _ = serde_json::to_string(&json).expect("json serialises");
    let _ = render::sarif(&[(path, &shown, &diagnostics)]);
    let baseline = placer_lint::baseline::Baseline::from_findings(
        diagnostics.iter().map(|d| (path, &*shown, d)),
    );
    let mut filter = baseline.filter();
    assert!(
        diagnostics.iter().all(|d| !filter.is_new(path, &shown, d)),
        "a baseline of the findings hides them all"
    );
    let _ = placer_lint::add_allow(path, &shown, &diagnostics);
    let parsed = diagnostics.iter().all(|d| d.rule != Rule::SyntaxError);
    if let Some((fixed, _)) = placer_lint::fix::apply(&shown, &diagnostics, true) {
        stats.fixed += 1;
        let again = placer_lint::check_source(path, &fixed, &settings);
        if parsed && again.iter().any(|d| d.rule == Rule::SyntaxError) {
            stats.fix_broke_parse += 1;
        }
    }
}

fn seeds(dirs: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.flatten().map(|e| e.path()));
            }
        } else if p
            .extension()
            .is_some_and(|e| e == "rs" || e == "py" || e == "ipynb")
        {
            if let Ok(text) = std::fs::read_to_string(&p) {
                if text.len() < 200_000 {
                    out.push((p, text));
                }
            }
        }
    }
    out.sort();
    out
}

fn main() {
    let dirs: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let corpus = seeds(&dirs);
    assert!(!corpus.is_empty(), "no seed files under {dirs:?}");
    let secs: u64 = std::env::var("FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let out_dir = PathBuf::from(std::env::var("FUZZ_OUT").unwrap_or_else(|_| "target/fuzz".into()));
    std::fs::create_dir_all(&out_dir).expect("create FUZZ_OUT");
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed | 1);
    let mut stats = Stats {
        execs: 0,
        crashes: 0,
        fixed: 0,
        fix_broke_parse: 0,
    };
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut pool: Vec<(PathBuf, String)> = corpus.clone();
    while Instant::now() < deadline {
        let (path, base) = pool[rng.below(pool.len())].clone();
        let (_, other) = &corpus[rng.below(corpus.len())];
        let mut text = base;
        for _ in 0..=rng.below(4) {
            text = mutate(&mut rng, &text, other);
        }
        let python = path.extension().is_some_and(|e| e != "rs");
        let (name, input) = match (python, rng.below(4)) {
            (true, 0) => ("fuzz.ipynb", notebook(&mut rng, &text)),
            (true, _) => ("fuzz.py", text.clone()),
            (false, _) => ("src/fuzz.rs", text.clone()),
        };
        let ext = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("txt");
        let _ = std::fs::write(out_dir.join(format!("current.{ext}")), &input);
        let file = Path::new(name);
        let input = Arc::<str>::from(input);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut s = Stats {
                execs: 0,
                crashes: 0,
                fixed: 0,
                fix_broke_parse: 0,
            };
            run_one(file, &input, &mut s);
            s
        }));
        stats.execs += 1;
        if let Ok(s) = outcome {
            stats.fixed += s.fixed;
            stats.fix_broke_parse += s.fix_broke_parse;
        } else {
            stats.crashes += 1;
            let keep = out_dir.join(format!("crash-{}.{ext}", stats.crashes));
            let _ = std::fs::write(&keep, &*input);
            eprintln!("crash: input kept in {}", keep.display());
        }
        // Keep some mutants as seeds, so that mutations stack up; bounded.
        if rng.below(8) == 0 && text.len() < 100_000 {
            if pool.len() > 4 * corpus.len() {
                let i = rng.below(pool.len());
                pool.swap_remove(i);
            }
            pool.push((path, text));
        }
    }
    println!(
        "fuzz: {} executions in {secs} s, {} crashes, {} fixed inputs ({} fixes that broke a parsing file, refused by the CLI), seeds {} (FUZZ_SEED={seed})",
        stats.execs,
        stats.crashes,
        stats.fixed,
        stats.fix_broke_parse,
        corpus.len()
    );
    if stats.crashes > 0 {
        std::process::exit(1);
    }
}
