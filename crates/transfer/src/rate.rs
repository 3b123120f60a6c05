//! A shared rate limit: a token bucket that every segment charges for what it reads or
//! writes (items, or capacity units), sleeping while the bucket is in debt.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a rate limit counts.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum RateUnit {
    /// Items read (export) or written (import, copy).
    Items,
    /// Capacity units: read units for Scan pages, write units for BatchWriteItem, as the
    /// endpoint reports them in `ConsumedCapacity` (estimated from item sizes when it does not).
    CapacityUnits,
}

/// A limit of `per_second` units per second, shared by all segments.
#[derive(Debug)]
pub struct RateLimiter {
    per_second: f64,
    state: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// Units available now; negative when callers have charged more than was available.
    tokens: f64,
    refilled: Instant,
}

impl RateLimiter {
    /// A limiter allowing `per_second` units per second, with a burst of one second's worth.
    /// A non-positive or non-finite rate is refused.
    pub fn new(per_second: f64) -> Option<RateLimiter> {
        (per_second.is_finite() && per_second > 0.0).then(|| RateLimiter {
            per_second,
            state: Mutex::new(Bucket { tokens: per_second, refilled: Instant::now() }),
        })
    }

    /// Takes `units` from the bucket and sleeps until the bucket is out of debt. Charging
    /// after the fact (capacity reported in a response) and before (items about to be sent)
    /// both keep the long-run rate at `per_second`.
    pub async fn charge(&self, units: f64) {
        let wait = {
            let mut b = self.state.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let elapsed = now.duration_since(b.refilled).as_secs_f64();
            b.tokens = (b.tokens + elapsed * self.per_second).min(self.per_second);
            b.refilled = now;
            b.tokens -= units;
            if b.tokens < 0.0 {
                Duration::from_secs_f64(-b.tokens / self.per_second)
            } else {
                Duration::ZERO
            }
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_must_be_positive_and_finite() {
        assert!(RateLimiter::new(0.0).is_none());
        assert!(RateLimiter::new(-1.0).is_none());
        assert!(RateLimiter::new(f64::NAN).is_none());
        assert!(RateLimiter::new(10.0).is_some());
    }

    #[tokio::test]
    async fn charges_beyond_the_burst_are_slowed_to_the_rate() {
        let limiter = RateLimiter::new(1000.0).expect("valid rate");
        let start = Instant::now();
        // One second of burst, then 500 more units at 1000/s: about half a second.
        for _ in 0..15 {
            limiter.charge(100.0).await;
        }
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(450), "took {took:?}");
        assert!(took < Duration::from_millis(1500), "took {took:?}");
    }
}
