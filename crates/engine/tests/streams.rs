//! DynamoDB Streams against the real engine: records per change, view types, the control
//! plane (CreateTable, UpdateTable, DescribeTable) and the Streams API's iterators and errors.

mod common;

use common::*;
use monotable_engine::*;
use serde_json::{json, Value};

fn stream_table(e: &Engine, view: &str) -> String {
    let out = e
        .create_table(req(json!({
            "TableName": "str",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": view}
        })))
        .unwrap();
    js(&out)["TableDescription"]["LatestStreamArn"].as_str().unwrap().to_owned()
}

fn put_s(e: &Engine, item: Value) {
    e.put_item(req(json!({"TableName": "str", "Item": item}))).unwrap();
}

/// Every record of the stream from TRIM_HORIZON, as JSON.
fn read_all(e: &Engine, arn: &str) -> Vec<Value> {
    let d = js(&e.describe_stream(req(json!({"StreamArn": arn}))).unwrap());
    let shard = d["StreamDescription"]["Shards"][0]["ShardId"].as_str().unwrap().to_owned();
    let it = e
        .get_shard_iterator(req(
            json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
        ))
        .unwrap();
    let mut iterator = it.shard_iterator;
    let mut out = Vec::new();
    while let Some(i) = iterator {
        let r = e.get_records(req(json!({"ShardIterator": i, "Limit": 2}))).unwrap();
        let page = js(&r)["Records"].as_array().cloned().unwrap_or_default();
        if page.is_empty() {
            break;
        }
        out.extend(page);
        iterator = r.next_shard_iterator;
    }
    out
}

#[test]
fn each_change_yields_one_record_in_order_with_dynamodb_shape() {
    let e = Engine::new();
    let arn = stream_table(&e, "NEW_AND_OLD_IMAGES");
    assert!(arn.starts_with("arn:aws:dynamodb:us-east-1:000000000000:table/str/stream/20"), "{arn}");
    put_s(&e, json!({"pk": {"S": "a"}, "v": {"N": "1"}}));
    e.update_item(req(json!({
        "TableName": "str", "Key": {"pk": {"S": "a"}},
        "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "2"}}
    })))
    .unwrap();
    e.delete_item(req(json!({"TableName": "str", "Key": {"pk": {"S": "a"}}}))).unwrap();
    let records = read_all(&e, &arn);
    let names: Vec<&str> = records.iter().map(|r| r["eventName"].as_str().unwrap()).collect();
    assert_eq!(names, ["INSERT", "MODIFY", "REMOVE"]);
    let r = &records[1];
    assert_eq!(r["eventVersion"], "1.1");
    assert_eq!(r["eventSource"], "aws:dynamodb");
    assert_eq!(r["awsRegion"], "us-east-1");
    assert_eq!(r["eventID"].as_str().unwrap().len(), 32);
    assert_eq!(r["dynamodb"]["Keys"], json!({"pk": {"S": "a"}}));
    assert_eq!(r["dynamodb"]["OldImage"], json!({"pk": {"S": "a"}, "v": {"N": "1"}}));
    assert_eq!(r["dynamodb"]["NewImage"], json!({"pk": {"S": "a"}, "v": {"N": "2"}}));
    assert_eq!(r["dynamodb"]["StreamViewType"], "NEW_AND_OLD_IMAGES");
    assert!(r["dynamodb"]["SizeBytes"].as_i64().unwrap() > 0);
    assert!(r["dynamodb"]["ApproximateCreationDateTime"].as_f64().unwrap() > 1.6e9);
    assert!(r.get("userIdentity").is_none());
    assert!(records[0]["dynamodb"].get("OldImage").is_none());
    assert!(records[2]["dynamodb"].get("NewImage").is_none());
    let seqs: Vec<&str> = records.iter().map(|r| r["dynamodb"]["SequenceNumber"].as_str().unwrap()).collect();
    assert!(seqs.iter().all(|s| s.len() >= 21 && s.bytes().all(|b| b.is_ascii_digit())));
    assert!(seqs.windows(2).all(|w| w[0].len() == w[1].len() && w[0] < w[1]));
}

