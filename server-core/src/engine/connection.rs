//! `Connection`: the sans-IO dual-era state machine of one client connection.
//!
//! The era is decided by the first request and locked (`decisions.md`, "Era detection").
//! The lifecycle is a plain match on (state, method).
//! Asynchronous work is kept in the connection's job book ([`crate::engine::connection::jobs`]): the connection
//! hands it out as [`Action`]s and takes its ends back as events. It does no IO, spawns
//! nothing, builds no future and reads no clock.

use crate::api::ctx::{CancelSignal, Discard, JobId, Notify, RequestInfo, Session};
use crate::api::halt::Halt;
use crate::api::tools::ToolResult;
use crate::engine::answers;
use crate::engine::connection::jobs::{Action, Done, DoneKind, JobEnd, Jobs, Kind, Slot, ToolEnd};
use crate::engine::server::Server;
use crate::engine::store::TaskStore;
use crate::engine::tasks::{Outcome as Ended, Status, Stored};
use bytes::BytesMut;
use janus_codec::encode;
use janus_codec::{
    Batch, EnvelopeError, Era, Error, FrameRef, INVALID_PARAMS, INVALID_REQUEST, Id,
    MISSING_CLIENT_CAPABILITY, Message, MessageKind, Parsed, Parser, ProtocolVersion, RawJson,
    Rejection,
};
use janus_model::json::RpcError;
use janus_model::shape::{self, Shape};
use std::cell::RefCell;
use std::sync::Arc;

mod dispatch;
mod input_wire;
pub mod jobs;
mod listen_wire;
pub mod routing;
mod surface_wire;
mod tasks_wire;
mod tools_wire;

#[cfg(feature = "http")]
pub(crate) use dispatch::method_label;
pub use routing::{Emitted, Line};
pub use surface_wire::RESOURCE_NOT_FOUND;

pub use tasks_wire::LIMIT_REACHED;

/// The default most jobs running at once per connection; more wait in its queue.
pub const DEFAULT_MAX_RUNNING: usize = 1024;

/// The connection's place in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No request yet: the era is open.
    Fresh,
    /// Legacy era; `None` until `initialize` has been answered.
    Legacy(Option<ProtocolVersion>),
    /// Modern era.
    Modern,
}

/// The key of the tasks extension in `clientCapabilities.extensions`.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The `data` of a `-32021` for a `tasks/*` request that did not declare the tasks extension.
const TASKS_REQUIRED: &str =
    r#"{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

/// One client connection: era, handshake state, dispatch, and the book of its jobs.
///
/// # Calling order
///
/// - Tell it the time ([`Connection::handle_time`]) when the driver wakes: task timestamps and
///   expiry read it.
/// - For each frame the transport reads, call [`Connection::handle_read`] (or
///   [`Connection::handle_frame`]) with the output buffer; answers that are ready are appended
///   to it.
/// - Then take the actions ([`Connection::poll_action`]) until there are none: run the work
///   of each [`Action::Run`], and drop the work an [`Action::Abort`] names.
/// - When a job's work ends, report it ([`Connection::handle_done`]); when it sends a
///   notification through the connection's [`Notify`], hand the line back
///   ([`Connection::handle_note`]). Both may append to the output, and both may queue
///   actions.
/// - Write the output out. Answers of pipelined requests may come in any order; each carries
///   its request's id.
pub struct Connection {
    server: Arc<Server>,
    state: State,
    parser: Parser,
    session: Session,
    /// The process's task store (both generations): the server's, shared by every
    /// connection.
    tasks: Arc<dyn TaskStore>,
    jobs: Jobs,
    notify: Arc<dyn Notify>,
    now_ms: u64,
    /// Notifications sent while a request is dispatched (an inline handler's progress, a
    /// task's status): written before its answer.
    notes: RefCell<BytesMut>,
    /// Who the transport says sends the requests now being read.
    principal: Option<Arc<crate::api::ctx::Principal>>,
    /// A handshake session's requests waiting for the client's answers.
    rounds: input_wire::Rounds,
    /// The answers of a round whose request is being handled again.
    replay: Option<crate::api::input::Inputs>,
    /// A handshake session's ear for the server's list changes.
    session_watch: Option<Arc<listen_wire::SessionWatch>>,
    /// The open `subscriptions/listen` requests.
    listeners: std::collections::HashMap<JobId, Arc<listen_wire::Listener>>,
    /// The parked task whose call is being handled again ([`crate::InputRequired::within_task`]).
    continuing: Option<String>,
    /// The client's input ended ([`Connection::handle_eof`]): no work may start that
    /// outlives the requests in flight, nor wait for the client's answers.
    input_ended: bool,
    /// What each line written is, for a driver that routes the output ([`routing`]).
    routing: Option<Box<routing::Routing>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("state", &self.state)
            .field("jobs", &self.jobs)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// A fresh connection to `server`. Notifications of running work are dropped until a
    /// [`Notify`] is set ([`Connection::set_notify`]).
    #[must_use]
    pub fn new(server: Arc<Server>) -> Self {
        Self::in_state(server, State::Fresh)
    }

