//! Behaviour where monotable diverged from DynamoDB, through the real SDK on the in-process
//! engine: set member order, table definitions after index changes, and results and metadata
//! of reads, writes and the control plane. Each case names its source.

mod common;

use std::fmt::Debug;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, CreateGlobalSecondaryIndexAction,
    DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement,
    KeyType, Projection, ProjectionType, ReturnValue, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use common::failure;

/// Awaits each call and checks that it fails with ValidationException and its message,
/// reporting every mismatch at once.
async fn expect_validation_messages<T, E, R, F>(cases: impl IntoIterator<Item = (F, &'static str)>)
where
    T: Debug,
    E: ProvideErrorMetadata + Debug,
    R: Debug,
    F: std::future::Future<Output = Result<T, SdkError<E, R>>>,
{
    let mut wrong = Vec::new();
    for (call, expected) in cases {
        let (kind, message) = failure(call.await);
        if kind != "ValidationException" || message != expected {
            wrong.push((expected, kind, message));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn def(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .expect("attribute definition")
}

fn hash(name: &str) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(KeyType::Hash).build().expect("key element")
}

fn all() -> Projection {
    Projection::builder().projection_type(ProjectionType::All).build()
}

fn gsi(name: &str, key: &str) -> GlobalSecondaryIndex {
    GlobalSecondaryIndex::builder()
        .index_name(name)
        .key_schema(hash(key))
        .projection(all())
        .build()
        .expect("gsi")
}

fn create_gsi(name: &str, key: &str) -> GlobalSecondaryIndexUpdate {
    let action = CreateGlobalSecondaryIndexAction::builder()
        .index_name(name)
        .key_schema(hash(key))
        .projection(all())
        .build()
        .expect("create action");
    GlobalSecondaryIndexUpdate::builder().create(action).build()
}

fn delete_gsi(name: &str) -> GlobalSecondaryIndexUpdate {
    let action = DeleteGlobalSecondaryIndexAction::builder().index_name(name).build().expect("delete action");
    GlobalSecondaryIndexUpdate::builder().delete(action).build()
}

/// A client with the on-demand table `tbl` keyed by `pk` and one global index (all attributes
/// projected) per `(name, key)` of `gsis`.
async fn table_with_gsis(gsis: &[(&str, &str)]) -> Client {
    let client = monotable_embedded::client();
    let mut create = client
        .create_table()
        .table_name("tbl")
        .attribute_definitions(def("pk"))
        .key_schema(hash("pk"))
        .billing_mode(BillingMode::PayPerRequest);
    for (name, key) in gsis {
        create = create.attribute_definitions(def(key)).global_secondary_indexes(gsi(name, key));
    }
    create.send().await.expect("create table");
    client
}

/// A CreateTable of `tbl`, keyed by `pk`, with `index` on `g`, for the caller to give its
/// billing and send.
fn with_index_on_g(
    client: &Client,
    index: GlobalSecondaryIndex,
) -> aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder {
    client
        .create_table()
        .table_name("tbl")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("g"))
        .key_schema(hash("pk"))
        .global_secondary_indexes(index)
}

/// Provisioned throughput of `read` and `write` units.
fn pt(read: i64, write: i64) -> aws_sdk_dynamodb::types::ProvisionedThroughput {
    aws_sdk_dynamodb::types::ProvisionedThroughput::builder()
        .read_capacity_units(read)
        .write_capacity_units(write)
        .build()
        .expect("throughput")
}

/// The names in a table's `AttributeDefinitions`, as DescribeTable lists them.
async fn defined(client: &Client, table: &str) -> Vec<String> {
    let out = client.describe_table().table_name(table).send().await.expect("describe table");
    let t = out.table().expect("table");
    t.attribute_definitions().iter().map(|a| a.attribute_name().to_owned()).collect()
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}

/// A client with the on-demand table `tbl` keyed by `pk`.
async fn table() -> Client {
    let client = monotable_embedded::client();
    common::hash_table(&client, "tbl").send().await.expect("create table");
    client
}

// ---------------------------------------------------------------------------------------------
// Set member order. DynamoDB leaves it unspecified (developer guide, "Supported data types and
// naming rules in Amazon DynamoDB", Sets: "the order of the values within a set is not
// preserved"); where the service leaves something unspecified monotable matches DynamoDB
// Local, which returns string and binary sets in byte order and number sets in numeric order.

#[tokio::test]
async fn sets_come_back_in_byte_or_numeric_order_whatever_order_they_were_written_in() {
    let client = table().await;
    let nested = AttributeValue::M([("phones".to_owned(), AttributeValue::Ss(strings(&["b", "a"])))].into());
    client
        .put_item()
        .table_name("tbl")
        .item("pk", s("k"))
        .item("phones", AttributeValue::Ss(strings(&["555-555-5555", "555-345-2222"])))
        .item("ns", AttributeValue::Ns(strings(&["10", "9", "-1", "2.5", "-20"])))
        .item(
            "bs",
            AttributeValue::Bs(vec![Blob::new(vec![0xff]), Blob::new(vec![1, 0]), Blob::new(vec![1])]),
        )
        .item("m", nested)
        .item("l", AttributeValue::L(vec![AttributeValue::Ns(strings(&["3", "1"]))]))
        .send()
        .await
        .expect("put item");
    let item = client.get_item().table_name("tbl").key("pk", s("k")).send().await.expect("get item");
    let item = item.item().expect("the item");
    assert_eq!(item["phones"], AttributeValue::Ss(strings(&["555-345-2222", "555-555-5555"])));
    assert_eq!(item["ns"], AttributeValue::Ns(strings(&["-20", "-1", "2.5", "9", "10"])));
    assert_eq!(
        item["bs"],
        AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![1, 0]), Blob::new(vec![0xff])])
    );
    let AttributeValue::M(m) = &item["m"] else { panic!("m is a map: {item:?}") };
    assert_eq!(m["phones"], AttributeValue::Ss(strings(&["a", "b"])));
    assert_eq!(item["l"], AttributeValue::L(vec![AttributeValue::Ns(strings(&["1", "3"]))]));

    // A projection and a Scan read the same stored order.
    let projected = client
        .get_item()
        .table_name("tbl")
        .key("pk", s("k"))
        .projection_expression("ns, m.phones")
        .send()
        .await
        .expect("projected get");
    let projected = projected.item().expect("the item");
    assert_eq!(projected["ns"], AttributeValue::Ns(strings(&["-20", "-1", "2.5", "9", "10"])));
    let scanned = client.scan().table_name("tbl").send().await.expect("scan");
    assert_eq!(scanned.items()[0]["phones"], AttributeValue::Ss(strings(&["555-345-2222", "555-555-5555"])));
}

