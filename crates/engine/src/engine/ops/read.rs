//! Query and Scan: key ranges over a table or index keyspace, the 1 MB page rule (counted on
//! items read, before the filter), Limit, Select, filters, projections and LastEvaluatedKey.

use std::hash::{Hash, Hasher};
use std::ops::Bound;
use std::sync::Arc;

use monotable_expr::{Condition, ExpressionKind, KeyCondition, Params, Projection, SortKeyOp};
use monotable_types::{AttributeValue, Item};

use crate::api::*;
use crate::engine::core::capacity::{self, Report};
use crate::engine::core::index_projection;
use crate::engine::core::inline_budget;
use crate::engine::core::legacy;
use crate::engine::core::params::{check_placeholders, expr_err};
use crate::engine::core::util::{project, table_for_item_op};
use crate::engine::core::Inner;
use crate::keys::{encode_attr, encode_bytes_prefix, encode_value, prefix_end};
use crate::storage::{KeyRange, Keyspace};
use crate::table::{Index, KeySchema, Schema, Table};
use crate::validate::{Constraints, MAX_GSI_KEY_ELEMENTS};
use crate::Error;

/// DynamoDB's page size limit: 1 MB of items read.
pub(crate) const PAGE_BYTES: usize = 1024 * 1024;

/// Where a read runs and how its entries map back to keys.
struct Target {
    table: Arc<Table>,
    schema: Arc<Schema>,
    index: Option<Arc<Index>>,
}

impl Target {
    fn keyspace(&self) -> &Arc<dyn Keyspace> {
        match &self.index {
            Some(i) => &i.keyspace,
            None => &self.table.base,
        }
    }

    /// Refuses a projection of attributes a global index does not project (not checked with
    /// `Select=COUNT`, which returns no attributes; see `index_projection`).
    fn check_projection(&self, select: Select, projection: Option<&Projection>) -> Result<(), Error> {
        if select == Select::Count {
            return Ok(());
        }
        index_projection::check_read_projection(self.index.as_deref(), &self.schema.key, projection)
    }

    /// The key schema that orders this keyspace.
    fn order_key(&self) -> &KeySchema {
        self.index.as_ref().map_or(&self.schema.key, |i| &i.key)
    }

    /// LastEvaluatedKey for an entry: the table key, plus the index key for index reads.
    fn last_key(&self, item: &SharedItem) -> Item {
        let mut out = self.schema.key.extract_shared(item);
        if let Some(i) = &self.index {
            out.extend(i.key.extract_shared(item));
        }
        out
    }

    /// Encodes an ExclusiveStartKey into this keyspace's key, checking its shape.
    /// The storage key an `ExclusiveStartKey` names: exactly the table key plus, on an index,
    /// the index key, with the right types. Otherwise "The provided starting key is invalid",
    /// which a Scan of a table completes with ": The provided key element does not match the
    /// schema" (a Query or a Scan of an index does not). Source: DynamoDB's answers for Scan
    /// and Query of tables and global indexes, recorded in ExtendDB pull requests 66 and 86
    /// (2026-05) and floci pull request 1443.
    fn start_key(&self, esk: &Item, op: ReadOp) -> Result<Vec<u8>, Error> {
        let invalid = || match (op, &self.index) {
            (ReadOp::Scan, None) => Error::validation(
                "The provided starting key is invalid: The provided key element does not match the schema",
            ),
            _ => Error::validation("The provided starting key is invalid"),
        };
        let mut wanted: Vec<&str> = self.schema.key.attrs().map(|a| a.name.as_str()).collect();
        if let Some(i) = &self.index {
            wanted.extend(i.key.attrs().map(|a| a.name.as_str()));
        }
        wanted.sort_unstable();
        wanted.dedup();
        if esk.len() != wanted.len() || !wanted.iter().all(|w| esk.contains_key(*w)) {
            return Err(invalid());
        }
        let mut out = Vec::with_capacity(64);
        if let Some(i) = &self.index {
            if !i.key.encode_from(esk, &mut out) {
                return Err(invalid());
            }
        }
        if !self.schema.key.encode_from(esk, &mut out) {
            return Err(invalid());
        }
        Ok(out)
    }
}

