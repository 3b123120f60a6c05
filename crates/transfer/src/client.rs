//! Clients for endpoints, and which of their errors are worth retrying.

use aws_config::retry::RetryConfig;
use aws_config::{BehaviorVersion, Region};
use aws_credential_types::provider::ProvideCredentials;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::Client;

use crate::TransferError;

/// A client for `endpoint` (a URL such as `http://127.0.0.1:8000`, or `aws` for Amazon
/// DynamoDB itself). Region and credentials come from the usual AWS chain (environment,
/// profile, instance role); the region defaults to `us-east-1`, and a local endpoint (loopback
/// address) that finds no credentials gets placeholder ones, as local emulators accept any.
/// The SDK's own retries are off: [`crate::Backoff`] retries throttling with jitter, and the
/// unprocessed items of batch writes, in one place.
pub async fn connect(endpoint: &str) -> Client {
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).retry_config(RetryConfig::disabled());
    if endpoint != "aws" {
        loader = loader.endpoint_url(endpoint);
    }
    let sdk = loader.load().await;
    let mut builder = aws_sdk_dynamodb::config::Builder::from(&sdk);
    if sdk.region().is_none() {
        builder = builder.region(Region::new("us-east-1"));
    }
    let has_credentials = match sdk.credentials_provider() {
        Some(p) => p.provide_credentials().await.is_ok(),
        None => false,
    };
    if !has_credentials && is_loopback(endpoint) {
        builder = builder.credentials_provider(aws_credential_types::Credentials::new(
            "local",
            "local",
            None,
            None,
            "monotable-transfer",
        ));
    }
    Client::from_conf(builder.build())
}

fn is_loopback(endpoint: &str) -> bool {
    let rest = endpoint.split_once("://").map_or(endpoint, |(_, r)| r);
    let host = rest.split(['/', ':']).next().unwrap_or("");
    host == "localhost" || host.starts_with("127.") || rest.starts_with("[::1]")
}

/// Error codes that mean "slow down and try again": DynamoDB's throttling errors and its
/// transient server errors (API reference, "Common Errors" and each operation's "Errors").
const RETRYABLE_CODES: &[&str] = &[
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "LimitExceededException",
];

/// True for throttling, transient server errors, timeouts and connection failures.
pub fn is_retryable<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> bool {
    match err {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => true,
        SdkError::ServiceError(e) => e.err().code().is_some_and(|c| RETRYABLE_CODES.contains(&c)),
        _ => false,
    }
}

/// The endpoint error as a [`TransferError`], with the error code and message.
pub fn endpoint_error<E: ProvideErrorMetadata + std::error::Error + 'static, R: std::fmt::Debug>(
    operation: &'static str,
    err: SdkError<E, R>,
) -> TransferError {
    let message = match err.code() {
        Some(code) => format!("{code}: {}", err.message().unwrap_or("")),
        None => aws_sdk_dynamodb::error::DisplayErrorContext(&err).to_string(),
    };
    TransferError::Endpoint { operation, message }
}

#[cfg(test)]
mod tests {
    use super::is_loopback;

    #[test]
    fn loopback_endpoints_are_recognised() {
        for e in ["http://127.0.0.1:8000", "http://localhost:8000/", "http://[::1]:8000", "127.0.0.2:9"] {
            assert!(is_loopback(e), "{e}");
        }
        for e in ["https://dynamodb.us-east-1.amazonaws.com", "http://10.0.0.1:8000", "aws"] {
            assert!(!is_loopback(e), "{e}");
        }
    }
}
