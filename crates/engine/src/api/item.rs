//! Single-item shapes: GetItem, PutItem, UpdateItem, DeleteItem.

use std::collections::HashMap;

use monotable_types::{Item, ValueRef};

use super::common::*;

shape! {
    /// GetItem request.
    pub struct GetItemInput {
        table_name: String,
        key: Key,
        attributes_to_get: Vec<String>,
        consistent_read: bool,
        return_consumed_capacity: String,
        projection_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
    }
}
shape! {
    /// GetItem response.
    pub struct GetItemOutput { item: SharedItem, consumed_capacity: ConsumedCapacity }
}

/// A GetItem request borrowed from the caller's buffer, for [`crate::Engine::get_item_ref`]:
/// the members of the plain lookup SDKs send on the hot path, and nothing else. Numbers are
/// given as their request text (`ValueRef::N("1.50")`), binary values already decoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetItemRef<'a> {
    /// `TableName`.
    pub table_name: &'a str,
    /// `Key`: attribute names and values, in request order.
    pub key: &'a [(&'a str, ValueRef<'a>)],
    /// `ConsistentRead`.
    pub consistent_read: Option<bool>,
    /// `ReturnConsumedCapacity`.
    pub return_consumed_capacity: Option<&'a str>,
}
shape! {
    /// PutItem request.
    pub struct PutItemInput {
        table_name: String,
        item: Item,
        expected: HashMap<String, ExpectedAttributeValue>,
        return_values: String,
        return_consumed_capacity: String,
        return_item_collection_metrics: String,
        conditional_operator: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// PutItem response.
    pub struct PutItemOutput {
        attributes: SharedItem,
        consumed_capacity: ConsumedCapacity,
        item_collection_metrics: ItemCollectionMetrics,
    }
}
shape! {
    /// UpdateItem request.
    pub struct UpdateItemInput {
        table_name: String,
        key: Key,
        attribute_updates: HashMap<String, AttributeValueUpdate>,
        expected: HashMap<String, ExpectedAttributeValue>,
        conditional_operator: String,
        return_values: String,
        return_consumed_capacity: String,
        return_item_collection_metrics: String,
        update_expression: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// UpdateItem response.
    pub struct UpdateItemOutput {
        attributes: SharedItem,
        consumed_capacity: ConsumedCapacity,
        item_collection_metrics: ItemCollectionMetrics,
    }
}
shape! {
    /// DeleteItem request.
    pub struct DeleteItemInput {
        table_name: String,
        key: Key,
        expected: HashMap<String, ExpectedAttributeValue>,
        conditional_operator: String,
        return_values: String,
        return_consumed_capacity: String,
        return_item_collection_metrics: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// DeleteItem response.
    pub struct DeleteItemOutput {
        attributes: SharedItem,
        consumed_capacity: ConsumedCapacity,
        item_collection_metrics: ItemCollectionMetrics,
    }
}
