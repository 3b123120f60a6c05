//! The longest single PutItem while a table grows: one thread writes new 256-byte items (a
//! table with one GSI, projection ALL) and reports, per step of items, the slowest write and
//! the median. A store whose structures grow by copying or rehashing everything at once shows
//! it here as a spike that doubles with each doubling of the table (before the in-memory
//! store's hash tables were split and its slots chunked: 97 ms at 229k items, 222 ms at 459k,
//! 525 ms at 918k). Scheduler preemption on a busy machine adds isolated spikes of a few
//! milliseconds that do not grow with the table.
//!
//! Run: `cargo run --release -p monotable-engine --example growth_stalls` (environment:
//! `ITEMS`, default 1,000,000; `STEP`, default 100,000).

use std::time::{Duration, Instant};

use monotable_engine::{CreateTableInput, Engine, PutItemInput};
use serde_json::json;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (items, step) = (env("ITEMS", 1_000_000), env("STEP", 100_000).max(1));
    let engine = Engine::new();
    let table: CreateTableInput = serde_json::from_value(json!({
        "TableName": "growth",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{"IndexName": "gsi",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}]
    }))?;
    engine.create_table(table)?;
    let payload = "x".repeat(200);
    let mut times: Vec<Duration> = Vec::with_capacity(step as usize);
    println!("{:>10} {:>12} {:>12}", "items", "median µs", "slowest µs");
    for i in 0..items {
        let put: PutItemInput = serde_json::from_value(json!({"TableName": "growth", "Item": {
            "pk": {"S": format!("p{:07}", i / 25)}, "sk": {"S": format!("s{:04}", i % 25)},
            "g": {"S": format!("g{:02}", i % 64)}, "payload": {"S": payload}}}))?;
        let start = Instant::now();
        engine.put_item(put)?;
        times.push(start.elapsed());
        if (i + 1) % step == 0 || i + 1 == items {
            times.sort_unstable();
            let median = times.get(times.len() / 2).copied().unwrap_or_default();
            let slowest = times.last().copied().unwrap_or_default();
            println!("{:>10} {:>12.1} {:>12.1}", i + 1, micros(median), micros(slowest));
            times.clear();
        }
    }
    Ok(())
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
