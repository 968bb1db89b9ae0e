//! End-to-end tests of placer in CI and daily use: configuration discovery, suppressions,
//! baselines, changed-code mode, output formats, fixes, the cache and `cargo placer`, each on a
//! temporary project.

use std::fs;
use std::path::Path;
use std::process::Command as Process;

use assert_cmd::Command;

fn placer() -> Command {
    let mut cmd = Command::cargo_bin("placer").expect("placer binary");
    cmd.arg("check").env("NO_COLOR", "1");
    cmd
}

const MODEL: &str = r"use candle_core::{DType, Device, Result, Tensor};

pub struct Block;
impl Block {
    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let bias = Tensor::zeros((4, 4), DType::F32, &Device::Cpu)?;
        xs.broadcast_add(&bias)
    }
}

pub fn mean_loss(losses: &[Tensor]) -> Result<f32> {
    let mut total = 0f32;
    for l in losses {
        total += l.to_scalar::<f32>()?;
    }
    Ok(total / losses.len() as f32)
}
";

fn write(dir: &Path, name: &str, content: &str) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, content).expect("write");
}

/// Runs `cmd` in `dir` and returns (exit code, stdout, stderr).
fn run(cmd: &mut Command, dir: &Path) -> (i32, String, String) {
    let out = cmd.current_dir(dir).output().expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "src/model.rs", MODEL);
    dir
}

