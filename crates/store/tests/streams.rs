//! DynamoDB Streams on the durable store: records and streams survive a reopen, and sequence
//! numbers go on increasing after it.

use monotable_engine::Engine;
use monotable_store::{open, SyncPolicy};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

fn req<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("request")
}

fn put(engine: &Engine, pk: &str) {
    engine.put_item(req(json!({"TableName": "str", "Item": {"pk": {"S": pk}}}))).expect("put");
}

fn sequence_numbers(engine: &Engine, arn: &str) -> Vec<String> {
    let d = engine.describe_stream(req(json!({"StreamArn": arn}))).expect("describe");
    let shard = d
        .stream_description
        .and_then(|d| d.shards)
        .and_then(|s| s.into_iter().next())
        .and_then(|s| s.shard_id);
    let it = engine
        .get_shard_iterator(req(
            json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
        ))
        .expect("iterator");
    let out = engine.get_records(req(json!({"ShardIterator": it.shard_iterator}))).expect("records");
    out.records.unwrap_or_default().into_iter().filter_map(|r| r.dynamodb?.sequence_number).collect()
}

/// Creates table `str` with a KEYS_ONLY stream; returns the stream's ARN.
fn create_stream_table(engine: &Engine) -> String {
    let out = engine
        .create_table(req(json!({
            "TableName": "str",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}
        })))
        .expect("create");
    out.table_description.and_then(|d| d.latest_stream_arn).expect("arn")
}

#[test]
fn stream_records_survive_a_reopen_and_sequence_numbers_keep_increasing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let arn = {
        let engine =
            Engine::with_storage(open(dir.path(), SyncPolicy::Always).expect("open")).expect("engine");
        let arn = create_stream_table(&engine);
        put(&engine, "a");
        put(&engine, "b");
        arn
    };
    let engine = Engine::with_storage(open(dir.path(), SyncPolicy::Always).expect("reopen")).expect("engine");
    let d = engine.describe_table(req(json!({"TableName": "str"}))).expect("describe").table.expect("table");
    assert_eq!(d.latest_stream_arn.as_deref(), Some(arn.as_str()));
    assert_eq!(sequence_numbers(&engine, &arn).len(), 2);
    put(&engine, "c");
    let seqs = sequence_numbers(&engine, &arn);
    assert_eq!(seqs.len(), 3);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
}

#[test]
fn a_deleted_tables_stream_survives_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let arn = {
        let engine =
            Engine::with_storage(open(dir.path(), SyncPolicy::Always).expect("open")).expect("engine");
        let arn = create_stream_table(&engine);
        put(&engine, "a");
        engine.delete_table(req(json!({"TableName": "str"}))).expect("delete");
        arn
    };
    let engine = Engine::with_storage(open(dir.path(), SyncPolicy::Always).expect("reopen")).expect("engine");
    assert!(engine.describe_table(req(json!({"TableName": "str"}))).is_err(), "the table stays deleted");
    assert_eq!(sequence_numbers(&engine, &arn).len(), 1);
    let d = engine.describe_stream(req(json!({"StreamArn": arn}))).expect("describe");
    assert_eq!(d.stream_description.and_then(|d| d.stream_status).as_deref(), Some("DISABLED"));
}
