//! Per-thread caches of parsed expressions.
//!
//! A service sends the same few expression texts over and over, with different values. The
//! syntax pass (tokenizer and parser) is about a third of an UpdateItem's work, so the
//! resolution pass ([`crate::Params`]) takes its tree from here: parsed once per text, kind
//! and thread.
//!
//! Invariant: only successful parses are cached, and a parse depends on nothing but the text
//! and the kind, so a cached tree is exactly what parsing again would give; errors are
//! derived afresh every time.
//!
//! Each map holds at most [`CAPACITY`] texts and is emptied when it is full: a workload with
//! more distinct expressions than that degrades to parsing, never to unbounded memory.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::ast::{Condition, Projection, Update};
use crate::{ExprError, ExpressionKind};

/// Texts kept per map and thread.
pub(crate) const CAPACITY: usize = 256;

struct Map<T>(HashMap<Box<str>, Rc<T>>);

impl<T> Default for Map<T> {
    fn default() -> Self {
        Map(HashMap::new())
    }
}

impl<T> Map<T> {
    fn get_or_parse(
        &mut self,
        text: &str,
        parse: impl FnOnce() -> Result<T, ExprError>,
    ) -> Result<Rc<T>, ExprError> {
        if let Some(tree) = self.0.get(text) {
            return Ok(Rc::clone(tree));
        }
        let tree = Rc::new(parse()?);
        if self.0.len() >= CAPACITY {
            self.0.clear();
        }
        self.0.insert(text.into(), Rc::clone(&tree));
        Ok(tree)
    }
}

#[derive(Default)]
struct Caches {
    /// Condition trees by kind: `ConditionExpression`, `FilterExpression`, `KeyConditionExpression`.
    conditions: [Map<Condition>; 3],
    updates: Map<Update>,
    projections: Map<Projection>,
}

thread_local! {
    static CACHES: RefCell<Caches> = RefCell::new(Caches::default());
}

/// [`crate::parse_condition`], cached.
pub(crate) fn condition(text: &str, kind: ExpressionKind) -> Result<Rc<Condition>, ExprError> {
    let slot = match kind {
        ExpressionKind::Condition => 0,
        ExpressionKind::Filter => 1,
        ExpressionKind::KeyCondition => 2,
        // Not condition parameters: parsed as asked, not kept.
        ExpressionKind::Update | ExpressionKind::Projection => {
            return crate::parse_condition(text, kind).map(Rc::new)
        }
    };
    CACHES.with(|c| c.borrow_mut().conditions[slot].get_or_parse(text, || crate::parse_condition(text, kind)))
}

/// [`crate::parse_update`], cached.
pub(crate) fn update(text: &str) -> Result<Rc<Update>, ExprError> {
    CACHES.with(|c| c.borrow_mut().updates.get_or_parse(text, || crate::parse_update(text)))
}

/// [`crate::parse_projection`], cached.
pub(crate) fn projection(text: &str) -> Result<Rc<Projection>, ExprError> {
    CACHES.with(|c| c.borrow_mut().projections.get_or_parse(text, || crate::parse_projection(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tree_is_the_tree_parsing_gives() {
        for text in ["SET a = :v, #b = if_not_exists(#b, :z) REMOVE c[1]", "ADD n :one DELETE s :x"] {
            let fresh = crate::parse_update(text).expect("parses");
            assert_eq!(*update(text).expect("first"), fresh);
            assert_eq!(*update(text).expect("cached"), fresh);
        }
    }

    #[test]
    fn kind_is_part_of_the_key_so_messages_name_the_right_parameter() {
        let ok = "a = :v";
        condition(ok, ExpressionKind::Condition).expect("condition");
        let bad = "a = = :v";
        let as_filter =
            condition(bad, ExpressionKind::Filter).expect_err("syntax error").message().to_owned();
        assert!(as_filter.starts_with("Invalid FilterExpression"), "{as_filter}");
        let as_condition =
            condition(bad, ExpressionKind::Condition).expect_err("syntax error").message().to_owned();
        assert!(as_condition.starts_with("Invalid ConditionExpression"), "{as_condition}");
    }

    #[test]
    fn errors_are_not_cached_and_the_map_stays_bounded() {
        for i in 0..CAPACITY * 2 + 3 {
            projection(&format!("a{i}, b")).expect("parses");
        }
        CACHES.with(|c| assert!(c.borrow().projections.0.len() <= CAPACITY));
        assert!(projection("a,,b").is_err());
        assert!(projection("a,,b").is_err());
        CACHES.with(|c| assert!(!c.borrow().projections.0.contains_key("a,,b")));
    }
}