    fn in_state(server: Arc<Server>, state: State) -> Self {
        let tasks = Arc::clone(server.task_store());
        Self {
            server,
            state,
            parser: Parser::new(),
            session: Session::default(),
            tasks,
            jobs: Jobs::new(DEFAULT_MAX_RUNNING),
            notify: discard(),
            now_ms: 0,
            notes: RefCell::new(BytesMut::new()),
            principal: None,
            rounds: input_wire::Rounds::default(),
            replay: None,
            session_watch: None,
            listeners: std::collections::HashMap::new(),
            continuing: None,
            input_ended: false,
            routing: None,
        }
    }

    /// A connection already in the modern era: what [`crate::drivers::stateless`] serves one request
    /// with.
    pub(crate) fn modern_server(server: Arc<Server>) -> Self {
        Self::in_state(server, State::Modern)
    }

    /// Sets who sends the requests read from now on, as the transport's authorization
    /// established it (an HTTP transport sets it for each request); handlers see it as
    /// [`Ctx::principal`](crate::Ctx::principal).
    pub fn set_principal(&mut self, principal: Option<Arc<crate::api::ctx::Principal>>) {
        self.principal = principal;
    }

    /// Sets where the notifications of running work go (the driver's channel).
    pub fn set_notify(&mut self, notify: Arc<dyn Notify>) {
        self.notify = notify;
    }

    /// Sets how many jobs run at once (at least 1); the rest wait in the queue.
    pub fn set_max_running(&mut self, n: usize) {
        self.jobs.set_max_running(n);
    }

    /// The time is now `now_ms` (milliseconds since the Unix epoch).
    pub const fn handle_time(&mut self, now_ms: u64) {
        self.now_ms = now_ms;
    }

    /// The era, once the first request has decided it.
    #[must_use]
    pub const fn era(&self) -> Option<Era> {
        match self.state {
            State::Fresh => None,
            State::Legacy(_) => Some(Era::Legacy),
            State::Modern => Some(Era::Modern),
        }
    }

    /// The version negotiated by `initialize` on a legacy connection.
    #[must_use]
    pub const fn negotiated(&self) -> Option<ProtocolVersion> {
        match self.state {
            State::Legacy(v) => v,
            _ => None,
        }
    }

