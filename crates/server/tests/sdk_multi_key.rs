//! Multi-attribute GSI keys (DynamoDB, November 2025) through the real `aws-sdk-dynamodb`
//! client: a GSI KeySchema of several HASH and several RANGE elements is accepted, described
//! back in order, queried with equality on every partition attribute and left-to-right sort
//! conditions, paged with LastEvaluatedKeys that hold every key attribute; base tables and
//! LSIs stay single-attribute. Sources: AWS developer guide, "Multi-attribute key schema"
//! (GSI.md#GSI.MultiAttributeKeys); AWS provider docs of GSI `KeySchema` ("up to 4 attributes
//! with keyType = HASH and up to 4 attributes with keyType = RANGE").

use std::collections::HashMap;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;

fn element(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(kind).build().expect("element")
}

fn def(name: &str, ty: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(ty).build().expect("definition")
}

fn gsi(keys: &[(&str, KeyType)]) -> GlobalSecondaryIndex {
    let mut b = GlobalSecondaryIndex::builder()
        .index_name("by_org_status")
        .projection(Projection::builder().projection_type(ProjectionType::All).build());
    for (name, kind) in keys {
        b = b.key_schema(element(name, kind.clone()));
    }
    b.build().expect("gsi")
}

fn definitions() -> Vec<AttributeDefinition> {
    vec![
        def("id", ScalarAttributeType::S),
        def("org", ScalarAttributeType::S),
        def("status", ScalarAttributeType::S),
        def("due", ScalarAttributeType::N),
        def("seq", ScalarAttributeType::S),
    ]
}

fn four_part_gsi() -> GlobalSecondaryIndex {
    gsi(&[
        ("org", KeyType::Hash),
        ("status", KeyType::Hash),
        ("due", KeyType::Range),
        ("seq", KeyType::Range),
    ])
}

async fn create(client: &Client, index: GlobalSecondaryIndex) -> Result<(), (String, String)> {
    client
        .create_table()
        .table_name("tasks")
        .set_attribute_definitions(Some(definitions()))
        .key_schema(element("id", KeyType::Hash))
        .global_secondary_indexes(index)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .map(drop)
        .map_err(|e| (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned()))
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

async fn put(client: &Client, id: &str, fields: &[(&str, AttributeValue)]) {
    let mut item = HashMap::from([("id".to_owned(), s(id))]);
    item.extend(fields.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
    client.put_item().table_name("tasks").set_item(Some(item)).send().await.expect("put");
}

async fn query(
    client: &Client,
    text: &str,
    values: &[(&str, AttributeValue)],
) -> Result<Vec<String>, (String, String)> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .query()
            .table_name("tasks")
            .index_name("by_org_status")
            .key_condition_expression(text)
            .expression_attribute_names("#s", "status")
            .set_expression_attribute_values(Some(
                values.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
            ))
            .limit(2)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .map_err(|e| {
                (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned())
            })?;
        out.extend(page.items().iter().map(|i| i["id"].as_s().expect("id").clone()));
        match page.last_evaluated_key() {
            Some(k) => {
                let mut names: Vec<&str> = k.keys().map(String::as_str).collect();
                names.sort_unstable();
                assert_eq!(
                    names,
                    ["due", "id", "org", "seq", "status"],
                    "LastEvaluatedKey holds every key attribute"
                );
                start = Some(k.clone());
            }
            None => return Ok(out),
        }
    }
}

