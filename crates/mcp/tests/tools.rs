//! The MCP server through rmcp's own client over an in-process pipe, on the embedded engine:
//! what is listed, what is refused, how answers are paged and errors reported.

use std::path::PathBuf;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use monotable_design::Design;
use monotable_mcp::{backend, Options, Server};
use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

const USERS_TABLE: &str = "example-dev-users";

fn example(name: &str) -> Design {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../{name}/design.yaml"));
    Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn options(client: Client, writable: bool, design: Option<Design>, max_output: usize) -> Options {
    Options { client, writable, design, max_output, label: "a test engine".into(), create_table: None }
}

/// A client session with a server for `options`.
async fn connect(options: Options) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = Server::new(options).serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.unwrap()
}

async fn call(session: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    session.call_tool(params).await.expect("a tool call is never a protocol error")
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

async fn ok(session: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let result = call(session, tool, args).await;
    assert_ne!(result.is_error, Some(true), "{tool}: {}", text(&result));
    serde_json::from_str(&text(&result)).unwrap_or(Value::String(text(&result)))
}

async fn refused(session: &RunningService<RoleClient, ()>, tool: &str, args: Value, needle: &str) {
    let result = call(session, tool, args).await;
    assert_eq!(result.is_error, Some(true), "{tool} should fail: {}", text(&result));
    assert!(text(&result).contains(needle), "{tool}: {needle:?} not in {:?}", text(&result));
}

/// A table keyed on the string attributes `pk` and `sk`, as the example designs key theirs.
async fn keyed_table(client: &Client, name: &str, pk: &str, sk: &str) {
    let attr = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key = |name: &str, t| KeySchemaElement::builder().attribute_name(name).key_type(t).build().unwrap();
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(attr(pk))
        .attribute_definitions(attr(sk))
        .key_schema(key(pk, KeyType::Hash))
        .key_schema(key(sk, KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

/// The example-users table keyed as its design says (PK, SK), without its GSIs.
async fn users_table(client: &Client) {
    keyed_table(client, USERS_TABLE, "PK", "SK").await;
}

async fn item_count(client: &Client) -> usize {
    client.scan().table_name(USERS_TABLE).send().await.unwrap().items().len()
}

#[tokio::test]
async fn without_writable_the_writing_tools_are_not_listed_and_are_refused() {
    let session = connect(options(backend::in_memory(), false, Some(example("example-users")), 65536)).await;
    let tools = session.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for write in ["put_entity", "update", "delete"] {
        assert!(!names.contains(&write), "{write} is listed: {names:?}");
        refused(&session, write, json!({ "entity": "User" }), "--writable").await;
    }
    assert!(names.contains(&"run_access_pattern") && names.contains(&"design_iac"), "{names:?}");
    for tool in &tools {
        let annotations = tool.annotations.as_ref().expect("every tool is annotated");
        assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
    }
}

#[tokio::test]
async fn a_writable_server_lists_the_writing_tools_as_destructive() {
    let session = connect(options(backend::in_memory(), true, None, 65536)).await;
    let tools = session.list_all_tools().await.unwrap();
    for write in ["put_entity", "update", "delete"] {
        let tool = tools.iter().find(|t| t.name == write).unwrap_or_else(|| panic!("{write} missing"));
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!((annotations.read_only_hint, annotations.destructive_hint), (Some(false), Some(true)));
    }
}

#[tokio::test]
async fn a_read_only_partiql_runs_select_and_refuses_every_write() {
    let client = backend::in_memory();
    users_table(&client).await;
    let writer = connect(options(client.clone(), true, Some(example("example-users")), 65536)).await;
    ok(&writer, "put_entity", json!({ "entity": "User", "item": { "user_id": "alice", "email": "a@x" } }))
        .await;
    let session = connect(options(client.clone(), false, Some(example("example-users")), 65536)).await;
    let table = format!("\"{USERS_TABLE}\"");
    for statement in [
        format!("INSERT INTO {table} VALUE {{'PK': 'X', 'SK': 'Y'}}"),
        format!("UPDATE {table} SET name = 'x' WHERE PK = 'USER#alice' AND SK = 'PROFILE'"),
        format!("DELETE FROM {table} WHERE PK = 'USER#alice' AND SK = 'PROFILE'"),
        format!("-- SELECT\nDELETE FROM {table} WHERE PK = 'USER#alice' AND SK = 'PROFILE'"),
    ] {
        refused(&session, "partiql", json!({ "statement": statement }), "read-only").await;
    }
    assert_eq!(item_count(&client).await, 1);
    let rows = ok(&session, "partiql", json!({ "statement": format!("SELECT * FROM {table}") })).await;
    assert_eq!(rows["count"], 1, "{rows}");
}

#[tokio::test]
async fn an_access_pattern_by_name_returns_items_decoded_by_entity_type() {
    let client = backend::in_memory();
    users_table(&client).await;
    let writer = connect(options(client.clone(), true, Some(example("example-users")), 65536)).await;
    ok(&writer, "put_entity", json!({ "entity": "User", "item": { "user_id": "a#b", "email": "a@x" } }))
        .await;
    for i in 0..3 {
        let item = json!({ "user_id": "a#b", "post_id": format!("2024-05-0{i}"), "title": "t" });
        ok(&writer, "put_entity", json!({ "entity": "Post", "item": item })).await;
    }
    let session = connect(options(client, false, Some(example("example-users")), 65536)).await;
    let posts = ok(
        &session,
        "run_access_pattern",
        json!({ "pattern": "list-posts", "params": { "user_id": "a#b" } }),
    )
    .await;
    assert_eq!(posts["count"], 3, "{posts}");
    let first = &posts["items"][0];
    assert_eq!(first["entity"], "Post");
    // The key template's value comes back unescaped: `#` is escaped in the stored key.
    assert_eq!(first["keys"]["user_id"], "a#b", "{first}");
    assert_eq!(first["item"]["PK"], "USER#a%23b", "{first}");
    assert!(posts["consumed_capacity"]["total"].as_f64().unwrap() > 0.0, "{posts}");
    let user =
        ok(&session, "run_access_pattern", json!({ "pattern": "get-user", "params": { "user_id": "a#b" } }))
            .await;
    assert_eq!(user["items"][0]["entity"], "User", "{user}");
    refused(&session, "run_access_pattern", json!({ "pattern": "list-posts" }), "user_id").await;
}

#[tokio::test]
async fn a_versioned_entity_is_written_only_at_the_version_read() {
    let client = backend::in_memory();
    let orgs = example("example-orgs");
    keyed_table(&client, &orgs.table_name("dev"), &orgs.conventions.pk, &orgs.conventions.sk).await;
    let session = connect(options(client, true, Some(orgs), 65536)).await;
    let record =
        json!({ "org_id": "o1", "id": "r1", "status": "open", "changed": "2024-05-01", "amount": 3 });
    let put = ok(&session, "put_entity", json!({ "entity": "Record", "item": record })).await;
    assert_eq!(put["item"]["version"], 1, "{put}");
    refused(&session, "put_entity", json!({ "entity": "Record", "item": record }), "not as expected").await;
    let key = json!({ "org_id": "o1", "id": "r1" });
    let set = json!({ "status": "closed" });
    refused(&session, "update", json!({ "entity": "Record", "params": key, "set": set }), "expected_version")
        .await;
    let updated = ok(
        &session,
        "update",
        json!({ "entity": "Record", "params": key, "set": set, "expected_version": 1 }),
    )
    .await;
    assert_eq!(updated["item"]["item"]["version"], 2, "{updated}");
    let stale = json!({ "entity": "Record", "params": key, "set": set, "expected_version": 1 });
    refused(&session, "update", stale, "not as expected").await;
    refused(
        &session,
        "delete",
        json!({ "entity": "Record", "params": key, "expected_version": 1 }),
        "not as expected",
    )
    .await;
    ok(&session, "delete", json!({ "entity": "Record", "params": key, "expected_version": 2 })).await;
}

#[tokio::test]
async fn a_long_answer_comes_in_pages_whose_cursors_continue_it() {
    let session = connect(options(backend::in_memory(), false, Some(example("example-orgs")), 1000)).await;
    let (mut whole, mut cursor, mut pages) = (String::new(), None::<String>, 0);
    let note = regex_free_note;
    loop {
        let mut args = json!({ "format": "terraform" });
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = text(&call(&session, "design_iac", args).await);
        pages += 1;
        match note(&page) {
            Some((body, next)) => {
                assert!(body.len() <= 1000, "{}", body.len());
                whole.push_str(body);
                cursor = Some(next);
            }
            None => {
                whole.push_str(&page);
                break;
            }
        }
    }
    assert!(pages > 2, "{pages}");
    let full = text(&call(&session, "design_iac", json!({ "format": "terraform" })).await);
    let unpaged = connect(options(backend::in_memory(), false, Some(example("example-orgs")), 1 << 20)).await;
    assert_eq!(whole, text(&call(&unpaged, "design_iac", json!({ "format": "terraform" })).await));
    assert!(full.contains("\"cursor\""), "{full}");
    refused(&session, "design_iac", json!({ "format": "terraform", "cursor": "not-a-cursor" }), "cursor")
        .await;
}

/// The page before the truncation note and the note's cursor.
fn regex_free_note(page: &str) -> Option<(&str, String)> {
    let at = page.rfind("\n\n[truncated: ")?;
    let cursor = page[at..].split("\"cursor\": \"").nth(1)?.split('"').next()?.to_string();
    Some((&page[..at], cursor))
}

#[tokio::test]
async fn tools_that_need_a_design_say_so_when_none_is_loaded() {
    let session = connect(options(backend::in_memory(), false, None, 65536)).await;
    for tool in ["design_check", "design_show", "design_validate"] {
        refused(&session, tool, json!({}), "--design FILE").await;
    }
    refused(&session, "run_access_pattern", json!({ "pattern": "x" }), "--design FILE").await;
    refused(&session, "get_entity", json!({ "entity": "User" }), "--design FILE").await;
    let inline =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../example-users/design.yaml"))
            .unwrap();
    let check = ok(&session, "design_check", json!({ "design": inline })).await;
    assert_eq!(check["errors"], 0, "{check}");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_that_name_the_problem() {
    let session = connect(options(backend::in_memory(), false, Some(example("example-users")), 65536)).await;
    refused(&session, "design_iac", json!({ "format": "ansible" }), "unknown variant").await;
    refused(&session, "design_check", json!({ "desgin": "x" }), "unknown field").await;
    refused(&session, "design_check", json!({ "design": "{ not yaml" }), "not a valid design document").await;
    refused(&session, "design_cost", json!({ "traffic": 3 }), "invalid arguments").await;
    refused(&session, "describe_table", json!({ "table": "missing" }), "list_tables").await;
    refused(&session, "no_such_tool", json!({}), "there is no tool").await;
}

#[tokio::test]
async fn the_resources_are_the_design_its_schema_the_standard_and_the_rules() {
    let session = connect(options(backend::in_memory(), false, Some(example("example-users")), 65536)).await;
    let uris: Vec<String> =
        session.list_all_resources().await.unwrap().into_iter().map(|r| r.uri.clone()).collect();
    assert_eq!(uris.len(), 5, "{uris:?}");
    let read = |uri: &'static str| {
        let session = &session;
        async move {
            let out = session.read_resource(ReadResourceRequestParams::new(uri)).await.unwrap();
            match &out.contents[0] {
                rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
                other => panic!("{other:?}"),
            }
        }
    };
    assert!(read("monotable://design.yaml").await.contains("app: example"));
    assert!(read("monotable://design.json").await.contains("\"access_patterns\""));
    assert!(read("monotable://design.schema.json").await.contains("\"$schema\""));
    assert!(read("monotable://standard.md").await.starts_with("# The single-table standard"));
    let rules = read("monotable://lint-rules.md").await;
    assert!(rules.contains("| MT002 | error |") && rules.contains("| MV001 |"), "{rules}");
    assert!(session.read_resource(ReadResourceRequestParams::new("monotable://nothing")).await.is_err());
    let bare = connect(options(backend::in_memory(), false, None, 65536)).await;
    assert_eq!(bare.list_all_resources().await.unwrap().len(), 3);
}

#[tokio::test]
async fn create_table_from_design_is_listed_only_when_writable_with_a_way_to_create() {
    let client = backend::in_memory();
    let listed = |options: Options| async move {
        let session = connect(options).await;
        let names: Vec<String> =
            session.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
        names.contains(&"create_table_from_design".to_string())
    };
    let never: monotable_mcp::CreateTable = std::sync::Arc::new(|_, shape| {
        Box::pin(async move { panic!("{} exists: the hook must not be called", shape.name) })
    });
    let with_hook = |writable| Options {
        create_table: Some(never.clone()),
        ..options(client.clone(), writable, Some(example("example-users")), 65536)
    };
    assert!(!listed(options(client.clone(), true, None, 65536)).await);
    assert!(!listed(with_hook(false)).await);
    assert!(listed(with_hook(true)).await);
    users_table(&client).await;
    let session = connect(with_hook(true)).await;
    refused(&session, "create_table_from_design", json!({}), "exists already").await;
    let read_only = connect(with_hook(false)).await;
    refused(&read_only, "create_table_from_design", json!({}), "--writable").await;
}
