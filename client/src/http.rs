//! Streamable HTTP in both eras (`basic/transports`, 2025-11-25 and 2026-07-28).
//!
//! The client's lines go through one writer task, which makes each a POST:
//!
//! - **2026-07-28**: a request carries `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (for
//!   `tools/call`, `prompts/get`, `resources/read`) and the `Mcp-Param-*` headers its tool's
//!   schema marks with `x-mcp-header`, values in the Base64 sentinel when they are not plain
//!   header text. A cancel closes the request's response (no `notifications/cancelled`).
//! - **Handshake sessions**: `initialize` gets the `Mcp-Session-Id`, which every later POST
//!   carries with the negotiated `MCP-Protocol-Version`; the server's requests on a response
//!   stream are answered by POSTs of their own; a `GET` stream brings what belongs to no
//!   POST; closing the client `DELETE`s the session.
//!
//! Each answer, JSON or SSE, comes back to the client's read path as lines. An HTTP status
//! without an MCP answer in its body is [`Error::Status`] for the request that got it (`404`
//! on a session: [`Error::Session`]).

use crate::error::Error;
use bytes::{Bytes, BytesMut};
use http::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use http::{Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use janus_codec::{Parser, RawJson};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// What the HTTP writer hands back to the client's read path.
pub(crate) enum Delivery {
    /// A line the server sent (an answer, a notification, a request of its own).
    Line(Bytes),
    /// Request `id` failed before any answer.
    Failed(i64, Error),
    /// The connection is gone (the 2024-11-05 stream ended): nothing more comes.
    Ended(String),
}

/// Where deliveries go.
pub(crate) type Sink = Arc<dyn Fn(Delivery) + Send + Sync>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One header a tool's argument is mirrored into: the path of `properties` keys to it, and
/// the header's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mirror {
    path: Vec<String>,
    header: HeaderName,
}

/// The `x-mcp-header` mirrors of the tools listed so far, by tool name.
pub(crate) type Mirrors = Arc<Mutex<HashMap<String, Vec<Mirror>>>>;

/// The `x-mcp-header` annotations of an input schema, or why they make the tool invalid.
pub(crate) fn mirrors_of(schema: &str) -> Result<Vec<Mirror>, String> {
    let Ok(root) = RawJson::parse(schema) else {
        return Err("its inputSchema is no JSON".into());
    };
    let mut found = Vec::new();
    walk(root, &mut Vec::new(), &mut found)?;
    // NB. Every annotation must be on a property reached through `properties` alone.
    let everywhere = count_key(schema, "x-mcp-header");
    if everywhere != found.len() {
        return Err("an x-mcp-header outside a chain of properties".into());
    }
    let mut seen: Vec<String> = Vec::new();
    for m in &found {
        let lower = m.header.as_str().to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!("x-mcp-header {} is not unique", m.header));
        }
        seen.push(lower);
    }
    Ok(found)
}

fn walk(
    schema: RawJson<'_>,
    path: &mut Vec<String>,
    found: &mut Vec<Mirror>,
) -> Result<(), String> {
    let Some(props) = schema.get("properties").filter(|p| p.is_object()) else {
        return Ok(());
    };
    for (key, prop) in props.members() {
        path.push(key.into_owned());
        if let Some(h) = prop.get("x-mcp-header") {
            let name = h
                .as_string()
                .filter(|n| !n.is_empty() && n.bytes().all(is_tchar))
                .ok_or_else(|| format!("x-mcp-header of {} is no header name", path.join(".")))?;
            let kind = prop.get("type").and_then(RawJson::as_string);
            if !matches!(kind.as_deref(), Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "x-mcp-header on {}, which is not a string, integer or boolean",
                    path.join(".")
                ));
            }
            let header = HeaderName::from_bytes(format!("mcp-param-{name}").as_bytes())
                .map_err(|_| format!("x-mcp-header {name} is no header name"))?;
            found.push(Mirror {
                path: path.clone(),
                header,
            });
        }
        walk(prop, path, found)?;
        path.pop();
    }
    Ok(())
}

