//! `Repository<T>`: typed single-item operations in one scope (S4, S8, S12, S13, S15, S16).
//!
//! Invariants:
//! - the partition's tenant value comes only from the [`Scope`]; a key struct has no tenant
//!   field, and an item whose tenant field differs from the scope is refused with
//!   `Forbidden(TenantMismatch)` before any request is built;
//! - every write path stamps `updated`, and `created`/`created-by` only when the item is new
//!   (`if_not_exists` on upserts, a condition on creates);
//! - every operation is planned into a [`Request`] first, so dry runs show exactly what is sent.

use std::borrow::Cow;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use tracing::Instrument;

use crate::auth::{Scope, TenantKind};
use crate::entity::{decode_item, encode_item, Entity, EntityKey, Item, Partial};
use crate::error::{ConflictReason, Error, ForbiddenReason, ValidationErrors};
use crate::expr::{Placeholders, Update};
use crate::key::render;
use crate::request::{Request, TxAction};
use crate::schema::{EntitySchema, Template};
use crate::send::{send, Response};
use crate::table::Table;
use crate::update_op::UpdateOp;

/// Typed access to one entity type within one scope. Obtain it with [`Table::repo`].
pub struct Repository<T> {
    pub(crate) table: Table,
    pub(crate) scope: Scope,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Repository<T> {
    fn clone(&self) -> Self {
        Repository { table: self.table.clone(), scope: self.scope.clone(), _t: PhantomData }
    }
}

impl Table {
    /// The repository of `T` in a scope. Refused if `T` is not registered or the scope is for
    /// another kind of tenant (an organisation scope for an owner-partitioned type).
    pub fn repo<T: Entity>(&self, scope: &Scope) -> Result<Repository<T>, Error> {
        let schema = T::schema();
        if !self.inner.entities.iter().any(|e| std::ptr::eq(*e, schema)) {
            return Err(Error::Config(format!(
                "entity type `{}` is not registered with the table",
                schema.type_name
            )));
        }
        if let (Some(_), Some((kind, _))) = (schema.tenant, &scope.tenant) {
            let want = if schema.tenant_is_owner { TenantKind::Owner } else { TenantKind::Org };
            if *kind != want {
                return Err(Error::Forbidden(ForbiddenReason::TenantMismatch));
            }
        }
        Ok(Repository::new(self.clone(), scope.clone()))
    }
}

/// The current time as an ISO 8601 UTC string with milliseconds (sorts lexically, S4).
pub(crate) fn now_iso() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// Dry-run planning of a repository's operations: the requests, not sent.
pub struct Plan<'r, T> {
    repo: &'r Repository<T>,
    now: String,
}

impl<T: Entity> Plan<'_, T> {
    /// The `GetItem` of `get`.
    pub fn get(&self, key: &T::Key) -> Result<Request, Error> {
        self.repo.plan_get(key, false)
    }
    /// The request of `create` (a `TransactWriteItems` when the type has unique fields).
    pub fn create(&self, item: &T) -> Result<Request, Error> {
        self.repo.plan_create(item, &self.now)
    }
    /// The `UpdateItem` upsert of `put` (for types without unique fields).
    pub fn put(&self, item: &T) -> Result<Request, Error> {
        self.repo.plan_put(item, &self.now).map(|(req, _)| req)
    }
    /// The `UpdateItem` of `update`.
    pub fn update(&self, key: &T::Key, update: &Update<T>) -> Result<Request, Error> {
        self.repo.plan_update(key, update, &self.now)
    }
    /// The `DeleteItem` of `delete`.
    pub fn delete(&self, key: &T::Key) -> Result<Request, Error> {
        self.repo.plan_delete(key)
    }
    /// The first `Query` of `query`.
    pub fn query(&self, query: &crate::query::Query<T>) -> Result<Request, Error> {
        self.repo.plan_query(query, None).map(|(req, _)| req)
    }
}