#[test]
fn writes_that_change_nothing_have_no_record() {
    // "If you perform a PutItem or UpdateItem operation that does not change any data in an
    // item, DynamoDB Streams does not write a stream record for that operation."
    // (Developer Guide, Change data capture for DynamoDB Streams.)
    let e = Engine::new();
    let arn = stream_table(&e, "KEYS_ONLY");
    put_s(&e, json!({"pk": {"S": "a"}, "v": {"N": "1"}}));
    put_s(&e, json!({"pk": {"S": "a"}, "v": {"N": "1"}}));
    e.delete_item(req(json!({"TableName": "str", "Key": {"pk": {"S": "missing"}}}))).unwrap();
    let failed = e.put_item(req(json!({
        "TableName": "str", "Item": {"pk": {"S": "a"}, "v": {"N": "9"}},
        "ConditionExpression": "attribute_not_exists(pk)"
    })));
    assert!(failed.is_err());
    let records = read_all(&e, &arn);
    assert_eq!(records.len(), 1);
    assert_eq!(
        records[0]["dynamodb"],
        json!({
            "ApproximateCreationDateTime": records[0]["dynamodb"]["ApproximateCreationDateTime"],
            "Keys": {"pk": {"S": "a"}},
            "SequenceNumber": records[0]["dynamodb"]["SequenceNumber"],
            "SizeBytes": records[0]["dynamodb"]["SizeBytes"],
            "StreamViewType": "KEYS_ONLY"
        })
    );
}

#[test]
fn transactions_yield_one_record_per_member_and_ttl_deletes_name_the_service() {
    let e = Engine::new();
    let arn = stream_table(&e, "NEW_IMAGE");
    e.transact_write_items(req(json!({"TransactItems": [
        {"Put": {"TableName": "str", "Item": {"pk": {"S": "x"}}}},
        {"Put": {"TableName": "str", "Item": {"pk": {"S": "y"}}}},
        {"ConditionCheck": {"TableName": "str", "Key": {"pk": {"S": "z"}}, "ConditionExpression": "attribute_not_exists(pk)"}}
    ]})))
    .unwrap();
    e.delete_expired_item(req(json!({"TableName": "str", "Key": {"pk": {"S": "x"}}}))).unwrap();
    e.delete_item(req(json!({"TableName": "str", "Key": {"pk": {"S": "y"}}}))).unwrap();
    let records = read_all(&e, &arn);
    assert_eq!(records.len(), 4);
    assert_eq!(records[0]["dynamodb"]["NewImage"], json!({"pk": {"S": "x"}}));
    // Records[].userIdentity of a TTL deletion (Streams API reference, Record).
    assert_eq!(
        records[2]["userIdentity"],
        json!({"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"})
    );
    assert!(records[3].get("userIdentity").is_none());
}

#[test]
fn update_table_enables_disables_and_refuses_as_dynamodb_does() {
    // Texts from aws-controllers-k8s' DynamoDB findings (DDB-TABLE-050), measured on DynamoDB.
    let e = engine_with_table();
    let d = js(&e.describe_table(req(json!({"TableName": "tbl"}))).unwrap());
    assert!(d["Table"].get("LatestStreamArn").is_none());
    let update = |spec: Value| e.update_table(req(json!({"TableName": "tbl", "StreamSpecification": spec})));
    let (kind, msg) = err(update(json!({"StreamEnabled": false})));
    assert_eq!(
        (kind.as_str(), msg.as_str()),
        ("ValidationException", "Table has no stream to disable: TableName: tbl")
    );
    let (_, msg) = err(update(json!({"StreamEnabled": true})));
    assert_eq!(msg, "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required");
    let first = js(&update(json!({"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"})).unwrap());
    let first_arn = first["TableDescription"]["LatestStreamArn"].as_str().unwrap().to_owned();
    let label = first["TableDescription"]["LatestStreamLabel"].as_str().unwrap().to_owned();
    assert!(first_arn.ends_with(&format!("/stream/{label}")));
    assert_eq!(
        first["TableDescription"]["StreamSpecification"],
        json!({"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"})
    );
    for view in ["NEW_IMAGE", "KEYS_ONLY"] {
        let (_, msg) = err(update(json!({"StreamEnabled": true, "StreamViewType": view})));
        assert_eq!(msg, "Table already has an enabled stream: TableName: tbl");
    }
    let (_, msg) = err(update(json!({"StreamEnabled": false, "StreamViewType": "KEYS_ONLY"})));
    assert_eq!(msg, "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified");
    let off = js(&update(json!({"StreamEnabled": false})).unwrap());
    assert!(off["TableDescription"].get("StreamSpecification").is_none());
    assert_eq!(off["TableDescription"]["LatestStreamArn"], first_arn.as_str());
    let again = js(&update(json!({"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"})).unwrap());
    assert_ne!(again["TableDescription"]["LatestStreamArn"], first_arn.as_str());
    // The disabled stream stays readable and listed, as DISABLED.
    let old = js(&e.describe_stream(req(json!({"StreamArn": first_arn}))).unwrap());
    assert_eq!(old["StreamDescription"]["StreamStatus"], "DISABLED");
    let listed = js(&e.list_streams(req(json!({"TableName": "tbl"}))).unwrap());
    assert_eq!(listed["Streams"].as_array().unwrap().len(), 2);
}

