//! Tests per lint rule, named after it (`mt004_…`): designs that trigger it and the nearest that
//! do not (`every_rule_has_a_test_named_after_it` keeps that true for every id in `RULES`).

use monotable_design::{
    check, AccessPattern, Design, EntityIndexKey, Field, FieldType, Index, IndexKind, KeyAttrs, Projection,
    Severity, SortOp, TABLE,
};

const SEED: &str = include_str!("fixtures/seed.yaml");

/// A clean design: the seed with its admin listing accepted as a hot partition.
fn clean() -> Design {
    let mut d = Design::from_yaml(SEED).unwrap();
    d.accept.push(monotable_design::Accept {
        rule: "MT004".into(),
        subject: "User.GSI1".into(),
        reason: "small".into(),
    });
    d
}

fn rules(d: &Design) -> Vec<&'static str> {
    check(d).into_iter().map(|f| f.rule).collect()
}

#[test]
fn the_clean_design_has_no_findings() {
    assert_eq!(check(&clean()), vec![]);
}

#[test]
fn the_seed_design_is_flagged_as_a_hot_partition() {
    let d = Design::from_yaml(SEED).unwrap();
    let found = check(&d);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].rule, found[0].subject.as_str()), ("MT004", "User.GSI1"));
    assert!(found[0].hint.contains("shard") && found[0].hint.contains("sparse index"));
}

#[test]
fn mt001_an_index_serving_no_pattern_is_reported() {
    let mut d = clean();
    d.access_patterns.retain(|p| p.index != "GSI1");
    assert!(rules(&d).contains(&"MT001"));
}

#[test]
fn mt002_a_pattern_without_a_key_needs_a_scan() {
    let mut d = clean();
    let mut p = AccessPattern::query("by-title", TABLE, "TITLE#{title}").of("Post");
    d.access_patterns.push(p.clone());
    assert_eq!(rules(&d), vec!["MT002"]);
    p.key = None;
    d.access_patterns.pop();
    d.access_patterns.push(p);
    assert_eq!(rules(&d), vec!["MT002"]);
}

#[test]
fn mt002_begins_with_must_reach_the_entity_sort_key() {
    let mut d = clean();
    d.access_patterns.push(
        AccessPattern::query("wrong", TABLE, "USER#{user_id}")
            .of("Post")
            .sort(SortOp::BeginsWith, "COMMENT#"),
    );
    assert_eq!(rules(&d), vec!["MT002"]);
}

#[test]
fn mt003_overlapping_keys_and_sort_key_prefixes_are_reported() {
    let mut d = clean();
    d.entities[1].sk = "PROFILE".into();
    assert_eq!(rules(&d), vec!["MT002", "MT003"]);
    let mut d = clean();
    d.entities[1].sk = "PROFILE#{post_id}".into();
    d.access_patterns.retain(|p| p.name != "list-posts");
    let found = check(&d);
    assert_eq!(found.iter().map(|f| f.rule).collect::<Vec<_>>(), vec!["MT003"]);
    assert!(found[0].message.contains("prefixes"), "{found:?}");
}

#[test]
fn mt004_a_low_cardinality_partition_key_is_reported() {
    let mut d = clean();
    d.entities[1].indexes.insert(
        "GSI1".into(),
        monotable_design::EntityIndexKey {
            pk: Some("STATUS#{status}".into()),
            sk: Some("POST#{post_id}".into()),
        },
    );
    d.entities[1].fields.push(monotable_design::Field {
        name: "status".into(),
        attr: None,
        ty: Some(FieldType::Enum),
        size: None,
    });
    assert_eq!(rules(&d), vec!["MT004"]);
}

#[test]
fn mt005_a_sort_key_without_a_type_prefix_is_reported() {
    let mut d = clean();
    d.entities[1].sk = "{post_id}".into();
    d.access_patterns.retain(|p| p.name != "list-posts");
    assert!(rules(&d).contains(&"MT005"));
}

