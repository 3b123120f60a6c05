//! Expressions, legacy key conditions and PartiQL where monotable diverged from DynamoDB,
//! through the real SDK on the in-process engine. Each case names its source.

use std::fmt::Debug;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;

/// The `__type` and message of a failed call.
fn failure<T: Debug, E: ProvideErrorMetadata + Debug, R: Debug>(
    r: Result<T, SdkError<E, R>>,
) -> (String, String) {
    let e = r.expect_err("the call fails");
    (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned())
}

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
