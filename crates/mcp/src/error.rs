//! Tool errors: bad input or a failed request, reported to the agent as a tool result with
//! `isError` (never a protocol error), each saying what to do next.

/// Why a tool call failed. The message is what the agent reads.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ToolError {
    /// The arguments do not fit the tool's input schema or say something impossible.
    #[error("{0}")]
    BadInput(String),
    /// The tool needs a design and neither an inline one nor `--design` gave one.
    #[error(
        "no design: pass the design document as the `design` argument (YAML or JSON text), or start the server with --design FILE"
    )]
    NoDesign,
    /// The design text is not a design document.
    #[error("the design is not a valid design document: {0}. Check it against the resource monotable://design.schema.json")]
    BadDesign(String),
    /// The endpoint refused or failed a request.
    #[error("{0}")]
    Request(String),
}

impl ToolError {
    pub(crate) fn bad(message: impl Into<String>) -> ToolError {
        ToolError::BadInput(message.into())
    }
}

/// A DynamoDB request error as the agent should read it: the service's error code and message.
pub(crate) fn request<E, R>(operation: &str, error: aws_sdk_dynamodb::error::SdkError<E, R>) -> ToolError
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug,
{
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let message = match (error.code(), error.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_string(),
        _ => format!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&error)),
    };
    ToolError::Request(format!("{operation} failed: {message}"))
}
