//! `validate` on a small clean design, and on copies of it seeded with one mistake each: every
//! mistake is reported as exactly its finding.

use monotable_design::Design;
use monotable_design_run::{validate, Report, DEFAULT_SEED};

/// Users with a unique email, their posts keyed by creation time, a GSI by email and a
/// listing GSI projecting only the user id.
const CLEAN: &str = r#"
version: 1
app: t
unit: t
model: t
conventions: {pk: PK, sk: SK, entity_type: EntityType, created: CreatedAt, updated: UpdatedAt, created_by: CreatedBy, ttl: TTL}
indexes:
- {name: GSI1, kind: gsi, pk: GSI1PK, sk: GSI1SK}
- {name: GSI2, kind: gsi, pk: GSI2PK, sk: GSI2SK, projection: {include: [user_id]}}
entities:
- name: User
  pk: 'USER#{user_id}'
  sk: PROFILE
  indexes:
    GSI1: {pk: 'EMAIL#{email}', sk: USER}
    GSI2: {pk: USERS, sk: 'USER#{user_id}'}
  fields: [{name: user_id}, {name: email}, {name: name}]
  unique: [email]
  count: {n: 3}
- name: Post
  pk: 'USER#{user_id}'
  sk: 'POST#{created}'
  fields: [{name: user_id}, {name: created, type: timestamp}, {name: title}, {name: body, size: 2000}]
  count: {n: 100, per: User}
access_patterns:
- {name: get-user, entities: [User], index: table, operation: get, key: {pk: 'USER#{user_id}', sk: {op: eq, value: PROFILE}}, scope: tenant}
- {name: get-user-by-email, entities: [User], index: GSI1, operation: query, key: {pk: 'EMAIL#{email}'}, scope: admin}
- {name: list-user-ids, entities: [User], index: GSI2, operation: query, key: {pk: USERS}, scope: admin, reads: [user_id]}
- {name: list-posts, entities: [Post], index: table, operation: query, key: {pk: 'USER#{user_id}', sk: {op: begins_with, value: 'POST#'}}, scope: tenant, order: descending, max_items: 100}
- {name: user-partition, entities: [User, Post], index: table, operation: query, key: {pk: 'USER#{user_id}'}, scope: tenant, collection: true}
- {name: create-user, entities: [User], index: table, operation: transact_write, key: {pk: 'USER#{user_id}', sk: {op: eq, value: PROFILE}}, scope: tenant}
- {name: create-post, entities: [Post], index: table, operation: put, key: {pk: 'USER#{user_id}', sk: {op: eq, value: 'POST#{created}'}}, scope: tenant}
- {name: rename-user, entities: [User], index: table, operation: update, key: {pk: 'USER#{user_id}', sk: {op: eq, value: PROFILE}}, scope: tenant}
"#;

fn run(yaml: &str) -> Report {
    validate(&Design::from_yaml(yaml).unwrap(), DEFAULT_SEED).unwrap()
}

/// The `(rule, pattern)` of every finding.
fn findings(r: &Report) -> Vec<(&str, &str)> {
    r.findings.iter().map(|f| (f.rule, f.subject.as_str())).collect()
}

/// The error a design that cannot run gives.
fn error(yaml: &str) -> String {
    validate(&Design::from_yaml(yaml).unwrap(), DEFAULT_SEED).unwrap_err().to_string()
}

fn edit(from: &str, to: &str) -> String {
    assert!(CLEAN.contains(from), "{from}");
    CLEAN.replacen(from, to, 1)
}

#[test]
fn a_clean_design_passes_with_every_pattern_executed() {
    let r = run(CLEAN);
    assert_eq!(findings(&r), vec![], "{}", r.text());
    assert!(r.passed());
    for p in &r.patterns {
        assert!(p.executed, "{}", p.name);
        assert!(p.items > 0, "{}", p.name);
        if let Some(e) = p.expected {
            assert_eq!(p.items, e, "{}", p.name);
        }
    }
    // Three users, each with eight posts (the count capped) and an email guard.
    assert_eq!(r.sample_items, 3 * (1 + 8 + 1));
    let partition = r.patterns.iter().find(|p| p.name == "user-partition").unwrap();
    assert_eq!(partition.items, 9);
}

