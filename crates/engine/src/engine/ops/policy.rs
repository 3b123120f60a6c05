//! PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy and CreateTable's
//! `ResourcePolicy`.
//!
//! Policies are stored, validated and returned; they are not enforced (monotable has no
//! identities to evaluate them against). A table has two policy slots: the table's own and its
//! stream's (addressed by the table's `LatestStreamArn`), each with its own revision id.
//!
//! Sources for the behaviour and texts: the API reference (API_PutResourcePolicy,
//! API_GetResourcePolicy, API_DeleteResourcePolicy); moto's AWS-verified tests
//! (tests/test_dynamodb/test_dynamodb_resource_policy.py) for the revision-id messages; the
//! ack-api-quirks DynamoDB findings verified 2026-10-09 (DDB-TABLE-205, -207, -209, -211,
//! -212, -356) for the ARN forms, the document checks and the idempotent Delete.

use std::sync::Arc;

use crate::api::*;
use crate::engine::core::catalog::save;
use crate::engine::core::policy_document::{check_document, next_revision};
use crate::engine::core::util::{lookup, table_not_found};
use crate::engine::core::Inner;
use crate::table::{StoredPolicy, Table};
use crate::validate::Constraints;
use crate::{Error, ErrorKind};

/// The `ExpectedRevisionId` that asks for "no policy attached yet".
const NO_POLICY: &str = "NO_POLICY";

/// Which policy of a table an ARN addresses.
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Table,
    Stream,
}

/// Checks `ResourceArn` and finds the table and slot it names.
fn resolve(inner: &Inner, arn: &str) -> Result<(Arc<Table>, Slot), Error> {
    if !arn.starts_with("arn:") {
        return Err(Error::invalid_param(format!("ARNs must start with 'arn:': {arn}")));
    }
    let not_dynamodb = || Error::invalid_param(format!("Provided Arn is not a DynamoDB resource arn: {arn}"));
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    let [_, _, "dynamodb", _, _, resource] = parts.as_slice() else { return Err(not_dynamodb()) };
    let segments: Vec<&str> = resource.split('/').collect();
    let (name, slot) = match segments.as_slice() {
        ["table", name] if !name.is_empty() => (*name, Slot::Table),
        ["table", name, "stream", label] if !name.is_empty() && !label.is_empty() => (*name, Slot::Stream),
        ["table", _, "index", _] => {
            return Err(Error::invalid_param(format!(
            "Invalid resource arn provided, only table or stream is accepted. Provided resource arn: {arn}"
        )))
        }
        _ => return Err(not_dynamodb()),
    };
    let table = lookup(inner, name).ok_or_else(|| table_not_found(name))?;
    if slot == Slot::Stream {
        let latest = table.meta.lock().description.latest_stream_arn.clone();
        if latest.as_deref() != Some(arn) {
            let label = segments[3];
            return Err(Error::new(
                ErrorKind::ResourceNotFound,
                format!("Requested resource not found: Stream: {label} not found for Table: {name}"),
            ));
        }
    }
    Ok((table, slot))
}

fn slot_mut(sub: &mut crate::table::SubResources, slot: Slot) -> &mut Option<StoredPolicy> {
    match slot {
        Slot::Table => &mut sub.policy,
        Slot::Stream => &mut sub.stream_policy,
    }
}

/// Refuses the change when `ExpectedRevisionId` does not name the current policy.
fn check_expected(table: &str, current: Option<&StoredPolicy>, expected: Option<&str>) -> Result<(), Error> {
    let not_found = |detail: String| {
        Err(Error::new(
            ErrorKind::PolicyNotFound,
            format!("Resource-based policy not found for the provided ResourceArn: {detail}"),
        ))
    };
    match (expected, current) {
        (None, _) => Ok(()),
        (Some(NO_POLICY), None) => Ok(()),
        (Some(NO_POLICY), Some(c)) => not_found(format!(
            "Requested policy update expecting none to be present for table {table}, but a policy exists with revision id {}.",
            c.revision_id
        )),
        (Some(e), None) => not_found(format!(
            "Requested update for policy with revision id {e}, but table {table} has no associated policy."
        )),
        (Some(e), Some(c)) if c.revision_id != e => not_found(format!(
            "Requested update for policy with revision id {e}, but the policy associated to target table {table} has revision id {}.",
            c.revision_id
        )),
        (Some(_), Some(_)) => Ok(()),
    }
}

