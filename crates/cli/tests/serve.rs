//! `monotable serve` as a user runs it: it prints its endpoint and an aws CLI hint, answers
//! on that endpoint, and exits cleanly on SIGTERM and SIGINT.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Served {
    child: Child,
    endpoint: String,
    banner: String,
}

fn start(args: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0"])
        .args(args)
        .env_remove("MONOTABLE_PORT")
        .env_remove("MONOTABLE_DATA_DIR")
        .env_remove("MONOTABLE_CREDENTIALS")
        .env_remove("AWS_REGION")
        .env_remove("AWS_DEFAULT_REGION")
        .env("AWS_CONFIG_FILE", "/nonexistent/monotable-test-aws-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("monotable starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut banner = String::new();
    for _ in 0..4 {
        banner.push_str(&lines.next().and_then(Result::ok).unwrap_or_default());
        banner.push('\n');
    }
    let endpoint = banner
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no endpoint in the banner: {banner}"));
    Served { child, endpoint, banner }
}

fn get_root(endpoint: &str) -> String {
    let addr = endpoint.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).expect("connect to the printed endpoint");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
}

fn signal_and_wait(mut served: Served, signal: &str) {
    let status =
        Command::new("kill").args([signal, &served.child.id().to_string()]).status().expect("kill(1)");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = served.child.try_wait().expect("wait") {
            assert!(status.success(), "monotable exits 0 after {signal}, got {status}");
            return;
        }
        assert!(Instant::now() < deadline, "monotable did not stop within 15 s of {signal}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_prints_its_endpoint_and_stops_on_sigterm() {
    let served = start(&[]);
    assert!(
        served.banner.contains("aws dynamodb list-tables --endpoint-url http://127.0.0.1:"),
        "{}",
        served.banner
    );
    let response = get_root(&served.endpoint);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.ends_with("healthy: monotable"), "{response}");
    signal_and_wait(served, "-TERM");
}

#[test]
fn serve_stops_on_sigint() {
    let served = start(&["--in-memory"]);
    assert!(get_root(&served.endpoint).starts_with("HTTP/1.1 200"));
    signal_and_wait(served, "-INT");
}

#[test]
fn serve_runs_with_an_explicit_worker_count_and_refuses_zero() {
    let served = start(&["--workers", "1"]);
    assert!(get_root(&served.endpoint).starts_with("HTTP/1.1 200"));
    signal_and_wait(served, "-TERM");
    let output = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0", "--workers", "0"])
        .stdin(Stdio::null())
        .output()
        .expect("monotable runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--workers"), "{stderr}");
}

/// `--max-connections 1`: a second connection closes the first, idle one (the server crate's
/// tests/hostile_clients.rs pins the cap itself); `--min-body-rate` takes a rate and refuses
/// zero.
#[test]
fn serve_takes_a_connection_cap_and_a_minimum_body_rate() {
    let served = start(&["--max-connections", "1", "--min-body-rate", "1024"]);
    let addr = served.endpoint.trim_start_matches("http://").to_string();
    let mut first = TcpStream::connect(&addr).expect("connect");
    first.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    first.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    first.read_exact(&mut head).expect("the first connection is answered");
    assert_eq!(&head, b"HTTP/1.1 200");
    assert!(get_root(&served.endpoint).starts_with("HTTP/1.1 200"), "the second is served");
    // What is left of the first response, then the end of the stream (not the read
    // timeout): the idle first connection was closed.
    assert!(first.read_to_end(&mut Vec::new()).is_ok(), "the idle first connection was closed");
    signal_and_wait(served, "-TERM");
    for flag in ["--max-connections", "--min-body-rate"] {
        let output = Command::new(env!("CARGO_BIN_EXE_monotable"))
            .args(["serve", "--port", "0", flag, "0"])
            .stdin(Stdio::null())
            .output()
            .expect("monotable runs");
        assert!(!output.status.success(), "{flag} 0");
        assert!(String::from_utf8_lossy(&output.stderr).contains(flag), "{flag}");
    }
}

