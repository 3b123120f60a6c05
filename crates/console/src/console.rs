//! The console's HTTP surface: routing, security checks and headers.
//!
//! Order of checks for every request: the `Host` header (a loopback-only console answers only
//! to loopback host names, which defeats DNS rebinding), then the route. API calls are `POST`
//! with a JSON body and must carry the CSRF token; an `Origin` header, when sent, must be the
//! console's own. In login mode every call except `session` and `login` needs a signed-in
//! session. Every response forbids framing, sniffing and any script or style not served
//! here (`Content-Security-Policy`), so even a value that slipped into markup could not run.

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use bytes::Bytes;
use http::{header, HeaderValue, Method, Response, StatusCode};
use monotable_design::Design;
use serde_json::{json, Value};

use crate::api::{dispatch, Ctx};
use crate::assets::{asset, INDEX};
use crate::cursor::CursorKey;
use crate::error::ApiError;
use crate::session::{random_token, same_token, Sessions, COOKIE};
use crate::throttle::SignInThrottle;

/// Where the console lives on a server.
pub const PREFIX: &str = "/console";
/// The header that carries the CSRF token.
const CSRF_HEADER: &str = "x-console-csrf";
/// The largest API request body the console reads.
const MAX_BODY: usize = 16 * 1024 * 1024;

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Builds an SDK client from an access key id and secret (login mode).
pub type LoginClient = Arc<dyn Fn(&str, &str) -> Client + Send + Sync>;

/// How the console reaches the endpoint.
#[derive(Clone)]
#[non_exhaustive]
pub enum Access {
    /// One client for every visitor (its credentials come from the process: the standard AWS
    /// chain, or none needed).
    Open(Client),
    /// Visitors sign in with an access key id and secret; the console builds their client
    /// and checks the pair with a `ListTables` call, so the endpoint itself decides.
    Login(LoginClient),
}

/// What the console may do and show.
#[derive(Clone, Default)]
pub struct Options {
    /// Whether writes (items, tables, imports) are allowed.
    pub writable: bool,
    /// A design document for the single-table views.
    pub design: Option<Design>,
    /// Answer only requests addressed to a loopback host name.
    pub loopback_only: bool,
    /// A label for the endpoint, shown on the page (never a secret).
    pub label: String,
}

/// The web console. Cheap to clone; clones share sessions and keys.
#[derive(Clone)]
pub struct Console(Arc<Inner>);

struct Inner {
    access: Access,
    options: Options,
    csrf: String,
    cursors: CursorKey,
    sessions: Sessions,
    sign_ins: SignInThrottle,
}

impl Console {
    /// A console reaching its endpoint through `access`.
    pub fn new(access: Access, options: Options) -> Console {
        Console(Arc::new(Inner {
            access,
            options,
            csrf: random_token(),
            cursors: CursorKey::random(),
            sessions: Sessions::default(),
            sign_ins: SignInThrottle::default(),
        }))
    }

    /// Handles one request whose path starts with [`PREFIX`].
    pub async fn handle(&self, parts: http::request::Parts, body: Bytes) -> Response<Bytes> {
        let mut response = self.route(&parts, body).await;
        let headers = response.headers_mut();
        headers.insert("content-security-policy", HeaderValue::from_static(CSP));
        headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
        headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
        headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }

