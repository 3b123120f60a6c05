//! TransactWriteItems client request tokens.
//!
//! DynamoDB (API_TransactWriteItems, `ClientRequestToken`): a token makes the call idempotent;
//! it is valid for 10 minutes after the first request that uses it completes; a repeat within
//! that window with other parameters fails with `IdempotentParameterMismatchException`; a
//! repeat while the first call is still running fails with `TransactionInProgressException`;
//! a repeat of a completed call succeeds without making any change and reports the read
//! capacity of reading the items instead of the write capacity.
//!
//! Architecture Invariant: a completed token is stored in the keyspace `$client_tokens` by the
//! same storage commit as its transaction's changes, so after a restart a token is known
//! exactly when its transaction committed, and a replay never applies a transaction twice.
//! Only successful transactions complete a token; a cancelled one releases it, so a retry
//! runs again (as DynamoDB's retries of a cancelled transaction do).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use monotable_types::{AttributeValue, Item, Number, PackedItem, ValueRef};

use crate::storage::{KeyRange, Keyspace, Storage, WriteBatch};
use crate::{Error, ErrorKind};

/// How long a completed token is remembered (DynamoDB's idempotency window).
pub(crate) const WINDOW_MS: u64 = 10 * 60 * 1000;

/// The engine keyspace holding completed tokens. Table keyspaces are named by UUIDs, so no
/// table can own this name.
pub(crate) const KEYSPACE: &str = "$client_tokens";

enum State {
    /// The first call is running; holds its parameters' fingerprint.
    Pending(String),
    /// The call committed at `at` (epoch milliseconds).
    Done { at: u64, fingerprint: String },
}

/// What a claimed token asks of the caller.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// No live token: run the transaction, then [`Tokens::finish`].
    Run,
    /// The same call already committed: answer without changing anything.
    Replay,
}

/// The tokens seen in the last 10 minutes and those in flight.
#[derive(Default)]
pub(crate) struct Tokens {
    seen: HashMap<String, State>,
    /// Completed tokens in completion order, to expire them without scanning `seen`.
    order: VecDeque<(u64, String)>,
    /// Expired tokens still stored; deleted by the next token commit.
    expired: Vec<String>,
    keyspace: Option<Arc<dyn Keyspace>>,
}

fn mismatch() -> Error {
    Error::new(
        ErrorKind::IdempotentParameterMismatch,
        "Request with the same client token was already used with different parameters",
    )
}

impl Tokens {
    /// Loads the completed tokens of a store, dropping those past the window.
    pub fn load(&mut self, storage: &dyn Storage, now: u64) -> Result<(), Error> {
        let ks = storage.open_keyspace(KEYSPACE)?;
        let mut found: Vec<(u64, String, String)> = Vec::new();
        let all =
            KeyRange { start: std::ops::Bound::Unbounded, end: std::ops::Bound::Unbounded, reverse: false };
        ks.scan(&all, &mut |key, item| {
            let token = String::from_utf8_lossy(key).into_owned();
            let at = match item.get("completed") {
                Some(ValueRef::N(n)) => n.parse::<u64>().unwrap_or(0),
                _ => 0,
            };
            let fingerprint = match item.get("fingerprint") {
                Some(ValueRef::S(s)) => s.to_owned(),
                _ => String::new(),
            };
            found.push((at, token, fingerprint));
            true
        })?;
        found.sort();
        let mut stale = WriteBatch::default();
        for (at, token, fingerprint) in found {
            if now.saturating_sub(at) >= WINDOW_MS {
                stale.delete(&ks, token.into_bytes());
            } else {
                self.order.push_back((at, token.clone()));
                self.seen.insert(token, State::Done { at, fingerprint });
            }
        }
        if !stale.ops.is_empty() {
            storage.commit(stale)?;
        }
        self.keyspace = Some(ks);
        Ok(())
    }

    /// Forgets the completed tokens past the window (they are deleted from storage by the
    /// next token commit).
    fn expire(&mut self, now: u64) {
        while let Some((at, _)) = self.order.front() {
            if now.saturating_sub(*at) < WINDOW_MS {
                break;
            }
            let Some((at, token)) = self.order.pop_front() else { break };
            // A token reused after expiry has a newer completion time; keep that one.
            if matches!(self.seen.get(&token), Some(State::Done { at: t, .. }) if *t == at) {
                self.seen.remove(&token);
                self.expired.push(token);
            }
        }
    }

