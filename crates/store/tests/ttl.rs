//! The TTL sweeper on in-memory and durable engines, with a manual clock.

use std::sync::Arc;
use std::time::Duration;

use monotable_engine::{Engine, GetItemInput, QueryInput};
use monotable_store::{open, ManualClock, SyncPolicy, TtlSweeper};
use monotable_types::Item;
use serde_json::json;

const NOW: u64 = 1_800_000_000;

fn setup(engine: &Engine) {
    let create = json!({
        "TableName": "sessions",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "user", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "by_user",
            "KeySchema": [{"AttributeName": "user", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}
        }],
        "BillingMode": "PAY_PER_REQUEST"
    });
    engine.create_table(serde_json::from_value(create).expect("input")).expect("create");
    let ttl = json!({"TableName": "sessions", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}});
    engine.update_time_to_live(serde_json::from_value(ttl).expect("input")).expect("ttl");
    let put = |pk: &str, expires: serde_json::Value| {
        let mut item = json!({"pk": {"S": pk}, "user": {"S": "u1"}});
        if !expires.is_null() {
            item["expires"] = expires;
        }
        let input = json!({"TableName": "sessions", "Item": item});
        engine.put_item(serde_json::from_value(input).expect("input")).expect("put");
    };
    put("past", json!({"N": (NOW - 10).to_string()}));
    put("exactly_now", json!({"N": NOW.to_string()}));
    put("future", json!({"N": (NOW + 100).to_string()}));
    put("string_ttl", json!({"S": "0"}));
    put("no_ttl", serde_json::Value::Null);
    put("ancient", json!({"N": (NOW - 6 * 365 * 24 * 3600).to_string()}));
}

fn get(engine: &Engine, pk: &str) -> Option<Item> {
    let input: GetItemInput =
        serde_json::from_value(json!({"TableName": "sessions", "Key": {"pk": {"S": pk}}})).expect("input");
    engine.get_item(input).expect("get").item.map(monotable_engine::api::SharedItem::into_item)
}

fn index_pks(engine: &Engine) -> Vec<String> {
    let input: QueryInput = serde_json::from_value(json!({
        "TableName": "sessions", "IndexName": "by_user",
        "KeyConditionExpression": "#u = :u",
        "ExpressionAttributeNames": {"#u": "user"},
        "ExpressionAttributeValues": {":u": {"S": "u1"}}
    }))
    .expect("input");
    let mut pks: Vec<String> = engine
        .query(input)
        .expect("query")
        .items
        .unwrap_or_default()
        .iter()
        .filter_map(|i| match i.get("pk") {
            Some(monotable_types::AttributeValue::S(s)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    pks.sort();
    pks
}

fn check_sweep(engine: Engine) {
    setup(&engine);
    let clock = Arc::new(ManualClock::new(NOW));
    let sweeper = TtlSweeper::new(engine.clone()).with_clock(clock.clone());
    // Expired but not yet swept: still readable, like DynamoDB.
    assert!(get(&engine, "past").is_some());
    let report = sweeper.sweep_once().expect("sweep");
    assert_eq!(report.deleted, 1, "{report:?}");
    assert!(get(&engine, "past").is_none());
    assert!(get(&engine, "exactly_now").is_some(), "a TTL equal to now is not yet expired");
    assert!(get(&engine, "string_ttl").is_some(), "a non-Number TTL is ignored");
    assert!(get(&engine, "ancient").is_some(), "TTLs over five years old are ignored");
    assert_eq!(index_pks(&engine), ["ancient", "exactly_now", "future", "no_ttl", "string_ttl"]);
    clock.advance(1000);
    assert_eq!(sweeper.sweep_once().expect("sweep").deleted, 2);
    assert_eq!(index_pks(&engine), ["ancient", "no_ttl", "string_ttl"], "the index was cleaned too");
}

#[test]
fn expired_items_are_swept_from_table_and_index_in_memory() {
    check_sweep(Engine::new());
}

#[test]
fn expired_items_are_swept_from_table_and_index_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(dir.path(), SyncPolicy::None).expect("open");
    check_sweep(Engine::with_storage(store).expect("engine"));
}

#[test]
fn background_sweeper_deletes_on_its_period_and_stops() {
    let engine = Engine::new();
    setup(&engine);
    let clock = Arc::new(ManualClock::new(NOW));
    let handle =
        TtlSweeper::new(engine.clone()).with_clock(clock).with_period(Duration::from_millis(10)).spawn();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while get(&engine, "past").is_some() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(get(&engine, "past").is_none(), "the background sweeper never ran");
    assert!(handle.stats().sweeps.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    handle.stop();
}
