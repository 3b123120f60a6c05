//! NoSQL Workbench for DynamoDB's data model (the JSON its data modeler imports and exports:
//! "Importing an existing data model" and "Exporting a data model",
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.Modeler.ImportExisting.html>,
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.Modeler.ExportModel.html>;
//! facets: <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.Modeler.Facets.html>).
//!
//! The model (format `Version` 3.0): `ModelName`, `ModelMetadata`, and `DataModel`, a list of
//! tables, each with `TableName`, `KeyAttributes` (`PartitionKey`, `SortKey`: `AttributeName`,
//! `AttributeType`), `NonKeyAttributes` (name and type), `TableFacets`, `GlobalSecondaryIndexes`
//! (`IndexName`, `KeyAttributes`, `Projection`), `BillingMode` and
//! `ProvisionedCapacitySettings`. A facet is a view of the table for one kind of item:
//! `FacetName`, `KeyAttributeAlias` (`PartitionKeyAlias`, `SortKeyAlias`), its
//! `NonKeyAttributes` (names) and `TableData` (items in DynamoDB JSON).
//!
//! Mapping: one facet per entity type, its key aliases holding the entity's key templates
//! (an alias with a `{`, a `#` or no lower-case letter is a template; a plain name such as
//! `UserId` becomes the template `{UserId}`), its items the samples. A
//! Workbench model has no access patterns, LSIs, multi-attribute keys, per-entity index
//! templates, tenants, TTL, stream or tags: exporting names each one a design has in a note.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{
    document, field_type, finish, first_table, names, parse_json, render, string, unrender, ConvertError,
    Imported,
};
use crate::model::{Design, FieldType, IndexKind, Projection};
use crate::settings::Billing;

/// Attribute names read as the entity-type attribute, in this order of preference.
const TYPE_ATTRS: [&str; 5] = ["EntityType", "entityType", "entity_type", "_type", "type"];

/// Stamp and TTL attribute names read as the design's conventions: the two presets'
/// (`Conventions::upper`/`lower`) and OneTable's default `created`/`updated`.
const STAMPS: [(&str, &[&str]); 4] = [
    ("created", &["CreatedAt", "createdOn", "created"]),
    ("updated", &["UpdatedAt", "updatedOn", "updated"]),
    ("created_by", &["CreatedBy", "createdBy"]),
    ("ttl", &["TTL", "ttl"]),
];

/// The prefix of the description that carries a design's names through an export.
const ORIGIN: &str = "monotable design ";

/// Whether a key alias is a key template: it has a placeholder or a `#`, or it is a constant
/// in capitals (`PROFILE`); anything else (`UserId`) names the attribute the key holds.
fn is_template(alias: &str) -> bool {
    alias.contains('{') || alias.contains('#') || !alias.chars().any(|c| c.is_lowercase())
}

fn key_name(keys: &Value, part: &str) -> Option<String> {
    keys.get(part)?.get("AttributeName")?.as_str().map(str::to_string)
}

