//! `Auth::Verify`: real SDK signatures pass, bad or stale ones get DynamoDB's errors.

mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use common::{sdk_client, send_raw, TestServer};
use monotable_engine::Engine;
use monotable_server::{Auth, Credentials, Service};

fn verifying_service() -> Service {
    let credentials = Credentials::new().with("AKIDGOOD", "good-secret").with("monotable", "monotable");
    Service::new(Engine::new()).with_auth(Auth::Verify(credentials))
}

#[tokio::test]
async fn correctly_signed_sdk_requests_are_accepted() {
    let server = TestServer::start(verifying_service()).await;
    let client = sdk_client(&server.endpoint(), "AKIDGOOD", "good-secret");
    let out = client.list_tables().send().await.expect("a correctly signed request succeeds");
    assert!(out.table_names().is_empty());
}

#[tokio::test]
async fn the_in_process_client_signs_verifiably() {
    let client = monotable_embedded::client_for_service(verifying_service());
    client.list_tables().send().await.expect("embedded requests carry a valid signature");
}

#[tokio::test]
async fn a_wrong_secret_is_an_invalid_signature() {
    let server = TestServer::start(verifying_service()).await;
    let client = sdk_client(&server.endpoint(), "AKIDGOOD", "wrong-secret");
    let err = client.list_tables().send().await.expect_err("bad signature").into_service_error();
    assert_eq!(err.code(), Some("InvalidSignatureException"));
    assert_eq!(
        err.message(),
        Some(
            "The request signature we calculated does not match the signature you provided. Check your AWS Secret \
             Access Key and signing method. Consult the service documentation for details."
        )
    );
}

#[tokio::test]
async fn an_unknown_access_key_is_an_unrecognized_client() {
    let server = TestServer::start(verifying_service()).await;
    let client = sdk_client(&server.endpoint(), "AKIDUNKNOWN", "good-secret");
    let err = client.list_tables().send().await.expect_err("unknown key").into_service_error();
    assert_eq!(err.code(), Some("UnrecognizedClientException"));
    assert_eq!(err.message(), Some("The security token included in the request is invalid."));
}

fn signed_head(date: &str, scope: &str) -> String {
    format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: {date}\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=AKIDGOOD/{scope}, SignedHeaders=host;x-amz-date, \
         Signature=0000000000000000000000000000000000000000000000000000000000000000\r\n\
         Content-Length: 2\r\n\r\n{{}}"
    )
}

fn now_amz() -> (String, String) {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let out = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{secs}"), "+%Y%m%dT%H%M%SZ"])
        .output()
        .expect("date(1) is available");
    let stamp = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (stamp.clone(), stamp[..8].to_string())
}

#[tokio::test]
async fn an_old_timestamp_is_a_signature_expired_error() {
    let server = TestServer::start(verifying_service()).await;
    let request = signed_head("20200101T000000Z", "20200101/us-east-1/dynamodb/aws4_request");
    let r = send_raw(server.addr, request.as_bytes()).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_type(), "com.amazon.coral.service#InvalidSignatureException");
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(message.starts_with("Signature expired: 20200101T000000Z is now earlier than "), "{message}");
    // The window is 5 minutes (aws-sdk-js-v3 issue #7605: DynamoDB answers "Signature
    // expired: ... is now earlier than ... (... - 5 min.)").
    assert!(message.ends_with(" - 5 min.)"), "{message}");
}

/// A ListTables request signed at `date` with `authorization` as its header.
fn head_with_authorization(date: &str, authorization: &str) -> String {
    format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: {date}\r\n\
         Authorization: {authorization}\r\nContent-Length: 2\r\n\r\n{{}}"
    )
}

#[tokio::test]
async fn an_authorization_header_separated_by_spaces_alone_is_read_and_its_age_checked() {
    // ScyllaDB's test/alternator/test_authorization.py, test_expired_signature, run against
    // DynamoDB: parameters separated by spaces alone are read, so an old request is "Signature
    // expired", not an incomplete signature.
    let server = TestServer::start(verifying_service()).await;
    let authorization = "AWS4-HMAC-SHA256 Credential=AKIDGOOD/20200101/us-east-1/dynamodb/aws4_request \
                         SignedHeaders=host;x-amz-date Signature=123";
    let r =
        send_raw(server.addr, head_with_authorization("20200101T000000Z", authorization).as_bytes()).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_type(), "com.amazon.coral.service#InvalidSignatureException", "{r:?}");
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(message.starts_with("Signature expired: 20200101T000000Z is now earlier than "), "{message}");
}

#[tokio::test]
async fn an_authorization_parameter_without_an_equals_sign_is_an_incomplete_signature() {
    // DynamoDB's text as dynalite's index.js records it.
    let server = TestServer::start(verifying_service()).await;
    let authorization = "AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders";
    let r =
        send_raw(server.addr, head_with_authorization("20200101T000000Z", authorization).as_bytes()).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_type(), "com.amazon.coral.service#IncompleteSignatureException", "{r:?}");
    assert_eq!(
        r.json()["message"],
        "'Credential' not a valid key=value pair (missing equal-sign) in Authorization header: \
         'AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders'."
    );
}

#[tokio::test]
async fn a_credential_scoped_to_another_service_is_refused() {
    let server = TestServer::start(verifying_service()).await;
    let (stamp, day) = now_amz();
    let request = signed_head(&stamp, &format!("{day}/us-east-1/s3/aws4_request"));
    let r = send_raw(server.addr, request.as_bytes()).await;
    assert_eq!(r.error_type(), "com.amazon.coral.service#InvalidSignatureException");
    assert_eq!(r.json()["message"], "Credential should be scoped to correct service: 'dynamodb'.");
}

#[tokio::test]
async fn a_forged_signature_is_refused_and_the_right_one_accepted_by_default_mode() {
    let (stamp, day) = now_amz();
    let request = signed_head(&stamp, &format!("{day}/us-east-1/dynamodb/aws4_request"));
    let verifying = TestServer::start(verifying_service()).await;
    let r = send_raw(verifying.addr, request.as_bytes()).await;
    assert_eq!(r.error_type(), "com.amazon.coral.service#InvalidSignatureException");
    // The default mode accepts the same well-formed request without checking it.
    let accepting = TestServer::start(Service::new(Engine::new())).await;
    let r = send_raw(accepting.addr, request.as_bytes()).await;
    assert_eq!(r.status, 200, "{r:?}");
}
