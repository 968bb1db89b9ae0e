//! Compile tests of `#[module]`: every error the attribute emits (spanned, with a hint, all at
//! once) and the struct shapes it accepts.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