#[test]
fn mt006_mixed_presets_are_reported() {
    let mut d = clean();
    d.conventions.sk = "sk".into();
    assert_eq!(rules(&d), vec!["MT006"]);
    let mut d = clean();
    d.conventions.updated = Some("UpdatedOn".into());
    assert_eq!(rules(&d), vec!["MT006"]);
    let mut d = clean();
    d.indexes[0].pk = Some("gsi1pk".into());
    assert_eq!(rules(&d), vec!["MT006"]);
}

#[test]
fn mt007_missing_stamps_are_reported() {
    let mut d = clean();
    d.conventions.created_by = None;
    assert_eq!(rules(&d), vec!["MT007"]);
    let mut d = clean();
    d.entities[0].stamps = false;
    assert_eq!(rules(&d), vec!["MT007"]);
}

#[test]
fn mt008_dynamodb_limits_are_reported() {
    let gsi = |n: usize| Index {
        name: format!("GSI{n}"),
        kind: IndexKind::Gsi,
        pk: Some(format!("GSI{n}PK").into()),
        sk: format!("GSI{n}SK").into(),
        projection: Projection::All,
    };
    let mut d = clean();
    for n in 2..=21 {
        d.indexes.push(gsi(n));
        d.access_patterns
            .push(AccessPattern::query(&format!("p{n}"), &format!("GSI{n}"), "USERS").of("User").admin());
        d.accept.push(monotable_design::Accept {
            rule: "MT002".into(),
            subject: format!("p{n}"),
            reason: "test".into(),
        });
    }
    assert_eq!(rules(&d), vec!["MT008"]);
    let mut d = clean();
    d.indexes[0].projection = Projection::Include((0..101).map(|i| format!("a{i}")).collect());
    assert_eq!(rules(&d), vec!["MT008"]);
    let mut d = clean();
    d.entities[1].sk = format!("POST#{}#{{post_id}}", "X".repeat(1100));
    d.access_patterns.retain(|p| p.name != "list-posts");
    assert_eq!(rules(&d), vec!["MT008"]);
}

#[test]
fn mt009_filtering_on_a_key_attribute_is_reported() {
    let mut d = clean();
    d.access_patterns[1].filter.push("post_id".into());
    assert_eq!(rules(&d), vec!["MT009"]);
}