/// Which read an `ExclusiveStartKey` belongs to (their refusals differ).
#[derive(Clone, Copy)]
enum ReadOp {
    Query,
    Scan,
}

/// The values of an ExclusiveStartKey must be valid attribute values.
fn check_start_key(esk: Option<&Item>) -> Result<(), Error> {
    if let Some(esk) = esk {
        crate::validate::check_values(esk.values())
            .map_err(|e| Error::validation(format!("The provided starting key is invalid: {}", e.message)))?;
    }
    Ok(())
}

/// Finds the table and optional index of a read, with DynamoDB's checks.
fn target(
    inner: &Inner,
    table_name: Option<&str>,
    index_name: Option<&str>,
    consistent: bool,
) -> Result<Target, Error> {
    let table = table_for_item_op(inner, table_name)?;
    let schema = table.schema();
    let index = match index_name {
        None => None,
        Some(name) => Some(Arc::clone(schema.index(name).ok_or_else(|| {
            Error::validation(format!("The table does not have the specified index: {name}"))
        })?)),
    };
    if consistent && index.as_ref().is_some_and(|i| i.global) {
        return Err(Error::validation("Consistent reads are not supported on global secondary indexes"));
    }
    Ok(Target { table, schema, index })
}

/// What a read returns per item.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Select {
    AllAttributes,
    AllProjected,
    Specific,
    Count,
}

/// Which parameter a read's projection came from, for Select's messages.
#[derive(Clone, Copy)]
enum ProjectionSource {
    Expression,
    AttributesToGet,
}

impl ProjectionSource {
    fn of(expression: bool, attributes_to_get: bool) -> Option<ProjectionSource> {
        match (expression, attributes_to_get) {
            (true, _) => Some(ProjectionSource::Expression),
            (false, true) => Some(ProjectionSource::AttributesToGet),
            (false, false) => None,
        }
    }
}

/// Resolves `Select` against the projection and the target, with DynamoDB's messages. Query
/// reports the table-independent Select errors inside the `1 validation error detected: `
/// envelope and Scan reports them bare (`query` tells which); the GSI rule has one text for
/// both. Source: moto's AWS-verified tests `test_specific_attributes_requires_attribute_selection`,
/// `test_projection_expression_rejected_for_non_specific_select`,
/// `test_attributes_to_get_rejected_for_non_specific_select`,
/// `test_all_projected_attributes_rejected_for_table` and
/// `test_all_attributes_rejected_for_keys_only_gsi`, recorded against DynamoDB in 2025–2026.
fn select(
    value: Option<&str>,
    projection: Option<ProjectionSource>,
    target: &Target,
    query: bool,
) -> Result<Select, Error> {
    let envelope = |text: String| {
        Error::validation(if query { format!("1 validation error detected: {text}") } else { text })
    };
    let s = match value {
        None if projection.is_some() => Select::Specific,
        None if target.index.is_some() => Select::AllProjected,
        None => Select::AllAttributes,
        Some("ALL_ATTRIBUTES") => Select::AllAttributes,
        Some("ALL_PROJECTED_ATTRIBUTES") => Select::AllProjected,
        Some("SPECIFIC_ATTRIBUTES") => Select::Specific,
        Some(_) => Select::Count,
    };
    match (s, projection) {
        (Select::Specific, None) => {
            return Err(envelope(
                "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
                    .into(),
            ))
        }
        (Select::Specific, Some(_)) | (_, None) => {}
        (other, Some(source)) => {
            let parameter = match source {
                ProjectionSource::Expression => "ProjectionExpression",
                ProjectionSource::AttributesToGet => "AttributesToGet",
            };
            let what = match other {
                Select::AllAttributes => "ALL_ATTRIBUTES",
                Select::AllProjected => "ALL_PROJECTED_ATTRIBUTES",
                _ => "only the Count",
            };
            return Err(envelope(format!("Cannot specify the {parameter} when choosing to get {what}")));
        }
    }
    if s == Select::AllProjected && target.index.is_none() {
        return Err(envelope(
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName".into(),
        ));
    }
    if let (Select::AllAttributes, Some(i)) = (s, &target.index) {
        if i.global && i.projection != crate::table::ProjectionKind::All {
            return Err(Error::invalid_param(format!(
                "Select type ALL_ATTRIBUTES is not supported for global secondary index {} because its projection type is not ALL",
                i.name
            )));
        }
    }
    Ok(s)
}

