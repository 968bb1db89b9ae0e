//! Runs every fixture in `fixtures/rust/` and `fixtures/python/` with only its rule enabled: the
//! `//~ <rule-name>` (Rust) or `#~ <rule-name>` (Python) markers must equal the lines the
//! diagnostics start on, and the rendered diagnostics are snapshotted.
//! One fixture: `INSTA_GLOB_FILTER=mixed_device_op* cargo test -p placer-lint --test fixtures`.

use std::path::Path;

use placer_lint::render::{self, Style};
use placer_lint::{check_source, Rule, Settings};

/// The rule a fixture is for: its file stem up to an optional `__variant`.
fn rule_of(path: &Path) -> Rule {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let module = stem.split("__").next().unwrap_or_default();
    Rule::ALL
        .iter()
        .copied()
        .find(|r| r.module() == module)
        .unwrap_or_else(|| panic!("fixture {} names no rule", path.display()))
}

/// 1-based lines carrying a `<comment>~ <name>` marker, once per marker.
fn marked_lines(source: &str, rule: Rule, comment: &str) -> Vec<usize> {
    let marker = format!("{comment}~ {}", rule.name());
    source
        .lines()
        .enumerate()
        .flat_map(|(i, line)| std::iter::repeat_n(i + 1, line.matches(&marker).count()))
        .collect()
}

/// Only the fixture's rule; `unused-suppression` needs the rules it judges to run too.
fn settings_for(rule: Rule) -> Settings {
    if rule == Rule::UnusedSuppression {
        let mut settings = Settings::default();
        settings.set_enabled(rule, true);
        settings
    } else {
        Settings::only(&[rule])
    }
}

#[test]
fn fixtures() {
    insta::glob!("../../fixtures", "rust/*.rs", |path| {
        insta::assert_snapshot!(check_fixture(path, "rust", "//"));
    });
}

#[test]
fn python_fixtures() {
    insta::glob!("../../fixtures", "python/*.py", |path| {
        insta::assert_snapshot!(check_fixture(path, "python", "#"));
    });
}

/// Checks a fixture's markers against its findings; returns the rendered findings.
fn check_fixture(path: &Path, lang: &str, comment: &str) -> String {
    {
        let rule = rule_of(path);
        let source: std::sync::Arc<str> = std::fs::read_to_string(path)
            .expect("fixture is readable")
            .into();
        let shown = Path::new("fixtures")
            .join(lang)
            .join(path.file_name().expect("file name"));
        let diagnostics = check_source(&shown, &source, &settings_for(rule));

        if rule != Rule::SyntaxError {
            assert!(
                source.contains(&format!("{comment} flagged"))
                    && source.contains(&format!("{comment} clean")),
                "{}: a fixture has a `{comment} flagged` and a `{comment} clean` section",
                shown.display()
            );
        }
        let index = placer_lint::diagnostic::LineIndex::new(&source);
        let mut actual: Vec<usize> = diagnostics
            .iter()
            .map(|d| index.line_col(&source, d.span.start).0)
            .collect();
        actual.sort_unstable();
        let expected = marked_lines(&source, rule, comment);
        assert_eq!(
            expected,
            actual,
            "{}: lines marked `{comment}~ {}` (left) differ from lines reported (right):\n{}",
            shown.display(),
            rule.name(),
            render::concise(&shown, &source, &diagnostics)
        );
        render::full(&shown, &source, &diagnostics, Style::Plain, 100)
    }
}

/// The reference documents' patterns (`fixtures/python/reference/`), with every default rule on
/// and the chapter's unsynchronised timer's (P302, pedantic): each `#~ <rule-name>` marker is
/// reported by that rule on that line, and nothing else is.
#[test]
fn reference_documents() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/python/reference");
    let mut files = 0;
    for entry in std::fs::read_dir(dir).expect("reference fixtures") {
        let path = entry.expect("entry").path();
        let source = std::fs::read_to_string(&path).expect("fixture is readable");
        let mut expected: Vec<(usize, String)> = Vec::new();
        for (i, line) in source.lines().enumerate() {
            for marker in line.split("#~ ").skip(1) {
                let name = marker.split_whitespace().next().unwrap_or_default();
                expected.push((i + 1, name.to_string()));
            }
        }
        let mut settings = Settings::default();
        settings.set_enabled(Rule::UnsynchronizedTiming, true);
        let diagnostics = check_source(&path, &source, &settings);
        let index = placer_lint::diagnostic::LineIndex::new(&source);
        let mut actual: Vec<(usize, String)> = diagnostics
            .iter()
            .map(|d| {
                let line = index.line_col(&source, d.span.start).0;
                (line, d.rule.name().to_string())
            })
            .collect();
        expected.sort();
        actual.sort();
        assert!(!expected.is_empty(), "{}: no markers", path.display());
        assert_eq!(expected, actual, "{}", path.display());
        files += 1;
    }
    assert_eq!(files, 2, "the two reference documents");
}

#[test]
fn a_use_rename_after_the_code_it_renames_applies_to_that_code() {
    // Items are lowered as they are parsed; a rename found after code sends the file round again.
    let source = "pub struct Block;\n\
                  impl Block {\n\
                  \x20   pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {\n\
                  \x20       let bias = Tensor::zeros((4, 4), DType::F32, &Dev::Cpu)?;\n\
                  \x20       xs.broadcast_add(&bias)\n\
                  \x20   }\n\
                  }\n\
                  use candle_core::{DType, Device as Dev, Result, Tensor};\n";
    let found = check_source(Path::new("model.rs"), source, &Settings::default());
    assert!(
        found
            .iter()
            .any(|d| d.rule == Rule::TensorOnDefaultDevice && d.message.contains("`Dev::Cpu`")),
        "{found:#?}"
    );
}
