//! One handler, two deliveries: the records a `ChangeConsumer` hands over and the records
//! decoded from the event Lambda would deliver for the same stream records are identical.

use aws_sdk_dynamodb::types::{AttributeValue, StreamViewType};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use monotable::changes::{
    BatchResponse, ChangeDecoder, ChangeKind, ChangeRecord, DynamoDbEvent, EventRecord, Image, ViewType,
};
use monotable::{Error, Update};

use super::both;
use super::setup::{env, Backend, Collect};
use crate::common::{Document, OrgItem, Record, RecordKey};

async fn the_same_handler_gets_identical_records_from_the_consumer_and_a_lambda_event(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewAndOldImages)).await;
    let repo = env.table.repo::<Record>(&env.scope()).unwrap();
    repo.create(&Record::new("org-1", "r1", "open")).await.unwrap();
    let key = RecordKey { id: "r1".into() };
    repo.update(&key, Update::new().set(Record::FIELDS.note, Some("n".to_string()))).await.unwrap();
    repo.delete(&key).await.unwrap();
    let docs = env.table.repo::<Document>(&env.scope()).unwrap();
    docs.create(&Document { org_id: "org-1".into(), id: "d1".into(), name: "x".into(), expires_at: Some(1) })
        .await
        .unwrap();
    let input = serde_json::from_value(serde_json::json!({
        "TableName": env.table.name(),
        "Key": {"pk": {"S": "ORG#org-1"}, "sk": {"S": "DOCUMENT#d1"}}
    }))
    .unwrap();
    env.engine.delete_expired_item(input).unwrap();

    // 1. The consumer.
    let mut consumer = env.consumer().build().await.unwrap();
    let mut from_consumer = Collect::default();
    assert_eq!(consumer.catch_up(&mut from_consumer).await.unwrap(), 5);

    // 2. The same stream records, read with the Streams SDK, as the JSON Lambda delivers.
    let arn = consumer.stream_arn().to_string();
    let described = env.streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let shard = described.stream_description().unwrap().shards()[0].shard_id().unwrap().to_string();
    let iterator = env
        .streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard)
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap();
    let page =
        env.streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
    let event = DynamoDbEvent {
        records: page.records().iter().map(|r| EventRecord::from_stream_record(&arn, r).unwrap()).collect(),
    };
    let json = serde_json::to_string(&event).unwrap();
    let wire: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(wire["Records"][0]["eventSource"], "aws:dynamodb");
    assert_eq!(wire["Records"][0]["eventName"], "INSERT");
    assert_eq!(wire["Records"][0]["eventSourceARN"], arn.as_str());
    assert_eq!(wire["Records"][0]["dynamodb"]["Keys"]["pk"]["S"], "ORG#org-1");
    assert!(wire["Records"][0]["dynamodb"]["ApproximateCreationDateTime"].is_number());
    assert_eq!(wire["Records"][4]["userIdentity"]["principalId"], "dynamodb.amazonaws.com");
    assert_eq!(wire["Records"][4]["userIdentity"]["type"], "Service");
    let delivered: DynamoDbEvent = serde_json::from_str(&json).unwrap();
    let mut from_lambda = Collect::default();
    let decoder = ChangeDecoder::<OrgItem>::for_table(&env.table);
    let response = decoder.handle_event(&delivered, &mut from_lambda).await;
    assert_eq!(response, BatchResponse::default());
    assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));

    assert_eq!(from_lambda.0, from_consumer.0);
    let kinds: Vec<_> = from_lambda.0.iter().map(|c| (c.kind, c.by_ttl)).collect();
    assert_eq!(
        kinds,
        [
            (ChangeKind::Insert, false),
            (ChangeKind::Modify, false),
            (ChangeKind::Remove, false),
            (ChangeKind::Insert, false),
            (ChangeKind::Remove, true)
        ]
    );
    assert!(
        matches!(from_lambda.0[1].new_entity(), Some(OrgItem::Record(r)) if r.note.as_deref() == Some("n"))
    );
}
both!(the_same_handler_gets_identical_records_from_the_consumer_and_a_lambda_event);