/// One page's parameters.
struct Page<'a> {
    target: &'a Target,
    range: KeyRange,
    limit: Option<usize>,
    filter: Option<Condition>,
    projection: Option<Projection>,
    select: Select,
    segment: Option<(u64, u64)>,
    consistent: bool,
    report: Report,
}

fn segment_of(pk: Option<AttrRef<'_>>, total: u64) -> u64 {
    let mut bytes = Vec::new();
    if let Some(v) = pk {
        encode_attr(&v, &mut bytes);
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish() % total.max(1)
}

struct PageResult {
    items: Vec<SharedItem>,
    count: i64,
    scanned: i64,
    last: Option<Item>,
    consumed: Option<ConsumedCapacity>,
}

fn run_page(page: Page<'_>) -> Result<PageResult, Error> {
    let t = page.target;
    let mut items = Vec::new();
    let (mut count, mut scanned, mut bytes) = (0i64, 0i64, 0usize);
    let mut last: Option<Item> = None;
    let mut error: Option<Error> = None;
    let order_pk = &t.order_key().pk.name;
    let fetch_base = needs_base_item(&page);
    // Under a budget, the deleted entries the walk may pass count first, as bytes visited:
    // the store cannot tell which of them lie in the range, so all of them count.
    let budget = inline_budget::read_limit().map(|limit| {
        let deleted = usize::try_from(t.keyspace().deleted_entries()).unwrap_or(usize::MAX);
        limit.saturating_sub(deleted.saturating_mul(inline_budget::DELETED_ENTRY_BYTES))
    });
    if budget == Some(0) {
        inline_budget::exceeded();
        return Err(Error::internal("the read may walk past more deleted entries than its budget allows"));
    }
    t.keyspace().scan(&page.range, &mut |_, stored| {
        // The stored handle (a pointer copy): decoded only if a filter or projection reads it.
        let mut item = SharedItem::from_packed(stored.clone());
        if let Some((seg, total)) = page.segment {
            if segment_of(item.attr(order_pk), total) != seg {
                return true;
            }
        }
        if fetch_base {
            let mut key = Vec::with_capacity(64);
            t.schema.key.encode_from_shared(&item, &mut key);
            match t.table.base.get(&key) {
                Ok(Some(full)) => item = SharedItem::from_packed(full),
                Ok(None) => return true,
                Err(e) => {
                    error = Some(e.into());
                    return false;
                }
            }
        }
        scanned += 1;
        bytes += item.size();
        if budget.is_some_and(|b| bytes > b) {
            // An optimistic attempt reached its budget: stop here; the caller discards the
            // page and runs the read again without a budget (`inline_budget`).
            inline_budget::exceeded();
            error = Some(Error::internal("the read went past its budget"));
            return false;
        }
        if let Some(filter) = &page.filter {
            if !inline_budget::charge_evaluation(filter, &item) {
                error = Some(Error::internal("the filter went past its evaluation budget"));
                return false;
            }
        }
        if page.filter.as_ref().is_none_or(|f| f.eval(&item)) {
            count += 1;
            match (page.select, &t.index) {
                (Select::Count, _) => {}
                // A base item fetched only for the filter still answers with the index's attributes.
                (Select::AllProjected, Some(index)) if fetch_base => {
                    items.push(SharedItem::from_packed(index.project(&t.schema.key, &item)))
                }
                _ => items.push(project(item.clone(), page.projection.as_ref())),
            }
        }
        let full = page.limit.is_some_and(|l| scanned as usize >= l) || bytes >= PAGE_BYTES;
        if full {
            last = Some(t.last_key(&item));
        }
        !full
    })?;
    if let Some(e) = error {
        return Err(e);
    }
    let units = capacity::read_units(bytes, page.consistent);
    let index = t.index.as_ref().map(|i| (i.name.as_str(), i.global));
    Ok(PageResult {
        items,
        count,
        scanned,
        last,
        consumed: capacity::for_read(page.report, &t.table.name, index, units),
    })
}

/// True when a page over a local secondary index must read each matching item from the base
/// table: `Select=ALL_ATTRIBUTES`, or a projection or filter naming an attribute the index does
/// not hold. DynamoDB does the same fetch for LSIs and charges its read capacity ("If you query
/// or scan a local secondary index and request only attributes that are projected into that
/// index, the operation will read only the index and not the table. If any of the requested
/// attributes are not projected into the local secondary index, DynamoDB fetches each of these
/// attributes from the parent table", API_Query, `Select`). A global index never fetches.
fn needs_base_item(page: &Page<'_>) -> bool {
    let t = page.target;
    let Some(index) = t.index.as_ref().filter(|i| !i.global) else { return false };
    if index.projection == crate::table::ProjectionKind::All {
        return false;
    }
    if page.select == Select::AllAttributes {
        return true;
    }
    let held = |path: &monotable_expr::Path| match path.first() {
        Some(monotable_expr::PathElement::Attribute(name)) => index.holds(&t.schema.key, name),
        _ => true,
    };
    let projected = page.projection.as_ref().is_none_or(|p| p.paths.iter().all(held));
    let filtered = page.filter.as_ref().is_none_or(|f| f.paths().into_iter().all(held));
    !(projected && filtered)
}

/// True when `key` lies within `range` (either direction).
fn within(range: &KeyRange, key: &[u8]) -> bool {
    let above = match &range.start {
        Bound::Included(s) => key >= s.as_slice(),
        Bound::Excluded(s) => key > s.as_slice(),
        Bound::Unbounded => true,
    };
    let below = match &range.end {
        Bound::Included(e) => key <= e.as_slice(),
        Bound::Excluded(e) => key < e.as_slice(),
        Bound::Unbounded => true,
    };
    above && below
}

/// Intersects a key range with the ExclusiveStartKey.
fn after_start(mut range: KeyRange, start: Option<Vec<u8>>) -> KeyRange {
    if let Some(s) = start {
        if range.reverse {
            range.end = match range.end {
                Bound::Excluded(e) | Bound::Included(e) if e < s => Bound::Included(e),
                _ => Bound::Excluded(s),
            };
        } else {
            range.start = match range.start {
                Bound::Included(b) | Bound::Excluded(b) if b > s => Bound::Included(b),
                _ => Bound::Excluded(s),
            };
        }
    }
    range
}

/// The key range a key condition selects in a keyspace ordered by `key`.
fn key_range(key: &KeySchema, kc: &KeyCondition, reverse: bool) -> Result<KeyRange, Error> {
    let mismatch = || Error::invalid_param("Condition parameter type does not match schema type");
    if kc.partition_value.attribute_type() != key.pk.ty {
        return Err(mismatch());
    }
    let mut prefix = Vec::with_capacity(64);
    encode_value(&kc.partition_value, &mut prefix);
    // A multi-attribute key's further equalities extend the prefix: every component encoding
    // is prefix-free, so the entries matching them are one contiguous byte range.
    let ty_of = |name: &str| key.attrs().find(|a| a.name == name).map(|a| a.ty);
    for (name, v) in &kc.equalities {
        if ty_of(name) != Some(v.attribute_type()) {
            return Err(mismatch());
        }
        encode_value(v, &mut prefix);
    }
    let sort_attr = kc.sort.as_ref().and_then(|s| key.sort().find(|a| a.name == s.attribute));
    let with = |v: &AttributeValue| -> Result<Vec<u8>, Error> {
        let sk = sort_attr.ok_or_else(mismatch)?;
        if v.attribute_type() != sk.ty {
            return Err(mismatch());
        }
        let mut out = prefix.clone();
        encode_value(v, &mut out);
        Ok(out)
    };
    let (start, end) = match kc.sort.as_ref().map(|s| &s.op) {
        None => (Bound::Included(prefix.clone()), prefix_end(&prefix)),
        Some(SortKeyOp::Eq(v)) => {
            let k = with(v)?;
            (Bound::Included(k.clone()), prefix_end(&k))
        }
        Some(SortKeyOp::Lt(v)) => (Bound::Included(prefix.clone()), Bound::Excluded(with(v)?)),
        Some(SortKeyOp::Le(v)) => (Bound::Included(prefix.clone()), prefix_end(&with(v)?)),
        Some(SortKeyOp::Gt(v)) => (to_start(prefix_end(&with(v)?)), prefix_end(&prefix)),
        Some(SortKeyOp::Ge(v)) => (Bound::Included(with(v)?), prefix_end(&prefix)),
        Some(SortKeyOp::Between(a, b)) => {
            let (lo, hi) = (with(a)?, with(b)?);
            if let (Some(x), Some(y)) = (a.as_n(), b.as_n()) {
                if x > y {
                    return Err(between_error(a, b));
                }
            } else if lo > hi {
                return Err(between_error(a, b));
            }
            (Bound::Included(lo), prefix_end(&hi))
        }
        Some(SortKeyOp::BeginsWith(v)) => {
            let sk = sort_attr.ok_or_else(mismatch)?;
            let bytes: &[u8] = match v {
                AttributeValue::S(s) if sk.ty == monotable_types::AttributeType::S => s.as_bytes(),
                AttributeValue::B(b) if sk.ty == monotable_types::AttributeType::B => b,
                _ => return Err(mismatch()),
            };
            let mut p = prefix.clone();
            encode_bytes_prefix(bytes, &mut p);
            (Bound::Included(p.clone()), prefix_end(&p))
        }
    };
    Ok(KeyRange { start, end, reverse })
}

fn between_error(a: &AttributeValue, b: &AttributeValue) -> Error {
    Error::validation(format!(
        "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {{{}:{}}}, upper bound operand: AttributeValue: {{{}:{}}}",
        a.attribute_type(),
        monotable_expr::value_brief(a),
        b.attribute_type(),
        monotable_expr::value_brief(b)
    ))
}

fn to_start(end: Bound<Vec<u8>>) -> Bound<Vec<u8>> {
    match end {
        Bound::Excluded(v) => Bound::Included(v),
        other => other,
    }
}

/// DynamoDB refuses a Query filter that reads a key attribute of the keyspace queried (the
/// index's key for an index query), naming the partition key before the sort key. Sources:
/// dynalite's `query.js` and its recorded test "should return ValidationException if querying
/// range table with hash key in QueryFilter"; the message as DynamoDB returns it in user reports
/// ("Filter Expression can only contain non-primary key attributes: Primary key attribute: SK").
fn check_filter_keys(order: &KeySchema, filter: Option<&Condition>, parameter: &str) -> Result<(), Error> {
    let Some(filter) = filter else { return Ok(()) };
    let paths = filter.paths();
    for attr in order.attrs() {
        let named = paths
            .iter()
            .any(|p| matches!(p.first(), Some(monotable_expr::PathElement::Attribute(a)) if *a == attr.name));
        if named {
            return Err(Error::validation(format!(
                "{parameter} can only contain non-primary key attributes: Primary key attribute: {}",
                attr.name
            )));
        }
    }
    Ok(())
}

/// The constraint checks Query and Scan share. An empty `AttributesToGet` is one of them
/// (dynalite's test suite, written against DynamoDB: "Value '[]' at 'attributesToGet' failed
/// to satisfy constraint: Member must have length greater than or equal to 1").
///
/// A Limit below 1 is "Value at 'Limit' ..." for a Query and "Value '0' at 'limit' ..." for a
/// Scan (paritysuite/dynamodb-conformance, Query "exact error messages"; the Scan form as
/// ExtendDB records it from DynamoDB).
fn read_constraints(c: &mut Constraints, op: ReadOp, input: ReadConstraints<'_>) {
    c.name(input.table, "tableName", true);
    c.name(input.index, "indexName", false);
    match (op, input.limit) {
        (ReadOp::Query, Some(limit)) if limit < 1 => {
            c.fail_unechoed("Limit", "Member must have value greater than or equal to 1")
        }
        _ => c.range(input.limit, "limit", 1, None),
    }
    c.one_of(
        input.select,
        "select",
        &["SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"],
    );
    capacity::check(c, input.rcc);
    c.non_empty(input.attributes_to_get, "attributesToGet");
}

/// The [`ReadConstraints`] of a Query or Scan input, whose members have the same names.
macro_rules! constrained {
    ($input:expr) => {
        ReadConstraints {
            table: $input.table_name.as_deref(),
            index: $input.index_name.as_deref(),
            limit: $input.limit,
            select: $input.select.as_deref(),
            rcc: $input.return_consumed_capacity.as_deref(),
            attributes_to_get: $input.attributes_to_get.as_ref().map(Vec::len),
        }
    };
}

/// The members of a Query or Scan that [`read_constraints`] checks.
struct ReadConstraints<'a> {
    table: Option<&'a str>,
    index: Option<&'a str>,
    limit: Option<i64>,
    select: Option<&'a str>,
    rcc: Option<&'a str>,
    /// The length of `AttributesToGet`, when given.
    attributes_to_get: Option<usize>,
}

