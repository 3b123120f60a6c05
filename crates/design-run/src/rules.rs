//! The findings of `design validate`, a family apart from the lint's `MT…`. Invariant: ids
//! never change meaning and a retired id is not reused.

use monotable_design::{Finding, Severity};

/// Every rule: id, severity, short name.
pub const RULES: &[(&str, Severity, &str)] = &[
    ("MV001", Severity::Error, "the pattern returns other items than its key condition selects"),
    ("MV002", Severity::Error, "the pattern returns an entity type it does not declare"),
    ("MV003", Severity::Error, "the pattern has no key: it would need a Scan (S9)"),
    ("MV004", Severity::Warning, "the pattern filters on a key attribute instead of a key condition"),
    ("MV005", Severity::Error, "the index does not project an attribute the pattern reads"),
    ("MV006", Severity::Error, "a page at the declared maximum collection size is over 1 MB"),
    ("MV007", Severity::Error, "the items do not come back in the order the pattern promises"),
    ("MV008", Severity::Error, "the pattern could not be executed"),
];

pub(crate) fn finding(rule: &'static str, subject: &str, message: String, hint: &str) -> Finding {
    let severity = RULES.iter().find(|r| r.0 == rule).map_or(Severity::Error, |r| r.1);
    Finding { rule, severity, subject: subject.to_string(), message, hint: hint.to_string() }
}
