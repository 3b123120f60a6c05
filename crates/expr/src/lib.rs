//! DynamoDB's expression languages, pure: no I/O, no async, no engine types.
//!
//! Five request parameters hold expressions: `ConditionExpression`, `FilterExpression`,
//! `KeyConditionExpression`, `UpdateExpression` and `ProjectionExpression`. Each goes through
//! three stages:
//!
//! 1. **Parsing** ([`parse_condition`], [`parse_update`], [`parse_projection`]): tokenizer and
//!    recursive-descent parser producing an [`ast`] that still holds `#name` / `:value`
//!    placeholders. The AST's `Display` prints canonical text that parses back to the same
//!    tree. Only syntax errors (and the length, emptiness and nesting limits) happen here.
//!    Resolution takes its trees from a per-thread cache of successfully parsed texts, so a
//!    service repeating the same expressions parses each one once.
//! 2. **Resolution** ([`Params`]): the semantic pass of one request. It substitutes the
//!    request's `ExpressionAttributeNames` / `ExpressionAttributeValues`, tracks which were
//!    used, and reproduces DynamoDB's validation with DynamoDB's messages: reserved words,
//!    undefined placeholders, unknown or misused functions, operand counts and types,
//!    overlapping update or projection paths, key-attribute updates, and the key-condition
//!    rules. [`Params::finish`] reports unused names and values.
//! 3. **Evaluation** on resolved forms ([`Condition::eval`], [`UpdatePlan::apply`],
//!    [`Projection::apply`], and [`KeyCondition`] for the engine's key lookups). The resolved
//!    types are public and constructible so that legacy parameters (`Expected`,
//!    `QueryFilter`, `AttributeUpdates`, `AttributesToGet`) can be translated into them.
//!
//! Every error is an [`ExprError`] whose message is DynamoDB's `ValidationException` text
//! and whose [`ErrorKind`] names the cause.
//!
//! Beyond the contract the engine codes against, the crate also offers:
//! [`check_placeholder_keys`] (malformed placeholder keys), [`Condition::paths`] (the paths a
//! condition reads), [`lookup`] (the value at a document path), [`compare_scalars`],
//! [`value_size`] and [`value_brief`] (DynamoDB's ordering, `size()` and message rendering of
//! values), [`PathDisplay`] (DynamoDB's `[a, b, [0]]` rendering of paths), and the limits
//! [`MAX_EXPRESSION_BYTES`], [`MAX_OPERATORS`], [`MAX_NESTING`], [`MAX_IN_OPERANDS`] and
//! [`MAX_PATH_DEPTH`].

mod apply;
pub mod ast;
mod cache;
mod check;
mod error;
mod eval;
mod key_condition;
mod lexer;
mod messages;
mod overlap;
mod params;
mod parse_update;
mod parser;
mod project;
mod reserved;
mod resolve_condition;
mod resolve_update;
mod resolved;
mod used;
mod values;

pub use check::{MAX_IN_OPERANDS, MAX_PATH_DEPTH};
pub use error::{ErrorKind, ExprError, ExpressionKind};
pub use eval::lookup;
pub use key_condition::key_condition_of;
pub use params::{check_placeholder_keys, Params};
pub use parse_update::parse_update;
pub use parser::{MAX_EXPRESSION_BYTES, MAX_NESTING, MAX_OPERATORS};
pub use reserved::is_reserved_word;
pub use resolved::{
    attribute_path, ChangedAttributes, Comparator, Condition, KeyCondition, Operand, Path, PathDisplay,
    PathElement, Projection, SetValue, SortKeyCondition, SortKeyOp, UpdateAction, UpdateOperand, UpdatePlan,
};
pub use values::{compare_scalars, value_brief, value_size};

/// Parses a condition, filter or key condition expression (syntax only); `kind` names the
/// parameter in error messages.
pub fn parse_condition(text: &str, kind: ExpressionKind) -> Result<ast::Condition, ExprError> {
    parser::Parser::new(text, kind)?.parse_condition()
}

/// Reads `text` as an expression of `kind` for syntax only, through the per-thread cache of
/// parsed texts, so that resolving it afterwards parses nothing again.
pub fn check_syntax(text: &str, kind: ExpressionKind) -> Result<(), ExprError> {
    match kind {
        ExpressionKind::Update => cache::update(text).map(drop),
        ExpressionKind::Projection => cache::projection(text).map(drop),
        ExpressionKind::Condition | ExpressionKind::Filter | ExpressionKind::KeyCondition => {
            cache::condition(text, kind).map(drop)
        }
    }
}

/// Parses a projection expression (syntax only).
pub fn parse_projection(text: &str) -> Result<ast::Projection, ExprError> {
    parser::Parser::new(text, ExpressionKind::Projection)?.parse_projection()
}
