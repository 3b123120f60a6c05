//! DynamoDB Streams through the real Rust SDKs in process: `aws-sdk-dynamodb` writes,
//! `aws-sdk-dynamodbstreams` reads the records, both on one embedded engine.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    StreamSpecification, StreamViewType,
};
use aws_sdk_dynamodbstreams::types::{OperationType, ShardIteratorType};
use monotable_embedded::{client_for, streams_client_for, Engine};

#[tokio::test]
async fn sdk_writes_are_read_back_as_stream_records() {
    let engine = Engine::new();
    let db = client_for(engine.clone());
    let streams = streams_client_for(engine);
    let created = db
        .create_table()
        .table_name("notes")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build().unwrap())
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let arn = created.table_description().and_then(|d| d.latest_stream_arn()).unwrap().to_owned();
    let id = AttributeValue::S("n1".into());
    db.put_item()
        .table_name("notes")
        .item("id", id.clone())
        .item("v", AttributeValue::N("1".into()))
        .send()
        .await
        .unwrap();
    db.put_item()
        .table_name("notes")
        .item("id", id.clone())
        .item("v", AttributeValue::N("2".into()))
        .send()
        .await
        .unwrap();
    db.delete_item().table_name("notes").key("id", id).send().await.unwrap();

    let listed = streams.list_streams().table_name("notes").send().await.unwrap();
    assert_eq!(listed.streams().len(), 1);
    assert_eq!(listed.streams()[0].stream_arn(), Some(arn.as_str()));
    let described = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let description = described.stream_description().unwrap();
    assert_eq!(description.stream_status().map(|s| s.as_str()), Some("ENABLED"));
    let shard = description.shards()[0].shard_id().unwrap().to_owned();
    let iterator = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(&shard)
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap();
    let records =
        streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
    let events: Vec<_> = records.records().iter().map(|r| r.event_name().cloned().unwrap()).collect();
    assert_eq!(events, [OperationType::Insert, OperationType::Modify, OperationType::Remove]);
    let modify = records.records()[1].dynamodb().unwrap();
    assert_eq!(
        modify.old_image().and_then(|i| i.get("v")),
        Some(&aws_sdk_dynamodbstreams::types::AttributeValue::N("1".into()))
    );
    assert_eq!(
        modify.new_image().and_then(|i| i.get("v")),
        Some(&aws_sdk_dynamodbstreams::types::AttributeValue::N("2".into()))
    );
    assert!(modify.approximate_creation_date_time().is_some());
    assert!(records.next_shard_iterator().is_some());

    let expired = streams.get_records().shard_iterator(format!("{arn}|1|1|1000")).send().await.unwrap_err();
    assert!(expired.into_service_error().is_expired_iterator_exception());
}
