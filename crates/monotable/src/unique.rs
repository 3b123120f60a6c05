//! Unique constraints through guard items written in the same transaction (S17).
//!
//! For `#[entity(unique(email))]` on `User`, each stored user owns one guard item
//! `_UNIQUE#User#email#<escaped value>` / `_UNIQUE`. Invariant: a guard exists iff an item of
//! that type holds the value: guards are only created, moved and deleted in the same
//! `TransactWriteItems` as the item itself, each with a condition.

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::{decode_item, Entity, Item};
use crate::error::{ActionOutcome, ConflictReason, Error};
use crate::expr::Placeholders;
use crate::internal::UNIQUE;
use crate::key::render;
use crate::repo::{now_iso, Repository};
use crate::request::{Request, TxAction};

/// The raw text of a stored unique value; `None` when absent (no guard).
fn unique_value(map: &Item, attr: &str) -> Option<String> {
    match map.get(attr) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        Some(AttributeValue::N(n)) => Some(n.clone()),
        _ => None,
    }
}

impl<T: Entity> Repository<T> {
    fn guard_key(&self, attr: &str, value: &str) -> Result<Item, Error> {
        let conv = &self.table.inner.conv;
        let type_name = self.schema().type_name;
        let pk = render(&UNIQUE.pk, "pk", |f| match f {
            "type" => Some(Cow::Borrowed(type_name)),
            "field" => Some(Cow::Borrowed(attr)),
            _ => Some(Cow::Borrowed(value)),
        })?;
        Ok(Item::from([
            (conv.pk.clone(), AttributeValue::S(pk)),
            (conv.sk.clone(), AttributeValue::S(UNIQUE.sk.literal_prefix())),
        ]))
    }

    /// Guard puts for a new stored item, in `schema().unique` order.
    pub(crate) fn guard_puts(&self, map: &Item) -> Result<Vec<TxAction>, Error> {
        let conv = &self.table.inner.conv;
        let mut out = Vec::new();
        for u in self.schema().unique {
            let Some(value) = unique_value(map, u.attr) else { continue };
            let mut item = self.guard_key(u.attr, &value)?;
            item.insert(conv.entity_type.clone(), AttributeValue::S(UNIQUE.type_name.into()));
            for a in [&conv.pk, &conv.sk] {
                if let Some(v) = map.get(a) {
                    item.insert(format!("owner_{a}"), v.clone());
                }
            }
            let mut ph = Placeholders::default();
            let condition = Some(self.not_exists(&mut ph));
            out.push(TxAction::Put { item, condition, ph });
        }
        Ok(out)
    }

    /// Maps the outcomes of the guard actions to `UniqueTaken` for the first failed one.
    pub(crate) fn unique_conflict(&self, map: &Item, guard_outcomes: &[ActionOutcome]) -> Option<Error> {
        let mut guards = self.schema().unique.iter().filter(|u| unique_value(map, u.attr).is_some());
        for o in guard_outcomes {
            let field = guards.next()?;
            if *o == ActionOutcome::ConditionFailed {
                return Some(Error::Conflict {
                    entity: self.schema().type_name,
                    reason: ConflictReason::UniqueTaken { field: field.attr },
                });
            }
        }
        None
    }

