//! Integration tests per operation, against the real engine.

mod common;

use common::*;
use monotable_engine::*;
use serde_json::json;

#[test]
fn create_describe_list_delete_table() {
    let e = engine_with_table();
    let d = e.describe_table(req(json!({"TableName": "tbl"}))).unwrap();
    let d = js(&d);
    assert_eq!(d["Table"]["TableStatus"], "ACTIVE");
    assert_eq!(d["Table"]["ItemCount"], 0);
    assert_eq!(d["Table"]["BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(d["Table"]["GlobalSecondaryIndexes"][0]["IndexStatus"], "ACTIVE");
    let l = e.list_tables(req(json!({}))).unwrap();
    assert_eq!(l.table_names, Some(vec!["tbl".to_owned()]));
    let out = e.delete_table(req(json!({"TableName": "tbl"}))).unwrap();
    assert_eq!(js(&out)["TableDescription"]["TableStatus"], "DELETING");
    let (kind, msg) = err(e.describe_table(req(json!({"TableName": "tbl"}))));
    assert_eq!(kind, "ResourceNotFoundException");
    assert_eq!(msg, "Requested resource not found: Table: tbl not found");
}

#[test]
fn creating_an_existing_table_is_resource_in_use() {
    let e = engine_with_table();
    let (kind, msg) = err(e.create_table(req(json!({
        "TableName": "tbl",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"
    }))));
    assert_eq!(kind, "ResourceInUseException");
    assert_eq!(msg, "Table already exists: tbl");
}

#[test]
fn short_table_name_is_refused_with_constraint_message() {
    let e = Engine::new();
    let (kind, msg) = err(e.describe_table(req(json!({"TableName": "ab"}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        msg,
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"
    );
}

#[test]
fn list_tables_paginates() {
    let e = Engine::new();
    for n in ["aaa", "bbb", "ccc"] {
        e.create_table(req(json!({
            "TableName": n,
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
        })))
        .unwrap();
    }
    let p1 = e.list_tables(req(json!({"Limit": 2}))).unwrap();
    assert_eq!(p1.table_names.unwrap(), vec!["aaa", "bbb"]);
    assert_eq!(p1.last_evaluated_table_name.as_deref(), Some("bbb"));
    let p2 = e.list_tables(req(json!({"Limit": 2, "ExclusiveStartTableName": "bbb"}))).unwrap();
    assert_eq!(p2.table_names.unwrap(), vec!["ccc"]);
    assert_eq!(p2.last_evaluated_table_name, None);
}

#[test]
fn put_get_round_trip_with_projection() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"M": {"y": {"S": "z"}, "w": {"N": "2"}}}}));
    let out = e
        .get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1.0"}},
            "ProjectionExpression": "#x.y", "ExpressionAttributeNames": {"#x": "x"}})))
        .unwrap();
    assert_eq!(js(&out)["Item"], json!({"x": {"M": {"y": {"S": "z"}}}}));
    let none =
        e.get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "b"}, "sk": {"N": "1"}}}))).unwrap();
    assert!(none.item.is_none());
}

#[test]
fn get_with_wrong_key_is_refused() {
    let e = engine_with_table();
    let (kind, msg) = err(e.get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "a"}}}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(msg, "The provided key element does not match the schema");
}

#[test]
fn missing_table_on_item_operation_is_resource_not_found() {
    let e = Engine::new();
    let (kind, msg) = err(e.get_item(req(json!({"TableName": "nope", "Key": {"pk": {"S": "a"}}}))));
    assert_eq!(kind, "ResourceNotFoundException");
    assert_eq!(msg, "Requested resource not found");
}

#[test]
fn empty_set_is_refused_with_dynamodb_message() {
    let e = engine_with_table();
    let (kind, msg) = err(e.put_item(req(json!({"TableName": "tbl",
        "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "s": {"SS": []}}}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(msg, "One or more parameter values were invalid: An string set  may not be empty");
}

#[test]
fn key_type_mismatch_and_empty_key_are_refused() {
    let e = engine_with_table();
    let (_, msg) =
        err(e.put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"N": "1"}, "sk": {"N": "1"}}}))));
    assert_eq!(
        msg,
        "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"
    );
    let (_, msg) =
        err(e.put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"S": ""}, "sk": {"N": "1"}}}))));
    assert_eq!(
        msg,
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"
    );
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": {"sk": {"N": "1"}}}))));
    assert_eq!(msg, "One or more parameter values were invalid: Missing the key pk in the item");
}

