//! Model-based property test: random Put/Update/Delete/TransactWrite sequences against the
//! engine and a plain `BTreeMap`, checking GetItem, Query (both directions, limits,
//! pagination) and the GSI after every step.

mod common;

use std::collections::BTreeMap;

use common::*;
use monotable_engine::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Model: (pk, sk) -> (value, optional GSI partition, optional LSI sort key).
type Model = BTreeMap<(u8, i64), (i64, Option<u8>, Option<i64>)>;

#[derive(Debug, Clone)]
enum Op {
    Put(u8, i64, i64, Option<u8>),
    Add(u8, i64, i64),
    /// Moves the item into GSI partition `g`, or out of the GSI, if the item exists.
    SetGsi(u8, i64, Option<u8>),
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
        (pk.clone(), sk.clone(), proptest::option::of(0u8..2)).prop_map(|(a, b, g)| Op::SetGsi(a, b, g)),
        (pk.clone(), sk.clone()).prop_map(|(a, b)| Op::Delete(a, b)),
        proptest::collection::btree_map((pk, sk), -3i64..3, 1..4)
            .prop_map(|m| Op::Tx(m.into_iter().map(|((a, b), c)| (a, b, c)).collect())),
    ]
}

fn key(pk: u8, sk: i64) -> Value {
    json!({"pk": {"S": format!("p{pk}")}, "sk": {"N": sk.to_string()}})
}

/// Applies an operation to the engine and the model. The GSI key is `gpk = g{g}`, `gsk = sk`.
fn apply(e: &Engine, m: &mut Model, op: &Op) {
    match op {
        Op::Put(pk, sk, v, g) => {
            let mut item = key(*pk, *sk);
            item["v"] = json!({"N": v.to_string()});
            if let Some(g) = g {
                item["gpk"] = json!({"S": format!("g{g}")});
                item["gsk"] = json!({"N": sk.to_string()});
            }
            // Items with an even value are in the LSI, under a sort key derived from it.
            let lsk = (v % 2 == 0).then_some(*v);
            if let Some(l) = lsk {
                item["lsk"] = json!({"S": format!("l{l:+}")});
            }
            put(e, item);
            m.insert((*pk, *sk), (*v, *g, lsk));
        }
        Op::Add(pk, sk, d) => {
            e.update_item(req(
                json!({"TableName": "tbl", "Key": key(*pk, *sk), "UpdateExpression": "ADD v :d",
                "ExpressionAttributeValues": {":d": {"N": d.to_string()}}}),
            ))
            .unwrap();
            m.entry((*pk, *sk)).or_insert((0, None, None)).0 += d;
        }
        Op::SetGsi(pk, sk, g) => {
            let r = match g {
                Some(g) => e.update_item(req(json!({"TableName": "tbl", "Key": key(*pk, *sk),
                    "UpdateExpression": "SET gpk = :g, gsk = :s", "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeValues": {":g": {"S": format!("g{g}")}, ":s": {"N": sk.to_string()}}}))),
                None => e.update_item(req(json!({"TableName": "tbl", "Key": key(*pk, *sk),
                    "UpdateExpression": "REMOVE gpk, gsk", "ConditionExpression": "attribute_exists(pk)"}))),
            };
            match m.get_mut(&(*pk, *sk)) {
                Some(entry) => {
                    r.unwrap();
                    entry.1 = *g;
                }
                None => assert_eq!(r.unwrap_err().kind, ErrorKind::ConditionalCheckFailed),
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

/// Pages through the LSI of one partition, returning `(lsk, sk)` pairs.
fn query_lsi(e: &Engine, pk: &str, limit: i64) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut r = json!({"TableName": "tbl", "IndexName": "lsi", "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": pk}}, "Limit": limit});
        if let Some(s) = &start {
            r["ExclusiveStartKey"] = s.clone();
        }
        let page = js(&e.query(req(r)).unwrap());
        for item in page["Items"].as_array().unwrap() {
            assert!(item.get("v").is_none(), "KEYS_ONLY entries hold keys only");
            out.push((item["lsk"]["S"].as_str().unwrap().to_owned(), num(&item["sk"])));
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
                Some((v, _, _)) => assert_eq!(num(&got["Item"]["v"]), *v),
                None => assert!(got.get("Item").is_none()),
            }
        }
        let want: Vec<(i64, i64)> =
            m.range((pk, i64::MIN)..=(pk, i64::MAX)).map(|((_, s), (v, _, _))| (*s, *v)).collect();
        assert_eq!(query_all(e, None, &format!("p{pk}"), true, limit), want);
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(query_all(e, None, &format!("p{pk}"), false, limit), rev);
    }
    for g in 0u8..2 {
        // Index order: gsk (= sk), then the table key (pk, sk).
        let mut want: Vec<(i64, u8, i64)> = m
            .iter()
            .filter(|(_, (_, gg, _))| *gg == Some(g))
            .map(|((p, s), (v, _, _))| (*s, *p, *v))
            .collect();
        want.sort();
        let want: Vec<(i64, i64)> = want.into_iter().map(|(gsk, _, v)| (gsk, v)).collect();
        assert_eq!(query_all(e, Some("gsi"), &format!("g{g}"), true, limit), want);
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(query_all(e, Some("gsi"), &format!("g{g}"), false, limit), rev);
    }
    for pk in 0u8..3 {
        // The LSI (KEYS_ONLY) orders a partition by lsk, then by the table sort key.
        let mut want: Vec<(String, i64)> = m
            .range((pk, i64::MIN)..=(pk, i64::MAX))
            .filter_map(|((_, s), (_, _, l))| l.map(|l| (format!("l{l:+}"), *s)))
            .collect();
        want.sort();
        assert_eq!(query_lsi(e, &format!("p{pk}"), limit), want);
    }
    let d = js(&e.describe_table(req(json!({"TableName": "tbl"}))).unwrap());
    assert_eq!(d["Table"]["ItemCount"], m.len() as i64);
    let in_gsi = m.values().filter(|(_, g, _)| g.is_some()).count() as i64;
    assert_eq!(d["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"], in_gsi);
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