#[test]
fn the_same_seed_generates_the_same_run_and_another_seed_other_items() {
    let json =
        |seed| serde_json::to_string(&validate(&Design::from_yaml(CLEAN).unwrap(), seed).unwrap()).unwrap();
    assert_eq!(json(7), json(7));
    assert!(run(CLEAN).passed() && validate(&Design::from_yaml(CLEAN).unwrap(), 99).unwrap().passed());
}

#[test]
fn a_pattern_served_by_the_wrong_index_misses_its_items() {
    let r = run(&edit("index: GSI1, operation: query", "index: GSI2, operation: query"));
    assert_eq!(findings(&r), vec![("MV001", "get-user-by-email")], "{}", r.text());
    assert!(r.findings[0].message.contains("key on GSI1"), "{}", r.findings[0].message);
    assert!(!r.passed());
}

#[test]
fn a_gsi_that_does_not_project_a_read_attribute_is_reported() {
    let r = run(&edit("projection: {include: [user_id]}", "projection: keys_only"));
    assert_eq!(findings(&r), vec![("MV005", "list-user-ids")], "{}", r.text());
    assert!(r.findings[0].message.contains("user_id"));
}

#[test]
fn newest_first_on_a_random_id_does_not_hold() {
    let yaml = edit("sk: 'POST#{created}'", "sk: 'POST#{post_id}'")
        .replace("{name: created, type: timestamp}", "{name: created, type: timestamp}, {name: post_id}")
        .replace("value: 'POST#{created}'", "value: 'POST#{post_id}'");
    let r = run(&yaml);
    assert_eq!(findings(&r), vec![("MV007", "list-posts")], "{}", r.text());
}

#[test]
fn oldest_first_on_a_timestamp_key_holds() {
    let r = run(&edit("order: descending", "order: ascending"));
    assert_eq!(findings(&r), vec![], "{}", r.text());
}

#[test]
fn a_collection_returning_an_undeclared_entity_type_is_reported() {
    let follow = "- name: Follow\n  pk: 'USER#{user_id}'\n  sk: 'FOLLOW#{other}'\n  fields: [{name: user_id}, {name: other}]\n  count: {n: 2, per: User}\naccess_patterns:";
    let r = run(&CLEAN.replacen("access_patterns:", follow, 1));
    assert_eq!(findings(&r), vec![("MV002", "user-partition")], "{}", r.text());
    assert!(r.findings[0].message.contains("Follow"));
}

#[test]
fn a_page_over_one_megabyte_at_the_declared_collection_size_is_reported() {
    let r = run(&edit("size: 2000", "size: 200000"));
    assert_eq!(findings(&r), vec![("MV006", "list-posts")], "{}", r.text());
}

#[test]
fn a_limit_that_keeps_pages_under_one_megabyte_passes() {
    let r = run(&edit("size: 2000", "size: 200000").replace("max_items: 100", "max_items: 100, limit: 4"));
    assert_eq!(findings(&r), vec![], "{}", r.text());
    let list = r.patterns.iter().find(|p| p.name == "list-posts").unwrap();
    assert_eq!(list.requests, 2 + 1, "8 posts in pages of 4, and the empty last page");
}

#[test]
fn a_pattern_without_a_key_would_need_a_scan() {
    let r = run(&edit("key: {pk: USERS}, scope: admin", "scope: admin"));
    assert_eq!(findings(&r), vec![("MV003", "list-user-ids")], "{}", r.text());
}

#[test]
fn a_filter_on_a_key_attribute_is_a_warning() {
    let r = run(&edit("key: {pk: USERS}, scope: admin", "key: {pk: USERS}, filter: [GSI2SK], scope: admin"));
    assert_eq!(findings(&r), vec![("MV004", "list-user-ids")], "{}", r.text());
    assert!(r.passed(), "a warning fails no pattern");
}

