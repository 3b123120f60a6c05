//! Writes (S15–S17, S20) and collections (S1, S3, S6).

use aws_sdk_dynamodb::types::AttributeValue;
use monotable::{ActionOutcome, ConflictReason, Error, Keys, Repository, Table, Update, ValidationErrors};

use crate::common::*;

#[tokio::test]
async fn s15_idempotency_key_replays_the_first_result_and_refuses_a_different_payload() {
    let table = table().await;
    let repo = table.repo::<Record>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    let first = repo.create_idempotent("req-1", &Record::new("o", "r1", "open")).await.unwrap();
    let replay = repo.create_idempotent("req-1", &Record::new("o", "r1", "open")).await.unwrap();
    assert_eq!(replay, first);
    let different = repo.create_idempotent("req-1", &Record::new("o", "r2", "open")).await;
    assert!(matches!(different, Err(Error::Conflict { reason: ConflictReason::IdempotencyKeyReused, .. })));
    assert!(matches!(repo.get(&RecordKey { id: "r2".into() }).await, Err(Error::NotFound { .. })));
    // The record carries an expiry in the TTL attribute.
    let scan = table
        .maintenance(&caller("root", &[], &["admin"]).admin().unwrap())
        .scan_page(100, None)
        .await
        .unwrap();
    let record = scan
        .items
        .iter()
        .find(|i| i.get("entityType") == Some(&AttributeValue::S("_Idempotency".into())))
        .expect("an idempotency record");
    assert!(matches!(record.get("ttl"), Some(AttributeValue::N(_))));
}

#[tokio::test]
async fn s17_unique_email_is_guarded_by_a_transaction() {
    let table = table().await;
    let a = table.repo::<User>(&caller("a", &[], &[]).personal()).unwrap();
    let b = table.repo::<User>(&caller("b", &[], &[]).personal()).unwrap();
    a.create(&User { user_id: "a".into(), email: "x@example.com".into(), name: "A".into() }).await.unwrap();
    let taken =
        b.create(&User { user_id: "b".into(), email: "x@example.com".into(), name: "B".into() }).await;
    assert!(
        matches!(taken, Err(Error::Conflict { reason: ConflictReason::UniqueTaken { field: "email" }, .. })),
        "{taken:?}"
    );
    // Changing A's email frees the old value.
    a.put(&User { user_id: "a".into(), email: "y@example.com".into(), name: "A".into() }).await.unwrap();
    b.create(&User { user_id: "b".into(), email: "x@example.com".into(), name: "B".into() }).await.unwrap();
    let steal = a.put(&User { user_id: "a".into(), email: "x@example.com".into(), name: "A".into() }).await;
    assert!(
        matches!(steal, Err(Error::Conflict { reason: ConflictReason::UniqueTaken { .. }, .. })),
        "{steal:?}"
    );
    // Deleting B frees its email.
    b.delete(&UserKey {}).await.unwrap();
    a.put(&User { user_id: "a".into(), email: "x@example.com".into(), name: "A".into() }).await.unwrap();
}

#[tokio::test]
async fn s20_invalid_input_is_refused_with_field_errors_before_any_write() {
    let table =
        register(base_builder(dead_client(), monotable::Conventions::lower(), "t")).build().await.unwrap();
    let users = table.repo::<User>(&caller("a", &[], &[]).personal()).unwrap();
    let bad = User { user_id: "a".into(), email: "not-an-email".into(), name: String::new() };
    match users.create(&bad).await {
        Err(Error::Validation(v)) => {
            assert!(v.has("email"), "{v}");
            assert!(v.has("name"), "{v}");
        }
        other => panic!("expected validation errors, got {other:?}"),
    }
    let schema = monotable::json_schema::<User>();
    assert_eq!(schema["properties"]["email"]["type"], "string");
    assert!(schema["required"].as_array().unwrap().iter().any(|r| r == "user_id"));
}

