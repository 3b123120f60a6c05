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

/// A random token: 244 random bits from two v4 UUIDs, as hex.
pub fn random_token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// Compares two tokens in time independent of where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Signed-in sessions: token → the client built with the user's key pair.
#[derive(Default)]
pub struct Sessions(Mutex<HashMap<String, (Client, Instant)>>);

impl Sessions {
    /// Starts a session for `client`; returns its token.
    pub fn start(&self, client: Client) -> String {
        let token = random_token();
        let mut sessions = self.0.lock();
        sessions.retain(|_, (_, since)| since.elapsed() < SESSION_LIFETIME);
        sessions.insert(token.clone(), (client, Instant::now()));
        token
    }

    /// The client of the session named by the request's cookie, if it is still valid.
    pub fn client(&self, headers: &http::HeaderMap) -> Option<Client> {
        let token = cookie(headers)?;
        let sessions = self.0.lock();
        sessions
            .iter()
            .find(|(t, (_, since))| same_token(t, &token) && since.elapsed() < SESSION_LIFETIME)
            .map(|(_, (client, _))| client.clone())
    }

    /// Ends the session named by the request's cookie.
    pub fn end(&self, headers: &http::HeaderMap) {
        if let Some(token) = cookie(headers) {
            self.0.lock().remove(&token);
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
    fn tokens_are_long_random_and_compared_exactly() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(same_token(&a, &a.clone()));
        assert!(!same_token(&a, &b));
        assert!(!same_token(&a, &a[..63]));
    }
}
