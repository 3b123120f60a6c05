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
        ("by_inc", Some(Select::AllProjectedAttributes), None, false, &["inc", "lsk", "pk", "sk"]),
        ("by_inc", None, Some("sk"), false, &["sk"]),
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
    // A filter is not fetched for: it must read projected attributes only (see
    // engine/index_projection.rs for the sources).
    let err = client
        .query()
        .table_name("tbl")
        .index_name("by_inc")
        .key_condition_expression("pk = :p")
        .filter_expression("extra = :x")
        .expression_attribute_values(":p", s("p"))
        .expression_attribute_values(":x", s("x"))
        .send()
        .await
        .expect_err("a filter on an unprojected attribute is refused");
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(
        err.message(),
        Some("One or more parameter values were invalid: Secondary index by_inc does not project one or more filter attributes: [extra]")
    );
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
        (Some("by_inc"), "attribute_exists(sk.x) AND inc <> :x", ""),
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

/// One Select rule: index, Select, ProjectionExpression, AttributesToGet, the message ("" when
/// accepted) and whether Query wraps it in the constraint envelope.
type SelectCase =
    (Option<&'static str>, Option<Select>, Option<&'static str>, Option<&'static str>, &'static str, bool);

/// A table `sel` (pk) with a KEYS_ONLY GSI `by_g` on `g`, for Select's rules.
async fn select_table() -> Client {
    let client = monotable_embedded::client();
    let gsi = aws_sdk_dynamodb::types::GlobalSecondaryIndex::builder()
        .index_name("by_g")
        .key_schema(element("g", KeyType::Hash))
        .projection(Projection::builder().projection_type(ProjectionType::KeysOnly).build())
        .build()
        .expect("gsi");
    client
        .create_table()
        .table_name("sel")
        .attribute_definitions(attr("pk"))
        .attribute_definitions(attr("g"))
        .key_schema(element("pk", KeyType::Hash))
        .global_secondary_indexes(gsi)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    client
}

/// Sends a Query (on `pk`, or on `g` for the index) or a Scan and returns its error text, or
/// "" when it succeeds.
async fn read_error(
    client: &Client,
    query: bool,
    index: Option<&str>,
    select: Option<Select>,
    projection: Option<&str>,
    attributes_to_get: Option<&str>,
) -> String {
    let key = if index.is_some() { "g" } else { "pk" };
    let result = if query {
        let mut q = client
            .query()
            .table_name("sel")
            .set_index_name(index.map(str::to_string))
            .set_select(select)
            .set_projection_expression(projection.map(str::to_string))
            .set_attributes_to_get(attributes_to_get.map(|a| vec![a.to_string()]));
        q = if attributes_to_get.is_some() {
            q.key_conditions(
                key,
                aws_sdk_dynamodb::types::Condition::builder()
                    .comparison_operator(aws_sdk_dynamodb::types::ComparisonOperator::Eq)
                    .attribute_value_list(s("v"))
                    .build()
                    .expect("condition"),
            )
        } else {
            q.key_condition_expression(format!("{key} = :v")).expression_attribute_values(":v", s("v"))
        };
        q.send()
            .await
            .map(|_| ())
            .map_err(|e| e.into_service_error().meta().message().unwrap_or("").to_string())
    } else {
        client
            .scan()
            .table_name("sel")
            .set_index_name(index.map(str::to_string))
            .set_select(select)
            .set_projection_expression(projection.map(str::to_string))
            .set_attributes_to_get(attributes_to_get.map(|a| vec![a.to_string()]))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| e.into_service_error().meta().message().unwrap_or("").to_string())
    };
    result.err().unwrap_or_default()
}

// Source: moto's AWS-verified Select tests (tests/test_dynamodb, recorded against DynamoDB):
// `test_specific_attributes_requires_attribute_selection`,
// `test_projection_expression_rejected_for_non_specific_select`,
// `test_attributes_to_get_rejected_for_non_specific_select`,
// `test_all_projected_attributes_rejected_for_table`, `test_all_attributes_rejected_for_keys_only_gsi`.
// Query wraps the table-independent Select errors in "1 validation error detected: ", Scan
// does not; the GSI rule reads the same for both.
#[tokio::test]
async fn select_errors_read_as_dynamodb_words_them_for_query_and_scan() {
    let client = select_table().await;
    let gsi_all = "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index by_g because its projection type is not ALL";
    // (index, Select, ProjectionExpression, AttributesToGet, message without the envelope, enveloped for Query)
    let cases: [SelectCase; 11] = [
        (None, Some(Select::SpecificAttributes), None, None, "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES", true),
        (None, Some(Select::SpecificAttributes), Some("pk"), None, "", false),
        (None, Some(Select::AllProjectedAttributes), None, None, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName", true),
        (Some("by_g"), Some(Select::AllAttributes), Some("g"), None, "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES", true),
        (Some("by_g"), Some(Select::AllProjectedAttributes), Some("g"), None, "Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES", true),
        (Some("by_g"), Some(Select::Count), Some("g"), None, "Cannot specify the ProjectionExpression when choosing to get only the Count", true),
        (Some("by_g"), Some(Select::AllAttributes), None, Some("g"), "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES", true),
        (Some("by_g"), Some(Select::Count), None, Some("g"), "Cannot specify the AttributesToGet when choosing to get only the Count", true),
        (Some("by_g"), Some(Select::SpecificAttributes), None, Some("g"), "", false),
        (Some("by_g"), Some(Select::AllProjectedAttributes), None, None, "", false),
        (Some("by_g"), Some(Select::AllAttributes), None, None, gsi_all, false),
    ];
    for (index, select, projection, attributes_to_get, want, enveloped) in cases {
        for query in [true, false] {
            let got = read_error(&client, query, index, select.clone(), projection, attributes_to_get).await;
            let want = if query && enveloped {
                format!("1 validation error detected: {want}")
            } else {
                want.to_string()
            };
            assert_eq!(got, want, "query={query} {index:?} {select:?} {projection:?} {attributes_to_get:?}");
        }
    }
}
