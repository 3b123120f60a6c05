//! Condition evaluation: every operator and function on every type, with DynamoDB's
//! absent-attribute and type-mismatch semantics.

mod common;

use std::collections::HashMap;

use common::*;
use monotable_expr::{ExpressionKind, Params};
use monotable_types::{AttributeValue, Item};

/// Evaluates `text` against `item`, with `:x` bound to `x` and the standard values.
fn eval_with(text: &str, item: &Item, x: AttributeValue) -> bool {
    let mut values = std_values();
    values.insert(":x".into(), x);
    values.insert(":y".into(), s("zz"));
    let names: HashMap<String, String> = names(&[("#s", "status")]);
    let mut p = Params::new(Some(&names), Some(&values));
    let c = p.condition(text, ExpressionKind::Filter).unwrap_or_else(|e| panic!("{text}: {e}"));
    c.eval(item)
}

fn sample() -> Item {
    item(vec![
        ("str", s("hello")),
        ("num", n("10")),
        ("bin", b(&[1, 2, 3])),
        ("yes", AttributeValue::Bool(true)),
        ("nul", AttributeValue::Null),
        ("strs", ss(&["a", "b"])),
        ("nums", ns(&["1", "2.5"])),
        ("bins", bs(&[&[1], &[2]])),
        ("lst", l(vec![s("x"), n("1"), m(vec![("k", s("v"))])])),
        ("doc", m(vec![("inr", m(vec![("deep", l(vec![n("7"), n("8")]))])), ("nm", s("n"))])),
        ("status", s("active")),
    ])
}

#[test]
fn equality_works_on_every_type() {
    let it = sample();
    for (path, value) in it.clone() {
        assert!(
            eval_with(&format!("{} = :x", if path == "status" { "#s" } else { &path }), &it, value.clone()),
            "{path}"
        );
    }
    assert!(eval_with("strs = :x", &it, ss(&["b", "a"])), "sets compare unordered");
    assert!(!eval_with("lst = :x", &it, l(vec![n("1"), s("x")])), "lists compare in order");
    assert!(!eval_with("num = :x", &it, s("10")), "different types are unequal");
    assert!(eval_with("num <> :x", &it, s("10")));
    assert!(eval_with("num = :x", &it, n("10.000")), "numbers compare by value");
}

#[test]
fn missing_attributes_make_comparisons_false_except_not_equal() {
    let it = sample();
    for op in ["=", "<", "<=", ">", ">="] {
        assert!(!eval_with(&format!("absent {op} :x"), &it, s("a")), "{op}");
    }
    assert!(eval_with("absent <> :x", &it, s("a")));
    assert!(eval_with("absent <> absent2", &it, s("a")));
    assert!(!eval_with("absent = absent2", &it, s("a")));
    assert!(!eval_with("absent BETWEEN :x AND :y", &it, s("a")));
    assert!(!eval_with("absent IN (:x, :y)", &it, s("a")));
    assert!(!eval_with("doc.nope.deeper = :x", &it, s("a")));
    assert!(!eval_with("str[0] = :x", &it, s("h")), "index into a non-lst");
    assert!(!eval_with("lst.x = :x", &it, s("x")), "key into a lst");
}

#[test]
fn ordering_works_on_strings_numbers_and_binary_only() {
    let it = sample();
    assert!(eval_with("str > :x", &it, s("hell")));
    assert!(eval_with("str < :x", &it, s("help")));
    assert!(eval_with("str <= :x", &it, s("hello")));
    assert!(eval_with("num >= :x", &it, n("10")));
    assert!(eval_with("num > :x", &it, n("9.99999999999999999999999999999999999")));
    assert!(eval_with("num < :x", &it, n("10.000000000000000000000000000000000001")));
    assert!(eval_with("bin > :x", &it, b(&[1, 2])));
    assert!(eval_with("bin < :x", &it, b(&[2])));
    // Mismatched or unordered types in the item are false both ways (constants of
    // unordered types are refused before evaluation).
    let pairs = item(vec![
        ("t1", AttributeValue::Bool(false)),
        ("t2", AttributeValue::Bool(true)),
        ("s1", ss(&["a"])),
        ("s2", ss(&["b"])),
        ("l1", l(vec![])),
        ("l2", l(vec![n("1")])),
        ("num", n("10")),
        ("str", s("10")),
    ]);
    for op in ["<", "<=", ">", ">="] {
        assert!(!eval_with(&format!("num {op} :x"), &it, s("10")), "{op}");
        assert!(!eval_with(&format!("num {op} str"), &pairs, s("10")), "{op}");
        assert!(!eval_with(&format!("str {op} num"), &pairs, s("10")), "{op}");
        for (a, b2) in [("t1", "t2"), ("s1", "s2"), ("l1", "l2")] {
            assert!(!eval_with(&format!("{a} {op} {b2}"), &pairs, s("10")), "{a} {op} {b2}");
            assert!(!eval_with(&format!("{b2} {op} {a}"), &pairs, s("10")), "{b2} {op} {a}");
        }
    }
}

