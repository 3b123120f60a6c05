//! Start-up detection of entity types whose keys can collide (S5).
//!
//! A template denotes a language: its literals, with each placeholder standing for any
//! non-empty string of characters that sort after `#` (that is exactly what escaped key values
//! are, see [`crate::key`]). Two templates can produce the same key iff their languages
//! intersect, decided by a breadth-first search over the product of two small automata.
//! "Listing type A" means `begins_with(sk, prefix(A))`; it can return items of type B iff
//! B's sort-key language meets `prefix(A)` followed by anything.

use std::collections::{HashSet, VecDeque};

use crate::schema::{Segment, Template};

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
    fn of_template(t: &Template) -> Nfa {
        let mut edges: Vec<Vec<(Label, usize)>> = vec![Vec::new()];
        for seg in t.segments {
            match seg {
                Segment::Lit(l) => {
                    for c in l.chars() {
                        let from = edges.len() - 1;
                        edges.push(Vec::new());
                        edges[from].push((Label::Char(c), from + 1));
                    }
                }
                Segment::Field(_) => {
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
pub fn templates_overlap(a: &Template, b: &Template) -> bool {
    intersects(&Nfa::of_template(a), &Nfa::of_template(b))
}

/// Whether `begins_with(key, prefix)` can match a key rendered from `t`.
pub fn prefix_reaches(prefix: &str, t: &Template) -> bool {
    intersects(&Nfa::of_prefix(prefix), &Nfa::of_template(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER_PK: Template =
        Template { source: "USER#{id}", segments: &[Segment::Lit("USER#"), Segment::Field("id")] };
    const ORG_PK: Template =
        Template { source: "ORG#{id}", segments: &[Segment::Lit("ORG#"), Segment::Field("id")] };
    const ANY_PK: Template =
        Template { source: "{x}#B", segments: &[Segment::Field("x"), Segment::Lit("#B")] };
    const PROFILE: Template = Template { source: "PROFILE", segments: &[Segment::Lit("PROFILE")] };
    const POST: Template =
        Template { source: "POST#{id}", segments: &[Segment::Lit("POST#"), Segment::Field("id")] };

    #[test]
    fn distinct_literal_prefixes_do_not_overlap() {
        assert!(!templates_overlap(&USER_PK, &ORG_PK));
        assert!(templates_overlap(&USER_PK, &USER_PK));
    }

    #[test]
    fn a_leading_placeholder_can_overlap_a_literal() {
        let t = Template { source: "USER#B", segments: &[Segment::Lit("USER#B")] };
        assert!(templates_overlap(&ANY_PK, &t));
        assert!(prefix_reaches("USER#", &ANY_PK));
    }

    #[test]
    fn placeholder_cannot_produce_the_delimiter() {
        // `USER#{id}` can never equal `USER#a#b` because ids are escaped.
        let t = Template { source: "USER#a#b", segments: &[Segment::Lit("USER#a#b")] };
        assert!(!templates_overlap(&USER_PK, &t));
    }

    #[test]
    fn sort_key_prefix_reaching_is_detected() {
        assert!(!prefix_reaches("PROFILE", &POST));
        assert!(!prefix_reaches("POST#", &PROFILE));
        let profile_x =
            Template { source: "PROFILE#{x}", segments: &[Segment::Lit("PROFILE#"), Segment::Field("x")] };
        assert!(prefix_reaches("PROFILE", &profile_x));
        let detail = Template {
            source: "RECORD#{id}#DETAIL",
            segments: &[Segment::Lit("RECORD#"), Segment::Field("id"), Segment::Lit("#DETAIL")],
        };
        assert!(prefix_reaches("RECORD#", &detail));
    }
}
