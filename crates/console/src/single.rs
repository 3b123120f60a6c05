//! Single-table reading: which entity type an item is, and what its keys say.
//!
//! With a design document, an item's type is its entity-type attribute (the design's
//! convention) or, failing that, the first entity whose table key templates both match the
//! item's keys. Without one, the `EntityType`/`entityType` attribute alone names the type.
//! Key values are decoded by walking the template: literals must match exactly and each
//! placeholder takes the text up to the next `#` (the library's escaped values never contain
//! one), which is then unescaped.

use std::collections::BTreeMap;

use monotable_design::{Design, Entity, Part, Template};
use serde_json::{json, Value};

use crate::value::{string_attr, SdkItem};

/// The attribute names that carry an entity type when there is no design document.
const ENTITY_ATTRS: [&str; 2] = ["EntityType", "entityType"];

/// The placeholder values `source` (a key template) reads from `key`, or `None` if the key
/// does not have the template's shape.
pub fn decode(source: &str, key: &str) -> Option<BTreeMap<String, String>> {
    let template = Template::parse(source).ok()?;
    let mut rest = key;
    let mut out = BTreeMap::new();
    for part in &template.parts {
        match part {
            Part::Lit(lit) => rest = rest.strip_prefix(lit)?,
            Part::Var(name) => {
                let end = rest.find('#').unwrap_or(rest.len());
                out.insert((*name).to_string(), monotable::unescape(&rest[..end])?);
                rest = &rest[end..];
            }
        }
    }
    rest.is_empty().then_some(out)
}

/// Renders `source` with `params` (raw values, escaped as the library escapes them). With
/// `prefix_ok`, a missing placeholder ends the rendering there (a `begins_with` prefix);
/// otherwise it is an error naming the placeholder.
pub fn render(source: &str, params: &BTreeMap<String, String>, prefix_ok: bool) -> Result<String, String> {
    let template = Template::parse(source).map_err(|e| e.to_string())?;
    let mut out = String::new();
    for part in &template.parts {
        match part {
            Part::Lit(lit) => out.push_str(lit),
            Part::Var(name) => match params.get(*name).filter(|v| !v.is_empty()) {
                Some(value) => out.push_str(&monotable::escape(value)),
                None if prefix_ok => return Ok(out),
                None => return Err(format!("the parameter `{name}` is required")),
            },
        }
    }
    Ok(out)
}

/// The design's entity type of `item`: the one its entity-type attribute names or, failing
/// that, the first whose table key templates both match the item's keys.
pub fn entity_of<'d>(design: &'d Design, item: &SdkItem) -> Option<&'d Entity> {
    let named = string_attr(item, &design.conventions.entity_type).and_then(|name| design.entity(name));
    named.or_else(|| {
        let pk = string_attr(item, &design.conventions.pk)?;
        let sk = string_attr(item, &design.conventions.sk)?;
        design.entities.iter().find(|e| decode(&e.pk, pk).is_some() && decode(&e.sk, sk).is_some())
    })
}

/// `{"entity": name or null, "decoded": {field: value}}` for one item.
pub fn annotate(design: Option<&Design>, item: &SdkItem) -> Value {
    let Some(design) = design else {
        let entity = ENTITY_ATTRS.iter().find_map(|a| string_attr(item, a));
        return json!({ "entity": entity, "decoded": {} });
    };
    let pk = string_attr(item, &design.conventions.pk);
    let sk = string_attr(item, &design.conventions.sk);
    let Some(entity) = entity_of(design, item) else {
        let name = string_attr(item, &design.conventions.entity_type);
        return json!({ "entity": name, "decoded": {} });
    };
    let mut decoded = BTreeMap::new();
    if let Some(values) = pk.and_then(|pk| decode(&entity.pk, pk)) {
        decoded.extend(values);
    }
    if let Some(values) = sk.and_then(|sk| decode(&entity.sk, sk)) {
        decoded.extend(values);
    }
    json!({ "entity": entity.name, "decoded": decoded })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn key_templates_decode_into_their_field_values() {
        assert_eq!(decode("ORG#{org_id}", "ORG#42"), Some(params(&[("org_id", "42")])));
        assert_eq!(
            decode("RECORD#{changed}#{id}", "RECORD#2024-05-01#r0"),
            Some(params(&[("changed", "2024-05-01"), ("id", "r0")]))
        );
        assert_eq!(decode("PROFILE", "PROFILE"), Some(BTreeMap::new()));
        assert_eq!(decode("ORG#{org_id}", "USER#42"), None);
        assert_eq!(decode("ORG#{org_id}", "ORG#42#X"), None);
    }

    #[test]
    fn rendering_escapes_values_so_decoding_gives_them_back() {
        let raw = params(&[("org_id", "a#b%c")]);
        let key = render("ORG#{org_id}", &raw, false).unwrap();
        assert_eq!(key, "ORG#a%23b%25c");
        assert_eq!(decode("ORG#{org_id}", &key), Some(raw));
    }

    #[test]
    fn a_missing_parameter_is_an_error_unless_a_prefix_is_wanted() {
        let none = BTreeMap::new();
        assert!(render("DECL#{period}", &none, false).unwrap_err().contains("`period`"));
        assert_eq!(render("DECL#{period}", &none, true).unwrap(), "DECL#");
    }
}
