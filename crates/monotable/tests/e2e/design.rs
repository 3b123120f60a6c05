//! Start-up checks (S2, S5, S7, S19) and key-template properties.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use monotable::{Conventions, CursorKey, Entity, Error, ParamFuture, ParameterStore, Table, TableName};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

use crate::common::*;

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{code}", tenant = org_id)]
struct RecordClash {
    org_id: String,
    code: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}#DETAIL", tenant = org_id)]
struct RecordDetail {
    org_id: String,
    id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
#[entity(pk = "{a}#{b}#X", sk = "_IDEMPOTENCY")]
struct Sneaky {
    a: String,
    b: String,
}

async fn build_with(b: monotable::TableBuilder) -> Result<Table, Error> {
    b.build().await
}

fn builder() -> monotable::TableBuilder {
    base_builder(dead_client(), Conventions::lower(), "t")
}

#[tokio::test]
async fn s5_entity_types_that_can_produce_the_same_key_are_refused_naming_both() {
    let err = build_with(builder().entity::<Record>().entity::<RecordClash>()).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Config(_)));
    assert!(msg.contains("`Record`") && msg.contains("`RecordClash`"), "{msg}");
}

#[tokio::test]
async fn s5_sort_key_prefix_reaching_another_type_is_refused() {
    let err =
        build_with(builder().entity::<Record>().entity::<RecordDetail>()).await.unwrap_err().to_string();
    assert!(err.contains("`Record`") && err.contains("`RecordDetail`"), "{err}");
    // The library's own items take part in the check.
    let err = build_with(builder().entity::<Sneaky>()).await.unwrap_err().to_string();
    assert!(err.contains("Sneaky") && err.contains("_Idempotency"), "{err}");
}

#[tokio::test]
async fn s7_an_unused_index_is_reported_and_an_undeclared_one_refused() {
    let t = build_with(
        Table::builder(dead_client())
            .conventions(Conventions::lower())
            .name(TableName::resolved("t"))
            .gsi(1)
            .gsi(3)
            .entity::<Record>()
            .cursor_key(CursorKey::new(CURSOR_SECRET).unwrap()),
    )
    .await
    .unwrap();
    assert_eq!(t.design_warnings().len(), 1);
    assert!(t.design_warnings()[0].contains("gsi3"));
    let err = build_with(
        Table::builder(dead_client())
            .conventions(Conventions::lower())
            .name(TableName::resolved("t"))
            .entity::<Record>()
            .cursor_key(CursorKey::new(CURSOR_SECRET).unwrap()),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("gsi1"), "{err}");
}

#[tokio::test]
async fn s19_table_name_from_environment_and_missing_name_is_a_startup_error() {
    let var = unique_name("MONOTABLE_TEST_TABLE").replace('-', "_");
    let b = || {
        Table::builder(dead_client())
            .conventions(Conventions::upper())
            .cursor_key(CursorKey::new(CURSOR_SECRET).unwrap())
    };
    let err = b().name(TableName::env(&var)).build().await.unwrap_err();
    assert!(matches!(&err, Error::Config(m) if m.contains(&var)), "{err}");
    std::env::set_var(&var, "app-prod-records");
    assert_eq!(b().name(TableName::env(&var)).build().await.unwrap().name(), "app-prod-records");
    assert!(matches!(b().build().await, Err(Error::Config(_))), "no name source");
}

struct Store {
    calls: Arc<AtomicUsize>,
}

impl ParameterStore for Store {
    fn get<'a>(&'a self, name: &'a str) -> ParamFuture<'a> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            Ok((name.starts_with("/shop/")).then(|| format!("table-for{}", name.replace('/', "-"))))
        })
    }
}

#[tokio::test]
async fn s19_table_name_from_a_parameter_is_resolved_once_and_cached() {
    assert_eq!(
        TableName::parameter_path("shop", "dev", "orders", "order").unwrap(),
        "/shop/dev/orders/order-table-name"
    );
    assert!(TableName::parameter_path("shop", "", "orders", "order").is_err());
    let calls = Arc::new(AtomicUsize::new(0));
    let stage = unique_name("stage");
    for _ in 0..3 {
        let name =
            TableName::parameter(Store { calls: calls.clone() }, "shop", &stage, "orders", "order").unwrap();
        let t = Table::builder(dead_client())
            .conventions(Conventions::lower())
            .name(name)
            .cursor_key(CursorKey::new(CURSOR_SECRET).unwrap())
            .build()
            .await
            .unwrap();
        assert_eq!(t.name(), format!("table-for-shop-{stage}-orders-order-table-name"));
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1, "resolved once");
    let missing = TableName::parameter(Store { calls }, "other", "dev", "u", "m").unwrap();
    let err = Table::builder(dead_client())
        .conventions(Conventions::lower())
        .name(missing)
        .cursor_key(CursorKey::new(CURSOR_SECRET).unwrap())
        .build()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("/other/dev/u/m-table-name"), "{err}");
}

