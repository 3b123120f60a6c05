//! One heavy request never stalls light ones: with a single async worker, GetItems on other
//! connections are answered promptly while large BatchWriteItems are being processed.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};

use common::{post, RawConnection, TestServer};
use monotable_engine::Engine;
use monotable_server::Service;

const TABLE: &str = r#"{"TableName":"fair","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
const GET: &[u8] = br#"{"TableName":"fair","Key":{"pk":{"S":"light"}}}"#;

/// A BatchWriteItem of 25 items of about 380 KB each: a 9.5 MB body, well within DynamoDB's
/// limits, that takes the engine a long time (in a debug build, hundreds of milliseconds).
fn heavy_batch(round: usize) -> Vec<u8> {
    let filler = "x".repeat(380_000);
    let items: Vec<String> = (0..25)
        .map(|i| {
            format!(r#"{{"PutRequest":{{"Item":{{"pk":{{"S":"heavy-{round}-{i}"}},"data":{{"S":"{filler}"}}}}}}}}"#)
        })
        .collect();
    format!(r#"{{"RequestItems":{{"fair":[{}]}}}}"#, items.join(",")).into_bytes()
}

/// What one run saw: the slowest GetItem, how many were answered, how long the batches took.
struct Run {
    worst: Duration,
    answered: usize,
    heavy_time: Duration,
}

/// Sends three heavy batches on one connection and GetItems on another until they are done.
async fn gets_during_heavy_batches(server: &TestServer, light: &mut RawConnection, attempt: usize) -> Run {
    let bodies: Vec<Vec<u8>> =
        (0..3).map(|r| post("DynamoDB_20120810.BatchWriteItem", &heavy_batch(attempt * 3 + r))).collect();
    let addr = server.addr;
    let heavy = tokio::spawn(async move {
        let mut conn = RawConnection::open(addr).await;
        let started = Instant::now();
        for body in &bodies {
            let response = conn.send(body).await;
            assert_eq!(response.status, 200, "{:?}", String::from_utf8_lossy(&response.body));
        }
        started.elapsed()
    });

    let mut worst = Duration::ZERO;
    let mut answered = 0;
    while !heavy.is_finished() {
        let started = Instant::now();
        let response = light.send(&post("DynamoDB_20120810.GetItem", GET)).await;
        assert_eq!(response.status, 200);
        worst = worst.max(started.elapsed());
        answered += 1;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let heavy_time = heavy.await.expect("heavy task");
    Run { worst, answered, heavy_time }
}

/// The bound is the no-stall issue's: no GetItem waits 50 ms or more. A GetItem stuck behind a
/// batch waits for most of one (hundreds of milliseconds) in every run; a shared, loaded
/// machine can stall any process for a moment once. So up to three runs are made, and one
/// run within the bound passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn get_items_are_answered_while_a_big_batch_write_runs_on_one_worker() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let mut light = RawConnection::open(server.addr).await;
    assert_eq!(light.send(&post("DynamoDB_20120810.CreateTable", TABLE.as_bytes())).await.status, 200);
    let put = br#"{"TableName":"fair","Item":{"pk":{"S":"light"},"v":{"N":"1"}}}"#;
    assert_eq!(light.send(&post("DynamoDB_20120810.PutItem", put)).await.status, 200);

    let mut seen = Vec::new();
    for attempt in 0..3 {
        let run = gets_during_heavy_batches(&server, &mut light, attempt).await;
        assert!(
            run.answered >= 5,
            "only {} GetItems during {:?} of heavy writes",
            run.answered,
            run.heavy_time
        );
        seen.push(format!("{:?} (batches {:?})", run.worst, run.heavy_time));
        if run.worst < Duration::from_millis(50) {
            server.stop().await.expect("server stops");
            return;
        }
    }
    panic!("a GetItem waited 50 ms or more in every run while heavy batches ran: {}", seen.join(", "));
}

const QTABLE: &str = r#"{"TableName":"qfair","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}"#;

fn query(partition: &str) -> Vec<u8> {
    format!(r#"{{"TableName":"qfair","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{{":p":{{"S":"{partition}"}}}}}}"#)
        .into_bytes()
}

/// A Query runs on the worker only within a 64 KB read budget. One that goes past it (here a
/// partition of 12,000 items of about 100 bytes, 1.2 MB) is run again on the blocking pool and
/// answered exactly as in process: a whole 1 MB page, not a page cut at the budget. GetItems
/// sent meanwhile stay prompt (the same three-run rule as above): a whole page of small items
/// read on the worker would hold it for tens of milliseconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_query_past_the_inline_budget_is_answered_whole_and_stalls_no_get() {
    let service = Service::new(Engine::new());
    let server = TestServer::start(service.clone()).await;
    let mut light = RawConnection::open(server.addr).await;
    assert_eq!(light.send(&post("DynamoDB_20120810.CreateTable", QTABLE.as_bytes())).await.status, 200);
    let filler = "q".repeat(80);
    for batch in 0..480 {
        let items: Vec<String> = (0..25)
            .map(|i| {
                format!(
                    r#"{{"PutRequest":{{"Item":{{"pk":{{"S":"big"}},"sk":{{"S":"{:05}"}},"data":{{"S":"{filler}"}}}}}}}}"#,
                    batch * 25 + i
                )
            })
            .collect();
        let body = format!(r#"{{"RequestItems":{{"qfair":[{}]}}}}"#, items.join(","));
        assert_eq!(light.send(&post("DynamoDB_20120810.BatchWriteItem", body.as_bytes())).await.status, 200);
    }
    let small = br#"{"TableName":"qfair","Item":{"pk":{"S":"small"},"sk":{"S":"a"}}}"#;
    assert_eq!(light.send(&post("DynamoDB_20120810.PutItem", small)).await.status, 200);

    for partition in ["big", "small"] {
        let over_tcp = light.send(&post("DynamoDB_20120810.Query", &query(partition))).await;
        assert_eq!(over_tcp.status, 200);
        let (status, in_process) =
            common::handle_in_process(&service, "DynamoDB_20120810.Query", &query(partition));
        assert_eq!(status, 200);
        let in_process: serde_json::Value = serde_json::from_slice(&in_process).expect("json");
        assert_eq!(over_tcp.json(), in_process, "{partition}");
    }
    let page = light.send(&post("DynamoDB_20120810.Query", &query("big"))).await.json();
    let count = page["Count"].as_u64().expect("count");
    assert!((9000..12000).contains(&count), "a 1 MB page of 100-byte items, not a 64 KB one: {count}");
    assert!(page["LastEvaluatedKey"].is_object());

    let mut seen = Vec::new();
    for _ in 0..3 {
        // Two connections query at once, so that the worker and the two pool threads share the
        // two cores of a small machine without a GetItem waiting for its turn on one.
        let addr = server.addr;
        let heavy = tokio::spawn(async move {
            let mut set = tokio::task::JoinSet::new();
            for _ in 0..2 {
                set.spawn(async move {
                    let mut conn = RawConnection::open(addr).await;
                    for _ in 0..3 {
                        assert_eq!(
                            conn.send(&post("DynamoDB_20120810.Query", &query("big"))).await.status,
                            200
                        );
                    }
                });
            }
            while let Some(done) = set.join_next().await {
                done.expect("queries");
            }
        });
        let mut worst = Duration::ZERO;
        while !heavy.is_finished() {
            let started = Instant::now();
            assert_eq!(
                light
                    .send(&post(
                        "DynamoDB_20120810.GetItem",
                        br#"{"TableName":"qfair","Key":{"pk":{"S":"small"},"sk":{"S":"a"}}}"#
                    ))
                    .await
                    .status,
                200
            );
            worst = worst.max(started.elapsed());
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        heavy.await.expect("queries");
        seen.push(format!("{worst:?}"));
        if worst < Duration::from_millis(50) {
            server.stop().await.expect("server stops");
            return;
        }
    }
    panic!("a GetItem waited 50 ms or more in every run while big Queries ran: {}", seen.join(", "));
}

/// A condition of `terms` calls of `contains` on the list `l`, joined by `joiner`.
fn contains_many(terms: usize, value: &str, joiner: &str) -> String {
    vec![format!("contains(l, {value})"); terms].join(joiner)
}

/// A conditional write runs on the worker only while its condition, weighed against the item
/// it read, stays within the inline evaluation budget. A DeleteItem whose condition calls
/// `contains` 150 times on a 40,000-element list (the hostile shape, within DynamoDB's 300
/// operators and functions: tens of milliseconds of CPU on the worker before this budget) is
/// abandoned before its condition is evaluated and run again on
/// the blocking pool, where it answers as it would have: a false condition fails, a true one
/// deletes the item once and returns it. A cheap condition stays on the worker.
#[tokio::test]
async fn a_costly_condition_leaves_the_worker_before_it_is_evaluated_and_answers_the_same() {
    use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

    let (log, _guard) = common::capture("monotable_server::fairness");
    let server = TestServer::start(Service::new(Engine::new())).await;
    let client = common::sdk_client(&server.endpoint(), "AKID", "secret");
    common::hash_table(&client, "costly").send().await.unwrap();
    let list_of = |n: usize| (0..n).map(|i| AttributeValue::N(i.to_string())).collect::<Vec<_>>();
    let list = list_of(40_000);
    for pk in ["big", "small"] {
        client
            .put_item()
            .table_name("costly")
            .item("pk", AttributeValue::S(pk.into()))
            .item("l", AttributeValue::L(list_of(if pk == "big" { 40_000 } else { 10 })))
            .send()
            .await
            .unwrap();
    }
    let moved =
        || log.text().lines().filter(|l| l.contains("DeleteItem") && l.contains("blocking pool")).count();
    assert_eq!(moved(), 0);

    let delete = |pk: &str, condition: String, value: &str| {
        client
            .delete_item()
            .table_name("costly")
            .key("pk", AttributeValue::S(pk.into()))
            .condition_expression(condition)
            .expression_attribute_values(":v", AttributeValue::N(value.into()))
            .return_values(ReturnValue::AllOld)
    };
    // False: 150 searches of the whole list, none finds -1.
    let error = delete("big", contains_many(150, ":v", " OR "), "-1").send().await.unwrap_err();
    assert!(error.into_service_error().is_conditional_check_failed_exception());
    assert_eq!(moved(), 1, "{}", log.text());
    // True: the item is deleted, exactly once, by the run on the pool.
    let deleted = delete("big", contains_many(150, ":v", " AND "), "39999").send().await.unwrap();
    assert_eq!(deleted.attributes().and_then(|a| a.get("l")), Some(&AttributeValue::L(list)));
    assert_eq!(moved(), 2, "{}", log.text());
    let gone = client.get_item().table_name("costly").key("pk", AttributeValue::S("big".into())).send().await;
    assert!(gone.unwrap().item().is_none());

    // The same condition on a ten-element list is cheap: it stays on the worker.
    let deleted = delete("small", contains_many(150, ":v", " AND "), "9").send().await.unwrap();
    assert_eq!(deleted.attributes().and_then(|a| a.get("l")), Some(&AttributeValue::L(list_of(10))));
    assert_eq!(moved(), 2, "{}", log.text());
    server.stop().await.expect("server stops");
}

/// With a data directory, deleted items stay in the store as entries a range walk passes
/// without visiting (fjall keeps a delete until compaction drops it); a Query of a partition
/// of 2,000 deleted items walks them all to answer nothing. Deleted entries count against the
/// inline read budget like small items, so that Query leaves the worker (here 2,000 × 64
/// bytes against 64 KiB) and answers, on the pool, what it answers in process: no items. A
/// Query of a table without deletes stays on the worker.
#[tokio::test]
async fn a_query_over_deleted_items_of_a_data_directory_leaves_the_worker() {
    use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest};

    let (log, _guard) = common::capture("monotable_server::fairness");
    let dir = tempfile::tempdir().unwrap();
    let store = monotable_store::open(dir.path(), monotable_store::SyncPolicy::None).expect("open the store");
    let service = Service::new(Engine::with_storage(store).expect("engine"));
    let server = TestServer::start(service.clone()).await;
    let mut raw = RawConnection::open(server.addr).await;
    for table in ["qfair", "kept"] {
        let create = QTABLE.replace("qfair", table);
        assert_eq!(raw.send(&post("DynamoDB_20120810.CreateTable", create.as_bytes())).await.status, 200);
    }
    let client = common::sdk_client(&server.endpoint(), "AKID", "secret");
    let key = |i: usize| {
        HashMap::from([
            ("pk".to_string(), AttributeValue::S("gone".into())),
            ("sk".to_string(), AttributeValue::S(format!("{i:05}"))),
        ])
    };
    for table in ["qfair", "kept"] {
        for batch in 0..80 {
            let puts = (batch * 25..batch * 25 + 25).map(|i| {
                let item = PutRequest::builder().set_item(Some(key(i))).build().unwrap();
                WriteRequest::builder().put_request(item).build()
            });
            client.batch_write_item().request_items(table, puts.collect()).send().await.unwrap();
        }
    }
    let moved = || log.text().lines().filter(|l| l.contains("Query") && l.contains("blocking pool")).count();
    let query = |table: &str| String::from_utf8(query("gone")).unwrap().replace("qfair", table).into_bytes();
    assert_eq!(raw.send(&post("DynamoDB_20120810.Query", &query("qfair"))).await.json()["Count"], 2000);
    assert_eq!(moved(), 0, "2,000 items of 13 bytes are read on the worker: {}", log.text());
    for batch in 0..80 {
        let deletes = (batch * 25..batch * 25 + 25).map(|i| {
            let delete = DeleteRequest::builder().set_key(Some(key(i))).build().unwrap();
            WriteRequest::builder().delete_request(delete).build()
        });
        client.batch_write_item().request_items("qfair", deletes.collect()).send().await.unwrap();
    }

    let over_tcp = raw.send(&post("DynamoDB_20120810.Query", &query("qfair"))).await;
    assert_eq!(over_tcp.status, 200);
    assert_eq!(moved(), 1, "{}", log.text());
    let (status, in_process) =
        common::handle_in_process(&service, "DynamoDB_20120810.Query", &query("qfair"));
    assert_eq!(status, 200);
    let in_process: serde_json::Value = serde_json::from_slice(&in_process).unwrap();
    assert_eq!(over_tcp.json(), in_process);
    assert_eq!(over_tcp.json()["Count"], 0);
    assert_eq!(over_tcp.json()["Items"], serde_json::json!([]));

    let kept = raw.send(&post("DynamoDB_20120810.Query", &query("kept"))).await;
    assert_eq!(kept.json()["Count"], 2000);
    assert_eq!(moved(), 1, "a table without deletes is read on the worker: {}", log.text());
    server.stop().await.expect("server stops");
}
