//! The budget of buffered request bytes, shared by every connection of a server (see
//! `limits` for the default and the deadline).
//!
//! Invariant: the bytes buffered for request bodies in flight never exceed the budget. A body
//! [`Held::cover`]s its buffer before the buffer grows, and gives the room back when its
//! [`Held`] is dropped, after the request's response is made. Room is counted in KiB permits
//! of a tokio `Semaphore`, which hands released permits to waiting bodies in arrival order.

use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::ServerError;

/// One permit is one KiB of buffer.
const UNIT: usize = 1024;

pub(crate) struct Budget {
    permits: Semaphore,
    /// All the permits there are.
    total: usize,
    /// How long a body waits for room, in total, before it is refused.
    wait: Duration,
}

impl Budget {
    pub(crate) fn new(bytes: usize, wait: Duration) -> Budget {
        let total = bytes.div_ceil(UNIT).clamp(1, Semaphore::MAX_PERMITS);
        Budget { permits: Semaphore::new(total), total, wait }
    }

    /// An empty hold on the budget, for one request's body.
    pub(crate) fn hold(&self) -> Held<'_> {
        Held { budget: self, units: 0, waited: Duration::ZERO }
    }

    /// Room left, in bytes (for tests).
    #[cfg(test)]
    fn available(&self) -> usize {
        self.permits.available_permits() * UNIT
    }
}

/// The room one request holds; released when dropped.
pub(crate) struct Held<'a> {
    budget: &'a Budget,
    units: usize,
    /// How long this request has waited for room so far.
    waited: Duration,
}

impl Held<'_> {
    /// Grows the hold to cover a buffer of `bytes`, waiting for room if the budget has none,
    /// for at most what is left of the budget's wait. Refused with `ThrottlingException` when
    /// that time runs out or when `bytes` exceeds the whole budget.
    pub(crate) async fn cover(&mut self, bytes: usize) -> Result<(), ServerError> {
        let needed = bytes.div_ceil(UNIT).saturating_sub(self.units);
        if needed == 0 {
            return Ok(());
        }
        if self.units + needed > self.budget.total {
            return Err(ServerError::Throttled);
        }
        // `needed` is at most the budget's total here; a body never needs more than 16 MiB.
        let count = u32::try_from(needed).map_err(|_| ServerError::Throttled)?;
        if let Ok(permit) = self.budget.permits.try_acquire_many(count) {
            permit.forget();
            self.units += needed;
            return Ok(());
        }
        let left = self.budget.wait.saturating_sub(self.waited);
        let started = Instant::now();
        let acquired = tokio::time::timeout(left, self.budget.permits.acquire_many(count)).await;
        self.waited += started.elapsed();
        match acquired {
            Ok(Ok(permit)) => {
                permit.forget();
                self.units += needed;
                Ok(())
            }
            // The semaphore is never closed; a timeout is the only way here.
            _ => Err(ServerError::Throttled),
        }
    }

    /// Grows the hold by `bytes` more, as [`Held::cover`] does.
    pub(crate) async fn cover_more(&mut self, bytes: usize) -> Result<(), ServerError> {
        self.cover(self.units.saturating_mul(UNIT).saturating_add(bytes)).await
    }

    /// How long this request has waited for room.
    pub(crate) fn waited(&self) -> Duration {
        self.waited
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if self.units > 0 {
            self.budget.permits.add_permits(self.units);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn room_is_held_until_the_hold_is_dropped() {
        let budget = Budget::new(8 * UNIT, Duration::from_millis(50));
        let mut first = budget.hold();
        first.cover(1).await.unwrap();
        first.cover(5 * UNIT).await.unwrap();
        assert_eq!(budget.available(), 3 * UNIT, "a hold grows to its buffer, in whole KiB");
        let mut second = budget.hold();
        assert!(matches!(second.cover(4 * UNIT).await, Err(ServerError::Throttled)));
        assert!(second.waited() >= Duration::from_millis(50));
        drop(first);
        assert_eq!(budget.available(), 8 * UNIT);
        second.cover(4 * UNIT).await.unwrap();
        second.cover_more(3 * UNIT).await.unwrap();
        assert_eq!(budget.available(), UNIT, "cover_more adds to what is held");
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_is_refused_at_once() {
        let budget = Budget::new(4 * UNIT, Duration::from_secs(3600));
        assert!(matches!(budget.hold().cover(5 * UNIT).await, Err(ServerError::Throttled)));
    }

    #[tokio::test]
    async fn a_waiting_body_gets_the_room_another_gives_back() {
        let budget = std::sync::Arc::new(Budget::new(4 * UNIT, Duration::from_secs(3600)));
        let mut first = budget.hold();
        first.cover(4 * UNIT).await.unwrap();
        let waiting = {
            let budget = budget.clone();
            tokio::spawn(async move { budget.hold().cover(2 * UNIT).await.is_ok() })
        };
        tokio::task::yield_now().await;
        drop(first);
        assert!(waiting.await.unwrap());
    }
}
