//! Read patterns (get, query, batch_get): executed with parameters bound to a sample, the
//! result compared with what the samples say it should be.

use std::collections::{BTreeMap, BTreeSet};

use monotable_design::{AccessPattern, Design, Finding, IndexKind, Operation, Order, SortOp, TABLE};
use monotable_engine::{
    BatchGetItemInput, ConsumedCapacity, Engine, GetItemInput, KeysAndAttributes, QueryInput,
};
use monotable_types::{AttributeValue, Item};

use crate::expect::{between_upper, bind, expected, intended_index, Binding, SortBinding};
use crate::keys::{key_on, table_key};
use crate::report::PatternReport;
use crate::rules::finding;
use crate::sample::{Sample, Samples};
use crate::table;

/// DynamoDB stops a Query page at 1 MB of data read: "A single Query only returns a result
/// set that fits within the 1 MB size limit" ("Paginating table query results in DynamoDB",
/// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html>).
pub(crate) const PAGE_BYTES: f64 = 1_048_576.0;

/// Samples of the pattern's entity types a binding is tried from (the one selecting the most
/// items wins, so that order and size checks see a full collection).
const CANDIDATES: usize = 32;

/// Units of a `ConsumedCapacity`: in all, on the table, per secondary index.
pub(crate) fn units(c: Option<&ConsumedCapacity>) -> (f64, f64, BTreeMap<String, f64>) {
    let Some(c) = c else { return (0.0, 0.0, BTreeMap::new()) };
    let total = c.capacity_units.unwrap_or_default();
    let table = c.table.as_ref().and_then(|t| t.capacity_units).unwrap_or_default();
    let indexes = c
        .global_secondary_indexes
        .iter()
        .chain(&c.local_secondary_indexes)
        .flatten()
        .map(|(n, u)| (n.clone(), u.capacity_units.unwrap_or_default()))
        .collect();
    (total, table, indexes)
}

/// What every read pattern runs against.
#[derive(Clone, Copy)]
struct Cx<'a> {
    engine: &'a Engine,
    design: &'a Design,
    samples: &'a Samples,
    p: &'a AccessPattern,
}

pub(crate) fn execute(
    engine: &Engine,
    design: &Design,
    samples: &Samples,
    p: &AccessPattern,
    findings: &mut Vec<Finding>,
) -> PatternReport {
    let mut report = PatternReport::new(p);
    filter_on_key(design, p, findings);
    if p.key.is_none() {
        findings.push(finding(
            "MV003",
            &p.name,
            format!("`{}` has no key condition: only a Scan of {} could serve it", p.name, p.index),
            "give it a key: an index whose partition key the pattern knows (S9)",
        ));
        return report;
    }
    let cx = Cx { engine, design, samples, p };
    let result = match p.operation {
        Operation::Get => get(&cx, &mut report, findings),
        Operation::BatchGet => batch_get(&cx, &mut report, findings),
        _ => query(&cx, &mut report, findings),
    };
    if let Err(why) = result {
        findings.push(finding("MV008", &p.name, why, "fix the pattern or the samples' fields it binds"));
    }
    report
}

/// MV004: a filter on an attribute some key of the table holds.
fn filter_on_key(design: &Design, p: &AccessPattern, findings: &mut Vec<Finding>) {
    let keys: BTreeSet<String> = std::iter::once(TABLE.to_string())
        .chain(design.indexes.iter().map(|i| i.name.clone()))
        .filter_map(|i| design.key_attrs(&i))
        .flat_map(|(pk, sk)| pk.into_iter().chain(sk))
        .collect();
    for f in p.filter.iter().filter(|f| keys.contains(*f)) {
        findings.push(finding(
            "MV004",
            &p.name,
            format!(
                "`{}` filters on the key attribute {f}: the filter runs after the read and is paid for",
                p.name
            ),
            "move the condition into the key condition (a sort-key condition or an index keyed on it)",
        ));
    }
}

/// The samples of the pattern's entity types that bind the condition on `index`.
fn candidates<'a>(
    design: &Design,
    p: &AccessPattern,
    samples: &'a Samples,
    index: &str,
) -> Result<Vec<(&'a Sample, Binding)>, String> {
    let mut out = Vec::new();
    for s in samples.items.iter().filter(|s| p.entities.contains(&s.type_name)) {
        if let Some(b) = bind(design, p, index, s)? {
            out.push((s, b));
        }
    }
    if out.is_empty() {
        let key = p.key.as_ref().map(|k| k.pk.as_str()).unwrap_or_default();
        return Err(format!("no sample of {} has every placeholder of `{key}`", p.entities.join(", ")));
    }
    Ok(out)
}

