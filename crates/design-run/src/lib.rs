//! # monotable-design-run — a design executed on sample items
//!
//! [`validate`] generates sample items for every entity type of a [`Design`] (deterministic
//! for a seed), loads them into a fresh in-process [`monotable_engine::Engine`] holding the
//! design's table and indexes, and executes every access pattern with parameters drawn from
//! the samples. Each pattern is checked (findings `MV001`…, listed in [`RULES`]) and its
//! consumed capacity reported; [`measure`] turns the same run into the
//! [`monotable_design::cost::Measured`] a cost estimate reads.
//!
//! Architecture Invariant: what a pattern *should* return is computed from the samples in
//! Rust (`expect`), never by asking the engine; the engine is only the system under test.

mod error;
mod expect;
mod keys;
mod measure;
mod reads;
mod report;
mod rng;
mod rules;
mod sample;
mod table;
mod writes;

pub use error::RunError;
pub use measure::measure;
pub use report::{PatternReport, Report};
pub use rules::RULES;

use monotable_design::Design;

/// The seed `design validate` uses unless given one.
pub const DEFAULT_SEED: u64 = 1;

/// Runs every access pattern of `design` on sample items generated from `seed`.
pub fn validate(design: &Design, seed: u64) -> Result<Report, RunError> {
    Ok(run(design, seed)?.report)
}

/// One run: the report and what `measure` reads beside it.
pub(crate) struct Run {
    pub report: Report,
    pub samples: sample::Samples,
}

pub(crate) fn run(design: &Design, seed: u64) -> Result<Run, RunError> {
    let mut samples = sample::generate(design, seed)?;
    let engine = table::create(design)?;
    table::load(&engine, design, &samples)?;
    let mut patterns = Vec::new();
    let mut findings = Vec::new();
    // Reads first, so that every read sees the loaded samples and no write of this run.
    for p in design.access_patterns.iter().filter(|p| p.operation.reads()) {
        patterns.push(reads::execute(&engine, design, &samples, p, &mut findings));
    }
    for p in design.access_patterns.iter().filter(|p| !p.operation.reads()) {
        patterns.push(writes::execute(&engine, design, &mut samples, p, &mut findings));
    }
    let order = |name: &str| design.access_patterns.iter().position(|p| p.name == name);
    patterns.sort_by_key(|p| order(&p.name));
    findings.retain(|f| !design.accepts(f.rule, &f.subject));
    findings.sort_by(|a, b| (&a.subject, a.rule).cmp(&(&b.subject, b.rule)));
    for p in &mut patterns {
        p.passed =
            !findings.iter().any(|f| f.subject == p.name && f.severity == monotable_design::Severity::Error);
    }
    let report = Report { seed, sample_items: samples.items.len(), patterns, findings };
    Ok(Run { report, samples })
}