    /// The next action for the driver.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.jobs.poll_action()
    }

    /// True when an action waits for the driver ([`Connection::poll_action`]).
    #[must_use]
    #[inline]
    pub fn has_actions(&self) -> bool {
        self.jobs.has_actions()
    }

    /// How many jobs a request waits for (foreground): at end of input the driver finishes
    /// these and need not wait for tasks' background work.
    #[must_use]
    pub const fn foreground(&self) -> usize {
        self.jobs.foreground()
    }

    /// The client's input ended (or a shutdown began): tasks' background work that no request
    /// waits for is stopped, since it ends with the connection, so that the requests still to
    /// answer get its running slots.
    pub fn handle_eof(&mut self, out: &mut BytesMut) {
        let mark = out.len();
        self.eof(out);
        self.record(out, mark, None);
    }

    fn eof(&mut self, out: &mut BytesMut) {
        self.input_ended = true;
        // NB. The store outlives the connection: a task whose work stops here fails, rather
        // than stay `working` with nothing to end it.
        for task in self.jobs.end_background(out) {
            self.fail_task(
                task,
                "The task's work stopped before it ended: its connection closed",
                out,
            );
        }
        // No answer to the server's input requests can come any more.
        self.end_rounds(out);
        // Nor can a listener be told anything: each is ended, and answered.
        self.end_listens(out);
    }

    /// How many jobs run now.
    #[must_use]
    pub const fn running(&self) -> usize {
        self.jobs.running()
    }

    /// What the work waiting in the queue holds, estimated in bytes: a driver pauses reading
    /// above its bound.
    #[must_use]
    pub const fn queued_bytes(&self) -> usize {
        self.jobs.queued_bytes()
    }

    /// Handles one frame, owned (`&Frame`) or read in place ([`FrameRef`]). Answers that are
    /// ready are appended to `out`, one line each.
    pub fn handle_frame<'f>(&mut self, frame: impl Into<FrameRef<'f>>, out: &mut BytesMut) {
        match frame.into() {
            FrameRef::Oversize => shape::write_rejection(out, Error::FrameTooLong.into()),
            FrameRef::Line(line) => self.handle_line(line, out),
        }
    }

    /// Handles one line (a frame's bytes, without its newline).
    pub fn handle_line(&mut self, line: &[u8], out: &mut BytesMut) {
        let read = self.parser.parse(line);
        self.handle_read(read, out);
    }

    /// The parser this connection reads lines with, for [`FrameCodec::decode_message`].
    ///
    /// [`FrameCodec::decode_message`]: janus_codec::FrameCodec::decode_message
    #[must_use]
    pub const fn parser(&self) -> Parser {
        self.parser
    }

    /// Handles one frame as [`FrameCodec::decode_message`] framed and parsed it with
    /// [`Connection::parser`]: the same as [`Connection::handle_frame`] with the frame, in
    /// fewer passes over its bytes.
    ///
    /// [`FrameCodec::decode_message`]: janus_codec::FrameCodec::decode_message
    pub fn handle_read(&mut self, read: Result<Parsed<'_>, Rejection<'_>>, out: &mut BytesMut) {
        let mark = out.len();
        self.read(read, out);
        self.record(out, mark, None);
    }

    fn read(&mut self, read: Result<Parsed<'_>, Rejection<'_>>, out: &mut BytesMut) {
        match read {
            Err(rejection) => shape::write_rejection(out, rejection),
            Ok(Parsed::Single(msg)) => {
                let mark = out.len();
                self.handle_message(&msg, out, None);
                self.flush_notes(out, mark);
            }
            Ok(Parsed::Batch(batch)) => self.handle_batch(&batch, out),
        }
    }

    /// Job `job`'s work ended: its answer (or its task's new state) goes to `out`. A job that
    /// was cancelled is ignored.
    pub fn handle_done(&mut self, job: JobId, end: JobEnd, out: &mut BytesMut) {
        let mark = out.len();
        self.done(job, end, out);
        self.record(out, mark, None);
    }

    fn done(&mut self, job: JobId, end: JobEnd, out: &mut BytesMut) {
        let Some(entry) = self.jobs.finish(job) else {
            return;
        };
        if matches!(entry.kind, Kind::Staged { .. }) {
            self.staged_done(job, entry, end, out);
            return;
        }
        let end = match end {
            JobEnd::Finished(Done(DoneKind::Tool(r))) => ToolEnd::Finished(r),
            // NB. Only a staged job's work ends so (above).
            JobEnd::Panicked | JobEnd::Finished(Done(DoneKind::Staged(_))) => ToolEnd::Panicked,
            // The store answered: the rest of the request runs now.
            JobEnd::Finished(Done(DoneKind::Then(then))) => {
                then(self, out);
                return;
            }
            // NB. The task ended elsewhere (cancelled through another connection): its work
            // stopped, and its end is the store's already.
            JobEnd::Finished(Done(DoneKind::Ended)) => return,
        };
        match entry.kind {
            Kind::Call { shape, resume } => {
                let Some(id) = entry.request else { return };
                let mut line = BytesMut::new();
                let target = if entry.slot.is_some() {
                    &mut line
                } else {
                    &mut *out
                };
                match end {
                    ToolEnd::Finished(Err(Halt::Input(asked))) => {
                        self.ask_later(id.as_id(), shape, *resume, asked, entry.slot, target);
                    }
                    end => {
                        tools_wire::write_job_answer(target, &self.server, id.as_id(), shape, end);
                    }
                }
                if entry.slot.is_some() {
                    self.jobs.deliver(entry.slot, Some(&line), out);
                }
            }
            Kind::Task {
                task,
                shape,
                legacy,
                resume,
            } => {
                let end = match end {
                    ToolEnd::Finished(Err(Halt::Input(asked))) => {
                        match self.park_later(task.clone(), shape, legacy, *resume, asked) {
                            Some(e) => ToolEnd::Finished(Err(e.into())),
                            // NB. Parked (or failed, when nothing can be asked): the store
                            // has the task's state, and whoever waits hears of its end.
                            None => return,
                        }
                    }
                    end => end,
                };
                let ended = match end {
                    ToolEnd::Finished(Ok(r)) => Ended::Result(stored(shape, &r)),
                    ToolEnd::Finished(Err(Halt::Error(e))) => Ended::Error(e),
                    // NB. Asking was handled above.
                    ToolEnd::Finished(Err(Halt::Input(_))) | ToolEnd::Panicked => {
                        Ended::Error(RpcError::internal())
                    }
                };
                let status = status_of(&ended, legacy);
                let advance = self.tasks.advance(&task, self.now_ms, status, Some(ended));
                self.after(
                    tasks_wire::Waiting::background(),
                    advance,
                    move |c, moved, out| {
                        if let Ok(Some((t, changed))) = moved {
                            if legacy && changed {
                                answers::write_status_notification(out, &t);
                            }
                            c.answer_waiters(&t, out);
                        }
                    },
                    out,
                );
            }
            Kind::Surface { shape, uri, resume } => {
                let Some(id) = entry.request else { return };
                let mut line = BytesMut::new();
                let target = if entry.slot.is_some() {
                    &mut line
                } else {
                    &mut *out
                };
                match end {
                    ToolEnd::Finished(Err(Halt::Input(asked))) => {
                        self.ask_later(id.as_id(), shape, *resume, asked, entry.slot, target);
                    }
                    end => {
                        self.write_surface_answer(target, id.as_id(), shape, uri.as_deref(), end)
                    }
                }
                if entry.slot.is_some() {
                    self.jobs.deliver(entry.slot, Some(&line), out);
                }
            }
            Kind::Listen => {
                self.listeners.remove(&job);
                if let Some(id) = entry.request {
                    self.write_listen_end(out, id.as_id());
                }
            }
            // A wait for the store whose future panicked: its request gets `-32603`.
            Kind::Store | Kind::Wait { .. } => {
                if let Some(id) = entry.request {
                    shape::write_internal_error(out, id.as_id());
                }
            }
            // NB. A staged job's end was handled above.
            Kind::Input | Kind::Staged { .. } => {}
        }
    }

    /// A notification that job `job` sent through the connection's [`Notify`]: written while
    /// the job is live, dropped once it was cancelled or has ended.
    pub fn handle_note(&mut self, job: JobId, line: &[u8], out: &mut BytesMut) {
        if job == JobId::CONNECTION || self.jobs.is_live(job) {
            let mark = out.len();
            out.extend_from_slice(line);
            self.record(out, mark, Some(job));
        }
    }

    /// Writes the notifications sent while a request was dispatched before its answer, which
    /// starts at `mark`.
    #[inline]
    fn flush_notes(&mut self, out: &mut BytesMut, mark: usize) {
        if !self.notes.get_mut().is_empty() {
            self.put_notes_before(out, mark);
        }
    }

    #[cold]
    fn put_notes_before(&mut self, out: &mut BytesMut, mark: usize) {
        let notes = self.notes.get_mut();
        let answer = out.split_off(mark);
        out.extend_from_slice(notes);
        out.extend_from_slice(&answer);
        notes.clear();
    }

    fn handle_message(&mut self, msg: &Message<'_>, out: &mut BytesMut, slot: Slot) {
        match msg.kind() {
            // NB. A response to no server request of this connection is ignored.
            MessageKind::Response | MessageKind::ErrorResponse => self.handle_response(msg, out),
            MessageKind::Notification => self.handle_notification(msg, out),
            MessageKind::Request => {
                let Some(id) = msg.id() else { return };
                if self.state == State::Fresh {
                    self.state = match Era::of_first_request(msg) {
                        Era::Modern => State::Modern,
                        Era::Legacy => State::Legacy(None),
                    };
                }
                match self.state {
                    State::Modern => self.modern(id, msg, out, slot),
                    _ => self.legacy(id, msg, out, slot),
                }
            }
        }
    }

    fn handle_notification(&mut self, msg: &Message<'_>, out: &mut BytesMut) {
        // Notifications before the first request are dropped, whatever they are.
        if self.state == State::Fresh || msg.method() != "notifications/cancelled" {
            return;
        }
        let id = msg
            .params()
            .and_then(|p| p.get("requestId"))
            .and_then(Id::from_json);
        if let Some(id) = id {
            self.jobs.cancel_request(&id.to_owned(), out);
            self.drop_cancelled_rounds();
            self.forget_listeners();
        }
    }

    /// A request on a legacy connection.
    fn legacy(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut, slot: Slot) {
        let method = msg.method();
        let State::Legacy(negotiated) = self.state else {
            unreachable!("legacy() is called on legacy connections only");
        };
        if method != "initialize" && msg.envelope().is_modern() {
            shape::write_reason(
                out,
                Some(id),
                INVALID_REQUEST,
                shape::INVALID_REQUEST_MESSAGE,
                "this connection speaks a handshake revision; a request with the 2026-07-28 \
                 envelope is refused (the era is locked)",
            );
            return;
        }
        match (negotiated, method) {
            (_, "ping") => encode::write_result(out, id, "{}"),
            (None, "initialize") => self.initialize(id, msg, out),
            (Some(_), "initialize") => shape::write_reason(
                out,
                Some(id),
                INVALID_REQUEST,
                shape::INVALID_REQUEST_MESSAGE,
                "initialize was already received on this connection",
            ),
            (None, _) => {
                let reason = format!("{method} before initialize");
                shape::write_reason(
                    out,
                    Some(id),
                    INVALID_REQUEST,
                    "Invalid request parameters",
                    &reason,
                );
            }
            (Some(v), _) => self.dispatch(id, msg, Shape::new(v), out, slot),
        }
    }

    /// `initialize` on a legacy connection that has not had one: negotiates the version and
    /// keeps what the client said of itself.
    #[inline(never)]
    fn initialize(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut) {
        let params = msg.params();
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(RawJson::as_string);
        let version = requested
            .as_deref()
            .and_then(ProtocolVersion::from_wire)
            .filter(|v| v.is_handshake())
            .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        let owned = |key| {
            params
                .and_then(|p| p.get(key))
                .filter(|v| v.is_object())
                .map(|v| v.as_str().to_owned())
        };
        self.session = Session {
            capabilities: owned("capabilities"),
            client_info: owned("clientInfo"),
            // NB. Until `logging/setLevel`, no log records (the specification leaves the
            // default to the server).
            log_level: None,
        };
        self.state = State::Legacy(Some(version));
        self.watch_session();
        encode::begin_result(out, id);
        answers::write_initialize(out, &self.server, version);
        encode::end_message(out);
    }

    /// A request on a modern connection.
    fn modern(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut, slot: Slot) {
        let method = msg.method();
        if method == "initialize" {
            // NB. Echoed as sent; `write_raw` makes it compact.
            let requested = msg.params().and_then(|p| p.get("protocolVersion"));
            shape::write_unsupported(out, id, requested.map_or("null", RawJson::as_str));
            return;
        }
        let version = match msg.envelope().check() {
            Ok(v) => v,
            Err(EnvelopeError::Invalid(fault)) => {
                let message = fault.to_string();
                encode::write_error(out, Some(id), INVALID_PARAMS, &message, None);
                return;
            }
            Err(EnvelopeError::Unsupported { requested }) => {
                let quoted = janus_model::json::Json::string(&requested);
                shape::write_unsupported(out, id, quoted.as_str());
                return;
            }
        };
        // NB. Capabilities are per request: only this request's envelope can declare the
        // tasks extension, whatever earlier requests declared.
        if method.starts_with("tasks/") && !declares_tasks(msg) {
            encode::write_error(
                out,
                Some(id),
                MISSING_CLIENT_CAPABILITY,
                "Missing required client capability",
                Some(TASKS_REQUIRED),
            );
            return;
        }
        self.dispatch(id, msg, Shape::new(version), out, slot);
    }
}

