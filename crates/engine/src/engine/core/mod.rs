//! The engine's core: the state every operation shares ([`Inner`]) and the code every write
//! or read goes through. Operation families (`super::ops`) call down into it.
//!
//! Invariant: nothing here names an operation family or the dispatch (`engine/mod.rs`); code
//! two families share lives here. `crates/engine/tests/layers.rs` checks it.
//!
//! - [`write`]: the conditional single-item write (a prepared `Write` evaluated and committed
//!   under its stripe lock, index entries and stream record staged with it by `Table::stage`).
//! - [`read_one`]: the single-item read path; [`params`]: expression placeholder checks.
//! - [`capacity`], [`legacy`] (pre-expression parameters), [`index_projection`] (reads of an
//!   index naming unprojected attributes): validation shared by the data plane.
//! - [`in_flight`] (items of running writes), [`tokens`] (client request tokens),
//!   [`inline_budget`]: concurrency and request-scoped state.
//! - [`catalog`] (a table's stored entry), [`stream_control`] and [`retired_streams`] (a
//!   table's stream logs, live and after deletion), [`policy_document`], [`transfers`] and
//!   [`bucket`] (the export/import state and store), [`arn`] and [`util`] (table lookup).

pub(super) mod arn;
pub(super) mod bucket;
pub(super) mod capacity;
pub(super) mod catalog;
pub(super) mod in_flight;
pub(super) mod index_projection;
pub(super) mod inline_budget;
pub(super) mod legacy;
pub(super) mod params;
pub(super) mod policy_document;
pub(super) mod read_one;
pub(super) mod retired_streams;
pub(super) mod stream_control;
pub(super) mod tokens;
pub(super) mod transfers;
pub(super) mod util;
pub(super) mod write;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::storage::Storage;
use crate::table::{Locks, Table};
use crate::Location;

/// The shared state behind every clone of an [`Engine`](crate::Engine).
pub(crate) struct Inner {
    pub storage: Arc<dyn Storage>,
    /// Keyed with foldhash (hashbrown's default, seeded per process) rather than SipHash: a
    /// request looks its table up by name, and SipHash cost about 230 instructions of a
    /// GetItem's 28k. The names come from CreateTable, at most a few thousand.
    pub tables: RwLock<HashMap<String, Arc<Table>, hashbrown::DefaultHashBuilder>>,
    pub locks: Locks,
    pub next_seq: AtomicU64,
    /// TransactWriteItems client request tokens seen in the last 10 minutes.
    pub tokens: Mutex<tokens::Tokens>,
    /// The items of in-flight writes (conflict detection).
    pub in_flight: in_flight::InFlight,
    /// Exports, imports and the directory standing in for S3.
    pub transfers: transfers::Transfers,
    /// Deleted tables whose streams are still readable (for 24 hours after the deletion).
    pub retired: Mutex<Vec<retired_streams::Retired>>,
    /// The account and region of the tables, as ARNs name them.
    pub location: Location,
    /// `arn:aws:dynamodb:<region>:<account>:table/`, the head of every ARN of this engine.
    pub arn_prefix: String,
}

impl Inner {
    /// The state of a new engine in `location` over `storage`, with no table loaded yet.
    pub fn new(storage: Arc<dyn Storage>, location: Location) -> Inner {
        let arn_prefix = location.table_arn("");
        Inner {
            storage,
            tables: RwLock::new(HashMap::default()),
            locks: Locks::new(),
            next_seq: AtomicU64::new(1),
            tokens: Mutex::new(tokens::Tokens::default()),
            in_flight: in_flight::InFlight::default(),
            retired: Mutex::new(Vec::new()),
            transfers: transfers::Transfers::default(),
            location,
            arn_prefix,
        }
    }
}
