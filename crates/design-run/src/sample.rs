//! Sample items: generated from each entity type's fields, types, key templates and `count`
//! hint, deterministically for a seed.
//!
//! Invariants: a child (`count: {per: Parent}`, or by default the earliest earlier entity type
//! with the same partition template) copies the values of the fields its parent's table key
//! uses, so it lands in its parent's partitions. Every item has its own creation instant,
//! later for each item generated; a `timestamp` field holds that instant, other values are
//! random, so only a key built from a timestamp (or the created stamp) sorts by time.

use std::collections::BTreeMap;

use monotable_design::{Design, Entity, FieldType};
use monotable_types::{civil_from_days, AttributeValue, Item};

use crate::error::RunError;
use monotable_design::escape;

use crate::keys::{render, vars};
use crate::rng::Rng;

/// Items generated per parent item when no `count` says fewer: enough that a random key
/// order matches the time order only by a 1-in-40320 chance.
const PER_PARENT: u64 = 8;
/// Items of an entity type without a parent when no `count` says fewer.
const ROOTS: u64 = 3;
/// At most this many items in all, so a run stays well under a second.
const TOTAL: usize = 2000;
/// The first creation instant: 2024-01-01T00:00:00Z; each item is a minute later.
const EPOCH: i64 = 1_704_067_200;

/// One generated item.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    /// Its entity-type value (`_Unique` for a unique-constraint guard).
    pub type_name: String,
    /// The index of its entity type in the design; `None` for a guard.
    pub entity: Option<usize>,
    /// Field name (or template placeholder) to the text its key templates render.
    pub values: BTreeMap<String, String>,
    /// The stored item.
    pub item: Item,
}

/// Every generated item, and what generating more needs.
pub(crate) struct Samples {
    pub items: Vec<Sample>,
    seed: u64,
    next_instant: i64,
}

/// How many items of each entity type to generate, and from which parent.
struct Plan {
    entity: usize,
    parent: Option<usize>,
    n: u64,
}

fn plans(design: &Design) -> Result<Vec<Plan>, RunError> {
    let mut out = Vec::new();
    for (i, e) in design.entities.iter().enumerate() {
        let templates =
            [&e.pk, &e.sk].into_iter().chain(e.indexes.values().flat_map(|k| k.pk.iter().chain(&k.sk)));
        for t in templates {
            monotable_design::Template::parse(t)
                .map_err(|err| RunError::Design(format!("{}: {err}", e.name)))?;
        }
        let (parent, n) = match &e.count {
            Some(c) => match &c.per {
                Some(p) => {
                    let parent = design.entities.iter().position(|x| &x.name == p).ok_or_else(|| {
                        RunError::Design(format!("{}: `count.per` names the unknown entity type {p}", e.name))
                    })?;
                    (Some(parent), c.n.min(PER_PARENT))
                }
                None => (None, c.n.min(ROOTS)),
            },
            None => match design.entities[..i].iter().position(|x| x.pk == e.pk) {
                Some(p) => (Some(p), PER_PARENT),
                None => (None, ROOTS),
            },
        };
        out.push(Plan { entity: i, parent, n });
    }
    // Parents first; a cycle of `per` leaves some plan never ready.
    let mut ordered: Vec<Plan> = Vec::new();
    while !out.is_empty() {
        let ready = out
            .iter()
            .position(|p| p.parent.is_none_or(|q| ordered.iter().any(|o| o.entity == q)))
            .ok_or_else(|| RunError::Design("`count.per` forms a cycle".into()))?;
        ordered.push(out.remove(ready));
    }
    Ok(ordered)
}

/// Generates the samples of every entity type, with the guard items of unique fields.
pub(crate) fn generate(design: &Design, seed: u64) -> Result<Samples, RunError> {
    let mut samples = Samples { items: Vec::new(), seed, next_instant: 0 };
    let mut rng = Rng::new(seed);
    for plan in plans(design)? {
        let parents: Vec<Option<Sample>> = match plan.parent {
            None => vec![None],
            Some(p) => samples.items.iter().filter(|s| s.entity == Some(p)).cloned().map(Some).collect(),
        };
        for parent in &parents {
            for _ in 0..plan.n {
                if samples.items.len() >= TOTAL {
                    break;
                }
                let s = samples.make(design, plan.entity, parent.as_ref(), &mut rng);
                samples.items.extend(guards(design, &s));
                samples.items.push(s);
            }
        }
    }
    Ok(samples)
}

