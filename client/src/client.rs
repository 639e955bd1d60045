//! The client: one connection to one server, its lifecycle settled at [`Client::connect`],
//! then requests in flight together (pipelined, matched by id), each with its own timeout.
//!
//! The read path takes a line from the transport, reads it in place with the codec, finds the
//! request it answers and hands over the line itself (no copy): the caller's [`Reply`] holds
//! it, and the normalised results are read from it.

use crate::core::{Core, Forwarded, Identity, Incoming};
use crate::error::{Error, Rejection};
use crate::input::Callbacks;
use crate::result::CallResult;
use crate::spec::ToolSpec;
use crate::tls::Tls;
use crate::transport::{self, Stderr, Transport};
use bytes::{BufMut, Bytes, BytesMut};
use janus_codec::{Id, Parser, ProtocolVersion, RawJson, encode};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

mod book;
mod lifecycle;
mod rounds;
mod tasks;

use book::{Book, Waiter};

use crate::result::ResultType;
pub use lifecycle::{AutoCache, Mode, Negotiated, PROBE_TIMEOUT};

/// The default timeout of a request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default bound on a 2026-07-28 request's input rounds.
pub const DEFAULT_MAX_ROUNDS: usize = 8;

/// How a client connects and behaves.
#[derive(Debug, Clone)]
pub struct Options {
    /// The lifecycle mode.
    pub mode: Mode,
    /// Whether the server's hints are trusted (the safety classes depend on it).
    pub trusted: bool,
    /// The timeout of every request that sets none.
    pub timeout: Duration,
    /// The client's name and version.
    pub name: String,
    /// The client's version.
    pub version: String,
    /// The callbacks for the server's input requests.
    pub callbacks: Callbacks,
    /// The most input rounds of one 2026-07-28 request.
    pub max_rounds: usize,
    /// Where mode `Auto` remembers its outcomes.
    pub cache: AutoCache,
    /// The longest line read from the server.
    pub max_frame: usize,
    /// Where the server's log messages go (else to `tracing`).
    pub logs: Option<mpsc::UnboundedSender<LogMessage>>,
    /// The least severe log level asked of the server (`debug`, `info`, `warning`, ...):
    /// sent with every 2026-07-28 request, and with `logging/setLevel` after a handshake.
    pub log_level: Option<String>,
    /// Where the server's other notifications go (`notifications/tools/list_changed`,
    /// `notifications/resources/updated`, ...): dropped when `None`.
    pub notices: Option<mpsc::UnboundedSender<Notice>>,
    /// How the certificates of `https` servers are checked: the platform's roots, and the CA
    /// files added here. Read only when an HTTP transport's URL is `https`.
    pub tls: Tls,
    /// Authorization for an HTTP server that asks for it (`401`): none by default, and then
    /// such a status is the request's [`Error::Status`].
    pub auth: Option<crate::auth::OAuth>,
    /// Declares the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) on every
    /// request: a server may then answer a `tools/call` with a task, which the call waits
    /// for (polling `tasks/get` as often as the task says, its requests for input answered
    /// by the callbacks with `tasks/update`) and cancels with `tasks/cancel` when it is
    /// cancelled or dropped. Off by default.
    pub tasks: bool,
}

/// A notification of the server's other than progress and log messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Its method (`notifications/tools/list_changed`, say).
    pub method: String,
    /// Its params, as JSON text.
    pub params: Option<String>,
}

/// A log message of the server's (`notifications/message`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogMessage {
    /// Its level.
    pub level: String,
    /// Its logger, if named.
    pub logger: Option<String>,
    /// Its data, as JSON text.
    pub data: String,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            mode: Mode::Legacy,
            trusted: false,
            timeout: DEFAULT_TIMEOUT,
            name: "janus-client".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            callbacks: Callbacks::new(),
            max_rounds: DEFAULT_MAX_ROUNDS,
            cache: AutoCache::global(),
            max_frame: janus_codec::DEFAULT_MAX_FRAME_LEN,
            logs: None,
            log_level: None,
            notices: None,
            tls: Tls::default(),
            auth: None,
            tasks: false,
        }
    }
}

/// A progress notification of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The progress so far.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// A message.
    pub message: Option<String>,
}

/// What one request asks beyond its params.
#[derive(Debug, Default, Clone)]
pub struct CallOptions {
    /// Its timeout (the client's default when `None`); on expiry it is cancelled on the wire.
    pub timeout: Option<Duration>,
    /// Where its progress notifications go (a progress token is sent when set).
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
    /// Cancels it when fired.
    pub cancel: Option<Cancel>,
    /// Declares the 2026-07-28 tasks extension on this request (as [`Options::tasks`] does
    /// on every one): the server may answer it with a task, which the call waits for.
    pub tasks: bool,
    /// Answers this request's 2026-07-28 input (its `input_required` rounds, its task's
    /// `inputRequests`) instead of the connection's callbacks, and a handshake server's
    /// requests that came on this request's HTTP response stream (made for it). Its other
    /// requests for input name no request: they are the connection's callbacks' to answer.
    pub callbacks: Option<Callbacks>,
    /// Made for another client (a gateway's): its client info, capabilities and `_meta`
    /// members go in this request's envelope instead of this connection's.
    pub forwarded: Option<Arc<Forwarded>>,
}

