//! DescribeEndpoints names the endpoint the request came to.
//!
//! DynamoDB answers with one endpoint, the regional address the client used, without a
//! scheme (ScyllaDB's test_describe_endpoints.py, verified against DynamoDB: "the address
//! does not include the "http://" or "https://" prefix" and a client pointed at it works). A
//! local endpoint therefore answers with the request's `Host` (`localhost:8000`); the engine's
//! answer, DynamoDB's us-east-1 address, stands when a request has no `Host`.

use monotable_engine::DescribeEndpointsOutput;

/// Rewrites an encoded DescribeEndpoints response to name the request's `Host`.
pub(crate) fn with_request_host(parts: &http::request::Parts, output: Vec<u8>) -> Vec<u8> {
    let host = parts
        .headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()));
    let Some(host) = host else { return output };
    let Ok(mut decoded) = serde_json::from_slice::<DescribeEndpointsOutput>(&output) else { return output };
    for endpoint in decoded.endpoints.iter_mut().flatten() {
        endpoint.address = Some(host.to_owned());
    }
    serde_json::to_vec(&decoded).unwrap_or(output)
}
