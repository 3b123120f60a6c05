//! Which engine answers a request: one for every request, or one per account and region.
//!
//! DynamoDB's tables live in a region of an account; DynamoDB Local keeps a database per
//! access key and region unless started with `-sharedDb` ("DynamoDB Local usage notes":
//! "If you use the -sharedDb option, DynamoDB Local creates a single database file named
//! shared-local-instance.db. Every program that connects to DynamoDB accesses this file").
//! [`Engines::Shared`] is that shared database; [`Engines::PerLocation`] opens an engine the
//! first time a request signed for its location arrives.
//!
//! Architecture Invariant: a request reaches exactly the engine of its credential scope's
//! region in its key's account, or under `Shared` the one engine; no operation crosses
//! engines.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use monotable_engine::{Engine, ErrorKind, Location};
use parking_lot::RwLock;

use crate::auth::Caller;
use crate::ServerError;

/// At most this many locations are open at once, so that a client cannot hold unbounded
/// engines (and, on disk, their background threads) by signing for ever new regions.
pub const MAX_LOCATIONS: usize = 64;

/// Opens the engine of a location the first time a request is signed for it.
pub type OpenEngine = dyn Fn(&Location) -> Result<Engine, String> + Send + Sync;

#[derive(Clone)]
pub(crate) enum Engines {
    /// One engine answers every region and account.
    Shared(Engine),
    /// One engine per location.
    PerLocation(Arc<PerLocation>),
}

pub(crate) struct PerLocation {
    /// The engine of the service's own location, open from the start.
    pub home: Engine,
    open: Box<OpenEngine>,
    /// The other open engines, by account and then region: keyed so that a request's borrowed
    /// names find theirs without building a key.
    others: RwLock<HashMap<String, HashMap<String, Engine>>>,
}

impl PerLocation {
    fn find(others: &HashMap<String, HashMap<String, Engine>>, caller: Caller<'_>) -> Option<Engine> {
        others.get(caller.account)?.get(caller.region).cloned()
    }
}

impl Engines {
    pub(crate) fn per_location(home: Engine, open: Box<OpenEngine>) -> Engines {
        Engines::PerLocation(Arc::new(PerLocation { home, open, others: RwLock::new(HashMap::new()) }))
    }

    /// The engine of the service's own location (the shared engine under `Shared`).
    pub(crate) fn home(&self) -> &Engine {
        match self {
            Engines::Shared(engine) => engine,
            Engines::PerLocation(p) => &p.home,
        }
    }

    /// The engine that answers `caller`, opening it if this is its location's first request.
    pub(crate) fn for_caller(&self, caller: Caller<'_>) -> Result<Cow<'_, Engine>, ServerError> {
        let p = match self {
            Engines::Shared(engine) => return Ok(Cow::Borrowed(engine)),
            Engines::PerLocation(p) => p,
        };
        let home = p.home.location();
        if caller.region == home.region_name() && caller.account == home.account() {
            return Ok(Cow::Borrowed(&p.home));
        }
        if let Some(engine) = PerLocation::find(&p.others.read(), caller) {
            return Ok(Cow::Owned(engine));
        }
        let mut others = p.others.write();
        if let Some(engine) = PerLocation::find(&others, caller) {
            return Ok(Cow::Owned(engine));
        }
        let location = Location::new(caller.region, caller.account);
        let open: usize = others.values().map(HashMap::len).sum();
        if open + 1 >= MAX_LOCATIONS {
            return Err(ServerError::Engine(monotable_engine::Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "This server holds tables in at most {MAX_LOCATIONS} regions and accounts; \
                     {location} would be one more. Restart it with --shared-db to keep one \
                     database for every region."
                ),
            )));
        }
        let engine = (p.open)(&location).map_err(|e| {
            ServerError::Internal(format!("The tables of {location} could not be opened: {e}"))
        })?;
        others.entry(caller.account.to_owned()).or_default().insert(caller.region.to_owned(), engine.clone());
        Ok(Cow::Owned(engine))
    }
}
