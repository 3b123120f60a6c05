//! Request validation as today's DynamoDB answers it, through the real SDK on the in-process
//! engine: tags, update-expression clauses and paths, placeholder maps, legacy NOT_CONTAINS,
//! and key attribute names. Each case names the record of DynamoDB's answer it follows.

mod common;

use std::collections::HashMap;
use std::fmt::Debug;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, ComparisonOperator, ExpectedAttributeValue, KeySchemaElement,
    KeyType, ScalarAttributeType, Tag,
};
use aws_sdk_dynamodb::Client;

/// The `__type` and message of a failed call.
fn failure<T: Debug, E: ProvideErrorMetadata + Debug, R: Debug>(
    r: Result<T, SdkError<E, R>>,
) -> (String, String) {
    let e = r.expect_err("the call fails");
    (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned())
}

fn tag(key: &str, value: &str) -> Tag {
    Tag::builder().key(key).value(value).build().expect("tag")
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// A client with the on-demand table `tbl` keyed by `pk`, and the table's ARN.
async fn table() -> (Client, String) {
    let client = monotable_embedded::client();
    let out = common::hash_table(&client, "tbl").send().await.expect("create table");
    let arn = out.table_description().and_then(|d| d.table_arn()).expect("table arn").to_owned();
    (client, arn)
}

async fn tag_count(client: &Client, arn: &str) -> usize {
    client.list_tags_of_resource().resource_arn(arn).send().await.expect("list tags").tags().len()
}

// Source: ack-api-quirks, services/dynamodb findings DDB-TABLE-105, -106, -107 and -372,
// recorded against DynamoDB 2026-10-08/09 (also the comments of engine/tags.rs).
#[tokio::test]
async fn tag_keys_and_values_are_checked_for_length_characters_and_the_aws_prefix() {
    let (client, arn) = table().await;
    let long_key = "k".repeat(129);
    let long_value = "v".repeat(257);
    let cases: Vec<(Vec<Tag>, String)> = vec![
        (vec![tag(&long_key, "v")], format!("The Tag Key provided is invalid, Key: {long_key}")),
        (vec![tag("k", &long_value)], format!("The Tag Value provided is invalid, Value: {long_value}")),
        (vec![tag("bad#char", "v")], "The Tag Key provided is invalid, Key: bad#char".into()),
        (vec![tag("k", "bad#char")], "The Tag Value provided is invalid, Value: bad#char".into()),
        (vec![tag("k", "a,b")], "The Tag Value provided is invalid, Value: a,b".into()),
        (vec![tag("🔑", "v")], "The Tag Key provided is invalid, Key: 🔑".into()),
        (vec![tag("aws:foo", "v")], "Tag Key cannot be prefixed with aws:, Key: aws:foo".into()),
        (vec![tag("AWS:foo", "v")], "Tag Key cannot be prefixed with aws:, Key: AWS:foo".into()),
        // All or nothing: the good tag of a refused request is not applied.
        (
            vec![tag("good", "v"), tag("aws:zzz", "v")],
            "Tag Key cannot be prefixed with aws:, Key: aws:zzz".into(),
        ),
        (
            vec![tag("dup", "1"), tag("dup", "2")],
            "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup".into(),
        ),
    ];
    for (tags, want) in cases {
        let got = failure(client.tag_resource().resource_arn(&arn).set_tags(Some(tags.clone())).send().await);
        assert_eq!(got, ("ValidationException".to_owned(), want), "{tags:?}");
    }
    assert_eq!(tag_count(&client, &arn).await, 0, "refused requests leave no tag");
    // Accepted: the bounds themselves, any script's letters, white space, the allowed
    // punctuation, an empty value and a key merely containing "aws:".
    let accepted = vec![
        tag(&"k".repeat(128), &"v".repeat(256)),
        tag("ключ", "café 表"),
        tag("sp ace", "a\u{a0}b\u{3000}c"),
        tag("Env", ""),
        tag("x", "a+b-c=d.e_f:g/h@i"),
        tag("myaws:foo", "v"),
    ];
    client.tag_resource().resource_arn(&arn).set_tags(Some(accepted)).send().await.expect("valid tags");
    assert_eq!(tag_count(&client, &arn).await, 6);
    let got = failure(client.untag_resource().resource_arn(&arn).tag_keys("aws:foo").send().await);
    assert_eq!(got.1, "Tag Key cannot be prefixed with aws:, Key: aws:foo");
    let got = failure(client.untag_resource().resource_arn(&arn).tag_keys(&long_key).send().await);
    assert_eq!(got.1, format!("The Tag Key provided is invalid, Key: {long_key}"));
}

// Source: ack-api-quirks DDB-TABLE-108 and DDB-TABLE-110 (verified 2026-10-08): the 50-tag
// limit is a ValidationException checked on the post-merge set, never LimitExceededException;
// UntagResource with 51 keys and CreateTable with 51 tags get the same text, and a refused
// CreateTable creates nothing. ScyllaDB Alternator's tests, run against DynamoDB, also expect
// ValidationException here.
#[tokio::test]
async fn more_than_fifty_tags_is_a_validation_exception_on_the_merged_set() {
    let (client, arn) = table().await;
    let too_many = (
        "ValidationException".to_owned(),
        "Number of Tags exceed the current limit for the provided ResourceArn".to_owned(),
    );
    let tags = |range: std::ops::Range<usize>| -> Vec<Tag> {
        range.map(|i| tag(&format!("k{i:02}"), "v")).collect()
    };
    let got = failure(client.tag_resource().resource_arn(&arn).set_tags(Some(tags(0..51))).send().await);
    assert_eq!(got, too_many);
    client.tag_resource().resource_arn(&arn).set_tags(Some(tags(0..50))).send().await.expect("fifty tags");
    let got = failure(client.tag_resource().resource_arn(&arn).tags(tag("k50", "v")).send().await);
    assert_eq!(got, too_many);
    let got = failure(
        client.tag_resource().resource_arn(&arn).tags(tag("k01", "new")).tags(tag("k50", "v")).send().await,
    );
    assert_eq!(got, too_many, "post-merge 51");
    // Every existing key with a new value keeps the count at 50.
    let renamed: Vec<Tag> = (0..50).map(|i| tag(&format!("k{i:02}"), "w")).collect();
    client.tag_resource().resource_arn(&arn).set_tags(Some(renamed)).send().await.expect("retag fifty");
    assert_eq!(tag_count(&client, &arn).await, 50);
    let keys: Vec<String> = (0..51).map(|i| format!("k{i:02}")).collect();
    let got = failure(client.untag_resource().resource_arn(&arn).set_tag_keys(Some(keys)).send().await);
    assert_eq!(got, too_many, "UntagResource with 51 keys");
    assert_eq!(tag_count(&client, &arn).await, 50);

    let got = failure(common::hash_table(&client, "tagged").set_tags(Some(tags(0..51))).send().await);
    assert_eq!(got, too_many, "CreateTable with 51 tags");
    let got = failure(client.describe_table().table_name("tagged").send().await);
    assert_eq!(got.0, "ResourceNotFoundException", "a refused CreateTable creates nothing");
    common::hash_table(&client, "tagged").set_tags(Some(tags(0..50))).send().await.expect("fifty tags");
    common::hash_table(&client, "tagged2").set_tags(Some(vec![])).send().await.expect("Tags=[] is accepted");
}

// Sources: moto's AWS-verified `test_update_expression_remove_list_and_attribute` neighbour
// (tests/test_dynamodb, `@pytest.mark.aws_verified`) for a repeated REMOVE; dynalite's
// test/updateItem.js ("overlapping paths", "conflicting paths"), recorded against DynamoDB,
// for the path texts; paritysuite/dynamodb-conformance tests/tier3/error-messages/
// updateItem.test.ts (eu-west-2 and us-east-1, 2026-10-09) for the enveloped undefined value.
#[tokio::test]
async fn update_expression_clauses_and_paths_are_refused_with_dynamodb_texts() {
    let (client, _) = table().await;
    let names = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    // (UpdateExpression, ExpressionAttributeNames, ExpressionAttributeValues, message)
    type Case<'a> = (&'a str, HashMap<String, String>, HashMap<String, AttributeValue>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "REMOVE #ulist[0] SET current_user = :current_user REMOVE some_param",
            names(&[("#ulist", "user_list")]),
            HashMap::from([(":current_user".to_owned(), s("Jane"))]),
            r#"Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;"#,
        ),
        (
            "SET a = :v SET b = :v",
            HashMap::new(),
            HashMap::from([(":v".to_owned(), s("x"))]),
            r#"Invalid UpdateExpression: The "SET" section can only be used once in an update expression;"#,
        ),
        (
            "set #c[3].#d = a, #c[3] = a",
            names(&[("#c", "c"), ("#d", "[3]")]),
            HashMap::new(),
            "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]",
        ),
        (
            "remove a.#c set a[1] = #d",
            names(&[("#c", "c"), ("#d", "[3]")]),
            HashMap::new(),
            "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, c], path two: [a, [1]]",
        ),
    ];
    for (expression, names, values, want) in cases {
        let got = failure(
            client
                .update_item()
                .table_name("tbl")
                .key("pk", s("k"))
                .update_expression(expression)
                .set_expression_attribute_names((!names.is_empty()).then_some(names))
                .set_expression_attribute_values((!values.is_empty()).then_some(values))
                .send()
                .await,
        );
        assert_eq!(got, ("ValidationException".to_owned(), want.to_owned()), "{expression}");
    }
    let got = failure(
        client
            .update_item()
            .table_name("tbl")
            .key("pk", s("k"))
            .update_expression("SET b = :w")
            .condition_expression("a = :v")
            .expression_attribute_values(":w", s("x"))
            .send()
            .await,
    );
    assert_eq!(
        got.1,
        "1 validation error detected: Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v"
    );
}