#[test]
fn verify_mode_without_credentials_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0", "--auth", "verify"])
        .env_remove("MONOTABLE_CREDENTIALS")
        .stdin(Stdio::null())
        .output()
        .expect("monotable runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--auth verify needs at least one key pair"), "{stderr}");
}

#[test]
fn malformed_credentials_never_echo_the_secret() {
    let output = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0", "--auth", "verify"])
        .env("MONOTABLE_CREDENTIALS", "AKID:s3cr3t,broken-entry-with-secret")
        .stdin(Stdio::null())
        .output()
        .expect("monotable runs");
    assert!(!output.status.success());
    let all =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(all.contains("credential #2"), "{all}");
    assert!(!all.contains("s3cr3t") && !all.contains("broken-entry"), "{all}");
}

#[test]
fn verify_mode_starts_with_environment_credentials_and_its_banner_asks_for_one_of_them() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0", "--auth", "verify"])
        .env("MONOTABLE_CREDENTIALS", "AKID1:secret-one")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("monotable starts");
    let mut banner = String::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.unwrap();
        banner.push_str(&line);
        banner.push('\n');
        if line.starts_with("Stop with") {
            break;
        }
    }
    assert!(banner.contains("verifying SigV4 signatures for 1 access key(s)"), "{banner}");
    // The accept mode's `local`/`local` pair is refused under verify: the banner must not offer it.
    assert!(!banner.contains("AWS_ACCESS_KEY_ID=local"), "{banner}");
    assert!(banner.contains("one of the key pairs of --credentials or MONOTABLE_CREDENTIALS"), "{banner}");
    assert!(banner.contains("aws dynamodb list-tables --endpoint-url http://127.0.0.1:"), "{banner}");
    assert!(!banner.contains("secret-one"), "{banner}");
    let endpoint = banner.split_whitespace().find(|w| w.starts_with("http://")).unwrap().to_string();
    let served = Served { child, endpoint, banner };
    assert!(get_root(&served.endpoint).starts_with("HTTP/1.1 200"));
    signal_and_wait(served, "-TERM");
}

fn post(endpoint: &str, target: &str, body: &str) -> String {
    post_in(endpoint, "us-east-1", target, body)
}

/// A request signed (in form) for `region`.
fn post_in(endpoint: &str, region: &str, target: &str, body: &str) -> String {
    let addr = endpoint.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).expect("connect to the printed endpoint");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.{target}\r\nX-Amz-Date: 20240101T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=AKID/20240101/{region}/dynamodb/aws4_request, \
         SignedHeaders=host;x-amz-date, Signature=00\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
}

