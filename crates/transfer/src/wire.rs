//! Conversions between the SDK's attribute values and `monotable_types` values, whose serde
//! form is DynamoDB's JSON wire form (`{"S": "x"}`), the form of every export line.
//!
//! Invariant: values read from an endpoint are canonical, so equal items give equal lines
//! whichever endpoint they came from: map members are ordered by name (`Item` is a
//! `BTreeMap`), and set members are sorted (strings and binaries by bytes, numbers by value),
//! because DynamoDB sets have no order and endpoints return them in different ones (dynoxide
//! does not keep the order a set was written in; `monotable serve` does).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue as Sdk;
use aws_smithy_types::Blob;
use monotable_types::{AttributeValue as Av, Item, Number};

use crate::TransferError;

/// An item as the SDK holds it.
pub type SdkItem = HashMap<String, Sdk>;

/// DynamoDB's limit on the nesting of documents (32 levels); deeper input is refused rather
/// than followed, so a hostile endpoint cannot exhaust the stack.
const MAX_DEPTH: usize = 32;

/// Converts an item read from an endpoint into the wire-form item.
pub fn from_sdk(item: &SdkItem) -> Result<Item, TransferError> {
    item.iter().map(|(k, v)| Ok((k.clone(), value_from_sdk(v, 0)?))).collect()
}

fn number(text: &str) -> Result<Number, TransferError> {
    Number::parse(text).map_err(|e| TransferError::Data(format!("number {text:?}: {e}")))
}

fn value_from_sdk(v: &Sdk, depth: usize) -> Result<Av, TransferError> {
    if depth > MAX_DEPTH {
        return Err(TransferError::Data(format!("item nested deeper than {MAX_DEPTH} levels")));
    }
    Ok(match v {
        Sdk::S(s) => Av::S(s.clone()),
        Sdk::N(n) => Av::N(number(n)?),
        Sdk::B(b) => Av::B(b.as_ref().to_vec()),
        Sdk::Bool(b) => Av::Bool(*b),
        Sdk::Null(_) => Av::Null,
        Sdk::M(m) => Av::M(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), value_from_sdk(v, depth + 1)?)))
                .collect::<Result<_, TransferError>>()?,
        ),
        Sdk::L(l) => Av::L(l.iter().map(|v| value_from_sdk(v, depth + 1)).collect::<Result<_, _>>()?),
        Sdk::Ss(v) => {
            let mut v = v.clone();
            v.sort_unstable();
            Av::Ss(v)
        }
        Sdk::Ns(v) => {
            let mut v = v.iter().map(|n| number(n)).collect::<Result<Vec<_>, _>>()?;
            v.sort_unstable();
            Av::Ns(v)
        }
        Sdk::Bs(v) => {
            let mut v: Vec<Vec<u8>> = v.iter().map(|b| b.as_ref().to_vec()).collect();
            v.sort_unstable();
            Av::Bs(v)
        }
        other => return Err(TransferError::Data(format!("attribute value of an unknown type: {other:?}"))),
    })
}

/// Converts a wire-form item into the SDK's form, to be written to an endpoint.
pub fn to_sdk(item: &Item) -> SdkItem {
    item.iter().map(|(k, v)| (k.to_string(), value_to_sdk(v))).collect()
}

fn value_to_sdk(v: &Av) -> Sdk {
    match v {
        Av::S(s) => Sdk::S(s.clone()),
        Av::N(n) => Sdk::N(n.to_string()),
        Av::B(b) => Sdk::B(Blob::new(b.clone())),
        Av::Bool(b) => Sdk::Bool(*b),
        Av::Null => Sdk::Null(true),
        Av::M(m) => Sdk::M(to_sdk(m)),
        Av::L(l) => Sdk::L(l.iter().map(value_to_sdk).collect()),
        Av::Ss(v) => Sdk::Ss(v.clone()),
        Av::Ns(v) => Sdk::Ns(v.iter().map(Number::to_string).collect()),
        Av::Bs(v) => Sdk::Bs(v.iter().map(|b| Blob::new(b.clone())).collect()),
    }
}

