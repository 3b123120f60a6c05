//! Every way a request can fail, and the one place a failure becomes an HTTP response.
//!
//! DynamoDB names an error by a fully qualified `__type`: the engine's own errors live in
//! `com.amazonaws.dynamodb.v20120810`, `ValidationException` in `com.amazon.coral.validate`,
//! throttling in `com.amazon.coral.availability`, and the errors raised by the service
//! framework before an operation runs (framing, authentication) in `com.amazon.coral.service`.
//! SDKs read the part after `#`, so the namespace matters only for fidelity, but we keep it.

use bytes::Bytes;
use monotable_engine::CancellationReason;
use monotable_types::Item;
use serde::Serialize;

/// Why a request failed. Rendered by [`ServerError::status`] and [`ServerError::body`], which
/// are the only code that decides an error's HTTP status and JSON shape.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// The engine refused or failed the operation.
    Engine(monotable_engine::Error),
    /// The body is not JSON, or a member has the wrong JSON type. DynamoDB sends no message
    /// for unparseable JSON and a `Message` for type mismatches.
    Serialization(Option<String>),
    /// A member has a value the request parser refuses (for example an empty AttributeValue).
    Validation(String),
    /// `X-Amz-Target` is missing or names no operation this server knows.
    UnknownOperation(Option<String>),
    /// Not a `POST` with a JSON content type: DynamoDB answers 404 with an XML-ish body.
    NotFound,
    /// The body exceeds the 16 MiB request size limit: DynamoDB answers 413 (with an empty
    /// body; we add a JSON error document so that SDKs can name the error).
    RequestTooLarge,
    /// No `Authorization` header (or not an `AWS4-` one).
    MissingAuthenticationToken,
    /// The `Authorization` header lacks a part or is malformed.
    IncompleteSignature(String),
    /// The signature is expired, scoped wrongly or does not match.
    InvalidSignature(String),
    /// The access key id is not one this server knows.
    UnrecognizedClient,
    /// A bug or an unexpected failure inside the server.
    Internal(String),
    /// A web page's request to a server that does not verify signatures (`browsers`):
    /// monotable's own refusal, answered 403.
    AccessDenied(String),
    /// A request body found no room in the transport's budget of buffered bytes within its
    /// deadline (`budget`). Answered as DynamoDB throttles a request.
    Throttled,
}

/// The message of DynamoDB's `ThrottlingException` (status 400), recorded from the real
/// service in the logs quoted by praetorian-inc/chariot-ui issue 684 (2024-09-06, "StatusCode:
/// 400 ... api error ThrottlingException: Throughput exceeds ...") and
/// cowinapi/developer.cowin issue 151 (2021, `"code":"ThrottlingException"`, `"statusCode":400`).
pub(crate) const THROTTLING_MESSAGE: &str =
    "Throughput exceeds the current capacity of your table or index. \
     DynamoDB is automatically scaling your table or index so please try again shortly. If \
     exceptions persist, check if you have a hot key: \
     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html";

/// `__type` namespaces, see the module documentation.
const DYNAMODB: &str = "com.amazonaws.dynamodb.v20120810#";
const CORAL_SERVICE: &str = "com.amazon.coral.service#";
const CORAL_VALIDATE: &str = "com.amazon.coral.validate#";
const CORAL_AVAILABILITY: &str = "com.amazon.coral.availability#";

/// Exception names that the service framework, not DynamoDB itself, raises.
const CORAL_SERVICE_TYPES: &[&str] = &[
    "SerializationException",
    "UnknownOperationException",
    "MissingAuthenticationTokenException",
    "IncompleteSignatureException",
    "InvalidSignatureException",
    "UnrecognizedClientException",
    "AccessDeniedException",
    "InternalFailure",
    "ServiceUnavailableException",
    "RequestEntityTooLargeException",
];

/// The body DynamoDB sends with a 404 for a request that is not a JSON `POST`.
pub(crate) const NOT_FOUND_BODY: &str = "<UnknownOperationException/>\n";

