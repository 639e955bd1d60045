//! Tasks on the wire: task-augmented `tools/call` and the `tasks/*` methods of both
//! generations (`decisions.md`, "Tasks"). The store is [`crate::tasks`], the shapes
//! [`crate::wire`], and a task's running work a job of the connection's book.

use super::{Connection, TASKS_REQUIRED, TaskWork, declares_tasks, status_of};
use crate::jobs::{Kind, NewJob, Slot};
use crate::json::Json;
use crate::tasks::{self, StoreFull};
use crate::tools::TaskSupport;
use crate::wire::{self, Shape};
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{
    INVALID_PARAMS, Id, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, Message, ProtocolVersion,
    RawJson,
};

/// The code of an answer refused because a server resource is at its limit (the task store):
/// the request may succeed later, once the client has let tasks end. Outside the ranges that
/// JSON-RPC and MCP reserve, so it means nothing else.
pub const LIMIT_REACHED: i32 = -31000;

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

/// Whether this `tools/call` runs as a task, per its era and the tool's `taskSupport`.
#[inline]
pub(super) fn task_mode(
    msg: &Message<'_>,
    shape: Shape,
    support: TaskSupport,
) -> Result<Option<TaskMode>, Refusal> {
    if shape.modern() {
        if support == TaskSupport::Forbidden {
            return Ok(None);
        }
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

impl Connection {
    /// Runs a tool call as a task: creates it, runs its work as a background job (or takes
    /// the outcome it already has), and answers with the task.
    pub(super) fn task_call(
        &mut self,
        id: Id<'_>,
        shape: Shape,
        mode: TaskMode,
        work: TaskWork,
        out: &mut BytesMut,
    ) {
        let legacy = matches!(mode, TaskMode::Legacy { .. });
        let ttl = match mode {
            TaskMode::Legacy { ttl } => ttl,
            TaskMode::Modern => None,
        };
        let now = self.now_ms;
        // NB. A parked task's call handled again runs as that same task.
        let existing = self.continuing.take().and_then(|t| self.tasks.get(&t, now));
        let task = match existing {
            Some(t) => t,
            None => match self.tasks.create(now, ttl) {
                Ok(t) => t,
                Err(StoreFull) => {
                    write_limit_reached(out, id);
                    return;
                }
            },
        };
        match work {
            TaskWork::Job {
                job,
                work,
                signal,
                cost,
                resume,
            } => {
                let new = NewJob {
                    request: None,
                    slot: None,
                    kind: Kind::Task {
                        task: task.id.clone(),
                        shape,
                        legacy,
                        resume,
                    },
                    signal: Some(signal),
                    cost,
                };
                self.jobs.start(job, new, work);
            }
            TaskWork::Ended(ended) => {
                let status = status_of(&ended, legacy);
                self.tasks.advance(&task.id, now, status, Some(ended));
            }
        }
        let current = self.tasks.get(&task.id, now).unwrap_or(task);
        encode::begin_result(out, id);
        wire::write_created_task(out, &self.server, shape, &current);
        encode::end_message(out);
    }

    /// `tasks/*` on a 2025-11-25 session.
    pub(super) fn legacy_tasks(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        out: &mut BytesMut,
        slot: Slot,
    ) {
        let now = self.now_ms;
        if msg.method() == "tasks/list" {
            let cursor = match msg.param("cursor").filter(|c| !c.is_null()) {
                None => 0,
                Some(c) => match c.as_string().as_deref().and_then(decode_cursor) {
                    Some(n) => n,
                    None => {
                        encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
                        return;
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
                wire::write_legacy_task(out, t);
            }
            out.put_u8(b']');
            if let Some(n) = next {
                out.extend_from_slice(br#","nextCursor":"#);
                encode::write_str(out, &format!("tasks-{n}"));
            }
            out.put_u8(b'}');
            encode::end_message(out);
            return;
        }
        let Some(task_id) = task_id(msg, out, id) else {
            return;
        };
        match msg.method() {
            "tasks/get" => match self.tasks.get(&task_id, now) {
                Some(t) => {
                    encode::begin_result(out, id);
                    wire::write_legacy_task(out, &t);
                    encode::end_message(out);
                }
                None => unknown_task(out, id, &task_id),
            },
            "tasks/cancel" => match self.cancel_task(&task_id) {
                Some((t, changed)) => {
                    encode::begin_result(out, id);
                    wire::write_legacy_task(out, &t);
                    encode::end_message(out);
                    if changed {
                        wire::write_status_notification(self.notes.get_mut(), &t);
                    }
                }
                None => unknown_task(out, id, &task_id),
            },
            "tasks/result" => match self.tasks.get(&task_id, now) {
                None => unknown_task(out, id, &task_id),
                Some(t) if t.status.is_terminal() => {
                    wire::write_task_result(out, &self.server, id, &t);
                }
                // NB. tasks/result waits until the task is terminal.
                Some(_) => {
                    let cost = super::msg_cost(msg);
                    self.jobs.wait(id.to_owned(), slot, task_id, cost);
                }
            },
            _ => wire::write_method_not_found(out, id, msg.method()),
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the modern extension (the request
    /// declared it; the caller checked).
    pub(super) fn modern_tasks(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
    ) {
        let now = self.now_ms;
        let Some(task_id) = task_id(msg, out, id) else {
            return;
        };
        let found = match msg.method() {
            "tasks/cancel" => self.cancel_task(&task_id).map(|(t, _)| t),
            "tasks/update" => {
                let responses = match update_responses(msg) {
                    Ok(r) => r,
                    Err(m) => {
                        encode::write_error(out, Some(id), janus_codec::INVALID_PARAMS, m, None);
                        return;
                    }
                };
                match self.tasks.answer(&task_id, now, responses) {
                    None => None,
                    Some(ready) => {
                        if let Some(parked) = ready {
                            self.resume_task(task_id.clone(), parked);
                        }
                        self.tasks.get(&task_id, now)
                    }
                }
            }
            _ => self.tasks.get(&task_id, now),
        };
        let Some(t) = found else {
            unknown_task(out, id, &task_id);
            return;
        };
        encode::begin_result(out, id);
        if msg.method() == "tasks/get" {
            wire::write_modern_task_status(out, &self.server, shape, &t);
        } else {
            // tasks/update and tasks/cancel answer an empty acknowledgement.
            wire::write_ack(out, &self.server, shape);
        }
        encode::end_message(out);
    }

    /// Cancels task `task_id`: its work stops, and the `tasks/result` requests waiting for
    /// it are answered (into the notes, ahead of the request's own answer). Returns the task
    /// and whether it changed; `None` for an unknown task.
    fn cancel_task(&mut self, task_id: &str) -> Option<(tasks::Task, bool)> {
        let (t, changed) = self.tasks.cancel(task_id, self.now_ms)?;
        if changed {
            let mut lines = std::mem::take(self.notes.get_mut());
            self.jobs.cancel_task_work(task_id, &mut lines);
            self.answer_waiters(&t, &mut lines);
            *self.notes.get_mut() = lines;
        }
        Some((t, changed))
    }
}

/// The `inputResponses` of a `tasks/update`: an object of result objects (absent: none).
fn update_responses(msg: &Message<'_>) -> Result<Vec<(String, String)>, &'static str> {
    let Some(r) = msg.param("inputResponses") else {
        return Ok(Vec::new());
    };
    if !r.is_object() {
        return Err("Invalid params: inputResponses must be an object");
    }
    r.members()
        .into_iter()
        .map(|(k, v)| {
            if v.is_object() {
                Ok((k.into_owned(), v.as_str().to_owned()))
            } else {
                Err("Invalid params: each of inputResponses must be a result object")
            }
        })
        .collect()
}

/// `LIMIT_REACHED`: the task store is full.
pub(super) fn write_limit_reached(out: &mut BytesMut, id: Id<'_>) {
    let message = format!(
        "Task limit reached: a connection keeps at most {} tasks; let some end or cancel them, then retry",
        tasks::MAX_TASKS
    );
    let mut data = BytesMut::new();
    JsonWriter::new(&mut data)
        .begin_object()
        .key("limit")
        .str("tasks")
        .key("max")
        .int(i64::try_from(tasks::MAX_TASKS).unwrap_or(i64::MAX))
        .end_object();
    let data = Json::from_written(&data);
    encode::write_error(out, Some(id), LIMIT_REACHED, &message, Some(data.as_str()));
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
