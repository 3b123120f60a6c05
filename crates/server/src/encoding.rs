//! HTTP content codings: compressed request bodies (`Content-Encoding`) and compressed
//! responses (`Accept-Encoding`), as DynamoDB handles them.
//!
//! Behaviour and sources (ScyllaDB's Alternator tests, each run against DynamoDB:
//! test/alternator/test_compressed_request.py and test_compressed_response.py; ScyllaDB PR
//! #27917 for `deflate` requests):
//! * A request body may be `gzip` (one or more concatenated members) or `deflate` (zlib)
//!   compressed. A coding DynamoDB does not know, or a body that does not decode, is an HTTP
//!   500 and the request is not run.
//! * A response is compressed when the client accepts `gzip` or `deflate` and the body is at
//!   least 4 KiB (DynamoDB's threshold); smaller responses are sent as they are. The coding is
//!   chosen from `Accept-Encoding` as DynamoDB chooses it: the highest quality wins, an
//!   explicitly named coding beats `*` at equal quality, then the one named first, then
//!   `gzip`; a quality that does not parse counts as 1, a quality above 1 as 1, and one at or
//!   below 0 refuses the coding. When no listed coding is acceptable the response goes out
//!   uncompressed, also after `identity;q=0` or `*;q=0` (RFC 9110 section 12.5.3 recommends no
//!   coding there and leaves the refused-identity case to the server; DynamoDB answers 200).
//! * Of repeated `Accept-Encoding` headers only the last counts: "both DynamoDB and seastar
//!   seem to only consider the last one" (test_compressed_response.py). RFC 9110 section 5.3
//!   would combine them into one list; monotable follows the service.
//! * `x-amz-crc32` is computed over the bytes sent, that is over the compressed body
//!   (smithy-rs issue #129: "The CRC is computed on the response after the response is
//!   gziped").
//!
//! Not emulated: DynamoDB does not limit the decompressed size of a request; monotable
//! refuses one that decompresses past [`MAX_REQUEST_BYTES`] with 413, as a guard against
//! decompression bombs. Inflating is a stream that stops one byte past the limit, so a bomb
//! costs at most that much output. Under `--auth verify` the signature is checked over the
//! compressed bytes before anything is inflated (`service`), and a compressed body of more
//! than 512 bytes is inflated on the blocking pool, not on an async worker (`fairness`).

use std::borrow::Cow;
use std::io::Read;

use bytes::Bytes;
use flate2::read::{MultiGzDecoder, ZlibDecoder};
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use http::header::{HeaderValue, CONTENT_ENCODING, CONTENT_LENGTH};
use http::Response;

use crate::headers::{text, RequestHeaders};
use crate::service::MAX_REQUEST_BYTES;
use crate::ServerError;

/// The smallest response body DynamoDB compresses.
pub const COMPRESSION_THRESHOLD: usize = 4096;

/// A content coding monotable reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    Gzip,
    Deflate,
}

impl Coding {
    fn name(self) -> &'static str {
        match self {
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
        }
    }
}

/// The request body with its `Content-Encoding` undone.
pub(crate) fn decode_request<'a>(
    headers: &RequestHeaders<'_>,
    body: &'a [u8],
) -> Result<Cow<'a, [u8]>, ServerError> {
    let undecodable = |coding: &str| {
        ServerError::Internal(format!(
            "The request body could not be decoded as Content-Encoding '{coding}'."
        ))
    };
    let coding = match request_coding(headers.content_encoding) {
        RequestCoding::Plain => return Ok(Cow::Borrowed(body)),
        RequestCoding::Compressed(coding) => coding,
        RequestCoding::Unknown(name) => return Err(undecodable(&name)),
    };
    // Room for the most a body this long can inflate to, which is what the transport's budget
    // of buffered bytes holds for it, so that the buffer never grows past that.
    let mut decoded = Vec::with_capacity(inflated_bound(body.len()));
    // One byte past the limit tells an oversized body from one exactly at it.
    let limit = MAX_REQUEST_BYTES as u64 + 1;
    let read = match coding {
        Coding::Gzip => MultiGzDecoder::new(body).take(limit).read_to_end(&mut decoded),
        Coding::Deflate => ZlibDecoder::new(body).take(limit).read_to_end(&mut decoded),
    };
    // An empty body is no gzip or zlib stream at all.
    if read.is_err() || body.is_empty() {
        return Err(undecodable(coding.name()));
    }
    if decoded.len() > MAX_REQUEST_BYTES {
        return Err(ServerError::RequestTooLarge);
    }
    Ok(Cow::Owned(decoded))
}

