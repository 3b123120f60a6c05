//! Repository operations (S4, S8, S11, S16) and dry run.

use aws_sdk_dynamodb::types::AttributeValue;
use monotable::{ConflictReason, Error, Keys, Projection, Query, Sort, Update};
use serde::Deserialize;

use crate::common::*;

#[tokio::test]
async fn s8_create_get_put_delete_round_trip() {
    let table = table().await;
    let alice = caller("alice", &["org-1"], &[]);
    let repo = table.repo::<Record>(&alice.org("org-1").unwrap()).unwrap();
    let created = repo.create(&Record::new("org-1", "r1", "open")).await.unwrap();
    assert_eq!(created.version, 1, "create stores version 1");
    let key = RecordKey { id: "r1".into() };
    assert_eq!(repo.get(&key).await.unwrap(), created);
    let mut changed = created.clone();
    changed.title = "new title".into();
    let stored = repo.put(&changed).await.unwrap();
    assert_eq!((stored.title.as_str(), stored.version), ("new title", 2));
    let deleted = repo.delete(&key).await.unwrap();
    assert_eq!(deleted.title, "new title");
    assert!(matches!(repo.get(&key).await, Err(Error::NotFound { entity: "Record" })));
    assert!(matches!(repo.delete(&key).await, Err(Error::NotFound { .. })));
    assert_eq!(repo.find(&key).await.unwrap(), None);
}

#[tokio::test]
async fn s15_create_is_idempotent_for_the_same_item_and_conflicts_otherwise() {
    let table = table().await;
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    let r = Record::new("org-1", "r1", "open");
    let first = repo.create(&r).await.unwrap();
    assert_eq!(repo.create(&r).await.unwrap(), first, "a retried create is a no-op");
    let mut other = r.clone();
    other.title = "different".into();
    assert!(matches!(
        repo.create(&other).await,
        Err(Error::Conflict { reason: ConflictReason::AlreadyExists, .. })
    ));
}

#[tokio::test]
async fn s16_update_with_a_stale_version_is_a_conflict() {
    let table = table().await;
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    repo.create(&Record::new("org-1", "r1", "open")).await.unwrap();
    let key = RecordKey { id: "r1".into() };
    let f = Record::FIELDS;
    let updated = repo.update(&key, Update::new().set(f.title, "v2").expect_version(1)).await.unwrap();
    assert_eq!((updated.title.as_str(), updated.version), ("v2", 2));
    let stale = repo.update(&key, Update::new().set(f.title, "lost").expect_version(1)).await;
    assert!(matches!(
        stale,
        Err(Error::Conflict { reason: ConflictReason::VersionMismatch { expected: 1 }, .. })
    ));
    assert_eq!(repo.get(&key).await.unwrap().title, "v2");
    // put with a stale version is refused too.
    let mut stale_item = updated.clone();
    stale_item.version = 1;
    assert!(matches!(
        repo.put(&stale_item).await,
        Err(Error::Conflict { reason: ConflictReason::VersionMismatch { .. }, .. })
    ));
}

#[tokio::test]
async fn s8_update_of_a_missing_item_is_not_found_and_key_fields_are_refused() {
    let table = table().await;
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    let key = RecordKey { id: "nope".into() };
    let f = Record::FIELDS;
    assert!(matches!(repo.update(&key, Update::new().set(f.title, "x")).await, Err(Error::NotFound { .. })));
    assert!(matches!(repo.update(&key, Update::new().set(f.id, "y")).await, Err(Error::Validation(_))));
    assert!(matches!(repo.update(&key, Update::new().set(f.version, 9i64)).await, Err(Error::Validation(_))));
}

#[tokio::test]
async fn s7_update_of_an_index_field_rewrites_the_gsi_key() {
    let table = table().await;
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    repo.create(&Record::new("org-1", "r1", "open")).await.unwrap();
    let f = Record::FIELDS;
    repo.update(&RecordKey { id: "r1".into() }, Update::new().set(f.status, "closed")).await.unwrap();
    let by_status = |s: &'static str| Query::index("gsi1").partition(Keys::new().with(f.status, s));
    assert!(repo.query(by_status("open")).await.unwrap().items.is_empty());
    assert_eq!(repo.query(by_status("closed")).await.unwrap().items.len(), 1);
}

/// A task indexed by its optional assignee: sparse on gsi1 (S7).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, monotable::Entity)]
#[entity(pk = "ORG#{org_id}", sk = "TASK#{id}", tenant = org_id,
         gsi1(pk = "ORG#{org_id}#ASSIGNEE#{assignee}", sk = "TASK#{id}"))]
pub struct Task {
    pub org_id: String,
    pub id: String,
    pub assignee: Option<String>,
}

