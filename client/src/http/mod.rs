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
//!
//! Every transport here speaks `http` and `https` alike (see [`tls`]).

use crate::error::Error;
use bytes::{Bytes, BytesMut};
use http::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, WWW_AUTHENTICATE,
};
use http::{Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use janus_codec::{Parser, RawJson};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

mod mirror;
mod sse;

use crate::tls::{Hyper, Tls, describe};
pub(crate) use mirror::{Mirrors, mirrors_of};
use mirror::{header_text, mirrored};
use sse::{Event, Sse};

/// What the HTTP writer hands back to the client's read path.
pub(crate) enum Delivery {
    /// A line the server sent (an answer, a notification, a request of its own).
    Line(Bytes),
    /// A line that came on the response stream of request `id` (a request of the server's
    /// on it is made for that request).
    Within(Bytes, i64),
    /// Request `id` failed before any answer.
    Failed(i64, Error),
    /// The connection is gone (the 2024-11-05 stream ended): nothing more comes.
    Ended(String),
}

/// The reconnection time of a response stream that set none (`retry`).
const DEFAULT_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// The most resumptions in a row of one response stream that bring no new event.
const MAX_RESUMES: u32 = 5;

/// Where a request's response stream is: its parser (and so its reconnection time), the last
/// event id it gave, and how many resumptions in a row brought nothing new.
#[derive(Default)]
struct Stream {
    parser: Sse,
    last_id: Option<String>,
    quiet: u32,
}

/// A transport fault of one request's answer ([`Error::is_answer_fault`]).
fn answer_fault(why: &str) -> Error {
    Error::Transport(format!("{}{why}", crate::error::ANSWER_FAULT))
}

/// A server's bytes as an error or a log line shows them: control characters escaped, so
/// that they cannot forge a line of the log or change a terminal's state.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// True when `data` (an SSE event's) is the answer to request `id`.
fn answers(data: &str, id: i64) -> bool {
    Parser::new().parse_single(data.as_bytes()).is_ok_and(|m| {
        m.id().and_then(janus_codec::Id::as_i64) == Some(id)
            && (m.result().is_some() || m.error().is_some())
    })
}

/// Where deliveries go.
pub(crate) type Sink = Arc<dyn Fn(Delivery) + Send + Sync>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
            return Err(Error::Config(format!("{url} is no http or https URL")));
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
    /// Authorization, when the caller gave one: only a `401` or `403` reaches it.
    auth: Option<crate::auth::OAuth>,
}

