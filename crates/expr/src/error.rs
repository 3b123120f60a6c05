//! The one error type of this crate and the expression kinds that prefix its messages.
//!
//! Every error DynamoDB raises for an expression is a `ValidationException`; what differs is
//! the message text. [`ExprError`] carries that exact text plus an [`ErrorKind`] so that tests
//! and callers can branch on the cause without matching strings.

use std::fmt;

/// Which request parameter an expression came from. It names the expression in messages
/// (`Invalid ConditionExpression: …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpressionKind {
    /// `ConditionExpression`.
    Condition,
    /// `FilterExpression`.
    Filter,
    /// `KeyConditionExpression`.
    KeyCondition,
    /// `UpdateExpression`.
    Update,
    /// `ProjectionExpression`.
    Projection,
}

impl ExpressionKind {
    /// The request parameter's name, as DynamoDB spells it in messages.
    pub fn parameter_name(self) -> &'static str {
        match self {
            ExpressionKind::Condition => "ConditionExpression",
            ExpressionKind::Filter => "FilterExpression",
            ExpressionKind::KeyCondition => "KeyConditionExpression",
            ExpressionKind::Update => "UpdateExpression",
            ExpressionKind::Projection => "ProjectionExpression",
        }
    }
}

impl fmt::Display for ExpressionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.parameter_name())
    }
}

/// The cause of an [`ExprError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The expression is empty or only whitespace.
    Empty,
    /// The expression is longer than 4 KB.
    TooLong,
    /// The expression nests deeper than this crate's limit (see [`crate::MAX_NESTING`]).
    TooDeep,
    /// The expression has more than 300 operators and functions (see
    /// [`crate::MAX_OPERATORS`]).
    TooManyOperators,
    /// The text does not follow the grammar.
    Syntax,
    /// Doubled parentheses around one sub-expression.
    RedundantParentheses,
    /// A function name that does not exist in this kind of expression.
    UnknownFunction,
    /// A function used where its result type is not allowed (`size(a)` as a condition,
    /// `attribute_exists(a)` as an operand).
    MisusedFunction,
    /// An unescaped reserved word in a document path.
    ReservedWord,
    /// `#name` not present in `ExpressionAttributeNames`.
    UndefinedName,
    /// `:value` not present in `ExpressionAttributeValues`.
    UndefinedValue,
    /// A key of `ExpressionAttributeNames`/`Values` that is not a placeholder, or a name that
    /// stands for the empty string.
    InvalidPlaceholderKey,
    /// Names given in `ExpressionAttributeNames` that no expression used.
    UnusedNames,
    /// Values given in `ExpressionAttributeValues` that no expression used.
    UnusedValues,
    /// A list index above 2147483647.
    IndexOutOfRange,
    /// A document path of more than 32 elements.
    PathTooDeep,
    /// A function or operator given the wrong number of operands.
    OperandCount,
    /// A function or operator given an operand of the wrong type (known before evaluation).
    OperandType,
    /// A function that needs a document path was given something else.
    PathRequired,
    /// Both operands of a comparison or two-operand function are the same path.
    SameOperands,
    /// `BETWEEN` bounds of different types or in the wrong order.
    BetweenBounds,
    /// `attribute_type` given a type name that does not exist.
    InvalidTypeName,
    /// `IN` with more than 100 operands.
    TooManyOperands,
    /// An update clause (`SET`, `REMOVE`, `ADD`, `DELETE`) appears twice.
    DuplicateSection,
    /// Two document paths of one update or projection overlap.
    OverlappingPaths,
    /// Two document paths of one update or projection conflict (a list index and a map key at
    /// the same position).
    ConflictingPaths,
    /// An update touches a key attribute.
    KeyAttributeUpdate,
    /// A key condition DynamoDB refuses.
    KeyCondition,
    /// At apply time: an operand refers to an attribute the item does not have.
    MissingAttribute,
    /// At apply time: an operand has a type the operation cannot use.
    IncorrectOperandType,
    /// At apply time: a document path does not lead anywhere updatable in the item.
    InvalidDocumentPath,
    /// At apply time: a number result out of DynamoDB's range or precision.
    NumberOutOfRange,
}

/// An expression was refused. All of these are DynamoDB `ValidationException`s; `Display`
/// prints DynamoDB's exact message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    kind: ErrorKind,
    message: String,
}

impl ExprError {
    /// An error with a complete message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ExprError {
        ExprError { kind, message: message.into() }
    }

    /// An error whose message is `Invalid <parameter>: <detail>`.
    pub fn invalid(expression: ExpressionKind, kind: ErrorKind, detail: impl fmt::Display) -> ExprError {
        ExprError { kind, message: format!("Invalid {expression}: {detail}") }
    }

    /// DynamoDB's message text.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The cause.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExprError {}
