//! Streamable HTTP (feature `http`): the 2026-07-28 stateless transport and the legacy
//! sessions on one endpoint (`decisions.md`, "Streamable HTTP").
//!
//! [`McpService`] is a `tower::Service` over `http::Request`, to mount in an existing hyper
//! or axum application under any path; [`serve_http`] serves it on a listener with hyper
//! (HTTP/1.1 keep-alive and HTTP/2 without TLS, whichever the client speaks).
//!
//! Each modern POST is one message, read with the codec in place from the body's bytes and
//! served by [`Stateless`]:
//! - an answer that is ready before anything else is sent goes out as `application/json`;
//! - a request whose work sends a notification first (progress, a log record) gets an SSE
//!   stream (`X-Accel-Buffering: no`, keep-alive comments every 15 s) that carries its
//!   notifications and then its answer;
//! - the client closing the response stream cancels the request: its work is dropped and
//!   nothing more is written;
//! - a notification gets `202` and no body.
//!
//! Checked before the body is served: the path (`404`), the method (`405`, `Allow: POST`),
//! `Origin` (present: loopback or an allowed origin, else `403`), `Host` (loopback names
//! only when bound to loopback, else `403`), the body's size (`413`), the routing headers
//! against the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`: `400`
//! with `-32020`).
//!
//! Legacy clients (2025-03-26 to 2025-11-25) get sessions on the same endpoint
//! (`session`): `initialize` mints `Mcp-Session-Id` (`<node-id>.<128 random bits>`), later
//! POSTs name it (`400` without, `404` for an unknown or expired one), `GET` opens its
//! server-to-client stream (one at a time, else `409`), `DELETE` ends it; idle sessions expire
//! (30 minutes by default) and past the cap (10,000) `initialize` gets `503`.
//!
//! A tool argument whose schema property carries `"x-mcp-header": "Name"` must come in an
//! `Mcp-Param-Name` header too, with the same value (integers compared as numbers, the
//! `=?base64?...?=` sentinel decoded), else `400` with `-32020`.
//!
//! Authorization (`auth`): [`AuthLayer`] in front of the endpoint makes it an OAuth 2.1
//! resource server; [`JwtVerifier`] (feature `jwt`) checks JWT access tokens.

pub mod auth;
mod body;
mod ids;
#[cfg(feature = "jwt")]
pub mod jwt;
mod listen;
mod observe;
mod resume;
mod session;

pub use auth::{AuthLayer, AuthService, Principal, ProtectedResource, TokenVerifier};
#[cfg(feature = "jwt")]
pub use jwt::JwtVerifier;
pub use listen::serve_http;
pub use observe::{Era, Observe};
/// The `tower::Layer` trait [`AuthLayer`] implements.
pub use tower_layer;

pub use body::McpBody;
pub use session::{DEFAULT_IDLE, DEFAULT_MAX_SESSIONS};
/// The `tower::Service` trait [`McpService`] implements, for callers without tower.
pub use tower_service;

use crate::api::ctx::{JobId, Notify};
use crate::drivers::stateless::{Pending, Stateless};
use crate::engine::connection::Emitted;
use crate::engine::connection::jobs::JobEnd;
use crate::engine::server::Server;
use body::{
    AbortOnDrop, StreamPermit, Streams, empty, json_response, refuse, sse_event, sse_response,
    status_of, too_many_streams,
};
use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body::Body;
use http_body_util::BodyExt;
use janus_codec::encode;
use janus_codec::{Parsed, Parser, ProtocolVersion};
use observe::Seen;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// The default endpoint path.
pub const DEFAULT_PATH: &str = "/mcp";
/// The default largest request body.
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// How often an open SSE stream gets a keep-alive comment.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The default cap of open streams (`HttpConfig::max_streams`).
pub const DEFAULT_MAX_STREAMS: usize = 10_000;
/// The header-mismatch code of 2026-07-28 (`-32020`).
pub const HEADER_MISMATCH: i32 = -32020;