#[tokio::test]
async fn add_and_set_keep_sets_in_order_in_the_item_and_the_returned_values() {
    let client = table().await;
    client
        .put_item()
        .table_name("tbl")
        .item("pk", s("k"))
        .item("tags", AttributeValue::Ss(strings(&["m", "c"])))
        .send()
        .await
        .expect("put item");
    let out = client
        .update_item()
        .table_name("tbl")
        .key("pk", s("k"))
        .update_expression("ADD tags :t, nums :n SET dup = :c")
        .expression_attribute_values(":t", AttributeValue::Ss(strings(&["z", "a", "d"])))
        .expression_attribute_values(":n", AttributeValue::Ns(strings(&["100", "11", "2"])))
        .expression_attribute_values(":c", AttributeValue::Ss(strings(&["y", "x"])))
        .return_values(ReturnValue::AllNew)
        .send()
        .await
        .expect("update item");
    let returned = out.attributes().expect("ALL_NEW");
    assert_eq!(returned["tags"], AttributeValue::Ss(strings(&["a", "c", "d", "m", "z"])));
    assert_eq!(returned["nums"], AttributeValue::Ns(strings(&["2", "11", "100"])));
    assert_eq!(returned["dup"], AttributeValue::Ss(strings(&["x", "y"])));
    let item = client.get_item().table_name("tbl").key("pk", s("k")).send().await.expect("get item");
    let item = item.item().expect("the item");
    assert_eq!(item["tags"], AttributeValue::Ss(strings(&["a", "c", "d", "m", "z"])));
    assert_eq!(item["nums"], AttributeValue::Ns(strings(&["2", "11", "100"])));
    assert_eq!(item["dup"], AttributeValue::Ss(strings(&["x", "y"])));
}

// ---------------------------------------------------------------------------------------------
// Attribute definitions follow the keys. Source: DynamoDB characterised in eu-west-2, recorded
// in dynoxide issue 131 ("UpdateTable: AttributeDefinitions not reconciled to used key
// attributes"), and ack-api-quirks DDB-TABLE-151 (verified 2026-10-08): deleting a GSI drops
// its key attributes from AttributeDefinitions, and a definition an index creation does not
// use is dropped without an error; DDB-TABLE-125: DescribeTable lists them sorted by name.

#[tokio::test]
async fn deleting_an_index_drops_the_definitions_only_it_used_so_the_described_table_can_be_created_again() {
    let client = table_with_gsis(&[("by_g", "g"), ("by_h", "h")]).await;
    client
        .update_table()
        .table_name("tbl")
        .global_secondary_index_updates(delete_gsi("by_g"))
        .send()
        .await
        .expect("delete index");
    assert_eq!(defined(&client, "tbl").await, ["h", "pk"]);

    client
        .update_table()
        .table_name("tbl")
        .attribute_definitions(def("x"))
        .attribute_definitions(def("unused"))
        .global_secondary_index_updates(create_gsi("by_x", "x"))
        .send()
        .await
        .expect("an unused definition beside a new index is no error");
    assert_eq!(defined(&client, "tbl").await, ["h", "pk", "x"]);

    // The description is a valid CreateTable request again.
    let described = client.describe_table().table_name("tbl").send().await.expect("describe");
    let t = described.table().expect("table");
    let gsis: Vec<GlobalSecondaryIndex> = t
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            GlobalSecondaryIndex::builder()
                .index_name(g.index_name().unwrap_or_default())
                .set_key_schema(Some(g.key_schema().to_vec()))
                .set_projection(g.projection().cloned())
                .build()
                .expect("gsi")
        })
        .collect();
    client
        .create_table()
        .table_name("copy")
        .set_attribute_definitions(Some(t.attribute_definitions().to_vec()))
        .set_key_schema(Some(t.key_schema().to_vec()))
        .set_global_secondary_indexes(Some(gsis))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("the described definition creates a table");
}

// Source: DynamoDB's answer to a CloudFormation stack with an index, recorded in
// aws-cloudformation/cfn-lint issue 1037 ("Some AttributeDefinitions are not used.
// AttributeDefinitions: [my-string, my-int, my-hash], keys used: [my-hash, my-string]"), and
// moto's `test_create_table_with_redundant_attributes` (the same text with an index, the count
// wording without one).
#[tokio::test]
async fn unused_definitions_are_listed_when_the_table_has_indexes() {
    let client = monotable_embedded::client();
    let (kind, message) = failure(
        client
            .create_table()
            .table_name("tbl")
            .attribute_definitions(def("my-string"))
            .attribute_definitions(def("my-int"))
            .attribute_definitions(def("my-hash"))
            .key_schema(hash("my-hash"))
            .global_secondary_indexes(gsi("by_string", "my-string"))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await,
    );
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        message,
        "One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [my-string, my-int, my-hash], keys used: [my-hash, my-string]"
    );
    let (_, message) = failure(
        client
            .create_table()
            .table_name("tbl")
            .attribute_definitions(def("pk"))
            .attribute_definitions(def("x"))
            .key_schema(hash("pk"))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await,
    );
    assert_eq!(
        message,
        "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"
    );
}

// ---------------------------------------------------------------------------------------------
// Results and metadata.

// Source: the aws CLI's `delete-table` output recorded against DynamoDB in eu-central-1 on
// 2025-04-22 (richplastow/basic-dynamodb-lambda-api, README step 2-4): TableName,
// TableStatus, ProvisionedThroughput, TableSizeBytes, ItemCount, TableArn, TableId and
// DeletionProtectionEnabled, nothing else.
#[tokio::test]
async fn delete_table_answers_with_the_short_description() {
    let client = table_with_gsis(&[("by_g", "g")]).await;
    client.put_item().table_name("tbl").item("pk", s("k")).send().await.expect("put item");
    let out = client.delete_table().table_name("tbl").send().await.expect("delete table");
    let d = out.table_description().expect("description");
    assert_eq!(d.table_name(), Some("tbl"));
    assert_eq!(d.table_status().map(|s| s.as_str()), Some("DELETING"));
    assert_eq!(d.item_count(), Some(1));
    assert!(d.table_size_bytes().is_some());
    assert!(d.provisioned_throughput().is_some());
    assert!(d.table_arn().is_some_and(|a| a.ends_with(":table/tbl")));
    assert!(d.table_id().is_some());
    assert_eq!(d.deletion_protection_enabled(), Some(false));
    assert!(d.key_schema().is_empty() && d.attribute_definitions().is_empty());
    assert!(d.global_secondary_indexes().is_empty());
    assert!(d.creation_date_time().is_none() && d.billing_mode_summary().is_none());
}

