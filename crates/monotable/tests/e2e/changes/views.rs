//! Puts, updates and deletes through `Repository` arrive as Insert, Modify and Remove records
//! whose images, decoded into the collection, are exactly what the repository returned, as the
//! stream's view type allows.

use aws_sdk_dynamodb::types::{AttributeValue, StreamViewType};
use monotable::changes::{ChangeConsumer, ChangeKind, ChangeRecord, Image, Only};
use monotable::Update;

use super::both;
use super::setup::{env, Backend, Collect};
use crate::common::{Document, DocumentKey, Event, OrgItem, Record, RecordKey};

async fn insert_modify_remove_carry_the_images_of_the_view_type(backend: Backend) {
    for view in [
        StreamViewType::NewAndOldImages,
        StreamViewType::NewImage,
        StreamViewType::OldImage,
        StreamViewType::KeysOnly,
    ] {
        let env = env(backend, Some(view.clone())).await;
        let repo = env.table.repo::<Record>(&env.scope()).unwrap();
        let created = repo.create(&Record::new("org-1", "r1", "open")).await.unwrap();
        let key = RecordKey { id: "r1".into() };
        let updated =
            repo.update(&key, Update::new().set(Record::FIELDS.status, "done".to_string())).await.unwrap();
        let deleted = repo.delete(&key).await.unwrap();
        assert_eq!(deleted, updated);

        let mut consumer = env.consumer().build().await.unwrap();
        let mut seen = Collect::default();
        assert_eq!(consumer.catch_up(&mut seen).await.unwrap(), 3, "{view:?}");
        let kinds: Vec<ChangeKind> = seen.0.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::Insert, ChangeKind::Modify, ChangeKind::Remove], "{view:?}");
        let (new, old) = match view {
            StreamViewType::NewAndOldImages => (true, true),
            StreamViewType::NewImage => (true, false),
            StreamViewType::OldImage => (false, true),
            _ => (false, false),
        };
        let entity = |r: &Record| Some(OrgItem::Record(r.clone()));
        let [insert, modify, remove] = &seen.0[..] else { unreachable!() };
        assert_eq!(insert.new_entity().cloned(), if new { entity(&created) } else { None }, "{view:?}");
        assert_eq!(insert.old, None, "an insert has no old image");
        assert_eq!(modify.old_entity().cloned(), if old { entity(&created) } else { None }, "{view:?}");
        assert_eq!(modify.new_entity().cloned(), if new { entity(&updated) } else { None }, "{view:?}");
        assert_eq!(remove.old_entity().cloned(), if old { entity(&updated) } else { None }, "{view:?}");
        assert_eq!(remove.new, None, "a remove has no new image");
        for c in &seen.0 {
            // Without images, the entity type comes from the key templates.
            assert_eq!(c.entity_type.as_deref(), Some("Record"), "{view:?}");
            assert!(c.member);
            assert!(!c.by_ttl);
            assert_eq!(c.stream_arn, consumer.stream_arn());
            assert_eq!(c.keys.get("pk"), Some(&AttributeValue::S("ORG#org-1".into())));
            assert_eq!(c.keys.get("sk"), Some(&AttributeValue::S("RECORD#r1".into())));
            assert_eq!(c.keys.len(), 2, "keys hold only the key attributes");
            assert_eq!(c.view_type.map(|v| v.as_str()), Some(view.as_str()));
            assert!(c.approximate_creation_time.is_some());
            assert!(!c.event_id.is_empty());
        }
        let seqs: Vec<u128> = seen.0.iter().map(|c| c.sequence_number.parse().unwrap()).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "sequence order: {seqs:?}");
    }
}
both!(insert_modify_remove_carry_the_images_of_the_view_type);

