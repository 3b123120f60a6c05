//! The real `aws-sdk-dynamodb` client against monotable, over TCP and through the in-process
//! connector: the same scenario must pass on both, typed errors included.

mod common;

use std::collections::HashMap;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::get_item::GetItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConditionCheck, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, KeysAndAttributes, Projection, ProjectionType, Put, PutRequest, ReturnValue,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType, TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use common::{sdk_client, TestServer};
use monotable_engine::Engine;
use monotable_server::Service;

type Item = HashMap<String, AttributeValue>;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn key(pk: &str, sk: &str) -> Item {
    HashMap::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk))])
}

fn order(i: usize) -> Item {
    let mut item = key("customer#1", &format!("order#{i:03}"));
    item.insert("status".into(), s(if i.is_multiple_of(3) { "open" } else { "closed" }));
    item.insert("amount".into(), n(i as i64 * 10));
    item
}

async fn create_orders_table(client: &Client) {
    let attr = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key_element = |name: &str, kind: KeyType| {
        KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap()
    };
    let gsi = GlobalSecondaryIndex::builder()
        .index_name("by_status")
        .key_schema(key_element("status", KeyType::Hash))
        .key_schema(key_element("sk", KeyType::Range))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .unwrap();
    let out = client
        .create_table()
        .table_name("orders")
        .attribute_definitions(attr("pk"))
        .attribute_definitions(attr("sk"))
        .attribute_definitions(attr("status"))
        .key_schema(key_element("pk", KeyType::Hash))
        .key_schema(key_element("sk", KeyType::Range))
        .global_secondary_indexes(gsi)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    let description = out.table_description().expect("table description");
    assert_eq!(description.table_name(), Some("orders"));

    let described = client.describe_table().table_name("orders").send().await.expect("describe table");
    let table = described.table().expect("table");
    assert_eq!(table.global_secondary_indexes().len(), 1);
    assert_eq!(table.global_secondary_indexes()[0].index_name(), Some("by_status"));
    let tables = client.list_tables().send().await.expect("list tables");
    assert_eq!(tables.table_names(), ["orders"]);
}

async fn single_item_operations(client: &Client) {
    for i in 1..=25 {
        client.put_item().table_name("orders").set_item(Some(order(i))).send().await.expect("put");
    }

    // A failed condition is the SDK's typed error, carrying the old item when asked.
    let err = client
        .put_item()
        .table_name("orders")
        .set_item(Some(order(1)))
        .condition_expression("attribute_not_exists(pk)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .expect_err("condition fails");
    match err.into_service_error() {
        PutItemError::ConditionalCheckFailedException(e) => {
            assert_eq!(e.item().and_then(|i| i.get("amount")), Some(&n(10)));
        }
        other => panic!("expected ConditionalCheckFailedException, got {other:?}"),
    }

    let got =
        client.get_item().table_name("orders").set_key(Some(key("customer#1", "order#002"))).send().await;
    assert_eq!(got.expect("get").item(), Some(&order(2)));
    let missing =
        client.get_item().table_name("orders").set_key(Some(key("customer#1", "nope"))).send().await;
    assert_eq!(missing.expect("get missing").item(), None);

    let updated = client
        .update_item()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#002")))
        .update_expression("SET amount = amount + :d, #n = :note")
        .condition_expression("amount >= :min")
        .expression_attribute_names("#n", "note")
        .expression_attribute_values(":d", n(5))
        .expression_attribute_values(":min", n(20))
        .expression_attribute_values(":note", s("rush"))
        .return_values(ReturnValue::UpdatedNew)
        .send()
        .await
        .expect("update");
    let attrs = updated.attributes().expect("updated attributes");
    assert_eq!(attrs.get("amount"), Some(&n(25)));
    assert_eq!(attrs.get("note"), Some(&s("rush")));

    let err = client
        .update_item()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#002")))
        .update_expression("SET amount = :zero")
        .condition_expression("amount > :big")
        .expression_attribute_values(":zero", n(0))
        .expression_attribute_values(":big", n(1000))
        .send()
        .await
        .expect_err("condition fails");
    assert!(matches!(err.into_service_error(), UpdateItemError::ConditionalCheckFailedException(_)));

    let err = client
        .delete_item()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#025")))
        .condition_expression("#s = :open")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":open", s("open"))
        .send()
        .await
        .expect_err("order 25 is closed");
    assert!(matches!(err.into_service_error(), DeleteItemError::ConditionalCheckFailedException(_)));

    let deleted = client
        .delete_item()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#025")))
        .condition_expression("#s = :closed")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":closed", s("closed"))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .expect("delete");
    assert_eq!(deleted.attributes(), Some(&order(25)));
}