#[test]
fn data_dir_keeps_tables_and_items_across_restarts() {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("monotable-serve-test-{}-{nanos}", std::process::id()));
    let dir_arg = dir.to_string_lossy().into_owned();

    let served = start(&["--data-dir", &dir_arg, "--sync", "always"]);
    assert!(served.banner.contains(&format!("data in {dir_arg}")), "{}", served.banner);
    let created = post(
        &served.endpoint,
        "CreateTable",
        r#"{"TableName":"kept","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
            "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
    );
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    let put =
        post(&served.endpoint, "PutItem", r#"{"TableName":"kept","Item":{"id":{"S":"a"},"n":{"N":"7"}}}"#);
    assert!(put.starts_with("HTTP/1.1 200"), "{put}");
    signal_and_wait(served, "-TERM");

    let served = start(&["--data-dir", &dir_arg]);
    let got = post(&served.endpoint, "GetItem", r#"{"TableName":"kept","Key":{"id":{"S":"a"}}}"#);
    assert!(got.contains(r#""n":{"N":"7"}"#), "{got}");
    signal_and_wait(served, "-TERM");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Under group commit a write is acknowledged only after the flush that covers it, and the
/// wait holds no thread that reads need. With `--sync group:1000ms` every flush first waits
/// 1 s to gather writes, and with one worker thread a PutItem answers no sooner than that,
/// while a GetItem sent during the wait answers before it.
#[test]
fn a_group_commit_write_waits_for_its_flush_without_holding_the_worker() {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("monotable-serve-group-{}-{nanos}", std::process::id()));
    let dir_arg = dir.to_string_lossy().into_owned();
    let served = start(&["--data-dir", &dir_arg, "--sync", "group:1000ms", "--workers", "1"]);
    let created = post(
        &served.endpoint,
        "CreateTable",
        r#"{"TableName":"grp","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
            "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
    );
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    let endpoint = served.endpoint.clone();
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        let put = post(&endpoint, "PutItem", r#"{"TableName":"grp","Item":{"id":{"S":"w"}}}"#);
        (put, started.elapsed())
    });
    std::thread::sleep(Duration::from_millis(200));
    let got = post(&served.endpoint, "GetItem", r#"{"TableName":"grp","Key":{"id":{"S":"other"}}}"#);
    let read_at = started.elapsed();
    let (put, put_at) = writer.join().expect("writer");
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    assert!(put.starts_with("HTTP/1.1 200"), "{put}");
    assert!(put_at >= Duration::from_millis(1000), "acknowledged after {put_at:?}, before its flush");
    assert!(read_at < put_at, "the read ({read_at:?}) waited for the write ({put_at:?})");
    signal_and_wait(served, "-TERM");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tables live in the region a request is signed for ("DynamoDB local usage notes": without
/// -sharedDb each access key and region has its own database; in DynamoDB a table belongs to
/// one region). A data directory written before regions were kept apart (every name bare, as
/// `Engine::with_storage` writes them) opens with its tables in us-east-1, and `--shared-db`
/// serves those tables to every region.
#[test]
fn tables_are_kept_per_region_and_an_older_data_directory_opens_in_us_east_1() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = monotable_store::open(dir.path(), monotable_store::SyncPolicy::Always).unwrap();
        let engine = monotable_engine::Engine::with_storage(store).unwrap();
        let input = serde_json::from_str(
            r#"{"TableName":"older","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
                "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
        )
        .unwrap();
        engine.create_table(input).unwrap();
    }
    let dir_arg = dir.path().to_string_lossy().into_owned();
    let list = r#"{}"#;

    let served = start(&["--data-dir", &dir_arg]);
    assert!(served.banner.contains("tables per region"), "{}", served.banner);
    assert!(post_in(&served.endpoint, "us-east-1", "ListTables", list).contains(r#""TableNames":["older"]"#));
    assert!(post_in(&served.endpoint, "eu-west-1", "ListTables", list).contains(r#""TableNames":[]"#));
    let created = post_in(
        &served.endpoint,
        "eu-west-1",
        "CreateTable",
        r#"{"TableName":"western","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
            "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
    );
    assert!(created.contains("arn:aws:dynamodb:eu-west-1:000000000000:table/western"), "{created}");
    signal_and_wait(served, "-TERM");

    // Both regions' tables survive a restart, each in its region.
    let served = start(&["--data-dir", &dir_arg, "--region", "eu-west-1"]);
    assert!(served.banner.contains("AWS_DEFAULT_REGION=eu-west-1"), "{}", served.banner);
    assert!(
        post_in(&served.endpoint, "eu-west-1", "ListTables", list).contains(r#""TableNames":["western"]"#)
    );
    assert!(post_in(&served.endpoint, "us-east-1", "ListTables", list).contains(r#""TableNames":["older"]"#));
    signal_and_wait(served, "-TERM");

    // One database for every region: the tables of --region (us-east-1 by default).
    let served = start(&["--data-dir", &dir_arg, "--shared-db"]);
    assert!(post_in(&served.endpoint, "ap-south-1", "ListTables", list).contains(r#""TableNames":["older"]"#));
    signal_and_wait(served, "-TERM");
}

#[test]
fn in_memory_and_data_dir_are_exclusive() {
    let output = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0", "--in-memory", "--data-dir", "/tmp/x"])
        .stdin(Stdio::null())
        .output()
        .expect("monotable runs");
    assert!(!output.status.success());
}