fn filter_condition(
    params: &mut Params<'_>,
    expression: Option<&str>,
    legacy_filter: Option<&std::collections::HashMap<String, crate::api::Condition>>,
    operator: Option<&str>,
) -> Result<Option<Condition>, Error> {
    match (expression, legacy_filter) {
        (Some(text), _) => params.condition(text, ExpressionKind::Filter).map(Some).map_err(expr_err),
        (None, Some(f)) => legacy::filter(f, operator),
        (None, None) => Ok(None),
    }
}

/// A Query's expressions are all read for syntax (emptiness included) before any is resolved
/// and before the table is looked up: an empty FilterExpression or ProjectionExpression is
/// reported ahead of a key condition that names no key, even of a table that does not exist.
/// Source: dynalite's test suite, written against DynamoDB (test/query.js, "empty
/// FilterExpression" and "empty ProjectionExpression" beside the KeyConditionExpression
/// `attribute_type(a, :a)` on table `abc`). The trees go into the per-thread cache, so
/// resolving them later parses nothing again.
fn check_syntax(input: &QueryInput) -> Result<(), Error> {
    let texts = [
        (input.key_condition_expression.as_deref(), ExpressionKind::KeyCondition),
        (input.filter_expression.as_deref(), ExpressionKind::Filter),
        (input.projection_expression.as_deref(), ExpressionKind::Projection),
    ];
    for (text, kind) in texts {
        if let Some(text) = text {
            monotable_expr::check_syntax(text, kind).map_err(expr_err)?;
        }
    }
    Ok(())
}