fn codes(concise: &str) -> Vec<String> {
    concise
        .lines()
        .filter_map(|l| l.split('[').nth(1))
        .filter_map(|l| l.split('/').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn should_find_placer_toml_walking_up_from_the_checked_path() {
    let dir = project();
    write(dir.path(), "placer.toml", "ignore = [\"P301\"]\n");
    let (code, out, _) = run(
        placer().args(["src/model.rs", "--output-format", "concise"]),
        dir.path(),
    );
    assert_eq!(code, 1);
    assert_eq!(codes(&out), ["P101"], "{out}");
    // The same from a subdirectory: the config one level up still applies.
    let (_, out, _) = run(
        placer().args([".", "--output-format", "concise"]),
        &dir.path().join("src"),
    );
    assert_eq!(codes(&out), ["P101"], "{out}");
}

#[test]
fn should_read_cargo_metadata_tables_and_rule_levels() {
    let dir = project();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"m\"\nversion = \"0.1.0\"\n\n[package.metadata.placer.rules]\ntensor-on-default-device = \"warn\"\nP3 = \"allow\"\n",
    );
    let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(code, 1);
    assert_eq!(codes(&out), ["P101"], "{out}");
    assert!(
        out.contains("warning[P101/"),
        "level `warn` makes P101 a warning: {out}"
    );
}

#[test]
fn should_apply_per_file_ignores_exclude_and_extra_factories() {
    let dir = project();
    write(
        dir.path(),
        "src/gen/big.rs",
        &MODEL.replace("Block", "Generated"),
    );
    write(
        dir.path(),
        "src/helpers.rs",
        "use candle_core::{Device, Result, Tensor};\npub struct H;\nimpl H {\n    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {\n        let m = make_mask(4, &Device::Cpu)?;\n        xs.broadcast_mul(&m)\n    }\n}\n",
    );
    let (_, before, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert!(before.contains("src/gen/big.rs"), "{before}");
    assert!(
        !before.contains("src/helpers.rs"),
        "`make_mask` is unknown yet: {before}"
    );
    write(
        dir.path(),
        "placer.toml",
        "exclude = [\"src/gen\"]\nextra-factories = [\"make_mask\"]\n\n[per-file-ignores]\n\"src/model.rs\" = [\"host-sync-in-loop\"]\n",
    );
    let (_, after, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert!(!after.contains("src/gen/big.rs"), "excluded: {after}");
    assert!(
        after.contains("src/helpers.rs:5:"),
        "extra factory: {after}"
    );
    assert!(!after.contains("P301"), "per-file ignore: {after}");
}

#[test]
fn should_name_the_nearest_valid_key_or_rule_on_config_errors() {
    let dir = project();
    write(dir.path(), "placer.toml", "slect = [\"P101\"]\n");
    let (code, _, err) = run(&mut placer(), dir.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown key `slect`") && err.contains("did you mean `select`?"),
        "{err}"
    );
    write(
        dir.path(),
        "placer.toml",
        "ignore = [\"host-sync-in-lop\"]\n",
    );
    let (code, _, err) = run(&mut placer(), dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `host-sync-in-loop`?"), "{err}");
    // --config overrides discovery.
    write(dir.path(), "other.toml", "select = [\"P3\"]\n");
    let (code, out, _) = run(
        placer().args(["--config", "other.toml", "--output-format", "concise"]),
        dir.path(),
    );
    assert_eq!(code, 1);
    assert_eq!(codes(&out), ["P301"], "{out}");
}

#[test]
fn should_honour_suppressions_and_report_unused_ones() {
    let dir = project();
    let suppressed = MODEL
        .replace(
            "&Device::Cpu)?;",
            "&Device::Cpu)?; // placer: allow(tensor-on-default-device)",
        )
        .replace(
            "    for l in losses {",
            "    // placer: allow(P301, P202)\n    for l in losses {",
        );
    write(dir.path(), "src/model.rs", &suppressed);
    let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(code, 1);
    // The P301 comment sits above the loop, not the read: it suppresses nothing.
    assert_eq!(codes(&out), ["P900", "P900", "P301"], "{out}");
    write(
        dir.path(),
        "src/model.rs",
        &format!(
            "// placer: allow-file(P301)\n{}",
            suppressed.replace("    // placer: allow(P301, P202)\n", "")
        ),
    );
    let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!((code, out.as_str()), (0, ""), "{out}");
}

#[test]
fn should_add_allow_comments_that_silence_every_finding() {
    let dir = project();
    let (code, _, err) = run(placer().arg("--add-allow"), dir.path());
    assert_eq!(code, 0, "{err}");
    let text = fs::read_to_string(dir.path().join("src/model.rs")).expect("read");
    assert!(
        text.contains("&Device::Cpu)?;  // placer: allow(P101)"),
        "{text}"
    );
    let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn should_hide_baselined_findings_and_fail_on_a_new_one() {
    let dir = project();
    let (code, _, err) = run(
        placer().args(["--write-baseline", "placer-baseline.json"]),
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 2 findings"), "{err}");
    // Lines shift above the legacy findings: still hidden.
    let shifted = format!("// a new header comment\n\n{MODEL}");
    write(dir.path(), "src/model.rs", &shifted);
    let (code, out, _) = run(
        placer().args([
            "--baseline",
            "placer-baseline.json",
            "--output-format",
            "concise",
        ]),
        dir.path(),
    );
    assert_eq!((code, out.as_str()), (0, ""), "{out}");
    // A second, new host read in a loop is reported.
    let new = shifted.replace(
        "    Ok(total / losses.len() as f32)",
        "    for l in losses {\n        total -= l.to_scalar::<f32>()?;\n    }\n    Ok(total / losses.len() as f32)",
    );
    write(dir.path(), "src/model.rs", &new);
    let (code, out, _) = run(
        placer().args([
            "--baseline",
            "placer-baseline.json",
            "--output-format",
            "concise",
        ]),
        dir.path(),
    );
    assert_eq!(code, 1);
    assert_eq!(codes(&out), ["P301"], "{out}");
    assert!(out.starts_with("src/model.rs:19:"), "the new read: {out}");
}

fn git(dir: &Path, args: &[&str]) {
    let status = Process::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        status.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
fn should_report_only_changed_lines_with_diff_base() {
    let dir = project();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "legacy"]);
    git(dir.path(), &["checkout", "-q", "-b", "feature"]);
    let changed = MODEL.replace(
        "    Ok(total / losses.len() as f32)",
        "    for l in losses {\n        total -= l.to_scalar::<f32>()?;\n    }\n    Ok(total / losses.len() as f32)",
    );
    write(dir.path(), "src/model.rs", &changed);
    write(dir.path(), "src/new.rs", &MODEL.replace("Block", "Fresh"));
    let (code, out, err) = run(
        placer().args(["--diff-base", "main", "--output-format", "concise"]),
        dir.path(),
    );
    assert_eq!(code, 1, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("src/model.rs:17:"),
        "the changed line only: {out}"
    );
    assert!(
        lines[1..].iter().all(|l| l.starts_with("src/new.rs:")),
        "untracked files count: {out}"
    );
    let (code, _, err) = run(placer().args(["--diff-base", "no-such-rev"]), dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("unknown git revision `no-such-rev`"), "{err}");
}

#[test]
fn should_render_every_output_format() {
    let dir = project();
    for format in ["full", "concise", "json", "json-lines", "sarif", "github"] {
        let (code, out, _) = run(placer().args(["--output-format", format]), dir.path());
        assert_eq!(code, 1, "{format}");
        let out = if format == "sarif" {
            // Every rule's documentation is in the SARIF: snapshot the results, count the rules
            // (their metadata is checked against the schema below).
            let mut sarif: serde_json::Value = serde_json::from_str(&out).expect("json");
            let rules = &mut sarif["runs"][0]["tool"]["driver"]["rules"];
            let n = rules.as_array().expect("rules").len();
            assert_eq!(n, placer_lint::Rule::ALL.len());
            *rules = format!("{n} rules").into();
            serde_json::to_string_pretty(&sarif).expect("json")
        } else {
            out
        };
        insta::assert_snapshot!(format!("format_{format}"), out);
    }
    let (_, out, _) = run(
        placer().args(["--statistics", "--output-format", "concise"]),
        dir.path(),
    );
    assert!(
        out.contains("    1\tP101\ttensor-on-default-device [*]"),
        "{out}"
    );
    assert!(out.contains("    1\tP301\thost-sync-in-loop\n"), "{out}");
}

#[test]
fn should_escape_github_annotations() {
    assert_eq!(
        placer_lint::render::github_escape("a:b,c%d\ne", true),
        "a%3Ab%2Cc%25d%0Ae"
    );
    assert_eq!(
        placer_lint::render::github_escape("a:b,c%\r\n", false),
        "a:b,c%25%0D%0A"
    );
}

#[test]
fn should_emit_sarif_valid_against_the_2_1_0_schema() {
    let text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"),
    )
    .expect("schema");
    // The official schema's `language` patterns end in `..]?$`: valid ECMA-262, where a lone `]`
    // is a literal, but not a valid Rust regex. Escape that `]`; nothing else is touched.
    let schema: serde_json::Value =
        serde_json::from_str(&text.replace("{2}]?$", "{2}\\\\]?$")).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let (_, out, _) = run(
        placer().args(["example-models", "--output-format", "sarif"]),
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    let sarif: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(results.len() >= 9);
    assert!(results
        .iter()
        .all(|r| r["partialFingerprints"]["placer/v1"].is_string()));
    // A broken SARIF is caught: the validator is not vacuous.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));
}

#[test]
fn should_fix_safe_problems_and_leave_unsafe_ones_without_the_flag() {
    let dir = project();
    let with_stale = MODEL.replace(
        "        xs.broadcast_add(&bias)",
        "        xs.broadcast_add(&bias) // placer: allow(P202)",
    );
    write(dir.path(), "src/model.rs", &with_stale);
    // --diff shows the safe fix (the stale comment) and writes nothing.
    let (code, out, _) = run(placer().arg("--diff"), dir.path());
    assert_eq!(code, 1);
    assert!(
        out.contains("-        xs.broadcast_add(&bias) // placer: allow(P202)"),
        "{out}"
    );
    assert!(out.contains("+        xs.broadcast_add(&bias)\n"), "{out}");
    assert_eq!(
        fs::read_to_string(dir.path().join("src/model.rs")).expect("read"),
        with_stale
    );
    // --fix applies it; the unsafe P101 rewrite needs --unsafe-fixes.
    let (_, _, err) = run(placer().arg("--fix"), dir.path());
    assert!(err.contains("fixed 1 problem"), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("src/model.rs")).expect("read"),
        MODEL
    );
    let (_, _, err) = run(placer().args(["--fix", "--unsafe-fixes"]), dir.path());
    assert!(err.contains("fixed 1 problem"), "{err}");
    let fixed = fs::read_to_string(dir.path().join("src/model.rs")).expect("read");
    assert!(
        fixed.contains("Tensor::zeros((4, 4), DType::F32, &xs.device())?;"),
        "{fixed}"
    );
    // Fixing again changes nothing.
    let (_, _, err) = run(placer().args(["--fix", "--unsafe-fixes"]), dir.path());
    assert!(!err.contains("fixed"), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("src/model.rs")).expect("read"),
        fixed
    );
}

#[test]
fn should_exit_zero_with_exit_zero_and_be_quiet_with_q() {
    let dir = project();
    let (code, out, err) = run(
        placer().args(["--exit-zero", "-q", "--output-format", "concise"]),
        dir.path(),
    );
    assert_eq!(code, 0);
    assert_eq!(codes(&out).len(), 2);
    assert_eq!(err, "", "no summary with -q");
    let (code, _, err) = run(placer().arg("missing-dir"), dir.path());
    assert_eq!(code, 2, "{err}");
}

#[test]
fn should_colour_only_when_asked_or_on_a_terminal() {
    let dir = project();
    let (_, plain, _) = run(&mut placer(), dir.path());
    assert!(!plain.contains('\u{1b}'));
    let (_, coloured, _) = run(placer().args(["--color", "always"]), dir.path());
    assert!(coloured.contains('\u{1b}'), "{coloured}");
}

#[test]
fn should_reuse_the_cache_until_a_file_changes() {
    let dir = project();
    let (_, first, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    let cache = dir.path().join(".placer_cache");
    assert!(cache.join(".gitignore").is_file());
    let entries = fs::read_dir(cache.join(env!("CARGO_PKG_VERSION")))
        .expect("cache dir")
        .count();
    assert_eq!(entries, 1);
    let (_, second, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(first, second);
    // PLACER_NO_CACHE=1 (what the scripts set) bypasses it.
    let (code, third, _) = run(
        placer()
            .args(["--output-format", "concise"])
            .env("PLACER_NO_CACHE", "1"),
        dir.path(),
    );
    assert_eq!((code, third.as_str()), (1, first.as_str()));
    // A changed file is re-checked, not served stale.
    write(
        dir.path(),
        "src/model.rs",
        &MODEL.replace("&Device::Cpu", "xs.device()"),
    );
    let (_, fourth, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(codes(&fourth), ["P301"], "{fourth}");
    // So is a tree whose manifest now declares the file an example target (test code).
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"m\"\n[[example]]\nname = \"e\"\npath = \"src/model.rs\"\n",
    );
    let (code, fifth, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!((code, codes(&fifth)), (0, vec![]), "{fifth}");
}

#[test]
fn should_run_as_a_cargo_subcommand() {
    let dir = project();
    let out = Command::cargo_bin("cargo-placer")
        .expect("cargo-placer binary")
        .args(["placer", "check", "--output-format", "concise"])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        codes(&String::from_utf8_lossy(&out.stdout)),
        ["P101", "P301"]
    );
}

const TORCH_MODEL: &str = "import torch
import torch.nn as nn


class Masked(nn.Module):
    def forward(self, x):
        mask = torch.ones(x.shape[0], x.shape[1])
        return x * mask
";

#[test]
fn should_honour_python_suppressions_noqa_and_pyproject() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "model.py", TORCH_MODEL);
    let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(code, 1);
    assert_eq!(codes(&out), ["P101"], "{out}");
    // ruff's `# noqa: CODE` and placer's own comment both silence it; a noqa for another
    // tool's code is none of placer's business.
    for comment in [
        "# noqa: P101",
        "# placer: allow(tensor-on-default-device)",
        "# noqa: E501, P101",
    ] {
        let text = TORCH_MODEL.replace("x.shape[1])\n", &format!("x.shape[1])  {comment}\n"));
        write(dir.path(), "model.py", &text);
        let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
        assert_eq!((code, out.as_str()), (0, ""), "{comment}");
    }
    let text = TORCH_MODEL.replace("x.shape[1])\n", "x.shape[1])  # noqa: E501\n");
    write(dir.path(), "model.py", &text);
    let (_, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(codes(&out), ["P101"], "{out}");
    // A stale Python suppression is reported.
    write(
        dir.path(),
        "model.py",
        &format!("{TORCH_MODEL}\nx = 1  # placer: allow(P301)\n"),
    );
    let (_, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(codes(&out), ["P101", "P900"], "{out}");
    // [tool.placer] in pyproject.toml configures it.
    write(dir.path(), "model.py", TORCH_MODEL);
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"m\"\n\n[tool.placer]\nignore = [\"P1\"]\n",
    );
    let (code, out, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!((code, out.as_str()), (0, ""), "{out}");
}