    /// `put` for types with unique fields: moves guards whose value changed.
    pub(crate) async fn put_with_unique(&self, item: &T) -> Result<T, Error> {
        let now = now_iso();
        let (req, _) = self.plan_put(item, &now)?;
        let Request::UpdateItem { key, update, condition, mut ph, .. } = req else {
            return Err(Error::Config("internal: put did not plan an update".into()));
        };
        let old = self.get_raw(key.clone()).await?;
        let new_map = self.stored_item(item, &now)?;
        let mut conds: Vec<String> = condition.into_iter().collect();
        let mut guard_actions = Vec::new();
        let mut guard_fields = Vec::new();
        match &old {
            None => conds.push(self.not_exists(&mut ph)),
            Some(old) => {
                for u in self.schema().unique {
                    let (before, after) = (unique_value(old, u.attr), unique_value(&new_map, u.attr));
                    let n = ph.name(u.attr);
                    match &before {
                        Some(b) => {
                            let v = ph.value(AttributeValue::S(b.clone()));
                            conds.push(format!("{n} = {v}"));
                        }
                        None => conds.push(format!("attribute_not_exists({n})")),
                    }
                    if before == after {
                        continue;
                    }
                    if let Some(b) = before {
                        guard_actions.push(TxAction::Delete {
                            key: self.guard_key(u.attr, &b)?,
                            condition: None,
                            ph: Default::default(),
                        });
                        guard_fields.push(None);
                    }
                    if after.is_some() {
                        let mut single = new_map.clone();
                        single.retain(|k, _| {
                            k == u.attr || *k == self.table.inner.conv.pk || *k == self.table.inner.conv.sk
                        });
                        guard_actions.extend(self.guard_puts_for(&single, u.attr)?);
                        guard_fields.push(Some(u.attr));
                    }
                }
            }
        }
        if old.is_none() {
            guard_actions = self.guard_puts(&new_map)?;
            guard_fields = self
                .schema()
                .unique
                .iter()
                .filter(|u| unique_value(&new_map, u.attr).is_some())
                .map(|u| Some(u.attr))
                .collect();
        }
        let condition = Some(conds.join(" AND "));
        let mut actions = vec![TxAction::Update { key: key.clone(), update, condition, ph }];
        actions.extend(guard_actions);
        let tx = Request::TransactWrite { table: self.table.inner.name.clone(), actions, token: None };
        match self.send(tx).await {
            Ok(_) => {}
            Err(Error::TransactionCancelled(outcomes)) => {
                let entity = self.schema().type_name;
                for (o, f) in outcomes.iter().skip(1).zip(&guard_fields) {
                    if let (ActionOutcome::ConditionFailed, Some(field)) = (o, f) {
                        return Err(Error::Conflict {
                            entity,
                            reason: ConflictReason::UniqueTaken { field },
                        });
                    }
                }
                if outcomes.first() == Some(&ActionOutcome::ConditionFailed) {
                    return Err(Error::Conflict { entity, reason: ConflictReason::ConditionFailed });
                }
                return Err(Error::TransactionCancelled(outcomes));
            }
            Err(e) => return Err(e),
        }
        let stored = self.get_raw(key).await?.ok_or(Error::NotFound { entity: self.schema().type_name })?;
        decode_item(stored)
    }

    fn guard_puts_for(&self, map: &Item, attr: &str) -> Result<Vec<TxAction>, Error> {
        let all = self.guard_puts(map)?;
        let idx = self
            .schema()
            .unique
            .iter()
            .filter(|u| unique_value(map, u.attr).is_some())
            .position(|u| u.attr == attr);
        Ok(idx.and_then(|i| all.into_iter().nth(i)).into_iter().collect())
    }

    /// `delete` for types with unique fields: the item and its guards in one transaction.
    pub(crate) async fn delete_with_unique(&self, key: &T::Key) -> Result<T, Error> {
        let entity = self.schema().type_name;
        let key_item = self.key_item(key)?;
        let old = self.get_raw(key_item.clone()).await?.ok_or(Error::NotFound { entity })?;
        let mut ph = Placeholders::default();
        let mut conds = vec![format!("attribute_exists({})", ph.name(&self.table.inner.conv.pk))];
        let mut guards = Vec::new();
        for u in self.schema().unique {
            let n = ph.name(u.attr);
            match unique_value(&old, u.attr) {
                Some(v) => {
                    let p = ph.value(AttributeValue::S(v.clone()));
                    conds.push(format!("{n} = {p}"));
                    guards.push(TxAction::Delete {
                        key: self.guard_key(u.attr, &v)?,
                        condition: None,
                        ph: Default::default(),
                    });
                }
                None => conds.push(format!("attribute_not_exists({n})")),
            }
        }
        let mut actions = vec![TxAction::Delete { key: key_item, condition: Some(conds.join(" AND ")), ph }];
        actions.extend(guards);
        let tx = Request::TransactWrite { table: self.table.inner.name.clone(), actions, token: None };
        match self.send(tx).await {
            Ok(_) => decode_item(old),
            Err(Error::TransactionCancelled(o)) if o.first() == Some(&ActionOutcome::ConditionFailed) => {
                Err(Error::Conflict { entity, reason: ConflictReason::ConditionFailed })
            }
            Err(e) => Err(e),
        }
    }
}
