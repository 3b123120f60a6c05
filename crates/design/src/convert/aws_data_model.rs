//! AWS's DynamoDB data-model JSON: the files of the DynamoDB MCP server's data-modeling tools
//! (github.com/awslabs/mcp, `src/dynamodb-mcp-server`), in either of its two documented forms:
//!
//! * `dynamodb_data_model.json`, which its validation tool reads
//!   (`awslabs/dynamodb_mcp_server/prompts/json_generation_guide.md`): `tables` in CreateTable
//!   form (`TableName`, `KeySchema`, `AttributeDefinitions`, `GlobalSecondaryIndexes` with
//!   multi-attribute keys as several `HASH`/`RANGE` elements, `BillingMode`), `items` in
//!   BatchWriteItem form and `access_patterns` (`pattern`, `description`, `table`, `index`,
//!   `dynamodb_operation`, `implementation` as an aws CLI command);
//! * `schema.json`, which its code generator reads
//!   (`awslabs/dynamodb_mcp_server/prompts/dynamodb_schema_generator.md`): `tables` of
//!   `table_config` (`table_name`, `partition_key`, `sort_key`), `gsi_list` and `entities`, each
//!   entity with `pk_template`/`sk_template` in the design's `{field}` syntax, `gsi_mappings`,
//!   typed `fields` and `access_patterns` (`operation`, `index_name`, `range_condition`).
//!
//! The first holds no entity types or key templates, so a design read from it has indexes and
//! patterns without keys (the notes say so); the second maps onto a design almost one to one.

use serde_json::{json, Map, Value};

use super::{document, finish, first_table, names, parse_json, string, ConvertError, Imported};
use crate::template::Template;

/// DynamoDB operation names and the design's `Operation`.
const OPERATIONS: [(&str, &str); 9] = [
    ("GetItem", "get"),
    ("Query", "query"),
    ("PutItem", "put"),
    ("UpdateItem", "update"),
    ("DeleteItem", "delete"),
    ("TransactWriteItems", "transact_write"),
    ("BatchGetItem", "batch_get"),
    ("BatchWriteItem", "batch_write"),
    ("Scan", "query"),
];

/// `range_condition` values and the design's `SortOp`.
const RANGES: [(&str, &str); 6] = [
    ("begins_with", "begins_with"),
    ("between", "between"),
    (">=", "ge"),
    ("<=", "le"),
    (">", "gt"),
    ("<", "lt"),
];

const SCOPE_NOTE: &str = "every access pattern is admin-only (S14) until its entity type gets a tenant field (S12); neither form has either";

/// Reads either form of the data-model JSON into a design (its first table).
pub fn from_aws_data_model(text: &str) -> Result<Imported, ConvertError> {
    let model = parse_json(text)?;
    let mut notes = Vec::new();
    let table = first_table(&model, "tables", table_name, &mut notes)?;
    if table.get("table_config").is_some() {
        schema_form(table, notes)
    } else {
        data_model_form(&model, table, notes)
    }
}

/// A table's name in either form.
fn table_name(t: &Value) -> Option<&str> {
    t.get("TableName").or_else(|| t.pointer("/table_config/table_name"))?.as_str()
}

/// The attributes of the `HASH` and `RANGE` elements of a `KeySchema`.
fn key_schema(v: &Value) -> (Vec<String>, Vec<String>) {
    let mut out = (Vec::new(), Vec::new());
    for e in v.get("KeySchema").and_then(Value::as_array).into_iter().flatten() {
        let name = e.get("AttributeName").and_then(Value::as_str).unwrap_or_default().to_string();
        match e.get("KeyType").and_then(Value::as_str) {
            Some("HASH") => out.0.push(name),
            Some("RANGE") => out.1.push(name),
            _ => {}
        }
    }
    out
}

/// One attribute as a string, several as a list (the design's `KeyAttrs` form).
fn attrs(list: Vec<String>) -> Value {
    match <[String; 1]>::try_from(list) {
        Ok([one]) => json!(one),
        Err(list) => json!(list),
    }
}

