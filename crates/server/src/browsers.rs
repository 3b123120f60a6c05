//! Browsers kept out of an endpoint that does not authenticate.
//!
//! Under [`Auth::AcceptAny`](crate::Auth::AcceptAny) anyone who can reach the port can read
//! and write every table, and a web page can reach a developer's local port: directly, with a
//! cross-origin `fetch` (CORS lets a page send a simple request and, with a preflight, any
//! request), or by DNS rebinding (a name the page's site controls is re-pointed at
//! 127.0.0.1, so the browser sends the page's requests to the local port as same-origin ones,
//! with the attacker's name in `Host`). DynamoDB Local answers both; monotable refuses them:
//!
//! * a request or preflight with an `Origin` that is not a loopback origin (`http://` or
//!   `https://` with `localhost`, an address in 127.0.0.0/8 or `[::1]`, any port) nor one
//!   allowed with [`Service::with_allowed_origins`](crate::Service::with_allowed_origins)
//!   (`serve --allow-origin`);
//! * while the server listens on a loopback address, a request whose `Host` is not a loopback
//!   name or address. A request with no `Host` (HTTP/1.0) passes: a browser always sends one.
//!
//! Either is answered 403 `AccessDeniedException`, with a message that names the flag that
//! allows it. SDKs, the aws CLI and boto3 send no `Origin` and name the endpoint they were
//! given in `Host`, so they never meet this. Under `--auth verify` nothing here applies:
//! signatures protect the data, and CORS answers any origin as DynamoDB's does (`cors`).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use http::HeaderValue;

use crate::headers::RequestHeaders;
use crate::ServerError;

/// Whether `host` names the local machine: `localhost` or a loopback address, written bare
/// (`127.0.0.1`, `::1`), with a port (`localhost:8000`, `127.0.0.1:8000`) or bracketed
/// (`[::1]`, `[::1]:8000`), as a `Host` header or a `--host` argument writes it. Brackets
/// enclose an IPv6 address only (RFC 3986, section 3.2.2).
///
/// Runs on every request of a loopback listener, so the port is split off first and only the
/// address family the text can be is parsed: `127.0.0.1:8000` tried as an `IpAddr` first cost
/// a GetItem about 220 instructions (callgrind, `bench/callgrind.sh`).
pub fn is_loopback_host(host: &str) -> bool {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((name, after)) if after.is_empty() || after.starts_with(':') => {
                name.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
            }
            _ => false,
        };
    }
    let name = match host.split_once(':') {
        // A second colon: a bare IPv6 address, which has no port.
        Some((_, rest)) if rest.contains(':') => {
            return host.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
        }
        Some((name, _port)) => name,
        None => host,
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `origin` (an `Origin` header's value) is a page served from the local machine.
fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, host)) = origin.split_once("://") else { return false };
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    web && !host.contains('/') && is_loopback_host(host)
}

/// Which browsers an unauthenticated service answers (see the module comment).
#[derive(Debug, Clone, Default)]
pub(crate) struct Browsers {
    /// Origins allowed besides the loopback ones, compared as sent (`scheme://host[:port]`).
    allowed: Arc<[String]>,
    /// Set by the transport when it listens on a loopback address: only then is `Host`
    /// checked (on another address clients may name the machine however they reach it).
    check_host: bool,
}

impl Browsers {
    pub(crate) fn with_allowed(self, origins: impl IntoIterator<Item = String>) -> Browsers {
        let allowed = origins.into_iter().map(|o| o.trim_end_matches('/').to_string()).collect();
        Browsers { allowed, ..self }
    }

    pub(crate) fn checking_host(self, check_host: bool) -> Browsers {
        Browsers { check_host, ..self }
    }

    /// `Ok` when a request with these headers may be answered; else the refusal.
    pub(crate) fn check(&self, headers: &RequestHeaders<'_>) -> Result<(), ServerError> {
        if let Some(origin) = headers.origin {
            if !self.origin_allowed(origin) {
                let shown = String::from_utf8_lossy(origin.as_bytes());
                return Err(ServerError::AccessDenied(format!(
                    "monotable serve answers web pages only from loopback origins while it does \
                     not verify signatures; the origin '{shown}' is refused. Start it with \
                     --allow-origin {shown} to allow it, or with --auth verify."
                )));
            }
        }
        if self.check_host {
            if let Some(host) = headers.host {
                if !host.to_str().is_ok_and(is_loopback_host) {
                    let shown = String::from_utf8_lossy(host.as_bytes());
                    return Err(ServerError::AccessDenied(format!(
                        "monotable serve listens on a loopback address and answers only requests \
                         addressed to localhost or a loopback address; the Host '{shown}' is \
                         refused (a web page reaching it by DNS rebinding sends such a Host). \
                         Start it with --auth verify, or with --host set to the address clients \
                         reach it on, to allow it."
                    )));
                }
            }
        }
        Ok(())
    }

    fn origin_allowed(&self, origin: &HeaderValue) -> bool {
        let Ok(origin) = origin.to_str() else { return false };
        is_loopback_origin(origin) || self.allowed.iter().any(|a| a.eq_ignore_ascii_case(origin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_told_from_others() {
        for host in [
            "127.0.0.1:8000",
            "localhost:1",
            "[::1]:8000",
            "[::1]",
            "::1",
            "127.1.2.3",
            "LOCALHOST",
            "localhost",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example:8000",
            "10.0.0.1:8000",
            "localhost.evil.example",
            "[::2]:1",
            "[::1]x",
            "[127.0.0.1]:8000",
            "[localhost]",
            "127.0.0.1:8000:9",
            "::ffff:127.0.0.1",
            "127.0.0.1.evil.example",
            "0.0.0.0",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn loopback_origins_are_told_from_others() {
        for origin in ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:5173", "HTTP://LOCALHOST"]
        {
            assert!(is_loopback_origin(origin), "{origin}");
        }
        for origin in [
            "null",
            "http://evil.example",
            "http://localhost.evil.example",
            "file://localhost",
            "http://localhost/x",
            "http://127.0.0.1@evil.example",
        ] {
            assert!(!is_loopback_origin(origin), "{origin}");
        }
    }
}
