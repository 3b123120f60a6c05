//! The design document: plain data with serde and a JSON Schema.
//!
//! Invariant: the document is data only; every judgement about it lives in the lint, and
//! every rendering in `iac` and `show`. Optional parts are omitted when empty so a document
//! written by [`Design::to_yaml`] reads like one written by hand.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::DesignError;
use crate::settings::TableSettings;

/// The name access patterns use for the base table (not an index).
pub const TABLE: &str = "table";

/// One application's table (S1): its conventions, indexes, entity types and access patterns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Design {
    /// Format version of this document; currently 1.
    pub version: u32,
    /// Application name: the first segment of the SSM parameter path (S19).
    pub app: String,
    /// Deployable unit owning the table (S19).
    pub unit: String,
    /// Model name; the table is `<app>-<stage>-<model>` (S19).
    pub model: String,
    /// Attribute naming conventions (S2).
    pub conventions: Conventions,
    /// Billing, stream, tags and deletion protection; defaults when omitted.
    #[serde(default, skip_serializing_if = "TableSettings::is_default")]
    pub table: TableSettings,
    /// Secondary indexes (GSIs and LSIs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<Index>,
    /// Entity types stored in the table.
    pub entities: Vec<Entity>,
    /// Named access patterns: every read and write the application performs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_patterns: Vec<AccessPattern>,
    /// Findings deliberately accepted, with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accept: Vec<Accept>,
}

/// Attribute names the library writes itself (S2, S3, S4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Conventions {
    /// Partition key attribute (`PK` or `pk`).
    pub pk: String,
    /// Sort key attribute (`SK` or `sk`).
    pub sk: String,
    /// Entity-type attribute (S3).
    pub entity_type: String,
    /// Created timestamp (S4); omit only if the table has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Updated timestamp (S4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Created-by stamp (S4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// The table's TTL attribute (epoch seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

impl Conventions {
    /// `PK`, `SK`, `EntityType`, `CreatedAt`, `UpdatedAt`, `CreatedBy`, `TTL`.
    pub fn upper() -> Self {
        Conventions {
            pk: "PK".into(),
            sk: "SK".into(),
            entity_type: "EntityType".into(),
            created: Some("CreatedAt".into()),
            updated: Some("UpdatedAt".into()),
            created_by: Some("CreatedBy".into()),
            ttl: Some("TTL".into()),
        }
    }

    /// `pk`, `sk`, `entityType`, `createdOn`, `updatedOn`, `createdBy`, `ttl`.
    pub fn lower() -> Self {
        Conventions {
            pk: "pk".into(),
            sk: "sk".into(),
            entity_type: "entityType".into(),
            created: Some("createdOn".into()),
            updated: Some("updatedOn".into()),
            created_by: Some("createdBy".into()),
            ttl: Some("ttl".into()),
        }
    }
}

/// Global or local secondary index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IndexKind {
    /// Global secondary index: its own partition and sort key.
    Gsi,
    /// Local secondary index: the table's partition key and its own sort key.
    Lsi,
}

/// Which attributes an index copies: `all`, `keys_only` or `{include: [...]}`. (Read and
/// written through `ProjectionText`, since YAML would otherwise want a `!include` tag.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", from = "ProjectionText", into = "ProjectionText")]
pub enum Projection {
    /// Every attribute.
    All,
    /// Only the table and index keys.
    KeysOnly,
    /// The keys and these non-key attributes.
    Include(Vec<String>),
}

/// The written form of a [`Projection`]: a word or an `include` map, the same in JSON and YAML.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum ProjectionText {
    /// `all` or `keys_only`.
    Word(ProjectionWord),
    /// The keys and these non-key attributes.
    Include {
        /// Non-key attributes copied to the index.
        include: Vec<String>,
    },
}

/// A projection without an attribute list.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ProjectionWord {
    /// Every attribute.
    All,
    /// Only the table and index keys.
    KeysOnly,
}

impl From<ProjectionText> for Projection {
    fn from(t: ProjectionText) -> Projection {
        match t {
            ProjectionText::Word(ProjectionWord::All) => Projection::All,
            ProjectionText::Word(ProjectionWord::KeysOnly) => Projection::KeysOnly,
            ProjectionText::Include { include } => Projection::Include(include),
        }
    }
}

impl From<Projection> for ProjectionText {
    fn from(p: Projection) -> ProjectionText {
        match p {
            Projection::All => ProjectionText::Word(ProjectionWord::All),
            Projection::KeysOnly => ProjectionText::Word(ProjectionWord::KeysOnly),
            Projection::Include(include) => ProjectionText::Include { include },
        }
    }
}

fn projection_all() -> Projection {
    Projection::All
}

fn is_all(p: &Projection) -> bool {
    *p == Projection::All
}