/// A key condition expression with its attribute names and values.
type Condition = (String, BTreeMap<String, String>, BTreeMap<String, AttributeValue>);

fn names_and_values(design: &Design, index: &str, b: &Binding) -> Result<Condition, String> {
    let (pk, sk) = design.key_attrs(index).ok_or_else(|| format!("unknown index {index}"))?;
    let (mut names, mut values, mut parts) = (BTreeMap::new(), BTreeMap::new(), Vec::new());
    for (i, (a, v)) in pk.iter().zip(&b.pk).enumerate() {
        names.insert(format!("#p{i}"), a.clone());
        values.insert(format!(":p{i}"), v.clone());
        parts.push(format!("#p{i} = :p{i}"));
    }
    match &b.sk {
        None => {}
        Some(SortBinding::Parts(vs)) => {
            for (i, (a, v)) in sk.iter().zip(vs).enumerate() {
                names.insert(format!("#s{i}"), a.clone());
                values.insert(format!(":s{i}"), v.clone());
                parts.push(format!("#s{i} = :s{i}"));
            }
        }
        Some(SortBinding::Text(op, v)) => {
            let first = sk.first().ok_or_else(|| format!("{index} has no sort-key attribute"))?;
            names.insert("#s0".into(), first.clone());
            values.insert(":s0".into(), AttributeValue::S(v.clone()));
            parts.push(match op {
                SortOp::Eq => "#s0 = :s0".into(),
                SortOp::BeginsWith => "begins_with(#s0, :s0)".into(),
                SortOp::Lt => "#s0 < :s0".into(),
                SortOp::Le => "#s0 <= :s0".into(),
                SortOp::Gt => "#s0 > :s0".into(),
                SortOp::Ge => "#s0 >= :s0".into(),
                SortOp::Between => {
                    values.insert(":s1".into(), AttributeValue::S(between_upper(v)));
                    "#s0 BETWEEN :s0 AND :s1".into()
                }
            });
        }
    }
    Ok((parts.join(" AND "), names, values))
}

/// Runs the query to its last page: the items in order, pages, units.
fn run_query(
    engine: &Engine,
    design: &Design,
    p: &AccessPattern,
    b: &Binding,
    consistent: bool,
) -> Result<(Vec<Item>, usize, f64), String> {
    let (condition, names, values) = names_and_values(design, &p.index, b)?;
    let mut input = QueryInput {
        table_name: Some(table::name(design)),
        index_name: (p.index != TABLE).then(|| p.index.clone()),
        key_condition_expression: Some(condition),
        expression_attribute_names: Some(names.into_iter().collect()),
        expression_attribute_values: Some(values.into_iter().collect()),
        scan_index_forward: Some(p.order != Some(Order::Descending)),
        limit: p.limit.map(i64::from),
        consistent_read: Some(consistent),
        return_consumed_capacity: Some("INDEXES".into()),
        ..Default::default()
    };
    let (mut items, mut pages, mut units_sum) = (Vec::new(), 0, 0.0);
    loop {
        let out = engine.query(input.clone()).map_err(|e| format!("Query on {}: {e}", p.index))?;
        pages += 1;
        units_sum += units(out.consumed_capacity.as_ref()).0;
        items.extend(out.items.unwrap_or_default().iter().map(|i| (**i).clone()));
        match out.last_evaluated_key {
            Some(k) if !k.is_empty() && pages < 100_000 => input.exclusive_start_key = Some(k),
            _ => break,
        }
    }
    Ok((items, pages, units_sum))
}

