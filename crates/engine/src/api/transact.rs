//! TransactWriteItems and TransactGetItems shapes.

use std::collections::HashMap;

use monotable_types::Item;

use super::common::*;

shape! {
    /// A condition on an item that is not written.
    pub struct ConditionCheck {
        key: Key,
        table_name: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// A put inside a transaction.
    pub struct Put {
        item: Item,
        table_name: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// A delete inside a transaction.
    pub struct Delete {
        key: Key,
        table_name: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// An update inside a transaction.
    pub struct Update {
        key: Key,
        update_expression: String,
        table_name: String,
        condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// Exactly one of `ConditionCheck`, `Put`, `Delete`, `Update`.
    pub struct TransactWriteItem { condition_check: ConditionCheck, put: Put, delete: Delete, update: Update }
}
shape! {
    /// TransactWriteItems request.
    pub struct TransactWriteItemsInput {
        transact_items: Vec<TransactWriteItem>,
        return_consumed_capacity: String,
        return_item_collection_metrics: String,
        client_request_token: String,
    }
}
shape! {
    /// TransactWriteItems response.
    pub struct TransactWriteItemsOutput {
        consumed_capacity: Vec<ConsumedCapacity>,
        item_collection_metrics: HashMap<String, Vec<ItemCollectionMetrics>>,
    }
}
shape! {
    /// A read inside TransactGetItems.
    pub struct Get {
        key: Key,
        table_name: String,
        projection_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
    }
}
shape! {
    /// One element of TransactGetItems.
    pub struct TransactGetItem { get: Get }
}
shape! {
    /// TransactGetItems request.
    pub struct TransactGetItemsInput { transact_items: Vec<TransactGetItem>, return_consumed_capacity: String }
}
shape! {
    /// The item read by one TransactGetItems element (absent `Item` when there was none).
    pub struct ItemResponse { item: SharedItem }
}
shape! {
    /// TransactGetItems response.
    pub struct TransactGetItemsOutput { consumed_capacity: Vec<ConsumedCapacity>, responses: Vec<ItemResponse> }
}
