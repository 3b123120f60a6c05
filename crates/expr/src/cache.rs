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
//! Each cached tree also remembers whether DynamoDB's first checking pass (reserved words,
//! function names and placement, repeated update clauses) has passed on it. That pass reads
//! nothing but the tree and the expression kind, both part of the cache key, so once it has
//! passed it passes for every later request with the same text; only the second pass, which
//! reads the request's placeholders, runs again.
//!
//! Each map holds at most [`CAPACITY`] texts and is emptied when it is full: a workload with
//! more distinct expressions than that degrades to parsing, never to unbounded memory.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::ast::{Condition, Projection, Update};
use crate::{ExprError, ExpressionKind};

/// Texts kept per map and thread.
pub(crate) const CAPACITY: usize = 256;

/// A parsed tree and what is known of its first checking pass.
#[derive(Debug)]
pub(crate) struct Cached<T> {
    tree: T,
    /// Invariant: `true` only after the first pass has run on `tree` without an error.
    pass1_clean: Cell<bool>,
}

impl<T> Cached<T> {
    fn new(tree: T) -> Self {
        Cached { tree, pass1_clean: Cell::new(false) }
    }

    /// Runs the first checking pass `run` unless it has already passed on this tree; its
    /// error, when there is one, is derived afresh each time.
    pub(crate) fn pass1(&self, run: impl FnOnce(&T) -> Result<(), ExprError>) -> Result<(), ExprError> {
        if !self.pass1_clean.get() {
            run(&self.tree)?;
            self.pass1_clean.set(true);
        }
        Ok(())
    }
}

impl<T> std::ops::Deref for Cached<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.tree
    }
}

struct Map<T>(HashMap<Box<str>, Rc<Cached<T>>>);

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
    ) -> Result<Rc<Cached<T>>, ExprError> {
        if let Some(tree) = self.0.get(text) {
            return Ok(Rc::clone(tree));
        }
        let tree = Rc::new(Cached::new(parse()?));
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
pub(crate) fn condition(text: &str, kind: ExpressionKind) -> Result<Rc<Cached<Condition>>, ExprError> {
    let slot = match kind {
        ExpressionKind::Condition => 0,
        ExpressionKind::Filter => 1,
        ExpressionKind::KeyCondition => 2,
        // Not condition parameters: parsed as asked, not kept.
        ExpressionKind::Update | ExpressionKind::Projection => {
            return crate::parse_condition(text, kind).map(|tree| Rc::new(Cached::new(tree)))
        }
    };
    CACHES.with(|c| c.borrow_mut().conditions[slot].get_or_parse(text, || crate::parse_condition(text, kind)))
}

/// [`crate::parse_update`], cached.
pub(crate) fn update(text: &str) -> Result<Rc<Cached<Update>>, ExprError> {
    CACHES.with(|c| c.borrow_mut().updates.get_or_parse(text, || crate::parse_update(text)))
}

/// [`crate::parse_projection`], cached.
pub(crate) fn projection(text: &str) -> Result<Rc<Cached<Projection>>, ExprError> {
    CACHES.with(|c| c.borrow_mut().projections.get_or_parse(text, || crate::parse_projection(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tree_is_the_tree_parsing_gives() {
        for text in ["SET a = :v, #b = if_not_exists(#b, :z) REMOVE c[1]", "ADD n :one DELETE s :x"] {
            let fresh = crate::parse_update(text).expect("parses");
            assert_eq!(**update(text).expect("first"), fresh);
            assert_eq!(**update(text).expect("cached"), fresh);
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

    #[test]
    fn a_first_pass_error_is_reported_on_every_request() {
        for _ in 0..2 {
            let err = crate::Params::new(None, None).update("SET name = a", &[]).expect_err("reserved word");
            assert!(err.message().contains("reserved keyword; reserved keyword: name"), "{}", err.message());
        }
        update("SET name = a").expect("the syntax pass passed, so the tree is cached");
    }

    #[test]
    fn a_passed_first_pass_is_remembered_and_the_second_pass_runs_on_every_request() {
        let text = "SET a = :v REMOVE b";
        let values: HashMap<String, monotable_types::AttributeValue> =
            [(":v".to_owned(), monotable_types::AttributeValue::Null)].into();
        crate::Params::new(None, Some(&values)).update(text, &[]).expect("valid");
        assert!(update(text).expect("cached").pass1_clean.get());
        let err = crate::Params::new(None, None).update(text, &[]).expect_err("undefined value");
        assert!(err.message().contains("attribute value: :v"), "{}", err.message());
        let err = crate::Params::new(None, Some(&values)).update(text, &["a"]).expect_err("key attribute");
        assert!(err.message().contains("Cannot update attribute a"), "{}", err.message());
    }
}