/// A handle that cancels the requests it was given to ([`CallOptions::cancel`]).
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<Fired>);

/// The state a [`Cancel`] and its clones share (one allocation a handle).
#[derive(Debug, Default)]
struct Fired {
    wake: tokio::sync::Notify,
    fired: std::sync::atomic::AtomicBool,
    /// How many [`Paused`] guards hold the timeout of the requests given this handle.
    paused: std::sync::atomic::AtomicUsize,
}

/// While it lives, the requests given a [`Cancel`] do not time out: a request whose server
/// waits for an answer only the caller can give (a person, say) is not the server's delay.
/// Dropped, each such request has its whole timeout again from the next time it is looked at.
#[derive(Debug)]
#[must_use = "the timeout is held only while the guard lives"]
pub struct Paused(Arc<Fired>);

impl Drop for Paused {
    fn drop(&mut self) {
        self.0.paused.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Cancel {
    /// A handle not fired yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the requests given this handle, now and later.
    pub fn fire(&self) {
        self.0.fired.store(true, Ordering::SeqCst);
        self.0.wake.notify_waiters();
    }

    /// Holds the timeout of the requests given this handle while the guard lives.
    pub fn pause_timeout(&self) -> Paused {
        self.0.paused.fetch_add(1, Ordering::SeqCst);
        Paused(Arc::clone(&self.0))
    }

    /// Whether a [`Paused`] guard holds the timeout now.
    pub(crate) fn is_paused(&self) -> bool {
        self.0.paused.load(Ordering::SeqCst) > 0
    }

    /// Resolves once the handle is fired (at once when it was already).
    pub async fn fired(&self) {
        loop {
            let n = self.0.wake.notified();
            if self.0.fired.load(Ordering::SeqCst) {
                return;
            }
            n.await;
        }
    }
}

/// An answer: the line it came in, and where its `result` lies in it.
#[derive(Debug, Clone)]
pub struct Reply {
    line: Bytes,
    start: usize,
    end: usize,
    /// The result's `resultType`, read on the read path.
    kind: ResultType,
    /// A `tools/call` result, read on the read path (the line is parsed once).
    call: Option<ReadCall>,
}

impl Reply {
    /// The `result` as JSON text, exactly as the server wrote it.
    #[must_use]
    pub fn result_str(&self) -> &str {
        std::str::from_utf8(&self.line[self.start..self.end]).unwrap_or("null")
    }

    /// The `result`, read in place.
    #[must_use]
    pub fn result(&self) -> RawJson<'_> {
        RawJson::parse(self.result_str()).unwrap_or_else(|_| {
            RawJson::parse("null").unwrap_or_else(|_| unreachable!("null is JSON"))
        })
    }

    /// The whole line.
    #[must_use]
    pub fn line(&self) -> &Bytes {
        &self.line
    }
}

/// What a waiting request wants of its answer, read while its line is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// The result as it is.
    Raw,
    /// A `tools/call` result.
    Call,
    /// A `tools/call` result to pass on, its blocks unread.
    Pass,
}

/// A `tools/call` result read on the read path, as its request wanted it.
#[derive(Debug, Clone)]
pub(crate) enum ReadCall {
    /// Read into the normalised result.
    Typed(Result<CallResult, String>),
    /// Its blocks as they came.
    AsSent(Result<janus_model::result::ToolResult, String>),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

struct Inner {
    out: mpsc::UnboundedSender<BytesMut>,
    core: Mutex<Core>,
    pending: Book,
    progress: Mutex<HashMap<String, mpsc::UnboundedSender<Progress>>>,
    /// Why the connection ended, once it has.
    closed: Mutex<Option<String>>,
    /// Wakes who waits for the connection to end ([`Client::shutdown`]).
    ended: tokio::sync::Notify,
    callbacks: Callbacks,
    stderr: Stderr,
    tokens: AtomicU64,
    /// Lines the server wrote that were no JSON-RPC message, so far (a few are logged each).
    unreadable: AtomicU64,
    logs: Option<mpsc::UnboundedSender<LogMessage>>,
    notices: Option<mpsc::UnboundedSender<Notice>>,
    /// Over HTTP, the `x-mcp-header` mirrors of the tools listed.
    mirrors: Option<crate::http::Mirrors>,
    /// Over HTTP, the tools left out of the list for their `x-mcp-header` annotations, and
    /// why: they are not called.
    excluded: Mutex<HashMap<String, String>>,
    /// True once every page of `tools/list` was read on this connection.
    listed: std::sync::atomic::AtomicBool,
    /// Held while a call lists the tools to learn their mirrors, so that calls made together
    /// list them once.
    listing: tokio::sync::Mutex<()>,
}

impl Inner {
    fn new(
        out: mpsc::UnboundedSender<BytesMut>,
        identity: Identity,
        callbacks: Callbacks,
        stderr: Stderr,
        mirrors: Option<crate::http::Mirrors>,
        (logs, notices): (
            Option<mpsc::UnboundedSender<LogMessage>>,
            Option<mpsc::UnboundedSender<Notice>>,
        ),
    ) -> Arc<Self> {
        Arc::new(Self {
            out,
            core: Mutex::new(Core::new(identity, ProtocolVersion::V2025_11_25)),
            pending: Book::new(),
            progress: Mutex::new(HashMap::new()),
            closed: Mutex::new(None),
            ended: tokio::sync::Notify::new(),
            callbacks,
            stderr,
            tokens: AtomicU64::new(0),
            unreadable: AtomicU64::new(0),
            mirrors,
            excluded: Mutex::new(HashMap::new()),
            listed: std::sync::atomic::AtomicBool::new(false),
            listing: tokio::sync::Mutex::new(()),
            logs,
            notices,
        })
    }

