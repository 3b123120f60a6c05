//! Decoding stream records into [`ChangeRecord`]s: one path for the Streams API's records and
//! Lambda's event records, so a handler sees identical values from both.
//!
//! Invariant: every record is decoded through [`RawRecord`], which holds exactly the fields
//! both sources carry in the same form (attribute values as `aws_sdk_dynamodb` values, the
//! creation time in epoch milliseconds); nothing source-specific survives past it. A Streams
//! API record reaches it as the Lambda event record Lambda would build from it.

use std::marker::PhantomData;
use std::time::{Duration, UNIX_EPOCH};

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types as st;

use super::record::{ChangeKind, ChangeRecord, Image, ViewType};
use crate::conventions::Conventions;
use crate::entity::{Collection, Item};
use crate::error::Error;
use crate::internal;
use crate::schema::{EntitySchema, Segment, Template};
use crate::table::Table;

/// The principal and identity type of records written by DynamoDB's Time to Live process
/// (Streams API reference, `Identity`: "For Time To Live, the principalId is
/// \"dynamodb.amazonaws.com\"" and "the type is \"Service\"").
pub(crate) const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";
pub(crate) const TTL_IDENTITY_TYPE: &str = "Service";

/// DynamoDB nests documents at most 32 levels deep; anything deeper is not a stream record.
const MAX_DEPTH: usize = 32;

/// A record in the form both sources reduce to.
pub(crate) struct RawRecord {
    pub event_name: Option<String>,
    pub event_id: Option<String>,
    pub stream_arn: Option<String>,
    pub sequence_number: Option<String>,
    pub keys: Item,
    pub old: Option<Item>,
    pub new: Option<Item>,
    pub created_ms: Option<i64>,
    pub size_bytes: Option<i64>,
    pub view_type: Option<String>,
    pub identity: Option<(Option<String>, Option<String>)>,
}

/// Decodes stream records (from the Streams API or a Lambda event) into typed
/// [`ChangeRecord<C>`](ChangeRecord)s by the table's entity-type attribute.
pub struct ChangeDecoder<C> {
    entity_type: String,
    pk: String,
    sk: String,
    members: Vec<&'static EntitySchema>,
    /// Every type whose keys identify an item without images: the members, the table's
    /// registered types (with [`ChangeDecoder::for_table`]) and the library's own.
    known: Vec<&'static EntitySchema>,
    _c: PhantomData<fn() -> C>,
}

impl<C> Clone for ChangeDecoder<C> {
    fn clone(&self) -> Self {
        ChangeDecoder {
            entity_type: self.entity_type.clone(),
            pk: self.pk.clone(),
            sk: self.sk.clone(),
            members: self.members.clone(),
            known: self.known.clone(),
            _c: PhantomData,
        }
    }
}

impl<C: Collection> ChangeDecoder<C> {
    /// A decoder for a table with these naming conventions. Without images (`KEYS_ONLY`) it
    /// names the entity type of a key among the collection's members and the library's own
    /// types; [`for_table`](Self::for_table) knows the table's other types too.
    pub fn new(conventions: &Conventions) -> Self {
        let members = C::members();
        let mut known = members.clone();
        known.extend(internal::schemas());
        ChangeDecoder {
            entity_type: conventions.entity_type.clone(),
            pk: conventions.pk.clone(),
            sk: conventions.sk.clone(),
            members,
            known,
            _c: PhantomData,
        }
    }

    /// A decoder for `table`'s conventions and registered entity types.
    pub fn for_table(table: &Table) -> Self {
        let mut decoder = Self::new(table.conventions());
        decoder.known.extend(table.inner.entities.iter().copied());
        decoder
    }

    pub(crate) fn decode_raw(&self, raw: RawRecord) -> Result<ChangeRecord<C>, Error> {
        let seq = raw.sequence_number.clone();
        let invalid = |message: String| Error::InvalidChangeRecord { sequence_number: seq.clone(), message };
        let sequence_number =
            raw.sequence_number.ok_or_else(|| invalid("it has no SequenceNumber".into()))?;
        let name = raw.event_name.unwrap_or_default();
        let kind = ChangeKind::parse(&name)
            .ok_or_else(|| invalid(format!("eventName `{name}` is not INSERT, MODIFY or REMOVE")))?;
        let view_type = match raw.view_type {
            None => None,
            Some(v) => Some(
                ViewType::parse(&v)
                    .ok_or_else(|| invalid(format!("StreamViewType `{v}` is not a view type")))?,
            ),
        };
        let approximate_creation_time = match raw.created_ms {
            None => None,
            Some(ms) => Some(
                u64::try_from(ms)
                    .ok()
                    .and_then(|ms| UNIX_EPOCH.checked_add(Duration::from_millis(ms)))
                    .ok_or_else(|| invalid(format!("ApproximateCreationDateTime {ms} ms is out of range")))?,
            ),
        };
        let entity_type = [&raw.new, &raw.old]
            .into_iter()
            .flatten()
            .find_map(|i| self.type_attr(i))
            .or_else(|| self.type_by_key(&raw.keys).map(str::to_string));
        let member = entity_type.as_deref().is_some_and(|t| self.is_member(t));
        let by_ttl = matches!(
            &raw.identity,
            Some((Some(p), Some(t))) if p == TTL_PRINCIPAL && t == TTL_IDENTITY_TYPE
        );
        Ok(ChangeRecord {
            kind,
            event_id: raw.event_id.unwrap_or_default(),
            stream_arn: raw.stream_arn.unwrap_or_default(),
            sequence_number,
            keys: raw.keys,
            entity_type,
            member,
            old: raw.old.map(|i| self.image(i)),
            new: raw.new.map(|i| self.image(i)),
            approximate_creation_time,
            size_bytes: raw.size_bytes,
            view_type,
            by_ttl,
        })
    }

