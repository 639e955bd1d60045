//! `Connection`: the sans-IO dual-era state machine of one client connection.
//!
//! Frames go in through [`Connection::handle_frame`] (or [`Connection::handle_read`], once
//! `FrameCodec::decode_message` has framed and parsed them in one scan); answers that are ready at once are
//! appended to the caller's output buffer, and the rest comes back as an [`Outcome`]: a
//! [`Job`] to run (an asynchronous tool) or a request to cancel.
//! The connection does no IO, spawns nothing and reads no clock.
//!
//! The era is decided by the first request and locked (`decisions.md`, "Era detection").
//! The lifecycle is a plain match on (state, method).

use crate::server::{Server, Shape};
use crate::tasks::TaskStore;
use crate::tools::{Args, Call, Output, ToolResult};
use bytes::{BufMut, Bytes, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{
    Batch, EnvelopeError, Era, Error, FrameRef, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
    Id, IdBuf, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, Message, MessageKind, Parsed, Parser,
    ProtocolVersion, RawJson, Rejection, UNSUPPORTED_PROTOCOL_VERSION,
};
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

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

/// A boxed, sendable future that yields one encoded line (with its `\n`), or nothing.
pub type LineFuture = Pin<Box<dyn Future<Output = Option<Bytes>> + Send + 'static>>;

/// Work that a frame started and that finishes later: run `future` and write its line.
pub struct Job {
    /// The request's id, for `notifications/cancelled`; `None` for a batch or a task's work.
    pub id: Option<IdBuf>,
    /// True for a task's work: no request waits for it, so the end of input does not wait
    /// for it either (the task ends with the connection).
    pub background: bool,
    /// Yields the encoded answer. A panic inside the tool is caught and answered `-32603`.
    pub future: LineFuture,
    /// For a batch: the requests of the batch whose work is still to come, by id. Cancelling
    /// one before the job ends drops its work and its entry from the batch's answer.
    pub elements: Vec<(IdBuf, Canceller)>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("id", &self.id)
            .field("elements", &self.elements.len())
            .finish_non_exhaustive()
    }
}

/// Cancels one request of a batch job (see [`Job::elements`]).
#[derive(Debug, Clone)]
pub struct Canceller(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    /// The task waiting on the request's work, woken by a cancel.
    waker: Mutex<Option<Waker>>,
}

impl Canceller {
    fn new() -> Self {
        Self(Arc::default())
    }

    /// Stops the request's work and drops its answer, unless its batch job has already
    /// ended (then its answer is already out).
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Release);
        let waker = self
            .0
            .waker
            .lock()
            .map(|mut w| w.take())
            .unwrap_or_default();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Acquire)
    }

    /// `work`, ended early (with no line) when the request is cancelled.
    fn guard(&self, work: LineFuture) -> impl Future<Output = Option<Bytes>> + Send + 'static {
        let state = Arc::clone(&self.0);
        let mut work = Some(work);
        std::future::poll_fn(move |cx| {
            // The waker is registered before the flag is read, so a cancel is never missed.
            if let Ok(mut w) = state.waker.lock() {
                match &mut *w {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    w => *w = Some(cx.waker().clone()),
                }
            }
            if state.cancelled.load(Ordering::Acquire) {
                // Dropping the work stops it.
                work = None;
            }
            match work.as_mut() {
                Some(f) => f.as_mut().poll(cx),
                None => Poll::Ready(None),
            }
        })
    }
}

/// What the caller must do after a frame, besides writing what was appended to its buffer.
#[derive(Debug)]
pub enum Outcome {
    /// Nothing more.
    Done,
    /// Run this job and write its line when it is done.
    Spawn(Job),
    /// Stop the in-flight request with this id; write nothing more for it.
    Cancel(IdBuf),
}

/// One client connection: era, handshake state, and dispatch.
///
/// # Calling order
///
/// For each frame the transport reads, call [`Connection::handle_frame`] with the output
/// buffer; then write out what it appended, act on the [`Outcome`], and take the cancels of
/// [`Connection::poll_cancel`].
/// Jobs may finish in any order; each carries its own id.
#[derive(Debug)]
pub struct Connection {
    server: Arc<Server>,
    state: State,
    parser: Parser,
    /// Cancels named by notifications inside a batch, for [`Connection::poll_cancel`].
    cancels: Vec<IdBuf>,
    /// This connection's tasks (both generations).
    tasks: Arc<TaskStore>,
}

