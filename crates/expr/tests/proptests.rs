//! Property tests: generated ASTs survive print → parse, and no input makes any entry point
//! panic.

mod common;

use common::*;
use monotable_expr::ast::{
    Clause, Comparator, Condition, FunctionCall, Operand, Path, PathElement, Projection, SetAction, SetValue,
    Update, ValueAction,
};
use monotable_expr::{parse_condition, parse_projection, parse_update, ExpressionKind, Params};
use proptest::prelude::*;

const KEYWORDS: &[&str] = &["and", "or", "not", "between", "in", "set", "remove", "add", "delete"];

fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9_]{0,6}"
        .prop_filter("keyword", |s| !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(s)))
}

fn placeholder(sigil: char) -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_]{1,5}".prop_map(move |s| format!("{sigil}{s}"))
}

fn path() -> impl Strategy<Value = Path> {
    let head =
        prop_oneof![ident().prop_map(PathElement::Name), placeholder('#').prop_map(PathElement::Placeholder)];
    let tail = prop_oneof![
        ident().prop_map(PathElement::Name),
        placeholder('#').prop_map(PathElement::Placeholder),
        (0usize..1000).prop_map(PathElement::Index),
    ];
    (head, prop::collection::vec(tail, 0..4)).prop_map(|(h, mut t)| {
        t.insert(0, h);
        Path { elements: t }
    })
}

fn operand() -> impl Strategy<Value = Operand> {
    let leaf = prop_oneof![path().prop_map(Operand::Path), placeholder(':').prop_map(Operand::Value)];
    leaf.prop_recursive(3, 12, 3, |inner| {
        (ident(), prop::collection::vec(inner, 1..4))
            .prop_map(|(name, args)| Operand::Function(FunctionCall { name, args }))
    })
}

fn comparator() -> impl Strategy<Value = Comparator> {
    prop_oneof![
        Just(Comparator::Eq),
        Just(Comparator::Ne),
        Just(Comparator::Lt),
        Just(Comparator::Le),
        Just(Comparator::Gt),
        Just(Comparator::Ge)
    ]
}

fn condition() -> impl Strategy<Value = Condition> {
    let leaf = prop_oneof![
        (operand(), comparator(), operand()).prop_map(|(a, op, b)| Condition::Compare(a, op, b)),
        (operand(), operand(), operand()).prop_map(|(a, l, h)| Condition::Between(a, l, h)),
        (operand(), prop::collection::vec(operand(), 1..4)).prop_map(|(a, l)| Condition::In(a, l)),
        (ident(), prop::collection::vec(operand(), 1..3))
            .prop_map(|(name, args)| Condition::Function(FunctionCall { name, args })),
    ];
    leaf.prop_recursive(5, 24, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Condition::Not(Box::new(c))),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Condition::And),
            prop::collection::vec(inner, 2..4).prop_map(Condition::Or),
        ]
    })
}

fn set_value() -> impl Strategy<Value = SetValue> {
    prop_oneof![
        operand().prop_map(SetValue::Operand),
        (operand(), operand()).prop_map(|(a, b)| SetValue::Plus(a, b)),
        (operand(), operand()).prop_map(|(a, b)| SetValue::Minus(a, b)),
    ]
}

fn value_action() -> impl Strategy<Value = ValueAction> {
    (path(), placeholder(':')).prop_map(|(path, value)| ValueAction { path, value })
}

fn clause() -> impl Strategy<Value = Clause> {
    prop_oneof![
        prop::collection::vec(
            (path(), set_value()).prop_map(|(path, value)| SetAction { path, value }),
            1..4
        )
        .prop_map(Clause::Set),
        prop::collection::vec(path(), 1..4).prop_map(Clause::Remove),
        prop::collection::vec(value_action(), 1..4).prop_map(Clause::Add),
        prop::collection::vec(value_action(), 1..4).prop_map(Clause::Delete),
    ]
}

