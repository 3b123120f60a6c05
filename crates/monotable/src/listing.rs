//! Listings: `list`, `query`, `query_as` (filter + projection) and collections, all paginated
//! with authenticated cursors and full pages (S6, S8–S11, S14).
//!
//! Page filling: each page sends at most `read_budget` Query requests; the first asks for
//! `Limit = page size` and each further one for twice as many (up to 1000), since a filter
//! is trimming results. Each request starts from the previous `LastEvaluatedKey`. When a
//! response holds more matching items than the page still needs, the page takes what it needs
//! and its cursor is the key of the last item it kept; otherwise the cursor is the last
//! `LastEvaluatedKey` (which, if the budget ran out, is after the last item examined).
//! Either way, resuming there neither skips nor repeats an item.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tracing::Instrument;

use crate::auth::Scope;
use crate::cursor::{fingerprint, Binding};
use crate::entity::{decode_items, Collection, Entity, EntityKey, Item};
use crate::error::{Error, ForbiddenReason, ValidationErrors};
use crate::expr::{Filter, Placeholders, Projection};
use crate::query::{sort_condition, Page, Query};
use crate::repo::Repository;
use crate::request::{AvJson, Request};
use crate::schema::Template;
use crate::send::send;
use crate::table::Table;

/// The most items one page may hold.
pub const MAX_PAGE: u32 = 1000;

