//! A transaction builder over repositories of one table (S17).
//!
//! Invariant: the 100-action limit of `TransactWriteItems` is checked before anything is
//! sent, and a cancellation comes back as [`Error::TransactionCancelled`] with one typed
//! [`ActionOutcome`](crate::ActionOutcome) per action, in the order they were added.

use std::sync::Arc;

use tracing::Instrument;

use crate::entity::Entity;
use crate::error::Error;
use crate::expr::{Filter, Placeholders, Update};
use crate::repo::{now_iso, Repository};
use crate::request::{Request, TxAction};
use crate::send::send;
use crate::table::Table;

/// DynamoDB's limit on actions in one transaction.
pub const MAX_ACTIONS: usize = 100;

/// Collects writes, then commits them atomically. See [`Table::transaction`].
pub struct Transaction {
    table: Table,
    actions: Vec<TxAction>,
    token: Option<String>,
    error: Option<Error>,
    now: String,
}

impl Table {
    /// Starts a transaction on this table.
    pub fn transaction(&self) -> Transaction {
        Transaction { table: self.clone(), actions: Vec::new(), token: None, error: None, now: now_iso() }
    }
}

impl Transaction {
    fn push<T: Entity>(
        mut self,
        repo: &Repository<T>,
        make: impl FnOnce(&Repository<T>, &str) -> Result<Vec<TxAction>, Error>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        if !Arc::ptr_eq(&repo.table.inner, &self.table.inner) {
            self.error = Some(Error::Config("a transaction's repositories must share its table".into()));
            return self;
        }
        match make(repo, &self.now) {
            Ok(a) => self.actions.extend(a),
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// Creates an item (fails the transaction if its key exists); unique guards included.
    pub fn create<T: Entity>(self, repo: &Repository<T>, item: &T) -> Self {
        self.push(repo, |r, now| {
            let map = r.created_item(item, now)?;
            let mut ph = Placeholders::default();
            let condition = Some(r.not_exists(&mut ph));
            let mut out = vec![TxAction::Put { item: map.clone(), condition, ph }];
            out.extend(r.guard_puts(&map)?);
            Ok(out)
        })
    }

    /// Upserts an item (version-checked when the type has a version field).
    pub fn put<T: Entity>(self, repo: &Repository<T>, item: &T) -> Self {
        self.push(repo, |r, now| {
            if !T::schema().unique.is_empty() {
                return Err(Error::Config(
                    "put of a type with unique fields is not supported in a transaction".into(),
                ));
            }
            match r.plan_put(item, now)?.0 {
                Request::UpdateItem { key, update, condition, ph, .. } => {
                    Ok(vec![TxAction::Update { key, update, condition, ph }])
                }
                _ => Err(Error::Config("internal: put did not plan an update".into())),
            }
        })
    }

    /// A typed partial update.
    pub fn update<T: Entity>(self, repo: &Repository<T>, key: &T::Key, update: Update<T>) -> Self {
        self.push(repo, |r, _| match r.plan().update(key, &update)? {
            Request::UpdateItem { key, update, condition, ph, .. } => {
                Ok(vec![TxAction::Update { key, update, condition, ph }])
            }
            _ => Err(Error::Config("internal: update did not plan an update".into())),
        })
    }

    /// Deletes an existing item.
    pub fn delete<T: Entity>(self, repo: &Repository<T>, key: &T::Key) -> Self {
        self.push(repo, |r, _| {
            if !T::schema().unique.is_empty() {
                return Err(Error::Config(
                    "delete of a type with unique fields is not supported in a transaction".into(),
                ));
            }
            match r.plan().delete(key)? {
                Request::DeleteItem { key, condition, ph, .. } => {
                    Ok(vec![TxAction::Delete { key, condition, ph }])
                }
                _ => Err(Error::Config("internal: delete did not plan a delete".into())),
            }
        })
    }

    /// Requires a condition on another item, without writing it.
    pub fn check<T: Entity>(self, repo: &Repository<T>, key: &T::Key, condition: Filter<T>) -> Self {
        self.push(repo, |r, _| {
            let mut ph = Placeholders::default();
            let condition = condition.compile(&mut ph)?;
            Ok(vec![TxAction::Check { key: r.key_item(key)?, condition, ph }])
        })
    }

    /// A client request token: a retry within ten minutes is applied once.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The number of actions so far.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether no action was added.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The request, checked against the limits, without sending it.
    pub fn plan(&self) -> Result<Request, Error> {
        if let Some(e) = &self.error {
            return Err(clone_error(e));
        }
        if self.actions.is_empty() || self.actions.len() > MAX_ACTIONS {
            return Err(Error::Limit {
                what: "TransactWriteItems actions",
                limit: MAX_ACTIONS,
                actual: self.actions.len(),
            });
        }
        Ok(Request::TransactWrite {
            table: self.table.inner.name.clone(),
            actions: self.actions.clone(),
            token: self.token.clone(),
        })
    }

    /// Sends the transaction.
    pub async fn commit(self) -> Result<(), Error> {
        let req = self.plan()?;
        let span = tracing::info_span!(
            "monotable",
            entity = "*",
            operation = "transaction",
            index = "table",
            actions = self.actions.len(),
            consumed_capacity = tracing::field::Empty
        );
        send(&self.table.inner, "*", req).instrument(span).await.map(|_| ())
    }
}

fn clone_error(e: &Error) -> Error {
    match e {
        Error::Validation(v) => Error::Validation(v.clone()),
        Error::Forbidden(f) => Error::Forbidden(f.clone()),
        Error::Limit { what, limit, actual } => Error::Limit { what, limit: *limit, actual: *actual },
        other => Error::Config(other.to_string()),
    }
}
