//! Load-independent cost per operation: on-CPU nanoseconds of the measuring thread
//! (`CLOCK_THREAD_CPUTIME_ID`) divided by the operation count, for monotable's engine and
//! dynoxide's, in alternating rounds. Criterion's wall-clock numbers swing with other processes
//! on a shared machine; time spent on the CPU does much less, and a ratio taken within one
//! round (both engines measured back to back) cancels most of what remains.
//!
//! Run: `cargo run --release -p monotable-engine --example cpu_time`. Environment: `ONLY=update`
//! measures only the operations whose name contains `update`; `ENGINES=monotable` skips
//! dynoxide; `ROUNDS` (default 7) and `OPS` (monotable operations per round, default 10,000;
//! a tenth of that for queries, the same for both engines) change the defaults.

/// With `--features bench-mimalloc`, both engines run on mimalloc (as `monotable serve` does);
/// without it, on the system allocator (as most test binaries do).
#[cfg(feature = "bench-mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use dynoxide::actions::{
    get_item::GetItemRequest, put_item::PutItemRequest, query::QueryRequest, update_item::UpdateItemRequest,
};

const ITEMS: usize = 10_000;

fn req<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("request parses")
}

/// Nanoseconds this thread has spent on a CPU. Not `/proc/thread-self/schedstat`, whose run
/// time advances only at scheduler ticks (4 ms steps on a 250 Hz kernel).
fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(default)
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

fn put(i: usize) -> Value {
    json!({"TableName": "bench", "Item": item(i)})
}

fn update(i: usize) -> Value {
    json!({"TableName": "bench", "Key": {"pk": {"S": format!("user#{}", i % 100)}, "sk": {"S": format!("order#{i:08}")}},
        "UpdateExpression": "SET amount = amount + :d", "ExpressionAttributeValues": {":d": {"N": "1"}}})
}

fn query(_: usize) -> Value {
    json!({"TableName": "bench", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "user#42"}}})
}

/// Requests built ahead of each timed block: few enough to still be in the caches when they
/// run (as a server's request is, just parsed), many enough to make the two clock reads of a
/// block negligible.
const BLOCK: usize = 64;

/// Runs `n` requests made by `make` through `op` and returns on-CPU ns per operation. Requests
/// are built untimed, a block at a time; responses are dropped inside the timed part, as a
/// caller would.
fn timed<R>(n: usize, start: usize, make: fn(usize) -> Value, mut op: impl FnMut(R)) -> f64
where
    R: DeserializeOwned,
{
    let mut ns = 0;
    let mut done = 0;
    while done < n {
        let block = BLOCK.min(n - done);
        let requests: Vec<R> = (0..block).map(|k| req(make(((start + done + k) * 7919) % ITEMS))).collect();
        let t = cpu_ns();
        for r in requests {
            op(r);
        }
        ns += cpu_ns().saturating_sub(t);
        done += block;
    }
    ns as f64 / n as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let rounds = env_number("ROUNDS", 7);
    let ops = env_number("OPS", 10_000);
    let only = std::env::var("ONLY").unwrap_or_default();
    let with_dynoxide = std::env::var("ENGINES").map_or(true, |e| e.contains("dynoxide"));

    let e = monotable_engine::Engine::new();
    e.create_table(req(table())).expect("create");
    let db = dynoxide::Database::memory().expect("dynoxide");
    db.create_table(req(table())).expect("create");
    for i in 0..ITEMS {
        e.put_item(req(put(i))).expect("put");
        db.put_item(req(put(i))).expect("put");
    }

    // One operation on both engines: `n` requests made by `make`, run through the method of
    // the same name on each; dynoxide's requests parse into its own type `$dyno`.
    macro_rules! pair {
        ($n:expr, $start:expr, $make:expr, $method:ident, $dyno:ty) => {
            (
                timed($n, $start, $make, |r| drop(e.$method(r).expect(stringify!($method)))),
                with_dynoxide.then(|| {
                    timed($n, $start, $make, |r: $dyno| drop(db.$method(r).expect(stringify!($method))))
                }),
            )
        };
    }
    type Row = (&'static str, Vec<f64>, Vec<f64>);
    let mut rows: Vec<Row> = ["get_item", "put_item_gsi", "update_item", "query_100"]
        .into_iter()
        .filter(|name| name.contains(only.as_str()))
        .map(|name| (name, Vec::new(), Vec::new()))
        .collect();
    for round in 0..rounds {
        let start = round * ops;
        for (name, mono, dyno) in &mut rows {
            let (m, d) = match *name {
                "get_item" => pair!(ops, start, get, get_item, GetItemRequest),
                "put_item_gsi" => pair!(ops, start, put, put_item, PutItemRequest),
                "update_item" => pair!(ops, start, update, update_item, UpdateItemRequest),
                _ => pair!(ops / 10, start, query, query, QueryRequest),
            };
            mono.push(m);
            dyno.extend(d);
        }
    }
    println!(
        "{rounds} rounds; on-CPU ns per operation, medians; ratio = median of per-round dynoxide / monotable"
    );
    println!(
        "{:14} {:>12} {:>12} {:>8} {:>16}",
        "operation", "monotable", "dynoxide", "ratio", "ratio range"
    );
    for (name, mono, dyno) in rows {
        let ratios: Vec<f64> = mono.iter().zip(&dyno).map(|(m, d)| d / m).collect();
        let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        if ratios.is_empty() {
            println!("{name:14} {:>12.0}", median(mono));
        } else {
            println!(
                "{name:14} {:>12.0} {:>12.0} {:>7.1}x {:>7.1}x–{:.1}x",
                median(mono),
                median(dyno),
                median(ratios),
                lo,
                hi
            );
        }
    }
}
