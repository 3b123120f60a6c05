//! DynamoDB's JSON wire form for attribute values.
//!
//! Serialisation writes exactly one type key per value. Deserialisation follows DynamoDB's
//! request parser: unknown keys and `null` members are ignored, so `{}` and `{"X": 1}` are
//! "empty" values; zero or several type keys are `ValidationException`s; a member of the wrong
//! JSON type is a `SerializationException`. Empty sets and duplicates are accepted here and
//! refused by the engine's validation, which knows the request context.

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::{AttributeValue, Item, Number, NumberError};

const EMPTY: &str = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes";
const MANY: &str =
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes";
const NULL_FALSE: &str =
    "One or more parameter values were invalid: Null attribute value types must have the value of true";

/// Message prefixes of deserialisation errors that DynamoDB reports as `ValidationException`
/// rather than `SerializationException`.
const VALIDATION_PREFIXES: &[&str] = &[
    "Supplied AttributeValue",
    "One or more parameter values were invalid",
    "The parameter cannot be converted to a numeric value",
    "Attempting to store more than 38 significant digits",
    "Number overflow",
    "Number underflow",
];

/// True when a serde error message produced by this crate's `Deserialize` impls is a
/// DynamoDB `ValidationException` (the protocol layer maps everything else to
/// `SerializationException`).
pub fn is_validation_message(message: &str) -> bool {
    VALIDATION_PREFIXES.iter().any(|p| message.starts_with(p))
}

impl Serialize for AttributeValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            AttributeValue::S(s) => map.serialize_entry("S", s)?,
            AttributeValue::N(n) => map.serialize_entry("N", &AsText(n))?,
            AttributeValue::B(b) => map.serialize_entry("B", &STANDARD.encode(b))?,
            AttributeValue::Bool(b) => map.serialize_entry("BOOL", b)?,
            AttributeValue::Null => map.serialize_entry("NULL", &true)?,
            AttributeValue::M(m) => map.serialize_entry("M", m)?,
            AttributeValue::L(l) => map.serialize_entry("L", l)?,
            AttributeValue::Ss(v) => map.serialize_entry("SS", v)?,
            AttributeValue::Ns(v) => map.serialize_entry("NS", &NumberList(v))?,
            AttributeValue::Bs(v) => map.serialize_entry("BS", &BinaryList(v))?,
        }
        map.end()
    }
}

/// A number serialised as its canonical text, written straight into the output.
struct AsText<'a>(&'a Number);

impl Serialize for AsText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

struct NumberList<'a>(&'a [Number]);

impl Serialize for NumberList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for n in self.0 {
            seq.serialize_element(&AsText(n))?;
        }
        seq.end()
    }
}

struct BinaryList<'a>(&'a [Vec<u8>]);

impl Serialize for BinaryList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for b in self.0 {
            seq.serialize_element(&STANDARD.encode(b))?;
        }
        seq.end()
    }
}

/// A base64 string decoded on the way in.
struct Base64(Vec<u8>);

impl<'de> Deserialize<'de> for Base64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Base64, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        STANDARD.decode(s.as_bytes()).map(Base64).map_err(|_| {
            de::Error::custom("Base64 encoded length is expected a multiple of 4 bytes but found: invalid")
        })
    }
}

/// A number given as a JSON string.
struct WireNumber(Number);

impl<'de> Deserialize<'de> for WireNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WireNumber, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        // DynamoDB's request parser names the text it could not read (paritysuite/
        // dynamodb-conformance, error-messages/valueLayers.test.ts: "...: abc", and ": " with
        // nothing after it for an empty number).
        Number::parse(&s).map(WireNumber).map_err(|e| match e {
            NumberError::NotANumber => {
                de::Error::custom(format!("The parameter cannot be converted to a numeric value: {s}"))
            }
            other => de::Error::custom(other),
        })
    }
}