#[test]
fn a_disabled_stream_keeps_its_records_and_its_shard_closes() {
    let e = Engine::new();
    let arn = stream_table(&e, "KEYS_ONLY");
    put_s(&e, json!({"pk": {"S": "a"}}));
    e.update_table(req(json!({"TableName": "str", "StreamSpecification": {"StreamEnabled": false}})))
        .unwrap();
    put_s(&e, json!({"pk": {"S": "b"}}));
    let records = read_all(&e, &arn);
    assert_eq!(records.len(), 1);
    let d = js(&e.describe_stream(req(json!({"StreamArn": arn}))).unwrap());
    let range = &d["StreamDescription"]["Shards"][0]["SequenceNumberRange"];
    assert_eq!(range["StartingSequenceNumber"], records[0]["dynamodb"]["SequenceNumber"]);
    assert_eq!(range["EndingSequenceNumber"], records[0]["dynamodb"]["SequenceNumber"]);
    let shard = d["StreamDescription"]["Shards"][0]["ShardId"].as_str().unwrap();
    let it = e
        .get_shard_iterator(req(
            json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
        ))
        .unwrap();
    let r = e.get_records(req(json!({"ShardIterator": it.shard_iterator}))).unwrap();
    assert_eq!(r.records.unwrap().len(), 1);
    assert!(r.next_shard_iterator.is_none(), "a closed shard read to its end has no next iterator");
}

#[test]
fn iterator_types_start_where_dynamodb_says() {
    let e = Engine::new();
    let arn = stream_table(&e, "KEYS_ONLY");
    for k in ["a", "b", "c"] {
        put_s(&e, json!({"pk": {"S": k}}));
    }
    let all = read_all(&e, &arn);
    let seq = |i: usize| all[i]["dynamodb"]["SequenceNumber"].as_str().unwrap().to_owned();
    let d = js(&e.describe_stream(req(json!({"StreamArn": arn}))).unwrap());
    let shard = d["StreamDescription"]["Shards"][0]["ShardId"].as_str().unwrap().to_owned();
    assert!(shard.len() >= 28 && shard.len() <= 65);
    let first_key = |kind: &str, seq: Option<String>| {
        let it = e
            .get_shard_iterator(req(json!({
                "StreamArn": arn, "ShardId": shard, "ShardIteratorType": kind, "SequenceNumber": seq
            })))
            .unwrap();
        let r = js(&e.get_records(req(json!({"ShardIterator": it.shard_iterator}))).unwrap());
        r["Records"].as_array().unwrap().first().map(|r| r["dynamodb"]["Keys"]["pk"]["S"].clone())
    };
    assert_eq!(first_key("TRIM_HORIZON", None), Some(json!("a")));
    assert_eq!(first_key("AT_SEQUENCE_NUMBER", Some(seq(1))), Some(json!("b")));
    assert_eq!(first_key("AFTER_SEQUENCE_NUMBER", Some(seq(1))), Some(json!("c")));
    assert_eq!(first_key("LATEST", None), None);
    // LATEST then a write: the write is read.
    let it = e
        .get_shard_iterator(req(json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "LATEST"})))
        .unwrap();
    put_s(&e, json!({"pk": {"S": "d"}}));
    let r = js(&e.get_records(req(json!({"ShardIterator": it.shard_iterator}))).unwrap());
    assert_eq!(r["Records"][0]["dynamodb"]["Keys"]["pk"]["S"], "d");
}

