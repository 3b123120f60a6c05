//! Shared fixtures: the client (embedded by default, any endpoint with
//! `MONOTABLE_TEST_ENDPOINT`), a fresh table per test, entity types and callers.

use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TableStatus,
};
use aws_sdk_dynamodb::Client;
use jsonwebtoken::{encode, EncodingKey, Header};
use monotable::{
    authenticate, AuthContext, Collection, Conventions, CursorKey, Entity, JwtVerifier, Table, TableBuilder,
    TableName,
};
use serde::{Deserialize, Serialize};

pub const JWT_SECRET: &[u8] = b"test-secret-test-secret-test-secret";
pub const CURSOR_SECRET: [u8; 32] = [42u8; 32];

/// The client under test: `MONOTABLE_TEST_ENDPOINT` (any DynamoDB-compatible endpoint) or
/// the embedded engine.
pub fn client() -> Client {
    match std::env::var("MONOTABLE_TEST_ENDPOINT") {
        Ok(endpoint) if !endpoint.is_empty() => {
            let conf = aws_sdk_dynamodb::Config::builder()
                .behavior_version_latest()
                .endpoint_url(endpoint)
                .region(aws_sdk_dynamodb::config::Region::new(
                    std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".into()),
                ))
                .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                    std::env::var("AWS_ACCESS_KEY_ID").unwrap_or_else(|_| "test".into()),
                    std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_else(|_| "test".into()),
                    None,
                    None,
                    "test",
                ))
                .build();
            Client::from_conf(conf)
        }
        _ => monotable::embedded::client(),
    }
}

/// A client that can never reach a server: any request it sends fails as `Backend`.
/// Used to show an error happened before storage.
pub fn dead_client() -> Client {
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version_latest()
        .endpoint_url("http://127.0.0.1:9")
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new("x", "x", None, None, "test"))
        .build();
    Client::from_conf(conf)
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

