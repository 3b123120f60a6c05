//! DynamoDB's validation errors, one behaviour per test.

mod common;

use common::*;
use serde_json::json;

fn key() -> serde_json::Value {
    json!({"pk": {"S": "a"}, "sk": {"N": "1"}})
}

#[test]
fn expression_values_without_a_value_expression_name_the_null_expressions() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(
        json!({"TableName": "tbl", "Item": key(), "ExpressionAttributeValues": {":v": {"S": "x"}}}),
    )));
    assert_eq!(
        msg,
        "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"
    );
    let (_, msg) = err(e.update_item(req(
        json!({"TableName": "tbl", "Key": key(), "ExpressionAttributeValues": {":v": {"S": "x"}}}),
    )));
    assert_eq!(
        msg,
        "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"
    );
}

#[test]
fn expression_names_without_expressions_are_refused() {
    let e = engine_with_table();
    let (_, msg) = err(
        e.get_item(req(json!({"TableName": "tbl", "Key": key(), "ExpressionAttributeNames": {"#a": "a"}})))
    );
    assert_eq!(msg, "ExpressionAttributeNames can only be specified when using expressions");
}

#[test]
fn empty_placeholder_maps_are_refused() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(),
        "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {}}))));
    assert_eq!(msg, "ExpressionAttributeValues must not be empty");
}

#[test]
fn placeholder_keys_must_have_placeholder_syntax() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(),
        "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeNames": {"a": "b"}}))));
    assert_eq!(msg, "ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"");
}

#[test]
fn invalid_expression_values_name_their_key() {
    let e = engine_with_table();
    let (_, msg) = err(e.update_item(req(json!({"TableName": "tbl", "Key": key(),
        "UpdateExpression": "ADD s :v", "ExpressionAttributeValues": {":v": {"SS": []}}}))));
    assert_eq!(
        msg,
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v"
    );
}

#[test]
fn duplicate_set_members_are_refused() {
    let e = engine_with_table();
    let mut item = key();
    item["s"] = json!({"SS": ["a", "a"]});
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": item}))));
    assert_eq!(
        msg,
        "One or more parameter values were invalid: Input collection [a, a] contains duplicates."
    );
}

/// A value of `wraps` nested maps (or lists) around a string.
fn nested(wraps: usize, list: bool) -> serde_json::Value {
    let mut v = json!({"S": "leaf"});
    for _ in 0..wraps {
        v = if list { json!({"L": [v]}) } else { json!({"M": {"n": v}}) };
    }
    v
}

// Source for the nesting tests: paritysuite/dynamodb-conformance, the nesting-depth tests
// (tier "limits"), recorded against DynamoDB in several regions (2026-06, 2026-10-08/09): the
// attribute's value is level 1, 31 wraps (leaf at level 32) are accepted and 32 refused;
// PutItem and UpdateItem wrap the text in the validation envelope, BatchWriteItem and
// TransactWriteItems do not; far deeper (63) PutItem drops the envelope and UpdateItem names
// the ExpressionAttributeValues key.
const NEST: &str =
    "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit";

#[test]
fn nesting_of_31_levels_is_accepted_and_32_refused() {
    let e = engine_with_table();
    for list in [false, true] {
        let mut item = key();
        item["deep"] = nested(31, list);
        e.put_item(req(json!({"TableName": "tbl", "Item": item.clone()}))).unwrap();
        item["deep"] = nested(32, list);
        let (kind, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": item}))));
        assert_eq!(kind, "ValidationException");
        assert_eq!(msg, format!("1 validation error detected: {NEST}"), "list: {list}");
    }
    let mut item = key();
    item["deep"] = nested(61, false);
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": item.clone()}))));
    assert_eq!(msg, format!("1 validation error detected: {NEST}"));
    item["deep"] = nested(63, false);
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": item}))));
    assert_eq!(msg, NEST);
}

#[test]
fn a_too_deep_expression_value_of_update_item_is_refused_before_the_condition() {
    let e = engine_with_table();
    put(&e, key());
    let update = |wraps: usize| {
        e.update_item(req(json!({
            "TableName": "tbl", "Key": key(), "UpdateExpression": "SET t = :t",
            "ConditionExpression": "#d = :deep", "ExpressionAttributeNames": {"#d": "data"},
            "ExpressionAttributeValues": {":t": {"S": "y"}, ":deep": nested(wraps, false)}
        })))
    };
    assert_eq!(err(update(31)).0, "ConditionalCheckFailedException");
    assert_eq!(err(update(32)).1, format!("1 validation error detected: {NEST}"));
    assert_eq!(
        err(update(63)).1,
        format!("ExpressionAttributeValues contains invalid value: {NEST} for key :deep")
    );
}

#[test]
fn batch_write_and_transaction_puts_refuse_deep_items_without_the_envelope() {
    let e = engine_with_table();
    let mut item = key();
    item["deep"] = nested(32, false);
    let (kind, msg) = err(
        e.batch_write_item(req(json!({"RequestItems": {"tbl": [{"PutRequest": {"Item": item.clone()}}]}})))
    );
    assert_eq!((kind.as_str(), msg.as_str()), ("ValidationException", NEST));
    let (kind, msg) = err(
        e.transact_write_items(req(json!({"TransactItems": [{"Put": {"TableName": "tbl", "Item": item}}]})))
    );
    assert_eq!((kind.as_str(), msg.as_str()), ("ValidationException", NEST));
}

#[test]
fn expected_exists_and_comparison_operator_cannot_be_combined() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(),
        "Expected": {"a": {"Exists": true, "ComparisonOperator": "NULL"}}}))));
    assert_eq!(msg, "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a");
}