// Source: API reference, Scan `FilterExpression`: "A FilterExpression is applied after the
// items have already been read; the process of filtering does not consume any additional read
// capacity units", so the capacity is that of the items read. Four items of about 3,000 bytes
// are about 12,000 bytes: three 4 KB units, 1.5 eventually consistent.
#[tokio::test]
async fn a_filtered_scan_consumes_capacity_for_the_data_it_read() {
    let client = table().await;
    for i in 0..4 {
        client
            .put_item()
            .table_name("tbl")
            .item("pk", s(&format!("k{i}")))
            .item("pad", s(&"x".repeat(2_990)))
            .send()
            .await
            .expect("put item");
    }
    let out = client
        .scan()
        .table_name("tbl")
        .filter_expression("attribute_exists(nothing)")
        .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("scan");
    assert_eq!((out.count(), out.scanned_count()), (0, 4));
    assert_eq!(out.consumed_capacity().and_then(|c| c.capacity_units()), Some(1.5));
}

// Source: API reference, CancellationReason: "If no error occurred for an item, the Code is
// None" ("None" as the code's text; DynamoDB's message lists it, e.g. "[None,
// ConditionalCheckFailed]", API_TransactWriteItems).
#[tokio::test]
async fn a_cancelled_transaction_gives_code_none_for_the_actions_that_did_not_fail() {
    use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
    use aws_sdk_dynamodb::types::{ConditionCheck, Put, TransactWriteItem};
    let client = table().await;
    let put = Put::builder().table_name("tbl").item("pk", s("a")).build().expect("put");
    let check = ConditionCheck::builder()
        .table_name("tbl")
        .key("pk", s("missing"))
        .condition_expression("attribute_exists(pk)")
        .build()
        .expect("check");
    let err = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(put).build())
        .transact_items(TransactWriteItem::builder().condition_check(check).build())
        .send()
        .await
        .expect_err("the check fails");
    let Some(TransactWriteItemsError::TransactionCanceledException(e)) = err.as_service_error() else {
        panic!("a cancellation: {err:?}")
    };
    let codes: Vec<Option<&str>> = e.cancellation_reasons().iter().map(|r| r.code()).collect();
    assert_eq!(codes, [Some("None"), Some("ConditionalCheckFailed")]);
    assert!(e.message().is_some_and(|m| m.ends_with("[None, ConditionalCheckFailed]")), "{e:?}");
}

// Source: dynalite's test suite, written against DynamoDB (test/listTagsOfResource.js,
// test/tagResource.js, test/untagResource.js): a resource the caller has no permission on is
// AccessDeniedException "User: arn:aws:iam::<account>:<user> is not authorized to perform:
// dynamodb:ListTagsOfResource on resource: <arn>"; another account's table is such a resource.
#[tokio::test]
async fn tag_operations_on_another_accounts_table_are_access_denied() {
    let client = table().await;
    let foreign = "arn:aws:dynamodb:us-east-1:123456789012:table/tbl";
    let denied = |action: &str| {
        format!("User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:{action} on resource: {foreign}")
    };
    let (kind, message) = failure(client.list_tags_of_resource().resource_arn(foreign).send().await);
    assert_eq!((kind.as_str(), message), ("AccessDeniedException", denied("ListTagsOfResource")));
    let tag = aws_sdk_dynamodb::types::Tag::builder().key("k").value("v").build().expect("tag");
    let (kind, message) = failure(client.tag_resource().resource_arn(foreign).tags(tag).send().await);
    assert_eq!((kind.as_str(), message), ("AccessDeniedException", denied("TagResource")));
    let (kind, message) = failure(client.untag_resource().resource_arn(foreign).tag_keys("k").send().await);
    assert_eq!((kind.as_str(), message), ("AccessDeniedException", denied("UntagResource")));
}

