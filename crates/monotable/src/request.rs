//! The exact DynamoDB requests the library sends, as data (dry run, S8/observability).
//!
//! Every operation is planned into a [`Request`] first and only then sent, so what
//! [`Request::to_json`] renders is what goes over the wire (in DynamoDB's JSON protocol form).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Map, Value};

use crate::entity::Item;
use crate::expr::Placeholders;

/// One conditional write inside a transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum TxAction {
    /// A `Put`.
    Put {
        /// The item.
        item: Item,
        /// Condition expression.
        condition: Option<String>,
        /// Placeholders.
        ph: Placeholders,
    },
    /// An `Update`.
    Update {
        /// The key.
        key: Item,
        /// Update expression.
        update: String,
        /// Condition expression.
        condition: Option<String>,
        /// Placeholders.
        ph: Placeholders,
    },
    /// A `Delete`.
    Delete {
        /// The key.
        key: Item,
        /// Condition expression.
        condition: Option<String>,
        /// Placeholders.
        ph: Placeholders,
    },
    /// A `ConditionCheck`.
    Check {
        /// The key.
        key: Item,
        /// Condition expression.
        condition: String,
        /// Placeholders.
        ph: Placeholders,
    },
}

/// A planned DynamoDB request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// `GetItem`.
    GetItem { table: String, key: Item, projection: Option<String>, ph: Placeholders, consistent: bool },
    /// `PutItem`.
    PutItem { table: String, item: Item, condition: Option<String>, ph: Placeholders },
    /// `UpdateItem` (returns all new attributes).
    UpdateItem { table: String, key: Item, update: String, condition: Option<String>, ph: Placeholders },
    /// `DeleteItem` (returns the old item).
    DeleteItem { table: String, key: Item, condition: Option<String>, ph: Placeholders },
    /// `Query`.
    Query {
        table: String,
        index: Option<String>,
        key_condition: String,
        filter: Option<String>,
        projection: Option<String>,
        ph: Placeholders,
        limit: Option<i32>,
        forward: bool,
        start: Option<Item>,
    },
    /// `Scan` (maintenance API only, S9).
    Scan { table: String, filter: Option<String>, ph: Placeholders, limit: Option<i32>, start: Option<Item> },
    /// `TransactWriteItems` on one table.
    TransactWrite { table: String, actions: Vec<TxAction>, token: Option<String> },
    /// `BatchGetItem` on one table.
    BatchGet { table: String, keys: Vec<Item> },
    /// `BatchWriteItem` on one table.
    BatchWrite { table: String, puts: Vec<Item>, deletes: Vec<Item> },
}

impl Request {
    /// The DynamoDB operation name.
    pub fn operation(&self) -> &'static str {
        match self {
            Request::GetItem { .. } => "GetItem",
            Request::PutItem { .. } => "PutItem",
            Request::UpdateItem { .. } => "UpdateItem",
            Request::DeleteItem { .. } => "DeleteItem",
            Request::Query { .. } => "Query",
            Request::Scan { .. } => "Scan",
            Request::TransactWrite { .. } => "TransactWriteItems",
            Request::BatchGet { .. } => "BatchGetItem",
            Request::BatchWrite { .. } => "BatchWriteItem",
        }
    }

    /// The request body in DynamoDB's JSON wire form (keys sorted, so it snapshots stably).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        match self {
            Request::GetItem { table, key, projection, ph, consistent } => {
                m.insert("TableName".into(), json!(table));
                m.insert("Key".into(), item_json(key));
                if let Some(p) = projection {
                    m.insert("ProjectionExpression".into(), json!(p));
                }
                if *consistent {
                    m.insert("ConsistentRead".into(), json!(true));
                }
                placeholders_json(&mut m, ph);
            }
            Request::PutItem { table, item, condition, ph } => {
                m.insert("TableName".into(), json!(table));
                m.insert("Item".into(), item_json(item));
                opt(&mut m, "ConditionExpression", condition);
                placeholders_json(&mut m, ph);
            }
            Request::UpdateItem { table, key, update, condition, ph } => {
                m.insert("TableName".into(), json!(table));
                m.insert("Key".into(), item_json(key));
                m.insert("UpdateExpression".into(), json!(update));
                opt(&mut m, "ConditionExpression", condition);
                m.insert("ReturnValues".into(), json!("ALL_NEW"));
                placeholders_json(&mut m, ph);
            }
            Request::DeleteItem { table, key, condition, ph } => {
                m.insert("TableName".into(), json!(table));
                m.insert("Key".into(), item_json(key));
                opt(&mut m, "ConditionExpression", condition);
                m.insert("ReturnValues".into(), json!("ALL_OLD"));
                placeholders_json(&mut m, ph);
            }
            Request::Query { table, index, key_condition, filter, projection, ph, limit, forward, start } => {
                m.insert("TableName".into(), json!(table));
                opt(&mut m, "IndexName", index);
                m.insert("KeyConditionExpression".into(), json!(key_condition));
                opt(&mut m, "FilterExpression", filter);
                opt(&mut m, "ProjectionExpression", projection);
                if let Some(l) = limit {
                    m.insert("Limit".into(), json!(l));
                }
                if !forward {
                    m.insert("ScanIndexForward".into(), json!(false));
                }
                if let Some(s) = start {
                    m.insert("ExclusiveStartKey".into(), item_json(s));
                }
                placeholders_json(&mut m, ph);
            }
            Request::Scan { table, filter, ph, limit, start } => {
                m.insert("TableName".into(), json!(table));
                opt(&mut m, "FilterExpression", filter);
                if let Some(l) = limit {
                    m.insert("Limit".into(), json!(l));
                }
                if let Some(s) = start {
                    m.insert("ExclusiveStartKey".into(), item_json(s));
                }
                placeholders_json(&mut m, ph);
            }
            Request::TransactWrite { table, actions, token } => {
                let items: Vec<Value> = actions.iter().map(|a| tx_json(table, a)).collect();
                m.insert("TransactItems".into(), Value::Array(items));
                opt(&mut m, "ClientRequestToken", token);
            }
            Request::BatchGet { table, keys } => {
                let keys: Vec<Value> = keys.iter().map(item_json).collect();
                m.insert("RequestItems".into(), json!({ table: { "Keys": keys } }));
            }
            Request::BatchWrite { table, puts, deletes } => {
                let mut reqs: Vec<Value> =
                    puts.iter().map(|i| json!({"PutRequest": {"Item": item_json(i)}})).collect();
                reqs.extend(deletes.iter().map(|k| json!({"DeleteRequest": {"Key": item_json(k)}})));
                m.insert("RequestItems".into(), json!({ table: reqs }));
            }
        }
        Value::Object(m)
    }
}

