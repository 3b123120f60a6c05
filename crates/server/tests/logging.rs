//! The request log: one debug line per request with its operation, status and error type,
//! and nothing that could hold a secret (no headers, no bodies, no credentials).

mod common;

use common::{sdk_client, TestServer};
use monotable_engine::Engine;
use monotable_server::{Auth, Credentials, Service};

// The default `#[tokio::test]` runtime is single-threaded, so the thread-local subscriber
// sees the server's tasks too.
#[tokio::test]
async fn requests_are_logged_at_debug_without_secrets() {
    // Only the server's own events: the SDK logs its requests, headers included, at trace.
    let (captured, _guard) = common::capture("monotable_server");

    let credentials = Credentials::new().with("AKIDLOGTEST", "very-secret-value");
    let server = TestServer::start(Service::new(Engine::new()).with_auth(Auth::Verify(credentials))).await;
    let good = sdk_client(&server.endpoint(), "AKIDLOGTEST", "very-secret-value");
    good.list_tables().send().await.expect("signed request succeeds");
    let bad = sdk_client(&server.endpoint(), "AKIDLOGTEST", "other-secret-value");
    bad.list_tables().send().await.expect_err("wrong secret");
    server.stop().await.unwrap();

    let log = captured.text();
    let requests: Vec<&str> = log.lines().filter(|l| l.contains("monotable_server::request")).collect();
    assert!(
        requests
            .iter()
            .any(|l| l.contains("DEBUG") && l.contains("operation=ListTables") && l.contains("status=200")),
        "{log}"
    );
    assert!(
        requests.iter().any(|l| l.contains("status=400") && l.contains("error=InvalidSignatureException")),
        "{log}"
    );
    for secret in ["very-secret-value", "other-secret-value", "Signature=", "Credential=", "authorization"] {
        assert!(!log.contains(secret), "the log contains {secret:?}:\n{log}");
    }
}
