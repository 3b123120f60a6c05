//! Reads as today's DynamoDB answers them, through the real SDK on the in-process engine:
//! local secondary indexes fetching non-projected attributes from the base table, and
//! Query filters that name key attributes.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, LocalSecondaryIndex,
    Projection, ProjectionType, ScalarAttributeType, Select,
};
use aws_sdk_dynamodb::Client;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn element(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(kind).build().expect("key element")
}

fn attr(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .expect("attribute definition")
}

/// A table `tbl` (pk, sk) with a KEYS_ONLY LSI `by_lsk` and an INCLUDE(`inc`) LSI `by_inc`, both
/// on `lsk`, holding one item with the non-projected attributes `extra` and `inc`.
async fn lsi_table() -> Client {
    let client = monotable_embedded::client();
    let lsi = |name: &str, projection: Projection| {
        LocalSecondaryIndex::builder()
            .index_name(name)
            .key_schema(element("pk", KeyType::Hash))
            .key_schema(element("lsk", KeyType::Range))
            .projection(projection)
            .build()
            .expect("lsi")
    };
    client
        .create_table()
        .table_name("tbl")
        .attribute_definitions(attr("pk"))
        .attribute_definitions(attr("sk"))
        .attribute_definitions(attr("lsk"))
        .key_schema(element("pk", KeyType::Hash))
        .key_schema(element("sk", KeyType::Range))
        .local_secondary_indexes(lsi(
            "by_lsk",
            Projection::builder().projection_type(ProjectionType::KeysOnly).build(),
        ))
        .local_secondary_indexes(lsi(
            "by_inc",
            Projection::builder().projection_type(ProjectionType::Include).non_key_attributes("inc").build(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    client
        .put_item()
        .table_name("tbl")
        .item("pk", s("p"))
        .item("sk", s("1"))
        .item("lsk", s("a"))
        .item("extra", s("x"))
        .item("inc", s("i"))
        .send()
        .await
        .expect("put item");
    client
}

/// One LSI read: index, Select, ProjectionExpression, whether a filter reads `extra`, and the
/// attribute names the item comes back with.
type Case = (&'static str, Option<Select>, Option<&'static str>, bool, &'static [&'static str]);

fn names(item: &HashMap<String, AttributeValue>) -> Vec<String> {
    let mut out: Vec<String> = item.keys().cloned().collect();
    out.sort();
    out
}

// Source: API_Query, `Select`: "If you query or scan a local secondary index and request only
// attributes that are projected into that index, the operation will read only the index and not
// the table. If any of the requested attributes are not projected into the local secondary
// index, DynamoDB fetches each of these attributes from the parent table." ALL_ATTRIBUTES:
// "If you query a local secondary index, then for each matching item in the index, DynamoDB
// fetches the entire item from the parent table."
#[tokio::test]
async fn lsi_reads_fetch_non_projected_attributes_from_the_base_table() {
    let client = lsi_table().await;
    // (index, Select, ProjectionExpression, FilterExpression on `extra`, attributes returned)
    let cases: [Case; 7] = [
        ("by_lsk", Some(Select::AllAttributes), None, false, &["extra", "inc", "lsk", "pk", "sk"]),
        ("by_lsk", None, None, false, &["lsk", "pk", "sk"]),
        ("by_lsk", None, Some("pk, extra"), false, &["extra", "pk"]),
        ("by_lsk", Some(Select::SpecificAttributes), Some("extra.nested, inc"), false, &["inc"]),
        ("by_inc", None, Some("inc, sk"), false, &["inc", "sk"]),
        ("by_inc", Some(Select::AllProjectedAttributes), None, true, &["inc", "lsk", "pk", "sk"]),
        ("by_inc", None, Some("sk"), true, &["sk"]),
    ];
    for (index, select, projection, filter, want) in cases {
        let mut q = client
            .query()
            .table_name("tbl")
            .index_name(index)
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", s("p"))
            .set_select(select.clone())
            .set_projection_expression(projection.map(str::to_string));
        if filter {
            q = q.filter_expression("extra = :x").expression_attribute_values(":x", s("x"));
        }
        let out = q.send().await.expect("query");
        let items = out.items();
        assert_eq!(items.len(), 1, "{index} {select:?} {projection:?} filter={filter}");
        assert_eq!(names(&items[0]), want, "{index} {select:?} {projection:?} filter={filter}");
    }
}

// Source: dynalite's query.js and its recorded test "should return ValidationException if
// querying range table with hash key in QueryFilter"; DynamoDB's own text as users report it:
// "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK".
// The key is the queried keyspace's (the index key for an index query), partition key first.
#[tokio::test]
async fn query_filter_on_a_key_attribute_is_refused() {
    let client = lsi_table().await;
    let cases: [(Option<&str>, &str, &str); 5] = [
        (
            None,
            "sk = :x",
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
        ),
        (
            None,
            "begins_with(pk, :x)",
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk",
        ),
        (
            None,
            "sk = :x AND pk = :x",
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk",
        ),
        (
            Some("by_lsk"),
            "lsk = :x",
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: lsk",
        ),
        (Some("by_lsk"), "attribute_exists(sk.x) AND extra = :x", ""),
    ];
    for (index, filter, want) in cases {
        let result = client
            .query()
            .table_name("tbl")
            .set_index_name(index.map(str::to_string))
            .key_condition_expression("pk = :p")
            .filter_expression(filter)
            .expression_attribute_values(":p", s("p"))
            .expression_attribute_values(":x", s("x"))
            .send()
            .await;
        match (want, result) {
            ("", Ok(_)) => {}
            (want, Err(e)) => {
                assert_eq!(e.code(), Some("ValidationException"), "{filter}");
                assert_eq!(e.message(), Some(want), "{filter}");
            }
            (want, Ok(_)) => panic!("{filter}: accepted, want {want}"),
        }
    }
    // The legacy QueryFilter names its parameter.
    let err = client
        .query()
        .table_name("tbl")
        .key_conditions(
            "pk",
            aws_sdk_dynamodb::types::Condition::builder()
                .comparison_operator(aws_sdk_dynamodb::types::ComparisonOperator::Eq)
                .attribute_value_list(s("p"))
                .build()
                .expect("condition"),
        )
        .query_filter(
            "sk",
            aws_sdk_dynamodb::types::Condition::builder()
                .comparison_operator(aws_sdk_dynamodb::types::ComparisonOperator::NotNull)
                .build()
                .expect("condition"),
        )
        .send()
        .await
        .expect_err("QueryFilter on sk");
    assert_eq!(
        err.message(),
        Some("QueryFilter can only contain non-primary key attributes: Primary key attribute: sk")
    );
}