    /// [`Console::handle`] on tokio's blocking pool, for a console mounted on a server whose
    /// workers answer SDK requests (`monotable serve`). The console reaches an in-process
    /// engine through the embedded SDK client, which runs each engine call where it is polled:
    /// a Scan page or a DeleteTable can take milliseconds, and on a worker it would hold up
    /// every connection that worker serves, which the protocol avoids by sending its own long
    /// requests to the same pool. Must be called inside a tokio runtime; a console that panics
    /// answers 500.
    pub async fn handle_off_worker(&self, parts: http::request::Parts, body: Bytes) -> Response<Bytes> {
        let console = self.clone();
        let runtime = tokio::runtime::Handle::current();
        match tokio::task::spawn_blocking(move || runtime.block_on(console.handle(parts, body))).await {
            Ok(response) => response,
            Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "The console failed to answer this request."),
        }
    }

    async fn route(&self, parts: &http::request::Parts, body: Bytes) -> Response<Bytes> {
        if self.0.options.loopback_only && !host_is_loopback(parts) {
            return plain(StatusCode::FORBIDDEN, "The console answers only on a loopback address.");
        }
        let path = parts.uri.path();
        let Some(rest) = path.strip_prefix(PREFIX) else {
            return plain(StatusCode::NOT_FOUND, "Not found.");
        };
        match (&parts.method, rest) {
            (&Method::GET, "") => {
                let mut response = plain(StatusCode::PERMANENT_REDIRECT, "");
                response.headers_mut().insert(header::LOCATION, HeaderValue::from_static("/console/"));
                response
            }
            (&Method::GET, "/") => {
                let page = INDEX.replace("{{CSRF}}", &self.0.csrf);
                typed(StatusCode::OK, "text/html; charset=utf-8", Bytes::from(page))
            }
            (&Method::GET, _) if rest.starts_with("/assets/") => match asset(&rest["/assets/".len()..]) {
                Some((ty, body)) => typed(StatusCode::OK, ty, Bytes::from_static(body.as_bytes())),
                None => plain(StatusCode::NOT_FOUND, "Not found."),
            },
            (&Method::POST, _) if rest.starts_with("/api/") => {
                let name = &rest["/api/".len()..];
                match self.api(parts, name, &body).await {
                    Ok(response) => response,
                    Err(error) => api_json(error.status(), &error.to_json()),
                }
            }
            _ => plain(StatusCode::NOT_FOUND, "Not found."),
        }
    }

    async fn api(
        &self,
        parts: &http::request::Parts,
        name: &str,
        body: &[u8],
    ) -> Result<Response<Bytes>, ApiError> {
        let token = parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !same_token(token, &self.0.csrf) {
            return Err(ApiError::Forbidden("Missing or wrong CSRF token; reload the page.".into()));
        }
        if !same_origin(parts) {
            return Err(ApiError::Forbidden("Cross-origin requests are refused.".into()));
        }
        if body.len() > MAX_BODY {
            return Err(ApiError::bad("The request is too large."));
        }
        let input: Value = if body.is_empty() {
            json!({})
        } else {
            serde_json::from_slice(body)
                .map_err(|e| ApiError::bad(format!("The request is not JSON: {e}")))?
        };
        let options = &self.0.options;
        let client = match (&self.0.access, name) {
            (Access::Open(client), _) => Some(client.clone()),
            (Access::Login(_), _) => self.0.sessions.client(&parts.headers),
        };
        match name {
            "session" => {
                return Ok(api_json(
                    StatusCode::OK,
                    &json!({
                        "writable": options.writable,
                        "login": matches!(self.0.access, Access::Login(_)),
                        "signedIn": client.is_some(),
                        "label": options.label,
                        "design": options.design.as_ref().map(|d| format!("{}/{}", d.app, d.model)),
                    }),
                ))
            }
            "login" => return self.login(parts, &input).await,
            "logout" => {
                self.0.sessions.end(&parts.headers);
                let mut response = api_json(StatusCode::OK, &json!({}));
                response.headers_mut().insert(
                    header::SET_COOKIE,
                    HeaderValue::from_static(
                        "monotable_console=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0",
                    ),
                );
                return Ok(response);
            }
            _ => {}
        }
        let client = client.ok_or_else(|| ApiError::Forbidden("Sign in first.".into()))?;
        let ctx = Ctx {
            client: &client,
            writable: options.writable,
            design: options.design.as_ref(),
            cursors: &self.0.cursors,
        };
        let output = dispatch(name, &ctx, &input).await?;
        Ok(api_json(StatusCode::OK, &output))
    }

    async fn login(&self, parts: &http::request::Parts, input: &Value) -> Result<Response<Bytes>, ApiError> {
        let Access::Login(build) = &self.0.access else {
            return Err(ApiError::bad("This console needs no sign-in."));
        };
        let peer = parts.extensions.get::<std::net::SocketAddr>().map(|a| a.ip());
        if let Err(wait) = self.0.sign_ins.attempt(peer, std::time::Instant::now()) {
            return Err(ApiError::TooManyRequests(format!(
                "Too many sign-in attempts; try again in {} seconds.",
                wait.as_secs().max(1)
            )));
        }
        let id = input.get("accessKeyId").and_then(Value::as_str).unwrap_or("");
        let secret = input.get("secretAccessKey").and_then(Value::as_str).unwrap_or("");
        if id.is_empty() || secret.is_empty() {
            return Err(ApiError::bad("Enter an access key id and a secret access key."));
        }
        let client = build(id, secret);
        // The endpoint verifies the signature: the same check an SDK call gets.
        client.list_tables().limit(1).send().await.map_err(|e| match ApiError::from(e) {
            ApiError::Endpoint { code, .. } if rejects_key(&code) => {
                ApiError::Unauthorized("The endpoint does not accept this access key id and secret.".into())
            }
            other => other,
        })?;
        let token = self.0.sessions.start(client);
        let cookie = format!("{COOKIE}={token}; Path=/console; HttpOnly; SameSite=Strict");
        let mut response = api_json(StatusCode::OK, &json!({ "signedIn": true }));
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        Ok(response)
    }
}