#[test]
fn empty_strings_are_allowed_outside_keys() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "s": {"S": ""}, "b": {"B": ""}}));
}

#[test]
fn item_over_400kb_is_refused() {
    let e = engine_with_table();
    let big = "x".repeat(400 * 1024);
    let (_, msg) = err(e.put_item(req(
        json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": big}}}),
    )));
    assert_eq!(msg, "Item size has exceeded the maximum allowed size");
}

#[test]
fn conditional_put_fails_and_returns_old_item_when_asked() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}}));
    let r = e.put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}},
        "ConditionExpression": "attribute_not_exists(pk)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})));
    let e2 = r.unwrap_err();
    assert_eq!(e2.kind.type_name(), "ConditionalCheckFailedException");
    assert_eq!(e2.message, "The conditional request failed");
    assert_eq!(js(&e2.item)["v"], json!({"N": "1"}));
}

#[test]
fn update_item_return_values_modes() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "5"}, "keep": {"S": "k"}}));
    let key = json!({"pk": {"S": "a"}, "sk": {"N": "1"}});
    let out = e
        .update_item(req(json!({"TableName": "tbl", "Key": key, "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"})))
        .unwrap();
    assert_eq!(js(&out)["Attributes"], json!({"n": {"N": "6"}}));
    let out = e
        .update_item(req(json!({"TableName": "tbl", "Key": key, "UpdateExpression": "SET n = n + :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_OLD"})))
        .unwrap();
    assert_eq!(js(&out)["Attributes"], json!({"n": {"N": "6"}}));
    let out = e
        .update_item(req(json!({"TableName": "tbl", "Key": key, "UpdateExpression": "REMOVE keep", "ReturnValues": "ALL_NEW"})))
        .unwrap();
    assert_eq!(js(&out)["Attributes"], json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "7"}}));
    let (_, msg) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key, "ReturnValues": "ALL_NEW"}))));
    assert_eq!(msg, "Return values set to invalid value");
}

#[test]
fn update_creates_missing_item() {
    let e = engine_with_table();
    e.update_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "2"}},
        "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}})))
        .unwrap();
    let got =
        e.get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "2"}}}))).unwrap();
    assert_eq!(js(&got)["Item"]["v"], json!({"S": "x"}));
}

#[test]
fn delete_item_returns_all_old() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "x"}}));
    let out = e
        .delete_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_OLD"})))
        .unwrap();
    assert_eq!(js(&out)["Attributes"]["v"], json!({"S": "x"}));
    let d = e.describe_table(req(json!({"TableName": "tbl"}))).unwrap();
    assert_eq!(d.table.unwrap().item_count, Some(0));
}

fn fill(e: &Engine, n: i64) {
    for i in 0..n {
        put(
            e,
            json!({"pk": {"S": "p"}, "sk": {"N": i.to_string()}, "gpk": {"S": "g"}, "gsk": {"N": (100 - i).to_string()}, "lsk": {"S": format!("l{i:03}")}}),
        );
    }
}

#[test]
fn query_paginates_in_both_directions() {
    let e = engine_with_table();
    fill(&e, 10);
    for forward in [true, false] {
        let mut seen = Vec::new();
        let mut start: Option<serde_json::Value> = None;
        loop {
            let mut r = json!({"TableName": "tbl", "KeyConditionExpression": "pk = :p AND sk >= :lo",
                "ExpressionAttributeValues": {":p": {"S": "p"}, ":lo": {"N": "2"}}, "Limit": 3, "ScanIndexForward": forward});
            if let Some(s) = &start {
                r["ExclusiveStartKey"] = s.clone();
            }
            let out = js(&e.query(req(r)).unwrap());
            for item in out["Items"].as_array().unwrap() {
                seen.push(item["sk"]["N"].as_str().unwrap().parse::<i64>().unwrap());
            }
            match out.get("LastEvaluatedKey") {
                Some(k) => start = Some(k.clone()),
                None => break,
            }
        }
        let mut want: Vec<i64> = (2..10).collect();
        if !forward {
            want.reverse();
        }
        assert_eq!(seen, want);
    }
}