/// Settings of the HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The endpoint's path.
    pub path: String,
    /// The largest request body, in bytes.
    pub max_body: usize,
    /// Origins allowed besides loopback ones (`https://app.example`), compared exactly.
    pub allow_origins: Vec<String>,
    /// Serve only requests whose `Host` is a loopback name (set when bound to loopback, against
    /// DNS rebinding).
    pub loopback_hosts_only: bool,
    /// The prefix of legacy session ids, for a balancer that routes by it (random when `None`).
    pub node_id: Option<String>,
    /// The most legacy sessions at once (more: `503`).
    pub max_sessions: usize,
    /// How long a legacy session may stay idle before it expires.
    pub session_idle: Duration,
    /// The most requests waiting for asynchronous work plus SSE streams open at once, over
    /// the whole endpoint (more: `503` with `Retry-After`).
    pub max_streams: usize,
    /// Told of each request answered, for metrics (none by default: nothing is measured).
    pub observe: Option<Arc<dyn Observe>>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            path: DEFAULT_PATH.to_owned(),
            max_body: DEFAULT_MAX_BODY,
            allow_origins: Vec::new(),
            loopback_hosts_only: true,
            node_id: None,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle: DEFAULT_IDLE,
            max_streams: DEFAULT_MAX_STREAMS,
            observe: None,
        }
    }
}

/// The MCP endpoint as a `tower::Service` over `http::Request`.
#[derive(Debug, Clone)]
pub struct McpService {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    stateless: Stateless,
    sessions: session::Sessions,
    streams: Arc<Streams>,
    config: HttpConfig,
}

impl McpService {
    /// Serves `server`'s tools with `config`.
    #[must_use]
    pub fn new(server: Arc<Server>, config: HttpConfig) -> Self {
        let node = config.node_id.clone().unwrap_or_else(ids::random_node);
        let streams = Streams::new(config.max_streams);
        Self {
            inner: Arc::new(Inner {
                stateless: Stateless::new(Arc::clone(&server)),
                sessions: session::Sessions::new(
                    server,
                    node,
                    config.max_sessions,
                    config.session_idle,
                    Arc::clone(&streams),
                    config.observe.clone(),
                ),
                streams,
                config,
            }),
        }
    }
}

/// What an endpoint holds open now ([`McpService::stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpStats {
    /// Legacy sessions alive.
    pub sessions: usize,
    /// Requests waiting for asynchronous work plus SSE streams open.
    pub streams: usize,
}

impl McpService {
    /// What the endpoint holds open now (read when metrics are scraped: nothing is counted
    /// on the path of a request for it).
    #[must_use]
    pub fn stats(&self) -> HttpStats {
        HttpStats {
            sessions: self.inner.sessions.len(),
            streams: self.inner.streams.open(),
        }
    }
}

impl<B> tower_service::Service<Request<B>> for McpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(inner.handle(req).await) })
    }
}

/// True for `localhost`, `127.x.y.z`, `[::1]` and their ports.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, p)| {
            if p.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                host
            }
        }),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The names of the headers the endpoint reads, parsed once (a name given as text is parsed
/// again at every lookup).
mod names {
    use http::HeaderName;
    pub(super) const MCP_PROTOCOL_VERSION: HeaderName =
        HeaderName::from_static("mcp-protocol-version");
    pub(super) const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
    pub(super) const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
    pub(super) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
    pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
}

/// The one value of header `name`: `Err` when it is there more than once or is not text.
fn one_header(
    headers: &HeaderMap,
    name: impl http::header::AsHeaderName,
) -> Result<Option<&str>, ()> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(());
    }
    first.map(|v| v.to_str().map_err(|_| ())).transpose()
}

