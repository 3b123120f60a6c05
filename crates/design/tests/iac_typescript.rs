//! The Pulumi and CDK output of the example designs, checked against the real npm packages:
//! `tsc --strict` over both (with `@pulumi/aws`, `@pulumi/pulumi`, `aws-cdk-lib` at the exact
//! versions of `tests/iac-node/package-lock.json`), the Pulumi program run under
//! `@pulumi/pulumi`'s mocks and its resources compared with our CloudFormation, the CDK app
//! synthesized offline by `aws-cdk-lib` itself, its template through cfn-lint, and compared
//! with our CloudFormation resource by resource. `npm ci` in `tests/iac-node` installs the packages (`.ci/run` does);
//! without them the checks are skipped loudly, and fail when `CI` is set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use monotable_design::{iac, Billing, Design, Index, StreamView};
use serde_json::{json, Value};

fn example(name: &str) -> Design {
    let path = format!("{}/../{name}/design.yaml", env!("CARGO_MANIFEST_DIR"));
    Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn index(v: Value) -> Index {
    serde_json::from_value(v).unwrap()
}

/// The examples, and example-users with every table setting and index form switched on.
fn designs() -> Vec<(&'static str, Design)> {
    let mut full = example("example-users");
    full.table.billing = Billing::Provisioned { read: 5, write: 7 };
    full.table.stream = Some(StreamView::NewAndOldImages);
    full.table.tags.insert("team".into(), "identity".into());
    full.indexes.push(index(
        json!({"name": "LSI1", "kind": "lsi", "sk": "LSI1SK", "projection": {"include": ["email"]}}),
    ));
    full.indexes.push(index(json!({"name": "GSI3", "kind": "gsi", "pk": ["name", "email"],
        "sk": ["CreatedAt", "userId"], "projection": "keys_only"})));
    vec![("users", example("example-users")), ("orgs", example("example-orgs")), ("full", full)]
}

/// The installed node project, or `None` (skipped) outside CI.
fn node_modules() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/iac-node/node_modules");
    if dir.join("aws-cdk-lib").is_dir() && dir.join("@pulumi/aws").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI needs `npm ci` in crates/design/tests/iac-node (see .ci/run)"
    );
    eprintln!(
        "SKIPPED: run `npm ci` in crates/design/tests/iac-node to type-check the Pulumi and CDK output"
    );
    None
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// Runs a compiled Pulumi program under `@pulumi/pulumi`'s mocks (no engine, no cloud) with
/// config `stage` = argv[3]; prints the stack outputs and every resource's inputs as JSON. A
/// mocked resource's `arn` is `arn:aws:mock:<name>`.
const MOCK_RUN: &str = r#"const pulumi = require("@pulumi/pulumi");
const resources = [];
pulumi.runtime.setAllConfig({ "project:stage": process.argv[3] });
pulumi.runtime.setMocks({
  newResource: (args) => {
    resources.push({ type: args.type, name: args.name, inputs: args.inputs });
    return { id: `${args.name}-id`, state: { ...args.inputs, arn: `arn:aws:mock:${args.name}` } };
  },
  call: (args) => args.inputs,
}, "project", "stack", false);
const program = require(require("path").resolve(process.argv[2]));
const settle = (o) => new Promise((resolve) => o.apply(resolve));
Promise.all([settle(program.tableName), settle(program.servicePolicyArn)]).then(async (outputs) => {
  await new Promise((r) => setTimeout(r, 200));
  console.log(JSON.stringify({ outputs, resources }));
});
"#;

