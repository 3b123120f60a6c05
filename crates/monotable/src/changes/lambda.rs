//! The event AWS Lambda delivers to a function triggered by a DynamoDB stream, with serde, so
//! the handler a test drives through [`ChangeConsumer`](super::ChangeConsumer) runs unchanged
//! in Lambda.
//!
//! The shape is the one in "Using AWS Lambda with Amazon DynamoDB", section "Example event"
//! (<https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html>): `Records[]` of `eventID`,
//! `eventName`, `eventVersion`, `eventSource` (`aws:dynamodb`), `awsRegion`, `eventSourceARN`,
//! an optional `userIdentity` and `dynamodb` with `Keys`, `NewImage`, `OldImage`,
//! `SequenceNumber`, `SizeBytes`, `StreamViewType` and `ApproximateCreationDateTime` (epoch
//! seconds). Attribute values are in DynamoDB JSON (`{"S": "..."}`, binary as base64).
//!
//! A failed record is reported with Lambda's partial batch response
//! (<https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html>):
//! `{"batchItemFailures": [{"itemIdentifier": "<SequenceNumber>"}]}`, so Lambda retries from
//! that record as [`ChangeConsumer`](super::ChangeConsumer) does.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types as st;
use serde::{Deserialize, Serialize};

use super::decode::{from_stream_item, ChangeDecoder, RawRecord};
use super::handler::Handler;
use super::record::ChangeRecord;
use crate::entity::{Collection, Item};
use crate::error::Error;

/// A Lambda DynamoDB stream event: the function's input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DynamoDbEvent {
    /// The batch of records, in stream order per shard.
    #[serde(rename = "Records", default)]
    pub records: Vec<EventRecord>,
}

/// One record of a [`DynamoDbEvent`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventRecord {
    /// The record's unique id.
    #[serde(rename = "eventID", default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    /// `INSERT`, `MODIFY` or `REMOVE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_name: Option<String>,
    /// The record format version (`1.1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_version: Option<String>,
    /// `aws:dynamodb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_source: Option<String>,
    /// The table's region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aws_region: Option<String>,
    /// The change itself.
    #[serde(default)]
    pub dynamodb: EventChange,
    /// The stream's ARN.
    #[serde(rename = "eventSourceARN", default, skip_serializing_if = "Option::is_none")]
    pub event_source_arn: Option<String>,
    /// Present for deletions by Time to Live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_identity: Option<UserIdentity>,
}

/// The `dynamodb` member of an [`EventRecord`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventChange {
    /// Epoch seconds (may carry a fraction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approximate_creation_date_time: Option<f64>,
    /// The key attributes.
    #[serde(default, with = "wire_item")]
    pub keys: Item,
    /// The item after the change.
    #[serde(default, with = "wire_opt_item", skip_serializing_if = "Option::is_none")]
    pub new_image: Option<Item>,
    /// The item before the change.
    #[serde(default, with = "wire_opt_item", skip_serializing_if = "Option::is_none")]
    pub old_image: Option<Item>,
    /// The record's sequence number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<String>,
    /// The record's size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<i64>,
    /// `KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE` or `NEW_AND_OLD_IMAGES`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_view_type: Option<String>,
}

/// Who made the change; only Time to Live deletions carry one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserIdentity {
    /// `dynamodb.amazonaws.com` for Time to Live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal_id: Option<String>,
    /// `Service` for Time to Live.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

impl EventRecord {
    /// The event record Lambda delivers for `record`, a GetRecords record of the stream
    /// `stream_arn`: how a test builds the exact input of a Lambda function from the records
    /// the engine produced. The creation time is whole epoch seconds when it has no fraction.
    pub fn from_stream_record(stream_arn: &str, record: &st::Record) -> Result<EventRecord, Error> {
        let sr = record.dynamodb();
        let seq = sr.and_then(|s| s.sequence_number()).map(str::to_string);
        let invalid = |message: String| Error::InvalidChangeRecord { sequence_number: seq.clone(), message };
        let item = |i: Option<&HashMap<String, st::AttributeValue>>| -> Result<Option<Item>, Error> {
            i.map(|m| from_stream_item(m).map_err(&invalid)).transpose()
        };
        let created = match sr.and_then(|s| s.approximate_creation_date_time()) {
            None => None,
            Some(t) => {
                let ms = t.to_millis().map_err(|e| invalid(format!("ApproximateCreationDateTime: {e}")))?;
                Some(ms as f64 / 1000.0)
            }
        };
        Ok(EventRecord {
            event_id: record.event_id().map(str::to_string),
            event_name: record.event_name().map(|n| n.as_str().to_string()),
            event_version: record.event_version().map(str::to_string),
            event_source: record.event_source().map(str::to_string),
            aws_region: record.aws_region().map(str::to_string),
            dynamodb: EventChange {
                approximate_creation_date_time: created,
                keys: item(sr.and_then(|s| s.keys()))?.unwrap_or_default(),
                new_image: item(sr.and_then(|s| s.new_image()))?,
                old_image: item(sr.and_then(|s| s.old_image()))?,
                sequence_number: seq.clone(),
                size_bytes: sr.and_then(|s| s.size_bytes()),
                stream_view_type: sr.and_then(|s| s.stream_view_type()).map(|v| v.as_str().to_string()),
            },
            event_source_arn: Some(stream_arn.to_string()),
            user_identity: record.user_identity().map(|u| UserIdentity {
                principal_id: u.principal_id().map(str::to_string),
                kind: u.r#type().map(str::to_string),
            }),
        })
    }

