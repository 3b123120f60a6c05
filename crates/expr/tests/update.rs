//! Update application, projections and resolved key conditions.

mod common;

use common::*;
use monotable_expr::{ErrorKind, ExprError, Params, SortKeyOp};
use monotable_types::{AttributeValue, Item};

/// Applies `text` to `item` with the standard values plus `:x`.
fn update_with(text: &str, item: &mut Item, x: AttributeValue) -> Result<Vec<String>, ExprError> {
    let mut values = std_values();
    values.insert(":x".into(), x);
    let mut p = Params::new(None, Some(&values));
    let plan = p.update(text, &["pk"]).unwrap_or_else(|e| panic!("{text}: {e}"));
    plan.apply(item).map(|c| c.names.into_iter().collect())
}

fn base() -> Item {
    item(vec![
        ("pk", s("key")),
        ("a", n("5")),
        ("b", n("7")),
        ("txt", s("hi")),
        ("lst", l(vec![s("x0"), s("x1"), s("x2"), s("x3")])),
        ("doc", m(vec![("k", s("v")), ("part", m(vec![("z", n("1"))]))])),
        ("tags", ss(&["a", "b"])),
        ("ids", ns(&["1", "2"])),
        ("blobs", bs(&[&[1], &[2]])),
    ])
}

fn runtime_err(text: &str, x: AttributeValue) -> ExprError {
    let mut it = base();
    let before = it.clone();
    let e = update_with(text, &mut it, x).unwrap_err();
    assert_eq!(it, before, "{text}: a failed update leaves the item unchanged");
    e
}

#[test]
fn set_writes_top_level_nested_and_list_positions() {
    let mut it = base();
    let changed =
        update_with("SET c = :x, doc.part.y = :x, lst[1] = :x, lst[10] = :x", &mut it, n("3")).unwrap();
    assert_eq!(changed, ["c", "doc", "lst"]);
    assert_eq!(it["c"], n("3"));
    assert_eq!(it["doc"], m(vec![("k", s("v")), ("part", m(vec![("y", n("3")), ("z", n("1"))]))]));
    // An index past the end appends.
    assert_eq!(it["lst"], l(vec![s("x0"), n("3"), s("x2"), s("x3"), n("3")]));
}

#[test]
fn set_reads_operands_from_the_original_item() {
    let mut it = base();
    update_with("SET a = b, b = a", &mut it, n("0")).unwrap();
    assert_eq!((it["a"].clone(), it["b"].clone()), (n("7"), n("5")));
}

#[test]
fn set_arithmetic_is_exact_and_type_checked() {
    let mut it = base();
    update_with("SET a = a + :x, b = b - :x", &mut it, n("0.1")).unwrap();
    assert_eq!((it["a"].clone(), it["b"].clone()), (n("5.1"), n("6.9")));
    let mut it = item(vec![("a", n("99999999999999999999999999999999999999"))]);
    update_with("SET a = a + :n", &mut it, n("0")).unwrap();
    assert_eq!(it["a"], n("1E38"));

    let e = runtime_err("SET a = txt + :x", n("1"));
    assert_eq!(e.kind(), ErrorKind::IncorrectOperandType);
    assert_eq!(e.message(), "An operand in the update expression has an incorrect data type");
    let e = runtime_err("SET a = nothere + :x", n("1"));
    assert_eq!(e.kind(), ErrorKind::MissingAttribute);
    assert_eq!(e.message(), "The provided expression refers to an attribute that does not exist in the item");
    let e = runtime_err("SET c = nothere", n("1"));
    assert_eq!(e.kind(), ErrorKind::MissingAttribute);
}

