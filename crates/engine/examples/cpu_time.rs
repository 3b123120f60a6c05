//! Load-independent cost per operation: on-CPU nanoseconds of the measuring thread (from
//! `/proc/thread-self/schedstat`, Linux only) divided by the operation count, for monotable's
//! engine and dynoxide's. Criterion's wall-clock numbers swing with other processes on a
//! shared machine; time spent on the CPU does much less.
//!
//! Run: `cargo run --release -p monotable-engine --example cpu_time`

/// With `--features bench-mimalloc`, both engines run on mimalloc (as `monotable serve` does);
/// without it, on the system allocator (as most test binaries do).
#[cfg(feature = "bench-mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

const ITEMS: usize = 10_000;
const OPS: usize = 50_000;

fn req<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("request parses")
}

/// Nanoseconds this thread has spent on a CPU.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

fn item(i: usize) -> Value {
    json!({"pk": {"S": format!("user#{}", i % 100)}, "sk": {"S": format!("order#{i:08}")},
        "gpk": {"S": format!("status#{}", i % 7)}, "amount": {"N": (i * 3).to_string()},
        "note": {"S": "a small item of about a hundred bytes"}})
}

fn table() -> Value {
    json!({"TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "gpk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{"IndexName": "gsi1", "KeySchema": [{"AttributeName": "gpk", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]})
}

fn get(i: usize) -> Value {
    json!({"TableName": "bench", "Key": {"pk": {"S": format!("user#{}", i % 100)}, "sk": {"S": format!("order#{i:08}")}}})
}

fn update(i: usize) -> Value {
    json!({"TableName": "bench", "Key": {"pk": {"S": format!("user#{}", i % 100)}, "sk": {"S": format!("order#{i:08}")}},
        "UpdateExpression": "SET amount = amount + :d", "ExpressionAttributeValues": {":d": {"N": "1"}}})
}

fn query() -> Value {
    json!({"TableName": "bench", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "user#42"}}})
}

/// Runs `op` on pre-built requests and prints on-CPU ns per operation. The `ONLY`
/// environment variable, when set, skips measurements whose name does not contain it.
fn measure<R>(name: &str, requests: Vec<R>, mut op: impl FnMut(R)) {
    if std::env::var("ONLY").is_ok_and(|only| !name.contains(&only)) {
        return;
    }
    let n = requests.len();
    let start = cpu_ns();
    for r in requests {
        op(r);
    }
    let ns = cpu_ns().saturating_sub(start);
    println!("{name:28} {:>10.0} ns/op (on-CPU, {n} ops)", ns as f64 / n as f64);
}

fn main() {
    let e = monotable_engine::Engine::new();
    e.create_table(req(table())).expect("create");
    for i in 0..ITEMS {
        e.put_item(req(json!({"TableName": "bench", "Item": item(i)}))).expect("put");
    }
    let idx = |k: usize| (k * 7919) % ITEMS;
    measure("monotable/get_item", (0..OPS).map(|k| req(get(idx(k)))).collect(), |r| {
        e.get_item(r).expect("get");
    });
    measure(
        "monotable/put_item_gsi",
        (0..OPS).map(|k| req(json!({"TableName": "bench", "Item": item(idx(k))}))).collect(),
        |r| {
            e.put_item(r).expect("put");
        },
    );
    measure("monotable/update_item", (0..OPS).map(|k| req(update(idx(k)))).collect(), |r| {
        e.update_item(r).expect("update");
    });
    measure("monotable/query_100", (0..OPS / 50).map(|_| req(query())).collect(), |r| {
        e.query(r).expect("query");
    });

    use dynoxide::actions::{
        get_item::GetItemRequest, put_item::PutItemRequest, query::QueryRequest,
        update_item::UpdateItemRequest,
    };
    let db = dynoxide::Database::memory().expect("dynoxide");
    db.create_table(req(table())).expect("create");
    for i in 0..ITEMS {
        db.put_item(req(json!({"TableName": "bench", "Item": item(i)}))).expect("put");
    }
    let ops = OPS / 5;
    measure("dynoxide/get_item", (0..ops).map(|k| req::<GetItemRequest>(get(idx(k)))).collect(), |r| {
        db.get_item(r).expect("get");
    });
    measure(
        "dynoxide/put_item_gsi",
        (0..ops)
            .map(|k| req::<PutItemRequest>(json!({"TableName": "bench", "Item": item(idx(k))})))
            .collect(),
        |r| {
            db.put_item(r).expect("put");
        },
    );
    measure(
        "dynoxide/update_item",
        (0..ops).map(|k| req::<UpdateItemRequest>(update(idx(k)))).collect(),
        |r| {
            db.update_item(r).expect("update");
        },
    );
    measure("dynoxide/query_100", (0..ops / 50).map(|_| req::<QueryRequest>(query())).collect(), |r| {
        db.query(r).expect("query");
    });
}
