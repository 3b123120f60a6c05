//! The published JSON Schema of the design document (`docs/design.schema.json`), for editor
//! completion and validation. A test keeps the checked-in file equal to this output.

use crate::model::Design;

/// The JSON Schema of [`Design`], pretty-printed with a trailing newline.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Design);
    let mut out = serde_json::to_string_pretty(&schema).unwrap_or_default();
    out.push('\n');
    out
}