/// The text of a scalar in DynamoDB JSON (`{"S": "x"}`, `{"N": "1"}`, `{"BOOL": true}`).
fn scalar(v: &Value) -> Option<String> {
    let (ty, inner) = v.as_object()?.iter().next()?;
    match (ty.as_str(), inner) {
        ("S" | "N", Value::String(s)) => Some(s.clone()),
        ("BOOL", Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads a Workbench model into a design (its first table).
pub fn from_workbench(text: &str) -> Result<Imported, ConvertError> {
    let model = parse_json(text)?;
    let mut notes = Vec::new();
    let table = first_table(&model, "DataModel", |t| t.get("TableName")?.as_str(), &mut notes)?;
    let table_name = string(table, "TableName", "the table")?;
    let description = model.pointer("/ModelMetadata/Description").and_then(Value::as_str).unwrap_or("");
    let origin: Vec<&str> =
        description.strip_prefix(ORIGIN).map(|s| s.split('/').collect()).unwrap_or_default();
    let names = match origin.as_slice() {
        [app, unit, model] => (app.to_string(), unit.to_string(), model.to_string()),
        _ => names(table_name, &mut notes),
    };
    let keys = table.get("KeyAttributes").unwrap_or(&Value::Null);
    let pk = key_name(keys, "PartitionKey")
        .ok_or_else(|| ConvertError::Format("the table has no partition key".into()))?;
    let sk = key_name(keys, "SortKey").ok_or_else(|| {
        ConvertError::Unsupported(format!(
            "table {table_name} has no sort key; a design's table has both (S1)"
        ))
    })?;
    // Non-key attributes with their types.
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    for a in table.get("NonKeyAttributes").and_then(Value::as_array).into_iter().flatten() {
        if let (Some(n), Some(t)) =
            (a.get("AttributeName").and_then(Value::as_str), a.get("AttributeType").and_then(Value::as_str))
        {
            types.insert(n.into(), t.into());
        }
    }
    let entity_type = TYPE_ATTRS.iter().find(|a| types.contains_key(**a)).map(|a| a.to_string());
    let entity_type = entity_type.unwrap_or_else(|| {
        notes.push("no entity-type attribute among the non-key attributes: EntityType assumed (S3)".into());
        "EntityType".into()
    });
    let mut conventions = json!({"pk": pk, "sk": sk, "entity_type": entity_type});
    let mut reserved = vec![pk.clone(), sk.clone(), entity_type.clone()];
    for (key, candidates) in STAMPS {
        if let Some(a) = candidates.iter().find(|a| types.contains_key(**a)) {
            conventions[key] = json!(a);
            reserved.push(a.to_string());
        }
    }
    let mut rest = Map::new();
    if table.get("BillingMode").and_then(Value::as_str) == Some("PROVISIONED") {
        let t = table.pointer("/ProvisionedCapacitySettings/ProvisionedThroughput");
        let units = |k: &str| t.and_then(|t| t.get(k)).and_then(Value::as_u64).unwrap_or(1);
        rest.insert(
            "table".into(),
            json!({"billing": {"provisioned": {"read": units("ReadCapacityUnits"), "write": units("WriteCapacityUnits")}}}),
        );
        if table.pointer("/ProvisionedCapacitySettings/AutoScalingRead").is_some() {
            notes.push("auto scaling not carried: a design has fixed provisioned capacity".into());
        }
    }
    let mut indexes = Vec::new();
    for i in table.get("GlobalSecondaryIndexes").and_then(Value::as_array).into_iter().flatten() {
        let name = string(i, "IndexName", "a global secondary index")?;
        let keys = i.get("KeyAttributes").unwrap_or(&Value::Null);
        let (Some(ipk), Some(isk)) = (key_name(keys, "PartitionKey"), key_name(keys, "SortKey")) else {
            notes.push(format!("index {name} not carried: a design's index has a sort key"));
            continue;
        };
        reserved.extend([ipk.clone(), isk.clone()]);
        let mut index = json!({"name": name, "kind": "gsi", "pk": ipk, "sk": isk});
        match i.pointer("/Projection/ProjectionType").and_then(Value::as_str) {
            Some("KEYS_ONLY") => index["projection"] = json!("keys_only"),
            Some("INCLUDE") => {
                let attrs = i.pointer("/Projection/NonKeyAttributes").cloned().unwrap_or(json!([]));
                index["projection"] = json!({"include": attrs});
            }
            _ => {}
        }
        indexes.push(index);
    }
    rest.insert("indexes".into(), Value::Array(indexes));
    let mut entities = Vec::new();
    for f in table.get("TableFacets").and_then(Value::as_array).into_iter().flatten() {
        let name = string(f, "FacetName", "a facet")?;
        let alias = |k: &str| f.pointer(&format!("/KeyAttributeAlias/{k}")).and_then(Value::as_str);
        let mut template = |a: Option<&str>, key: &str| {
            let t = match a {
                Some(a) if is_template(a) => return a.to_string(),
                Some(a) => format!("{{{a}}}"),
                None => format!("{{{key}}}"),
            };
            notes.push(format!("facet {name}: its {key} alias is a name, made the template {t}"));
            t
        };
        let (epk, esk) = (template(alias("PartitionKeyAlias"), &pk), template(alias("SortKeyAlias"), &sk));
        let mut fields: Vec<(String, Option<&'static str>)> = Vec::new();
        let add = |n: &str, fields: &mut Vec<(String, Option<&'static str>)>| {
            if !reserved.iter().any(|r| r == n) && !fields.iter().any(|(f, _)| f == n) {
                fields.push((n.to_string(), types.get(n).and_then(|t| field_type(t))));
            }
        };
        for t in [&epk, &esk] {
            if let Ok(t) = crate::template::Template::parse(t) {
                t.vars().for_each(|v| add(v, &mut fields));
            } else {
                notes.push(format!("facet {name}: {t} is not a key template the design accepts"));
            }
        }
        for a in f
            .get("NonKeyAttributes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            add(a, &mut fields);
        }
        let mut samples = Vec::new();
        for item in f.get("TableData").and_then(Value::as_array).into_iter().flatten() {
            let mut sample = BTreeMap::new();
            for (template, key) in [(&epk, &pk), (&esk, &sk)] {
                if let Some(vars) =
                    item.get(key.as_str()).and_then(scalar).and_then(|v| unrender(template, &v))
                {
                    sample.extend(vars);
                }
            }
            for (f, _) in &fields {
                if let Some(v) = item.get(f).and_then(scalar) {
                    sample.insert(f.clone(), v);
                }
            }
            samples.push(sample);
        }
        let fields: Vec<Value> = fields
            .into_iter()
            .map(|(n, t)| match t {
                Some(t) => json!({"name": n, "type": t}),
                None => json!({"name": n}),
            })
            .collect();
        let mut e = json!({"name": name, "pk": epk, "sk": esk, "fields": fields});
        if !samples.is_empty() {
            e["samples"] = json!(samples);
        }
        entities.push(e);
    }
    if entities.is_empty() {
        notes.push("no facets: the design has no entity types yet (S3)".into());
    }
    notes.push("no access patterns: a Workbench model has none; add them to the design (S7)".into());
    let mut doc = document(names, conventions, rest);
    doc["entities"] = Value::Array(entities);
    finish(doc, notes)
}

fn attribute(name: &str, ty: &str) -> Value {
    json!({"AttributeName": name, "AttributeType": ty})
}

/// A sample value in DynamoDB JSON, by the field's type.
fn item_value(ty: Option<FieldType>, v: &str) -> Value {
    match ty.map(FieldType::stored) {
        Some("N") => json!({"N": v}),
        Some("BOOL") => json!({"BOOL": v == "true"}),
        _ => json!({"S": v}),
    }
}

/// A design as a Workbench model (JSON text), and a note per thing the model cannot hold.
pub fn to_workbench(d: &Design) -> (String, Vec<String>) {
    let c = &d.conventions;
    let mut notes = Vec::new();
    let mut attrs: Vec<Value> = Vec::new();
    let mut seen = vec![c.pk.clone(), c.sk.clone()];
    let mut push = |name: &str, ty: &str, attrs: &mut Vec<Value>| {
        if !seen.iter().any(|s| s == name) {
            seen.push(name.to_string());
            attrs.push(attribute(name, ty));
        }
    };
    push(&c.entity_type, "S", &mut attrs);
    for a in [&c.created, &c.updated, &c.created_by].into_iter().flatten() {
        push(a, "S", &mut attrs);
    }
    if let Some(ttl) = &c.ttl {
        push(ttl, "N", &mut attrs);
    }
    let mut gsis = Vec::new();
    for i in &d.indexes {
        if i.kind == IndexKind::Lsi {
            notes.push(format!(
                "index {} not carried: a Workbench model has no local secondary indexes",
                i.name
            ));
            continue;
        }
        if i.is_multi_key() {
            notes
                .push(format!("index {} not carried: a Workbench model has no multi-attribute keys", i.name));
            continue;
        }
        let (ipk, isk) = (i.pk.as_ref().map(ToString::to_string).unwrap_or_default(), i.sk.to_string());
        push(&ipk, "S", &mut attrs);
        push(&isk, "S", &mut attrs);
        let projection = match &i.projection {
            Projection::All => json!({"ProjectionType": "ALL"}),
            Projection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
            Projection::Include(a) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": a}),
        };
        gsis.push(json!({"IndexName": i.name, "KeyAttributes": {"PartitionKey": attribute(&ipk, "S"),
            "SortKey": attribute(&isk, "S")}, "Projection": projection}));
    }
    let mut facets = Vec::new();
    for e in &d.entities {
        // A field of unknown type is named by its facets only, so that it reads back untyped.
        for f in &e.fields {
            if let Some(ty) = f.ty {
                push(f.attr(), ty.stored(), &mut attrs);
            }
        }
        let names: Vec<&str> = e.fields.iter().map(|f| f.attr()).collect();
        let data: Vec<Value> = e
            .samples
            .iter()
            .map(|s| {
                let mut item = Map::new();
                for (template, key) in [(&e.pk, &c.pk), (&e.sk, &c.sk)] {
                    if let Some(v) = render(template, s) {
                        item.insert(key.clone(), json!({"S": v}));
                    }
                }
                // The keys on exported GSIs, so that Workbench shows the items in its GSI view.
                for (name, keys) in &e.indexes {
                    let Some(i) = d.index(name).filter(|i| i.kind == IndexKind::Gsi && !i.is_multi_key())
                    else {
                        continue;
                    };
                    let parts = [
                        (keys.pk.as_ref(), i.pk.as_ref().map(ToString::to_string)),
                        (keys.sk.as_ref(), Some(i.sk.to_string())),
                    ];
                    for (template, attr) in parts {
                        if let (Some(v), Some(attr)) = (template.and_then(|t| render(t, s)), attr) {
                            item.insert(attr, json!({"S": v}));
                        }
                    }
                }
                item.insert(c.entity_type.clone(), json!({"S": e.name}));
                for f in &e.fields {
                    if let Some(v) = s.get(&f.name) {
                        item.insert(f.attr().to_string(), item_value(f.ty, v));
                    }
                }
                Value::Object(item)
            })
            .collect();
        facets.push(json!({"FacetName": e.name, "KeyAttributeAlias": {"PartitionKeyAlias": e.pk, "SortKeyAlias": e.sk},
            "TableData": data, "NonKeyAttributes": names}));
        for (index, _) in e.indexes.iter().filter(|(i, _)| d.index(i).is_some()) {
            notes.push(format!(
                "entity {}: its key templates on {index} not carried, only the keys of its samples (a facet has only the table's keys)",
                e.name
            ));
        }
        let mut lost = Vec::new();
        if e.tenant.is_some() {
            lost.push("tenant");
        }
        if !e.unique.is_empty() {
            lost.push("unique fields");
        }
        if e.version_field.is_some() {
            lost.push("version field");
        }
        if e.ttl.is_some() {
            lost.push("TTL field");
        }
        if !lost.is_empty() {
            notes.push(format!("entity {}: {} not carried", e.name, lost.join(", ")));
        }
    }
    if !d.access_patterns.is_empty() {
        notes.push(format!(
            "{} access patterns not carried: a Workbench model has none",
            d.access_patterns.len()
        ));
    }
    if d.table.stream.is_some() || !d.table.tags.is_empty() || !d.table.deletion_protection {
        notes.push("table stream, tags and deletion protection not carried".into());
    }
    let mut table = json!({
        "TableName": d.table_name("dev"),
        "KeyAttributes": {"PartitionKey": attribute(&c.pk, "S"), "SortKey": attribute(&c.sk, "S")},
        "NonKeyAttributes": attrs,
        "TableFacets": facets,
        "GlobalSecondaryIndexes": gsis,
        "DataAccess": {"MySql": {}},
        "BillingMode": "PAY_PER_REQUEST",
    });
    if let Billing::Provisioned { read, write } = d.table.billing {
        table["BillingMode"] = json!("PROVISIONED");
        table["ProvisionedCapacitySettings"] =
            json!({"ProvisionedThroughput": {"ReadCapacityUnits": read, "WriteCapacityUnits": write}});
    }
    let model = json!({
        "ModelName": d.model,
        "ModelMetadata": {"Author": "", "DateCreated": "", "DateLastModified": "",
            "Description": format!("{ORIGIN}{}/{}/{}", d.app, d.unit, d.model), "AWSService": "Amazon DynamoDB", "Version": "3.0"},
        "DataModel": [table],
    });
    (serde_json::to_string_pretty(&model).unwrap_or_default() + "\n", notes)
}