fn opt(m: &mut Map<String, Value>, name: &str, v: &Option<String>) {
    if let Some(v) = v {
        m.insert(name.into(), json!(v));
    }
}

fn placeholders_json(m: &mut Map<String, Value>, ph: &Placeholders) {
    if !ph.names.is_empty() {
        m.insert("ExpressionAttributeNames".into(), json!(ph.names));
    }
    if !ph.values.is_empty() {
        let vals: BTreeMap<&String, Value> = ph.values.iter().map(|(k, v)| (k, av_json(v))).collect();
        m.insert("ExpressionAttributeValues".into(), json!(vals));
    }
}

fn tx_json(table: &str, a: &TxAction) -> Value {
    let mut m = Map::new();
    m.insert("TableName".into(), json!(table));
    let (name, ph) = match a {
        TxAction::Put { item, condition, ph } => {
            m.insert("Item".into(), item_json(item));
            opt(&mut m, "ConditionExpression", condition);
            ("Put", ph)
        }
        TxAction::Update { key, update, condition, ph } => {
            m.insert("Key".into(), item_json(key));
            m.insert("UpdateExpression".into(), json!(update));
            opt(&mut m, "ConditionExpression", condition);
            ("Update", ph)
        }
        TxAction::Delete { key, condition, ph } => {
            m.insert("Key".into(), item_json(key));
            opt(&mut m, "ConditionExpression", condition);
            ("Delete", ph)
        }
        TxAction::Check { key, condition, ph } => {
            m.insert("Key".into(), item_json(key));
            m.insert("ConditionExpression".into(), json!(condition));
            ("ConditionCheck", ph)
        }
    };
    placeholders_json(&mut m, ph);
    json!({ name: Value::Object(m) })
}

/// An item in DynamoDB JSON (`{"pk": {"S": "..."}}`), keys sorted.
pub fn item_json(item: &Item) -> Value {
    serde_json::to_value(ItemJson(item)).unwrap_or(Value::Null)
}

/// One attribute value in DynamoDB JSON.
pub fn av_json(v: &AttributeValue) -> Value {
    serde_json::to_value(AvJson(v)).unwrap_or(Value::Null)
}

/// Serializes an item as [`item_json`] renders it, without building a [`Value`] first (for
/// cursors and fingerprints, which only need the text).
pub(crate) struct ItemJson<'a>(pub &'a Item);

impl Serialize for ItemJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut keys: Vec<&String> = self.0.keys().collect();
        keys.sort_unstable();
        let mut m = s.serialize_map(Some(keys.len()))?;
        for k in keys {
            m.serialize_entry(k, &AvJson(&self.0[k]))?;
        }
        m.end()
    }
}

/// Serializes one attribute value as [`av_json`] renders it.
pub(crate) struct AvJson<'a>(pub &'a AttributeValue);

struct B64<'a>(&'a [u8]);