// Sources: paritysuite/dynamodb-conformance tests/tier3/validation-ordering/transactions.test.ts
// (the exact unused-value text, us-east-1 and eu-west-2, 2026-10-09) and
// tests/tier3/error-messages/updateItem.test.ts (unused names and values on UpdateItem);
// dynalite's test/putItem.js "should return ValidationException for empty
// ExpressionAttributeValues" for the empty maps.
#[tokio::test]
async fn unused_and_empty_placeholder_maps_are_refused() {
    let (client, _) = table().await;
    let update = || {
        client
            .update_item()
            .table_name("tbl")
            .key("pk", s("k"))
            .update_expression("SET attr1 = :v")
            .expression_attribute_values(":v", s("val"))
    };
    let got = failure(update().expression_attribute_names("#unused", "someattr").send().await);
    assert_eq!(
        got,
        (
            "ValidationException".to_owned(),
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}".to_owned()
        )
    );
    let got = failure(update().expression_attribute_values(":unused", s("extra")).send().await);
    assert_eq!(got.1, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}");
    let conditional_put = || {
        client
            .put_item()
            .table_name("tbl")
            .item("pk", s("k"))
            .condition_expression("attribute_not_exists(pk)")
    };
    let got = failure(conditional_put().set_expression_attribute_values(Some(HashMap::new())).send().await);
    assert_eq!(
        got,
        ("ValidationException".to_owned(), "ExpressionAttributeValues must not be empty".to_owned())
    );
    let got = failure(conditional_put().set_expression_attribute_names(Some(HashMap::new())).send().await);
    assert_eq!(got.1, "ExpressionAttributeNames must not be empty");
}

