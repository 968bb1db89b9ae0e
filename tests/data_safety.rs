//! End-to-end: placer never loses or corrupts a user's file. Writes are atomic and checked,
//! notebooks stay notebooks, the cache touches only its own directory, and fixes change only
//! what they say. Each test runs the built binary on a temporary project.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

fn placer() -> Command {
    let mut cmd = Command::cargo_bin("placer").expect("placer binary");
    cmd.arg("check")
        .env("NO_COLOR", "1")
        .env_remove("PLACER_NO_CACHE");
    cmd.env_remove("PLACER_CACHE_DIR");
    cmd
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

fn write(dir: &Path, name: &str, content: &str) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, content).expect("write");
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).expect("read")
}

/// A Python file with one fixable finding: a stale suppression (safe fix).
const STALE: &str = "import torch\n\nx = torch.ones(2)  # placer: allow(P301)\n";
const STALE_FIXED: &str = "import torch\n\nx = torch.ones(2)\n";

/// A notebook with multi-byte text everywhere, outputs and metadata; cell 2 has a mixed-device
/// op (P501, no fix) on line 7 and a stale suppression (P900, safe fix) on line 8.
const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Modèle — démo ✓"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {"tags": ["ünïcode"]},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["é\n"]}],
   "source": [
    "import torch\n",
    "import torch.nn as nn\n",
    "# Überprüfung der Geräte: é à ü \u00e9\n",
    "class Masked(nn.Module):\n",
    "    def forward(self, x):\n",
    "        mask = torch.ones(x.shape[0], x.shape[1])\n",
    "        return x.cuda() * mask\n",
    "y = 1  # placer: allow(P301)"
   ]
  }
 ],
 "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

/// A Python file with a finding and no fix: a mixed-device op (P501).
const MIXED: &str = "import torch\n\nz = torch.ones(2, device=\"cuda\") + torch.ones(2)\n";

#[test]
fn should_leave_a_file_whole_when_its_write_fails() {
    for (args, content) in [(&["--fix"][..], STALE), (&["--add-allow"][..], MIXED)] {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "a.py", content);
        write(dir.path(), "b.py", content);
        let (code, _, err) = run(
            placer()
                .args(args)
                .env("PLACER_TEST_FAIL_WRITE", "b.py")
                .env("PLACER_NO_CACHE", "1"),
            dir.path(),
        );
        assert_eq!(code, 2, "{args:?}: {err}");
        // Not a byte lost, and no temporary file left behind.
        assert_eq!(read(dir.path(), "b.py"), content, "{args:?}");
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 2);
        // The other file is written, and the summary names both.
        assert_ne!(read(dir.path(), "a.py"), content, "{args:?}");
        assert!(err.contains("b.py: cannot write"), "{err}");
        assert!(err.contains("placer: written: a.py\n"), "{err}");
        assert!(
            err.contains("not written (left as they were): b.py"),
            "{err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn should_keep_a_fixed_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.py", STALE);
    let file = dir.path().join("a.py");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o751)).expect("chmod");
    let (code, _, err) = run(placer().arg("--fix"), dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(dir.path(), "a.py"), STALE_FIXED);
    let mode = fs::metadata(&file).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o751);
}

#[test]
fn should_not_write_with_fix_and_diff() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.py", STALE);
    let (code, out, _) = run(placer().args(["--fix", "--diff"]), dir.path());
    assert_eq!(code, 1);
    assert!(
        out.contains("-x = torch.ones(2)  # placer: allow(P301)"),
        "{out}"
    );
    assert_eq!(read(dir.path(), "a.py"), STALE);
}

/// Checks that `new` is `NOTEBOOK` with only `old_line` of cell 2's source replaced.
fn assert_only_line_changed(new: &str, old_line: &str, new_line: &str) {
    assert!(NOTEBOOK.contains(old_line), "{old_line}");
    assert_eq!(new, NOTEBOOK.replace(old_line, new_line));
}

