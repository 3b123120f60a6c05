//! Sign-in attempts counted per client, so that a key pair cannot be guessed at speed.
//!
//! A client is the peer's IP address when the listener put the peer's `SocketAddr` into the
//! request's extensions (both listeners do), else one shared bucket. Each client may make
//! [`ATTEMPTS`] sign-in attempts, right or wrong, in any [`WINDOW`]; more are refused until
//! the oldest leaves the window. A person signing in never meets the limit; a guesser gets
//! ten guesses a minute instead of hundreds a second.
//!
//! Invariant: memory is bounded: at most [`CLIENTS`] clients are tracked, each with at most
//! [`ATTEMPTS`] instants; when the table is full the client whose last attempt is oldest is
//! forgotten first.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Sign-in attempts one client may make per [`WINDOW`].
pub const ATTEMPTS: usize = 10;
/// The window attempts are counted in.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Clients tracked at most.
const CLIENTS: usize = 4096;

/// Recent sign-in attempts per client.
#[derive(Default)]
pub struct SignInThrottle(Mutex<HashMap<Option<IpAddr>, VecDeque<Instant>>>);

impl SignInThrottle {
    /// Records an attempt by `client` at `now`, or, when the client has used its attempts,
    /// returns how long until it may try again.
    pub fn attempt(&self, client: Option<IpAddr>, now: Instant) -> Result<(), Duration> {
        let mut clients = self.0.lock();
        if !clients.contains_key(&client) && clients.len() >= CLIENTS {
            clients.retain(|_, times| times.back().is_some_and(|t| now.duration_since(*t) < WINDOW));
            if clients.len() >= CLIENTS {
                let oldest = clients.iter().min_by_key(|(_, times)| times.back().copied()).map(|(k, _)| *k);
                if let Some(oldest) = oldest {
                    clients.remove(&oldest);
                }
            }
        }
        let times = clients.entry(client).or_default();
        while times.front().is_some_and(|t| now.duration_since(*t) >= WINDOW) {
            times.pop_front();
        }
        if times.len() >= ATTEMPTS {
            let first = times.front().copied().unwrap_or(now);
            return Err(WINDOW.saturating_sub(now.duration_since(first)));
        }
        times.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_ten_attempts_a_minute_and_others_are_unaffected() {
        let throttle = SignInThrottle::default();
        let (a, b) = (Some("10.0.0.1".parse().unwrap()), Some("10.0.0.2".parse().unwrap()));
        let start = Instant::now();
        for i in 0..ATTEMPTS {
            assert!(throttle.attempt(a, start + Duration::from_secs(i as u64)).is_ok());
        }
        let wait = throttle.attempt(a, start + Duration::from_secs(30)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(30), "until the first attempt leaves the window");
        assert!(throttle.attempt(b, start + Duration::from_secs(30)).is_ok());
        assert!(throttle.attempt(a, start + WINDOW).is_ok(), "the first attempt has left the window");
    }

    #[test]
    fn the_table_of_clients_stays_bounded() {
        let throttle = SignInThrottle::default();
        let now = Instant::now();
        for i in 0..(CLIENTS as u32 + 10) {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(i));
            assert!(throttle.attempt(Some(ip), now).is_ok());
        }
        assert!(throttle.0.lock().len() <= CLIENTS);
    }
}