/// deflate's largest expansion: a match of 258 bytes costs at least two bits, so 1,032 bytes
/// of output per byte of input (zlib's documentation: "the maximum compression factor" is
/// "1032:1").
const MAX_INFLATION: usize = 1032;

/// The most bytes a compressed body of `compressed` bytes is inflated into: deflate's largest
/// expansion, plus room for the output of a stream's first block, and never more than one byte
/// past [`MAX_REQUEST_BYTES`], where inflating stops.
pub(crate) fn inflated_bound(compressed: usize) -> usize {
    compressed.saturating_mul(MAX_INFLATION).saturating_add(64 * 1024).min(MAX_REQUEST_BYTES + 1)
}

/// How a request's `Content-Encoding` says its body is encoded.
enum RequestCoding {
    /// No header, an empty or non-text one, or `identity`.
    Plain,
    Compressed(Coding),
    /// A coding DynamoDB does not know, trimmed and lower-cased for the error message.
    Unknown(String),
}

#[inline]
fn request_coding(content_encoding: Option<&HeaderValue>) -> RequestCoding {
    // Most requests, every SDK's among them, have no Content-Encoding.
    let Some(content_encoding) = content_encoding else { return RequestCoding::Plain };
    let value = content_encoding.to_str().unwrap_or("").trim();
    if value.is_empty() || value.eq_ignore_ascii_case("identity") {
        RequestCoding::Plain
    } else if value.eq_ignore_ascii_case("gzip") {
        RequestCoding::Compressed(Coding::Gzip)
    } else if value.eq_ignore_ascii_case("deflate") {
        RequestCoding::Compressed(Coding::Deflate)
    } else {
        RequestCoding::Unknown(value.to_ascii_lowercase())
    }
}

/// Whether a request with this `Content-Encoding` has its body inflated (`gzip` or `deflate`;
/// another coding is refused unread).
pub(crate) fn inflates(content_encoding: Option<&HeaderValue>) -> bool {
    matches!(request_coding(content_encoding), RequestCoding::Compressed(_))
}

/// The coding to compress the response with, from the request's `Accept-Encoding`.
pub(crate) fn accepted(headers: &RequestHeaders<'_>) -> Option<Coding> {
    // Of repeated headers DynamoDB honours the last (`RequestHeaders` keeps the last).
    let value = text(headers.accept_encoding)?;
    choose(value)
}

/// One candidate coding: its quality, whether it was named (not `*`) and where.
#[derive(Clone, Copy)]
struct Offer {
    quality: f64,
    named: bool,
    position: usize,
}

fn choose(accept: &str) -> Option<Coding> {
    let (mut gzip, mut deflate, mut star): (Option<Offer>, Option<Offer>, Option<Offer>) = (None, None, None);
    for (position, entry) in accept.split(',').enumerate() {
        let mut params = entry.split(';');
        let name = params.next().unwrap_or("").trim().to_ascii_lowercase();
        let quality = params
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim() == "q")
            .map_or(1.0, |(_, v)| v.trim().parse::<f64>().unwrap_or(1.0).min(1.0));
        let slot = match name.as_str() {
            "gzip" => &mut gzip,
            "deflate" => &mut deflate,
            "*" => &mut star,
            _ => continue,
        };
        // A coding named twice counts with its best quality, at its first place.
        let offer = Offer { quality, named: name != "*", position };
        *slot = Some(match *slot {
            Some(old) if old.quality >= quality => old,
            Some(old) => Offer { quality, ..old },
            None => offer,
        });
    }
    let effective = |named: Option<Offer>| named.or(star.map(|s| Offer { named: false, ..s }));
    let candidates = [(Coding::Gzip, effective(gzip)), (Coding::Deflate, effective(deflate))];
    candidates
        .into_iter()
        .filter_map(|(coding, offer)| offer.filter(|o| o.quality > 0.0).map(|o| (coding, o)))
        .max_by(|(ca, a), (cb, b)| {
            a.quality
                .total_cmp(&b.quality)
                .then(a.named.cmp(&b.named))
                .then(b.position.cmp(&a.position))
                .then((*ca == Coding::Gzip).cmp(&(*cb == Coding::Gzip)))
        })
        .map(|(coding, _)| coding)
}

