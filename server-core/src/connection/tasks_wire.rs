//! Tasks on the wire: task-augmented `tools/call` and the `tasks/*` methods of both
//! generations (`decisions.md`, "Tasks"). The store itself is [`crate::tasks`].

use super::{
    CatchUnwind, Connection, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Job,
    METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, Outcome, Output, TASKS_REQUIRED, declares_tasks,
    end_tool_result,
};
use crate::server::{Server, Shape};
use crate::tasks::{self, Outcome as Ended, Status, StoreFull, Task, TaskStore};
use crate::tools::{Args, Call, TaskSupport, Tool, ToolResult};
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{Id, Message, ProtocolVersion, RawJson};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// How a `tools/call` runs as a task.
#[derive(Debug, Clone, Copy)]
pub(super) enum TaskMode {
    /// 2025-11-25 `params.task`, with its `ttl`.
    Legacy { ttl: Option<u64> },
    /// The modern extension, declared by the request.
    Modern,
}

/// Why a `tools/call` cannot run as the client asked.
#[derive(Debug, Clone, Copy)]
pub(super) enum Refusal {
    /// A task was asked of a tool whose `taskSupport` is `forbidden`.
    ForbiddenAsTask,
    /// A tool whose `taskSupport` is `required` was called without a task.
    RequiredTask,
    /// A modern tool that runs only as a task, for a request without the extension.
    MissingExtension,
}

impl Refusal {
    pub(super) fn write(self, out: &mut BytesMut, id: Id<'_>, tool: &str) {
        // NB. 2025-11-25 answers task negotiation failures with -32601 in its capability text
        // and -32600 in its error text; Janus follows the capability text.
        let (code, message, data) = match self {
            Self::ForbiddenAsTask => (
                METHOD_NOT_FOUND,
                format!("Tool {tool} does not support task-augmented execution"),
                None,
            ),
            Self::RequiredTask => (
                METHOD_NOT_FOUND,
                format!("Tool {tool} requires task-augmented execution (params.task)"),
                None,
            ),
            Self::MissingExtension => (
                MISSING_CLIENT_CAPABILITY,
                "Missing required client capability".to_owned(),
                Some(TASKS_REQUIRED),
            ),
        };
        encode::write_error(out, Some(id), code, &message, data);
    }
}

const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";

impl Connection {
    /// Whether this `tools/call` runs as a task, per its era and the tool's `taskSupport`.
    pub(super) fn task_mode(
        &self,
        msg: &Message<'_>,
        shape: Shape,
        support: TaskSupport,
    ) -> Result<Option<TaskMode>, Refusal> {
        if shape.modern() {
            return match (declares_tasks(msg), support) {
                (true, TaskSupport::Optional | TaskSupport::Required) => Ok(Some(TaskMode::Modern)),
                (false, TaskSupport::Required) => Err(Refusal::MissingExtension),
                _ => Ok(None),
            };
        }
        if shape.version != ProtocolVersion::V2025_11_25 {
            return Ok(None);
        }
        match (msg.param("task").filter(|t| t.is_object()), support) {
            (Some(_), TaskSupport::Forbidden) => Err(Refusal::ForbiddenAsTask),
            (Some(t), _) => Ok(Some(TaskMode::Legacy {
                ttl: t.get("ttl").and_then(|v| v.as_str().parse::<u64>().ok()),
            })),
            (None, TaskSupport::Required) => Err(Refusal::RequiredTask),
            (None, _) => Ok(None),
        }
    }

