//! Typed queries: partition values, sort-key conditions on template fields, pages (S8, S10).
//!
//! A sort-key condition names template fields in order; all but the last are equalities and the
//! last is compared. Because escaped values only contain characters that sort after `#`, and
//! every placeholder is followed by `#` or the end (checked by the derive), each comparison
//! becomes an exact `BETWEEN` or `begins_with` range that stays inside the entity's prefix:
//!
//! | condition | range                                         |
//! |-----------|-----------------------------------------------|
//! | `ge(v)`   | `BETWEEN base+v AND base+MAX`                 |
//! | `gt(v)`   | `BETWEEN base+v+"$" AND base+MAX`             |
//! | `le(v)`   | `BETWEEN base AND base+v+"#"+MAX`             |
//! | `lt(v)`   | `BETWEEN base AND base+pred(v)+MAX`           |
//!
//! where `base` is the rendered text before the compared field, `MAX` is U+10FFFF and
//! `pred(v)` is `v` with its last character decremented.
//!
//! On an index declared with field lists (a multi-attribute key, `crate::multi_key`) the same
//! `Keys` and `Sort` compile to typed conditions on the fields' own attributes instead: every
//! partition field must be given, and the sort fields left to right.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::Field;
use crate::error::{Error, ValidationErrors};
use crate::expr::{Filter, Placeholders};
use crate::key::{escape, KeyPart};
use crate::schema::{Segment, Template};

const MAX: char = '\u{10FFFF}';

