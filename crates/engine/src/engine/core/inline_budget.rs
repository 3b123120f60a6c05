//! A budget on what one request may do, for a caller that runs requests optimistically where
//! only small work is allowed (the server's async workers, `fairness` in the server crate).
//!
//! [`within_budget`] runs a request under two limits: the bytes of items a Query page may
//! visit (each deleted entry the store may walk past counting as [`DELETED_ENTRY_BYTES`]),
//! and the
//! evaluation work its conditions and filters may do ([`evaluation_cost`], in operand
//! elements). A request that would go past either stops before the work, and the scope
//! reports that its result is to be thrown away; the caller then runs the same request again
//! without a budget, where long work is harmless. Results are never shortened: a request
//! either completes exactly as it would without a budget, or its result is not used.
//!
//! A write under a budget also never waits for an item's stripe lock: a lock held by another
//! write may be held for that write's long evaluation on the pool, so the attempt stops as if
//! past its budget and runs again where waiting is harmless.
//!
//! Invariant: a request may only be stopped by its budget at a point where it has had no
//! effect: a Query at any point (nothing it does is recorded anywhere), a conditional write
//! before it takes its stripe lock or before its condition is evaluated, so before its commit
//! (`core::write`). An abandoned
//! attempt therefore leaves no trace, and a write is never applied twice.

use std::cell::Cell;

use monotable_expr::{lookup, Condition};
use monotable_types::{AttributeValue, Item};

/// What a request run by [`within_budget`] may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InlineBudget {
    /// Bytes of items (DynamoDB's item size) a Query page may visit.
    pub read_bytes: usize,
    /// Operand elements (list, map and set elements, 64-byte runs of strings and binaries) the
    /// request's conditions and filters may touch.
    pub evaluation: u64,
}

/// What a deleted entry a store may walk past (`Keyspace::deleted_entries`) counts for against
/// [`InlineBudget::read_bytes`]: skipping one costs about what visiting a small item does, so
/// a 64 KiB budget allows a walk past 1,024 of them.
pub(crate) const DELETED_ENTRY_BYTES: usize = 64;

/// String and binary bytes that count as one operand element: comparing or searching 64
/// bytes costs about what comparing two list elements does.
const BYTES_PER_ELEMENT: u64 = 64;

/// The scope in force on this thread: what is left of the evaluation budget, the read limit,
/// and whether the request went past either.
#[derive(Clone, Copy)]
struct Scope {
    read_bytes: usize,
    evaluation_left: u64,
    exceeded: bool,
}

thread_local! {
    static SCOPE: Cell<Option<Scope>> = const { Cell::new(None) };
}

/// Runs `f` under `budget`. Returns `None` when `f` went past it: `f`'s result is then
/// incomplete and must be discarded. Scopes do not nest: an inner scope keeps the outer one.
pub fn within_budget<R>(budget: InlineBudget, f: impl FnOnce() -> R) -> Option<R> {
    /// Leaves the scope even when `f` unwinds.
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            if self.0 {
                SCOPE.set(None);
            }
        }
    }
    let entered = SCOPE.get().is_none();
    if entered {
        SCOPE.set(Some(Scope {
            read_bytes: budget.read_bytes,
            evaluation_left: budget.evaluation,
            exceeded: false,
        }));
    }
    let leave = Leave(entered);
    let result = f();
    let exceeded = budget_exceeded();
    drop(leave);
    (!exceeded).then_some(result)
}

/// The bytes of items a page read on this thread must stay within, if any.
pub(crate) fn read_limit() -> Option<usize> {
    SCOPE.get().map(|s| s.read_bytes)
}

/// Whether this thread runs a request under a budget: it may then not wait for anything
/// another request holds (an item's stripe lock), since that request may be long work on the
/// blocking pool.
pub(crate) fn in_scope() -> bool {
    SCOPE.get().is_some()
}

/// Records that the request went past its budget and stopped early.
pub(crate) fn exceeded() {
    if let Some(scope) = SCOPE.get() {
        SCOPE.set(Some(Scope { exceeded: true, ..scope }));
    }
}

/// Whether a request in this thread's current scope has gone past its budget (so that what it
/// produced is about to be discarded).
pub fn budget_exceeded() -> bool {
    SCOPE.get().is_some_and(|s| s.exceeded)
}

/// Charges the evaluation of `condition` against `item` to the scope's evaluation budget,
/// before it is evaluated. `false` means the budget is spent: the caller stops without
/// evaluating (the scope records it). Outside a scope this costs nothing and is always `true`.
pub(crate) fn charge_evaluation(condition: &Condition, item: &Item) -> bool {
    let Some(scope) = SCOPE.get() else { return true };
    if scope.exceeded {
        return false;
    }
    match evaluation_cost(condition, item, scope.evaluation_left) {
        Some(cost) => {
            SCOPE.set(Some(Scope { evaluation_left: scope.evaluation_left - cost, ..scope }));
            true
        }
        None => {
            exceeded();
            false
        }
    }
}

/// An upper bound on the work of evaluating `condition` against `item`, in operand elements,
/// or `None` when it is more than `limit`. Every condition term costs one, and every
/// occurrence of a document path the weight of the value it names there ([`weight`]): each
/// comparison or function walks at most its operands, and a request value is no bigger than
/// the request. `AND`/`OR` short-circuits are ignored, so the bound holds whichever way they
/// go. Counting stops once past `limit`, so estimating costs at most about `limit` steps.
pub(crate) fn evaluation_cost(condition: &Condition, item: &Item, limit: u64) -> Option<u64> {
    let paths = condition.paths();
    let mut cost = paths.len() as u64;
    for path in paths {
        if cost > limit {
            return None;
        }
        if let Some(value) = lookup(item, path) {
            cost += weight(value, limit - cost + 1);
        }
    }
    (cost <= limit).then_some(cost)
}