/// Writes the client's lines as POSTs, on `hyper` (built for the endpoint's scheme), until
/// the client says goodbye (an empty line).
pub(crate) async fn writer(
    hyper: Hyper,
    endpoint: Endpoint,
    mut lines: mpsc::UnboundedReceiver<BytesMut>,
    sink: Sink,
    mirrors: Mirrors,
    max_body: usize,
    auth: Option<crate::auth::OAuth>,
) {
    let shared = Arc::new(Shared {
        hyper,
        endpoint,
        sink,
        mirrors,
        max_body,
        session: Mutex::new(None),
        flights: Mutex::new(HashMap::new()),
        get_open: std::sync::atomic::AtomicBool::new(false),
        auth,
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
        if msg.method() == "notifications/cancelled" {
            // NB. The request's response (or its resumption) is no longer read. 2026-07-28
            // HTTP cancels by closing it, and sends nothing more; a handshake session is told
            // with the notification, POSTed below.
            let target = msg.param("requestId").and_then(janus_codec::Id::from_json);
            if let Some(h) = target
                .and_then(janus_codec::Id::as_i64)
                .and_then(|t| lock(&shared.flights).remove(&t))
            {
                h.abort();
            }
            if modern {
                continue;
            }
        }
        let headers = request_headers(&shared, &msg, modern);
        let initialize = msg.method() == "initialize";
        let me = Arc::clone(&shared);
        let task = tokio::spawn(async move {
            me.post(line, headers, id, initialize, modern).await;
            if let Some(id) = id {
                lock(&me.flights).remove(&id);
            }
        });
        if let Some(id) = id {
            lock(&shared.flights).insert(id, task.abort_handle());
        }
    }
    shared.goodbye().await;
    // NB. Ended once its session is: who waits for the close hears of it.
    (shared.sink)(Delivery::Ended("the client closed the connection".into()));
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
        // NB. The header is the envelope's revision, which it must match.
        let version = msg
            .envelope()
            .protocol_version
            .and_then(RawJson::as_string)
            .and_then(|v| text(&v));
        h.push((
            HeaderName::from_static("mcp-protocol-version"),
            version.unwrap_or(HeaderValue::from_static("2026-07-28")),
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
        if let Some(auth) = &self.auth {
            let method = r.method().as_str().to_owned();
            for (n, v) in auth.headers(&method, &self.endpoint.uri) {
                r.headers_mut().insert(n, v);
            }
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
        modern: bool,
    ) {
        let body = line.slice(
            ..line
                .len()
                .saturating_sub(usize::from(line.ends_with(b"\n"))),
        );
        let mut tries = 0;
        let resp = loop {
            let req = self.request(Method::POST, body.clone(), &headers);
            let sent = req.headers().get(AUTHORIZATION).cloned();
            let resp = match self.hyper.request(req).await {
                Ok(r) => r,
                Err(e) => {
                    let uri = &self.endpoint.uri;
                    self.fail(
                        id,
                        Error::Transport(format!("POST {uri}: {}", describe(&e, uri))),
                    );
                    return;
                }
            };
            let status = resp.status();
            let Some(auth) = self
                .auth
                .as_ref()
                .filter(|_| matches!(status.as_u16(), 401 | 403))
            else {
                break resp;
            };
            let www = resp
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let nonce = resp
                .headers()
                .get("dpop-nonce")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let uri = &self.endpoint.uri;
            match auth
                .answer(
                    uri,
                    status.as_u16(),
                    www.as_deref(),
                    sent.as_ref(),
                    nonce.as_deref(),
                    &mut tries,
                )
                .await
            {
                Ok(true) => {}
                Ok(false) => break resp,
                Err(e) => {
                    self.fail(id, e);
                    return;
                }
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
            let mut stream = Stream::default();
            if self
                .read_stream(&mut body, &mut stream, id, sid.as_ref())
                .await
            {
                return;
            }
            if let Some(id) = id {
                self.resume(id, stream, modern).await;
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
                            self.fail(id, answer_fault("over the size limit"));
                            return;
                        }
                    }
                }
                Err(e) => {
                    self.fail(
                        id,
                        answer_fault(&format!("its body could not be read: {e}")),
                    );
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
                Error::Session(format!("{} (404)", crate::error::SESSION_LOST))
            } else {
                let text = printable(&whole[..whole.len().min(200)]);
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

    /// Reads an SSE response `body` and delivers its messages, until the answer to request
    /// `id` (true) or the end of the stream, clean or broken (false). `stream` keeps the last
    /// event id and the reconnection time, for a resumption. `sid` is the session id that
    /// came with an `initialize`.
    async fn read_stream(
        self: &Arc<Self>,
        body: &mut hyper::body::Incoming,
        stream: &mut Stream,
        id: Option<i64>,
        sid: Option<&HeaderValue>,
    ) -> bool {
        while let Some(Ok(frame)) = body.frame().await {
            let Ok(data) = frame.into_data() else {
                continue;
            };
            for event in stream.parser.push(&data) {
                if let Some(sid) = sid {
                    self.learn_session(sid, event.data.as_bytes());
                }
                if event.id.is_some() {
                    stream.last_id.clone_from(&event.id);
                }
                // NB. Only a message is progress: a server that primes every resumed stream
                // (an event id, no data) and sends nothing more is not waited on for ever.
                if !event.data.is_empty() {
                    stream.quiet = 0;
                }
                let done = id.is_some_and(|id| answers(&event.data, id));
                self.deliver(event, id);
                if done {
                    return true;
                }
            }
            if stream.parser.overflowed() {
                // NB. As for a JSON body: an event past the cap fails the request it came
                // for, at once (it is not read on, nor the stream resumed).
                self.fail(id, answer_fault("over the size limit"));
                return true;
            }
        }
        false
    }

    /// The response stream of handshake-era request `id` ended before its answer (SEP-1699:
    /// a server may close it after a `retry` field, to be polled): after the stream's
    /// reconnection time, a `GET` with the session and `Last-Event-ID` resumes it, and so on
    /// until the answer comes, the server refuses, or it sends nothing new [`MAX_RESUMES`]
    /// times in a row. A 2026-07-28 stream, or one that gave no event id, cannot be resumed:
    /// the request fails at once rather than at its timeout.
    async fn resume(self: &Arc<Self>, request: i64, mut stream: Stream, modern: bool) {
        let id = Some(request);
        let uri = self.endpoint.uri.clone();
        loop {
            let Some(last) = stream.last_id.clone().filter(|_| !modern) else {
                self.fail(
                    id,
                    answer_fault(&format!(
                        "POST {uri}: the response stream ended before the answer"
                    )),
                );
                return;
            };
            if stream.quiet >= MAX_RESUMES {
                self.fail(
                    id,
                    answer_fault(&format!(
                        "GET {uri}: {MAX_RESUMES} resumptions of the response stream brought nothing new"
                    )),
                );
                return;
            }
            stream.quiet += 1;
            tokio::time::sleep(stream.parser.retry().unwrap_or(DEFAULT_RETRY)).await;
            let mut headers = self.session_headers();
            let Ok(last_value) = HeaderValue::from_str(&last) else {
                self.fail(
                    id,
                    Error::Protocol(format!("an SSE event id that is no header value: {last:?}")),
                );
                return;
            };
            headers.push((HeaderName::from_static("last-event-id"), last_value));
            let mut req = self.request(Method::GET, Bytes::new(), &headers);
            req.headers_mut()
                .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            req.headers_mut().remove(CONTENT_TYPE);
            let resp = match self.hyper.request(req).await {
                Ok(r) => r,
                Err(e) => {
                    self.fail(
                        id,
                        Error::Transport(format!("GET {uri} (resuming): {}", describe(&e, &uri))),
                    );
                    return;
                }
            };
            let sse = resp
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            if !resp.status().is_success() || !sse {
                let status = resp.status().as_u16();
                self.fail(
                    id,
                    Error::Status(
                        status,
                        format!("GET {uri} with Last-Event-ID {last} did not resume the stream"),
                    ),
                );
                return;
            }
            let mut body = resp.into_body();
            if self.read_stream(&mut body, &mut stream, id, None).await {
                return;
            }
        }
    }

    /// The headers of a session's `GET` and `DELETE`: its id and revision (none before
    /// `initialize` was answered).
    fn session_headers(&self) -> Vec<(HeaderName, HeaderValue)> {
        let Some((sid, v)) = lock(&self.session).clone() else {
            return Vec::new();
        };
        let mut h = vec![(HeaderName::from_static("mcp-session-id"), sid)];
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.push((HeaderName::from_static("mcp-protocol-version"), v));
        }
        h
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

    /// Delivers a message event, with the request whose response stream it came on.
    fn deliver(&self, event: Event, within: Option<i64>) {
        if event.data.is_empty() || event.event.as_deref().is_some_and(|e| e != "message") {
            return;
        }
        let line = Bytes::from(event.data);
        (self.sink)(match within {
            Some(id) => Delivery::Within(line, id),
            None => Delivery::Line(line),
        });
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
            let headers = me.session_headers();
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
                        me.deliver(event, None);
                    }
                    if parser.overflowed() {
                        tracing::warn!(
                            "the server's stream sent an event over the size limit: closed"
                        );
                        return;
                    }
                }
            }
        });
    }

    /// The client is closing: a session is ended with `DELETE`.
    async fn goodbye(&self) {
        for (_, h) in lock(&self.flights).drain() {
            h.abort();
        }
        let headers = self.session_headers();
        if lock(&self.session).take().is_none() {
            return;
        }
        let req = self.request(Method::DELETE, Bytes::new(), &headers);
        let _ =
            tokio::time::timeout(std::time::Duration::from_secs(2), self.hyper.request(req)).await;
    }
}

