//! Whether two key templates can produce the same key (S5): used by the library's start-up
//! check and by the design lint (`MT003`), so the decision is written once.
//!
//! A template denotes a language: its literals, with each placeholder standing for any
//! non-empty string of characters that sort after `#` (that is exactly what escaped key values
//! are, see `monotable::key::escape`). Two templates can produce the same key iff their languages
//! intersect, decided by a breadth-first search over the product of two small automata.
//! "Listing type A" means `begins_with(sk, prefix(A))`; it can return items of type B iff
//! B's sort-key language meets `prefix(A)` followed by anything.

use std::collections::{HashSet, VecDeque};

use crate::template::Part;

#[derive(Clone, Copy)]
enum Label {
    Char(char),
    /// Any character that sorts after `#` (the alphabet of escaped values).
    Escaped,
    /// Any character at all.
    Any,
}

impl Label {
    fn meets(self, other: Label) -> bool {
        match (self, other) {
            (Label::Char(a), Label::Char(b)) => a == b,
            (Label::Char(c), Label::Escaped) | (Label::Escaped, Label::Char(c)) => c > '#',
            _ => true,
        }
    }
}

struct Nfa {
    edges: Vec<Vec<(Label, usize)>>,
    accept: usize,
}

impl Nfa {
    fn of_template(t: &[Part<'_>]) -> Nfa {
        let mut edges: Vec<Vec<(Label, usize)>> = vec![Vec::new()];
        for seg in t {
            match seg {
                Part::Lit(l) => {
                    for c in l.chars() {
                        let from = edges.len() - 1;
                        edges.push(Vec::new());
                        edges[from].push((Label::Char(c), from + 1));
                    }
                }
                Part::Var(_) => {
                    let from = edges.len() - 1;
                    edges.push(vec![(Label::Escaped, from + 1)]);
                    edges[from].push((Label::Escaped, from + 1));
                }
            }
        }
        let accept = edges.len() - 1;
        Nfa { edges, accept }
    }

    /// `prefix` followed by anything.
    fn of_prefix(prefix: &str) -> Nfa {
        let mut edges: Vec<Vec<(Label, usize)>> = vec![Vec::new()];
        for c in prefix.chars() {
            let from = edges.len() - 1;
            edges.push(Vec::new());
            edges[from].push((Label::Char(c), from + 1));
        }
        let accept = edges.len() - 1;
        edges[accept].push((Label::Any, accept));
        Nfa { edges, accept }
    }
}

fn intersects(a: &Nfa, b: &Nfa) -> bool {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    while let Some((i, j)) = queue.pop_front() {
        if !seen.insert((i, j)) {
            continue;
        }
        if i == a.accept && j == b.accept {
            return true;
        }
        for &(la, ti) in &a.edges[i] {
            for &(lb, tj) in &b.edges[j] {
                if la.meets(lb) {
                    queue.push_back((ti, tj));
                }
            }
        }
    }
    false
}

/// Whether two templates can render the same string.
pub fn templates_overlap(a: &[Part<'_>], b: &[Part<'_>]) -> bool {
    intersects(&Nfa::of_template(a), &Nfa::of_template(b))
}

/// Whether `begins_with(key, prefix)` can match a key rendered from `t`.
pub fn prefix_reaches(prefix: &str, t: &[Part<'_>]) -> bool {
    intersects(&Nfa::of_prefix(prefix), &Nfa::of_template(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Template;

    fn t(s: &str) -> Vec<Part<'_>> {
        Template::parse(s).unwrap().parts
    }

    #[test]
    fn distinct_literal_prefixes_do_not_overlap() {
        assert!(!templates_overlap(&t("USER#{id}"), &t("ORG#{id}")));
        assert!(templates_overlap(&t("USER#{id}"), &t("USER#{id}")));
    }

    #[test]
    fn a_leading_placeholder_can_overlap_a_literal() {
        assert!(templates_overlap(&t("{x}#B"), &t("USER#B")));
        assert!(prefix_reaches("USER#", &t("{x}#B")));
    }

    #[test]
    fn placeholder_cannot_produce_the_delimiter() {
        // `USER#{id}` can never equal `USER#a#b` because ids are escaped.
        assert!(!templates_overlap(&t("USER#{id}"), &t("USER#a#b")));
    }

    #[test]
    fn sort_key_prefix_reaching_is_detected() {
        assert!(!prefix_reaches("PROFILE", &t("POST#{id}")));
        assert!(!prefix_reaches("POST#", &t("PROFILE")));
        assert!(prefix_reaches("PROFILE", &t("PROFILE#{x}")));
        assert!(prefix_reaches("RECORD#", &t("RECORD#{id}#DETAIL")));
    }
}