/// The [`Notify`] that drops every notification (shared: it holds nothing).
fn discard() -> Arc<dyn Notify> {
    static DISCARD: std::sync::OnceLock<Arc<dyn Notify>> = std::sync::OnceLock::new();
    Arc::clone(DISCARD.get_or_init(|| Arc::new(Discard)))
}

impl Connection {
    /// True when this modern connection may serve another stateless request as if new: it
    /// holds no job, no action, and nothing of the request it served but its counters.
    pub(crate) fn is_spare(&self) -> bool {
        self.state == State::Modern
            && !self.jobs.has_actions()
            && self.jobs.foreground() == 0
            && self.jobs.running() == 0
            && self.listeners.is_empty()
            && self.continuing.is_none()
    }

    /// Lets go of what the last stateless request gave it (its notification channel, its
    /// caller), before it is kept for the next one.
    pub(crate) fn release(&mut self) {
        self.notify = discard();
        self.principal = None;
        self.notes.get_mut().clear();
    }

    /// True when this connection serves `server`.
    pub(crate) fn serves(&self, server: &Arc<Server>) -> bool {
        Arc::ptr_eq(&self.server, server)
    }
}

/// What the request says of itself, in the revision it is served in (a legacy request's
/// client is the session's).
fn request_info<'a>(
    session: &'a Session,
    principal: Option<&'a crate::api::ctx::Principal>,
    id: Id<'a>,
    msg: &'a Message<'a>,
    shape: Shape,
) -> RequestInfo<'a> {
    RequestInfo {
        principal,
        id,
        version: shape.version,
        msg,
        session: (!shape.modern()).then_some(session),
        inputs: None,
    }
}

