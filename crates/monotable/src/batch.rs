//! Batch reads and writes (S4, S8): chunked to DynamoDB's limits (100 keys per
//! `BatchGetItem`, 25 writes per `BatchWriteItem`), unprocessed entries retried with
//! exponential backoff and full jitter.
//!
//! Invariant: `batch_put` preserves `created`/`created-by` of items that already exist (it
//! reads them first), so "created is set once" holds on this path too.

use std::collections::HashSet;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use tracing::Instrument;

use crate::entity::{decode_item, Entity, Item};
use crate::error::{Error, ValidationErrors};
use crate::repo::{now_iso, Repository};
use crate::request::Request;

/// Keys per `BatchGetItem`.
pub const MAX_BATCH_GET: usize = 100;
/// Writes per `BatchWriteItem`.
pub const MAX_BATCH_WRITE: usize = 25;
const MAX_ATTEMPTS: u32 = 8;

fn backoff(attempt: u32) -> Duration {
    let cap = 25u64 << attempt.min(8);
    Duration::from_millis(fastrand::u64(0..=cap))
}

fn key_of(conv: &crate::Conventions, item: &Item) -> (Option<AttributeValue>, Option<AttributeValue>) {
    (item.get(&conv.pk).cloned(), item.get(&conv.sk).cloned())
}

impl<T: Entity> Repository<T> {
    pub(crate) async fn batch_get_raw(&self, keys: Vec<Item>) -> Result<Vec<Item>, Error> {
        let mut out = Vec::new();
        for chunk in keys.chunks(MAX_BATCH_GET) {
            let mut pending = chunk.to_vec();
            let mut attempt = 0;
            while !pending.is_empty() {
                let req = Request::BatchGet { table: self.table.inner.name.clone(), keys: pending };
                let resp = self.send(req).await?;
                out.extend(resp.items);
                pending = resp.unprocessed_keys;
                if pending.is_empty() {
                    break;
                }
                attempt += 1;
                if attempt >= MAX_ATTEMPTS {
                    return Err(Error::Throttled { operation: "BatchGetItem" });
                }
                tokio::time::sleep(backoff(attempt)).await;
            }
        }
        Ok(out)
    }

    /// Reads many items by key (any order; missing keys are skipped).
    pub async fn batch_get(&self, keys: &[T::Key]) -> Result<Vec<T>, Error> {
        let span = self.span("batch_get", None);
        async {
            let mut seen = HashSet::new();
            let mut raw = Vec::new();
            for k in keys {
                let item = self.key_item(k)?;
                let id = format!("{:?}", key_of(&self.table.inner.conv, &item));
                if seen.insert(id) {
                    raw.push(item);
                }
            }
            self.batch_get_raw(raw).await?.into_iter().map(decode_item).collect()
        }
        .instrument(span)
        .await
    }

    async fn batch_write_raw(&self, puts: Vec<Item>, deletes: Vec<Item>) -> Result<(), Error> {
        let mut all: Vec<(bool, Item)> = puts.into_iter().map(|p| (true, p)).collect();
        all.extend(deletes.into_iter().map(|d| (false, d)));
        for chunk in all.chunks(MAX_BATCH_WRITE) {
            let mut puts: Vec<Item> = chunk.iter().filter(|(p, _)| *p).map(|(_, i)| i.clone()).collect();
            let mut deletes: Vec<Item> = chunk.iter().filter(|(p, _)| !*p).map(|(_, i)| i.clone()).collect();
            let mut attempt = 0;
            loop {
                let req = Request::BatchWrite { table: self.table.inner.name.clone(), puts, deletes };
                let resp = self.send(req).await?;
                if resp.unprocessed_puts.is_empty() && resp.unprocessed_deletes.is_empty() {
                    break;
                }
                (puts, deletes) = (resp.unprocessed_puts, resp.unprocessed_deletes);
                attempt += 1;
                if attempt >= MAX_ATTEMPTS {
                    return Err(Error::Throttled { operation: "BatchWriteItem" });
                }
                tokio::time::sleep(backoff(attempt)).await;
            }
        }
        Ok(())
    }

    /// Upserts many items. `created`/`created-by` of existing items are kept; versions
    /// become one more than stored (no version check: use `put` for that). Types with
    /// unique fields are refused (their guards need transactions).
    pub async fn batch_put(&self, items: &[T]) -> Result<(), Error> {
        let span = self.span("batch_put", None);
        async {
            if !self.schema().unique.is_empty() {
                return Err(Error::Validation(ValidationErrors::field(
                    "unique",
                    "types with unique fields need put",
                )));
            }
            let conv = &self.table.inner.conv;
            let now = now_iso();
            let mut maps = Vec::with_capacity(items.len());
            let mut seen = HashSet::new();
            for item in items {
                let map = self.created_item(item, &now)?;
                if !seen.insert(format!("{:?}", key_of(conv, &map))) {
                    return Err(Error::Validation(ValidationErrors::field(
                        "items",
                        "two items have the same key",
                    )));
                }
                maps.push(map);
            }
            let keys: Vec<Item> = maps
                .iter()
                .map(|m| {
                    m.iter()
                        .filter(|(k, _)| **k == conv.pk || **k == conv.sk)
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .collect();
            let existing = self.batch_get_raw(keys).await?;
            for map in &mut maps {
                let id = key_of(conv, map);
                let Some(old) = existing.iter().find(|e| key_of(conv, e) == id) else { continue };
                for a in [&conv.created, &conv.created_by] {
                    if let Some(v) = old.get(a) {
                        map.insert(a.clone(), v.clone());
                    }
                }
                if let Some(va) = self.schema().version_attr {
                    if let Ok(v) = crate::repo::version_of(old, va) {
                        map.insert(va.into(), AttributeValue::N((v + 1).to_string()));
                    }
                }
            }
            self.batch_write_raw(maps, Vec::new()).await
        }
        .instrument(span)
        .await
    }

    /// Deletes many items by key (absent keys are fine).
    pub async fn batch_delete(&self, keys: &[T::Key]) -> Result<(), Error> {
        let span = self.span("batch_delete", None);
        async {
            if !self.schema().unique.is_empty() {
                return Err(Error::Validation(ValidationErrors::field(
                    "unique",
                    "types with unique fields need delete",
                )));
            }
            let raw = keys.iter().map(|k| self.key_item(k)).collect::<Result<Vec<_>, _>>()?;
            self.batch_write_raw(Vec::new(), raw).await
        }
        .instrument(span)
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        for attempt in 1..20 {
            assert!(backoff(attempt) <= Duration::from_millis(25 << 8));
        }
    }
}
