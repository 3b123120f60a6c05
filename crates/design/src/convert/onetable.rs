//! A OneTable schema in its JSON form ("OneTable Schema Specification", version 1.1.0,
//! `doc/schema-1.1.0.md` of github.com/sensedeep/dynamodb-onetable; the library's README,
//! "Schemas", for `params.timestamps`, `createdField`, `updatedField` and the `map`, `unique`
//! and `ttl` field properties).
//!
//! The schema: `indexes` (`primary` and others: `hash`, `sort`, `project` = `all`, `keys` or a
//! list, `type: local` for an LSI), `models` (entity name → field name → `type`, `value`
//! template with `${field}` references, `required`, `unique`, `map`, `enum`, …), `params`
//! (`typeField`, default `_type`; `isoDates`; `timestamps`), `queries` (saved queries: `index`,
//! `model`, `type` Query/Scan/Entity, sort-key `operation`) and `items`.
//!
//! Mapping: a model is an entity type; its fields named after an index's key attributes hold
//! its key templates (`${x}` → `{x}`, `${_type}` → the model's name); a saved query becomes an
//! access pattern on the model's keys; items of a model become its samples.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{document, finish, parse_json, ConvertError, Imported};
use crate::template::Template;

/// A OneTable `value` template in the design's syntax, and a note if it had to change more
/// than its brackets.
fn template(value: &str, model: &str, type_field: &str, notes: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else { break };
        let inner = &rest[start + 2..start + end];
        let name = inner.split(':').next().unwrap_or(inner);
        if name != inner {
            notes.push(format!("model {model}: padding of ${{{inner}}} not carried"));
        }
        if name == type_field {
            out.push_str(model);
        } else {
            out.push('{');
            out.push_str(name);
            out.push('}');
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    if let Err(e) = Template::parse(&out) {
        notes.push(format!("model {model}: {e} (OneTable allows it; the design's lint reports it)"));
    }
    out
}

fn field_type(t: &str, iso_dates: bool, has_enum: bool) -> Option<&'static str> {
    Some(match t.to_ascii_lowercase().as_str() {
        "string" if has_enum => "enum",
        "string" => "string",
        "number" => "number",
        "boolean" => "bool",
        "binary" | "buffer" => "binary",
        "date" if iso_dates => "timestamp",
        "date" => "number",
        "array" => "list",
        "object" => "map",
        _ => return None,
    })
}

/// Saved-query sort-key operations and the design's `SortOp` (spec, "Queries").
const OPERATIONS: [(&str, &str); 7] = [
    ("Equal", "eq"),
    ("Less than", "lt"),
    ("Less than or equal", "le"),
    ("Greater than or equal", "ge"),
    ("Greater than", "gt"),
    ("Begins with", "begins_with"),
    ("Between", "between"),
];

