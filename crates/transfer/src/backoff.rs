//! Retries with exponential backoff and full jitter, for throttling and transient errors.
//!
//! The delay before retry `n` (0-based) is uniform in `[0, min(cap, base * 2^n)]` ("full
//! jitter", as the AWS SDKs and the DynamoDB developer guide's error-handling section
//! recommend): concurrent writers that were throttled together spread out instead of
//! retrying in lockstep.

use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

/// How long and how often to retry.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    /// The first retry's upper bound.
    pub base: Duration,
    /// No delay exceeds this.
    pub cap: Duration,
    /// Attempts in all (the first try included) before the error is returned.
    pub max_attempts: u32,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { base: Duration::from_millis(25), cap: Duration::from_secs(5), max_attempts: 12 }
    }
}

impl Backoff {
    /// The delay before retry `retry` (0-based): uniform in `[0, min(cap, base * 2^retry)]`.
    pub fn delay(&self, retry: u32) -> Duration {
        let ceiling = self.base.saturating_mul(1u32 << retry.min(20)).min(self.cap);
        ceiling.mul_f64(random_unit())
    }

    /// Runs `op` until it succeeds, fails with an error `retryable` rejects, or
    /// `max_attempts` are spent; sleeps [`Backoff::delay`] between attempts.
    pub async fn retry<T, E, F, Fut>(&self, mut op: F, retryable: impl Fn(&E) -> bool) -> Result<T, E>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut attempt = 0;
        loop {
            match op().await {
                Ok(v) => return Ok(v),
                Err(e) if attempt + 1 < self.max_attempts && retryable(&e) => {
                    tokio::time::sleep(self.delay(attempt)).await;
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// A uniform random number in `[0, 1)`, from the standard library's randomly keyed hasher
/// (jitter needs spread, not cryptographic quality).
fn random_unit() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().build_hasher().finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn delays_stay_under_the_doubling_ceiling_and_the_cap() {
        let b = Backoff { base: Duration::from_millis(10), cap: Duration::from_millis(200), max_attempts: 5 };
        for retry in 0..30 {
            let ceiling = Duration::from_millis(10 * (1u64 << retry.min(20))).min(Duration::from_millis(200));
            for _ in 0..50 {
                assert!(b.delay(retry) <= ceiling);
            }
        }
    }

    #[test]
    fn delays_are_jittered() {
        let b = Backoff::default();
        let delays: std::collections::HashSet<Duration> = (0..20).map(|_| b.delay(6)).collect();
        assert!(delays.len() > 10, "20 draws gave only {} distinct delays", delays.len());
    }

    #[tokio::test]
    async fn retryable_errors_are_retried_until_success() {
        let calls = Cell::new(0);
        let b = Backoff { base: Duration::from_millis(1), cap: Duration::from_millis(4), max_attempts: 10 };
        let result: Result<u32, &str> = b
            .retry(
                || {
                    calls.set(calls.get() + 1);
                    let n = calls.get();
                    async move {
                        if n < 4 {
                            Err("throttled")
                        } else {
                            Ok(n)
                        }
                    }
                },
                |e| *e == "throttled",
            )
            .await;
        assert_eq!(result, Ok(4));
    }

    #[tokio::test]
    async fn other_errors_and_spent_attempts_end_the_retries() {
        let calls = Cell::new(0);
        let b = Backoff { base: Duration::from_millis(1), cap: Duration::from_millis(4), max_attempts: 3 };
        let fatal: Result<(), &str> = b
            .retry(
                || {
                    calls.set(calls.get() + 1);
                    async { Err("validation") }
                },
                |e| *e == "throttled",
            )
            .await;
        assert_eq!((fatal, calls.get()), (Err("validation"), 1));
        calls.set(0);
        let spent: Result<(), &str> = b
            .retry(
                || {
                    calls.set(calls.get() + 1);
                    async { Err("throttled") }
                },
                |e| *e == "throttled",
            )
            .await;
        assert_eq!((spent, calls.get()), (Err("throttled"), 3));
    }
}