#[test]
fn mt009_filtering_on_a_non_key_attribute_is_not_reported() {
    let mut d = clean();
    d.access_patterns[1].filter.push("title".into());
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt010_unknown_names_are_reported() {
    let mut d = clean();
    d.access_patterns[0].entities.push("Ghost".into());
    assert!(rules(&d).contains(&"MT010"));
    let mut d = clean();
    d.entities[1].pk = "USER#{author}".into();
    assert!(rules(&d).contains(&"MT010"));
}

#[test]
fn only_errors_have_error_severity() {
    let mut d = clean();
    d.access_patterns[0].key = None;
    assert_eq!(check(&d)[0].severity, Severity::Error);
    let d = Design::from_yaml(SEED).unwrap();
    assert_eq!(check(&d)[0].severity, Severity::Warning);
}

#[test]
fn the_example_designs_check_clean() {
    for path in ["../example-users/design.yaml", "../example-orgs/design.yaml"] {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/").to_string() + path).unwrap();
        let d = Design::parse(&text).unwrap();
        assert_eq!(check(&d), vec![], "{path}");
    }
}

#[test]
fn json_and_yaml_read_the_same_document() {
    let d = clean();
    assert_eq!(Design::from_json(&d.to_json()).unwrap(), d);
    assert_eq!(Design::from_yaml(&d.to_yaml()).unwrap(), d);
}

#[test]
fn the_published_json_schema_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/design.schema.json");
    let generated = monotable_design::json_schema();
    if std::env::var_os("MONOTABLE_DESIGN_UPDATE").is_some_and(|v| v == "1") {
        std::fs::write(path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/design.schema.json is stale; rerun with MONOTABLE_DESIGN_UPDATE=1"
    );
}

/// The seed with a multi-attribute GSI listing a user's posts by status and title.
fn with_multi_key_index() -> Design {
    let mut d = clean();
    d.indexes.push(Index {
        name: "GSI2".into(),
        kind: IndexKind::Gsi,
        pk: Some(KeyAttrs(vec!["userId".into(), "status".into()])),
        sk: KeyAttrs(vec!["title".into()]),
        projection: Projection::All,
    });
    let post = d.entities.iter_mut().find(|e| e.name == "Post").unwrap();
    post.fields.push(Field { name: "status".into(), attr: None, ty: Some(FieldType::String), size: None });
    post.fields.iter_mut().find(|f| f.name == "user_id").unwrap().attr = Some("userId".into());
    post.indexes.insert(
        "GSI2".into(),
        EntityIndexKey { pk: Some("{user_id}#{status}".into()), sk: Some("{title}".into()) },
    );
    d.access_patterns.push(
        AccessPattern::query("posts-by-status", "GSI2", "{user_id}#{status}")
            .of("Post")
            .sort(SortOp::Eq, "{title}"),
    );
    d
}

#[test]
fn a_multi_attribute_gsi_whose_entity_lists_its_fields_checks_clean() {
    let d = with_multi_key_index();
    assert_eq!(check(&d), vec![]);
    // The document reads back the same, with the key as a list.
    let yaml = d.to_yaml();
    assert!(yaml.contains("pk:\n  - userId\n  - status"), "{yaml}");
    assert_eq!(Design::from_yaml(&yaml).unwrap(), d);
}

#[test]
fn mt008_a_multi_attribute_key_part_has_at_most_four_attributes_and_lsis_have_none() {
    let mut d = with_multi_key_index();
    d.indexes.last_mut().unwrap().sk = KeyAttrs((0..5).map(|n| format!("a{n}")).collect());
    assert!(check(&d).iter().any(|f| f.rule == "MT008" && f.message.contains("5 attributes")));
    let mut d = clean();
    d.indexes.push(Index {
        name: "LSI1".into(),
        kind: IndexKind::Lsi,
        pk: None,
        sk: KeyAttrs(vec!["a".into(), "b".into()]),
        projection: Projection::All,
    });
    assert!(check(&d).iter().any(|f| f.rule == "MT008" && f.subject == "LSI1"));
}

#[test]
fn mt010_an_entity_template_must_list_the_fields_stored_under_a_multi_attribute_key() {
    for (template, why) in [
        ("STATUS#{user_id}#{status}", "literal text"),
        ("{user_id}", "1 fields for 2 attributes"),
        ("{status}#{user_id}", "field `status` is stored as `status`, not `userId`"),
    ] {
        let mut d = with_multi_key_index();
        let post = d.entities.iter_mut().find(|e| e.name == "Post").unwrap();
        post.indexes.get_mut("GSI2").unwrap().pk = Some(template.into());
        let found = check(&d);
        assert!(
            found.iter().any(|f| f.rule == "MT010" && f.subject == "Post.GSI2" && f.message.contains(why)),
            "{template}: {found:?}"
        );
    }
}

#[test]
fn mt011_a_gsi_key_that_only_joins_fields_could_be_a_multi_attribute_key() {
    let mut d = clean();
    let user = d.entities.iter_mut().find(|e| e.name == "User").unwrap();
    user.indexes.get_mut("GSI1").unwrap().sk = Some("USER#{user_id}#{email}".into());
    let found = check(&d);
    assert!(found.iter().any(|f| f.rule == "MT011" && f.subject == "User.GSI1"), "{found:?}");
}

#[test]
fn mt011_a_gsi_key_that_joins_fields_on_a_shared_index_is_not_reported() {
    let mut d = clean();
    let user = d.entities.iter_mut().find(|e| e.name == "User").unwrap();
    user.indexes.get_mut("GSI1").unwrap().sk = Some("USER#{user_id}#{email}".into());
    // Shared by another entity type, the index needs its type prefixes: no finding.
    let post = d.entities.iter_mut().find(|e| e.name == "Post").unwrap();
    post.indexes.insert(
        "GSI1".into(),
        EntityIndexKey { pk: Some("POSTS".into()), sk: Some("POST#{post_id}".into()) },
    );
    assert!(!rules(&d).contains(&"MT011"), "{:?}", check(&d));
}

/// Asserts that `d` has exactly one finding, of `rule` about `subject`, whose message says `says`.
#[track_caller]
fn only(d: &Design, rule: &str, subject: &str, says: &str) {
    let found = check(d);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].rule, found[0].subject.as_str()), (rule, subject), "{found:?}");
    assert!(found[0].message.contains(says), "{found:?}");
}