fn query(cx: &Cx<'_>, report: &mut PatternReport, findings: &mut Vec<Finding>) -> Result<(), String> {
    let Cx { engine, design, samples, p } = *cx;
    let intended = intended_index(design, p);
    // The binding on the intended index that selects the most samples, and the same
    // sample's binding on the declared index (the request actually sent).
    let mut best: Option<(Vec<&Sample>, Binding)> = None;
    for (s, b) in candidates(design, p, samples, &intended)?.into_iter().take(CANDIDATES) {
        let want = expected(design, &intended, &samples.items, &b);
        if best.as_ref().is_none_or(|(w, _)| want.len() > w.len()) {
            if let Some(sent) = bind(design, p, &p.index, s)? {
                best = Some((want, sent));
            }
        }
    }
    let (mut want, sent) = best.ok_or_else(|| format!("no sample binds the key condition on {}", p.index))?;
    let (items, pages, eventual) = run_query(engine, design, p, &sent, false)?;
    let strong = match strong_allowed(design, &p.index) {
        true => Some(run_query(engine, design, p, &sent, true)?.2),
        false => None,
    };
    report.read(items.len(), want.len(), pages, eventual, strong);
    if p.order == Some(Order::Descending) {
        want.reverse();
    }
    check_items(design, p, &intended, &want, &items, findings);
    check_types(design, p, samples, &items, findings);
    check_projection(design, p, samples, &items, findings);
    check_page(design, p, &items, findings);
    check_order(design, p, samples, &items, findings)
}

/// DynamoDB allows no strongly consistent read of a GSI.
fn strong_allowed(design: &Design, index: &str) -> bool {
    index == TABLE || design.index(index).is_some_and(|i| i.kind == IndexKind::Lsi)
}

/// MV001: the returned table keys are the ones the samples say.
fn check_items(
    design: &Design,
    p: &AccessPattern,
    intended: &str,
    want: &[&Sample],
    items: &[Item],
    findings: &mut Vec<Finding>,
) {
    let want: BTreeSet<_> = want.iter().map(|s| table_key(design, &s.item)).collect();
    let have: BTreeSet<_> = items.iter().map(|i| table_key(design, i)).collect();
    if want == have {
        return;
    }
    let missing = want.difference(&have).count();
    let extra = have.difference(&want).count();
    let key = p.key.as_ref().map(|k| k.pk.as_str()).unwrap_or_default();
    let (message, hint) = if intended != p.index {
        (
            format!(
                "`{}` returned {} item(s) from {}, but its partition template `{key}` is {}'s key on {intended}, where it selects {} ({missing} missing, {extra} unexpected)",
                p.name,
                have.len(),
                p.index,
                p.entities.join(", "),
                want.len()
            ),
            format!("query {intended}, or give the entity type that template on {}", p.index),
        )
    } else {
        (
            format!(
                "`{}` returned {} item(s), its key condition selects {} among the samples ({missing} missing, {extra} unexpected)",
                p.name,
                have.len(),
                want.len()
            ),
            "check the index's key attributes and the entity types' templates on it".to_string(),
        )
    };
    findings.push(finding("MV001", &p.name, message, &hint));
}

/// MV002: every returned item is of a declared entity type (told by the sample with its
/// table key, so that an index not projecting the entity-type attribute still tells).
fn check_types(
    design: &Design,
    p: &AccessPattern,
    samples: &Samples,
    items: &[Item],
    findings: &mut Vec<Finding>,
) {
    let type_of = |item: &Item| {
        let key = table_key(design, item);
        match samples.items.iter().find(|s| table_key(design, &s.item) == key) {
            Some(s) => Some(s.type_name.clone()),
            None => {
                item.get(&design.conventions.entity_type).and_then(AttributeValue::as_s).map(str::to_string)
            }
        }
    };
    let foreign: BTreeSet<String> =
        items.iter().filter_map(type_of).filter(|t| !p.entities.iter().any(|e| e == t)).collect();
    if !foreign.is_empty() {
        let list: Vec<_> = foreign.into_iter().collect();
        findings.push(finding(
            "MV002",
            &p.name,
            format!("`{}` declares {} but also returns {}", p.name, p.entities.join(", "), list.join(", ")),
            "narrow the sort condition (a type prefix), give the other type another partition, or declare it",
        ));
    }
}

/// The stored attributes a pattern reads: `reads` (fields or attributes) or every field of
/// its entity types, and what it filters on.
fn read_attrs(design: &Design, p: &AccessPattern) -> BTreeSet<String> {
    let entities: Vec<_> = p.entities.iter().filter_map(|e| design.entity(e)).collect();
    let attr = |name: &String| {
        entities.iter().find_map(|e| e.field(name)).map_or(name.clone(), |f| f.attr().to_string())
    };
    let mut out: BTreeSet<String> = if p.reads.is_empty() {
        entities.iter().flat_map(|e| e.fields.iter().map(|f| f.attr().to_string())).collect()
    } else {
        p.reads.iter().map(attr).collect()
    };
    out.extend(p.filter.iter().map(attr));
    out
}

