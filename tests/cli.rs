//! End-to-end tests of the `placer` binary on temporary trees.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

fn placer() -> Command {
    Command::cargo_bin("placer").expect("placer binary")
}

const BUGGY: &str = r"
use candle_core::{DType, Device, Result, Tensor};
pub struct Block;
impl Block {
    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let bias = Tensor::zeros((4, 4), DType::F32, &Device::Cpu)?;
        xs.broadcast_add(&bias)
    }
}
";

const CLEAN: &str = r"
use candle_core::{DType, Result, Tensor};
pub struct Block;
impl Block {
    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let bias = Tensor::zeros((4, 4), DType::F32, xs.device())?;
        xs.broadcast_add(&bias)
    }
}
";

fn write(dir: &Path, name: &str, content: &[u8]) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, content).expect("write");
}

fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8(cmd.output().expect("runs").stdout).expect("utf-8")
}

#[test]
fn should_report_the_example_models_and_exit_1() {
    let out = placer()
        .args(["check", "example-models", "--output-format", "concise"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).expect("utf-8");
    for code in [
        "P101", "P102", "P103", "P201", "P202", "P301", "P303", "P401", "P402", "P501",
    ] {
        assert!(
            stdout.contains(&format!("[{code}/")),
            "no {code} in:\n{stdout}"
        );
    }
    // The unsynchronised timers are planted too, but P302 is pedantic: off by default.
    assert!(
        !stdout.contains("[P302/"),
        "P302 is off by default:\n{stdout}"
    );
    let timers = placer()
        .args(["check", "example-models", "--output-format", "concise"])
        .args(["--extend-select", "P302"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(1);
    let timers = String::from_utf8(timers.get_output().stdout.clone()).expect("utf-8");
    assert_eq!(
        timers.matches("[P302/").count(),
        2,
        "the planted timers (tch_train.rs, torch_classifier.py):\n{timers}"
    );
    let stderr = String::from_utf8(out.get_output().stderr.clone()).expect("utf-8");
    assert!(
        stderr.contains("problems (") && stderr.contains("checked 5 files in"),
        "summary line: {stderr}"
    );
}

#[test]
fn should_exit_0_on_clean_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "src/model.rs", CLEAN.as_bytes());
    placer()
        .args(["check"])
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout("")
        .stderr(contains(
            "0 problems (0 errors, 0 warnings) in 0 files, checked 1 file in",
        ));
}

#[test]
fn should_exit_2_on_a_missing_path() {
    placer()
        .args(["check", "does/not/exist"])
        .assert()
        .code(2)
        .stderr(contains("path not found: does/not/exist"));
}

#[test]
fn should_exit_2_on_an_unknown_rule() {
    placer()
        .args(["check", "example-models", "--select", "P999"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2)
        .stderr(contains("unknown rule `P999`"));
}

#[test]
fn should_report_unparsable_files_and_keep_going() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "a_broken.rs",
        b"fn forward(&self) {\n    let x = ;\n}\n",
    );
    write(dir.path(), "b_latin1.rs", b"// caf\xe9\nfn main() {}\n");
    write(dir.path(), "c_model.rs", BUGGY.as_bytes());
    let out = stdout_of(
        placer()
            .args(["check", "--output-format", "concise"])
            .arg(dir.path()),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].contains("a_broken.rs:2:13: error[P000/syntax-error]"),
        "{out}"
    );
    assert!(
        lines[1].contains(
            "b_latin1.rs:1:7: error[P000/syntax-error]: cannot parse file: file is not valid UTF-8"
        ),
        "{out}"
    );
    assert!(
        lines[2].contains("c_model.rs:6:55: error[P101/tensor-on-default-device]"),
        "{out}"
    );
}

#[test]
fn should_emit_the_documented_json_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "model.rs", BUGGY.as_bytes());
    let out = stdout_of(
        placer()
            .args(["check", "--output-format", "json"])
            .arg(dir.path()),
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let findings = json.as_array().expect("array");
    assert_eq!(findings.len(), 1);
    let f = &findings[0];
    assert!(f["path"].as_str().expect("path").ends_with("model.rs"));
    assert_eq!(f["line"], 6);
    assert_eq!(f["column"], 55);
    assert_eq!(f["end_line"], 6);
    assert_eq!(f["end_column"], 66);
    assert_eq!(f["code"], "P101");
    assert_eq!(f["name"], "tensor-on-default-device");
    assert_eq!(f["severity"], "error");
    assert!(f["message"].as_str().expect("message").contains("`bias`"));
    let label = &f["labels"][0];
    assert_eq!(label["line"], 7);
    assert!(label["message"]
        .as_str()
        .expect("label")
        .contains("meets `xs`"));
}

#[test]
fn should_honour_gitignore() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), ".gitignore", b"generated/\n");
    write(dir.path(), "generated/model.rs", BUGGY.as_bytes());
    write(dir.path(), "src/model.rs", CLEAN.as_bytes());
    placer().arg("check").arg(dir.path()).assert().code(0);
}