/// The attributes of one part of an index key: one name, or (GSI only) a list of up to four
/// for a multi-attribute key, written as a string or a list. DynamoDB then keys the index on
/// the items' own attributes, in list order, with no key string built at write time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(from = "KeyAttrsText", into = "KeyAttrsText")]
pub struct KeyAttrs(pub Vec<String>);

/// The written form of [`KeyAttrs`].
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum KeyAttrsText {
    /// One attribute.
    One(String),
    /// A multi-attribute key (GSI only): up to four attributes, in key order.
    Many(Vec<String>),
}

impl From<KeyAttrsText> for KeyAttrs {
    fn from(t: KeyAttrsText) -> KeyAttrs {
        match t {
            KeyAttrsText::One(a) => KeyAttrs(vec![a]),
            KeyAttrsText::Many(list) => KeyAttrs(list),
        }
    }
}

impl From<KeyAttrs> for KeyAttrsText {
    fn from(k: KeyAttrs) -> KeyAttrsText {
        match <[String; 1]>::try_from(k.0) {
            Ok([one]) => KeyAttrsText::One(one),
            Err(list) => KeyAttrsText::Many(list),
        }
    }
}

impl From<&str> for KeyAttrs {
    fn from(name: &str) -> KeyAttrs {
        KeyAttrs::one(name)
    }
}

impl From<String> for KeyAttrs {
    fn from(name: String) -> KeyAttrs {
        KeyAttrs::one(name)
    }
}

impl KeyAttrs {
    /// A single-attribute key part.
    pub fn one(name: impl Into<String>) -> KeyAttrs {
        KeyAttrs(vec![name.into()])
    }

    /// Whether the key part has more than one attribute.
    pub fn is_multi(&self) -> bool {
        self.0.len() > 1
    }

    /// The attribute names, in key order.
    pub fn names(&self) -> &[String] {
        &self.0
    }
}

impl std::fmt::Display for KeyAttrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join(", "))
    }
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// DynamoDB index name (`GSI1`, `gsi1`).
    pub name: String,
    /// GSI or LSI.
    pub kind: IndexKind,
    /// Partition key attribute, or up to four (a GSI's own; an LSI uses the table's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pk: Option<KeyAttrs>,
    /// Sort key attribute, or up to four (GSI only).
    pub sk: KeyAttrs,
    /// Projected attributes; `all` when omitted.
    #[serde(default = "projection_all", skip_serializing_if = "is_all")]
    pub projection: Projection,
}

impl Index {
    /// Whether the index has a multi-attribute partition or sort key.
    pub fn is_multi_key(&self) -> bool {
        self.sk.is_multi() || self.pk.as_ref().is_some_and(KeyAttrs::is_multi)
    }
}

/// The stored type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    /// String (S).
    String,
    /// Number (N).
    Number,
    /// Boolean (BOOL).
    Bool,
    /// Binary (B).
    Binary,
    /// A small closed set of strings (an enum): low cardinality.
    Enum,
    /// List (L).
    List,
    /// Map (M).
    Map,
    /// Timestamp stored as an RFC 3339 string.
    Timestamp,
}

impl FieldType {
    /// The DynamoDB type the field is stored as: `S`, `N`, `BOOL`, `B`, `L` or `M`. Enums and
    /// timestamps are strings.
    pub fn stored(self) -> &'static str {
        match self {
            FieldType::String | FieldType::Enum | FieldType::Timestamp => "S",
            FieldType::Number => "N",
            FieldType::Bool => "BOOL",
            FieldType::Binary => "B",
            FieldType::List => "L",
            FieldType::Map => "M",
        }
    }
}

/// One field of an entity type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// Name used in key templates (the Rust field name).
    pub name: String,
    /// Stored attribute name, when it differs from `name` (serde renames).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attr: Option<String>,
    /// Stored type; unknown when omitted.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<FieldType>,
    /// Typical size in bytes of a string or binary value, for realistic sample items
    /// (`design validate`); 12 when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
}

impl Field {
    /// The stored attribute name.
    pub fn attr(&self) -> &str {
        self.attr.as_deref().unwrap_or(&self.name)
    }
}

/// Whether the tenant field names an organisation or the owning user (S12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TenantKind {
    /// An organisation the caller must hold.
    Org,
    /// The caller's own user id.
    Owner,
}

/// The field that scopes an entity to a tenant (S12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tenant {
    /// The field name; it appears in the partition-key template.
    pub field: String,
    /// Organisation or owner.
    pub kind: TenantKind,
}

/// The key templates of one entity type on one secondary index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityIndexKey {
    /// Partition-key template (GSI only; an LSI shares the table's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pk: Option<String>,
    /// Sort-key template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sk: Option<String>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// How many items of an entity type there are: `n` in total, or `n` per item of the entity
