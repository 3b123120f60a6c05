//! The table: client, conventions, resolved name, declared GSIs and registered entity types
//! (S1, S2, S7, S19).
//!
//! Invariant: a `Table` exists only after [`TableBuilder::build`] checked that
//! - the table name resolved (environment variable or parameter store, once, cached);
//! - no two registered entity types can produce the same primary key, and no type's sort-key
//!   prefix can reach another type's keys in a shared partition;
//! - every GSI an entity uses was declared, and no entity field clashes with an attribute the
//!   library owns.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use aws_sdk_dynamodb::Client;

use crate::conventions::Conventions;
use crate::cursor::CursorKey;
use crate::entity::Entity;
use crate::error::Error;
use crate::internal;
use crate::multi_key::index_keys;
use crate::overlap::{prefix_reaches, templates_overlap};
use crate::schema::{EntitySchema, MultiKey};

/// A boxed future returned by [`ParameterStore::get`].
pub type ParamFuture<'a> = Pin<Box<dyn Future<Output = Result<Option<String>, String>> + Send + 'a>>;

/// A source of named parameters, such as AWS SSM Parameter Store.
pub trait ParameterStore: Send + Sync {
    /// The value of a parameter; `Ok(None)` if it does not exist.
    fn get<'a>(&'a self, name: &'a str) -> ParamFuture<'a>;
}

#[cfg(feature = "ssm")]
impl ParameterStore for aws_sdk_ssm::Client {
    fn get<'a>(&'a self, name: &'a str) -> ParamFuture<'a> {
        Box::pin(async move {
            match self.get_parameter().name(name).send().await {
                Ok(out) => Ok(out.parameter.and_then(|p| p.value)),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_parameter_not_found()) => Ok(None),
                Err(e) => Err(aws_sdk_dynamodb::error::DisplayErrorContext(e).to_string()),
            }
        })
    }
}

enum NameSource {
    Env(String),
    Parameter(Arc<dyn ParameterStore>, String),
    Given(String),
}

/// Where the table name comes from (S19). Never a literal in handler code.
pub struct TableName(NameSource);

impl TableName {
    /// From an environment variable.
    pub fn env(variable: &str) -> Self {
        TableName(NameSource::Env(variable.to_string()))
    }

    /// From a parameter store at `/<app>/<stage>/<unit>/<model>-table-name`.
    pub fn parameter(
        store: impl ParameterStore + 'static,
        app: &str,
        stage: &str,
        unit: &str,
        model: &str,
    ) -> Result<Self, Error> {
        Ok(TableName(NameSource::Parameter(Arc::new(store), Self::parameter_path(app, stage, unit, model)?)))
    }

    /// The parameter path `/<app>/<stage>/<unit>/<model>-table-name`; each part non-empty,
    /// without `/`.
    pub fn parameter_path(app: &str, stage: &str, unit: &str, model: &str) -> Result<String, Error> {
        for (what, part) in [("app", app), ("stage", stage), ("unit", unit), ("model", model)] {
            if part.is_empty() || part.contains('/') {
                return Err(Error::Config(format!(
                    "the {what} part of a table-name parameter must be non-empty without `/`"
                )));
            }
        }
        Ok(format!("/{app}/{stage}/{unit}/{model}-table-name"))
    }

    /// An already-resolved name (tools and tests that resolved it themselves).
    pub fn resolved(name: impl Into<String>) -> Self {
        TableName(NameSource::Given(name.into()))
    }

    async fn resolve(&self) -> Result<String, Error> {
        match &self.0 {
            NameSource::Given(n) if !n.is_empty() => Ok(n.clone()),
            NameSource::Given(_) => Err(Error::Config("the table name is empty".into())),
            NameSource::Env(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() => Ok(v),
                _ => Err(Error::Config(format!("the table name variable `{var}` is not set"))),
            },
            NameSource::Parameter(store, path) => {
                static CACHE: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
                let cache = CACHE.get_or_init(Default::default);
                if let Some(hit) = cache.lock().ok().and_then(|c| c.get(path).cloned()) {
                    return Ok(hit);
                }
                match store.get(path).await {
                    Ok(Some(v)) if !v.is_empty() => {
                        if let Ok(mut c) = cache.lock() {
                            c.insert(path.clone(), v.clone());
                        }
                        Ok(v)
                    }
                    Ok(_) => Err(Error::Config(format!("the table name parameter `{path}` does not exist"))),
                    Err(e) => Err(Error::Config(format!("reading the table name parameter `{path}`: {e}"))),
                }
            }
        }
    }
}

/// What the builder was told for the design document beyond the entity types
/// (`TableBuilder::design_names`, `access_pattern`, `accept`); [`Table::design`] reads it.
#[derive(Debug, Clone, Default)]
pub(crate) struct DesignNotes {
    pub names: Option<(String, String, String)>,
    pub patterns: Vec<monotable_design::AccessPattern>,
    pub accept: Vec<monotable_design::Accept>,
}

pub(crate) struct Inner {
    pub client: Client,
    pub name: String,
    pub conv: Conventions,
    pub entities: Vec<&'static EntitySchema>,
    pub cursor: CursorKey,
    pub read_budget: usize,
    pub idempotency_ttl: Duration,
    pub warnings: Vec<String>,
    pub gsis: BTreeSet<String>,
    pub notes: DesignNotes,
}

/// One application's table (S1). Cheap to clone.
#[derive(Clone)]
pub struct Table {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("name", &self.inner.name).finish()
    }
}

/// Builds a [`Table`]; see [`Table::builder`].
pub struct TableBuilder {
    client: Client,
    conv: Option<Conventions>,
    name: Option<TableName>,
    gsis: BTreeSet<String>,
    entities: Vec<&'static EntitySchema>,
    cursor: Option<CursorKey>,
    read_budget: usize,
    idempotency_ttl: Duration,
    pub(crate) notes: DesignNotes,
}

