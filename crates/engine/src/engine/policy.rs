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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::control::save;
use super::util::{lookup, table_not_found};
use super::Inner;
use crate::api::*;
use crate::table::{StoredPolicy, Table};
use crate::validate::Constraints;
use crate::{Error, ErrorKind};

/// DynamoDB's maximum policy size, whitespace included.
const MAX_POLICY_BYTES: usize = 20 * 1024;

/// The `ExpectedRevisionId` that asks for "no policy attached yet".
const NO_POLICY: &str = "NO_POLICY";

/// The last revision id handed out, so that ids strictly increase even within a millisecond.
static LAST_REVISION: AtomicU64 = AtomicU64::new(0);

/// A new revision id: the epoch milliseconds of the change (DDB-TABLE-207: "RevisionId is the
/// epoch-ms change time", 13 digits, strictly increasing).
fn next_revision() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let mut last = LAST_REVISION.load(Ordering::Relaxed);
    loop {
        let next = now.max(last + 1);
        match LAST_REVISION.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next.to_string(),
            Err(seen) => last = seen,
        }
    }
}

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

fn invalid_document(detail: &str) -> Error {
    Error::invalid_param(format!("Invalid policy document: {detail}"))
}

/// The document checks DynamoDB makes before it stores a policy (DDB-TABLE-211, -356): size,
/// JSON, a non-empty `Statement`, `Resource` in every statement, unique `Sid`s and no `Allow`
/// to every principal without a condition.
pub(super) fn check_document(document: &str) -> Result<(), Error> {
    if document.len() > MAX_POLICY_BYTES {
        return Err(Error::invalid_param(format!(
            "Maximum policy size of {MAX_POLICY_BYTES} bytes exceeded"
        )));
    }
    let invalid_json = || invalid_document("This policy contains invalid Json");
    let value: serde_json::Value = serde_json::from_str(document).map_err(|_| invalid_json())?;
    let object = value.as_object().ok_or_else(invalid_json)?;
    let statements: Vec<&serde_json::Value> = match object.get("Statement") {
        Some(serde_json::Value::Array(list)) => list.iter().collect(),
        Some(one @ serde_json::Value::Object(_)) => vec![one],
        _ => Vec::new(),
    };
    if statements.is_empty() {
        return Err(invalid_document("Could not parse the policy: Statement is empty!"));
    }
    let mut sids = Vec::new();
    let mut unbounded = false;
    for statement in statements {
        let statement = statement.as_object().ok_or_else(invalid_json)?;
        if !statement.contains_key("Resource") && !statement.contains_key("NotResource") {
            return Err(invalid_document("Missing required field Resource"));
        }
        if let Some(sid) = statement.get("Sid") {
            if sids.contains(&sid) {
                return Err(invalid_document("The Statement Ids in the policy are not unique"));
            }
            sids.push(sid);
        }
        let everyone = match statement.get("Principal") {
            Some(serde_json::Value::String(p)) => p == "*",
            Some(serde_json::Value::Object(p)) => p.get("AWS").is_some_and(|a| a == "*"),
            _ => false,
        };
        let allow = statement.get("Effect").and_then(|e| e.as_str()) == Some("Allow");
        unbounded |= everyone && allow && !statement.contains_key("Condition");
    }
    if unbounded {
        return Err(Error::validation(
            "Resource-based policy grants unbounded access in one or more elements. Please revise the policy to ensure least-privilege form of access",
        ));
    }
    Ok(())
}

/// The policy CreateTable's `ResourcePolicy` attaches, checked like PutResourcePolicy's.
pub(super) fn create_time_policy(document: Option<&str>) -> Result<Option<StoredPolicy>, Error> {
    let Some(document) = document else { return Ok(None) };
    check_document(document)?;
    Ok(Some(StoredPolicy { document: document.to_owned(), revision_id: next_revision() }))
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

pub(super) fn put_resource_policy(
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

pub(super) fn get_resource_policy(
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

pub(super) fn delete_resource_policy(
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
    fn revision_ids_strictly_increase() {
        let a: u64 = next_revision().parse().unwrap();
        let b: u64 = next_revision().parse().unwrap();
        assert!(b > a);
    }

    #[test]
    fn documents_are_the_same_when_their_json_is() {
        assert!(same_document(r#"{"a": [1, 2], "b": {}}"#, r#"{"b":{},"a":[1,2]}"#));
        assert!(!same_document(r#"{"a": [1, 2]}"#, r#"{"a":[2,1]}"#));
    }
}
