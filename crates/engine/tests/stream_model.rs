//! Model test of DynamoDB Streams: random puts, updates, conditional writes, deletes,
//! transactions and TTL expiries against a NEW_AND_OLD_IMAGES table and a `BTreeMap`.
//! Replaying the stream from TRIM_HORIZON must rebuild exactly the table (and the model), and
//! each record's old image must be what the previous record of that item left.

mod common;

use std::collections::BTreeMap;

use common::*;
use monotable_engine::*;
use monotable_types::{AttributeValue, Item};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
enum Op {
    Put(u8, i64),
    Add(u8, i64),
    PutIfAbsent(u8, i64),
    Delete(u8),
    Tx(Vec<(u8, i64)>),
    Expire(u8),
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..5;
    prop_oneof![
        (k.clone(), 0i64..3).prop_map(|(k, v)| Op::Put(k, v)),
        (k.clone(), 1i64..3).prop_map(|(k, v)| Op::Add(k, v)),
        (k.clone(), 0i64..3).prop_map(|(k, v)| Op::PutIfAbsent(k, v)),
        k.clone().prop_map(Op::Delete),
        proptest::collection::vec((k.clone(), 0i64..3), 1..4).prop_map(Op::Tx),
        k.prop_map(Op::Expire),
    ]
}

fn key(k: u8) -> Value {
    json!({"pk": {"S": format!("k{k}")}})
}

/// Applies `op` to the engine and the model; true when it was a TTL deletion of an item.
fn apply(e: &Engine, model: &mut BTreeMap<String, i64>, op: &Op) -> bool {
    let name = |k: u8| format!("k{k}");
    match op {
        Op::Put(k, v) => {
            e.put_item(req(
                json!({"TableName": "model", "Item": {"pk": {"S": name(*k)}, "v": {"N": v.to_string()}}}),
            ))
            .unwrap();
            model.insert(name(*k), *v);
        }
        Op::Add(k, v) => {
            e.update_item(req(json!({
                "TableName": "model", "Key": key(*k),
                "UpdateExpression": "ADD v :v", "ExpressionAttributeValues": {":v": {"N": v.to_string()}}
            })))
            .unwrap();
            *model.entry(name(*k)).or_insert(0) += v;
        }
        Op::PutIfAbsent(k, v) => {
            let r = e.put_item(req(json!({
                "TableName": "model", "Item": {"pk": {"S": name(*k)}, "v": {"N": v.to_string()}},
                "ConditionExpression": "attribute_not_exists(pk)"
            })));
            assert_eq!(r.is_ok(), !model.contains_key(&name(*k)));
            model.entry(name(*k)).or_insert(*v);
        }
        Op::Delete(k) => {
            e.delete_item(req(json!({"TableName": "model", "Key": key(*k)}))).unwrap();
            model.remove(&name(*k));
        }
        Op::Tx(puts) => {
            let mut seen = std::collections::HashSet::new();
            let puts: Vec<_> = puts.iter().filter(|(k, _)| seen.insert(*k)).collect();
            let items: Vec<Value> = puts
                .iter()
                .map(|(k, v)| json!({"Put": {"TableName": "model", "Item": {"pk": {"S": name(*k)}, "v": {"N": v.to_string()}}}}))
                .collect();
            e.transact_write_items(req(json!({"TransactItems": items}))).unwrap();
            for (k, v) in puts {
                model.insert(name(*k), *v);
            }
        }
        Op::Expire(k) => {
            e.delete_expired_item(req(json!({"TableName": "model", "Key": key(*k)}))).unwrap();
            return model.remove(&name(*k)).is_some();
        }
    }
    false
}

fn number(item: &Item) -> i64 {
    match item.get("v") {
        Some(AttributeValue::N(n)) => n.to_string().parse().unwrap(),
        _ => panic!("item without v: {item:?}"),
    }
}

/// The table the stream describes; `service` counts the records of TTL deletions.
fn replay(e: &Engine, arn: &str, service: &mut usize) -> BTreeMap<String, i64> {
    let d = e.describe_stream(req(json!({"StreamArn": arn}))).unwrap();
    let shard = d.stream_description.and_then(|d| d.shards).unwrap()[0].shard_id.clone();
    let it = e
        .get_shard_iterator(req(
            json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
        ))
        .unwrap();
    let mut table: BTreeMap<String, Item> = BTreeMap::new();
    let mut iterator = it.shard_iterator;
    while let Some(i) = iterator {
        let out = e.get_records(req(json!({"ShardIterator": i, "Limit": 7}))).unwrap();
        let records = out.records.unwrap_or_default();
        if records.is_empty() {
            break;
        }
        for r in records {
            let d = r.dynamodb.unwrap();
            let Some(AttributeValue::S(pk)) = d.keys.unwrap().get("pk").cloned() else { panic!("no key") };
            // The old image is exactly what the item's previous record left.
            assert_eq!(d.old_image.as_ref(), table.get(&pk), "old image of {pk}");
            if r.user_identity.is_some() {
                assert_eq!(r.event_name.as_deref(), Some("REMOVE"), "only removals are by the service");
                *service += 1;
            }
            match d.new_image {
                Some(new) => table.insert(pk, new),
                None => table.remove(&pk),
            };
        }
        iterator = out.next_shard_iterator;
    }
    table.into_iter().map(|(k, item)| (k, number(&item))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn replaying_the_stream_rebuilds_the_table(ops in proptest::collection::vec(op(), 1..40)) {
        let e = Engine::new();
        let out = e.create_table(req(json!({
            "TableName": "model",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        }))).unwrap();
        let arn = out.table_description.and_then(|d| d.latest_stream_arn).unwrap();
        let mut model = BTreeMap::new();
        let expired = ops.iter().filter(|op| apply(&e, &mut model, op)).count();
        let scanned: BTreeMap<String, i64> = e
            .scan(req(json!({"TableName": "model"})))
            .unwrap()
            .items
            .unwrap_or_default()
            .iter()
            .map(|i| match i.get("pk") { Some(AttributeValue::S(s)) => (s.clone(), number(i)), _ => panic!() })
            .collect();
        prop_assert_eq!(&scanned, &model);
        let mut service = 0;
        prop_assert_eq!(replay(&e, &arn, &mut service), model);
        prop_assert_eq!(service, expired);
    }
}