impl Table {
    /// Starts building a table on a DynamoDB client (real, Alternator or embedded).
    pub fn builder(client: Client) -> TableBuilder {
        TableBuilder {
            client,
            conv: None,
            name: None,
            gsis: BTreeSet::new(),
            entities: Vec::new(),
            cursor: None,
            read_budget: 10,
            idempotency_ttl: Duration::from_secs(24 * 3600),
            notes: Default::default(),
        }
    }

    /// The resolved table name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The DynamoDB client (for infrastructure and tooling, not handlers: S8).
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The naming convention.
    pub fn conventions(&self) -> &Conventions {
        &self.inner.conv
    }

    /// Design findings that are not errors, such as a GSI no entity uses (S7).
    pub fn design_warnings(&self) -> &[String] {
        &self.inner.warnings
    }

    /// The multi-attribute key of each declared GSI that has one (checked consistent when the
    /// table was built).
    pub(crate) fn multi_keys(&self) -> BTreeMap<&'static str, MultiKey> {
        index_keys(&self.inner.entities).unwrap_or_default()
    }
}

impl TableBuilder {
    /// The naming convention (required: chosen once per table, S2).
    pub fn conventions(mut self, conv: Conventions) -> Self {
        self.conv = Some(conv);
        self
    }
    /// Where the table name comes from (required, S19).
    pub fn name(mut self, name: TableName) -> Self {
        self.name = Some(name);
        self
    }
    /// Declares the GSI `gsiN` (with the convention's index and attribute names).
    pub fn gsi(mut self, n: u8) -> Self {
        self.gsis.insert(format!("gsi{n}"));
        self
    }
    /// Registers an entity type.
    pub fn entity<T: Entity>(mut self) -> Self {
        self.entities.push(T::schema());
        self
    }
    /// The key that signs cursors (required).
    pub fn cursor_key(mut self, key: CursorKey) -> Self {
        self.cursor = Some(key);
        self
    }
    /// How many Query requests one page may use to fill itself when a filter trims results.
    pub fn read_budget(mut self, requests: usize) -> Self {
        self.read_budget = requests.max(1);
        self
    }
    /// How long idempotency records are kept (via the TTL attribute). Default 24 hours.
    pub fn idempotency_ttl(mut self, ttl: Duration) -> Self {
        self.idempotency_ttl = ttl;
        self
    }

    /// Checks the design and resolves the table name.
    pub async fn build(self) -> Result<Table, Error> {
        let conv = self
            .conv
            .ok_or_else(|| Error::Config("choose the naming conventions (upper or lower)".into()))?;
        let name = self.name.ok_or_else(|| Error::Config("say where the table name comes from".into()))?;
        let cursor = self.cursor.ok_or_else(|| Error::Config("a cursor key is required".into()))?;
        let warnings = check_design(&conv, &self.gsis, &self.entities)?;
        for w in &warnings {
            tracing::warn!(warning = %w, "monotable design");
        }
        let name = name.resolve().await?;
        Ok(Table {
            inner: Arc::new(Inner {
                client: self.client,
                name,
                conv,
                entities: self.entities,
                cursor,
                read_budget: self.read_budget,
                idempotency_ttl: self.idempotency_ttl,
                warnings,
                gsis: self.gsis,
                notes: self.notes,
            }),
        })
    }
}

/// The start-up checks; returns non-fatal warnings.
pub(crate) fn check_design(
    conv: &Conventions,
    gsis: &BTreeSet<String>,
    entities: &[&'static EntitySchema],
) -> Result<Vec<String>, Error> {
    let reserved = conv.reserved();
    for e in entities {
        for f in e.fields {
            let index_attr = gsis.iter().any(|g| conv.index_pk(g) == f.attr || conv.index_sk(g) == f.attr);
            if reserved.contains(&f.attr) || index_attr {
                return Err(Error::Config(format!(
                    "field `{}` of `{}` is stored as `{}`, an attribute the table convention owns",
                    f.name, e.type_name, f.attr
                )));
            }
        }
        for i in e.indexes {
            if !gsis.contains(i.name) {
                return Err(Error::Config(format!(
                    "`{}` uses {} which the table does not declare",
                    e.type_name, i.name
                )));
            }
        }
    }
    index_keys(entities)?;
    let mut all: Vec<&'static EntitySchema> = entities.to_vec();
    all.extend(internal::schemas());
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.type_name == b.type_name {
                return Err(Error::Config(format!("two entity types are named `{}`", a.type_name)));
            }
            if !templates_overlap(&a.pk, &b.pk) {
                continue;
            }
            if templates_overlap(&a.sk, &b.sk) {
                return Err(Error::Config(format!(
                    "`{}` ({} / {}) and `{}` ({} / {}) can produce the same key",
                    a.type_name, a.pk.source, a.sk.source, b.type_name, b.pk.source, b.sk.source
                )));
            }
            let (pa, pb) = (a.sk.literal_prefix(), b.sk.literal_prefix());
            if prefix_reaches(&pa, &b.sk) || prefix_reaches(&pb, &a.sk) {
                return Err(Error::Config(format!(
                    "the sort-key prefixes of `{}` (`{}`) and `{}` (`{}`) overlap in a shared partition",
                    a.type_name, a.sk.source, b.type_name, b.sk.source
                )));
            }
        }
    }
    let used: BTreeSet<&str> = entities.iter().flat_map(|e| e.indexes.iter().map(|i| i.name)).collect();
    Ok(gsis
        .iter()
        .filter(|g| !used.contains(g.as_str()))
        .map(|g| format!("{g} is declared but no entity type uses it (S7)"))
        .collect())
}
