//! The explicitly named maintenance API: full-table scans for admins (S9).
//!
//! Request-path code has no Scan; this exists for migrations, backfills and audits, and is
//! only reachable with an [`AdminScope`].

use tracing::Instrument;

use crate::auth::AdminScope;
use crate::entity::Item;
use crate::error::Error;
use crate::expr::Placeholders;
use crate::request::Request;
use crate::send::send;
use crate::table::Table;

/// Scans for admins; see the module docs.
#[derive(Debug, Clone)]
pub struct Maintenance {
    table: Table,
    _admin: AdminScope,
}

/// One page of raw items from a scan, and the raw key to continue from.
#[derive(Debug, Clone)]
pub struct ScanPage {
    /// Raw items, every type.
    pub items: Vec<Item>,
    /// Pass back to continue; `None` when done.
    pub next: Option<Item>,
}

impl Table {
    /// The maintenance API (full-table scans), for admins only (S9).
    pub fn maintenance(&self, admin: &AdminScope) -> Maintenance {
        Maintenance { table: self.clone(), _admin: admin.clone() }
    }
}

impl Maintenance {
    /// One `Scan` page of the whole table.
    pub async fn scan_page(&self, limit: i32, start: Option<Item>) -> Result<ScanPage, Error> {
        let span = tracing::info_span!(
            "monotable",
            entity = "*",
            operation = "scan",
            index = "table",
            consumed_capacity = tracing::field::Empty
        );
        async {
            let req = Request::Scan {
                table: self.table.inner.name.clone(),
                filter: None,
                ph: Placeholders::default(),
                limit: Some(limit.max(1)),
                start,
            };
            let out = send(&self.table.inner, "*", req).await?;
            Ok(ScanPage { items: out.items, next: out.last_key })
        }
        .instrument(span)
        .await
    }
}