#[test]
fn an_unknown_count_parent_is_an_error_not_a_panic() {
    let e = error(&edit("per: User", "per: Nobody"));
    assert!(e.contains("Nobody"), "{e}");
}

#[test]
fn both_example_designs_validate_clean() {
    for name in ["example-users", "example-orgs"] {
        let path = format!("{}/../{name}/design.yaml", env!("CARGO_MANIFEST_DIR"));
        let d = Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let r = validate(&d, DEFAULT_SEED).unwrap();
        assert!(r.findings.is_empty(), "{name}:\n{}", r.text());
        assert!(r.patterns.iter().all(|p| p.executed), "{name}");
    }
}

#[test]
fn a_malformed_key_template_is_an_error_not_a_panic() {
    let e = error(&edit("sk: 'POST#{created}'", "sk: 'POST#{created'"));
    assert!(e.contains("Post") && e.contains("unclosed"), "{e}");
}

#[test]
fn every_rule_is_documented_with_its_severity() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/DESIGN.md")).unwrap();
    for (id, severity, _) in monotable_design_run::RULES {
        let word = if *severity == monotable_design::Severity::Error { "error" } else { "warning" };
        assert!(doc.contains(&format!("| {id} | {word} |")), "{id} is not in docs/DESIGN.md as {word}");
    }
}

#[test]
fn an_lsi_and_a_multi_attribute_gsi_are_created_queried_and_checked() {
    let yaml = edit(
        "- {name: GSI2, kind: gsi",
        "- {name: LSI1, kind: lsi, sk: LSI1SK}\n- {name: GSI3, kind: gsi, pk: [user_id, status], sk: created}\n- {name: GSI2, kind: gsi",
    )
    .replace(
        "  fields: [{name: user_id}, {name: created, type: timestamp}, {name: title},",
        "  indexes:\n    LSI1: {sk: 'TITLE#{title}'}\n    GSI3: {pk: '{user_id}#{status}', sk: '{created}'}\n  fields: [{name: user_id}, {name: created, type: timestamp}, {name: status, type: enum}, {name: title},",
    )
    .replace(
        "access_patterns:\n",
        "access_patterns:\n- {name: posts-by-title, entities: [Post], index: LSI1, operation: query, key: {pk: 'USER#{user_id}', sk: {op: begins_with, value: 'TITLE#'}}, scope: tenant, order: ascending, order_by: title}\n- {name: posts-by-status, entities: [Post], index: GSI3, operation: query, key: {pk: '{user_id}#{status}'}, scope: tenant, order: descending}\n",
    );
    let r = run(&yaml);
    assert_eq!(findings(&r), vec![], "{}", r.text());
    let by_title = r.patterns.iter().find(|p| p.name == "posts-by-title").unwrap();
    assert_eq!((by_title.items, by_title.expected), (8, Some(8)));
    assert!(by_title.read_units_strong.is_some(), "an LSI allows strongly consistent reads");
    let by_status = r.patterns.iter().find(|p| p.name == "posts-by-status").unwrap();
    assert!(by_status.items > 0 && by_status.read_units_strong.is_none());
    assert_eq!(Some(by_status.items), by_status.expected);
}

#[test]
fn a_cycle_of_count_parents_is_an_error_not_a_panic() {
    let e = error(&edit("count: {n: 3}", "count: {n: 3, per: Post}"));
    assert!(e.contains("cycle"), "{e}");
}

#[test]
fn a_pattern_no_sample_can_bind_is_reported_and_not_executed() {
    let r = run(&edit("key: {pk: 'EMAIL#{email}'}", "key: {pk: 'EMAIL#{mail}'}"));
    assert_eq!(findings(&r), vec![("MV008", "get-user-by-email")], "{}", r.text());
    assert!(!r.patterns.iter().find(|p| p.name == "get-user-by-email").unwrap().executed);
}
