//! `monotable design apply` and `design diff` (the binary) against a real server started in
//! this process on 127.0.0.1:0; the live table is hand-edited with the AWS SDK in between.

use std::process::{Command, Output};

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    CreateGlobalSecondaryIndexAction, DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate,
    KeySchemaElement, KeyType, Projection, ProjectionType, TimeToLiveSpecification,
};
use aws_sdk_dynamodb::Client;
use monotable_engine::Engine;
use monotable_server::Service;

/// A design with three GSIs (one projecting a list, one with a multi-attribute key), an LSI,
/// TTL, a stream and a tag.
const DESIGN: &str = r#"
version: 1
app: shop
unit: api
model: main
conventions: {pk: PK, sk: SK, entity_type: EntityType, created: CreatedAt, updated: UpdatedAt, created_by: CreatedBy, ttl: TTL}
table:
  stream: new_and_old_images
  tags: {team: checkout}
indexes:
  - {name: GSI1, kind: gsi, pk: GSI1PK, sk: GSI1SK}
  - {name: GSI2, kind: gsi, pk: GSI2PK, sk: GSI2SK, projection: {include: [title, status]}}
  - {name: LSI1, kind: lsi, sk: LSI1SK, projection: keys_only}
  - {name: GSI3, kind: gsi, pk: [customer_id, status], sk: [date, order_id]}
entities:
  - name: Order
    pk: "CUSTOMER#{customer_id}"
    sk: "ORDER#{order_id}"
    indexes:
      GSI1: {pk: "ORDER#{order_id}", sk: ORDER}
      GSI2: {pk: "STATUS#{status}", sk: "ORDER#{order_id}"}
      LSI1: {sk: "DATE#{date}"}
      GSI3: {pk: "{customer_id}#{status}", sk: "{date}#{order_id}"}
    fields: [{name: customer_id}, {name: order_id}, {name: status}, {name: date}, {name: title}]
access_patterns:
  - {name: get-order, entities: [Order], index: GSI1, operation: query, key: {pk: "ORDER#{order_id}"}, scope: admin}
  - {name: orders-by-status, entities: [Order], index: GSI2, operation: query, key: {pk: "STATUS#{status}"}, scope: admin}
  - {name: orders-by-status-and-date, entities: [Order], index: GSI3, operation: query, key: {pk: "{customer_id}#{status}"}, scope: admin}
  - {name: orders-by-date, entities: [Order], index: LSI1, operation: query, key: {pk: "CUSTOMER#{customer_id}"}, scope: admin}
"#;

const TABLE: &str = "shop-dev-main";

/// A server on 127.0.0.1:0 in this process, on its own runtime thread.
struct Server {
    runtime: tokio::runtime::Runtime,
    endpoint: String,
    client: Client,
}

fn start() -> Server {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(monotable_server::serve(listener, Service::new(Engine::new()), std::future::pending()));
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .endpoint_url(&endpoint)
        .build();
    Server { runtime, endpoint, client: Client::from_conf(config) }
}

