//! The tools' arguments: one struct per tool, whose JSON Schema (schemars) is the tool's input
//! schema. Unknown fields are refused, so a misspelt argument is an error, never ignored.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The design a design tool works on, and the page of its output.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DesignArg {
    /// The design document as YAML or JSON text. Omit it to use the design the server was
    /// started with (--design FILE).
    pub design: Option<String>,
    /// Continues a truncated result: the cursor the previous call returned.
    pub cursor: Option<String>,
}

/// `design_validate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Validate {
    /// The design document as YAML or JSON text. Omit it to use the design the server was
    /// started with (--design FILE).
    pub design: Option<String>,
    /// Continues a truncated result: the cursor the previous call returned.
    pub cursor: Option<String>,
    /// Seed of the generated sample items (1 when omitted, as `monotable design validate`).
    pub seed: Option<u64>,
}

/// `design_cost`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// The design document as YAML or JSON text. Omit it to use the design the server was
    /// started with (--design FILE).
    pub design: Option<String>,
    /// Continues a truncated result: the cursor the previous call returned.
    pub cursor: Option<String>,
    /// Requests per access pattern and items per entity type, as YAML or JSON text (the
    /// traffic file format of docs/cost.md).
    pub traffic: String,
    /// A price table as YAML or JSON text (us-east-1 prices when omitted).
    pub prices: Option<String>,
    /// Seed of the sample items the capacity is measured on.
    pub seed: Option<u64>,
}

/// The formats of `design_iac`, as `monotable design iac --format` names them.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IacFormat {
    /// CloudFormation JSON.
    Cloudformation,
    /// CloudFormation YAML.
    CloudformationYaml,
    /// Terraform HCL.
    Terraform,
    /// Pulumi TypeScript.
    Pulumi,
    /// AWS CDK: a TypeScript construct and app (two files).
    Cdk,
}

/// `design_iac`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Iac {
    /// The design document as YAML or JSON text. Omit it to use the design the server was
    /// started with (--design FILE).
    pub design: Option<String>,
    /// Continues a truncated result: the cursor the previous call returned.
    pub cursor: Option<String>,
    /// The infrastructure-as-code format.
    pub format: IacFormat,
}

/// The languages of `design_codegen`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Zod schemas, key builders and `@aws-sdk/lib-dynamodb` command inputs.
    Typescript,
    /// `#[derive(Entity)]` structs with their access patterns.
    Rust,
}

/// `design_codegen`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Codegen {
    /// The design document as YAML or JSON text. Omit it to use the design the server was
    /// started with (--design FILE).
    pub design: Option<String>,
    /// Continues a truncated result: the cursor the previous call returned.
    pub cursor: Option<String>,
    /// The language to generate.
    pub lang: Lang,
}

/// One entity type of `design_new`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEntity {
    /// The entity type's name, e.g. `Order`.
    pub name: String,
    /// Partition-key template, e.g. `CUSTOMER#{customer_id}`.
    pub pk: String,
    /// Sort-key template, e.g. `ORDER#{order_id}`.
    pub sk: String,
    /// Field names (string typed); the templates' placeholders are added when missing.
    #[serde(default)]
    pub fields: Vec<String>,
    /// The field naming the tenant (organisation) an item belongs to (S12): the partition
    /// key's first placeholder (else the sort key's) when omitted.
    pub tenant: Option<String>,
}

/// The operations `design_new` scaffolds.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NewOperation {
    Get,
    Query,
    Put,
    Update,
    Delete,
}

/// One access pattern of `design_new`: by default on the table key of its entity type.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPattern {
    /// The pattern's name, e.g. `list-orders`.
    pub name: String,
    /// What it does.
    pub operation: NewOperation,
    /// The entity type it reads or writes.
    pub entity: String,
    /// For a query: the sort-key prefix it selects with begins_with (the entity's sort-key
    /// text before its first placeholder when omitted).
    pub sk_prefix: Option<String>,
}

/// `design_new`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct New {
    /// Application name (first segment of the table name and SSM path).
    #[serde(default = "default_app")]
    pub app: String,
    /// Deployable unit owning the table.
    #[serde(default = "default_unit")]
    pub unit: String,
    /// Model name; the table is `<app>-<stage>-<model>`.
    #[serde(default = "default_model")]
    pub model: String,
    /// The entity types.
    pub entities: Vec<NewEntity>,
    /// The access patterns.
    pub access_patterns: Vec<NewPattern>,
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

