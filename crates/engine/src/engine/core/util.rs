//! Small helpers shared by the operation modules.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::Inner;
use crate::table::Table;
use crate::validate::Constraints;
use crate::Error;

/// Seconds since the epoch, as the JSON protocol writes timestamps.
pub(crate) fn now_epoch() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as f64 / 1000.0).unwrap_or(0.0)
}

/// Validates a `TableName` member and finds the table (`ResourceNotFoundException`
/// "Requested resource not found" when it does not exist, as item operations report).
pub(crate) fn table_for_item_op(inner: &Inner, name: Option<&str>) -> Result<Arc<Table>, Error> {
    let mut c = Constraints::default();
    c.name(name, "tableName", true);
    c.finish()?;
    lookup(inner, name.unwrap_or_default()).ok_or_else(Error::not_found)
}

/// [`table_for_item_op`] for a request whose `TableName` the caller has already validated
/// (in the same `Constraints` pass as its other members).
pub(crate) fn validated_table(inner: &Inner, name: Option<&str>) -> Result<Arc<Table>, Error> {
    lookup(inner, name.unwrap_or_default()).ok_or_else(Error::not_found)
}

/// The table named `name`, if it exists.
/// `name` may be the table's ARN (see [`super::arn`]).
pub(crate) fn lookup(inner: &Inner, name: &str) -> Option<Arc<Table>> {
    inner.tables.read().get(super::arn::table_name_of(name)).cloned()
}

/// The `ResourceNotFoundException` control-plane operations report for a missing table.
/// A table ARN is reported by the name inside it, as DynamoDB does.
pub(crate) fn table_not_found(name: &str) -> Error {
    let name = super::arn::table_name_of(name);
    Error::new(
        crate::ErrorKind::ResourceNotFound,
        format!("Requested resource not found: Table: {name} not found"),
    )
}

/// A stored item as a read returns it: the stored item itself when nothing is projected (its
/// packed bytes, written straight into the response), otherwise a new item holding the
/// projected paths.
pub(crate) fn project(
    item: impl Into<crate::api::SharedItem>,
    projection: Option<&monotable_expr::Projection>,
) -> crate::api::SharedItem {
    let item = item.into();
    match projection {
        Some(p) => crate::api::SharedItem::from(p.apply(&item)),
        None => item,
    }
}