fn design_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("monotable-design-apply-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

impl Server {
    /// Runs `monotable design <verb> FILE --endpoint … <extra>`; the exit code and stdout.
    fn design(&self, verb: &str, file: &std::path::Path, extra: &[&str]) -> (i32, String) {
        let out: Output = Command::new(env!("CARGO_BIN_EXE_monotable"))
            .args(["design", verb, file.to_str().unwrap(), "--endpoint", &self.endpoint])
            .args(extra)
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr);
        (out.status.code().unwrap_or(-1), format!("{stdout}{stderr}"))
    }

    fn key(attr: &str, t: KeyType) -> KeySchemaElement {
        KeySchemaElement::builder().attribute_name(attr).key_type(t).build().unwrap()
    }

    fn drop_gsi(&self, name: &str) {
        let delete = DeleteGlobalSecondaryIndexAction::builder().index_name(name).build().unwrap();
        let req = self.client.update_table().table_name(TABLE);
        let req =
            req.global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().delete(delete).build());
        self.runtime.block_on(req.send()).unwrap();
    }

    fn add_gsi(&self, name: &str, hash: &str, range: &str, projection: ProjectionType) {
        let create = CreateGlobalSecondaryIndexAction::builder()
            .index_name(name)
            .key_schema(Self::key(hash, KeyType::Hash))
            .key_schema(Self::key(range, KeyType::Range))
            .projection(Projection::builder().projection_type(projection).build())
            .build()
            .unwrap();
        let req = self.client.update_table().table_name(TABLE).attribute_definitions(
            aws_sdk_dynamodb::types::AttributeDefinition::builder()
                .attribute_name(hash)
                .attribute_type("S".into())
                .build()
                .unwrap(),
        );
        let req = req
            .attribute_definitions(
                aws_sdk_dynamodb::types::AttributeDefinition::builder()
                    .attribute_name(range)
                    .attribute_type("S".into())
                    .build()
                    .unwrap(),
            )
            .global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().create(create).build());
        self.runtime.block_on(req.send()).unwrap();
    }

    fn ttl_off(&self) {
        let spec = TimeToLiveSpecification::builder().enabled(false).attribute_name("TTL").build().unwrap();
        let req = self.client.update_time_to_live().table_name(TABLE).time_to_live_specification(spec);
        self.runtime.block_on(req.send()).unwrap();
    }
}

#[test]
fn apply_creates_the_table_and_diff_then_reports_no_drift() {
    let s = start();
    let file = design_file("create.yaml", DESIGN);
    let (code, out) = s.design("diff", &file, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("+ table shop-dev-main: live missing"), "{out}");
    let (code, out) = s.design("apply", &file, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("created table shop-dev-main"), "{out}");
    let (code, out) = s.design("diff", &file, &[]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.trim(), format!("table shop-dev-main matches {}", file.display()));
    // What DynamoDB itself says about the created table.
    let t = s.runtime.block_on(s.client.describe_table().table_name(TABLE).send()).unwrap();
    let t = t.table().unwrap();
    assert_eq!(t.global_secondary_indexes().len(), 3);
    let gsi3 = t.global_secondary_indexes().iter().find(|g| g.index_name() == Some("GSI3")).unwrap();
    let key: Vec<(&str, &str)> =
        gsi3.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(key, [("customer_id", "HASH"), ("status", "HASH"), ("date", "RANGE"), ("order_id", "RANGE")]);
    let gsi2 = t.global_secondary_indexes().iter().find(|g| g.index_name() == Some("GSI2")).unwrap();
    let mut included = gsi2.projection().unwrap().non_key_attributes().to_vec();
    included.sort();
    assert_eq!(included, ["status", "title"]);
    assert_eq!(
        t.local_secondary_indexes()[0].projection().unwrap().projection_type(),
        Some(&ProjectionType::KeysOnly)
    );
    assert_eq!(t.stream_specification().unwrap().stream_view_type().unwrap().as_str(), "NEW_AND_OLD_IMAGES");
    assert_eq!(t.deletion_protection_enabled(), Some(true));
    let ttl = s.runtime.block_on(s.client.describe_time_to_live().table_name(TABLE).send()).unwrap();
    assert_eq!(ttl.time_to_live_description().unwrap().attribute_name(), Some("TTL"));
    let tags = s
        .runtime
        .block_on(s.client.list_tags_of_resource().resource_arn(t.table_arn().unwrap()).send())
        .unwrap();
    assert_eq!(tags.tags().iter().map(|t| (t.key(), t.value())).collect::<Vec<_>>(), [("team", "checkout")]);
}

#[test]
fn apply_is_idempotent() {
    let s = start();
    let file = design_file("idempotent.yaml", DESIGN);
    assert_eq!(s.design("apply", &file, &[]).0, 0);
    let (code, out) = s.design("apply", &file, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("nothing to do"), "{out}");
}