#[test]
fn mt010_a_unique_field_the_entity_does_not_have_is_reported() {
    let mut d = clean();
    d.entities[0].unique.push("email".into());
    assert_eq!(check(&d), vec![], "`email` is a field of User");
    d.entities[0].unique.push("emial".into());
    only(&d, "MT010", "User", "unique field `emial`");
}

#[test]
fn mt010_a_ttl_or_version_field_the_entity_does_not_have_is_reported() {
    for role in ["ttl", "version"] {
        let set = |d: &mut Design, field: &str| {
            let post = &mut d.entities[1];
            *(if role == "ttl" { &mut post.ttl } else { &mut post.version_field }) = Some(field.into());
        };
        let mut d = clean();
        d.entities[1].fields.push(Field {
            name: "n".into(),
            attr: None,
            ty: Some(FieldType::Number),
            size: None,
        });
        set(&mut d, "n");
        assert_eq!(check(&d), vec![], "{role}");
        set(&mut d, "m");
        only(&d, "MT010", "Post", &format!("{role} field `m`"));
    }
}

#[test]
fn mt012_a_tenant_scoped_pattern_on_an_entity_without_a_tenant_is_reported() {
    let mut d = clean();
    d.entities[1].tenant = None;
    only(&d, "MT012", "list-posts", "`Post` has no tenant field");
}

#[test]
fn mt012_an_admin_pattern_on_an_entity_without_a_tenant_is_not_reported() {
    let mut d = clean();
    d.entities[1].tenant = None;
    // The same listing for administrators only is what such an entity allows (S14).
    let list = d.access_patterns.iter_mut().find(|p| p.name == "list-posts").unwrap();
    list.scope = monotable_design::Scope::Admin;
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt010_a_malformed_template_is_one_finding_at_the_column_where_it_breaks() {
    for (template, column, says) in [
        ("USER#{user_id", 6, "unclosed `{`"),
        ("USER#{}", 6, "empty placeholder"),
        ("USER#{user_id}X", 15, "followed by `#` or the end"),
        ("USER#{us{er_id}", 9, "nested"),
        ("USER}#{user_id}", 5, "`}` without `{`"),
    ] {
        let mut d = clean();
        d.entities[0].pk = template.into();
        let found = check(&d);
        assert_eq!(found.len(), 1, "{template}: {found:?}");
        assert_eq!((found[0].rule, found[0].subject.as_str()), ("MT010", "User"), "{found:?}");
        let message = &found[0].message;
        assert!(
            message.contains(&format!("column {column}")) && message.contains(says),
            "{template}: {message}"
        );
    }
}

#[test]
fn mt010_a_malformed_pattern_template_is_one_finding_and_no_missing_key() {
    let mut d = clean();
    d.access_patterns[1].key.as_mut().unwrap().pk = "USER#{user_id".into();
    only(&d, "MT010", "list-posts", "column 6");
    let mut d = clean();
    d.access_patterns[1].key.as_mut().unwrap().sk.as_mut().unwrap().value = "POST#{}".into();
    only(&d, "MT010", "list-posts", "column 6");
}

/// The hint of the only finding of `rule` in `d`.
#[track_caller]
fn hint(d: &Design, rule: &str) -> String {
    let found: Vec<_> = check(d).into_iter().filter(|f| f.rule == rule).collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].hint.clone()
}