fn projection(p: Option<&Value>) -> Option<Value> {
    match p?.get("ProjectionType")?.as_str()? {
        "KEYS_ONLY" => Some(json!("keys_only")),
        "INCLUDE" => Some(json!({"include": p?.get("NonKeyAttributes").cloned().unwrap_or(json!([]))})),
        _ => None,
    }
}

/// A pattern name from an id and a description: `3-list-orders-of-a-user`.
fn slug(id: &str, description: &str) -> String {
    let words: Vec<String> = description
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    if words.is_empty() {
        format!("pattern-{id}")
    } else {
        format!("{id}-{}", words.join("-"))
    }
}

fn data_model_form(model: &Value, table: &Value, mut notes: Vec<String>) -> Result<Imported, ConvertError> {
    let name = string(table, "TableName", "the table")?;
    let names = names(name, &mut notes);
    let (pk, sk) = key_schema(table);
    let (Some(pk), Some(sk)) = (pk.first(), sk.first()) else {
        return Err(ConvertError::Unsupported(format!(
            "table {name} lacks a partition or sort key; a design's table has both (S1)"
        )));
    };
    notes.push("EntityType assumed as the entity-type attribute (S3); this form names none".into());
    let conventions = json!({"pk": pk, "sk": sk, "entity_type": "EntityType"});
    let mut indexes = Vec::new();
    for (list, kind) in [("GlobalSecondaryIndexes", "gsi"), ("LocalSecondaryIndexes", "lsi")] {
        for i in table.get(list).and_then(Value::as_array).into_iter().flatten() {
            let iname = string(i, "IndexName", "an index")?;
            let (ipk, isk) = key_schema(i);
            if isk.is_empty() {
                notes.push(format!("index {iname} not carried: a design's index has a sort key"));
                continue;
            }
            let mut index = json!({"name": iname, "kind": kind, "sk": attrs(isk)});
            if kind == "gsi" {
                index["pk"] = attrs(ipk);
            }
            if let Some(p) = projection(i.get("Projection")) {
                index["projection"] = p;
            }
            indexes.push(index);
        }
    }
    let numbers: Vec<&str> = table
        .get("AttributeDefinitions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|a| a.get("AttributeType").and_then(Value::as_str) != Some("S"))
        .filter_map(|a| a.get("AttributeName").and_then(Value::as_str))
        .collect();
    if !numbers.is_empty() {
        notes.push(format!(
            "key attributes not of type S ({}): a design types them through entity fields; declare those",
            numbers.join(", ")
        ));
    }
    let mut rest = Map::new();
    if table.get("BillingMode").and_then(Value::as_str) == Some("PROVISIONED") {
        let units = |k: &str| {
            table.pointer(&format!("/ProvisionedThroughput/{k}")).and_then(Value::as_u64).unwrap_or(1)
        };
        rest.insert("table".into(), json!({"billing": {"provisioned": {"read": units("ReadCapacityUnits"), "write": units("WriteCapacityUnits")}}}));
    }
    let items = model.pointer(&format!("/items/{}", name.replace('~', "~0").replace('/', "~1")));
    if let Some(n) = items.and_then(Value::as_array).map(Vec::len).filter(|n| *n > 0) {
        notes.push(format!(
            "{n} items not carried: samples belong to entity types, which this form does not name"
        ));
    }
    let mut patterns = Vec::new();
    for p in model.get("access_patterns").and_then(Value::as_array).into_iter().flatten() {
        let id = p
            .get("pattern")
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .unwrap_or_default();
        let description = p.get("description").and_then(Value::as_str).unwrap_or_default();
        let pname = slug(&id, description);
        let Some(op) = p.get("dynamodb_operation").and_then(Value::as_str) else {
            notes.push(format!(
                "pattern {pname} not carried: no DynamoDB operation ({})",
                p.get("reason").and_then(Value::as_str).unwrap_or("external")
            ));
            continue;
        };
        if p.get("table").and_then(Value::as_str).is_some_and(|t| t != name) {
            notes.push(format!("pattern {pname} not carried: it is on another table"));
            continue;
        }
        let Some((_, operation)) = OPERATIONS.iter().find(|(o, _)| *o == op) else {
            notes.push(format!("pattern {pname} not carried: operation {op} has no design operation"));
            continue;
        };
        let index = p.get("index").and_then(Value::as_str).unwrap_or("table");
        notes.push(format!(
            "pattern {pname}: no entity types or key condition in this form; add them (its command: {})",
            p.get("implementation").and_then(Value::as_str).unwrap_or("none")
        ));
        patterns.push(
            json!({"name": pname, "entities": [], "index": index, "operation": operation, "scope": "admin"}),
        );
    }
    if !patterns.is_empty() {
        notes.push(SCOPE_NOTE.into());
    }
    notes.push("no entity types: this form has none; add them with their key templates (S3)".into());
    rest.insert("indexes".into(), Value::Array(indexes));
    rest.insert("access_patterns".into(), Value::Array(patterns));
    finish(document(names, conventions, rest), notes)
}

fn field_type(t: &str) -> Option<&'static str> {
    Some(match t {
        "string" | "uuid" => "string",
        "integer" | "decimal" => "number",
        "boolean" => "bool",
        "array" => "list",
        "object" => "map",
        _ => return None,
    })
}

