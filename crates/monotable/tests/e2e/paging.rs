//! Pagination (S10): full pages, authenticated cursors, and a property test that pages never
//! skip or repeat items.

use monotable::{CursorError, CursorKey, Error, Query, Repository};
use proptest::prelude::*;

use crate::common::*;

async fn events(repo: &Repository<Event>, org: &str, ns: &[u32]) {
    for (i, n) in ns.iter().enumerate() {
        let e = Event {
            org_id: org.into(),
            day: format!("2024-01-{:02}", i % 28 + 1),
            id: format!("e{i:03}"),
            n: *n,
        };
        repo.create(&e).await.unwrap();
    }
}

async fn collect(repo: &Repository<Event>, q: impl Fn() -> Query<Event>) -> (Vec<String>, Vec<usize>) {
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    for _ in 0..200 {
        let page = repo.query(q().after(cursor.as_deref())).await.unwrap();
        sizes.push(page.items.len());
        seen.extend(page.items.into_iter().map(|e| e.id));
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    (seen, sizes)
}

#[tokio::test]
async fn s10_a_filter_that_trims_results_still_yields_full_pages() {
    let table = table().await;
    let repo = table.repo::<Event>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    // Only every fifth item matches.
    let ns: Vec<u32> = (0..40).map(|i| if i % 5 == 0 { 1 } else { 0 }).collect();
    events(&repo, "o", &ns).await;
    let (seen, sizes) = collect(&repo, || Query::table().filter(Event::FIELDS.n.eq(1u32)).limit(3)).await;
    assert_eq!(seen.len(), 8);
    assert_eq!(sizes, vec![3, 3, 2], "pages are full although the filter trims");
}

#[tokio::test]
async fn s10_tampered_foreign_tenant_other_query_and_expired_cursors_are_refused() {
    let table = table().await;
    let both = caller("a", &["o1", "o2"], &[]);
    let repo = table.repo::<Event>(&both.org("o1").unwrap()).unwrap();
    events(&repo, "o1", &[0, 0, 0, 0]).await;
    let page = repo.query(Query::table().limit(2)).await.unwrap();
    let cursor = page.cursor.expect("more remain");
    // Tampered: flip one character of the payload.
    let mut bytes = cursor.clone().into_bytes();
    bytes[3] = if bytes[3] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).unwrap();
    let err = |r: Result<monotable::Page<Event>, Error>| match r {
        Err(Error::InvalidCursor(e)) => e,
        other => panic!("expected an invalid cursor, got {other:?}"),
    };
    assert_eq!(
        err(repo.query(Query::table().limit(2).after(Some(&tampered))).await),
        CursorError::BadSignature
    );
    let other_tenant = table.repo::<Event>(&both.org("o2").unwrap()).unwrap();
    assert_eq!(
        err(other_tenant.query(Query::table().limit(2).after(Some(&cursor))).await),
        CursorError::WrongTenant
    );
    let other_query = Query::table().filter(Event::FIELDS.n.eq(0u32)).limit(2).after(Some(&cursor));
    assert_eq!(err(repo.query(other_query).await), CursorError::WrongQuery);
    // The page size may change between pages.
    assert_eq!(repo.query(Query::table().limit(5).after(Some(&cursor))).await.unwrap().items.len(), 2);
    // Expired.
    let short = register(
        base_builder(table.client().clone(), monotable::Conventions::lower(), table.name())
            .cursor_key(CursorKey::new(CURSOR_SECRET).unwrap().with_ttl(std::time::Duration::ZERO)),
    )
    .build()
    .await
    .unwrap();
    let short_repo = short.repo::<Event>(&both.org("o1").unwrap()).unwrap();
    let c = short_repo.query(Query::table().limit(1)).await.unwrap().cursor.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    assert_eq!(err(short_repo.query(Query::table().limit(1).after(Some(&c))).await), CursorError::Expired);
}

#[tokio::test]
async fn s10_cursor_for_another_entity_type_is_refused() {
    let table = table().await;
    let scope = caller("a", &["o"], &[]).org("o").unwrap();
    let records = table.repo::<Record>(&scope).unwrap();
    for i in 0..3 {
        records.create(&Record::new("o", &format!("r{i}"), "open")).await.unwrap();
    }
    let c = records.list(1, None).await.unwrap().cursor.unwrap();
    let events = table.repo::<Event>(&scope).unwrap();
    assert!(matches!(events.list(1, Some(&c)).await, Err(Error::InvalidCursor(CursorError::WrongTarget))));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn s10_pages_never_skip_or_repeat_items(
        ns in proptest::collection::vec(0u32..4, 0..30),
        limit in 1u32..7,
        threshold in proptest::option::of(0u32..4),
        descending in any::<bool>(),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let table = table().await;
            let repo = table.repo::<Event>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
            events(&repo, "o", &ns).await;
            let query = || {
                let mut q = Query::table().limit(limit);
                if let Some(t) = threshold {
                    q = q.filter(Event::FIELDS.n.ge(t));
                }
                if descending {
                    q = q.descending();
                }
                q
            };
            let (seen, sizes) = collect(&repo, query).await;
            let mut expected: Vec<(String, String)> = ns
                .iter()
                .enumerate()
                .filter(|(_, n)| threshold.is_none_or(|t| **n >= t))
                .map(|(i, _)| (format!("2024-01-{:02}", i % 28 + 1), format!("e{i:03}")))
                .collect();
            expected.sort();
            if descending {
                expected.reverse();
            }
            let expected: Vec<String> = expected.into_iter().map(|(_, id)| id).collect();
            assert_eq!(seen, expected, "sizes {sizes:?}");
            // Full pages, with or without a filter: only the last page may be short.
            let n = sizes.len();
            assert!(sizes[..n.saturating_sub(1)].iter().all(|s| *s == limit as usize), "{sizes:?}");
        });
    }
}

#[tokio::test]
async fn a_stored_item_that_does_not_decode_fails_the_page_as_get_does() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let table = table().await;
    let repo = table.repo::<Event>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    events(&repo, "o", &[1, 2]).await;
    let s = |v: &str| AttributeValue::S(v.into());
    // Written around the library: `n` is not a number.
    table
        .client()
        .put_item()
        .table_name(table.name())
        .item("pk", s("ORG#o"))
        .item("sk", s("EVENT#2024-01-01#e000x"))
        .item("entityType", s("Event"))
        .item("org_id", s("o"))
        .item("day", s("2024-01-01"))
        .item("id", s("e000x"))
        .item("n", s("many"))
        .send()
        .await
        .unwrap();
    let got = repo.get(&EventKey { day: "2024-01-01".into(), id: "e000x".into() }).await;
    let Err(Error::Backend { operation: "decode", message: get_message, .. }) = got else {
        panic!("get: {got:?}")
    };
    let page = repo.query(Query::table().limit(10)).await;
    let Err(Error::Backend { operation: "decode", message, .. }) = page else { panic!("query: {page:?}") };
    assert_eq!(message, get_message);
    assert!(message.starts_with("stored item does not decode: "), "{message}");
}
