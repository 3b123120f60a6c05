//! Model-based property test: random Put/Update/Delete/TransactWrite sequences against the
//! engine and a plain `BTreeMap`, checking GetItem, Query (both directions, limits,
//! pagination) and the GSI after every step.

mod common;

use std::collections::BTreeMap;

use common::*;
use monotable_engine::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Model: (pk, sk) -> (value, optional gsi key).
type Model = BTreeMap<(u8, i64), (i64, Option<u8>)>;

#[derive(Debug, Clone)]
enum Op {
    Put(u8, i64, i64, Option<u8>),
    Add(u8, i64, i64),
    Delete(u8, i64),
    Tx(Vec<(u8, i64, i64)>),
}

fn op() -> impl Strategy<Value = Op> {
    let pk = 0u8..3;
    let sk = -4i64..4;
    prop_oneof![
        (pk.clone(), sk.clone(), -5i64..5, proptest::option::of(0u8..2))
            .prop_map(|(a, b, c, d)| Op::Put(a, b, c, d)),
        (pk.clone(), sk.clone(), -3i64..3).prop_map(|(a, b, c)| Op::Add(a, b, c)),
        (pk.clone(), sk.clone()).prop_map(|(a, b)| Op::Delete(a, b)),
        proptest::collection::btree_map((pk, sk), -3i64..3, 1..4)
            .prop_map(|m| Op::Tx(m.into_iter().map(|((a, b), c)| (a, b, c)).collect())),
    ]
}

fn key(pk: u8, sk: i64) -> Value {
    json!({"pk": {"S": format!("p{pk}")}, "sk": {"N": sk.to_string()}})
}

fn apply(e: &Engine, m: &mut Model, op: &Op) {
    match op {
        Op::Put(pk, sk, v, g) => {
            let mut item = key(*pk, *sk);
            item["v"] = json!({"N": v.to_string()});
            if let Some(g) = g {
                item["gpk"] = json!({"S": format!("g{g}")});
                item["gsk"] = json!({"N": (v * 10 + sk).to_string()});
            }
            put(e, item);
            m.insert((*pk, *sk), (*v, *g));
        }
        Op::Add(pk, sk, d) => {
            e.update_item(req(
                json!({"TableName": "tbl", "Key": key(*pk, *sk), "UpdateExpression": "ADD v :d",
                "ExpressionAttributeValues": {":d": {"N": d.to_string()}}}),
            ))
            .unwrap();
            let entry = m.entry((*pk, *sk)).or_insert((0, None));
            entry.0 += d;
            // The GSI sort key is not updated by ADD; remember the item keeps its gsk.
            if entry.1.is_some() {
                // gsk was computed from the old value; keep model consistent by re-putting.
                let (v, g) = *entry;
                let mut item = key(*pk, *sk);
                item["v"] = json!({"N": v.to_string()});
                item["gpk"] = json!({"S": format!("g{}", g.unwrap_or(0))});
                item["gsk"] = json!({"N": (v * 10 + sk).to_string()});
                put(e, item);
            }
        }
        Op::Delete(pk, sk) => {
            e.delete_item(req(json!({"TableName": "tbl", "Key": key(*pk, *sk)}))).unwrap();
            m.remove(&(*pk, *sk));
        }
        Op::Tx(parts) => {
            // Every item must exist for the transaction to commit (a condition per action).
            let all_exist = parts.iter().all(|(p, s, _)| m.contains_key(&(*p, *s)));
            let items: Vec<Value> = parts
                .iter()
                .map(|(p, s, d)| {
                    json!({"Update": {"TableName": "tbl", "Key": key(*p, *s), "UpdateExpression": "SET v = v + :d",
                        "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":d": {"N": d.to_string()}}}})
                })
                .collect();
            let r = e.transact_write_items(req(json!({"TransactItems": items})));
            if all_exist {
                r.unwrap();
                for (p, s, d) in parts {
                    if let Some(entry) = m.get_mut(&(*p, *s)) {
                        entry.0 += d;
                        if entry.1.is_some() {
                            let (v, g) = *entry;
                            let mut item = key(*p, *s);
                            item["v"] = json!({"N": v.to_string()});
                            item["gpk"] = json!({"S": format!("g{}", g.unwrap_or(0))});
                            item["gsk"] = json!({"N": (v * 10 + s).to_string()});
                            put(e, item);
                        }
                    }
                }
            } else {
                assert_eq!(r.unwrap_err().kind, ErrorKind::TransactionCanceled);
            }
        }
    }
}

fn num(v: &Value) -> i64 {
    v["N"].as_str().unwrap().parse().unwrap()
}

/// Pages through a query, returning the `sk`s (base) or `gsk`s (index) seen.
fn query_all(e: &Engine, index: Option<&str>, pk: &str, forward: bool, limit: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let (attr, key_attr) = if index.is_some() { ("gpk", "gsk") } else { ("pk", "sk") };
        let mut r = json!({"TableName": "tbl", "KeyConditionExpression": format!("{attr} = :p"),
            "ExpressionAttributeValues": {":p": {"S": pk}}, "Limit": limit, "ScanIndexForward": forward});
        if let Some(i) = index {
            r["IndexName"] = json!(i);
        }
        if let Some(s) = &start {
            r["ExclusiveStartKey"] = s.clone();
        }
        let page = js(&e.query(req(r)).unwrap());
        for item in page["Items"].as_array().unwrap() {
            out.push((num(&item[key_attr]), num(&item["v"])));
        }
        match page.get("LastEvaluatedKey") {
            Some(k) => start = Some(k.clone()),
            None => return out,
        }
    }
}

fn check(e: &Engine, m: &Model, limit: i64) {
    for pk in 0u8..3 {
        for sk in -4i64..4 {
            let got = js(&e
                .get_item(req(json!({"TableName": "tbl", "Key": key(pk, sk), "ConsistentRead": true})))
                .unwrap());
            match m.get(&(pk, sk)) {
                Some((v, _)) => assert_eq!(num(&got["Item"]["v"]), *v),
                None => assert!(got.get("Item").is_none()),
            }
        }
        let want: Vec<(i64, i64)> =
            m.range((pk, i64::MIN)..=(pk, i64::MAX)).map(|((_, s), (v, _))| (*s, *v)).collect();
        assert_eq!(query_all(e, None, &format!("p{pk}"), true, limit), want);
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(query_all(e, None, &format!("p{pk}"), false, limit), rev);
    }
    for g in 0u8..2 {
        let mut want: Vec<(i64, (u8, i64), i64)> = m
            .iter()
            .filter(|(_, (_, gg))| *gg == Some(g))
            .map(|((p, s), (v, _))| (v * 10 + s, (*p, *s), *v))
            .collect();
        want.sort();
        let want: Vec<(i64, i64)> = want.into_iter().map(|(gsk, _, v)| (gsk, v)).collect();
        assert_eq!(query_all(e, Some("gsi"), &format!("g{g}"), true, limit), want);
    }
    let d = js(&e.describe_table(req(json!({"TableName": "tbl"}))).unwrap());
    assert_eq!(d["Table"]["ItemCount"], m.len() as i64);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn engine_agrees_with_a_btreemap_model(ops in proptest::collection::vec(op(), 1..30), limit in 1i64..5) {
        let e = engine_with_table();
        let mut m = Model::new();
        for op in &ops {
            apply(&e, &mut m, op);
            check(&e, &m, limit);
        }
    }
}
