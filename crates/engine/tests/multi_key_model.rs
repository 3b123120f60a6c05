//! Multi-attribute GSI keys (DynamoDB, November 2025) against a model: a `BTreeMap` ordered by
//! the attribute tuple. A GSI's KeySchema may hold up to four HASH and four RANGE elements;
//! the partition key is the tuple of the HASH attributes and the sort key the tuple of the
//! RANGE attributes, each compared attribute by attribute in DynamoDB's order (S by UTF-8
//! bytes, N numerically, B bytewise); an item missing any key attribute is not in the index.
//! Sources: AWS developer guide, "Multi-attribute key schema" (GSI.md#GSI.MultiAttributeKeys);
//! AWS provider docs of `KeySchema` ("up to 4 attributes with keyType = HASH and up to 4
//! attributes with keyType = RANGE").

mod common;

use std::collections::BTreeMap;

use common::*;
use monotable_engine::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Names chosen to exercise prefix and zero-byte ordering of strings.
const NAMES: [&str; 4] = ["a", "a\u{0}b", "ab", "b"];

/// One base item: `id` -> (org, status, prio, name), each possibly absent.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    org: Option<u8>,
    status: Option<u8>,
    prio: Option<i64>,
    name: Option<usize>,
}

fn row() -> impl Strategy<Value = Row> {
    (
        proptest::option::weighted(0.9, 0u8..2),
        proptest::option::weighted(0.9, 0u8..2),
        proptest::option::weighted(0.9, -3i64..3),
        proptest::option::weighted(0.9, 0usize..NAMES.len()),
    )
        .prop_map(|(org, status, prio, name)| Row { org, status, prio, name })
}

fn item(id: u8, r: &Row) -> Value {
    let mut item = json!({"id": {"N": id.to_string()}});
    if let Some(o) = r.org {
        item["org"] = json!({"S": format!("o{o}")});
    }
    if let Some(s) = r.status {
        item["status"] = json!({"S": format!("s{s}")});
    }
    if let Some(p) = r.prio {
        item["prio"] = json!({"N": p.to_string()});
    }
    if let Some(n) = r.name {
        item["name"] = json!({"S": NAMES[n]});
    }
    item
}

fn create(e: &Engine, with_index: bool) {
    let mut r = json!({
        "TableName": "tbl",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"
    });
    if with_index {
        r["AttributeDefinitions"] = defs();
        r["GlobalSecondaryIndexes"] = json!([gsi()]);
    }
    e.create_table(req(r)).expect("table is created");
}

fn defs() -> Value {
    json!([
        {"AttributeName": "id", "AttributeType": "N"},
        {"AttributeName": "org", "AttributeType": "S"}, {"AttributeName": "status", "AttributeType": "S"},
        {"AttributeName": "prio", "AttributeType": "N"}, {"AttributeName": "name", "AttributeType": "S"}
    ])
}

fn gsi() -> Value {
    json!({
        "IndexName": "by_org_status",
        "KeySchema": [
            {"AttributeName": "org", "KeyType": "HASH"}, {"AttributeName": "status", "KeyType": "HASH"},
            {"AttributeName": "prio", "KeyType": "RANGE"}, {"AttributeName": "name", "KeyType": "RANGE"}
        ],
        "Projection": {"ProjectionType": "KEYS_ONLY"}
    })
}

/// The sort conditions a query may use, left to right.
#[derive(Debug, Clone)]
enum SortCond {
    None,
    PrioEq(i64),
    PrioGe(i64),
    PrioBetween(i64, i64),
    PrioEqNameGt(i64, usize),
    PrioEqNameBegins(i64, usize),
}

fn sort_cond() -> impl Strategy<Value = SortCond> {
    prop_oneof![
        Just(SortCond::None),
        (-3i64..3).prop_map(SortCond::PrioEq),
        (-3i64..3).prop_map(SortCond::PrioGe),
        (-3i64..3, 0i64..3).prop_map(|(a, d)| SortCond::PrioBetween(a, a + d)),
        (-3i64..3, 0usize..NAMES.len()).prop_map(|(p, n)| SortCond::PrioEqNameGt(p, n)),
        (-3i64..3, 0usize..NAMES.len()).prop_map(|(p, n)| SortCond::PrioEqNameBegins(p, n)),
    ]
}

impl SortCond {
    fn expression(&self) -> (String, Value) {
        let n = |v: i64| json!({"N": v.to_string()});
        let s = |i: usize| json!({"S": NAMES[i]});
        let base = "org = :o AND #s = :s";
        match *self {
            SortCond::None => (base.into(), json!({})),
            SortCond::PrioEq(p) => (format!("{base} AND prio = :p"), json!({":p": n(p)})),
            SortCond::PrioGe(p) => (format!("{base} AND prio >= :p"), json!({":p": n(p)})),
            SortCond::PrioBetween(a, b) => {
                (format!("{base} AND prio BETWEEN :a AND :b"), json!({":a": n(a), ":b": n(b)}))
            }
            SortCond::PrioEqNameGt(p, x) => {
                (format!("{base} AND prio = :p AND #n > :x"), json!({":p": n(p), ":x": s(x)}))
            }
            SortCond::PrioEqNameBegins(p, x) => {
                (format!("{base} AND begins_with(#n, :x) AND prio = :p"), json!({":p": n(p), ":x": s(x)}))
            }
        }
    }

