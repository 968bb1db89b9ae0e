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
