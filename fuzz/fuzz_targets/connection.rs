//! `Connection::handle_frame` (with `poll_cancel` and the jobs it hands out), driven the way
//! the tokio driver drives it, over the demo server: an arbitrary sequence of frames never
//! panics; every request is answered exactly once, with its id byte for byte, at once or by
//! its job (or not at all when the client cancelled its job; a request cancelled inside a
//! batch in flight gets no entry in the batch's answer); a notification or a client's
//! response is never answered; only valid, compact JSON-RPC lines are written (the server's
//! own notifications included); the first request decides the era and it never changes;
//! batches are answered as `decisions.md` says; background work (a task's) answers nothing.
//!
//! Jobs are spawned on a one-thread runtime whose clock is paused (so `sleep` ends at once)
//! and make progress together, as in the driver; "running" a job awaits it.
//!
//! Input (one byte header, then steps; the seed script writes the same format):
//!
//! - header: the frame limit: below `0xf0` the default (8 MiB), else `(b - 0xf0) * 32` bytes;
//! - step `t % 4 == 0`: raw bytes: a 16-bit little-endian length, then that many bytes (or
//!   what is left), fed to the framer as they are (newlines included);
//! - step `t % 4 == 1`: one message built from an `arbitrary` [`Template`], and a newline;
//! - step `t % 4 == 2`: a batch of them, and a newline;
//! - step `t % 4 == 3`: await job number `t >> 2` in flight (`0xff`: await every job).
//!
//! At the end of the input the framer's last line is handled and every job that answers a
//! request is awaited.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bytes::{Bytes, BytesMut};
use janus_codec::{Era, Frame, FrameCodec, IdBuf, MessageKind, ProtocolVersion};
use janus_fuzz::oracle::{self, ItemView, MessageView, Verdict};
use janus_fuzz::wire::{self, Line, Reply};
use janus_server_core::{Canceller, Connection, Job, Outcome, Server, demo};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::task::JoinHandle;

const MODERN: &str = "2026-07-28";
const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The error codes `decisions.md` gives answers (`-32603` only for a failing handler).
const CODES: [i64; 7] = [-32700, -32600, -32601, -32602, -32603, -32021, -32022];

// ---------------------------------------------------------------------------------------------
// Structured messages.
// ---------------------------------------------------------------------------------------------

#[derive(Arbitrary, Debug, Clone)]
enum IdT {
    /// Small integers collide often: pipelined duplicates, and cancels that hit.
    Int(u8),
    /// A string that looks like a small integer: `"1"` is not `1`.
    Str(u8),
    Wide(i64),
    Text(String),
    Null,
    Float,
    Absent,
}