    fn matches(&self, prio: i64, name: &str) -> bool {
        match *self {
            SortCond::None => true,
            SortCond::PrioEq(p) => prio == p,
            SortCond::PrioGe(p) => prio >= p,
            SortCond::PrioBetween(a, b) => (a..=b).contains(&prio),
            SortCond::PrioEqNameGt(p, x) => prio == p && name.as_bytes() > NAMES[x].as_bytes(),
            SortCond::PrioEqNameBegins(p, x) => prio == p && name.as_bytes().starts_with(NAMES[x].as_bytes()),
        }
    }
}

/// The model's answer: ids of the partition's matching entries in tuple order
/// (prio numerically, name by UTF-8 bytes, then the base key).
fn expected(m: &BTreeMap<u8, Row>, org: u8, status: u8, cond: &SortCond, forward: bool) -> Vec<u8> {
    let mut ordered: BTreeMap<(i64, Vec<u8>, u8), u8> = BTreeMap::new();
    for (id, r) in m {
        if let (Some(o), Some(s), Some(p), Some(n)) = (r.org, r.status, r.prio, r.name) {
            if o == org && s == status && cond.matches(p, NAMES[n]) {
                ordered.insert((p, NAMES[n].as_bytes().to_vec(), *id), *id);
            }
        }
    }
    let mut ids: Vec<u8> = ordered.into_values().collect();
    if !forward {
        ids.reverse();
    }
    ids
}

/// Pages through the index, checking every LastEvaluatedKey carries all key attributes.
fn query(e: &Engine, org: u8, status: u8, cond: &SortCond, forward: bool, limit: i64) -> Vec<u8> {
    let (text, mut values) = cond.expression();
    values[":o"] = json!({"S": format!("o{org}")});
    values[":s"] = json!({"S": format!("s{status}")});
    let mut names = json!({"#s": "status"});
    if text.contains("#n") {
        names["#n"] = json!("name");
    }
    let mut out = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut r = json!({"TableName": "tbl", "IndexName": "by_org_status", "KeyConditionExpression": text,
            "ExpressionAttributeNames": names, "ExpressionAttributeValues": values,
            "Limit": limit, "ScanIndexForward": forward});
        if let Some(s) = &start {
            r["ExclusiveStartKey"] = s.clone();
        }
        let page = js(&e.query(req(r)).expect("query succeeds"));
        for item in page["Items"].as_array().expect("items") {
            out.push(item["id"]["N"].as_str().expect("id").parse().expect("number"));
        }
        match page.get("LastEvaluatedKey") {
            Some(k) => {
                let mut names: Vec<&String> = k.as_object().expect("key map").keys().collect();
                names.sort();
                assert_eq!(names, ["id", "name", "org", "prio", "status"]);
                start = Some(k.clone());
            }
            None => return out,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Items written before the index exists are backfilled by UpdateTable; items written
    /// after are maintained by the write path. Either way every query matches the model.
    #[test]
    fn multi_attribute_gsi_matches_a_tuple_ordered_model(
        before in proptest::collection::vec((0u8..12, proptest::option::weighted(0.85, row())), 0..16),
        after in proptest::collection::vec((0u8..12, proptest::option::weighted(0.85, row())), 0..16),
        queries in proptest::collection::vec((0u8..2, 0u8..2, sort_cond(), any::<bool>(), 1i64..4), 1..6),
        index_at_start in any::<bool>(),
    ) {
        let e = Engine::new();
        create(&e, index_at_start);
        let mut m = BTreeMap::new();
        let write = |ops: &[(u8, Option<Row>)], m: &mut BTreeMap<u8, Row>| {
            for (id, r) in ops {
                match r {
                    Some(r) => {
                        e.put_item(req(json!({"TableName": "tbl", "Item": item(*id, r)}))).expect("put");
                        m.insert(*id, r.clone());
                    }
                    None => {
                        e.delete_item(req(json!({"TableName": "tbl", "Key": {"id": {"N": id.to_string()}}})))
                            .expect("delete");
                        m.remove(id);
                    }
                }
            }
        };
        write(&before, &mut m);
        if !index_at_start {
            e.update_table(req(json!({"TableName": "tbl", "AttributeDefinitions": defs(),
                "GlobalSecondaryIndexUpdates": [{"Create": gsi()}]}))).expect("index is created");
        }
        write(&after, &mut m);
        for (org, status, cond, forward, limit) in &queries {
            let got = query(&e, *org, *status, cond, *forward, *limit);
            prop_assert_eq!(got, expected(&m, *org, *status, cond, *forward), "{:?}", cond);
        }
    }
}