#[test]
fn should_add_allow_to_a_notebook_cell_keeping_the_rest_of_its_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "nb.ipynb", NOTEBOOK);
    // Warm the cache first: the edit must land in the right place either way.
    run(&mut placer(), dir.path());
    let (code, _, err) = run(placer().arg("--add-allow"), dir.path());
    assert_eq!(code, 0, "{err}");
    assert_only_line_changed(
        &read(dir.path(), "nb.ipynb"),
        r#""        return x.cuda() * mask\n","#,
        r#""        return x.cuda() * mask  # placer: allow(P501)\n","#,
    );
}

#[test]
fn should_fix_a_notebook_after_a_cache_hit() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "nb.ipynb", NOTEBOOK);
    let (_, cold, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    let (_, warm, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!(cold, warm);
    let (code, _, err) = run(placer().arg("--fix"), dir.path());
    assert_eq!(code, 1, "the P501 is left: {err}");
    assert_only_line_changed(
        &read(dir.path(), "nb.ipynb"),
        r#""y = 1  # placer: allow(P301)""#,
        r#""y = 1""#,
    );
}

#[test]
fn should_diff_a_notebook_by_cell() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "nb.ipynb", NOTEBOOK);
    let (code, out, _) = run(placer().arg("--diff"), dir.path());
    assert_eq!(code, 1);
    assert!(
        out.starts_with("--- a/nb.ipynb:cell 2\n+++ b/nb.ipynb:cell 2\n@@ -5,4 +5,4 @@\n"),
        "{out}"
    );
    assert!(
        out.contains("\n-y = 1  # placer: allow(P301)\n+y = 1\n"),
        "{out}"
    );
    assert!(!out.contains("cell_type"), "{out}");
    assert_eq!(read(dir.path(), "nb.ipynb"), NOTEBOOK);
}

#[test]
fn should_report_notebook_positions_alike_from_a_cold_and_a_warm_cache() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "nb.ipynb", NOTEBOOK);
    for format in ["concise", "json", "sarif", "full", "github", "json-lines"] {
        let cold = run(
            placer()
                .args(["--output-format", format])
                .env("PLACER_NO_CACHE", "1"),
            dir.path(),
        );
        run(placer().args(["--output-format", format]), dir.path());
        let warm = run(placer().args(["--output-format", format]), dir.path());
        assert_eq!(cold.0, 1, "{format}: {}", cold.2);
        assert_eq!((warm.0, &warm.1), (cold.0, &cold.1), "{format}");
    }
    // Baselines from a warm cache, with multi-byte text before the findings.
    let (code, _, err) = run(placer().args(["--write-baseline", "b.json"]), dir.path());
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(placer().args(["--baseline", "b.json"]), dir.path());
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
}

#[test]
fn should_write_the_cache_only_into_a_directory_of_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.py", STALE);
    write(dir.path(), ".gitignore", "target/\n");
    // `--cache-dir .` is the user's project, not a cache.
    let (code, _, err) = run(placer().args(["--cache-dir", "."]), dir.path());
    assert_eq!(code, 1);
    assert!(err.contains("not a placer cache"), "{err}");
    assert_eq!(read(dir.path(), ".gitignore"), "target/\n");
    assert!(!dir.path().join(env!("CARGO_PKG_VERSION")).exists());
    // A link planted in the cache is neither followed nor replaced.
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "precious", "keep me\n");
    let cache = dir.path().join(".placer_cache");
    run(&mut placer(), dir.path());
    assert!(cache.join("CACHEDIR.TAG").is_file());
    #[cfg(unix)]
    {
        fs::remove_file(cache.join(".gitignore")).expect("rm");
        std::os::unix::fs::symlink(outside.path().join("precious"), cache.join(".gitignore"))
            .expect("symlink");
        let version = cache.join(env!("CARGO_PKG_VERSION"));
        for entry in fs::read_dir(&version).expect("version dir") {
            let slot = entry.expect("entry").path();
            fs::remove_file(&slot).expect("rm");
            std::os::unix::fs::symlink(outside.path().join("precious"), &slot).expect("symlink");
        }
        write(dir.path(), "a.py", &STALE.replace('2', "3"));
        let (code, _, err) = run(&mut placer(), dir.path());
        assert_eq!(code, 1, "{err}");
        assert_eq!(read(outside.path(), "precious"), "keep me\n");
    }
}

