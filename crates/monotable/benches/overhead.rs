//! Library overhead against raw `aws-sdk-dynamodb` calls on the embedded engine, for get, put
//! and query (goal: under 10%).

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use criterion::{criterion_group, criterion_main, Criterion};
use jsonwebtoken::{encode, EncodingKey, Header};
use monotable::{authenticate, Conventions, CursorKey, Entity, JwtVerifier, Query, Table, TableName};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
struct Record {
    org_id: String,
    id: String,
    status: String,
    title: String,
}

fn setup(rt: &tokio::runtime::Runtime) -> (aws_sdk_dynamodb::Client, Table, monotable::Scope) {
    rt.block_on(async {
        let client = monotable::embedded::client();
        let s = |n: &str| {
            AttributeDefinition::builder()
                .attribute_name(n)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap()
        };
        let k = |n: &str, t| KeySchemaElement::builder().attribute_name(n).key_type(t).build().unwrap();
        client
            .create_table()
            .table_name("bench")
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(s("pk"))
            .attribute_definitions(s("sk"))
            .key_schema(k("pk", KeyType::Hash))
            .key_schema(k("sk", KeyType::Range))
            .send()
            .await
            .unwrap();
        let table = Table::builder(client.clone())
            .conventions(Conventions::lower())
            .name(TableName::resolved("bench"))
            .entity::<Record>()
            .cursor_key(CursorKey::new([1u8; 32]).unwrap())
            .build()
            .await
            .unwrap();
        let exp =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3600;
        let token = encode(
            &Header::default(),
            &serde_json::json!({"sub": "bench", "orgs": ["o"], "exp": exp}),
            &EncodingKey::from_secret(b"secret"),
        )
        .unwrap();
        let scope = authenticate(&JwtVerifier::hs256(b"secret"), &token).unwrap().org("o").unwrap();
        let repo = table.repo::<Record>(&scope).unwrap();
        for i in 0..50 {
            let r = Record {
                org_id: "o".into(),
                id: format!("r{i:02}"),
                status: "open".into(),
                title: format!("t{i}"),
            };
            repo.put(&r).await.unwrap();
        }
        (client, table, scope)
    })
}

fn raw_item(id: &str) -> std::collections::HashMap<String, AttributeValue> {
    let s = |v: &str| AttributeValue::S(v.into());
    [
        ("pk", s("ORG#o")),
        ("sk", s(&format!("RECORD#{id}"))),
        ("entityType", s("Record")),
        ("org_id", s("o")),
        ("id", s(id)),
        ("status", s("open")),
        ("title", s("t")),
        ("updatedOn", s("2024-01-01T00:00:00.000Z")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (client, table, scope) = setup(&rt);
    let repo = table.repo::<Record>(&scope).unwrap();
    let key = RecordKey { id: "r07".into() };

    let mut g = c.benchmark_group("get");
    g.bench_function("raw", |b| {
        b.to_async(&rt).iter(|| async {
            let out = client
                .get_item()
                .table_name("bench")
                .key("pk", AttributeValue::S("ORG#o".into()))
                .key("sk", AttributeValue::S("RECORD#r07".into()))
                .send()
                .await
                .unwrap();
            let r: Record = serde_dynamo::from_item(out.item.unwrap()).unwrap();
            r
        })
    });
    g.bench_function("monotable", |b| b.to_async(&rt).iter(|| async { repo.get(&key).await.unwrap() }));
    g.finish();

    let mut g = c.benchmark_group("put");
    let item = Record { org_id: "o".into(), id: "p1".into(), status: "open".into(), title: "t".into() };
    g.bench_function("raw", |b| {
        b.to_async(&rt).iter(|| async {
            client.put_item().table_name("bench").set_item(Some(raw_item("p1"))).send().await.unwrap()
        })
    });
    g.bench_function("monotable", |b| b.to_async(&rt).iter(|| async { repo.put(&item).await.unwrap() }));
    g.finish();

    let mut g = c.benchmark_group("query");
    g.bench_function("raw", |b| {
        b.to_async(&rt).iter(|| async {
            let out = client
                .query()
                .table_name("bench")
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :p)")
                .expression_attribute_names("#pk", "pk")
                .expression_attribute_names("#sk", "sk")
                .expression_attribute_values(":pk", AttributeValue::S("ORG#o".into()))
                .expression_attribute_values(":p", AttributeValue::S("RECORD#".into()))
                .limit(20)
                .send()
                .await
                .unwrap();
            let items: Vec<Record> = serde_dynamo::from_items(out.items.unwrap_or_default()).unwrap();
            items
        })
    });
    g.bench_function("monotable", |b| {
        b.to_async(&rt).iter(|| async { repo.query(Query::table().limit(20)).await.unwrap() })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3)).warm_up_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
