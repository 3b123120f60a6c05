//! The resources: the loaded design (YAML and JSON), the design file's JSON Schema, the
//! single-table data standard and the lint rule catalogue.

use monotable_design::{Design, Severity};
use rmcp::model::{Resource, ResourceContents};

/// The data standard the lint's `S…` references point into, compiled in (`STANDARD.md` is a
/// link to docs/STANDARD.md, so the packaged crate carries the text).
const STANDARD: &str = include_str!("../STANDARD.md");

pub(crate) const DESIGN_YAML: &str = "monotable://design.yaml";
pub(crate) const DESIGN_JSON: &str = "monotable://design.json";
pub(crate) const SCHEMA: &str = "monotable://design.schema.json";
pub(crate) const STANDARD_URI: &str = "monotable://standard.md";
pub(crate) const RULES: &str = "monotable://lint-rules.md";

fn resource(uri: &str, name: &str, description: &str, mime: &str) -> Resource {
    Resource::new(uri, name).with_description(description).with_mime_type(mime)
}

/// The resources there are: the design's two only when one is loaded.
pub(crate) fn list(design: Option<&Design>) -> Vec<Resource> {
    let mut out = Vec::new();
    if design.is_some() {
        out.push(resource(
            DESIGN_YAML,
            "design.yaml",
            "The loaded design document (--design) as YAML",
            "application/yaml",
        ));
        out.push(resource(
            DESIGN_JSON,
            "design.json",
            "The loaded design document (--design) as JSON",
            "application/json",
        ));
    }
    out.push(resource(
        SCHEMA,
        "design.schema.json",
        "The design file's JSON Schema (monotable design schema)",
        "application/schema+json",
    ));
    out.push(resource(
        STANDARD_URI,
        "STANDARD.md",
        "The single-table data standard the design rules (S1…) cite",
        "text/markdown",
    ));
    out.push(resource(
        RULES,
        "lint-rules.md",
        "Every finding design_check (MT…) and design_validate (MV…) report, with its severity",
        "text/markdown",
    ));
    out
}

/// The rule catalogue: one Markdown table of the lint's rules and the validation run's.
pub(crate) fn rules() -> String {
    let mut out = String::from(
        "# monotable design rules\n\nFindings of `design_check` (`monotable design check`, MT…) and `design_validate` (`monotable design validate`, MV…). `S…` cites docs/STANDARD.md (resource monotable://standard.md).\n\n| Rule | Severity | What it finds |\n|---|---|---|\n",
    );
    for (id, severity, text) in monotable_design::RULES.iter().chain(monotable_design_run::RULES) {
        let severity = if *severity == Severity::Error { "error" } else { "warning" };
        out.push_str(&format!("| {id} | {severity} | {text} |\n"));
    }
    out
}

/// The contents of `uri`, or `None` when there is no such resource.
pub(crate) fn read(uri: &str, design: Option<&Design>) -> Option<ResourceContents> {
    let (text, mime) = match uri {
        DESIGN_YAML => (design?.to_yaml(), "application/yaml"),
        DESIGN_JSON => (design?.to_json(), "application/json"),
        SCHEMA => (monotable_design::json_schema(), "application/schema+json"),
        STANDARD_URI => (STANDARD.to_string(), "text/markdown"),
        RULES => (rules(), "text/markdown"),
        _ => return None,
    };
    Some(ResourceContents::text(text, uri).with_mime_type(mime))
}