#[test]
fn should_put_the_cache_at_the_project_root() {
    let project = tempfile::tempdir().expect("tempdir");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    write(project.path(), "pkg/a.py", STALE);
    write(project.path(), "pkg/b.py", STALE);
    // No configuration: the checked paths' common ancestor.
    let (code, _, _) = run(
        placer()
            .arg(project.path().join("pkg/a.py"))
            .arg(project.path().join("pkg/b.py")),
        elsewhere.path(),
    );
    assert_eq!(code, 1);
    assert!(project
        .path()
        .join("pkg/.placer_cache/CACHEDIR.TAG")
        .is_file());
    assert_eq!(fs::read_dir(elsewhere.path()).expect("dir").count(), 0);
    // With a configuration: its directory.
    write(project.path(), "placer.toml", "ignore = [\"P2\"]\n");
    let (code, _, err) = run(placer().arg(project.path().join("pkg")), elsewhere.path());
    assert_eq!(code, 1, "{err}");
    assert!(project.path().join(".placer_cache/CACHEDIR.TAG").is_file());
    assert_eq!(fs::read_dir(elsewhere.path()).expect("dir").count(), 0);
}

#[test]
fn should_leave_other_tools_noqa_codes_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "import torch\n\nx = 1  # noqa: P101, E501 -- a reason\n";
    write(dir.path(), "a.py", text);
    let (code, out, err) = run(
        placer().args(["--fix", "--output-format", "concise"]),
        dir.path(),
    );
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(read(dir.path(), "a.py"), text);
}

#[test]
fn should_add_allow_only_where_the_code_still_parses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda() * \\\n            torch.ones(2)\n";
    write(dir.path(), "m.py", text);
    let (_, before, _) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert!(!before.is_empty(), "a finding to suppress");
    let (code, _, err) = run(placer().arg("--add-allow"), dir.path());
    assert_eq!(code, 0, "{err}");
    let new = read(dir.path(), "m.py");
    assert!(
        new.contains("        # placer: allow(P501)\n        return x.cuda() * \\\n"),
        "{new}"
    );
    let (code, out, err) = run(placer().args(["--output-format", "concise"]), dir.path());
    assert_eq!((code, out.as_str()), (0, ""), "{err}\n{new}");
}

#[cfg(unix)]
#[test]
fn should_not_write_through_a_link_out_of_the_checked_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "real.py", STALE);
    write(dir.path(), "src/own.py", STALE);
    std::os::unix::fs::symlink(outside.path().join("real.py"), dir.path().join("link.py"))
        .expect("symlink");
    let (code, _, err) = run(placer().args(["--fix", "link.py"]), dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the checked paths"), "{err}");
    assert_eq!(read(outside.path(), "real.py"), STALE);
    // A link to a file inside the checked paths is written through once, and stays a link.
    fs::remove_file(dir.path().join("link.py")).expect("rm");
    std::os::unix::fs::symlink(dir.path().join("src/own.py"), dir.path().join("link.py"))
        .expect("symlink");
    let (code, _, err) = run(placer().args(["--fix", "src", "link.py"]), dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(dir.path(), "src/own.py"), STALE_FIXED);
    assert!(fs::symlink_metadata(dir.path().join("link.py"))
        .expect("meta")
        .file_type()
        .is_symlink());
}

#[test]
fn should_skip_with_a_message_a_line_where_no_comment_can_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "import torch\nz = len(\"\"\"a\n\"\"\") + (torch.ones(2, device=\"cuda\") + torch.ones(2)).sum() + len(\"\"\"b\nc\"\"\")\n";
    write(dir.path(), "m.py", text);
    let (code, _, err) = run(placer().arg("--add-allow"), dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("m.py:3: no suppression comment added"),
        "{err}"
    );
    assert_eq!(read(dir.path(), "m.py"), text);
}
