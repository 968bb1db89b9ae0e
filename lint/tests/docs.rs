//! Every rule's documentation has the required sections, and its examples do what they say: the
//! `## Example` block is reported by the rule, the `Use instead:` block is not. Messages and help
//! texts follow the style guide on every fixture. `docs/rules/` is up to date.

use std::path::Path;

use placer_lint::{check_source, Rule, Settings};

/// The `rust,ignore` code blocks of a doc text, in order.
fn code_blocks(doc: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        let trimmed = line.trim();
        match &mut current {
            None if trimmed.starts_with("```rust") => current = Some(String::new()),
            Some(block) if trimmed == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
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
        let path = Path::new("example.rs");
        let found = check_source(path, &bad[0], &settings);
        assert!(
            found.iter().any(|d| d.rule == rule),
            "{}: the Example is not reported",
            rule.name()
        );
        let found = check_source(path, &good[0], &settings);
        assert!(
            found.is_empty(),
            "{}: the `Use instead` example is reported: {:?}",
            rule.name(),
            found.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

#[test]
fn should_write_messages_in_house_style() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rust");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        let source = std::fs::read_to_string(&path).expect("fixture");
        for d in check_source(&path, &source, &Settings::default()) {
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