#[tokio::test]
async fn s7_a_put_that_clears_an_index_field_takes_the_item_out_of_the_sparse_index() {
    let name = unique_name("mt-sparse");
    let table = base_builder(client(), monotable::Conventions::lower(), &name)
        .entity::<Task>()
        .build()
        .await
        .unwrap();
    table.create_for_development().await.unwrap();
    let repo = table.repo::<Task>(&caller("alice", &["o"], &[]).org("o").unwrap()).unwrap();
    let by =
        || Query::index("gsi1").partition(Keys::new().with(Task::FIELDS.assignee, Some("bob".to_string())));
    let mut task = Task { org_id: "o".into(), id: "t1".into(), assignee: Some("bob".into()) };
    repo.put(&task).await.unwrap();
    assert_eq!(repo.query(by()).await.unwrap().items, [task.clone()]);
    // The upsert replaces the item: without an assignee it is no longer in gsi1.
    task.assignee = None;
    repo.put(&task).await.unwrap();
    assert!(repo.query(by()).await.unwrap().items.is_empty());
    assert_eq!(repo.get(&TaskKey { id: "t1".into() }).await.unwrap(), task);
}

#[tokio::test]
async fn s4_created_is_set_once_and_updated_on_every_write() {
    let table = table().await;
    let scope = caller("alice", &["org-1"], &[]).org("org-1").unwrap();
    let repo = table.repo::<Record>(&scope).unwrap();
    let raw = |t: &monotable::Table| {
        let (c, n) = (t.conventions().pk.clone(), t.name().to_string());
        let client = t.client().clone();
        async move {
            let item = client
                .get_item()
                .table_name(n)
                .key(c, AttributeValue::S("ORG#org-1".into()))
                .key("sk", AttributeValue::S("RECORD#r1".into()))
                .send()
                .await
                .unwrap()
                .item
                .unwrap();
            let s = |k: &str| item.get(k).and_then(|v| v.as_s().ok()).cloned().unwrap_or_default();
            (s("createdOn"), s("updatedOn"), s("createdBy"), s("entityType"))
        }
    };
    repo.create(&Record::new("org-1", "r1", "open")).await.unwrap();
    let (c1, u1, by1, et) = raw(&table).await;
    assert_eq!((by1.as_str(), et.as_str()), ("alice", "Record"));
    assert!(c1.ends_with('Z') && c1.contains('T'), "ISO 8601 UTC: {c1}");
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let bob = caller("bob", &["org-1"], &[]).org("org-1").unwrap();
    let mut r = repo.get(&RecordKey { id: "r1".into() }).await.unwrap();
    r.title = "upsert".into();
    table.repo::<Record>(&bob).unwrap().put(&r).await.unwrap();
    let (c2, u2, by2, _) = raw(&table).await;
    assert_eq!((c2.as_str(), by2.as_str()), (c1.as_str(), "alice"), "created stamps survive an upsert");
    assert!(u2 > u1, "updated moves forward: {u1} -> {u2}");
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let mut again = repo.get(&RecordKey { id: "r1".into() }).await.unwrap();
    again.title = "batch".into();
    repo.batch_put(&[again]).await.unwrap();
    let (c3, u3, by3, _) = raw(&table).await;
    assert_eq!((c3.as_str(), by3.as_str()), (c1.as_str(), "alice"), "created stamps survive a batch put");
    assert!(u3 > u2);
}