/// The elements of a value, nested ones included, with strings and binaries counting one per
/// [`BYTES_PER_ELEMENT`] bytes; stops counting at `cap`. Item nesting is at most 32 levels
/// deep (DynamoDB's limit, enforced when an item is written), which bounds the recursion.
fn weight(value: &AttributeValue, cap: u64) -> u64 {
    let bytes = |n: usize| 1 + n as u64 / BYTES_PER_ELEMENT;
    match value {
        AttributeValue::S(s) => bytes(s.len()),
        AttributeValue::B(b) => bytes(b.len()),
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null => 1,
        AttributeValue::Ss(set) => set.iter().map(|s| bytes(s.len())).sum(),
        AttributeValue::Bs(set) => set.iter().map(|b| bytes(b.len())).sum(),
        AttributeValue::Ns(set) => set.len() as u64,
        AttributeValue::L(list) => {
            let mut total = 1;
            for element in list {
                if total > cap {
                    break;
                }
                total += weight(element, cap - total);
            }
            total
        }
        AttributeValue::M(map) => {
            let mut total = 1;
            for (_, element) in map.iter() {
                if total > cap {
                    break;
                }
                total += weight(element, cap - total);
            }
            total
        }
    }
}

#[cfg(test)]
mod tests {
    use monotable_expr::{ExpressionKind, Params};

    use super::*;

    const BUDGET: InlineBudget = InlineBudget { read_bytes: 100, evaluation: 1000 };

    fn condition(text: &str, values: &[(&str, AttributeValue)]) -> Condition {
        let values: std::collections::HashMap<String, AttributeValue> =
            values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let names = std::collections::HashMap::new();
        let mut params = Params::new(Some(&names), Some(&values));
        params.condition(text, ExpressionKind::Condition).expect("a valid condition")
    }

    fn list_item(len: usize) -> Item {
        let list = (0..len).map(|i| AttributeValue::N(i.to_string().parse().unwrap())).collect();
        Item::from([("l", AttributeValue::L(list))])
    }

    #[test]
    fn outside_a_scope_there_is_no_limit() {
        assert_eq!(read_limit(), None);
        let c = condition("contains(l, :v)", &[(":v", AttributeValue::N("1".parse().unwrap()))]);
        assert!(charge_evaluation(&c, &list_item(100_000)));
        exceeded();
        assert!(!budget_exceeded());
    }

    #[test]
    fn a_request_within_its_budget_keeps_its_result() {
        assert_eq!(within_budget(BUDGET, read_limit), Some(Some(100)));
        assert_eq!(read_limit(), None, "the scope ended with the call");
    }

    #[test]
    fn a_request_past_its_budget_loses_its_result() {
        assert_eq!(
            within_budget(BUDGET, || {
                exceeded();
                assert!(budget_exceeded());
                7
            }),
            None
        );
        assert!(!budget_exceeded());
        assert_eq!(within_budget(BUDGET, || 8), Some(8), "the next scope starts afresh");
    }

    #[test]
    fn an_inner_scope_keeps_the_outer_one() {
        let inner = InlineBudget { read_bytes: 5, evaluation: 5 };
        let outer = within_budget(BUDGET, || within_budget(inner, read_limit));
        assert_eq!(outer, Some(Some(Some(100))));
    }

    #[test]
    fn evaluation_is_charged_by_the_elements_its_paths_name_and_stops_past_the_budget() {
        let one = AttributeValue::N("1".parse().unwrap());
        let c = condition("contains(l, :v)", &[(":v", one.clone())]);
        // One path, a list of 400 numbers: 1 + 1 + 400.
        assert_eq!(evaluation_cost(&c, &list_item(400), u64::MAX), Some(402));
        assert_eq!(evaluation_cost(&c, &list_item(400), 401), None);
        // The same term twice costs twice; an absent attribute costs only its term.
        let twice = condition("contains(l, :v) AND contains(l, :v)", &[(":v", one.clone())]);
        assert_eq!(evaluation_cost(&twice, &list_item(400), u64::MAX), Some(804));
        assert_eq!(evaluation_cost(&c, &Item::new(), u64::MAX), Some(1));
        // Counting a huge value stops near the limit.
        assert_eq!(evaluation_cost(&c, &list_item(1_000_000), 1000), None);
        // Within a scope, two charges of 402 fit a budget of 1000 and a third does not.
        let spent = within_budget(BUDGET, || {
            let item = list_item(400);
            [charge_evaluation(&c, &item), charge_evaluation(&c, &item), charge_evaluation(&c, &item)]
        });
        assert_eq!(spent, None, "the third charge went past the budget");
        let kept = within_budget(BUDGET, || charge_evaluation(&c, &list_item(400)));
        assert_eq!(kept, Some(true));
    }

    #[test]
    fn strings_and_binaries_weigh_one_element_per_64_bytes() {
        assert_eq!(weight(&AttributeValue::S("x".repeat(640)), u64::MAX), 11);
        assert_eq!(weight(&AttributeValue::B(vec![0; 63]), u64::MAX), 1);
        assert_eq!(weight(&AttributeValue::Ss(vec!["a".into(), "b".repeat(128)]), u64::MAX), 4);
        let nested = AttributeValue::L(vec![AttributeValue::L(vec![AttributeValue::Null; 10])]);
        assert_eq!(weight(&nested, u64::MAX), 12);
    }
}
