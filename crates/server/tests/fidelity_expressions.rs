//! Expressions, legacy key conditions and PartiQL where monotable diverged from DynamoDB,
//! through the real SDK on the in-process engine. Each case names its source.

mod common;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ComparisonOperator, Condition, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, Projection, ProjectionType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use common::failure;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn def(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .expect("attribute definition")
}

fn key(name: &str, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(key_type).build().expect("key element")
}

/// A client with the on-demand table `tbl` keyed by `pk` holding the item `pk = "k"`.
async fn table() -> Client {
    let client = monotable_embedded::client();
    client
        .create_table()
        .table_name("tbl")
        .attribute_definitions(def("pk"))
        .key_schema(key("pk", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    client.put_item().table_name("tbl").item("pk", s("k")).send().await.expect("put item");
    client
}

// Source: recorded against DynamoDB in ScyllaDB's test suite
// test/alternator/test_condition_expression.py, test_update_condition_attribute_type:
// `attribute_type(:val, :type)` with `:val` a number and `:type` "N" lets the update through.
#[tokio::test]
async fn attribute_type_takes_a_value_as_its_first_operand() {
    let client = table().await;
    let update = |t: &str| {
        client
            .update_item()
            .table_name("tbl")
            .key("pk", s("k"))
            .update_expression("SET c = :val")
            .condition_expression("attribute_type(:val, :type)")
            .expression_attribute_values(":val", n("0"))
            .expression_attribute_values(":type", s(t))
            .send()
    };
    update("N").await.expect("a number value is of type N");
    let (kind, _) = failure(update("S").await);
    assert_eq!(kind, "ConditionalCheckFailedException");
}

// Source: Constraints in Amazon DynamoDB, "Expression parameters": at most 300 operators or
// functions in any expression; the message recorded from the real service in the
// aws/aws-sdk-js issue thread "Invalid FilterExpression: The expression contains too many
// operators; operator count: 301" (its expression had more than 301: the count stops there).
#[tokio::test]
async fn an_expression_has_at_most_three_hundred_operators() {
    let client = table().await;
    // 150 comparisons and the 149 ANDs between them: 299 operators.
    let within = vec!["a <> :v"; 150].join(" AND ");
    let over = vec!["a <> :v"; 160].join(" AND ");
    let scan = |filter: String| {
        client
            .scan()
            .table_name("tbl")
            .filter_expression(filter)
            .expression_attribute_values(":v", n("1"))
            .send()
    };
    let out = scan(within).await.expect("299 operators are allowed");
    assert_eq!(out.count(), 1);
    let (kind, message) = failure(scan(over).await);
    assert_eq!(kind, "ValidationException");
    assert_eq!(
        message,
        "Invalid FilterExpression: The expression contains too many operators; operator count: 301"
    );
}

fn condition(op: ComparisonOperator, values: &[AttributeValue]) -> Condition {
    Condition::builder()
        .comparison_operator(op)
        .set_attribute_value_list(Some(values.to_vec()))
        .build()
        .expect("condition")
}

// Source: AWS developer guide, "Multi-attribute key schema" (GSI.md): a query of a
// multi-attribute GSI key states an equality on every partition attribute and conditions on
// the sort attributes left to right, one per attribute. The legacy `KeyConditions` map states
// them as a `KeyConditionExpression` does; a base table's key still takes one or two.
#[tokio::test]
async fn legacy_key_conditions_take_one_condition_per_attribute_of_a_multi_attribute_key() {
    let client = monotable_embedded::client();
    let mut index = GlobalSecondaryIndex::builder()
        .index_name("by_org")
        .projection(Projection::builder().projection_type(ProjectionType::All).build());
    for (name, key_type) in
        [("org", KeyType::Hash), ("team", KeyType::Hash), ("day", KeyType::Range), ("seq", KeyType::Range)]
    {
        index = index.key_schema(key(name, key_type));
    }
    let mut create = client
        .create_table()
        .table_name("tbl")
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(index.build().expect("gsi"))
        .billing_mode(BillingMode::PayPerRequest);
    for name in ["pk", "org", "team", "day", "seq"] {
        create = create.attribute_definitions(def(name));
    }
    create.send().await.expect("create table");
    for (pk, day, seq) in [("a", "d1", "s1"), ("b", "d1", "s2"), ("c", "d2", "s1")] {
        client
            .put_item()
            .table_name("tbl")
            .item("pk", s(pk))
            .item("org", s("o"))
            .item("team", s("t"))
            .item("day", s(day))
            .item("seq", s(seq))
            .send()
            .await
            .expect("put item");
    }
    let eq = |v: &str| condition(ComparisonOperator::Eq, &[s(v)]);
    let out = client
        .query()
        .table_name("tbl")
        .index_name("by_org")
        .key_conditions("org", eq("o"))
        .key_conditions("team", eq("t"))
        .key_conditions("day", eq("d1"))
        .key_conditions("seq", condition(ComparisonOperator::Gt, &[s("s1")]))
        .send()
        .await
        .expect("four conditions on a four-attribute key");
    let found: Vec<&str> = out.items().iter().map(|i| i["pk"].as_s().expect("pk").as_str()).collect();
    assert_eq!(found, ["b"]);
    let (kind, message) = failure(
        client.query().table_name("tbl").index_name("by_org").key_conditions("org", eq("o")).send().await,
    );
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("ValidationException", "Query condition missed key schema element: team")
    );
    let (_, message) = failure(
        client
            .query()
            .table_name("tbl")
            .key_conditions("pk", eq("a"))
            .key_conditions("org", eq("o"))
            .key_conditions("team", eq("t"))
            .send()
            .await,
    );
    assert_eq!(message, "Conditions can be of length 1 or 2 only");
}

// Source: paritysuite/dynamodb-conformance, tests/tier3/validation-ordering/deepRequests.test.ts,
// recorded against DynamoDB in ten regions on 2026-10-09: a TransactWriteItems Put whose item
// has an attribute named "" is refused with "Empty attribute name", before the table is looked
// up. PutItem and BatchWriteItem check their items the same way.
#[tokio::test]
async fn an_item_attribute_may_not_have_the_empty_name() {
    use aws_sdk_dynamodb::types::{Put, TransactWriteItem};
    let client = monotable_embedded::client();
    let item = || [("pk".to_owned(), s("a")), (String::new(), s("x"))].into();
    let put = Put::builder().table_name("absent").set_item(Some(item())).build().expect("put");
    let (kind, message) = failure(
        client
            .transact_write_items()
            .transact_items(TransactWriteItem::builder().put(put).build())
            .send()
            .await,
    );
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", "Empty attribute name"));
    let (kind, message) = failure(client.put_item().table_name("absent").set_item(Some(item())).send().await);
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", "Empty attribute name"));
}

// Source: paritysuite/dynamodb-conformance, tests/tier3/validation-ordering/deepRequests.test.ts,
// recorded against DynamoDB on 2026-10-09: a ScanFilter of one condition with a
// ConditionalOperator is refused with "ConditionalOperator can only be used when Filter or
// Expected has two or more elements"; an empty `Expected` map with one gets the same answer,
// as DynamoDB Local's request validator counts it (fewer than two elements).
#[tokio::test]
async fn a_conditional_operator_needs_two_conditions_to_join() {
    use aws_sdk_dynamodb::types::{ConditionalOperator, ExpectedAttributeValue};
    let client = table().await;
    let expected = "ConditionalOperator can only be used when Filter or Expected has two or more elements";
    let (kind, message) = failure(
        client
            .put_item()
            .table_name("tbl")
            .item("pk", s("k"))
            .set_expected(Some(std::collections::HashMap::<String, ExpectedAttributeValue>::new()))
            .conditional_operator(ConditionalOperator::And)
            .send()
            .await,
    );
    assert_eq!((kind.as_str(), message.as_str()), ("ValidationException", expected));
    let (_, message) = failure(
        client
            .scan()
            .table_name("tbl")
            .scan_filter("a", condition(ComparisonOperator::Eq, &[s("x")]))
            .conditional_operator(ConditionalOperator::Or)
            .send()
            .await,
    );
    assert_eq!(message, expected);
    let both = client
        .scan()
        .table_name("tbl")
        .scan_filter("pk", condition(ComparisonOperator::Eq, &[s("k")]))
        .scan_filter("a", condition(ComparisonOperator::Eq, &[s("x")]))
        .conditional_operator(ConditionalOperator::Or)
        .send()
        .await
        .expect("two conditions joined by OR");
    assert_eq!(both.count(), 1);
}

// Source: recorded against DynamoDB in ScyllaDB's test suite
// test/alternator/test_update_expression.py (list_append tests): a list_append nested in
// another list_append parses, but is refused with "The function is not allowed to be used this
// way in an expression; function: list_append".
#[tokio::test]
async fn list_append_may_not_be_nested_in_list_append() {
    let client = table().await;
    let list = |v: &str| AttributeValue::L(vec![s(v)]);
    let (kind, message) = failure(
        client
            .update_item()
            .table_name("tbl")
            .key("pk", s("k"))
            .update_expression("SET a = list_append(list_append(:v1, :v2), :v3)")
            .expression_attribute_values(":v1", list("a"))
            .expression_attribute_values(":v2", list("1"))
            .expression_attribute_values(":v3", list("hi"))
            .send()
            .await,
    );
    assert_eq!(
        (kind.as_str(), message.as_str()),
        (
            "ValidationException",
            "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"
        )
    );
}
