//! Generated infrastructure for the example designs, checked by real validators: cfn-lint for
//! CloudFormation and the `hcl2` Python parser (PyPI `python-hcl2`) for Terraform — no
//! registry this project reaches serves a `terraform` binary. A missing validator skips the
//! check loudly, and fails it when `CI` is set. The IAM policy is pinned by its own tests.

use std::process::Command;

use monotable_design::{iac, Billing, Design, Index, IndexKind, KeyAttrs, Projection, StreamView};
use serde_json::{json, Value};

fn example(name: &str) -> Design {
    let path = format!("{}/../{name}/design.yaml", env!("CARGO_MANIFEST_DIR"));
    Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The examples, and example-users with every table setting and index form switched on
/// (provisioned billing, a stream, tags, an LSI, an `include` projection).
fn designs() -> Vec<(&'static str, Design)> {
    let mut full = example("example-users");
    full.table.billing = Billing::Provisioned { read: 5, write: 7 };
    full.table.stream = Some(StreamView::NewAndOldImages);
    full.table.tags.insert("team".into(), "identity".into());
    full.indexes.push(Index {
        name: "LSI1".into(),
        kind: IndexKind::Lsi,
        pk: None,
        sk: "LSI1SK".into(),
        projection: Projection::Include(vec!["email".into()]),
    });
    // A multi-attribute GSI: two partition and two sort attributes.
    full.indexes.push(Index {
        name: "GSI3".into(),
        kind: IndexKind::Gsi,
        pk: Some(KeyAttrs(vec!["name".into(), "email".into()])),
        sk: KeyAttrs(vec!["CreatedAt".into(), "userId".into()]),
        projection: Projection::KeysOnly,
    });
    vec![
        ("example-users", example("example-users")),
        ("example-orgs", example("example-orgs")),
        ("full", full),
    ]
}

/// Runs a validator; `None` if it is not installed.
fn validate(program: &str, args: &[&str]) -> Option<std::process::Output> {
    match Command::new(program).args(args).output() {
        Ok(out) => Some(out),
        Err(_) if std::env::var_os("CI").is_some() => panic!("{program} is required in CI (see .ci/run)"),
        Err(_) => {
            eprintln!(
                "SKIPPED: {program} is not installed; `pip install cfn-lint python-hcl2` to run this check"
            );
            None
        }
    }
}

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("monotable-design-iac-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn cloudformation_of_the_examples_passes_cfn_lint() {
    for (name, d) in designs() {
        let json =
            temp(&format!("{name}.json"), &serde_json::to_string_pretty(&iac::cloudformation(&d)).unwrap());
        let yaml = temp(&format!("{name}.yaml"), &iac::cloudformation_yaml(&d));
        for file in [json, yaml] {
            let Some(out) = validate("cfn-lint", &[file.to_str().unwrap()]) else { return };
            assert!(
                out.status.success(),
                "cfn-lint {}:\n{}{}",
                file.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn terraform_of_the_examples_parses_as_hcl() {
    let script = "import hcl2, sys\nd = hcl2.load(open(sys.argv[1]))\n\
        kinds = sorted(k.strip('\"') for r in d['resource'] for k in r)\n\
        assert kinds == ['aws_dynamodb_table', 'aws_iam_policy', 'aws_ssm_parameter'], kinds\n\
        assert d['variable'], 'stage variable'\n";
    for (name, d) in designs() {
        let file = temp(&format!("{name}.tf"), &iac::terraform(&d));
        let Some(probe) = validate("python3", &["-c", "import hcl2"]) else { return };
        if !probe.status.success() {
            assert!(std::env::var_os("CI").is_none(), "python-hcl2 is required in CI (see .ci/run)");
            eprintln!("SKIPPED: python-hcl2 is not installed; `pip install python-hcl2` to run this check");
            return;
        }
        let out = validate("python3", &["-c", script, file.to_str().unwrap()]).unwrap();
        assert!(out.status.success(), "{name}.tf:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn cloudformation_has_stage_parameter_ssm_name_pitr_and_deletion_protection() {
    let t = iac::cloudformation(&example("example-orgs"));
    let props = &t["Resources"]["Table"]["Properties"];
    assert_eq!(props["TableName"], json!({"Fn::Sub": "acme-${Stage}-ledger"}));
    assert_eq!(props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"], json!(true));
    assert_eq!(props["DeletionProtectionEnabled"], json!(true));
    assert_eq!(
        t["Resources"]["TableNameParameter"]["Properties"]["Name"],
        json!({"Fn::Sub": "/acme/${Stage}/ledger/ledger-table-name"})
    );
    let tf = iac::terraform(&example("example-orgs"));
    assert!(tf.contains("name  = \"/acme/${var.stage}/ledger/ledger-table-name\""));
    assert!(tf.contains("point_in_time_recovery {\n    enabled = true"));
    assert!(tf.contains("deletion_protection_enabled = true"));
}

#[test]
fn table_settings_reach_cloudformation_and_terraform() {
    let (_, d) = designs().pop().unwrap();
    let t = iac::cloudformation(&d);
    let props = &t["Resources"]["Table"]["Properties"];
    assert_eq!(props["BillingMode"], json!("PROVISIONED"));
    assert_eq!(props["ProvisionedThroughput"], json!({"ReadCapacityUnits": 5, "WriteCapacityUnits": 7}));
    assert_eq!(props["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["WriteCapacityUnits"], json!(7));
    assert_eq!(props["StreamSpecification"], json!({"StreamViewType": "NEW_AND_OLD_IMAGES"}));
    assert_eq!(props["Tags"], json!([{"Key": "team", "Value": "identity"}]));
    // A multi-attribute key lists every HASH element, then every RANGE element.
    let gsi = props["GlobalSecondaryIndexes"].as_array().unwrap().last().unwrap().clone();
    let schema: Vec<(String, String)> = gsi["KeySchema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["AttributeName"].as_str().unwrap().into(), e["KeyType"].as_str().unwrap().into()))
        .collect();
    let want = [("name", "HASH"), ("email", "HASH"), ("CreatedAt", "RANGE"), ("userId", "RANGE")];
    assert_eq!(schema, want.map(|(a, k)| (a.to_string(), k.to_string())));
    let tf = iac::terraform(&d);
    assert!(
        tf.contains("key_schema {\n      attribute_name = \"email\"\n      key_type       = \"HASH\""),
        "{tf}"
    );
    assert!(tf.contains("version = \">= 6.28.0\""), "{tf}");
    assert!(
        tf.contains("billing_mode                = \"PROVISIONED\"\n  read_capacity               = 5"),
        "{tf}"
    );
    assert!(tf.contains("stream_view_type            = \"NEW_AND_OLD_IMAGES\""), "{tf}");
    assert!(tf.contains("\"team\" = \"identity\""), "{tf}");
}

fn statements(d: &Design) -> Vec<Value> {
    let t = iac::cloudformation(d);
    t["Resources"]["ServicePolicy"]["Properties"]["PolicyDocument"]["Statement"].as_array().unwrap().clone()
}

#[test]
fn the_policy_of_a_tenant_scoped_design_names_only_its_table_indexes_and_actions() {
    let s = statements(&example("example-orgs"));
    let all: Vec<&Value> = s.iter().collect();
    let mut actions: Vec<String> = all
        .iter()
        .flat_map(|s| s["Action"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()))
        .collect();
    actions.sort();
    actions.dedup();
    assert_eq!(actions, vec!["dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"]);
    let resources: Vec<&Value> = all.iter().flat_map(|s| s["Resource"].as_array().unwrap()).collect();
    let table = json!({"Fn::GetAtt": ["Table", "Arn"]});
    let gsi1 = json!({"Fn::Sub": "${Table.Arn}/index/gsi1"});
    assert!(resources.iter().all(|r| **r == table || **r == gsi1), "{resources:?}");
    // Every pattern of this design is tenant-scoped with the tenant leading the partition key.
    for st in &all {
        let lead = &st["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"];
        assert!(lead[0].as_str().unwrap().starts_with("ORG#${aws:PrincipalTag/tenant}"), "{st}");
    }
}

#[test]
fn admin_patterns_get_no_leading_keys_condition_and_unused_indexes_are_not_granted() {
    let mut d = example("example-users");
    d.access_patterns.retain(|p| p.name != "list-users");
    let s = statements(&d);
    let text = serde_json::to_string(&s).unwrap();
    assert!(!text.contains("/index/GSI2"), "{text}");
    // The admin lookup by email and the transactional create (whose unique-email item lives
    // outside the user's partition) are the unconditioned statement.
    let open = s.iter().find(|st| st.get("Condition").is_none()).unwrap();
    assert_eq!(open["Action"], json!(["dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:Query"]));
    assert_eq!(
        open["Resource"],
        json!([{"Fn::Sub": "${Table.Arn}/index/GSI1"}, {"Fn::GetAtt": ["Table", "Arn"]}])
    );
}

/// A multi-attribute key keys on the fields' own attributes, so a number field's attribute is
/// declared `N` ("AttributeType ... N - the attribute is of type Number", API reference,
/// AttributeDefinition); template-rendered keys stay `S`.
#[test]
fn a_multi_attribute_key_on_a_number_field_declares_its_attribute_as_a_number() {
    let mut d = example("example-users");
    let user = d.entities.iter_mut().find(|e| e.name == "User").unwrap();
    user.fields.push(monotable_design::Field {
        name: "age".into(),
        attr: None,
        ty: Some(monotable_design::FieldType::Number),
        size: None,
    });
    d.indexes.push(Index {
        name: "GSI3".into(),
        kind: IndexKind::Gsi,
        pk: Some(KeyAttrs(vec!["email".into()])),
        sk: KeyAttrs(vec!["age".into()]),
        projection: Projection::All,
    });
    let cf = iac::cloudformation(&d);
    let defs = cf["Resources"]["Table"]["Properties"]["AttributeDefinitions"].as_array().unwrap().clone();
    let ty = |a: &str| defs.iter().find(|d| d["AttributeName"] == a).map(|d| d["AttributeType"].clone());
    assert_eq!(ty("age"), Some(json!("N")), "{defs:?}");
    assert_eq!(ty("email"), Some(json!("S")));
    assert_eq!(ty(&d.conventions.pk), Some(json!("S")));
    assert!(iac::terraform(&d).contains("name = \"age\"\n    type = \"N\""));
    let shape = monotable_design::deploy::TableShape::desired(&d, "t");
    assert_eq!(shape.attributes.get("age").map(String::as_str), Some("N"));
}
