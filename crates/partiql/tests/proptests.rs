//! Property tests: printing any tree and parsing the text gives the tree back; no input,
//! arbitrary or mutated from valid statements, makes the parser panic.

use monotable_partiql::ast::*;
use monotable_partiql::{check, parse, KEYWORDS};
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z][a-z0-9_]{0,6}", "[A-Za-z \"'.#-]{1,6}", Just("SELECT".to_owned())]
}

fn path() -> impl Strategy<Value = Path> {
    (
        name(),
        prop::collection::vec(
            prop_oneof![name().prop_map(Step::Field), (0u32..50).prop_map(Step::Index)],
            0..3,
        ),
    )
        .prop_map(|(root, steps)| Path { root, steps })
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        "[a-z' ]{0,5}".prop_map(Literal::Str),
        prop_oneof!["[0-9]{1,4}", "[0-9]{1,3}\\.[0-9]{1,3}", "[0-9]e[0-9]"].prop_map(Literal::Number),
        any::<bool>().prop_map(Literal::Bool),
        Just(Literal::Null),
        Just(Literal::Missing),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf =
        prop_oneof![path().prop_map(Expr::Path), literal().prop_map(Expr::Literal), Just(Expr::Param(0))];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let b = |e: Expr| Box::new(e);
        let op = prop_oneof![
            Just(CompareOp::Eq),
            Just(CompareOp::Ne),
            Just(CompareOp::Lt),
            Just(CompareOp::Le),
            Just(CompareOp::Gt),
            Just(CompareOp::Ge)
        ];
        prop_oneof![
            inner.clone().prop_map(move |a| Expr::Neg(b(a))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Expr::Add(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Expr::Sub(b(x), b(y))),
            (inner.clone(), op, inner.clone()).prop_map(move |(x, o, y)| Expr::Compare(b(x), o, b(y))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(x, y, z)| Expr::Between(
                b(x),
                b(y),
                b(z)
            )),
            (inner.clone(), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(move |(x, v)| Expr::In(b(x), v)),
            (inner.clone(), any::<bool>(), any::<bool>()).prop_map(move |(x, n, m)| Expr::Is(
                b(x),
                n,
                if m { IsWhat::Missing } else { IsWhat::Null }
            )),
            inner.clone().prop_map(move |a| Expr::Not(b(a))),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::And),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::Or),
            (
                "[a-z_]{1,8}".prop_filter("keywords are not function names", |n| !KEYWORDS
                    .contains(&n.to_ascii_uppercase().as_str())),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(n, a)| Expr::Call(n, a)),
            prop::collection::vec(("[a-z ']{0,4}", inner.clone()), 0..3).prop_map(Expr::Tuple),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Expr::List),
            prop::collection::vec(inner, 0..3).prop_map(Expr::Bag),
        ]
    })
}

/// Parameters are numbered by position; a generated tree numbers them all 0, so renumber.
fn renumber(e: &mut Expr, next: &mut usize) {
    match e {
        Expr::Param(i) => {
            *i = *next;
            *next += 1;
        }
        Expr::Path(_) | Expr::Literal(_) => {}
        Expr::Neg(a) | Expr::Not(a) | Expr::Is(a, _, _) => renumber(a, next),
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Compare(a, _, b) => {
            renumber(a, next);
            renumber(b, next);
        }
        Expr::Between(a, b, c) => {
            renumber(a, next);
            renumber(b, next);
            renumber(c, next);
        }
        Expr::In(a, v) => {
            renumber(a, next);
            v.iter_mut().for_each(|e| renumber(e, next));
        }
        Expr::And(v) | Expr::Or(v) | Expr::List(v) | Expr::Bag(v) | Expr::Call(_, v) => {
            v.iter_mut().for_each(|e| renumber(e, next))
        }
        Expr::Tuple(f) => f.iter_mut().for_each(|(_, e)| renumber(e, next)),
    }
}

fn returning() -> impl Strategy<Value = Option<Returning>> {
    prop::option::of(prop_oneof![
        Just(Returning::AllOld),
        Just(Returning::ModifiedOld),
        Just(Returning::AllNew),
        Just(Returning::ModifiedNew)
    ])
}