/// type `per` (`{n: 100, per: User}`: a hundred posts per user).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Count {
    /// The number of items, in total or per parent.
    pub n: u64,
    /// The parent entity type; absent means `n` is a total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<String>,
}

/// One entity type (S3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entity {
    /// The value of the entity-type attribute.
    pub name: String,
    /// Partition-key template, e.g. `ORG#{org_id}`.
    pub pk: String,
    /// Sort-key template, e.g. `RECORD#{id}`.
    pub sk: String,
    /// Key templates per secondary index name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub indexes: BTreeMap<String, EntityIndexKey>,
    /// Fields (at least those used in templates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// Fields guarded by unique-constraint items (S17).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unique: Vec<String>,
    /// Field holding the expiry (epoch seconds), copied to the table's TTL attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
    /// Field holding the optimistic-concurrency version (S16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_field: Option<String>,
    /// Tenant field (S12); an entity without one is reachable only by administrators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<Tenant>,
    /// Whether created/updated/created-by stamps are written (S4); on when omitted.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub stamps: bool,
    /// Example items for pictures: field name to value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<BTreeMap<String, String>>,
    /// Cardinality hint: how many items there are, in total or per parent item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<Count>,
}

impl Entity {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Who may run an access pattern (S14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Confined to one tenant's partition.
    Tenant,
    /// Administrators only, across tenants.
    Admin,
}

/// The DynamoDB operation an access pattern performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// GetItem (full primary key).
    Get,
    /// Query (partition key, optional sort condition).
    Query,
    /// PutItem.
    Put,
    /// UpdateItem.
    Update,
    /// DeleteItem.
    Delete,
    /// TransactWriteItems (e.g. unique-constraint writes, S17).
    TransactWrite,
    /// BatchGetItem.
    BatchGet,
    /// BatchWriteItem.
    BatchWrite,
}

impl Operation {
    /// The IAM actions this operation needs. A transaction is authorised per item action
    /// (there is no `TransactWriteItems` IAM action): "Using IAM with DynamoDB transactions",
    /// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html>
    pub fn actions(self) -> &'static [&'static str] {
        match self {
            Operation::Get => &["dynamodb:GetItem"],
            Operation::Query => &["dynamodb:Query"],
            Operation::Put => &["dynamodb:PutItem"],
            Operation::Update => &["dynamodb:UpdateItem"],
            Operation::Delete => &["dynamodb:DeleteItem"],
            Operation::TransactWrite => &["dynamodb:ConditionCheckItem", "dynamodb:PutItem"],
            Operation::BatchGet => &["dynamodb:BatchGetItem"],
            Operation::BatchWrite => &["dynamodb:BatchWriteItem"],
        }
    }

    /// Whether the operation only reads.
    pub fn reads(self) -> bool {
        matches!(self, Operation::Get | Operation::Query | Operation::BatchGet)
    }
}

/// A sort-key condition operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortOp {
    /// `sk = :v`
    Eq,
    /// `begins_with(sk, :v)`
    BeginsWith,
    /// `sk BETWEEN :a AND :b`
    Between,
    /// `sk < :v`
    Lt,
    /// `sk <= :v`
    Le,
    /// `sk > :v`
    Gt,
    /// `sk >= :v`
    Ge,
}

/// The sort-key part of a key condition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SortCondition {
    /// Operator.
    pub op: SortOp,
    /// A template or literal prefix, e.g. `POST#` or `RECORD#{id}`.
    pub value: String,
}

/// How the key of an index serves a pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyCondition {
    /// The partition-key template, equal to an entity's template on that index.
    pub pk: String,
    /// Optional sort-key condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sk: Option<SortCondition>,
}

/// The order a query promises its items in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Oldest (smallest) first: `ScanIndexForward: true`.
    Ascending,
    /// Newest (largest) first: `ScanIndexForward: false`.
    Descending,
}

/// A named access pattern: one read or write the application performs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessPattern {
    /// Name, e.g. `get-user-by-email`.
    pub name: String,
    /// Entity types it reads or writes.
    pub entities: Vec<String>,
    /// `table` or an index name.
    pub index: String,
    /// The operation.
    pub operation: Operation,
    /// The key condition; absent means the pattern has no key (it would need a Scan, S9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<KeyCondition>,
    /// Tenant-scoped or admin-only (S14).
    pub scope: Scope,
    /// Whether one Query returns several entity types (an item collection).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collection: bool,
    /// Attributes filtered on after the key condition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filter: Vec<String>,
    /// The order the items come back in (queries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    /// The field `order` is by; the created stamp when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    /// Fields (or stored attributes) the pattern reads; every field of its entities when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
    /// The largest number of items one execution may return (the maximum collection size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// Page size (`Limit`) of a query, or the items of one batch request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// A finding deliberately accepted: the rule id, what it is about, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Accept {
    /// Rule id, e.g. `MT004`.
    pub rule: String,
    /// The finding's subject (entity, index or pattern name).
    pub subject: String,
    /// Why it is acceptable.
    pub reason: String,
}