async fn a_ttl_deletion_is_marked_as_made_by_ttl(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewAndOldImages)).await;
    let docs = env.table.repo::<Document>(&env.scope()).unwrap();
    let doc =
        |id: &str| Document { org_id: "org-1".into(), id: id.into(), name: id.into(), expires_at: Some(1) };
    let expired = docs.create(&doc("d1")).await.unwrap();
    docs.create(&doc("d2")).await.unwrap();
    // The Time to Live process's deletion, as the engine's TTL sweeper makes it.
    let input = serde_json::from_value(serde_json::json!({
        "TableName": env.table.name(),
        "Key": {"pk": {"S": "ORG#org-1"}, "sk": {"S": "DOCUMENT#d1"}}
    }))
    .unwrap();
    env.engine.delete_expired_item(input).unwrap();
    docs.delete(&DocumentKey { id: "d2".into() }).await.unwrap();

    let mut seen = Collect::default();
    env.consumer().build().await.unwrap().catch_up(&mut seen).await.unwrap();
    let removes: Vec<_> = seen.0.iter().filter(|c| c.kind == ChangeKind::Remove).collect();
    assert_eq!(removes.len(), 2);
    assert!(removes[0].by_ttl, "the TTL deletion");
    assert_eq!(removes[0].old_entity(), Some(&OrgItem::Document(expired)));
    assert!(!removes[1].by_ttl, "a deletion by a request");
    assert!(seen.0.iter().filter(|c| c.kind == ChangeKind::Insert).all(|c| !c.by_ttl));
}
both!(a_ttl_deletion_is_marked_as_made_by_ttl);

async fn items_outside_the_collection_are_reported_as_foreign(backend: Backend) {
    for view in [StreamViewType::NewImage, StreamViewType::KeysOnly] {
        let env = env(backend, Some(view.clone())).await;
        // A registered type that is not in `OrgItem`.
        let events = env.table.repo::<Event>(&env.scope()).unwrap();
        events
            .create(&Event { org_id: "org-1".into(), day: "d".into(), id: "e1".into(), n: 1 })
            .await
            .unwrap();
        // An item written without the library, and one that claims to be a Record but is not.
        let s = |v: &str| AttributeValue::S(v.into());
        env.client()
            .put_item()
            .table_name(env.table.name())
            .item("pk", s("RAW"))
            .item("sk", s("RAW"))
            .send()
            .await
            .unwrap();
        env.client()
            .put_item()
            .table_name(env.table.name())
            .item("pk", s("ORG#org-1"))
            .item("sk", s("RECORD#bad"))
            .item("entityType", s("Record"))
            .send()
            .await
            .unwrap();
        let mut seen = Collect::default();
        assert_eq!(env.consumer().build().await.unwrap().catch_up(&mut seen).await.unwrap(), 3);
        let [event, raw, bad] = &seen.0[..] else { unreachable!() };
        assert_eq!(event.entity_type.as_deref(), Some("Event"), "{view:?}");
        assert!(!event.member && !raw.member, "{view:?}");
        assert_eq!(raw.entity_type, None);
        // The malformed Record is of a member type by its type attribute or its key.
        assert!(bad.member && bad.entity_type.as_deref() == Some("Record"), "{view:?}");
        if view == StreamViewType::NewImage {
            assert!(matches!(&event.new, Some(Image::Foreign { entity_type: Some(t), .. }) if t == "Event"));
            assert!(matches!(&raw.new, Some(Image::Foreign { entity_type: None, item }) if item.len() == 2));
            assert!(
                matches!(&bad.new, Some(Image::Undecodable { entity_type, error, .. }) if entity_type == "Record" && !error.is_empty()),
                "{:?}",
                bad.new
            );
        } else {
            assert!(event.new.is_none() && raw.new.is_none() && bad.new.is_none());
        }
    }
}
both!(items_outside_the_collection_are_reported_as_foreign);

async fn a_single_entity_type_is_consumed_as_only(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewImage)).await;
    let records = env.table.repo::<Record>(&env.scope()).unwrap();
    let created = records.create(&Record::new("org-1", "r1", "open")).await.unwrap();
    let docs = env.table.repo::<Document>(&env.scope()).unwrap();
    docs.create(&Document { org_id: "org-1".into(), id: "d1".into(), name: "x".into(), expires_at: None })
        .await
        .unwrap();
    let mut consumer =
        ChangeConsumer::<Only<Record>>::builder(&env.table, env.streams.clone()).build().await.unwrap();
    let mut seen: Vec<ChangeRecord<Only<Record>>> = Vec::new();
    let mut keep = |c: ChangeRecord<Only<Record>>| {
        seen.push(c);
        async { Ok::<(), std::convert::Infallible>(()) }
    };
    assert_eq!(consumer.catch_up(&mut keep).await.unwrap(), 2);
    assert_eq!(seen[0].new_entity(), Some(&Only(created)));
    assert!(seen[0].member);
    // A Document is another type of the table, not of this consumer.
    assert!(!seen[1].member);
    assert!(matches!(&seen[1].new, Some(Image::Foreign { entity_type: Some(t), .. }) if t == "Document"));
}
both!(a_single_entity_type_is_consumed_as_only);