/// Writes every design's Pulumi program and CDK project, type-checks them all in one `tsc`
/// run and synthesizes each CDK app: the synthesized template per design.
fn synthesized() -> Option<&'static BTreeMap<String, Value>> {
    static DONE: OnceLock<Option<BTreeMap<String, Value>>> = OnceLock::new();
    DONE.get_or_init(|| {
        let modules = node_modules()?;
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("iac-typescript");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&modules, dir.join("node_modules")).unwrap();
        for (name, d) in designs() {
            let write = |rel: String, text: &str| {
                let file = dir.join(name).join(rel);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, text).unwrap();
            };
            write("pulumi/index.ts".into(), &iac::pulumi(&d));
            for (path, text) in iac::cdk(&d) {
                write(format!("cdk/{path}"), &text);
            }
        }
        let tsconfig = json!({"compilerOptions": {"strict": true, "target": "ES2022", "module": "commonjs",
            "moduleResolution": "node", "skipLibCheck": true, "types": ["node"], "outDir": "dist", "rootDir": "."},
            "include": ["*/pulumi/*.ts", "*/cdk/**/*.ts"]});
        std::fs::write(dir.join("tsconfig.json"), tsconfig.to_string()).unwrap();
        std::fs::write(dir.join("mock-run.js"), MOCK_RUN).unwrap();
        run(Command::new("node").arg("node_modules/typescript/bin/tsc").args(["-p", "."]).current_dir(&dir));
        let mut out = BTreeMap::new();
        for (name, d) in designs() {
            let cdk_out = dir.join(format!("cdk.out-{name}"));
            run(Command::new("node")
                .arg(format!("dist/{name}/cdk/bin/app.js"))
                .env("CDK_OUTDIR", &cdk_out)
                .current_dir(&dir));
            let stack = format!("{}-dev-{}.template.json", d.app, d.model);
            let text = std::fs::read_to_string(cdk_out.join(stack)).unwrap();
            out.insert(name.to_string(), serde_json::from_str(&text).unwrap());
        }
        Some(out)
    })
    .as_ref()
}

#[test]
fn pulumi_and_cdk_output_type_checks_and_the_cdk_app_synthesizes() {
    let Some(templates) = synthesized() else { return };
    assert_eq!(templates.len(), designs().len());
}

#[test]
fn the_synthesized_cdk_template_passes_cfn_lint() {
    let Some(templates) = synthesized() else { return };
    for (name, t) in templates {
        let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("iac-typescript/{name}.cdk.json"));
        std::fs::write(&file, t.to_string()).unwrap();
        match Command::new("cfn-lint").arg(&file).output() {
            Ok(out) => {
                assert!(out.status.success(), "cfn-lint {name}:\n{}", String::from_utf8_lossy(&out.stdout))
            }
            Err(_) if std::env::var_os("CI").is_some() => panic!("cfn-lint is required in CI (see .ci/run)"),
            Err(_) => {
                eprintln!("SKIPPED: cfn-lint is not installed; `pip install cfn-lint` to run this check")
            }
        }
    }
}

/// Resolves the intrinsics both templates use to comparable strings: a resource is named by
/// its type (each type occurs once), `Stage` is the CDK app's default `dev`.
fn substance(v: &Value, types: &BTreeMap<String, String>) -> Value {
    let name = |id: &str| types.get(id).cloned().unwrap_or_else(|| id.to_string());
    match v {
        Value::Object(m) if m.len() == 1 => {
            let (k, arg) = m.iter().next().unwrap();
            match (k.as_str(), arg) {
                ("Ref", Value::String(id)) => json!(format!("<{}>", name(id))),
                ("Fn::GetAtt", Value::Array(a)) => {
                    json!(format!("<{}.{}>", name(a[0].as_str().unwrap()), a[1].as_str().unwrap()))
                }
                ("Fn::Sub", Value::String(s)) => {
                    let mut s = s.replace("${Stage}", "dev");
                    for (id, ty) in types {
                        s = s.replace(&format!("${{{id}.Arn}}"), &format!("<{ty}.Arn>"));
                    }
                    json!(s)
                }
                ("Fn::Join", Value::Array(a)) if a[0] == "" => {
                    let parts = a[1].as_array().unwrap().iter().map(|p| substance(p, types));
                    json!(parts.map(|p| p.as_str().unwrap().to_string()).collect::<String>())
                }
                _ => json!({k: substance(arg, types)}),
            }
        }
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), substance(v, types))).collect(),
        Value::Array(a) => a.iter().map(|x| substance(x, types)).collect(),
        other => other.clone(),
    }
}