#[test]
fn arithmetic_beyond_the_number_limits_fails_with_dynamodb_messages() {
    let mut it = item(vec![("a", n("9.9999999999999999999999999999999999999E+125"))]);
    let e = update_with("SET a = a + :x", &mut it, n("1E+88")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NumberOutOfRange);
    assert_eq!(
        e.message(),
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
    let mut it = item(vec![("a", n("1E+100"))]);
    let e = update_with("ADD a :x", &mut it, n("1")).unwrap_err();
    assert_eq!(e.message(), "Attempting to store more than 38 significant digits in a Number");
}

#[test]
fn if_not_exists_and_list_append() {
    let mut it = base();
    update_with(
        "SET a = if_not_exists(a, :x), c = if_not_exists(nothere, :x), lst = list_append(:l, lst), l2 = list_append(if_not_exists(l2, :l), :l)",
        &mut it,
        n("0"),
    )
    .unwrap();
    assert_eq!(it["a"], n("5"));
    assert_eq!(it["c"], n("0"));
    assert_eq!(it["lst"], l(vec![s("x"), s("x0"), s("x1"), s("x2"), s("x3")]));
    assert_eq!(it["l2"], l(vec![s("x"), s("x")]));
    let e = runtime_err("SET lst = list_append(lst, txt)", n("0"));
    assert_eq!(e.kind(), ErrorKind::IncorrectOperandType);
}

#[test]
fn remove_deletes_attributes_keys_and_original_list_elements() {
    let mut it = base();
    let changed = update_with("REMOVE a, doc.k, lst[1], lst[2], lst[9], nothere", &mut it, n("0")).unwrap();
    assert_eq!(changed, ["a", "doc", "lst", "nothere"]);
    assert!(!it.contains_key("a"));
    assert_eq!(it["doc"], m(vec![("part", m(vec![("z", n("1"))]))]));
    assert_eq!(it["lst"], l(vec![s("x0"), s("x3")]));
}

#[test]
fn invalid_document_paths_fail_at_apply_time() {
    for text in [
        "SET nothere.x = :x",
        "SET txt.x = :x",
        "SET doc[0] = :x",
        "SET lst.k = :x",
        "REMOVE nothere.x",
        "ADD nothere.x :n",
    ] {
        let e = runtime_err(text, n("1"));
        assert_eq!(e.kind(), ErrorKind::InvalidDocumentPath, "{text}");
        assert_eq!(e.message(), "The document path provided in the update expression is invalid for update");
    }
}

#[test]
fn add_increments_numbers_and_unions_sets() {
    let mut it = base();
    update_with("ADD a :n, c :n, tags :x, ids :ns, fresh :ss", &mut it, ss(&["b", "c"])).unwrap();
    assert_eq!(it["a"], n("6"));
    assert_eq!(it["c"], n("1"));
    assert_eq!(it["tags"], ss(&["a", "b", "c"]));
    assert_eq!(it["ids"], ns(&["1", "2"]));
    assert_eq!(it["fresh"], ss(&["a", "b"]));
    let mut it = base();
    update_with("ADD blobs :x", &mut it, bs(&[&[3]])).unwrap();
    assert_eq!(it["blobs"], bs(&[&[1], &[2], &[3]]));
    for (text, x) in [
        ("ADD txt :n", n("0")),
        ("ADD tags :x", ns(&["1"])),
        ("ADD a :x", ss(&["a"])),
        ("ADD lst :n", n("0")),
    ] {
        assert_eq!(runtime_err(text, x).kind(), ErrorKind::IncorrectOperandType, "{text}");
    }
}

#[test]
fn delete_removes_set_members_and_empty_sets_disappear() {
    let mut it = base();
    update_with("DELETE tags :x, ids :ns, nothere :ss", &mut it, ss(&["a", "zzz"])).unwrap();
    assert_eq!(it["tags"], ss(&["b"]));
    assert!(!it.contains_key("ids"), "a set emptied by DELETE is removed");
    assert!(!it.contains_key("nothere"));
    for (text, x) in [("DELETE tags :x", ns(&["1"])), ("DELETE a :x", ns(&["5"])), ("DELETE txt :ss", n("0"))]
    {
        assert_eq!(runtime_err(text, x).kind(), ErrorKind::IncorrectOperandType, "{text}");
    }
}

#[test]
fn clauses_combine_in_any_order() {
    let mut it = base();
    let changed = update_with("DELETE tags :x ADD a :n REMOVE b SET c = :x", &mut it, ss(&["a"])).unwrap();
    assert_eq!(changed, ["a", "b", "c", "tags"]);
    assert_eq!(it["a"], n("6"));
    assert!(!it.contains_key("b"));
    assert_eq!(it["tags"], ss(&["b"]));
}

#[test]
fn projection_keeps_the_requested_shape() {
    let it = base();
    let mut p = Params::new(None, None);
    let proj = p.projection("doc.part.z, lst[3], lst[1], nothere, doc.nope, txt").unwrap();
    let out = proj.apply(&it);
    assert_eq!(
        out,
        item(vec![
            ("doc", m(vec![("part", m(vec![("z", n("1"))]))])),
            ("lst", l(vec![s("x1"), s("x3")])),
            ("txt", s("hi")),
        ])
    );
    assert_eq!(proj.top_level_attributes().collect::<Vec<_>>(), ["doc", "lst", "nothere", "txt"]);
    let proj = Params::new(None, None).projection("lst[7], txt.x").unwrap();
    assert!(proj.apply(&it).is_empty());
}

#[test]
fn key_conditions_resolve_to_partition_and_sort_parts() {
    let vals = values(vec![(":p", s("user")), (":a", s("a")), (":b", s("b"))]);
    let nm = names(&[("#s", "sk")]);
    let mut p = Params::new(Some(&nm), Some(&vals));
    let k = p.key_condition("pk = :p AND #s BETWEEN :a AND :b", "pk", Some("sk")).unwrap();
    assert_eq!(k.partition_key, "pk");
    assert_eq!(k.partition_value, s("user"));
    let sort = k.sort.unwrap();
    assert_eq!(sort.attribute, "sk");
    assert_eq!(sort.op, SortKeyOp::Between(s("a"), s("b")));
    assert_eq!(p.finish(), Ok(()));

    let mut p = Params::new(None, Some(&vals));
    let k = p.key_condition(":a < sk AND :p = pk", "pk", Some("sk")).unwrap();
    assert_eq!(k.sort.unwrap().op, SortKeyOp::Gt(s("a")), "a value on the left flips the comparison");
    let k = p.key_condition("(begins_with(sk, :a)) AND (pk = :p)", "pk", Some("sk")).unwrap();
    assert_eq!(k.sort.unwrap().op, SortKeyOp::BeginsWith(s("a")));
    let k = p.key_condition("pk = :p", "pk", None).unwrap();
    assert!(k.sort.is_none());
}

#[test]
fn list_writes_use_the_original_positions() {
    let mut it = base();
    update_with("REMOVE lst[0] SET lst[1] = :x", &mut it, s("new")).unwrap();
    assert_eq!(it["lst"], l(vec![s("new"), s("x2"), s("x3")]));
    let mut it = base();
    update_with("SET lst[9] = :x, lst[5] = :n", &mut it, s("nine")).unwrap();
    assert_eq!(
        it["lst"],
        l(vec![s("x0"), s("x1"), s("x2"), s("x3"), n("1"), s("nine")]),
        "appends in index order"
    );
    let mut it = item(vec![("m", l(vec![l(vec![n("0"), n("1"), n("2")]), n("9")]))]);
    update_with("REMOVE m[0][0], m[1]", &mut it, n("0")).unwrap();
    assert_eq!(it["m"], l(vec![l(vec![n("1"), n("2")])]), "nested lists keep their positions");
}

#[test]
fn runtime_errors_come_in_dynamodb_order() {
    // Wrong types are reported before missing attributes, whatever the action order.
    let e = runtime_err("SET a = nothere, b = txt + :n", n("0"));
    assert_eq!(e.kind(), ErrorKind::IncorrectOperandType);
    // Clauses are checked from the last: its invalid path before the SET's missing operand.
    let e = runtime_err("SET a = nothere REMOVE nope.x", n("0"));
    assert_eq!(e.kind(), ErrorKind::InvalidDocumentPath);
    let e = runtime_err("REMOVE nope.x SET a = nothere", n("0"));
    assert_eq!(e.kind(), ErrorKind::MissingAttribute);
    // A parent of the wrong kind is reported first of all.
    let e = runtime_err("SET a = txt + :n REMOVE txt[0]", n("0"));
    assert_eq!(e.kind(), ErrorKind::InvalidDocumentPath);
    // Missing attributes before arithmetic out of range.
    let mut it = item(vec![("a", n("9.9999999999999999999999999999999999999E+125"))]);
    let e = update_with("SET a = a + :x, b = nothere", &mut it, n("1E+88")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MissingAttribute);
}

/// One value of each of DynamoDB's ten types.
fn every_type() -> Vec<(&'static str, AttributeValue)> {
    vec![
        ("S", s("x")),
        ("N", n("2")),
        ("B", b(&[1])),
        ("BOOL", AttributeValue::Bool(true)),
        ("NULL", AttributeValue::Null),
        ("M", m(vec![("k", s("v"))])),
        ("L", l(vec![s("e")])),
        ("SS", ss(&["a"])),
        ("NS", ns(&["1"])),
        ("BS", bs(&[&[9]])),
    ]
}

#[test]
fn add_delete_and_arithmetic_accept_only_their_types_at_apply_time() {
    for (ty, existing) in every_type() {
        let run = |text: &str, x: AttributeValue| {
            let mut it = item(vec![("a", existing.clone())]);
            update_with(text, &mut it, x).map(|_| it)
        };
        // ADD a number: only to a number.
        let r = run("ADD a :x", n("3"));
        assert_eq!(r.is_ok(), ty == "N", "ADD N to {ty}");
        // ADD / DELETE a set: only to a set of the same type.
        for (set_ty, set) in [("SS", ss(&["a", "z"])), ("NS", ns(&["1", "7"])), ("BS", bs(&[&[9], &[8]]))] {
            let r = run("ADD a :x", set.clone());
            assert_eq!(r.is_ok(), ty == set_ty, "ADD {set_ty} to {ty}");
            let r = run("DELETE a :x", set);
            assert_eq!(r.is_ok(), ty == set_ty, "DELETE {set_ty} from {ty}");
            if let Ok(it) = r {
                assert!(!it.contains_key("a"), "deleting every member removes the attribute");
            }
        }
        // Arithmetic and list_append: only numbers and lists.
        assert_eq!(run("SET a = a + :x", n("1")).is_ok(), ty == "N", "+ on {ty}");
        assert_eq!(run("SET a = :x - a", n("1")).is_ok(), ty == "N", "- on {ty}");
        assert_eq!(run("SET a = list_append(a, :x)", l(vec![])).is_ok(), ty == "L", "list_append on {ty}");
        // SET and REMOVE work on every type.
        assert!(run("SET a = :x", existing.clone()).is_ok());
        assert!(run("REMOVE a", n("0")).unwrap().is_empty());
        for err in
            [run("ADD a :x", n("3")), run("SET a = a + :x", n("1"))].into_iter().filter_map(Result::err)
        {
            assert_eq!(err.kind(), ErrorKind::IncorrectOperandType);
        }
    }
}

#[test]
fn set_if_not_exists_keeps_any_existing_type() {
    for (ty, existing) in every_type() {
        let mut it = item(vec![("a", existing.clone())]);
        update_with("SET a = if_not_exists(a, :x)", &mut it, s("fallback")).unwrap();
        assert_eq!(it["a"], existing, "{ty}");
    }
}