impl Serialize for B64<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(self.0))
    }
}

impl Serialize for AvJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        match self.0 {
            AttributeValue::S(v) => m.serialize_entry("S", v)?,
            AttributeValue::N(n) => m.serialize_entry("N", n)?,
            AttributeValue::B(b) => m.serialize_entry("B", &B64(b.as_ref()))?,
            AttributeValue::Bool(b) => m.serialize_entry("BOOL", b)?,
            AttributeValue::Null(_) => m.serialize_entry("NULL", &true)?,
            AttributeValue::Ss(v) => m.serialize_entry("SS", v)?,
            AttributeValue::Ns(v) => m.serialize_entry("NS", v)?,
            AttributeValue::Bs(bs) => {
                m.serialize_entry("BS", &bs.iter().map(|b| B64(b.as_ref())).collect::<Vec<_>>())?
            }
            AttributeValue::L(l) => m.serialize_entry("L", &l.iter().map(AvJson).collect::<Vec<_>>())?,
            AttributeValue::M(inner) => m.serialize_entry("M", &ItemJson(inner))?,
            _ => m.serialize_entry("UNKNOWN", &true)?,
        }
        m.end()
    }
}

/// Parses DynamoDB JSON back into an item (used for cursors); `None` if malformed.
pub fn item_from_json(v: &Value) -> Option<Item> {
    v.as_object()?.iter().map(|(k, v)| Some((k.clone(), av_from_json(v, 0)?))).collect()
}

fn av_from_json(v: &Value, depth: usize) -> Option<AttributeValue> {
    // Cursor keys only ever hold key attributes (S, N, B); nesting is refused past a small depth.
    if depth > 4 {
        return None;
    }
    let (ty, inner) = v.as_object()?.iter().next()?;
    Some(match ty.as_str() {
        "S" => AttributeValue::S(inner.as_str()?.to_string()),
        "N" => AttributeValue::N(inner.as_str()?.to_string()),
        "B" => AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(
            base64::engine::general_purpose::STANDARD.decode(inner.as_str()?).ok()?,
        )),
        "M" => AttributeValue::M(
            inner
                .as_object()?
                .iter()
                .map(|(k, v)| Some((k.clone(), av_from_json(v, depth + 1)?)))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dry_run_renders_dynamodb_json() {
        let mut ph = Placeholders::default();
        let cond = format!("attribute_not_exists({})", ph.name("pk"));
        let req = Request::PutItem {
            table: "app-dev".into(),
            item: Item::from([("pk".to_string(), AttributeValue::S("ORG#1".into()))]),
            condition: Some(cond),
            ph,
        };
        assert_eq!(
            req.to_json(),
            json!({
                "TableName": "app-dev",
                "Item": {"pk": {"S": "ORG#1"}},
                "ConditionExpression": "attribute_not_exists(#n0)",
                "ExpressionAttributeNames": {"#n0": "pk"}
            })
        );
    }

    #[test]
    fn key_json_round_trips() {
        let key = Item::from([
            ("pk".to_string(), AttributeValue::S("A".into())),
            ("n".to_string(), AttributeValue::N("12".into())),
        ]);
        assert_eq!(item_from_json(&item_json(&key)), Some(key));
    }

    #[test]
    fn item_json_renders_every_kind_of_value() {
        use aws_sdk_dynamodb::primitives::Blob;
        let inner = Item::from([("x".to_string(), AttributeValue::N("1".into()))]);
        let item = Item::from([
            ("s".to_string(), AttributeValue::S("a\"b".into())),
            ("b".to_string(), AttributeValue::B(Blob::new(vec![1, 2]))),
            ("t".to_string(), AttributeValue::Bool(true)),
            ("z".to_string(), AttributeValue::Null(true)),
            ("ss".to_string(), AttributeValue::Ss(vec!["p".into(), "q".into()])),
            ("ns".to_string(), AttributeValue::Ns(vec!["2".into()])),
            ("bs".to_string(), AttributeValue::Bs(vec![Blob::new(vec![3])])),
            ("l".to_string(), AttributeValue::L(vec![AttributeValue::S("e".into())])),
            ("m".to_string(), AttributeValue::M(inner)),
        ]);
        let expected = json!({
            "s": {"S": "a\"b"}, "b": {"B": "AQI="}, "t": {"BOOL": true}, "z": {"NULL": true},
            "ss": {"SS": ["p", "q"]}, "ns": {"NS": ["2"]}, "bs": {"BS": ["Aw=="]},
            "l": {"L": [{"S": "e"}]}, "m": {"M": {"x": {"N": "1"}}}
        });
        assert_eq!(item_json(&item), expected);
        // The text written without a `Value` is the text of the `Value`: keys sorted.
        assert_eq!(serde_json::to_string(&ItemJson(&item)).unwrap(), expected.to_string());
    }
}
