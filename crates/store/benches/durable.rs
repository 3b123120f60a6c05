//! Durable storage figures: write throughput under each sync policy, recovery time, and
//! memory with a dataset larger than the block cache. A plain binary (`harness = false`):
//! `cargo bench -p monotable-store --bench durable`. Sizes scale with
//! `MONOTABLE_BENCH_SCALE` (default 1).

use std::sync::Arc;
use std::time::{Duration, Instant};

use monotable_engine::{Engine, GetItemInput, PutItemInput};
use monotable_store::{open, open_with, StoreOptions, SyncPolicy};
use monotable_types::{AttributeValue, Item};
use serde_json::json;

fn scale() -> u64 {
    std::env::var("MONOTABLE_BENCH_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

fn create(engine: &Engine) {
    let create = json!({
        "TableName": "bench",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"
    });
    engine.create_table(serde_json::from_value(create).expect("input")).expect("create");
}

fn put(engine: &Engine, i: u64, payload: &str) {
    let mut item = Item::new();
    item.insert("pk".into(), AttributeValue::S(format!("item{i:012}")));
    item.insert("payload".into(), AttributeValue::S(payload.to_owned()));
    let input =
        PutItemInput { table_name: Some("bench".into()), item: Some(item), ..PutItemInput::default() };
    engine.put_item(input).expect("put");
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

fn throughput(policy: SyncPolicy, threads: u64, per_thread: u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::with_storage(open(dir.path(), policy).expect("open")).expect("engine");
    create(&engine);
    let payload = "x".repeat(200);
    let started = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let engine = engine.clone();
            let payload = payload.clone();
            std::thread::spawn(move || {
                for i in 0..per_thread {
                    put(&engine, t * per_thread + i, &payload);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread");
    }
    let secs = started.elapsed().as_secs_f64();
    let n = threads * per_thread;
    println!("| {policy} | {threads} | {n} | {:.0} |", n as f64 / secs);
}

fn recovery(items: u64, checkpoint: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = open(dir.path(), SyncPolicy::None).expect("open");
        let engine =
            Engine::with_storage(Arc::clone(&store) as Arc<dyn monotable_engine::Storage>).expect("engine");
        create(&engine);
        let payload = "y".repeat(100);
        for i in 0..items {
            put(&engine, i, &payload);
        }
        if checkpoint {
            store.flush_to_tables().expect("flush");
        }
    }
    let started = Instant::now();
    let store = open(dir.path(), SyncPolicy::default()).expect("reopen");
    let opened = started.elapsed();
    eprintln!("recovery report: {:?}", store.recovery());
    let engine = Engine::with_storage(store).expect("engine");
    let total = started.elapsed();
    drop(engine);
    let per_million = |d: Duration| d.as_secs_f64() * 1_000_000.0 / items as f64;
    println!(
        "| {} | {items} | {:.3} s | {:.3} s | {:.1} s |",
        if checkpoint { "table files (after flush)" } else { "journal replay" },
        opened.as_secs_f64(),
        total.as_secs_f64(),
        per_million(total)
    );
}

fn memory(items: u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut options = StoreOptions::with_sync(SyncPolicy::None);
    options.cache_bytes = 8 << 20;
    options.memtable_bytes = 4 << 20;
    let store = open_with(dir.path(), options).expect("open");
    let engine =
        Engine::with_storage(Arc::clone(&store) as Arc<dyn monotable_engine::Storage>).expect("engine");
    create(&engine);
    let payload = "z".repeat(1000);
    let before = rss_kib();
    for i in 0..items {
        put(&engine, i, &payload);
    }
    store.flush_to_tables().expect("flush");
    let after_load = rss_kib();
    // Random point reads over the whole key range.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let reads = 20_000;
    let started = Instant::now();
    for _ in 0..reads {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut key = Item::new();
        key.insert("pk".into(), AttributeValue::S(format!("item{:012}", x % items)));
        let input =
            GetItemInput { table_name: Some("bench".into()), key: Some(key), ..GetItemInput::default() };
        assert!(engine.get_item(input).expect("get").item.is_some());
    }
    let read_secs = started.elapsed().as_secs_f64();
    let disk = store.disk_space().expect("disk");
    println!(
        "| {items} items of ~1 KB | {:.0} MiB | 8 MiB | {:.0} MiB | {:.0} MiB | {:.0} | {:.1} MiB |",
        disk as f64 / 1048576.0,
        before as f64 / 1024.0,
        rss_kib() as f64 / 1024.0,
        reads as f64 / read_secs,
        store.cache_size() as f64 / 1048576.0,
    );
    let _ = after_load;
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters nothing here.
    let s = scale();
    println!("## memory with a dataset larger than the cache\n");
    println!("| dataset | on disk | cache | RSS before load | RSS after random reads | random gets/s | cache held |\n|---|---|---|---|---|---|---|");
    memory(150_000 * s);
    println!();
    println!("\n## write throughput (PutItem of ~220 B items, engine in-process)\n");
    println!("| sync policy | threads | puts | puts/s |\n|---|---|---|---|");
    for policy in [SyncPolicy::Always, SyncPolicy::default(), SyncPolicy::None] {
        for threads in [1, 8] {
            let per_thread = match policy {
                SyncPolicy::None => 20_000 * s / threads,
                _ => 2_000 * s / threads,
            };
            throughput(policy, threads, per_thread);
        }
    }
    println!("\n## recovery (open + engine catalog load with its recount scan)\n");
    println!("| state at crash | items | store open | total | per million items |\n|---|---|---|---|---|");
    recovery(200_000 * s, false);
    recovery(200_000 * s, true);
}
