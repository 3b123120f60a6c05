//! Export → import round trips and import error reporting.

use std::io::Write;
use std::path::Path;

use indicatif::ProgressBar;
use monotable_engine::{DescribeTableInput, Engine, ScanInput};
use monotable_store::{
    export_table, import_file, open, ImportOptions, SyncPolicy, TableDefinition, TransferError,
};
use monotable_types::Item;
use serde_json::json;

fn create(engine: &Engine) {
    let create = json!({
        "TableName": "things",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "B"},
            {"AttributeName": "l", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "by_g",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}
        }],
        "LocalSecondaryIndexes": [{
            "IndexName": "by_l",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["m"]}
        }],
        "BillingMode": "PAY_PER_REQUEST"
    });
    engine.create_table(serde_json::from_value(create).expect("input")).expect("create");
    let ttl =
        json!({"TableName": "things", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "exp"}});
    engine.update_time_to_live(serde_json::from_value(ttl).expect("input")).expect("ttl");
    for i in 0..120 {
        let item = json!({
            "pk": {"S": format!("p{}", i % 7)},
            "sk": {"N": format!("{i}.5")},
            "g": {"B": "AAEC/w=="},
            "l": {"S": format!("l{i}")},
            "bool": {"BOOL": i % 2 == 0},
            "nul": {"NULL": true},
            "ss": {"SS": ["a", "b\u{e9}"]},
            "ns": {"NS": ["1", "-2.25", "1E+100"]},
            "bs": {"BS": ["AA==", "AQ=="]},
            "list": {"L": [{"S": "x"}, {"N": "0"}, {"M": {"deep": {"L": []}}}]},
            "m": {"M": {"k": {"S": "v\n\"quoted\""}, "e": {"M": {}}}},
            "exp": {"N": "4102444800"}
        });
        let input = json!({"TableName": "things", "Item": item});
        engine.put_item(serde_json::from_value(input).expect("input")).expect("put");
    }
}

fn all_items(engine: &Engine, table: &str, index: Option<&str>) -> Vec<Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = engine
            .scan(ScanInput {
                table_name: Some(table.to_owned()),
                index_name: index.map(str::to_owned),
                exclusive_start_key: start,
                ..ScanInput::default()
            })
            .expect("scan");
        out.extend(
            page.items.unwrap_or_default().into_iter().map(monotable_engine::api::SharedItem::into_item),
        );
        start = page.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    out.sort_by_key(|i| serde_json::to_string(i).unwrap_or_default());
    out
}

fn export_to(engine: &Engine, dir: &Path) -> (std::path::PathBuf, TableDefinition) {
    let def = TableDefinition::of_table(engine, "things").expect("definition");
    let data = dir.join("things.jsonl");
    let mut out = std::fs::File::create(&data).expect("create");
    let report = export_table(engine, "things", &mut out, &ProgressBar::hidden()).expect("export");
    assert_eq!(report.items, 120);
    (data, def)
}

#[test]
fn export_then_import_recreates_an_identical_table_with_indexes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source =
        Engine::with_storage(open(dir.path().join("src"), SyncPolicy::None).expect("open")).expect("engine");
    create(&source);
    let (data, def) = export_to(&source, dir.path());
    let first = std::fs::read_to_string(&data).expect("read");
    assert!(first.lines().all(|l| l.starts_with("{\"Item\":{")), "DynamoDB export lines");
    // The definition survives its file form.
    let def = TableDefinition::from_json(&def.to_json().expect("json")).expect("parse");
    let target =
        Engine::with_storage(open(dir.path().join("dst"), SyncPolicy::None).expect("open")).expect("engine");
    let report = import_file(&target, &data, Some(&def), &ImportOptions::default(), &ProgressBar::hidden())
        .expect("import");
    assert_eq!(report.items, 120);
    assert!(report.created_table);
    for index in [None, Some("by_g"), Some("by_l")] {
        assert_eq!(all_items(&source, "things", index), all_items(&target, "things", index), "{index:?}");
    }
    let describe = |e: &Engine| {
        let mut d =
            e.describe_table(DescribeTableInput { table_name: Some("things".into()) }).expect("describe");
        let t = d.table.take().expect("table");
        (t.key_schema, t.attribute_definitions, t.item_count)
    };
    assert_eq!(describe(&source), describe(&target));
    assert_eq!(TableDefinition::of_table(&target, "things").expect("def"), def);
}