#[test]
fn strings_order_by_utf8_bytes() {
    // U+FF5E is EF BD 9E in UTF-8, U+1F600 is F0 9F 98 80: bytewise the first is smaller,
    // although in UTF-16 code units it is larger.
    let it = item(vec![("a", s("\u{ff5e}"))]);
    assert!(eval_with("a < :x", &it, s("\u{1f600}")));
}

#[test]
fn numbers_compare_exactly_at_the_precision_limits() {
    let it = item(vec![
        ("big", n("99999999999999999999999999999999999999")),
        ("tiny", n("1E-130")),
        ("huge", n("9.9999999999999999999999999999999999999E+125")),
        ("neg", n("-1E-130")),
    ]);
    assert!(eval_with("big < :x", &it, n("100000000000000000000000000000000000000")));
    assert!(eval_with("big > :x", &it, n("99999999999999999999999999999999999998")));
    assert!(eval_with("tiny > :x", &it, n("0")));
    assert!(eval_with("neg < :x", &it, n("0")));
    assert!(eval_with("neg < tiny", &it, n("0")));
    assert!(eval_with("huge > :x", &it, n("1E125")));
}

#[test]
fn between_is_inclusive_and_same_typed() {
    let it = sample();
    assert!(eval_with("num BETWEEN :n AND :x", &it, n("10")));
    assert!(eval_with("num BETWEEN :x AND :x", &it, n("10")));
    assert!(!eval_with("num BETWEEN :n AND :x", &it, n("9")));
    assert!(eval_with("str BETWEEN :s AND :x", &it, s("z")));
    assert!(!eval_with("str BETWEEN :n AND :x", &it, n("100")));
    assert!(eval_with(
        "bin BETWEEN :x AND bin2",
        &item(vec![("bin", b(&[1, 2])), ("bin2", b(&[1, 3]))]),
        b(&[1])
    ));
}

#[test]
fn in_matches_any_operand() {
    let it = sample();
    assert!(eval_with("num IN (:s, :x)", &it, n("10")));
    assert!(!eval_with("num IN (:s, :x)", &it, n("11")));
    assert!(eval_with("strs IN (:x)", &it, ss(&["b", "a"])));
    assert!(eval_with("doc.nm IN (:x, str)", &it, s("n")));
}

#[test]
fn attribute_exists_and_not_exists_follow_nested_paths() {
    let it = sample();
    assert!(eval_with("attribute_exists(doc.inr.deep[1])", &it, n("0")));
    assert!(!eval_with("attribute_exists(doc.inr.deep[2])", &it, n("0")));
    assert!(eval_with("attribute_not_exists(doc.inr.nope)", &it, n("0")));
    assert!(eval_with("attribute_exists(nul)", &it, n("0")), "NULL values exist");
    assert!(eval_with("attribute_exists(lst[2].k)", &it, n("0")));
    assert!(eval_with("attribute_not_exists(absent.x[0])", &it, n("0")));
}

#[test]
fn attribute_type_checks_every_type() {
    let it = sample();
    let cases = [
        ("str", "S"),
        ("num", "N"),
        ("bin", "B"),
        ("yes", "BOOL"),
        ("nul", "NULL"),
        ("strs", "SS"),
        ("nums", "NS"),
        ("bins", "BS"),
        ("lst", "L"),
        ("doc", "M"),
    ];
    for (path, ty) in cases {
        assert!(eval_with(&format!("attribute_type({path}, :x)"), &it, s(ty)), "{path}");
        let other = if ty == "S" { "N" } else { "S" };
        assert!(!eval_with(&format!("attribute_type({path}, :x)"), &it, s(other)), "{path}");
    }
    assert!(!eval_with("attribute_type(absent, :x)", &it, s("S")));
}

