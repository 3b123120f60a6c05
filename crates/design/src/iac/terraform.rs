//! A Terraform configuration (aws_dynamodb_table, aws_ssm_parameter, aws_iam_policy) in HCL.

use std::fmt::Write;

use serde_json::Value;

use super::iam::{policy, Arns};
use super::{key_attribute_type, key_attributes, parameter_name, table_name};
use crate::model::{Design, Index, IndexKind, Projection};
use crate::settings::Billing;

/// Marks a JSON string as a raw HCL expression rather than a quoted string.
const EXPR: &str = "\u{1}expr:";

/// A quoted HCL string; `${` and `%{` are escaped unless `interpolate`.
fn quote(s: &str, interpolate: bool) -> String {
    let mut out = serde_json::to_string(s).unwrap_or_default();
    if !interpolate {
        out = out.replace("${", "$${").replace("%{", "%%{");
    }
    out
}

fn hcl_value(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent + 1);
    match v {
        Value::String(s) => match s.strip_prefix(EXPR) {
            Some(expr) => out.push_str(expr),
            None => out.push_str(&quote(s, false)),
        },
        Value::Array(items) => {
            out.push_str("[\n");
            for i in items {
                out.push_str(&pad);
                hcl_value(i, indent + 1, out);
                out.push_str(",\n");
            }
            out.push_str(&"  ".repeat(indent));
            out.push(']');
        }
        Value::Object(map) => {
            out.push_str("{\n");
            for (k, v) in map {
                let _ = write!(out, "{pad}{} = ", quote(k, false));
                hcl_value(v, indent + 1, out);
                out.push('\n');
            }
            out.push_str(&"  ".repeat(indent));
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The configuration as HCL text.
pub fn terraform(d: &Design) -> String {
    let c = &d.conventions;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# monotable design {}/{}/{}: table, name parameter (S19) and least-privilege policy.\n",
        d.app, d.unit, d.model
    );
    if d.indexes.iter().any(Index::is_multi_key) {
        // `key_schema` blocks in `global_secondary_index`: hashicorp/terraform-provider-aws
        // PR #45357 (multi-attribute GSI keys), with `hash_key`/`range_key` deprecated there
        // (issue #46197); terraform-aws-modules/terraform-aws-dynamodb-table#116 names 6.28.0.
        t.push_str("terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \">= 6.28.0\"\n    }\n  }\n}\n\n");
    }
    t.push_str("variable \"stage\" {\n  description = \"Deployment stage, suffixing every name (S19)\"\n  type        = string\n  default     = \"dev\"\n}\n\n");
    t.push_str("resource \"aws_dynamodb_table\" \"table\" {\n");
    let _ = writeln!(t, "  name                        = {}", quote(&table_name(d, "${var.stage}"), true));
    let capacity = match d.table.billing {
        Billing::OnDemand => {
            t.push_str("  billing_mode                = \"PAY_PER_REQUEST\"\n");
            None
        }
        Billing::Provisioned { read, write } => {
            t.push_str("  billing_mode                = \"PROVISIONED\"\n");
            let _ = writeln!(
                t,
                "  read_capacity               = {read}\n  write_capacity              = {write}"
            );
            Some((read, write))
        }
    };
    let _ = writeln!(t, "  hash_key                    = {}", quote(&c.pk, false));
    let _ = writeln!(t, "  range_key                   = {}", quote(&c.sk, false));
    let _ = writeln!(t, "  deletion_protection_enabled = {}", d.table.deletion_protection);
    if let Some(view) = d.table.stream {
        let _ = writeln!(
            t,
            "  stream_enabled              = true\n  stream_view_type            = \"{}\"",
            view.as_aws()
        );
    }
    if !d.table.tags.is_empty() {
        t.push_str("  tags = {\n");
        for (k, v) in &d.table.tags {
            let _ = writeln!(t, "    {} = {}", quote(k, false), quote(v, false));
        }
        t.push_str("  }\n");
    }
    for a in key_attributes(d) {
        let ty = key_attribute_type(d, &a);
        let _ = writeln!(t, "\n  attribute {{\n    name = {}\n    type = \"{ty}\"\n  }}", quote(&a, false));
    }
    for i in &d.indexes {
        let (block, pk) = match i.kind {
            IndexKind::Gsi => ("global_secondary_index", i.pk.clone()),
            IndexKind::Lsi => ("local_secondary_index", None),
        };
        let _ = writeln!(t, "\n  {block} {{\n    name            = {}", quote(&i.name, false));
        let multi = i.is_multi_key();
        if multi {
            // A multi-attribute key is a list of `key_schema` blocks, HASH first (AWS provider
            // 6.28 and later; `hash_key`/`range_key` cannot hold a list).
            let hash = pk.iter().flat_map(|k| k.names()).map(|a| (a, "HASH"));
            for (a, kind) in hash.chain(i.sk.names().iter().map(|a| (a, "RANGE"))) {
                let _ = writeln!(
                    t,
                    "    key_schema {{\n      attribute_name = {}\n      key_type       = \"{kind}\"\n    }}",
                    quote(a, false)
                );
            }
        } else if let Some(pk) = &pk {
            let _ = writeln!(t, "    hash_key        = {}", quote(&pk.to_string(), false));
        }
        if pk.is_some() {
            if let Some((read, write)) = capacity {
                let _ = writeln!(t, "    read_capacity   = {read}\n    write_capacity  = {write}");
            }
        }
        if !multi {
            let _ = writeln!(t, "    range_key       = {}", quote(&i.sk.to_string(), false));
        }
        match &i.projection {
            Projection::All => t.push_str("    projection_type = \"ALL\"\n"),
            Projection::KeysOnly => t.push_str("    projection_type = \"KEYS_ONLY\"\n"),
            Projection::Include(a) => {
                let list: Vec<String> = a.iter().map(|x| quote(x, false)).collect();
                let _ = writeln!(
                    t,
                    "    projection_type = \"INCLUDE\"\n    non_key_attributes = [{}]",
                    list.join(", ")
                );
            }
        }
        t.push_str("  }\n");
    }
    if let Some(ttl) = &c.ttl {
        let _ = writeln!(
            t,
            "\n  ttl {{\n    attribute_name = {}\n    enabled        = true\n  }}",
            quote(ttl, false)
        );
    }
    t.push_str("\n  point_in_time_recovery {\n    enabled = true\n  }\n\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n\n");
    t.push_str("resource \"aws_ssm_parameter\" \"table_name\" {\n");
    let _ = writeln!(t, "  name  = {}", quote(&parameter_name(d, "${var.stage}"), true));
    t.push_str("  type  = \"String\"\n  value = aws_dynamodb_table.table.name\n}\n\n");
    let table = || Value::String(format!("{EXPR}aws_dynamodb_table.table.arn"));
    let index =
        |name: &str| Value::String(format!("{EXPR}\"${{aws_dynamodb_table.table.arn}}/index/{name}\""));
    let doc = policy(d, &Arns { table: &table, index: &index });
    t.push_str("resource \"aws_iam_policy\" \"service\" {\n");
    let _ = writeln!(
        t,
        "  name        = {}",
        quote(&format!("{}-dynamodb", table_name(d, "${var.stage}")), true)
    );
    t.push_str("  description = \"Only the actions, table and indexes of the design's access patterns\"\n  policy = jsonencode(");
    hcl_value(&doc, 1, &mut t);
    t.push_str(")\n}\n\noutput \"table_name\" {\n  value = aws_dynamodb_table.table.name\n}\n\noutput \"service_policy_arn\" {\n  value = aws_iam_policy.service.arn\n}\n");
    t
}
