//! Library overhead against raw `aws-sdk-dynamodb` calls on the embedded engine (goal: under
//! 10% for get, put and query).
//!
//! Pairs (raw baseline, library call), each doing the same work through the same client:
//! - `get`: `GetItem` + decode, against `Repository::get`;
//! - `put`: a plain `PutItem` (less work: no created stamps) and the hand-built `UpdateItem`
//!   with the library's `SET … if_not_exists` upsert (the same work), against
//!   `Repository::put`;
//! - `create`: a conditional `PutItem` (`attribute_not_exists`) of a new key, against
//!   `Repository::create`;
//! - `query`: `Query` + decode of 20 items, against `Repository::query`.
//!
//! Run: `cargo bench -p monotable --bench overhead` (criterion, wall-clock medians), or with
//! `OVERHEAD_CPU=1` for on-CPU ns per operation of this thread (`CLOCK_THREAD_CPUTIME_ID`,
//! Linux), raw and library alternating in rounds; the ratio is the median of the per-round
//! ratios, so load from other processes cancels out (`ONLY=put` runs the pairs whose name
//! contains `put`; `ROUNDS`, `OPS` change the defaults 21 and 2000).

use std::cell::Cell;
use std::collections::HashMap;
use std::hint::black_box;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ReturnConsumedCapacity,
    ReturnValue, ScalarAttributeType,
};
use criterion::{criterion_group, Criterion};
use jsonwebtoken::{encode, EncodingKey, Header};
use monotable::{
    authenticate, Conventions, CursorKey, Entity, JwtVerifier, Query, Repository, Table, TableName,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
struct Record {
    org_id: String,
    id: String,
    status: String,
    title: String,
}

struct Ctx {
    client: aws_sdk_dynamodb::Client,
    repo: Repository<Record>,
    key: RecordKey,
    item: Record,
    next: Cell<u64>,
}

fn setup(rt: &tokio::runtime::Runtime) -> Ctx {
    rt.block_on(async {
        let client = monotable::embedded::client();
        let s = |n: &str| {
            AttributeDefinition::builder()
                .attribute_name(n)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap()
        };
        let k = |n: &str, t| KeySchemaElement::builder().attribute_name(n).key_type(t).build().unwrap();
        client
            .create_table()
            .table_name("bench")
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(s("pk"))
            .attribute_definitions(s("sk"))
            .key_schema(k("pk", KeyType::Hash))
            .key_schema(k("sk", KeyType::Range))
            .send()
            .await
            .unwrap();
        let table = Table::builder(client.clone())
            .conventions(Conventions::lower())
            .name(TableName::resolved("bench"))
            .entity::<Record>()
            .cursor_key(CursorKey::new([1u8; 32]).unwrap())
            .build()
            .await
            .unwrap();
        let exp =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3600;
        let token = encode(
            &Header::default(),
            &serde_json::json!({"sub": "bench", "orgs": ["o"], "exp": exp}),
            &EncodingKey::from_secret(b"secret"),
        )
        .unwrap();
        let scope = authenticate(&JwtVerifier::hs256(b"secret"), &token).unwrap().org("o").unwrap();
        let repo = table.repo::<Record>(&scope).unwrap();
        for i in 0..50 {
            let r = Record {
                org_id: "o".into(),
                id: format!("r{i:02}"),
                status: "open".into(),
                title: format!("t{i}"),
            };
            repo.put(&r).await.unwrap();
        }
        let item = Record { org_id: "o".into(), id: "p1".into(), status: "open".into(), title: "t".into() };
        Ctx { client, repo, key: RecordKey { id: "r07".into() }, item, next: Cell::new(0) }
    })
}

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// What a raw program stores for `r`: its fields, the keys, the type and the updated stamp.
fn raw_item(r: &Record, now: &str) -> HashMap<String, AttributeValue> {
    let mut item: HashMap<String, AttributeValue> = serde_dynamo::to_item(r).unwrap();
    item.insert("pk".into(), s(&format!("ORG#{}", r.org_id)));
    item.insert("sk".into(), s(&format!("RECORD#{}", r.id)));
    item.insert("entityType".into(), s("Record"));
    item.insert("updatedOn".into(), s(now));
    item
}

#[derive(Clone, Copy, Debug)]
enum Op {
    RawGet,
    RawGetCc,
    LibGet,
    RawPut,
    RawUpsert,
    LibPut,
    RawCreate,
    LibCreate,
    RawQuery,
    LibQuery,
}

/// The measured pairs: name, raw baseline, library call.
const PAIRS: [(&str, Op, Op); 6] = [
    ("get", Op::RawGet, Op::LibGet),
    ("get: raw + capacity (diag)", Op::RawGet, Op::RawGetCc),
    ("put vs PutItem", Op::RawPut, Op::LibPut),
    ("put vs same UpdateItem", Op::RawUpsert, Op::LibPut),
    ("create vs cond. PutItem", Op::RawCreate, Op::LibCreate),
    ("query (20 items)", Op::RawQuery, Op::LibQuery),
];

async fn run(c: &Ctx, op: Op) {
    match op {
        Op::RawGet | Op::RawGetCc => {
            // `RawGetCc` also asks for consumed capacity and sends `ConsistentRead`, as the
            // library does: the part of the get overhead that is the request, not the library.
            let with = matches!(op, Op::RawGetCc);
            let out = c
                .client
                .get_item()
                .table_name("bench")
                .key("pk", s("ORG#o"))
                .key("sk", s("RECORD#r07"))
                .set_return_consumed_capacity(with.then_some(ReturnConsumedCapacity::Total))
                .set_consistent_read(with.then_some(false))
                .send()
                .await
                .unwrap();
            let r: Record = serde_dynamo::from_item(out.item.unwrap()).unwrap();
            black_box(r);
        }
        Op::LibGet => {
            black_box(c.repo.get(&c.key).await.unwrap());
        }
        Op::RawPut => {
            let item = raw_item(&c.item, &now());
            black_box(c.client.put_item().table_name("bench").set_item(Some(item)).send().await.unwrap());
        }
        Op::RawUpsert => {
            // The library's upsert written by hand: every attribute but the key SET, the
            // created stamps only if absent, the new item returned and decoded.
            let mut item = raw_item(&c.item, &now());
            let key = HashMap::from([
                ("pk".to_string(), item.remove("pk").unwrap()),
                ("sk".to_string(), item.remove("sk").unwrap()),
            ]);
            let by = s("bench");
            let now_v = item["updatedOn"].clone();
            let mut names = HashMap::new();
            let mut values = HashMap::new();
            let mut sets = Vec::new();
            for (i, (k, v)) in item.into_iter().enumerate() {
                sets.push(format!("#a{i} = :a{i}"));
                names.insert(format!("#a{i}"), k);
                values.insert(format!(":a{i}"), v);
            }
            sets.push("#c = if_not_exists(#c, :now)".into());
            sets.push("#cb = if_not_exists(#cb, :by)".into());
            names.insert("#c".into(), "createdOn".into());
            names.insert("#cb".into(), "createdBy".into());
            values.insert(":now".into(), now_v);
            values.insert(":by".into(), by);
            let out = c
                .client
                .update_item()
                .table_name("bench")
                .set_key(Some(key))
                .update_expression(format!("SET {}", sets.join(", ")))
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values(Some(values))
                .return_values(ReturnValue::AllNew)
                .send()
                .await
                .unwrap();
            let r: Record = serde_dynamo::from_item(out.attributes.unwrap()).unwrap();
            black_box(r);
        }
        Op::LibPut => {
            black_box(c.repo.put(&c.item).await.unwrap());
        }
        Op::RawCreate => {
            let n = c.next.get();
            c.next.set(n + 1);
            // New keys sort after the queried items (`RECORD#z…`), so query pages stay the same.
            let r = Record { id: format!("zraw{n}"), ..c.item.clone() };
            let now = now();
            let mut item = raw_item(&r, &now);
            item.insert("createdOn".into(), s(&now));
            item.insert("createdBy".into(), s("bench"));
            let out = c
                .client
                .put_item()
                .table_name("bench")
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(#pk)")
                .expression_attribute_names("#pk", "pk")
                .send()
                .await
                .unwrap();
            black_box((out, r));
        }
        Op::LibCreate => {
            let n = c.next.get();
            c.next.set(n + 1);
            let r = Record { id: format!("zlib{n}"), ..c.item.clone() };
            black_box(c.repo.create(&r).await.unwrap());
        }
        Op::RawQuery => {
            let out = c
                .client
                .query()
                .table_name("bench")
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :p)")
                .expression_attribute_names("#pk", "pk")
                .expression_attribute_names("#sk", "sk")
                .expression_attribute_values(":pk", s("ORG#o"))
                .expression_attribute_values(":p", s("RECORD#"))
                .limit(20)
                .send()
                .await
                .unwrap();
            let items: Vec<Record> = serde_dynamo::from_items(out.items.unwrap_or_default()).unwrap();
            black_box(items);
        }
        Op::LibQuery => {
            black_box(c.repo.query(Query::table().limit(20)).await.unwrap());
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn bench(cr: &mut Criterion) {
    let rt = runtime();
    let c = setup(&rt);
    let groups: [(&str, &[(&str, Op)]); 4] = [
        ("get", &[("raw", Op::RawGet), ("monotable", Op::LibGet)]),
        ("put", &[("raw_putitem", Op::RawPut), ("raw_updateitem", Op::RawUpsert), ("monotable", Op::LibPut)]),
        ("create", &[("raw_conditional_putitem", Op::RawCreate), ("monotable", Op::LibCreate)]),
        ("query", &[("raw", Op::RawQuery), ("monotable", Op::LibQuery)]),
    ];
    for (group, members) in groups {
        let mut g = cr.benchmark_group(group);
        for &(name, op) in members {
            g.bench_function(name, |b| b.to_async(&rt).iter(|| run(&c, op)));
        }
        g.finish();
    }
}

/// Nanoseconds this thread has spent on a CPU (`CLOCK_THREAD_CPUTIME_ID`). Not
/// `/proc/thread-self/schedstat`: its run time only advances at scheduler ticks and context
/// switches, so on a 250 Hz kernel a timed block was measured to the nearest 4 ms (2 µs per
/// operation at 2000 operations, 5% of a get).
#[cfg(target_os = "linux")]
fn cpu_ns() -> u64 {
    use std::os::raw::{c_int, c_long};
    #[repr(C)]
    struct Timespec {
        tv_sec: c_long,
        tv_nsec: c_long,
    }
    extern "C" {
        fn clock_gettime(clock: c_int, ts: *mut Timespec) -> c_int;
    }
    const CLOCK_THREAD_CPUTIME_ID: c_int = 3;
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec (glibc's layout on Linux) for the call.
    if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(not(target_os = "linux"))]
fn cpu_ns() -> u64 {
    0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// On-CPU ns per operation, raw and library alternating for `rounds` rounds of `ops` each.
fn cpu_mode() {
    let rt = runtime();
    let c = setup(&rt);
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(21);
    let ops: usize = std::env::var("OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let timed = |op: Op| -> f64 {
        let start = cpu_ns();
        rt.block_on(async {
            for _ in 0..ops {
                run(&c, op).await;
            }
        });
        cpu_ns().saturating_sub(start) as f64 / ops as f64
    };
    println!("on-CPU ns/op, median of {rounds} rounds x {ops} ops; ratio = median of per-round library/raw");
    println!("{:26} {:>10} {:>10} {:>8}", "pair", "raw", "library", "ratio");
    let only = std::env::var("ONLY").unwrap_or_default();
    for (name, raw, lib) in PAIRS.into_iter().filter(|(n, ..)| n.contains(only.as_str())) {
        timed(raw);
        timed(lib); // warm-up
        let (mut rs, mut ls, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let (r, l) = if round % 2 == 0 {
                let r = timed(raw);
                (r, timed(lib))
            } else {
                let l = timed(lib);
                (timed(raw), l)
            };
            rs.push(r);
            ls.push(l);
            ratios.push(l / r);
        }
        println!("{name:26} {:>10.0} {:>10.0} {:>8.3}", median(rs), median(ls), median(ratios));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3)).warm_up_time(std::time::Duration::from_secs(1));
    targets = bench
}

/// Runs one operation `OPS` times, for a profiler (`PROFILE_OP=LibQuery`, the `Op` name).
fn profile_mode(name: &str) {
    let rt = runtime();
    let c = setup(&rt);
    let ops: usize = std::env::var("OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(20000);
    let all = [
        Op::RawGet,
        Op::RawGetCc,
        Op::LibGet,
        Op::RawPut,
        Op::RawUpsert,
        Op::LibPut,
        Op::RawCreate,
        Op::LibCreate,
        Op::RawQuery,
        Op::LibQuery,
    ];
    let Some(op) = all.into_iter().find(|op| format!("{op:?}") == name) else {
        eprintln!("unknown op {name}");
        return;
    };
    rt.block_on(async {
        for _ in 0..ops {
            run(&c, op).await;
        }
    });
}

fn main() {
    if let Ok(op) = std::env::var("PROFILE_OP") {
        profile_mode(&op);
        return;
    }
    if std::env::var_os("OVERHEAD_CPU").is_some() {
        cpu_mode();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