/// The JSON error document. Field names follow what DynamoDB sends: most errors use
/// `message`, `TransactionCanceledException` and type-mismatch `SerializationException`s use
/// `Message`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    #[serde(rename = "__type")]
    type_: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(rename = "Message", skip_serializing_if = "Option::is_none")]
    capital_message: Option<&'a str>,
    #[serde(rename = "Item", skip_serializing_if = "Option::is_none")]
    item: Option<&'a Item>,
    #[serde(rename = "CancellationReasons", skip_serializing_if = "Option::is_none")]
    cancellation_reasons: Option<&'a [CancellationReason]>,
}

impl ServerError {
    /// The bare exception name (`ConditionalCheckFailedException`), as SDKs see it.
    pub fn type_name(&self) -> &'static str {
        match self {
            ServerError::Engine(e) => e.kind.type_name(),
            ServerError::Serialization(_) => "SerializationException",
            ServerError::Validation(_) => "ValidationException",
            ServerError::UnknownOperation(_) | ServerError::NotFound => "UnknownOperationException",
            ServerError::RequestTooLarge => "RequestEntityTooLargeException",
            ServerError::MissingAuthenticationToken => "MissingAuthenticationTokenException",
            ServerError::IncompleteSignature(_) => "IncompleteSignatureException",
            ServerError::InvalidSignature(_) => "InvalidSignatureException",
            ServerError::UnrecognizedClient => "UnrecognizedClientException",
            ServerError::Internal(_) => "InternalServerError",
            ServerError::AccessDenied(_) => "AccessDeniedException",
            ServerError::Throttled => "ThrottlingException",
        }
    }

    /// The fully qualified `__type` DynamoDB sends.
    pub fn qualified_type(&self) -> String {
        qualify(self.type_name())
    }

    /// The HTTP status DynamoDB answers with.
    pub fn status(&self) -> http::StatusCode {
        match self {
            ServerError::NotFound => http::StatusCode::NOT_FOUND,
            ServerError::RequestTooLarge => http::StatusCode::PAYLOAD_TOO_LARGE,
            ServerError::AccessDenied(_) => http::StatusCode::FORBIDDEN,
            _ => match self.type_name() {
                "InternalServerError" | "InternalFailure" => http::StatusCode::INTERNAL_SERVER_ERROR,
                "ServiceUnavailable" | "ServiceUnavailableException" => http::StatusCode::SERVICE_UNAVAILABLE,
                _ => http::StatusCode::BAD_REQUEST,
            },
        }
    }

    /// The human-readable message, if DynamoDB sends one for this error.
    pub fn message(&self) -> Option<&str> {
        match self {
            ServerError::Engine(e) => Some(&e.message),
            ServerError::Serialization(m) | ServerError::UnknownOperation(m) => m.as_deref(),
            ServerError::Validation(m)
            | ServerError::IncompleteSignature(m)
            | ServerError::InvalidSignature(m)
            | ServerError::Internal(m)
            | ServerError::AccessDenied(m) => Some(m),
            ServerError::MissingAuthenticationToken => Some("Request is missing Authentication Token"),
            ServerError::UnrecognizedClient => Some("The security token included in the request is invalid."),
            ServerError::RequestTooLarge => {
                Some("Request entity too large: the request body exceeds 16777216 bytes")
            }
            ServerError::Throttled => Some(THROTTLING_MESSAGE),
            ServerError::NotFound => None,
        }
    }

    /// The response body and whether it is JSON (`false` for the 404 shape).
    pub fn body(&self) -> (Bytes, bool) {
        if let ServerError::NotFound = self {
            return (Bytes::from_static(NOT_FOUND_BODY.as_bytes()), false);
        }
        let type_name = self.type_name();
        let capital =
            matches!(self, ServerError::Serialization(_)) || type_name == "TransactionCanceledException";
        let message = self.message();
        let (item, cancellation_reasons) = match self {
            ServerError::Engine(e) => (e.item.as_ref(), e.cancellation_reasons.as_deref()),
            _ => (None, None),
        };
        let body = ErrorBody {
            type_: qualify(type_name),
            message: if capital { None } else { message },
            capital_message: if capital { message } else { None },
            item,
            cancellation_reasons,
        };
        // Serialising a struct of strings and attribute maps cannot fail; fall back to a
        // fixed document rather than panicking if it ever does.
        let json = serde_json::to_vec(&body).unwrap_or_else(|_| {
            br#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"}"#.to_vec()
        });
        (Bytes::from(json), true)
    }
}