// Source: erlcloud pull request 502 (DynamoDB tagging support): "TagResource and UntagResource
// both return *empty* HTTP responses"; the API reference lists no response elements for either.
#[tokio::test]
async fn tag_resource_and_untag_resource_answer_with_an_empty_body() {
    let engine = monotable_engine::Engine::new();
    let client = monotable_embedded::client_for(engine.clone());
    common::hash_table(&client, "tbl").send().await.expect("create table");
    let server = common::TestServer::start(monotable_server::Service::new(engine)).await;
    let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl";
    let tag = format!(r#"{{"ResourceArn":"{arn}","Tags":[{{"Key":"k","Value":"v"}}]}}"#);
    let untag = format!(r#"{{"ResourceArn":"{arn}","TagKeys":["k"]}}"#);
    for (target, body) in [("DynamoDB_20120810.TagResource", tag), ("DynamoDB_20120810.UntagResource", untag)]
    {
        let response = common::send_raw(server.addr, &common::post(target, body.as_bytes())).await;
        assert_eq!(response.status, 200, "{target}: {:?}", String::from_utf8_lossy(&response.body));
        assert!(response.body.is_empty(), "{target}: {:?}", String::from_utf8_lossy(&response.body));
    }
    // The SDK accepts the empty answers.
    let tag = aws_sdk_dynamodb::types::Tag::builder().key("k").value("v").build().expect("tag");
    client.tag_resource().resource_arn(arn).tags(tag).send().await.expect("tag resource");
    client.untag_resource().resource_arn(arn).tag_keys("k").send().await.expect("untag resource");
    server.stop().await.expect("server stops");
}

// ---------------------------------------------------------------------------------------------
// DynamoDB Streams. Source for the behaviour: ScyllaDB's test/alternator/test_streams.py, run
// against DynamoDB (where DynamoDB Local differs, the tests say so).

/// An engine with the table `events` streaming KEYS_ONLY, a streams client, and the stream's
/// ARN and only shard.
async fn stream() -> (aws_sdk_dynamodbstreams::Client, String, String) {
    use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
    let engine = monotable_engine::Engine::new();
    let client = monotable_embedded::client_for(engine.clone());
    let spec = StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::KeysOnly)
        .build()
        .expect("stream specification");
    let created =
        common::hash_table(&client, "events").stream_specification(spec).send().await.expect("create table");
    let arn = created.table_description().and_then(|d| d.latest_stream_arn()).expect("stream arn").to_owned();
    let streams = monotable_embedded::streams_client_for(engine);
    let described = streams.describe_stream().stream_arn(&arn).send().await.expect("describe stream");
    let shard =
        described.stream_description().expect("description").shards()[0].shard_id().expect("shard id");
    (streams, arn.clone(), shard.to_owned())
}

#[tokio::test]
async fn describe_stream_lists_no_children_of_the_only_shard_and_pages_by_shard_id() {
    use aws_sdk_dynamodbstreams::types::{ShardFilter, ShardFilterType};
    let (streams, arn, shard) = stream().await;
    let filter = ShardFilter::builder().r#type(ShardFilterType::ChildShards).shard_id(&shard).build();
    let out = streams.describe_stream().stream_arn(&arn).shard_filter(filter).send().await.expect("children");
    assert!(out.stream_description().expect("description").shards().is_empty(), "{out:?}");
    // `test_describe_stream_with_nonexistent_last_shard`: an id past every shard lists none,
    // rather than starting over.
    let out = streams
        .describe_stream()
        .stream_arn(&arn)
        .exclusive_start_shard_id("zzzzzzzzzzzzzzzzzzzzzzzzsfasdgagadfadfgagkjsdfsfsdjfjks")
        .send()
        .await
        .expect("describe stream");
    assert!(out.stream_description().expect("description").shards().is_empty(), "{out:?}");
    // A filter of another type is refused (the shard-filter tests, `Type: 'foo'`).
    let filter = ShardFilter::builder().r#type(ShardFilterType::from("foo")).shard_id(&shard).build();
    let (kind, message) =
        failure(streams.describe_stream().stream_arn(&arn).shard_filter(filter).send().await);
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        message,
        "1 validation error detected: Value 'foo' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]"
    );
}

// `test_describe_nonexistent_stream`, `test_get_shard_iterator_for_nonexistent_stream` and
// `test_list_streams_with_nonexistent_last_stream`: ValidationException for a string that is
// no stream ARN; the AWS SDK for JavaScript's integration test records the text ("Invalid
// StreamArn" for `fake-stream`).
#[tokio::test]
async fn a_malformed_stream_arn_is_a_validation_error() {
    use aws_sdk_dynamodbstreams::types::ShardIteratorType;
    let (streams, arn, shard) = stream().await;
    let bad = "sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf";
    let (kind, message) = failure(streams.describe_stream().stream_arn(bad).send().await);
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", "Invalid StreamArn"));
    let (kind, _) = failure(
        streams
            .get_shard_iterator()
            .stream_arn(bad)
            .shard_id(&shard)
            .shard_iterator_type(ShardIteratorType::Latest)
            .send()
            .await,
    );
    assert_eq!(kind, "ValidationException");
    let (kind, _) = failure(streams.list_streams().exclusive_start_stream_arn(bad).send().await);
    assert_eq!(kind, "ValidationException");
    // A well-formed ARN of no stream is still not found.
    let missing = arn.replace("/events/", "/missing/");
    let (kind, _) = failure(streams.describe_stream().stream_arn(missing).send().await);
    assert_eq!(kind, "ResourceNotFoundException");
}

// `test_get_shard_iterator`: on a new stream's shard, with no record yet, both sequence-number
// iterator types accept the shard's StartingSequenceNumber.
#[tokio::test]
async fn an_empty_shards_starting_sequence_number_gives_an_iterator() {
    use aws_sdk_dynamodbstreams::types::ShardIteratorType;
    let (streams, arn, shard) = stream().await;
    let described = streams.describe_stream().stream_arn(&arn).send().await.expect("describe stream");
    let start = described.stream_description().expect("description").shards()[0]
        .sequence_number_range()
        .and_then(|r| r.starting_sequence_number())
        .expect("starting sequence number")
        .to_owned();
    for kind in [ShardIteratorType::AtSequenceNumber, ShardIteratorType::AfterSequenceNumber] {
        let out = streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(&shard)
            .shard_iterator_type(kind.clone())
            .sequence_number(&start)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{kind:?}: {e:?}"));
        let iterator = out.shard_iterator().expect("iterator");
        let records = streams.get_records().shard_iterator(iterator).send().await.expect("get records");
        assert!(records.records().is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// UpdateTable and CreateTable validation.

// Source: ack-api-quirks DDB-TABLE-164 (verified 2026-10-08: "Re-sending identical
// ProvisionedThroughput ... is ValidationException 'will not change' (also
// BillingMode=PROVISIONED + unchanged PT)"); the full text from dynalite's test suite
// (test/updateTable.js) with the closing sentence dynoxide verified against DynamoDB.
#[tokio::test]
async fn update_table_to_the_throughput_it_has_is_refused() {
    let client = monotable_embedded::client();
    common::hash_table(&client, "tbl")
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(pt(5, 5))
        .send()
        .await
        .expect("create table");
    let expected = "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.";
    let (kind, message) =
        failure(client.update_table().table_name("tbl").provisioned_throughput(pt(5, 5)).send().await);
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", expected));
    let (_, message) = failure(
        client
            .update_table()
            .table_name("tbl")
            .billing_mode(BillingMode::Provisioned)
            .provisioned_throughput(pt(5, 5))
            .send()
            .await,
    );
    assert_eq!(message, expected);
    // A partial change passes.
    client.update_table().table_name("tbl").provisioned_throughput(pt(5, 6)).send().await.expect("a change");
}

// Source: ack-api-quirks DDB-TABLE-160 and DDB-TABLE-162 (verified 2026-10-08): an empty
// GlobalSecondaryIndexUpdates entry, and a Create without AttributeDefinitions (even when the
// table already defines the key attribute); DDB-TABLE-162 and paritysuite/dynamodb-conformance
// issue 78 (eu-west-2): a Create whose AttributeDefinitions redeclare an attribute with another
// type is accepted and the attribute keeps its type.
#[tokio::test]
async fn gsi_updates_need_an_action_and_definitions_and_keep_existing_types() {
    let client = table().await;
    let (kind, message) = failure(
        client
            .update_table()
            .table_name("tbl")
            .global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().build())
            .send()
            .await,
    );
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        message,
        "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"
    );
    let (kind, message) = failure(
        client
            .update_table()
            .table_name("tbl")
            .global_secondary_index_updates(create_gsi("by_pk", "pk"))
            .send()
            .await,
    );
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("ValidationException", "One or more parameter values were invalid: AttributeDefinitions is not specified for index: by_pk")
    );
    let number_pk = AttributeDefinition::builder()
        .attribute_name("pk")
        .attribute_type(ScalarAttributeType::N)
        .build()
        .expect("definition");
    client
        .update_table()
        .table_name("tbl")
        .attribute_definitions(number_pk)
        .attribute_definitions(def("g"))
        .global_secondary_index_updates(create_gsi("by_g", "g"))
        .send()
        .await
        .expect("a conflicting redeclaration is accepted");
    let out = client.describe_table().table_name("tbl").send().await.expect("describe");
    let types: Vec<(&str, &str)> = out
        .table()
        .expect("table")
        .attribute_definitions()
        .iter()
        .map(|a| (a.attribute_name(), a.attribute_type().as_str()))
        .collect();
    assert!(types.contains(&("pk", "S")) && types.contains(&("g", "S")), "{types:?}");
}

