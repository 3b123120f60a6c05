//! A multi-attribute GSI key survives a reopen of the data directory: the catalog keeps the
//! whole KeySchema (several HASH and RANGE elements), the index created by UpdateTable is
//! backfilled, and after reopening the index answers in tuple order, including items written
//! after the reopen. Source for the key shape: AWS developer guide, "Multi-attribute key
//! schema" (GSI.md#GSI.MultiAttributeKeys).

use monotable_engine::Engine;
use monotable_store::{open, SyncPolicy};
use serde_json::{json, Value};

fn req<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("request shape")
}

fn put(e: &Engine, id: u32, org: &str, status: &str, day: i64, seq: &str) {
    let item = json!({"id": {"N": id.to_string()}, "org": {"S": org}, "status": {"S": status},
        "day": {"N": day.to_string()}, "seq": {"S": seq}});
    e.put_item(req(json!({"TableName": "tbl", "Item": item}))).expect("put");
}

fn ids(e: &Engine, forward: bool) -> Vec<String> {
    let out = e
        .query(req(json!({"TableName": "tbl", "IndexName": "by_org_status",
            "KeyConditionExpression": "org = :o AND #s = :s AND #d >= :d",
            "ExpressionAttributeNames": {"#s": "status", "#d": "day"},
            "ExpressionAttributeValues": {":o": {"S": "acme"}, ":s": {"S": "open"}, ":d": {"N": "-5"}},
            "ScanIndexForward": forward})))
        .expect("query");
    let out = serde_json::to_value(&out).expect("json");
    out["Items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["id"]["N"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn multi_attribute_gsi_key_schema_and_entries_survive_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let e = Engine::with_storage(open(dir.path(), SyncPolicy::None).expect("open")).expect("engine");
        e.create_table(req(json!({"TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})))
            .expect("create");
        put(&e, 1, "acme", "open", 10, "b");
        put(&e, 2, "acme", "open", -2, "z");
        put(&e, 3, "acme", "closed", 1, "a");
        put(&e, 4, "acme", "open", 10, "a");
        e.update_table(req(json!({"TableName": "tbl",
            "AttributeDefinitions": [
                {"AttributeName": "id", "AttributeType": "N"}, {"AttributeName": "org", "AttributeType": "S"},
                {"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "day", "AttributeType": "N"},
                {"AttributeName": "seq", "AttributeType": "S"}],
            "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_org_status",
                "KeySchema": [{"AttributeName": "org", "KeyType": "HASH"}, {"AttributeName": "status", "KeyType": "HASH"},
                    {"AttributeName": "day", "KeyType": "RANGE"}, {"AttributeName": "seq", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"}}}]})))
        .expect("index created");
        assert_eq!(ids(&e, true), ["2", "4", "1"]);
    }
    let e = Engine::with_storage(open(dir.path(), SyncPolicy::None).expect("reopen")).expect("engine");
    let d = serde_json::to_value(e.describe_table(req(json!({"TableName": "tbl"}))).expect("describe"))
        .expect("json");
    let schema = &d["Table"]["GlobalSecondaryIndexes"][0]["KeySchema"];
    let names: Vec<&str> = schema
        .as_array()
        .expect("schema")
        .iter()
        .map(|k| k["AttributeName"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["org", "status", "day", "seq"]);
    assert_eq!(ids(&e, true), ["2", "4", "1"]);
    put(&e, 5, "acme", "open", 10, "aa");
    assert_eq!(ids(&e, false), ["1", "5", "4", "2"]);
}