impl Connection {
    /// A handler's error: asks the client when it is an [`crate::InputRequired`], else the
    /// JSON-RPC error.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn refused(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        inputs: Option<crate::api::input::Inputs>,
        halt: Halt,
        slot: Slot,
        out: &mut BytesMut,
    ) {
        match halt {
            Halt::Input(asked) => self.ask(id, msg, shape, inputs, asked, slot, out),
            Halt::Error(e) => shape::write_rpc_error(out, id, &e),
        }
    }

    fn handle_batch(&mut self, batch: &Batch<'_>, out: &mut BytesMut) {
        if self.state != State::Legacy(Some(ProtocolVersion::V2025_03_26)) {
            shape::write_reason(
                out,
                None,
                INVALID_REQUEST,
                shape::INVALID_REQUEST_MESSAGE,
                "batches are answered only on sessions that negotiated 2025-03-26",
            );
            return;
        }
        let key = self.jobs.open_batch(batch.len());
        for (i, element) in batch.iter().enumerate() {
            let mut one = BytesMut::new();
            match element {
                Err(rejection) => shape::write_rejection(&mut one, rejection),
                Ok(msg) if msg.is_request() && msg.method() == "initialize" => {
                    if let Some(id) = msg.id() {
                        shape::write_reason(
                            &mut one,
                            Some(id),
                            INVALID_REQUEST,
                            shape::INVALID_REQUEST_MESSAGE,
                            "initialize must not be part of a batch",
                        );
                    }
                }
                // NB. A cancel inside a batch names a request in flight (of an earlier frame
                // or of this batch): it acts at once, and a batch it completes is written.
                Ok(msg) if msg.kind() == MessageKind::Notification => {
                    self.handle_notification(&msg, out);
                }
                Ok(msg) => self.handle_message(&msg, &mut one, Some((key, i))),
            }
            if !one.is_empty() {
                self.jobs.fill(key, i, one.freeze());
            }
        }
        // Notifications sent while the batch was dispatched go out before its answer.
        let notes = std::mem::take(self.notes.get_mut());
        out.extend_from_slice(&notes);
        self.jobs.end_batch(key, out);
    }
}

