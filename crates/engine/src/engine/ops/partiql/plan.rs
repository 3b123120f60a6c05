//! Planning: a checked PartiQL statement and a table's key schema become one of the engine's
//! own requests, so that a statement shares the operation's validation, capacity accounting
//! and locking.
//!
//! A `SELECT` whose `WHERE` fixes every key attribute of the table by equality (and nothing
//! else) runs as GetItem; one that fixes the partition key by equality runs as a Query (a
//! condition on the sort key, when there is one DynamoDB can use, becomes its key condition,
//! the rest its filter); one that lists the partition key's values with `IN` runs as one such
//! Query per distinct value (see `query_each`); any other `SELECT` is a Scan with the whole
//! `WHERE` as its filter,
//! as DynamoDB documents ("Using the SELECT statement can result in a full table scan if an
//! equality or IN condition with a partition key is not provided in the WHERE clause",
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html>).
//! `UPDATE` and `DELETE` name one item by equalities on its whole primary key.

use monotable_partiql::ast::{self, CompareOp, Expr, Insert, Select, Statement, UpdateAction};
use monotable_types::{AttributeValue, Item};

use super::exprs::{partiql_error, Placeholders};
use crate::api::*;
use crate::engine::core::index_projection;
use crate::engine::core::util::lookup;
use crate::engine::core::Inner;
use crate::table::KeySchema;
use crate::Error;

/// Request options that apply to the planned operation.
#[derive(Default, Clone)]
pub(super) struct Options {
    pub consistent_read: Option<bool>,
    pub limit: Option<i64>,
    pub start_key: Option<Item>,
    pub return_consumed_capacity: Option<String>,
    pub on_condition_failure: Option<String>,
}

/// A statement as one of the engine's requests.
pub(super) enum Plan {
    Get(GetItemInput),
    Query(QueryInput),
    /// One Query per partition key value of `pk IN [...]`, read one after the other; the
    /// key condition names the value as `in_value`, which each query sets.
    QueryEach {
        query: QueryInput,
        pk: String,
        in_value: String,
        values: Vec<AttributeValue>,
    },
    Scan(ScanInput),
    /// PutItem guarded by `attribute_not_exists` on the partition key.
    Insert(PutItemInput),
    Update(UpdateItemInput),
    Delete(DeleteItemInput),
}

impl Plan {
    pub fn is_read(&self) -> bool {
        matches!(self, Plan::Get(_) | Plan::Query(_) | Plan::QueryEach { .. } | Plan::Scan(_))
    }
}

/// DynamoDB's message for an UPDATE, DELETE or batch/transaction read that does not name one
/// item (dynoxide-rs 3.2 `src/partiql/executor.rs`, which matches DynamoDB's text).
pub(super) fn mandatory_key_equality() -> Error {
    Error::validation("Where clause does not contain a mandatory equality on all key attributes")
}

/// Parses, checks and plans `text` with its parameters.
pub(super) fn plan(
    inner: &Inner,
    text: &str,
    params: &[AttributeValue],
    options: &Options,
) -> Result<(Statement, Plan), Error> {
    let statement = monotable_partiql::parse(text).map_err(partiql_error)?;
    let count = monotable_partiql::check(&statement).map_err(partiql_error)?;
    if count != params.len() {
        return Err(partiql_error(monotable_partiql::parameter_count()));
    }
    let plan = match &statement {
        Statement::Select(s) => select(inner, s, params, options)?,
        Statement::Insert(i) => insert(inner, i, params, options)?,
        Statement::Update(u) => update(inner, u, params, options)?,
        Statement::Delete(d) => delete(inner, d, params, options)?,
    };
    Ok((statement, plan))
}

