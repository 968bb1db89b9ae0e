//! The rule registry is complete and consistent.

use std::collections::HashSet;
use std::path::Path;

use placer_lint::Rule;

#[test]
fn should_register_every_rule_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    for entry in std::fs::read_dir(dir).expect("rules dir") {
        let path = entry.expect("entry").path();
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("stem");
        if stem == "mod" {
            continue;
        }
        assert!(
            Rule::ALL.iter().any(|r| r.module() == stem),
            "src/rules/{stem}.rs is not in registry.rs"
        );
    }
}

#[test]
fn should_have_a_fixture_and_a_snapshot_per_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rule in Rule::ALL {
        // A rule has a fixture in at least one language, and each fixture has its snapshot.
        let mut fixtures = 0;
        for (lang, ext, test) in [
            ("rust", "rs", "fixtures"),
            ("python", "py", "python_fixtures"),
        ] {
            let fixture = root.join(format!("../fixtures/{lang}/{}.{ext}", rule.module()));
            if !fixture.is_file() {
                continue;
            }
            fixtures += 1;
            let snapshot = root.join(format!(
                "tests/snapshots/fixtures__{test}@{}.{ext}.snap",
                rule.module()
            ));
            assert!(snapshot.is_file(), "no snapshot {}", snapshot.display());
        }
        assert!(fixtures > 0, "no fixture for {}", rule.name());
    }
}

#[test]
fn should_have_unique_codes_and_names() {
    let codes: HashSet<_> = Rule::ALL.iter().map(|r| r.code()).collect();
    let names: HashSet<_> = Rule::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(codes.len(), Rule::ALL.len());
    assert_eq!(names.len(), Rule::ALL.len());
    for rule in Rule::ALL {
        assert_eq!(rule.name(), rule.module().replace('_', "-"));
        assert!(rule.code().starts_with('P') && rule.code().len() == 4);
        assert_eq!(Rule::from_code_or_name(rule.code()), Some(*rule));
        assert_eq!(Rule::from_code_or_name(rule.name()), Some(*rule));
    }
}