#[tokio::test]
async fn s2_upper_convention_names_every_attribute() {
    let table = table_with(Conventions::upper()).await;
    let repo = table.repo::<Record>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    repo.create(&Record::new("o", "r1", "open")).await.unwrap();
    let item = table.client().scan().table_name(table.name()).send().await.unwrap().items.unwrap().remove(0);
    for attr in ["PK", "SK", "EntityType", "GSI1PK", "GSI1SK", "CreatedAt", "UpdatedAt", "CreatedBy"] {
        assert!(item.contains_key(attr), "{attr} missing from {item:?}");
    }
    assert_eq!(repo.list(5, None).await.unwrap().items.len(), 1);
}

#[tokio::test]
async fn s5_delimiter_injection_cannot_reach_another_item() {
    let table = table().await;
    let scope = caller("a", &["o"], &[]).org("o").unwrap();
    let events = table.repo::<Event>(&scope).unwrap();
    // A day value that tries to end the field and start another one.
    events.create(&Event { org_id: "o".into(), day: "d1#x".into(), id: "y".into(), n: 1 }).await.unwrap();
    let other = EventKey { day: "d1".into(), id: "x#y".into() };
    assert!(events.find(&other).await.unwrap().is_none(), "`d1#x`/`y` and `d1`/`x#y` are different keys");
    events.create(&Event { org_id: "o".into(), day: "d1".into(), id: "x#y".into(), n: 2 }).await.unwrap();
    assert_eq!(events.list(10, None).await.unwrap().items.len(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Keys rendered from arbitrary strings never collide across entity types (S5).
    #[test]
    fn s5_keys_from_arbitrary_strings_never_collide_across_types(a in ".{1,12}", b in ".{1,12}", c in ".{1,12}") {
        let table = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(
            register(base_builder(dead_client(), Conventions::lower(), "t")).build()
        ).unwrap();
        let scope = caller("u", &[a.as_str()], &[]).org(&a).unwrap();
        let key = |req: monotable::Request| {
            let j = req.to_json();
            (j["Key"]["pk"]["S"].as_str().unwrap_or_default().to_string(), j["Key"]["sk"]["S"].as_str().unwrap_or_default().to_string())
        };
        let keys = [
            key(table.repo::<Record>(&scope).unwrap().plan().get(&RecordKey { id: b.clone() }).unwrap()),
            key(table.repo::<Declaration>(&scope).unwrap().plan().get(&DeclarationKey { id: b.clone() }).unwrap()),
            key(table.repo::<Document>(&scope).unwrap().plan().get(&DocumentKey { id: b.clone() }).unwrap()),
            key(table.repo::<Event>(&scope).unwrap().plan().get(&EventKey { day: b.clone(), id: c.clone() }).unwrap()),
            key(table.repo::<Event>(&scope).unwrap().plan().get(&EventKey { day: format!("{b}#{c}"), id: c.clone() }).unwrap()),
        ];
        for (i, x) in keys.iter().enumerate() {
            for y in &keys[i + 1..] {
                prop_assert_ne!(x, y);
            }
        }
    }
}

#[tokio::test]
async fn s22_the_table_definition_is_generated_from_the_model() {
    let table = register(base_builder(dead_client(), Conventions::upper(), "t")).build().await.unwrap();
    let cf = table.cloudformation_resource();
    assert_eq!(cf["Type"], "AWS::DynamoDB::Table");
    let p = &cf["Properties"];
    assert_eq!(p["KeySchema"][0]["AttributeName"], "PK");
    assert_eq!(p["GlobalSecondaryIndexes"][1]["IndexName"], "GSI2");
    assert_eq!(p["GlobalSecondaryIndexes"][1]["KeySchema"][1]["AttributeName"], "GSI2SK");
    assert_eq!(p["TimeToLiveSpecification"]["AttributeName"], "TTL");
    assert_eq!(p["AttributeDefinitions"].as_array().map(Vec::len), Some(6));
}

#[tokio::test]
async fn s21_create_for_development_makes_a_usable_table_and_is_idempotent() {
    let table =
        register(base_builder(client(), Conventions::lower(), &unique_name("dev"))).build().await.unwrap();
    table.create_for_development().await.unwrap();
    table.create_for_development().await.unwrap();
    let repo = table.repo::<Post>(&caller("u", &[], &[]).personal()).unwrap();
    repo.create(&Post { user_id: "u".into(), post_id: "p".into(), title: "t".into() }).await.unwrap();
    assert_eq!(repo.list(10, None).await.unwrap().items.len(), 1);
}

/// Access patterns declared on the entity: defaults for the index, keys and scope.
#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "SHOP#{shop_id}", sk = "ORDER#{order_id}", tenant = shop_id,
         gsi1(pk = "STATUS#{status}", sk = "ORDER#{order_id}"),
         pattern(name = "get-order", get),
         pattern(name = "recent-orders", query, begins_with = "ORDER#", filter(total_cents)),
         pattern(name = "orders-by-status", query, index = gsi1, admin))]
