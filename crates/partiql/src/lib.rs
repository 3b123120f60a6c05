//! PartiQL for DynamoDB, pure: no engine, no I/O.
//!
//! In the style of the expression crate and of sqlparser-rs, in three stages:
//!
//! 1. [`parse`]: a tokenizer (`token.rs`) and a recursive-descent parser (`parser.rs`) turn
//!    statement text into an [`ast::Statement`]. Only syntax, emptiness, length (8192
//!    characters) and nesting ([`MAX_NESTING`]) errors happen here. The tree's `Display`
//!    prints canonical text (names double-quoted, keywords upper-case, minimal parentheses)
//!    that parses back to the same tree.
//! 2. [`check`]: the semantic pass that needs no table: known functions and their operand
//!    counts, the shape of `INSERT` values and `RETURNING` clauses; it counts the `?`
//!    parameters.
//! 3. [`value`]: constants (literals, parameters, `{…}` tuples, `[…]` lists and `<<…>>`
//!    bags) become DynamoDB [`AttributeValue`](monotable_types::AttributeValue)s.
//!
//! Planning a statement onto DynamoDB's operations needs the table's key schema and lives in
//! the engine. Every error is an [`Error`] whose `Display` is DynamoDB's message.

pub mod ast;
mod check;
mod display;
mod error;
mod parse_expr;
mod parser;
mod token;
mod value;

pub use check::check;
pub use error::Error;
pub use parser::{parse, KEYWORDS, MAX_NESTING, MAX_STATEMENT_CHARS};
pub use value::{is_constant, parameter_count, value};