#[test]
fn gsi_query_returns_index_order_and_index_shaped_last_key() {
    let e = engine_with_table();
    fill(&e, 5);
    put(&e, json!({"pk": {"S": "p"}, "sk": {"N": "99"}}));
    let out = js(&e
        .query(req(json!({"TableName": "tbl", "IndexName": "gsi", "KeyConditionExpression": "gpk = :g",
            "ExpressionAttributeValues": {":g": {"S": "g"}}, "Limit": 2})))
        .unwrap());
    assert_eq!(out["Items"][0]["gsk"], json!({"N": "96"}));
    assert_eq!(out["Count"], 2);
    let lek = out["LastEvaluatedKey"].as_object().unwrap();
    let mut keys: Vec<&String> = lek.keys().collect();
    keys.sort();
    assert_eq!(keys, vec!["gpk", "gsk", "pk", "sk"]);
    let d = js(&e.describe_table(req(json!({"TableName": "tbl"}))).unwrap());
    assert_eq!(d["Table"]["ItemCount"], 6);
    assert_eq!(d["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"], 5, "the index is sparse");
}

#[test]
fn lsi_keys_only_projection_and_all_attributes_fetch() {
    let e = engine_with_table();
    fill(&e, 3);
    let out = js(&e
        .query(req(json!({"TableName": "tbl", "IndexName": "lsi", "KeyConditionExpression": "pk = :p AND begins_with(lsk, :l)",
            "ExpressionAttributeValues": {":p": {"S": "p"}, ":l": {"S": "l00"}}})))
        .unwrap());
    assert_eq!(out["Count"], 3);
    assert!(out["Items"][0].get("gpk").is_none(), "KEYS_ONLY holds only keys");
    let out = js(&e
        .query(req(json!({"TableName": "tbl", "IndexName": "lsi", "Select": "ALL_ATTRIBUTES",
            "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}})))
        .unwrap());
    assert!(out["Items"][0].get("gpk").is_some(), "LSI reads fetch the base item");
}

#[test]
fn consistent_read_on_gsi_is_refused() {
    let e = engine_with_table();
    let (_, msg) = err(e.query(req(json!({"TableName": "tbl", "IndexName": "gsi", "ConsistentRead": true,
        "KeyConditionExpression": "gpk = :g", "ExpressionAttributeValues": {":g": {"S": "g"}}}))));
    assert_eq!(msg, "Consistent reads are not supported on global secondary indexes");
}

#[test]
fn query_filter_counts_and_select_count() {
    let e = engine_with_table();
    fill(&e, 10);
    let out = js(&e
        .query(req(
            json!({"TableName": "tbl", "KeyConditionExpression": "pk = :p", "FilterExpression": "gsk > :x",
            "ExpressionAttributeValues": {":p": {"S": "p"}, ":x": {"N": "95"}}, "Select": "COUNT"}),
        ))
        .unwrap());
    assert_eq!(out["Count"], 5);
    assert_eq!(out["ScannedCount"], 10);
    assert!(out.get("Items").is_none());
}

#[test]
fn pages_stop_at_one_megabyte_before_the_filter() {
    let e = engine_with_table();
    let blob = "x".repeat(100 * 1024);
    for i in 0..25 {
        put(&e, json!({"pk": {"S": "big"}, "sk": {"N": i.to_string()}, "v": {"S": blob}}));
    }
    let mut total = 0;
    let mut pages = 0;
    let mut start: Option<serde_json::Value> = None;
    loop {
        let mut r = json!({"TableName": "tbl", "KeyConditionExpression": "pk = :p", "FilterExpression": "attribute_not_exists(v)",
            "ExpressionAttributeValues": {":p": {"S": "big"}}});
        if let Some(s) = &start {
            r["ExclusiveStartKey"] = s.clone();
        }
        let out = js(&e.query(req(r)).unwrap());
        pages += 1;
        assert_eq!(out["Count"], 0);
        let scanned = out["ScannedCount"].as_i64().unwrap();
        assert!(scanned <= 11, "a page holds about 1 MB: {scanned}");
        total += scanned;
        match out.get("LastEvaluatedKey") {
            Some(k) => start = Some(k.clone()),
            None => break,
        }
    }
    assert_eq!(total, 25);
    assert!(pages >= 3);
}

#[test]
fn parallel_scan_segments_partition_the_table() {
    let e = engine_with_table();
    for i in 0..50 {
        put(&e, json!({"pk": {"S": format!("p{i}")}, "sk": {"N": "1"}}));
    }
    let mut total = 0;
    for seg in 0..4 {
        let out = e.scan(req(json!({"TableName": "tbl", "Segment": seg, "TotalSegments": 4}))).unwrap();
        total += out.count.unwrap();
    }
    assert_eq!(total, 50);
    let (_, msg) = err(e.scan(req(json!({"TableName": "tbl", "Segment": 4, "TotalSegments": 4}))));
    assert_eq!(
        msg,
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 4 is not less than TotalSegments: 4"
    );
}

#[test]
fn batch_write_and_get() {
    let e = engine_with_table();
    let puts: Vec<_> = (0..5)
        .map(|i| json!({"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"N": i.to_string()}}}}))
        .collect();
    e.batch_write_item(req(json!({"RequestItems": {"tbl": puts}}))).unwrap();
    let keys: Vec<_> = (0..6).map(|i| json!({"pk": {"S": "b"}, "sk": {"N": i.to_string()}})).collect();
    let out = e.batch_get_item(req(json!({"RequestItems": {"tbl": {"Keys": keys}}}))).unwrap();
    assert_eq!(out.responses.unwrap()["tbl"].len(), 5);
    let dup = vec![json!({"DeleteRequest": {"Key": {"pk": {"S": "b"}, "sk": {"N": "1"}}}}); 2];
    let (_, msg) = err(e.batch_write_item(req(json!({"RequestItems": {"tbl": dup}}))));
    assert_eq!(msg, "Provided list of item keys contains duplicates");
    let many: Vec<_> = (0..26)
        .map(|i| json!({"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"N": i.to_string()}}}}))
        .collect();
    let (kind, _) = err(e.batch_write_item(req(json!({"RequestItems": {"tbl": many}}))));
    assert_eq!(kind, "ValidationException");
}

#[test]
fn transaction_cancels_with_reasons_in_request_order() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}}));
    let r = e.transact_write_items(req(json!({"TransactItems": [
        {"Put": {"TableName": "tbl", "Item": {"pk": {"S": "x"}, "sk": {"N": "1"}}}},
        {"ConditionCheck": {"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
            "ConditionExpression": "v = :two", "ExpressionAttributeValues": {":two": {"N": "2"}},
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}
    ]})));
    let e2 = r.unwrap_err();
    assert_eq!(e2.kind, ErrorKind::TransactionCanceled);
    assert_eq!(e2.message, "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]");
    let reasons = e2.cancellation_reasons.unwrap();
    assert_eq!(reasons[0].code.as_deref(), Some("None"));
    assert_eq!(js(&reasons[1].item)["v"], json!({"N": "1"}));
    let got =
        e.get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "x"}, "sk": {"N": "1"}}}))).unwrap();
    assert!(got.item.is_none(), "nothing of a cancelled transaction is written");
}

