//! What a handler knows of the request it serves, and where its notifications go.
//!
//! - [`Ctx`]: borrowed from the request frame, handed to every handler; building it costs a
//!   few copies of pointers.
//! - [`Context`]: the owned form ([`Ctx::to_owned`]), for work that goes on after the
//!   handler returns (an asynchronous tool's future).
//! - [`Notify`]: where the notifications of running work go; the driver gives one to the
//!   connection, and routes what comes out of it back through the connection, which drops
//!   what belongs to work that was cancelled or has ended.
//!
//! Progress goes out only when the request carried `_meta.progressToken`, and only when it
//! increases; log records only at or above the level in force for the request
//! (`decisions.md`, "Server surface").

use bytes::{Bytes, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{Era, Id, IdBuf, Message, ProtocolVersion, RawJson};
use janus_model::json::{Json, number};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

/// A piece of asynchronous work of one connection: unique for the connection's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub(crate) u64);

impl JobId {
    /// The connection itself, not one of its jobs: its notifications (a session's
    /// `list_changed`) are always written.
    pub const CONNECTION: Self = Self(0);

    /// The number behind the id (for logs and for transports' own maps).
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }
}

/// The client connection a request came on ([`Ctx::peer`]): one stdio or TCP connection,
/// or one handshake session over streamable HTTP, is one peer; each 2026-07-28 request over
/// HTTP is a peer of its own (nothing says two come from one client). Only the keys of
/// requests in flight together compare: a connection that ended may leave its key to a new
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PeerKey(usize);

/// The key of the connection whose notifications go to `notify`: the driver gives each
/// connection (and each stateless request) one of its own.
fn peer_of(notify: &Arc<dyn Notify>) -> PeerKey {
    PeerKey(Arc::as_ptr(notify).cast::<()>().addr())
}

/// Where the notifications of running work go (one encoded line each, `\n` included).
///
/// The driver hands what it receives back to its connection
/// ([`crate::Connection::handle_note`]), which writes it only while the job is live.
pub trait Notify: Send + Sync + 'static {
    /// A notification of job `job`.
    fn notify(&self, job: JobId, line: Bytes);

    /// Job `job` asks to end the connection its messages ride now, not its stream
    /// ([`Ctx::close_stream`]); a transport without resumable streams ignores it.
    fn close_stream(&self, job: JobId) {
        let _ = job;
    }
}

/// A [`Notify`] that drops everything (a connection without a driver that listens).
#[derive(Debug, Clone, Copy, Default)]
pub struct Discard;

impl Notify for Discard {
    fn notify(&self, _: JobId, _: Bytes) {}
}

/// The severity of a log record (RFC 5424, as MCP's `LoggingLevel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, lowest first.
    pub const ALL: [Self; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }

    /// The level a wire value names.
    #[must_use]
    pub fn from_wire(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// Tells work that its request was cancelled. Cloning shares the signal.
#[derive(Debug, Clone, Default)]
pub struct CancelSignal(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    /// NB. Inline room for one: a request's work waits on its signal from one place (a
    /// vector would allocate for every job that waits).
    wakers: Mutex<smallvec::SmallVec<[Waker; 1]>>,
}

impl CancelSignal {
    /// Raises the signal: every waiter wakes.
    pub(crate) fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut *self.0.wakers.lock().unwrap_or_else(|e| e.into_inner()));
        for w in wakers {
            w.wake();
        }
    }

    /// True once the request was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Acquire)
    }

    /// Resolves when the request is cancelled (for work that must clean up: the driver also
    /// drops the work's future at a cancel).
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        let state = Arc::clone(&self.0);
        std::future::poll_fn(move |cx| {
            // The waker is stored before the flag is read, so a cancel is never missed.
            {
                let mut wakers = state.wakers.lock().unwrap_or_else(|e| e.into_inner());
                if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    wakers.push(cx.waker().clone());
                }
            }
            if state.cancelled.load(Ordering::Acquire) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

/// What a legacy session's `initialize` said of the client.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// JSON text, from a frame the codec checked.
    pub(crate) capabilities: Option<String>,
    pub(crate) client_info: Option<String>,
    /// The least severe log level sent; `None`: no log records.
    pub(crate) log_level: Option<LogLevel>,
}

