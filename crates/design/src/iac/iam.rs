//! The least-privilege IAM policy of a design: only the actions its access patterns need, only
//! the table and the indexes they use, and `dynamodb:LeadingKeys` for tenant-scoped patterns
//! whose partition key starts with a literal and the tenant field.
//!
//! `dynamodb:LeadingKeys` compares the partition-key value of the request with the pattern
//! (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html>).
//! The tenant is taken from the principal tag `tenant`; escaped tenant values must equal the
//! tag, which holds for ids made of letters, digits, `-` and `_`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::model::{AccessPattern, Design, Operation, Scope, TABLE};
use crate::template::{Part, Template};

/// The principal tag that carries the caller's tenant id.
pub const TENANT_TAG: &str = "tenant";

/// How a generator names the table ARN: the IaC format supplies an expression.
pub struct Arns<'a> {
    /// The table ARN expression, e.g. `{"Fn::GetAtt": ["Table", "Arn"]}`.
    pub table: &'a dyn Fn() -> Value,
    /// The ARN of an index of the table.
    pub index: &'a dyn Fn(&str) -> Value,
}

/// The `LeadingKeys` value of a tenant-scoped pattern, if its partition key allows one:
/// `LIT#` + the tenant + nothing or `#…`.
fn leading_key(d: &Design, p: &AccessPattern) -> Option<Vec<String>> {
    // Unique-constraint items of a transactional write live outside the tenant's partition.
    if p.scope != Scope::Tenant || p.operation == Operation::TransactWrite {
        return None;
    }
    let key = p.key.as_ref()?;
    let t = Template::parse(&key.pk).ok()?;
    let mut tenant_fields =
        p.entities.iter().filter_map(|e| d.entity(e)?.tenant.as_ref().map(|t| t.field.as_str()));
    let field = tenant_fields.next()?;
    match t.parts.as_slice() {
        [Part::Lit(l), Part::Var(v)] if *v == field => {
            Some(vec![format!("{l}${{aws:PrincipalTag/{TENANT_TAG}}}")])
        }
        [Part::Lit(l), Part::Var(v), ..] if *v == field => {
            Some(vec![format!("{l}${{aws:PrincipalTag/{TENANT_TAG}}}#*")])
        }
        _ => None,
    }
}

/// Actions and resources (`table` or index names) of one statement.
type Grant = (Vec<&'static str>, Vec<String>);

/// The policy document: one statement per (scope condition, actions) group.
pub fn policy(d: &Design, arns: &Arns<'_>) -> Value {
    // (leading key or none) -> (actions, resources)
    let mut groups: BTreeMap<Option<Vec<String>>, Grant> = BTreeMap::new();
    for p in &d.access_patterns {
        let g = groups.entry(leading_key(d, p)).or_default();
        for a in p.operation.actions() {
            if !g.0.contains(a) {
                g.0.push(a);
            }
        }
        if !g.1.contains(&p.index) {
            g.1.push(p.index.clone());
        }
    }
    let statements: Vec<Value> = groups
        .into_iter()
        .enumerate()
        .map(|(n, (lead, (mut actions, mut resources)))| {
            actions.sort();
            resources.sort();
            let res: Vec<Value> =
                resources.iter().map(|r| if r == TABLE { (arns.table)() } else { (arns.index)(r) }).collect();
            let mut s = json!({
                "Sid": format!("{}{n}", if lead.is_some() { "TenantScoped" } else { "Service" }),
                "Effect": "Allow",
                "Action": actions,
                "Resource": res,
            });
            if let Some(lead) = lead {
                s["Condition"] = json!({"ForAllValues:StringLike": {"dynamodb:LeadingKeys": lead}});
            }
            s
        })
        .collect();
    json!({"Version": "2012-10-17", "Statement": statements})
}
