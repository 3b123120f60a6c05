//! The engine on the durable store behaves like the engine on the in-memory store, across
//! reopens: the same random puts, updates, deletes and transactions give the same table and
//! index contents.

use monotable_engine::{Engine, ScanInput};
use monotable_store::{open, SyncPolicy};
use monotable_types::Item;
use proptest::prelude::*;
use serde_json::{json, Value};

fn create(engine: &Engine) {
    let create = json!({
        "TableName": "tbl",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "by_g",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}
        }],
        "BillingMode": "PAY_PER_REQUEST"
    });
    engine.create_table(serde_json::from_value(create).expect("input")).expect("create");
}

#[derive(Debug, Clone)]
enum Op {
    Put { pk: u8, sk: u8, g: Option<u8> },
    Add { pk: u8, sk: u8 },
    Delete { pk: u8, sk: u8 },
    Transact { a: (u8, u8), b: (u8, u8), g: u8 },
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..3, 0u8..4, prop::option::of(0u8..2)).prop_map(|(pk, sk, g)| Op::Put { pk, sk, g }),
        2 => (0u8..3, 0u8..4).prop_map(|(pk, sk)| Op::Add { pk, sk }),
        2 => (0u8..3, 0u8..4).prop_map(|(pk, sk)| Op::Delete { pk, sk }),
        2 => ((0u8..3, 0u8..4), (0u8..3, 0u8..4), 0u8..2).prop_map(|(a, b, g)| Op::Transact { a, b, g }),
        1 => Just(Op::Reopen),
    ]
}

fn key(pk: u8, sk: u8) -> Value {
    json!({"pk": {"S": format!("p{pk}")}, "sk": {"N": sk.to_string()}})
}

/// Applies `op`; returns the outcome (Ok or the error type) so both engines can be compared.
fn apply(engine: &Engine, op: &Op) -> Result<(), String> {
    let r = match op {
        Op::Put { pk, sk, g } => {
            let mut item = key(*pk, *sk);
            if let Some(g) = g {
                item["g"] = json!({"S": format!("g{g}")});
            }
            engine
                .put_item(serde_json::from_value(json!({"TableName": "tbl", "Item": item})).expect("input"))
                .map(drop)
        }
        Op::Add { pk, sk } => engine
            .update_item(
                serde_json::from_value(json!({
                    "TableName": "tbl", "Key": key(*pk, *sk), "UpdateExpression": "ADD n :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}
                }))
                .expect("input"),
            )
            .map(drop),
        Op::Delete { pk, sk } => engine
            .delete_item(
                serde_json::from_value(json!({"TableName": "tbl", "Key": key(*pk, *sk)})).expect("input"),
            )
            .map(drop),
        Op::Transact { a, b, g } => {
            let item = |k: &(u8, u8)| {
                let mut i = key(k.0, k.1);
                i["g"] = json!({"S": format!("g{g}")});
                i
            };
            engine
                .transact_write_items(
                    serde_json::from_value(json!({"TransactItems": [
                        {"Put": {"TableName": "tbl", "Item": item(a)}},
                        {"Put": {"TableName": "tbl", "Item": item(b)}}
                    ]}))
                    .expect("input"),
                )
                .map(drop)
        }
        Op::Reopen => Ok(()),
    };
    r.map_err(|e| e.kind.type_name().to_owned())
}

fn contents(engine: &Engine, index: Option<&str>) -> Vec<Item> {
    let mut out = engine
        .scan(ScanInput {
            table_name: Some("tbl".into()),
            index_name: index.map(str::to_owned),
            ..ScanInput::default()
        })
        .expect("scan")
        .items
        .unwrap_or_default()
        .into_iter()
        .map(monotable_engine::api::SharedItem::into_item)
        .collect::<Vec<Item>>();
    out.sort_by_key(|i| serde_json::to_string(i).unwrap_or_default());
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn durable_engine_matches_in_memory_engine_across_reopens(ops in prop::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let memory = Engine::new();
        create(&memory);
        let mut durable = Engine::with_storage(open(dir.path(), SyncPolicy::None).expect("open")).expect("engine");
        create(&durable);
        for op in &ops {
            if let Op::Reopen = op {
                drop(durable);
                durable = Engine::with_storage(open(dir.path(), SyncPolicy::None).expect("reopen")).expect("engine");
                continue;
            }
            prop_assert_eq!(apply(&memory, op), apply(&durable, op), "{:?}", op);
        }
        prop_assert_eq!(contents(&memory, None), contents(&durable, None));
        prop_assert_eq!(contents(&memory, Some("by_g")), contents(&durable, Some("by_g")));
    }
}
