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