/// Who a verified token speaks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Principal {
    /// The token's subject (`sub`).
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id` or `azp`).
    pub client_id: Option<String>,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
}

impl Principal {
    /// A principal with these fields.
    #[must_use]
    pub fn new(subject: Option<String>, client_id: Option<String>, scopes: Vec<String>) -> Self {
        Self {
            subject,
            client_id,
            scopes,
        }
    }

    /// True when one of the token's scopes is `scope` or a broader one: `files` grants
    /// `files:read` (the specification asks servers to honour scope hierarchies; this one is
    /// the colon-separated prefix).
    #[must_use]
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| {
            scope == s
                || scope
                    .strip_prefix(s.as_str())
                    .is_some_and(|rest| rest.starts_with(':'))
        })
    }
}

/// What a request says of itself: read from its envelope (or its session's `initialize`) only
/// when a handler asks, so a handler that asks nothing costs nothing.
#[derive(Clone, Copy)]
pub(crate) struct RequestInfo<'a> {
    /// Who the transport's authorization says the caller is.
    pub(crate) principal: Option<&'a Principal>,
    pub(crate) id: Id<'a>,
    pub(crate) version: ProtocolVersion,
    pub(crate) msg: &'a Message<'a>,
    /// The legacy session; `None` in the modern era, where the envelope says it all.
    pub(crate) session: Option<&'a Session>,
    /// The client's answers to the server's input requests, when this is a retry (modern)
    /// or a replay (legacy).
    pub(crate) inputs: Option<&'a crate::api::input::Inputs>,
}

/// What the client says of itself: a legacy session's (`Some`), kept as text and read
/// again here, or else this request's own, a value of its frame that the codec checked,
/// taken as it is.
fn said_of<'a>(
    session: Option<Option<&'a str>>,
    request: Option<RawJson<'a>>,
) -> Option<RawJson<'a>> {
    match session {
        Some(text) => text.and_then(|t| RawJson::parse(t).ok()),
        None => request,
    }
}

impl std::fmt::Debug for RequestInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestInfo")
            .field("id", &self.id)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl<'a> RequestInfo<'a> {
    fn capabilities(&self) -> Option<&'a str> {
        match self.session {
            Some(s) => s.capabilities.as_deref(),
            None => self.msg.envelope().client_capabilities.map(RawJson::as_str),
        }
    }

    fn client_info(&self) -> Option<&'a str> {
        match self.session {
            Some(s) => s.client_info.as_deref(),
            None => self.msg.envelope().client_info.map(RawJson::as_str),
        }
    }

    fn progress_token(&self) -> Option<RawJson<'a>> {
        self.msg.envelope().progress_token
    }

    /// The least severe level sent for this request: the modern request's own
    /// `io.modelcontextprotocol/logLevel`, or the legacy session's.
    fn log_level(&self) -> Option<LogLevel> {
        match self.session {
            Some(s) => s.log_level,
            None => self
                .msg
                .envelope()
                .log_level
                .and_then(RawJson::as_string)
                .and_then(|l| LogLevel::from_wire(&l)),
        }
    }
}

/// Where the notifications of a [`Ctx`] go.
enum Sink<'a> {
    /// Before the handler's answer, into the connection's buffer: the handler answers inline.
    Inline(&'a RefCell<BytesMut>),
    /// Through the driver: the work goes on as job `job`.
    Job {
        job: JobId,
        notify: &'a Arc<dyn Notify>,
        signal: &'a CancelSignal,
    },
}

/// The context of one request, borrowed from its frame.
pub struct Ctx<'a> {
    info: RequestInfo<'a>,
    sink: Sink<'a>,
    /// The last progress sent (`f64` bits), so that progress only increases.
    last_progress: Cell<Option<f64>>,
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl<'a> Ctx<'a> {
    pub(crate) const fn inline(info: RequestInfo<'a>, notes: &'a RefCell<BytesMut>) -> Self {
        Self {
            info,
            sink: Sink::Inline(notes),
            last_progress: Cell::new(None),
        }
    }

    pub(crate) const fn job(
        info: RequestInfo<'a>,
        job: JobId,
        notify: &'a Arc<dyn Notify>,
        signal: &'a CancelSignal,
    ) -> Self {
        Self {
            info,
            sink: Sink::Job {
                job,
                notify,
                signal,
            },
            last_progress: Cell::new(None),
        }
    }

    /// The request's id.
    #[must_use]
    pub const fn request_id(&self) -> Id<'a> {
        self.info.id
    }

    /// The client connection the request came on: requests in flight with the same key
    /// came from one client.
    #[must_use]
    pub fn peer(&self) -> PeerKey {
        match &self.sink {
            Sink::Inline(notes) => PeerKey(std::ptr::from_ref(*notes).addr()),
            Sink::Job { notify, .. } => peer_of(notify),
        }
    }

    /// Who the caller is, when the transport verified a token (HTTP with an `AuthLayer`).
    #[must_use]
    pub const fn principal(&self) -> Option<&'a Principal> {
        self.info.principal
    }

    /// The revision the request is served in: the negotiated one (legacy) or the one its
    /// envelope names (modern).
    #[must_use]
    pub const fn version(&self) -> ProtocolVersion {
        self.info.version
    }

    /// The era of the request.
    #[must_use]
    pub const fn era(&self) -> Era {
        if self.info.version.is_modern() {
            Era::Modern
        } else {
            Era::Legacy
        }
    }

    /// The client's capabilities: this request's (modern) or the session's (legacy).
    #[must_use]
    pub fn client_capabilities(&self) -> Option<RawJson<'a>> {
        said_of(
            self.info.session.map(|s| s.capabilities.as_deref()),
            self.info.msg.envelope().client_capabilities,
        )
    }

    /// The client's `Implementation` (`name`, `version`...), when it sent one.
    #[must_use]
    pub fn client_info(&self) -> Option<RawJson<'a>> {
        said_of(
            self.info.session.map(|s| s.client_info.as_deref()),
            self.info.msg.envelope().client_info,
        )
    }

    /// The request's `_meta.progressToken`, when it has one.
    #[must_use]
    pub fn progress_token(&self) -> Option<RawJson<'a>> {
        self.info.progress_token()
    }

    /// The request's `params._meta` as sent (its envelope's members included), when it is
    /// an object.
    #[must_use]
    pub fn meta(&self) -> Option<RawJson<'a>> {
        // NB. The codec found it in its validating pass: no second walk over `params`.
        self.info.msg.meta().filter(|m| m.is_object())
    }

    /// The client's answer to the input request asked under `key` ([`crate::api::input`]): an
    /// `ElicitResult`, a `CreateMessageResult` or a `ListRootsResult` object; `None` until
    /// the client has answered it.
    #[must_use]
    pub fn input(&self, key: &str) -> Option<RawJson<'a>> {
        self.info
            .inputs
            .and_then(|i| i.get(key))
            .and_then(|r| RawJson::parse(r).ok())
    }

    /// The error object (`code`, `message`, `data`) a handshake client replied with to the
    /// input request asked under `key`, in a round that takes such replies
    /// ([`crate::InputRequired::takes_refusals`]); `None` otherwise.
    #[must_use]
    pub fn input_refusal(&self, key: &str) -> Option<RawJson<'a>> {
        self.info
            .inputs
            .and_then(|i| i.refusal(key))
            .and_then(|r| RawJson::parse(r).ok())
    }

    /// The state the handler kept with its last [`crate::InputRequired`], back with the
    /// client's answers.
    #[must_use]
    pub fn request_state(&self) -> Option<&'a str> {
        self.info.inputs.and_then(|i| i.state.as_deref())
    }

    /// True when the client declared `capability` (`sampling`, `elicitation`, `roots`...):
    /// in this request's envelope (modern) or at `initialize` (legacy).
    #[must_use]
    pub fn client_supports(&self, capability: &str) -> bool {
        self.client_capabilities()
            .and_then(|c| c.get(capability))
            .is_some_and(RawJson::is_object)
    }

    /// True once the request was cancelled (never for a handler that answers inline, which
    /// runs to its end before anything else is read).
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        match &self.sink {
            Sink::Inline(_) => false,
            Sink::Job { signal, .. } => signal.is_cancelled(),
        }
    }

    /// Reports progress: `notifications/progress`, only when the request carried a
    /// `progressToken` and `progress` is above what was reported before; a no-op otherwise.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = self.info.progress_token() else {
            return;
        };
        if !progress.is_finite() || self.last_progress.get().is_some_and(|p| progress <= p) {
            return;
        }
        self.last_progress.set(Some(progress));
        let line = progress_line(token.as_str(), self.info.version, progress, total, message);
        self.send(line);
    }

    /// Sends a log record (`notifications/message`) when `level` is at or above the level in
    /// force for this request; a no-op otherwise.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: &Json) {
        if self.info.log_level().is_some_and(|min| level >= min) {
            self.send(log_line(level, logger, data));
        }
    }

    /// Ends the HTTP connection that carries this request's messages now, without ending
    /// the request (SEP-1699 polling): the client waits the `retry` it was given, resumes
    /// with `GET` and `Last-Event-ID`, and gets what the request sent since, then the rest.
    /// For work that runs long, so that no connection is held open while it waits. Only a
    /// legacy HTTP session's streams are resumable: elsewhere (stdio, 2026-07-28, an inline
    /// handler, whose answer comes at once) this does nothing.
    pub fn close_stream(&self) {
        if let Sink::Job { job, notify, .. } = &self.sink {
            notify.close_stream(*job);
        }
    }

    fn send(&self, line: BytesMut) {
        match &self.sink {
            Sink::Inline(notes) => notes.borrow_mut().extend_from_slice(&line),
            Sink::Job { job, notify, .. } => notify.notify(*job, line.freeze()),
        }
    }

    /// The owned context, for work that outlives the call: its notifications go through the
    /// driver while the job is live. For a handler that answers inline, what it sends after
    /// its answer is dropped.
    #[must_use]
    pub fn to_owned(&self) -> Context {
        let (job, notify, signal): (_, Arc<dyn Notify>, _) = match &self.sink {
            Sink::Inline(_) => (JobId(u64::MAX), Arc::new(Discard), CancelSignal::default()),
            Sink::Job {
                job,
                notify,
                signal,
            } => (*job, Arc::clone(notify), (*signal).clone()),
        };
        Context(Arc::new(Owned {
            id: self.info.id.to_owned(),
            version: self.info.version,
            capabilities: self.info.capabilities().map(str::to_owned),
            client_info: self.info.client_info().map(str::to_owned),
            progress_token: self.info.progress_token().map(|t| t.as_str().to_owned()),
            log_level: self.info.log_level(),
            principal: self.info.principal.cloned(),
            inputs: self.info.inputs.cloned(),
            job,
            notify,
            signal,
            last_progress: AtomicU64::new(
                self.last_progress.get().map_or(NO_PROGRESS, f64::to_bits),
            ),
        }))
    }
}

/// `last_progress` before any progress was sent.
const NO_PROGRESS: u64 = u64::MAX;

struct Owned {
    id: IdBuf,
    version: ProtocolVersion,
    capabilities: Option<String>,
    client_info: Option<String>,
    progress_token: Option<String>,
    log_level: Option<LogLevel>,
    principal: Option<Principal>,
    inputs: Option<crate::api::input::Inputs>,
    job: JobId,
    notify: Arc<dyn Notify>,
    signal: CancelSignal,
    last_progress: AtomicU64,
}

/// The owned context of one request ([`Ctx::to_owned`]), for asynchronous work. Cloning
/// shares it.
#[derive(Clone)]
pub struct Context(Arc<Owned>);

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("id", &self.0.id)
            .field("version", &self.0.version)
            .field("job", &self.0.job)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The request's id.
    #[must_use]
    pub fn request_id(&self) -> Id<'_> {
        self.0.id.as_id()
    }

    /// Who the caller is, when the transport verified a token.
    #[must_use]
    pub fn principal(&self) -> Option<&Principal> {
        self.0.principal.as_ref()
    }

    /// The revision the request is served in.
    #[must_use]
    pub fn version(&self) -> ProtocolVersion {
        self.0.version
    }

    /// The client's capabilities, as JSON text.
    #[must_use]
    pub fn client_capabilities(&self) -> Option<RawJson<'_>> {
        self.0
            .capabilities
            .as_deref()
            .and_then(|c| RawJson::parse(c).ok())
    }

    /// The client's `Implementation`, as JSON text.
    #[must_use]
    pub fn client_info(&self) -> Option<RawJson<'_>> {
        self.0
            .client_info
            .as_deref()
            .and_then(|c| RawJson::parse(c).ok())
    }

    /// As [`Ctx::input`].
    #[must_use]
    pub fn input(&self, key: &str) -> Option<RawJson<'_>> {
        self.0
            .inputs
            .as_ref()
            .and_then(|i| i.get(key))
            .and_then(|r| RawJson::parse(r).ok())
    }

    /// As [`Ctx::input_refusal`].
    #[must_use]
    pub fn input_refusal(&self, key: &str) -> Option<RawJson<'_>> {
        self.0
            .inputs
            .as_ref()
            .and_then(|i| i.refusal(key))
            .and_then(|r| RawJson::parse(r).ok())
    }

    /// As [`Ctx::request_state`].
    #[must_use]
    pub fn request_state(&self) -> Option<&str> {
        self.0.inputs.as_ref().and_then(|i| i.state.as_deref())
    }

    /// The job this work runs as.
    #[must_use]
    pub fn job(&self) -> JobId {
        self.0.job
    }

    /// True once the request was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.signal.is_cancelled()
    }

    /// As [`Ctx::close_stream`].
    pub fn close_stream(&self) {
        self.0.notify.close_stream(self.0.job);
    }

    /// Resolves when the request is cancelled.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        self.0.signal.cancelled()
    }

    /// As [`Ctx::progress`]; several clones of one context share what was reported.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.0.progress_token else {
            return;
        };
        if !progress.is_finite() {
            return;
        }
        let raised =
            self.0
                .last_progress
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                    (bits == NO_PROGRESS || progress > f64::from_bits(bits))
                        .then(|| progress.to_bits())
                });
        if raised.is_ok() {
            let line = progress_line(token, self.0.version, progress, total, message);
            self.0.notify.notify(self.0.job, line.freeze());
        }
    }

    /// As [`Ctx::log`].
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: &Json) {
        if self.0.log_level.is_some_and(|min| level >= min) {
            self.0
                .notify
                .notify(self.0.job, log_line(level, logger, data).freeze());
        }
    }
}

/// A boxed future of a handler's work.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// `notifications/progress` (`message` exists from 2025-03-26).
fn progress_line(
    token: &str,
    version: ProtocolVersion,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> BytesMut {
    let mut out = BytesMut::new();
    encode::begin_notification(&mut out, "notifications/progress");
    let mut w = JsonWriter::new(&mut out);
    w.begin_object().key("progressToken").raw(token);
    w.key("progress").raw(&number(progress));
    if let Some(t) = total.filter(|t| t.is_finite()) {
        w.key("total").raw(&number(t));
    }
    if let Some(m) = message.filter(|_| version != ProtocolVersion::V2024_11_05) {
        w.key("message").str(m);
    }
    w.end_object();
    encode::end_message(&mut out);
    out
}

/// `notifications/message`.
fn log_line(level: LogLevel, logger: Option<&str>, data: &Json) -> BytesMut {
    let mut out = BytesMut::new();
    encode::begin_notification(&mut out, "notifications/message");
    let mut w = JsonWriter::new(&mut out);
    w.begin_object().key("level").str(level.as_str());
    if let Some(l) = logger {
        w.key("logger").str(l);
    }
    w.key("data").raw(data.as_str()).end_object();
    encode::end_message(&mut out);
    out
}
