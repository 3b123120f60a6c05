//! The engine's error: a DynamoDB error type plus its message.

use std::fmt;

use monotable_types::Item;

use crate::api::CancellationReason;

/// DynamoDB's error types. [`ErrorKind::type_name`] is the `__type` suffix on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    Validation,
    ConditionalCheckFailed,
    ResourceNotFound,
    ResourceInUse,
    TransactionCanceled,
    TransactionConflict,
    TransactionInProgress,
    IdempotentParameterMismatch,
    LimitExceeded,
    ItemCollectionSizeLimitExceeded,
    ProvisionedThroughputExceeded,
    RequestLimitExceeded,
    /// DynamoDB Streams: a shard iterator older than 15 minutes.
    ExpiredIterator,
    /// DynamoDB Streams: a position before the shard's oldest retained record.
    TrimmedDataAccess,
    InternalServerError,
    PolicyNotFound,
    TableNotFound,
    PointInTimeRecoveryUnavailable,
    ExportNotFound,
    ImportNotFound,
    InvalidExportTime,
    /// PartiQL INSERT of an item whose primary key already exists.
    DuplicateItem,
    /// A resource of another account (the caller holds no permission on it).
    AccessDenied,
}

impl ErrorKind {
    /// DynamoDB's name of the error type, e.g. `ValidationException`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ErrorKind::Validation => "ValidationException",
            ErrorKind::ConditionalCheckFailed => "ConditionalCheckFailedException",
            ErrorKind::ResourceNotFound => "ResourceNotFoundException",
            ErrorKind::ResourceInUse => "ResourceInUseException",
            ErrorKind::TransactionCanceled => "TransactionCanceledException",
            ErrorKind::TransactionConflict => "TransactionConflictException",
            ErrorKind::TransactionInProgress => "TransactionInProgressException",
            ErrorKind::IdempotentParameterMismatch => "IdempotentParameterMismatchException",
            ErrorKind::LimitExceeded => "LimitExceededException",
            ErrorKind::ItemCollectionSizeLimitExceeded => "ItemCollectionSizeLimitExceededException",
            ErrorKind::ProvisionedThroughputExceeded => "ProvisionedThroughputExceededException",
            ErrorKind::RequestLimitExceeded => "RequestLimitExceeded",
            ErrorKind::ExpiredIterator => "ExpiredIteratorException",
            ErrorKind::TrimmedDataAccess => "TrimmedDataAccessException",
            ErrorKind::InternalServerError => "InternalServerError",
            ErrorKind::PolicyNotFound => "PolicyNotFoundException",
            ErrorKind::TableNotFound => "TableNotFoundException",
            ErrorKind::PointInTimeRecoveryUnavailable => "PointInTimeRecoveryUnavailableException",
            ErrorKind::ExportNotFound => "ExportNotFoundException",
            ErrorKind::ImportNotFound => "ImportNotFoundException",
            ErrorKind::InvalidExportTime => "InvalidExportTimeException",
            ErrorKind::DuplicateItem => "DuplicateItemException",
            ErrorKind::AccessDenied => "AccessDeniedException",
        }
    }

    /// True for errors DynamoDB reports with HTTP 500 rather than 400.
    pub fn is_server_error(&self) -> bool {
        matches!(self, ErrorKind::InternalServerError)
    }
}

/// An engine error: DynamoDB's error type, its message and, for conditional-check failures
/// and cancelled transactions, the extra members DynamoDB returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// The item as it was, for `ConditionalCheckFailedException` when the request asked for
    /// `ReturnValuesOnConditionCheckFailure=ALL_OLD` and the item existed.
    pub item: Option<Item>,
    /// For `TransactionCanceledException`: one reason per action, in request order.
    pub cancellation_reasons: Option<Vec<CancellationReason>>,
}

impl Error {
    /// An error of the given kind with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), item: None, cancellation_reasons: None }
    }

    /// A `ValidationException`.
    pub fn validation(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Validation, message)
    }

    /// DynamoDB's "One or more parameter values were invalid: …" validation error.
    pub fn invalid_param(detail: impl fmt::Display) -> Error {
        Error::validation(format!("One or more parameter values were invalid: {detail}"))
    }

    /// `ResourceNotFoundException` for a table or index that does not exist.
    pub fn not_found() -> Error {
        Error::new(ErrorKind::ResourceNotFound, "Requested resource not found")
    }

    /// `ConditionalCheckFailedException`, carrying the old item when asked for.
    pub fn conditional_failed(item: Option<Item>) -> Error {
        Error { item, ..Error::new(ErrorKind::ConditionalCheckFailed, "The conditional request failed") }
    }

    /// `InternalServerError` from the storage layer.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InternalServerError, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.type_name(), self.message)
    }
}

impl std::error::Error for Error {}

impl From<crate::storage::StorageError> for Error {
    fn from(e: crate::storage::StorageError) -> Error {
        Error::internal(e.to_string())
    }
}
