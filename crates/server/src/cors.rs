//! CORS, so that browser tools can talk to the server: DynamoDB answers any request that has
//! an `Origin` with `Access-Control-Allow-Origin: *`, and a preflight `OPTIONS` with the
//! requested headers and method echoed back.

use bytes::Bytes;
use http::header::{
    HeaderValue, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD,
};
use http::{Method, Response, StatusCode};

use crate::headers::RequestHeaders;
use crate::response::respond;

/// How long a browser may cache a preflight answer (two days, as DynamoDB says).
const MAX_AGE_SECONDS: u32 = 172_800;

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
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    if let Some(requested) = parts.headers.get(ACCESS_CONTROL_REQUEST_HEADERS) {
        headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, requested.clone());
    }
    if let Some(requested) = parts.headers.get(ACCESS_CONTROL_REQUEST_METHOD) {
        headers.insert(ACCESS_CONTROL_ALLOW_METHODS, requested.clone());
    }
    headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from(MAX_AGE_SECONDS));
    Some(response)
}

/// Adds `Access-Control-Allow-Origin: *` when the request came from a browser origin.
pub(crate) fn allow_origin(headers: &RequestHeaders<'_>, response: &mut Response<Bytes>) {
    if headers.origin.is_some() {
        response.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    }
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
    }

    #[test]
    fn options_without_origin_is_not_a_preflight() {
        assert!(preflight_of(&parts("OPTIONS", false)).is_none());
        assert!(preflight_of(&parts("POST", true)).is_none());
    }
}