impl<T: Entity> Repository<T> {
    /// Plans the first request of a query and the binding its cursors carry.
    pub(crate) fn plan_query(
        &self,
        q: &Query<T>,
        projection: Option<&[&'static str]>,
    ) -> Result<(Request, Paging), Error> {
        let s = self.schema();
        let conv = &self.table.inner.conv;
        if q.limit == 0 || q.limit > MAX_PAGE {
            return Err(Error::Validation(ValidationErrors::field(
                "limit",
                format!("must be 1 to {MAX_PAGE}"),
            )));
        }
        if let Some(tf) = s.tenant {
            if q.partition.get(tf).is_some() {
                // S12: the tenant comes from the scope, never from the request.
                return Err(Error::Forbidden(ForbiddenReason::TenantMismatch));
            }
        }
        let mut key_attrs = vec![conv.pk.clone(), conv.sk.clone()];
        let (pk_t, sk_t, pk_attr, sk_attr, index_name) = match q.index {
            None => (&s.pk, Some(&s.sk), conv.pk.clone(), conv.sk.clone(), None),
            Some(name) => {
                let index = s.index(name).ok_or_else(|| {
                    Error::Validation(ValidationErrors::field(
                        "index",
                        format!("`{}` declares no {name}", s.type_name),
                    ))
                })?;
                if let Some(m) = &index.multi {
                    key_attrs.extend(m.fields().map(|f| f.attr.to_string()));
                } else {
                    key_attrs.push(conv.index_pk(name));
                    if index.sk.is_some() {
                        key_attrs.push(conv.index_sk(name));
                    }
                }
                (
                    &index.pk,
                    index.sk.as_ref(),
                    conv.index_pk(name),
                    conv.index_sk(name),
                    Some(conv.index_name(name)),
                )
            }
        };
        let tenant_in_pk = s.tenant.is_some_and(|tf| pk_t.fields().any(|f| f == tf));
        if s.tenant.is_some() && !tenant_in_pk && !self.scope.admin {
            // S14: a partition without the tenant spans tenants.
            return Err(Error::Forbidden(ForbiddenReason::AdminRequired));
        }
        for (f, _) in &q.partition.values {
            if !pk_t.fields().any(|pf| pf == *f) {
                return Err(Error::Validation(ValidationErrors::field(
                    *f,
                    format!("not a field of `{}`", pk_t.source),
                )));
            }
        }
        let mut ph = Placeholders::default();
        let tenant = self.scope.tenant().map(str::to_string);
        let tenant_field = s.tenant;
        let extra = |f: &str| if Some(f) == tenant_field { tenant.clone() } else { None };
        let multi = q.index.and_then(|name| s.index(name)).and_then(|i| i.multi.as_ref());
        let key_condition = if let (Some(m), Some(name)) = (multi, q.index) {
            crate::multi_key::key_condition(m, name, &q.partition, q.sort.as_ref(), extra, &mut ph)?
        } else {
            self.template_key_condition(q, pk_t, sk_t, &pk_attr, &sk_attr, extra, &mut ph)?
        };
        let mut filters = Vec::new();
        if q.index.is_some() {
            // Index overloading: other types may share the partition; keep only this one.
            let et = ph.name(&conv.entity_type);
            filters.push(format!("{et} = {}", ph.value(AttributeValue::S(s.type_name.into()))));
        }
        if let Some(f) = &q.filter {
            filters.push(format!("({})", f.compile(&mut ph)?));
        }
        let filter = (!filters.is_empty()).then(|| filters.join(" AND "));
        let projection = projection.map(|attrs| {
            let mut p = Projection::<T>::new();
            p.attrs = attrs.to_vec();
            // Key attributes are always read so a page can end its cursor on any item.
            let always: Vec<&str> = key_attrs.iter().map(String::as_str).collect();
            p.compile(&mut ph, &always)
        });
        let paging = Paging {
            tenant: self.scope.cursor_tenant(),
            target: format!("{}/{}", s.type_name, q.index.unwrap_or("table")),
            shape: Shape::Query,
            key_attrs,
        };
        let req = Request::Query {
            table: self.table.inner.name.clone(),
            index: index_name,
            key_condition,
            filter,
            projection,
            ph,
            limit: Some(q.limit as i32),
            forward: !q.descending,
            start: None,
        };
        Ok((req, paging))
    }

    /// The key condition of a query on the table or a GSI keyed by templates: the rendered
    /// partition key, then the sort condition on the sort-key template.
    #[allow(clippy::too_many_arguments)]
    fn template_key_condition(
        &self,
        q: &Query<T>,
        pk_t: &Template,
        sk_t: Option<&Template>,
        pk_attr: &str,
        sk_attr: &str,
        extra: impl Fn(&str) -> Option<String>,
        ph: &mut Placeholders,
    ) -> Result<String, Error> {
        let pk = self.render_with(pk_t, pk_attr, |f| {
            q.partition.get(f).and_then(|v| v.as_deref().map(std::borrow::Cow::Borrowed))
        })?;
        let pk_cond = format!("{} = {}", ph.name(pk_attr), ph.value(AttributeValue::S(pk)));
        Ok(match sk_t {
            Some(t) => {
                format!("{pk_cond} AND {}", sort_condition(t, q.sort.as_ref(), extra, sk_attr, ph)?)
            }
            None if q.sort.is_some() => {
                return Err(Error::Validation(ValidationErrors::field("sort", "this index has no sort key")))
            }
            None => pk_cond,
        })
    }

    /// Runs a typed query on the table or a GSI (S8).
    pub async fn query(&self, q: Query<T>) -> Result<Page<T>, Error> {
        let span = self.span("query", q.index);
        async {
            let (req, paging) = self.plan_query(&q, None)?;
            fill_page(&self.table, req, paging, q.limit, q.cursor.as_deref(), decode_items).await
        }
        .instrument(span)
        .await
    }

    /// Every item of this type in the scope's partition, a page at a time (S8, S10).
    pub async fn list(&self, limit: u32, cursor: Option<&str>) -> Result<Page<T>, Error> {
        self.query(Query::table().limit(limit).after(cursor)).await
    }

    /// Every item of this type in the scope's partition that matches `filter` (S8, S11); the
    /// filter is in domain field names. Pages are still full (S10). For a projection, use
    /// [`Repository::query_as`] with `Query::table().filter(..)`.
    pub async fn find_all(
        &self,
        filter: Filter<T>,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<Page<T>, Error> {
        self.query(Query::table().filter(filter).limit(limit).after(cursor)).await
    }

    /// A query decoded into a projection type `P` that reads only the listed fields (S11).
    pub async fn query_as<P: DeserializeOwned>(
        &self,
        q: Query<T>,
        projection: Projection<T>,
    ) -> Result<Page<P>, Error> {
        let span = self.span("query", q.index);
        async {
            if projection.attrs.is_empty() {
                return Err(Error::Validation(ValidationErrors::field(
                    "projection",
                    "name at least one field",
                )));
            }
            let (req, paging) = self.plan_query(&q, Some(&projection.attrs))?;
            fill_page(&self.table, req, paging, q.limit, q.cursor.as_deref(), decode_items).await
        }
        .instrument(span)
        .await
    }
}

/// What a listing's cursors carry and which attributes make up an item's position.
pub(crate) struct Paging {
    pub tenant: String,
    pub target: String,
    pub shape: Shape,
    pub key_attrs: Vec<String>,
}

/// Which parts of the Query make up the fingerprint its cursors are bound to.
pub(crate) enum Shape {
    /// A typed query: index, key condition, filter, projection, placeholders and direction.
    Query,
    /// A collection: key condition, filter and values.
    Collection,
}

impl Paging {
    /// The binding of this listing's cursors. Computed only when a cursor is opened or sealed;
    /// the fingerprint covers everything of `req` but its start key and limit.
    fn binding(&self, req: &Request) -> Binding<'_> {
        let fingerprint = match req {
            Request::Query { index, key_condition, filter, projection, ph, forward, .. } => {
                match self.shape {
                    Shape::Query => fingerprint(&(
                        index,
                        key_condition,
                        filter,
                        projection,
                        Pairs(&ph.names, String::as_str),
                        Pairs(&ph.values, AvJson),
                        forward,
                    )),
                    Shape::Collection => fingerprint(&(key_condition, filter, Pairs(&ph.values, AvJson))),
                }
            }
            _ => fingerprint(&req.to_json()),
        };
        Binding { tenant: &self.tenant, target: &self.target, fingerprint }
    }
}

/// A placeholder map written as a list of `[placeholder, value]` pairs (its fingerprint form).
struct Pairs<'a, V, F>(&'a BTreeMap<String, V>, F);