/// The resources of a template by type, intrinsics resolved, CDK's own metadata left out.
fn by_type(t: &Value) -> BTreeMap<String, Value> {
    let resources = t["Resources"].as_object().unwrap();
    let types: BTreeMap<String, String> =
        resources.iter().map(|(id, r)| (id.clone(), r["Type"].as_str().unwrap().to_string())).collect();
    let mut out: BTreeMap<String, Value> = resources
        .values()
        .filter(|r| r["Type"] != "AWS::CDK::Metadata")
        .map(|r| {
            let kept = json!({"Properties": r["Properties"], "DeletionPolicy": r.get("DeletionPolicy"),
                "UpdateReplacePolicy": r.get("UpdateReplacePolicy")});
            (r["Type"].as_str().unwrap().to_string(), substance(&kept, &types))
        })
        .collect();
    let outputs: BTreeMap<String, Value> = t["Outputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, o)| (k.clone(), substance(&o["Value"], &types)))
        .collect();
    out.insert("Outputs".into(), json!(outputs));
    out
}

#[test]
fn the_cdk_template_has_our_cloudformation_resources_property_by_property() {
    let Some(templates) = synthesized() else { return };
    for (name, d) in designs() {
        let ours = by_type(&iac::cloudformation(&d));
        let theirs = by_type(&templates[name]);
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{name}: resource types"
        );
        for (ty, want) in &ours {
            assert_eq!(&theirs[ty], want, "{name}: {ty}");
        }
    }
}

/// The table settings reach the Pulumi program under `@pulumi/aws`'s names (the type check
/// above proves the names exist; this proves they are used).
#[test]
fn pulumi_program_carries_billing_stream_tags_and_a_multi_attribute_key() {
    let (_, full) = designs().pop().unwrap();
    let p = iac::pulumi(&full);
    for want in [
        "billingMode: \"PROVISIONED\"",
        "readCapacity: 5",
        "writeCapacity: 7",
        "streamViewType: \"NEW_AND_OLD_IMAGES\"",
        "team: \"identity\"",
        "keySchemas: [",
        "nonKeyAttributes: [\n        \"email\",",
        "pointInTimeRecovery: {\n    enabled: true,",
        "deletionProtectionEnabled: true",
        "name: `/example/${stage}/users/users-table-name`",
        "`${tableArn}/index/GSI1`",
        "config.get(\"stage\") ?? \"dev\"",
        "{ retainOnDelete: true }",
    ] {
        assert!(p.contains(want), "missing {want:?} in:\n{p}");
    }
}

/// A Pulumi output that was still an `Output` when its resource registered reads back as a
/// map of a signature key and `value`.
fn resolved(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.contains_key("value") && m.len() == 2 => resolved(&m["value"]),
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), resolved(v))).collect(),
        Value::Array(a) => a.iter().map(resolved).collect(),
        other => other.clone(),
    }
}

