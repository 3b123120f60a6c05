//! The single-item read path: the item stored under a key, projected, with its capacity
//! report. GetItem, its borrowed-request fast path, BatchGetItem and TransactGetItems end here.

use monotable_expr::{Params, Projection};

use crate::api::*;
use crate::engine::core::capacity::{self, Report};
use crate::engine::core::legacy;
use crate::engine::core::params::expr_err;
use crate::engine::core::util::project;
use crate::table::Table;
use crate::Error;

/// GetItem's answer once the request has passed every check: the item stored under `key`,
/// projected, and the capacity report.
pub(in crate::engine) fn read_one(
    table: &Table,
    key: &[u8],
    consistent: bool,
    report: Report,
    projection: Option<&Projection>,
) -> Result<GetItemOutput, Error> {
    let found = table.base.get(key)?;
    // Item sizes only matter for the capacity report.
    let size =
        if report == Report::None { 0 } else { found.as_ref().map_or(0, monotable_types::PackedItem::size) };
    let item = found.map(|i| project(i, projection));
    Ok(GetItemOutput {
        item,
        consumed_capacity: capacity::for_read(
            report,
            &table.name,
            None,
            capacity::read_units(size, consistent),
        ),
    })
}

/// Resolves `ProjectionExpression` or `AttributesToGet`, checking unused names.
pub(in crate::engine) fn read_projection(
    expression: Option<&str>,
    attributes_to_get: Option<&[String]>,
    names: Option<&ExpressionAttributeNames>,
) -> Result<Option<Projection>, Error> {
    if let Some(text) = expression {
        let mut params = Params::new(names, None);
        let p = params.projection(text).map_err(expr_err)?;
        params.finish().map_err(expr_err)?;
        return Ok(Some(p));
    }
    attributes_to_get.map(legacy::attributes_to_get).transpose()
}
