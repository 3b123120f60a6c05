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

const EXAMPLE_USERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../example-users/design.yaml");

#[test]
fn validate_runs_every_pattern_of_an_example_as_text_and_json_and_exits_non_zero_on_a_failure() {
    let out = monotable(&["design", "validate", EXAMPLE_USERS]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("ok   list-posts (query on table)"), "{text}");
    assert!(text.contains("9 pattern(s), 0 failed"), "{text}");

    let out = monotable(&["design", "validate", EXAMPLE_USERS, "--format", "json", "--seed", "7"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["seed"], 7);
    assert_eq!(report["patterns"].as_array().unwrap().len(), 9);
    assert_eq!(report["patterns"][0]["read_units_strong"], 1.0);

    // Newest first on a random id: the posts' sort key no longer follows their creation.
    let broken = std::fs::read_to_string(EXAMPLE_USERS).unwrap().replace("    type: timestamp\n", "");
    let path = std::env::temp_dir().join(format!("monotable-design-validate-{}.yaml", std::process::id()));
    std::fs::write(&path, broken).unwrap();
    let out = monotable(&["design", "validate", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL list-posts") && text.contains("error[MV007]"), "{text}");
}

/// Each example crate checks in its traffic file and the estimate `design cost` gives for it;
/// the estimate is regenerated with `MONOTABLE_DESIGN_UPDATE=1`.
#[test]
fn cost_of_each_example_is_its_checked_in_estimate_and_json_has_the_same_totals() {
    for example in ["example-users", "example-orgs"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(example);
        let (design, traffic) = (dir.join("design.yaml"), dir.join("traffic.yaml"));
        let args = ["design", "cost", design.to_str().unwrap(), "--traffic", traffic.to_str().unwrap()];
        let out = monotable(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let path = dir.join("cost.txt");
        if std::env::var_os("MONOTABLE_DESIGN_UPDATE").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        assert_eq!(
            text,
            std::fs::read_to_string(&path).unwrap(),
            "{example}: rerun with MONOTABLE_DESIGN_UPDATE=1"
        );

        let out = monotable(&[&args[..], &["--format", "json"]].concat());
        let estimate: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let total = estimate["on_demand"]["total_usd"].as_f64().unwrap();
        let shown = format!("${total:.2}");
        let line = text.lines().find(|l| l.starts_with("Total")).unwrap();
        assert!(line.contains(&shown), "{example}: {line} vs {shown}");
    }
}

#[test]
fn cost_names_the_patterns_a_traffic_file_has_that_the_design_lacks() {
    let traffic = std::env::temp_dir().join(format!("monotable-design-traffic-{}.yaml", std::process::id()));
    std::fs::write(&traffic, "patterns:\n  get-usr: {per_second: 1}\n").unwrap();
    let out = monotable(&["design", "cost", EXAMPLE_USERS, "--traffic", traffic.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("get-usr"), "{stderr}");
}
