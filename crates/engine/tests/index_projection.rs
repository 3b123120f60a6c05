//! Reads of a secondary index that name attributes the index does not project (sources in
//! `engine/core/index_projection.rs`: DynamoDB Local's `QueryFunction` and
//! `validateAttributesToGetAndProjExpr`, user reports of DynamoDB's message, and PartiQL suites
//! recorded against DynamoDB).

mod common;

use common::*;
use monotable_engine::*;
use serde_json::{json, Value};

const FILTER: &str = "One or more parameter values were invalid: Secondary index";

/// Table `tbl` (pk), GSI `gsi-inc` on `gsiPk` projecting `projattr`, GSI `gsi-all` on `gsiPk`
/// (ALL), LSI-free; and table `lsitbl` (pk, sk) with LSI `lsi-keys` (KEYS_ONLY) on `lsk`.
fn engine() -> Engine {
    let e = Engine::new();
    e.create_table(req(json!({
        "TableName": "tbl",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "gsiPk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {"IndexName": "gsi-inc", "KeySchema": [{"AttributeName": "gsiPk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["projattr"]}},
            {"IndexName": "gsi-all", "KeySchema": [{"AttributeName": "gsiPk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}}
        ]
    })))
    .expect("tbl is created");
    e.create_table(req(json!({
        "TableName": "lsitbl",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "lsk", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
        "LocalSecondaryIndexes": [{"IndexName": "lsi-keys",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "lsk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}]
    })))
    .expect("lsitbl is created");
    e.put_item(req(json!({"TableName": "tbl", "Item": {
        "pk": {"S": "p"}, "gsiPk": {"S": "y"}, "projattr": {"S": "proj1"}, "nonproj": {"S": "np1"}}})))
        .expect("put");
    e.put_item(req(json!({"TableName": "lsitbl", "Item": {
        "pk": {"S": "p"}, "sk": {"S": "1"}, "lsk": {"S": "a"}, "projattr": {"S": "P1"}}})))
        .expect("put");
    e
}

fn query(e: &Engine, body: Value) -> Result<QueryOutput, Error> {
    e.query(req(body))
}

fn index_query(index: &str, filter: &str, values: Value) -> Value {
    json!({"TableName": "tbl", "IndexName": index, "KeyConditionExpression": "gsiPk = :k",
        "FilterExpression": filter, "ExpressionAttributeValues": values})
}

#[test]
fn a_query_filter_on_unprojected_attributes_is_refused_with_the_names_sorted() {
    let e = engine();
    let (kind, msg) = err(query(&e, index_query("gsi-inc", "nonproj = :k", json!({":k": {"S": "y"}}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(msg, format!("{FILTER} gsi-inc does not project one or more filter attributes: [nonproj]"));
    let (_, msg) = err(query(
        &e,
        index_query("gsi-inc", "b = :k AND (zz = :k OR projattr = :k OR aa = :k)", json!({":k": {"S": "y"}})),
    ));
    assert_eq!(msg, format!("{FILTER} gsi-inc does not project one or more filter attributes: [aa, b, zz]"));
}

#[test]
fn a_query_filter_on_projected_attributes_or_an_all_index_runs() {
    let e = engine();
    let out =
        query(&e, index_query("gsi-inc", "projattr = :v", json!({":k": {"S": "y"}, ":v": {"S": "proj1"}})))
            .expect("projected filter runs");
    assert_eq!(out.count, Some(1));
    let out =
        query(&e, index_query("gsi-all", "nonproj = :v", json!({":k": {"S": "y"}, ":v": {"S": "np1"}})))
            .expect("an ALL index projects everything");
    assert_eq!(out.count, Some(1));
}

#[test]
fn a_legacy_query_filter_is_checked_the_same_way() {
    let e = engine();
    let (_, msg) = err(query(
        &e,
        json!({"TableName": "tbl", "IndexName": "gsi-inc",
            "KeyConditions": {"gsiPk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "y"}]}},
            "QueryFilter": {"nonproj": {"ComparisonOperator": "NOT_NULL"}}}),
    ));
    assert_eq!(msg, format!("{FILTER} gsi-inc does not project one or more filter attributes: [nonproj]"));
}

#[test]
fn a_local_index_is_refused_with_the_same_words() {
    let e = engine();
    let (_, msg) = err(query(
        &e,
        json!({"TableName": "lsitbl", "IndexName": "lsi-keys", "KeyConditionExpression": "pk = :p",
            "FilterExpression": "projattr = :v", "ExpressionAttributeValues": {":p": {"S": "p"}, ":v": {"S": "P1"}}}),
    ));
    assert_eq!(msg, format!("{FILTER} lsi-keys does not project one or more filter attributes: [projattr]"));
}

#[test]
fn a_scan_filter_on_unprojected_attributes_is_not_refused() {
    let e = engine();
    let out = e
        .scan(req(json!({"TableName": "tbl", "IndexName": "gsi-inc", "FilterExpression": "nonproj = :v",
            "ExpressionAttributeValues": {":v": {"S": "np1"}}})))
        .expect("a scan filter is not checked");
    assert_eq!(out.count, Some(0), "the index entry has no nonproj");
}

#[test]
fn a_global_index_projection_of_unprojected_attributes_is_refused() {
    let e = engine();
    let (_, msg) = err(query(
        &e,
        json!({"TableName": "tbl", "IndexName": "gsi-inc", "KeyConditionExpression": "gsiPk = :k",
            "ProjectionExpression": "pk, nonproj, projattr", "ExpressionAttributeValues": {":k": {"S": "y"}}}),
    ));
    assert_eq!(msg, "One or more parameter values were invalid: Global secondary index gsi-inc does not project [nonproj]");
    let (_, msg) =
        err(e.scan(req(json!({"TableName": "tbl", "IndexName": "gsi-inc", "AttributesToGet": ["b", "a"]}))));
    assert_eq!(
        msg,
        "One or more parameter values were invalid: Global secondary index gsi-inc does not project [a, b]"
    );
    let out = e
        .scan(req(json!({"TableName": "tbl", "IndexName": "gsi-inc", "ProjectionExpression": "pk, gsiPk, projattr"})))
        .expect("projected attributes may be requested");
    assert_eq!(out.count, Some(1));
}

#[test]
fn a_local_index_projection_fetches_instead_of_refusing() {
    let e = engine();
    let out = query(
        &e,
        json!({"TableName": "lsitbl", "IndexName": "lsi-keys", "KeyConditionExpression": "pk = :p",
            "ProjectionExpression": "projattr", "ExpressionAttributeValues": {":p": {"S": "p"}}}),
    )
    .expect("an LSI fetches from the table");
    assert_eq!(js(&out)["Items"][0]["projattr"]["S"], "P1");
}

fn statement(e: &Engine, text: &str) -> Result<ExecuteStatementOutput, Error> {
    e.execute_statement(req(json!({"Statement": text})))
}

#[test]
fn a_partiql_select_on_an_index_lists_unprojected_filter_names_in_hash_set_order() {
    // The recorded refusals (PartiQL suite run against DynamoDB).
    let e = engine();
    let select = "SELECT pk FROM \"tbl\".\"gsi-inc\" WHERE gsiPk='y' AND ";
    for (rest, names) in [
        ("NOT (nonproj='np1' OR projattr='x')", "[nonproj]"),
        ("b='1' AND (a='2' OR projattr='3')", "[a, b]"),
        ("(zz='1' OR aa='2' OR mm='3')", "[zz, aa, mm]"),
    ] {
        let (kind, msg) = err(statement(&e, &format!("{select}{rest}")));
        assert_eq!(kind, "ValidationException");
        assert_eq!(
            msg,
            format!("{FILTER} gsi-inc does not project one or more filter attributes: {names}"),
            "{rest}"
        );
    }
    let out = statement(&e, &format!("{select}(projattr='proj1' OR projattr='proj2')")).expect("projected");
    assert_eq!(js(&out)["Items"][0]["pk"]["S"], "p");
}

#[test]
fn a_partiql_select_that_scans_an_index_is_not_refused_for_its_filter() {
    let e = engine();
    let out = statement(&e, "SELECT * FROM \"tbl\".\"gsi-inc\" WHERE nonproj='np1'")
        .expect("a scan matches nothing");
    assert_eq!(js(&out)["Items"], json!([]));
    let (_, msg) =
        err(statement(&e, "SELECT pk FROM \"lsitbl\".\"lsi-keys\" WHERE pk='p' AND projattr='P1'"));
    assert_eq!(msg, format!("{FILTER} lsi-keys does not project one or more filter attributes: [projattr]"));
}

#[test]
fn a_partiql_select_of_unprojected_columns_on_a_global_index_is_refused() {
    let e = engine();
    let (_, msg) = err(statement(&e, "SELECT pk, nonproj FROM \"tbl\".\"gsi-inc\" WHERE gsiPk='y'"));
    assert_eq!(msg, "One or more parameter values were invalid: Global secondary index gsi-inc does not project [nonproj]");
}
