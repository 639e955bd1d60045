//! Tasks on the wire: task-augmented `tools/call` and the `tasks/*` methods of both
//! generations (`decisions.md`, "Tasks"). The store is the server's ([`crate::engine::store`]), the
//! shapes [`crate::engine::answers`], and a task's running work a job of the connection's book.
//!
//! Every store operation is a future the connection polls once where the request is handled
//! ([`Connection::after`]): the in-memory store answers there, and a store that does not
//! makes the rest of the request a job, so the connection never waits for it.

use super::dispatch::Method;
use super::{Connection, TASKS_REQUIRED, TaskWork, declares_tasks, status_of};
use crate::api::tools::TaskSupport;
use crate::engine::answers;
use crate::engine::connection::jobs::{Kind, NewJob, Then, Work};
use crate::engine::store::{StoreError, StoreFuture};
use crate::engine::tasks::{self, Outcome, Status};
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{
    INTERNAL_ERROR, INVALID_PARAMS, Id, IdBuf, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY,
    Message, ProtocolVersion, RawJson,
};
use janus_model::json::{Json, RpcError};
use janus_model::shape::{self, Shape};

use std::task::{Context, Poll, Waker};

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

/// How a request waits for the task store when the store does not answer at once: as a
/// job of the connection (so a cancel of the request drops the wait, and the driver finishes
/// it at the end of input).
pub(super) struct Waiting {
    request: Option<IdBuf>,
    kind: Kind,
    cost: usize,
}

impl Waiting {
    /// For request `id` (its answer comes from the store's).
    pub(super) fn request(id: Id<'_>, msg: &Message<'_>) -> Self {
        Self {
            request: Some(id.to_owned()),
            kind: Kind::Store,
            cost: super::msg_cost(msg),
        }
    }

    /// For request `id`, whose request was already read (its size is counted no more).
    fn answering(id: &IdBuf) -> Self {
        Self {
            request: Some(id.clone()),
            kind: Kind::Store,
            cost: 0,
        }
    }

    /// For no request: the store keeps what a job's end made of its task.
    pub(super) const fn background() -> Self {
        Self {
            request: None,
            kind: Kind::Store,
            cost: 0,
        }
    }

    /// For request `id` waiting for task `task` to end (`tasks/result`).
    fn task_end(id: Id<'_>, msg: &Message<'_>, task: String) -> Self {
        Self {
            request: Some(id.to_owned()),
            kind: Kind::Wait { task },
            cost: super::msg_cost(msg),
        }
    }
}

