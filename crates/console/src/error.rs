//! Every failure of a console API call, and its JSON form.
//!
//! Invariant: an error carries only what the endpoint or the request said; nothing from the
//! console's configuration (credentials, cursor key, CSRF token) ever reaches a message.

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use http::StatusCode;
use serde_json::json;

/// A console API failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The request to the console itself is malformed (bad JSON, missing member, bad value).
    #[error("{0}")]
    BadRequest(String),
    /// The console refuses the call: read-only mode, missing login or CSRF token.
    #[error("{0}")]
    Forbidden(String),
    /// A sign-in with a key pair the endpoint does not accept.
    #[error("{0}")]
    Unauthorized(String),
    /// Too many sign-in attempts from one client; the message says when to try again.
    #[error("{0}")]
    TooManyRequests(String),
    /// The path names no console API.
    #[error("no such console API: {0}")]
    NotFound(String),
    /// The endpoint answered with an error (its `__type` name and message), or could not be
    /// reached.
    #[error("{code}: {message}")]
    Endpoint { code: String, message: String },
}

impl ApiError {
    /// The HTTP status the page receives.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Endpoint { .. } => StatusCode::BAD_GATEWAY,
        }
    }

    /// `{"error": {"type": …, "message": …}}`.
    pub fn to_json(&self) -> serde_json::Value {
        let (kind, message) = match self {
            ApiError::BadRequest(m) => ("BadRequest", m.clone()),
            ApiError::Forbidden(m) => ("Forbidden", m.clone()),
            ApiError::Unauthorized(m) => ("Unauthorized", m.clone()),
            ApiError::TooManyRequests(m) => ("TooManyRequests", m.clone()),
            ApiError::NotFound(_) => ("NotFound", self.to_string()),
            ApiError::Endpoint { code, message } => (code.as_str(), message.clone()),
        };
        json!({ "error": { "type": kind, "message": message } })
    }

    /// A malformed request.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::BadRequest(message.into())
    }
}

impl<E, R> From<SdkError<E, R>> for ApiError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    fn from(error: SdkError<E, R>) -> ApiError {
        match &error {
            SdkError::ServiceError(service) => {
                let e = service.err();
                ApiError::Endpoint {
                    code: e.code().unwrap_or("ServiceError").to_string(),
                    message: e.message().unwrap_or_default().to_string(),
                }
            }
            _ => ApiError::Endpoint {
                code: "EndpointUnreachable".into(),
                message: aws_smithy_types::error::display::DisplayErrorContext(&error).to_string(),
            },
        }
    }
}