#[test]
fn transaction_refuses_two_actions_on_one_item_and_honours_tokens() {
    let e = engine_with_table();
    let key = json!({"pk": {"S": "a"}, "sk": {"N": "1"}});
    let (_, msg) = err(e.transact_write_items(req(json!({"TransactItems": [
        {"Put": {"TableName": "tbl", "Item": key}}, {"Delete": {"TableName": "tbl", "Key": key}}]}))));
    assert_eq!(msg, "Transaction request cannot include multiple operations on one item");
    let tx = json!({"ClientRequestToken": "tok", "TransactItems": [
        {"Update": {"TableName": "tbl", "Key": key, "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]});
    e.transact_write_items(req(tx.clone())).unwrap();
    e.transact_write_items(req(tx)).unwrap();
    let got = js(&e.get_item(req(json!({"TableName": "tbl", "Key": key}))).unwrap());
    assert_eq!(got["Item"]["n"], json!({"N": "1"}), "a repeated token is applied once");
    let (kind, _) = err(e.transact_write_items(req(json!({"ClientRequestToken": "tok", "TransactItems": [
        {"Delete": {"TableName": "tbl", "Key": key}}]}))));
    assert_eq!(kind, "IdempotentParameterMismatchException");
}

#[test]
fn transact_get_items_reads_all() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}}));
    let out = e
        .transact_get_items(req(json!({"TransactItems": [
            {"Get": {"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}},
            {"Get": {"TableName": "tbl", "Key": {"pk": {"S": "b"}, "sk": {"N": "1"}}}}]})))
        .unwrap();
    let r = out.responses.unwrap();
    assert!(r[0].item.is_some() && r[1].item.is_none());
}

#[test]
fn legacy_parameters_work_and_cannot_mix_with_expressions() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}, "w": {"S": "x"}}));
    let key = json!({"pk": {"S": "a"}, "sk": {"N": "1"}});
    let (kind, _) = err(e.put_item(req(json!({"TableName": "tbl", "Item": key,
        "Expected": {"v": {"Value": {"N": "2"}}}}))));
    assert_eq!(kind, "ConditionalCheckFailedException");
    e.update_item(req(json!({"TableName": "tbl", "Key": key, "Expected": {"v": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}},
        "AttributeUpdates": {"v": {"Action": "ADD", "Value": {"N": "5"}}}})))
        .unwrap();
    let got =
        js(&e.get_item(req(json!({"TableName": "tbl", "Key": key, "AttributesToGet": ["v"]}))).unwrap());
    assert_eq!(got["Item"], json!({"v": {"N": "6"}}));
    let (_, msg) = err(e.get_item(req(
        json!({"TableName": "tbl", "Key": key, "AttributesToGet": ["v"], "ProjectionExpression": "v"}),
    )));
    assert_eq!(
        msg,
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"
    );
    let out = js(&e
        .query(req(json!({"TableName": "tbl", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
            "QueryFilter": {"w": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "x"}]}}})))
        .unwrap());
    assert_eq!(out["Count"], 1);
}