/// An `aws.dynamodb.Table`'s inputs in CloudFormation's property shape, for comparing with
/// the CloudFormation output (names: `@pulumi/aws` v7, `aws.dynamodb.Table`).
fn pulumi_table_as_cloudformation(t: &Value) -> Value {
    let key = |h: &Value, r: &Value| json!([{"AttributeName": h, "KeyType": "HASH"}, {"AttributeName": r, "KeyType": "RANGE"}]);
    let projection = |i: &Value| match i.get("nonKeyAttributes") {
        Some(a) => json!({"ProjectionType": i["projectionType"], "NonKeyAttributes": a}),
        None => json!({"ProjectionType": i["projectionType"]}),
    };
    let throughput =
        |i: &Value| json!({"ReadCapacityUnits": i["readCapacity"], "WriteCapacityUnits": i["writeCapacity"]});
    let mut p = json!({
        "TableName": t["name"],
        "BillingMode": t["billingMode"],
        "AttributeDefinitions": t["attributes"].as_array().unwrap().iter()
            .map(|a| json!({"AttributeName": a["name"], "AttributeType": a["type"]})).collect::<Vec<_>>(),
        "KeySchema": key(&t["hashKey"], &t["rangeKey"]),
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": t["pointInTimeRecovery"]["enabled"]},
        "DeletionProtectionEnabled": t["deletionProtectionEnabled"],
    });
    if t.get("readCapacity").is_some() {
        p["ProvisionedThroughput"] = throughput(t);
    }
    if let Some(gsis) = t.get("globalSecondaryIndexes").and_then(Value::as_array) {
        let list: Vec<Value> = gsis
            .iter()
            .map(|i| {
                let schema = match i.get("keySchemas") {
                    Some(k) => k
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| json!({"AttributeName": e["attributeName"], "KeyType": e["keyType"]}))
                        .collect(),
                    None => key(&i["hashKey"], &i["rangeKey"]),
                };
                let mut g = json!({"IndexName": i["name"], "KeySchema": schema, "Projection": projection(i)});
                if i.get("readCapacity").is_some() {
                    g["ProvisionedThroughput"] = throughput(i);
                }
                g
            })
            .collect();
        p["GlobalSecondaryIndexes"] = json!(list);
    }
    if let Some(lsis) = t.get("localSecondaryIndexes").and_then(Value::as_array) {
        let list: Vec<Value> = lsis
            .iter()
            .map(|i| {
                json!({"IndexName": i["name"],
            "KeySchema": key(&t["hashKey"], &i["rangeKey"]), "Projection": projection(i)})
            })
            .collect();
        p["LocalSecondaryIndexes"] = json!(list);
    }
    if let Some(ttl) = t.get("ttl") {
        p["TimeToLiveSpecification"] =
            json!({"AttributeName": ttl["attributeName"], "Enabled": ttl["enabled"]});
    }
    if t.get("streamEnabled") == Some(&json!(true)) {
        p["StreamSpecification"] = json!({"StreamViewType": t["streamViewType"]});
    }
    if let Some(tags) = t.get("tags").and_then(Value::as_object) {
        p["Tags"] = tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
    }
    p
}

#[test]
fn the_pulumi_program_runs_under_mocks_with_the_stage_from_config_and_our_cloudformation_substance() {
    if synthesized().is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("iac-typescript");
    for (name, d) in designs() {
        let out = run(Command::new("node")
            .args(["mock-run.js", &format!("dist/{name}/pulumi/index.js"), "prod"])
            .current_dir(&dir));
        let run: Value = resolved(&serde_json::from_str(out.lines().last().unwrap()).unwrap());
        let by_type: BTreeMap<&str, &Value> = run["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["type"].as_str().unwrap(), &r["inputs"]))
            .collect();
        let types: Vec<&str> = by_type.keys().copied().collect();
        assert_eq!(
            types,
            ["aws:dynamodb/table:Table", "aws:iam/policy:Policy", "aws:ssm/parameter:Parameter"],
            "{name}"
        );
        assert_eq!(run["outputs"], json!([d.table_name("prod"), "arn:aws:mock:service"]), "{name}");
        // The table: CloudFormation's properties with the stage resolved to the config's.
        let mut want = iac::cloudformation(&d)["Resources"]["Table"]["Properties"].clone();
        want["TableName"] = json!(d.table_name("prod"));
        assert_eq!(pulumi_table_as_cloudformation(by_type["aws:dynamodb/table:Table"]), want, "{name}");
        let parameter = by_type["aws:ssm/parameter:Parameter"];
        assert_eq!(parameter["name"], json!(format!("/{}/prod/{}/{}-table-name", d.app, d.unit, d.model)));
        assert_eq!(parameter["value"], json!(d.table_name("prod")));
        // The policy: the same statements, on the mocked table's ARN.
        let table = || json!("arn:aws:mock:table");
        let index = |i: &str| json!(format!("arn:aws:mock:table/index/{i}"));
        let doc = iac::iam::policy(&d, &iac::iam::Arns { table: &table, index: &index });
        let policy = by_type["aws:iam/policy:Policy"];
        assert_eq!(serde_json::from_str::<Value>(policy["policy"].as_str().unwrap()).unwrap(), doc, "{name}");
    }
    // A stage outside ^[a-z0-9-]+$ stops the program before any resource.
    let bad = Command::new("node")
        .args(["mock-run.js", "dist/users/pulumi/index.js", "Prod Stage"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("must match ^[a-z0-9-]+$"));
}
