//! `convert`: designs from NoSQL Workbench, OneTable and AWS data-model JSON, and back to
//! Workbench. The fixtures under `tests/fixtures/convert/` were written for these tests from
//! each format's public documentation (cited in each `convert/*.rs` module).

use std::collections::BTreeMap;

use monotable_design::convert::{self, ConvertError, Imported};
use monotable_design::{check, Design, IndexKind, Operation, Projection, Severity, SortOp};
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/convert/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn example(name: &str) -> Design {
    let path = format!("{}/../{name}/design.yaml", env!("CARGO_MANIFEST_DIR"));
    Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn import(format: &str, name: &str) -> Imported {
    let text = fixture(name);
    match format {
        "workbench" => convert::from_workbench(&text),
        "onetable" => convert::from_onetable(&text),
        _ => convert::from_aws_data_model(&text),
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What a Workbench model can hold of a design: names, key conventions, billing, GSIs with
/// one attribute per key part, and per entity type its table key templates, its fields by
/// stored attribute and stored type, and its samples by attribute.
fn workbench_view(d: &Design) -> Value {
    let gsis: Vec<Value> = d
        .indexes
        .iter()
        .filter(|i| i.kind == IndexKind::Gsi && !i.is_multi_key())
        .map(|i| json!([i.name, i.pk.as_ref().map(ToString::to_string), i.sk.to_string(), i.projection]))
        .collect();
    let entities: Vec<Value> = d
        .entities
        .iter()
        .map(|e| {
            let fields: BTreeMap<&str, Option<&str>> =
                e.fields.iter().map(|f| (f.attr(), f.ty.map(|t| t.stored()))).collect();
            let samples: Vec<BTreeMap<&str, &String>> = e
                .samples
                .iter()
                .map(|s| s.iter().map(|(k, v)| (e.field(k).map_or(k.as_str(), |f| f.attr()), v)).collect())
                .collect();
            json!({"name": e.name, "pk": e.pk, "sk": e.sk, "fields": fields, "samples": samples})
        })
        .collect();
    let c = &d.conventions;
    json!({"names": [d.app, d.unit, d.model], "keys": [c.pk, c.sk, c.entity_type, c.created, c.updated],
        "billing": d.table.billing, "gsis": gsis, "entities": entities})
}

/// Sorts the lists whose order Workbench does not give meaning to (attributes, facet names).
fn normalized(mut model: Value) -> Value {
    let table = &mut model["DataModel"][0];
    if let Some(a) = table["NonKeyAttributes"].as_array_mut() {
        a.sort_by_key(|v| v["AttributeName"].as_str().unwrap_or_default().to_string());
    }
    for f in table["TableFacets"].as_array_mut().into_iter().flatten() {
        if let Some(a) = f["NonKeyAttributes"].as_array_mut() {
            a.sort_by_key(|v| v.as_str().unwrap_or_default().to_string());
        }
    }
    model["DataModel"][0].clone()
}

#[test]
fn a_workbench_model_imports_and_exports_back_to_the_same_table_facets_and_items() {
    let imported = import("workbench", "workbench.json");
    let (exported, _) = convert::to_workbench(&imported.design);
    let original: Value = serde_json::from_str(&fixture("workbench.json")).unwrap();
    let exported: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(normalized(exported), normalized(original));
}

#[test]
fn every_fixture_round_trips_through_workbench_without_loss_of_what_workbench_holds() {
    for (format, name) in [
        ("workbench", "workbench.json"),
        ("onetable", "onetable.json"),
        ("aws", "aws-data-model.json"),
        ("aws", "aws-schema.json"),
    ] {
        let first = import(format, name).design;
        let (model, _) = convert::to_workbench(&first);
        let again = convert::from_workbench(&model).unwrap().design;
        assert_eq!(workbench_view(&again), workbench_view(&first), "{name}");
        // A second round changes nothing at all.
        let (model2, _) = convert::to_workbench(&again);
        assert_eq!(convert::from_workbench(&model2).unwrap().design, again, "{name}");
    }
}

#[test]
fn a_workbench_model_gives_entities_from_facets_with_typed_fields_and_samples() {
    let Imported { design: d, notes } = import("workbench", "workbench.json");
    assert_eq!((d.app.as_str(), d.model.as_str()), ("shop", "orders"));
    assert_eq!(d.conventions.created.as_deref(), Some("CreatedAt"));
    assert_eq!(d.table.billing, monotable_design::Billing::Provisioned { read: 5, write: 3 });
    let order = d.entity("Order").unwrap();
    assert_eq!((order.pk.as_str(), order.sk.as_str()), ("CUSTOMER#{customerId}", "ORDER#{orderId}"));
    assert_eq!(order.field("total").unwrap().ty, Some(monotable_design::FieldType::Number));
    assert_eq!(order.samples[1]["total"], "7.5");
    assert_eq!(order.samples[0]["paid"], "true");
    assert_eq!(d.index("GSI1").unwrap().projection, Projection::Include(vec!["total".into()]));
    assert!(notes.iter().any(|n| n.contains("no access patterns")), "{notes:?}");
}

#[test]
fn a_onetable_schema_gives_templates_indexes_fields_and_patterns_from_saved_queries() {
    let Imported { design: d, notes } = import("onetable", "onetable.json");
    let c = &d.conventions;
    assert_eq!((c.pk.as_str(), c.sk.as_str(), c.entity_type.as_str()), ("pk", "sk", "_type"));
    assert_eq!((c.created.as_deref(), c.updated.as_deref()), (Some("created"), Some("updated")));
    let user = d.entity("User").unwrap();
    assert_eq!((user.pk.as_str(), user.sk.as_str()), ("account#{accountId}", "user#{email}"));
    // `${_type}` is the model's name.
    assert_eq!(user.indexes["gs1"].sk.as_deref(), Some("User#"));
    assert_eq!(user.indexes["ls1"].sk.as_deref(), Some("joined#{joined}"));
    assert_eq!(user.field("displayName").unwrap().attr.as_deref(), Some("dn"));
    assert_eq!(user.field("joined").unwrap().ty, Some(monotable_design::FieldType::Timestamp));
    assert_eq!(user.unique, vec!["email".to_string()]);
    assert_eq!(
        d.entity("Account").unwrap().field("plan").unwrap().ty,
        Some(monotable_design::FieldType::Enum)
    );
    assert_eq!(d.index("ls1").unwrap().kind, IndexKind::Lsi);
    assert_eq!(d.index("ls1").unwrap().projection, Projection::KeysOnly);
    let by_account = d.access_patterns.iter().find(|p| p.name == "users-of-account").unwrap();
    let key = by_account.key.as_ref().unwrap();
    assert_eq!(key.pk, "account#{accountId}");
    let sk = key.sk.as_ref().unwrap();
    assert_eq!((sk.op, sk.value.as_str()), (SortOp::BeginsWith, "user#"));
    let by_email = d.access_patterns.iter().find(|p| p.name == "user-by-email").unwrap();
    assert_eq!((by_email.index.as_str(), by_email.operation), ("gs1", Operation::Query));
    assert_eq!(d.entity("User").unwrap().samples[0]["logins"], "3");
    assert!(notes.iter().any(|n| n.contains("filters and limit")), "{notes:?}");
}

#[test]
fn aws_data_model_json_gives_indexes_and_patterns_and_notes_what_it_lacks() {
    let Imported { design: d, notes } = import("aws", "aws-data-model.json");
    assert_eq!((d.app.as_str(), d.model.as_str()), ("games", "matches"));
    let by_region = d.index("by-region").unwrap();
    assert_eq!(by_region.pk.as_ref().unwrap().names(), ["tournamentId", "region"]);
    assert_eq!(by_region.sk.names(), ["round"]);
    assert_eq!(d.index("gsi1").unwrap().projection, Projection::KeysOnly);
    let names: Vec<&str> = d.access_patterns.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["1-get-a-player-s-profile", "2-matches-of-a-region-by-round"]);
    assert_eq!(d.access_patterns[0].operation, Operation::Get);
    assert!(d.entities.is_empty());
    for want in [
        "3-send-the-weekly-newsletter not carried",
        "2 items not carried",
        "not of type S (round)",
        "no entity types",
    ] {
        assert!(notes.iter().any(|n| n.contains(want)), "{want}: {notes:?}");
    }
}

#[test]
fn aws_schema_json_gives_entities_templates_and_keyed_patterns_that_pass_the_lint() {
    let Imported { design: d, .. } = import("aws", "aws-schema.json");
    let deal = d.entity("Deal").unwrap();
    assert_eq!(deal.indexes["DealsByBrand"].pk.as_deref(), Some("BRAND#{brand_id}"));
    assert_eq!(deal.field("price").unwrap().ty, Some(monotable_design::FieldType::Number));
    let get = d.access_patterns.iter().find(|p| p.name == "get_deal").unwrap();
    let key = get.key.as_ref().unwrap();
    assert_eq!((key.pk.as_str(), key.sk.as_ref().unwrap().value.as_str()), ("DEAL#{deal_id}", "DEAL"));
    let since = d.access_patterns.iter().find(|p| p.name == "deals_of_brand_since").unwrap();
    assert_eq!(since.key.as_ref().unwrap().sk.as_ref().unwrap().op, SortOp::Ge);
    let watches = d.access_patterns.iter().find(|p| p.name == "watches_of_user").unwrap();
    assert_eq!(watches.key.as_ref().unwrap().sk.as_ref().unwrap().value, "WATCH#");
    let errors: Vec<_> = check(&d).into_iter().filter(|f| f.severity == Severity::Error).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn exporting_a_design_notes_each_thing_a_workbench_model_cannot_hold() {
    let (model, notes) = convert::to_workbench(&example("example-users"));
    for want in [
        "9 access patterns not carried",
        "entity User: its key templates on GSI1 not carried",
        "entity User: tenant, unique fields not carried",
    ] {
        assert!(notes.iter().any(|n| n.contains(want)), "{want}: {notes:?}");
    }
    let model: Value = serde_json::from_str(&model).unwrap();
    let facets = model["DataModel"][0]["TableFacets"].as_array().unwrap();
    assert_eq!(
        facets[0]["KeyAttributeAlias"],
        json!({"PartitionKeyAlias": "USER#{user_id}", "SortKeyAlias": "PROFILE"})
    );
    assert_eq!(facets[0]["TableData"][0]["PK"], json!({"S": "USER#alice"}));
    assert_eq!(facets[0]["TableData"][0]["userId"], json!({"S": "alice"}));
    // Samples carry their GSI keys, for Workbench's GSI view.
    assert_eq!(facets[0]["TableData"][0]["GSI1PK"], json!({"S": "EMAIL#alice@example.com"}));
    assert_eq!(facets[0]["TableData"][0]["GSI2SK"], json!({"S": "USER#alice"}));
}

#[test]
fn a_table_without_a_sort_key_is_refused_and_bad_input_is_an_error_not_a_panic() {
    let no_sort = json!({"DataModel": [{"TableName": "t", "KeyAttributes": {"PartitionKey": {"AttributeName": "id", "AttributeType": "S"}}}]});
    let err = convert::from_workbench(&no_sort.to_string()).unwrap_err();
    assert!(matches!(&err, ConvertError::Unsupported(m) if m.contains("no sort key")), "{err}");
    assert!(matches!(convert::from_onetable("{"), Err(ConvertError::Json(_))));
    assert!(matches!(convert::from_aws_data_model("{}"), Err(ConvertError::Format(_))));
    assert!(matches!(convert::from_onetable(r#"{"indexes": {}}"#), Err(ConvertError::Format(_))));
    for text in
        ["[]", "null", r#"{"tables": [1]}"#, r#"{"DataModel": [{}]}"#, r#"{"tables": [{"table_config": 1}]}"#]
    {
        let _ = convert::from_aws_data_model(text);
        let _ = convert::from_workbench(text);
        let _ = convert::from_onetable(text);
    }
}
