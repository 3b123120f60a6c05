//! Filters, projections and updates in domain field names, compiled to DynamoDB expressions
//! (S11).
//!
//! Invariant: no user value and no attribute name is ever spliced into expression text; every
//! name becomes `#nN` and every value `:vN` through [`Placeholders`].

use std::collections::BTreeMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::entity::{encode_value, Field};
use crate::error::{Error, ValidationErrors};
use crate::update_op::UpdateOp;

/// The name and value placeholders of one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placeholders {
    /// `#nN` to attribute name.
    pub names: BTreeMap<String, String>,
    /// `:vN` to value.
    pub values: BTreeMap<String, AttributeValue>,
}

impl Placeholders {
    /// The placeholder of an attribute name (reused when the same name occurs again).
    pub fn name(&mut self, attr: &str) -> String {
        if let Some((k, _)) = self.names.iter().find(|(_, v)| v.as_str() == attr) {
            return k.clone();
        }
        let key = format!("#n{}", self.names.len());
        self.names.insert(key.clone(), attr.to_string());
        key
    }

    /// A fresh placeholder for a value.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let key = format!(":v{}", self.values.len());
        self.values.insert(key.clone(), value);
        key
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone)]
enum Node {
    Cmp(&'static str, Cmp, AttributeValue),
    Between(&'static str, AttributeValue, AttributeValue),
    BeginsWith(&'static str, AttributeValue),
    Contains(&'static str, AttributeValue),
    In(&'static str, Vec<AttributeValue>),
    Exists(&'static str),
    NotExists(&'static str),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    /// A value that did not encode; reported when the filter is compiled.
    Invalid(String, String),
}

/// A typed filter on `T`, built from `T::FIELDS`: `Record::FIELDS.status.eq("open")`.
#[derive(Debug, Clone)]
pub struct Filter<T> {
    node: Node,
    _t: PhantomData<fn() -> T>,
}

impl<T> Filter<T> {
    fn new(node: Node) -> Self {
        Filter { node, _t: PhantomData }
    }
    /// Both hold.
    pub fn and(self, other: Filter<T>) -> Self {
        Filter::new(Node::And(Box::new(self.node), Box::new(other.node)))
    }
    /// Either holds.
    pub fn or(self, other: Filter<T>) -> Self {
        Filter::new(Node::Or(Box::new(self.node), Box::new(other.node)))
    }
    /// Negation.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Filter::new(Node::Not(Box::new(self.node)))
    }

    /// Compiles into expression text, registering placeholders.
    pub(crate) fn compile(&self, ph: &mut Placeholders) -> Result<String, Error> {
        compile(&self.node, ph)
    }
}

fn compile(node: &Node, ph: &mut Placeholders) -> Result<String, Error> {
    Ok(match node {
        Node::Cmp(a, op, v) => {
            let op = match op {
                Cmp::Eq => "=",
                Cmp::Ne => "<>",
                Cmp::Lt => "<",
                Cmp::Le => "<=",
                Cmp::Gt => ">",
                Cmp::Ge => ">=",
            };
            format!("{} {op} {}", ph.name(a), ph.value(v.clone()))
        }
        Node::Between(a, lo, hi) => {
            format!("{} BETWEEN {} AND {}", ph.name(a), ph.value(lo.clone()), ph.value(hi.clone()))
        }
        Node::BeginsWith(a, v) => format!("begins_with({}, {})", ph.name(a), ph.value(v.clone())),
        Node::Contains(a, v) => format!("contains({}, {})", ph.name(a), ph.value(v.clone())),
        Node::In(a, vs) => {
            if vs.is_empty() || vs.len() > 100 {
                return Err(Error::Limit { what: "IN operands", limit: 100, actual: vs.len() });
            }
            let name = ph.name(a);
            let vals: Vec<String> = vs.iter().map(|v| ph.value(v.clone())).collect();
            format!("{name} IN ({})", vals.join(", "))
        }
        Node::Exists(a) => format!("attribute_exists({})", ph.name(a)),
        Node::NotExists(a) => format!("attribute_not_exists({})", ph.name(a)),
        Node::And(l, r) => format!("({}) AND ({})", compile(l, ph)?, compile(r, ph)?),
        Node::Or(l, r) => format!("({}) OR ({})", compile(l, ph)?, compile(r, ph)?),
        Node::Not(n) => format!("NOT ({})", compile(n, ph)?),
        Node::Invalid(field, message) => {
            return Err(Error::Validation(ValidationErrors::field(field.clone(), message.clone())))
        }
    })
}

impl<T, V: Serialize> Field<T, V> {
    fn value_node(&self, v: &V, make: impl FnOnce(AttributeValue) -> Node) -> Filter<T> {
        match encode_value(self.name(), v) {
            Ok(av) => Filter::new(make(av)),
            Err(e) => Filter::new(Node::Invalid(self.name().into(), e.to_string())),
        }
    }
    fn cmp(&self, op: Cmp, v: impl Into<V>) -> Filter<T> {
        let attr = self.attr();
        self.value_node(&v.into(), |av| Node::Cmp(attr, op, av))
    }
    /// `field = value`.
    pub fn eq(&self, v: impl Into<V>) -> Filter<T> {
        self.cmp(Cmp::Eq, v)
    }
    /// `field <> value`.
    pub fn ne(&self, v: impl Into<V>) -> Filter<T> {
        self.cmp(Cmp::Ne, v)
    }
    /// `field < value`.
    pub fn lt(&self, v: impl Into<V>) -> Filter<T> {
        self.cmp(Cmp::Lt, v)
    }
    /// `field <= value`.
    pub fn le(&self, v: impl Into<V>) -> Filter<T> {
        self.cmp(Cmp::Le, v)
    }
    /// `field > value`.
    pub fn gt(&self, v: impl Into<V>) -> Filter<T> {
        self.cmp(Cmp::Gt, v)
    }
    /// `field >= value`.
    pub fn ge(&self, v: impl Into<V>) -> Filter<T> {
        self.cmp(Cmp::Ge, v)
    }
    /// `field BETWEEN lo AND hi`.
    pub fn between(&self, lo: impl Into<V>, hi: impl Into<V>) -> Filter<T> {
        let attr = self.attr();
        let (lo, hi) = (lo.into(), hi.into());
        match (encode_value(self.name(), &lo), encode_value(self.name(), &hi)) {
            (Ok(lo), Ok(hi)) => Filter::new(Node::Between(attr, lo, hi)),
            (Err(e), _) | (_, Err(e)) => Filter::new(Node::Invalid(self.name().into(), e.to_string())),
        }
    }
    /// `field IN (values…)` (1 to 100 values).
    pub fn is_in(&self, values: impl IntoIterator<Item = V>) -> Filter<T> {
        let mut out = Vec::new();
        for v in values {
            match encode_value(self.name(), &v) {
                Ok(av) => out.push(av),
                Err(e) => return Filter::new(Node::Invalid(self.name().into(), e.to_string())),
            }
        }
        Filter::new(Node::In(self.attr(), out))
    }
    /// `attribute_exists(field)`.
    pub fn exists(&self) -> Filter<T> {
        Filter::new(Node::Exists(self.attr()))
    }
    /// `attribute_not_exists(field)`.
    pub fn not_exists(&self) -> Filter<T> {
        Filter::new(Node::NotExists(self.attr()))
    }
}

impl<T> Field<T, String> {
    /// `begins_with(field, prefix)`.
    pub fn begins_with(&self, prefix: impl Into<String>) -> Filter<T> {
        Filter::new(Node::BeginsWith(self.attr(), AttributeValue::S(prefix.into())))
    }
    /// `contains(field, substring)`.
    pub fn contains(&self, part: impl Into<String>) -> Filter<T> {
        Filter::new(Node::Contains(self.attr(), AttributeValue::S(part.into())))
    }
}

/// A projection: the fields to read, in domain names.
#[derive(Debug, Clone, Default)]
pub struct Projection<T> {
    pub(crate) attrs: Vec<&'static str>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Projection<T> {
    /// An empty projection; add fields with [`Projection::field`].
    pub fn new() -> Self {
        Projection { attrs: Vec::new(), _t: PhantomData }
    }
    /// Adds a field.
    pub fn field<V>(mut self, f: Field<T, V>) -> Self {
        self.attrs.push(f.attr());
        self
    }
    pub(crate) fn compile(&self, ph: &mut Placeholders, always: &[&str]) -> String {
        let mut names: Vec<String> = self.attrs.iter().map(|a| ph.name(a)).collect();
        for a in always {
            let n = ph.name(a);
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names.join(", ")
    }
}

/// A typed partial update of `T` (S8, S16): `Update::new().set(Record::FIELDS.status, "done")`.
#[derive(Debug, Clone)]
pub struct Update<T> {
    pub(crate) ops: Vec<UpdateOp>,
    pub(crate) expected_version: Option<i64>,
    pub(crate) condition: Option<Filter<T>>,
    pub(crate) invalid: Option<ValidationErrors>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Default for Update<T> {
    fn default() -> Self {
        Update { ops: Vec::new(), expected_version: None, condition: None, invalid: None, _t: PhantomData }
    }
}

impl<T> Update<T> {
    /// An empty update.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets a field.
    pub fn set<V: Serialize>(mut self, f: Field<T, V>, v: impl Into<V>) -> Self {
        match encode_value(f.name(), &v.into()) {
            Ok(av) => self.ops.push(UpdateOp::Set(f.name(), f.attr(), av)),
            Err(e) => self.invalid = Some(ValidationErrors::field(f.name(), e.to_string())),
        }
        self
    }
    /// Removes an (optional) field.
    pub fn remove<V>(mut self, f: Field<T, Option<V>>) -> Self {
        self.ops.push(UpdateOp::Remove(f.name(), f.attr()));
        self
    }
    /// Adds to a number field atomically.
    pub fn add<V: Serialize>(mut self, f: Field<T, V>, delta: V) -> Self {
        match encode_value(f.name(), &delta) {
            Ok(av) => self.ops.push(UpdateOp::Add(f.name(), f.attr(), av)),
            Err(e) => self.invalid = Some(ValidationErrors::field(f.name(), e.to_string())),
        }
        self
    }
    /// Requires the stored version to be `version` (the one the caller read); the write then
    /// stores `version + 1`. A mismatch is [`Error::Conflict`] (S16).
    pub fn expect_version(mut self, version: i64) -> Self {
        self.expected_version = Some(version);
        self
    }
    /// An extra condition that must hold on the stored item.
    pub fn when(mut self, condition: Filter<T>) -> Self {
        self.condition = Some(condition);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Doc;

    #[test]
    fn s11_values_and_names_always_go_through_placeholders() {
        let status: Field<Doc, String> = Field::new("status", "status");
        let evil = "x') OR attribute_exists(pk";
        let f = status.eq(evil).and(status.begins_with("a").not());
        let mut ph = Placeholders::default();
        let text = f.compile(&mut ph).unwrap();
        assert_eq!(text, "(#n0 = :v0) AND (NOT (begins_with(#n0, :v1)))");
        assert!(!text.contains(evil));
        assert_eq!(ph.values.get(":v0"), Some(&AttributeValue::S(evil.into())));
        assert_eq!(ph.names.get("#n0").map(String::as_str), Some("status"));
    }

    #[test]
    fn in_with_too_many_values_is_a_limit_error() {
        let n: Field<Doc, u32> = Field::new("n", "n");
        let mut ph = Placeholders::default();
        assert!(matches!(n.is_in(0..101).compile(&mut ph), Err(Error::Limit { limit: 100, .. })));
    }
}