/// What a task-augmented call runs: work for a job, or an outcome it already has.
enum TaskWork {
    Job {
        job: JobId,
        work: crate::api::tools::ToolFuture,
        signal: CancelSignal,
        cost: usize,
        resume: Box<crate::engine::connection::jobs::Resume>,
    },
    Ended(Ended),
}

/// A request's size, for the queue's byte bound.
fn msg_cost(msg: &Message<'_>) -> usize {
    // NB. The id counts too: a job keeps it (twice), and a client chooses its size. A job
    // whose work may ask for input also keeps a copy of the params.
    2 * msg.id().map_or(0, |id| id.as_raw().len())
        + 2 * msg.params().map_or(0, |p| p.as_str().len())
}

/// True when the request's `clientCapabilities.extensions` declares the tasks extension.
fn declares_tasks(msg: &Message<'_>) -> bool {
    msg.envelope()
        .client_capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(RawJson::is_object)
}

/// A tool result kept in the task store: its blocks encoded for `shape`.
fn stored(shape: Shape, r: &ToolResult) -> Stored {
    let mut content = BytesMut::new();
    for (i, c) in r.content.iter().enumerate() {
        shape::write_block(&mut content, shape, c, i == 0);
    }
    Stored {
        content: String::from_utf8_lossy(&content).into_owned(),
        structured: r.structured.clone(),
        is_error: r.is_error,
        meta: r.meta.clone(),
    }
}

/// The status a finished task takes: `isError` is `failed` in the legacy generation and
/// `completed` in the extension, as each specification says.
const fn status_of(ended: &Ended, legacy: bool) -> Status {
    match ended {
        Ended::Result(r) if r.is_error && legacy => Status::Failed,
        Ended::Result(_) => Status::Completed,
        Ended::Error(_) => Status::Failed,
    }
}