/// The key schema of a table (and the table's own key, for a Query/Scan on an index).
fn table_key(inner: &Inner, table: &str) -> Result<KeySchema, Error> {
    let t = lookup(inner, table).ok_or_else(Error::not_found)?;
    let schema = t.schema.read().clone();
    Ok(schema.key.clone())
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::And(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// True when `e` is the bare top-level attribute `name`.
fn is_attr(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::Path(p) if p.steps.is_empty() && p.root == name)
}

/// The constants of `name IN [...]`, if `e` is such a condition on a bare attribute.
fn in_list<'e>(e: &'e Expr, name: &str) -> Option<&'e [Expr]> {
    match e {
        Expr::In(a, items) if is_attr(a, name) && items.iter().all(monotable_partiql::is_constant) => {
            Some(items)
        }
        _ => None,
    }
}

/// The constant `name` is compared equal to in `e`, if `e` is such an equality.
fn equality<'e>(e: &'e Expr, name: &str) -> Option<&'e Expr> {
    match e {
        Expr::Compare(a, CompareOp::Eq, b) if is_attr(a, name) && monotable_partiql::is_constant(b) => {
            Some(b)
        }
        Expr::Compare(a, CompareOp::Eq, b) if is_attr(b, name) && monotable_partiql::is_constant(a) => {
            Some(a)
        }
        _ => None,
    }
}

/// True when `e` is a condition on sort key `name` that a key condition can express.
fn sort_condition(e: &Expr, name: &str) -> bool {
    let constant = monotable_partiql::is_constant;
    match e {
        Expr::Compare(a, op, b) if *op != CompareOp::Ne => {
            (is_attr(a, name) && constant(b)) || (is_attr(b, name) && constant(a))
        }
        Expr::Between(a, lo, hi) => is_attr(a, name) && constant(lo) && constant(hi),
        Expr::Call(f, args) if f == "begins_with" && args.len() == 2 => {
            is_attr(&args[0], name) && constant(&args[1])
        }
        _ => false,
    }
}

fn and_of(p: &mut Placeholders<'_>, items: &[&Expr]) -> Result<Option<String>, Error> {
    let parts: Result<Vec<String>, Error> =
        items.iter().map(|c| Ok(format!("({})", p.condition(c)?))).collect();
    let parts = parts?;
    Ok((!parts.is_empty()).then(|| parts.join(" AND ")))
}

fn some_map<V>(m: std::collections::HashMap<String, V>) -> Option<std::collections::HashMap<String, V>> {
    (!m.is_empty()).then_some(m)
}

