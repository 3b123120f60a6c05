//! Attribute values between the page (DynamoDB JSON) and the SDK.
//!
//! Values from the page are parsed by `monotable_types`' DynamoDB JSON parser, the one the
//! protocol server uses, so a malformed value gets the protocol's own message. Values from the
//! endpoint are written back as DynamoDB JSON unchanged (numbers keep their text).

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue as Av;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use monotable_types::AttributeValue as Wire;
use serde_json::{json, Map, Value};

use crate::error::ApiError;

/// An SDK item.
pub type SdkItem = HashMap<String, Av>;

/// Parses one DynamoDB JSON value (`{"S": "x"}`).
pub fn value_from_json(value: &Value) -> Result<Av, ApiError> {
    let wire: Wire = serde_json::from_value(value.clone()).map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(from_wire(wire))
}

/// Parses a DynamoDB JSON item (`{"pk": {"S": "x"}, …}`).
pub fn item_from_json(value: &Value) -> Result<SdkItem, ApiError> {
    let item: monotable_types::Item =
        serde_json::from_value(value.clone()).map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(item.into_iter().map(|(k, v)| (k.into_string(), from_wire(v))).collect())
}

/// Parses a map of placeholder → DynamoDB JSON value (`ExpressionAttributeValues`).
pub fn values_from_json(value: Option<&Value>) -> Result<SdkItem, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(SdkItem::new()),
        Some(v) => item_from_json(v),
    }
}

fn from_wire(value: Wire) -> Av {
    match value {
        Wire::S(s) => Av::S(s),
        Wire::N(n) => Av::N(n.to_string()),
        Wire::B(b) => Av::B(Blob::new(b)),
        Wire::Bool(b) => Av::Bool(b),
        Wire::Null => Av::Null(true),
        Wire::M(m) => Av::M(m.into_iter().map(|(k, v)| (k.into_string(), from_wire(v))).collect()),
        Wire::L(l) => Av::L(l.into_iter().map(from_wire).collect()),
        Wire::Ss(v) => Av::Ss(v),
        Wire::Ns(v) => Av::Ns(v.iter().map(ToString::to_string).collect()),
        Wire::Bs(v) => Av::Bs(v.into_iter().map(Blob::new).collect()),
    }
}

/// One SDK value as DynamoDB JSON.
pub fn value_to_json(value: &Av) -> Value {
    match value {
        Av::S(s) => json!({ "S": s }),
        Av::N(n) => json!({ "N": n }),
        Av::B(b) => json!({ "B": STANDARD.encode(b.as_ref()) }),
        Av::Bool(b) => json!({ "BOOL": b }),
        Av::Null(_) => json!({ "NULL": true }),
        Av::M(m) => json!({ "M": item_to_json(m) }),
        Av::L(l) => json!({ "L": l.iter().map(value_to_json).collect::<Vec<_>>() }),
        Av::Ss(v) => json!({ "SS": v }),
        Av::Ns(v) => json!({ "NS": v }),
        Av::Bs(v) => json!({ "BS": v.iter().map(|b| STANDARD.encode(b.as_ref())).collect::<Vec<_>>() }),
        _ => json!({ "UNKNOWN": true }),
    }
}

/// An SDK item as DynamoDB JSON, attributes in name order.
pub fn item_to_json(item: &SdkItem) -> Value {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let mut out = Map::new();
    for name in names {
        out.insert(name.clone(), value_to_json(&item[name]));
    }
    Value::Object(out)
}

/// The string value of attribute `name`, if it is an `S`.
pub fn string_attr<'a>(item: &'a SdkItem, name: &str) -> Option<&'a str> {
    match item.get(name) {
        Some(Av::S(s)) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_dynamodb_json() {
        let text = json!({
            "s": {"S": "<b>x</b>"}, "n": {"N": "1.50"}, "b": {"B": "AAE="}, "t": {"BOOL": true},
            "z": {"NULL": true}, "m": {"M": {"k": {"L": [{"N": "2"}]}}},
            "ss": {"SS": ["a"]}, "ns": {"NS": ["3"]}, "bs": {"BS": ["AQ=="]}
        });
        let item = item_from_json(&text).unwrap();
        let back = item_to_json(&item);
        // Numbers come back canonical, as the protocol server stores them.
        assert_eq!(back["n"], json!({"N": "1.5"}));
        assert_eq!(back["m"], text["m"]);
        assert_eq!(back["b"], text["b"]);
    }

    #[test]
    fn malformed_values_get_the_protocol_message() {
        let error = value_from_json(&json!({"S": "a", "N": "1"})).unwrap_err();
        assert!(
            error.to_string().starts_with("Supplied AttributeValue has more than one datatypes set"),
            "{error}"
        );
        let error = value_from_json(&json!({"N": "1e999"})).unwrap_err();
        assert!(error.to_string().contains("Number overflow"), "{error}");
    }
}