async fn query_and_scan_with_pagination(client: &Client) {
    // Manual pagination with Limit and ExclusiveStartKey.
    let mut seen = Vec::new();
    let mut start: Option<Item> = None;
    let mut pages = 0;
    loop {
        let page = client
            .query()
            .table_name("orders")
            .key_condition_expression("pk = :pk AND begins_with(sk, :prefix)")
            .expression_attribute_values(":pk", s("customer#1"))
            .expression_attribute_values(":prefix", s("order#"))
            .limit(10)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("query page");
        pages += 1;
        seen.extend(page.items().iter().filter_map(|i| i.get("sk").cloned()));
        match page.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => break,
        }
        assert!(pages < 10, "pagination terminates");
    }
    assert_eq!(seen.len(), 24);
    assert!(pages >= 3, "24 items in pages of 10");
    let expected: Vec<AttributeValue> = (1..=24).map(|i| s(&format!("order#{i:03}"))).collect();
    assert_eq!(seen, expected, "query returns items in sort-key order");

    // Descending, through the SDK's paginator.
    let items: Vec<Item> = client
        .query()
        .table_name("orders")
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", s("customer#1"))
        .scan_index_forward(false)
        .limit(7)
        .into_paginator()
        .items()
        .send()
        .collect::<Result<Vec<_>, _>>()
        .await
        .expect("paginated query");
    assert_eq!(items.len(), 24);
    assert_eq!(items[0].get("sk"), Some(&s("order#024")));

    // The global secondary index.
    let open = client
        .query()
        .table_name("orders")
        .index_name("by_status")
        .key_condition_expression("#s = :open")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":open", s("open"))
        .send()
        .await
        .expect("index query");
    assert_eq!(open.count(), 8, "orders 3, 6, …, 24 are open");

    // Scan with a filter, paginated.
    let scanned: Vec<Item> = client
        .scan()
        .table_name("orders")
        .filter_expression("amount >= :a")
        .expression_attribute_values(":a", n(100))
        .limit(5)
        .into_paginator()
        .items()
        .send()
        .collect::<Result<Vec<_>, _>>()
        .await
        .expect("paginated scan");
    assert_eq!(scanned.len(), 15, "orders 10..=24");
}

async fn batch_operations(client: &Client) {
    let requests: Vec<WriteRequest> = (100..125)
        .map(|i| {
            WriteRequest::builder()
                .put_request(PutRequest::builder().set_item(Some(order(i))).build().unwrap())
                .build()
        })
        .collect();
    let out = client.batch_write_item().request_items("orders", requests).send().await.expect("batch write");
    assert!(out.unprocessed_items().is_none_or(|u| u.is_empty()));

    let mut keys = KeysAndAttributes::builder();
    for i in 100..110 {
        keys = keys.keys(key("customer#1", &format!("order#{i:03}")));
    }
    let out = client
        .batch_get_item()
        .request_items("orders", keys.build().unwrap())
        .send()
        .await
        .expect("batch get");
    let got = out.responses().and_then(|r| r.get("orders")).map(Vec::len);
    assert_eq!(got, Some(10));
}