#[test]
fn update_table_adds_gsi_with_backfill_and_deletes_it() {
    let e = engine_with_table();
    for i in 0..4 {
        put(
            &e,
            json!({"pk": {"S": "p"}, "sk": {"N": i.to_string()}, "c": {"S": if i % 2 == 0 { "even" } else { "odd" }}}),
        );
    }
    e.update_table(req(json!({"TableName": "tbl", "AttributeDefinitions": [{"AttributeName": "c", "AttributeType": "S"}],
        "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "byc", "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}}]})))
        .unwrap();
    let out = e
        .query(req(json!({"TableName": "tbl", "IndexName": "byc", "KeyConditionExpression": "c = :c",
            "ExpressionAttributeValues": {":c": {"S": "even"}}})))
        .unwrap();
    assert_eq!(out.count, Some(2));
    e.update_table(req(
        json!({"TableName": "tbl", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "byc"}}]}),
    ))
    .unwrap();
    let (_, msg) = err(e
        .query(req(json!({"TableName": "tbl", "IndexName": "byc", "KeyConditionExpression": "c = :c",
        "ExpressionAttributeValues": {":c": {"S": "even"}}}))));
    assert_eq!(msg, "The table does not have the specified index: byc");
}

#[test]
fn consumed_capacity_uses_dynamodb_rounding() {
    let e = engine_with_table();
    let out = e
        .put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "gpk": {"S": "g"}, "gsk": {"N": "1"}, "v": {"S": "x".repeat(1500)}},
            "ReturnConsumedCapacity": "INDEXES"})))
        .unwrap();
    let cc = js(&out.consumed_capacity);
    assert_eq!(cc["Table"]["CapacityUnits"], 2.0);
    assert_eq!(cc["GlobalSecondaryIndexes"]["gsi"]["CapacityUnits"], 2.0);
    assert_eq!(cc["CapacityUnits"], 4.0);
    let out = e
        .get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnConsumedCapacity": "TOTAL"})))
        .unwrap();
    assert_eq!(js(&out.consumed_capacity)["CapacityUnits"], 0.5);
}