impl IdT {
    fn value(&self) -> Option<Value> {
        Some(match self {
            Self::Int(n) => json!(n % 8),
            Self::Str(n) => json!((n % 8).to_string()),
            Self::Wide(n) => json!(n),
            Self::Text(s) => json!(s),
            Self::Null => Value::Null,
            Self::Float => json!(1.5),
            Self::Absent => return None,
        })
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum MethodT {
    Initialize,
    Ping,
    ToolsList,
    ToolsCall,
    ServerDiscover,
    TasksGet,
    TasksResult,
    TasksList,
    TasksCancel,
    TasksUpdate,
    LoggingSetLevel,
    Initialized,
    Cancelled,
    Other(String),
}

impl MethodT {
    fn name(&self) -> &str {
        match self {
            Self::Initialize => "initialize",
            Self::Ping => "ping",
            Self::ToolsList => "tools/list",
            Self::ToolsCall => "tools/call",
            Self::ServerDiscover => "server/discover",
            Self::TasksGet => "tasks/get",
            Self::TasksResult => "tasks/result",
            Self::TasksList => "tasks/list",
            Self::TasksCancel => "tasks/cancel",
            Self::TasksUpdate => "tasks/update",
            Self::LoggingSetLevel => "logging/setLevel",
            Self::Initialized => "notifications/initialized",
            Self::Cancelled => "notifications/cancelled",
            Self::Other(s) => s,
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum VersionT {
    Handshake(u8),
    Modern,
    Text(String),
    Number,
    /// Every version the client knows, as a list: a plausible mistake.
    List,
}

impl VersionT {
    fn value(&self) -> Value {
        match self {
            Self::Handshake(n) => json!(HANDSHAKE[usize::from(n % 4)]),
            Self::Modern => json!(MODERN),
            Self::Text(s) => json!(s),
            Self::Number => json!(20260728),
            Self::List => json!(HANDSHAKE),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum CapsT {
    Absent,
    Empty,
    Tasks,
    Array,
}

#[derive(Arbitrary, Debug, Clone)]
enum EnvT {
    None,
    Envelope {
        version: Option<VersionT>,
        caps: CapsT,
        info: Option<bool>,
    },
    NotAnObject,
}

impl EnvT {
    fn value(&self) -> Option<Value> {
        match self {
            Self::None => None,
            Self::NotAnObject => Some(json!("io.modelcontextprotocol/protocolVersion")),
            Self::Envelope {
                version,
                caps,
                info,
            } => {
                let mut m = serde_json::Map::new();
                if let Some(v) = version {
                    m.insert("io.modelcontextprotocol/protocolVersion".into(), v.value());
                }
                let caps = match caps {
                    CapsT::Absent => None,
                    CapsT::Empty => Some(json!({})),
                    CapsT::Tasks => {
                        Some(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
                    }
                    CapsT::Array => Some(json!([])),
                };
                if let Some(c) = caps {
                    m.insert("io.modelcontextprotocol/clientCapabilities".into(), c);
                }
                match info {
                    None => {}
                    Some(true) => {
                        m.insert(
                            "io.modelcontextprotocol/clientInfo".into(),
                            json!({"name": "fuzz", "version": "1"}),
                        );
                    }
                    Some(false) => {
                        m.insert("io.modelcontextprotocol/clientInfo".into(), json!("fuzz"));
                    }
                }
                Some(Value::Object(m))
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum NumT {
    Int(i64),
    Eighths(i32),
    Text,
    Absent,
}

impl NumT {
    fn value(&self) -> Option<Value> {
        match self {
            Self::Int(n) => Some(json!(n)),
            Self::Eighths(n) => Some(json!(f64::from(*n) / 8.0)),
            Self::Text => Some(json!("1")),
            Self::Absent => None,
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum ToolT {
    Echo(String),
    EchoNumber,
    Add(NumT, NumT),
    Fail,
    Sleep(u16),
    SleepBad(i64),
    Unknown(String),
    NoName,
    ArgumentsNotObject,
}

impl ToolT {
    fn params(&self) -> serde_json::Map<String, Value> {
        let (name, args) = match self {
            Self::Echo(s) => ("echo", json!({"text": s})),
            Self::EchoNumber => ("echo", json!({"text": 1})),
            Self::Add(a, b) => {
                let mut m = serde_json::Map::new();
                if let Some(a) = a.value() {
                    m.insert("a".into(), a);
                }
                if let Some(b) = b.value() {
                    m.insert("b".into(), b);
                }
                ("add", Value::Object(m))
            }
            Self::Fail => ("fail", json!({})),
            Self::Sleep(ms) => ("sleep", json!({"ms": ms})),
            Self::SleepBad(ms) => ("sleep", json!({"ms": ms})),
            Self::Unknown(s) => (s.as_str(), json!({})),
            Self::NoName => return serde_json::Map::new(),
            Self::ArgumentsNotObject => ("echo", json!([1])),
        };
        let mut m = serde_json::Map::new();
        m.insert("name".into(), json!(name));
        m.insert("arguments".into(), args);
        m
    }
}

/// The `taskId` of a `tasks/*` request.
#[derive(Arbitrary, Debug, Clone)]
enum TaskRefT {
    /// One of the task ids the server handed out on this connection (if any yet).
    Known(u8),
    Text(String),
    Number,
    Absent,
}

/// What the message is, as the JSON-RPC fields it has.
#[derive(Arbitrary, Debug, Clone)]
enum ShapeT {
    Call,
    Result,
    Error,
    /// No `"jsonrpc":"2.0"`.
    NoVersion,
    /// A method and a result.
    Mixed,
    /// `params` that are a string.
    ScalarParams,
}

/// One message, from a few choices that reach the server's decisions quickly.
#[derive(Arbitrary, Debug, Clone)]
struct Template {
    shape: ShapeT,
    id: IdT,
    method: MethodT,
    envelope: EnvT,
    /// `params.protocolVersion` of an `initialize`.
    version: VersionT,
    tool: ToolT,
    /// `params.cursor` of a `tools/list`.
    cursor: Option<String>,
    /// `params.requestId` of a `notifications/cancelled`.
    target: IdT,
    /// `params.task` of a `tools/call` (legacy tasks, 2025-11-25): `{"ttl": n}`.
    task: Option<u16>,
    /// `params.taskId` of a `tasks/*` request.
    task_id: TaskRefT,
    /// Written as Python's `json.dumps` writes by default: a space after each `,` and `:`.
    spaced: bool,
}

impl Template {
    /// The message as one line of JSON text (without its newline).
    /// `tasks` are the task ids the server handed out so far.
    fn text(&self, tasks: &[String]) -> String {
        let compact = self.value(tasks).to_string();
        if !self.spaced {
            return compact;
        }
        let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
        for c in compact.chars() {
            out.push(c);
            if in_string {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => in_string = false,
                    _ => {}
                }
            } else if c == '"' {
                in_string = true;
            } else if c == ',' || c == ':' {
                out.push(' ');
            }
        }
        out
    }

    fn value(&self, tasks: &[String]) -> Value {
        let mut m = serde_json::Map::new();
        if !matches!(self.shape, ShapeT::NoVersion) {
            m.insert("jsonrpc".into(), json!("2.0"));
        }
        if let Some(id) = self.id.value() {
            m.insert("id".into(), id);
        }
        match self.shape {
            ShapeT::Result => {
                m.insert("result".into(), json!({}));
                return Value::Object(m);
            }
            ShapeT::Error => {
                m.insert("error".into(), json!({"code": -1, "message": "x"}));
                return Value::Object(m);
            }
            ShapeT::Mixed => {
                m.insert("result".into(), json!({}));
            }
            ShapeT::Call | ShapeT::NoVersion | ShapeT::ScalarParams => {}
        }
        m.insert("method".into(), json!(self.method.name()));
        let mut params = match &self.method {
            MethodT::Initialize => json!({
                "protocolVersion": self.version.value(),
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "1"},
            })
            .as_object()
            .cloned()
            .unwrap_or_default(),
            MethodT::ToolsCall => {
                let mut p = self.tool.params();
                if let Some(ttl) = self.task {
                    p.insert("task".into(), json!({"ttl": ttl}));
                }
                p
            }
            MethodT::TasksGet
            | MethodT::TasksResult
            | MethodT::TasksCancel
            | MethodT::TasksUpdate
            | MethodT::TasksList => {
                let mut p = serde_json::Map::new();
                let id = match &self.task_id {
                    TaskRefT::Known(k) if !tasks.is_empty() => {
                        Some(json!(tasks[usize::from(*k) % tasks.len()]))
                    }
                    TaskRefT::Known(_) => Some(json!("no-such-task")),
                    TaskRefT::Text(t) => Some(json!(t)),
                    TaskRefT::Number => Some(json!(1)),
                    TaskRefT::Absent => None,
                };
                if let Some(id) = id {
                    p.insert("taskId".into(), id);
                }
                if let Some(c) = &self.cursor {
                    p.insert("cursor".into(), json!(c));
                }
                p
            }
            MethodT::ToolsList => {
                let mut p = serde_json::Map::new();
                if let Some(c) = &self.cursor {
                    p.insert("cursor".into(), json!(c));
                }
                p
            }
            MethodT::Cancelled => {
                let mut p = serde_json::Map::new();
                if let Some(t) = self.target.value() {
                    p.insert("requestId".into(), t);
                }
                p
            }
            _ => serde_json::Map::new(),
        };
        if let Some(meta) = self.envelope.value() {
            params.insert("_meta".into(), meta);
        }
        if matches!(self.shape, ShapeT::ScalarParams) {
            m.insert("params".into(), json!("params"));
        } else if !params.is_empty() {
            m.insert("params".into(), Value::Object(params));
        }
        Value::Object(m)
    }
}

// ---------------------------------------------------------------------------------------------
// The harness: a driver of one connection that checks what it writes.
// ---------------------------------------------------------------------------------------------

/// What a job in flight must write.
enum Expect {
    /// The answer to one request: its raw id and the era it was served in.
    One(Box<MessageView>, Era),
    /// A batch answer: one entry per request or invalid element, by raw id (`null` included).
    Batch(BTreeMap<String, usize>),
    /// A task's background work, started by a request answered at once: no answer at all
    /// (notifications of the server's own at most).
    Background,
}

/// A job, spawned on the runtime as the driver spawns it: jobs make progress together
/// (a `tasks/result` waits on another job's work), and "running" one is awaiting it.
struct InFlight {
    id: Option<IdBuf>,
    handle: JoinHandle<Option<Bytes>>,
    expect: Expect,
    /// A batch's requests whose work is still to come, each cancellable on its own.
    elements: Vec<(IdBuf, Canceller)>,
}

struct Harness {
    conn: Connection,
    codec: FrameCodec,
    input: BytesMut,
    jobs: Vec<InFlight>,
    /// The task ids the server handed out, for templates to name.
    tasks: Vec<String>,
}

/// The most task ids remembered.
const MAX_KNOWN_TASKS: usize = 16;

thread_local! {
    /// Runs the jobs: one thread, and a paused clock that jumps ahead whenever every task
    /// waits on a timer, so `sleep` ends at once.
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    /// The demo server, shared by every connection as `janus serve` shares it.
    static SERVER: Arc<Server> = demo::server();
}

/// The raw id of a view (it has one: it is a request).
fn raw_id(v: &MessageView) -> &str {
    &v.id.as_ref().expect("a request has an id").raw
}

/// A string `params.protocolVersion` that is a handshake version, else the latest one.
fn negotiated_for(v: &MessageView) -> &'static str {
    let asked = v
        .params
        .as_ref()
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str);
    HANDSHAKE
        .into_iter()
        .find(|h| Some(*h) == asked)
        .unwrap_or("2025-11-25")
}

/// Checks the answer to one request, served on a connection of era `era`.
fn check_answer(reply: &Reply, v: &MessageView, era: Era) {
    let text = &reply.message;
    assert_eq!(
        reply.id,
        raw_id(v),
        "the id is echoed byte for byte: {text}"
    );
    if let Some(code) = reply.code {
        assert!(CODES.contains(&code), "an unexpected error code: {text}");
    }
    let method = v.method.as_deref().unwrap_or_default();
    match era {
        Era::Modern => {
            if method == "initialize" {
                assert_eq!(reply.code, Some(-32022), "modern initialize: {text}");
            }
            if let Some(r) = &reply.result {
                // decisions.md: every modern result carries these two.
                assert!(r.get("resultType").is_some(), "no resultType: {text}");
                assert!(
                    r["_meta"].get(SERVER_INFO).is_some(),
                    "no serverInfo: {text}"
                );
            }
        }
        Era::Legacy => {
            if v.era == Era::Modern && method != "initialize" {
                assert_eq!(reply.code, Some(-32600), "the era is locked: {text}");
            } else if method == "ping" {
                assert_eq!(reply.result, Some(json!({})), "ping: {text}");
            }
            if let Some(r) = &reply.result {
                assert!(r.get("resultType").is_none(), "a legacy result: {text}");
            }
        }
    }
}

/// The expected entries of a batch answer (requests and invalid elements, by raw id).
fn batch_entries(items: &[ItemView]) -> BTreeMap<String, usize> {
    let mut want = BTreeMap::new();
    for item in items {
        let id = match item {
            ItemView::Invalid(id) => id.as_ref().map_or("null", |i| &i.raw).to_owned(),
            ItemView::Message(m) if m.kind == MessageKind::Request => raw_id(m).to_owned(),
            ItemView::Message(_) => continue,
        };
        *want.entry(id).or_default() += 1;
    }
    want
}

/// Checks a batch answer against its expected entries.
fn check_batch(line: &Line, want: &BTreeMap<String, usize>) {
    let Line::Batch(replies) = line else {
        panic!("a batch is answered with an array: {line:?}")
    };
    let mut got = BTreeMap::new();
    for r in replies {
        *got.entry(r.id.clone()).or_default() += 1;
        if let Some(code) = r.code {
            assert!(CODES.contains(&code), "an unexpected error code: {r:?}");
        }
    }
    assert_eq!(&got, want, "one entry per request or invalid element");
}

/// The single error line of a frame that is not a message: its code, and id `null`.
fn check_error_line(lines: &[Line], code: i64, id: &str) {
    let [Line::Single(r)] = lines else {
        panic!("want one error line, got {lines:?}")
    };
    assert_eq!(r.code, Some(code), "{r:?}");
    assert_eq!(r.id, id, "{r:?}");
}

/// The cancels a notification asks for: `notifications/cancelled` with a string or integer
/// `requestId`, by value (its JSON text, read again).
fn cancel_of(v: &MessageView) -> Option<Value> {
    if v.kind != MessageKind::Notification || v.method.as_deref() != Some("notifications/cancelled")
    {
        return None;
    }
    let id = v.params.as_ref()?.as_object()?.get("requestId")?;
    match id {
        Value::String(_) => Some(id.clone()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(id.clone()),
        _ => None,
    }
}

impl Harness {
    fn new(limit: usize) -> Self {
        let mut codec = FrameCodec::new();
        codec.max_frame_len(limit);
        Self {
            conn: Connection::new(SERVER.with(Arc::clone)),
            codec,
            input: BytesMut::new(),
            jobs: Vec::new(),
            tasks: Vec::new(),
        }
    }

    /// Feeds bytes and handles every frame they complete.
    fn feed(&mut self, bytes: &[u8]) {
        self.input.extend_from_slice(bytes);
        while let Some(frame) = self.codec.decode_frame(&mut self.input) {
            self.frame(&frame);
        }
    }

    /// Ends the input: the last line, then every job that answers a request. Background work
    /// left then ends with the connection, as in the driver; what of it already ended is
    /// checked.
    fn finish(&mut self) {
        while let Some(frame) = self.codec.decode_frame_eof(&mut self.input) {
            self.frame(&frame);
        }
        while let Some(i) = self
            .jobs
            .iter()
            .position(|j| !matches!(j.expect, Expect::Background))
        {
            self.run(i);
        }
        while let Some(j) = self.jobs.pop() {
            if j.handle.is_finished() {
                self.jobs.push(j);
                let last = self.jobs.len() - 1;
                self.run(last);
            } else {
                j.handle.abort();
            }
        }
    }

    /// Starts a job.
    fn spawn(&mut self, job: Job, expect: Expect) {
        let handle = RUNTIME.with(|rt| rt.spawn(job.future));
        self.jobs.push(InFlight {
            id: job.id,
            handle,
            expect,
            elements: job.elements,
        });
    }

    /// Awaits job `i` (the others make progress meanwhile) and checks its line.
    fn run(&mut self, i: usize) {
        let InFlight { handle, expect, .. } = self.jobs.remove(i);
        let line = RUNTIME
            .with(|rt| rt.block_on(handle))
            .expect("a job ends: its panics are caught inside it");
        let lines = wire::lines(line.as_deref().unwrap_or_default());
        let answers: Vec<&Line> = lines.iter().filter(|l| l.is_answer()).collect();
        match expect {
            Expect::One(v, era) => {
                let [Line::Single(r)] = answers[..] else {
                    panic!("a job answers its request with one line: {lines:?}")
                };
                check_answer(r, &v, era);
                self.remember_tasks(r);
            }
            // Every entry of the batch was cancelled: no line at all.
            Expect::Batch(want) if want.is_empty() => {
                assert!(answers.is_empty(), "an empty batch answer: {lines:?}");
            }
            Expect::Batch(want) => {
                let [l] = answers[..] else {
                    panic!("a batch job writes one line: {lines:?}")
                };
                check_batch(l, &want);
            }
            Expect::Background => {
                assert!(
                    answers.is_empty(),
                    "background work answers nothing: {lines:?}"
                );
            }
        }
    }

    /// Stops every job in flight for request `id`, and the request inside the batches in
    /// flight: nothing is written for it. A batch that has already ended (jobs only run
    /// inside `block_on`, so this is stable here) keeps its answer.
    fn cancel(&mut self, id: &IdBuf) {
        self.jobs.retain(|j| {
            let hit = j.id.as_ref() == Some(id);
            if hit {
                j.handle.abort();
            }
            !hit
        });
        for j in &mut self.jobs {
            let Expect::Batch(want) = &mut j.expect else {
                continue;
            };
            if j.handle.is_finished() {
                continue;
            }
            j.elements.retain(|(element, canceller)| {
                if element != id {
                    return true;
                }
                canceller.cancel();
                let raw = id.as_id().as_raw();
                if let Some(n) = want.get_mut(raw) {
                    *n -= 1;
                    if *n == 0 {
                        want.remove(raw);
                    }
                }
                false
            });
        }
    }

    /// Keeps the task id a result hands out (legacy `task.taskId`, modern `taskId`).
    fn remember_tasks(&mut self, r: &Reply) {
        let Some(result) = &r.result else { return };
        for id in [&result["task"]["taskId"], &result["taskId"]] {
            if let Some(id) = id.as_str()
                && self.tasks.len() < MAX_KNOWN_TASKS
                && !self.tasks.iter().any(|t| t == id)
            {
                self.tasks.push(id.to_owned());
            }
        }
    }

    /// Handles one frame and checks what it wrote against the oracle's reading of it.
    fn frame(&mut self, frame: &Frame) {
        let era_before = self.conn.era();
        let negotiated_before = self.conn.negotiated();
        let mut out = BytesMut::new();
        let outcome = self.conn.handle_frame(frame, &mut out);
        let mut cancels = Vec::new();
        let mut job = None;
        match outcome {
            Outcome::Done => {}
            Outcome::Spawn(j) => job = Some(j),
            Outcome::Cancel(id) => cancels.push(id),
        }
        while let Some(id) = self.conn.poll_cancel() {
            cancels.push(id);
        }
        let lines = wire::lines(&out);
        let era_after = self.conn.era();
        if let Some(e) = era_before {
            assert_eq!(era_after, Some(e), "the era is locked");
        }
        let verdict = match frame {
            Frame::Oversize => {
                check_error_line(&lines, -32600, "null");
                assert!(job.is_none() && cancels.is_empty());
                assert_eq!(era_after, era_before);
                return;
            }
            Frame::Line(line) => oracle::oracle(line),
        };
        let mut want_cancels = Vec::new();
        match verdict {
            Verdict::NotJson => check_error_line(&lines, -32700, "null"),
            Verdict::Single(ItemView::Invalid(id)) => {
                check_error_line(&lines, -32600, id.as_ref().map_or("null", |i| &i.raw));
            }
            Verdict::Single(ItemView::Message(v)) => match v.kind {
                MessageKind::Request => {
                    self.request(v, &lines, job, era_before, negotiated_before);
                    assert!(cancels.is_empty());
                    return;
                }
                MessageKind::Notification => {
                    assert!(
                        lines.is_empty(),
                        "a notification is never answered: {lines:?}"
                    );
                    if era_before.is_some() {
                        want_cancels.extend(cancel_of(&v));
                    }
                }
                MessageKind::Response | MessageKind::ErrorResponse => {
                    assert!(
                        lines.is_empty(),
                        "a client's response is ignored: {lines:?}"
                    );
                }
            },
            Verdict::Batch(items) => {
                let on_batch_session = era_before == Some(Era::Legacy)
                    && negotiated_before == Some(ProtocolVersion::V2025_03_26);
                if !on_batch_session {
                    check_error_line(&lines, -32600, "null");
                } else {
                    let want = batch_entries(&items);
                    want_cancels.extend(items.iter().filter_map(|i| match i {
                        ItemView::Message(m) => cancel_of(m),
                        ItemView::Invalid(_) => None,
                    }));
                    match (&lines[..], job.take()) {
                        ([], None) => assert!(want.is_empty(), "a batch went unanswered"),
                        ([l], None) => check_batch(l, &want),
                        ([], Some(j)) => {
                            assert!(j.id.is_none(), "a batch job names no request");
                            self.spawn(j, Expect::Batch(want));
                        }
                        (lines, job) => panic!("a batch writes one line: {lines:?}, {job:?}"),
                    }
                }
                assert_eq!(self.conn.negotiated(), negotiated_before);
            }
        }
        assert!(job.is_none(), "a job for a frame that is not a request");
        assert_eq!(era_after, era_before, "only a request decides the era");
        // Cancels: exactly those the notifications asked for, by value.
        let mut got: Vec<Value> = cancels
            .iter()
            .map(|id| serde_json::from_str(id.as_id().as_raw()).expect("an id is JSON"))
            .collect();
        let key = |v: &Value| v.to_string();
        got.sort_by_key(key);
        want_cancels.sort_by_key(key);
        assert_eq!(got, want_cancels, "the cancels asked for");
        for id in &cancels {
            self.cancel(id);
        }
    }

    /// Checks what a single request wrote and started.
    fn request(
        &mut self,
        v: Box<MessageView>,
        lines: &[Line],
        job: Option<Job>,
        era_before: Option<Era>,
        negotiated_before: Option<ProtocolVersion>,
    ) {
        // The first request decides the era.
        let era = self.conn.era().expect("a request decides the era");
        if era_before.is_none() {
            assert_eq!(era, v.era, "the first request decides the era");
        }
        if era == Era::Legacy
            && negotiated_before.is_none()
            && v.method.as_deref() == Some("initialize")
        {
            assert_eq!(
                self.conn.negotiated().map(ProtocolVersion::as_str),
                Some(negotiated_for(&v))
            );
        } else {
            assert_eq!(self.conn.negotiated(), negotiated_before);
        }
        // Notifications of the server's own may come along; the answer comes once.
        let answers: Vec<&Line> = lines.iter().filter(|l| l.is_answer()).collect();
        match (&answers[..], job) {
            ([Line::Single(r)], None) => {
                check_answer(r, &v, era);
                self.remember_tasks(r);
            }
            // Answered at once, with background work (a task's) started.
            ([Line::Single(r)], Some(j)) if j.id.is_none() => {
                check_answer(r, &v, era);
                self.remember_tasks(r);
                self.spawn(j, Expect::Background);
            }
            ([], Some(j)) => {
                let id = j.id.as_ref().expect("a request's job names it");
                assert_eq!(id.as_id().as_raw(), raw_id(&v));
                self.spawn(j, Expect::One(v, era));
            }
            (answers, job) => {
                panic!("a request is answered once, now or by a job: {answers:?}, {job:?}")
            }
        }
    }
}

/// Reads `n` bytes, or what is left.
fn take<'a>(u: &mut Unstructured<'a>, n: usize) -> &'a [u8] {
    let n = n.min(u.len());
    u.bytes(n).unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let limit = match take(&mut u, 1) {
        [b] if *b >= 0xf0 => usize::from(b - 0xf0) * 32,
        _ => janus_codec::DEFAULT_MAX_FRAME_LEN,
    };
    let mut h = Harness::new(limit);
    while let [t] = take(&mut u, 1) {
        let t = *t;
        match t % 4 {
            0 => {
                let len = match take(&mut u, 2) {
                    [a, b] => usize::from(u16::from_le_bytes([*a, *b])),
                    _ => 0,
                };
                let bytes = take(&mut u, len);
                h.feed(bytes);
            }
            1 => {
                let Ok(m) = Template::arbitrary(&mut u) else {
                    break;
                };
                let mut line = m.text(&h.tasks).into_bytes();
                line.push(b'\n');
                h.feed(&line);
            }
            2 => {
                let Ok(ms) = Vec::<Template>::arbitrary(&mut u) else {
                    break;
                };
                let texts: Vec<String> = ms.iter().map(|m| m.text(&h.tasks)).collect();
                let line = format!("[{}]\n", texts.join(","));
                h.feed(line.as_bytes());
            }
            _ => {
                if !h.jobs.is_empty() {
                    if t == 0xff {
                        while !h.jobs.is_empty() {
                            h.run(0);
                        }
                    } else {
                        let i = usize::from(t >> 2) % h.jobs.len();
                        h.run(i);
                    }
                }
            }
        }
    }
    h.finish();
});