pub(in crate::engine) fn query(inner: &Inner, input: QueryInput) -> Result<QueryOutput, Error> {
    let mut c = Constraints::default();
    read_constraints(&mut c, ReadOp::Query, constrained!(input));
    c.finish()?;
    legacy::check_mixing(
        &[
            ("AttributesToGet", input.attributes_to_get.is_some()),
            ("QueryFilter", input.query_filter.is_some()),
            ("ConditionalOperator", input.conditional_operator.is_some()),
            // KeyConditions may accompany other expressions when KeyConditionExpression is absent.
            ("KeyConditions", input.key_conditions.is_some() && input.key_condition_expression.is_some()),
        ],
        &[
            ("ProjectionExpression", input.projection_expression.is_some()),
            ("FilterExpression", input.filter_expression.is_some()),
            ("KeyConditionExpression", input.key_condition_expression.is_some()),
        ],
        input.expression_attribute_names.is_some(),
        input.expression_attribute_values.is_some(),
    )?;
    legacy::check_filter(input.query_filter.as_ref())?;
    if let Some(names) = &input.attributes_to_get {
        legacy::attributes_to_get(names)?;
    }
    check_start_key(input.exclusive_start_key.as_ref())?;
    if input.key_condition_expression.is_none() && input.key_conditions.is_none() {
        return Err(Error::validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
        ));
    }
    check_placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
    )?;
    let conditions_length = || Error::validation("Conditions can be of length 1 or 2 only");
    if let Some(kc) = &input.key_conditions {
        legacy::check_filter(Some(kc))?;
        // A multi-attribute GSI key takes one condition per key attribute: an index's key is
        // checked once the index is known.
        let most = if input.index_name.is_some() { MAX_GSI_KEY_ELEMENTS } else { 2 };
        if kc.is_empty() || kc.len() > most {
            return Err(conditions_length());
        }
    }
    check_syntax(&input)?;
    let consistent = input.consistent_read == Some(true);
    let target = target(inner, input.table_name.as_deref(), input.index_name.as_deref(), consistent)?;
    let order = target.order_key().clone();
    if input.key_conditions.as_ref().is_some_and(|kc| kc.len() > 2 && order.attrs().count() <= 2) {
        return Err(conditions_length());
    }
    let mut params =
        Params::new(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    let kc = match &input.key_condition_expression {
        Some(text) => {
            let partition: Vec<&str> = order.partition().map(|a| a.name.as_str()).collect();
            let sort: Vec<&str> = order.sort().map(|a| a.name.as_str()).collect();
            params.key_condition_tuple(text, &partition, &sort).map_err(expr_err)?
        }
        None => legacy::key_conditions(input.key_conditions.as_ref().unwrap_or(&Default::default()), &order)?,
    };
    let filter = filter_condition(
        &mut params,
        input.filter_expression.as_deref(),
        input.query_filter.as_ref(),
        input.conditional_operator.as_deref(),
    )?;
    let projection = match &input.projection_expression {
        Some(text) => Some(params.projection(text).map_err(expr_err)?),
        None => input.attributes_to_get.as_deref().map(legacy::attributes_to_get).transpose()?,
    };
    params.finish().map_err(expr_err)?;
    let filter_name = if input.filter_expression.is_some() { "Filter Expression" } else { "QueryFilter" };
    check_filter_keys(&order, filter.as_ref(), filter_name)?;
    index_projection::check_query_filter(target.index.as_deref(), &target.schema.key, filter.as_ref())?;
    let source =
        ProjectionSource::of(input.projection_expression.is_some(), input.attributes_to_get.is_some());
    let select = select(input.select.as_deref(), source, &target, true)?;
    target.check_projection(select, projection.as_ref())?;
    let reverse = input.scan_index_forward == Some(false);
    let range = key_range(&order, &kc, reverse)?;
    let start = input.exclusive_start_key.as_ref().map(|k| target.start_key(k, ReadOp::Query)).transpose()?;
    if let Some(k) = &start {
        if !within(&range, k) {
            return Err(Error::validation(
                "The provided starting key is outside query boundaries based on provided conditions",
            ));
        }
    }
    let result = run_page(Page {
        target: &target,
        range: after_start(range, start),
        limit: input.limit.map(|l| l as usize),
        filter,
        projection,
        select,
        segment: None,
        consistent,
        report: Report::parse(input.return_consumed_capacity.as_deref()),
    })?;
    Ok(QueryOutput {
        items: (select != Select::Count).then_some(result.items),
        count: Some(result.count),
        scanned_count: Some(result.scanned),
        last_evaluated_key: result.last,
        consumed_capacity: result.consumed,
    })
}