    fn closed_error(&self) -> Error {
        let why = lock(&self.closed)
            .clone()
            .unwrap_or_else(|| "the connection is closed".into());
        let tail = self.stderr.text();
        if tail.is_empty() {
            Error::Session(why)
        } else {
            Error::Session(format!("{why}{}{tail}", crate::error::STDERR_TAIL))
        }
    }

    /// A line over the frame cap was dropped: when it started as a plain answer, the request
    /// it answered fails now, saying so, not at its timeout.
    fn oversize(&self, head: &[u8], max_frame: usize) {
        if let Some(w) = book::plain_answer_id(head).and_then(|id| self.pending.remove(id)) {
            let why = format!("its answer is longer than the {max_frame} bytes a line may take");
            let _ = w.tx.send(Err(Error::Protocol(why)));
        }
    }

    /// One line from the server (`within`: the request whose response stream it came on).
    fn dispatch(self: &Arc<Self>, line: Bytes, within: Option<i64>) {
        let msg = match Parser::new().parse_single(&line) {
            Ok(msg) => msg,
            Err(e) => {
                // NB. A server that floods its stdout with text is not let flood the log:
                // the first lines are told, then one in a thousand, with the count.
                let n = self.unreadable.fetch_add(1, Ordering::Relaxed) + 1;
                if n <= 10 || n.is_multiple_of(1000) {
                    tracing::warn!(
                        "the server wrote a line that is no JSON-RPC message ({}; {n} so far): {}",
                        e.error,
                        String::from_utf8_lossy(&line[..line.len().min(200)])
                    );
                }
                // NB. An answer that cannot be read (too deep, not UTF-8, ...) but says
                // plainly whose it is fails its request now, not at its timeout.
                if let Some(w) = book::plain_answer_id(&line).and_then(|id| self.pending.remove(id))
                {
                    let why = format!("its answer could not be read: {}", e.error);
                    let _ = w.tx.send(Err(Error::Protocol(why)));
                }
                return;
            }
        };
        match Incoming::of(msg) {
            Incoming::Answer { id, outcome } => {
                let Some(w) = self.pending.remove(id) else {
                    return;
                };
                let answer = match outcome {
                    Ok(r) => {
                        // NB. The result's place in the line, so the reply holds the line.
                        let start = r.as_str().as_ptr() as usize - line.as_ptr() as usize;
                        let end = start + r.as_str().len();
                        let (kind, call) = match w.want {
                            Want::Raw => {
                                (ResultType::in_revision(r.get("resultType"), w.modern), None)
                            }
                            Want::Call => {
                                let (kind, call) = CallResult::read(r, w.modern);
                                (kind, call.map(ReadCall::Typed))
                            }
                            Want::Pass => {
                                let (kind, call) = crate::result::read_as_sent(r, w.modern);
                                (kind, call.map(ReadCall::AsSent))
                            }
                        };
                        Ok(Reply {
                            line: line.clone(),
                            start,
                            end,
                            kind,
                            call,
                        })
                    }
                    Err(rej) => Err(Error::Rejected(rej)),
                };
                let _ = w.tx.send(answer);
            }
            Incoming::Request { id, msg } => self.serve_request(id, &msg, within),
            Incoming::Notification(msg) => self.notified(&msg),
            Incoming::Stray => {}
        }
    }