    /// Runs a tool call as a task: creates it, answers with the task, and runs the work (at
    /// once for an inline handler, as a job otherwise).
    pub(super) fn task_call(
        &self,
        id: Id<'_>,
        tool: &dyn Tool,
        args: Option<RawJson<'_>>,
        shape: Shape,
        mode: TaskMode,
        out: &mut BytesMut,
    ) -> Outcome {
        let legacy = matches!(mode, TaskMode::Legacy { .. });
        let ttl = match mode {
            TaskMode::Legacy { ttl } => ttl,
            TaskMode::Modern => None,
        };
        let now = self.server.now_ms();
        let task = match self.tasks.create(now, ttl) {
            Ok(t) => t,
            Err(StoreFull) => {
                let message = format!(
                    "Task limit reached: a connection keeps at most {} tasks",
                    tasks::MAX_TASKS
                );
                encode::write_error(out, Some(id), INTERNAL_ERROR, &message, None);
                return Outcome::Done;
            }
        };
        let mut scratch = BytesMut::new();
        scratch.extend_from_slice(br#"{"content":["#);
        let called = catch_unwind(AssertUnwindSafe(|| {
            let mut o = Output::new(&mut scratch);
            let call = tool.call(Args::new(args), &mut o);
            (call, o.finish())
        }));
        let outcome = match called {
            Ok((Call::Done, (structured, is_error))) => {
                end_tool_result(
                    &self.server,
                    &mut scratch,
                    shape,
                    structured.as_deref(),
                    is_error,
                );
                let json = String::from_utf8_lossy(&scratch).into_owned();
                let ended = Ended::Result { json, is_error };
                self.tasks
                    .advance(&task.id, now, status_of(&ended, legacy), Some(ended));
                Outcome::Done
            }
            Ok((Call::Later(work), _)) => Outcome::Spawn(Job {
                elements: Vec::new(),
                id: None,
                background: true,
                future: Box::pin(run_task(
                    Arc::clone(&self.tasks),
                    Arc::clone(&self.server),
                    task.id.clone(),
                    shape,
                    legacy,
                    work,
                )),
            }),
            Err(_) => {
                let ended = Ended::Error(internal_error_object());
                self.tasks
                    .advance(&task.id, now, Status::Failed, Some(ended));
                Outcome::Done
            }
        };
        let current = self.tasks.get(&task.id, now).unwrap_or(task);
        encode::begin_result(out, id);
        if legacy {
            out.extend_from_slice(br#"{"task":"#);
            write_task(out, &current, true);
            out.put_u8(b'}');
        } else {
            write_task(out, &current, false);
            out.truncate(out.len() - 1);
            write_modern_tail(out, &self.server, "task");
        }
        encode::end_message(out);
        outcome
    }

    /// `tasks/*` on a 2025-11-25 session.
    pub(super) fn legacy_tasks(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        out: &mut BytesMut,
    ) -> Outcome {
        let now = self.server.now_ms();
        if msg.method() == "tasks/list" {
            let cursor = match msg.param("cursor").filter(|c| !c.is_null()) {
                None => 0,
                Some(c) => match c.as_string().as_deref().and_then(decode_cursor) {
                    Some(n) => n,
                    None => {
                        encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
                        return Outcome::Done;
                    }
                },
            };
            let (page, next) = self.tasks.list(now, cursor);
            encode::begin_result(out, id);
            out.extend_from_slice(br#"{"tasks":["#);
            for (i, t) in page.iter().enumerate() {
                if i > 0 {
                    out.put_u8(b',');
                }
                write_task(out, t, true);
            }
            out.put_u8(b']');
            if let Some(n) = next {
                out.extend_from_slice(br#","nextCursor":"#);
                encode::write_str(out, &format!("tasks-{n}"));
            }
            out.put_u8(b'}');
            encode::end_message(out);
            return Outcome::Done;
        }
        let Some(task_id) = task_id(msg, out, id) else {
            return Outcome::Done;
        };
        match msg.method() {
            "tasks/get" => match self.tasks.get(&task_id, now) {
                Some(t) => {
                    encode::begin_result(out, id);
                    write_task(out, &t, true);
                    encode::end_message(out);
                }
                None => unknown_task(out, id, &task_id),
            },
            "tasks/cancel" => match self.tasks.cancel(&task_id, now) {
                Some((t, changed)) => {
                    encode::begin_result(out, id);
                    write_task(out, &t, true);
                    encode::end_message(out);
                    if changed {
                        out.extend_from_slice(&status_notification(&t));
                    }
                }
                None => unknown_task(out, id, &task_id),
            },
            "tasks/result" => {
                let Some(t) = self.tasks.get(&task_id, now) else {
                    unknown_task(out, id, &task_id);
                    return Outcome::Done;
                };
                if t.status.is_terminal() {
                    write_task_result(out, id, &t);
                    return Outcome::Done;
                }
                // NB. tasks/result waits until the task is terminal.
                let owned = id.to_owned();
                let reply = owned.clone();
                let wait = self.tasks.terminal(task_id.clone());
                return Outcome::Spawn(Job {
                    elements: Vec::new(),
                    id: Some(owned),
                    background: false,
                    future: Box::pin(async move {
                        let mut line = BytesMut::new();
                        match wait.await {
                            Some(t) => write_task_result(&mut line, reply.as_id(), &t),
                            None => unknown_task(&mut line, reply.as_id(), &task_id),
                        }
                        Some(line.freeze())
                    }),
                });
            }
            _ => super::write_method_not_found(out, id, msg.method()),
        }
        Outcome::Done
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the modern extension (the request
    /// declared it; the caller checked).
    pub(super) fn modern_tasks(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        out: &mut BytesMut,
    ) -> Outcome {
        let now = self.server.now_ms();
        let Some(task_id) = task_id(msg, out, id) else {
            return Outcome::Done;
        };
        let found = match msg.method() {
            "tasks/cancel" => self.tasks.cancel(&task_id, now).map(|(t, _)| t),
            _ => self.tasks.get(&task_id, now),
        };
        let Some(t) = found else {
            unknown_task(out, id, &task_id);
            return Outcome::Done;
        };
        encode::begin_result(out, id);
        if msg.method() == "tasks/get" {
            write_task(out, &t, false);
            out.truncate(out.len() - 1);
            match (&t.status, &t.outcome) {
                (Status::Completed, Some(Ended::Result { json, .. })) => {
                    out.extend_from_slice(br#","result":"#);
                    encode::write_raw(out, json);
                }
                (Status::Failed, Some(Ended::Error(e))) => {
                    out.extend_from_slice(br#","error":"#);
                    encode::write_raw(out, e);
                }
                _ => {}
            }
        } else {
            // tasks/update and tasks/cancel answer an empty acknowledgement.
            out.put_u8(b'{');
        }
        write_modern_tail(out, &self.server, "complete");
        encode::end_message(out);
        Outcome::Done
    }
}

/// Runs a task's work as a job; a legacy task's job yields its status notification.
async fn run_task(
    store: Arc<TaskStore>,
    server: Arc<Server>,
    task_id: String,
    shape: Shape,
    legacy: bool,
    work: crate::tools::ToolFuture,
) -> Option<bytes::Bytes> {
    let ran = tasks::Run::new(&store, task_id.clone(), CatchUnwind(work)).await?;
    let ended = match ran {
        Ok(result) => Ended::Result {
            json: result_object(&server, shape, &result),
            is_error: result.is_error,
        },
        Err(()) => Ended::Error(internal_error_object()),
    };
    let status = status_of(&ended, legacy);
    let (task, changed) = store.advance(&task_id, server.now_ms(), status, Some(ended))?;
    (legacy && changed).then(|| status_notification(&task).freeze())
}

/// The status a finished task takes: `isError` is `failed` in the legacy generation and
/// `completed` in the extension, as each specification says.
fn status_of(ended: &Ended, legacy: bool) -> Status {
    match ended {
        Ended::Result { is_error: true, .. } if legacy => Status::Failed,
        Ended::Result { .. } => Status::Completed,
        Ended::Error(_) => Status::Failed,
    }
}

/// A tool result object (no JSON-RPC envelope) in `shape`.
fn result_object(server: &Server, shape: Shape, r: &ToolResult) -> String {
    let mut out = BytesMut::new();
    super::write_result_object(server, &mut out, shape, r);
    String::from_utf8_lossy(&out).into_owned()
}

fn internal_error_object() -> String {
    r#"{"code":-32603,"message":"Internal error"}"#.to_owned()
}

/// Writes a task's fields as an object: `ttl`/`pollInterval` (legacy) or
/// `ttlMs`/`pollIntervalMs` (the extension).
fn write_task(out: &mut BytesMut, t: &Task, legacy: bool) {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    w.key("taskId").str(&t.id);
    w.key("status").str(t.status.as_str());
    w.key("createdAt").str(&tasks::rfc3339(t.created_ms));
    w.key("lastUpdatedAt").str(&tasks::rfc3339(t.updated_ms));
    let (ttl, poll) = if legacy {
        ("ttl", "pollInterval")
    } else {
        ("ttlMs", "pollIntervalMs")
    };
    w.key(ttl).int(i64::try_from(t.ttl_ms).unwrap_or(i64::MAX));
    w.key(poll)
        .int(i64::try_from(t.poll_ms).unwrap_or(i64::MAX));
    w.end_object();
}

/// `,"resultType":KIND,"_meta":{serverInfo}}` after an object's last member.
fn write_modern_tail(out: &mut BytesMut, server: &Server, kind: &str) {
    if out.last() != Some(&b'{') {
        out.put_u8(b',');
    }
    out.extend_from_slice(br#""resultType":"#);
    encode::write_str(out, kind);
    out.extend_from_slice(br#","_meta":{"io.modelcontextprotocol/serverInfo":"#);
    out.extend_from_slice(server.info_json().as_bytes());
    out.extend_from_slice(b"}}");
}

/// `notifications/tasks/status` with the task's fields (legacy generation).
fn status_notification(t: &Task) -> BytesMut {
    let mut out = BytesMut::new();
    encode::begin_notification(&mut out, "notifications/tasks/status");
    write_task(&mut out, t, true);
    encode::end_message(&mut out);
    out
}

/// The answer of `tasks/result` for a terminal task: what the original call would have
/// answered, with `_meta` naming the task.
fn write_task_result(out: &mut BytesMut, id: Id<'_>, t: &Task) {
    match &t.outcome {
        Some(Ended::Result { json, .. }) => {
            encode::begin_result(out, id);
            // The result object gains `_meta["io.modelcontextprotocol/related-task"]`.
            let body = json.strip_suffix('}').unwrap_or(json);
            encode::write_raw(out, body);
            if body.len() > 1 {
                out.put_u8(b',');
            }
            out.extend_from_slice(br#""_meta":{"#);
            encode::write_str(out, RELATED_TASK_KEY);
            out.extend_from_slice(br#":{"taskId":"#);
            encode::write_str(out, &t.id);
            out.extend_from_slice(b"}}}");
            encode::end_message(out);
        }
        Some(Ended::Error(e)) => {
            out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
            out.extend_from_slice(id.as_raw().as_bytes());
            out.extend_from_slice(br#","error":"#);
            encode::write_raw(out, e);
            encode::end_message(out);
        }
        None => {
            let message = format!("Task {} was cancelled", t.id);
            encode::write_error(out, Some(id), INVALID_REQUEST, &message, None);
        }
    }
}

/// Reads `params.taskId`; answers `-32602` and returns `None` when it is not a string.
fn task_id(msg: &Message<'_>, out: &mut BytesMut, id: Id<'_>) -> Option<String> {
    let t = msg.param("taskId").and_then(RawJson::as_string);
    if t.is_none() {
        encode::write_error(
            out,
            Some(id),
            INVALID_PARAMS,
            "Invalid params: taskId must be a string",
            None,
        );
    }
    t.map(std::borrow::Cow::into_owned)
}

fn unknown_task(out: &mut BytesMut, id: Id<'_>, task_id: &str) {
    let message = format!("Unknown task: {task_id}");
    encode::write_error(out, Some(id), INVALID_PARAMS, &message, None);
}

fn decode_cursor(c: &str) -> Option<usize> {
    c.strip_prefix("tasks-")?.parse().ok()
}