pub(in crate::engine) fn scan(inner: &Inner, input: ScanInput) -> Result<ScanOutput, Error> {
    let mut c = Constraints::default();
    read_constraints(&mut c, ReadOp::Scan, constrained!(input));
    c.range(input.segment, "segment", 0, Some(999_999));
    c.range(input.total_segments, "totalSegments", 1, Some(1_000_000));
    c.finish()?;
    let segment = match (input.segment, input.total_segments) {
        (None, None) => None,
        (Some(_), None) => {
            return Err(Error::validation(
                "The TotalSegments parameter is required but was not present in the request when Segment parameter is present",
            ))
        }
        (None, Some(_)) => {
            return Err(Error::validation(
                "The Segment parameter is required but was not present in the request when parameter TotalSegments is present",
            ))
        }
        (Some(s), Some(t)) if s >= t => {
            return Err(Error::validation(format!(
                "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {s} is not less than TotalSegments: {t}"
            )))
        }
        (Some(s), Some(t)) => Some((s as u64, t as u64)),
    };
    legacy::check_mixing(
        &[
            ("AttributesToGet", input.attributes_to_get.is_some()),
            ("ScanFilter", input.scan_filter.is_some()),
            ("ConditionalOperator", input.conditional_operator.is_some()),
        ],
        &[
            ("ProjectionExpression", input.projection_expression.is_some()),
            ("FilterExpression", input.filter_expression.is_some()),
        ],
        input.expression_attribute_names.is_some(),
        input.expression_attribute_values.is_some(),
    )?;
    legacy::check_filter(input.scan_filter.as_ref())?;
    if let Some(names) = &input.attributes_to_get {
        legacy::attributes_to_get(names)?;
    }
    check_start_key(input.exclusive_start_key.as_ref())?;
    check_placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
    )?;
    let mut params =
        Params::new(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    let filter = filter_condition(
        &mut params,
        input.filter_expression.as_deref(),
        input.scan_filter.as_ref(),
        input.conditional_operator.as_deref(),
    )?;
    let projection = match &input.projection_expression {
        Some(text) => Some(params.projection(text).map_err(expr_err)?),
        None => input.attributes_to_get.as_deref().map(legacy::attributes_to_get).transpose()?,
    };
    params.finish().map_err(expr_err)?;
    let consistent = input.consistent_read == Some(true);
    let target = target(inner, input.table_name.as_deref(), input.index_name.as_deref(), consistent)?;
    let source =
        ProjectionSource::of(input.projection_expression.is_some(), input.attributes_to_get.is_some());
    let select = select(input.select.as_deref(), source, &target, false)?;
    target.check_projection(select, projection.as_ref())?;
    let start = input.exclusive_start_key.as_ref().map(|k| target.start_key(k, ReadOp::Scan)).transpose()?;
    // A parallel Scan's starting key must be of the segment scanned; the message names the
    // segment it is of. Source: DynamoDB's answer recorded in ScyllaDB pull request 9270 ("The
    // provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey
    // with correct Segment. TotalSegments: 1000000 Segment: 0") and ExtendDB pull request 203
    // (us-east-1, 2026-07: the message names the correct segment).
    if let (Some(esk), Some((seg, total))) = (&input.exclusive_start_key, segment) {
        let own = segment_of(esk.get(&target.order_key().pk.name).map(AttrRef::Decoded), total);
        if own != seg {
            return Err(Error::validation(format!(
                "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: {total} Segment: {own}"
            )));
        }
    }
    let range = KeyRange { start: Bound::Unbounded, end: Bound::Unbounded, reverse: false };
    let result = run_page(Page {
        target: &target,
        range: after_start(range, start),
        limit: input.limit.map(|l| l as usize),
        filter,
        projection,
        select,
        segment,
        consistent,
        report: Report::parse(input.return_consumed_capacity.as_deref()),
    })?;
    Ok(ScanOutput {
        items: (select != Select::Count).then_some(result.items),
        count: Some(result.count),
        scanned_count: Some(result.scanned),
        last_evaluated_key: result.last,
        consumed_capacity: result.consumed,
    })
}
