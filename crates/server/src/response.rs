//! Building HTTP responses: every response carries `x-amzn-RequestId` and an `x-amz-crc32`
//! of its exact body bytes (the AWS SDKs and boto3 check it), and errors are rendered here
//! and nowhere else.

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::{Response, StatusCode};

use crate::ServerError;

/// DynamoDB's JSON 1.0 content type.
pub const JSON_1_0: &str = "application/x-amz-json-1.0";
/// The plain JSON content type DynamoDB also accepts (and then answers with).
pub const PLAIN_JSON: &str = "application/json";

/// A DynamoDB request id: 52 characters of `[0-9A-Z]`.
pub(crate) fn new_request_id() -> String {
    const ALPHABET: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut random = [0u8; 64];
    for chunk in random.chunks_mut(16) {
        chunk.copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    }
    random.iter().take(52).map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char).collect()
}

/// A response with the headers every DynamoDB response has. `content_type` is `None` for the
/// non-JSON 404 shape.
pub(crate) fn respond(
    status: StatusCode,
    body: Bytes,
    content_type: Option<&'static str>,
    request_id: &str,
) -> Response<Bytes> {
    let crc = crc32fast::hash(&body);
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", id);
    }
    headers.insert("x-amz-crc32", HeaderValue::from(crc));
    if let Some(ct) = content_type {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    response
}

/// The response for an error: its status, its `__type` and its body, as DynamoDB sends them.
pub(crate) fn error_response(
    error: &ServerError,
    content_type: &'static str,
    request_id: &str,
) -> Response<Bytes> {
    let (body, is_json) = error.body();
    respond(error.status(), body, is_json.then_some(content_type), request_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_52_uppercase_alphanumerics_and_unique() {
        let a = new_request_id();
        assert_eq!(a.len(), 52);
        assert!(a.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()), "{a}");
        assert_ne!(a, new_request_id());
    }

    #[test]
    fn crc32_header_is_the_crc_of_the_body() {
        let r = respond(StatusCode::OK, Bytes::from_static(b"{}"), Some(JSON_1_0), "ID");
        // CRC-32 (IEEE) of "{}" is 2745614147.
        assert_eq!(r.headers()["x-amz-crc32"], "2745614147");
        assert_eq!(r.headers()["x-amzn-requestid"], "ID");
        assert_eq!(r.headers()[CONTENT_TYPE], JSON_1_0);
    }

    #[test]
    fn not_found_has_dynamodb_fixed_crc() {
        let r = error_response(&ServerError::NotFound, JSON_1_0, "ID");
        assert_eq!(r.status(), 404);
        assert_eq!(r.headers()["x-amz-crc32"], "3552371480");
        assert!(r.headers().get(CONTENT_TYPE).is_none());
    }
}
