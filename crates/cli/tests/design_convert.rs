//! `monotable design import|export` and `design iac --format pulumi|cdk` through the built
//! binary: files in, files out, notes on standard error.

use std::process::{Command, Output};

fn monotable(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_monotable")).args(args).output().unwrap()
}

fn fixture(name: &str) -> String {
    format!("{}/../design/tests/fixtures/convert/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("monotable-design-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn import_writes_a_design_that_the_other_commands_read_and_notes_go_to_stderr() {
    let design = scratch("from-onetable.yaml");
    let out = monotable(&[
        "design",
        "import",
        "--from",
        "onetable",
        &fixture("onetable.json"),
        "-o",
        design.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.lines().all(|l| l.starts_with("note: ")), "{stderr}");
    assert!(stderr.contains("note: query users-of-account: filters and limit not carried"), "{stderr}");
    let text = std::fs::read_to_string(&design).unwrap();
    assert!(text.contains("pk: account#{accountId}"), "{text}");
    let check = monotable(&["design", "check", design.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&check.stdout).contains("error(s)"));
    // To JSON when the output file says so.
    let json = scratch("from-schema.json");
    let out = monotable(&[
        "design",
        "import",
        "--from",
        "aws-data-model",
        &fixture("aws-schema.json"),
        "-o",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["entities"][0]["name"], "Deal");
}

#[test]
fn export_writes_a_workbench_model_that_import_reads_back() {
    let model = scratch("model.json");
    let users = concat!(env!("CARGO_MANIFEST_DIR"), "/../example-users/design.yaml");
    let out = monotable(&["design", "export", "--to", "workbench", users, "-o", model.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: 9 access patterns not carried"));
    let back = monotable(&["design", "import", "--from", "workbench", model.to_str().unwrap()]);
    assert!(back.status.success(), "{}", String::from_utf8_lossy(&back.stderr));
    let text = String::from_utf8_lossy(&back.stdout);
    assert!(text.contains("app: example") && text.contains("pk: USER#{user_id}"), "{text}");
}

#[test]
fn a_file_of_the_wrong_format_is_a_clear_error() {
    let out = monotable(&["design", "import", "--from", "workbench", &fixture("onetable.json")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a document of this format: no `DataModel` list of tables"), "{stderr}");
}

#[test]
fn iac_cdk_writes_the_construct_and_the_app_into_the_output_directory_and_needs_one() {
    let users = concat!(env!("CARGO_MANIFEST_DIR"), "/../example-users/design.yaml");
    let refused = monotable(&["design", "iac", users, "--format", "cdk"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("give -o DIRECTORY"));
    let dir = scratch("cdk");
    let out = monotable(&["design", "iac", users, "--format", "cdk", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lib = std::fs::read_to_string(dir.join("lib/users-table.ts")).unwrap();
    assert!(lib.contains("export class UsersTable extends Construct"), "{lib}");
    let app = std::fs::read_to_string(dir.join("bin/app.ts")).unwrap();
    assert!(app.contains("import { UsersTable } from \"../lib/users-table\";"), "{app}");
    let pulumi = monotable(&["design", "iac", users, "--format", "pulumi"]);
    assert!(String::from_utf8_lossy(&pulumi.stdout).contains("new aws.dynamodb.Table(\"table\""));
}