/// How many times `"key"` stands as an object key in `json` (outside strings).
fn count_key(json: &str, key: &str) -> usize {
    let needle = format!("\"{key}\"");
    let b = json.as_bytes();
    let mut n = 0;
    let mut at = 0;
    while let Some(i) = json[at..].find(&needle) {
        let start = at + i;
        let end = start + needle.len();
        let escaped = start > 0 && b[start - 1] == b'\\';
        let rest = json[end..].trim_start();
        if !escaped && rest.starts_with(':') {
            n += 1;
        }
        at = end;
    }
    n
}

const fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// A header value for `s`: as it is when it is plain header text, else the Base64 sentinel.
pub(crate) fn header_text(s: &str) -> String {
    let sentinel = s.starts_with("=?base64?") && s.ends_with("?=");
    let edge_space = s.starts_with([' ', '\t']) || s.ends_with([' ', '\t']);
    let plain = if s.is_empty() || sentinel || edge_space {
        false
    } else {
        s.bytes().all(|c| (0x20..=0x7e).contains(&c) || c == b'\t')
    };
    if plain {
        s.to_owned()
    } else {
        use base64::Engine as _;
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
        )
    }
}

/// The value an argument gives its header, when it has one of the types allowed.
fn mirrored(args: RawJson<'_>, path: &[String]) -> Option<String> {
    let mut v = args;
    for k in path {
        v = v.get(k)?;
    }
    if let Some(s) = v.as_string() {
        return Some(header_text(&s));
    }
    match v.as_str() {
        b @ ("true" | "false") => Some(b.to_owned()),
        n => {
            let i: i64 = n.parse().ok()?;
            (i.unsigned_abs() < (1 << 53)).then(|| i.to_string())
        }
    }
}

/// Where a server is over HTTP, and the headers every request carries.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) uri: Uri,
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
}

impl Endpoint {
    pub(crate) fn new(url: &str, headers: &[(String, String)]) -> Result<Self, Error> {
        let uri: Uri = url
            .parse()
            .map_err(|e| Error::Config(format!("{url} is no URL: {e}")))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(Error::Config(format!(
                    "{url}: https is not built into janus-client (put a TLS proxy in front, or use http on loopback)"
                )));
            }
            _ => return Err(Error::Config(format!("{url} is no http URL"))),
        }
        let headers = headers
            .iter()
            .map(|(n, v)| {
                Ok((
                    HeaderName::from_bytes(n.as_bytes())
                        .map_err(|_| Error::Config(format!("{n} is no header name")))?,
                    HeaderValue::from_str(v).map_err(|_| {
                        Error::Config(format!("the value of {n} is no header value"))
                    })?,
                ))
            })
            .collect::<Result<_, Error>>()?;
        Ok(Self { uri, headers })
    }
}

type Hyper = HyperClient<HttpConnector, Full<Bytes>>;

/// The state one HTTP connection shares between its writer and its POSTs.
struct Shared {
    hyper: Hyper,
    endpoint: Endpoint,
    sink: Sink,
    mirrors: Mirrors,
    max_body: usize,
    /// A handshake session's id and revision, once `initialize` was answered.
    session: Mutex<Option<(HeaderValue, String)>>,
    /// The 2026-07-28 POSTs in flight, by request id: a cancel drops them.
    flights: Mutex<HashMap<i64, tokio::task::AbortHandle>>,
    get_open: std::sync::atomic::AtomicBool,
}