fn arn_constraints(c: &mut Constraints, arn: Option<&str>) {
    c.not_null("resourceArn", arn.is_some());
    if let Some(arn) = arn.filter(|a| a.len() > 1024) {
        c.fail(arn, "resourceArn", "Member must have length less than or equal to 1024");
    }
}

fn expected_constraints(c: &mut Constraints, expected: Option<&str>) {
    match expected {
        Some("") => c.fail("", "expectedRevisionId", "Member must have length greater than or equal to 1"),
        Some(e) if e.len() > 255 => {
            c.fail(e, "expectedRevisionId", "Member must have length less than or equal to 255")
        }
        _ => {}
    }
}

pub(in crate::engine) fn put_resource_policy(
    inner: &Inner,
    input: PutResourcePolicyInput,
) -> Result<PutResourcePolicyOutput, Error> {
    let mut c = Constraints::default();
    arn_constraints(&mut c, input.resource_arn.as_deref());
    c.not_null("policy", input.policy.is_some());
    expected_constraints(&mut c, input.expected_revision_id.as_deref());
    c.finish()?;
    let arn = input.resource_arn.unwrap_or_default();
    let document = input.policy.unwrap_or_default();
    let (table, slot) = resolve(inner, &arn)?;
    check_document(&document)?;
    let revision_id = {
        let mut meta = table.meta.lock();
        let current = slot_mut(&mut meta.sub, slot);
        check_expected(&table.name, current.as_ref(), input.expected_revision_id.as_deref())?;
        // An equivalent document (same JSON, whatever its whitespace or key order) is a no-op
        // that keeps the revision id (DDB-TABLE-207).
        match current.as_ref().filter(|c| same_document(&c.document, &document)) {
            Some(same) => return Ok(PutResourcePolicyOutput { revision_id: Some(same.revision_id.clone()) }),
            None => {
                let revision_id = next_revision();
                *current = Some(StoredPolicy { document, revision_id: revision_id.clone() });
                revision_id
            }
        }
    };
    save(inner, &table)?;
    Ok(PutResourcePolicyOutput { revision_id: Some(revision_id) })
}

fn same_document(a: &str, b: &str) -> bool {
    match (serde_json::from_str::<serde_json::Value>(a), serde_json::from_str::<serde_json::Value>(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub(in crate::engine) fn get_resource_policy(
    inner: &Inner,
    input: GetResourcePolicyInput,
) -> Result<GetResourcePolicyOutput, Error> {
    let mut c = Constraints::default();
    arn_constraints(&mut c, input.resource_arn.as_deref());
    c.finish()?;
    let arn = input.resource_arn.unwrap_or_default();
    let (table, slot) = resolve(inner, &arn)?;
    let mut meta = table.meta.lock();
    match slot_mut(&mut meta.sub, slot) {
        Some(p) => Ok(GetResourcePolicyOutput {
            policy: Some(p.document.clone()),
            revision_id: Some(p.revision_id.clone()),
        }),
        None => Err(Error::new(
            ErrorKind::PolicyNotFound,
            format!("Resource-based policy not found for the provided ResourceArn: {arn}"),
        )),
    }
}

pub(in crate::engine) fn delete_resource_policy(
    inner: &Inner,
    input: DeleteResourcePolicyInput,
) -> Result<DeleteResourcePolicyOutput, Error> {
    let mut c = Constraints::default();
    arn_constraints(&mut c, input.resource_arn.as_deref());
    expected_constraints(&mut c, input.expected_revision_id.as_deref());
    c.finish()?;
    let arn = input.resource_arn.unwrap_or_default();
    let (table, slot) = resolve(inner, &arn)?;
    let removed = {
        let mut meta = table.meta.lock();
        let current = slot_mut(&mut meta.sub, slot);
        check_expected(&table.name, current.as_ref(), input.expected_revision_id.as_deref())?;
        current.take()
    };
    // Deleting when no policy is attached is an idempotent success with an empty reply
    // (DDB-TABLE-205); a real delete answers with the removed policy's revision id.
    let Some(removed) = removed else { return Ok(DeleteResourcePolicyOutput::default()) };
    save(inner, &table)?;
    Ok(DeleteResourcePolicyOutput { revision_id: Some(removed.revision_id) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_the_same_when_their_json_is() {
        assert!(same_document(r#"{"a": [1, 2], "b": {}}"#, r#"{"b":{},"a":[1,2]}"#));
        assert!(!same_document(r#"{"a": [1, 2]}"#, r#"{"a":[2,1]}"#));
    }
}
