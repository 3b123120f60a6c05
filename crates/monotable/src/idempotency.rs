//! Idempotency keys (S15): `create_idempotent(key, item)`.
//!
//! The record `_IDEMPOTENCY#<scope>#<key>` / `_IDEMPOTENCY` is written in the same
//! transaction as the item and holds a SHA-256 of the stored payload, the item's key and an
//! expiry in the table's TTL attribute. Invariant: a replay with the same payload returns the
//! stored item; a different payload under the same key is `Conflict(IdempotencyKeyReused)`;
//! an expired record counts as absent even before DynamoDB's TTL sweep removes it.

use std::borrow::Cow;
use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;
use sha2::{Digest, Sha256};
use tracing::Instrument;

use crate::entity::{decode_item, Entity, Item};
use crate::error::{ActionOutcome, ConflictReason, Error};
use crate::expr::Placeholders;
use crate::internal::IDEMPOTENCY;
use crate::key::render;
use crate::repo::{now_iso, Repository};
use crate::request::{item_json, Request, TxAction};

const HASH: &str = "payloadHash";
const TARGET_PK: &str = "targetPk";
const TARGET_SK: &str = "targetSk";

impl<T: Entity> Repository<T> {
    /// Creates `item` at most once per idempotency key (S15); see the module docs.
    pub async fn create_idempotent(&self, idempotency_key: &str, item: &T) -> Result<T, Error> {
        let span = self.span("create_idempotent", None);
        async {
            let conv = &self.table.inner.conv;
            let now = now_iso();
            let map = self.created_item(item, &now)?;
            let hash = payload_hash(&map, &[&conv.created, &conv.updated, &conv.created_by]);
            let scope = self.scope.cursor_tenant();
            let pk = render(&IDEMPOTENCY.pk, "pk", |f| match f {
                "scope" => Some(Cow::Borrowed(scope.as_str())),
                _ => Some(Cow::Borrowed(idempotency_key)),
            })?;
            let record_key = Item::from([
                (conv.pk.clone(), AttributeValue::S(pk)),
                (conv.sk.clone(), AttributeValue::S(IDEMPOTENCY.sk.literal_prefix())),
            ]);
            let now_s = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
            let expires = now_s + self.table.inner.idempotency_ttl.as_secs();
            let mut record = record_key.clone();
            record.insert(conv.entity_type.clone(), AttributeValue::S(IDEMPOTENCY.type_name.into()));
            record.insert(HASH.into(), AttributeValue::S(hash.clone()));
            for (a, t) in [(&conv.pk, TARGET_PK), (&conv.sk, TARGET_SK)] {
                if let Some(v) = map.get(a) {
                    record.insert(t.into(), v.clone());
                }
            }
            record.insert(conv.ttl.clone(), AttributeValue::N(expires.to_string()));
            let mut ph = Placeholders::default();
            let rc = format!(
                "attribute_not_exists({}) OR {} < {}",
                ph.name(&conv.pk),
                ph.name(&conv.ttl),
                ph.value(AttributeValue::N(now_s.to_string()))
            );
            let mut item_ph = Placeholders::default();
            let ic = self.not_exists(&mut item_ph);
            let mut actions = vec![
                TxAction::Put { item: record, condition: Some(rc), ph },
                TxAction::Put { item: map.clone(), condition: Some(ic), ph: item_ph },
            ];
            actions.extend(self.guard_puts(&map)?);
            let tx = Request::TransactWrite { table: self.table.inner.name.clone(), actions, token: None };
            let outcomes = match self.send(tx).await {
                Ok(_) => return decode_item(map),
                Err(Error::TransactionCancelled(o)) => o,
                Err(e) => return Err(e),
            };
            let entity = self.schema().type_name;
            if outcomes.first() == Some(&ActionOutcome::ConditionFailed) {
                let stored = self.get_raw(record_key).await?;
                let same = matches!(stored.as_ref().and_then(|r| r.get(HASH)), Some(AttributeValue::S(h)) if *h == hash);
                if !same {
                    return Err(Error::Conflict { entity, reason: ConflictReason::IdempotencyKeyReused });
                }
                let target = stored
                    .map(|r| r.into_iter().filter(|(k, _)| k == TARGET_PK || k == TARGET_SK).collect::<Item>())
                    .unwrap_or_default();
                let key = Item::from([
                    (conv.pk.clone(), target.get(TARGET_PK).cloned().unwrap_or(AttributeValue::Null(true))),
                    (conv.sk.clone(), target.get(TARGET_SK).cloned().unwrap_or(AttributeValue::Null(true))),
                ]);
                return self.get_raw(key).await?.map(decode_item).unwrap_or(Err(Error::NotFound { entity }));
            }
            if outcomes.get(1) == Some(&ActionOutcome::ConditionFailed) {
                return Err(Error::Conflict { entity, reason: ConflictReason::AlreadyExists });
            }
            Err(self.unique_conflict(&map, outcomes.get(2..).unwrap_or_default()).unwrap_or(Error::TransactionCancelled(outcomes)))
        }
        .instrument(span)
        .await
    }
}

/// SHA-256 (hex) of the stored payload without the stamps, keys sorted.
fn payload_hash(map: &Item, skip: &[&String]) -> String {
    let kept: Item =
        map.iter().filter(|(k, _)| !skip.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    hex::encode(Sha256::digest(item_json(&kept).to_string().as_bytes()))
}