/// Whether an endpoint's error code says the key pair itself is wrong (unknown key id, bad
/// signature), as opposed to the endpoint failing.
fn rejects_key(code: &str) -> bool {
    matches!(
        code,
        "UnrecognizedClientException"
            | "InvalidSignatureException"
            | "MissingAuthenticationTokenException"
            | "IncompleteSignatureException"
            | "AccessDeniedException"
    )
}

/// Whether the `Host` header names a loopback address (`localhost`, `127.x.y.z`, `[::1]`).
fn host_is_loopback(parts: &http::request::Parts) -> bool {
    let Some(host) = parts.headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// True unless the request has an `Origin` other than `http://<Host>`.
fn same_origin(parts: &http::request::Parts) -> bool {
    let Some(origin) = parts.headers.get(header::ORIGIN) else {
        return true;
    };
    let host = parts.headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    origin.to_str().is_ok_and(|o| o == format!("http://{host}") || o == format!("https://{host}"))
}

fn typed(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Bytes> {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<Bytes> {
    typed(status, "text/plain; charset=utf-8", Bytes::from_static(text.as_bytes()))
}

fn api_json(status: StatusCode, value: &Value) -> Response<Bytes> {
    typed(status, "application/json", Bytes::from(value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(host: &str, origin: Option<&str>) -> http::request::Parts {
        let mut builder = http::Request::builder().uri("/console/").header("host", host);
        if let Some(origin) = origin {
            builder = builder.header("origin", origin);
        }
        builder.body(()).unwrap().into_parts().0
    }

    #[test]
    fn only_loopback_host_names_pass_the_host_check() {
        for host in ["127.0.0.1:8000", "localhost:1", "[::1]:8000", "127.1.2.3", "LOCALHOST"] {
            assert!(host_is_loopback(&parts(host, None)), "{host}");
        }
        for host in ["evil.example:8000", "10.0.0.1:8000", "localhost.evil.example", "[::2]:1"] {
            assert!(!host_is_loopback(&parts(host, None)), "{host}");
        }
    }

    #[test]
    fn a_foreign_origin_is_refused() {
        assert!(same_origin(&parts("127.0.0.1:8000", None)));
        assert!(same_origin(&parts("127.0.0.1:8000", Some("http://127.0.0.1:8000"))));
        assert!(!same_origin(&parts("127.0.0.1:8000", Some("http://evil.example"))));
    }
}
