//! Helpers shared by the integration tests: requests written as DynamoDB JSON.

#![allow(dead_code)]

use monotable_engine::*;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Builds a request shape from DynamoDB JSON.
pub fn req<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("test request is valid JSON for the shape")
}

/// Serialises a response to JSON for easy assertions.
pub fn js<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("responses serialise")
}

/// A table `tbl` with `pk` (S) and `sk` (N), a GSI `gsi` on `gpk` (S) / `gsk` (N) with ALL,
/// and an LSI `lsi` on `lsk` (S) with KEYS_ONLY.
pub fn engine_with_table() -> Engine {
    let e = Engine::new();
    e.create_table(req(json!({
        "TableName": "tbl",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "gpk", "AttributeType": "S"}, {"AttributeName": "gsk", "AttributeType": "N"},
            {"AttributeName": "lsk", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{
            "IndexName": "gsi",
            "KeySchema": [{"AttributeName": "gpk", "KeyType": "HASH"}, {"AttributeName": "gsk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}
        }],
        "LocalSecondaryIndexes": [{
            "IndexName": "lsi",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "lsk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}
        }]
    })))
    .expect("table is created");
    e
}

/// Puts an item given as DynamoDB JSON.
pub fn put(e: &Engine, item: Value) {
    e.put_item(req(json!({"TableName": "tbl", "Item": item}))).expect("put succeeds");
}

/// The error of a failed call, as (type name, message).
pub fn err<T: std::fmt::Debug>(r: Result<T, Error>) -> (String, String) {
    let e = r.expect_err("the call fails");
    (e.kind.type_name().to_owned(), e.message)
}