fn schema_form(table: &Value, mut notes: Vec<String>) -> Result<Imported, ConvertError> {
    let config = &table["table_config"];
    let name = string(config, "table_name", "`table_config`")?;
    let names = names(name, &mut notes);
    let pk = string(config, "partition_key", "`table_config`")?;
    let sk = config.get("sort_key").and_then(Value::as_str).ok_or_else(|| {
        ConvertError::Unsupported(format!("table {name} has no sort key; a design's table has both (S1)"))
    })?;
    notes.push(
        "EntityType assumed as the entity-type attribute (S3); entity_type prefixes are not carried".into(),
    );
    let conventions = json!({"pk": pk, "sk": sk, "entity_type": "EntityType"});
    let mut indexes = Vec::new();
    for i in table.get("gsi_list").and_then(Value::as_array).into_iter().flatten() {
        let iname = string(i, "name", "a GSI")?;
        let (Some(ipk), Some(isk)) =
            (i.get("partition_key").and_then(Value::as_str), i.get("sort_key").and_then(Value::as_str))
        else {
            notes.push(format!("index {iname} not carried: a design's index has a sort key"));
            continue;
        };
        let mut index = json!({"name": iname, "kind": "gsi", "pk": ipk, "sk": isk});
        match i.get("projection").and_then(Value::as_str) {
            Some("KEYS_ONLY") => index["projection"] = json!("keys_only"),
            Some("INCLUDE") => {
                index["projection"] =
                    json!({"include": i.get("included_attributes").cloned().unwrap_or(json!([]))})
            }
            _ => {}
        }
        indexes.push(index);
    }
    let known: Vec<String> = indexes.iter().filter_map(|i| i["name"].as_str().map(str::to_string)).collect();
    let mut entities = Vec::new();
    let mut patterns = Vec::new();
    let entity_map = table
        .get("entities")
        .and_then(Value::as_object)
        .ok_or_else(|| ConvertError::Format("the table has no `entities` map".into()))?;
    for (ename, e) in entity_map {
        let epk = string(e, "pk_template", &format!("entity {ename}"))?;
        let Some(esk) = e.get("sk_template").and_then(Value::as_str) else {
            notes.push(format!("entity {ename} not carried: it has no sort-key template"));
            continue;
        };
        let mut gsi = Map::new();
        for m in e.get("gsi_mappings").and_then(Value::as_array).into_iter().flatten() {
            let (Some(iname), Some(ipk)) =
                (m.get("name").and_then(Value::as_str), m.get("pk_template").and_then(Value::as_str))
            else {
                continue;
            };
            if !known.iter().any(|k| k == iname) {
                notes.push(format!("entity {ename}: mapping on {iname} not carried (no such index here)"));
                continue;
            }
            let mut k = json!({"pk": ipk});
            if let Some(isk) = m.get("sk_template").and_then(Value::as_str) {
                k["sk"] = json!(isk);
            }
            gsi.insert(iname.into(), k);
        }
        for t in [epk, esk]
            .into_iter()
            .chain(gsi.values().flat_map(|k| [k["pk"].as_str(), k["sk"].as_str()]).flatten())
        {
            if let Err(err) = Template::parse(t) {
                notes.push(format!("entity {ename}: {err} (the design's lint reports it)"));
            }
        }
        let mut fields = Vec::new();
        for f in e.get("fields").and_then(Value::as_array).into_iter().flatten() {
            let fname = string(f, "name", &format!("a field of {ename}"))?;
            let ty = f.get("type").and_then(Value::as_str).unwrap_or("string");
            let mut field = json!({"name": fname});
            match field_type(ty) {
                Some(t) => field["type"] = json!(t),
                None => notes.push(format!("entity {ename}: field {fname} of type {ty} has no design type")),
            }
            fields.push(field);
        }
        let mut entity = json!({"name": ename, "pk": epk, "sk": esk, "fields": fields});
        if !gsi.is_empty() {
            entity["indexes"] = Value::Object(gsi.clone());
        }
        for p in e.get("access_patterns").and_then(Value::as_array).into_iter().flatten() {
            let pname = string(p, "name", &format!("an access pattern of {ename}"))?;
            let op = p.get("operation").and_then(Value::as_str).unwrap_or_default();
            let Some((_, operation)) = OPERATIONS.iter().find(|(o, _)| *o == op) else {
                notes.push(format!("pattern {pname} not carried: operation {op} has no design operation"));
                continue;
            };
            let index = p.get("index_name").and_then(Value::as_str).unwrap_or("table");
            let (ipk, isk) = if index == "table" {
                (Some(epk), Some(esk))
            } else {
                let k = gsi.get(index);
                (k.and_then(|k| k["pk"].as_str()), k.and_then(|k| k["sk"].as_str()))
            };
            let mut pattern = json!({"name": pname, "entities": [ename], "index": index, "operation": operation, "scope": "admin"});
            match (op, ipk) {
                ("Scan", _) => notes.push(format!("pattern {pname}: a Scan; it has no key (S9)")),
                (_, None) => notes.push(format!("pattern {pname}: entity {ename} has no keys on {index}")),
                (_, Some(ipk)) => {
                    let mut key = json!({"pk": ipk});
                    let range = p.get("range_condition").and_then(Value::as_str);
                    match (range.and_then(|r| RANGES.iter().find(|(c, _)| *c == r)), isk) {
                        (Some((_, "begins_with")), Some(isk)) => {
                            let prefix = Template::parse(isk).map(|t| t.literal_prefix()).unwrap_or_default();
                            key["sk"] = json!({"op": "begins_with", "value": prefix});
                        }
                        (Some((_, sop)), Some(isk)) => key["sk"] = json!({"op": sop, "value": isk}),
                        (None, Some(isk)) if op != "Query" && index == "table" => {
                            key["sk"] = json!({"op": "eq", "value": isk})
                        }
                        _ => {}
                    }
                    pattern["key"] = key;
                }
            }
            if p.get("return_type").and_then(Value::as_str) == Some("mixed_data") {
                pattern["collection"] = json!(true);
            }
            patterns.push(pattern);
        }
        entities.push(entity);
    }
    if !patterns.is_empty() {
        notes.push(SCOPE_NOTE.into());
    }
    let mut rest = Map::new();
    rest.insert("indexes".into(), Value::Array(indexes));
    rest.insert("access_patterns".into(), Value::Array(patterns));
    let mut doc = document(names, conventions, rest);
    doc["entities"] = Value::Array(entities);
    finish(doc, notes)
}