fn select(inner: &Inner, s: &Select, params: &[AttributeValue], o: &Options) -> Result<Plan, Error> {
    let table = lookup(inner, &s.from.table).ok_or_else(Error::not_found)?;
    let schema = table.schema.read().clone();
    let key = match &s.from.index {
        Some(name) => {
            &schema
                .index(name)
                .ok_or_else(|| Error::validation("The table does not have the specified index"))?
                .key
        }
        None => &schema.key,
    };
    let single = key.pk_more.is_empty() && key.sk_more.is_empty();
    let mut p = Placeholders::new(params);
    let projection = match &s.projection {
        ast::Projection::All => None,
        ast::Projection::Paths(paths) => {
            Some(paths.iter().map(|path| p.path(path)).collect::<Vec<_>>().join(", "))
        }
    };
    let all = s.condition.as_ref().map(conjuncts).unwrap_or_default();
    let pk = &key.pk.name;
    let pk_at = if single { all.iter().position(|c| equality(c, pk).is_some()) } else { None };
    let in_at =
        if single && pk_at.is_none() { all.iter().position(|c| in_list(c, pk).is_some()) } else { None };
    if let Some(index) = s.from.index.as_deref().and_then(|name| schema.index(name)) {
        let keyed = pk_at.is_some() || in_at.is_some();
        index_projection::check_partiql_select(
            index,
            &schema.key,
            &s.projection,
            s.condition.as_ref(),
            keyed,
        )?;
    }
    check_order_by(s, key, &all)?;
    let pk_at = match (pk_at, in_at) {
        (Some(at), _) | (None, Some(at)) => at,
        (None, None) => return scan(s, &mut p, projection, o),
    };
    let sk_at = key
        .sk
        .as_ref()
        .and_then(|sk| all.iter().enumerate().position(|(i, c)| i != pk_at && sort_condition(c, &sk.name)));
    let sk_eq = key.sk.as_ref().zip(sk_at).is_some_and(|(sk, i)| equality(all[i], &sk.name).is_some());
    let whole_key = key.sk.is_none() || sk_eq;
    if s.from.index.is_none()
        && in_at.is_none()
        && whole_key
        && all.len() == 1 + usize::from(key.sk.is_some())
        && s.order_by.is_empty()
    {
        let mut k = Item::new();
        for (attr, at) in key.attrs().zip([Some(pk_at), sk_at]) {
            if let Some(c) = at.and_then(|i| equality(all[i], &attr.name)) {
                k.insert(attr.name.as_str().into(), p.constant(c)?);
            }
        }
        return Ok(Plan::Get(GetItemInput {
            table_name: Some(s.from.table.clone()),
            key: Some(k),
            consistent_read: o.consistent_read,
            return_consumed_capacity: o.return_consumed_capacity.clone(),
            projection_expression: projection,
            expression_attribute_names: some_map(p.names),
            ..GetItemInput::default()
        }));
    }
    // With IN, the partition condition is `pk = <one of the values>`, set per query.
    let mut in_values = Vec::new();
    if let Some(items) = in_at.and_then(|i| in_list(all[i], pk)) {
        for item in items {
            let v = p.constant(item)?;
            if !in_values.contains(&v) {
                in_values.push(v);
            }
        }
    }
    let in_value = in_values.first().cloned().map(|v| p.value(v));
    let sk_part: Vec<&Expr> = sk_at.map(|i| all[i]).into_iter().collect();
    let key_condition = match &in_value {
        Some(placeholder) => {
            let pk_name = p.name(pk);
            let sk = and_of(&mut p, &sk_part)?;
            Some(sk.map_or_else(
                || format!("{pk_name} = {placeholder}"),
                |sk| format!("({pk_name} = {placeholder}) AND {sk}"),
            ))
        }
        None => {
            let key_parts: Vec<&Expr> = [Some(pk_at), sk_at].into_iter().flatten().map(|i| all[i]).collect();
            and_of(&mut p, &key_parts)?
        }
    };
    let rest: Vec<&Expr> =
        all.iter().enumerate().filter(|(i, _)| *i != pk_at && Some(*i) != sk_at).map(|(_, c)| *c).collect();
    let filter = and_of(&mut p, &rest)?;
    // With ORDER BY, the sort key runs the way its own term says and descending without one,
    // even under `ORDER BY pk ASC`; the partition key ascending without its own term (source
    // of check_order_by).
    let term = |name: &str| s.order_by.iter().find(|t| t.path.steps.is_empty() && t.path.root == name);
    let descending = !s.order_by.is_empty()
        && key.sk.as_ref().is_some_and(|sk| term(&sk.name).is_none_or(|t| t.descending));
    if !s.order_by.is_empty() {
        in_values.sort_by(|a, b| monotable_expr::compare_scalars(a, b).unwrap_or(std::cmp::Ordering::Equal));
        if term(pk).is_some_and(|t| t.descending) {
            in_values.reverse();
        }
    }
    let query = QueryInput {
        table_name: Some(s.from.table.clone()),
        index_name: s.from.index.clone(),
        limit: o.limit,
        consistent_read: o.consistent_read,
        scan_index_forward: descending.then_some(false),
        exclusive_start_key: o.start_key.clone(),
        return_consumed_capacity: o.return_consumed_capacity.clone(),
        projection_expression: projection,
        filter_expression: filter,
        key_condition_expression: key_condition,
        expression_attribute_names: some_map(p.names),
        expression_attribute_values: some_map(p.values),
        ..QueryInput::default()
    };
    Ok(match in_value {
        Some(in_value) => Plan::QueryEach { query, pk: pk.clone(), in_value, values: in_values },
        None => Plan::Query(query),
    })
}

