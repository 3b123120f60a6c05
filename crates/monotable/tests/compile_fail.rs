//! The misuse the API shape prevents, shown as code that must not compile (S5, S12).

#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