/// Reads a OneTable schema (JSON) into a design.
pub fn from_onetable(text: &str) -> Result<Imported, ConvertError> {
    let schema = parse_json(text)?;
    let mut notes = Vec::new();
    let indexes = schema
        .get("indexes")
        .and_then(Value::as_object)
        .ok_or_else(|| ConvertError::Format("no `indexes` map".into()))?;
    let primary =
        indexes.get("primary").ok_or_else(|| ConvertError::Format("`indexes` has no `primary`".into()))?;
    let pk = primary
        .get("hash")
        .and_then(Value::as_str)
        .ok_or_else(|| ConvertError::Format("`indexes.primary` has no `hash`".into()))?;
    let sk = primary.get("sort").and_then(Value::as_str).ok_or_else(|| {
        ConvertError::Unsupported(
            "`indexes.primary` has no `sort`; a design's table has both keys (S1)".into(),
        )
    })?;
    let models = schema
        .get("models")
        .and_then(Value::as_object)
        .ok_or_else(|| ConvertError::Format("no `models` map".into()))?;
    let params = schema.get("params").cloned().unwrap_or(json!({}));
    let param = |k: &str| params.get(k).and_then(Value::as_str);
    let type_field = param("typeField").unwrap_or("_type").to_string();
    let iso_dates = params.get("isoDates").and_then(Value::as_bool).unwrap_or(false);
    let mut conventions = json!({"pk": pk, "sk": sk, "entity_type": type_field});
    if params.get("timestamps").is_some_and(|t| t.as_bool() != Some(false)) {
        conventions["created"] = json!(param("createdField").unwrap_or("created"));
        conventions["updated"] = json!(param("updatedField").unwrap_or("updated"));
    }
    // Secondary indexes; key attribute → (index, which part).
    let mut keys: BTreeMap<String, (String, &str)> = BTreeMap::new();
    keys.insert(pk.into(), ("table".into(), "pk"));
    keys.insert(sk.into(), ("table".into(), "sk"));
    let mut out_indexes = Vec::new();
    for (name, i) in indexes.iter().filter(|(n, _)| *n != "primary") {
        let local = i.get("type").and_then(Value::as_str) == Some("local");
        let (Some(isk), hash) =
            (i.get("sort").and_then(Value::as_str), i.get("hash").and_then(Value::as_str))
        else {
            notes.push(format!("index {name} not carried: a design's index has a sort key"));
            continue;
        };
        let mut index = json!({"name": name, "kind": if local { "lsi" } else { "gsi" }, "sk": isk});
        keys.insert(isk.into(), (name.clone(), "sk"));
        if let (false, Some(h)) = (local, hash) {
            index["pk"] = json!(h);
            keys.insert(h.into(), (name.clone(), "pk"));
        }
        match i.get("project") {
            Some(Value::String(s)) if s == "keys" => index["projection"] = json!("keys_only"),
            Some(Value::Array(a)) => index["projection"] = json!({"include": a}),
            _ => {}
        }
        if i.get("follow").and_then(Value::as_bool) == Some(true) {
            notes.push(format!("index {name}: `follow` (read the full item after the index) not carried"));
        }
        out_indexes.push(index);
    }
    let mut entities = Vec::new();
    for (model, fields) in models {
        let fields =
            fields.as_object().ok_or_else(|| ConvertError::Format(format!("model {model} is not a map")))?;
        let mut e = json!({"name": model, "pk": "", "sk": ""});
        let mut index_keys: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
        let mut out_fields = Vec::new();
        let mut unique = Vec::new();
        for (name, f) in fields {
            let value = f.get("value").and_then(Value::as_str);
            if let Some((index, part)) = keys.get(name) {
                let Some(v) = value else {
                    notes.push(format!(
                        "model {model}: key attribute {name} has no `value` template; made {{{name}}}"
                    ));
                    let t = format!("{{{name}}}");
                    if index == "table" {
                        e[*part] = json!(t)
                    } else {
                        index_keys.entry(index.clone()).or_default().insert(part.to_string(), json!(t));
                    }
                    continue;
                };
                let t = template(v, model, &type_field, &mut notes);
                if index == "table" {
                    e[*part] = json!(t);
                } else {
                    index_keys.entry(index.clone()).or_default().insert(part.to_string(), json!(t));
                }
                continue;
            }
            if *name == type_field {
                continue;
            }
            let mut field = json!({"name": name});
            let ty = f.get("type").and_then(Value::as_str).unwrap_or("string");
            match field_type(ty, iso_dates, f.get("enum").is_some()) {
                Some(t) => field["type"] = json!(t),
                None => notes.push(format!("model {model}: field {name} of type {ty} has no design type")),
            }
            if let Some(map) = f.get("map").and_then(Value::as_str) {
                if map.contains('.') {
                    notes.push(format!("model {model}: field {name} packed into {map}; not carried"));
                } else {
                    field["attr"] = json!(map);
                }
            }
            if f.get("unique").and_then(Value::as_bool) == Some(true) {
                unique.push(name.clone());
            }
            if f.get("ttl").and_then(Value::as_bool) == Some(true) {
                e["ttl"] = json!(name);
                if conventions.get("ttl").is_none() {
                    conventions["ttl"] = json!(f.get("map").and_then(Value::as_str).unwrap_or(name));
                }
            }
            if value.is_some() {
                notes.push(format!("model {model}: field {name} is computed from a template in OneTable; kept as a plain field"));
            }
            out_fields.push(field);
        }
        for part in ["pk", "sk"] {
            if e[part] == "" {
                return Err(ConvertError::Unsupported(format!(
                    "model {model} has no `value` for the table's {part} attribute"
                )));
            }
        }
        if !index_keys.is_empty() {
            e["indexes"] = json!(index_keys);
        }
        e["fields"] = Value::Array(out_fields);
        if !unique.is_empty() {
            e["unique"] = json!(unique);
        }
        if conventions.get("created").is_none() {
            e["stamps"] = json!(false);
        }
        entities.push(e);
    }
    let mut samples: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for item in schema.get("items").and_then(Value::as_array).into_iter().flatten() {
        let Some(model) = item.get(&type_field).and_then(Value::as_str) else {
            notes.push(format!("an item without `{type_field}` not carried"));
            continue;
        };
        let sample: Map<String, Value> = item
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k != &type_field && !keys.contains_key(*k))
            .filter_map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(_) | Value::Bool(_) => v.to_string(),
                    _ => return None,
                };
                Some((k.clone(), json!(text)))
            })
            .collect();
        samples.entry(model.to_string()).or_default().push(Value::Object(sample));
    }
    for e in &mut entities {
        if let Some(s) = e["name"].as_str().and_then(|n| samples.remove(n)) {
            e["samples"] = json!(s);
        }
    }
    let mut patterns = Vec::new();
    for (name, q) in schema.get("queries").and_then(Value::as_object).into_iter().flatten() {
        let index = q.get("index").and_then(Value::as_str).unwrap_or("primary");
        let index = if index == "primary" { "table" } else { index };
        let model = q.get("model").and_then(Value::as_str);
        let entity = model.and_then(|m| entities.iter().find(|e| e["name"] == m));
        let kind = q.get("type").and_then(Value::as_str).unwrap_or("Query");
        let mut p = json!({"name": name, "entities": model.into_iter().collect::<Vec<_>>(), "index": index,
            "operation": "query", "scope": "admin"});
        let keys = entity.map(|e| if index == "table" { e.clone() } else { e["indexes"][index].clone() });
        match (kind, keys) {
            ("Scan", _) => notes.push(format!("query {name}: a Scan; the pattern has no key (S9)")),
            (_, Some(k)) if k["pk"].is_string() => {
                let mut key = json!({"pk": k["pk"]});
                let op = q.get("operation").and_then(Value::as_str);
                if let (Some((_, op)), Some(skt)) =
                    (OPERATIONS.iter().find(|(o, _)| Some(*o) == op), k["sk"].as_str())
                {
                    let value = if *op == "begins_with" {
                        Template::parse(skt).map(|t| t.literal_prefix()).unwrap_or_default()
                    } else {
                        skt.to_string()
                    };
                    key["sk"] = json!({"op": op, "value": value});
                }
                p["key"] = key;
            }
            _ => notes.push(format!("query {name}: no model with keys on {index}; the pattern has no key")),
        }
        if q.get("filters").is_some() || q.get("limit").is_some() {
            notes.push(format!("query {name}: filters and limit not carried"));
        }
        patterns.push(p);
    }
    if patterns.is_empty() {
        notes.push("no saved queries: the design has no access patterns; add them (S7)".into());
    } else {
        notes.push("every access pattern is admin-only (S14) until its entity type gets a tenant field (S12); a OneTable schema has neither".into());
    }
    let table = schema.get("description").and_then(Value::as_str);
    let name = models.keys().next().map(|m| m.to_ascii_lowercase()).unwrap_or_else(|| "main".into());
    notes.push(format!("app, unit and model are all named {name}; rename them (S19)"));
    if let Some(t) = table {
        notes.push(format!("description not carried: {t}"));
    }
    let mut rest = Map::new();
    rest.insert("indexes".into(), Value::Array(out_indexes));
    rest.insert("access_patterns".into(), Value::Array(patterns));
    let mut doc = document((name.clone(), name.clone(), name), conventions, rest);
    doc["entities"] = Value::Array(entities);
    finish(doc, notes)
}