impl<T: Entity> Repository<T> {
    pub(crate) fn new(table: Table, scope: Scope) -> Self {
        Repository { table, scope, _t: PhantomData }
    }

    pub(crate) fn schema(&self) -> &'static EntitySchema {
        T::schema()
    }

    /// The scope this repository acts in.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Plans operations without sending them (timestamps taken now).
    pub fn plan(&self) -> Plan<'_, T> {
        Plan { repo: self, now: now_iso() }
    }

    /// Plans operations with a fixed timestamp, for snapshot tests.
    pub fn plan_at(&self, now: &str) -> Plan<'_, T> {
        Plan { repo: self, now: now.to_string() }
    }

    pub(crate) fn span(&self, operation: &'static str, index: Option<&str>) -> tracing::Span {
        tracing::info_span!(
            "monotable",
            entity = self.schema().type_name,
            operation,
            index = index.unwrap_or("table"),
            table = %self.table.inner.name,
            consumed_capacity = tracing::field::Empty,
        )
    }

    pub(crate) async fn send(&self, req: Request) -> Result<Response, Error> {
        send(&self.table.inner, self.schema().type_name, req).await
    }

    /// The scope's tenant value, required when the type has a tenant.
    pub(crate) fn tenant(&self) -> Result<Option<&str>, Error> {
        match self.schema().tenant {
            None => Ok(None),
            Some(_) => self.scope.tenant().map(Some).ok_or(Error::Forbidden(ForbiddenReason::NoTenant)),
        }
    }

    fn check_tenant(&self, item: &T) -> Result<(), Error> {
        if let (Some(field), Some(tenant)) = (self.schema().tenant, self.tenant()?) {
            if item.key_part(field).as_deref() != Some(tenant) {
                return Err(Error::Forbidden(ForbiddenReason::TenantMismatch));
            }
        }
        Ok(())
    }

    pub(crate) fn render_with<'a>(
        &'a self,
        t: &Template,
        what: &str,
        get: impl Fn(&str) -> Option<Cow<'a, str>>,
    ) -> Result<String, Error> {
        let tenant_field = self.schema().tenant;
        let tenant = match tenant_field {
            Some(tf) if t.fields().any(|f| f == tf) => self.tenant()?,
            _ => None,
        };
        render(t, what, |f| if Some(f) == tenant_field { tenant.map(Cow::Borrowed) } else { get(f) })
    }

    /// The primary key of a key struct, with the tenant from the scope.
    pub(crate) fn key_item(&self, key: &T::Key) -> Result<Item, Error> {
        let conv = &self.table.inner.conv;
        let s = self.schema();
        let pk = self.render_with(&s.pk, "pk", |f| key.key_part(f))?;
        let sk = self.render_with(&s.sk, "sk", |f| key.key_part(f))?;
        Ok(Item::from([(conv.pk.clone(), AttributeValue::S(pk)), (conv.sk.clone(), AttributeValue::S(sk))]))
    }

    /// The full stored form of an item (without created stamps), after validation.
    pub(crate) fn stored_item(&self, item: &T, now: &str) -> Result<Item, Error> {
        item.validate().map_err(Error::Validation)?;
        self.check_tenant(item)?;
        let conv = &self.table.inner.conv;
        let s = self.schema();
        let mut map = encode_item(item)?;
        let pk = self.render_with(&s.pk, "pk", |f| item.key_part(f))?;
        let sk = self.render_with(&s.sk, "sk", |f| item.key_part(f))?;
        map.insert(conv.pk.clone(), AttributeValue::S(pk));
        map.insert(conv.sk.clone(), AttributeValue::S(sk));
        map.insert(conv.entity_type.clone(), AttributeValue::S(s.type_name.into()));
        map.insert(conv.updated.clone(), AttributeValue::S(now.into()));
        for index in s.indexes {
            if let Some(m) = &index.multi {
                // The fields are the index key: nothing to render (crate::multi_key).
                crate::multi_key::store(m, index.name, &mut map)?;
                continue;
            }
            let present = index
                .pk
                .fields()
                .chain(index.sk.iter().flat_map(|t| t.fields()))
                .all(|f| item.key_part(f).is_some());
            if !present {
                continue; // sparse index: the item is not indexed
            }
            let ipk = render(&index.pk, &conv.index_pk(index.name), |f| item.key_part(f))?;
            map.insert(conv.index_pk(index.name), AttributeValue::S(ipk));
            if let Some(t) = &index.sk {
                let isk = render(t, &conv.index_sk(index.name), |f| item.key_part(f))?;
                map.insert(conv.index_sk(index.name), AttributeValue::S(isk));
            }
        }
        if let Some(ttl) = s.ttl_attr {
            if let Some(v @ AttributeValue::N(_)) = map.get(ttl) {
                map.insert(conv.ttl.clone(), v.clone());
            }
        }
        Ok(map)
    }

    fn plan_get(&self, key: &T::Key, consistent: bool) -> Result<Request, Error> {
        Ok(Request::GetItem {
            table: self.table.inner.name.clone(),
            key: self.key_item(key)?,
            projection: None,
            ph: Placeholders::default(),
            consistent,
        })
    }

    /// The stored item for `create`: stamps and version 1.
    pub(crate) fn created_item(&self, item: &T, now: &str) -> Result<Item, Error> {
        let conv = &self.table.inner.conv;
        let mut map = self.stored_item(item, now)?;
        map.insert(conv.created.clone(), AttributeValue::S(now.into()));
        map.insert(conv.created_by.clone(), AttributeValue::S(self.scope.caller.clone()));
        if let Some(v) = self.schema().version_attr {
            map.insert(v.into(), AttributeValue::N("1".into()));
        }
        Ok(map)
    }

    pub(crate) fn not_exists(&self, ph: &mut Placeholders) -> String {
        format!("attribute_not_exists({})", ph.name(&self.table.inner.conv.pk))
    }

    fn plan_create(&self, item: &T, now: &str) -> Result<Request, Error> {
        self.create_request(self.created_item(item, now)?)
    }

    /// The request that stores the created item `map` if its key is free.
    fn create_request(&self, map: Item) -> Result<Request, Error> {
        let mut ph = Placeholders::default();
        let condition = Some(self.not_exists(&mut ph));
        if self.schema().unique.is_empty() {
            return Ok(Request::PutItem { table: self.table.inner.name.clone(), item: map, condition, ph });
        }
        let guards = self.guard_puts(&map)?;
        let mut actions = vec![TxAction::Put { item: map, condition, ph }];
        actions.extend(guards);
        Ok(Request::TransactWrite { table: self.table.inner.name.clone(), actions, token: None })
    }

    /// Reads the item by key; `None` if absent.
    pub async fn find(&self, key: &T::Key) -> Result<Option<T>, Error> {
        let span = self.span("get", None);
        async {
            let req = self.plan_get(key, false)?;
            let out = self.send(req).await?;
            out.item.map(decode_item).transpose()
        }
        .instrument(span)
        .await
    }

    /// Reads the item by key; [`Error::NotFound`] if absent.
    pub async fn get(&self, key: &T::Key) -> Result<T, Error> {
        self.find(key).await?.ok_or(Error::NotFound { entity: self.schema().type_name })
    }

    pub(crate) async fn get_raw(&self, key: Item) -> Result<Option<Item>, Error> {
        let req = Request::GetItem {
            table: self.table.inner.name.clone(),
            key,
            projection: None,
            ph: Placeholders::default(),
            consistent: true,
        };
        Ok(self.send(req).await?.item)
    }

    /// Creates the item if its key is free (S15). A retry with the same content returns the
    /// stored item; a different item under the same key is a
    /// [`Conflict`](Error::Conflict)`(AlreadyExists)`; a taken unique value is
    /// `Conflict(UniqueTaken)`.
    pub async fn create(&self, item: &T) -> Result<T, Error> {
        let span = self.span("create", None);
        async {
            let map = self.created_item(item, &now_iso())?;
            let req = self.create_request(map.clone())?;
            match self.send(req).await {
                Ok(_) => decode_item(map),
                Err(Error::Conflict { reason: ConflictReason::ConditionFailed, .. }) => {
                    self.replay_or_conflict(map).await
                }
                Err(Error::TransactionCancelled(outcomes)) => {
                    if outcomes.first() == Some(&crate::error::ActionOutcome::ConditionFailed) {
                        return self.replay_or_conflict(map).await;
                    }
                    let guards = outcomes.get(1..).unwrap_or_default();
                    Err(self.unique_conflict(&map, guards).unwrap_or(Error::TransactionCancelled(outcomes)))
                }
                Err(e) => Err(e),
            }
        }
        .instrument(span)
        .await
    }

    /// After a failed create: the same content already stored is success, anything else a conflict.
    async fn replay_or_conflict(&self, ours: Item) -> Result<T, Error> {
        let conv = &self.table.inner.conv;
        let key = Item::from([
            (conv.pk.clone(), ours.get(&conv.pk).cloned().unwrap_or(AttributeValue::Null(true))),
            (conv.sk.clone(), ours.get(&conv.sk).cloned().unwrap_or(AttributeValue::Null(true))),
        ]);
        let stamps = [&conv.created, &conv.updated, &conv.created_by];
        let strip = |m: &Item| -> Item {
            m.iter().filter(|(k, _)| !stamps.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        match self.get_raw(key).await? {
            Some(stored) if strip(&stored) == strip(&ours) => decode_item(stored),
            _ => Err(Error::Conflict {
                entity: self.schema().type_name,
                reason: ConflictReason::AlreadyExists,
            }),
        }
    }

    /// Builds the upsert of `put`; the second value is the expected version, if versioned.
    pub(crate) fn plan_put(&self, item: &T, now: &str) -> Result<(Request, Option<i64>), Error> {
        let conv = &self.table.inner.conv;
        let map = self.stored_item(item, now)?;
        let mut gone: Vec<String> =
            crate::multi_key::absent(self.schema(), &map).into_iter().map(str::to_string).collect();
        for index in self.schema().indexes.iter().filter(|i| i.multi.is_none()) {
            // A sparse template index: `stored_item` wrote no key for it, so a key the stored
            // item had from an earlier write must go too (S7).
            if !map.contains_key(&conv.index_pk(index.name)) {
                gone.push(conv.index_pk(index.name));
                if index.sk.is_some() {
                    gone.push(conv.index_sk(index.name));
                }
            }
        }
        let version_attr = self.schema().version_attr;
        let current = version_attr.map(|va| version_of(&map, va)).transpose()?;
        let mut ph = Placeholders::default();
        let mut sets = Vec::with_capacity(map.len() + 2);
        let mut key = Item::new();
        let mut attrs: Vec<(String, AttributeValue)> = map.into_iter().collect();
        attrs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (attr, v) in attrs {
            if attr == conv.pk || attr == conv.sk {
                key.insert(attr, v);
            } else if Some(attr.as_str()) != version_attr {
                sets.push(format!("{} = {}", ph.name(&attr), ph.value(v)));
            }
        }
        let created = ph.name(&conv.created);
        let by = ph.name(&conv.created_by);
        let now_v = ph.value(AttributeValue::S(now.into()));
        sets.push(format!("{created} = if_not_exists({created}, {now_v})"));
        let caller = ph.value(AttributeValue::S(self.scope.caller.clone()));
        sets.push(format!("{by} = if_not_exists({by}, {caller})"));
        let mut condition = None;
        let mut expected = None;
        if let (Some(va), Some(current)) = (version_attr, current) {
            let n = ph.name(va);
            let pk = ph.name(&conv.pk);
            let exp = ph.value(AttributeValue::N(current.to_string()));
            let next = ph.value(AttributeValue::N((current + 1).to_string()));
            sets.push(format!("{n} = {next}"));
            condition = Some(format!("attribute_not_exists({pk}) OR {n} = {exp}"));
            expected = Some(current);
        }
        let mut update = format!("SET {}", sets.join(", "));
        // An upsert replaces the item: an index key it no longer has must go, or the stored
        // item would stay in that index.
        let gone: Vec<String> = gone.iter().map(|a| ph.name(a)).collect();
        if !gone.is_empty() {
            update.push_str(&format!(" REMOVE {}", gone.join(", ")));
        }
        Ok((
            Request::UpdateItem { table: self.table.inner.name.clone(), key, update, condition, ph },
            expected,
        ))
    }

    /// Creates or replaces the item (upsert). `created`/`created-by` survive replacement.
    /// With a version field, the stored version must equal the item's (or the item be new);
    /// the stored version becomes one more. A mismatch is `Conflict(VersionMismatch)` (S16).
    pub async fn put(&self, item: &T) -> Result<T, Error> {
        let span = self.span("put", None);
        async {
            if !self.schema().unique.is_empty() {
                return self.put_with_unique(item).await;
            }
            let (req, expected) = self.plan_put(item, &now_iso())?;
            match self.send(req).await {
                Ok(out) => decode_item(out.item.unwrap_or_default()),
                Err(Error::Conflict { entity, reason: ConflictReason::ConditionFailed }) => {
                    Err(Error::Conflict {
                        entity,
                        reason: ConflictReason::VersionMismatch { expected: expected.unwrap_or_default() },
                    })
                }
                Err(e) => Err(e),
            }
        }
        .instrument(span)
        .await
    }

    fn plan_update(&self, key: &T::Key, update: &Update<T>, now: &str) -> Result<Request, Error> {
        if let Some(e) = &update.invalid {
            return Err(Error::Validation(e.clone()));
        }
        let s = self.schema();
        let conv = &self.table.inner.conv;
        let key_item = self.key_item(key)?;
        let mut ph = Placeholders::default();
        let (mut sets, mut removes, mut adds) = (Vec::new(), Vec::new(), Vec::new());
        for op in &update.ops {
            let (name, attr) = match op {
                UpdateOp::Set(n, a, _) | UpdateOp::Remove(n, a) | UpdateOp::Add(n, a, _) => (*n, *a),
            };
            if s.is_table_key_field(name) {
                return Err(Error::Validation(ValidationErrors::field(
                    name,
                    "a key field cannot be updated; delete and create",
                )));
            }
            if s.unique.iter().any(|u| u.name == name) {
                return Err(Error::Validation(ValidationErrors::field(
                    name,
                    "a unique field changes only through put",
                )));
            }
            if Some(attr) == s.version_attr {
                return Err(Error::Validation(ValidationErrors::field(
                    name,
                    "the version is managed by the library",
                )));
            }
            match op {
                UpdateOp::Set(n, a, v) if crate::multi_key::set_removes(s, n, v)? => removes.push(ph.name(a)),
                UpdateOp::Set(_, a, v) => sets.push(format!("{} = {}", ph.name(a), ph.value(v.clone()))),
                UpdateOp::Remove(_, a) => removes.push(ph.name(a)),
                UpdateOp::Add(_, a, v) => adds.push(format!("{} {}", ph.name(a), ph.value(v.clone()))),
            }
        }
        T::validate_partial(&Partial::new(&update.ops)).map_err(Error::Validation)?;
        self.recompute_indexes(key, update, &mut ph, &mut sets, &mut removes)?;
        let upd = ph.name(&conv.updated);
        let now_v = ph.value(AttributeValue::S(now.into()));
        sets.push(format!("{upd} = {now_v}"));
        let mut conds = vec![format!("attribute_exists({})", ph.name(&conv.pk))];
        if let Some(va) = s.version_attr {
            let n = ph.name(va);
            match update.expected_version {
                Some(exp) => {
                    let e = ph.value(AttributeValue::N(exp.to_string()));
                    let next = ph.value(AttributeValue::N((exp + 1).to_string()));
                    conds.push(format!("{n} = {e}"));
                    sets.push(format!("{n} = {next}"));
                }
                None => {
                    let zero = ph.value(AttributeValue::N("0".into()));
                    let one = ph.value(AttributeValue::N("1".into()));
                    sets.push(format!("{n} = if_not_exists({n}, {zero}) + {one}"));
                }
            }
        } else if update.expected_version.is_some() {
            return Err(Error::Validation(ValidationErrors::field(
                "version",
                "this entity type has no version field",
            )));
        }
        if let Some(c) = &update.condition {
            conds.push(format!("({})", c.compile(&mut ph)?));
        }
        let mut text = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            text.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        if !adds.is_empty() {
            text.push_str(&format!(" ADD {}", adds.join(", ")));
        }
        Ok(Request::UpdateItem {
            table: self.table.inner.name.clone(),
            key: key_item,
            update: text,
            condition: Some(conds.join(" AND ")),
            ph,
        })
    }

    /// When an update touches a field of a GSI key, the GSI key attributes are rewritten from
    /// the update and the key; a field neither provides is a validation error.
    fn recompute_indexes(
        &self,
        key: &T::Key,
        update: &Update<T>,
        ph: &mut Placeholders,
        sets: &mut Vec<String>,
        removes: &mut Vec<String>,
    ) -> Result<(), Error> {
        let conv = &self.table.inner.conv;
        let tenant = self.tenant()?;
        // A multi-attribute key is the fields themselves: the update writes them directly.
        for index in self.schema().indexes.iter().filter(|i| i.multi.is_none()) {
            let fields: Vec<&str> =
                index.pk.fields().chain(index.sk.iter().flat_map(|t| t.fields())).collect();
            let touched = update.ops.iter().any(|op| match op {
                UpdateOp::Set(n, ..) | UpdateOp::Remove(n, _) | UpdateOp::Add(n, ..) => fields.contains(n),
            });
            if !touched {
                continue;
            }
            let mut absent = false;
            let mut values: Vec<(&str, String)> = Vec::new();
            for f in &fields {
                let from_update = update.ops.iter().rev().find_map(|op| match op {
                    UpdateOp::Set(n, _, v) if n == f => Some(Some(v)),
                    UpdateOp::Remove(n, _) if n == f => Some(None),
                    _ => None,
                });
                let raw = match from_update {
                    Some(Some(AttributeValue::S(s))) => Some(s.clone()),
                    Some(Some(AttributeValue::N(n))) => Some(n.clone()),
                    Some(Some(AttributeValue::Null(_))) | Some(None) => None,
                    Some(Some(_)) => {
                        return Err(Error::Validation(ValidationErrors::field(
                            *f,
                            "a key field must be a string or a number",
                        )))
                    }
                    None if Some(*f) == self.schema().tenant => tenant.map(str::to_string),
                    None => match key.key_part(f) {
                        Some(v) => Some(v.into_owned()),
                        None => {
                            return Err(Error::Validation(ValidationErrors::field(
                                *f,
                                format!(
                                    "the update changes the {} key, so it must also set `{f}`",
                                    index.name
                                ),
                            )))
                        }
                    },
                };
                match raw {
                    Some(v) => values.push((f, v)),
                    None => absent = true,
                }
            }
            let (pk_attr, sk_attr) = (conv.index_pk(index.name), conv.index_sk(index.name));
            if absent {
                removes.push(ph.name(&pk_attr));
                if index.sk.is_some() {
                    removes.push(ph.name(&sk_attr));
                }
                continue;
            }
            let get = |f: &str| values.iter().find(|(n, _)| *n == f).map(|(_, v)| Cow::Owned(v.clone()));
            let ipk = render(&index.pk, &pk_attr, get)?;
            sets.push(format!("{} = {}", ph.name(&pk_attr), ph.value(AttributeValue::S(ipk))));
            if let Some(t) = &index.sk {
                let isk = render(t, &sk_attr, get)?;
                sets.push(format!("{} = {}", ph.name(&sk_attr), ph.value(AttributeValue::S(isk))));
            }
        }
        Ok(())
    }

    /// Applies a typed partial update and returns the new item. The item must exist
    /// ([`Error::NotFound`]); with [`Update::expect_version`] a concurrent change is
    /// `Conflict(VersionMismatch)` (S16).
    ///
    /// Validation (S20), for types with `#[entity(validate)]`, before anything is sent: every
    /// field the update sets or removes must satisfy that field's own garde rules (a removed
    /// field is checked as `None`), with the type's garde context. garde's rules are per field,
    /// so this is what `validate` would report for those fields, with two limits that need the
    /// stored item and are refused rather than skipped: a rule that reads another field
    /// (`matches(other)`, or a `custom`/argument expression naming a field) is checked only
    /// when the update also sets that field, and is a field error otherwise; and `add` on a
    /// field with rules is a field error (its result is known only after the write; set the
    /// new value instead). Fields the update does not touch are not re-validated. Key, unique
    /// and version fields cannot be updated at all.
    pub async fn update(&self, key: &T::Key, update: Update<T>) -> Result<T, Error> {
        let span = self.span("update", None);
        async {
            let req = self.plan_update(key, &update, &now_iso())?;
            match self.send(req).await {
                Ok(out) => decode_item(out.item.unwrap_or_default()),
                Err(Error::Conflict { entity, reason: ConflictReason::ConditionFailed }) => {
                    if self.get_raw(self.key_item(key)?).await?.is_none() {
                        return Err(Error::NotFound { entity });
                    }
                    let reason = match update.expected_version {
                        Some(expected) => ConflictReason::VersionMismatch { expected },
                        None => ConflictReason::ConditionFailed,
                    };
                    Err(Error::Conflict { entity, reason })
                }
                Err(e) => Err(e),
            }
        }
        .instrument(span)
        .await
    }

    fn plan_delete(&self, key: &T::Key) -> Result<Request, Error> {
        let mut ph = Placeholders::default();
        let condition = Some(format!("attribute_exists({})", ph.name(&self.table.inner.conv.pk)));
        Ok(Request::DeleteItem {
            table: self.table.inner.name.clone(),
            key: self.key_item(key)?,
            condition,
            ph,
        })
    }

    /// Deletes the item and returns it; [`Error::NotFound`] if it did not exist. Unique guards
    /// go with it in one transaction.
    pub async fn delete(&self, key: &T::Key) -> Result<T, Error> {
        let span = self.span("delete", None);
        async {
            if !self.schema().unique.is_empty() {
                return self.delete_with_unique(key).await;
            }
            let req = self.plan_delete(key)?;
            match self.send(req).await {
                Ok(out) => decode_item(out.item.unwrap_or_default()),
                Err(Error::Conflict { entity, reason: ConflictReason::ConditionFailed }) => {
                    Err(Error::NotFound { entity })
                }
                Err(e) => Err(e),
            }
        }
        .instrument(span)
        .await
    }
}

/// The version number stored in `attr`.
pub(crate) fn version_of(map: &Item, attr: &str) -> Result<i64, Error> {
    match map.get(attr) {
        Some(AttributeValue::N(n)) => n
            .parse()
            .map_err(|_| Error::Validation(ValidationErrors::field(attr, "the version must be an integer"))),
        _ => Err(Error::Validation(ValidationErrors::field(attr, "the version must be an integer"))),
    }
}