const PARSE_ERROR_MESSAGE: &str = "Parse error";
const INVALID_REQUEST_MESSAGE: &str = "Invalid request";
/// The key of the tasks extension in `clientCapabilities.extensions`.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The `data` of a `-32021` for a `tasks/*` request that did not declare the tasks extension.
const TASKS_REQUIRED: &str =
    r#"{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

impl Connection {
    /// A fresh connection to `server`.
    #[must_use]
    pub fn new(server: Arc<Server>) -> Self {
        Self {
            server,
            state: State::Fresh,
            parser: Parser::new(),
            cancels: Vec::new(),
            tasks: Arc::default(),
        }
    }

    /// The next request to cancel that a batch named (`notifications/cancelled` inside a
    /// JSON-RPC batch). Call it after each [`Connection::handle_frame`] until it is `None`.
    pub fn poll_cancel(&mut self) -> Option<IdBuf> {
        self.cancels.pop()
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

    /// Handles one frame, owned (`&Frame`) or read in place ([`FrameRef`]). Answers that are
    /// ready are appended to `out`, one line each.
    pub fn handle_frame<'f>(
        &mut self,
        frame: impl Into<FrameRef<'f>>,
        out: &mut BytesMut,
    ) -> Outcome {
        match frame.into() {
            FrameRef::Oversize => {
                write_rejection(out, Error::FrameTooLong.into());
                Outcome::Done
            }
            FrameRef::Line(line) => self.handle_line(line, out),
        }
    }

