//! GetItem's two paths through the service, the plain lookup read in place
//! (`decode::plain_get` and `Engine::get_item_ref`) and the general decode: the same answer,
//! byte for byte, for the same request, and DynamoDB's error for each request the plain path
//! declines.

mod common;

use common::handle_in_process;
use monotable_engine::Engine;
use monotable_server::Service;
use serde_json::{json, Value};

const GET_ITEM: &str = "DynamoDB_20120810.GetItem";

/// A service over a table `things` (pk S, sk N) holding one item.
fn service() -> Service {
    let engine = Engine::new();
    engine
        .create_table(
            serde_json::from_value(json!({
                "TableName": "things",
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}
                ],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "BillingMode": "PAY_PER_REQUEST"
            }))
            .unwrap(),
        )
        .unwrap();
    engine
        .put_item(
            serde_json::from_value(json!({
                "TableName": "things",
                "Item": {"pk": {"S": "a"}, "sk": {"N": "1.5"}, "v": {"S": "quote \" tab \t"}, "n": {"L": [{"N": "2"}]}}
            }))
            .unwrap(),
        )
        .unwrap();
    Service::new(engine)
}

#[test]
fn a_plain_lookup_answers_what_the_general_path_answers() {
    let service = service();
    // The general path reads the second body of each pair: its key value has an escape
    // (`\u0061` is `a`), which the plain reading leaves to serde_json.
    let pairs = [
        (
            r#"{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"N":"1.50"}}}"#,
            r#"{"TableName":"things","Key":{"pk":{"S":"\u0061"},"sk":{"N":"1.50"}}}"#,
        ),
        (
            r#"{"Key":{"sk":{"N":"15e-1"},"pk":{"S":"a"}},"TableName":"things","ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}"#,
            r#"{"Key":{"sk":{"N":"15e-1"},"pk":{"S":"\u0061"}},"TableName":"things","ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}"#,
        ),
        (
            r#"{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"N":"2"}},"ReturnConsumedCapacity":"INDEXES"}"#,
            r#"{"TableName":"things","Key":{"pk":{"S":"\u0061"},"sk":{"N":"2"}},"ReturnConsumedCapacity":"INDEXES"}"#,
        ),
    ];
    for (plain, general) in pairs {
        let (status, body) = handle_in_process(&service, GET_ITEM, plain.as_bytes());
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        assert_eq!(
            (status, body.clone()),
            handle_in_process(&service, GET_ITEM, general.as_bytes()),
            "{plain}"
        );
        assert!(serde_json::from_slice::<Value>(&body).is_ok());
    }
    let (_, body) = handle_in_process(&service, GET_ITEM, pairs[0].0.as_bytes());
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["Item"]["v"], json!({"S": "quote \" tab \t"}));
}

#[test]
fn lookups_the_plain_path_declines_get_dynamodb_errors() {
    let service = service();
    let cases = [
        (r#"{"TableName":"nothing","Key":{"pk":{"S":"a"}}}"#, "ResourceNotFoundException", "Requested resource not found"),
        (
            r#"{"TableName":"things","Key":{"pk":{"S":"a"}}}"#,
            "ValidationException",
            "The provided key element does not match the schema",
        ),
        (
            r#"{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"S":"1"}}}"#,
            "ValidationException",
            "The provided key element does not match the schema",
        ),
        (
            r#"{"TableName":"things","Key":{"pk":{"S":""},"sk":{"N":"1"}}}"#,
            "ValidationException",
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk",
        ),
        (
            r#"{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ReturnConsumedCapacity":"ALL"}"#,
            "ValidationException",
            "1 validation error detected: Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
        ),
    ];
    for (body, kind, message) in cases {
        let (status, answer) = handle_in_process(&service, GET_ITEM, body.as_bytes());
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(status, 400, "{body}");
        let found = answer["__type"].as_str().unwrap_or_default();
        assert!(found.ends_with(&format!("#{kind}")), "{body}: {answer}");
        let text = answer["message"].as_str().or(answer["Message"].as_str()).unwrap_or_default();
        assert_eq!(text, message, "{body}");
    }
}
