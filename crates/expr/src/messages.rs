//! DynamoDB's texts for the validation errors more than one grammar reports.

use crate::error::{ErrorKind, ExprError, ExpressionKind};

pub(crate) fn reserved_word(kind: ExpressionKind, word: &str) -> ExprError {
    ExprError::invalid(
        kind,
        ErrorKind::ReservedWord,
        format_args!("Attribute name is a reserved keyword; reserved keyword: {word}"),
    )
}

pub(crate) fn unknown_function(kind: ExpressionKind, name: &str) -> ExprError {
    ExprError::invalid(
        kind,
        ErrorKind::UnknownFunction,
        format_args!("Invalid function name; function: {name}"),
    )
}

pub(crate) fn operand_count(kind: ExpressionKind, name: &str, count: usize) -> ExprError {
    ExprError::invalid(
        kind,
        ErrorKind::OperandCount,
        format_args!(
            "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {count}"
        ),
    )
}

pub(crate) fn operand_type(kind: ExpressionKind, name: &str, ty: &str) -> ExprError {
    ExprError::invalid(
        kind,
        ErrorKind::OperandType,
        format_args!("Incorrect operand type for operator or function; operator or function: {name}, operand type: {ty}"),
    )
}

pub(crate) fn path_required(kind: ExpressionKind, name: &str) -> ExprError {
    ExprError::invalid(
        kind,
        ErrorKind::PathRequired,
        format_args!("Operator or function requires a document path; operator or function: {name}"),
    )
}

pub(crate) fn misused_function(kind: ExpressionKind, name: &str) -> ExprError {
    ExprError::invalid(
        kind,
        ErrorKind::MisusedFunction,
        format_args!("The function is not allowed to be used this way in an expression; function: {name}"),
    )
}