/// The 2024-11-05 HTTP+SSE transport: a `GET` stream whose first event, `endpoint`, names
/// the URL every message is POSTed to; everything the server sends comes on the stream.
/// `hyper` is built for the stream's scheme; `tls` builds another when the POST endpoint is
/// `https` and the stream is not.
pub(crate) async fn sse_writer(
    hyper: Hyper,
    tls: Tls,
    endpoint: Endpoint,
    mut lines: mpsc::UnboundedReceiver<BytesMut>,
    sink: Sink,
    ready: tokio::sync::oneshot::Sender<Result<(), Error>>,
) {
    let shared = Shared {
        hyper,
        endpoint,
        sink: Arc::clone(&sink),
        mirrors: Mirrors::default(),
        max_body: 0,
        session: Mutex::new(None),
        flights: Mutex::new(HashMap::new()),
        get_open: std::sync::atomic::AtomicBool::new(true),
        auth: None,
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
            let why = describe(&e, &url);
            let _ = ready.send(Err(Error::Transport(format!("GET {url}: {why}"))));
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
    let hyper = match (shared.hyper.is_tls(), post_to.scheme_str()) {
        (true, Some("https")) | (false, Some("http")) => shared.hyper.clone(),
        // NB. Messages to a plain endpoint would carry in clear what the stream kept secret.
        (true, _) => {
            let _ = ready.send(Err(Error::Protocol(format!(
                "the https stream {url} named an endpoint that is not https: {post_to}"
            ))));
            return;
        }
        (false, _) => match Hyper::new(&post_to, &tls) {
            Ok(h) => h,
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        },
    };
    let _ = ready.send(Ok(()));
    for e in early {
        shared.deliver(e, None);
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
                if parser.overflowed() {
                    stream_sink(Delivery::Ended(
                        "the server's SSE stream sent an event over the size limit".into(),
                    ));
                    return;
                }
            }
        }
        stream_sink(Delivery::Ended("the server ended its SSE stream".into()));
    });
    let shared = Arc::new(Shared {
        hyper,
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
                Err(e) => {
                    let uri = &me.endpoint.uri;
                    me.fail(
                        id,
                        Error::Transport(format!("POST {uri}: {}", describe(&e, uri))),
                    );
                }
            }
        });
    }
    reading.abort();
    sink(Delivery::Ended("the client closed the connection".into()));
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