#[test]
fn begins_with_works_on_strings_and_binary() {
    let it = sample();
    assert!(eval_with("begins_with(str, :x)", &it, s("hel")));
    assert!(eval_with("begins_with(str, :x)", &it, s("")));
    assert!(!eval_with("begins_with(str, :x)", &it, s("ello")));
    assert!(eval_with("begins_with(bin, :x)", &it, b(&[1, 2])));
    assert!(!eval_with("begins_with(bin, :x)", &it, b(&[2])));
    assert!(!eval_with("begins_with(num, :x)", &it, s("1")));
    assert!(!eval_with("begins_with(strs, :x)", &it, s("a")));
    assert!(!eval_with("begins_with(absent, :x)", &it, s("a")));
}

#[test]
fn contains_works_on_strings_sets_and_lists() {
    let it = sample();
    assert!(eval_with("contains(str, :x)", &it, s("ell")));
    assert!(!eval_with("contains(str, :x)", &it, s("elo")));
    assert!(eval_with("contains(strs, :x)", &it, s("a")));
    assert!(!eval_with("contains(strs, :x)", &it, s("c")));
    assert!(eval_with("contains(nums, :x)", &it, n("2.50")));
    assert!(!eval_with("contains(nums, :x)", &it, s("1")), "member of the wrong type");
    assert!(eval_with("contains(bins, :x)", &it, b(&[2])));
    assert!(eval_with("contains(bin, :x)", &it, b(&[2, 3])));
    assert!(eval_with("contains(lst, :x)", &it, n("1")));
    assert!(eval_with("contains(lst, :x)", &it, m(vec![("k", s("v"))])));
    assert!(!eval_with("contains(lst, :x)", &it, s("1")));
    assert!(!eval_with("contains(num, :x)", &it, n("1")));
    assert!(!eval_with("contains(doc, :x)", &it, s("nm")));
    assert!(!eval_with("contains(absent, :x)", &it, s("a")));
}

#[test]
fn size_measures_strings_binary_sets_lists_and_maps() {
    let it = sample();
    let cases =
        [("str", "5"), ("bin", "3"), ("strs", "2"), ("nums", "2"), ("bins", "2"), ("lst", "3"), ("doc", "2")];
    for (path, size) in cases {
        assert!(eval_with(&format!("size({path}) = :x"), &it, n(size)), "{path}");
    }
    let text = item(vec![("a", s("héllo")), ("e", s("\u{1F600}"))]);
    assert!(eval_with("size(a) = :x", &text, n("5")), "size of a string counts UTF-16 code units");
    assert!(eval_with("size(e) = :x", &text, n("2")), "a character outside the BMP counts twice");
    assert!(!eval_with("size(num) >= :x", &it, n("0")), "numbers have no size");
    assert!(!eval_with("size(yes) >= :x", &it, n("0")));
    assert!(!eval_with("size(absent) >= :x", &it, n("0")));
    assert!(eval_with("size(absent) <> :x", &it, n("0")));
    assert!(eval_with("size(doc.inr.deep) BETWEEN :n AND :x", &it, n("2")));
}

#[test]
fn logical_operators_have_dynamodb_precedence() {
    let it = sample();
    // NOT binds tighter than AND, which binds tighter than OR.
    assert!(!eval_with("num = :n OR num = :x AND str = :s", &it, n("10")));
    assert!(eval_with("num = :x OR num = :n AND str = :s", &it, n("10")));
    assert!(!eval_with("(num = :x OR num = :n) AND str = :s", &it, n("10")));
    assert!(eval_with("NOT num = :n AND num = :x", &it, n("10")));
    assert!(!eval_with("NOT (num = :n OR num = :x)", &it, n("10")));
    assert!(eval_with("NOT NOT num = :x", &it, n("10")));
    assert!(eval_with("#s = :x", &it, s("active")));
}

#[test]
fn conditions_list_the_paths_they_read() {
    let values = std_values();
    let nm = names(&[("#s", "status")]);
    let c = Params::new(Some(&nm), Some(&values))
        .condition("a = :v AND (size(b.c) > :n OR NOT attribute_exists(#s[0]))", ExpressionKind::Filter)
        .unwrap();
    let paths: Vec<String> =
        c.paths().into_iter().map(|p| monotable_expr::PathDisplay(p).to_string()).collect();
    assert_eq!(paths, ["[a]", "[b, c]", "[status, [0]]"]);
}
