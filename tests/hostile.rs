//! placer against hostile or unlucky input (issue 11): deep nesting, closed pipes, FIFOs, odd
//! file names, notebooks of other languages or with marker-like text, long lines, byte-order
//! marks, old editions, unreadable directories and wrong configuration. Each test spawns the
//! built binary on a temporary tree.

use std::fs;
use std::path::Path;
use std::process::{Command as Process, Stdio};

use assert_cmd::Command;

fn placer() -> Command {
    let mut cmd = Command::cargo_bin("placer").expect("placer binary");
    cmd.env("NO_COLOR", "1").env("PLACER_NO_CACHE", "1");
    cmd
}

fn write(dir: &Path, name: &str, content: &[u8]) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, content).expect("write");
}

/// Runs `placer check ARGS` in `dir`: (exit code, stdout, stderr).
fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = placer()
        .arg("check")
        .args(args)
        .current_dir(dir)
        // A hang (a FIFO read, say) fails the test instead of blocking the suite.
        .timeout(std::time::Duration::from_mins(2))
        .output()
        .expect("runs");
    (
        out.status.code().expect("exited, not killed by a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const MODEL: &str = "use candle_core::{DType, Device, Result, Tensor};\n\npub struct Block;\nimpl Block {\n    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {\n        let bias = Tensor::zeros((4, 4), DType::F32, &Device::Cpu)?;\n        xs.broadcast_add(&bias)\n    }\n}\n";

#[test]
fn should_report_deeply_nested_rust_as_p000_and_check_the_other_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let parens = format!(
        "fn f() {{ let x = {}1{}; }}\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    write(dir.path(), "deep.rs", parens.as_bytes());
    let terms = vec!["t"; 5000].join(" + ");
    let sum = format!("use candle_core::Tensor;\nfn f(t: &Tensor) {{ let x = {terms}; }}\n");
    write(dir.path(), "sum.rs", sum.as_bytes());
    write(dir.path(), "model.rs", MODEL.as_bytes());
    let (code, out, err) = check(dir.path(), &[".", "--output-format", "concise"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("deep.rs:1:") && out.contains("nested more than 1000 levels"),
        "{out}"
    );
    assert!(
        out.contains("sum.rs:2:") && out.contains("nested more than 1000 levels"),
        "{out}"
    );
    assert!(
        out.contains("model.rs:6:") && out.contains("P101"),
        "the run goes on: {out}"
    );
    // Below the limit, the file is parsed and lowered (on a large stack), not aborted.
    let ok = format!(
        "use candle_core::Tensor;\nfn f(t: &Tensor) {{ let x = {}t{}; let y = {}; }}\n",
        "(".repeat(900),
        ")".repeat(900),
        vec!["t"; 900].join(" + ")
    );
    write(dir.path(), "ok.rs", ok.as_bytes());
    let (_, out, err) = check(dir.path(), &["ok.rs", "--output-format", "concise"]);
    assert!(
        out.is_empty() && err.contains("checked 1 file"),
        "{out}{err}"
    );
    let (code, _, err) = check(dir.path(), &[".", "--parse-only"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("parsed 2 files"), "{err}");
}

/// Runs `placer ARGS | head -c 1` and returns placer's exit code and stderr.
fn into_closed_pipe(dir: &Path, args: &[&str]) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("placer");
    let mut child = Process::new(bin)
        .args(args)
        .current_dir(dir)
        .env("PLACER_NO_CACHE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Read nothing and close the pipe: every write after this is EPIPE.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().expect("exited, not killed by a signal"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn should_exit_quietly_when_the_reader_closes_the_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Enough findings that the output is larger than a pipe's buffer.
    for i in 0..300 {
        write(dir.path(), &format!("m{i}.rs"), MODEL.as_bytes());
    }
    let (code, err) = into_closed_pipe(dir.path(), &["rules"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (code, err) = into_closed_pipe(dir.path(), &["explain", "P101"]);
    assert_eq!((code, err.as_str()), (0, ""));
    for format in ["full", "concise", "json", "json-lines", "sarif", "github"] {
        let (code, err) = into_closed_pipe(dir.path(), &["check", ".", "--output-format", format]);
        assert_eq!(code, 1, "{format}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("cannot write"),
            "{format}: {err}"
        );
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Process::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn should_refuse_a_fifo_as_config_baseline_or_cache_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "model.rs", MODEL.as_bytes());
    mkfifo(&dir.path().join("fifo"));
    let (code, _, err) = check(dir.path(), &["model.rs", "--config", "fifo"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a regular file"), "{err}");
    let (code, _, err) = check(dir.path(), &["model.rs", "--baseline", "fifo"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a regular file"), "{err}");
    // A FIFO where the cache keeps a run's entry: the run must not block on it.
    let out = placer()
        .env_remove("PLACER_NO_CACHE")
        .args([
            "check",
            "model.rs",
            "--cache-dir",
            "cache",
            "--output-format",
            "concise",
        ])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let version_dir = fs::read_dir(dir.path().join("cache"))
        .expect("cache written")
        .flatten()
        .find(|e| e.path().is_dir())
        .expect("a version directory")
        .path();
    for entry in fs::read_dir(&version_dir).expect("entries").flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            fs::remove_file(&path).expect("rm");
            mkfifo(&path);
        }
    }
    let out = placer()
        .env_remove("PLACER_NO_CACHE")
        .args([
            "check",
            "model.rs",
            "--cache-dir",
            "cache",
            "--output-format",
            "concise",
        ])
        .current_dir(dir.path())
        .timeout(std::time::Duration::from_mins(1))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("P101"));
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
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn should_find_changed_lines_in_quoted_git_paths_of_the_checked_repository() {
    let repo = tempfile::tempdir().expect("tempdir");
    let names = ["src/a b.rs", "src/ü.rs", "src/t\tab.rs"];
    let clean = "use candle_core::Tensor;\npub fn f(t: &Tensor) -> usize { t.dims().len() }\n";
    for name in names {
        write(repo.path(), name, clean.as_bytes());
    }
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    for name in names {
        write(repo.path(), name, MODEL.as_bytes());
    }
    // Run from another directory (itself not a repository): the checked path's repository counts.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let src = repo.path().join("src");
    let (code, out, err) = check(
        elsewhere.path(),
        &[
            src.to_str().expect("utf-8"),
            "--diff-base",
            "HEAD",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let findings: serde_json::Value = serde_json::from_str(&out).expect("json");
    let mut paths: Vec<String> = findings
        .as_array()
        .expect("array")
        .iter()
        .map(|f| {
            f["path"]
                .as_str()
                .expect("path")
                .rsplit('/')
                .next()
                .expect("name")
                .to_string()
        })
        .collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths, ["a b.rs", "t\tab.rs", "ü.rs"], "{out}");
}

#[test]
fn should_report_a_file_given_twice_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.rs", MODEL.as_bytes());
    let abs = dir.path().join("a.rs");
    let (code, out, err) = check(
        dir.path(),
        &[
            "a.rs",
            "./a.rs",
            abs.to_str().expect("utf-8"),
            ".",
            "--output-format",
            "concise",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(err.contains("checked 1 file "), "{err}");
}

fn notebook(language: &str, cells: &[&str]) -> String {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "source": c}))
        .collect();
    serde_json::json!({
        "cells": cells,
        "metadata": {"kernelspec": {"language": language, "name": language}},
        "nbformat": 4, "nbformat_minor": 5,
    })
    .to_string()
}

#[test]
fn should_not_parse_r_or_julia_notebooks_as_python() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "r.ipynb",
        notebook("R", &["x <- c(1, 2)\nlibrary(torch)\n"]).as_bytes(),
    );
    write(
        dir.path(),
        "j.ipynb",
        notebook("julia", &["using Flux\nx = [1 2; 3 4]'\n"]).as_bytes(),
    );
    let (code, out, err) = check(dir.path(), &[".", "--output-format", "concise"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("checked 2 files"), "{err}");
}

#[test]
fn should_attribute_findings_to_the_real_cell_when_code_contains_marker_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nb = notebook(
        "python",
        &[
            "x = 1\n",
            "import torch\n# %% [placer cell 7]\ndef f(t: torch.Tensor):\n    total = 0\n    for i in range(3):\n        total += t.item()\n    return total\n",
        ],
    );
    write(dir.path(), "nb.ipynb", nb.as_bytes());
    let (_, out, _) = check(
        dir.path(),
        &[
            "nb.ipynb",
            "--extend-select",
            "ALL",
            "--output-format",
            "json",
        ],
    );
    let findings: serde_json::Value = serde_json::from_str(&out).expect("json");
    let item = findings
        .as_array()
        .expect("array")
        .iter()
        .find(|f| f["code"] == "P301")
        .unwrap_or_else(|| panic!("a P301 finding: {out}"));
    assert_eq!(
        (item["cell"].as_u64(), item["line"].as_u64()),
        (Some(2), Some(6)),
        "{out}"
    );
    let (_, out, _) = check(
        dir.path(),
        &[
            "nb.ipynb",
            "--extend-select",
            "ALL",
            "--output-format",
            "full",
        ],
    );
    assert!(out.contains("nb.ipynb:cell 2:6:"), "{out}");
    assert!(!out.contains("placer cell"), "{out}");
}

#[test]
fn should_count_columns_in_characters_skip_the_bom_and_cut_long_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = MODEL
        .replace("let bias", "let é_bias")
        .replace("(&bias)", "(&é_bias)");
    write(dir.path(), "m.rs", format!("\u{feff}{model}").as_bytes());
    let (_, concise, _) = check(dir.path(), &["m.rs", "--output-format", "concise"]);
    let (_, full, _) = check(dir.path(), &["m.rs", "--output-format", "full"]);
    let (_, json, _) = check(dir.path(), &["m.rs", "--output-format", "json"]);
    let position = concise.split(": ").next().expect("position").to_string();
    let findings: serde_json::Value = serde_json::from_str(&json).expect("json");
    let first = &findings[0];
    assert_eq!(
        position,
        format!("m.rs:{}:{}", first["line"], first["column"]),
        "concise and json agree"
    );
    assert!(
        full.contains(&format!("[{position}]")),
        "full agrees: {position}\n{full}"
    );
    // Without the BOM, the same positions.
    write(dir.path(), "m.rs", model.as_bytes());
    let (_, again, _) = check(dir.path(), &["m.rs", "--output-format", "concise"]);
    assert_eq!(again, concise);
    // A finding on a 2 MB line: the snippet is a window of it.
    let long = MODEL.replace(
        "        xs.broadcast_add(&bias)\n",
        &format!(
            "        xs.broadcast_add(&bias) /* {} */\n",
            "x".repeat(2_000_000)
        ),
    );
    write(dir.path(), "long.rs", long.as_bytes());
    let (code, full, _) = check(dir.path(), &["long.rs", "--output-format", "full"]);
    assert_eq!(code, 1);
    assert!(full.len() < 20_000, "{} bytes of output", full.len());
    assert!(full.contains("long.rs:"), "{full}");
}

#[cfg(unix)]
#[test]
fn should_percent_encode_sarif_uris_without_collapsing_non_utf8_names() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a b#%?.rs", MODEL.as_bytes());
    for name in [&b"\xff.rs"[..], &b"\xfe.rs"[..]] {
        fs::write(dir.path().join(std::ffi::OsStr::from_bytes(name)), MODEL).expect("write");
    }
    let (_, out, _) = check(dir.path(), &[".", "--output-format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&out).expect("sarif json");
    let mut uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .expect("uri")
        })
        .collect();
    uris.sort_unstable();
    uris.dedup();
    assert_eq!(uris, ["%FE.rs", "%FF.rs", "a%20b%23%25%3F.rs"]);
}

#[test]
fn should_report_rust_2015_code_syn_cannot_read_as_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old =
        "trait T {\n    fn f(&self, u8) -> u8;\n}\npub fn g(x: Box<T>) -> Box<T + Send> { x }\n";
    write(
        dir.path(),
        "old/Cargo.toml",
        b"[package]\nname = \"old\"\nversion = \"0.1.0\"\n",
    );
    write(dir.path(), "old/src/lib.rs", old.as_bytes());
    let (code, out, err) = check(dir.path(), &["old", "--output-format", "concise"]);
    assert_eq!(code, 0, "a note is not a problem: {out}{err}");
    assert!(
        out.contains("note[P000/syntax-error]") && out.contains("Rust 2015"),
        "{out}"
    );
    // The same code in a 2021 crate is a syntax error.
    write(
        dir.path(),
        "new/Cargo.toml",
        b"[package]\nname = \"new\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(dir.path(), "new/src/lib.rs", old.as_bytes());
    let (code, out, _) = check(dir.path(), &["new", "--output-format", "concise"]);
    assert_eq!(code, 1);
    assert!(out.contains("error[P000/syntax-error]"), "{out}");
}

#[cfg(unix)]
#[test]
fn should_report_an_unreadable_directory_and_check_the_rest() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "ok/m.rs", MODEL.as_bytes());
    write(dir.path(), "locked/m.rs", MODEL.as_bytes());
    let locked = dir.path().join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
    if fs::read_dir(&locked).is_ok() {
        // Running as root: permissions do not lock anything.
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).expect("chmod");
        eprintln!("skipped: permissions do not apply to this user");
        return;
    }
    let (code, out, err) = check(dir.path(), &[".", "--output-format", "concise"]);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("ok/m.rs"), "{out}");
    assert!(
        err.contains("warning: cannot read") && err.contains("locked"),
        "{err}"
    );
}