async fn transactions(client: &Client) {
    let put = Put::builder().table_name("orders").set_item(Some(order(500))).build().unwrap();
    let update = Update::builder()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#001")))
        .update_expression("SET amount = :a")
        .expression_attribute_values(":a", n(1))
        .build()
        .unwrap();
    let check = ConditionCheck::builder()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#003")))
        .condition_expression("attribute_exists(pk)")
        .build()
        .unwrap();
    client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(put).build())
        .transact_items(TransactWriteItem::builder().update(update).build())
        .transact_items(TransactWriteItem::builder().condition_check(check).build())
        .send()
        .await
        .expect("transaction commits");

    let put = Put::builder().table_name("orders").set_item(Some(order(501))).build().unwrap();
    let failing = ConditionCheck::builder()
        .table_name("orders")
        .set_key(Some(key("customer#1", "order#001")))
        .condition_expression("amount = :x")
        .expression_attribute_values(":x", n(999))
        .build()
        .unwrap();
    let err = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(put).build())
        .transact_items(TransactWriteItem::builder().condition_check(failing).build())
        .send()
        .await
        .expect_err("transaction is cancelled");
    match err.into_service_error() {
        TransactWriteItemsError::TransactionCanceledException(e) => {
            let codes: Vec<Option<&str>> = e.cancellation_reasons().iter().map(|r| r.code()).collect();
            assert_eq!(codes, [Some("None"), Some("ConditionalCheckFailed")]);
        }
        other => panic!("expected TransactionCanceledException, got {other:?}"),
    }
    let not_written =
        client.get_item().table_name("orders").set_key(Some(key("customer#1", "order#501"))).send().await;
    assert_eq!(not_written.expect("get").item(), None, "a cancelled transaction writes nothing");

    let got = client
        .transact_get_items()
        .transact_items(
            aws_sdk_dynamodb::types::TransactGetItem::builder()
                .get(
                    aws_sdk_dynamodb::types::Get::builder()
                        .table_name("orders")
                        .set_key(Some(key("customer#1", "order#500")))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .expect("transact get");
    assert_eq!(got.responses()[0].item(), Some(&order(500)));
}

async fn error_mapping(client: &Client) {
    let err = client
        .get_item()
        .table_name("no_such_table")
        .set_key(Some(key("a", "b")))
        .send()
        .await
        .expect_err("missing table");
    assert!(matches!(err.into_service_error(), GetItemError::ResourceNotFoundException(_)));

    let err = client
        .put_item()
        .table_name("orders")
        .item("pk", s("only-hash"))
        .send()
        .await
        .expect_err("missing sort key");
    let err = err.into_service_error();
    assert_eq!(err.code(), Some("ValidationException"));
    assert!(err.message().is_some_and(|m| !m.is_empty()));

    let err = client.list_backups().send().await.expect_err("no backups");
    assert_eq!(err.into_service_error().code(), Some("UnknownOperationException"));
}

async fn scenario(client: &Client) {
    create_orders_table(client).await;
    single_item_operations(client).await;
    query_and_scan_with_pagination(client).await;
    batch_operations(client).await;
    transactions(client).await;
    error_mapping(client).await;
    client.delete_table().table_name("orders").send().await.expect("delete table");
    assert!(client.list_tables().send().await.expect("list").table_names().is_empty());
}

#[tokio::test]
async fn sdk_scenario_over_tcp() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let client = sdk_client(&server.endpoint(), "AKIDEXAMPLE", "secret");
    scenario(&client).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn sdk_scenario_in_process() {
    scenario(&monotable_embedded::client()).await;
}

#[tokio::test]
async fn in_process_clients_are_isolated_unless_they_share_an_engine() {
    let first = monotable_embedded::client();
    create_orders_table(&first).await;
    let second = monotable_embedded::client();
    assert!(second.list_tables().send().await.unwrap().table_names().is_empty());

    let engine = Engine::new();
    let a = monotable_embedded::client_for(engine.clone());
    let b = monotable_embedded::client_for(engine);
    create_orders_table(&a).await;
    assert_eq!(b.list_tables().send().await.unwrap().table_names(), ["orders"]);
}