#[test]
fn streams_api_errors() {
    let e = Engine::new();
    let arn = stream_table(&e, "KEYS_ONLY");
    let (kind, _) = err(e.describe_stream(req(json!({"StreamArn": format!("{arn}x")}))));
    assert_eq!(kind, "ResourceNotFoundException");
    let (kind, _) = err(e.get_shard_iterator(req(json!({
        "StreamArn": arn, "ShardId": "shardId-00000000000000000000-00000000", "ShardIteratorType": "LATEST"
    }))));
    assert_eq!(kind, "ResourceNotFoundException");
    let (kind, msg) = err(e.get_records(req(json!({"ShardIterator": "x", "Limit": 1001}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(msg, "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000");
    let (kind, _) = err(e.get_records(req(json!({"ShardIterator": "garbage"}))));
    assert_eq!(kind, "ValidationException");
    // An iterator issued more than 15 minutes ago has expired.
    let old = format!("{arn}|1|1|{}", 1_000_000u64);
    let (kind, msg) = err(e.get_records(req(json!({"ShardIterator": old}))));
    assert_eq!(kind, "ExpiredIteratorException");
    assert!(msg.starts_with("Iterator expired."), "{msg}");
    let (kind, _) = err(e.list_streams(req(json!({"TableName": "nope"}))));
    assert_eq!(kind, "ResourceNotFoundException");
}

/// "If you have DynamoDB Streams enabled on the table, then the corresponding stream on that
/// table goes into the DISABLED state, and the stream is automatically deleted after 24 hours"
/// (API Reference, DeleteTable): until then it is listed and its records are read as usual.
#[test]
fn a_deleted_tables_stream_stays_readable_and_disabled() {
    let e = Engine::new();
    let arn = stream_table(&e, "NEW_IMAGE");
    put_s(&e, json!({"pk": {"S": "a"}}));
    put_s(&e, json!({"pk": {"S": "b"}}));
    e.delete_table(req(json!({"TableName": "str"}))).unwrap();

    let listed = js(&e.list_streams(req(json!({}))).unwrap());
    assert_eq!(listed["Streams"][0]["StreamArn"], arn.as_str());
    assert_eq!(listed["Streams"][0]["TableName"], "str");
    let by_name = js(&e.list_streams(req(json!({"TableName": "str"}))).unwrap());
    assert_eq!(by_name["Streams"].as_array().unwrap().len(), 1);

    let d = js(&e.describe_stream(req(json!({"StreamArn": arn}))).unwrap());
    assert_eq!(d["StreamDescription"]["StreamStatus"], "DISABLED");
    assert_eq!(d["StreamDescription"]["TableName"], "str");
    assert_eq!(d["StreamDescription"]["KeySchema"][0]["AttributeName"], "pk");
    let records = read_all(&e, &arn);
    let keys: Vec<&str> =
        records.iter().map(|r| r["dynamodb"]["Keys"]["pk"]["S"].as_str().unwrap()).collect();
    assert_eq!(keys, ["a", "b"]);
    let range = &d["StreamDescription"]["Shards"][0]["SequenceNumberRange"];
    assert_eq!(range["EndingSequenceNumber"], records[1]["dynamodb"]["SequenceNumber"]);

    // A table re-created under the same name has a stream of its own beside the old one.
    let new_arn = stream_table(&e, "KEYS_ONLY");
    assert_ne!(new_arn, arn);
    put_s(&e, json!({"pk": {"S": "c"}}));
    assert_eq!(read_all(&e, &new_arn).len(), 1);
    assert_eq!(read_all(&e, &arn).len(), 2);
    let both = js(&e.list_streams(req(json!({"TableName": "str"}))).unwrap());
    let arns: Vec<&str> =
        both["Streams"].as_array().unwrap().iter().map(|s| s["StreamArn"].as_str().unwrap()).collect();
    assert_eq!(arns, [arn.as_str(), new_arn.as_str()], "ordered by creation");
}

#[test]
fn a_deleted_table_without_a_stream_leaves_nothing_to_list() {
    let e = Engine::new();
    e.create_table(req(json!({
        "TableName": "plain",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"
    })))
    .unwrap();
    e.delete_table(req(json!({"TableName": "plain"}))).unwrap();
    let listed = js(&e.list_streams(req(json!({}))).unwrap());
    assert_eq!(listed["Streams"], json!([]));
    let err = e.list_streams(req(json!({"TableName": "plain"}))).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ResourceNotFound);
}

#[test]
fn event_ids_are_unique_and_the_same_on_every_read() {
    let e = Engine::new();
    let arn = stream_table(&e, "NEW_IMAGE");
    for i in 0..5 {
        put_s(&e, json!({"pk": {"S": format!("k{i}")}, "v": {"N": "1"}}));
    }
    let first = read_all(&e, &arn);
    let again = read_all(&e, &arn);
    let ids = |rs: &[Value]| rs.iter().map(|r| r["eventID"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(ids(&first), ids(&again));
    let mut distinct = ids(&first);
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 5);
}

#[test]
fn an_image_in_the_log_keeps_the_item_as_it_was_when_written() {
    let e = Engine::new();
    let arn = stream_table(&e, "NEW_IMAGE");
    put_s(&e, json!({"pk": {"S": "a"}, "v": {"N": "1"}}));
    put_s(&e, json!({"pk": {"S": "a"}, "v": {"N": "2"}}));
    let records = read_all(&e, &arn);
    assert_eq!(records[0]["dynamodb"]["NewImage"]["v"], json!({"N": "1"}));
    assert_eq!(records[1]["dynamodb"]["NewImage"]["v"], json!({"N": "2"}));
}
