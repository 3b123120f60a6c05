//! End-to-end tests of the single-table library on the embedded engine — or on any DynamoDB
//! endpoint: set `MONOTABLE_TEST_ENDPOINT` (plus `AWS_REGION`/credentials as needed).
//! Test names cite the rule of the single-table standard they check (S1–S22, docs/STANDARD.md).

mod common;

mod auth;
mod changes;
mod crud;
mod design;
mod multi_key;
mod observe;
mod paging;
mod writes;
