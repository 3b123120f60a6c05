//! BatchGetItem and BatchWriteItem shapes.

use std::collections::HashMap;

use monotable_types::Item;

use super::common::*;

shape! {
    /// The keys (and what to return) for one table of a BatchGetItem.
    pub struct KeysAndAttributes {
        keys: Vec<Key>,
        attributes_to_get: Vec<String>,
        consistent_read: bool,
        projection_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
    }
}
shape! {
    /// BatchGetItem request.
    pub struct BatchGetItemInput {
        request_items: HashMap<String, KeysAndAttributes>,
        return_consumed_capacity: String,
    }
}
shape! {
    /// BatchGetItem response.
    pub struct BatchGetItemOutput {
        responses: HashMap<String, Vec<SharedItem>>,
        unprocessed_keys: HashMap<String, KeysAndAttributes>,
        consumed_capacity: Vec<ConsumedCapacity>,
    }
}
shape! {
    /// A put inside BatchWriteItem.
    pub struct PutRequest { item: Item }
}
shape! {
    /// A delete inside BatchWriteItem.
    pub struct DeleteRequest { key: Key }
}
shape! {
    /// Exactly one of `PutRequest` or `DeleteRequest`.
    pub struct WriteRequest { put_request: PutRequest, delete_request: DeleteRequest }
}
shape! {
    /// BatchWriteItem request.
    pub struct BatchWriteItemInput {
        request_items: HashMap<String, Vec<WriteRequest>>,
        return_consumed_capacity: String,
        return_item_collection_metrics: String,
    }
}
shape! {
    /// BatchWriteItem response.
    pub struct BatchWriteItemOutput {
        unprocessed_items: HashMap<String, Vec<WriteRequest>>,
        item_collection_metrics: HashMap<String, Vec<ItemCollectionMetrics>>,
        consumed_capacity: Vec<ConsumedCapacity>,
    }
}
