//! Infrastructure as code from a design (S19, S22): CloudFormation (JSON or YAML),
//! Terraform, a Pulumi program and a CDK construct (both TypeScript), each with a stage parameter, the table (keys, indexes, TTL, on-demand billing,
//! point-in-time recovery and deletion protection on), the SSM parameter publishing the name
//! at `/<app>/<stage>/<unit>/<model>-table-name`, and the least-privilege IAM policy.

mod cdk;
mod cloudformation;
pub mod iam;
mod pulumi;
mod terraform;
mod ts;

pub use cdk::cdk;
pub use cloudformation::{cloudformation, cloudformation_yaml};
pub use pulumi::pulumi;
pub use terraform::terraform;

use crate::model::{Design, IndexKind};

/// The scalar key attributes the table and its indexes declare, in first-use order.
pub(crate) fn key_attributes(d: &Design) -> Vec<String> {
    let mut out = vec![d.conventions.pk.clone(), d.conventions.sk.clone()];
    for i in &d.indexes {
        let pk = if i.kind == IndexKind::Gsi { i.pk.clone() } else { None };
        for a in pk.into_iter().flat_map(|k| k.0).chain(i.sk.0.clone()) {
            if !out.contains(&a) {
                out.push(a);
            }
        }
    }
    out
}

/// The `AttributeType` of a key attribute: `N` when an entity field stored under it is a
/// number (a multi-attribute GSI key keys on the fields' own typed attributes), else `S` (the
/// table's keys and single-attribute index keys are rendered templates).
pub(crate) fn key_attribute_type(d: &Design, attr: &str) -> &'static str {
    let number = d
        .entities
        .iter()
        .flat_map(|e| &e.fields)
        .any(|f| f.attr() == attr && f.ty == Some(crate::model::FieldType::Number));
    if number {
        "N"
    } else {
        "S"
    }
}

/// The stage-free parts of names: `<app>-<stage>-<model>` and the SSM path.
pub(crate) fn table_name(d: &Design, stage: &str) -> String {
    d.table_name(stage)
}

pub(crate) fn parameter_name(d: &Design, stage: &str) -> String {
    format!("/{}/{stage}/{}/{}-table-name", d.app, d.unit, d.model)
}
