//! `monotable design` end to end through the built binary.

use std::process::Command;

fn monotable(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_monotable")).args(args).output().unwrap()
}

const SEED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../design/tests/fixtures/seed.yaml");

#[test]
fn check_reports_the_seed_hot_partition_as_json_and_exits_zero_on_warnings() {
    let out = monotable(&["design", "check", SEED, "--format", "json"]);
    assert!(out.status.success());
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(findings[0]["rule"], "MT004");
    assert_eq!(findings[0]["severity"], "warning");
}

#[test]
fn check_exits_non_zero_on_errors() {
    let text = std::fs::read_to_string(SEED).unwrap().replace("key: {pk: USERS}", "filter: [email]");
    let path = std::env::temp_dir().join(format!("monotable-design-cli-{}.yaml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let out = monotable(&["design", "check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("error[MT002] list-users"));
}

#[test]
fn new_scaffolds_a_design_that_checks_clean_and_generates_iac() {
    let path = std::env::temp_dir().join(format!("monotable-design-new-{}.yaml", std::process::id()));
    assert!(monotable(&["design", "new", "-o", path.to_str().unwrap()]).status.success());
    let out = monotable(&["design", "check", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 error(s), 0 warning(s)"));
    let tf = monotable(&["design", "iac", path.to_str().unwrap(), "--format", "terraform"]);
    assert!(String::from_utf8_lossy(&tf.stdout).contains("resource \"aws_dynamodb_table\" \"table\""));
}