/// DynamoDB's rules for `ORDER BY`, in its order of checks. Source: the wording and the rules
/// as recorded against DynamoDB (eu-west-2, 2026-09-17) in the PartiQL tests of a Java
/// DynamoDB emulator's suite (`ordersByTheKey`, `refusesAnOrderByItCannotServe`): no `WHERE`;
/// a term on a non-key attribute; no equality or IN on the partition key; several partition
/// key values without a partition key term.
fn check_order_by(s: &Select, key: &KeySchema, all: &[&Expr]) -> Result<(), Error> {
    if s.order_by.is_empty() {
        return Ok(());
    }
    if s.condition.is_none() {
        return Err(Error::validation("Must have WHERE clause in the statement when using ORDER BY clause."));
    }
    for order in &s.order_by {
        let on_key = order.path.steps.is_empty() && key.attrs().any(|a| a.name == order.path.root);
        if !on_key {
            return Err(Error::validation(format!(
                "Attribute {} in ORDER BY clause must be part of the primary key",
                order.path.root
            )));
        }
    }
    let pk = &key.pk.name;
    let single = key.pk_more.is_empty() && key.sk_more.is_empty();
    let hash_conditions: usize = all
        .iter()
        .map(|c| match (equality(c, pk), in_list(c, pk)) {
            _ if !single => 0,
            (Some(_), _) => 1,
            (None, Some(items)) => items.len(),
            (None, None) => 0,
        })
        .sum();
    if hash_conditions == 0 {
        return Err(Error::validation(
            "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
        ));
    }
    let orders_by_pk = s.order_by.iter().any(|t| t.path.steps.is_empty() && t.path.root == *pk);
    if hash_conditions > 1 && !orders_by_pk {
        return Err(Error::validation(
            "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.",
        ));
    }
    Ok(())
}

/// A `SELECT` DynamoDB runs as a full scan: the whole `WHERE` is the filter.
fn scan(
    s: &Select,
    p: &mut Placeholders<'_>,
    projection: Option<String>,
    o: &Options,
) -> Result<Plan, Error> {
    let filter = match &s.condition {
        Some(c) => Some(p.condition(c)?),
        None => None,
    };
    Ok(Plan::Scan(ScanInput {
        table_name: Some(s.from.table.clone()),
        index_name: s.from.index.clone(),
        limit: o.limit,
        exclusive_start_key: o.start_key.clone(),
        return_consumed_capacity: o.return_consumed_capacity.clone(),
        projection_expression: projection,
        filter_expression: filter,
        consistent_read: o.consistent_read,
        expression_attribute_names: some_map(std::mem::take(&mut p.names)),
        expression_attribute_values: some_map(std::mem::take(&mut p.values)),
        ..ScanInput::default()
    }))
}

fn insert(inner: &Inner, i: &Insert, params: &[AttributeValue], o: &Options) -> Result<Plan, Error> {
    let key = table_key(inner, &i.table)?;
    let mut p = Placeholders::new(params);
    let AttributeValue::M(item) = p.constant(&i.value)? else {
        return Err(Error::validation("Unsupported operation: Inserting a value that is not a tuple"));
    };
    let condition = format!("attribute_not_exists({})", p.name(&key.pk.name));
    Ok(Plan::Insert(PutItemInput {
        table_name: Some(i.table.clone()),
        item: Some(item),
        return_consumed_capacity: o.return_consumed_capacity.clone(),
        condition_expression: Some(condition),
        expression_attribute_names: some_map(p.names),
        return_values_on_condition_check_failure: o.on_condition_failure.clone(),
        ..PutItemInput::default()
    }))
}