/// Writes the client's lines as POSTs until the client says goodbye (an empty line).
pub(crate) async fn writer(
    endpoint: Endpoint,
    mut lines: mpsc::UnboundedReceiver<BytesMut>,
    sink: Sink,
    mirrors: Mirrors,
    max_body: usize,
) {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let hyper = HyperClient::builder(TokioExecutor::new()).build(connector);
    let shared = Arc::new(Shared {
        hyper,
        endpoint,
        sink,
        mirrors,
        max_body,
        session: Mutex::new(None),
        flights: Mutex::new(HashMap::new()),
        get_open: std::sync::atomic::AtomicBool::new(false),
    });
    while let Some(line) = lines.recv().await {
        let line = line.freeze();
        if line.is_empty() {
            break;
        }
        let Ok(msg) = Parser::new().parse_single(&line) else {
            continue;
        };
        let modern = msg.envelope().protocol_version.is_some();
        let id = msg.id().and_then(janus_codec::Id::as_i64);
        if msg.method() == "notifications/cancelled" && modern {
            // NB. 2026-07-28 HTTP cancels by closing the request's response.
            let target = msg.param("requestId").and_then(janus_codec::Id::from_json);
            if let Some(h) = target
                .and_then(janus_codec::Id::as_i64)
                .and_then(|t| lock(&shared.flights).remove(&t))
            {
                h.abort();
            }
            continue;
        }
        let headers = request_headers(&shared, &msg, modern);
        let initialize = msg.method() == "initialize";
        let me = Arc::clone(&shared);
        let task = tokio::spawn(async move {
            me.post(line, headers, id, initialize).await;
            if let Some(id) = id {
                lock(&me.flights).remove(&id);
            }
        });
        if let (Some(id), true) = (id, modern) {
            lock(&shared.flights).insert(id, task.abort_handle());
        }
    }
    shared.goodbye().await;
}

/// The MCP headers of one POST.
fn request_headers(
    shared: &Shared,
    msg: &janus_codec::Message<'_>,
    modern: bool,
) -> Vec<(HeaderName, HeaderValue)> {
    let mut h = Vec::new();
    let text = |s: &str| HeaderValue::from_str(s).ok();
    if modern {
        h.push((
            HeaderName::from_static("mcp-protocol-version"),
            HeaderValue::from_static("2026-07-28"),
        ));
        if msg.is_request() {
            if let Some(v) = text(msg.method()) {
                h.push((HeaderName::from_static("mcp-method"), v));
            }
            let key = match msg.method() {
                "tools/call" | "prompts/get" => Some("name"),
                "resources/read" => Some("uri"),
                _ => None,
            };
            if let Some(v) = key
                .and_then(|k| msg.param(k))
                .and_then(RawJson::as_string)
                .and_then(|n| text(&header_text(&n)))
            {
                h.push((HeaderName::from_static("mcp-name"), v));
            }
            if msg.method() == "tools/call"
                && let (Some(name), Some(args)) = (
                    msg.param("name").and_then(RawJson::as_string),
                    msg.param("arguments"),
                )
            {
                let mirrors = lock(&shared.mirrors).get(name.as_ref()).cloned();
                for m in mirrors.unwrap_or_default() {
                    if let Some(v) = mirrored(args, &m.path).and_then(|v| text(&v)) {
                        h.push((m.header.clone(), v));
                    }
                }
            }
        }
    } else if let Some((sid, version)) = lock(&shared.session).clone() {
        h.push((HeaderName::from_static("mcp-session-id"), sid));
        if let Some(v) = text(&version) {
            h.push((HeaderName::from_static("mcp-protocol-version"), v));
        }
    }
    h
}

impl Shared {
    fn request(
        &self,
        method: Method,
        body: Bytes,
        extra: &[(HeaderName, HeaderValue)],
    ) -> Request<Full<Bytes>> {
        let mut r = Request::new(Full::new(body));
        *r.method_mut() = method;
        *r.uri_mut() = self.endpoint.uri.clone();
        let h = r.headers_mut();
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (n, v) in self.endpoint.headers.iter().chain(extra) {
            h.insert(n.clone(), v.clone());
        }
        r
    }

    fn fail(&self, id: Option<i64>, e: Error) {
        match id {
            Some(id) => (self.sink)(Delivery::Failed(id, e)),
            None => tracing::warn!("a POST of the client failed: {e}"),
        }
    }

