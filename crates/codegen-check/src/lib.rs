//! The Rust that `monotable design codegen --lang rust` writes for the two example designs,
//! checked in exactly as generated (so rustfmt leaves the files alone):
//!
//! - [`users`] from `crates/example-users/design.yaml`,
//! - [`ledger`] from `crates/example-orgs/design.yaml`.
//!
//! `tests/generated.rs` builds each module's table and holds it to its design file with
//! `monotable::design::assert_matches_file`, and fails when these files or the TypeScript
//! ones in `tests/typescript/generated/` differ from what the generator writes now
//! (`MONOTABLE_CODEGEN_UPDATE=1` rewrites them).

#[rustfmt::skip]
pub mod ledger;
#[rustfmt::skip]
pub mod users;
