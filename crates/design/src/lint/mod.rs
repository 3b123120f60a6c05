//! `design check`: findings with stable rule ids, one file per rule family. The `S1`…`S22`
//! a rule or hint cites are the rules of the single-table standard, docs/STANDARD.md.
//!
//! Invariant: rule ids never change meaning; a retired rule's id is not reused. A finding
//! whose `(rule, subject)` the document lists under `accept` is dropped.
//!
//! Invariant: a key template that does not parse is one MT010 finding (`refs`, with the column
//! where it breaks) and nothing else: every other check skips a template it cannot parse, or
//! makes no judgement that depends on one.

mod conventions;
mod keys;
mod limits;
mod multi_key;
mod patterns;
mod refs;

use serde::Serialize;

use crate::model::Design;

/// How bad a finding is. `Error` makes `design check` exit non-zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look.
    Warning,
    /// The design is wrong or cannot be deployed.
    Error,
}

/// One finding of the lint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable rule id, `MT001`….
    pub rule: &'static str,
    /// Severity of the rule.
    pub severity: Severity,
    /// The entity, index or access pattern the finding is about.
    pub subject: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

/// Every rule: id, severity, short name.
pub const RULES: &[(&str, Severity, &str)] = &[
    ("MT001", Severity::Warning, "index serves no access pattern (S7)"),
    ("MT002", Severity::Error, "access pattern no key serves: it would need a Scan (S9)"),
    ("MT003", Severity::Error, "key templates of two entity types overlap (S5)"),
    ("MT004", Severity::Warning, "hot partition: partition key constant or low-cardinality"),
    ("MT005", Severity::Warning, "sort key without a type prefix"),
    ("MT006", Severity::Warning, "mixed naming conventions (S2)"),
    ("MT007", Severity::Warning, "missing created/updated/created-by stamps (S4)"),
    ("MT008", Severity::Error, "DynamoDB limit exceeded"),
    ("MT009", Severity::Warning, "filter on a key attribute instead of a key condition"),
    ("MT010", Severity::Error, "reference to an unknown entity, index, field or malformed template"),
    ("MT011", Severity::Warning, "GSI key only joins fields: a multi-attribute key would hold them"),
    ("MT012", Severity::Error, "tenant-scoped access pattern on an entity without a tenant (S12, S14)"),
];

pub(crate) fn finding(rule: &'static str, subject: &str, message: String, hint: &str) -> Finding {
    let severity = RULES.iter().find(|r| r.0 == rule).map_or(Severity::Error, |r| r.1);
    Finding { rule, severity, subject: subject.to_string(), message, hint: hint.to_string() }
}

/// Checks a design; findings sorted by rule then subject.
pub fn check(design: &Design) -> Vec<Finding> {
    let mut out = Vec::new();
    refs::check(design, &mut out);
    patterns::check(design, &mut out);
    keys::check(design, &mut out);
    conventions::check(design, &mut out);
    limits::check(design, &mut out);
    multi_key::check(design, &mut out);
    out.retain(|f| !design.accepts(f.rule, &f.subject));
    out.sort_by(|a, b| (a.rule, &a.subject).cmp(&(b.rule, &b.subject)));
    out.dedup();
    out
}
