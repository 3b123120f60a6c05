//! Query and Scan shapes.

use std::collections::HashMap;

use super::common::*;

shape! {
    /// Query request.
    pub struct QueryInput {
        table_name: String,
        index_name: String,
        select: String,
        attributes_to_get: Vec<String>,
        limit: i64,
        consistent_read: bool,
        key_conditions: HashMap<String, Condition>,
        query_filter: HashMap<String, Condition>,
        conditional_operator: String,
        scan_index_forward: bool,
        exclusive_start_key: Key,
        return_consumed_capacity: String,
        projection_expression: String,
        filter_expression: String,
        key_condition_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
    }
}
shape! {
    /// Query response.
    pub struct QueryOutput {
        items: Vec<SharedItem>,
        count: i64,
        scanned_count: i64,
        last_evaluated_key: Key,
        consumed_capacity: ConsumedCapacity,
    }
}
shape! {
    /// Scan request.
    pub struct ScanInput {
        table_name: String,
        index_name: String,
        attributes_to_get: Vec<String>,
        limit: i64,
        select: String,
        scan_filter: HashMap<String, Condition>,
        conditional_operator: String,
        exclusive_start_key: Key,
        return_consumed_capacity: String,
        total_segments: i64,
        segment: i64,
        projection_expression: String,
        filter_expression: String,
        expression_attribute_names: ExpressionAttributeNames,
        expression_attribute_values: ExpressionAttributeValues,
        consistent_read: bool,
    }
}
shape! {
    /// Scan response.
    pub struct ScanOutput {
        items: Vec<SharedItem>,
        count: i64,
        scanned_count: i64,
        last_evaluated_key: Key,
        consumed_capacity: ConsumedCapacity,
    }
}
