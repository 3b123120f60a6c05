//! The access-pattern table: pattern → index → key condition → example request.

use std::fmt::Write;

use crate::model::{Design, Scope, SortOp};

/// The Markdown table of a design's access patterns.
pub fn markdown(d: &Design) -> String {
    let mut out = format!("# {}/{}/{}: access patterns\n\n", d.app, d.unit, d.model);
    out.push_str("| pattern | entities | index | key condition | scope | example request |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for p in &d.access_patterns {
        let (pk_attr, sk_attr) = d.key_attrs(&p.index).unwrap_or_default();
        let (pk_attr, sk_attr) = (pk_attr.join(", "), sk_attr.join(", "));
        let (cond, request) = match &p.key {
            None => ("none (Scan)".to_string(), "—".to_string()),
            Some(k) => {
                let mut cond = format!("{pk_attr} = {}", k.pk);
                if let Some(s) = &k.sk {
                    let _ = match s.op {
                        SortOp::Eq => write!(cond, " AND {sk_attr} = {}", s.value),
                        SortOp::BeginsWith => write!(cond, " AND begins_with({sk_attr}, {})", s.value),
                        SortOp::Between => write!(cond, " AND {sk_attr} BETWEEN {} AND …", s.value),
                        SortOp::Lt => write!(cond, " AND {sk_attr} < {}", s.value),
                        SortOp::Le => write!(cond, " AND {sk_attr} <= {}", s.value),
                        SortOp::Gt => write!(cond, " AND {sk_attr} > {}", s.value),
                        SortOp::Ge => write!(cond, " AND {sk_attr} >= {}", s.value),
                    };
                }
                let index = if p.index == crate::model::TABLE {
                    String::new()
                } else {
                    format!(" IndexName={}", p.index)
                };
                (cond.clone(), format!("{}{index}", p.operation.actions().join("+").replace("dynamodb:", "")))
            }
        };
        let scope = if p.scope == Scope::Admin { "admin" } else { "tenant" };
        let coll = if p.collection { " (collection)" } else { "" };
        let _ = writeln!(
            out,
            "| {} | {}{coll} | {} | `{}` | {scope} | `{request}` |",
            p.name,
            p.entities.join(", "),
            p.index,
            cond.replace('|', "\\|")
        );
    }
    out
}