#[tokio::test]
async fn a_multi_attribute_gsi_is_created_described_and_queried_left_to_right() {
    let client = monotable_embedded::client();
    create(&client, four_part_gsi()).await.expect("a 2 HASH + 2 RANGE GSI is accepted");
    let described = client.describe_table().table_name("tasks").send().await.expect("describe");
    let schema = described.table().expect("table").global_secondary_indexes()[0].key_schema();
    let shape: Vec<(&str, &str)> =
        schema.iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(shape, [("org", "HASH"), ("status", "HASH"), ("due", "RANGE"), ("seq", "RANGE")]);

    let n = |v: i64| AttributeValue::N(v.to_string());
    let full = |org: &str, status: &str, day: i64, seq: &str| {
        vec![("org", s(org)), ("status", s(status)), ("due", n(day)), ("seq", s(seq))]
    };
    put(&client, "t1", &full("acme", "open", 10, "b")).await;
    put(&client, "t2", &full("acme", "open", 9, "z")).await;
    put(&client, "t3", &full("acme", "open", 10, "a")).await;
    put(&client, "t4", &full("acme", "done", 1, "a")).await;
    put(&client, "t5", &full("other", "open", 1, "a")).await;
    // Sparse: an item missing any one key attribute is not in the index.
    put(&client, "t6", &[("org", s("acme")), ("status", s("open")), ("due", n(10))]).await;
    put(&client, "t7", &full("acme", "open", 100, "b")).await;

    let part = [(":o", s("acme")), (":s", s("open"))];
    // Tuple order: `day` numerically (9 < 10 < 100), then `seq` by bytes.
    assert_eq!(query(&client, "org = :o AND #s = :s", &part).await.unwrap(), ["t2", "t3", "t1", "t7"]);
    let mut with_day = part.to_vec();
    with_day.push((":d", n(10)));
    assert_eq!(query(&client, "org = :o AND #s = :s AND due = :d", &with_day).await.unwrap(), ["t3", "t1"]);
    assert_eq!(query(&client, "org = :o AND #s = :s AND due > :d", &with_day).await.unwrap(), ["t7"]);
    let mut with_seq = with_day.clone();
    with_seq.push((":q", s("b")));
    assert_eq!(
        query(&client, "#s = :s AND due = :d AND begins_with(seq, :q) AND org = :o", &with_seq)
            .await
            .unwrap(),
        ["t1"]
    );

    // Every partition attribute needs an equality condition.
    let (code, message) = query(&client, "org = :o", &[(":o", s("acme"))]).await.unwrap_err();
    assert_eq!(code, "ValidationException");
    assert_eq!(message, "Query condition missed key schema element: status");
    // A sort attribute cannot be skipped, and only the last one used takes a range condition.
    let (code, _) = query(
        &client,
        "org = :o AND #s = :s AND seq = :q",
        &[(":o", s("acme")), (":s", s("open")), (":q", s("b"))],
    )
    .await
    .unwrap_err();
    assert_eq!(code, "ValidationException");
    let (code, _) =
        query(&client, "org = :o AND #s = :s AND due > :d AND seq = :q", &with_seq).await.unwrap_err();
    assert_eq!(code, "ValidationException");
}

#[tokio::test]
async fn key_schemas_beyond_the_multi_attribute_limits_are_refused() {
    let client = monotable_embedded::client();
    // Five HASH elements: more than four partition attributes.
    let five = gsi(&[
        ("org", KeyType::Hash),
        ("status", KeyType::Hash),
        ("due", KeyType::Hash),
        ("seq", KeyType::Hash),
        ("id", KeyType::Hash),
    ]);
    let (code, _) = create(&client, five).await.unwrap_err();
    assert_eq!(code, "ValidationException");
    // A HASH element after a RANGE element.
    let mixed = gsi(&[("org", KeyType::Hash), ("due", KeyType::Range), ("status", KeyType::Hash)]);
    let (code, _) = create(&client, mixed).await.unwrap_err();
    assert_eq!(code, "ValidationException");
    // A local secondary index stays single-attribute: at most two elements.
    let lsi = LocalSecondaryIndex::builder()
        .index_name("lsi_multi")
        .key_schema(element("id", KeyType::Hash))
        .key_schema(element("due", KeyType::Range))
        .key_schema(element("seq", KeyType::Range))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .expect("lsi");
    let err = client
        .create_table()
        .table_name("tasks2")
        .set_attribute_definitions(Some(definitions()))
        .key_schema(element("id", KeyType::Hash))
        .key_schema(element("seq", KeyType::Range))
        .local_secondary_indexes(lsi)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect_err("an LSI with three elements is refused");
    assert_eq!(err.code(), Some("ValidationException"));
    assert!(err.message().unwrap_or_default().contains("Member must have length less than or equal to 2"));
}