#[test]
fn should_take_targets_the_manifest_declares_elsewhere_as_test_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "Cargo.toml",
        b"[package]\nname = \"m\"\nversion = \"0.1.0\"\n\n\
          [[example]]\nname = \"speed\"\npath = \"bench/speed.rs\"\n",
    );
    write(dir.path(), "src/lib.rs", CLEAN.as_bytes());
    // An example target outside `examples/`: test code, checked only with `--include-tests`.
    write(dir.path(), "bench/speed.rs", BUGGY.as_bytes());
    placer().arg("check").arg(dir.path()).assert().code(0);
    placer()
        .args(["check", "--include-tests"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(contains("speed.rs"));
    // A file beside it that no target names is library code, as cargo would build it.
    write(dir.path(), "bench/model.rs", BUGGY.as_bytes());
    placer()
        .args(["check", "--output-format", "concise"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(contains("model.rs").and(contains("speed.rs").not()));
}

#[test]
fn should_print_findings_in_path_then_line_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["z.rs", "a.rs", "m/k.rs", "b.rs"] {
        write(dir.path(), name, BUGGY.as_bytes());
    }
    let run = || {
        stdout_of(
            placer()
                .args(["check", "--output-format", "concise"])
                .arg(dir.path()),
        )
    };
    let first = run();
    let paths: Vec<&str> = first
        .lines()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted);
    assert_eq!(paths.len(), 4);
    assert_eq!(first, run());
}

#[test]
fn should_follow_calls_across_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "mask.rs",
        b"use candle_core::{Device, Result, Tensor};\n\
          pub fn make_mask(t: usize) -> Result<Tensor> {\n    Tensor::ones((t, t), candle_core::DType::U8, &Device::Cpu)\n}\n",
    );
    write(
        dir.path(),
        "model.rs",
        b"use candle_core::{Result, Tensor};\npub struct M;\nimpl M {\n\
          pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {\n        let mask = crate::mask::make_mask(4)?;\n        xs.broadcast_mul(&mask)\n    }\n}\n",
    );
    // Reported where the devices meet, with the creation in the other file named in a label.
    let out = stdout_of(
        placer()
            .args(["check", "--output-format", "json"])
            .arg(dir.path()),
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let f = &json[0];
    assert!(
        f["path"].as_str().expect("path").ends_with("model.rs"),
        "{out}"
    );
    assert_eq!(
        (&f["code"], &f["line"]),
        (&"P101".into(), &6.into()),
        "{out}"
    );
    let labels = f["labels"].to_string();
    assert!(labels.contains("mask.rs:3:51"), "{out}");
}

#[test]
fn should_list_and_explain_rules() {
    let table = stdout_of(placer().arg("rules"));
    for code in [
        "P000", "P101", "P102", "P103", "P201", "P202", "P301", "P302", "P303", "P501",
    ] {
        assert!(table.contains(code), "{code} missing from:\n{table}");
    }
    let by_code = stdout_of(placer().args(["explain", "P101"]));
    let by_name = stdout_of(placer().args(["explain", "tensor-on-default-device"]));
    assert_eq!(by_code, by_name);
    assert!(by_code.contains("## What it does") && by_code.contains("Use instead:"));
    placer().args(["explain", "nope"]).assert().code(2);
}

#[test]
fn should_render_full_output_with_labels_when_piped() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "model.rs", BUGGY.as_bytes());
    let out = stdout_of(placer().arg("check").arg(dir.path()).env("NO_COLOR", "1"));
    assert!(out.contains("P101/tensor-on-default-device"), "{out}");
    assert!(
        out.contains("meets `xs` (the input's device) here"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "no ANSI escapes when piped: {out}");
}

#[test]
fn should_find_the_same_with_and_without_the_prefilter() {
    // `glue.rs` names no tensor API, so the prefilter skips it at first; the forward path goes
    // through it to a helper that builds on the host, so it must be parsed after all.
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "model.rs",
        b"use candle_core::{Result, Tensor};\npub struct M;\nimpl M {\n\
          pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {\n        let m = crate::glue::mid()?;\n        xs.broadcast_mul(&m)\n    }\n}\n",
    );
    write(
        dir.path(),
        "glue.rs",
        b"pub fn mid() -> crate::Out {\n    crate::mask::make_mask(4)\n}\n",
    );
    write(
        dir.path(),
        "mask.rs",
        b"use candle_core::{Device, Result, Tensor};\n\
          pub fn make_mask(t: usize) -> Result<Tensor> {\n    Tensor::ones((t, t), candle_core::DType::U8, &Device::Cpu)\n}\n",
    );
    let with = stdout_of(
        placer()
            .args(["check", "--output-format", "concise"])
            .arg(dir.path()),
    );
    let without = stdout_of(
        placer()
            .args(["check", "--output-format", "concise", "--no-prefilter"])
            .arg(dir.path()),
    );
    assert!(with.contains("[P101/tensor-on-default-device]"), "{with}");
    assert_eq!(with, without);
}