/// Checks the routing headers against the body (`streamable-http.mdx`): `None` when they
/// agree, else the reason for a `-32020`.
fn header_mismatch(headers: &HeaderMap, msg: &janus_codec::Message<'_>) -> Option<String> {
    let get = |name: http::HeaderName| {
        one_header(headers, &name)
            .map_err(|()| format!("{name} is given more than once, or is not text"))
    };
    let version = msg.envelope().protocol_version.and_then(|v| v.as_string());
    match get(names::MCP_PROTOCOL_VERSION) {
        Err(e) => return Some(e),
        Ok(None) => return Some("the MCP-Protocol-Version header is missing".into()),
        Ok(Some(h)) if Some(h) != version.as_deref() => {
            return Some(
                "the MCP-Protocol-Version header differs from the body's protocolVersion".into(),
            );
        }
        Ok(Some(_)) => {}
    }
    match get(names::MCP_METHOD) {
        Err(e) => return Some(e),
        Ok(None) => return Some("the Mcp-Method header is missing".into()),
        Ok(Some(m)) if m != msg.method() => {
            return Some("the Mcp-Method header differs from the body's method".into());
        }
        Ok(Some(_)) => {}
    }
    let named = match msg.method() {
        "tools/call" | "prompts/get" => msg.param("name"),
        "resources/read" => msg.param("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => msg.param("taskId"),
        _ => None,
    };
    let name = named.and_then(|n| n.as_string());
    // NB. A name or URI that is not plain header text (non-ASCII, leading or trailing white
    // space, control characters, or text that looks like the sentinel) comes Base64-encoded,
    // as for `Mcp-Param-*`: the decoded text is what is compared.
    match (get(names::MCP_NAME), name) {
        (Err(e), _) => Some(e),
        (Ok(None), Some(_)) => Some("the Mcp-Name header is missing".into()),
        (Ok(Some(h)), Some(n)) if decode_header_value(h).as_deref() != Some(&*n) => {
            Some("the Mcp-Name header differs from the body".into())
        }
        _ => None,
    }
}

/// A header's value as the text it stands for: the value itself, or the UTF-8 text of the
/// Base64 sentinel `=?base64?<base64 of the UTF-8 text>?=` (`None` when the sentinel does not
/// decode to UTF-8 text).
fn decode_header_value(v: &str) -> Option<std::borrow::Cow<'_, str>> {
    use base64::Engine as _;
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok().map(std::borrow::Cow::Owned)
        }
        None => Some(std::borrow::Cow::Borrowed(v)),
    }
}