/// An item's size as DynamoDB counts it for capacity: attribute names plus values (numbers
/// counted by their digits, an estimate within a few bytes).
pub fn sdk_item_size(item: &SdkItem) -> usize {
    item.iter().map(|(k, v)| k.len() + sdk_value_size(v)).sum()
}

fn sdk_value_size(v: &Sdk) -> usize {
    match v {
        Sdk::S(s) => s.len(),
        Sdk::N(n) => n.len().div_ceil(2) + 1,
        Sdk::B(b) => b.as_ref().len(),
        Sdk::Bool(_) | Sdk::Null(_) => 1,
        Sdk::M(m) => 3 + m.iter().map(|(k, v)| 1 + k.len() + sdk_value_size(v)).sum::<usize>(),
        Sdk::L(l) => 3 + l.iter().map(|v| 1 + sdk_value_size(v)).sum::<usize>(),
        Sdk::Ss(v) => v.iter().map(String::len).sum(),
        Sdk::Ns(v) => v.iter().map(|n| n.len().div_ceil(2) + 1).sum(),
        Sdk::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}

/// The JSON text of a key (for checkpoints), or of any item.
pub fn key_to_json(key: &SdkItem) -> Result<serde_json::Value, TransferError> {
    serde_json::to_value(from_sdk(key)?).map_err(|e| TransferError::Data(e.to_string()))
}

/// Reads back a key written by [`key_to_json`].
pub fn key_from_json(value: &serde_json::Value) -> Result<SdkItem, TransferError> {
    let item: Item = serde_json::from_value(value.clone())
        .map_err(|e| TransferError::Data(format!("checkpoint key: {e}")))?;
    Ok(to_sdk(&item))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_attribute_type_survives_a_round_trip_through_the_sdk_form() {
        let line = r#"{"b":{"B":"AAEC"},"bs":{"BS":["AQ==","Ag=="]},"l":{"L":[{"N":"1"},{"NULL":true}]},"m":{"M":{"t":{"BOOL":false}}},"n":{"N":"-1.5"},"ns":{"NS":["1","2"]},"s":{"S":"x"},"ss":{"SS":["a","b"]}}"#;
        let item: Item = serde_json::from_str(line).expect("valid wire item");
        let back = from_sdk(&to_sdk(&item)).expect("converts back");
        assert_eq!(serde_json::to_string(&back).expect("serializes"), line);
    }

    #[test]
    fn set_members_are_written_in_canonical_order() {
        let item = SdkItem::from([
            ("ss".to_owned(), Sdk::Ss(vec!["b".into(), "a".into()])),
            ("ns".to_owned(), Sdk::Ns(vec!["10".into(), "9".into(), "-1.5".into()])),
            ("bs".to_owned(), Sdk::Bs(vec![Blob::new(vec![2]), Blob::new(vec![1, 9])])),
        ]);
        let line = serde_json::to_string(&from_sdk(&item).expect("converts")).expect("serializes");
        assert_eq!(
            line,
            r#"{"bs":{"BS":["AQk=","Ag=="]},"ns":{"NS":["-1.5","9","10"]},"ss":{"SS":["a","b"]}}"#
        );
    }

    #[test]
    fn a_malformed_number_from_an_endpoint_is_an_error_not_a_panic() {
        let item = SdkItem::from([("n".to_owned(), Sdk::N("1e".into()))]);
        assert!(matches!(from_sdk(&item), Err(TransferError::Data(_))));
    }

    #[test]
    fn nesting_past_the_limit_is_refused() {
        let mut v = Sdk::S("x".into());
        for _ in 0..40 {
            v = Sdk::L(vec![v]);
        }
        let item = SdkItem::from([("deep".to_owned(), v)]);
        assert!(matches!(from_sdk(&item), Err(TransferError::Data(_))));
    }
}