#[tokio::test]
async fn s8_query_with_typed_sort_conditions() {
    let table = table().await;
    let repo = table.repo::<Event>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    let days = ["2024-01-01", "2024-01-02", "2024-01-03"];
    for d in days {
        for id in ["a", "b"] {
            repo.create(&Event { org_id: "o".into(), day: d.into(), id: id.into(), n: 1 }).await.unwrap();
        }
    }
    // An item of another type in the same partition never shows up.
    table
        .repo::<Record>(&caller("a", &["o"], &[]).org("o").unwrap())
        .unwrap()
        .create(&Record::new("o", "x", "s"))
        .await
        .unwrap();
    let f = Event::FIELDS;
    let day = |d: &str| Keys::new().with(f.day, d);
    let count = |q| {
        let repo = repo.clone();
        async move {
            repo.query(q)
                .await
                .unwrap()
                .items
                .iter()
                .map(|e| format!("{}/{}", e.day, e.id))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(count(Query::table()).await.len(), 6);
    assert_eq!(
        count(Query::table().sort(Sort::eq(day("2024-01-02")))).await,
        vec!["2024-01-02/a", "2024-01-02/b"]
    );
    assert_eq!(
        count(Query::table().sort(Sort::eq(day("2024-01-02").with(f.id, "b")))).await,
        vec!["2024-01-02/b"]
    );
    assert_eq!(count(Query::table().sort(Sort::lt(day("2024-01-02")))).await.len(), 2);
    assert_eq!(count(Query::table().sort(Sort::le(day("2024-01-02")))).await.len(), 4);
    assert_eq!(count(Query::table().sort(Sort::gt(day("2024-01-02")))).await.len(), 2);
    assert_eq!(count(Query::table().sort(Sort::ge(day("2024-01-02")))).await.len(), 4);
    assert_eq!(
        count(Query::table().sort(Sort::between(day("2024-01-02"), day("2024-01-03")))).await.len(),
        4
    );
    assert_eq!(count(Query::table().sort(Sort::begins_with(day("2024-01")))).await.len(), 6);
    let desc = count(Query::table().descending().limit(1)).await;
    assert_eq!(desc, vec!["2024-01-03/b"]);
}

#[derive(Debug, Deserialize, PartialEq)]
struct TitleOnly {
    title: String,
}

#[tokio::test]
async fn s11_find_all_with_filter_and_projection_in_domain_names() {
    let table = table().await;
    let repo = table.repo::<Record>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    for (i, s) in ["open", "closed", "open", "open"].iter().enumerate() {
        repo.create(&Record::new("o", &format!("r{i}"), s)).await.unwrap();
    }
    let f = Record::FIELDS;
    let page = repo.find_all(f.status.eq("open").and(f.id.ne("r3")), 10, None).await.unwrap();
    assert_eq!(page.items.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), vec!["r0", "r2"]);
    let titles: monotable::Page<TitleOnly> = repo
        .query_as(Query::table().filter(f.status.eq("closed")), Projection::new().field(f.title))
        .await
        .unwrap();
    assert_eq!(titles.items, vec![TitleOnly { title: "title r1".into() }]);
}

#[tokio::test]
async fn dry_run_renders_the_exact_request_without_sending() {
    // A client that cannot reach anything: planning never sends.
    let table = register(base_builder(dead_client(), monotable::Conventions::lower(), "app-dev-records"))
        .build()
        .await
        .unwrap();
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    let req = repo.plan_at("2024-05-01T10:00:00.000Z").create(&Record::new("org-1", "r#1", "open")).unwrap();
    assert_eq!(req.operation(), "PutItem");
    assert_eq!(
        req.to_json(),
        serde_json::json!({
            "TableName": "app-dev-records",
            "ConditionExpression": "attribute_not_exists(#n0)",
            "ExpressionAttributeNames": {"#n0": "pk"},
            "Item": {
                "pk": {"S": "ORG#org-1"},
                "sk": {"S": "RECORD#r%231"},
                "gsi1pk": {"S": "ORG#org-1#STATUS#open"},
                "gsi1sk": {"S": "RECORD#r%231"},
                "entityType": {"S": "Record"},
                "createdOn": {"S": "2024-05-01T10:00:00.000Z"},
                "updatedOn": {"S": "2024-05-01T10:00:00.000Z"},
                "createdBy": {"S": "alice"},
                "orgId": {"S": "org-1"},
                "id": {"S": "r#1"},
                "status": {"S": "open"},
                "title": {"S": "title r#1"},
                "version": {"N": "1"},
                "note": {"NULL": true}
            }
        })
    );
    let q = repo
        .plan()
        .query(&Query::index("gsi1").partition(Keys::new().with(Record::FIELDS.status, "open")))
        .unwrap();
    let json = q.to_json();
    assert_eq!(json["IndexName"], "gsi1");
    assert_eq!(json["KeyConditionExpression"], "#n0 = :v0 AND begins_with(#n1, :v1)");
    assert_eq!(json["FilterExpression"], "#n2 = :v2", "index overloading: only this entity type");
    assert_eq!(json["ExpressionAttributeValues"][":v0"]["S"], "ORG#org-1#STATUS#open");
    assert!(
        repo.plan().get(&RecordKey { id: "r1".into() }).unwrap().to_json()["Key"]["sk"]["S"] == "RECORD#r1"
    );
}

#[tokio::test]
async fn s16_dry_run_of_a_versioned_update_shows_the_condition_and_the_index_rewrite() {
    let table = register(base_builder(dead_client(), monotable::Conventions::lower(), "app-dev"))
        .build()
        .await
        .unwrap();
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    let f = Record::FIELDS;
    let req = repo
        .plan_at("2024-05-01T10:00:00.000Z")
        .update(&RecordKey { id: "r1".into() }, &Update::new().set(f.status, "done").expect_version(3))
        .unwrap();
    let json = req.to_json();
    assert_eq!(json["ConditionExpression"], "attribute_exists(#n4) AND #n5 = :v4");
    assert_eq!(json["ExpressionAttributeNames"]["#n5"], "version");
    assert_eq!(json["ExpressionAttributeValues"][":v4"]["N"], "3");
    assert_eq!(json["ExpressionAttributeValues"][":v5"]["N"], "4");
    let update = json["UpdateExpression"].as_str().unwrap();
    assert_eq!(update, "SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3, #n5 = :v5");
    assert_eq!(json["ExpressionAttributeNames"]["#n1"], "gsi1pk");
    assert_eq!(json["ExpressionAttributeValues"][":v1"]["S"], "ORG#org-1#STATUS#done");
    assert_eq!(json["ReturnValues"], "ALL_NEW");
}
