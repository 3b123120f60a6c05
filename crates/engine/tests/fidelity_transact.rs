//! TransactWriteItems' request constraints as DynamoDB reports them.

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
