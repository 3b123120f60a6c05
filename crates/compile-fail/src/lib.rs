//! No code: this package hosts `tests/compile_fail.rs`, the misuse of the `monotable` API that
//! must not compile. See the package manifest for why the tests live apart from the library.
