//! CORS, so that browser tools can talk to the server: DynamoDB answers any request that has
//! an `Origin` with `Access-Control-Allow-Origin: *` and the response headers a script may read
//! (`Access-Control-Expose-Headers`), and a preflight `OPTIONS` with the requested headers and
//! method echoed back.
//!
//! Source: ScyllaDB's test/alternator/test_cors.py, run against DynamoDB (every response to a
//! request with an `Origin` carries both headers, only a preflight the echoes and a max age,
//! a request without an `Origin` none of them), and alternator/server.cc, which sends "the
//! list that DynamoDB returns for expose headers".

use bytes::Bytes;
use http::header::{
    HeaderMap, HeaderValue, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD,
};
use http::{Method, Response, StatusCode};

use crate::headers::RequestHeaders;
use crate::response::respond;

/// How long a browser may cache a preflight answer (two days, as DynamoDB says).
const MAX_AGE_SECONDS: u32 = 172_800;

/// The response headers DynamoDB lets a script read, as DynamoDB lists them. `x-amz-crc32` is
/// not among them: a browser hides it, and the browser SDK then skips the checksum
/// (aws-sdk-js's lib/services/dynamodb.js, `crc32IsValid`: no header, no check).
const EXPOSE_HEADERS: &str = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date";

/// The answer to a preflight request, or `None` when `parts` is not one.
pub(crate) fn preflight(
    parts: &http::request::Parts,
    headers: &RequestHeaders<'_>,
    request_id: &(impl AsRef<[u8]> + ?Sized),
) -> Option<Response<Bytes>> {
    if parts.method != Method::OPTIONS || headers.origin.is_none() {
        return None;
    }
    let mut response = respond(StatusCode::OK, Bytes::new(), None, request_id);
    let headers = response.headers_mut();
    allow(headers);
    if let Some(requested) = parts.headers.get(ACCESS_CONTROL_REQUEST_HEADERS) {
        headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, requested.clone());
    }
    if let Some(requested) = parts.headers.get(ACCESS_CONTROL_REQUEST_METHOD) {
        headers.insert(ACCESS_CONTROL_ALLOW_METHODS, requested.clone());
    }
    headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from(MAX_AGE_SECONDS));
    Some(response)
}

/// Adds `Access-Control-Allow-Origin: *` and DynamoDB's exposed headers when the request came
/// from a browser origin.
pub(crate) fn allow_origin(headers: &RequestHeaders<'_>, response: &mut Response<Bytes>) {
    if headers.origin.is_some() {
        allow(response.headers_mut());
    }
}

/// The headers every answer to a request with an `Origin` carries.
fn allow(headers: &mut HeaderMap) {
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSE_HEADERS));
}

#[cfg(test)]
mod tests {
    use http::header::ORIGIN;

    use super::*;

    fn parts(method: &str, origin: bool) -> http::request::Parts {
        let mut builder = http::Request::builder()
            .method(method)
            .uri("/")
            .header(ACCESS_CONTROL_REQUEST_HEADERS, "content-type,x-amz-target")
            .header(ACCESS_CONTROL_REQUEST_METHOD, "POST");
        if origin {
            builder = builder.header(ORIGIN, "http://localhost:3000");
        }
        builder.body(()).unwrap().into_parts().0
    }

    fn preflight_of(parts: &http::request::Parts) -> Option<Response<Bytes>> {
        preflight(parts, &RequestHeaders::read(&parts.headers), "ID")
    }

    #[test]
    fn preflight_echoes_the_requested_headers_and_method() {
        let r = preflight_of(&parts("OPTIONS", true)).unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()[ACCESS_CONTROL_ALLOW_ORIGIN], "*");
        assert_eq!(r.headers()[ACCESS_CONTROL_ALLOW_HEADERS], "content-type,x-amz-target");
        assert_eq!(r.headers()[ACCESS_CONTROL_ALLOW_METHODS], "POST");
        assert_eq!(r.headers()[ACCESS_CONTROL_MAX_AGE], "172800");
        assert_eq!(r.headers()[ACCESS_CONTROL_EXPOSE_HEADERS], EXPOSE_HEADERS);
    }

    #[test]
    fn options_without_origin_is_not_a_preflight() {
        assert!(preflight_of(&parts("OPTIONS", false)).is_none());
        assert!(preflight_of(&parts("POST", true)).is_none());
    }
}
