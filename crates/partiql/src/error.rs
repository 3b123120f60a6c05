//! The crate's one error type.
//!
//! DynamoDB answers every statement it cannot read with a `ValidationException`; the text of
//! a syntax error starts with "Statement wasn't well formed, can't be processed: ". [`Error`]
//! names the cause and `Display` prints DynamoDB's message.

use std::fmt;

/// A statement was refused before any table was read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The statement text is empty or only whitespace.
    Empty,
    /// The statement is longer than [`crate::MAX_STATEMENT_CHARS`] characters.
    TooLong,
    /// Expressions or literals nest deeper than [`crate::MAX_NESTING`].
    TooDeep,
    /// The text does not follow the grammar; `detail` says where, `offset` is the byte offset.
    Syntax { detail: String, offset: usize },
    /// The statement parses but DynamoDB's PartiQL does not accept it (unknown function, wrong
    /// operand count, an INSERT value that is not a tuple…). The message is DynamoDB's text.
    Unsupported(String),
}

impl Error {
    /// A syntax error at `offset`.
    pub(crate) fn syntax(offset: usize, detail: impl Into<String>) -> Error {
        Error::Syntax { detail: detail.into(), offset }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Empty => f.write_str("Statement wasn't well formed, can't be processed: Empty statement"),
            Error::TooLong => f.write_str(
                "1 validation error detected: Value at 'statement' failed to satisfy constraint: \
                 Member must have length less than or equal to 8192",
            ),
            Error::TooDeep => f.write_str("Nesting Levels have exceeded supported limits"),
            Error::Syntax { detail, .. } => {
                write!(f, "Statement wasn't well formed, can't be processed: {detail}")
            }
            Error::Unsupported(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