pub fn unique_name(prefix: &str) -> String {
    format!("{prefix}-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Creates a table with pk/sk and GSI1..=gsis (infrastructure a real deployment makes by IaC).
pub async fn create_table(client: &Client, conv: &Conventions, name: &str, gsis: u8) {
    let s = |n: &str| {
        AttributeDefinition::builder()
            .attribute_name(n)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .expect("attr")
    };
    let k =
        |n: &str, t: KeyType| KeySchemaElement::builder().attribute_name(n).key_type(t).build().expect("key");
    let mut req = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(s(&conv.pk))
        .attribute_definitions(s(&conv.sk))
        .key_schema(k(&conv.pk, KeyType::Hash))
        .key_schema(k(&conv.sk, KeyType::Range));
    for i in 1..=gsis {
        let g = format!("gsi{i}");
        req = req.attribute_definitions(s(&conv.index_pk(&g))).attribute_definitions(s(&conv.index_sk(&g)));
        req = req.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(conv.index_name(&g))
                .key_schema(k(&conv.index_pk(&g), KeyType::Hash))
                .key_schema(k(&conv.index_sk(&g), KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .expect("gsi"),
        );
    }
    req.send().await.expect("create table");
    for _ in 0..120 {
        let d = client.describe_table().table_name(name).send().await.expect("describe");
        if d.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    panic!("table {name} did not become active");
}

pub fn base_builder(client: Client, conv: Conventions, name: &str) -> TableBuilder {
    Table::builder(client)
        .conventions(conv)
        .name(TableName::resolved(name))
        .gsi(1)
        .gsi(2)
        .cursor_key(CursorKey::new(CURSOR_SECRET).expect("key"))
}

/// A fresh table with every test entity registered.
pub async fn table() -> Table {
    table_with(Conventions::lower()).await
}

pub async fn table_with(conv: Conventions) -> Table {
    let client = client();
    let name = unique_name("mt-test");
    create_table(&client, &conv, &name, 2).await;
    register(base_builder(client, conv, &name)).build().await.expect("table")
}

pub fn register(b: TableBuilder) -> TableBuilder {
    b.entity::<Record>()
        .entity::<Declaration>()
        .entity::<Document>()
        .entity::<Event>()
        .entity::<User>()
        .entity::<Post>()
}

pub fn token(sub: &str, orgs: &[&str], caps: &[&str]) -> String {
    let exp =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("time").as_secs() + 600;
    let claims = serde_json::json!({ "sub": sub, "orgs": orgs, "caps": caps, "exp": exp });
    encode(&Header::default(), &claims, &EncodingKey::from_secret(JWT_SECRET)).expect("token")
}

/// A verified caller holding `orgs` with `caps`.
pub fn caller(sub: &str, orgs: &[&str], caps: &[&str]) -> AuthContext {
    authenticate(&JwtVerifier::hs256(JWT_SECRET), &token(sub, orgs, caps)).expect("auth")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, version = version,
         gsi1(pk = "ORG#{org_id}#STATUS#{status}", sk = "RECORD#{id}"))]
pub struct Record {
    pub org_id: String,
    pub id: String,
    pub status: String,
    pub title: String,
    pub version: i64,
    pub note: Option<String>,
}

impl Record {
    pub fn new(org: &str, id: &str, status: &str) -> Self {
        Record {
            org_id: org.into(),
            id: id.into(),
            status: status.into(),
            title: format!("title {id}"),
            version: 0,
            note: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "DECLARATION#{id}", tenant = org_id)]
pub struct Declaration {
    pub org_id: String,
    pub id: String,
    pub period: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "DOCUMENT#{id}", tenant = org_id, ttl = expires_at)]
pub struct Document {
    pub org_id: String,
    pub id: String,
    pub name: String,
    pub expires_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "EVENT#{day}#{id}", tenant = org_id)]
pub struct Event {
    pub org_id: String,
    pub day: String,
    pub id: String,
    pub n: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity, garde::Validate, schemars::JsonSchema)]
#[entity(pk = "USER#{user_id}", sk = "PROFILE", owner = user_id, unique(email), validate,
         gsi1(pk = "EMAIL#{email}", sk = "USER"), gsi2(pk = "USERS", sk = "USER#{user_id}"))]
pub struct User {
    #[garde(length(min = 1, max = 64))]
    pub user_id: String,
    #[garde(email)]
    pub email: String,
    #[garde(length(min = 1, max = 100))]
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "USER#{user_id}", sk = "POST#{post_id}", owner = user_id)]
pub struct Post {
    pub user_id: String,
    pub post_id: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Collection)]
pub enum OrgItem {
    Record(Record),
    Declaration(Declaration),
    Document(Document),
}

#[derive(Debug, Clone, PartialEq, Collection)]
pub enum UserItem {
    User(User),
    Post(Post),
}

/// A validated type for partial-update validation (S20): per-field rules, an optional field
/// with `required`, a rule on an `Option`'s content and a rule that reads another field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity, garde::Validate)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "ORG#{org_id}", sk = "ACCOUNT#{id}", tenant = org_id, validate)]
pub struct Account {
    #[garde(length(min = 1))]
    pub org_id: String,
    #[garde(length(min = 1))]
    pub id: String,
    #[garde(length(min = 1, max = 20))]
    pub display_name: String,
    #[garde(range(max = 100))]
    pub score: u32,
    #[garde(inner(length(max = 5)))]
    pub nick: Option<String>,
    #[garde(required)]
    pub note: Option<String>,
    #[garde(skip)]
    pub pin: String,
    #[garde(matches(pin))]
    pub pin_confirm: String,
    #[garde(skip)]
    pub free: Option<String>,
}

impl Account {
    pub fn new(org: &str, id: &str) -> Self {
        Account {
            org_id: org.into(),
            id: id.into(),
            display_name: "Acme".into(),
            score: 1,
            nick: None,
            note: Some("n".into()),
            pin: "1234".into(),
            pin_confirm: "1234".into(),
            free: None,
        }
    }
}