impl Design {
    /// Reads a JSON document.
    pub fn from_json(text: &str) -> Result<Design, DesignError> {
        serde_json::from_str(text).map_err(|e| DesignError::Parse(e.to_string()))
    }

    /// Reads a YAML document.
    pub fn from_yaml(text: &str) -> Result<Design, DesignError> {
        serde_norway::from_str(text).map_err(|e| DesignError::Parse(e.to_string()))
    }

    /// Reads JSON if the text starts with `{`, YAML otherwise.
    pub fn parse(text: &str) -> Result<Design, DesignError> {
        crate::text::from_text(text, DesignError::Parse)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// YAML.
    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }

    /// The parts that code declares, for comparing a built table with a file: field types,
    /// samples, the hints only `design validate` reads (counts, sizes, orders, reads, sizes
    /// of collections and pages) and field lists beyond what code knows are dropped, and order
    /// is normalised.
    pub fn code_view(&self) -> Design {
        let mut d = self.clone();
        for e in &mut d.entities {
            e.samples.clear();
            e.count = None;
            for f in &mut e.fields {
                f.ty = None;
                f.size = None;
            }
            e.fields.sort_by(|a, b| a.name.cmp(&b.name));
        }
        for p in &mut d.access_patterns {
            (p.order, p.order_by, p.max_items, p.limit) = (None, None, None, None);
            p.reads.clear();
        }
        d.entities.sort_by(|a, b| a.name.cmp(&b.name));
        d.indexes.sort_by(|a, b| a.name.cmp(&b.name));
        d.access_patterns.sort_by(|a, b| a.name.cmp(&b.name));
        d
    }

    /// The table's name in `stage`: `<app>-<stage>-<model>` (S19).
    pub fn table_name(&self, stage: &str) -> String {
        format!("{}-{stage}-{}", self.app, self.model)
    }

    /// Fields whose type this document states differently from `code` (a design built from
    /// code, which states a type only where the Rust type decides it), compared by stored
    /// DynamoDB type; one line per field, `Entity.field: design string, code number`.
    pub fn type_mismatches(&self, code: &Design) -> Vec<String> {
        let mut out = Vec::new();
        for e in &self.entities {
            let Some(ce) = code.entity(&e.name) else { continue };
            for f in &e.fields {
                let code_ty = ce.field(&f.name).and_then(|c| c.ty);
                if let (Some(want), Some(have)) = (f.ty, code_ty) {
                    if want.stored() != have.stored() {
                        let word = |t: FieldType| {
                            serde_json::to_value(t).ok().and_then(|v| v.as_str().map(str::to_string))
                        };
                        out.push(format!(
                            "{}.{}: design {}, code {}",
                            e.name,
                            f.name,
                            word(want).unwrap_or_default(),
                            word(have).unwrap_or_default()
                        ));
                    }
                }
            }
        }
        out
    }

    /// The index called `name`.
    pub fn index(&self, name: &str) -> Option<&Index> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The entity type called `name`.
    pub fn entity(&self, name: &str) -> Option<&Entity> {
        self.entities.iter().find(|e| e.name == name)
    }

    /// Whether a finding about `subject` under `rule` was accepted.
    pub fn accepts(&self, rule: &str, subject: &str) -> bool {
        self.accept.iter().any(|a| a.rule == rule && a.subject == subject)
    }

    /// The partition- and sort-key attribute names of `index` (`table` for the base table);
    /// a multi-attribute GSI key has several of each.
    pub fn key_attrs(&self, index: &str) -> Option<(Vec<String>, Vec<String>)> {
        if index == TABLE {
            return Some((vec![self.conventions.pk.clone()], vec![self.conventions.sk.clone()]));
        }
        let i = self.index(index)?;
        let pk = match i.kind {
            IndexKind::Lsi => vec![self.conventions.pk.clone()],
            IndexKind::Gsi => i.pk.clone()?.0,
        };
        Some((pk, i.sk.0.clone()))
    }

    /// The key templates an entity has on `index`, `(pk, sk)`.
    pub fn entity_keys<'a>(&'a self, e: &'a Entity, index: &str) -> Option<(&'a str, Option<&'a str>)> {
        if index == TABLE {
            return Some((&e.pk, Some(&e.sk)));
        }
        let k = e.indexes.get(index)?;
        let pk = match self.index(index).map(|i| i.kind) {
            Some(IndexKind::Lsi) => e.pk.as_str(),
            _ => k.pk.as_deref()?,
        };
        Some((pk, k.sk.as_deref()))
    }
}