#[tokio::test]
async fn s17_transaction_limit_is_checked_before_sending_and_cancellations_are_typed() {
    let table = table().await;
    let repo = table.repo::<Event>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    let ev = |i: usize| Event { org_id: "o".into(), day: "d".into(), id: format!("e{i}"), n: 0 };
    let mut tx = table.transaction();
    for i in 0..101 {
        tx = tx.create(&repo, &ev(i));
    }
    assert!(matches!(tx.plan(), Err(Error::Limit { limit: 100, actual: 101, .. })));
    assert!(matches!(tx.commit().await, Err(Error::Limit { .. })));
    assert!(repo.list(10, None).await.unwrap().items.is_empty(), "nothing was written");

    repo.create(&ev(1)).await.unwrap();
    let records = table.repo::<Record>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    let result = table
        .transaction()
        .create(&records, &Record::new("o", "r1", "open"))
        .create(&repo, &ev(1))
        .commit()
        .await;
    match result {
        Err(Error::TransactionCancelled(outcomes)) => {
            assert_eq!(outcomes, vec![ActionOutcome::Ok, ActionOutcome::ConditionFailed]);
        }
        other => panic!("expected a cancellation, got {other:?}"),
    }
    assert!(records.find(&RecordKey { id: "r1".into() }).await.unwrap().is_none(), "atomic: nothing written");
    table
        .transaction()
        .create(&records, &Record::new("o", "r1", "open"))
        .update(
            &repo,
            &EventKey { day: "d".into(), id: "e1".into() },
            Update::new().set(Event::FIELDS.n, 7u32),
        )
        .commit()
        .await
        .unwrap();
    assert_eq!(repo.get(&EventKey { day: "d".into(), id: "e1".into() }).await.unwrap().n, 7);
}

#[tokio::test]
async fn batch_put_get_delete_chunk_past_the_limits() {
    let table = table().await;
    let repo = table.repo::<Event>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    let items: Vec<Event> = (0..130)
        .map(|i| Event { org_id: "o".into(), day: "d".into(), id: format!("e{i:03}"), n: i })
        .collect();
    repo.batch_put(&items).await.unwrap();
    let keys: Vec<EventKey> =
        items.iter().map(|e| EventKey { day: e.day.clone(), id: e.id.clone() }).collect();
    let mut got = repo.batch_get(&keys).await.unwrap();
    got.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(got, items);
    repo.batch_delete(&keys[..60]).await.unwrap();
    assert_eq!(repo.batch_get(&keys).await.unwrap().len(), 70);
}

#[tokio::test]
async fn s6_collection_query_decodes_each_item_by_entity_type() {
    let table = table().await;
    let scope = caller("a", &["o"], &[]).org("o").unwrap();
    table.repo::<Record>(&scope).unwrap().create(&Record::new("o", "r1", "open")).await.unwrap();
    let decl = Declaration { org_id: "o".into(), id: "d1".into(), period: "2024Q1".into() };
    table.repo::<Declaration>(&scope).unwrap().create(&decl).await.unwrap();
    let doc = Document {
        org_id: "o".into(),
        id: "f1".into(),
        name: "scan.pdf".into(),
        expires_at: Some(4_000_000_000),
    };
    table.repo::<Document>(&scope).unwrap().create(&doc).await.unwrap();
    table
        .repo::<Event>(&scope)
        .unwrap()
        .create(&Event { org_id: "o".into(), day: "d".into(), id: "e".into(), n: 0 })
        .await
        .unwrap();
    let anchor = DeclarationKey { id: "d1".into() };
    let page = table.collection::<OrgItem, _>(&scope, &anchor, 10, None).await.unwrap();
    assert_eq!(page.items.len(), 3, "the event is not a member: {:?}", page.items);
    assert!(page.items.iter().any(|i| matches!(i, OrgItem::Declaration(d) if *d == decl)));
    assert!(page.items.iter().any(|i| matches!(i, OrgItem::Document(d) if *d == doc)));
    // The document's expiry was copied to the table's TTL attribute.
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("pk", AttributeValue::S("ORG#o".into()))
        .key("sk", AttributeValue::S("DOCUMENT#f1".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.item.unwrap().get("ttl"), Some(&AttributeValue::N("4000000000".into())));
    // A user with posts: one Query.
    let me = caller("u", &[], &[]).personal();
    table
        .repo::<User>(&me)
        .unwrap()
        .create(&User { user_id: "u".into(), email: "u@e.com".into(), name: "U".into() })
        .await
        .unwrap();
    for p in ["p1", "p2"] {
        table
            .repo::<Post>(&me)
            .unwrap()
            .create(&Post { user_id: "u".into(), post_id: p.into(), title: p.into() })
            .await
            .unwrap();
    }
    let page =
        table.collection::<UserItem, _>(&me, &PostKey { post_id: "p1".into() }, 2, None).await.unwrap();
    assert_eq!(page.items.len(), 2);
    let rest = table
        .collection::<UserItem, _>(&me, &PostKey { post_id: "p1".into() }, 2, page.cursor.as_deref())
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 1);
    assert!(rest.cursor.is_none());
    let _ = Keys::<Post>::new();
}