#[test]
fn expected_value_is_required_unless_exists_is_false() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(), "Expected": {"a": {}}}))));
    assert_eq!(msg, "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a");
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(),
        "Expected": {"a": {"Exists": false, "Value": {"S": "x"}}}}))));
    assert_eq!(msg, "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a");
}

#[test]
fn legacy_argument_counts_are_checked() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(),
        "Expected": {"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}]}}}))));
    assert_eq!(msg, "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator");
}

#[test]
fn legacy_add_refuses_strings() {
    let e = engine_with_table();
    let (_, msg) = err(e.update_item(req(json!({"TableName": "tbl", "Key": key(),
        "AttributeUpdates": {"a": {"Action": "ADD", "Value": {"S": "x"}}}}))));
    assert_eq!(msg, "One or more parameter values were invalid: ADD action is not supported for the type S");
}

#[test]
fn legacy_add_appends_to_lists() {
    let e = engine_with_table();
    for _ in 0..2 {
        e.update_item(req(json!({"TableName": "tbl", "Key": key(),
            "AttributeUpdates": {"l": {"Action": "ADD", "Value": {"L": [{"S": "x"}]}}}})))
            .unwrap();
    }
    let got = js(&e.get_item(req(json!({"TableName": "tbl", "Key": key()}))).unwrap());
    assert_eq!(got["Item"]["l"], json!({"L": [{"S": "x"}, {"S": "x"}]}));
}

#[test]
fn key_conditions_may_combine_with_a_filter_expression() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}}));
    let out = e
        .query(req(json!({"TableName": "tbl",
            "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
            "FilterExpression": "v = :one", "ExpressionAttributeValues": {":one": {"N": "1"}}})))
        .unwrap();
    assert_eq!(out.count, Some(1));
}

#[test]
fn query_needs_a_key_condition() {
    let e = engine_with_table();
    let (_, msg) = err(e.query(req(json!({"TableName": "tbl"}))));
    assert_eq!(
        msg,
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
    );
}

#[test]
fn all_projected_attributes_needs_an_index() {
    let e = engine_with_table();
    let (_, msg) = err(e.query(req(json!({"TableName": "tbl", "Select": "ALL_PROJECTED_ATTRIBUTES",
        "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}))));
    // Query wraps this Select error in the constraint envelope (moto's AWS-verified
    // `test_all_projected_attributes_rejected_for_table`); Scan reports it bare.
    assert_eq!(
        msg,
        "1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
    );
}

#[test]
fn bad_enum_values_are_constraint_errors() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key(), "ReturnValues": "SOME"}))));
    assert_eq!(
        msg,
        "1 validation error detected: Value 'SOME' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
    );
}

#[test]
fn limit_must_be_positive() {
    let e = engine_with_table();
    let (_, msg) = err(e.scan(req(json!({"TableName": "tbl", "Limit": 0}))));
    assert_eq!(
        msg,
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
}

#[test]
fn unknown_index_is_refused() {
    let e = engine_with_table();
    let (_, msg) = err(e.scan(req(json!({"TableName": "tbl", "IndexName": "nope"}))));
    assert_eq!(msg, "The table does not have the specified index: nope");
}

#[test]
fn partition_key_over_2048_bytes_is_refused() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(
        json!({"TableName": "tbl", "Item": {"pk": {"S": "x".repeat(2049)}, "sk": {"N": "1"}}}),
    )));
    assert_eq!(msg, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes");
}