// Source: ScyllaDB Alternator's `test_update_expected_1_not_contains`
// (test/alternator/test_expected.py, written against DynamoDB): "if an attribute does not
// exist at all, NOT_CONTAINS fails, rather than succeeding", unlike NE.
#[tokio::test]
async fn legacy_not_contains_is_false_on_a_missing_attribute() {
    let (client, _) = table().await;
    client.put_item().table_name("tbl").item("pk", s("k")).item("a", s("hello")).send().await.expect("put");
    let expected = |op: ComparisonOperator, v: &str| {
        ExpectedAttributeValue::builder().comparison_operator(op).attribute_value_list(s(v)).build()
    };
    let put = |attr: &str, e: ExpectedAttributeValue| {
        client.put_item().table_name("tbl").item("pk", s("k")).item("a", s("hello")).expected(attr, e).send()
    };
    put("a", expected(ComparisonOperator::NotContains, "dog")).await.expect("a does not contain dog");
    let got = failure(put("a", expected(ComparisonOperator::NotContains, "ell")).await);
    assert_eq!(
        got,
        ("ConditionalCheckFailedException".to_owned(), "The conditional request failed".to_owned())
    );
    let got = failure(put("q", expected(ComparisonOperator::NotContains, "x")).await);
    assert_eq!(got.0, "ConditionalCheckFailedException", "NOT_CONTAINS on a missing attribute fails");
    put("q", expected(ComparisonOperator::Ne, "x")).await.expect("NE on a missing attribute succeeds");
    // The same rule in a Scan's legacy ScanFilter: the item without `q` is not returned.
    let filter = aws_sdk_dynamodb::types::Condition::builder()
        .comparison_operator(ComparisonOperator::NotContains)
        .attribute_value_list(s("x"))
        .build()
        .expect("condition");
    let out = client.scan().table_name("tbl").scan_filter("q", filter).send().await.expect("scan");
    assert_eq!(out.count(), 0);
}

