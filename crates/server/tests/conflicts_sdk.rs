//! Transaction conflicts through the real `aws-sdk-dynamodb`, over TCP and in process: the
//! typed errors, messages and cancellation reasons DynamoDB returns when work meets an
//! in-flight transaction ("Transaction conflict handling in DynamoDB", developer guide
//! transaction-apis; API_TransactWriteItems ClientRequestToken).

mod common;

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Get, PutRequest, ReturnConsumedCapacity, TransactGetItem, TransactWriteItem, Update,
    WriteRequest,
};
use aws_sdk_dynamodb::Client;
use common::TestServer;
use monotable_engine::Engine;
use monotable_server::Service;
use serde_json::json;

const CONFLICT: &str = "Transaction is ongoing for the item";

fn key(k: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([("pk".to_string(), AttributeValue::S(k.into()))])
}

fn engine_with_items() -> Engine {
    let e = Engine::new();
    e.create_table(
        serde_json::from_value(json!({"TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}))
        .unwrap(),
    )
    .unwrap();
    for k in ["a", "b"] {
        e.put_item(
            serde_json::from_value(json!({"TableName": "tbl", "Item": {"pk": {"S": k}, "n": {"N": "0"}}}))
                .unwrap(),
        )
        .unwrap();
    }
    e
}

fn increment(k: &str) -> TransactWriteItem {
    let update = Update::builder()
        .table_name("tbl")
        .set_key(Some(key(k)))
        .update_expression("ADD n :one")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .build()
        .unwrap();
    TransactWriteItem::builder().update(update).build()
}

/// The transaction the tests hold in flight, as the engine receives it.
fn held_request() -> serde_json::Value {
    json!({"ClientRequestToken": "token-1", "TransactItems": [
        {"Update": {"TableName": "tbl", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        {"Update": {"TableName": "tbl", "Key": {"pk": {"S": "b"}}, "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}}]})
}

/// Starts the held transaction on a thread; it stays in flight until the sender is used.
fn hold(e: &Engine) -> (mpsc::Sender<()>, thread::JoinHandle<()>) {
    let (entered_tx, entered) = mpsc::channel::<()>();
    let (release, released) = mpsc::channel::<()>();
    let gate = Mutex::new(Some((entered_tx, released)));
    e.set_in_flight_hook(Some(Arc::new(move |op| {
        if op == "TransactWriteItems" {
            if let Some((entered, released)) = gate.lock().unwrap().take() {
                let _ = entered.send(());
                let _ = released.recv();
            }
        }
    })));
    let engine = e.clone();
    let handle = thread::spawn(move || {
        engine.transact_write_items(serde_json::from_value(held_request()).unwrap()).unwrap();
    });
    entered.recv().unwrap();
    (release, handle)
}

async fn scenario(client: &Client, engine: &Engine) {
    let (release, handle) = hold(engine);

    let err = client.put_item().table_name("tbl").set_item(Some(key("a"))).send().await.unwrap_err();
    let err = err.into_service_error();
    assert!(matches!(err, PutItemError::TransactionConflictException(_)), "{err:?}");
    assert_eq!(err.message(), Some(CONFLICT));
    let err = client
        .update_item()
        .table_name("tbl")
        .set_key(Some(key("b")))
        .update_expression("SET x = :x")
        .expression_attribute_values(":x", AttributeValue::S("y".into()))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(matches!(err, UpdateItemError::TransactionConflictException(_)), "{err:?}");
    let err = client.delete_item().table_name("tbl").set_key(Some(key("a"))).send().await.unwrap_err();
    assert!(matches!(err.into_service_error(), DeleteItemError::TransactionConflictException(_)));

    // Another transaction on one of the items is cancelled with one reason per action.
    let err = client
        .transact_write_items()
        .transact_items(increment("c"))
        .transact_items(increment("b"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    match &err {
        TransactWriteItemsError::TransactionCanceledException(e) => {
            assert_eq!(
                e.message(),
                Some("Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]")
            );
            let reasons: Vec<(Option<&str>, Option<&str>)> =
                e.cancellation_reasons().iter().map(|r| (r.code(), r.message())).collect();
            assert_eq!(reasons, [(Some("None"), None), (Some("TransactionConflict"), Some(CONFLICT))]);
        }
        other => panic!("expected TransactionCanceledException, got {other:?}"),
    }
    let get = TransactGetItem::builder()
        .get(Get::builder().table_name("tbl").set_key(Some(key("a"))).build().unwrap())
        .build();
    let err = client.transact_get_items().transact_items(get).send().await.unwrap_err().into_service_error();
    match &err {
        TransactGetItemsError::TransactionCanceledException(e) => {
            let codes: Vec<Option<&str>> = e.cancellation_reasons().iter().map(|r| r.code()).collect();
            assert_eq!(codes, [Some("TransactionConflict")]);
        }
        other => panic!("expected TransactionCanceledException, got {other:?}"),
    }

    // The same token while the first call runs: in progress; with other parameters: mismatch.
    let replay = || {
        client
            .transact_write_items()
            .client_request_token("token-1")
            .transact_items(increment("a"))
            .transact_items(increment("b"))
    };
    let err = replay().send().await.unwrap_err().into_service_error();
    assert!(matches!(err, TransactWriteItemsError::TransactionInProgressException(_)), "{err:?}");
    let err = client
        .transact_write_items()
        .client_request_token("token-1")
        .transact_items(increment("a"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(matches!(err, TransactWriteItemsError::IdempotentParameterMismatchException(_)), "{err:?}");

    // BatchWriteItem hands the held item's put back as unprocessed.
    let put = WriteRequest::builder()
        .put_request(PutRequest::builder().set_item(Some(key("a"))).build().unwrap())
        .build();
    let out = client.batch_write_item().request_items("tbl", vec![put]).send().await.unwrap();
    assert_eq!(out.unprocessed_items().map(|m| m["tbl"].len()), Some(1));

    release.send(()).unwrap();
    handle.join().unwrap();
    // After it: the replay succeeds, changes nothing and reports read capacity.
    let out = replay().return_consumed_capacity(ReturnConsumedCapacity::Total).send().await.unwrap();
    let cap = &out.consumed_capacity()[0];
    assert_eq!((cap.read_capacity_units(), cap.write_capacity_units()), (Some(2.0), None));
    let got = client.get_item().table_name("tbl").set_key(Some(key("a"))).send().await.unwrap();
    assert_eq!(got.item().unwrap()["n"], AttributeValue::N("1".into()), "applied once");
    client.put_item().table_name("tbl").set_item(Some(key("a"))).send().await.unwrap();
}

#[tokio::test]
async fn conflict_errors_over_tcp() {
    let engine = engine_with_items();
    let server = TestServer::start(Service::new(engine.clone())).await;
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::from_static("us-east-1"))
        .credentials_provider(aws_credential_types::Credentials::new(
            "AKIDEXAMPLE",
            "secret",
            None,
            None,
            "test",
        ))
        .endpoint_url(server.endpoint())
        .retry_config(RetryConfig::disabled())
        .build();
    scenario(&Client::from_conf(config), &engine).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn conflict_errors_in_process() {
    let engine = engine_with_items();
    let config = monotable_embedded::config_builder(Service::new(engine.clone()))
        .retry_config(RetryConfig::disabled())
        .build();
    scenario(&Client::from_conf(config), &engine).await;
}