#[test]
fn should_say_what_placer_reads_in_help() {
    for args in [&["--help"][..], &["check", "--help"][..]] {
        let out = placer().args(args).output().expect("runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Rust") && text.contains("PyTorch") && text.contains("notebook"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn should_name_key_and_table_of_a_wrong_config_value_and_warn_of_unread_tables() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "m.rs", MODEL.as_bytes());
    write(
        dir.path(),
        "pyproject.toml",
        b"[tool.placer]\nselect = \"P101\"\n",
    );
    let (code, _, err) = check(dir.path(), &["m.rs"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("in `[tool.placer]`: `select`: expected a list of rules, found a string"),
        "{err}"
    );
    write(
        dir.path(),
        "pyproject.toml",
        b"[placer]\nignore = [\"P101\"]\n",
    );
    let (code, _, err) = check(dir.path(), &["m.rs"]);
    assert_eq!(code, 1, "the misplaced table is not read");
    assert!(
        err.contains("warning") && err.contains("`[placer]` is not read"),
        "{err}"
    );
    write(
        dir.path(),
        "pyproject.toml",
        b"[tool.placer\nignore = [\"P101\"]\n",
    );
    let (code, _, err) = check(dir.path(), &["m.rs"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("warning") && err.contains("not valid TOML"),
        "{err}"
    );
}

#[test]
fn should_check_a_baselines_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "m.rs", MODEL.as_bytes());
    write(dir.path(), "b.json", b"{\"version\": 2, \"findings\": []}");
    let (code, _, err) = check(dir.path(), &["m.rs", "--baseline", "b.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("baseline version 2 is not supported"), "{err}");
}

/// Found by the fuzz campaign: `ruff_python_parser` 0.0.10 panics (`unreachable!`) on an `IPython`
/// autocall escape (`/`) that follows a syntax error in a notebook cell.
#[test]
fn should_report_a_notebook_the_python_parser_panics_on_as_p000() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "crash.ipynb",
        notebook("python", &["o((())()}\n/"]).as_bytes(),
    );
    write(dir.path(), "m.rs", MODEL.as_bytes());
    let (code, out, err) = check(dir.path(), &[".", "--output-format", "concise"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("crash.ipynb:") && out.contains("P000"),
        "{out}"
    );
    assert!(out.contains("m.rs:6:"), "the run goes on: {out}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = check(dir.path(), &[".", "--parse-only"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