// Source: dynalite's test suite, written against DynamoDB (test/createTable.js: `Projection: {}`
// is "One or more parameter values were invalid: Unknown ProjectionType: null"); ack-api-quirks'
// secondary-index rules, verified 2026-10-08 ("ProjectionType has no default").
#[tokio::test]
async fn an_index_projection_without_a_type_is_refused() {
    let client = monotable_embedded::client();
    let empty = GlobalSecondaryIndex::builder()
        .index_name("by_g")
        .key_schema(hash("g"))
        .projection(Projection::builder().build())
        .build()
        .expect("gsi");
    let (kind, message) =
        failure(with_index_on_g(&client, empty).billing_mode(BillingMode::PayPerRequest).send().await);
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("ValidationException", "One or more parameter values were invalid: Unknown ProjectionType: null")
    );
}

// ---------------------------------------------------------------------------------------------
// Read validation.

// Source: dynalite's test suite, written against DynamoDB (test/getItem.js, "incorrect
// attributes": an empty AttributesToGet is a constraint error).
#[tokio::test]
async fn an_empty_attributes_to_get_is_a_constraint_error() {
    let client = table().await;
    let expected = "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1";
    let (kind, message) = failure(
        client
            .get_item()
            .table_name("tbl")
            .key("pk", s("k"))
            .set_attributes_to_get(Some(Vec::new()))
            .send()
            .await,
    );
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", expected));
    let (_, message) =
        failure(client.scan().table_name("tbl").set_attributes_to_get(Some(Vec::new())).send().await);
    assert_eq!(message, expected);
    let (_, message) = failure(
        client
            .query()
            .table_name("tbl")
            .key_condition_expression("pk = :k")
            .expression_attribute_values(":k", s("k"))
            .set_attributes_to_get(Some(Vec::new()))
            .send()
            .await,
    );
    assert_eq!(message, expected);
}