/// The example event of "Using AWS Lambda with Amazon DynamoDB", section "Example event"
/// (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html), with the `userIdentity` the
/// Streams API reference gives TTL deletions (`Record`: "Records[].userIdentity.type
/// \"Service\"", "Records[].userIdentity.principalId \"dynamodb.amazonaws.com\"").
const DOCUMENTED_EVENT: &str = r#"{
  "Records": [
    {
      "eventID": "1",
      "eventVersion": "1.0",
      "dynamodb": {
        "Keys": {"Id": {"N": "101"}},
        "NewImage": {"Message": {"S": "New item!"}, "Id": {"N": "101"}},
        "StreamViewType": "NEW_AND_OLD_IMAGES",
        "SequenceNumber": "111",
        "SizeBytes": 26
      },
      "awsRegion": "us-west-2",
      "eventName": "INSERT",
      "eventSourceARN": "eventsourcearn",
      "eventSource": "aws:dynamodb"
    },
    {
      "eventID": "2",
      "eventVersion": "1.0",
      "dynamodb": {
        "OldImage": {"Message": {"S": "New item!"}, "Id": {"N": "101"}},
        "SequenceNumber": "222",
        "Keys": {"Id": {"N": "101"}},
        "SizeBytes": 59,
        "NewImage": {"Message": {"S": "This item has changed"}, "Id": {"N": "101"}},
        "StreamViewType": "NEW_AND_OLD_IMAGES"
      },
      "awsRegion": "us-west-2",
      "eventName": "MODIFY",
      "eventSourceARN": "sourcearn",
      "eventSource": "aws:dynamodb"
    },
    {
      "eventID": "3",
      "eventVersion": "1.0",
      "dynamodb": {
        "Keys": {"Id": {"N": "101"}},
        "SizeBytes": 38,
        "SequenceNumber": "333",
        "OldImage": {"Message": {"S": "This item has changed"}, "Id": {"N": "101"}},
        "StreamViewType": "NEW_AND_OLD_IMAGES",
        "ApproximateCreationDateTime": 1428537600
      },
      "awsRegion": "us-west-2",
      "eventName": "REMOVE",
      "eventSourceARN": "sourcearn",
      "eventSource": "aws:dynamodb",
      "userIdentity": {"principalId": "dynamodb.amazonaws.com", "type": "Service"}
    }
  ]
}"#;

#[test]
fn the_documented_lambda_event_decodes_with_foreign_items_reported() {
    let event: DynamoDbEvent = serde_json::from_str(DOCUMENTED_EVENT).unwrap();
    let records =
        ChangeDecoder::<OrgItem>::new(&monotable::Conventions::lower()).decode_event(&event).unwrap();
    let kinds: Vec<_> = records.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ChangeKind::Insert, ChangeKind::Modify, ChangeKind::Remove]);
    let seqs: Vec<_> = records.iter().map(|c| c.sequence_number.as_str()).collect();
    assert_eq!(seqs, ["111", "222", "333"]);
    let first: &ChangeRecord<OrgItem> = &records[0];
    assert_eq!(first.keys.get("Id"), Some(&AttributeValue::N("101".into())));
    assert_eq!(first.view_type, Some(ViewType::NewAndOldImages));
    assert_eq!(first.size_bytes, Some(26));
    assert!(!first.member && first.entity_type.is_none());
    assert!(matches!(&first.new, Some(Image::Foreign { entity_type: None, item })
        if item.get("Message") == Some(&AttributeValue::S("New item!".into()))));
    assert_eq!(records[1].stream_arn, "sourcearn");
    assert!(!records[1].by_ttl && records[2].by_ttl);
    assert_eq!(
        records[2].approximate_creation_time,
        Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_428_537_600))
    );
    assert_eq!(records[2].new, None);
}

#[tokio::test]
async fn a_failed_lambda_record_is_reported_for_retry_by_sequence_number() {
    let event: DynamoDbEvent = serde_json::from_str(DOCUMENTED_EVENT).unwrap();
    let decoder = ChangeDecoder::<OrgItem>::new(&monotable::Conventions::lower());
    let mut calls = 0;
    let mut fail_second = |c: ChangeRecord<OrgItem>| {
        calls += 1;
        async move {
            if c.kind == ChangeKind::Modify {
                Err("boom")
            } else {
                Ok(())
            }
        }
    };
    let response = decoder.handle_event(&event, &mut fail_second).await;
    assert_eq!(calls, 2, "records after the failure are left to Lambda's retry");
    // Lambda's partial batch response (services-ddb-batchfailurereporting.html).
    assert_eq!(
        serde_json::to_value(&response).unwrap(),
        serde_json::json!({"batchItemFailures": [{"itemIdentifier": "222"}]})
    );
}

#[test]
fn a_record_with_an_unknown_event_name_is_a_clear_error() {
    let mut event: serde_json::Value = serde_json::from_str(DOCUMENTED_EVENT).unwrap();
    event["Records"][1]["eventName"] = "UPSERT".into();
    let event: DynamoDbEvent = serde_json::from_value(event).unwrap();
    let err =
        ChangeDecoder::<OrgItem>::new(&monotable::Conventions::lower()).decode_event(&event).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidChangeRecord { sequence_number: Some(s), message } if s == "222" && message.contains("UPSERT")),
        "{err:?}"
    );
    let bad_value =
        r#"{"Records":[{"eventName":"INSERT","dynamodb":{"SequenceNumber":"1","Keys":{"k":{"X":"1"}}}}]}"#;
    assert!(serde_json::from_str::<DynamoDbEvent>(bad_value).is_err(), "an unknown type tag is refused");
}