#[test]
fn mt004_the_sharding_hint_names_the_partition_template_at_fault() {
    let mut d = clean();
    d.accept.clear();
    d.entities[0].indexes.get_mut("GSI1").unwrap().pk = Some("ORDERS".into());
    d.access_patterns[2].key.as_mut().unwrap().pk = "ORDERS".into();
    let h = hint(&d, "MT004");
    assert!(h.contains("`ORDERS#{shard}`") && !h.contains("USERS"), "{h}");
    let mut d = clean();
    d.entities[1].fields.push(Field {
        name: "status".into(),
        attr: None,
        ty: Some(FieldType::Enum),
        size: None,
    });
    d.entities[1].indexes.insert(
        "GSI1".into(),
        EntityIndexKey { pk: Some("STATUS#{status}".into()), sk: Some("POST#{post_id}".into()) },
    );
    let h = hint(&d, "MT004");
    assert!(h.contains("`STATUS#{status}#{shard}`"), "{h}");
}

#[test]
fn mt003_and_mt005_hints_name_the_entity_types_and_their_sort_keys() {
    let mut d = clean();
    d.entities[1].sk = "PROFILE#{post_id}".into();
    d.access_patterns.retain(|p| p.name != "list-posts");
    let h = hint(&d, "MT003");
    assert!(h.contains("`User`") && h.contains("`Post`") && h.contains("`PROFILE`"), "{h}");
    assert!(!h.contains("POST#`"), "{h}");
    let mut d = clean();
    d.entities[1].sk = "PROFILE".into();
    d.access_patterns.retain(|p| p.name != "list-posts");
    let h = hint(&d, "MT003");
    assert!(h.contains("`USER#…`") && h.contains("`POST#…`"), "{h}");
    let mut d = clean();
    d.entities[1].sk = "{post_id}".into();
    d.access_patterns.retain(|p| p.name != "list-posts");
    assert!(hint(&d, "MT005").contains("`POST#{post_id}`"));
}

#[test]
fn mt006_and_mt010_hints_name_the_tables_preset_and_the_entitys_fields() {
    let mut d = clean();
    d.conventions.sk = "sk".into();
    let h = hint(&d, "MT006");
    assert!(h.starts_with("`PK` chooses the upper preset"), "{h}");
    let mut d = with_multi_key_index();
    let post = d.entities.iter_mut().find(|e| e.name == "Post").unwrap();
    post.indexes.get_mut("GSI2").unwrap().pk = Some("{status}#{user_id}".into());
    assert!(hint(&d, "MT010").contains("`{user_id}#{status}`"));
}

// What each rule lets pass: the nearest design that must not trigger it.