impl Connection {
    /// Runs `then` with the store's answer `answer`: at once when the store answers at once
    /// (the in-memory store always does), else as a job, so the connection goes on serving
    /// while the store works.
    pub(super) fn after<T: Send + 'static>(
        &mut self,
        waiting: Waiting,
        mut answer: StoreFuture<T>,
        then: impl FnOnce(&mut Self, Result<T, StoreError>, &mut BytesMut) + Send + 'static,
        out: &mut BytesMut,
    ) {
        let mut cx = Context::from_waker(Waker::noop());
        match answer.as_mut().poll(&mut cx) {
            Poll::Ready(v) => then(self, v, out),
            Poll::Pending => {
                let wait = async move {
                    let v = answer.await;
                    Box::new(move |c: &mut Self, out: &mut BytesMut| then(c, v, out)) as Then
                };
                let job = self.jobs.reserve();
                let new = NewJob {
                    request: waiting.request,
                    slot: None,
                    kind: waiting.kind,
                    signal: None,
                    cost: waiting.cost,
                };
                self.jobs.start(job, new, Work::store(Box::pin(wait)));
            }
        }
    }

    /// Answers this connection's `tasks/result` requests waiting for task `t`, once it is
    /// terminal, at once (those of other connections hear of it through the store).
    pub(super) fn answer_waiters(&mut self, t: &tasks::Task, out: &mut BytesMut) {
        if !t.status.is_terminal() {
            return;
        }
        for w in self.jobs.take_waiters(&t.id) {
            let Some(request) = &w.request else { continue };
            let mut line = BytesMut::new();
            answers::write_task_result(&mut line, &self.server, request.as_id(), t);
            self.jobs.deliver(w.slot, Some(&line), out);
        }
    }

    /// Fails task `task` with `-32603` and `message` (its work stopped, or could not start).
    pub(super) fn fail_task(&mut self, task: String, message: &str, out: &mut BytesMut) {
        let e = RpcError::new(INTERNAL_ERROR, message.to_owned());
        let failed =
            self.tasks
                .advance(&task, self.now_ms, Status::Failed, Some(Outcome::Error(e)));
        self.after(
            Waiting::background(),
            failed,
            |c, failed, out| {
                if let Ok(Some((t, _))) = failed {
                    c.answer_waiters(&t, out);
                }
            },
            out,
        );
    }

    /// Runs a tool call as a task: creates it (or, for a parked task's call handled again,
    /// takes it), runs its work as a background job (or keeps the outcome it already has),
    /// and answers with the task.
    pub(super) fn task_call(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
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
        let waiting = Waiting::request(id, msg);
        let id = id.to_owned();
        // NB. A parked task's call handled again runs as that same task, and is not
        // answered again: its answer was the task.
        match self.continuing.take() {
            Some(task) => {
                let got = self.tasks.get(&task, self.now_ms);
                self.after(
                    waiting,
                    got,
                    move |c, got, _| {
                        if let Ok(Some(t)) = got {
                            c.run_task(&id, shape, legacy, t, work, &mut BytesMut::new());
                        }
                    },
                    out,
                );
            }
            None => self.create_task(id, shape, legacy, ttl, work, out),
        }
    }

    pub(super) fn create_task(
        &mut self,
        id: IdBuf,
        shape: Shape,
        legacy: bool,
        ttl: Option<u64>,
        work: TaskWork,
        out: &mut BytesMut,
    ) {
        let created = self.tasks.create(self.now_ms, ttl);
        self.after(
            Waiting::answering(&id),
            created,
            move |c, created, out| match created {
                Ok(t) => c.run_task(&id, shape, legacy, t, work, out),
                Err(e) => write_store_error(out, id.as_id(), &e),
            },
            out,
        );
    }

    fn run_task(
        &mut self,
        id: &IdBuf,
        shape: Shape,
        legacy: bool,
        task: tasks::Task,
        work: TaskWork,
        out: &mut BytesMut,
    ) {
        match work {
            TaskWork::Job {
                job,
                work,
                signal,
                cost,
                resume,
            } => {
                // NB. Work that would start once the client's input ended (a call's first
                // stage that ended after it, a store that answered late) could not run: the
                // connection ends with its requests in flight. Its task fails, as one whose
                // work the end of input stopped.
                if self.input_ended {
                    drop(work);
                    write_created(out, &self.server, id.as_id(), shape, &task);
                    let why = "The task's work stopped before it ended: its connection closed";
                    self.fail_task(task.id, why, out);
                    return;
                }
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
                // NB. The work stops when its task ends anywhere (a cancel through another
                // connection or process).
                let ended = self.tasks.ended(&task.id);
                self.jobs.start(job, new, Work::task(work, ended));
                write_created(out, &self.server, id.as_id(), shape, &task);
            }
            TaskWork::Ended(ended) => {
                let status = status_of(&ended, legacy);
                let moved = self
                    .tasks
                    .advance(&task.id, self.now_ms, status, Some(ended));
                let id = id.clone();
                self.after(
                    Waiting::answering(&id),
                    moved,
                    move |c, moved, out| match moved {
                        Ok(Some((t, _))) => {
                            c.answer_waiters(&t, out);
                            write_created(out, &c.server, id.as_id(), shape, &t);
                        }
                        Ok(None) => write_created(out, &c.server, id.as_id(), shape, &task),
                        Err(e) => write_store_error(out, id.as_id(), &e),
                    },
                    out,
                );
            }
        }
    }

    /// `tasks/*` on a 2025-11-25 session.
    pub(super) fn legacy_tasks(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        method: Method,
        out: &mut BytesMut,
    ) {
        let now = self.now_ms;
        let waiting = Waiting::request(id, msg);
        if method == Method::TasksList {
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
            let listed = self.tasks.list(now, cursor);
            let id = id.to_owned();
            self.after(
                waiting,
                listed,
                move |_, listed, out| match listed {
                    Ok((page, next)) => write_task_page(out, id.as_id(), &page, next),
                    Err(e) => write_store_error(out, id.as_id(), &e),
                },
                out,
            );
            return;
        }
        let Some(task_id) = task_id(msg, out, id) else {
            return;
        };
        match method {
            Method::TasksGet => {
                let got = self.tasks.get(&task_id, now);
                let id = id.to_owned();
                self.after(
                    waiting,
                    got,
                    move |_, got, out| match got {
                        Ok(Some(t)) => {
                            encode::begin_result(out, id.as_id());
                            answers::write_legacy_task(out, &t);
                            encode::end_message(out);
                        }
                        Ok(None) => unknown_task(out, id.as_id(), &task_id),
                        Err(e) => write_store_error(out, id.as_id(), &e),
                    },
                    out,
                );
            }
            Method::TasksCancel => {
                let id = id.to_owned();
                self.cancel_task(waiting, task_id.clone(), out, move |_, t, out| match t {
                    Ok(Some((t, changed))) => {
                        if changed {
                            answers::write_status_notification(out, &t);
                        }
                        encode::begin_result(out, id.as_id());
                        answers::write_legacy_task(out, &t);
                        encode::end_message(out);
                    }
                    Ok(None) => unknown_task(out, id.as_id(), &task_id),
                    Err(e) => write_store_error(out, id.as_id(), &e),
                });
            }
            Method::TasksResult => {
                let got = self.tasks.get(&task_id, now);
                let wait = Waiting::task_end(id, msg, task_id.clone());
                let id = id.to_owned();
                self.after(
                    waiting,
                    got,
                    move |c, got, out| match got {
                        Ok(None) => unknown_task(out, id.as_id(), &task_id),
                        Ok(Some(t)) if t.status.is_terminal() => {
                            answers::write_task_result(out, &c.server, id.as_id(), &t);
                        }
                        // NB. tasks/result waits until the task is terminal, wherever it
                        // ends.
                        Ok(Some(_)) => {
                            let ended = c.tasks.ended(&task_id);
                            c.after(
                                wait,
                                ended,
                                move |c, ended, out| match ended {
                                    Ok(Some(t)) => {
                                        answers::write_task_result(out, &c.server, id.as_id(), &t);
                                    }
                                    Ok(None) => unknown_task(out, id.as_id(), &task_id),
                                    Err(e) => write_store_error(out, id.as_id(), &e),
                                },
                                out,
                            );
                        }
                        Err(e) => write_store_error(out, id.as_id(), &e),
                    },
                    out,
                );
            }
            _ => shape::write_method_not_found(out, id, msg.method()),
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the modern extension (the request
    /// declared it; the caller checked).
    pub(super) fn modern_tasks(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        method: Method,
        shape: Shape,
        out: &mut BytesMut,
    ) {
        let now = self.now_ms;
        let Some(task_id) = task_id(msg, out, id) else {
            return;
        };
        let waiting = Waiting::request(id, msg);
        let id = id.to_owned();
        match method {
            Method::TasksCancel => {
                self.cancel_task(waiting, task_id.clone(), out, move |c, t, out| match t {
                    Ok(Some(_)) => write_ack(out, &c.server, id.as_id(), shape),
                    Ok(None) => unknown_task(out, id.as_id(), &task_id),
                    Err(e) => write_store_error(out, id.as_id(), &e),
                });
            }
            Method::TasksUpdate => {
                let responses = match update_responses(msg) {
                    Ok(r) => r,
                    Err(m) => {
                        encode::write_error(out, Some(id.as_id()), INVALID_PARAMS, m, None);
                        return;
                    }
                };
                let answered = self.tasks.answer(&task_id, now, responses);
                self.after(
                    waiting,
                    answered,
                    move |c, answered, out| match answered {
                        Ok(None) => unknown_task(out, id.as_id(), &task_id),
                        Ok(Some(ready)) => {
                            if let Some(parked) = ready {
                                c.resume_task(task_id, parked, out);
                            }
                            // tasks/update answers an empty acknowledgement.
                            write_ack(out, &c.server, id.as_id(), shape);
                        }
                        Err(e) => write_store_error(out, id.as_id(), &e),
                    },
                    out,
                );
            }
            _ => {
                let got = self.tasks.get(&task_id, now);
                self.after(
                    waiting,
                    got,
                    move |c, got, out| match got {
                        Ok(Some(t)) => {
                            encode::begin_result(out, id.as_id());
                            answers::write_modern_task_status(out, &c.server, shape, &t);
                            encode::end_message(out);
                        }
                        Ok(None) => unknown_task(out, id.as_id(), &task_id),
                        Err(e) => write_store_error(out, id.as_id(), &e),
                    },
                    out,
                );
            }
        }
    }

    /// Cancels task `task_id`, then `then` with the task as it is now and whether it changed
    /// (`None` for an unknown task). Its work stops: at once when it runs on this connection,
    /// else where it runs, once that connection's store wait hears of the end.
    fn cancel_task(
        &mut self,
        waiting: Waiting,
        task_id: String,
        out: &mut BytesMut,
        then: impl FnOnce(&mut Self, Result<Option<(tasks::Task, bool)>, StoreError>, &mut BytesMut)
        + Send
        + 'static,
    ) {
        let cancelled = self.tasks.cancel(&task_id, self.now_ms);
        self.after(
            waiting,
            cancelled,
            move |c, cancelled, out| {
                if let Ok(Some((t, true))) = &cancelled {
                    c.jobs.cancel_task_work(&task_id, out);
                    c.answer_waiters(t, out);
                }
                then(c, cancelled, out);
            },
            out,
        );
    }
}

/// The answer of a task-augmented call: the task, as it is.
fn write_created(
    out: &mut BytesMut,
    server: &crate::Server,
    id: Id<'_>,
    shape: Shape,
    t: &tasks::Task,
) {
    encode::begin_result(out, id);
    answers::write_created_task(out, server, shape, t);
    encode::end_message(out);
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
fn write_ack(out: &mut BytesMut, server: &crate::Server, id: Id<'_>, shape: Shape) {
    encode::begin_result(out, id);
    answers::write_ack(out, server, shape);
    encode::end_message(out);
}

/// A page of `tasks/list` (2025-11-25).
fn write_task_page(out: &mut BytesMut, id: Id<'_>, page: &[tasks::Task], next: Option<usize>) {
    encode::begin_result(out, id);
    out.extend_from_slice(br#"{"tasks":["#);
    for (i, t) in page.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        answers::write_legacy_task(out, t);
    }
    out.put_u8(b']');
    if let Some(n) = next {
        out.extend_from_slice(br#","nextCursor":"#);
        encode::write_str(out, &format!("tasks-{n}"));
    }
    out.put_u8(b'}');
    encode::end_message(out);
}

/// The answer of a request whose store failed: [`LIMIT_REACHED`] for a full store, else
/// `-32603` with the reason in `data.reason` (`decisions.md`, "Storage").
pub(super) fn write_store_error(out: &mut BytesMut, id: Id<'_>, e: &StoreError) {
    match e {
        StoreError::Full { max } => write_limit_reached(out, id, *max),
        StoreError::Unavailable(reason) => {
            let mut data = BytesMut::new();
            JsonWriter::new(&mut data)
                .begin_object()
                .key("reason")
                .str(reason)
                .end_object();
            let data = Json::from_written(&data);
            encode::write_error(
                out,
                Some(id),
                INTERNAL_ERROR,
                "Internal error: the task store is unavailable",
                Some(data.as_str()),
            );
        }
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

/// `LIMIT_REACHED`: the task store is full (it keeps at most `max` tasks).
pub(super) fn write_limit_reached(out: &mut BytesMut, id: Id<'_>, max: usize) {
    let message = format!(
        "Task limit reached: the server keeps at most {max} tasks; let some end or cancel them, then retry"
    );
    let mut data = BytesMut::new();
    JsonWriter::new(&mut data)
        .begin_object()
        .key("limit")
        .str("tasks")
        .key("max")
        .int(i64::try_from(max).unwrap_or(i64::MAX))
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
