//! The one error type of the library. Callers match on variants, never on message text.

use std::fmt;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

/// A boxed error, what a change handler's error becomes in [`Error::Handler`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything a monotable operation can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The item does not exist.
    #[error("{entity} not found")]
    NotFound {
        /// The entity type name.
        entity: &'static str,
    },
    /// A condition of the write did not hold (S15–S17).
    #[error("{entity}: conflict: {reason}")]
    Conflict {
        /// The entity type name.
        entity: &'static str,
        /// Why.
        reason: ConflictReason,
    },
    /// The caller may not do this; nothing was sent to the database (S13, S14).
    #[error("forbidden: {0}")]
    Forbidden(ForbiddenReason),
    /// The credential could not be verified.
    #[error("unauthenticated: {0}")]
    Unauthenticated(String),
    /// Input failed validation; nothing was written (S20).
    #[error("validation failed: {0}")]
    Validation(ValidationErrors),
    /// A pagination cursor was refused (S10).
    #[error("invalid cursor: {0}")]
    InvalidCursor(CursorError),
    /// A DynamoDB limit would be exceeded; checked before sending.
    #[error("limit exceeded: {what} allows at most {limit}, got {actual}")]
    Limit {
        /// Which limit.
        what: &'static str,
        /// The limit.
        limit: usize,
        /// What was asked for.
        actual: usize,
    },
    /// DynamoDB throttled the request and retries did not help.
    #[error("throttled during {operation}")]
    Throttled {
        /// The DynamoDB operation.
        operation: &'static str,
    },
    /// A transaction was cancelled; one entry per action, in order.
    #[error("transaction cancelled: {}", describe_actions(.0))]
    TransactionCancelled(Vec<ActionOutcome>),
    /// Start-up configuration is wrong (table name, conventions, colliding entity types).
    #[error("configuration: {0}")]
    Config(String),
    /// The table has no stream whose changes a [`ChangeConsumer`](crate::changes::ChangeConsumer)
    /// could read.
    #[error("table `{table}` has no stream: enable one (StreamSpecification, e.g. NEW_AND_OLD_IMAGES) to consume its changes")]
    NoStream {
        /// The table name.
        table: String,
    },
    /// A change handler failed on a record. The checkpoint stays on the record before it, so
    /// the record is delivered again.
    #[error("the change handler failed on stream record {sequence_number}: {source}")]
    Handler {
        /// The failed record's sequence number.
        sequence_number: String,
        /// The handler's error.
        #[source]
        source: BoxError,
    },
    /// The records after the checkpoint of a shard are gone from the stream (DynamoDB keeps
    /// them 24 hours): resuming would skip changes, so the consumer stops. Start over with a
    /// new checkpoint to accept the gap.
    #[error("the stream records of shard {shard_id} after {} were trimmed (older than 24 hours); reading on would skip changes", .after.as_deref().unwrap_or("its start"))]
    StreamTrimmed {
        /// The shard.
        shard_id: String,
        /// The last handled sequence number, if any.
        after: Option<String>,
    },
    /// A stream record (from the Streams API or a Lambda event) is not a valid record.
    #[error("invalid stream record {}: {message}", .sequence_number.as_deref().unwrap_or("without a sequence number"))]
    InvalidChangeRecord {
        /// Its sequence number, when it has one.
        sequence_number: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The table does not exist at the client's endpoint, or is not ACTIVE yet: DynamoDB's
    /// `ResourceNotFoundException`, which the DynamoDB API reference documents for a table
    /// (or index) that is missing or not ACTIVE; a Query on a missing index of an existing
    /// table gets a `ValidationException` instead. Deployed tables come from the design (`monotable design
    /// apply`, or [`Table::cloudformation_resource`](crate::Table::cloudformation_resource));
    /// development and tests call [`Table::create_for_development`](crate::Table::create_for_development).
    #[error("table `{table}` does not exist at this endpoint, or is not ACTIVE yet ({operation}); create it with `monotable design apply DESIGN --endpoint URL`, or call `Table::create_for_development()` in development and tests")]
    TableNotFound {
        /// The table name.
        table: String,
        /// The DynamoDB operation.
        operation: &'static str,
    },
    /// Any other failure of the database or the transport.
    #[error("backend error during {operation}: {message}")]
    Backend {
        /// The DynamoDB operation.
        operation: &'static str,
        /// The DynamoDB error code, when there is one.
        code: Option<String>,
        /// The message.
        message: String,
    },
}

/// Why a write conflicted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConflictReason {
    /// `create` found an item with the same key and a different content.
    AlreadyExists,
    /// The stored version is not the one the caller read (S16).
    VersionMismatch {
        /// The version the caller expected.
        expected: i64,
    },
    /// The idempotency key was used before with a different payload (S15).
    IdempotencyKeyReused,
    /// A unique field value is taken by another item (S17).
    UniqueTaken {
        /// The attribute name.
        field: &'static str,
    },
    /// A condition of an `update` or `delete` did not hold.
    ConditionFailed,
}