// Source: API_KeySchemaElement and API_AttributeDefinition, `AttributeName` "Length
// Constraints: Minimum length of 1. Maximum length of 255."; ScyllaDB Alternator's
// `test_limit_attribute_length_key_bad` (test/alternator/test_limits.py, run against DynamoDB)
// for the refusal of a 256-character key name and the acceptance of 255. The text is the
// validation framework's member constraint, as for every other member.
#[tokio::test]
async fn key_attribute_names_are_at_most_255_characters() {
    let client = monotable_embedded::client();
    // The key schema and the definitions may name different attributes: DynamoDB reports the
    // name's length before their mismatch (Alternator's
    // `test_limit_attribute_length_key_bad_incoherent_names`).
    let create = |key: &str, defined: &str| {
        client
            .create_table()
            .table_name("long")
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(defined)
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .expect("definition"),
            )
            .key_schema(
                KeySchemaElement::builder().attribute_name(key).key_type(KeyType::Hash).build().expect("key"),
            )
            .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
            .send()
    };
    let long = "n".repeat(256);
    let want = |path: &str| {
        (
            "ValidationException".to_owned(),
            format!("1 validation error detected: Value '{long}' at '{path}' failed to satisfy constraint: Member must have length less than or equal to 255"),
        )
    };
    assert_eq!(failure(create(&long, "short").await), want("keySchema.1.member.attributeName"));
    assert_eq!(failure(create("short", &long).await), want("attributeDefinitions.1.member.attributeName"));
    let name = "n".repeat(255);
    create(&name, &name).await.expect("255 characters");
}

// Source: DynamoDB's answers measured 2026-09-16 and recorded in ExtendDB issue #365
// (github.com/ExtendDB/extenddb/issues/365): a 65,536-byte attribute name, at the top level
// or as a nested map key, in PutItem or UpdateItem (`SET #n = :v`, `SET doc = :v`), is
// refused with this text; 65,535 bytes are accepted (also ScyllaDB Alternator's
// `test_limit_attribute_length_nonkey_good` and `_bad`, test/alternator/test_limits.py).
#[tokio::test]
async fn attribute_names_are_at_most_65535_bytes() {
    let (client, _) = table().await;
    let too_long = "a".repeat(65536);
    let longest = "a".repeat(65535);
    let want = (
        "ValidationException".to_owned(),
        "1 validation error detected: Attribute name is too large, must be less than 65536 bytes".to_owned(),
    );
    let nested = |name: &str| AttributeValue::M(HashMap::from([(name.to_owned(), s("v"))]));
    let put = |name: &str, value: AttributeValue| {
        client.put_item().table_name("tbl").item("pk", s("k")).item(name, value).send()
    };
    assert_eq!(failure(put(&too_long, s("v")).await), want, "top-level name");
    assert_eq!(failure(put("doc", nested(&too_long)).await), want, "nested name");
    put(&longest, nested(&longest)).await.expect("65,535 bytes");
    let update = |v: AttributeValue| {
        client.update_item().table_name("tbl").key("pk", s("k")).expression_attribute_values(":v", v)
    };
    let got = failure(
        update(s("v"))
            .update_expression("SET #n = :v")
            .expression_attribute_names("#n", &too_long)
            .send()
            .await,
    );
    assert_eq!(got, want, "SET #n = :v");
    let got = failure(update(nested(&too_long)).update_expression("SET doc = :v").send().await);
    assert_eq!(got.1, want.1, "SET doc = :v");
}