    async fn post(
        self: &Arc<Self>,
        line: Bytes,
        headers: Vec<(HeaderName, HeaderValue)>,
        id: Option<i64>,
        initialize: bool,
    ) {
        let body = line.slice(
            ..line
                .len()
                .saturating_sub(usize::from(line.ends_with(b"\n"))),
        );
        let req = self.request(Method::POST, body, &headers);
        let resp = match self.hyper.request(req).await {
            Ok(r) => r,
            Err(e) => {
                self.fail(
                    id,
                    Error::Transport(format!("POST {}: {e}", self.endpoint.uri)),
                );
                return;
            }
        };
        let status = resp.status();
        let sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .cloned()
            .filter(|_| initialize);
        if status == StatusCode::ACCEPTED {
            return;
        }
        let mut body = resp.into_body();
        if sse && status.is_success() {
            let mut parser = Sse::default();
            while let Some(frame) = body.frame().await {
                let Ok(frame) = frame else {
                    self.fail(id, Error::Transport("the response stream broke".into()));
                    return;
                };
                if let Ok(data) = frame.into_data() {
                    for event in parser.push(&data) {
                        if let Some(sid) = &sid {
                            self.learn_session(sid, event.data.as_bytes());
                        }
                        self.deliver(event);
                    }
                }
            }
            return;
        }
        let mut whole = BytesMut::new();
        while let Some(frame) = body.frame().await {
            match frame {
                Ok(f) => {
                    if let Ok(d) = f.into_data() {
                        whole.extend_from_slice(&d);
                        if whole.len() > self.max_body {
                            self.fail(id, Error::Transport("an answer over the size limit".into()));
                            return;
                        }
                    }
                }
                Err(e) => {
                    self.fail(id, Error::Transport(format!("reading the answer: {e}")));
                    return;
                }
            }
        }
        let whole = whole.freeze();
        // NB. Only an answer to this very request counts: a server's `400` with an error of
        // id `null` or "server-error" is a status, not an MCP answer.
        let rpc = Parser::new().parse_single(&whole).ok().filter(|m| {
            id.is_some()
                && m.id().and_then(janus_codec::Id::as_i64) == id
                && (m.result().is_some() || m.error().is_some())
        });
        let Some(answer) = rpc else {
            let e = if status == StatusCode::NOT_FOUND && lock(&self.session).is_some() {
                Error::Session("the server no longer knows this session (404)".into())
            } else {
                let text = String::from_utf8_lossy(&whole[..whole.len().min(200)]).into_owned();
                Error::Status(status.as_u16(), text)
            };
            self.fail(id, e);
            return;
        };
        drop(answer);
        if let Some(sid) = &sid {
            self.learn_session(sid, &whole);
        }
        (self.sink)(Delivery::Line(whole));
    }

    /// The answer to `initialize` (`line`, with the `Mcp-Session-Id` it came with): later
    /// POSTs carry the id and the revision, and the session's `GET` stream opens. Learnt
    /// before the answer is delivered, so the client's next request has them.
    fn learn_session(self: &Arc<Self>, sid: &HeaderValue, line: &[u8]) {
        let version = Parser::new().parse_single(line).ok().and_then(|m| {
            m.result()
                .and_then(|r| r.get("protocolVersion"))
                .and_then(RawJson::as_string)
                .map(std::borrow::Cow::into_owned)
        });
        if let Some(v) = version {
            *lock(&self.session) = Some((sid.clone(), v));
            self.open_stream();
        }
    }

    fn deliver(&self, event: Event) {
        if event.data.is_empty() || event.event.as_deref().is_some_and(|e| e != "message") {
            return;
        }
        (self.sink)(Delivery::Line(Bytes::from(event.data)));
    }

    /// A session's `GET` stream, for what belongs to no POST (a `405` is fine: the server
    /// has none).
    fn open_stream(self: &Arc<Self>) {
        if self
            .get_open
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let headers = {
                let s = lock(&me.session).clone();
                s.map(|(sid, v)| {
                    let mut h = vec![(HeaderName::from_static("mcp-session-id"), sid)];
                    if let Ok(v) = HeaderValue::from_str(&v) {
                        h.push((HeaderName::from_static("mcp-protocol-version"), v));
                    }
                    h
                })
                .unwrap_or_default()
            };
            let mut req = me.request(Method::GET, Bytes::new(), &headers);
            req.headers_mut()
                .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            req.headers_mut().remove(CONTENT_TYPE);
            let Ok(resp) = me.hyper.request(req).await else {
                return;
            };
            if !resp.status().is_success() {
                return;
            }
            let mut body = resp.into_body();
            let mut parser = Sse::default();
            while let Some(Ok(frame)) = body.frame().await {
                if let Ok(data) = frame.into_data() {
                    for event in parser.push(&data) {
                        me.deliver(event);
                    }
                }
            }
        });
    }

    /// The client is closing: a session is ended with `DELETE`.
    async fn goodbye(&self) {
        let session = lock(&self.session).take();
        for (_, h) in lock(&self.flights).drain() {
            h.abort();
        }
        let Some((sid, v)) = session else { return };
        let mut headers = vec![(HeaderName::from_static("mcp-session-id"), sid)];
        if let Ok(v) = HeaderValue::from_str(&v) {
            headers.push((HeaderName::from_static("mcp-protocol-version"), v));
        }
        let req = self.request(Method::DELETE, Bytes::new(), &headers);
        let _ =
            tokio::time::timeout(std::time::Duration::from_secs(2), self.hyper.request(req)).await;
    }
}

