//! DynamoDB Streams over TCP through the real SDKs: `aws-sdk-dynamodb` writes to
//! `monotable_server` on 127.0.0.1:0 and `aws-sdk-dynamodbstreams` reads the records from the
//! same endpoint (`X-Amz-Target: DynamoDBStreams_20120810.*`), iterators and errors included.

mod common;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    StreamSpecification, StreamViewType,
};
use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Region};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use common::{sdk_client, TestServer};
use monotable_engine::Engine;
use monotable_server::Service;

fn streams_client(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .credentials_provider(aws_credential_types::Credentials::new("k", "s", None, None, "test"))
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

#[tokio::test]
async fn streams_sdk_reads_records_over_tcp_with_every_iterator_type() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let db = sdk_client(&server.endpoint(), "k", "s");
    let streams = streams_client(&server.endpoint());
    let created = db
        .create_table()
        .table_name("events")
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
                .stream_view_type(StreamViewType::KeysOnly)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let arn = created.table_description().and_then(|d| d.latest_stream_arn()).unwrap().to_owned();
    for i in 0..5 {
        db.put_item()
            .table_name("events")
            .item("id", AttributeValue::S(format!("e{i}")))
            .send()
            .await
            .unwrap();
    }
    let d = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let shard = d.stream_description().unwrap().shards()[0].shard_id().unwrap().to_owned();
    let iterator = |kind: ShardIteratorType, seq: Option<String>| {
        let streams = streams.clone();
        let (arn, shard) = (arn.clone(), shard.clone());
        async move {
            let out = streams
                .get_shard_iterator()
                .stream_arn(arn)
                .shard_id(shard)
                .shard_iterator_type(kind)
                .set_sequence_number(seq)
                .send()
                .await
                .unwrap();
            out.shard_iterator().unwrap().to_owned()
        }
    };
    // Pages of two, following NextShardIterator, read all five in order.
    let mut it = Some(iterator(ShardIteratorType::TrimHorizon, None).await);
    let mut seqs = Vec::new();
    while let Some(i) = it {
        let page = streams.get_records().shard_iterator(i).limit(2).send().await.unwrap();
        if page.records().is_empty() {
            break;
        }
        assert!(page.records().len() <= 2);
        seqs.extend(page.records().iter().filter_map(|r| r.dynamodb()?.sequence_number().map(str::to_owned)));
        it = page.next_shard_iterator().map(str::to_owned);
    }
    assert_eq!(seqs.len(), 5);
    let after = iterator(ShardIteratorType::AfterSequenceNumber, Some(seqs[3].clone())).await;
    let page = streams.get_records().shard_iterator(after).send().await.unwrap();
    assert_eq!(page.records().len(), 1);
    assert_eq!(page.records()[0].dynamodb().unwrap().sequence_number(), Some(seqs[4].as_str()));
    let at = iterator(ShardIteratorType::AtSequenceNumber, Some(seqs[0].clone())).await;
    assert_eq!(streams.get_records().shard_iterator(at).send().await.unwrap().records().len(), 5);
    let latest = iterator(ShardIteratorType::Latest, None).await;
    assert!(streams.get_records().shard_iterator(latest).send().await.unwrap().records().is_empty());

    let missing = streams.describe_stream().stream_arn(format!("{arn}0")).send().await.unwrap_err();
    assert!(missing.into_service_error().is_resource_not_found_exception());
    let too_many =
        streams.get_records().shard_iterator(seqs[0].clone()).limit(1001).send().await.unwrap_err();
    assert_eq!(
        aws_sdk_dynamodbstreams::error::ProvideErrorMetadata::code(&too_many.into_service_error()),
        Some("ValidationException")
    );
}