    /// Claims `token` for a call whose parameters have `fingerprint`.
    pub fn claim(&mut self, token: &str, fingerprint: &str, now: u64) -> Result<Claim, Error> {
        self.expire(now);
        match self.seen.get(token) {
            Some(State::Done { fingerprint: f, .. }) if f == fingerprint => Ok(Claim::Replay),
            // API_TransactWriteItems, TransactionInProgressException: the transaction with the
            // given request token is already in progress.
            Some(State::Pending(f)) if f == fingerprint => Err(Error::new(
                ErrorKind::TransactionInProgress,
                "Transaction with the given request token is already in progress.",
            )),
            Some(_) => Err(mismatch()),
            None => {
                self.seen.insert(token.to_owned(), State::Pending(fingerprint.to_owned()));
                Ok(Claim::Run)
            }
        }
    }

    /// Adds the completed token (and deletions of expired ones) to the transaction's batch.
    pub fn stage(
        &mut self,
        storage: &dyn Storage,
        token: &str,
        fingerprint: &str,
        now: u64,
        batch: &mut WriteBatch,
    ) -> Result<(), Error> {
        let ks = match &self.keyspace {
            Some(ks) => Arc::clone(ks),
            None => {
                let ks = storage.open_keyspace(KEYSPACE)?;
                self.keyspace = Some(Arc::clone(&ks));
                ks
            }
        };
        for old in self.expired.drain(..) {
            if old != token {
                batch.delete(&ks, old.into_bytes());
            }
        }
        let mut item = Item::new();
        item.insert("fingerprint".into(), AttributeValue::S(fingerprint.to_owned()));
        item.insert("completed".into(), AttributeValue::N(Number::from(now as i64)));
        batch.put(&ks, token.as_bytes().to_vec(), PackedItem::encode(&item));
        Ok(())
    }

    /// Records the outcome of a claimed token: completed at `now` when the transaction
    /// committed, released otherwise.
    pub fn finish(&mut self, token: &str, fingerprint: &str, committed: bool, now: u64) {
        if committed {
            self.seen.insert(token.to_owned(), State::Done { at: now, fingerprint: fingerprint.to_owned() });
            self.order.push_back((now, token.to_owned()));
        } else if matches!(self.seen.get(token), Some(State::Pending(_))) {
            self.seen.remove(token);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    #[test]
    fn a_completed_token_replays_for_ten_minutes_and_is_new_afterwards() {
        let mut t = Tokens::default();
        assert_eq!(t.claim("tok", "f1", 0).unwrap(), Claim::Run);
        t.finish("tok", "f1", true, 1_000);
        assert_eq!(t.claim("tok", "f1", 1_000 + WINDOW_MS - 1).unwrap(), Claim::Replay);
        let e = t.claim("tok", "f2", 1_000 + WINDOW_MS - 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::IdempotentParameterMismatch);
        // After the window any request with the token is a new request, even other parameters.
        assert_eq!(t.claim("tok", "f2", 1_000 + WINDOW_MS).unwrap(), Claim::Run);
    }

    #[test]
    fn a_running_token_is_in_progress_and_a_cancelled_one_is_released() {
        let mut t = Tokens::default();
        assert_eq!(t.claim("tok", "f1", 0).unwrap(), Claim::Run);
        assert_eq!(t.claim("tok", "f1", 5).unwrap_err().kind, ErrorKind::TransactionInProgress);
        assert_eq!(t.claim("tok", "f2", 5).unwrap_err().kind, ErrorKind::IdempotentParameterMismatch);
        t.finish("tok", "f1", false, 10);
        assert_eq!(t.claim("tok", "f1", 11).unwrap(), Claim::Run);
    }

    #[test]
    fn stored_tokens_load_back_and_expired_ones_are_deleted() {
        let storage = MemoryStorage::new();
        let mut t = Tokens::default();
        let mut batch = WriteBatch::default();
        t.claim("old", "f", 0).unwrap();
        t.stage(&storage, "old", "f", 0, &mut batch).unwrap();
        t.claim("new", "g", WINDOW_MS).unwrap();
        t.stage(&storage, "new", "g", WINDOW_MS, &mut batch).unwrap();
        storage.commit(batch).unwrap();
        let mut back = Tokens::default();
        back.load(&storage, WINDOW_MS + 1).unwrap();
        assert_eq!(back.claim("new", "g", WINDOW_MS + 2).unwrap(), Claim::Replay);
        assert_eq!(back.claim("old", "other", WINDOW_MS + 2).unwrap(), Claim::Run);
        let ks = storage.open_keyspace(KEYSPACE).unwrap();
        assert!(ks.get(b"old").unwrap().is_none(), "an expired token is deleted on load");
    }
}