/// Values of key-template fields, typed by `T`'s field handles.
#[derive(Debug, Clone)]
pub struct Keys<T> {
    pub(crate) values: Vec<(&'static str, Option<String>)>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Default for Keys<T> {
    fn default() -> Self {
        Keys { values: Vec::new(), _t: PhantomData }
    }
}

impl<T> Keys<T> {
    /// No values.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds the value of one field.
    pub fn with<V: KeyPart>(mut self, field: Field<T, V>, value: impl Into<V>) -> Self {
        let v: V = value.into();
        self.values.push((field.name(), v.key_part().map(|c| c.into_owned())));
        self
    }
    pub(crate) fn get(&self, field: &str) -> Option<&Option<String>> {
        self.values.iter().find(|(f, _)| *f == field).map(|(_, v)| v)
    }
}

#[derive(Debug, Clone)]
pub(crate) enum SortOp {
    Eq,
    BeginsWith,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A condition on the sort key of the table or an index, in template fields.
#[derive(Debug, Clone)]
pub struct Sort<T> {
    pub(crate) op: SortOp,
    pub(crate) keys: Keys<T>,
    pub(crate) hi: Option<Keys<T>>,
}

impl<T> Sort<T> {
    fn new(op: SortOp, keys: Keys<T>) -> Self {
        Sort { op, keys, hi: None }
    }
    /// The given fields are equal (a full key, or every item under that prefix group).
    pub fn eq(keys: Keys<T>) -> Self {
        Self::new(SortOp::Eq, keys)
    }
    /// The last given field starts with its value.
    pub fn begins_with(keys: Keys<T>) -> Self {
        Self::new(SortOp::BeginsWith, keys)
    }
    /// The last given field is less than its value.
    pub fn lt(keys: Keys<T>) -> Self {
        Self::new(SortOp::Lt, keys)
    }
    /// The last given field is at most its value.
    pub fn le(keys: Keys<T>) -> Self {
        Self::new(SortOp::Le, keys)
    }
    /// The last given field is greater than its value.
    pub fn gt(keys: Keys<T>) -> Self {
        Self::new(SortOp::Gt, keys)
    }
    /// The last given field is at least its value.
    pub fn ge(keys: Keys<T>) -> Self {
        Self::new(SortOp::Ge, keys)
    }
    /// The last given field lies between the two values (inclusive).
    pub fn between(lo: Keys<T>, hi: Keys<T>) -> Self {
        Sort { op: SortOp::Ge, keys: lo, hi: Some(hi) }
    }
}

/// A query of one entity type on the table or one of its GSIs.
#[derive(Debug, Clone)]
pub struct Query<T> {
    pub(crate) index: Option<&'static str>,
    pub(crate) partition: Keys<T>,
    pub(crate) sort: Option<Sort<T>>,
    pub(crate) filter: Option<Filter<T>>,
    pub(crate) limit: u32,
    pub(crate) descending: bool,
    pub(crate) cursor: Option<String>,
}

impl<T> Query<T> {
    fn new(index: Option<&'static str>) -> Self {
        Query {
            index,
            partition: Keys::new(),
            sort: None,
            filter: None,
            limit: 25,
            descending: false,
            cursor: None,
        }
    }
    /// On the table's primary key.
    pub fn table() -> Self {
        Self::new(None)
    }
    /// On the GSI `gsiN` declared by the entity (by templates or by field lists).
    pub fn index(name: &'static str) -> Self {
        Self::new(Some(name))
    }
    /// The partition key's template values (the tenant is filled from the scope).
    pub fn partition(mut self, keys: Keys<T>) -> Self {
        self.partition = keys;
        self
    }
    /// A sort-key condition; without one, every item of the type in the partition.
    pub fn sort(mut self, sort: Sort<T>) -> Self {
        self.sort = Some(sort);
        self
    }
    /// A filter on non-key fields (pages still come back full, S10).
    pub fn filter(mut self, filter: Filter<T>) -> Self {
        self.filter = Some(filter);
        self
    }
    /// Page size, 1 to 1000 (default 25).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }
    /// Newest (highest sort key) first.
    pub fn descending(mut self) -> Self {
        self.descending = true;
        self
    }
    /// Continue after a cursor returned by the previous page.
    pub fn after(mut self, cursor: Option<&str>) -> Self {
        self.cursor = cursor.map(str::to_string);
        self
    }
}

/// One page of results and the cursor of the next page, if more may remain (S10).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// At most `limit` items.
    pub items: Vec<T>,
    /// Opaque, authenticated; `None` when the listing is exhausted.
    pub cursor: Option<String>,
}

/// Compiles a sort condition on template `t` into key-condition text.
///
/// `value` gives raw values of fields; the caller puts the tenant there when the template uses
/// it. Fields must be given as a prefix of the template's fields.
pub(crate) fn sort_condition<T>(
    t: &Template,
    sort: Option<&Sort<T>>,
    extra: impl Fn(&str) -> Option<String>,
    sk: &str,
    ph: &mut Placeholders,
) -> Result<String, Error> {
    let name = ph.name(sk);
    let s = |v: String| AttributeValue::S(v);
    let Some(sort) = sort else {
        let fields = t.fields().count();
        if fields == 0 {
            return Ok(format!("{name} = {}", ph.value(s(t.literal_prefix()))));
        }
        return Ok(format!("begins_with({name}, {})", ph.value(s(t.literal_prefix()))));
    };
    let lo = prefix_parts(t, &sort.keys, &extra)?;
    let total = t.fields().count();
    let between = |ph: &mut Placeholders, a: String, b: String| {
        let (a, b) = (ph.value(s(a)), ph.value(s(b)));
        format!("{name} BETWEEN {a} AND {b}")
    };
    if let Some(hi) = &sort.hi {
        let hi = prefix_parts(t, hi, &extra)?;
        if lo.used == 0 || hi.used != lo.used || hi.base != lo.base {
            return Err(invalid("between needs the same fields on both sides, at least one"));
        }
        return Ok(between(ph, lo.through_value(), format!("{}#{MAX}", hi.through_value())));
    }
    match sort.op {
        SortOp::Eq if lo.used == total => Ok(format!("{name} = {}", ph.value(s(lo.full.clone())))),
        SortOp::Eq => Ok(format!("begins_with({name}, {})", ph.value(s(lo.full.clone())))),
        SortOp::BeginsWith => Ok(format!("begins_with({name}, {})", ph.value(s(lo.through_value())))),
        _ if lo.used == 0 => Err(invalid("a comparison needs at least one sort-key field")),
        SortOp::Ge => Ok(between(ph, lo.through_value(), format!("{}{MAX}", lo.base))),
        SortOp::Gt => Ok(between(ph, format!("{}$", lo.through_value()), format!("{}{MAX}", lo.base))),
        SortOp::Le => Ok(between(ph, lo.base.clone(), format!("{}#{MAX}", lo.through_value()))),
        SortOp::Lt => {
            let mut v: Vec<char> = lo.last_value.chars().collect();
            let last = v.pop().unwrap_or('$');
            let pred = char::from_u32(last as u32 - 1).unwrap_or('\u{D7FF}');
            let upper: String = v.into_iter().chain([pred, MAX]).collect();
            Ok(between(ph, lo.base.clone(), format!("{}{upper}", lo.base)))
        }
    }
}

fn invalid(message: &str) -> Error {
    Error::Validation(ValidationErrors::field("sort", message))
}

struct Parts {
    /// Rendered text before the last used field's value.
    base: String,
    /// The last used field's escaped value.
    last_value: String,
    /// Rendered text through the literal following the last used field.
    full: String,
    used: usize,
}

impl Parts {
    fn through_value(&self) -> String {
        format!("{}{}", self.base, self.last_value)
    }
}

fn prefix_parts<T>(
    t: &Template,
    keys: &Keys<T>,
    extra: &impl Fn(&str) -> Option<String>,
) -> Result<Parts, Error> {
    let mut p = Parts { base: String::new(), last_value: String::new(), full: String::new(), used: 0 };
    let mut stopped = false;
    for seg in t.segments {
        match seg {
            Segment::Lit(l) if !stopped => p.full.push_str(l),
            Segment::Lit(_) => {}
            Segment::Field(f) => {
                let raw = match keys.get(f) {
                    Some(Some(v)) => Some(v.clone()),
                    Some(None) => {
                        return Err(Error::Validation(ValidationErrors::field(*f, "absent value in a key")))
                    }
                    None => extra(f),
                };
                match raw {
                    Some(_) if stopped => {
                        return Err(Error::Validation(ValidationErrors::field(
                            *f,
                            format!("sort-key fields must be given in template order (`{}`)", t.source),
                        )))
                    }
                    Some(v) if v.is_empty() => {
                        return Err(Error::Validation(ValidationErrors::field(
                            *f,
                            "a key value cannot be empty",
                        )))
                    }
                    Some(v) => {
                        p.base = p.full.clone();
                        p.last_value = escape(&v);
                        p.full.push_str(&p.last_value);
                        p.used += 1;
                    }
                    None => stopped = true,
                }
            }
        }
    }
    for (f, _) in &keys.values {
        if !t.fields().any(|tf| tf == *f) {
            return Err(Error::Validation(ValidationErrors::field(
                *f,
                format!("not a field of `{}`", t.source),
            )));
        }
    }
    if p.used == 0 {
        p.base = p.full.clone();
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct R;
    const T: Template = Template {
        source: "REC#{day}#{id}",
        segments: &[Segment::Lit("REC#"), Segment::Field("day"), Segment::Lit("#"), Segment::Field("id")],
    };
    fn day() -> Field<R, String> {
        Field::new("day", "day")
    }
    fn id() -> Field<R, String> {
        Field::new("id", "id")
    }
    fn cond(sort: Sort<R>) -> (String, Vec<String>) {
        let mut ph = Placeholders::default();
        let text = sort_condition(&T, Some(&sort), |_| None, "sk", &mut ph).unwrap();
        let vals = ph
            .values
            .values()
            .map(|v| match v {
                AttributeValue::S(s) => s.replace(MAX, "<MAX>"),
                _ => String::new(),
            })
            .collect();
        (text, vals)
    }

    #[test]
    fn no_sort_lists_the_type_prefix() {
        let mut ph = Placeholders::default();
        assert_eq!(sort_condition::<R>(&T, None, |_| None, "sk", &mut ph).unwrap(), "begins_with(#n0, :v0)");
        assert_eq!(ph.values.get(":v0"), Some(&AttributeValue::S("REC#".into())));
    }

    #[test]
    fn eq_on_all_fields_is_an_exact_key_and_on_a_prefix_a_group() {
        assert_eq!(
            cond(Sort::eq(Keys::new().with(day(), "d1").with(id(), "x"))),
            ("#n0 = :v0".into(), vec!["REC#d1#x".into()])
        );
        assert_eq!(
            cond(Sort::eq(Keys::new().with(day(), "d1"))),
            ("begins_with(#n0, :v0)".into(), vec!["REC#d1#".into()])
        );
    }

    #[test]
    fn comparisons_become_ranges_inside_the_prefix() {
        assert_eq!(cond(Sort::ge(Keys::new().with(day(), "d5"))).1, vec!["REC#d5", "REC#<MAX>"]);
        assert_eq!(cond(Sort::gt(Keys::new().with(day(), "d5"))).1, vec!["REC#d5$", "REC#<MAX>"]);
        assert_eq!(cond(Sort::le(Keys::new().with(day(), "d5"))).1, vec!["REC#", "REC#d5#<MAX>"]);
        assert_eq!(cond(Sort::lt(Keys::new().with(day(), "d5"))).1, vec!["REC#", "REC#d4<MAX>"]);
        assert_eq!(
            cond(Sort::between(Keys::new().with(day(), "d1"), Keys::new().with(day(), "d3"))).1,
            vec!["REC#d1", "REC#d3#<MAX>"]
        );
    }

    #[test]
    fn sort_fields_out_of_order_are_refused() {
        let mut ph = Placeholders::default();
        let r =
            sort_condition(&T, Some(&Sort::<R>::eq(Keys::new().with(id(), "x"))), |_| None, "sk", &mut ph);
        assert!(matches!(r, Err(Error::Validation(_))));
    }

    #[test]
    fn sort_values_are_escaped() {
        assert_eq!(cond(Sort::begins_with(Keys::new().with(day(), "a#b"))).1, vec!["REC#a%23b"]);
    }
}