impl fmt::Display for ConflictReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConflictReason::AlreadyExists => write!(f, "an item with this key already exists"),
            ConflictReason::VersionMismatch { expected } => {
                write!(f, "the item changed since version {expected} was read")
            }
            ConflictReason::IdempotencyKeyReused => {
                write!(f, "the idempotency key was already used with a different payload")
            }
            ConflictReason::UniqueTaken { field } => write!(f, "the value of `{field}` is already taken"),
            ConflictReason::ConditionFailed => write!(f, "the condition did not hold"),
        }
    }
}

/// Why an operation was forbidden.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForbiddenReason {
    /// The caller does not hold this organisation.
    NotAMember,
    /// The operation needs the admin capability.
    AdminRequired,
    /// The item's tenant field is not the scope's tenant.
    TenantMismatch,
    /// The repository scope has no tenant, and the operation needs one.
    NoTenant,
}

impl fmt::Display for ForbiddenReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ForbiddenReason::NotAMember => "the caller does not hold this organisation",
            ForbiddenReason::AdminRequired => "the admin capability is required",
            ForbiddenReason::TenantMismatch => "the item belongs to another tenant",
            ForbiddenReason::NoTenant => "this operation needs a tenant scope",
        })
    }
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CursorError {
    /// Not base64url, or not the expected structure.
    Malformed,
    /// The authentication tag does not match: tampered or signed with another key.
    BadSignature,
    /// Past its expiry.
    Expired,
    /// Issued to another tenant.
    WrongTenant,
    /// Issued for another entity type or index.
    WrongTarget,
    /// Issued for a different query (key condition, filter, projection or order).
    WrongQuery,
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CursorError::Malformed => "the cursor is malformed",
            CursorError::BadSignature => "the cursor was altered or signed with another key",
            CursorError::Expired => "the cursor has expired",
            CursorError::WrongTenant => "the cursor was issued to another tenant",
            CursorError::WrongTarget => "the cursor was issued for another entity type or index",
            CursorError::WrongQuery => "the cursor was issued for a different query",
        })
    }
}

/// Field-level validation messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationErrors {
    /// One entry per failed rule.
    pub errors: Vec<FieldError>,
}

/// One failed validation rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field path (`email`, `address.city`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl ValidationErrors {
    /// One error on one field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        ValidationErrors { errors: vec![FieldError { field: field.into(), message: message.into() }] }
    }

    /// Whether there is a message for this field.
    pub fn has(&self, field: &str) -> bool {
        self.errors.iter().any(|e| e.field == field)
    }

    /// The field-level errors of a `garde` validation report (what `#[entity(validate)]`
    /// generates), one per failed rule.
    pub(crate) fn from_garde(r: Result<(), garde::Report>) -> Result<(), ValidationErrors> {
        match r {
            Ok(()) => Ok(()),
            Err(report) => Err(ValidationErrors {
                errors: report
                    .iter()
                    .map(|(path, e)| FieldError { field: path.to_string(), message: e.message().to_string() })
                    .collect(),
            }),
        }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.errors.iter().map(|e| format!("{}: {}", e.field, e.message)).collect();
        f.write_str(&parts.join("; "))
    }
}

/// The outcome of one action of a cancelled transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionOutcome {
    /// This action was fine; another one caused the cancellation.
    Ok,
    /// Its condition did not hold.
    ConditionFailed,
    /// Another transaction touched the item.
    TransactionConflict,
    /// Throttled.
    Throttled,
    /// Refused by validation.
    Invalid(String),
    /// Any other reason code.
    Other(String),
}

fn describe_actions(actions: &[ActionOutcome]) -> String {
    let failed: Vec<String> = actions
        .iter()
        .enumerate()
        .filter(|(_, a)| **a != ActionOutcome::Ok)
        .map(|(i, a)| format!("action {i}: {a:?}"))
        .collect();
    failed.join(", ")
}

impl Error {
    /// This error of a request on `table`, with `ResourceNotFoundException` turned into
    /// [`Error::TableNotFound`]: on the item operations the library sends, that code means the
    /// table is missing or not ACTIVE (a missing index is a `ValidationException`).
    pub(crate) fn on_table(self, table: &str) -> Self {
        match self {
            Error::Backend { operation, code: Some(code), .. } if code == "ResourceNotFoundException" => {
                Error::TableNotFound { table: table.to_string(), operation }
            }
            other => other,
        }
    }
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The DynamoDB error code of an SDK error, if it is a service error.
pub(crate) fn code_of<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> Option<&str> {
    err.code()
}

/// Maps an SDK error that has no operation-specific meaning.
pub(crate) fn backend<E, R>(operation: &'static str, err: SdkError<E, R>) -> Error
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: fmt::Debug,
{
    let code = err.code().map(str::to_string);
    match code.as_deref() {
        Some("ProvisionedThroughputExceededException" | "ThrottlingException" | "RequestLimitExceeded") => {
            Error::Throttled { operation }
        }
        _ => {
            let message = match err.message() {
                Some(m) => m.to_string(),
                None => {
                    let mut text = err.to_string();
                    let mut source = std::error::Error::source(&err);
                    while let Some(s) = source {
                        text.push_str(": ");
                        text.push_str(&s.to_string());
                        source = s.source();
                    }
                    text
                }
            };
            Error::Backend { operation, code, message }
        }
    }
}