    /// Answers a request of the server's: `ping` at once; a request for input with the
    /// callbacks of the request it was made for when it came on that request's response
    /// stream and the request has its own ([`CallOptions::callbacks`]), else with the
    /// connection's.
    fn serve_request(
        self: &Arc<Self>,
        id: Id<'_>,
        msg: &janus_codec::Message<'_>,
        within: Option<i64>,
    ) {
        let id = id.as_raw().to_owned();
        if msg.method() == "ping" {
            self.send_answer(&id, Ok("{}".into()));
            return;
        }
        let params = msg
            .params()
            .map_or_else(|| "{}".to_owned(), |p| p.as_str().to_owned());
        let own = within.and_then(|r| self.pending.callbacks_of(r));
        let answer = own
            .as_ref()
            .unwrap_or(&self.callbacks)
            .answer(msg.method(), params);
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let a = answer.await;
            me.send_answer(&id, a);
        });
    }

    fn send_answer(&self, id: &str, a: Result<String, Rejection>) {
        let mut out = BytesMut::new();
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(id.as_bytes());
        match a {
            Ok(result) if RawJson::parse(&result).is_ok_and(|r| r.is_object()) => {
                out.extend_from_slice(br#","result":"#);
                out.extend_from_slice(result.as_bytes());
            }
            other => {
                let r = other.err().unwrap_or_else(|| Rejection {
                    code: janus_codec::INTERNAL_ERROR.into(),
                    message: "The client's answer was not a JSON object".into(),
                    data: None,
                });
                out.extend_from_slice(br#","error":{"code":"#);
                encode::write_i64(&mut out, r.code);
                out.extend_from_slice(br#","message":"#);
                encode::write_str(&mut out, &r.message);
                if let Some(d) = &r.data {
                    out.extend_from_slice(br#","data":"#);
                    out.extend_from_slice(d.as_bytes());
                }
                out.put_u8(b'}');
            }
        }
        encode::end_message(&mut out);
        let _ = self.out.send(out);
    }

    fn notified(&self, msg: &janus_codec::Message<'_>) {
        match msg.method() {
            "notifications/progress" => {
                let Some(token) = msg.param("progressToken") else {
                    return;
                };
                let sink = lock(&self.progress).get(token.as_str()).cloned();
                if let Some(sink) = sink {
                    let num = |k: &str| msg.param(k).and_then(|v| v.as_str().parse::<f64>().ok());
                    let _ = sink.send(Progress {
                        progress: num("progress").unwrap_or(0.0),
                        total: num("total"),
                        message: msg
                            .param("message")
                            .and_then(RawJson::as_string)
                            .map(std::borrow::Cow::into_owned),
                    });
                }
            }
            "notifications/message" => {
                let level = msg.param("level").and_then(RawJson::as_string);
                let data = msg.param("data").map_or("null", RawJson::as_str);
                match &self.logs {
                    Some(sink) => {
                        let _ = sink.send(LogMessage {
                            level: level
                                .map_or_else(|| "info".into(), std::borrow::Cow::into_owned),
                            logger: msg
                                .param("logger")
                                .and_then(RawJson::as_string)
                                .map(std::borrow::Cow::into_owned),
                            data: crate::json::compact(data),
                        });
                    }
                    None => tracing::info!(
                        target: "janus_client::server_log",
                        level = level.as_deref().unwrap_or("info"),
                        "{data}"
                    ),
                }
            }
            method => {
                if let Some(sink) = &self.notices {
                    let _ = sink.send(Notice {
                        method: method.to_owned(),
                        params: msg.params().map(|p| p.as_str().to_owned()),
                    });
                }
            }
        }
    }

    /// Tells the server that request `id` is no longer waited for.
    fn cancel_on_wire(&self, id: i64, reason: &str) {
        let mut members = BytesMut::new();
        members.extend_from_slice(br#""requestId":"#);
        encode::write_i64(&mut members, id);
        members.extend_from_slice(br#","reason":"#);
        encode::write_str(&mut members, reason);
        let members = String::from_utf8_lossy(&members).into_owned();
        let line = lock(&self.core).notification("notifications/cancelled", &members);
        let _ = self.out.send(line);
    }

    /// The input ended: every request waiting gets the reason.
    fn close(&self, why: String) {
        lock(&self.closed).get_or_insert(why);
        let waiting = self.pending.drain();
        for w in waiting {
            let _ = w.tx.send(Err(self.closed_error()));
        }
        lock(&self.progress).clear();
        self.ended.notify_waiters();
    }
}

impl book::Expired for Inner {
    fn book(&self) -> &Book {
        &self.pending
    }

    fn cancel_on_wire(&self, id: i64, reason: &str) {
        Self::cancel_on_wire(self, id, reason);
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.pending.wake_sweeper();
    }
}

/// A measurement hook, not an API: the client's read path alone (the framing of a buffer of
/// answers, the codec's parse, the match to the request waiting), as the allocation test and
/// `janus bench` count it.
#[doc(hidden)]
pub struct ReadPath {
    inner: Arc<Inner>,
    waiting: Vec<oneshot::Receiver<Result<Reply, Error>>>,
    codec: janus_codec::FrameCodec,
}

impl ReadPath {
    /// `n` requests waiting, with ids 1 to `n`.
    #[must_use]
    pub fn new(n: usize) -> Self {
        let (out, _) = mpsc::unbounded_channel();
        let identity = Identity::new("probe", "0", "{}");
        let inner = Inner::new(
            out,
            identity,
            Callbacks::new(),
            Stderr::default(),
            None,
            (None, None),
        );
        let mut waiting = Vec::with_capacity(n);
        {
            inner.pending.reserve(n);
            let deadline = book::deadline(DEFAULT_TIMEOUT);
            for id in 1..=n {
                let (tx, rx) = oneshot::channel();
                let w = Waiter {
                    tx,
                    want: Want::Raw,
                    deadline,
                    timeout: DEFAULT_TIMEOUT,
                    callbacks: None,
                    modern: true,
                    cancel: None,
                };
                inner
                    .pending
                    .insert(i64::try_from(id).unwrap_or(i64::MAX), w);
                waiting.push(rx);
            }
        }
        Self {
            inner,
            waiting,
            codec: janus_codec::FrameCodec::new(),
        }
    }

    /// Frames what `buf` holds and hands each line to the read path; returns the lines.
    pub fn feed(&mut self, buf: &mut BytesMut) -> usize {
        let mut n = 0;
        while let Some(f) = self.codec.decode_frame(buf) {
            if let janus_codec::Frame::Line(line) = f {
                self.inner.dispatch(line, None);
                n += 1;
            }
        }
        n
    }

    /// How many of the requests got an answer.
    pub fn answered(&mut self) -> usize {
        self.waiting
            .iter_mut()
            .map(|r| r.try_recv())
            .filter(|r| matches!(r, Ok(Ok(_))))
            .count()
    }
}

/// Removes a request from the book when its call ends early (a timeout, a cancel, the
/// caller's future dropped), and cancels it on the wire.
struct InFlight<'a> {
    inner: &'a Inner,
    id: i64,
    token: Option<String>,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Some(t) = &self.token {
            lock(&self.inner.progress).remove(t);
        }
        if !self.done && self.inner.pending.remove(self.id).is_some() {
            self.inner
                .cancel_on_wire(self.id, "The caller no longer waits for this request");
        }
    }
}

/// A connection to one MCP server.
pub struct Client {
    inner: Arc<Inner>,
    negotiated: Negotiated,
    trusted: bool,
    timeout: Duration,
    max_rounds: usize,
    child: Option<transport::Process>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("negotiated", &self.negotiated)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to the server `transport` names and settles the revision as `opts.mode`
    /// says.
    ///
    /// # Errors
    ///
    /// The transport's failure; the server's rejection of the handshake; a revision the
    /// client does not speak ([`Error::Protocol`]).
    pub async fn connect(transport: Transport, opts: Options) -> Result<Self, Error> {
        let key = transport.key();
        let (out, lines) = mpsc::unbounded_channel();
        let caps = opts.callbacks.capabilities();
        let identity = Identity::new(&opts.name, &opts.version, &caps);
        let callbacks = opts.callbacks.clone();
        let mut identity = identity;
        identity.log_level.clone_from(&opts.log_level);
        if opts.tasks {
            identity.extensions = Some(crate::core::TASKS_EXTENSION.to_owned());
        }
        let sinks = (opts.logs.clone(), opts.notices.clone());
        let new_inner =
            |stderr, mirrors| Inner::new(out, identity, callbacks, stderr, mirrors, sinks);
        if let Transport::Http { url, headers } | Transport::Sse { url, headers } = &transport {
            let endpoint = crate::http::Endpoint::new(url, headers)?;
            // NB. Built here, not in the writer, so that a CA file that cannot be read is the
            // error of `connect`.
            let hyper = crate::tls::Hyper::new(&endpoint.uri, &opts.tls)?;
            let mirrors = crate::http::Mirrors::default();
            let streamable = matches!(transport, Transport::Http { .. });
            let inner = new_inner(Stderr::default(), streamable.then(|| Arc::clone(&mirrors)));
            let weak = Arc::downgrade(&inner);
            let sink: crate::http::Sink = Arc::new(move |d| {
                let Some(inner) = weak.upgrade() else { return };
                match d {
                    crate::http::Delivery::Line(line) => inner.dispatch(line, None),
                    crate::http::Delivery::Within(line, id) => inner.dispatch(line, Some(id)),
                    crate::http::Delivery::Failed(id, e) => {
                        if let Some(w) = inner.pending.remove(id) {
                            let _ = w.tx.send(Err(e));
                        }
                    }
                    crate::http::Delivery::Ended(why) => inner.close(why),
                }
            });
            if streamable {
                let max = opts.max_frame;
                let auth = opts.auth.clone();
                tokio::spawn(crate::http::writer(
                    hyper, endpoint, lines, sink, mirrors, max, auth,
                ));
            } else {
                let (ready, opened) = oneshot::channel();
                let tls = opts.tls.clone();
                tokio::spawn(crate::http::sse_writer(
                    hyper, tls, endpoint, lines, sink, ready,
                ));
                opened
                    .await
                    .map_err(|_| Error::Transport("the SSE stream did not open".into()))??;
            }
            return Self::settled(inner, None, opts, key).await;
        }
        let opened = transport::open(transport).await?;
        let inner = new_inner(opened.stderr, None);
        tokio::spawn(transport::writer(opened.write, lines));
        let weak = Arc::downgrade(&inner);
        let max_frame = opts.max_frame;
        let stderr_done = opened.stderr_done;
        tokio::spawn(async move {
            let over = weak.clone();
            let why = transport::reader(
                opened.read,
                max_frame,
                |line| {
                    if let Some(inner) = weak.upgrade() {
                        inner.dispatch(line, None);
                    }
                },
                |head| {
                    if let Some(inner) = over.upgrade() {
                        inner.oversize(head, max_frame);
                    }
                },
            )
            .await;
            // NB. A child that exits says why on its stderr: the error waits a moment for it.
            if let Some(done) = stderr_done {
                let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
            }
            if let Some(inner) = weak.upgrade() {
                inner.close(why);
            }
        });
        Self::settled(inner, opened.child, opts, key).await
    }

    /// The client on a connection already open, its lifecycle settled.
    async fn settled(
        inner: Arc<Inner>,
        child: Option<transport::Process>,
        opts: Options,
        key: Option<String>,
    ) -> Result<Self, Error> {
        tokio::spawn(book::sweep(Arc::downgrade(&inner)));
        let mut client = Self {
            inner,
            negotiated: Negotiated {
                version: ProtocolVersion::V2025_11_25,
                server_info: None,
                capabilities: None,
                instructions: None,
            },
            trusted: opts.trusted,
            timeout: opts.timeout,
            max_rounds: opts.max_rounds,
            child,
        };
        client.negotiated = client.settle(opts.mode, key, &opts.cache).await?;
        lock(&client.inner.core).set_version(client.negotiated.version);
        Ok(client)
    }

    /// Ends the connection as the stdio transport says: the server's input is closed, its
    /// process given `grace` to exit, then sent SIGTERM and given `grace` again, then
    /// killed, with whatever it started and left running (its process group). Requests
    /// still waiting get [`Error::Session`]. (Dropping the client kills the process and its
    /// group at once.)
    pub async fn close(mut self, grace: Duration) {
        let _ = self.inner.out.send(BytesMut::new());
        if let Some(mut p) = self.child.take()
            && tokio::time::timeout(grace, p.child.wait()).await.is_err()
        {
            tracing::debug!("the server did not exit when its input closed: SIGTERM");
            p.terminate();
            if tokio::time::timeout(grace, p.child.wait()).await.is_err() {
                let _ = p.child.kill().await;
            }
        }
    }

    /// [`Client::close`] for a client that is shared (a bridge's, whose requests hold it
    /// too): the server's input is closed (an HTTP session is ended with `DELETE`), and a
    /// server's process is given `grace` to exit; one still running is then sent SIGTERM,
    /// with whatever it started (its process group), and given `grace` again, as the stdio
    /// transport's shutdown asks. What is left is killed when the last holder drops the
    /// client. Requests still waiting get [`Error::Session`].
    pub async fn shutdown(&self, grace: Duration) {
        let _ = self.inner.out.send(BytesMut::new());
        let Some(p) = &self.child else {
            // NB. Over HTTP the connection ends once the session's DELETE is answered.
            self.ended_within(grace).await;
            return;
        };
        if self.ended_within(grace).await {
            return;
        }
        tracing::debug!("the server did not exit when its input closed: SIGTERM");
        p.terminate();
        self.ended_within(grace).await;
    }

    /// Waits at most `grace` for the connection to end (a process's output to close): true
    /// when it did.
    async fn ended_within(&self, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let ended = self.inner.ended.notified();
            if self.is_closed() {
                return true;
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                return self.is_closed();
            }
        }
    }

    /// What the lifecycle settled.
    #[must_use]
    pub const fn negotiated(&self) -> &Negotiated {
        &self.negotiated
    }

    /// Whether the connection has ended (the server's process exited, its stream closed):
    /// every request from now on fails with [`Error::Session`].
    #[must_use]
    pub fn is_closed(&self) -> bool {
        lock(&self.inner.closed).is_some()
    }

    /// The last bytes the server's process wrote to its stderr (empty for other transports).
    #[must_use]
    pub fn stderr(&self) -> String {
        self.inner.stderr.text()
    }

    /// Sends one request and waits for its answer. `members` are the params' members as
    /// JSON text without braces (`""` for none).
    ///
    /// # Errors
    ///
    /// [`Error::Rejected`] for a JSON-RPC error; [`Error::Timeout`] (the request is
    /// cancelled on the wire); [`Error::Cancelled`]; [`Error::Session`] when the
    /// connection ended first.
    pub async fn request(
        &self,
        method: &str,
        members: &str,
        opts: CallOptions,
    ) -> Result<Reply, Error> {
        let timeout = opts.timeout.unwrap_or(self.timeout);
        self.raw_request(method, &[members], None, timeout, Some(opts), Want::Raw)
            .await
    }

    /// A request whose params' members are the pieces of `members` joined. A 2026-07-28
    /// request the server refuses with UnsupportedProtocolVersion (`-32022`) is made again,
    /// once, with a new id, in the newest modern revision its `data.supported` lists that the
    /// client speaks (the spec's version negotiation); the connection keeps that revision
    /// when the request was in the connection's own.
    async fn raw_request(
        &self,
        method: &str,
        members: &[&str],
        envelope: Option<ProtocolVersion>,
        timeout: Duration,
        opts: Option<CallOptions>,
        want: Want,
    ) -> Result<Reply, Error> {
        let again = opts.clone();
        let sent = envelope.unwrap_or_else(|| lock(&self.inner.core).version());
        let first = self
            .send(method, members, envelope, timeout, opts, want)
            .await;
        let version = match &first {
            Err(Error::Rejected(rej)) if sent.is_modern() => crate::core::supported_modern(rej),
            _ => None,
        };
        let Some(version) = version else {
            return first;
        };
        tracing::debug!(
            "{method}: the server does not take revision {sent}; trying {version}, which it lists"
        );
        if envelope.is_none() {
            lock(&self.inner.core).set_version(version);
        }
        let envelope = envelope.map(|_| version);
        // NB. Boxed: the rare second attempt would double the size of every request's
        // future.
        Box::pin(self.send(method, members, envelope, timeout, again, want)).await
    }

    /// One request on the wire, and its answer.
    async fn send(
        &self,
        method: &str,
        members: &[&str],
        envelope: Option<ProtocolVersion>,
        timeout: Duration,
        opts: Option<CallOptions>,
        want: Want,
    ) -> Result<Reply, Error> {
        let inner = &*self.inner;
        let (progress, cancel, tasks, forwarded, callbacks) = opts
            .map_or((None, None, false, None, None), |o| {
                (o.progress, o.cancel, o.tasks, o.forwarded, o.callbacks)
            });
        let token = progress.as_ref().map(|_| {
            let n = inner.tokens.fetch_add(1, Ordering::Relaxed) + 1;
            format!("\"p{n}\"")
        });
        let (tx, rx) = oneshot::channel();
        let (id, line, modern) = {
            let mut core = lock(&inner.core);
            let modern = envelope.unwrap_or_else(|| core.version()).is_modern();
            let (id, line) = core.request(
                method,
                members,
                token.as_deref(),
                envelope,
                tasks,
                forwarded.as_deref(),
            );
            (id, line, modern)
        };
        if let (Some(t), Some(p)) = (&token, progress) {
            lock(&inner.progress).insert(t.clone(), p);
        }
        let w = Waiter {
            tx,
            want,
            deadline: book::deadline(timeout),
            timeout,
            callbacks,
            modern,
            cancel: cancel.clone(),
        };
        inner.pending.insert(id, w);
        let mut flight = InFlight {
            inner,
            id,
            token,
            done: false,
        };
        if lock(&inner.closed).is_some() || inner.out.send(line).is_err() {
            flight.done = true;
            inner.pending.remove(id);
            return Err(inner.closed_error());
        }
        // NB. The book's sweeper times the request out: it sends the error through `rx`.
        let answer = match &cancel {
            None => rx.await,
            Some(c) => tokio::select! {
                answer = rx => answer,
                () = c.fired() => {
                    if inner.pending.remove(id).is_some() {
                        inner.cancel_on_wire(id, "The caller cancelled the request");
                    }
                    flight.done = true;
                    return Err(Error::Cancelled);
                }
            },
        };
        flight.done = true;
        answer.unwrap_or_else(|_| Err(inner.closed_error()))
    }

    /// `tools/list`, every page followed.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; [`Error::Protocol`] for a result that is no list of tools.
    /// A single entry that is no tool is left out, with a warning.
    pub async fn list_tools(&self) -> Result<Vec<ToolSpec>, Error> {
        let specs = self.list_tool_specs().await?;
        Ok(specs
            .into_iter()
            .map(|s| ToolSpec::of(s, self.trusted))
            .collect())
    }

    /// `tools/list`, every page followed: each tool as the model reads it, as the server
    /// described it (what a bridge serves again).
    ///
    /// # Errors
    ///
    /// As [`Client::list_tools`].
    pub async fn list_tool_specs(&self) -> Result<Vec<janus_model::tool::ToolSpec>, Error> {
        let mut tools = Vec::new();
        self.list_pages("tools/list", "tools", |t| {
            let read = janus_model::tool::ToolSpec::read(t).and_then(|s| {
                self.mirror(ToolSpec::of(s.clone(), self.trusted))
                    .map(|_| s)
            });
            match read {
                Ok(spec) => tools.push(spec),
                Err(why) => tracing::warn!("tools/list: left out: {why}"),
            }
        })
        .await?;
        self.inner.listed.store(true, Ordering::SeqCst);
        Ok(tools)
    }

    /// Every page of a list (`method`), each entry of its array `key` handed to `each`.
    pub(crate) async fn list_pages(
        &self,
        method: &str,
        key: &str,
        mut each: impl FnMut(RawJson<'_>),
    ) -> Result<(), Error> {
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let members = cursor.as_ref().map_or_else(String::new, |c| {
                let mut m = BytesMut::new();
                m.extend_from_slice(br#""cursor":"#);
                encode::write_str(&mut m, c);
                String::from_utf8_lossy(&m).into_owned()
            });
            let reply = self
                .request(method, &members, CallOptions::default())
                .await?;
            reply.kind.check()?;
            let r = reply.result();
            let [list, next] = r.get_many([key, "nextCursor"]);
            let list = list.filter(|l| l.is_array()).ok_or_else(|| {
                Error::Protocol(format!("a {method} result without a {key} array"))
            })?;
            for t in list.elements() {
                each(t);
            }
            match next.and_then(RawJson::as_string) {
                // NB. A cursor seen already would list the same pages for ever.
                Some(c) if !c.is_empty() => {
                    if !seen.insert(c.to_string()) {
                        return Err(Error::Protocol(format!(
                            "{method} gave the cursor {c:?} twice: its pages go round in a loop"
                        )));
                    }
                    cursor = Some(c.into_owned());
                }
                _ => return Ok(()),
            }
        }
        Err(Error::Protocol(format!(
            "{method} never ended (10,000 pages)"
        )))
    }

    /// A request whose input rounds are served as a tool call's are: its complete reply.
    pub(crate) async fn complete_request(
        &self,
        method: &str,
        members: &str,
        opts: CallOptions,
    ) -> Result<Reply, Error> {
        self.request_with_input(method, &[members], opts, Want::Raw)
            .await
    }

    /// Over HTTP, a tool's `x-mcp-header` annotations: remembered for its calls, or (when
    /// they break the rules) the reason the tool is left out.
    fn mirror(&self, spec: ToolSpec) -> Result<ToolSpec, String> {
        let Some(mirrors) = &self.inner.mirrors else {
            return Ok(spec);
        };
        if self.negotiated.version.is_handshake() {
            return Ok(spec);
        }
        let m = match crate::http::mirrors_of(&spec.input_schema) {
            Ok(m) => m,
            Err(why) => {
                let why = format!("tool {}: {why}", spec.name);
                lock(&self.inner.excluded).insert(spec.name, why.clone());
                return Err(why);
            }
        };
        lock(&self.inner.excluded).remove(&spec.name);
        let mut all = lock(mirrors);
        if m.is_empty() {
            all.remove(&spec.name);
        } else {
            all.insert(spec.name.clone(), m);
        }
        Ok(spec)
    }

    /// Over 2026-07-28 HTTP, a call must carry the `Mcp-Param-*` headers its tool's schema
    /// asks for (`x-mcp-header`), so the schema must be known: when the tools were not listed
    /// on this connection yet, they are listed first (once). A tool left out of the list for
    /// its annotations is not called.
    async fn know_tool(&self, name: &str) -> Result<(), Error> {
        if self.inner.mirrors.is_none() || self.negotiated.version.is_handshake() {
            return Ok(());
        }
        if !self.inner.listed.load(Ordering::SeqCst) {
            let _one = self.inner.listing.lock().await;
            if !self.inner.listed.load(Ordering::SeqCst) {
                match self.list_tools().await {
                    Ok(_) => {}
                    // NB. A server that refuses to list may still take the call: it is made,
                    // with no headers to mirror.
                    Err(Error::Rejected(rej)) => {
                        tracing::warn!(
                            "tools/list, to learn the x-mcp-header mirrors of {name}: {}",
                            rej.message
                        );
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        match lock(&self.inner.excluded).get(name) {
            Some(why) => Err(Error::Protocol(format!(
                "not called, as the spec says of a tool with invalid x-mcp-header annotations: {why}"
            ))),
            None => Ok(()),
        }
    }

    /// `tools/call` of `name` with `arguments` (a JSON object as text, or `None`). Over
    /// 2026-07-28 HTTP the tools are listed first when they were not yet on this connection,
    /// to learn which arguments the call mirrors into `Mcp-Param-*` headers.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; [`Error::Protocol`] for a result that is no call result, or a
    /// tool left out of the list for invalid `x-mcp-header` annotations. A tool that failed
    /// is no error: its result has `is_error`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<&str>,
        opts: CallOptions,
    ) -> Result<CallResult, Error> {
        if let Some(a) = arguments
            && !RawJson::parse(a).is_ok_and(|a| a.is_object())
        {
            return Err(Error::Config("the arguments must be a JSON object".into()));
        }
        let mut reply = self
            .call_tool_reply(name, arguments, opts, Want::Call)
            .await?;
        match reply.call.take() {
            Some(ReadCall::Typed(r)) => r.map_err(Error::Protocol),
            _ => CallResult::from_wire(reply.result()).map_err(Error::Protocol),
        }
    }

    /// [`Client::call_tool`] for a gateway that passes the result on to a client whose
    /// revision has every content block type this server's has: the model's
    /// [`ToolResult`](janus_model::result::ToolResult) with each block as the server wrote
    /// it ([`Content::as_sent`](janus_model::content::Content::as_sent)), and
    /// `structuredContent` and `_meta` as they came (without a 2026-07-28 server's stamp),
    /// none of them read or written again. The `arguments` are JSON already (a value of its
    /// client's request, say): they are not checked again, but for being an object.
    ///
    /// # Errors
    ///
    /// As [`Client::call_tool`].
    pub async fn call_tool_as_sent(
        &self,
        name: &str,
        arguments: Option<&janus_model::json::Json>,
        opts: CallOptions,
    ) -> Result<janus_model::result::ToolResult, Error> {
        if arguments.is_some_and(|a| !a.is_object()) {
            return Err(Error::Config("the arguments must be a JSON object".into()));
        }
        let arguments = arguments.map(janus_model::json::Json::as_str);
        let mut reply = self
            .call_tool_reply(name, arguments, opts, Want::Pass)
            .await?;
        match reply.call.take() {
            Some(ReadCall::AsSent(r)) => r.map_err(Error::Protocol),
            _ => crate::result::complete(crate::result::read_as_sent(reply.result(), true))
                .map_err(Error::Protocol),
        }
    }

    /// Sends `tools/call` (its `arguments` checked: one JSON object) and waits for its
    /// answer, read as `want` says.
    async fn call_tool_reply(
        &self,
        name: &str,
        arguments: Option<&str>,
        opts: CallOptions,
        want: Want,
    ) -> Result<Reply, Error> {
        // NB. The params are written straight into the request's line, in pieces: a name
        // that needs no escapes is used as it is.
        let escaped;
        let name_json: [&str; 3] = if name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            ["\"", name, "\""]
        } else {
            let mut m = BytesMut::with_capacity(name.len() + 8);
            encode::write_str(&mut m, name);
            escaped = String::from_utf8_lossy(&m).into_owned();
            ["", &escaped, ""]
        };
        let mut members = [
            r#""name":"#,
            name_json[0],
            name_json[1],
            name_json[2],
            "",
            "",
        ];
        if let Some(a) = arguments {
            members[4] = r#","arguments":"#;
            members[5] = a;
        }
        self.know_tool(name).await?;
        self.request_with_input("tools/call", &members, opts, want)
            .await
    }

    /// `server/discover` (a 2026-07-28 server; the result as JSON text).
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn discover(&self) -> Result<Reply, Error> {
        self.raw_request(
            "server/discover",
            &[],
            Some(ProtocolVersion::V2026_07_28),
            self.timeout,
            None,
            Want::Raw,
        )
        .await
    }
}