impl<'a, V, F, S> Serialize for Pairs<'a, V, F>
where
    F: Fn(&'a V) -> S,
    S: Serialize,
{
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        s.collect_seq(self.0.iter().map(|(k, v)| (k, (self.1)(v))))
    }
}

/// Runs a query a page at a time (see the module docs).
pub(crate) async fn fill_page<P>(
    table: &Table,
    mut req: Request,
    paging: Paging,
    limit: u32,
    cursor: Option<&str>,
    decode: impl Fn(Vec<Item>) -> Result<Vec<P>, Error>,
) -> Result<Page<P>, Error> {
    let mut start = match cursor {
        Some(c) => Some(table.inner.cursor.open(c, &paging.binding(&req))?),
        None => None,
    };
    let wanted = limit as usize;
    let mut items = Vec::new();
    let mut ask = limit;
    for _ in 0..table.inner.read_budget {
        if let Request::Query { limit: l, start: s, .. } = &mut req {
            *l = Some(ask as i32);
            *s = start.take();
        }
        ask = (ask.saturating_mul(2)).min(MAX_PAGE);
        let out = send(&table.inner, "query", req.clone()).await?;
        let room = wanted - items.len();
        let mut got = out.items;
        let overflow = got.len() > room;
        let mut last_kept = None;
        if overflow {
            got.truncate(room);
            last_kept = got.last().map(|item| position(item, &paging.key_attrs));
        }
        // One decoder call per response: decoding item by item interleaves the decoder's
        // small frees with its large allocations (each item's map is rebuilt), and glibc's
        // allocator then consolidates its free lists once per item (measured: 3.5 times as
        // many consolidations per page, and the SDK's own parsing slower after them).
        let decoded = decode(got)?;
        if items.is_empty() {
            items = decoded;
        } else {
            items.extend(decoded);
        }
        start = if overflow { last_kept } else { out.last_key };
        if items.len() >= wanted || start.is_none() {
            break;
        }
    }
    let cursor = start.map(|k| table.inner.cursor.seal(&k, &paging.binding(&req)));
    Ok(Page { items, cursor })
}

/// The key attributes of an item: where a listing resumes after it.
fn position(item: &Item, key_attrs: &[String]) -> Item {
    key_attrs.iter().filter_map(|a| item.get(a).map(|v| (a.clone(), v.clone()))).collect()
}

