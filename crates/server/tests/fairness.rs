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

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn get_items_are_answered_while_a_big_batch_write_runs_on_one_worker() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let mut light = RawConnection::open(server.addr).await;
    assert_eq!(light.send(&post("DynamoDB_20120810.CreateTable", TABLE.as_bytes())).await.status, 200);
    let put = br#"{"TableName":"fair","Item":{"pk":{"S":"light"},"v":{"N":"1"}}}"#;
    assert_eq!(light.send(&post("DynamoDB_20120810.PutItem", put)).await.status, 200);

    let bodies: Vec<Vec<u8>> =
        (0..3).map(|r| post("DynamoDB_20120810.BatchWriteItem", &heavy_batch(r))).collect();
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
    assert!(answered >= 5, "only {answered} GetItems during {heavy_time:?} of heavy writes");
    assert!(
        worst < Duration::from_millis(50),
        "a GetItem waited {worst:?} while heavy batches ran ({heavy_time:?} for three)"
    );
    server.stop().await.expect("server stops");
}
