//! Designs from and to other tools' formats: NoSQL Workbench's data model (import and
//! export), a OneTable schema and AWS's DynamoDB data-model JSON (import). One file per
//! format, each citing the public documentation it follows.
//!
//! Invariant: an importer builds the design as a JSON document and reads it with
//! [`Design::from_json`], so a design it returns is one the document format accepts; whatever
//! the source holds that a design cannot carry is named in [`Imported::notes`], never dropped
//! silently. The same holds for the notes of [`to_workbench`].

mod aws_data_model;
mod onetable;
mod workbench;

pub use aws_data_model::from_aws_data_model;
pub use onetable::from_onetable;
pub use workbench::{from_workbench, to_workbench};

use serde_json::{json, Map, Value};

use crate::model::Design;
use crate::template::{Part, Template};

/// A source file could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConvertError {
    /// The text is not JSON.
    Json(String),
    /// The JSON is not a document of the format: what is missing or malformed, where.
    Format(String),
    /// The source describes something no design can hold (e.g. a table without a sort key).
    Unsupported(String),
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertError::Json(m) => write!(f, "not JSON: {m}"),
            ConvertError::Format(m) => write!(f, "not a document of this format: {m}"),
            ConvertError::Unsupported(m) => write!(f, "cannot be a design: {m}"),
        }
    }
}

impl std::error::Error for ConvertError {}

/// A converted design, and one note per thing of the source it could not carry over.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The design.
    pub design: Design,
    /// What was left out or guessed, one sentence each.
    pub notes: Vec<String>,
}

fn parse_json(text: &str) -> Result<Value, ConvertError> {
    serde_json::from_str(text).map_err(|e| ConvertError::Json(e.to_string()))
}

/// A string member, or a format error naming `what`.
fn string<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a str, ConvertError> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ConvertError::Format(format!("{what} has no string `{key}`")))
}

/// The first table of the list under `key`, and a note for each other one (a design is one
/// table); `name` finds a table's name.
fn first_table<'a>(
    doc: &'a Value,
    key: &str,
    name: fn(&Value) -> Option<&str>,
    notes: &mut Vec<String>,
) -> Result<&'a Value, ConvertError> {
    let tables = doc
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| ConvertError::Format(format!("no `{key}` list of tables")))?;
    let table = tables.first().ok_or_else(|| ConvertError::Format(format!("`{key}` has no table")))?;
    for other in &tables[1..] {
        notes.push(format!("table {} not carried: a design is one table (S1)", name(other).unwrap_or("?")));
    }
    Ok(table)
}

/// Reads the design document an importer built (see the module invariant).
fn finish(doc: Value, notes: Vec<String>) -> Result<Imported, ConvertError> {
    let design = Design::from_json(&doc.to_string()).map_err(|e| ConvertError::Format(e.to_string()))?;
    Ok(Imported { design, notes })
}

/// `app`, `unit` and `model` from a table name `<app>-<stage>-<model>` (S19), or the whole
/// name for all three.
fn names(table: &str, notes: &mut Vec<String>) -> (String, String, String) {
    let parts: Vec<&str> = table.split('-').collect();
    if parts.len() >= 3 && parts.iter().all(|p| !p.is_empty()) {
        let (app, model) = (parts[0], parts[parts.len() - 1]);
        notes.push(format!(
            "table {table}: read as app {app}, stage {}, model {model}; the unit is named {model}",
            parts[1..parts.len() - 1].join("-")
        ));
        return (app.into(), model.into(), model.into());
    }
    notes.push(format!("table {table}: app, unit and model are all named {table}; rename them (S19)"));
    (table.into(), table.into(), table.into())
}

/// The design field type of a DynamoDB attribute type (`S`, `N`, …); sets have none.
fn field_type(dynamo: &str) -> Option<&'static str> {
    Some(match dynamo {
        "S" => "string",
        "N" => "number",
        "B" => "binary",
        "BOOL" => "bool",
        "L" => "list",
        "M" => "map",
        _ => return None,
    })
}

/// A design document with the given parts; empty lists are left out.
fn document(names: (String, String, String), conventions: Value, rest: Map<String, Value>) -> Value {
    let mut doc = json!({"version": 1, "app": names.0, "unit": names.1, "model": names.2,
        "conventions": conventions, "entities": []});
    for (k, v) in rest {
        let empty = v.as_array().is_some_and(Vec::is_empty) || v.as_object().is_some_and(Map::is_empty);
        if !empty {
            doc[k] = v;
        }
    }
    doc
}

/// The field values a key value was rendered from, if it matches the template: a placeholder
/// takes the text up to the literal that follows it (which starts with `#`) or the end.
fn unrender(template: &str, value: &str) -> Option<Vec<(String, String)>> {
    let t = Template::parse(template).ok()?;
    let mut rest = value;
    let mut out = Vec::new();
    for (n, part) in t.parts.iter().enumerate() {
        match part {
            Part::Lit(l) => rest = rest.strip_prefix(l)?,
            Part::Var(v) => {
                let end = match t.parts.get(n + 1) {
                    Some(Part::Lit(next)) => rest.find(next)?,
                    _ => rest.len(),
                };
                out.push((v.to_string(), rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
    }
    rest.is_empty().then_some(out)
}

/// A template rendered from a sample, if the sample has every placeholder's field.
fn render(template: &str, sample: &std::collections::BTreeMap<String, String>) -> Option<String> {
    let t = Template::parse(template).ok()?;
    t.parts
        .iter()
        .map(|p| match p {
            Part::Lit(l) => Some(l.to_string()),
            Part::Var(v) => sample.get(*v).cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_value_gives_back_the_fields_it_was_rendered_from() {
        let got = unrender("ORG#{org_id}#RECORD#{id}", "ORG#acme#RECORD#r1").unwrap();
        assert_eq!(got, vec![("org_id".into(), "acme".into()), ("id".into(), "r1".into())]);
        assert_eq!(unrender("USER#{id}", "POST#1"), None);
        assert_eq!(unrender("PROFILE", "PROFILE"), Some(vec![]));
    }
}
