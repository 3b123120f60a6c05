//! Who may call the API: the CSRF token, and sign-in sessions in login mode.
//!
//! The CSRF token is random per console process and reaches the page only inside the HTML of
//! `/console/` (a `<meta>` tag), which another origin cannot read: the console sends no CORS
//! headers. Every API call must echo it in `X-Console-Csrf`. A sign-in session is a random
//! token in an `HttpOnly`, `SameSite=Strict` cookie scoped to `/console`; the secret key the
//! user typed stays on the server inside the session's SDK client and is never sent back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use parking_lot::Mutex;

/// The cookie that carries a sign-in session.
pub const COOKIE: &str = "monotable_console";
/// How long a sign-in lasts.
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);
/// Sessions kept at most; each holds an SDK client (tens of KiB). When full, a new sign-in
/// ends the oldest session.
pub const MAX_SESSIONS: usize = 256;

/// A random token: 244 random bits from two v4 UUIDs, as hex.
pub fn random_token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// Compares two tokens in time independent of where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Signed-in sessions: token → the client built with the user's key pair. At most
/// [`MAX_SESSIONS`], each for at most twelve hours.
#[derive(Default)]
pub struct Sessions(Mutex<Table>);

/// The sessions and the number the next one gets (sign-in order, for ending the oldest).
#[derive(Default)]
struct Table {
    live: HashMap<String, Session>,
    next: u64,
}

struct Session {
    client: Client,
    since: Instant,
    number: u64,
}

impl Sessions {
    /// Starts a session for `client`; returns its token.
    pub fn start(&self, client: Client) -> String {
        let token = random_token();
        let mut table = self.0.lock();
        table.live.retain(|_, s| s.since.elapsed() < SESSION_LIFETIME);
        while table.live.len() >= MAX_SESSIONS {
            let oldest = table.live.iter().min_by_key(|(_, s)| s.number).map(|(t, _)| t.clone());
            match oldest {
                Some(token) => table.live.remove(&token),
                None => break,
            };
        }
        let number = table.next;
        table.next += 1;
        table.live.insert(token.clone(), Session { client, since: Instant::now(), number });
        token
    }

    /// The client of the session named by the request's cookie, if it is still valid.
    pub fn client(&self, headers: &http::HeaderMap) -> Option<Client> {
        let token = cookie(headers)?;
        let table = self.0.lock();
        table
            .live
            .iter()
            .find(|(t, s)| same_token(t, &token) && s.since.elapsed() < SESSION_LIFETIME)
            .map(|(_, s)| s.client.clone())
    }

    /// Ends the session named by the request's cookie.
    pub fn end(&self, headers: &http::HeaderMap) {
        if let Some(token) = cookie(headers) {
            self.0.lock().live.remove(&token);
        }
    }
}

fn cookie(headers: &http::HeaderMap) -> Option<String> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_capped_and_a_new_sign_in_ends_the_oldest() {
        let sessions = Sessions::default();
        let client = || {
            let config = aws_sdk_dynamodb::Config::builder()
                .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
                .build();
            Client::from_conf(config)
        };
        let first = sessions.start(client());
        for _ in 0..MAX_SESSIONS {
            sessions.start(client());
        }
        let table = sessions.0.lock();
        assert_eq!(table.live.len(), MAX_SESSIONS);
        assert!(!table.live.contains_key(&first), "the oldest session was ended");
    }

    #[test]
    fn tokens_are_long_random_and_compared_exactly() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(same_token(&a, &a.clone()));
        assert!(!same_token(&a, &b));
        assert!(!same_token(&a, &a[..63]));
    }
}
