//! moto's S3 server (PyPI `moto[server]`), an S3 API this project did not write, and boto3
//! to put and read objects on it independently of `monotable-s3`. `.ci/run` installs both.
//! A test that needs the server fails when it cannot start: it is never skipped.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The access keys the tests sign with; moto accepts any.
pub const KEY_ID: &str = "monotable-test";
pub const SECRET: &str = "monotable-test-secret";

/// A moto server shared by the tests of one test binary.
pub struct Moto {
    pub endpoint: String,
    /// The shell that runs moto; closing its stdin (when the test process exits) stops moto.
    _shell: Child,
}

/// The test binary's moto server, started on first use.
pub fn moto() -> &'static Moto {
    static MOTO: OnceLock<Moto> = OnceLock::new();
    MOTO.get_or_init(start)
}

fn start() -> Moto {
    let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let log = std::env::temp_dir().join(format!("monotable-moto-{port}.log"));
    // moto runs under a shell that stops it once its stdin closes, which happens when this
    // process exits however it exits, so no server outlives the tests.
    let script = format!(
        "python3 -m moto.server -H 127.0.0.1 -p {port} >'{}' 2>&1 & pid=$!; cat >/dev/null; kill $pid",
        log.display()
    );
    let shell = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("sh starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            let output = std::fs::read_to_string(&log).unwrap_or_default();
            panic!(
                "moto's S3 server did not start on port {port} within 60 s (install it with \
                 `pip install 'moto[server]'`; .ci/run does): {output}"
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Moto { endpoint: format!("http://127.0.0.1:{port}"), _shell: shell }
}

/// boto3's S3 calls on moto: `op` is one of the script's operations below.
const BOTO3: &str = r#"
import sys, json, boto3
endpoint, op, bucket = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id="monotable-test", aws_secret_access_key="monotable-test-secret")
if op == "create":
    s3.create_bucket(Bucket=bucket)
elif op == "put":
    s3.put_object(Bucket=bucket, Key=sys.argv[4], Body=sys.stdin.buffer.read())
elif op == "list":
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=sys.argv[4])
    print(json.dumps([o["Key"] for p in pages for o in p.get("Contents", [])]))
elif op == "get":
    sys.stdout.buffer.write(s3.get_object(Bucket=bucket, Key=sys.argv[4])["Body"].read())
elif op == "etag":
    print(s3.head_object(Bucket=bucket, Key=sys.argv[4])["ETag"].strip('"'))
"#;

/// Runs one boto3 operation against moto; panics with boto3's error when it fails.
pub fn boto3(op: &str, bucket: &str, key: Option<&str>, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("python3")
        .args(["-c", BOTO3, &moto().endpoint, op, bucket])
        .args(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    child.stdin.take().expect("piped stdin").write_all(input).expect("write to boto3");
    let output = child.wait_with_output().expect("boto3 finishes");
    assert!(
        output.status.success(),
        "boto3 {op} {bucket} {key:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// A new bucket on moto, its name unique to the test.
pub fn new_bucket(test: &str) -> String {
    let name = format!("{test}-{}", std::process::id());
    boto3("create", &name, None, b"");
    name
}

/// The keys under `prefix` in `bucket`, as boto3 lists them.
pub fn list(bucket: &str, prefix: &str) -> Vec<String> {
    serde_json::from_slice(&boto3("list", bucket, Some(prefix), b"")).expect("a JSON list of keys")
}
