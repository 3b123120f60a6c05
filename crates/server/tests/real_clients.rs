//! Clients nobody here wrote: boto3 and the aws CLI drive a server on `127.0.0.1:0` through
//! create-table, put-item, query and transact-write-items (see `boto3_smoke.py` and
//! `aws_cli_smoke.sh` beside this file).
//!
//! When boto3 or the aws CLI is missing, the test fails if `CI` is set (`.ci/run` installs
//! them) and otherwise prints a loud skip notice and passes.

mod common;

use std::path::PathBuf;
use std::process::Stdio;

use common::TestServer;
use monotable_engine::Engine;
use monotable_server::Service;
use tokio::process::Command;

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(name)
}

/// A command with dummy credentials and no influence from the user's aws configuration.
fn isolated(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_CONFIG_FILE", "/nonexistent/monotable-test-config")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/monotable-test-credentials")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_PAGER", "")
        .stdin(Stdio::null());
    command
}

async fn succeeds(program: &str, args: &[&str]) -> bool {
    match isolated(program, args).stdout(Stdio::null()).stderr(Stdio::null()).status().await {
        Ok(status) => status.success(),
        Err(_) => false,
    }
}

/// A client is missing: panics in CI, prints a loud notice otherwise.
fn skip_or_fail(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{what} is not installed but CI is set: .ci/run must install it (pip install boto3 awscli)");
    }
    eprintln!();
    eprintln!("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
    eprintln!("!!! SKIPPED: {what} is not installed, so this real-client test did not run.");
    eprintln!("!!! Install it with `python3 -m pip install boto3 awscli` (CI does).");
    eprintln!("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
}

async fn run_checked(mut command: Command, what: &str) {
    let output = command.output().await.unwrap_or_else(|e| panic!("could not run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}).\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    println!("{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_drives_the_server() {
    if !succeeds("python3", &["-c", "import boto3"]).await {
        skip_or_fail("boto3");
        return;
    }
    let server = TestServer::start(Service::new(Engine::new())).await;
    let endpoint = server.endpoint();
    let script = script("boto3_smoke.py");
    let command = isolated("python3", &[script.to_str().unwrap_or_default(), &endpoint]);
    run_checked(command, "the boto3 smoke test").await;
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_cli_drives_the_server() {
    // `aws` may be absent from PATH even when the awscli package is installed.
    let cli = if succeeds("aws", &["--version"]).await {
        "aws"
    } else if succeeds("python3", &["-m", "awscli", "--version"]).await {
        "python3 -m awscli"
    } else {
        skip_or_fail("the aws CLI");
        return;
    };
    let server = TestServer::start(Service::new(Engine::new())).await;
    let endpoint = server.endpoint();
    let script = script("aws_cli_smoke.sh");
    let mut command = isolated("bash", &[script.to_str().unwrap_or_default(), &endpoint]);
    command.env("AWS_CLI", cli);
    run_checked(command, "the aws CLI smoke test").await;
    server.stop().await.unwrap();
}