/// Compresses a successful response's body with `coding` when it is large enough, and
/// recomputes `x-amz-crc32` over the bytes that are sent.
pub(crate) fn compress(response: &mut Response<Bytes>, coding: Coding) {
    if !response.status().is_success() || response.body().len() < COMPRESSION_THRESHOLD {
        return;
    }
    let compressed = match coding {
        Coding::Gzip => {
            let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
            std::io::Write::write_all(&mut encoder, response.body()).and_then(|_| encoder.finish())
        }
        Coding::Deflate => {
            let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
            std::io::Write::write_all(&mut encoder, response.body()).and_then(|_| encoder.finish())
        }
    };
    // Writing to a Vec cannot fail; if it ever does, the response goes out uncompressed.
    let Ok(compressed) = compressed else { return };
    let crc = crc32fast::hash(&compressed);
    *response.body_mut() = Bytes::from(compressed);
    let headers = response.headers_mut();
    headers.insert(CONTENT_ENCODING, HeaderValue::from_static(coding.name()));
    headers.insert(http::HeaderName::from_static("x-amz-crc32"), HeaderValue::from(crc));
    headers.remove(CONTENT_LENGTH);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding_is_read_as_dynamodb_reads_it() {
        // Cases and answers from test_compressed_response_accept_encodings (ScyllaDB,
        // verified against DynamoDB).
        use Coding::{Deflate, Gzip};
        for (header, expected) in [
            ("identity", None),
            ("", None),
            ("br", None),
            ("x-gzip", None),
            ("gzip, deflate", Some(Gzip)),
            ("br, identity, deflate, gzip", Some(Deflate)),
            ("GZIP, identity", Some(Gzip)),
            ("dog, gzip ,, cat", Some(Gzip)),
            ("gzip;q=0.8, deflate;q=0.5", Some(Gzip)),
            ("br, gzip;q=0, deflate; q = 0.5 , identity;q=0", Some(Deflate)),
            ("*", Some(Gzip)),
            ("*, deflate;q=0.5", Some(Gzip)),
            ("*, deflate", Some(Deflate)),
            ("*, identity", Some(Gzip)),
            ("*, gzip;q=0.5", Some(Deflate)),
            ("gzip ;q=0", None),
            ("identity;q=0", None),
            ("*;q=0", None),
            ("*;q=0.5,identity", Some(Gzip)),
            ("gzip;q=0.5,identity;q=0.8", Some(Gzip)),
            ("br;q=0.8,identity;q=0.5,*;q=0", None),
            ("\"gzip\"", None),
            ("gzip br", None),
            ("gzip:q=1", None),
            ("deflate;q=0.5, gzip;q=31", Some(Gzip)),
            ("gzip;q=31,deflate;q=51", Some(Gzip)),
            ("deflate;q=0.5, gzip;q=0.2", Some(Deflate)),
            ("deflate;q=0.5, gzip;q=1;q=0.2", Some(Gzip)),
            ("deflate;q=0.5,gzip;q=0.", Some(Deflate)),
            ("deflate;q=0.5,gzip;q=0.x", Some(Gzip)),
            ("deflate;q=-0.5,gzip;q=0.2", Some(Gzip)),
            ("gzip;nq=1;q=0 ", None),
            ("gzip;q=0, gzip;q=1, gzip;q=0", Some(Gzip)),
            ("br,identity;q=0.5,gzip;q=0.0001", Some(Gzip)),
        ] {
            assert_eq!(choose(header), expected, "{header:?}");
        }
    }
}