/// The 2024-11-05 HTTP+SSE transport: a `GET` stream whose first event, `endpoint`, names
/// the URL every message is POSTed to; everything the server sends comes on the stream.
pub(crate) async fn sse_writer(
    endpoint: Endpoint,
    mut lines: mpsc::UnboundedReceiver<BytesMut>,
    sink: Sink,
    ready: tokio::sync::oneshot::Sender<Result<(), Error>>,
) {
    let hyper: Hyper = HyperClient::builder(TokioExecutor::new()).build(HttpConnector::new());
    let shared = Shared {
        hyper,
        endpoint,
        sink: Arc::clone(&sink),
        mirrors: Mirrors::default(),
        max_body: 0,
        session: Mutex::new(None),
        flights: Mutex::new(HashMap::new()),
        get_open: std::sync::atomic::AtomicBool::new(true),
    };
    let mut req = shared.request(Method::GET, Bytes::new(), &[]);
    req.headers_mut()
        .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
    req.headers_mut().remove(CONTENT_TYPE);
    let url = shared.endpoint.uri.clone();
    let resp = match shared.hyper.request(req).await {
        Ok(r) if r.status().is_success() => r,
        Ok(r) => {
            let _ = ready.send(Err(Error::Status(
                r.status().as_u16(),
                format!("GET {url}"),
            )));
            return;
        }
        Err(e) => {
            let _ = ready.send(Err(Error::Transport(format!("GET {url}: {e}"))));
            return;
        }
    };
    let mut body = resp.into_body();
    let mut parser = Sse::default();
    // The first event names where to POST.
    let mut post_to: Option<Uri> = None;
    let mut early = Vec::new();
    let found = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while post_to.is_none() {
            let Some(Ok(frame)) = body.frame().await else {
                return;
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            for e in parser.push(&data) {
                if post_to.is_none() && e.event.as_deref() == Some("endpoint") {
                    post_to = resolve(&url, e.data.trim());
                } else {
                    early.push(e);
                }
            }
        }
    })
    .await;
    let Some(post_to) = post_to.filter(|_| found.is_ok()) else {
        let _ = ready.send(Err(Error::Protocol(format!(
            "GET {url} named no endpoint to POST to (a 2024-11-05 HTTP+SSE server's first event)"
        ))));
        return;
    };
    let _ = ready.send(Ok(()));
    for e in early {
        shared.deliver(e);
    }
    let stream_sink = Arc::clone(&sink);
    let reading = tokio::spawn(async move {
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                for e in parser.push(&data) {
                    if e.event.as_deref().is_none_or(|k| k == "message") && !e.data.is_empty() {
                        stream_sink(Delivery::Line(Bytes::from(e.data)));
                    }
                }
            }
        }
        stream_sink(Delivery::Ended("the server ended its SSE stream".into()));
    });
    let shared = Arc::new(Shared {
        endpoint: Endpoint {
            uri: post_to,
            headers: shared.endpoint.headers.clone(),
        },
        ..shared
    });
    while let Some(line) = lines.recv().await {
        let line = line.freeze();
        if line.is_empty() {
            break;
        }
        let id = Parser::new()
            .parse_single(&line)
            .ok()
            .and_then(|m| m.id().and_then(janus_codec::Id::as_i64));
        let me = Arc::clone(&shared);
        tokio::spawn(async move {
            let body = line.slice(
                ..line
                    .len()
                    .saturating_sub(usize::from(line.ends_with(b"\n"))),
            );
            let req = me.request(Method::POST, body, &[]);
            match me.hyper.request(req).await {
                Ok(r) if r.status().is_success() => {}
                Ok(r) => me.fail(
                    id,
                    Error::Status(r.status().as_u16(), format!("POST {}", me.endpoint.uri)),
                ),
                Err(e) => me.fail(
                    id,
                    Error::Transport(format!("POST {}: {e}", me.endpoint.uri)),
                ),
            }
        });
    }
    reading.abort();
}