#[test]
fn bad_lines_are_reported_with_line_numbers_and_nothing_is_imported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = Engine::new();
    create(&source);
    let (data, def) = export_to(&source, dir.path());
    let mut f = std::fs::OpenOptions::new().append(true).open(&data).expect("open");
    writeln!(f, "{{\"Item\":{{\"pk\":{{\"S\":\"x\"}}}}}}").expect("write"); // line 121: no sort key
    writeln!(f, "not json").expect("write"); // line 122
    writeln!(f).expect("write"); // blank line 123 is fine
    writeln!(f, "{{\"Item\":{{\"pk\":{{\"N\":\"1\"}},\"sk\":{{\"N\":\"1\"}}}}}}").expect("write"); // 124: wrong type
    drop(f);
    let target = Engine::new();
    let err = import_file(&target, &data, Some(&def), &ImportOptions::default(), &ProgressBar::hidden())
        .expect_err("bad lines");
    let TransferError::BadLines(bad) = &err else { panic!("expected BadLines, got {err}") };
    assert_eq!(bad.iter().map(|b| b.line).collect::<Vec<_>>(), [121, 122, 124], "{bad:?}");
    assert!(bad[0].reason.contains("missing key attribute sk"), "{bad:?}");
    assert!(err.to_string().contains("nothing was imported"), "{err}");
    assert!(target.list_tables(Default::default()).expect("list").table_names.unwrap_or_default().is_empty());
}

#[test]
fn import_into_a_missing_table_without_definition_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("x.jsonl");
    std::fs::write(&data, "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n").expect("write");
    let mut options = ImportOptions::default();
    options.table = Some("nope".into());
    let err =
        import_file(&Engine::new(), &data, None, &options, &ProgressBar::hidden()).expect_err("refused");
    assert!(err.to_string().contains("does not exist"), "{err}");
}

#[test]
fn duplicate_keys_in_the_input_are_written_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::new();
    create(&engine);
    let data = dir.path().join("dup.jsonl");
    let line = |v: &str| {
        format!("{{\"Item\":{{\"pk\":{{\"S\":\"d\"}},\"sk\":{{\"N\":\"1\"}},\"v\":{{\"S\":\"{v}\"}}}}}}\n")
    };
    std::fs::write(&data, format!("{}{}", line("first"), line("second"))).expect("write");
    let mut options = ImportOptions::default();
    options.table = Some("things".into());
    let report = import_file(&engine, &data, None, &options, &ProgressBar::hidden()).expect("import");
    assert_eq!(report.items, 2);
    let items = all_items(&engine, "things", None);
    let d = items
        .iter()
        .find(|i| i.get("pk") == Some(&monotable_types::AttributeValue::S("d".into())))
        .expect("d");
    assert_eq!(d.get("v"), Some(&monotable_types::AttributeValue::S("second".into())));
}

#[test]
fn gzip_export_files_import_like_plain_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = Engine::new();
    create(&source);
    let def = TableDefinition::of_table(&source, "things").expect("definition");
    let data = dir.path().join("things.json.gz");
    let report =
        monotable_store::export_to_path(&source, "things", &data, &ProgressBar::hidden()).expect("export");
    assert_eq!(report.items, 120);
    let raw = std::fs::read(&data).expect("read");
    assert_eq!(raw.get(..2), Some(&[0x1f, 0x8b][..]), "gzip magic");
    let target = Engine::new();
    let report = import_file(&target, &data, Some(&def), &ImportOptions::default(), &ProgressBar::hidden())
        .expect("import");
    assert_eq!(report.items, 120);
    assert_eq!(all_items(&source, "things", None), all_items(&target, "things", None));
}

/// After UpdateTable deleted the global index, the definition lists only the attributes a
/// remaining key uses (so CreateTable accepts it) and carries deletion protection, which the
/// recreated table has too.
#[test]
fn a_definition_after_an_index_is_deleted_recreates_the_table_with_its_deletion_protection() {
    let source = Engine::new();
    create(&source);
    let update = json!({
        "TableName": "things",
        "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_g"}}],
    });
    source.update_table(serde_json::from_value(update).expect("input")).expect("delete the index");
    let protect = json!({"TableName": "things", "DeletionProtectionEnabled": true});
    source.update_table(serde_json::from_value(protect).expect("input")).expect("protect");
    let def = TableDefinition::from_json(
        &TableDefinition::of_table(&source, "things").expect("definition").to_json().expect("json"),
    )
    .expect("parse");
    assert_eq!(def.create_table.deletion_protection_enabled, Some(true));
    let names: Vec<&str> = def
        .create_table
        .attribute_definitions
        .iter()
        .flatten()
        .filter_map(|a| a.attribute_name.as_deref())
        .collect();
    assert_eq!(names, ["l", "pk", "sk"]);
    let target = Engine::new();
    def.create(&target, None).expect("the definition creates the table");
    let described =
        target.describe_table(DescribeTableInput { table_name: Some("things".into()) }).expect("describe");
    assert_eq!(described.table.and_then(|t| t.deletion_protection_enabled), Some(true));
}
