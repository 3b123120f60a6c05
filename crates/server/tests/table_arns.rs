//! A table's ARN wherever a table name is accepted, through the real SDK in process.
//!
//! Source: the DynamoDB API reference types every `TableName` member `TableArn`: "You can
//! also provide the Amazon Resource Name (ARN) of the table in this parameter. Length
//! Constraints: Minimum length of 1. Maximum length of 1024." (API_GetItem, API_Get,
//! API_DescribeTable, …). Responses name the table by its bare name, and a missing table is
//! reported by the name inside the ARN (ack-api-quirks DDB-TABLE-011, verified 2026-10-08:
//! "DescribeTable accepts the full table ARN as TableName (a missing table is RNF naming the
//! extracted name)"; "PutItem(TableName=ARN)': 'OK', 'DeleteTable(TableName=ARN)': 'OK'").

mod common;

use std::collections::HashMap;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeValue, Get, KeysAndAttributes, Put, PutRequest, TimeToLiveSpecification, TransactGetItem,
    TransactWriteItem, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use common::hash_table;

const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/things";

fn item(pk: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([("pk".to_string(), AttributeValue::S(pk.into()))])
}

async fn create(client: &Client, name: &str) -> String {
    let out = hash_table(client, name).send().await.expect("create table");
    out.table_description().and_then(|d| d.table_arn()).expect("table arn").to_string()
}

#[tokio::test]
async fn item_operations_accept_the_table_arn() {
    let client = monotable_embedded::client();
    assert_eq!(create(&client, "things").await, ARN);
    client.put_item().table_name(ARN).set_item(Some(item("a"))).send().await.expect("put by arn");
    let got = client.get_item().table_name(ARN).set_key(Some(item("a"))).send().await.expect("get by arn");
    assert_eq!(got.item(), Some(&item("a")));
    client
        .update_item()
        .table_name(ARN)
        .set_key(Some(item("a")))
        .update_expression("SET n = :n")
        .expression_attribute_values(":n", AttributeValue::N("1".into()))
        .send()
        .await
        .expect("update by arn");
    let q = client
        .query()
        .table_name(ARN)
        .key_condition_expression("pk = :a")
        .expression_attribute_values(":a", AttributeValue::S("a".into()))
        .send()
        .await
        .expect("query by arn");
    assert_eq!(q.count(), 1);
    assert_eq!(client.scan().table_name(ARN).send().await.expect("scan by arn").count(), 1);
    client.delete_item().table_name(ARN).set_key(Some(item("a"))).send().await.expect("delete by arn");
    assert_eq!(client.scan().table_name("things").send().await.unwrap().count(), 0);
}

#[tokio::test]
async fn batches_and_transactions_accept_the_table_arn_and_answer_under_the_requested_key() {
    let client = monotable_embedded::client();
    create(&client, "things").await;
    let write = WriteRequest::builder()
        .put_request(PutRequest::builder().set_item(Some(item("b"))).build().unwrap())
        .build();
    client.batch_write_item().request_items(ARN, vec![write]).send().await.expect("batch write by arn");
    let keys = KeysAndAttributes::builder().keys(item("b")).build().unwrap();
    let got = client.batch_get_item().request_items(ARN, keys).send().await.expect("batch get by arn");
    // The responses map is keyed as the request named the table.
    assert_eq!(got.responses().and_then(|r| r.get(ARN)).map(Vec::len), Some(1));
    let put = Put::builder().table_name(ARN).set_item(Some(item("c"))).build().unwrap();
    client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(put).build())
        .send()
        .await
        .expect("transact write by arn");
    let get = Get::builder().table_name(ARN).set_key(Some(item("c"))).build().unwrap();
    let got = client
        .transact_get_items()
        .transact_items(TransactGetItem::builder().get(get).build())
        .send()
        .await
        .expect("transact get by arn");
    assert_eq!(got.responses()[0].item(), Some(&item("c")));
}

#[tokio::test]
async fn control_plane_operations_accept_the_table_arn_and_answer_with_the_bare_name() {
    let client = monotable_embedded::client();
    create(&client, "things").await;
    let d = client.describe_table().table_name(ARN).send().await.expect("describe by arn");
    assert_eq!(d.table().and_then(|t| t.table_name()), Some("things"));
    client
        .update_table()
        .table_name(ARN)
        .deletion_protection_enabled(false)
        .send()
        .await
        .expect("update by arn");
    client
        .update_time_to_live()
        .table_name(ARN)
        .time_to_live_specification(
            TimeToLiveSpecification::builder().enabled(true).attribute_name("ttl").build().unwrap(),
        )
        .send()
        .await
        .expect("update ttl by arn");
    let ttl = client.describe_time_to_live().table_name(ARN).send().await.expect("describe ttl by arn");
    assert_eq!(ttl.time_to_live_description().and_then(|t| t.attribute_name()), Some("ttl"));
    let deleted = client.delete_table().table_name(ARN).send().await.expect("delete by arn");
    assert_eq!(deleted.table_description().and_then(|t| t.table_name()), Some("things"));
    assert!(client.list_tables().send().await.unwrap().table_names().is_empty());
}

#[tokio::test]
async fn create_table_accepts_an_arn_and_creates_the_named_table() {
    let client = monotable_embedded::client();
    assert_eq!(create(&client, ARN).await, ARN);
    assert_eq!(client.list_tables().send().await.unwrap().table_names(), ["things"]);
}

#[tokio::test]
async fn a_missing_table_is_reported_by_the_name_inside_its_arn() {
    let client = monotable_embedded::client();
    let missing = "arn:aws:dynamodb:us-east-1:000000000000:table/missing";
    let e = client.describe_table().table_name(missing).send().await.unwrap_err().into_service_error();
    assert_eq!(e.code(), Some("ResourceNotFoundException"));
    assert_eq!(e.message(), Some("Requested resource not found: Table: missing not found"));
    let e = client.get_item().table_name(missing).set_key(Some(item("a"))).send().await.unwrap_err();
    assert_eq!(e.into_service_error().message(), Some("Requested resource not found"));
}

#[tokio::test]
async fn arn_table_names_are_checked_for_length_and_for_the_name_inside() {
    let client = monotable_embedded::client();
    // Source: API_GetItem, TableName "Maximum length of 1024"; the name inside keeps the
    // name rules (3 to 255 characters of [a-zA-Z0-9_.-]).
    let long = format!("arn:aws:dynamodb:us-east-1:000000000000:table/{}", "a".repeat(1000));
    let e = client.describe_table().table_name(&long).send().await.unwrap_err().into_service_error();
    assert_eq!(
        e.message().map(str::to_string),
        Some(format!(
            "1 validation error detected: Value '{long}' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 1024"
        ))
    );
    let short = "arn:aws:dynamodb:us-east-1:000000000000:table/ab";
    let e = client.describe_table().table_name(short).send().await.unwrap_err().into_service_error();
    assert_eq!(
        e.message(),
        Some("1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")
    );
}
