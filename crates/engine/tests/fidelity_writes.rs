//! Write-path behaviours as DynamoDB has them: TransactWriteItems' request constraints, and
//! what an UpdateItem on a missing item creates.

mod common;

use common::*;
use serde_json::json;

// Source: API_TransactWriteItems, each action's ReturnValuesOnConditionCheckFailure ("Valid
// Values: ALL_OLD | NONE"); an enum member failing its constraint is reported in the
// "N validation error(s) detected" envelope with the member's path, as PutItem's
// `returnValuesOnConditionCheckFailure` already is.
#[test]
fn bad_return_values_on_condition_check_failure_is_a_constraint_error_naming_the_action() {
    let e = engine_with_table();
    let key = json!({"pk": {"S": "a"}, "sk": {"N": "1"}});
    let (kind, msg) = err(e.transact_write_items(req(json!({"TransactItems": [
        {"Put": {"TableName": "tbl", "Item": key.clone()}},
        {"ConditionCheck": {"TableName": "tbl", "Key": {"pk": {"S": "b"}, "sk": {"N": "1"}},
            "ConditionExpression": "attribute_exists(pk)", "ReturnValuesOnConditionCheckFailure": "SOME"}}
    ]}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        msg,
        "1 validation error detected: Value 'SOME' at 'transactItems.2.member.conditionCheck.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"
    );
    let (_, msg) = err(e.transact_write_items(req(json!({"TransactItems": [
        {"Delete": {"TableName": "tbl", "Key": key.clone(), "ReturnValuesOnConditionCheckFailure": "all_old"}},
        {"Update": {"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET a = :v",
            "ExpressionAttributeValues": {":v": {"S": "x"}}, "ReturnValuesOnConditionCheckFailure": "NEW"}}
    ]}))));
    assert_eq!(
        msg,
        "2 validation errors detected: Value 'all_old' at 'transactItems.1.member.delete.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]; Value 'NEW' at 'transactItems.2.member.update.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"
    );
    // ALL_OLD and NONE are accepted.
    e.transact_write_items(req(json!({"TransactItems": [
        {"Put": {"TableName": "tbl", "Item": key, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}
    ]})))
    .expect("ALL_OLD is valid");
}

// Source: ScyllaDB Alternator's `test_update_item_non_existent` and `test_update_item_delete`
// (test/alternator/test_item.py, run against DynamoDB; scylladb issue #5862): an UpdateItem
// that only removes attributes or set members does not create a missing item; any other
// update, even an empty AttributeUpdates, creates it with its key.
#[test]
fn an_update_that_only_removes_does_not_create_a_missing_item() {
    let e = engine_with_table();
    let key = |n: i64| json!({"pk": {"S": "missing"}, "sk": {"N": n.to_string()}});
    let cases = [
        (json!({"UpdateExpression": "REMOVE a"}), false),
        (
            json!({"UpdateExpression": "DELETE s :v", "ExpressionAttributeValues": {":v": {"SS": ["x"]}}}),
            false,
        ),
        (
            json!({"UpdateExpression": "REMOVE a DELETE s :v", "ExpressionAttributeValues": {":v": {"SS": ["x"]}}}),
            false,
        ),
        (json!({"AttributeUpdates": {"a": {"Action": "DELETE"}}}), false),
        (json!({"AttributeUpdates": {"s": {"Action": "DELETE", "Value": {"SS": ["x"]}}}}), false),
        (
            json!({"UpdateExpression": "REMOVE a SET b = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}),
            true,
        ),
        (json!({"UpdateExpression": "ADD n :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}), true),
        (json!({"AttributeUpdates": {}}), true),
    ];
    for (i, (update, creates)) in cases.into_iter().enumerate() {
        let mut request = update.clone();
        request["TableName"] = json!("tbl");
        request["Key"] = key(i as i64);
        request["ReturnValues"] = json!("ALL_NEW");
        let out = e.update_item(req(request)).expect("update succeeds");
        let got = e.get_item(req(json!({"TableName": "tbl", "Key": key(i as i64)}))).expect("get item");
        assert_eq!(js(&got).get("Item").is_some(), creates, "{update}");
        assert_eq!(js(&out).get("Attributes").is_some(), creates, "{update}");
    }
}
