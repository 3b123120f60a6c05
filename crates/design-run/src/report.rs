//! What a run found: one [`PatternReport`] per access pattern and the findings, for people
//! ([`Report::text`]) and tools (serde JSON).

use std::collections::BTreeMap;
use std::fmt::Write;

use monotable_design::{Finding, Operation, Severity};
use serde::Serialize;

/// The result of running every access pattern of a design.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The seed the samples were generated from.
    pub seed: u64,
    /// Items loaded before the patterns ran (unique-constraint guards included).
    pub sample_items: usize,
    /// One entry per access pattern, in the design's order.
    pub patterns: Vec<PatternReport>,
    /// Findings, sorted by pattern then rule.
    pub findings: Vec<Finding>,
}

/// What one access pattern did on the engine.
#[derive(Debug, Clone, Serialize)]
pub struct PatternReport {
    /// The pattern's name.
    pub name: String,
    /// Its operation.
    pub operation: Operation,
    /// `table` or the index it reads.
    pub index: String,
    /// Whether it ran (a pattern without a key, or that no sample can bind, does not).
    pub executed: bool,
    /// Items returned (reads) or written (writes, guard items included).
    pub items: usize,
    /// Items the key condition selects among the samples (reads).
    pub expected: Option<usize>,
    /// Requests made: Query pages, or 1.
    pub requests: usize,
    /// Read units consumed, eventually consistent, all requests together.
    pub read_units_eventual: f64,
    /// Read units consumed strongly consistent (table and LSIs only).
    pub read_units_strong: Option<f64>,
    /// Write units consumed on the base table.
    pub write_units_table: f64,
    /// Write units consumed on each secondary index.
    pub write_units_indexes: BTreeMap<String, f64>,
    /// No error finding about it.
    pub passed: bool,
}

impl PatternReport {
    pub(crate) fn new(p: &monotable_design::AccessPattern) -> PatternReport {
        PatternReport {
            name: p.name.clone(),
            operation: p.operation,
            index: p.index.clone(),
            executed: false,
            items: 0,
            expected: None,
            requests: 0,
            read_units_eventual: 0.0,
            read_units_strong: None,
            write_units_table: 0.0,
            write_units_indexes: BTreeMap::new(),
            passed: true,
        }
    }
}

impl PatternReport {
    /// Records an executed read.
    pub(crate) fn read(
        &mut self,
        items: usize,
        expected: usize,
        requests: usize,
        eventual: f64,
        strong: Option<f64>,
    ) {
        self.executed = true;
        (self.items, self.expected, self.requests) = (items, Some(expected), requests);
        (self.read_units_eventual, self.read_units_strong) = (eventual, strong);
    }
}

impl Report {
    /// No pattern failed (warnings allowed).
    pub fn passed(&self) -> bool {
        !self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// One line per pattern with its findings under it, and a summary line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.patterns {
            let verdict = if p.passed { "ok  " } else { "FAIL" };
            let op = serde_json::to_value(p.operation).ok().and_then(|v| v.as_str().map(str::to_string));
            let _ = write!(out, "{verdict} {} ({} on {})", p.name, op.unwrap_or_default(), p.index);
            if !p.executed {
                out.push_str(": not executed");
            } else if p.operation.reads() {
                let _ = write!(out, ": {} item(s)", p.items);
                if let Some(e) = p.expected {
                    let _ = write!(out, " of {e} expected");
                }
                let _ = write!(
                    out,
                    ", {} request(s), {} RCU eventually consistent",
                    p.requests, p.read_units_eventual
                );
                if let Some(s) = p.read_units_strong {
                    let _ = write!(out, ", {s} strongly");
                }
            } else {
                let _ =
                    write!(out, ": {} item(s) written, {} WCU on the table", p.items, p.write_units_table);
                for (i, u) in &p.write_units_indexes {
                    let _ = write!(out, ", {u} on {i}");
                }
            }
            out.push('\n');
            for f in self.findings.iter().filter(|f| f.subject == p.name) {
                let sev = if f.severity == Severity::Error { "error" } else { "warning" };
                let _ = writeln!(out, "  {sev}[{}] {}\n    fix: {}", f.rule, f.message, f.hint);
            }
        }
        let failed = self.patterns.iter().filter(|p| !p.passed).count();
        let _ = write!(
            out,
            "{} pattern(s), {failed} failed, {} sample item(s), seed {}",
            self.patterns.len(),
            self.sample_items,
            self.seed
        );
        out
    }
}
