//! `Engine::get_item_ref`, GetItem on a borrowed request: it answers plain lookups exactly as
//! `Engine::get_item` does, and declines every request that could fail a check.

mod common;

use common::*;
use monotable_engine::*;
use monotable_types::{Item, Name, ValueRef};
use proptest::prelude::*;
use serde_json::json;

/// `tbl` (pk S, sk N, from `common`), `hash` (pk S only) and `bin` (pk B, sk S), with a
/// few items.
fn engine() -> Engine {
    let e = engine_with_table();
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "1.5"}, "v": {"S": "one"}}));
    put(&e, json!({"pk": {"S": "a"}, "sk": {"N": "7"}, "v": {"L": [{"N": "1"}]}}));
    e.create_table(req(json!({
        "TableName": "hash",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"
    })))
    .unwrap();
    e.create_table(req(json!({
        "TableName": "bin",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "B"}, {"AttributeName": "sk", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST"
    })))
    .unwrap();
    e.put_item(req(json!({"TableName": "hash", "Item": {"pk": {"S": "a"}, "n": {"N": "2"}}}))).unwrap();
    e.put_item(req(json!({"TableName": "bin", "Item": {"pk": {"B": "AAE="}, "sk": {"S": "a"}}}))).unwrap();
    e
}

/// The owned request `get` stands for, as the server's general path would decode it (a
/// repeated key attribute: the last one wins); `None` when a value cannot be one (a number
/// that does not parse, which the general path refuses).
fn owned(get: &GetItemRef<'_>) -> Option<GetItemInput> {
    let mut pairs = Vec::new();
    for (name, value) in get.key {
        pairs.push((Name::from(*name), value.to_value().ok()?));
    }
    let key: Item = pairs.into_iter().collect();
    Some(GetItemInput {
        table_name: Some(get.table_name.to_owned()),
        key: Some(key),
        consistent_read: get.consistent_read,
        return_consumed_capacity: get.return_consumed_capacity.map(str::to_owned),
        ..Default::default()
    })
}

/// Runs both paths; when the borrowed one answers, the general one must have answered the
/// same. Returns whether the borrowed path answered.
fn agree(e: &Engine, get: &GetItemRef<'_>) -> bool {
    let fast = e.get_item_ref(get);
    let Some(input) = owned(get) else {
        assert!(fast.is_none(), "answered a request the general path cannot build: {get:?}");
        return false;
    };
    let slow = e.get_item(input);
    if let Some(fast) = &fast {
        let fast = fast.as_ref().expect("an in-memory read does not fail");
        assert_eq!(Ok(fast), slow.as_ref(), "{get:?}");
    }
    fast.is_some()
}

fn get<'a>(table: &'a str, key: &'a [(&'a str, ValueRef<'a>)]) -> GetItemRef<'a> {
    GetItemRef { table_name: table, key, consistent_read: None, return_consumed_capacity: None }
}

#[test]
fn plain_lookups_are_answered_as_get_item_answers_them() {
    let e = engine();
    let hit = [("sk", ValueRef::N("1.50")), ("pk", ValueRef::S("a"))];
    let answer = e.get_item_ref(&get("tbl", &hit)).expect("answered").unwrap();
    assert_eq!(js(&answer), json!({"Item": {"pk": {"S": "a"}, "sk": {"N": "1.5"}, "v": {"S": "one"}}}));
    let miss = [("pk", ValueRef::S("a")), ("sk", ValueRef::N("2"))];
    assert_eq!(js(&e.get_item_ref(&get("tbl", &miss)).expect("answered").unwrap()), json!({}));
    let cases = [
        ("tbl", &hit[..]),
        ("tbl", &miss[..]),
        ("tbl", &[("pk", ValueRef::S("a")), ("sk", ValueRef::N("7"))][..]),
        ("hash", &[("pk", ValueRef::S("a"))][..]),
        ("hash", &[("pk", ValueRef::S("zz"))][..]),
        ("bin", &[("pk", ValueRef::B(&[0, 1])), ("sk", ValueRef::S("a"))][..]),
    ];
    for (table, key) in cases {
        for consistent_read in [None, Some(false), Some(true)] {
            for return_consumed_capacity in [None, Some("NONE"), Some("TOTAL"), Some("INDEXES")] {
                let request =
                    GetItemRef { table_name: table, key, consistent_read, return_consumed_capacity };
                assert!(agree(&e, &request), "declined {request:?}");
            }
        }
    }
}