/// True when a header's value stands for the body's value: the same string, the same number
/// (integers compared as numbers), the same boolean.
fn param_matches(header: &str, body: janus_codec::RawJson<'_>) -> bool {
    let Some(text) = decode_header_value(header) else {
        return false;
    };
    if let Some(s) = body.as_string() {
        return *s == *text;
    }
    match body.as_str() {
        b @ ("true" | "false") => b == text,
        n => match (n.parse::<i64>(), text.parse::<i64>()) {
            (Ok(a), Ok(b)) => a == b,
            _ => matches!((n.parse::<f64>(), text.parse::<f64>()), (Ok(a), Ok(b)) if a == b),
        },
    }
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments: each argument
/// the tool's schema marks (`x-mcp-header`) is in both or in neither, with the same value.
fn param_mismatch(
    headers: &HeaderMap,
    server: &Server,
    msg: &janus_codec::Message<'_>,
) -> Option<String> {
    if msg.method() != "tools/call" {
        return None;
    }
    let name = msg.param("name").and_then(|n| n.as_string())?;
    let args = msg.param("arguments");
    for (arg, header) in &server.param_headers(&name) {
        let h = match one_header(headers, format!("mcp-param-{header}")) {
            Ok(h) => h,
            Err(()) => {
                return Some(format!(
                    "Mcp-Param-{header} is given more than once, or is not text"
                ));
            }
        };
        match (h, args.and_then(|a| a.get(arg))) {
            (None, None) => {}
            (Some(h), Some(v)) if param_matches(h, v) => {}
            (None, Some(_)) => return Some(format!("the Mcp-Param-{header} header is missing")),
            (Some(_), None) => {
                return Some(format!(
                    "Mcp-Param-{header} names an argument the body lacks"
                ));
            }
            (Some(_), Some(_)) => {
                return Some(format!(
                    "the Mcp-Param-{header} header differs from the body"
                ));
            }
        }
    }
    None
}

/// A request's notification channel: its sender, and its receiver until the transport takes
/// it.
type EventChannel = (
    mpsc::Sender<Bytes>,
    std::sync::Mutex<Option<mpsc::Receiver<Bytes>>>,
);

/// The driver's [`Notify`] for one request: its notifications, as SSE events. The channel is
/// made when the first notification comes or the transport asks for its receiver: a request
/// answered at once (most) makes none.
#[derive(Default)]
struct Events {
    chan: std::sync::OnceLock<EventChannel>,
}

impl Events {
    fn chan(&self) -> &EventChannel {
        self.chan.get_or_init(|| {
            let (tx, rx) = mpsc::channel(crate::drivers::serve::MAX_PENDING_NOTES);
            (tx, std::sync::Mutex::new(Some(rx)))
        })
    }

    /// The receiving end (once): the stream ends when the request's work lets go of this.
    fn receiver(&self) -> Option<mpsc::Receiver<Bytes>> {
        self.chan()
            .1
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

impl Notify for Events {
    fn notify(&self, _: JobId, line: Bytes) {
        // A full stream (a client that reads too slowly) drops progress and logs.
        let _ = self.chan().0.try_send(sse_event(&line));
    }
}

/// What a request's `Accept` header lets the answer be: JSON, an SSE stream. No header
/// accepts both (RFC 9110); a media range with `q=0` accepts nothing.
fn accepted(headers: &HeaderMap) -> (bool, bool) {
    let mut any = false;
    let (mut json, mut sse) = (false, false);
    for v in headers.get_all(header::ACCEPT) {
        any = true;
        let Ok(v) = v.to_str() else { continue };
        for range in v.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .or_else(|| p.strip_prefix("Q="))
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            match media.as_str() {
                "*/*" => (json, sse) = (true, true),
                "application/*" | "application/json" => json = true,
                "text/*" | "text/event-stream" => sse = true,
                _ => {}
            }
        }
    }
    if any { (json, sse) } else { (true, true) }
}

/// `406`: the client's `Accept` excludes every type the answer could have.
fn not_acceptable(what: &str) -> Response<McpBody> {
    refuse(
        StatusCode::NOT_ACCEPTABLE,
        janus_codec::INVALID_REQUEST,
        &format!("Not Acceptable: the Accept header must allow {what}"),
    )
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Inner {
    async fn handle<B>(&self, req: Request<B>) -> Response<McpBody>
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if req.uri().path() != self.config.path {
            return empty(StatusCode::NOT_FOUND);
        }
        if let Some(r) = self.check_origin_and_host(req.headers()) {
            return r;
        }
        let session_id = one_header(req.headers(), &names::MCP_SESSION_ID)
            .ok()
            .flatten()
            .map(str::to_owned);
        let (json, sse) = accepted(req.headers());
        match (req.method(), &session_id) {
            (&Method::GET, Some(_)) if !sse => return not_acceptable("text/event-stream"),
            (&Method::POST, _) if !json && !sse => {
                return not_acceptable("application/json and text/event-stream");
            }
            (&Method::GET, Some(id)) => {
                let last = req
                    .headers()
                    .get(&names::LAST_EVENT_ID)
                    .and_then(|v| v.to_str().ok())
                    .filter(|v| !v.trim().is_empty());
                return self.sessions.stream(id, last, now_ms());
            }
            (&Method::DELETE, Some(id)) => return self.sessions.delete(id),
            _ => {}
        }
        if req.method() != Method::POST {
            let mut r = refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                janus_codec::INVALID_REQUEST,
                "Method not allowed: this endpoint takes POST",
            );
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            return r;
        }
        let (parts, body) = req.into_parts();
        let principal = parts.extensions.get::<Principal>().cloned().map(Arc::new);
        let too_big = || {
            refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                janus_codec::INVALID_REQUEST,
                "Request body too large",
            )
        };
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > self.config.max_body) {
            return too_big();
        }
        let body = match http_body_util::Limited::new(body, self.config.max_body)
            .collect()
            .await
        {
            Ok(b) => b.to_bytes(),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => return too_big(),
            Err(_) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    janus_codec::INVALID_REQUEST,
                    "The request body could not be read",
                );
            }
        };
        self.serve_body(&parts.headers, &body, principal).await
    }

    fn check_origin_and_host(&self, headers: &HeaderMap) -> Option<Response<McpBody>> {
        let forbidden = |why: &str| {
            Some(refuse(
                StatusCode::FORBIDDEN,
                janus_codec::INVALID_REQUEST,
                why,
            ))
        };
        match one_header(headers, &header::ORIGIN) {
            Err(()) => return forbidden("Forbidden: a bad Origin header"),
            Ok(Some(origin)) => {
                let host = origin.split_once("://").map_or(origin, |(_, h)| h);
                let allowed =
                    is_loopback_host(host) || self.config.allow_origins.iter().any(|o| o == origin);
                if !allowed {
                    return forbidden("Forbidden: this Origin is not allowed");
                }
            }
            Ok(None) => {}
        }
        if self.config.loopback_hosts_only {
            match one_header(headers, &header::HOST) {
                Ok(Some(host)) if is_loopback_host(host) => {}
                // NB. HTTP/2 carries the host in `:authority`, which hyper does not show as a
                // header: no Host header is served.
                Ok(None) => {}
                _ => return forbidden("Forbidden: this server answers loopback host names only"),
            }
        }
        None
    }

    async fn serve_body(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        principal: Option<Arc<Principal>>,
    ) -> Response<McpBody> {
        let read = Parser::new().parse(body);
        let msg = match &read {
            Err(_) => None,
            Ok(Parsed::Batch(_)) => None,
            Ok(Parsed::Single(m)) => Some(m),
        };
        let initialize = msg.is_some_and(|m| m.is_request() && m.method() == "initialize");
        let modern = msg.is_some_and(|m| m.is_request() && !initialize && m.envelope().is_modern());
        let era = if modern { Era::Modern } else { Era::Legacy };
        let mut seen = match (&self.config.observe, msg) {
            (Some(o), Some(m)) if m.is_request() => Some(Seen::new(o, m.method(), era)),
            _ => None,
        };
        // NB. A body that names a legacy session goes to it whatever it is (a batch, a cancel,
        // a client's response); a modern request ignores `Mcp-Session-Id`.
        if !modern
            && !initialize
            && let Ok(Some(id)) = one_header(headers, &names::MCP_SESSION_ID)
        {
            let version = one_header(headers, &names::MCP_PROTOCOL_VERSION)
                .ok()
                .flatten();
            return self
                .sessions
                .post(id, version, read, principal, now_ms())
                .await;
        }
        if let Some(m) = msg {
            if !m.is_request() {
                return match m.kind() {
                    janus_codec::MessageKind::Notification => empty(StatusCode::ACCEPTED),
                    _ => refuse(
                        StatusCode::BAD_REQUEST,
                        janus_codec::INVALID_REQUEST,
                        "A 2026-07-28 endpoint takes requests and notifications, not responses",
                    ),
                };
            }
            let id = m.id();
            let fail = |seen: Option<Seen>, status, code, message: &str| {
                if let Some(s) = seen {
                    s.done(Some(code));
                }
                let mut out = BytesMut::new();
                encode::write_error(&mut out, id, code, message, None);
                json_response(status, out)
            };
            if initialize {
                // NB. A client that announces 2026-07-28 in its header asked for a method that
                // revision removed (404, as the official suite checks); one that does not is a
                // legacy client opening its session.
                let header = one_header(headers, &names::MCP_PROTOCOL_VERSION)
                    .ok()
                    .flatten();
                if header
                    .and_then(ProtocolVersion::from_wire)
                    .is_some_and(ProtocolVersion::is_modern)
                {
                    return fail(
                        seen.take(),
                        StatusCode::NOT_FOUND,
                        janus_codec::METHOD_NOT_FOUND,
                        "Method not found: initialize (removed in 2026-07-28)",
                    );
                }
                let answer = self.sessions.initialize(read, principal, now_ms()).await;
                if let Some(s) = seen.take() {
                    s.done((!answer.status().is_success()).then_some(janus_codec::INVALID_REQUEST));
                }
                return answer;
            }
            if !m.envelope().is_modern() {
                return fail(
                    seen.take(),
                    StatusCode::BAD_REQUEST,
                    janus_codec::INVALID_PARAMS,
                    "Missing _meta[\"io.modelcontextprotocol/protocolVersion\"] (and no Mcp-Session-Id)",
                );
            }
            // An envelope that lacks a key, or holds one of the wrong type: 400, with the id.
            if let Err(janus_codec::EnvelopeError::Invalid(fault)) = m.envelope().check() {
                return fail(
                    seen.take(),
                    StatusCode::BAD_REQUEST,
                    janus_codec::INVALID_PARAMS,
                    &fault.to_string(),
                );
            }
            let reason = header_mismatch(headers, m)
                .or_else(|| param_mismatch(headers, self.stateless.server(), m));
            if let Some(reason) = reason {
                return fail(
                    seen.take(),
                    StatusCode::BAD_REQUEST,
                    HEADER_MISMATCH,
                    &reason,
                );
            }
        }
        // NB. A client whose Accept leaves out SSE gets its answer as JSON, whatever the
        // work sends first (its notifications are dropped); a listen stream is nothing but
        // SSE: 406.
        let (_, sse) = accepted(headers);
        if !sse && msg.is_some_and(|m| m.method() == "subscriptions/listen") {
            if let Some(s) = seen.take() {
                s.done(Some(janus_codec::INVALID_REQUEST));
            }
            return not_acceptable("text/event-stream for subscriptions/listen");
        }
        let events = Arc::new(Events::default());
        let notify: Arc<dyn Notify> = Arc::clone(&events) as Arc<dyn Notify>;
        // NB. Room for a small answer and its head, so the writes do not grow the buffer.
        let mut out = BytesMut::with_capacity(256 + body.len() / 2);
        // NB. An answer, with room for a notification before it, without an allocation.
        let mut lines = Lines::new();
        let pending =
            self.stateless
                .handle_routed(read, now_ms(), &notify, principal, &mut out, &mut lines);
        drop(notify);
        match pending {
            None if out.is_empty() => empty(StatusCode::ACCEPTED),
            None => answer_now(out, &lines, seen, sse),
            Some(p) if p.is_background() => {
                run_detached(p);
                answer_now(out, &lines, seen, sse)
            }
            Some(p) => match (self.streams.try_open(), events.receiver()) {
                (Some(permit), Some(rx)) => {
                    drop(events);
                    answer_later(p, rx, permit, seen, sse).await
                }
                // NB. The work never started: dropping it is all there is to undo.
                _ => {
                    if let Some(s) = seen {
                        s.done(Some(janus_codec::INTERNAL_ERROR));
                    }
                    too_many_streams()
                }
            },
        }
    }
}

