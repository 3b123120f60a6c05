//! The protocol: one request (head + complete body) in, one response out, synchronously.
//!
//! Both the TCP server and the in-process SDK connector (`monotable-embedded`) call
//! [`Service::handle`], so they behave identically. Checks run in DynamoDB's order, after
//! monotable's own refusal of web pages when signatures are not verified (`browsers`), except
//! that a compressed body's signature, when verified, is checked before it is inflated: body
//! size, CORS preflight, method and content type, content coding, JSON syntax, `X-Amz-Target`, authentication, empty body,
//! member types, then the engine's own validation.

use std::panic::AssertUnwindSafe;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::{Method, Response, StatusCode};
use monotable_engine::Engine;

use crate::locations::{Engines, OpenEngine};

use crate::auth::Auth;
use crate::browsers::Browsers;
use crate::cors;
use crate::decode::{check_encoding, check_json};
use crate::encoding;
use crate::endpoints;
use crate::headers::{text, RequestHeaders};
use crate::limits::Limits;
use crate::operation::Operation;
use crate::response::{error_response, new_request_id, respond, JSON_1_0, PLAIN_JSON};
use crate::ServerError;

/// The largest request body DynamoDB accepts (16 MiB); larger bodies get a bare 413.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// The body `GET /` answers with (DynamoDB answers its health check with `healthy: <host>`).
pub const HEALTH_BODY: &str = "healthy: monotable";

/// Engines behind DynamoDB's JSON 1.0 protocol. Cheap to clone; clones share the engines.
#[derive(Clone)]
pub struct Service {
    engines: Engines,
    auth: Auth,
    /// Consulted only under [`Auth::AcceptAny`].
    browsers: Browsers,
    /// The transport's limits (`limits`), when not the defaults (which read the machine's
    /// memory and descriptor limit, so only a transport computes them).
    limits: Option<Limits>,
}

impl Service {
    /// Serves `engine` to every request, whatever region and account it was signed for (as
    /// DynamoDB Local's `-sharedDb` does), with the default authentication
    /// ([`Auth::AcceptAny`]).
    pub fn new(engine: Engine) -> Service {
        Service {
            engines: Engines::Shared(engine),
            auth: Auth::default(),
            browsers: Browsers::default(),
            limits: None,
        }
    }

    /// Serves each account's regions from engines of their own, as DynamoDB keeps them:
    /// `home` answers requests signed for its [`Engine::location`], and `open` is called the
    /// first time a request is signed for another location, to create its engine (at most
    /// [`crate::MAX_LOCATIONS`] are open at once; past that a new location is refused with
    /// `LimitExceededException`).
    pub fn per_location(
        home: Engine,
        open: impl Fn(&monotable_engine::Location) -> Result<Engine, String> + Send + Sync + 'static,
    ) -> Service {
        let open: Box<OpenEngine> = Box::new(open);
        Service {
            engines: Engines::per_location(home, open),
            auth: Auth::default(),
            browsers: Browsers::default(),
            limits: None,
        }
    }

    /// Replaces the authentication mode.
    pub fn with_auth(mut self, auth: Auth) -> Service {
        self.auth = auth;
        self
    }

    /// Web origins answered under [`Auth::AcceptAny`] besides the loopback ones, each as a
    /// browser sends it in `Origin` (`https://app.example:3000`): the pages of a browser app
    /// under development that calls DynamoDB directly. Any other origin is refused with 403
    /// (see `browsers`); under [`Auth::Verify`] every origin is answered, as DynamoDB does.
    pub fn with_allowed_origins(mut self, origins: impl IntoIterator<Item = String>) -> Service {
        self.browsers = self.browsers.with_allowed(origins);
        self
    }

    /// Replaces the transport's limits: the budget of buffered request bytes, the minimum
    /// rate of a body, the cap on connections ([`Limits`], whose defaults never bother an SDK
    /// client). Read when [`crate::serve`] starts.
    pub fn with_limits(mut self, limits: Limits) -> Service {
        self.limits = Some(limits);
        self
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits.clone().unwrap_or_default()
    }

    /// Set by the transport: whether it listens on a loopback address, where a `Host` that is
    /// not a loopback name betrays DNS rebinding.
    pub(crate) fn listening_on_loopback(mut self, loopback: bool) -> Service {
        self.browsers = self.browsers.checking_host(loopback);
        self
    }

    /// The engine of the service's own location: under [`Service::new`] the only one, under
    /// [`Service::per_location`] the home engine.
    pub fn engine(&self) -> &Engine {
        self.engines.home()
    }

    /// Handles one complete request. Never panics on request content; every failure becomes
    /// DynamoDB's error response.
    pub fn handle(&self, parts: &http::request::Parts, body: &[u8]) -> Response<Bytes> {
        self.handle_with_headers(parts, &RequestHeaders::read(&parts.headers), body)
    }

