//! Every tool: its name, description, input schema (from `inputs`) and MCP annotations.
//!
//! Invariant: a tool whose `writes` is true is listed and dispatched only on a writable
//! server; every other tool only reads (the data tools) or touches no table at all (the
//! design tools, which run on a private engine of their own where they run one).

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;

use crate::inputs;

/// One tool of the catalogue.
pub(crate) struct Spec {
    pub name: &'static str,
    pub writes: bool,
    tool: fn() -> Tool,
}

impl Spec {
    pub(crate) fn tool(&self) -> Tool {
        (self.tool)()
    }
}

/// What an MCP client may assume of a tool.
#[derive(Clone, Copy)]
enum Kind {
    /// Reads only; the same call gives the same answer on the same data.
    Read,
    /// Writes only what is not there yet (a new table).
    Additive,
    /// Writes, and may replace or remove what is there (every write tool: a put replaces, an
    /// update overwrites attributes, a delete removes).
    Destructive,
}

fn tool<T: JsonSchema + 'static>(name: &'static str, description: &'static str, kind: Kind) -> Tool {
    let annotations = match kind {
        Kind::Read => ToolAnnotations::new().read_only(true).destructive(false).idempotent(true),
        Kind::Additive => ToolAnnotations::new().read_only(false).destructive(false).idempotent(false),
        Kind::Destructive => ToolAnnotations::new().read_only(false).destructive(true).idempotent(false),
    };
    Tool::new(name, description, Arc::new(Default::default()))
        .with_input_schema::<T>()
        .with_annotations(annotations.open_world(false))
}

macro_rules! spec {
    ($name:literal, $input:ty, $kind:ident, $writes:literal, $description:literal) => {
        Spec { name: $name, writes: $writes, tool: || tool::<$input>($name, $description, Kind::$kind) }
    };
}

/// The catalogue, in the order `tools/list` gives it.
pub(crate) const TOOLS: &[Spec] = &[
    spec!("design_check", inputs::DesignArg, Read, false,
        "Lint a single-table design (monotable design check): findings with rule ids (MT…), severity, the subject and a fix. Errors must be fixed; the rule list is the resource monotable://lint-rules.md."),
    spec!("design_validate", inputs::Validate, Read, false,
        "Run every access pattern of the design on generated sample items in a private embedded engine (monotable design validate): per pattern, pass or fail, items returned and consumed capacity; findings MV…."),
    spec!("design_cost", inputs::Cost, Read, false,
        "A month's DynamoDB bill for the design, on-demand and provisioned (monotable design cost): capacity measured on sample items times the traffic given inline (YAML or JSON: requests per access pattern, items per entity type; docs/cost.md)."),
    spec!("design_show", inputs::DesignArg, Read, false,
        "The design's access-pattern table in Markdown (monotable design show --markdown): each pattern's index, key condition and entity types."),
    spec!("design_iac", inputs::Iac, Read, false,
        "Infrastructure as code for the design's table with a least-privilege IAM policy (monotable design iac): cloudformation, cloudformation-yaml, terraform, pulumi or cdk (two files, each under a `// file:` line)."),
    spec!("design_codegen", inputs::Codegen, Read, false,
        "Source code from the design (monotable design codegen): typescript (Zod schemas, key builders, lib-dynamodb command inputs) or rust (#[derive(Entity)] structs with their access patterns)."),
    spec!("design_new", inputs::New, Read, false,
        "Scaffold a design document (YAML) from entity types (name, pk and sk templates, fields) and access patterns (get, query, put, update, delete on an entity type), as monotable design new shapes one; the answer also carries design_check's findings on it."),
    spec!("list_tables", inputs::Paged, Read, false,
        "The names of the tables on the server's endpoint."),
    spec!("describe_table", inputs::Describe, Read, false,
        "A table's key schema, attribute types, indexes, item count, billing and stream."),
    spec!("run_access_pattern", inputs::RunPattern, Read, false,
        "Run a reading access pattern (get or query) of the loaded design by name, its key templates filled from `params`: items decoded by entity type with the key fields read back from the keys, and the consumed capacity."),
    spec!("get_entity", inputs::EntityKey, Read, false,
        "Read one item by its entity type in the loaded design and the fields its key templates name."),
    spec!("query", inputs::Query, Read, false,
        "One page of a DynamoDB Query: a key condition with its :values (plain JSON) and #names, an optional index, a limit and the previous page's last_evaluated_key."),
    spec!("partiql", inputs::Partiql, Read, false,
        "Run one PartiQL statement (ExecuteStatement). Only SELECT unless the server runs with --writable."),
    spec!("put_entity", inputs::PutEntity, Destructive, true,
        "Write an item of an entity type of the loaded design: its table keys and entity type filled from its fields; conditional on expected_version where the entity type has a version field, else it replaces the item."),
    spec!("update", inputs::Update, Destructive, true,
        "Set attributes of an existing item of an entity type of the loaded design, conditional on expected_version where the entity type has a version field."),
    spec!("delete", inputs::EntityKey, Destructive, true,
        "Delete an item of an entity type of the loaded design by its key fields, conditional on expected_version where the entity type has a version field."),
    spec!("create_table_from_design", inputs::CreateTable, Additive, true,
        "Create the design's table with its indexes, TTL and stream on the server's endpoint, as monotable design apply does for a table that does not exist yet; an existing table is left alone (bring it to the design with monotable design apply)."),
];

/// The spec called `name`.
pub(crate) fn find(name: &str) -> Option<&'static Spec> {
    TOOLS.iter().find(|s| s.name == name)
}