    /// Handles one line (a frame's bytes, without its newline).
    pub fn handle_line(&mut self, line: &[u8], out: &mut BytesMut) -> Outcome {
        let read = self.parser.parse(line);
        self.handle_read(read, out)
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
    pub fn handle_read(
        &mut self,
        read: Result<Parsed<'_>, Rejection<'_>>,
        out: &mut BytesMut,
    ) -> Outcome {
        match read {
            Err(rejection) => {
                write_rejection(out, rejection);
                Outcome::Done
            }
            Ok(Parsed::Single(msg)) => self.handle_message(&msg, out),
            Ok(Parsed::Batch(batch)) => self.handle_batch(batch, out),
        }
    }

    fn handle_message(&mut self, msg: &Message<'_>, out: &mut BytesMut) -> Outcome {
        match msg.kind() {
            // NB. A client's responses are ignored: this server sends no requests.
            MessageKind::Response | MessageKind::ErrorResponse => Outcome::Done,
            MessageKind::Notification => self.handle_notification(msg),
            MessageKind::Request => {
                let Some(id) = msg.id() else {
                    return Outcome::Done;
                };
                if self.state == State::Fresh {
                    self.state = match Era::of_first_request(msg) {
                        Era::Modern => State::Modern,
                        Era::Legacy => State::Legacy(None),
                    };
                }
                match self.state {
                    State::Modern => self.modern(id, msg, out),
                    _ => self.legacy(id, msg, out),
                }
            }
        }
    }

    fn handle_notification(&mut self, msg: &Message<'_>) -> Outcome {
        // Notifications before the first request are dropped, whatever they are.
        if self.state == State::Fresh || msg.method() != "notifications/cancelled" {
            return Outcome::Done;
        }
        let id = msg
            .params()
            .and_then(|p| p.get("requestId"))
            .and_then(Id::from_json);
        id.map_or(Outcome::Done, |id| Outcome::Cancel(id.to_owned()))
    }

    /// A request on a legacy connection.
    fn legacy(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut) -> Outcome {
        let method = msg.method();
        let State::Legacy(negotiated) = self.state else {
            unreachable!("legacy() is called on legacy connections only");
        };
        if method != "initialize" && msg.envelope().is_modern() {
            write_error_reason(
                out,
                id,
                INVALID_REQUEST,
                INVALID_REQUEST_MESSAGE,
                "this connection speaks a handshake revision; a request with the 2026-07-28 \
                 envelope is refused (the era is locked)",
            );
            return Outcome::Done;
        }
        match (negotiated, method) {
            (_, "ping") => {
                encode::write_result(out, id, "{}");
                Outcome::Done
            }
            (None, "initialize") => {
                let requested = msg
                    .params()
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(RawJson::as_string);
                let version = requested
                    .as_deref()
                    .and_then(ProtocolVersion::from_wire)
                    .filter(|v| v.is_handshake())
                    .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
                self.state = State::Legacy(Some(version));
                encode::begin_result(out, id);
                self.server.write_initialize(out, version);
                encode::end_message(out);
                Outcome::Done
            }
            (Some(_), "initialize") => {
                write_error_reason(
                    out,
                    id,
                    INVALID_REQUEST,
                    INVALID_REQUEST_MESSAGE,
                    "initialize was already received on this connection",
                );
                Outcome::Done
            }
            (None, _) => {
                let reason = format!("{method} before initialize");
                write_error_reason(
                    out,
                    id,
                    INVALID_REQUEST,
                    "Invalid request parameters",
                    &reason,
                );
                Outcome::Done
            }
            (Some(v), "tools/list") => {
                self.tools_list(id, msg, Shape::new(v), out);
                Outcome::Done
            }
            (Some(v), "tools/call") => self.tools_call(id, msg, Shape::new(v), out),
            (Some(ProtocolVersion::V2025_11_25), m) if m.starts_with("tasks/") => {
                self.legacy_tasks(id, msg, out)
            }
            (Some(_), _) => {
                write_method_not_found(out, id, method);
                Outcome::Done
            }
        }
    }

    /// A request on a modern connection.
    fn modern(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut) -> Outcome {
        let method = msg.method();
        if method == "initialize" {
            // NB. Echoed as sent; `write_raw` makes it compact.
            let requested = msg.params().and_then(|p| p.get("protocolVersion"));
            write_unsupported(out, id, requested.map_or("null", RawJson::as_str));
            return Outcome::Done;
        }
        let version = match msg.envelope().check() {
            Ok(v) => v,
            Err(EnvelopeError::Invalid(fault)) => {
                let message = fault.to_string();
                encode::write_error(out, Some(id), INVALID_PARAMS, &message, None);
                return Outcome::Done;
            }
            Err(EnvelopeError::Unsupported { requested }) => {
                let mut quoted = BytesMut::new();
                encode::write_str(&mut quoted, &requested);
                write_unsupported(out, id, std::str::from_utf8(&quoted).unwrap_or("null"));
                return Outcome::Done;
            }
        };
        let shape = Shape::new(version);
        match method {
            "server/discover" => {
                encode::begin_result(out, id);
                self.server.write_discover(out);
                encode::end_message(out);
                Outcome::Done
            }
            "tools/list" => {
                self.tools_list(id, msg, shape, out);
                Outcome::Done
            }
            "tools/call" => self.tools_call(id, msg, shape, out),
            // NB. Capabilities are per request: only this request's envelope can declare the
            // tasks extension, whatever earlier requests declared.
            m if m.starts_with("tasks/") && !declares_tasks(msg) => {
                encode::write_error(
                    out,
                    Some(id),
                    MISSING_CLIENT_CAPABILITY,
                    "Missing required client capability",
                    Some(TASKS_REQUIRED),
                );
                Outcome::Done
            }
            "tasks/get" | "tasks/update" | "tasks/cancel" => self.modern_tasks(id, msg, out),
            _ => {
                write_method_not_found(out, id, method);
                Outcome::Done
            }
        }
    }

    fn tools_list(&self, id: Id<'_>, msg: &Message<'_>, shape: Shape, out: &mut BytesMut) {
        let cursor = msg.params().and_then(|p| p.get("cursor"));
        let cursor_text = match cursor {
            None => None,
            Some(c) if c.is_null() => None,
            Some(c) => match c.as_string() {
                Some(s) => Some(s),
                None => {
                    encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
                    return;
                }
            },
        };
        let mark = out.len();
        encode::begin_result(out, id);
        if self
            .server
            .write_tools_list(out, shape, cursor_text.as_deref())
            .is_err()
        {
            out.truncate(mark);
            encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
            return;
        }
        encode::end_message(out);
    }

    fn tools_call(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
    ) -> Outcome {
        let Some(name) = msg.param("name").and_then(RawJson::as_string) else {
            encode::write_error(
                out,
                Some(id),
                INVALID_PARAMS,
                "Invalid params: tools/call needs a string name",
                None,
            );
            return Outcome::Done;
        };
        let Some((spec, tool)) = self.server.tool(&name) else {
            let message = format!("Unknown tool: {name}");
            encode::write_error(out, Some(id), INVALID_PARAMS, &message, None);
            return Outcome::Done;
        };
        let task = match self.task_mode(msg, shape, spec.task_support) {
            Ok(task) => task,
            Err(refusal) => {
                refusal.write(out, id, &name);
                return Outcome::Done;
            }
        };
        let args = msg.param("arguments").filter(|a| !a.is_null());
        if args.is_some_and(|a| !a.is_object()) {
            encode::write_error(
                out,
                Some(id),
                INVALID_PARAMS,
                "Invalid params: arguments must be an object",
                None,
            );
            return Outcome::Done;
        }
        if let Some(task) = task {
            return self.task_call(id, tool, args, shape, task, out);
        }
        let mark = out.len();
        encode::begin_result(out, id);
        out.extend_from_slice(br#"{"content":["#);
        let called = catch_unwind(AssertUnwindSafe(|| {
            let mut o = Output::new(out);
            let call = tool.call(Args::new(args), &mut o);
            (call, o.finish())
        }));
        match called {
            Ok((Call::Done, (structured, is_error))) => {
                end_tool_result(&self.server, out, shape, structured.as_deref(), is_error);
                encode::end_message(out);
                Outcome::Done
            }
            Ok((Call::Later(fut), _)) => {
                out.truncate(mark);
                let owned = id.to_owned();
                let server = Arc::clone(&self.server);
                let reply_id = owned.clone();
                let future = async move {
                    let line = match CatchUnwind(fut).await {
                        Ok(result) => encode_tool_result(&server, reply_id.as_id(), shape, &result),
                        Err(()) => internal_error(reply_id.as_id()),
                    };
                    Some(line.freeze())
                };
                Outcome::Spawn(Job {
                    elements: Vec::new(),
                    background: false,
                    id: Some(owned),
                    future: Box::pin(future),
                })
            }
            Err(_) => {
                out.truncate(mark);
                out.extend_from_slice(&internal_error(id));
                Outcome::Done
            }
        }
    }

    fn handle_batch(&mut self, batch: Batch<'_>, out: &mut BytesMut) -> Outcome {
        if self.state != State::Legacy(Some(ProtocolVersion::V2025_03_26)) {
            write_error_null(
                out,
                INVALID_REQUEST,
                INVALID_REQUEST_MESSAGE,
                "batches are answered only on sessions that negotiated 2025-03-26",
            );
            return Outcome::Done;
        }
        let mut ready: Vec<BytesMut> = Vec::new();
        // The work still to come, each request's guarded by its canceller (a task's
        // background work has no id and is not cancellable here).
        let mut pending: Vec<LineFuture> = Vec::new();
        let mut cancellers: Vec<Option<Canceller>> = Vec::new();
        let mut elements = Vec::new();
        for element in batch.iter() {
            let mut one = BytesMut::new();
            match element {
                Err(rejection) => write_rejection(&mut one, rejection),
                Ok(msg) if msg.is_request() && msg.method() == "initialize" => {
                    if let Some(id) = msg.id() {
                        write_error_reason(
                            &mut one,
                            id,
                            INVALID_REQUEST,
                            INVALID_REQUEST_MESSAGE,
                            "initialize must not be part of a batch",
                        );
                    }
                }
                // NB. A cancel inside a batch names an earlier request of this connection: it
                // is queued for `poll_cancel`. The batch's own requests are cancelled through
                // `Job::elements`.
                Ok(msg) => match self.handle_message(&msg, &mut one) {
                    Outcome::Spawn(job) => match job.id {
                        Some(id) => {
                            let c = Canceller::new();
                            pending.push(Box::pin(c.guard(job.future)));
                            elements.push((id, c.clone()));
                            cancellers.push(Some(c));
                        }
                        None => {
                            pending.push(job.future);
                            cancellers.push(None);
                        }
                    },
                    Outcome::Cancel(id) => self.cancels.push(id),
                    Outcome::Done => {}
                },
            }
            if !one.is_empty() {
                ready.push(one);
            }
        }
        if pending.is_empty() {
            write_batch(out, ready.iter().map(|b| &b[..]));
            return Outcome::Done;
        }
        let future = async move {
            let mut lines: Vec<Bytes> = ready.into_iter().map(BytesMut::freeze).collect();
            // The requests' work runs together, as separate requests' would.
            let mut done: Vec<Option<Option<Bytes>>> = vec![None; pending.len()];
            std::future::poll_fn(|cx| {
                let mut waiting = false;
                for (work, done) in pending.iter_mut().zip(&mut done) {
                    if done.is_none() {
                        match work.as_mut().poll(cx) {
                            Poll::Ready(line) => *done = Some(line),
                            Poll::Pending => waiting = true,
                        }
                    }
                }
                if waiting {
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            })
            .await;
            // A request cancelled before this point gets no entry, even when its work had
            // already ended: the batch's answer is not out yet.
            lines.extend(
                done.into_iter()
                    .zip(cancellers)
                    .filter_map(|(line, canceller)| {
                        if canceller.is_some_and(|c| c.is_cancelled()) {
                            None
                        } else {
                            line.flatten()
                        }
                    }),
            );
            let mut out = BytesMut::new();
            write_batch(&mut out, lines.iter().map(|b| &b[..]));
            (!out.is_empty()).then(|| out.freeze())
        };
        Outcome::Spawn(Job {
            background: false,
            id: None,
            future: Box::pin(future),
            elements,
        })
    }
}

/// True when the request's `clientCapabilities.extensions` declares the tasks extension.
fn declares_tasks(msg: &Message<'_>) -> bool {
    msg.envelope()
        .client_capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(RawJson::is_object)
}

mod tasks_wire;

/// Writes the answers of a batch as one array line (nothing when there are none).
fn write_batch<'a>(out: &mut BytesMut, lines: impl Iterator<Item = &'a [u8]>) {
    let start = out.len();
    for line in lines {
        out.put_u8(if out.len() == start { b'[' } else { b',' });
        out.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
    }
    if out.len() > start {
        out.extend_from_slice(b"]\n");
    }
}

fn end_tool_result(
    server: &Server,
    out: &mut BytesMut,
    shape: Shape,
    structured: Option<&str>,
    is_error: bool,
) {
    out.put_u8(b']');
    if let Some(s) = structured.filter(|_| shape.structured()) {
        out.extend_from_slice(br#","structuredContent":"#);
        encode::write_raw(out, s);
    }
    if is_error {
        out.extend_from_slice(br#","isError":true"#);
    }
    if shape.modern() {
        out.extend_from_slice(server.modern_tail().as_bytes());
    }
    out.put_u8(b'}');
}

fn encode_tool_result(server: &Server, id: Id<'_>, shape: Shape, r: &ToolResult) -> BytesMut {
    let mut out = BytesMut::new();
    encode::begin_result(&mut out, id);
    write_result_object(server, &mut out, shape, r);
    encode::end_message(&mut out);
    out
}

/// Writes an asynchronous handler's result as a tool result object in `shape`.
fn write_result_object(server: &Server, out: &mut BytesMut, shape: Shape, r: &ToolResult) {
    out.extend_from_slice(br#"{"content":["#);
    let mut o = Output::new(out);
    o.replay(r);
    let (structured, is_error) = o.finish();
    end_tool_result(server, out, shape, structured.as_deref(), is_error);
}

fn internal_error(id: Id<'_>) -> BytesMut {
    let mut out = BytesMut::new();
    encode::write_error(&mut out, Some(id), INTERNAL_ERROR, "Internal error", None);
    out
}

fn write_rejection(out: &mut BytesMut, r: Rejection<'_>) {
    let code = r.error.rpc_code();
    let message = if r.error.is_parse_error() {
        PARSE_ERROR_MESSAGE
    } else {
        INVALID_REQUEST_MESSAGE
    };
    write_reason(out, r.id, code, message, r.error.as_str());
}

fn write_reason(out: &mut BytesMut, id: Option<Id<'_>>, code: i32, message: &str, reason: &str) {
    let mut data = BytesMut::new();
    let mut w = JsonWriter::new(&mut data);
    w.begin_object().key("reason").str(reason).end_object();
    let data = std::str::from_utf8(&data).unwrap_or("null");
    encode::write_error(out, id, code, message, Some(data));
}

fn write_error_reason(out: &mut BytesMut, id: Id<'_>, code: i32, message: &str, reason: &str) {
    write_reason(out, Some(id), code, message, reason);
}

fn write_error_null(out: &mut BytesMut, code: i32, message: &str, reason: &str) {
    write_reason(out, None, code, message, reason);
}

fn write_method_not_found(out: &mut BytesMut, id: Id<'_>, method: &str) {
    let mut data = BytesMut::new();
    let mut w = JsonWriter::new(&mut data);
    w.begin_object().key("method").str(method).end_object();
    let data = std::str::from_utf8(&data).unwrap_or("null");
    encode::write_error(
        out,
        Some(id),
        METHOD_NOT_FOUND,
        "Method not found",
        Some(data),
    );
}

/// `-32022` with `{supported, requested}`; `requested` is JSON text as sent.
fn write_unsupported(out: &mut BytesMut, id: Id<'_>, requested: &str) {
    let mut data = BytesMut::new();
    let mut w = JsonWriter::new(&mut data);
    w.begin_object().key("supported").begin_array();
    for v in ProtocolVersion::MODERN {
        w.str(v.as_str());
    }
    w.end_array().key("requested").raw(requested).end_object();
    let data = std::str::from_utf8(&data).unwrap_or("null");
    encode::write_error(
        out,
        Some(id),
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(data),
    );
}

/// Polls a future and turns a panic inside it into `Err(())`.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}
