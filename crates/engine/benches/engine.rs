//! Criterion benches: GetItem, PutItem (table with one GSI), UpdateItem and a 100-item Query,
//! each on monotable's engine and on dynoxide's embedded SQLite-backed engine, measured in the
//! same run on the same machine. Requests are built once and cloned per iteration for both.

/// With `--features bench-mimalloc`, both engines run on mimalloc (as `monotable serve` does,
/// though serve reaches it through `crates/cli/src/alloc.rs`); without it, on the system
/// allocator (as most test binaries do).
#[cfg(feature = "bench-mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

const ITEMS: usize = 10_000;

fn req<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("bench request parses")
}

fn create_table_json() -> Value {
    json!({
        "TableName": "bench",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "gpk", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{
            "IndexName": "gsi1",
            "KeySchema": [{"AttributeName": "gpk", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}
        }]
    })
}

/// A small item (~100 bytes) in one of 100 partitions.
fn item(i: usize) -> Value {
    json!({
        "pk": {"S": format!("user#{}", i % 100)},
        "sk": {"S": format!("order#{i:08}")},
        "gpk": {"S": format!("status#{}", i % 7)},
        "amount": {"N": (i * 3).to_string()},
        "note": {"S": "a small item of about a hundred bytes"}
    })
}

fn get_json(i: usize) -> Value {
    json!({"TableName": "bench", "Key": {"pk": {"S": format!("user#{}", i % 100)}, "sk": {"S": format!("order#{i:08}")}}})
}

fn update_json(i: usize) -> Value {
    json!({"TableName": "bench", "Key": {"pk": {"S": format!("user#{}", i % 100)}, "sk": {"S": format!("order#{i:08}")}},
        "UpdateExpression": "SET amount = amount + :d", "ExpressionAttributeValues": {":d": {"N": "1"}}})
}

fn query_json() -> Value {
    json!({"TableName": "bench", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "user#42"}}})
}

fn monotable(c: &mut Criterion) {
    let e = monotable_engine::Engine::new();
    e.create_table(req(create_table_json())).expect("create");
    for i in 0..ITEMS {
        e.put_item(req(json!({"TableName": "bench", "Item": item(i)}))).expect("put");
    }
    let gets: Vec<monotable_engine::GetItemInput> = (0..ITEMS).map(|i| req(get_json(i))).collect();
    let puts: Vec<monotable_engine::PutItemInput> =
        (0..ITEMS).map(|i| req(json!({"TableName": "bench", "Item": item(i)}))).collect();
    let updates: Vec<monotable_engine::UpdateItemInput> = (0..ITEMS).map(|i| req(update_json(i))).collect();
    let query: monotable_engine::QueryInput = req(query_json());
    assert_eq!(e.query(query.clone()).expect("query").count, Some(100));
    let mut n = 0usize;
    c.bench_function("monotable/get_item", |b| {
        b.iter_batched(
            || {
                n = (n + 7919) % ITEMS;
                gets[n].clone()
            },
            |r| e.get_item(r).expect("get"),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("monotable/put_item_gsi", |b| {
        b.iter_batched(
            || {
                n = (n + 7919) % ITEMS;
                puts[n].clone()
            },
            |r| e.put_item(r).expect("put"),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("monotable/update_item", |b| {
        b.iter_batched(
            || {
                n = (n + 7919) % ITEMS;
                updates[n].clone()
            },
            |r| e.update_item(r).expect("update"),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("monotable/query_100", |b| {
        b.iter_batched(|| query.clone(), |r| e.query(r).expect("query"), BatchSize::SmallInput)
    });
}

fn dynoxide(c: &mut Criterion) {
    use dynoxide::actions::{
        get_item::GetItemRequest, put_item::PutItemRequest, query::QueryRequest,
        update_item::UpdateItemRequest,
    };
    let db = dynoxide::Database::memory().expect("dynoxide memory db");
    db.create_table(req(create_table_json())).expect("create");
    for i in 0..ITEMS {
        db.put_item(req(json!({"TableName": "bench", "Item": item(i)}))).expect("put");
    }
    // dynoxide's request types are not Clone: each iteration's request is parsed from JSON in
    // the (untimed) setup closure.
    let gets: Vec<Value> = (0..ITEMS).map(get_json).collect();
    let puts: Vec<Value> = (0..ITEMS).map(|i| json!({"TableName": "bench", "Item": item(i)})).collect();
    let updates: Vec<Value> = (0..ITEMS).map(update_json).collect();
    let mut n = 0usize;
    let mut next = move || {
        n = (n + 7919) % ITEMS;
        n
    };
    c.bench_function("dynoxide/get_item", |b| {
        b.iter_batched(
            || req::<GetItemRequest>(gets[next()].clone()),
            |r| db.get_item(r).expect("get"),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("dynoxide/put_item_gsi", |b| {
        b.iter_batched(
            || req::<PutItemRequest>(puts[next()].clone()),
            |r| db.put_item(r).expect("put"),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("dynoxide/update_item", |b| {
        b.iter_batched(
            || req::<UpdateItemRequest>(updates[next()].clone()),
            |r| db.update_item(r).expect("update"),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("dynoxide/query_100", |b| {
        b.iter_batched(
            || req::<QueryRequest>(query_json()),
            |r| db.query(r).expect("query"),
            BatchSize::SmallInput,
        )
    });
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! { name = benches; config = config(); targets = monotable, dynoxide }
criterion_main!(benches);
