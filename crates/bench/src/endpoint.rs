//! Parsing `--endpoint` and refusing anything that is not on this machine.

use std::net::{SocketAddr, ToSocketAddrs};

use crate::BenchError;

/// A resolved `http://host:port` endpoint on the loopback interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URL as given.
    pub url: String,
    /// The address connections go to.
    pub addr: SocketAddr,
    /// The `Host` header value (and the signed host): `host:port` as written in the URL.
    pub host: String,
}

impl Endpoint {
    /// Parses `http://host[:port][/]`, resolves the host and checks that every address it
    /// resolves to is a loopback address.
    ///
    /// Only plain HTTP is supported: the load generator targets local servers, where TLS would
    /// measure the cipher rather than the database.
    pub fn parse(url: &str) -> Result<Self, BenchError> {
        let invalid =
            |reason: &str| BenchError::InvalidEndpoint { url: url.to_owned(), reason: reason.to_owned() };
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| invalid("only http:// URLs are supported (https is not)"))?;
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
            return Err(invalid("expected http://host:port with no path, query or user"));
        }
        let has_port = match authority.rfind(':') {
            Some(i) => !authority.ends_with(']') && authority.get(i + 1..).is_some_and(|p| !p.is_empty()),
            None => false,
        };
        let with_port = if has_port { authority.to_owned() } else { format!("{authority}:80") };
        let mut addrs = with_port
            .to_socket_addrs()
            .map_err(|e| invalid(&format!("cannot resolve host: {e}")))?
            .collect::<Vec<_>>();
        if let Some(bad) = addrs.iter().find(|a| !a.ip().is_loopback()) {
            return Err(BenchError::NotLoopback { url: url.to_owned(), addr: bad.ip() });
        }
        // Prefer IPv4: `localhost` often resolves to ::1 first while servers listen on 127.0.0.1.
        addrs.sort_by_key(|a| !a.is_ipv4());
        let addr = *addrs.first().ok_or_else(|| invalid("host resolves to no address"))?;
        Ok(Self { url: url.to_owned(), addr, host: authority.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_ip_endpoint_parses_with_host_as_written() {
        let e = Endpoint::parse("http://127.0.0.1:8000/").unwrap();
        assert_eq!(e.addr, "127.0.0.1:8000".parse().unwrap());
        assert_eq!(e.host, "127.0.0.1:8000");
    }

    #[test]
    fn localhost_resolves_to_a_loopback_address() {
        let e = Endpoint::parse("http://localhost:8123").unwrap();
        assert!(e.addr.ip().is_loopback());
        assert_eq!(e.addr.port(), 8123);
    }

    #[test]
    fn missing_port_defaults_to_80() {
        assert_eq!(Endpoint::parse("http://127.0.0.1").unwrap().addr.port(), 80);
    }

    #[test]
    fn ipv6_loopback_is_accepted() {
        let e = Endpoint::parse("http://[::1]:9000").unwrap();
        assert_eq!(e.addr, "[::1]:9000".parse().unwrap());
    }

    #[test]
    fn non_loopback_address_is_refused() {
        let err = Endpoint::parse("http://10.1.2.3:8000").unwrap_err();
        assert!(matches!(err, BenchError::NotLoopback { .. }), "{err}");
    }

    #[test]
    fn https_and_paths_are_refused_with_a_reason() {
        assert!(matches!(Endpoint::parse("https://127.0.0.1:8000"), Err(BenchError::InvalidEndpoint { .. })));
        assert!(matches!(
            Endpoint::parse("http://127.0.0.1:8000/x"),
            Err(BenchError::InvalidEndpoint { .. })
        ));
        assert!(matches!(Endpoint::parse("http://"), Err(BenchError::InvalidEndpoint { .. })));
    }
}