/// Strings built mostly from the grammars' own tokens, so that the parser gets deep into
/// its rules before failing.
fn tokenish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("a".to_owned()),
        Just("#n".to_owned()),
        Just(":v".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("[1]".to_owned()),
        Just(".".to_owned()),
        Just(",".to_owned()),
        Just("=".to_owned()),
        Just("<>".to_owned()),
        Just("<".to_owned()),
        Just("+".to_owned()),
        Just("-".to_owned()),
        Just("AND".to_owned()),
        Just("OR".to_owned()),
        Just("NOT".to_owned()),
        Just("BETWEEN".to_owned()),
        Just("IN".to_owned()),
        Just("SET".to_owned()),
        Just("REMOVE".to_owned()),
        Just("ADD".to_owned()),
        Just("DELETE".to_owned()),
        Just("size".to_owned()),
        Just("contains".to_owned()),
        Just("if_not_exists".to_owned()),
        Just("list_append".to_owned()),
        Just("attribute_type".to_owned()),
        Just("begins_with".to_owned()),
        "[ -~é\u{1F600}]{1,3}",
    ];
    prop::collection::vec(token, 0..40).prop_map(|t| t.join(" "))
}

/// Runs every entry point on `text` with placeholders defined; only panics matter.
fn exercise(text: &str) {
    let _ = parse_condition(text, ExpressionKind::Condition);
    let _ = parse_update(text);
    let _ = parse_projection(text);
    let nm = names(&[("#n", "n")]);
    let mut vals = std_values();
    vals.insert(":v".into(), ss(&["a"]));
    let sample =
        item(vec![("a", l(vec![n("1"), m(vec![("n", s("x"))])])), ("n", ns(&["1"])), ("pk", s("k"))]);
    let mut p = Params::new(Some(&nm), Some(&vals));
    if let Ok(c) = p.condition(text, ExpressionKind::Filter) {
        c.eval(&sample);
    }
    if let Ok(u) = p.update(text, &["pk"]) {
        let mut it = sample.clone();
        let _ = u.apply(&mut it);
    }
    if let Ok(pr) = p.projection(text) {
        pr.apply(&sample);
    }
    let _ = p.key_condition(text, "pk", Some("a"));
    let _ = p.finish();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_conditions_round_trip(c in condition()) {
        let text = c.to_string();
        let parsed = parse_condition(&text, ExpressionKind::Condition);
        prop_assert_eq!(parsed, Ok(c), "{}", text);
    }

    #[test]
    fn generated_updates_round_trip(clauses in prop::collection::vec(clause(), 1..5)) {
        let u = Update { clauses };
        let text = u.to_string();
        prop_assert_eq!(parse_update(&text), Ok(u), "{}", text);
    }

    #[test]
    fn generated_projections_round_trip(paths in prop::collection::vec(path(), 1..6)) {
        let p = Projection { paths };
        let text = p.to_string();
        prop_assert_eq!(parse_projection(&text), Ok(p), "{}", text);
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,80}") {
        exercise(&text);
    }

    #[test]
    fn token_soup_never_panics(text in tokenish()) {
        exercise(&text);
    }

    #[test]
    fn printed_conditions_never_panic_resolution_or_evaluation(c in condition()) {
        exercise(&c.to_string());
    }
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    use monotable_expr::{ErrorKind, MAX_NESTING};
    for depth in [MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1, 5000] {
        let parens = format!("{}a = :v{}", "(".repeat(depth), ")".repeat(depth));
        let nots = format!("{}a = :v", "NOT ".repeat(depth));
        let calls = format!("{}a{} = :v", "size(".repeat(depth), ")".repeat(depth));
        for (text, redundant) in [(parens, true), (nots, false), (calls, false)] {
            let r = parse_condition(&text, ExpressionKind::Condition);
            if text.len() > monotable_expr::MAX_EXPRESSION_BYTES {
                assert_eq!(r.unwrap_err().kind(), ErrorKind::TooLong);
            } else if depth > MAX_NESTING {
                assert_eq!(r.unwrap_err().kind(), ErrorKind::TooDeep, "{depth}");
            } else if redundant {
                assert_eq!(r.unwrap_err().kind(), ErrorKind::RedundantParentheses, "{depth}");
            } else {
                r.unwrap_or_else(|e| panic!("{depth}: {e}"));
            }
        }
    }
    // The longest AND chain within the operator limit still resolves and evaluates.
    let chain = vec!["a = :v"; 150].join(" AND ");
    let vals = std_values();
    let c = Params::new(None, Some(&vals)).condition(&chain, ExpressionKind::Filter).unwrap();
    assert!(!c.eval(&item(vec![])));
}