impl Table {
    /// One Query over a partition returning several entity types, decoded by entity type
    /// into the collection enum `C` (S1, S3, S6). The partition is the table partition of
    /// `anchor`'s key (its tenant comes from the scope).
    pub async fn collection<C: Collection, K: EntityKey>(
        &self,
        scope: &Scope,
        anchor: &K,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<Page<C>, Error> {
        let repo = self.repo::<K::Entity>(scope)?;
        let span = repo.span("collection", None);
        async {
            let members = C::members();
            if members.is_empty() || members.len() > 100 {
                return Err(Error::Limit { what: "collection members", limit: 100, actual: members.len() });
            }
            if limit == 0 || limit > MAX_PAGE {
                return Err(Error::Validation(ValidationErrors::field(
                    "limit",
                    format!("must be 1 to {MAX_PAGE}"),
                )));
            }
            let conv = &self.inner.conv;
            let s = <K::Entity as Entity>::schema();
            let pk = repo.render_with(&s.pk, "pk", |f| anchor.key_part(f))?;
            let mut ph = Placeholders::default();
            let key_condition = format!("{} = {}", ph.name(&conv.pk), ph.value(AttributeValue::S(pk)));
            let et = ph.name(&conv.entity_type);
            let types: Vec<String> =
                members.iter().map(|m| ph.value(AttributeValue::S(m.type_name.into()))).collect();
            let filter = Some(format!("{et} IN ({})", types.join(", ")));
            let names: Vec<String> = members.iter().map(|m| m.type_name.to_string()).collect();
            let req = Request::Query {
                table: self.inner.name.clone(),
                index: None,
                key_condition,
                filter,
                projection: None,
                ph,
                limit: Some(limit as i32),
                forward: true,
                start: None,
            };
            let et_attr = conv.entity_type.clone();
            let paging = Paging {
                tenant: scope.cursor_tenant(),
                target: format!("collection/{}", names.join(",")),
                shape: Shape::Collection,
                key_attrs: vec![conv.pk.clone(), conv.sk.clone()],
            };
            let page = fill_page(self, req, paging, limit, cursor, |items: Vec<Item>| {
                let decode = |item: Item| {
                    let ty = match item.get(&et_attr) {
                        Some(AttributeValue::S(t)) => t.clone(),
                        _ => String::new(),
                    };
                    C::decode(&ty, item)
                };
                items.into_iter().map(decode).collect()
            })
            .await?;
            Ok(Page { items: page.items.into_iter().flatten().collect(), cursor: page.cursor })
        }
        .instrument(span)
        .await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::request::av_json;

    #[test]
    fn s10_fingerprints_keep_their_form() {
        // Cursors issued before the fingerprint was written straight into the hash still open:
        // the hashed text is the one the JSON value rendered.
        let mut ph = Placeholders::default();
        let kc = format!("{} = {}", ph.name("pk"), ph.value(AttributeValue::S("ORG#o".into())));
        let filter = Some(format!("{} = {}", ph.name("entityType"), ph.value(AttributeValue::S("R".into()))));
        let req = Request::Query {
            table: "t".into(),
            index: Some("gsi1".into()),
            key_condition: kc.clone(),
            filter: filter.clone(),
            projection: Some("#n0, #n1".into()),
            ph: ph.clone(),
            limit: Some(20),
            forward: false,
            start: None,
        };
        let names: Vec<(&String, &String)> = ph.names.iter().collect();
        let values: Vec<(&String, serde_json::Value)> =
            ph.values.iter().map(|(k, v)| (k, av_json(v))).collect();
        let paging = |shape| Paging { tenant: "o".into(), target: "R/gsi1".into(), shape, key_attrs: vec![] };
        let old = fingerprint(&json!([Some("gsi1"), kc, filter, Some("#n0, #n1"), names, values, false]));
        assert_eq!(paging(Shape::Query).binding(&req).fingerprint, old);
        let old = fingerprint(&json!([kc, filter, values]));
        assert_eq!(paging(Shape::Collection).binding(&req).fingerprint, old);
    }
}