#[test]
fn mt001_an_index_one_pattern_queries_is_not_reported() {
    let mut d = clean();
    d.indexes.push(Index {
        name: "GSI2".into(),
        kind: IndexKind::Gsi,
        pk: Some("GSI2PK".into()),
        sk: "GSI2SK".into(),
        projection: Projection::KeysOnly,
    });
    d.entities[0]
        .indexes
        .insert("GSI2".into(), EntityIndexKey { pk: Some("EMAIL#{email}".into()), sk: Some("USER".into()) });
    assert_eq!(rules(&d), vec!["MT001"]);
    d.access_patterns.push(AccessPattern::query("user-by-email", "GSI2", "EMAIL#{email}").of("User").admin());
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt002_patterns_whose_key_an_entity_template_serves_are_not_reported() {
    let mut d = clean();
    d.access_patterns.push(AccessPattern::get("get-post", "Post", "USER#{user_id}", "POST#{post_id}"));
    d.access_patterns.push(
        AccessPattern::query("posts-after", TABLE, "USER#{user_id}")
            .of("Post")
            .sort(SortOp::Gt, "POST#{post_id}"),
    );
    d.access_patterns.push(AccessPattern::write(
        "delete-post",
        monotable_design::Operation::Delete,
        "Post",
        "USER#{user_id}",
        "POST#{post_id}",
    ));
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt003_types_sharing_a_partition_under_distinct_prefixes_are_not_reported() {
    let mut d = clean();
    let mut comment = d.entities[1].clone();
    comment.name = "Comment".into();
    comment.sk = "COMMENT#{post_id}#{comment_id}".into();
    comment.fields.push(Field {
        name: "comment_id".into(),
        attr: None,
        ty: Some(FieldType::String),
        size: None,
    });
    d.entities.push(comment);
    d.access_patterns.push(
        AccessPattern::query("list-comments", TABLE, "USER#{user_id}")
            .of("Comment")
            .sort(SortOp::BeginsWith, "COMMENT#"),
    );
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt004_a_low_cardinality_field_beside_a_high_cardinality_one_is_not_reported() {
    let mut d = clean();
    d.entities[1].fields.push(Field {
        name: "status".into(),
        attr: None,
        ty: Some(FieldType::Enum),
        size: None,
    });
    d.entities[1].indexes.insert(
        "GSI1".into(),
        EntityIndexKey { pk: Some("STATUS#{status}#{user_id}".into()), sk: Some("POST#{post_id}".into()) },
    );
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt005_a_multi_attribute_sort_key_needs_no_type_prefix() {
    let d = with_multi_key_index();
    let post = d.entity("Post").unwrap();
    assert_eq!(post.indexes["GSI2"].sk.as_deref(), Some("{title}"));
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt006_the_lower_preset_used_throughout_is_not_reported() {
    let mut d = clean();
    d.conventions = monotable_design::Conventions::lower();
    d.indexes[0] =
        Index { name: "gsi1".into(), pk: Some("gsi1pk".into()), sk: "gsi1sk".into(), ..d.indexes[0].clone() };
    let renamed = d.entities[0].indexes.remove("GSI1").unwrap();
    d.entities[0].indexes.insert("gsi1".into(), renamed);
    d.access_patterns[2].index = "gsi1".into();
    d.accept[0].subject = "User.gsi1".into();
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt007_a_table_without_a_ttl_attribute_is_not_missing_a_stamp() {
    let mut d = clean();
    d.conventions.ttl = None;
    assert_eq!(check(&d), vec![]);
}

#[test]
fn mt008_designs_at_the_dynamodb_limits_are_not_reported() {
    let mut d = clean();
    // 1024 literal bytes: the longest sort key a template may guarantee.
    d.entities[1].sk = format!("POST#{}#{{post_id}}", "X".repeat(1024 - "POST##".len()));
    d.indexes[0].projection = Projection::Include((0..100).map(|i| format!("a{i}")).collect());
    d.indexes[0].name = format!("G{}", "I".repeat(254));
    let renamed = d.entities[0].indexes.remove("GSI1").unwrap();
    d.entities[0].indexes.insert(d.indexes[0].name.clone(), renamed);
    d.access_patterns[2].index = d.indexes[0].name.clone();
    d.accept[0].subject = format!("User.{}", d.indexes[0].name);
    d.access_patterns.retain(|p| p.name != "list-posts");
    assert_eq!(check(&d), vec![]);
    d.indexes[0].name.push('I');
    assert!(rules(&d).contains(&"MT008"), "256 characters");
}

#[test]
fn mt010_templates_of_an_entity_that_lists_no_fields_are_not_checked_for_fields() {
    let mut d = clean();
    d.entities[1].fields.clear();
    d.entities[1].unique.push("slug".into());
    assert_eq!(check(&d), vec![]);
}

#[test]
fn every_rule_has_a_test_named_after_it() {
    let tests = include_str!("lint.rs");
    for (id, _, _) in monotable_design::RULES {
        let prefix = format!("fn {}_", id.to_ascii_lowercase());
        assert!(tests.matches(&prefix).count() >= 2, "{id}: a design that triggers it and one that does not");
    }
}