impl Samples {
    /// A new item of entity type `entity`, in the partition of the first item of its parent
    /// type; `k` tells several fresh items apart.
    pub fn fresh(&mut self, design: &Design, entity: usize, k: u64) -> Sample {
        let parent_type = plans(design).ok().and_then(|p| p.into_iter().find(|p| p.entity == entity)?.parent);
        let parent = parent_type.and_then(|p| self.items.iter().find(|s| s.entity == Some(p)).cloned());
        let mut rng = Rng::new(self.seed ^ 0x5EED_F00D_u64.wrapping_add(k).wrapping_mul(0x9E37));
        self.make(design, entity, parent.as_ref(), &mut rng)
    }

    fn make(&mut self, design: &Design, entity: usize, parent: Option<&Sample>, rng: &mut Rng) -> Sample {
        let e = &design.entities[entity];
        let instant = rfc3339(EPOCH + 60 * self.next_instant);
        self.next_instant += 1;
        let inherited: Vec<String> = match parent.and_then(|p| p.entity) {
            Some(p) => {
                [&design.entities[p].pk, &design.entities[p].sk].iter().flat_map(|t| vars(t)).collect()
            }
            None => Vec::new(),
        };
        let mut values = BTreeMap::new();
        let mut item = Item::default();
        for f in &e.fields {
            let from_parent =
                parent.filter(|_| inherited.contains(&f.name)).and_then(|p| p.values.get(&f.name));
            let (text, value) = match from_parent {
                Some(v) => (v.clone(), AttributeValue::S(v.clone())),
                None => value_of(e, &f.name, f.ty, f.size, &instant, rng),
            };
            let value = match (f.ty, from_parent) {
                (Some(FieldType::Number), Some(v)) => AttributeValue::number(v).unwrap_or(value),
                _ => value,
            };
            values.insert(f.name.clone(), text);
            item.insert(f.attr().into(), value);
        }
        // Placeholders that name no field still need a value to render.
        let templates =
            [&e.pk, &e.sk].into_iter().chain(e.indexes.values().flat_map(|k| k.pk.iter().chain(&k.sk)));
        for v in templates.flat_map(|t| vars(t)).collect::<Vec<_>>() {
            if let std::collections::btree_map::Entry::Vacant(slot) = values.entry(v) {
                let text =
                    parent.and_then(|p| p.values.get(slot.key())).cloned().unwrap_or_else(|| rng.word(12));
                slot.insert(text);
            }
        }
        let c = &design.conventions;
        let text = |t: &str| AttributeValue::S(render(t, &values).unwrap_or_default());
        item.insert(c.pk.as_str().into(), text(&e.pk));
        item.insert(c.sk.as_str().into(), text(&e.sk));
        item.insert(c.entity_type.as_str().into(), AttributeValue::S(e.name.clone()));
        if e.stamps {
            for a in [&c.created, &c.updated].into_iter().flatten() {
                item.insert(a.as_str().into(), AttributeValue::S(instant.clone()));
            }
            if let Some(a) = &c.created_by {
                item.insert(a.as_str().into(), AttributeValue::S("sample-user".into()));
            }
        }
        if let (Some(field), Some(attr)) = (&e.ttl, &c.ttl) {
            let stored = e.field(field).map_or(field.as_str(), |f| f.attr());
            if let Some(v) = item.get(stored).cloned() {
                item.insert(attr.as_str().into(), v);
            }
        }
        for (name, k) in &e.indexes {
            let Some(index) = design.index(name) else { continue };
            let Some((pk, sk)) = design.key_attrs(name) else { continue };
            if index.is_multi_key() {
                continue; // the fields themselves are the key
            }
            let pk_template = match index.kind {
                monotable_design::IndexKind::Lsi => None,
                monotable_design::IndexKind::Gsi => Some(k.pk.as_deref()),
            };
            match (pk_template, k.sk.as_deref(), pk.first(), sk.first()) {
                (Some(Some(p)), Some(s), Some(pk), Some(sk)) => {
                    item.insert(pk.as_str().into(), text(p));
                    item.insert(sk.as_str().into(), text(s));
                }
                (None, Some(s), _, Some(sk)) => {
                    item.insert(sk.as_str().into(), text(s));
                }
                _ => {}
            }
        }
        Sample { type_name: e.name.clone(), entity: Some(entity), values, item }
    }
}

