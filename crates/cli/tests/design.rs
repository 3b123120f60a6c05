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

/// The modeline `design new` writes first: `# yaml-language-server: $schema=REF`.
const MODELINE: &str = "# yaml-language-server: $schema=";

/// Validates `design` (YAML) against the JSON Schema at `schema` with Python's `jsonschema`,
/// after checking the schema against its own meta-schema: `None` when the validator is not
/// installed (a failure under CI, where .ci/run installs it with cfn-lint), else its output.
fn jsonschema(schema: &std::path::Path, design: &std::path::Path) -> Option<std::process::Output> {
    let probe = Command::new("python3").args(["-c", "import jsonschema, yaml"]).output();
    if !probe.is_ok_and(|p| p.status.success()) {
        assert!(std::env::var_os("CI").is_none(), "python3 with jsonschema and PyYAML is required in CI");
        eprintln!("SKIPPED: `pip install jsonschema pyyaml` to validate against the schema");
        return None;
    }
    let script = "import json, sys, yaml\n\
        from jsonschema.validators import validator_for\n\
        schema = json.load(open(sys.argv[1]))\n\
        cls = validator_for(schema)\n\
        cls.check_schema(schema)\n\
        errors = [e.message for e in cls(schema).iter_errors(yaml.safe_load(open(sys.argv[2])))]\n\
        print('\\n'.join(errors))\n\
        sys.exit(1 if errors else 0)\n";
    let args = ["-c", script, schema.to_str().unwrap(), design.to_str().unwrap()];
    Some(Command::new("python3").args(args).output().unwrap())
}

#[test]
fn new_writes_the_json_schema_beside_the_design_and_references_it_relatively() {
    let dir = tempfile::tempdir().unwrap();
    let design = dir.path().join("design.yaml");
    let out = monotable(&["design", "new", "-o", design.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&design).unwrap();
    let reference = text.lines().next().and_then(|l| l.strip_prefix(MODELINE)).expect("a modeline");
    assert_eq!(reference, "./design.schema.json", "no network needed");
    // yaml-language-server resolves a relative `$schema` path against the YAML file's
    // directory ("the relative filepath is the path relative to the open yaml file", its
    // modeline documentation as quoted by nixvim's yamlls page).
    let schema = design.parent().unwrap().join(reference);
    let written = std::fs::read_to_string(&schema).unwrap();
    assert_eq!(written, String::from_utf8(monotable(&["design", "schema"]).stdout).unwrap());
    let Some(valid) = jsonschema(&schema, &design) else { return };
    assert!(
        valid.status.success(),
        "{}{}",
        String::from_utf8_lossy(&valid.stdout),
        String::from_utf8_lossy(&valid.stderr)
    );
    // The validator does reject what the schema forbids.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, text.replacen("operation: get", "operation: fetch", 1)).unwrap();
    let invalid = jsonschema(&schema, &bad).unwrap();
    assert!(!invalid.status.success() && String::from_utf8_lossy(&invalid.stdout).contains("'fetch'"));
}

#[test]
fn new_to_standard_output_says_how_to_write_the_schema_it_references() {
    let out = monotable(&["design", "new"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let reference = text.lines().next().and_then(|l| l.strip_prefix(MODELINE)).expect("a modeline");
    assert!(text.contains("monotable design schema -o design.schema.json"), "{text}");
    // Doing what the comment says makes the reference resolve.
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["design", "schema", "-o", "design.schema.json"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(dir.path().join(reference).is_file(), "{reference}");
}

#[test]
fn schema_prints_the_published_json_schema() {
    let published =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/design.schema.json"));
    let out = monotable(&["design", "schema"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), published.unwrap());
}

#[test]
fn new_refuses_to_write_the_design_where_its_schema_goes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("design.schema.json");
    let out = monotable(&["design", "new", "-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("where the schema goes"));
    assert!(!path.exists());
}

#[test]
fn check_reports_a_malformed_template_once_at_the_column_where_it_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("design.yaml");
    assert!(monotable(&["design", "new", "-o", path.to_str().unwrap()]).status.success());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("  sk: RECORD#{id}\n", "  sk: RECORD#{id\n", 1)).unwrap();
    let out = monotable(&["design", "check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("error[MT010] Record: key template `RECORD#{id`: unclosed `{` at column 8"),
        "{stdout}"
    );
    assert!(stdout.contains("1 error(s), 0 warning(s)"), "{stdout}");
}