/// The URL an `endpoint` event names, resolved against the stream's.
fn resolve(base: &Uri, target: &str) -> Option<Uri> {
    if target.starts_with("http://") || target.starts_with("https://") {
        return target.parse().ok();
    }
    let authority = base.authority()?.as_str();
    let scheme = base.scheme_str().unwrap_or("http");
    let path = if target.starts_with('/') {
        target.to_owned()
    } else {
        let dir = base.path().rsplit_once('/').map_or("", |(d, _)| d);
        format!("{dir}/{target}")
    };
    format!("{scheme}://{authority}{path}").parse().ok()
}

/// One SSE event.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
    pub(crate) id: Option<String>,
}

/// An SSE parser over chunks as they come (`\n`, `\r\n` or `\r` line ends; comments and
/// `retry` skipped).
#[derive(Debug, Default)]
pub(crate) struct Sse {
    buf: Vec<u8>,
    event: Event,
    has_data: bool,
}

impl Sse {
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some(end) = self.buf.iter().position(|&c| c == b'\n' || c == b'\r') {
            // NB. A `\r` at the very end may be half of a `\r\n`: wait for the next byte.
            if self.buf[end] == b'\r' && end + 1 == self.buf.len() {
                break;
            }
            let skip = if self.buf[end] == b'\r' && self.buf.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            let line: Vec<u8> = self.buf.drain(..end + skip).take(end).collect();
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if self.has_data || self.event.id.is_some() {
                    out.push(std::mem::take(&mut self.event));
                }
                self.event = Event::default();
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line.as_ref(), ""),
            };
            match field {
                "data" => {
                    if self.has_data {
                        self.event.data.push('\n');
                    }
                    self.event.data.push_str(value);
                    self.has_data = true;
                }
                "event" => self.event.event = Some(value.to_owned()),
                "id" => self.event.id = Some(value.to_owned()),
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_read_across_chunks_and_line_ends() {
        let mut p = Sse::default();
        let mut got = p.push(b"id: 1-0\nretry: 1000\ndata: \n\nevent: message\r\ndata: {\"a\"");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, "");
        got = p.push(b":1}\r\n\r\n: keep-alive\n\ndata: x\ndata: y\r");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, r#"{"a":1}"#);
        assert_eq!(got[0].event.as_deref(), Some("message"));
        got = p.push(b"\n\n");
        assert_eq!(got[0].data, "x\ny");
    }

    #[test]
    fn header_values_are_plain_or_the_base64_sentinel() {
        assert_eq!(header_text("us-west1"), "us-west1");
        assert_eq!(
            header_text("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_text(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_text("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            header_text("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn x_mcp_header_annotations_are_read_or_make_the_tool_invalid() {
        let ok = r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}"#;
        let m = mirrors_of(ok).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].path, ["q", "n"]);
        let args = RawJson::parse(r#"{"region":"eu 1 ","q":{"n":-7}}"#).unwrap();
        assert_eq!(mirrored(args, &m[0].path).unwrap(), "=?base64?ZXUgMSA=?=");
        assert_eq!(mirrored(args, &m[1].path).unwrap(), "-7");
        for bad in [
            r#"{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":""}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"a b"}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}"#,
            r#"{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#,
            r#"{"oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}"#,
        ] {
            assert!(mirrors_of(bad).is_err(), "{bad}");
        }
        // A description that names the keyword is no annotation.
        assert!(
            mirrors_of(r#"{"description":"see \"x-mcp-header\": docs"}"#)
                .unwrap()
                .is_empty()
        );
    }
}