/// A field's value: the text templates render and the stored attribute value.
fn value_of(
    e: &Entity,
    name: &str,
    ty: Option<FieldType>,
    size: Option<u32>,
    instant: &str,
    rng: &mut Rng,
) -> (String, AttributeValue) {
    let len = size.map_or(12, |s| s as usize);
    let number = |text: String| {
        let v = AttributeValue::number(&text).unwrap_or(AttributeValue::S(text.clone()));
        (text, v)
    };
    if e.version_field.as_deref() == Some(name) {
        return number("1".into());
    }
    if e.ttl.as_deref() == Some(name) {
        // A year after 2033-05-18: never expired while the run lasts.
        return number((2_000_000_000 + rng.below(31_536_000)).to_string());
    }
    match ty {
        Some(FieldType::Number) => number(rng.below(1_000_000).to_string()),
        Some(FieldType::Bool) => {
            let b = rng.below(2) == 1;
            (b.to_string(), AttributeValue::Bool(b))
        }
        Some(FieldType::Binary) => {
            let bytes: Vec<u8> = (0..len.max(1)).map(|_| rng.below(256) as u8).collect();
            let hex = bytes.iter().map(|b| format!("{b:02x}")).collect();
            (hex, AttributeValue::B(bytes))
        }
        Some(FieldType::Timestamp) => (instant.to_string(), AttributeValue::S(instant.to_string())),
        Some(FieldType::Enum) => {
            let v = ["alpha", "beta", "gamma"][rng.below(3) as usize].to_string();
            (v.clone(), AttributeValue::S(v))
        }
        Some(FieldType::List) => {
            let w = rng.word(len);
            (w.clone(), AttributeValue::L(vec![AttributeValue::S(w)]))
        }
        Some(FieldType::Map) => {
            let w = rng.word(len);
            (w.clone(), AttributeValue::M(Item::from_iter([("value", AttributeValue::S(w))])))
        }
        Some(FieldType::String) | None => {
            let w = rng.word(len.max(1));
            (w.clone(), AttributeValue::S(w))
        }
    }
}

/// The guard items the library writes beside an item of a type with unique fields:
/// `_UNIQUE#{type}#{field}#{value}` / `_UNIQUE` with the entity type `_Unique` and the owner's
/// table key as `owner_<pk>`/`owner_<sk>` (`crates/monotable/src/unique.rs`, `internal.rs`).
pub(crate) fn guards(design: &Design, s: &Sample) -> Vec<Sample> {
    let Some(e) = s.entity.map(|i| &design.entities[i]) else { return Vec::new() };
    let c = &design.conventions;
    let mut out = Vec::new();
    for u in &e.unique {
        let attr = e.field(u).map_or(u.as_str(), |f| f.attr());
        let value = match s.item.get(attr) {
            Some(AttributeValue::S(v)) => v.clone(),
            Some(AttributeValue::N(n)) => n.to_string(),
            _ => continue,
        };
        let pk = format!("_UNIQUE#{}#{}#{}", escape(&e.name), escape(attr), escape(&value));
        let mut item = Item::default();
        item.insert(c.pk.as_str().into(), AttributeValue::S(pk));
        item.insert(c.sk.as_str().into(), AttributeValue::S("_UNIQUE".into()));
        item.insert(c.entity_type.as_str().into(), AttributeValue::S("_Unique".into()));
        for a in [&c.pk, &c.sk] {
            if let Some(v) = s.item.get(a) {
                item.insert(format!("owner_{a}").into(), v.clone());
            }
        }
        out.push(Sample { type_name: "_Unique".into(), entity: None, values: BTreeMap::new(), item });
    }
    out
}

/// Epoch seconds as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", s / 3600, s / 60 % 60, s % 60)
}