// Source: DynamoDB's answers recorded in ExtendDB pull requests 66 and 86 (2026-05): a Scan of
// a table completes "The provided starting key is invalid" with ": The provided key element
// does not match the schema", a Query or a Scan of an index does not; for a parallel Scan,
// ScyllaDB pull request 9270 and ExtendDB pull request 203 (us-east-1, 2026-07) record the
// refusal of a starting key of another segment, which names the key's segment.
#[tokio::test]
async fn a_starting_key_must_match_the_key_schema_and_the_segment() {
    let client = table_with_gsis(&[("by_g", "g")]).await;
    let wrong = || std::collections::HashMap::from([("other".to_owned(), s("x"))]);
    let (kind, message) = failure(
        client
            .query()
            .table_name("tbl")
            .key_condition_expression("pk = :k")
            .expression_attribute_values(":k", s("k"))
            .set_exclusive_start_key(Some(wrong()))
            .send()
            .await,
    );
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("ValidationException", "The provided starting key is invalid")
    );
    let (_, message) = failure(
        client
            .scan()
            .table_name("tbl")
            .index_name("by_g")
            .set_exclusive_start_key(Some(wrong()))
            .send()
            .await,
    );
    assert_eq!(message, "The provided starting key is invalid");
    let (_, message) =
        failure(client.scan().table_name("tbl").set_exclusive_start_key(Some(wrong())).send().await);
    assert_eq!(
        message,
        "The provided starting key is invalid: The provided key element does not match the schema"
    );

    // Of two segments, some keys are segment 0's and the others segment 1's.
    let mut outcomes = Vec::new();
    for i in 0..16 {
        let start = std::collections::HashMap::from([("pk".to_owned(), s(&format!("k{i}")))]);
        let out = client
            .scan()
            .table_name("tbl")
            .segment(0)
            .total_segments(2)
            .set_exclusive_start_key(Some(start))
            .send()
            .await;
        outcomes
            .push(out.map(|_| ()).map_err(|e| e.into_service_error().meta().message().map(str::to_owned)));
    }
    assert!(outcomes.iter().any(Result::is_ok), "{outcomes:?}");
    let refused: Vec<_> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    assert!(!refused.is_empty(), "{outcomes:?}");
    for message in refused {
        assert_eq!(
            message.as_deref(),
            Some("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 1")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Batch validation. Source: paritysuite/dynamodb-conformance, tests/tier3/error-messages/
// batchGetItem.test.ts and batchWriteItem.test.ts, recorded against DynamoDB: since 2026-08 the
// validation framework names the member path; a BatchWriteItem key of the wrong type is "The
// provided key element does not match the schema" (four regions, 2026-06-23).

#[tokio::test]
async fn batch_requests_are_bounded_per_table_with_the_validation_frameworks_wording() {
    use aws_sdk_dynamodb::types::{KeysAndAttributes, PutRequest, WriteRequest};
    let client = table().await;
    let key = |i: usize| std::collections::HashMap::from([("pk".to_owned(), s(&format!("k{i}")))]);
    let keys = |n: usize| {
        KeysAndAttributes::builder().set_keys(Some((0..n).map(key).collect())).build().expect("keys")
    };
    let empty = "1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1";
    let (kind, message) =
        failure(client.batch_get_item().set_request_items(Some(Default::default())).send().await);
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", empty));
    let (_, message) =
        failure(client.batch_write_item().set_request_items(Some(Default::default())).send().await);
    assert_eq!(message, empty);
    let (_, message) = failure(client.batch_get_item().request_items("tbl", keys(101)).send().await);
    assert_eq!(
        message,
        "1 validation error detected: Value at 'RequestItems.tbl.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"
    );
    let (_, message) = failure(client.batch_get_item().request_items("tbl", keys(0)).send().await);
    assert_eq!(
        message,
        "1 validation error detected: Value at 'RequestItems.tbl.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
    let put = |i: usize| {
        WriteRequest::builder()
            .put_request(PutRequest::builder().set_item(Some(key(i))).build().expect("put"))
            .build()
    };
    let (_, message) =
        failure(client.batch_write_item().request_items("tbl", (0..26).map(put).collect()).send().await);
    assert_eq!(
        message,
        "1 validation error detected: Value at 'RequestItems.tbl.member' failed to satisfy constraint: Member must have length less than or equal to 25"
    );
    // An empty list: DynamoDB's answer quoted in elegantdevelopment/aws-cdk-dynamodb-seeder
    // issue 3, which echoes the empty entry.
    let (_, message) = failure(client.batch_write_item().request_items("tbl", Vec::new()).send().await);
    assert_eq!(
        message,
        "1 validation error detected: Value '{tbl=[]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"
    );
    for wrong in [AttributeValue::N("5".into()), AttributeValue::L(vec![s("x")])] {
        let item = std::collections::HashMap::from([("pk".to_owned(), wrong)]);
        let request = WriteRequest::builder()
            .put_request(PutRequest::builder().set_item(Some(item)).build().expect("put"))
            .build();
        let (kind, message) =
            failure(client.batch_write_item().request_items("tbl", vec![request]).send().await);
        assert_eq!(
            (kind.as_str(), message.as_str()),
            ("ValidationException", "The provided key element does not match the schema")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Query messages. Source: paritysuite/dynamodb-conformance, Query "exact error messages"
// (error-messages/query.test.ts), recorded against DynamoDB.

#[tokio::test]
async fn query_refusals_have_dynamodbs_current_wording() {
    use aws_sdk_dynamodb::types::Select;
    let client = monotable_embedded::client();
    client
        .create_table()
        .table_name("tbl")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("sk"))
        .key_schema(hash("pk"))
        .key_schema(
            KeySchemaElement::builder().attribute_name("sk").key_type(KeyType::Range).build().expect("sk"),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    let query = || client.query().table_name("tbl").expression_attribute_values(":v", s("val"));
    let cases = [
        (query().key_condition_expression("sk = :v"), "Query condition missed key schema element: pk"),
        (query().key_condition_expression("attr1 = :v"), "Query condition missed key schema element: pk"),
        (
            query().key_condition_expression("pk = :v").expression_attribute_names("#unused", "someattr"),
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
        ),
        (
            query().key_condition_expression("pk = :v").select(Select::from("INVALID_VALUE")),
            "1 validation error detected: Value 'INVALID_VALUE' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]",
        ),
        (
            query().key_condition_expression("pk = :v").limit(0),
            "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
        ),
        (query().key_condition_expression(""), "Invalid KeyConditionExpression: The expression can not be empty;"),
        (
            query().key_condition_expression("pk = :v").filter_expression("#missing = :v"),
            "Invalid FilterExpression: An expression attribute name used in the document path is not defined; attribute name: #missing",
        ),
        (
            query().key_condition_expression("((pk = :v))"),
            "Invalid KeyConditionExpression: The expression has redundant parentheses;",
        ),
        (
            query().key_condition_expression("pk = :v").select(Select::SpecificAttributes),
            "1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        ),
    ];
    expect_validation_messages(cases.map(|(request, expected)| (request.send(), expected))).await;
}

// Source: dynalite's test suite, written against DynamoDB (test/query.js, "empty
// FilterExpression" and "empty ProjectionExpression"): beside a key condition that names no
// key, on a table that does not exist, the empty expression is what is reported.
#[tokio::test]
async fn an_empty_filter_or_projection_is_reported_before_the_key_condition_and_the_table() {
    let client = monotable_embedded::client();
    let query = || {
        client
            .query()
            .table_name("abc")
            .key_condition_expression("attribute_type(a, :a)")
            .expression_attribute_values(":a", s("N"))
    };
    let (kind, message) = failure(query().filter_expression("").projection_expression("").send().await);
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("ValidationException", "Invalid FilterExpression: The expression can not be empty;")
    );
    let (_, message) = failure(query().filter_expression("a > b").projection_expression("").send().await);
    assert_eq!(message, "Invalid ProjectionExpression: The expression can not be empty;");
}

// ---------------------------------------------------------------------------------------------
// CreateTable messages. Source: paritysuite/dynamodb-conformance, CreateTable "exact error
// messages" (error-messages/createTable.test.ts), recorded against DynamoDB.

#[tokio::test]
async fn create_table_refusals_have_dynamodbs_current_wording() {
    let client = monotable_embedded::client();
    let key = |name: &str, kind: &str| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(KeyType::from(kind))
            .build()
            .expect("key element")
    };
    let create = |name: &str| {
        client
            .create_table()
            .table_name(name)
            .attribute_definitions(def("pk"))
            .provisioned_throughput(pt(5, 5))
    };
    // The SDK will not send a CreateTable without TableName: the raw request does.
    let server =
        common::TestServer::start(monotable_server::Service::new(monotable_engine::Engine::new())).await;
    let body = br#"{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    let response = common::send_raw(server.addr, &common::post("DynamoDB_20120810.CreateTable", body)).await;
    assert_eq!(response.error_type(), "com.amazon.coral.validate#ValidationException");
    assert_eq!(
        response.json()["message"],
        "The parameter 'TableName' is required but was not present in the request"
    );
    server.stop().await.expect("server stops");
    let cases = [
        (
            create("ab").key_schema(hash("pk")),
            "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
        ),
        (
            create("dup_key").key_schema(hash("pk")).key_schema(key("pk", "RANGE")),
            "Invalid KeySchema: Some index key attribute have no definition",
        ),
        (
            create("three_keys")
                .attribute_definitions(def("sk"))
                .attribute_definitions(def("extra"))
                .key_schema(hash("pk"))
                .key_schema(key("sk", "RANGE"))
                .key_schema(key("extra", "RANGE")),
            "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2",
        ),
        (
            create("bad_keytype").key_schema(key("pk", "INVALID")),
            "1 validation error detected: Value 'INVALID' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]",
        ),
    ];
    expect_validation_messages(cases.map(|(request, expected)| (request.send(), expected))).await;
}

// ---------------------------------------------------------------------------------------------
// Malformed numbers. Source: paritysuite/dynamodb-conformance, tests/tier3/error-messages/
// valueLayers.test.ts (four regions, 2026-10-09): the request parser names the text; PutItem,
// UpdateItem and DeleteItem envelope it, GetItem and Query give it bare, BatchWriteItem (the
// older layer) drops the colon of an empty number.

#[tokio::test]
async fn a_malformed_number_is_named_and_worded_by_operation() {
    use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    let client = table().await;
    let n = |v: &str| AttributeValue::N(v.to_owned());
    for (text, bare) in [
        ("abc", "The parameter cannot be converted to a numeric value: abc"),
        ("", "The parameter cannot be converted to a numeric value: "),
        (" 1", "The parameter cannot be converted to a numeric value:  1"),
        ("1e126", "Number overflow. Attempting to store a number with magnitude larger than supported range"),
    ] {
        let enveloped = format!("1 validation error detected: {bare}");
        let (kind, message) =
            failure(client.put_item().table_name("tbl").item("pk", s("k")).item("n", n(text)).send().await);
        assert_eq!(
            (kind.as_str(), message.as_str()),
            ("ValidationException", enveloped.as_str()),
            "{text:?}"
        );
        let (_, message) = failure(
            client
                .update_item()
                .table_name("tbl")
                .key("pk", s("k"))
                .update_expression("SET n = :v")
                .expression_attribute_values(":v", n(text))
                .send()
                .await,
        );
        assert_eq!(message, enveloped, "{text:?}");
        let (_, message) = failure(client.get_item().table_name("tbl").key("pk", n(text)).send().await);
        assert_eq!(message, bare, "{text:?}");
        let item = std::collections::HashMap::from([("pk".to_owned(), s("k")), ("n".to_owned(), n(text))]);
        let put = WriteRequest::builder()
            .put_request(PutRequest::builder().set_item(Some(item)).build().expect("put"))
            .build();
        let (_, message) = failure(client.batch_write_item().request_items("tbl", vec![put]).send().await);
        let older =
            if text.is_empty() { "The parameter cannot be converted to a numeric value" } else { bare };
        assert_eq!(message, older, "{text:?}");
    }
}

// Source: paritysuite/dynamodb-conformance, PutItem exact error messages ("empty table name")
// and UpdateItem validation ordering (eu-west-2 and us-east-1, 2026-10-09): since table ARNs
// are accepted the member's minimum length is 1, and that is the only error an empty name
// breaks.
#[tokio::test]
async fn an_empty_table_name_breaks_only_the_minimum_length_of_one() {
    // The SDK will not send an empty TableName: the raw requests do.
    let server =
        common::TestServer::start(monotable_server::Service::new(monotable_engine::Engine::new())).await;
    let expected =
        "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1";
    for (target, body) in [
        ("PutItem", r#"{"TableName":"","Item":{"pk":{"S":"k"}}}"#),
        (
            "UpdateItem",
            r#"{"TableName":"","Key":{"pk":{"S":"k"}},"UpdateExpression":"SET a = :a","ExpressionAttributeValues":{":a":{"S":"x"}}}"#,
        ),
    ] {
        let request = common::post(&format!("DynamoDB_20120810.{target}"), body.as_bytes());
        let response = common::send_raw(server.addr, &request).await;
        assert_eq!(response.json()["message"], expected, "{target}");
    }
    server.stop().await.expect("server stops");
    let client = table().await;
    let (_, message) = failure(client.put_item().table_name("bad table!@#").item("pk", s("k")).send().await);
    assert_eq!(
        message,
        "1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );
}

// Source: ack-api-quirks DDB-TABLE-125 (verified 2026-10-08): an INCLUDE projection's
// NonKeyAttributes come back sorted by name ([zz, aa, mm, sk] as [aa, mm, sk, zz]).
#[tokio::test]
async fn described_non_key_attributes_are_sorted_by_name() {
    let client = monotable_embedded::client();
    let include = Projection::builder()
        .projection_type(ProjectionType::Include)
        .set_non_key_attributes(Some(strings(&["zz", "aa", "mm", "sk"])))
        .build();
    let index = GlobalSecondaryIndex::builder()
        .index_name("by_g")
        .key_schema(hash("g"))
        .projection(include)
        .build()
        .expect("gsi");
    let out = with_index_on_g(&client, index)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    let created =
        out.table_description().expect("description").global_secondary_indexes()[0].projection().cloned();
    let described = client.describe_table().table_name("tbl").send().await.expect("describe");
    let described = described.table().expect("table").global_secondary_indexes()[0].projection().cloned();
    for projection in [created, described] {
        assert_eq!(projection.expect("projection").non_key_attributes(), ["aa", "mm", "sk", "zz"]);
    }
}

// Source: ack-api-quirks DDB-TABLE-359 (verified 2026-10-09): an empty
// GlobalSecondaryIndexUpdates counts as absent on its own, and is refused beside another
// change, which is not applied.
#[tokio::test]
async fn an_empty_list_of_index_updates_is_absent_alone_and_refused_beside_a_change() {
    let client = table().await;
    let (_, message) = failure(
        client
            .update_table()
            .table_name("tbl")
            .set_global_secondary_index_updates(Some(Vec::new()))
            .send()
            .await,
    );
    assert!(message.starts_with("At least one of ProvisionedThroughput, BillingMode"), "{message}");
    let (kind, message) = failure(
        client
            .update_table()
            .table_name("tbl")
            .set_global_secondary_index_updates(Some(Vec::new()))
            .deletion_protection_enabled(true)
            .send()
            .await,
    );
    assert_eq!(
        (kind.as_str(), message.as_str()),
        (
            "ValidationException",
            "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates is empty"
        )
    );
    let out = client.describe_table().table_name("tbl").send().await.expect("describe");
    assert_eq!(out.table().and_then(|t| t.deletion_protection_enabled()), Some(false));
}

// Source: ack-api-quirks DDB-TABLE-164 and DDB-TABLE-152 (verified 2026-10-08): a global
// index's throughput set to what it has is refused like the table's; BillingMode PROVISIONED
// without ProvisionedThroughput is refused whatever the table's mode.
#[tokio::test]
async fn an_index_throughput_that_would_not_change_and_provisioned_without_throughput_are_refused() {
    use aws_sdk_dynamodb::types::UpdateGlobalSecondaryIndexAction;
    let client = monotable_embedded::client();
    let index = GlobalSecondaryIndex::builder()
        .index_name("gsi1")
        .key_schema(hash("g"))
        .projection(all())
        .provisioned_throughput(pt(2, 2))
        .build()
        .expect("gsi");
    with_index_on_g(&client, index).provisioned_throughput(pt(1, 1)).send().await.expect("create table");
    let update = |r, w| {
        let action = UpdateGlobalSecondaryIndexAction::builder()
            .index_name("gsi1")
            .provisioned_throughput(pt(r, w))
            .build()
            .expect("update action");
        GlobalSecondaryIndexUpdate::builder().update(action).build()
    };
    let (kind, message) = failure(
        client.update_table().table_name("tbl").global_secondary_index_updates(update(2, 2)).send().await,
    );
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        message,
        "The provisioned throughput for the index gsi1 will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index gsi1: 2. Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index gsi1: 2. Requested WriteCapacityUnits: 2. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
    );
    client
        .update_table()
        .table_name("tbl")
        .global_secondary_index_updates(update(2, 3))
        .send()
        .await
        .expect("a partial change passes");
    let (_, message) =
        failure(client.update_table().table_name("tbl").billing_mode(BillingMode::Provisioned).send().await);
    assert_eq!(message, "ProvisionedThroughput must be specified when BillingMode is PROVISIONED");
}

// ---------------------------------------------------------------------------------------------
// Key schemas, attribute definitions and projections, in the service's words.

fn key(name: &str, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(key_type).build().expect("key element")
}

/// A GSI `by_g` projecting everything, keyed by `keys` in order.
fn gsi_keyed(keys: &[(&str, KeyType)]) -> GlobalSecondaryIndex {
    let mut index = GlobalSecondaryIndex::builder().index_name("by_g").projection(all());
    for (name, key_type) in keys {
        index = index.key_schema(key(name, key_type.clone()));
    }
    index.build().expect("gsi")
}

/// A CreateTable of `tbl` keyed by `pk` with one GSI, every attribute of `defined` an S.
async fn create_with_gsi(
    client: &Client,
    defined: &[&str],
    index: GlobalSecondaryIndex,
) -> Result<(), (String, String)> {
    let mut create = client
        .create_table()
        .table_name("tbl")
        .key_schema(hash("pk"))
        .global_secondary_indexes(index)
        .billing_mode(BillingMode::PayPerRequest);
    for name in defined {
        create = create.attribute_definitions(def(name));
    }
    create
        .send()
        .await
        .map(drop)
        .map_err(|e| (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned()))
}

// Source: recorded from the real service (2026-10-08) in ack-api-quirks' DynamoDB findings:
// DDB-TABLE-123 (multi-attribute GSI keys: "The KeySchema exceeds the maximum allowed number of
// HASH key attributes", "All HASH key attributes must precede RANGE key attributes in the
// KeySchema", "The KeySchema contains multiple key attributes with the same name"), DDB-TABLE-126
// ("Duplicate element in NonKeyAttributes: x"), DDB-TABLE-127 ("Attribute Name is duplicated:
// pk"), and the ValidationException catalogue, which gives each text's prefix (none for the
// duplicate names, nor for "Both the Hash Key and the Range Key element in the KeySchema have
// the same name").
#[tokio::test]
async fn key_schema_and_definition_mistakes_are_refused_in_the_services_words() {
    use KeyType::{Hash, Range};
    let client = monotable_embedded::client();
    let prefix = "One or more parameter values were invalid: ";
    let five_hash: Vec<(&str, KeyType)> = ["a", "b", "c", "d", "e"].iter().map(|n| (*n, Hash)).collect();
    let five_range: Vec<(&str, KeyType)> =
        std::iter::once(("a", Hash)).chain(["b", "c", "d", "e", "f"].iter().map(|n| (*n, Range))).collect();
    let cases: Vec<(Vec<&str>, GlobalSecondaryIndex, String)> = vec![
        (
            vec!["pk", "a", "b", "c", "d", "e"],
            gsi_keyed(&five_hash),
            format!("{prefix}The KeySchema exceeds the maximum allowed number of HASH key attributes"),
        ),
        (
            vec!["pk", "a", "b", "c", "d", "e", "f"],
            gsi_keyed(&five_range),
            format!("{prefix}The KeySchema exceeds the maximum allowed number of RANGE key attributes"),
        ),
        (
            vec!["pk", "a", "b", "c"],
            gsi_keyed(&[("a", Hash), ("b", Range), ("c", Hash)]),
            format!("{prefix}All HASH key attributes must precede RANGE key attributes in the KeySchema"),
        ),
        (
            vec!["pk", "a", "b"],
            gsi_keyed(&[("a", Hash), ("b", Hash), ("a", Range)]),
            "The KeySchema contains multiple key attributes with the same name".to_owned(),
        ),
        (
            vec!["pk", "a"],
            gsi_keyed(&[("a", Hash), ("a", Range)]),
            "Both the Hash Key and the Range Key element in the KeySchema have the same name".to_owned(),
        ),
        (vec!["pk", "a", "pk"], gsi_keyed(&[("a", Hash)]), "Attribute Name is duplicated: pk".to_owned()),
        (
            vec!["pk", "a"],
            GlobalSecondaryIndex::builder()
                .index_name("by_g")
                .key_schema(hash("a"))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::Include)
                        .non_key_attributes("x")
                        .non_key_attributes("y")
                        .non_key_attributes("x")
                        .build(),
                )
                .build()
                .expect("gsi"),
            format!("{prefix}Duplicate element in NonKeyAttributes: x"),
        ),
    ];
    let mut wrong = Vec::new();
    for (defined, index, expected) in cases {
        match create_with_gsi(&client, &defined, index).await {
            Err((kind, message)) if kind == "ValidationException" && message == expected => {}
            other => wrong.push((expected, other)),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
