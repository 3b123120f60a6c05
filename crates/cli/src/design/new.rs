//! `monotable design new [-o/--output FILE]`: a starting design that checks clean, with its
//! JSON Schema written beside it so an editor completes and validates it without network.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use monotable_design::{
    AccessPattern, Conventions, Design, Entity, Field, FieldType, Operation, SortOp, Tenant, TenantKind,
    TABLE,
};

/// `design new` arguments.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// Application name (first segment of the SSM path, S19).
    #[arg(long, default_value = "acme")]
    app: String,
    /// Deployable unit owning the table.
    #[arg(long, default_value = "api")]
    unit: String,
    /// Model name; the table is `<app>-<stage>-<model>`.
    #[arg(long, default_value = "main")]
    model: String,
    /// Write here instead of standard output, and the JSON Schema to `design.schema.json`
    /// in the same directory.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

/// The schema's file name, beside the design. yaml-language-server resolves a relative
/// `$schema` path against the directory of the YAML file.
const SCHEMA_FILE: &str = "design.schema.json";

fn field(name: &str) -> Field {
    Field { name: name.into(), attr: None, ty: Some(FieldType::String), size: None }
}

pub fn run(args: NewArgs) -> anyhow::Result<()> {
    let entity = |name: &str, sk: &str, fields: &[&str]| Entity {
        name: name.into(),
        pk: "ORG#{org_id}".into(),
        sk: sk.into(),
        indexes: Default::default(),
        fields: fields.iter().map(|f| field(f)).collect(),
        unique: Vec::new(),
        ttl: None,
        version_field: None,
        tenant: Some(Tenant { field: "org_id".into(), kind: TenantKind::Org }),
        stamps: true,
        samples: Vec::new(),
        count: None,
    };
    let design = Design {
        version: 1,
        app: args.app,
        unit: args.unit,
        model: args.model,
        conventions: Conventions::lower(),
        table: Default::default(),
        indexes: Vec::new(),
        entities: vec![
            entity("Org", "PROFILE", &["org_id", "name"]),
            entity("Record", "RECORD#{id}", &["org_id", "id", "title"]),
        ],
        access_patterns: vec![
            AccessPattern::get("get-org", "Org", "ORG#{org_id}", "PROFILE"),
            AccessPattern::write("create-record", Operation::Put, "Record", "ORG#{org_id}", "RECORD#{id}"),
            AccessPattern::query("list-records", TABLE, "ORG#{org_id}")
                .of("Record")
                .sort(SortOp::BeginsWith, "RECORD#"),
        ],
        accept: Vec::new(),
    };
    let mut header = format!("# yaml-language-server: $schema=./{SCHEMA_FILE}\n");
    match &args.output {
        Some(path) => {
            if path.file_name().is_some_and(|n| n == SCHEMA_FILE) {
                anyhow::bail!("{SCHEMA_FILE} is where the schema goes; name the design otherwise");
            }
            let schema = path.with_file_name(SCHEMA_FILE);
            std::fs::write(&schema, monotable_design::json_schema())
                .with_context(|| format!("writing {}", schema.display()))?;
        }
        None => header.push_str(&format!(
            "# For editor completion, write the schema beside this file: monotable design schema -o {SCHEMA_FILE}\n"
        )),
    }
    super::emit(args.output.as_deref(), &format!("{header}{}", design.to_yaml()))
}