    fn is_member(&self, entity_type: &str) -> bool {
        self.members.iter().any(|m| m.type_name == entity_type)
    }

    fn type_attr(&self, item: &Item) -> Option<String> {
        match item.get(&self.entity_type) {
            Some(AttributeValue::S(t)) => Some(t.clone()),
            _ => None,
        }
    }

    /// The known type whose table key templates the keys match. The start-up collision check
    /// guarantees at most one type of a table matches a key.
    fn type_by_key(&self, keys: &Item) -> Option<&'static str> {
        let (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) =
            (keys.get(&self.pk), keys.get(&self.sk))
        else {
            return None;
        };
        self.known
            .iter()
            .find(|s| template_matches(&s.pk, pk) && template_matches(&s.sk, sk))
            .map(|s| s.type_name)
    }

    fn image(&self, item: Item) -> Image<C> {
        let Some(entity_type) = self.type_attr(&item) else {
            return Image::Foreign { entity_type: None, item };
        };
        if !self.is_member(&entity_type) {
            return Image::Foreign { entity_type: Some(entity_type), item };
        }
        match C::decode(&entity_type, item.clone()) {
            Ok(Some(c)) => Image::Entity(c),
            Ok(None) => Image::Foreign { entity_type: Some(entity_type), item },
            Err(e) => Image::Undecodable { entity_type, item, error: e.to_string() },
        }
    }
}

/// Whether `key` is a rendering of `t`. A placeholder's value runs to the next `#` or the
/// end: rendered values are escaped so they hold no `#`, and the derive checks that every
/// placeholder is followed by `#` or the end of the template.
pub(crate) fn template_matches(t: &Template, key: &str) -> bool {
    let mut rest = key;
    for seg in t.segments {
        match seg {
            Segment::Lit(l) => match rest.strip_prefix(l) {
                Some(r) => rest = r,
                None => return false,
            },
            Segment::Field(_) => {
                let end = rest.find('#').unwrap_or(rest.len());
                if end == 0 {
                    return false; // key values are never empty
                }
                rest = &rest[end..];
            }
        }
    }
    rest.is_empty()
}

/// Converts a Streams SDK item into the `aws_sdk_dynamodb` item the library works with.
pub(crate) fn from_stream_item(
    item: &std::collections::HashMap<String, st::AttributeValue>,
) -> Result<Item, String> {
    item.iter().map(|(k, v)| Ok((k.clone(), from_stream_value(v, 1)?))).collect()
}

fn from_stream_value(v: &st::AttributeValue, depth: usize) -> Result<AttributeValue, String> {
    if depth > MAX_DEPTH {
        return Err(format!("an attribute value is nested more than {MAX_DEPTH} levels deep"));
    }
    Ok(match v {
        st::AttributeValue::S(s) => AttributeValue::S(s.clone()),
        st::AttributeValue::N(n) => AttributeValue::N(n.clone()),
        st::AttributeValue::B(b) => AttributeValue::B(Blob::new(b.as_ref())),
        st::AttributeValue::Bool(b) => AttributeValue::Bool(*b),
        st::AttributeValue::Null(b) => AttributeValue::Null(*b),
        st::AttributeValue::Ss(s) => AttributeValue::Ss(s.clone()),
        st::AttributeValue::Ns(n) => AttributeValue::Ns(n.clone()),
        st::AttributeValue::Bs(b) => AttributeValue::Bs(b.iter().map(|b| Blob::new(b.as_ref())).collect()),
        st::AttributeValue::L(l) => {
            AttributeValue::L(l.iter().map(|v| from_stream_value(v, depth + 1)).collect::<Result<_, _>>()?)
        }
        st::AttributeValue::M(m) => AttributeValue::M(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), from_stream_value(v, depth + 1)?)))
                .collect::<Result<_, String>>()?,
        ),
        _ => return Err("an attribute value of a type this SDK version does not know".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Template = Template {
        source: "ORG#{org_id}#RECORD#{id}",
        segments: &[
            Segment::Lit("ORG#"),
            Segment::Field("org_id"),
            Segment::Lit("#RECORD#"),
            Segment::Field("id"),
        ],
    };

    #[test]
    fn a_key_matches_the_template_that_rendered_it_and_nothing_longer_or_empty() {
        assert!(template_matches(&T, "ORG#o1#RECORD#r%231"));
        assert!(!template_matches(&T, "ORG#o1#RECORD#r1#X"));
        assert!(!template_matches(&T, "ORG##RECORD#r1"));
        assert!(!template_matches(&T, "ORG#o1#DOCUMENT#r1"));
        let lit = Template { source: "PROFILE", segments: &[Segment::Lit("PROFILE")] };
        assert!(template_matches(&lit, "PROFILE") && !template_matches(&lit, "PROFILES"));
    }

    #[test]
    fn stream_values_nested_past_dynamodbs_limit_are_refused() {
        let mut v = st::AttributeValue::S("x".into());
        for _ in 0..40 {
            v = st::AttributeValue::L(vec![v]);
        }
        let item = std::collections::HashMap::from([("a".to_string(), v)]);
        assert!(from_stream_item(&item).unwrap_err().contains("nested"));
    }
}
