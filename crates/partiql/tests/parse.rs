//! Statements from DynamoDB's PartiQL reference parse to the expected trees, and the limits
//! and syntax errors give DynamoDB's messages.

use monotable_partiql::ast::*;
use monotable_partiql::{check, parse, value, Error, MAX_NESTING};
use monotable_types::AttributeValue;

fn canonical(text: &str) -> String {
    parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).to_string()
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
// ("SELECT * FROM "Orders" WHERE OrderID IN [100, 300, 234]", "TableName"."IndexName").
#[test]
fn select_examples_from_the_reference_parse_and_print_canonically() {
    assert_eq!(
        canonical(r#"SELECT OrderID, Total FROM "Orders" WHERE OrderID IN [100, 300, 234]"#),
        r#"SELECT "OrderID", "Total" FROM "Orders" WHERE "OrderID" IN [100, 300, 234]"#
    );
    assert_eq!(
        canonical(
            r#"select * from "Orders"."ByDate" where OrderID = 1 or OrderID = 2 order by OrderID desc"#
        ),
        r#"SELECT * FROM "Orders"."ByDate" WHERE "OrderID" = 1 OR "OrderID" = 2 ORDER BY "OrderID" DESC"#
    );
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
#[test]
fn insert_example_parses_to_a_tuple() {
    let s =
        parse(r#"INSERT INTO "Music" value {'Artist' : 'Acme Band','SongTitle' : 'PartiQL Rocks'}"#).unwrap();
    let Statement::Insert(i) = &s else { panic!("{s:?}") };
    assert_eq!(i.table, "Music");
    let v = value(&i.value, &[]).unwrap().unwrap();
    let AttributeValue::M(m) = v else { panic!() };
    assert_eq!(m["Artist"], AttributeValue::S("Acme Band".into()));
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
#[test]
fn update_with_several_set_clauses_and_returning_parses() {
    let s = parse(
        r#"UPDATE "Music" SET AwardsWon=1 SET AwardDetail={'Grammys':[2020, 2018]} WHERE Artist='Acme Band' AND SongTitle='PartiQL Rocks' RETURNING ALL OLD *"#,
    )
    .unwrap();
    let Statement::Update(u) = &s else { panic!() };
    assert_eq!(u.actions.len(), 2);
    assert_eq!(u.returning, Some(Returning::AllOld));
    assert_eq!(check(&s), Ok(0));
}

#[test]
fn parameters_are_numbered_in_order_and_counted() {
    let s = parse(r#"SELECT * FROM t WHERE a = ? AND b IN [?, ?]"#).unwrap();
    assert_eq!(check(&s), Ok(3));
    assert!(s.to_string().ends_with(r#""a" = ? AND "b" IN [?, ?]"#));
}

#[test]
fn bags_become_sets_and_mixed_bags_are_refused() {
    let s = parse("INSERT INTO t VALUE {'s': <<1, 2, 2>>}").unwrap();
    let Statement::Insert(i) = s else { panic!() };
    let Some(AttributeValue::M(m)) = value(&i.value, &[]).unwrap() else { panic!() };
    assert!(matches!(&m["s"], AttributeValue::Ns(v) if v.len() == 2));
    let s = parse("INSERT INTO t VALUE {'s': <<1, 'a'>>}").unwrap();
    let Statement::Insert(i) = s else { panic!() };
    assert!(value(&i.value, &[]).is_err());
}

// Source: dynoxide-rs 3.2 src/partiql/parser.rs, which mirrors DynamoDB's text for syntax
// errors ("Statement wasn't well formed, can't be processed: …").
#[test]
fn syntax_errors_use_dynamodbs_prefix() {
    for bad in [
        "SELECT",
        "SELECT * FROM",
        "SELEC * FROM t",
        "SELECT * FROM t WHERE",
        "UPDATE t WHERE a = 1",
        "DELETE t",
        "SELECT * FROM t WHERE a = 'x",
    ] {
        let e = parse(bad).unwrap_err();
        assert!(
            e.to_string().starts_with("Statement wasn't well formed, can't be processed: "),
            "{bad}: {e}"
        );
    }
}

#[test]
fn nesting_beyond_the_limit_is_refused_without_overflowing_the_stack() {
    let deep =
        format!("SELECT * FROM t WHERE {}a = 1{}", "(".repeat(MAX_NESTING + 1), ")".repeat(MAX_NESTING + 1));
    assert_eq!(parse(&deep), Err(Error::TooDeep));
    let chain = format!("SELECT * FROM t WHERE a = {}", vec!["1"; 2000].join(" + "));
    assert_eq!(parse(&chain), Err(Error::TooDeep));
    let nots = format!("SELECT * FROM t WHERE {} a = 1", "NOT ".repeat(1000));
    assert_eq!(parse(&nots), Err(Error::TooDeep));
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
// (Statement: Length Constraints: Minimum length of 1. Maximum length of 8192.)
#[test]
fn statements_over_8192_characters_are_refused() {
    let long = format!("SELECT * FROM t WHERE a = '{}'", "x".repeat(8192));
    assert_eq!(parse(&long), Err(Error::TooLong));
}

#[test]
fn unknown_functions_and_wrong_arity_are_refused_by_the_check() {
    let s = parse("SELECT * FROM t WHERE nope(a)").unwrap();
    assert!(matches!(check(&s), Err(Error::Unsupported(_))));
    let s = parse("SELECT * FROM t WHERE begins_with(a)").unwrap();
    assert!(matches!(check(&s), Err(Error::Unsupported(_))));
}

#[test]
fn delete_accepts_only_returning_all_old() {
    let s = parse("DELETE FROM t WHERE pk = 1 RETURNING ALL NEW *").unwrap();
    assert!(check(&s)
        .unwrap_err()
        .to_string()
        .contains("Only RETURNING ALL OLD * is allowed in DELETE statements"));
}
