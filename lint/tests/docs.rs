//! Every rule's documentation has the required sections, and its examples do what they say: the
//! `## Example` block is reported by the rule, the `Use instead:` block is not. Messages and help
//! texts follow the style guide on every fixture. `docs/rules/` is up to date.

use std::path::Path;

use placer_lint::{check_source, Rule, Settings};

/// The `rust,ignore` and `python` code blocks of a doc text, in order, each with the file name
/// it is checked as (`example.rs`, `example.py`).
fn code_blocks(doc: &str) -> Vec<(&'static str, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(&'static str, String)> = None;
    for line in doc.lines() {
        let trimmed = line.trim();
        match &mut current {
            None if trimmed.starts_with("```rust") => current = Some(("example.rs", String::new())),
            None if trimmed == "```python" => current = Some(("example.py", String::new())),
            Some((name, block)) if trimmed == "```" => {
                blocks.push((*name, std::mem::take(block)));
                current = None;
            }
            Some((_, block)) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn should_have_required_sections_and_working_examples() {
    for &rule in Rule::ALL {
        let doc = rule.explain_text();
        for heading in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "Use instead:",
        ] {
            assert!(
                doc.contains(heading),
                "{}: missing `{heading}`",
                rule.name()
            );
        }
        let (_, after_example) = doc.split_once("## Example").expect("example");
        let (bad, good) = after_example
            .split_once("Use instead:")
            .expect("use instead");
        let bad = code_blocks(bad);
        let good = code_blocks(good);
        assert!(
            !bad.is_empty() && !good.is_empty(),
            "{}: examples",
            rule.name()
        );
        // `unused-suppression` judges the suppressions of the other rules: they run too.
        let mut settings = Settings::only(&[rule]);
        if rule == Rule::UnusedSuppression {
            settings = Settings::default();
        }
        for (name, block) in &bad {
            let found = check_source(Path::new(name), block, &settings);
            assert!(
                found.iter().any(|d| d.rule == rule),
                "{}: the Example ({name}) is not reported",
                rule.name()
            );
        }
        for (name, block) in &good {
            let found = check_source(Path::new(name), block, &settings);
            assert!(
                found.is_empty(),
                "{}: the `Use instead` example ({name}) is reported: {:?}",
                rule.name(),
                found.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn should_write_messages_in_house_style() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut seen = 0;
    let entries = std::fs::read_dir(root.join("rust"))
        .expect("fixtures")
        .chain(std::fs::read_dir(root.join("python")).expect("fixtures"));
    for entry in entries {
        let path = entry.expect("entry").path();
        if !path.is_file() {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("fixture");
        let every_rule = Settings::only(Rule::ALL);
        for d in check_source(&path, &source, &every_rule) {
            seen += 1;
            let first = d.message.chars().next().expect("message");
            assert!(!first.is_uppercase(), "capitalised message: {}", d.message);
            assert!(
                !d.message.ends_with('.') && !d.message.ends_with('!'),
                "message ends in punctuation: {}",
                d.message
            );
            if let Some(help) = &d.help {
                let first = help.chars().next().expect("help");
                assert!(!first.is_uppercase(), "capitalised help: {help}");
                assert!(!help.ends_with('.'), "help ends in a period: {help}");
            }
        }
    }
    assert!(seen > 0, "the fixtures produce diagnostics");
}

#[test]
fn should_keep_docs_rules_in_sync() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules");
    for (name, content) in placer_lint::registry::rules_markdown() {
        let on_disk = std::fs::read_to_string(dir.join(&name)).unwrap_or_default();
        assert!(
            on_disk == content,
            "docs/rules/{name} is stale: run `cargo run -- rules --markdown docs/rules`"
        );
    }
}