    /// [`Service::handle`] for a caller that has already read the headers (the transport
    /// routes on them), so that the header map is walked once per request.
    pub(crate) fn handle_with_headers(
        &self,
        parts: &http::request::Parts,
        headers: &RequestHeaders<'_>,
        body: &[u8],
    ) -> Response<Bytes> {
        // The clock is read only for the request log, so only when that log is on.
        let started =
            tracing::enabled!(target: "monotable_server::request", tracing::Level::DEBUG).then(Instant::now);
        let request_id = new_request_id();
        if let Auth::AcceptAny = self.auth {
            if let Err(error) = self.browsers.check(headers) {
                // The page's script may read the refusal, which says how to allow it.
                let mut response = error_response(&error, JSON_1_0, &request_id);
                cors::allow_origin(headers, &mut response);
                return response;
            }
        }
        if let Some(response) = cors::preflight(parts, headers, &request_id) {
            return response;
        }
        let media_type = media_type(headers);
        let content_type = response_content_type(parts, media_type);
        let (operation, result) = self.process(parts, headers, media_type, body);
        let (mut response, error) = match result {
            Ok(response) => (respond(StatusCode::OK, response, Some(content_type), &request_id), None),
            Err(error) => (error_response(&error, content_type, &request_id), Some(error.type_name())),
        };
        if let Some(coding) = encoding::accepted(headers) {
            encoding::compress(&mut response, coding);
        }
        cors::allow_origin(headers, &mut response);
        if monotable_engine::budget_exceeded() {
            // An optimistic attempt that went past its budget: the transport discards this
            // response and runs the request again, which is logged then.
            return response;
        }
        tracing::debug!(
            target: "monotable_server::request",
            request_id = %request_id,
            method = %parts.method,
            operation = %operation.map(Operation::name).unwrap_or("-"),
            status = response.status().as_u16(),
            error = %error.unwrap_or("-"),
            request_bytes = body.len(),
            response_bytes = response.body().len(),
            micros = started.map_or(0, |t| t.elapsed().as_micros() as u64),
            "request"
        );
        response
    }

    fn process(
        &self,
        parts: &http::request::Parts,
        headers: &RequestHeaders<'_>,
        media_type: Option<&str>,
        body: &[u8],
    ) -> (Option<Operation>, Result<Bytes, ServerError>) {
        if body.len() > MAX_REQUEST_BYTES {
            return (None, Err(ServerError::RequestTooLarge));
        }
        if parts.method == Method::GET && parts.uri.path() == "/" {
            return (None, Ok(Bytes::from_static(HEALTH_BODY.as_bytes())));
        }
        if parts.method != Method::POST || (!body.is_empty() && !is_json_content_type(media_type)) {
            return (None, Err(ServerError::NotFound));
        }
        // A compressed body is signed as sent and parsed as decoded. When signatures are
        // verified, a compressed body's is checked first, over the bytes as sent (SigV4 signs
        // the body as sent), so that nothing is inflated for a client that cannot sign: a
        // decompression bomb without a valid signature costs one hash of its compressed bytes.
        // DynamoDB's order (JSON syntax before the signature) cannot be kept for a body whose
        // syntax is unknown until it is inflated.
        let signed = body;
        let verified_first = match (&self.auth, headers.content_encoding) {
            (Auth::Verify(_), Some(_)) => match self.auth.check(parts, headers, signed, unix_now) {
                Ok(caller) => Some(caller),
                Err(e) => return (None, Err(e)),
            },
            _ => None,
        };
        let decoded = match encoding::decode_request(headers, body) {
            Ok(decoded) => decoded,
            Err(e) => return (None, Err(e)),
        };
        let body: &[u8] = &decoded;
        // JSON syntax is checked before the target and the signature, as DynamoDB does. A
        // body that opens an object is checked cheaply here (UTF-8, nesting) and fully by its
        // typed decode; only when something fails is the whole-document check run, so that
        // the error is the one the check-first order gives.
        let deferred_syntax = !body.is_empty() && body.trim_ascii_start().first() == Some(&b'{');
        let checked = match body.is_empty() {
            true => Ok(""),
            false if deferred_syntax => check_encoding(body),
            false => check_json(body),
        };
        let text = match checked {
            Ok(text) => text,
            Err(e) => return (None, Err(e)),
        };
        let syntax_first = |error: ServerError| match deferred_syntax {
            true => check_json(body).err().unwrap_or(error),
            false => error,
        };
        let operation = match Operation::from_target(headers.target()) {
            Ok(op) => op,
            Err(e) => return (None, Err(syntax_first(e))),
        };
        let checked = verified_first.map_or_else(|| self.auth.check(parts, headers, signed, unix_now), Ok);
        let caller = match checked {
            Ok(caller) => caller,
            Err(e) => return (Some(operation), Err(syntax_first(e))),
        };
        if body.is_empty() {
            return (Some(operation), Err(ServerError::Serialization(None)));
        }
        let engine = match self.engines.for_caller(caller) {
            Ok(engine) => engine,
            Err(e) => return (Some(operation), Err(e)),
        };
        // A panic in an operation is a bug; it becomes a 500 for this request instead of
        // taking down the connection (or, in process, the caller's task).
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| operation.call(&engine, text)))
            .unwrap_or_else(|_| {
                Err(ServerError::Internal("The server encountered an internal error.".into()))
            });
        let result = match operation {
            Operation::DescribeEndpoints => result.map(|output| endpoints::with_request_host(parts, output)),
            _ => result,
        };
        (Some(operation), result.map(Bytes::from))
    }
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("auth", &self.auth)
            .field("browsers", &self.browsers)
            .finish_non_exhaustive()
    }
}

/// The health check answers in plain text; everything else in the request's JSON flavour.
fn response_content_type(parts: &http::request::Parts, media_type: Option<&str>) -> &'static str {
    if parts.method == Method::GET {
        "text/plain; charset=utf-8"
    } else if media_type == Some(PLAIN_JSON) {
        PLAIN_JSON
    } else {
        JSON_1_0
    }
}

fn media_type<'a>(headers: &RequestHeaders<'a>) -> Option<&'a str> {
    let value = text(headers.content_type)?;
    Some(value.split(';').next().unwrap_or("").trim())
}

fn is_json_content_type(media_type: Option<&str>) -> bool {
    matches!(media_type, Some(t) if t.eq_ignore_ascii_case(JSON_1_0) || t.eq_ignore_ascii_case(PLAIN_JSON))
}

fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}