    pub(crate) fn into_raw(self) -> RawRecord {
        let d = self.dynamodb;
        RawRecord {
            event_name: self.event_name,
            event_id: self.event_id,
            stream_arn: self.event_source_arn,
            sequence_number: d.sequence_number,
            keys: d.keys,
            old: d.old_image,
            new: d.new_image,
            // Seconds to milliseconds, rounded: the Streams path keeps milliseconds too.
            created_ms: d
                .approximate_creation_date_time
                .filter(|s| s.is_finite())
                .map(|s| (s * 1000.0).round() as i64),
            size_bytes: d.size_bytes,
            view_type: d.stream_view_type,
            identity: self.user_identity.map(|u| (u.principal_id, u.kind)),
        }
    }
}

/// Lambda's partial batch response: the function's output when its event source mapping
/// reports batch item failures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchResponse {
    /// The failed record (Lambda retries from the first one listed); empty when all succeeded.
    pub batch_item_failures: Vec<BatchItemFailure>,
}

/// One failed record of a [`BatchResponse`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchItemFailure {
    /// The failed record's sequence number.
    pub item_identifier: String,
}

impl<C: Collection> ChangeDecoder<C> {
    /// Decodes one record returned by the Streams API's GetRecords for the stream
    /// `stream_arn`, through the event record Lambda would deliver for it, so both paths
    /// decode the same `RawRecord`.
    pub fn decode_stream_record(
        &self,
        stream_arn: &str,
        record: &st::Record,
    ) -> Result<ChangeRecord<C>, Error> {
        self.decode_raw(EventRecord::from_stream_record(stream_arn, record)?.into_raw())
    }
}

impl<C: Collection + Sync> ChangeDecoder<C> {
    /// Decodes one Lambda event record.
    pub fn decode_lambda_record(&self, record: &EventRecord) -> Result<ChangeRecord<C>, Error> {
        self.decode_raw(record.clone().into_raw())
    }

    /// Decodes every record of a Lambda event, in order.
    pub fn decode_event(&self, event: &DynamoDbEvent) -> Result<Vec<ChangeRecord<C>>, Error> {
        event.records.iter().map(|r| self.decode_lambda_record(r)).collect()
    }

    /// Runs `handler` on the event's records in order, as Lambda would: it stops at the first
    /// record that fails to decode or to be handled and reports it (and so everything after
    /// it) for retry. Log the failure in the handler; the response carries only its position.
    pub async fn handle_event<H: Handler<C>>(&self, event: &DynamoDbEvent, handler: &mut H) -> BatchResponse {
        for r in &event.records {
            let ok = match self.decode_lambda_record(r) {
                Ok(change) => handler.handle(&change).await.is_ok(),
                Err(e) => {
                    tracing::warn!(error = %e, "monotable: a stream record does not decode");
                    false
                }
            };
            if !ok {
                return BatchResponse {
                    batch_item_failures: vec![BatchItemFailure {
                        item_identifier: r.dynamodb.sequence_number.clone().unwrap_or_default(),
                    }],
                };
            }
        }
        BatchResponse::default()
    }
}

/// Serde for an item in DynamoDB JSON, through `serde_dynamo`'s wire value.
mod wire_item {
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::*;

    pub fn serialize<S: Serializer>(item: &Item, s: S) -> Result<S::Ok, S::Error> {
        let wire: HashMap<&String, serde_dynamo::AttributeValue> = item
            .iter()
            .map(|(k, v)| Ok((k, to_wire(v)?)))
            .collect::<Result<_, String>>()
            .map_err(S::Error::custom)?;
        wire.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
        let wire = Option::<HashMap<String, serde_dynamo::AttributeValue>>::deserialize(d)?;
        Ok(wire.unwrap_or_default().into_iter().map(|(k, v)| (k, v.into())).collect())
    }

    /// The DynamoDB JSON form of a value; `Unknown` (a type newer than this SDK) has none.
    fn to_wire(v: &AttributeValue) -> Result<serde_dynamo::AttributeValue, String> {
        use serde_dynamo::AttributeValue as W;
        Ok(match v {
            AttributeValue::S(s) => W::S(s.clone()),
            AttributeValue::N(n) => W::N(n.clone()),
            AttributeValue::B(b) => W::B(b.as_ref().to_vec()),
            AttributeValue::Bool(b) => W::Bool(*b),
            AttributeValue::Null(b) => W::Null(*b),
            AttributeValue::Ss(s) => W::Ss(s.clone()),
            AttributeValue::Ns(n) => W::Ns(n.clone()),
            AttributeValue::Bs(b) => W::Bs(b.iter().map(|b| b.as_ref().to_vec()).collect()),
            AttributeValue::L(l) => W::L(l.iter().map(to_wire).collect::<Result<_, _>>()?),
            AttributeValue::M(m) => {
                W::M(m.iter().map(|(k, v)| Ok((k.clone(), to_wire(v)?))).collect::<Result<_, String>>()?)
            }
            _ => return Err("an attribute value of a type this SDK version does not know".into()),
        })
    }
}

/// [`wire_item`] for an optional item (`null` and absence are both `None`).
mod wire_opt_item {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::*;

    pub fn serialize<S: Serializer>(item: &Option<Item>, s: S) -> Result<S::Ok, S::Error> {
        match item {
            Some(i) => super::wire_item::serialize(i, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Item>, D::Error> {
        let wire = Option::<HashMap<String, serde_dynamo::AttributeValue>>::deserialize(d)?;
        Ok(wire.map(|w| w.into_iter().map(|(k, v)| (k, AttributeValue::from(v))).collect()))
    }
}