#[test]
fn transactions_over_100_actions_are_refused() {
    let e = engine_with_table();
    let items: Vec<_> = (0..101)
        .map(|i| json!({"Put": {"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": i.to_string()}}}}))
        .collect();
    let (kind, msg) = err(e.transact_write_items(req(json!({"TransactItems": items}))));
    assert_eq!(kind, "ValidationException");
    assert!(msg.contains("Member must have length less than or equal to 100"), "{msg}");
}

#[test]
fn deletion_protection_blocks_delete_table() {
    let e = engine_with_table();
    e.update_table(req(json!({"TableName": "tbl", "DeletionProtectionEnabled": true}))).unwrap();
    let (kind, _) = err(e.delete_table(req(json!({"TableName": "tbl"}))));
    assert_eq!(kind, "ValidationException");
}

fn create(e: &monotable_engine::Engine, v: serde_json::Value) -> (String, String) {
    err(e.create_table(req(v)))
}

#[test]
fn create_table_requires_provisioned_throughput_by_default() {
    let e = monotable_engine::Engine::new();
    let (_, msg) = create(
        &e,
        json!({"TableName": "abc",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}),
    );
    assert_eq!(
        msg,
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
    );
}

#[test]
fn create_table_refuses_unused_attribute_definitions() {
    let e = monotable_engine::Engine::new();
    let (_, msg) = create(
        &e,
        json!({"TableName": "abc", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}),
    );
    assert_eq!(
        msg,
        "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"
    );
}

#[test]
fn create_table_lsi_needs_a_table_range_key() {
    let e = monotable_engine::Engine::new();
    let (_, msg) = create(
        &e,
        json!({"TableName": "abc", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "LocalSecondaryIndexes": [{"IndexName": "lsi", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "x", "KeyType": "RANGE"}]}]}),
    );
    assert_eq!(
        msg,
        "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"
    );
}

#[test]
fn create_table_key_type_enum_is_checked() {
    let e = monotable_engine::Engine::new();
    let (_, msg) = create(
        &e,
        json!({"TableName": "abc", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASHY"}]}),
    );
    assert_eq!(
        msg,
        "1 validation error detected: Value 'HASHY' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"
    );
}

#[test]
fn include_projection_needs_non_key_attributes() {
    let e = monotable_engine::Engine::new();
    let (_, msg) = create(
        &e,
        json!({"TableName": "abc", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{"IndexName": "gsi", "Projection": {"ProjectionType": "INCLUDE"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]}]}),
    );
    assert_eq!(msg, "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
}

#[test]
fn concurrent_token_reuse_with_other_parameters_is_a_mismatch() {
    let e = engine_with_table();
    let put = |v: &str| {
        json!({"ClientRequestToken": "t1", "TransactItems": [
            {"Put": {"TableName": "tbl", "Item": {"pk": {"S": v}, "sk": {"N": "1"}}}}]})
    };
    e.transact_write_items(req(put("a"))).unwrap();
    let (kind, _) = err(e.transact_write_items(req(put("b"))));
    assert_eq!(kind, "IdempotentParameterMismatchException");
}

#[test]
fn query_start_key_outside_the_key_condition_is_refused() {
    let e = engine_with_table();
    let (_, msg) = err(e.query(req(json!({"TableName": "tbl", "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "a"}},
        "ExclusiveStartKey": {"pk": {"S": "b"}, "sk": {"N": "1"}}}))));
    assert_eq!(msg, "The provided starting key is outside query boundaries based on provided conditions");
}

#[test]
fn update_past_400kb_uses_the_update_wording() {
    let e = engine_with_table();
    let big = "x".repeat(300 * 1024);
    let mut item = key();
    item["a"] = json!({"S": big});
    put(&e, item);
    let (_, msg) = err(e
        .update_item(req(json!({"TableName": "tbl", "Key": key(), "UpdateExpression": "SET b = :b",
        "ExpressionAttributeValues": {":b": {"S": "y".repeat(200 * 1024)}}}))));
    assert_eq!(msg, "Item size to update has exceeded the maximum allowed size");
}
