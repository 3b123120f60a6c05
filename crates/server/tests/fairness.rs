//! One heavy request never stalls light ones: with a single async worker, GetItems on other
//! connections are answered promptly while large BatchWriteItems are being processed.

mod common;

use std::time::{Duration, Instant};

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