#[test]
fn should_find_the_same_when_functions_without_tensor_apis_are_lowered_calls_only() {
    // `mid` and `Glue::run`/`inner` name no tensor API, so only their calls are lowered at first;
    // `mid` returns what `make_mask` builds on the host, `inner` is reached through `self.`, so
    // both files must end up lowered in full for the mask to be followed into `forward`.
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "model.rs",
        b"use candle_core::{DType, Device, Result, Tensor};
          pub struct Attn;
          impl Attn {
              fn make_mask(&self, t: usize) -> Result<Tensor> {
                  Tensor::ones((t, t), DType::U8, &Device::Cpu)
              }
              fn mid(&self, t: usize) -> Result<crate::Out> {
                  let m = self.make_mask(t)?;
                  Ok(m)
              }
              pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
                  let m = self.mid(4)?;
                  let g = crate::glue::Glue::run(&crate::glue::Glue)?;
                  xs.broadcast_mul(&m)?.broadcast_add(&g)
              }
          }
",
    );
    write(
        dir.path(),
        "glue.rs",
        b"pub struct Glue;
          impl Glue {
              pub fn run(&self) -> crate::Out {
                  self.inner()
              }
              fn inner(&self) -> crate::Out {
                  crate::mask::ones(4)
              }
          }
",
    );
    write(
        dir.path(),
        "mask.rs",
        b"use candle_core::{DType, Device, Result, Tensor};
          pub fn ones(t: usize) -> Result<Tensor> {
    Tensor::ones((t, t), DType::F32, &Device::Cpu)
}
",
    );
    let run = |extra: &[&str]| {
        stdout_of(
            placer()
                .args(["check", "--output-format", "concise"])
                .args(extra)
                .arg(dir.path()),
        )
    };
    let with = run(&[]);
    let without = run(&["--no-prefilter"]);
    assert_eq!(with, without);
    assert_eq!(
        with.matches("[P101/tensor-on-default-device]").count(),
        2,
        "{with}"
    );
    assert!(
        with.contains("model.rs:5:") && with.contains("model.rs:14:"),
        "{with}"
    );
}

#[test]
fn should_follow_forward_paths_through_self_calls_in_files_without_tensor_apis() {
    // `glue.rs` names no tensor API: only its calls are lowered, `self.inner(x)` among them, so
    // the forward path reaches `scale`, which nothing else makes a candidate for full lowering.
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "model.rs",
        b"use candle_core::{Result, Tensor};
          pub struct M;
          impl M {
              pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
                  crate::glue::Glue::run(&crate::glue::Glue, xs)
              }
          }
",
    );
    write(
        dir.path(),
        "glue.rs",
        b"pub struct Glue;
          impl Glue {
              pub fn run(&self, x: crate::X) -> crate::Y {
                  self.inner(x)
              }
              fn inner(&self, x: crate::X) -> crate::Y {
                  crate::mask::scale(x)
              }
          }
",
    );
    write(
        dir.path(),
        "mask.rs",
        b"use candle_core::{DType, Device, Result, Tensor};
          pub fn scale(xs: &Tensor) -> Result<Tensor> {
              let s = Tensor::ones((4, 4), DType::F32, &Device::Cpu)?;
              xs.broadcast_mul(&s)
          }
",
    );
    let run = |extra: &[&str]| {
        stdout_of(
            placer()
                .args(["check", "--output-format", "concise"])
                .args(extra)
                .arg(dir.path()),
        )
    };
    let with = run(&[]);
    assert!(
        with.contains("mask.rs:3:") && with.contains("[P101/"),
        "{with}"
    );
    assert_eq!(with, run(&["--no-prefilter"]));
}

#[test]
fn should_find_the_same_on_the_fixtures_with_and_without_the_prefilter() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let run = |extra: &[&str]| {
        stdout_of(
            placer()
                .args(["check", "--output-format", "concise"])
                .args(extra)
                .arg(&fixtures),
        )
    };
    let with = run(&[]);
    assert!(with.lines().count() > 50, "{with}");
    assert_eq!(with, run(&["--no-prefilter"]));
}

#[test]
fn should_analyse_test_code_like_any_code_with_include_tests() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "tests/model.rs", BUGGY.as_bytes());
    placer()
        .args(["check", "--output-format", "concise"])
        .arg(dir.path())
        .assert()
        .code(0);
    let out = stdout_of(
        placer()
            .args(["check", "--include-tests", "--output-format", "concise"])
            .arg(dir.path()),
    );
    assert!(
        out.contains("[P101/"),
        "a forward in test code is a forward path: {out}"
    );
}