/// MV005: a GSI returns only what it projects (an LSI fetches the rest from the table).
fn check_projection(
    design: &Design,
    p: &AccessPattern,
    samples: &Samples,
    items: &[Item],
    findings: &mut Vec<Finding>,
) {
    if design.index(&p.index).is_none_or(|i| i.kind != IndexKind::Gsi) {
        return;
    }
    let reads = read_attrs(design, p);
    let mut missing = BTreeSet::new();
    for item in items {
        let key = table_key(design, item);
        let Some(base) = samples.items.iter().find(|s| table_key(design, &s.item) == key) else { continue };
        for a in &reads {
            if base.item.contains_key(a) && !item.contains_key(a) {
                missing.insert(a.clone());
            }
        }
    }
    if !missing.is_empty() {
        let list: Vec<_> = missing.into_iter().collect();
        findings.push(finding(
            "MV005",
            &p.name,
            format!("{} does not project {} that `{}` reads", p.index, list.join(", "), p.name),
            &format!("add them to {}'s `projection: {{include: [...]}}`, or project `all`", p.index),
        ));
    }
}

/// MV006: the mean returned item scaled to the declared collection size, per page.
fn check_page(design: &Design, p: &AccessPattern, items: &[Item], findings: &mut Vec<Finding>) {
    if items.is_empty() {
        return;
    }
    let declared = p.max_items.or_else(|| match p.entities.as_slice() {
        [one] => design.entity(one).and_then(|e| e.count.as_ref()).map(|c| c.n),
        _ => None,
    });
    let Some(max_items) = declared else { return };
    let mean = items.iter().map(|i| monotable_types::item_size(i) as f64).sum::<f64>() / items.len() as f64;
    let per_page = p.limit.map_or(max_items, |l| max_items.min(u64::from(l)));
    let bytes = mean * per_page as f64;
    if bytes > PAGE_BYTES {
        findings.push(finding(
            "MV006",
            &p.name,
            format!(
                "a page of {per_page} item(s) of {mean:.0} bytes is {:.2} MB: DynamoDB stops a page at 1 MB, so `{}` needs {} requests",
                bytes / PAGE_BYTES,
                p.name,
                (bytes / PAGE_BYTES).ceil()
            ),
            "set `limit` to a page that fits in 1 MB and paginate, or project less into the index",
        ));
    }
}

/// MV007: the returned items follow `order` by `order_by` (the created stamp by default).
fn check_order(
    design: &Design,
    p: &AccessPattern,
    samples: &Samples,
    items: &[Item],
    findings: &mut Vec<Finding>,
) -> Result<(), String> {
    let Some(order) = p.order else { return Ok(()) };
    let attr = match &p.order_by {
        Some(f) => p
            .entities
            .iter()
            .filter_map(|e| design.entity(e)?.field(f))
            .next()
            .map_or(f.clone(), |f| f.attr().to_string()),
        None => design
            .conventions
            .created
            .clone()
            .ok_or_else(|| "`order` without `order_by` needs the created stamp".to_string())?,
    };
    // The values from the samples, so that a projection without the attribute still tells.
    let value = |item: &Item| {
        let key = table_key(design, item);
        let s = samples.items.iter().find(|s| table_key(design, &s.item) == key)?;
        s.item.get(&attr).cloned()
    };
    let values: Vec<AttributeValue> = items.iter().filter_map(value).collect();
    let wrong = values.windows(2).find(|w| {
        let o = compare_values(&w[0], &w[1]);
        match order {
            Order::Ascending => o.is_gt(),
            Order::Descending => o.is_lt(),
        }
    });
    if let Some(w) = wrong {
        let word = if order == Order::Ascending { "ascending" } else { "descending" };
        findings.push(finding(
            "MV007",
            &p.name,
            format!(
                "`{}` promises {attr} {word}, but {} comes back before {}: the sort key on {} does not sort by {attr}",
                p.name,
                show(&w[0]),
                show(&w[1]),
                p.index
            ),
            "build the sort key from a time-ordered value (a `timestamp` field, a ULID) or order by what the key sorts by",
        ));
    }
    Ok(())
}