/// Prefixes a bare exception name with the namespace DynamoDB uses for it.
fn qualify(type_name: &str) -> String {
    let namespace = if type_name == "ValidationException" {
        CORAL_VALIDATE
    } else if type_name == "ThrottlingException" {
        CORAL_AVAILABILITY
    } else if CORAL_SERVICE_TYPES.contains(&type_name) {
        CORAL_SERVICE
    } else {
        DYNAMODB
    };
    format!("{namespace}{type_name}")
}

impl From<monotable_engine::Error> for ServerError {
    fn from(e: monotable_engine::Error) -> Self {
        ServerError::Engine(e)
    }
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.message() {
            Some(m) => write!(f, "{}: {m}", self.type_name()),
            None => f.write_str(self.type_name()),
        }
    }
}

impl std::error::Error for ServerError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(e: &ServerError) -> serde_json::Value {
        let (body, is_json) = e.body();
        assert!(is_json);
        serde_json::from_slice(&body).unwrap()
    }

    #[test]
    fn serialization_exception_is_a_coral_service_error_with_capital_message() {
        let e = ServerError::Serialization(Some("Start of list found where not expected".into()));
        let v = json(&e);
        assert_eq!(v["__type"], "com.amazon.coral.service#SerializationException");
        assert_eq!(v["Message"], "Start of list found where not expected");
        assert!(v.get("message").is_none());
        assert_eq!(e.status(), 400);
    }

    #[test]
    fn unparseable_json_gets_a_serialization_exception_without_message() {
        let v = json(&ServerError::Serialization(None));
        assert_eq!(v, serde_json::json!({"__type": "com.amazon.coral.service#SerializationException"}));
    }

    #[test]
    fn validation_exception_lives_in_coral_validate() {
        let v = json(&ServerError::Validation("bad".into()));
        assert_eq!(v["__type"], "com.amazon.coral.validate#ValidationException");
        assert_eq!(v["message"], "bad");
    }

    #[test]
    fn missing_authentication_token_has_dynamodb_text() {
        let e = ServerError::MissingAuthenticationToken;
        let v = json(&e);
        assert_eq!(v["__type"], "com.amazon.coral.service#MissingAuthenticationTokenException");
        assert_eq!(v["message"], "Request is missing Authentication Token");
        assert_eq!(e.status(), 400);
    }

    #[test]
    fn unrecognized_client_has_dynamodb_text() {
        let v = json(&ServerError::UnrecognizedClient);
        assert_eq!(v["__type"], "com.amazon.coral.service#UnrecognizedClientException");
        assert_eq!(v["message"], "The security token included in the request is invalid.");
    }

    #[test]
    fn not_a_json_post_is_a_404_with_xml_body() {
        let e = ServerError::NotFound;
        assert_eq!(e.status(), 404);
        assert_eq!(e.body(), (Bytes::from_static(b"<UnknownOperationException/>\n"), false));
    }

    #[test]
    fn oversized_body_is_a_413_naming_the_error() {
        let e = ServerError::RequestTooLarge;
        assert_eq!(e.status(), 413);
        assert_eq!(json(&e)["__type"], "com.amazon.coral.service#RequestEntityTooLargeException");
    }

    #[test]
    fn a_refused_browser_is_a_403_access_denied() {
        let e = ServerError::AccessDenied("no".into());
        assert_eq!(e.status(), 403);
        assert_eq!(json(&e)["__type"], "com.amazon.coral.service#AccessDeniedException");
        assert_eq!(json(&e)["message"], "no");
    }

    #[test]
    fn throttling_is_a_400_in_coral_availability_with_dynamodb_text() {
        let e = ServerError::Throttled;
        assert_eq!(e.status(), 400);
        let v = json(&e);
        assert_eq!(v["__type"], "com.amazon.coral.availability#ThrottlingException");
        assert!(v["message"].as_str().unwrap().starts_with("Throughput exceeds the current capacity"));
        assert!(v["message"].as_str().unwrap().ends_with("bp-partition-key-design.html"));
    }

    #[test]
    fn internal_error_is_a_500_in_the_dynamodb_namespace() {
        let e = ServerError::Internal("boom".into());
        assert_eq!(e.status(), 500);
        assert_eq!(json(&e)["__type"], "com.amazonaws.dynamodb.v20120810#InternalServerError");
    }
}
