//! `monotable console --endpoint URL` through the built binary.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_loopback_endpoint_needs_no_credential_chain_and_logs_no_warning() {
    let home = tempfile::tempdir().unwrap();
    // No AWS variable at all and an empty home (no ~/.aws): what a fresh machine has.
    let mut child = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["console", "--endpoint", "http://127.0.0.1:9", "--port", "0"])
        .env_clear()
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut banner = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut banner).unwrap();
    assert!(banner.starts_with("monotable console on http://127.0.0.1:"), "{banner}");
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(15);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the console did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(!stderr.contains("WARN"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("credential"), "{stderr}");
}