async fn accounts() -> (Table, Repository<Account>) {
    let client = client();
    let conv = monotable::Conventions::lower();
    let name = unique_name("mt-accounts");
    create_table(&client, &conv, &name, 2).await;
    let table = base_builder(client, conv, &name).entity::<Account>().build().await.expect("table");
    let repo = table.repo::<Account>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    (table, repo)
}

fn field_errors<T: std::fmt::Debug>(r: Result<T, Error>) -> ValidationErrors {
    match r {
        Err(Error::Validation(v)) => v,
        other => panic!("expected validation errors, got {other:?}"),
    }
}

#[tokio::test]
async fn s20_partial_update_checks_the_rules_of_every_field_it_sets() {
    let (_table, repo) = accounts().await;
    let key = AccountKey { id: "a1".into() };
    let stored = repo.create(&Account::new("o", "a1")).await.unwrap();
    let f = Account::FIELDS;

    let v = field_errors(repo.update(&key, Update::new().set(f.display_name, "")).await);
    assert!(v.has("display_name"), "{v}");
    let v = field_errors(
        repo.update(&key, Update::new().set(f.display_name, "x".repeat(21)).set(f.score, 101u32)).await,
    );
    assert!(v.has("display_name") && v.has("score"), "every failing field is reported: {v}");
    let v = field_errors(repo.update(&key, Update::new().set(f.nick, Some("toolong".to_string()))).await);
    assert!(v.has("nick"), "rules inside an Option hold: {v}");
    // A removed field is checked as `None`.
    let v = field_errors(repo.update(&key, Update::new().remove(f.note)).await);
    assert!(v.has("note"), "{v}");
    // A plan is refused the same way, and so is a transaction's update.
    assert!(matches!(
        repo.plan().update(&key, &Update::new().set(f.score, 500u32)),
        Err(Error::Validation(_))
    ));
    let tx = _table.transaction().update(&repo, &key, Update::new().set(f.display_name, "")).commit().await;
    assert!(matches!(tx, Err(Error::Validation(_))), "{tx:?}");
    assert_eq!(repo.get(&key).await.unwrap(), stored, "nothing was written");

    let ok = repo
        .update(
            &key,
            Update::new()
                .set(f.display_name, "Acme 2")
                .set(f.score, 100u32)
                .set(f.nick, Some("ac".to_string()))
                .set(f.free, Some("anything".to_string())),
        )
        .await
        .unwrap();
    assert_eq!((ok.display_name.as_str(), ok.score, ok.nick.as_deref()), ("Acme 2", 100, Some("ac")));
    repo.update(&key, Update::new().remove(f.nick).remove(f.free)).await.unwrap();
}

#[tokio::test]
async fn s20_partial_update_refuses_what_it_cannot_check_without_the_stored_item() {
    let (_table, repo) = accounts().await;
    let key = AccountKey { id: "a1".into() };
    repo.create(&Account::new("o", "a1")).await.unwrap();
    let f = Account::FIELDS;
    // `matches(pin)` reads `pin`: checked when both are set, refused when `pin` is left alone.
    let v = field_errors(repo.update(&key, Update::new().set(f.pin_confirm, "1234")).await);
    assert!(v.has("pin_confirm"), "{v}");
    let v = field_errors(repo.update(&key, Update::new().set(f.pin, "9").set(f.pin_confirm, "8")).await);
    assert!(v.has("pin_confirm"), "{v}");
    let ok = repo.update(&key, Update::new().set(f.pin, "9").set(f.pin_confirm, "9")).await.unwrap();
    assert_eq!((ok.pin.as_str(), ok.pin_confirm.as_str()), ("9", "9"));
    // A field without rules may change alone (`pin` is `skip`).
    repo.update(&key, Update::new().set(f.pin, "7")).await.unwrap();
    // An atomic add has no value to check before the write.
    let v = field_errors(repo.update(&key, Update::new().add(f.score, 1u32)).await);
    assert!(v.has("score"), "{v}");
    assert_eq!(repo.get(&key).await.unwrap().score, 1);
}

#[tokio::test]
async fn s20_partial_update_of_a_user_checks_the_name() {
    let table = table().await;
    let users = table.repo::<User>(&caller("a", &[], &[]).personal()).unwrap();
    users
        .create(&User { user_id: "a".into(), email: "a@example.com".into(), name: "A".into() })
        .await
        .unwrap();
    let v = field_errors(users.update(&UserKey {}, Update::new().set(User::FIELDS.name, "")).await);
    assert!(v.has("name"), "{v}");
    let ok = users.update(&UserKey {}, Update::new().set(User::FIELDS.name, "B")).await.unwrap();
    assert_eq!(ok.name, "B");
}