/// What the core says the lines of a request's output are.
type Lines = smallvec::SmallVec<[Emitted; 2]>;

/// An answer written before the request returned: one JSON line, or (when an inline handler
/// sent notifications first, and the client takes `sse`) an SSE stream of each of them and
/// then the answer. What each line is comes from the core ([`Emitted`]).
fn answer_now(
    mut out: BytesMut,
    lines: &[Emitted],
    seen: Option<Seen>,
    sse: bool,
) -> Response<McpBody> {
    if let Some(s) = seen {
        s.done_by(lines.last().map(|e| &e.line));
    }
    if let [one] = lines {
        return json_response(status_of(&one.line), out);
    }
    if !sse && let Some(last) = lines.last() {
        let before: usize = lines[..lines.len() - 1].iter().map(|e| e.len).sum();
        let answer = out.split_off(before.min(out.len()));
        return json_response(status_of(&last.line), answer);
    }
    let (tx, rx) = mpsc::channel(lines.len().max(1));
    for e in lines {
        let line = out.split_to(e.len.min(out.len()));
        let _ = tx.try_send(sse_event(&line));
    }
    sse_response(rx, AbortOnDrop(Vec::new()), None)
}

/// Runs a task's work to its end, apart from any request.
fn run_detached(p: Pending) {
    tokio::spawn(async move {
        let mut p = p;
        loop {
            let Some(work) = p.take_work() else { return };
            let work = tokio::spawn(work);
            let end = match work.await {
                Ok(r) => JobEnd::Finished(r),
                Err(_) => JobEnd::Panicked,
            };
            match p.finish(end, &mut BytesMut::new()) {
                Some(next) => p = next,
                None => return,
            }
        }
    });
}

