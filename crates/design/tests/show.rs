//! `design show`: the access-pattern table and the aggregate view, and the checked-in
//! pictures of the examples in docs/design/ being current.

use monotable_design::{show, Design};

fn example(name: &str) -> Design {
    let path = format!("{}/../{name}/design.yaml", env!("CARGO_MANIFEST_DIR"));
    Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn markdown_lists_every_pattern_with_its_key_condition() {
    let d = example("example-users");
    let md = show::markdown(&d);
    for p in &d.access_patterns {
        assert!(md.contains(&format!("| {} |", p.name)), "{}", p.name);
    }
    assert!(md.contains("`GSI1PK = EMAIL#{email} AND GSI1SK = USER`"));
}

#[test]
fn the_aggregate_view_groups_sample_items_by_partition_and_colours_entity_types() {
    let svg = show::svg(&example("example-users"));
    // alice's partition holds her profile, posts and comment; GSI2 holds both users.
    assert!(svg.contains(">USER#alice<") && svg.contains(">COMMENT#2024-05-01-0#c0<"));
    assert!(svg.contains(">USERS<") && svg.contains(">USER#bob<"));
    assert!(svg.contains("#4e79a7") && svg.contains("#f28e2b") && svg.contains("#59a14f"));
    assert!(show::html(&example("example-orgs")).contains("<svg"));
}

#[test]
fn the_checked_in_pictures_of_the_examples_are_current() {
    for ex in ["users", "orgs"] {
        let d = example(&format!("example-{ex}"));
        let docs = format!("{}/../../docs/design/example-{ex}", env!("CARGO_MANIFEST_DIR"));
        for (ext, text) in [("md", show::markdown(&d)), ("svg", show::svg(&d)), ("html", show::html(&d))] {
            let path = format!("{docs}.{ext}");
            if std::env::var_os("MONOTABLE_DESIGN_UPDATE").is_some_and(|v| v == "1") {
                std::fs::write(&path, &text).unwrap();
            }
            assert!(
                std::fs::read_to_string(&path).unwrap_or_default() == text,
                "{path} is stale: `monotable design show`"
            );
        }
    }
}
