//! Building HTTP responses: every response carries `x-amzn-RequestId` and an `x-amz-crc32`
//! of its exact body bytes (the AWS SDKs and boto3 check it), and errors are rendered here
//! and nowhere else.

use std::cell::Cell;

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use http::{Response, StatusCode};

use crate::ServerError;

/// DynamoDB's JSON 1.0 content type.
pub const JSON_1_0: &str = "application/x-amz-json-1.0";
/// The plain JSON content type DynamoDB also accepts (and then answers with).
pub const PLAIN_JSON: &str = "application/json";

const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-amzn-requestid");
const CRC32_HEADER: HeaderName = HeaderName::from_static("x-amz-crc32");

/// A DynamoDB request id: 52 characters of `[0-9A-Z]`.
///
/// Ids only need to be unique, not secret: each thread starts from 52 random characters,
/// drawn once from a wyrand generator seeded with the operating system's randomness, and
/// counts up from there in base 36 (the last character first, carrying to the left). Two
/// threads' sequences would have to start within 2^64 steps of each other in a space of
/// 36^52 (about 2^268) to meet, so ids never repeat in practice, and the next id costs one
/// character increment (rarely a carry) instead of 52 random characters.
#[derive(Clone, Copy)]
pub(crate) struct RequestId([u8; REQUEST_ID_LEN]);

const REQUEST_ID_LEN: usize = 52;