fn statement() -> impl Strategy<Value = Statement> {
    let select = (
        prop_oneof![Just(Projection::All), prop::collection::vec(path(), 1..3).prop_map(Projection::Paths)],
        name(),
        prop::option::of(name()),
        prop::option::of(expr()),
        prop::collection::vec(
            (path(), any::<bool>()).prop_map(|(path, descending)| OrderBy { path, descending }),
            0..2,
        ),
    )
        .prop_map(|(projection, table, index, condition, order_by)| {
            Statement::Select(Select { projection, from: Target { table, index }, condition, order_by })
        });
    let insert = (name(), expr()).prop_map(|(table, value)| Statement::Insert(Insert { table, value }));
    let action = prop_oneof![
        (path(), expr()).prop_map(|(p, e)| UpdateAction::Set(p, e)),
        path().prop_map(UpdateAction::Remove)
    ];
    let update = (name(), prop::collection::vec(action, 1..3), prop::option::of(expr()), returning())
        .prop_map(|(table, actions, condition, returning)| {
            Statement::Update(Update { table, actions, condition, returning })
        });
    let delete = (name(), prop::option::of(expr()), returning())
        .prop_map(|(table, condition, returning)| Statement::Delete(Delete { table, condition, returning }));
    prop_oneof![select, insert, update, delete].prop_map(|mut s| {
        let mut next = 0;
        let mut visit = |e: &mut Expr| renumber(e, &mut next);
        match &mut s {
            Statement::Select(x) => x.condition.iter_mut().for_each(&mut visit),
            Statement::Insert(x) => visit(&mut x.value),
            Statement::Update(x) => {
                for a in &mut x.actions {
                    if let UpdateAction::Set(_, e) = a {
                        visit(e);
                    }
                }
                x.condition.iter_mut().for_each(&mut visit);
            }
            Statement::Delete(x) => x.condition.iter_mut().for_each(&mut visit),
        }
        s
    })
}

const VALID: &[&str] = &[
    r#"SELECT * FROM "Music" WHERE Artist = 'Acme' AND SongTitle BETWEEN 'A' AND 'M'"#,
    r#"SELECT a.b[0], "c" FROM "t"."idx" WHERE pk = ? AND begins_with(sk, 'x#') ORDER BY sk DESC"#,
    r#"INSERT INTO "t" VALUE {'pk': 'a', 'n': -1.5e3, 's': <<'x', 'y'>>, 'l': [1, TRUE, NULL], 'm': {'k': ?}}"#,
    r#"UPDATE "t" SET a = a + 1 SET b = list_append(b, [1]) REMOVE c[2] WHERE pk = 'k' AND attribute_exists(a) RETURNING ALL NEW *"#,
    r#"DELETE FROM "t" WHERE pk = 'k' AND sk = 2 AND x IS NOT MISSING AND y IN [1, 2] RETURNING ALL OLD *"#,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn printing_then_parsing_gives_back_the_tree(s in statement()) {
        let text = s.to_string();
        let parsed = parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&parsed, &s, "{}", text);
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        if let Ok(s) = parse(&text) {
            let _ = check(&s);
            let _ = s.to_string();
        }
    }

    #[test]
    fn mutated_statements_never_panic(which in 0..VALID.len(), edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[ -~]{0,3}"), 1..6)) {
        let mut text = VALID[which].to_owned();
        for (at, kind, piece) in edits {
            let chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            let (head, tail): (String, String) = (chars[..i].iter().collect(), chars[i..].iter().collect());
            text = match kind {
                0 => format!("{head}{piece}{tail}"),
                1 => format!("{head}{}", tail.chars().skip(piece.len().max(1)).collect::<String>()),
                _ => format!("{head}{tail}{head}"),
            };
        }
        if let Ok(s) = parse(&text) {
            let _ = check(&s);
            prop_assert!(parse(&s.to_string()).is_ok());
        }
    }
}
