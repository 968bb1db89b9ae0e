//! Fixes on every fixture: applying every fix (safe and unsafe) keeps the file parsing, and a
//! second round of fixing changes nothing (fixes are idempotent, as ruff requires).

use std::path::Path;

use placer_lint::{check_source, fix, Rule, Settings};

fn all_rules() -> Settings {
    Settings::only(Rule::ALL)
}

#[test]
fn should_keep_fixtures_parsing_and_fix_only_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut fixed_files = 0;
    let entries = ["rust", "python"]
        .iter()
        .flat_map(|lang| std::fs::read_dir(root.join(lang)).expect("fixtures"));
    for entry in entries {
        let path = entry.expect("entry").path();
        if !path.is_file() {
            continue;
        }
        if path.file_stem().is_some_and(|s| s == "syntax_error") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("read");
        let before = check_source(&path, &source, &all_rules());
        let Some((fixed, n)) = fix::apply(&source, &before, true) else {
            continue;
        };
        assert!(n > 0);
        fixed_files += 1;
        let after = check_source(&path, &fixed, &all_rules());
        assert!(
            after.iter().all(|d| d.rule != Rule::SyntaxError),
            "{}: fixed file does not parse:\n{fixed}",
            path.display()
        );
        // Every fixed finding is gone, and nothing fixable is left or created.
        assert!(
            fix::apply(&fixed, &after, true).is_none(),
            "{}: fixing twice changes the file again",
            path.display()
        );
        assert!(after.len() < before.len(), "{}", path.display());
    }
    assert!(
        fixed_files >= 4,
        "the P101, P202, P207 and P900 fixtures carry fixes"
    );
}

const TORCH: &str = "import torch
import torch.nn as nn


class Masked(nn.Module):
    def forward(self, x):
        mask = torch.ones(x.shape[0], x.shape[1])
        return x * mask
";

fn fixed(path: &str, source: &str) -> String {
    let found = check_source(Path::new(path), source, &Settings::default());
    fix::apply(source, &found, false).map_or_else(|| source.to_string(), |(s, _)| s)
}

#[test]
fn should_neither_judge_nor_remove_noqa_codes() {
    // Another tool's `# noqa: P101` (or placer's, with E501 beside it) is never reported unused,
    // so `--fix` never touches it or the note after it.
    let text = "x = 1  # noqa: P101, E501 -- keep this note\n";
    let found = check_source(Path::new("m.py"), text, &Settings::default());
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(fixed("m.py", text), text);
}

#[test]
fn should_remove_only_the_stale_placer_selector() {
    let cases = [
        // The whole placer comment goes when nothing else is on the line.
        ("x = 1  # placer: allow(P301)\n", "x = 1\n"),
        // Another tool's comment after it stays.
        (
            "x = 1  # placer: allow(P301)  # noqa: E501\n",
            "x = 1  # noqa: E501\n",
        ),
        // The user's note stays.
        (
            "x = 1  # placer: allow(P301) -- flaky on CI\n",
            "x = 1  # -- flaky on CI\n",
        ),
    ];
    for (before, after) in cases {
        let before = format!("{TORCH}{before}");
        assert_eq!(
            fixed("m.py", &before),
            format!("{TORCH}{after}"),
            "{before}"
        );
    }
    // One stale selector of two: only it goes, the note stays.
    let line = "        mask = torch.ones(x.shape[0], x.shape[1])\n";
    let before = TORCH.replace(
        line,
        &line.replace('\n', "  # placer: allow(P101, P301) -- note\n"),
    );
    let after = TORCH.replace(
        line,
        &line.replace('\n', "  # placer: allow(P101) -- note\n"),
    );
    assert_eq!(fixed("m.py", &before), after);
}

#[test]
fn should_add_allow_comments_only_where_the_code_still_means_the_same() {
    let settings = Settings::default();
    let cases = [
        // A line continued with `\`: the comment goes on its own line above the statement.
        (
            "        mask = torch.ones(x.shape[0], x.shape[1]) \\\n            + 0\n",
            "        # placer: allow(P101)\n        mask = torch.ones(x.shape[0], x.shape[1]) \\\n            + 0\n",
        ),
        // A line whose end is inside a multi-line string.
        (
            "        mask = torch.ones(x.shape[0], x.shape[1]) + len(\"\"\"a\n  b\"\"\")\n",
            "        # placer: allow(P101)\n        mask = torch.ones(x.shape[0], x.shape[1]) + len(\"\"\"a\n  b\"\"\")\n",
        ),
    ];
    for (line, with_comment) in cases {
        let src = TORCH.replace("        mask = torch.ones(x.shape[0], x.shape[1])\n", line);
        let path = Path::new("m.py");
        let found = check_source(path, &src, &settings);
        assert_eq!(found.len(), 1, "{src}\n{found:?}");
        let new = placer_lint::add_allow(path, &src, &found).expect("a comment is added");
        assert_eq!(
            new,
            TORCH.replace(
                "        mask = torch.ones(x.shape[0], x.shape[1])\n",
                with_comment
            )
        );
        // It parses, and the finding is suppressed with no stale suppression left.
        assert!(check_source(path, &new, &settings).is_empty(), "{new}");
    }
}

#[test]
fn should_skip_a_rust_line_inside_a_multi_line_string() {
    let src = "use candle_core::{DType, Device, Result, Tensor};
pub struct Block;
impl Block {
    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let bias = Tensor::zeros((4, 4), DType::F32, &Device::Cpu)?; let _s = \"a
b\";
        xs.broadcast_add(&bias)
    }
}
";
    let path = Path::new("model.rs");
    let settings = Settings::default();
    let found = check_source(path, src, &settings);
    assert!(found.iter().any(|d| d.rule == Rule::TensorOnDefaultDevice));
    let new = placer_lint::add_allow(path, src, &found).expect("added");
    assert!(
        new.contains("        // placer: allow(P101)\n        let bias"),
        "{new}"
    );
    assert!(
        new.contains("\"a\nb\";\n"),
        "the string is unchanged: {new}"
    );
    assert!(check_source(path, &new, &settings)
        .iter()
        .all(|d| d.rule != Rule::TensorOnDefaultDevice && d.rule != Rule::SyntaxError));
}

#[test]
fn should_skip_a_line_with_no_valid_place_for_a_comment() {
    // Line 3 starts inside one multi-line string and ends inside another: a comment at either end
    // would change a string, so the line is skipped and named.
    let src = "import torch\nz = len(\"\"\"a\n\"\"\") + (torch.ones(2, device=\"cuda\") + torch.ones(2)).sum() + len(\"\"\"b\nc\"\"\")\n";
    let path = Path::new("m.py");
    let found = check_source(path, src, &Settings::default());
    assert!(
        found.iter().any(|d| d.rule == Rule::MixedDeviceOp),
        "{found:?}"
    );
    let planned = placer_lint::add_allow_edits(path, src, &found);
    assert!(planned.edits.is_empty(), "{planned:?}");
    assert_eq!(planned.skipped.len(), 1);
    assert_eq!(planned.skipped[0].0, 3);
    assert_eq!(placer_lint::add_allow(path, src, &found), None);
}