/// The item key fixed by `condition`'s top-level equalities, and the other conjuncts.
fn item_key<'e>(
    key: &KeySchema,
    condition: Option<&'e Expr>,
    p: &Placeholders<'_>,
) -> Result<(Item, Vec<&'e Expr>), Error> {
    let all = condition.map(conjuncts).unwrap_or_default();
    let mut k = Item::new();
    let mut used = Vec::new();
    for attr in key.attrs() {
        let at =
            all.iter().position(|c| equality(c, &attr.name).is_some()).ok_or_else(mandatory_key_equality)?;
        let value = equality(all[at], &attr.name).ok_or_else(mandatory_key_equality)?;
        k.insert(attr.name.as_str().into(), p.constant(value)?);
        used.push(at);
    }
    let rest = all.iter().enumerate().filter(|(i, _)| !used.contains(i)).map(|(_, c)| *c).collect();
    Ok((k, rest))
}

fn update(inner: &Inner, u: &ast::Update, params: &[AttributeValue], o: &Options) -> Result<Plan, Error> {
    let key = table_key(inner, &u.table)?;
    let mut p = Placeholders::new(params);
    let (k, rest) = item_key(&key, u.condition.as_ref(), &p)?;
    let (mut sets, mut removes, mut adds, mut deletes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for action in &u.actions {
        match action {
            UpdateAction::Set(path, Expr::Call(f, args))
                if (f == "set_add" || f == "set_delete") && args.len() == 2 =>
            {
                let target = p.path(path);
                let v = p.constant(&args[1])?;
                let v = p.value(v);
                if f == "set_add" { &mut adds } else { &mut deletes }.push(format!("{target} {v}"));
            }
            UpdateAction::Set(path, value) => {
                let target = p.path(path);
                sets.push(format!("{target} = {}", p.set_value(value)?));
            }
            UpdateAction::Remove(path) => removes.push(p.path(path)),
        }
    }
    let mut update = Vec::new();
    for (word, list) in [("SET", sets), ("REMOVE", removes), ("ADD", adds), ("DELETE", deletes)] {
        if !list.is_empty() {
            update.push(format!("{word} {}", list.join(", ")));
        }
    }
    // PartiQL UPDATE is not an upsert: the item must exist.
    let mut condition = format!("attribute_exists({})", p.name(&key.pk.name));
    if let Some(more) = and_of(&mut p, &rest)? {
        condition = format!("{condition} AND {more}");
    }
    Ok(Plan::Update(UpdateItemInput {
        table_name: Some(u.table.clone()),
        key: Some(k),
        return_values: u.returning.map(|r| r.return_values().to_owned()),
        return_consumed_capacity: o.return_consumed_capacity.clone(),
        update_expression: Some(update.join(" ")),
        condition_expression: Some(condition),
        expression_attribute_names: some_map(p.names),
        expression_attribute_values: some_map(p.values),
        return_values_on_condition_check_failure: o.on_condition_failure.clone(),
        ..UpdateItemInput::default()
    }))
}

fn delete(inner: &Inner, d: &ast::Delete, params: &[AttributeValue], o: &Options) -> Result<Plan, Error> {
    let key = table_key(inner, &d.table)?;
    let mut p = Placeholders::new(params);
    let (k, rest) = item_key(&key, d.condition.as_ref(), &p)?;
    // A missing item is a silent no-op; the other conditions apply only to an existing item.
    let condition = match and_of(&mut p, &rest)? {
        Some(more) => Some(format!("attribute_not_exists({}) OR {more}", p.name(&key.pk.name))),
        None => None,
    };
    Ok(Plan::Delete(DeleteItemInput {
        table_name: Some(d.table.clone()),
        key: Some(k),
        return_values: d.returning.map(|r| r.return_values().to_owned()),
        return_consumed_capacity: o.return_consumed_capacity.clone(),
        condition_expression: condition,
        expression_attribute_names: some_map(p.names),
        expression_attribute_values: some_map(p.values),
        return_values_on_condition_check_failure: o.on_condition_failure.clone(),
        ..DeleteItemInput::default()
    }))
}
