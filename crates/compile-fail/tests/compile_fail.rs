//! The misuse the API shape prevents, shown as code that must not compile (S5, S12).

use std::panic::{self, AssertUnwindSafe};

/// Runs every case under `tests/ui`; each must fail to compile with exactly its `.stderr`.
///
/// One retry, and only one: trybuild reports *every* case as "expected to fail to compile, but
/// it succeeded" when a dependency of its scratch project fails to build (its second pass
/// re-checks all dependencies with other flags, and an error there is attributed to no case;
/// dtolnay/trybuild#299). That happened once in CI and never locally. A real regression, a
/// misuse that compiles or a changed diagnostic, fails both attempts and fails the test.
#[test]
fn misuse_does_not_compile() {
    let run = || {
        let t = trybuild::TestCases::new();
        t.compile_fail("tests/ui/*.rs");
        // The cases run when `t` drops, here.
    };
    if panic::catch_unwind(AssertUnwindSafe(run)).is_err() {
        eprintln!("compile_fail: trybuild failed; running it once more (see the doc comment)");
        run();
    }
}
