//! The embedded client on a durable engine: a write is answered only after the group commit
//! that covers it, and the wait blocks no thread, so other requests on the same single-thread
//! runtime are answered meanwhile.

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use monotable_engine::Engine;
use monotable_store::{open, SyncPolicy};

#[tokio::test(flavor = "current_thread")]
async fn a_write_waits_for_its_group_commit_without_blocking_the_runtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Every flush first waits a second to gather writes.
    let store =
        open(dir.path(), SyncPolicy::GroupCommit { max_delay: Duration::from_secs(1) }).expect("open");
    let client = monotable_embedded::client_for(Engine::with_storage(store).expect("engine"));
    client
        .create_table()
        .table_name("durable")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build().unwrap())
        .send()
        .await
        .expect("create");

    let started = Instant::now();
    let writer = client.clone();
    let put = tokio::spawn(async move {
        writer
            .put_item()
            .table_name("durable")
            .item("id", AttributeValue::S("w".into()))
            .send()
            .await
            .expect("put");
        started.elapsed()
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    client
        .get_item()
        .table_name("durable")
        .key("id", AttributeValue::S("other".into()))
        .send()
        .await
        .expect("get");
    let read_at = started.elapsed();
    let put_at = put.await.expect("put task");
    assert!(put_at >= Duration::from_secs(1), "acknowledged after {put_at:?}, before its flush");
    assert!(read_at < put_at, "the read ({read_at:?}) waited for the write ({put_at:?})");
}