fn default_app() -> String {
    "acme".into()
}
fn default_unit() -> String {
    "api".into()
}
fn default_model() -> String {
    "main".into()
}

/// Only a page cursor.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paged {
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

/// `describe_table`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Describe {
    /// The table name.
    pub table: String,
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

/// `run_access_pattern`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunPattern {
    /// The access pattern's name in the loaded design.
    pub pattern: String,
    /// The values of the key templates' placeholders, by field name (raw, unescaped).
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// The table name; `<app>-<stage>-<model>` of the loaded design when omitted.
    pub table: Option<String>,
    /// The stage of that name (`dev` when omitted).
    pub stage: Option<String>,
    /// At most this many items per page (a query pattern).
    pub limit: Option<u32>,
    /// The `last_evaluated_key` of the previous page, to read the next one.
    pub exclusive_start_key: Option<Value>,
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

/// `get_entity` and `delete`: an entity by the fields of its table key.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityKey {
    /// The entity type's name in the loaded design.
    pub entity: String,
    /// The fields its key templates name, e.g. `{"org_id": "o1", "id": "r1"}`.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// The table name; `<app>-<stage>-<model>` of the loaded design when omitted.
    pub table: Option<String>,
    /// The stage of that name (`dev` when omitted).
    pub stage: Option<String>,
    /// For `delete` on an entity type with a version field: the version read; the delete
    /// happens only if the item still has it.
    pub expected_version: Option<u64>,
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

/// `query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// The table name.
    pub table: String,
    /// A secondary index to query instead of the table.
    pub index: Option<String>,
    /// The key condition, e.g. `pk = :pk AND begins_with(sk, :prefix)`.
    pub key_condition: String,
    /// The `:placeholder` values as plain JSON (strings, numbers, booleans).
    #[serde(default)]
    pub values: BTreeMap<String, Value>,
    /// The `#placeholder` attribute names.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// At most this many items.
    pub limit: Option<u32>,
    /// Descending sort-key order.
    #[serde(default)]
    pub descending: bool,
    /// The `last_evaluated_key` of the previous page.
    pub exclusive_start_key: Option<Value>,
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

/// `partiql`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Partiql {
    /// One PartiQL statement. Only SELECT unless the server runs with --writable.
    pub statement: String,
    /// Values of the statement's `?` parameters, as plain JSON.
    #[serde(default)]
    pub parameters: Vec<Value>,
    /// At most this many items.
    pub limit: Option<u32>,
    /// The `next_token` of the previous page.
    pub next_token: Option<String>,
    /// Continues a truncated result.
    pub cursor: Option<String>,
}

/// `put_entity`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PutEntity {
    /// The entity type's name in the loaded design.
    pub entity: String,
    /// The item's fields as plain JSON; the key templates' placeholders must be among them.
    pub item: serde_json::Map<String, Value>,
    /// The table name; `<app>-<stage>-<model>` of the loaded design when omitted.
    pub table: Option<String>,
    /// The stage of that name (`dev` when omitted).
    pub stage: Option<String>,
    /// On an entity type with a version field: the version read (the put replaces only that
    /// version); omit it to create the item, which must not exist yet.
    pub expected_version: Option<u64>,
}

/// `update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Update {
    /// The entity type's name in the loaded design.
    pub entity: String,
    /// The fields its key templates name.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// Attributes to set, as plain JSON.
    pub set: serde_json::Map<String, Value>,
    /// The table name; `<app>-<stage>-<model>` of the loaded design when omitted.
    pub table: Option<String>,
    /// The stage of that name (`dev` when omitted).
    pub stage: Option<String>,
    /// On an entity type with a version field: the version read (required there).
    pub expected_version: Option<u64>,
}

/// `create_table_from_design`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTable {
    /// The design document as YAML or JSON text. Omit it to use the design the server was
    /// started with (--design FILE).
    pub design: Option<String>,
    /// The table name; `<app>-<stage>-<model>` of the design when omitted.
    pub table: Option<String>,
    /// The stage of that name (`dev` when omitted).
    pub stage: Option<String>,
}
