//! The policy document checks and revision ids shared by PutResourcePolicy and CreateTable's
//! `ResourcePolicy` (sources in `ops/policy.rs`'s module doc).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::table::StoredPolicy;
use crate::Error;

/// DynamoDB's maximum policy size, whitespace included.
const MAX_POLICY_BYTES: usize = 20 * 1024;

/// The last revision id handed out, so that ids strictly increase even within a millisecond.
static LAST_REVISION: AtomicU64 = AtomicU64::new(0);

/// A new revision id: the epoch milliseconds of the change (DDB-TABLE-207: "RevisionId is the
/// epoch-ms change time", 13 digits, strictly increasing).
pub(in crate::engine) fn next_revision() -> String {
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

fn invalid_document(detail: &str) -> Error {
    Error::invalid_param(format!("Invalid policy document: {detail}"))
}

/// The document checks DynamoDB makes before it stores a policy (DDB-TABLE-211, -356): size,
/// JSON, a non-empty `Statement`, `Resource` in every statement, unique `Sid`s and no `Allow`
/// to every principal without a condition.
pub(in crate::engine) fn check_document(document: &str) -> Result<(), Error> {
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
pub(in crate::engine) fn create_time_policy(document: Option<&str>) -> Result<Option<StoredPolicy>, Error> {
    let Some(document) = document else { return Ok(None) };
    check_document(document)?;
    Ok(Some(StoredPolicy { document: document.to_owned(), revision_id: next_revision() }))
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
}