/// Runs a request's work: a JSON answer when it ends before anything else is sent, an SSE
/// stream when a notification comes first.
async fn answer_later(
    mut p: Pending,
    mut events: mpsc::Receiver<Bytes>,
    permit: StreamPermit,
    seen: Option<Seen>,
    sse: bool,
) -> Response<McpBody> {
    let Some(work) = p.take_work() else {
        return empty(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let work = tokio::spawn(work);
    let mut guard = AbortOnDrop(vec![work.abort_handle()]);
    let (done_tx, mut done_rx) = mpsc::channel::<(BytesMut, Vec<Emitted>)>(1);
    let finisher = tokio::spawn(async move {
        let (mut p, mut work) = (p, work);
        let mut out = BytesMut::new();
        let mut lines = Vec::new();
        // NB. Work that follows the first (the request waited for the store) is aborted with
        // the finisher, when the client goes away.
        let mut later = AbortOnDrop(Vec::new());
        loop {
            let end = match work.await {
                Ok(r) => JobEnd::Finished(r),
                Err(e) if e.is_panic() => JobEnd::Panicked,
                Err(_) => return,
            };
            match p.finish_routed(end, &mut out, &mut lines) {
                None => break,
                Some(next) if next.is_background() => {
                    run_detached(next);
                    break;
                }
                Some(mut next) => {
                    let Some(w) = next.take_work() else { break };
                    work = tokio::spawn(w);
                    later.0.push(work.abort_handle());
                    p = next;
                }
            }
        }
        drop(later);
        if let Some(s) = seen {
            s.done_by(lines.last().map(|e| &e.line));
        }
        let _ = done_tx.send((out, lines)).await;
    });
    guard.0.push(finisher.abort_handle());
    tokio::select! {
        biased;
        Some(first) = events.recv(), if sse => {
            let (tx, rx) = mpsc::channel(crate::drivers::serve::MAX_PENDING_NOTES);
            let _ = tx.try_send(first);
            let forward = tokio::spawn(async move {
                loop {
                    tokio::select! {
                        biased;
                        Some(e) = events.recv() => {
                            if tx.send(e).await.is_err() {
                                return;
                            }
                        }
                        Some((answer, _)) = done_rx.recv() => {
                            // Notifications sent before the work ended go before its answer.
                            while let Ok(e) = events.try_recv() {
                                if tx.send(e).await.is_err() {
                                    return;
                                }
                            }
                            let _ = tx.send(sse_event(&answer)).await;
                            return;
                        }
                        else => return,
                    }
                }
            });
            guard.0.push(forward.abort_handle());
            sse_response(rx, guard, Some(permit))
        }
        Some((line, lines)) = done_rx.recv() => {
            let status = lines.last().map_or(StatusCode::OK, |e| status_of(&e.line));
            json_response(status, line)
        }
        else => empty(StatusCode::INTERNAL_SERVER_ERROR),
    }
}