fn compare_values(a: &AttributeValue, b: &AttributeValue) -> std::cmp::Ordering {
    match (a, b) {
        (AttributeValue::N(x), AttributeValue::N(y)) => x.cmp(y),
        (AttributeValue::S(x), AttributeValue::S(y)) => x.as_bytes().cmp(y.as_bytes()),
        (AttributeValue::B(x), AttributeValue::B(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    }
}

fn show(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.to_string(),
        other => format!("{other:?}"),
    }
}

fn get(cx: &Cx<'_>, report: &mut PatternReport, findings: &mut Vec<Finding>) -> Result<(), String> {
    let Cx { engine, design, samples, p } = *cx;
    if p.index != TABLE {
        return Err(format!("GetItem reads the table, not {}", p.index));
    }
    let (_, b) = candidates(design, p, samples, TABLE)?.swap_remove(0);
    let (pk, Some(SortBinding::Text(SortOp::Eq, sk))) = (&b.pk[0], &b.sk) else {
        return Err("a get needs the full table key: `sk: {op: eq, value: …}`".into());
    };
    let c = &design.conventions;
    let key = Item::from_iter([(c.pk.as_str(), pk.clone()), (c.sk.as_str(), AttributeValue::S(sk.clone()))]);
    let want: Vec<&Sample> = samples
        .items
        .iter()
        .filter(|s| key_on(design, TABLE, &s.item).is_some_and(|(p, s)| p == b.pk && s[0].as_s() == Some(sk)))
        .collect();
    let request = |consistent: bool| GetItemInput {
        table_name: Some(table::name(design)),
        key: Some(key.clone()),
        consistent_read: Some(consistent),
        return_consumed_capacity: Some("INDEXES".into()),
        ..Default::default()
    };
    let out = engine.get_item(request(false)).map_err(|e| format!("GetItem: {e}"))?;
    let strong = engine.get_item(request(true)).map_err(|e| format!("GetItem: {e}"))?;
    let items: Vec<Item> = out.item.iter().map(|i| (**i).clone()).collect();
    let (eventual, strong) =
        (units(out.consumed_capacity.as_ref()).0, units(strong.consumed_capacity.as_ref()).0);
    report.read(items.len(), want.len(), 1, eventual, Some(strong));
    check_items(design, p, TABLE, &want, &items, findings);
    check_types(design, p, samples, &items, findings);
    Ok(())
}

fn batch_get(cx: &Cx<'_>, report: &mut PatternReport, findings: &mut Vec<Finding>) -> Result<(), String> {
    let Cx { engine, design, samples, p } = *cx;
    let n = p.limit.map_or(10, |l| l.clamp(1, 100)) as usize;
    let mut keys = Vec::new();
    let mut want = Vec::new();
    let c = &design.conventions;
    for (s, b) in candidates(design, p, samples, TABLE)?.into_iter().take(n) {
        if let (pk, Some(SortBinding::Text(SortOp::Eq, sk))) = (&b.pk[0], &b.sk) {
            keys.push(Item::from_iter([
                (c.pk.as_str(), pk.clone()),
                (c.sk.as_str(), AttributeValue::S(sk.clone())),
            ]));
            want.push(s);
        }
    }
    if keys.is_empty() {
        return Err("a batch_get needs the full table key: `sk: {op: eq, value: …}`".into());
    }
    let request = |consistent: bool| BatchGetItemInput {
        request_items: Some(
            [(
                table::name(design),
                KeysAndAttributes {
                    keys: Some(keys.clone()),
                    consistent_read: Some(consistent),
                    ..Default::default()
                },
            )]
            .into(),
        ),
        return_consumed_capacity: Some("INDEXES".into()),
    };
    let out = engine.batch_get_item(request(false)).map_err(|e| format!("BatchGetItem: {e}"))?;
    let strong = engine.batch_get_item(request(true)).map_err(|e| format!("BatchGetItem: {e}"))?;
    let sum = |cs: &Option<Vec<ConsumedCapacity>>| cs.iter().flatten().map(|c| units(Some(c)).0).sum::<f64>();
    let items: Vec<Item> =
        out.responses.iter().flat_map(|r| r.values().flatten()).map(|i| (**i).clone()).collect();
    report.read(
        items.len(),
        want.len(),
        1,
        sum(&out.consumed_capacity),
        Some(sum(&strong.consumed_capacity)),
    );
    check_items(design, p, TABLE, &want, &items, findings);
    check_types(design, p, samples, &items, findings);
    Ok(())
}