struct ShopOrder {
    shop_id: String,
    order_id: String,
    status: String,
    total_cents: u64,
    paid: Option<bool>,
    lines: Vec<String>,
}

#[tokio::test]
async fn patterns_declared_on_an_entity_are_in_its_tables_design_with_their_defaults() {
    let t = build_with(builder().entity::<ShopOrder>()).await.unwrap();
    let d = t.design();
    let p = |name: &str| d.access_patterns.iter().find(|p| p.name == name).unwrap().clone();
    let get = p("get-order");
    assert_eq!((get.index.as_str(), get.operation), ("table", monotable::design::Operation::Get));
    let key = get.key.unwrap();
    assert_eq!(key.pk, "SHOP#{shop_id}");
    assert_eq!(key.sk.unwrap().value, "ORDER#{order_id}");
    let recent = p("recent-orders");
    assert_eq!(recent.key.unwrap().sk.unwrap().op, monotable::design::SortOp::BeginsWith);
    // Filters name the stored attribute.
    assert_eq!(recent.filter, ["totalCents"]);
    let by_status = p("orders-by-status");
    assert_eq!(by_status.index, "gsi1");
    assert_eq!(by_status.key.unwrap().pk, "STATUS#{status}");
    assert_eq!(by_status.scope, monotable::design::Scope::Admin);
    assert_eq!(by_status.entities, ["ShopOrder"]);
    // The lint sees gsi1 serve a pattern (only the builder's unused gsi2 is reported) and
    // no pattern that would scan.
    let findings: Vec<(&str, String)> =
        monotable_design::check(&d).into_iter().map(|f| (f.rule, f.subject)).collect();
    assert!(findings.contains(&("MT001", "gsi2".to_string())), "{findings:?}");
    assert!(!findings.iter().any(|f| f.0 == "MT002" || f == &("MT001", "gsi1".to_string())), "{findings:?}");
}

#[tokio::test]
async fn field_types_the_code_decides_are_compared_with_the_design_file() {
    use monotable::design::FieldType;
    let t = build_with(builder().entity::<ShopOrder>()).await.unwrap();
    let code = t.design();
    let e = code.entity("ShopOrder").unwrap();
    let ty = |f: &str| e.field(f).unwrap().ty;
    assert_eq!(
        [ty("status"), ty("total_cents"), ty("paid"), ty("lines")],
        [Some(FieldType::String), Some(FieldType::Number), Some(FieldType::Bool), Some(FieldType::List)]
    );
    let mut file = code.clone();
    let fields = &mut file.entities.iter_mut().find(|e| e.name == "ShopOrder").unwrap().fields;
    // `enum` is stored as a string too: no mismatch. A number stated as a string is one.
    fields.iter_mut().find(|f| f.name == "status").unwrap().ty = Some(FieldType::Enum);
    fields.iter_mut().find(|f| f.name == "total_cents").unwrap().ty = Some(FieldType::String);
    assert_eq!(file.type_mismatches(&code), ["ShopOrder.total_cents: design string, code number"]);
}

/// The message `assert_matches_file(table, path)` panics with, or `None` if it passes.
fn drift_message(table: &Table, path: &std::path::Path) -> Option<String> {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        monotable::design::assert_matches_file(table, path)
    }));
    let payload = caught.err()?;
    Some(payload.downcast_ref::<String>().cloned().unwrap_or_default())
}

#[tokio::test]
async fn a_design_file_that_differs_in_one_field_fails_naming_only_that_field() {
    let t = build_with(builder().entity::<ShopOrder>()).await.unwrap();
    let path = std::env::temp_dir().join(format!("{}.yaml", unique_name("drift")));
    let yaml = t.design().to_yaml();
    std::fs::write(&path, &yaml).unwrap();
    assert_eq!(drift_message(&t, &path), None, "the code's own design matches");
    let drifted = yaml.replacen("sk: ORDER#{order_id}\n", "sk: PURCHASE#{order_id}\n", 1);
    assert_ne!(drifted, yaml);
    std::fs::write(&path, drifted).unwrap();
    let message = drift_message(&t, &path).expect("a drifted file fails");
    assert!(message.contains("entities[ShopOrder].sk"), "{message}");
    assert!(message.contains("PURCHASE#{order_id}") && message.contains("ORDER#{order_id}"), "{message}");
    // Nothing that agrees is printed: not the conventions, the index, the other key or a pattern.
    for same in ["createdOn", "gsi1", "SHOP#{shop_id}", "recent-orders", "totalCents"] {
        assert!(!message.contains(same), "{same} in:\n{message}");
    }
    assert!(message.lines().count() <= 3, "{message}");
    // What only one side has is named, with its value.
    let mut file = t.design();
    file.access_patterns.retain(|p| p.name != "recent-orders");
    std::fs::write(&path, file.to_yaml()).unwrap();
    let message = drift_message(&t, &path).expect("a missing pattern fails");
    assert!(message.contains("access_patterns[recent-orders]: file absent, code {"), "{message}");
    assert!(!message.contains("get-order"), "{message}");
    std::fs::remove_file(&path).unwrap();
}
