//! `measure`: the figures the cost estimate reads, from the engine's ConsumedCapacity and the
//! samples' sizes.

use monotable_design::{Design, Operation};
use monotable_design_run::{measure, DEFAULT_SEED};

fn example_users() -> Design {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../example-users/design.yaml");
    Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_entity_and_pattern_is_measured() {
    let d = example_users();
    let m = measure(&d, DEFAULT_SEED).unwrap();
    let names = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(m.entities.iter().map(|e| &e.name).collect()),
        names(d.entities.iter().map(|e| &e.name).collect())
    );
    assert_eq!(
        names(m.patterns.iter().map(|p| &p.name).collect()),
        names(d.access_patterns.iter().map(|p| &p.name).collect())
    );
}

#[test]
fn a_users_index_copies_are_smaller_keys_only_and_whole_under_all() {
    let m = measure(&example_users(), DEFAULT_SEED).unwrap();
    let user = m.entities.iter().find(|e| e.name == "User").unwrap();
    assert!(user.item_bytes > 0.0);
    let gsi1 = &user.indexes["GSI1"];
    // GSI1 projects ALL: the copy is the whole item; KEYS_ONLY keeps PK, SK, GSI1PK, GSI1SK.
    assert_eq!(gsi1.projected_bytes, user.item_bytes);
    assert!(gsi1.keys_only_bytes > 0.0 && gsi1.keys_only_bytes < user.item_bytes);
    let post = m.entities.iter().find(|e| e.name == "Post").unwrap();
    assert!(post.indexes.is_empty(), "posts are on no index");
}

#[test]
fn reads_report_read_units_and_strong_ones_only_off_a_gsi() {
    let m = measure(&example_users(), DEFAULT_SEED).unwrap();
    let get = m.patterns.iter().find(|p| p.name == "get-user").unwrap();
    // One read unit is one strongly consistent or two eventually consistent reads of an item
    // up to 4 KB ("Read/write capacity mode", DynamoDB developer guide).
    assert_eq!((get.items, get.read_units_eventual, get.read_units_strong), (1.0, 0.5, Some(1.0)));
    let by_email = m.patterns.iter().find(|p| p.name == "get-user-by-email").unwrap();
    assert_eq!(by_email.read_units_strong, None);
    assert!(by_email.read_units_eventual > 0.0);
}

#[test]
fn a_transaction_reports_doubled_units_on_the_table_and_each_index() {
    let m = measure(&example_users(), DEFAULT_SEED).unwrap();
    let create = m.patterns.iter().find(|p| p.name == "create-user").unwrap();
    assert_eq!(create.operation, Operation::TransactWrite);
    // The user and its email guard, each under 1 KB, written transactionally: 2 × 2 units.
    assert_eq!(create.items, 2.0);
    assert_eq!(create.write_units_table, 4.0);
    assert_eq!(create.write_units_indexes.get("GSI1"), Some(&2.0));
    assert_eq!(create.read_units_eventual, 0.0);
}
