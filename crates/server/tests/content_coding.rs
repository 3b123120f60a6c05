//! Compressed requests and responses and DescribeEndpoints, over real TCP.
//!
//! Sources: ScyllaDB's Alternator tests run against DynamoDB
//! (test/alternator/test_compressed_request.py: a gzip body is accepted, concatenated gzip
//! members too, an unknown Content-Encoding or a body that does not decode is HTTP 500 and
//! the request is not run; test_compressed_response.py: responses of 4 KiB or more are
//! compressed with the accepted coding, smaller ones are not; ScyllaDB PR #27917: `deflate`
//! request bodies are accepted); smithy-rs issue #129 ("The CRC is computed on the response
//! after the response is gziped"); test_describe_endpoints.py (one endpoint, an address
//! without a scheme that a client can use).

mod common;

use std::io::{Read, Write};

use common::{send_raw, RawResponse, TestServer};
use flate2::read::{GzDecoder, ZlibDecoder};
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use monotable_engine::Engine;
use monotable_server::Service;

const PREFIX: &str = "DynamoDB_20120810.";

/// A request with an unverified SigV4 header and extra header lines.
fn request(target: &str, extra_headers: &str, body: &[u8]) -> Vec<u8> {
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost:8000\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: {PREFIX}{target}\r\nX-Amz-Date: 20240101T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, \
         SignedHeaders=host;x-amz-date;x-amz-target, Signature=00\r\n{extra_headers}Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

async fn server_with_table() -> TestServer {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let create = br#"{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"p","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"p","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    let r = send_raw(server.addr, &request("CreateTable", "", create)).await;
    assert_eq!(r.status, 200, "{r:?}");
    server
}

fn put_body(p: &str, filler: usize) -> Vec<u8> {
    format!(r#"{{"TableName":"tbl","Item":{{"p":{{"S":"{p}"}},"x":{{"S":"{}"}}}}}}"#, "x".repeat(filler))
        .into_bytes()
}

async fn get(server: &TestServer, p: &str, extra_headers: &str) -> RawResponse {
    let body = format!(r#"{{"TableName":"tbl","Key":{{"p":{{"S":"{p}"}}}}}}"#);
    send_raw(server.addr, &request("GetItem", extra_headers, body.as_bytes())).await
}

#[tokio::test]
async fn compressed_request_bodies_are_accepted() {
    let server = server_with_table().await;
    let body = put_body("a", 10);
    let half = body.len() / 2;
    let two_members = [gzip(&body[..half]), gzip(&body[half..])].concat();
    for (name, encoded, coding) in [
        ("gzip", gzip(&body), "gzip"),
        ("two gzip members", two_members, "gzip"),
        ("deflate", zlib(&body), "deflate"),
        ("upper-case name", gzip(&body), "GZIP"),
    ] {
        let r =
            send_raw(server.addr, &request("PutItem", &format!("Content-Encoding: {coding}\r\n"), &encoded))
                .await;
        assert_eq!(r.status, 200, "{name}: {r:?}");
    }
    assert_eq!(get(&server, "a", "").await.json()["Item"]["x"]["S"], "x".repeat(10));
}

#[tokio::test]
async fn undecodable_or_unknown_codings_are_http_500_and_run_nothing() {
    let server = server_with_table().await;
    let body = put_body("b", 10);
    let mut truncated = gzip(&body);
    truncated.pop();
    for (name, encoded, coding) in [
        ("unknown coding", body.clone(), "garbage"),
        ("plain body called gzip", body.clone(), "gzip"),
        ("truncated gzip", truncated, "gzip"),
        ("empty gzip", Vec::new(), "gzip"),
    ] {
        let r =
            send_raw(server.addr, &request("PutItem", &format!("Content-Encoding: {coding}\r\n"), &encoded))
                .await;
        assert_eq!(r.status, 500, "{name}: {r:?}");
        assert_eq!(r.error_type(), "com.amazonaws.dynamodb.v20120810#InternalServerError", "{name}");
    }
    assert_eq!(get(&server, "b", "").await.json(), serde_json::json!({}));
}

#[tokio::test]
async fn large_responses_are_compressed_when_accepted_and_the_crc_covers_the_sent_bytes() {
    let server = server_with_table().await;
    let r = send_raw(server.addr, &request("PutItem", "", &put_body("big", 8000))).await;
    assert_eq!(r.status, 200);
    let r = send_raw(server.addr, &request("PutItem", "", &put_body("small", 10))).await;
    assert_eq!(r.status, 200);

    let plain = get(&server, "big", "").await;
    assert_eq!(plain.header("content-encoding"), None);

    for (coding, decode) in [
        (
            "gzip",
            (|b: &[u8]| {
                let mut s = Vec::new();
                GzDecoder::new(b).read_to_end(&mut s).unwrap();
                s
            }) as fn(&[u8]) -> Vec<u8>,
        ),
        ("deflate", |b: &[u8]| {
            let mut s = Vec::new();
            ZlibDecoder::new(b).read_to_end(&mut s).unwrap();
            s
        }),
    ] {
        let r = get(&server, "big", &format!("Accept-Encoding: {coding}\r\n")).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-encoding"), Some(coding));
        let crc: u32 = r.header("x-amz-crc32").unwrap().parse().unwrap();
        assert_eq!(crc, crc32fast::hash(&r.body), "the CRC is of the compressed bytes");
        assert!(r.body.len() < plain.body.len() / 10);
        assert_eq!(decode(&r.body), plain.body, "{coding}");
    }
    // Below 4 KiB nothing is compressed, even when asked.
    let r = get(&server, "small", "Accept-Encoding: gzip\r\n").await;
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.json()["Item"]["p"]["S"], "small");
}

#[tokio::test]
async fn accept_encoding_qualities_choose_the_coding_and_the_last_header_counts() {
    // ScyllaDB's test/alternator/test_compressed_response.py, run against DynamoDB
    // (test_compressed_response_accept_encodings): the highest quality wins, `q=0` refuses a
    // coding, `identity;q=0` or `*;q=0` alone leave the response uncompressed, a 200 and no
    // 406 (RFC 9110 section 12.5.3 leaves that case to the server). Of repeated Accept-Encoding
    // headers DynamoDB considers only the last, as that test records, where RFC 9110 section
    // 5.3 would combine them into one list: monotable follows the service.
    let server = server_with_table().await;
    let r = send_raw(server.addr, &request("PutItem", "", &put_body("big", 8000))).await;
    assert_eq!(r.status, 200);
    for (headers, expected) in [
        ("Accept-Encoding: gzip;q=0, deflate\r\n", Some("deflate")),
        ("Accept-Encoding: gzip;q=0.5, deflate;q=0.9\r\n", Some("deflate")),
        ("Accept-Encoding: deflate;q=0.5, gzip\r\n", Some("gzip")),
        ("Accept-Encoding: *, gzip;q=0\r\n", Some("deflate")),
        ("Accept-Encoding: identity;q=0\r\n", None),
        ("Accept-Encoding: *;q=0\r\n", None),
        ("Accept-Encoding: br;q=0.8,identity;q=0.5,*;q=0\r\n", None),
        ("Accept-Encoding: identity\r\nAccept-Encoding: gzip\r\n", Some("gzip")),
        ("Accept-Encoding: gzip\r\nAccept-Encoding: identity\r\n", None),
    ] {
        let r = get(&server, "big", headers).await;
        assert_eq!(r.status, 200, "{headers:?}");
        assert_eq!(r.header("content-encoding"), expected, "{headers:?}");
        assert_eq!(r.header("x-amz-crc32").and_then(|c| c.parse().ok()), Some(crc32fast::hash(&r.body)));
    }
}

#[tokio::test]
async fn describe_endpoints_names_the_host_the_request_came_to() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let r = send_raw(server.addr, &request("DescribeEndpoints", "", b"{}")).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        serde_json::json!({"Endpoints": [{"Address": "localhost:8000", "CachePeriodInMinutes": 1440}]})
    );
}

#[tokio::test]
async fn the_sdk_describes_the_endpoint_it_is_configured_with() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let client = common::sdk_client(&server.endpoint(), "AKID", "secret");
    let out = client.describe_endpoints().send().await.expect("describe endpoints");
    assert_eq!(out.endpoints().len(), 1);
    assert_eq!(out.endpoints()[0].address(), server.addr.to_string());
}