impl RequestId {
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits and capitals are ever written.
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<[u8]> for RequestId {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

const ALPHABET: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

thread_local! {
    // A `RefCell`, not a `Cell`: the id is incremented where it lies and copied out once. With
    // `Cell::get`/`set` the compiler split the copied array into 52 single bytes and moved
    // each one three times (about 400 instructions per id instead of about 40).
    static LAST_ID: std::cell::RefCell<[u8; REQUEST_ID_LEN]> = std::cell::RefCell::new(random_id());
}

/// 52 random characters: each random byte picks one, `(byte * 36) >> 8` mapping the 256
/// values onto the 36 characters 7 or 8 times each.
fn random_id() -> [u8; REQUEST_ID_LEN] {
    let random = uuid::Uuid::new_v4().as_u128();
    let state = std::cell::Cell::new((random as u64) ^ ((random >> 64) as u64));
    let mut id = [0u8; REQUEST_ID_LEN];
    for chunk in id.chunks_mut(8) {
        for (c, byte) in chunk.iter_mut().zip(wyrand(&state).to_le_bytes()) {
            *c = ALPHABET[(usize::from(byte) * 36) >> 8];
        }
    }
    id
}

/// One step of wyrand (public domain; passes BigCrush and PractRand).
fn wyrand(state: &std::cell::Cell<u64>) -> u64 {
    let s = state.get().wrapping_add(0xa076_1d64_78bd_642f);
    state.set(s);
    let t = u128::from(s) * u128::from(s ^ 0xe703_7ed1_a0b4_28db);
    ((t >> 64) as u64) ^ (t as u64)
}

/// `id` plus one in base 36, written in [`ALPHABET`]'s digits; `Z…Z` wraps to `0…0`.
fn increment(id: &mut [u8; REQUEST_ID_LEN]) {
    for c in id.iter_mut().rev() {
        match *c {
            b'Z' => *c = b'0',
            b'9' => {
                *c = b'A';
                return;
            }
            _ => {
                *c += 1;
                return;
            }
        }
    }
}

pub(crate) fn new_request_id() -> RequestId {
    LAST_ID.with_borrow_mut(|last| {
        increment(last);
        RequestId(*last)
    })
}

/// A response with the headers every DynamoDB response has. `content_type` is `None` for the
/// non-JSON 404 shape.
pub(crate) fn respond(
    status: StatusCode,
    body: Bytes,
    content_type: Option<&'static str>,
    request_id: &(impl AsRef<[u8]> + ?Sized),
) -> Response<Bytes> {
    let crc = crc32fast::hash(&body);
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Some(spare) = SPARE_HEADERS.take() {
        *headers = spare;
    }
    // The bytes as they are: a `RequestId` needs no UTF-8 check on the way to a header.
    if let Ok(id) = HeaderValue::from_bytes(request_id.as_ref()) {
        headers.insert(REQUEST_ID_HEADER, id);
    }
    headers.insert(CRC32_HEADER, HeaderValue::from(crc));
    if let Some(ct) = content_type {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    response
}

thread_local! {
    // An emptied header map for this thread's next response (see `recycle_headers`).
    static SPARE_HEADERS: Cell<Option<HeaderMap>> = const { Cell::new(None) };
}

/// The most headers a map kept for reuse may have room for: a client's request carries ten or
/// so, and hyper accepts at most a hundred.
const MAX_SPARE_CAPACITY: usize = 32;

/// Keeps a request's header map, emptied, for the thread's next response.
///
/// hyper parses each request into the header map of the connection's previous response, so
/// maps go round: request, spare, response, request. Without the spare, every response
/// allocated a map (its table and its entries) and every request's map was freed; and a map
/// built for a response's three headers grew again for the next request's ten. A spare map
/// is always empty, so the response built on it holds exactly the headers inserted into it.
pub(crate) fn recycle_headers(mut headers: HeaderMap) {
    if headers.capacity() <= MAX_SPARE_CAPACITY {
        headers.clear();
        SPARE_HEADERS.set(Some(headers));
    }
}

/// The response for an error: its status, its `__type` and its body, as DynamoDB sends them.
pub(crate) fn error_response(
    error: &ServerError,
    content_type: &'static str,
    request_id: &(impl AsRef<[u8]> + ?Sized),
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
        assert_eq!(a.as_str().len(), 52);
        assert!(a.as_str().bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()), "{a}");
        assert_ne!(a.as_str(), new_request_id().as_str());
        let ids: std::collections::HashSet<String> =
            (0..10_000).map(|_| new_request_id().to_string()).collect();
        assert_eq!(ids.len(), 10_000);
    }

    #[test]
    fn request_ids_count_up_in_base_36() {
        let mut id = [b'0'; REQUEST_ID_LEN];
        id[50] = b'9';
        id[51] = b'Z';
        increment(&mut id);
        assert_eq!(&id[49..], b"0A0");
        increment(&mut id);
        assert_eq!(&id[49..], b"0A1");
        let mut last = [b'Z'; REQUEST_ID_LEN];
        increment(&mut last);
        assert_eq!(last, [b'0'; REQUEST_ID_LEN]);
        let first = random_id();
        assert!(first.iter().all(|b| ALPHABET.contains(b)));
        assert_ne!(first, random_id());
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
    fn a_recycled_request_map_holds_only_the_response_headers() {
        let mut request = HeaderMap::new();
        for (name, value) in
            [("host", "h"), ("x-amz-target", "t"), ("x-amz-crc32", "1"), ("content-type", "c")]
        {
            request.append(HeaderName::from_static(name), HeaderValue::from_static(value));
        }
        recycle_headers(request);
        let r = respond(StatusCode::OK, Bytes::from_static(b"{}"), Some(JSON_1_0), "ID");
        let headers: Vec<_> = r.headers().iter().map(|(n, v)| (n.as_str(), v.to_str().unwrap())).collect();
        assert_eq!(
            headers,
            [("x-amzn-requestid", "ID"), ("x-amz-crc32", "2745614147"), ("content-type", JSON_1_0)]
        );
        // The spare was used up: the next response starts from a new map, with the same headers.
        let again = respond(StatusCode::OK, Bytes::from_static(b"{}"), Some(JSON_1_0), "ID");
        assert_eq!(again.headers(), r.headers());
    }

    #[test]
    fn a_map_with_room_for_many_headers_is_not_kept() {
        recycle_headers(HeaderMap::with_capacity(MAX_SPARE_CAPACITY * 4));
        assert!(SPARE_HEADERS.take().is_none());
        recycle_headers(HeaderMap::with_capacity(8));
        assert!(SPARE_HEADERS.take().is_some());
    }

    #[test]
    fn not_found_has_dynamodb_fixed_crc() {
        let r = error_response(&ServerError::NotFound, JSON_1_0, "ID");
        assert_eq!(r.status(), 404);
        assert_eq!(r.headers()["x-amz-crc32"], "3552371480");
        assert!(r.headers().get(CONTENT_TYPE).is_none());
    }
}