impl<'de> Deserialize<'de> for AttributeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AttributeValue, D::Error> {
        deserializer.deserialize_map(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = AttributeValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AttributeValue structure")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AttributeValue, A::Error> {
        let mut found: Option<AttributeValue> = None;
        let mut many = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = match key.as_ref() {
                "S" => map.next_value::<Option<String>>()?.map(AttributeValue::S),
                "N" => map.next_value::<Option<WireNumber>>()?.map(|n| AttributeValue::N(n.0)),
                "B" => map.next_value::<Option<Base64>>()?.map(|b| AttributeValue::B(b.0)),
                "BOOL" => map.next_value::<Option<bool>>()?.map(AttributeValue::Bool),
                "NULL" => match map.next_value::<Option<bool>>()? {
                    Some(true) => Some(AttributeValue::Null),
                    Some(false) => return Err(de::Error::custom(NULL_FALSE)),
                    None => None,
                },
                "M" => map.next_value::<Option<Item>>()?.map(AttributeValue::M),
                "L" => map.next_value::<Option<Vec<AttributeValue>>>()?.map(AttributeValue::L),
                "SS" => map.next_value::<Option<Vec<String>>>()?.map(AttributeValue::Ss),
                "NS" => map
                    .next_value::<Option<Vec<WireNumber>>>()?
                    .map(|v| AttributeValue::Ns(v.into_iter().map(|n| n.0).collect())),
                "BS" => map
                    .next_value::<Option<Vec<Base64>>>()?
                    .map(|v| AttributeValue::Bs(v.into_iter().map(|b| b.0).collect())),
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                    None
                }
            };
            if let Some(v) = value {
                if found.is_some() {
                    many = true;
                }
                found = Some(v);
            }
        }
        if many {
            return Err(de::Error::custom(MANY));
        }
        found.ok_or_else(|| de::Error::custom(EMPTY))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn de(v: serde_json::Value) -> Result<AttributeValue, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn every_type_round_trips_through_the_wire_form() {
        let v = json!({"M": {
            "s": {"S": "x"}, "n": {"N": "1.50"}, "b": {"B": "AAE="}, "t": {"BOOL": true},
            "z": {"NULL": true}, "l": {"L": [{"S": "a"}, {"N": "2"}]},
            "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2E1"]}, "bs": {"BS": ["AA=="]}
        }});
        let value = de(v).unwrap();
        let back = serde_json::to_value(&value).unwrap();
        assert_eq!(back["M"]["n"], json!({"N": "1.5"}));
        assert_eq!(back["M"]["ns"], json!({"NS": ["1", "20"]}));
        assert_eq!(back["M"]["b"], json!({"B": "AAE="}));
        assert_eq!(de(back).unwrap(), value);
    }

    #[test]
    fn empty_value_is_a_validation_error() {
        let e = de(json!({})).unwrap_err();
        assert!(e.starts_with(EMPTY), "{e}");
        assert!(is_validation_message(&e));
        // Unknown members and nulls are ignored, as DynamoDB's parser does.
        assert!(de(json!({"X": 1, "S": null})).unwrap_err().starts_with(EMPTY));
    }

    #[test]
    fn two_types_is_a_validation_error() {
        let e = de(json!({"S": "a", "N": "1"})).unwrap_err();
        assert!(e.starts_with(MANY), "{e}");
    }

    #[test]
    fn null_false_is_refused() {
        let e = de(json!({"NULL": false})).unwrap_err();
        assert!(e.starts_with(NULL_FALSE), "{e}");
    }

    #[test]
    fn wrong_json_type_is_a_serialization_error() {
        let e = de(json!({"S": 1})).unwrap_err();
        assert!(!is_validation_message(&e), "{e}");
    }

    #[test]
    fn bad_number_is_a_validation_error() {
        let e = de(json!({"N": "abc"})).unwrap_err();
        assert!(is_validation_message(&e), "{e}");
    }
}