#[test]
fn requests_that_could_fail_a_check_are_declined() {
    let e = engine();
    let long = "x".repeat(2049);
    let long_sort = "y".repeat(1025);
    let cases: [(&str, &[(&str, ValueRef<'_>)]); 12] = [
        ("nope", &[("pk", ValueRef::S("a"))]),
        ("arn:aws:dynamodb:ddblocal:000000000000:table/hash", &[("pk", ValueRef::S("a"))]),
        ("hash", &[]),
        ("hash", &[("pk", ValueRef::N("1"))]),
        ("hash", &[("pk", ValueRef::S(""))]),
        ("hash", &[("pk", ValueRef::S(&long))]),
        ("hash", &[("pk", ValueRef::S("a")), ("x", ValueRef::S("a"))]),
        ("hash", &[("pk", ValueRef::S("a")), ("pk", ValueRef::S("b"))]),
        ("tbl", &[("pk", ValueRef::S("a"))]),
        ("tbl", &[("pk", ValueRef::S("a")), ("sk", ValueRef::N("1e999"))]),
        ("tbl", &[("pk", ValueRef::S("a")), ("sk", ValueRef::S(&long_sort))]),
        ("bin", &[("pk", ValueRef::B(&[])), ("sk", ValueRef::S("a"))]),
    ];
    for (table, key) in cases {
        assert!(e.get_item_ref(&get(table, key)).is_none(), "answered {table} {key:?}");
    }
    let request =
        GetItemRef { return_consumed_capacity: Some("ALL"), ..get("hash", &[("pk", ValueRef::S("a"))]) };
    assert!(e.get_item_ref(&request).is_none());
    // What the general path says instead, for one of them: DynamoDB's own error.
    let (kind, message) = err(e.get_item(owned(&get("tbl", &[("pk", ValueRef::S("a"))])).unwrap()));
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("ValidationException", "The provided key element does not match the schema")
    );
}

/// Key values, mostly ones a key may hold, with every way one can break a rule.
fn value() -> impl Strategy<Value = ValueRef<'static>> {
    prop_oneof![
        4 => prop_oneof![Just("a"), Just("zz")].prop_map(ValueRef::S),
        4 => prop_oneof![Just("1.50"), Just("7"), Just("-0")].prop_map(ValueRef::N),
        2 => Just(ValueRef::B(&[0, 1])),
        1 => Just(ValueRef::S("")),
        1 => Just(ValueRef::S(Box::leak("x".repeat(2049).into_boxed_str()))),
        1 => Just(ValueRef::S(Box::leak("y".repeat(1025).into_boxed_str()))),
        1 => prop_oneof![Just("abc"), Just("1e200"), Just("1e999")].prop_map(ValueRef::N),
        1 => Just(ValueRef::B(&[])),
        1 => Just(ValueRef::Bool(true)),
        1 => Just(ValueRef::Null),
    ]
}

/// A value of the type `ty` names, mostly one a key may hold.
fn typed(ty: char) -> BoxedStrategy<ValueRef<'static>> {
    let good = match ty {
        'S' => prop_oneof![Just("a"), Just("zz")].prop_map(ValueRef::S).boxed(),
        'N' => prop_oneof![Just("1.50"), Just("7"), Just("-0")].prop_map(ValueRef::N).boxed(),
        _ => Just(ValueRef::B(&[0, 1])).boxed(),
    };
    prop_oneof![4 => good, 1 => value()].boxed()
}

type Request = (&'static str, Vec<(&'static str, ValueRef<'static>)>, Option<bool>, Option<&'static str>);

/// Requests for the three tables and for names that find none, with keys shaped like the
/// table's (its attributes in either order, mostly with values of their types) or made of
/// any names and values.
fn request() -> impl Strategy<Value = Request> {
    let table = prop_oneof![
        Just("tbl"),
        Just("hash"),
        Just("bin"),
        Just("nope"),
        Just("ab"),
        Just("arn:aws:dynamodb:ddblocal:000000000000:table/hash")
    ];
    let keyed = table.prop_flat_map(|table| {
        let (pk, sk) = match table {
            "tbl" => ('S', Some('N')),
            "bin" => ('B', Some('S')),
            _ => ('S', None),
        };
        let shaped = match sk {
            Some(sk) => (typed(pk), typed(sk), any::<bool>())
                .prop_map(|(p, s, reversed)| match reversed {
                    false => vec![("pk", p), ("sk", s)],
                    true => vec![("sk", s), ("pk", p)],
                })
                .boxed(),
            None => typed(pk).prop_map(|p| vec![("pk", p)]).boxed(),
        };
        let any_names =
            proptest::collection::vec((prop_oneof![Just("pk"), Just("sk"), Just("x")], value()), 0..4);
        (Just(table), prop_oneof![3 => shaped, 1 => any_names])
    });
    (
        keyed,
        proptest::option::of(any::<bool>()),
        proptest::option::of(prop_oneof![Just("NONE"), Just("TOTAL"), Just("INDEXES"), Just("total")]),
    )
        .prop_map(|((table, key), consistent_read, capacity)| (table, key, consistent_read, capacity))
}

/// The generated requests reach both outcomes often.
#[test]
fn generated_requests_cover_answers_and_declines() {
    use proptest::strategy::ValueTree;
    let e = engine();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut answered, mut declined) = (0, 0);
    for _ in 0..3000 {
        let (table, key, consistent_read, return_consumed_capacity) =
            request().new_tree(&mut runner).unwrap().current();
        let request = GetItemRef { table_name: table, key: &key, consistent_read, return_consumed_capacity };
        if agree(&e, &request) {
            answered += 1;
        } else {
            declined += 1;
        }
    }
    assert!(answered > 400 && declined > 1000, "answered {answered}, declined {declined}");
}

proptest! {
    #[test]
    fn an_answer_is_what_get_item_answers((table, key, consistent_read, return_consumed_capacity) in request()) {
        let e = engine();
        agree(&e, &GetItemRef { table_name: table, key: &key, consistent_read, return_consumed_capacity });
    }
}
