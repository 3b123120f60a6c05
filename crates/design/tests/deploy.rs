//! The desired table of a design and its comparison with a live one, as plain data (the CLI's
//! `design apply`/`diff` tests run the same logic against a real server).

use monotable_design::deploy::{diff, Change, TableShape};
use monotable_design::{Design, Projection};

const DESIGN: &str = r#"
version: 1
app: shop
unit: api
model: main
conventions: {pk: PK, sk: SK, entity_type: EntityType, ttl: TTL}
indexes:
  - {name: GSI1, kind: gsi, pk: GSI1PK, sk: GSI1SK, projection: {include: [title, status]}}
entities:
  - {name: Order, pk: "C#{c}", sk: "O#{o}", indexes: {GSI1: {pk: "O#{o}", sk: O}}, fields: [{name: c}, {name: o}]}
"#;

fn desired() -> TableShape {
    TableShape::desired(&Design::parse(DESIGN).unwrap(), "shop-dev-main")
}

#[test]
fn yaml_include_projections_read_as_a_map_and_are_written_back_the_same_way() {
    let d = Design::parse(DESIGN).unwrap();
    assert_eq!(d.indexes[0].projection, Projection::Include(vec!["title".into(), "status".into()]));
    assert!(d.to_yaml().contains("include:\n"), "{}", d.to_yaml());
    assert_eq!(Design::parse(&d.to_yaml()).unwrap(), d);
    assert_eq!(Design::parse(&d.to_json()).unwrap(), d);
}

#[test]
fn the_desired_table_has_string_keys_on_demand_billing_and_deletion_protection() {
    let t = desired();
    assert_eq!(t.name, "shop-dev-main");
    assert_eq!((t.hash.as_str(), t.range.as_deref()), ("PK", Some("SK")));
    assert!(t.attributes.values().all(|ty| ty == "S"));
    assert_eq!(t.attributes.len(), 4);
    assert!(t.deletion_protection);
    // Include lists are sorted so that their order is not drift.
    assert_eq!(t.gsis[0].projection, Projection::Include(vec!["status".into(), "title".into()]));
}

#[test]
fn identical_tables_have_no_drift() {
    assert_eq!(diff(&desired(), &desired()), vec![]);
}

#[test]
fn removing_what_the_live_table_has_is_destructive_and_adding_is_not() {
    let want = desired();
    let mut live = want.clone();
    live.gsis.clear();
    live.ttl = None;
    live.tags.insert("extra".into(), "x".into());
    let d = diff(&want, &live);
    let kinds: Vec<(&str, bool)> = d.iter().map(|d| (d.subject.as_str(), d.destructive())).collect();
    assert_eq!(kinds, [("GSI GSI1", false), ("TTL", false), ("tag extra", true)]);
    // The other way round: dropping the index and TTL is destructive, adding the tag is not.
    let back = diff(&live, &want);
    let kinds: Vec<bool> = back.iter().map(|d| d.destructive()).collect();
    assert_eq!(kinds, [true, true, false], "{back:?}");
    assert!(matches!(back[0].change, Change::DeleteGsi(ref n) if n == "GSI1"));
}

#[test]
fn a_changed_key_type_needs_a_new_table_and_says_which_types() {
    let want = desired();
    let mut live = want.clone();
    live.attributes.insert("SK".into(), "N".into());
    let d = diff(&want, &live);
    assert_eq!(d.len(), 1);
    assert!(d[0].needs_new_table());
    assert_eq!(
        d[0].to_string(),
        "! table key: live PK:S, SK:N, design PK:S, SK:S (needs a new table: UpdateTable cannot change it)"
    );
}