#[test]
fn ttl_and_tags_round_trip() {
    let e = engine_with_table();
    e.update_time_to_live(req(
        json!({"TableName": "tbl", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "exp"}}),
    ))
    .unwrap();
    let d = js(&e.describe_time_to_live(req(json!({"TableName": "tbl"}))).unwrap());
    assert_eq!(d["TimeToLiveDescription"], json!({"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}));
    let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl";
    e.tag_resource(req(json!({"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]}))).unwrap();
    let tags = e.list_tags_of_resource(req(json!({"ResourceArn": arn}))).unwrap();
    assert_eq!(tags.tags.unwrap().len(), 1);
    e.untag_resource(req(json!({"ResourceArn": arn, "TagKeys": ["k"]}))).unwrap();
    assert!(e.list_tags_of_resource(req(json!({"ResourceArn": arn}))).unwrap().tags.unwrap().is_empty());
}

#[test]
fn gsi_key_type_mismatch_is_refused() {
    let e = engine_with_table();
    let (_, msg) = err(e.put_item(req(
        json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "gpk": {"N": "1"}}}),
    )));
    assert_eq!(msg, "One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N IndexName: gsi");
}

#[test]
fn item_collection_metrics_for_tables_with_lsi() {
    let e = engine_with_table();
    let out = e
        .put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}},
            "ReturnItemCollectionMetrics": "SIZE"})))
        .unwrap();
    assert_eq!(
        js(&out.item_collection_metrics),
        json!({"ItemCollectionKey": {"pk": {"S": "a"}}, "SizeEstimateRangeGB": [0.0, 1.0]})
    );
    let out = e
        .transact_write_items(req(json!({"ReturnItemCollectionMetrics": "SIZE", "TransactItems": [
            {"Put": {"TableName": "tbl", "Item": {"pk": {"S": "b"}, "sk": {"N": "1"}}}}]})))
        .unwrap();
    assert_eq!(out.item_collection_metrics.unwrap()["tbl"].len(), 1);
}

#[test]
fn invalid_update_in_a_transaction_is_a_validation_error_reason() {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1"}, "s": {"S": "text"}}));
    let r = e.transact_write_items(req(json!({"TransactItems": [
        {"Update": {"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "SET s = s + :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}}}]})));
    let e2 = r.unwrap_err();
    assert_eq!(e2.kind, ErrorKind::TransactionCanceled);
    let reasons = e2.cancellation_reasons.unwrap();
    assert_eq!(reasons[0].code.as_deref(), Some("ValidationError"));
}

#[test]
fn an_engine_over_an_existing_store_loads_its_tables_and_counts() {
    let storage = std::sync::Arc::new(MemoryStorage::new());
    let e = Engine::with_storage(storage.clone()).unwrap();
    e.create_table(req(json!({
        "TableName": "tbl",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    })))
    .unwrap();
    e.put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}))).unwrap();
    e.put_item(req(json!({"TableName": "tbl", "Item": {"pk": {"S": "b"}}}))).unwrap();
    let again = Engine::with_storage(storage).unwrap();
    let d = js(&again.describe_table(req(json!({"TableName": "tbl"}))).unwrap());
    assert_eq!(d["Table"]["ItemCount"], 2);
    assert_eq!(d["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"], 1);
    let q = again
        .query(req(json!({"TableName": "tbl", "IndexName": "gsi", "KeyConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": "x"}}})))
        .unwrap();
    assert_eq!(q.count, Some(1));
}

#[test]
fn engine_is_clone_send_and_sync() {
    fn check<T: Clone + Send + Sync + 'static>() {}
    check::<Engine>();
    check::<Error>();
}