#[test]
fn apply_adds_a_missing_gsi_without_asking() {
    let s = start();
    let without_gsi1 = DESIGN
        .replace("  - {name: GSI1, kind: gsi, pk: GSI1PK, sk: GSI1SK}\n", "")
        .replace("      GSI1: {pk: \"ORDER#{order_id}\", sk: ORDER}\n", "")
        .replace("index: GSI1", "index: GSI2");
    assert_eq!(s.design("apply", &design_file("small.yaml", &without_gsi1), &[]).0, 0);
    let file = design_file("full.yaml", DESIGN);
    let (code, out) = s.design("diff", &file, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("+ GSI GSI1: live missing, design GSI1PK / GSI1SK (apply adds it)"), "{out}");
    let (code, out) = s.design("apply", &file, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("done: GSI GSI1"), "{out}");
    assert_eq!(s.design("diff", &file, &[]).0, 0);
}

#[test]
fn diff_reports_a_hand_edited_table_and_apply_refuses_destructive_changes() {
    let s = start();
    let file = design_file("edited.yaml", DESIGN);
    assert_eq!(s.design("apply", &file, &[]).0, 0);
    // By hand: an extra GSI, GSI1 dropped, GSI2 rebuilt with another projection, TTL off.
    s.add_gsi("Extra", "ExtraPK", "ExtraSK", ProjectionType::All);
    s.drop_gsi("GSI1");
    s.drop_gsi("GSI2");
    s.add_gsi("GSI2", "GSI2PK", "GSI2SK", ProjectionType::KeysOnly);
    s.ttl_off();
    let (code, out) = s.design("diff", &file, &[]);
    assert_eq!(code, 2, "{out}");
    for line in [
        "+ GSI GSI1: live missing, design GSI1PK / GSI1SK (apply adds it)",
        "- GSI GSI2 projection: live KEYS_ONLY, design INCLUDE [status, title] (destructive",
        "- GSI Extra: live ExtraPK / ExtraSK, design missing (destructive",
        "+ TTL: live off, design TTL (apply adds it)",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    assert_eq!(out.lines().count(), 4, "{out}");
    // Refused: nothing changes, not even the safe additions.
    let (code, out) = s.design("apply", &file, &[]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("refused: 2 destructive change(s); nothing was changed"), "{out}");
    assert_eq!(s.design("diff", &file, &[]).1.lines().count(), 4);
    // Allowed: everything is done with UpdateTable and UpdateTimeToLive.
    let (code, out) = s.design("apply", &file, &["--allow-destructive"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = s.design("diff", &file, &[]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn apply_says_plainly_what_only_a_new_table_can_change() {
    let s = start();
    assert_eq!(s.design("apply", &design_file("base.yaml", DESIGN), &[]).0, 0);
    let changed =
        DESIGN.replace("sk: SK,", "sk: SortKey,").replace("projection: keys_only", "projection: all");
    let file = design_file("rekeyed.yaml", &changed);
    let (code, out) = s.design("diff", &file, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("! table key: live PK / SK, design PK / SortKey (needs a new table"), "{out}");
    assert!(
        out.contains("! LSI LSI1: live PK / LSI1SK KEYS_ONLY, design PK / LSI1SK ALL (needs a new table"),
        "{out}"
    );
    let (code, out) = s.design("apply", &file, &["--allow-destructive"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("not done: ! table key"), "{out}");
    assert!(out.contains("2 difference(s) need a new table"), "{out}");
}

#[test]
fn endpoint_aws_takes_the_endpoint_and_credentials_from_the_aws_configuration() {
    // `--endpoint aws` is Amazon DynamoDB as the AWS configuration resolves it; the
    // configuration's `AWS_ENDPOINT_URL_DYNAMODB` points it at the test server instead.
    let server = start();
    let file = design_file("aws.yaml", DESIGN);
    let home = tempfile::tempdir().unwrap();
    let run = |verb: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_monotable"))
            .args(["design", verb, file.to_str().unwrap(), "--endpoint", "aws"])
            .env("AWS_ENDPOINT_URL_DYNAMODB", &server.endpoint)
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "eu-west-1")
            .env("HOME", home.path())
            .env_remove("AWS_PROFILE")
            .output()
            .unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    };
    let (code, text) = run("apply");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(&format!("created table {TABLE}")), "{text}");
    let (code, text) = run("diff");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(&format!("table {TABLE} matches")), "{text}");
    let described = server.runtime.block_on(server.client.describe_table().table_name(TABLE).send());
    assert!(described.is_ok(), "the table is on the server the AWS configuration named");
}
