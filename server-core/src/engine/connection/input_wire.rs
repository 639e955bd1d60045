//! Input rounds on a connection ([`crate::api::input`]): a handler's [`InputRequired`] answered
//! as MRTR (2026-07-28), or as real server-to-client requests on a handshake session, whose
//! answers replay the request.
//!
//! A handshake session's round holds its request in the job book (so a cancel finds it) and
//! keeps the request as a frame; each server request gets an integer id of the server's own.
//! A client response naming no open round is ignored. When every answer is in, the request
//! is handled again with them. An error response (unless the round takes those as answers),
//! the end of the client's input or the timeout ends the round: a tool call gets a tool
//! error, another request a JSON-RPC error.

use super::tasks_wire::{Waiting, write_store_error};
use super::{Connection, State};
use crate::api::ctx::JobId;
use crate::api::input::Ending;
use crate::api::input::{InputRequest, InputRequired, Inputs, REQUEST_TIMEOUT};
use crate::engine::answers;
use crate::engine::connection::jobs::{Kind, NewJob, Resume, Slot, Then, Work};
use crate::engine::request_state as state;
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{
    INTERNAL_ERROR, INVALID_REQUEST, Id, IdBuf, MISSING_CLIENT_CAPABILITY, Message, RawJson,
};
use janus_model::content::Content;
use janus_model::json::RpcError;
use janus_model::shape::{self, ResultType, Shape};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

/// The rounds of a handshake session waiting for the client's answers.
#[derive(Debug, Default)]
pub(super) struct Rounds {
    next_id: i64,
    by_job: HashMap<JobId, Round>,
    /// The id of each server request still unanswered: its round and key.
    asked: HashMap<IdBuf, (JobId, String)>,
}

#[derive(Debug)]
struct Round {
    request: IdBuf,
    /// The request, as a frame to handle again.
    frame: Vec<u8>,
    unanswered: usize,
    inputs: Inputs,
    deadline_ms: u64,
    tool: bool,
    /// The job that waits on what may end the round early ([`InputRequired::ends_on`]).
    watcher: Option<JobId>,
    /// An error reply is an answer ([`InputRequired::takes_refusals`]).
    takes_refusals: bool,
}

impl Drop for Connection {
    /// A connection dropped with rounds still waiting (a session deleted or expired): each
    /// is given up, and its handler hears of it.
    fn drop(&mut self) {
        for round in std::mem::take(&mut self.rounds.by_job).into_values() {
            self.server.input.abandon(round.inputs.state.as_deref());
        }
    }
}

/// The name a request's `requestState` is bound to: the tool's, the prompt's, or the URI.
fn bound_name(msg: &Message<'_>) -> String {
    let key = if msg.method() == "resources/read" {
        "uri"
    } else {
        "name"
    };
    msg.param(key)
        .and_then(RawJson::as_string)
        .map(std::borrow::Cow::into_owned)
        .unwrap_or_default()
}

fn identity(msg: &Message<'_>, principal: Option<&crate::api::ctx::Principal>) -> [u8; 32] {
    let args = msg.param("arguments").map(RawJson::as_str);
    state::identity(msg.method(), &bound_name(msg), args, principal)
}

impl Connection {
    /// The client's answers this request is served with: a handshake session's replay, or a
    /// modern retry's `inputResponses` and `requestState` (checked), which the caller read
    /// from the params.
    ///
    /// # Errors
    ///
    /// `-32602` for answers that are not result objects, and for a `requestState` that is
    /// not this server's, is for another request or caller, or has expired.
    pub(super) fn inputs_for(
        &self,
        msg: &Message<'_>,
        shape: Shape,
        replay: Option<Inputs>,
        [responses, token]: [Option<RawJson<'_>>; 2],
    ) -> Result<Option<Inputs>, RpcError> {
        if replay.is_some() || !shape.modern() {
            return Ok(replay);
        }
        if responses.is_none() && token.is_none() {
            return Ok(None);
        }
        let mut given = Vec::new();
        if let Some(r) = responses {
            if !r.is_object() {
                return Err(RpcError::invalid_params(
                    "Invalid params: inputResponses must be an object",
                ));
            }
            for (k, v) in r.members() {
                if !v.is_object() {
                    return Err(RpcError::invalid_params(format!(
                        "Invalid params: inputResponses.{k} must be a result object"
                    )));
                }
                given.push((k.into_owned(), v.as_str().to_owned()));
            }
        }
        let Some(token) = token else {
            return Ok(Some(Inputs {
                responses: given,
                state: None,
                refusals: Vec::new(),
            }));
        };
        let Some(token) = token.as_string() else {
            return Err(RpcError::invalid_params(
                "Invalid params: requestState must be a string",
            ));
        };
        let ident = identity(msg, self.principal.as_deref());
        let key = &self.server.input.state_key;
        let sealed = state::open(key, &token, &ident, self.now_ms)
            .map_err(|r| RpcError::invalid_params(r.message()))?;
        let mut responses = sealed.responses;
        // NB. Only the answers to what the round asked count; the rest is ignored.
        for (k, v) in given {
            if sealed.keys.contains(&k) && !responses.iter().any(|(rk, _)| *rk == k) {
                responses.push((k, v));
            }
        }
        Ok(Some(Inputs {
            responses,
            state: sealed.state,
            refusals: Vec::new(),
        }))
    }

    /// Answers a handler's `InputRequired` as the request's era says. `inputs` are the
    /// answers it was served with (carried into the next round).
    #[allow(clippy::too_many_arguments)] // the request's four facets, and what it asks
    pub(super) fn ask(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        inputs: Option<Inputs>,
        asked: InputRequired,
        slot: Slot,
        out: &mut BytesMut,
    ) {
        let tool = msg.method() == "tools/call";
        let caps = if shape.modern() {
            msg.envelope().client_capabilities
        } else {
            self.session
                .capabilities
                .as_deref()
                .and_then(|c| RawJson::parse(c).ok())
        };
        let InputRequired {
            requests,
            state,
            ends_on,
            takes_refusals,
            ..
        } = asked;
        let (sendable, names) = declared(requests, caps);
        if sendable.is_empty() {
            self.server.input.abandon(state.as_deref());
            if tool && !shape.modern() {
                let text = format!(
                    "This tool needs input the client cannot give: it did not declare {}",
                    names.join(", ")
                );
                write_tool_error(out, self, id, shape, &text);
            } else {
                write_missing(out, id, &names);
            }
            return;
        }
        let carried = inputs.map(|i| i.responses).unwrap_or_default();
        if shape.modern() {
            let sealed = state::Sealed {
                identity: identity(msg, self.principal.as_deref()),
                expires_ms: self.now_ms.saturating_add(self.server.input.state_ttl_ms),
                keys: sendable.iter().map(|(k, _)| k.clone()).collect(),
                responses: carried,
                state,
            };
            let token = state::seal(&self.server.input.state_key, &sealed);
            write_input_required(out, self, id, shape, &sendable, &token);
            return;
        }
        if slot.is_some() {
            self.server.input.abandon(state.as_deref());
            shape::write_reason(
                out,
                Some(id),
                INVALID_REQUEST,
                shape::INVALID_REQUEST_MESSAGE,
                "a request that needs input from the client cannot be part of a batch",
            );
            return;
        }
        let job = self.jobs.hold(id.to_owned(), super::msg_cost(msg));
        for (key, r) in &sendable {
            self.rounds.next_id += 1;
            let sid = self.rounds.next_id;
            write_server_request(out, sid, r);
            self.rounds
                .asked
                .insert(IdBuf::from_i64(sid), (job, key.clone()));
        }
        let round = Round {
            request: id.to_owned(),
            frame: frame_of(id, msg),
            unanswered: sendable.len(),
            inputs: Inputs {
                responses: carried,
                state,
                refusals: Vec::new(),
            },
            deadline_ms: self.now_ms.saturating_add(self.server.input.timeout_ms),
            tool,
            watcher: ends_on.take().map(|end| self.watch_round(job, end)),
            takes_refusals,
        };
        self.rounds.by_job.insert(job, round);
        // NB. A client whose input ended cannot answer: the round ends now (a request whose
        // work asked only after the end of input), not at its deadline.
        if self.input_ended {
            self.end_rounds(out);
        }
    }

    /// Starts the job that waits on `end` for the round of job `job`: when it resolves first,
    /// the round ends with its error ([`Connection::end_round_early`]).
    fn watch_round(&mut self, job: JobId, end: Ending) -> JobId {
        let watcher = self.jobs.reserve();
        let then: Pin<Box<dyn Future<Output = Then> + Send>> = Box::pin(async move {
            let e = end.await;
            let then: Then = Box::new(move |conn, out| conn.end_round_early(job, &e, out));
            then
        });
        let new = NewJob {
            request: None,
            slot: None,
            kind: Kind::Store,
            signal: None,
            cost: 0,
        };
        self.jobs.start(watcher, new, Work::store(then));
        watcher
    }

    /// Ends the round of job `job` with the handler's error `e` (what it waited on ended
    /// first): its server requests still unanswered are cancelled at the client.
    fn end_round_early(&mut self, job: JobId, e: &RpcError, out: &mut BytesMut) {
        if let Some(round) = self.close_round(job, "The request it was asked for ended", out) {
            shape::write_rpc_error(out, round.request.as_id(), e);
        }
    }

    /// The server requests of job `job`'s round still unanswered.
    fn asked_in(&self, job: JobId) -> Vec<IdBuf> {
        let mut ids: Vec<IdBuf> = self
            .rounds
            .asked
            .iter()
            .filter(|(_, (j, _))| *j == job)
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort_by_key(|id| id.as_id().as_i64());
        ids
    }

    /// A job's work ended asking for input: the request is asked again from its copy, as
    /// [`Connection::refused`] asks it when its handler's synchronous part does.
    pub(super) fn ask_later(
        &mut self,
        id: Id<'_>,
        shape: Shape,
        resume: Resume,
        asked: InputRequired,
        slot: Slot,
        out: &mut BytesMut,
    ) {
        let parser = self.parser;
        match parser.parse_single(&resume.frame) {
            Ok(msg) => self.ask(id, &msg, shape, resume.inputs, asked, slot, out),
            Err(_) => shape::write_internal_error(out, id),
        }
    }

    /// A task's work ended asking for input: a task of the extension that asks so waits in
    /// `input_required`, as [`Connection::park_task`] parks it. Any other task cannot ask
    /// once it runs, so it fails: the error is returned for its outcome.
    pub(super) fn park_later(
        &mut self,
        task: String,
        shape: Shape,
        legacy: bool,
        resume: Resume,
        asked: InputRequired,
    ) -> Option<RpcError> {
        let within = asked.within_task;
        let parser = self.parser;
        let msg = match parser.parse_single(&resume.frame) {
            Ok(msg) if within && !legacy && shape.modern() => msg,
            _ => {
                return Some(RpcError::new(
                    INTERNAL_ERROR,
                    "The tool asked for input after its task had started; only a task of \
                     the tasks extension can wait for input (InputRequired::within_task)",
                ));
            }
        };
        let Some(id) = msg.id() else {
            return Some(RpcError::internal());
        };
        self.continuing = Some(task);
        // NB. The call's own answer was the task: nothing of the parking is sent.
        let mut scratch = BytesMut::new();
        self.park_task(id, &msg, shape, resume.inputs, asked, &mut scratch);
        None
    }

    /// A call that runs as a task of the extension asked for input within it: the task is
    /// created (or, when its call is handled again, kept) and waits in `input_required`.
    pub(super) fn park_task(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        inputs: Option<Inputs>,
        asked: InputRequired,
        out: &mut BytesMut,
    ) {
        let caps = msg.envelope().client_capabilities;
        let InputRequired {
            requests, state, ..
        } = asked;
        let (sendable, names) = declared(requests, caps);
        let continuing = self.continuing.take();
        if sendable.is_empty() {
            match continuing {
                Some(task) => {
                    // NB. Nothing it asks can be sent: the task fails.
                    let e = RpcError::new(
                        MISSING_CLIENT_CAPABILITY,
                        "Missing required client capability",
                    );
                    let failed = self.tasks.advance(
                        &task,
                        self.now_ms,
                        crate::engine::tasks::Status::Failed,
                        Some(crate::engine::tasks::Outcome::Error(e)),
                    );
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
                None => write_missing(out, id, &names),
            }
            return;
        }
        let parked = crate::engine::tasks::Parked {
            responses: inputs.map(|i| i.responses).unwrap_or_default(),
            state,
            frame: frame_of(id, msg),
        };
        let waiting = Waiting::request(id, msg);
        let id = id.to_owned();
        match continuing {
            // NB. The call's own answer was the task: nothing of the parking is sent.
            Some(task) => self.park_in(id, shape, task, sendable, parked, &mut BytesMut::new()),
            None => {
                let created = self.tasks.create(self.now_ms, None);
                self.after(
                    waiting,
                    created,
                    move |c, created, out| match created {
                        Ok(t) => c.park_in(id, shape, t.id, sendable, parked, out),
                        Err(e) => write_store_error(out, id.as_id(), &e),
                    },
                    out,
                );
            }
        }
    }

    /// Parks task `task` with what it asks, and answers request `id` with it.
    fn park_in(
        &mut self,
        id: IdBuf,
        shape: Shape,
        task: String,
        sendable: Vec<(String, InputRequest)>,
        parked: crate::engine::tasks::Parked,
        out: &mut BytesMut,
    ) {
        let parked = self.tasks.park(&task, self.now_ms, sendable, parked);
        let waiting = Waiting::background();
        self.after(
            waiting,
            parked,
            move |c, parked, out| match parked {
                Ok(Some(t)) => {
                    encode::begin_result(out, id.as_id());
                    answers::write_created_task(out, &c.server, shape, &t);
                    encode::end_message(out);
                }
                Ok(None) => {}
                Err(e) => write_store_error(out, id.as_id(), &e),
            },
            out,
        );
    }

    /// `tasks/update` answered every request of a parked task: its call is handled again
    /// with the answers, as the task's work.
    pub(super) fn resume_task(
        &mut self,
        task: String,
        parked: crate::engine::tasks::Parked,
        out: &mut BytesMut,
    ) {
        let parser = self.parser;
        let Ok(again) = parser.parse_single(&parked.frame) else {
            return;
        };
        self.continuing = Some(task.clone());
        self.replay = Some(Inputs {
            responses: parked.responses,
            state: parked.state,
            refusals: Vec::new(),
        });
        // NB. The call's own answer was the task: what the replay writes is not sent.
        let mut scratch = BytesMut::new();
        self.handle_message(&again, &mut scratch, None);
        self.replay = None;
        if self.continuing.take().is_some() {
            // The call failed before it reached its task (the tool is gone, say).
            self.fail_task(task, "The task's call could not be resumed", out);
        }
    }

    /// A response (or error response) of the client: to a server request of an open round,
    /// or ignored.
    pub(super) fn handle_response(&mut self, msg: &Message<'_>, out: &mut BytesMut) {
        let Some(id) = msg.id() else { return };
        let Some((job, key)) = self.rounds.asked.remove(&id.to_owned()) else {
            return;
        };
        if !self.jobs.holds(job) {
            // The request was cancelled: its round goes, unanswered.
            self.drop_round(job);
            return;
        }
        let answer = msg.result().filter(|r| r.is_object());
        let Some(round) = self.rounds.by_job.get_mut(&job) else {
            return;
        };
        let refusal = msg
            .error()
            .filter(|e| round.takes_refusals && e.is_object());
        if let Some(e) = answer.or(refusal) {
            let given = (key, e.as_str().to_owned());
            if answer.is_some() {
                round.inputs.responses.push(given);
            } else {
                round.inputs.refusals.push(given);
            }
        } else {
            let why = msg
                .error()
                .and_then(|e| e.get("message"))
                .and_then(RawJson::as_string)
                .map_or_else(
                    || "its answer was not a result object".to_owned(),
                    |m| format!("it answered with an error: {m}"),
                );
            self.end_round(
                job,
                INTERNAL_ERROR,
                &format!("The client failed: {why}"),
                out,
            );
            return;
        }
        round.unanswered -= 1;
        if round.unanswered > 0 {
            return;
        }
        // NB. Answered: its handler runs again (it gives nothing up).
        let Some(round) = self.take_round(job) else {
            return;
        };
        self.jobs.finish(job);
        let parser = self.parser;
        let Ok(again) = parser.parse_single(&round.frame) else {
            return;
        };
        self.replay = Some(round.inputs);
        self.handle_message(&again, out, None);
        self.replay = None;
    }

    /// When the earliest round times out (ms since the epoch).
    #[must_use]
    pub fn next_deadline(&self) -> Option<u64> {
        self.rounds.by_job.values().map(|r| r.deadline_ms).min()
    }

    /// Ends the rounds whose time is up ([`Connection::handle_time`] says when now is): their
    /// requests are answered `-32001` (a tool call: a tool error).
    pub fn handle_deadlines(&mut self, out: &mut BytesMut) {
        let mark = out.len();
        self.deadlines(out);
        self.record(out, mark, None);
    }

    fn deadlines(&mut self, out: &mut BytesMut) {
        let now = self.now_ms;
        let due: Vec<JobId> = self
            .rounds
            .by_job
            .iter()
            .filter(|(_, r)| r.deadline_ms <= now)
            .map(|(j, _)| *j)
            .collect();
        for job in due {
            self.end_round(
                job,
                REQUEST_TIMEOUT,
                "The client did not answer the server's request in time",
                out,
            );
        }
    }

    /// The client request job `job` answers (none for a task's background work): a
    /// transport sends the job's notifications where that request's answer goes.
    #[must_use]
    pub fn job_request(&self, job: JobId) -> Option<Id<'_>> {
        self.jobs.request_of(job)
    }

    /// The client request a server-to-client request was sent for: a transport routes the
    /// server request where that request's answer goes.
    #[must_use]
    pub fn input_request_origin(&self, server_request: Id<'_>) -> Option<Id<'_>> {
        let (job, _) = self.rounds.asked.get(&server_request.to_owned())?;
        self.rounds.by_job.get(job).map(|r| r.request.as_id())
    }

    /// Ends every open round: the client's input ended, so no answer can come.
    pub(super) fn end_rounds(&mut self, out: &mut BytesMut) {
        let jobs: Vec<JobId> = self.rounds.by_job.keys().copied().collect();
        for job in jobs {
            self.end_round(
                job,
                INTERNAL_ERROR,
                "The client's input ended before it answered the server's request",
                out,
            );
        }
    }

    /// Ends a round without its answers: its request gets `message`, unless it was
    /// cancelled.
    fn end_round(&mut self, job: JobId, code: i32, message: &str, out: &mut BytesMut) {
        let Some(round) = self.close_round(job, message, out) else {
            return;
        };
        let id = round.request.as_id();
        if round.tool {
            let shape = match self.state {
                State::Legacy(Some(v)) => Shape::new(v),
                _ => return,
            };
            write_tool_error(out, self, id, shape, message);
        } else {
            encode::write_error(out, Some(id), code, message, None);
        }
    }

    /// Gives up a round before its answers came (its handler hears of it): the client is told
    /// (`why`) of the server requests it need not answer any more, unless its input ended.
    /// The round, when its request still waits for an answer (not cancelled).
    fn close_round(&mut self, job: JobId, why: &str, out: &mut BytesMut) -> Option<Round> {
        let asked = if self.input_ended {
            Vec::new()
        } else {
            self.asked_in(job)
        };
        let round = self.drop_round(job)?;
        self.jobs.finish(job)?;
        write_cancels(out, &asked, why);
        Some(round)
    }

    /// Gives up the rounds of requests cancelled meanwhile (their handlers hear of it).
    pub(super) fn drop_cancelled_rounds(&mut self) {
        let gone: Vec<JobId> = self
            .rounds
            .by_job
            .keys()
            .copied()
            .filter(|j| !self.jobs.holds(*j))
            .collect();
        for job in gone {
            self.drop_round(job);
        }
    }

    /// Gives up a round: its handler hears of it.
    fn drop_round(&mut self, job: JobId) -> Option<Round> {
        let round = self.take_round(job)?;
        self.server.input.abandon(round.inputs.state.as_deref());
        Some(round)
    }

    /// Takes a round out of the book: its server requests forgotten, and what might have
    /// ended it early waited on no more.
    fn take_round(&mut self, job: JobId) -> Option<Round> {
        let round = self.rounds.by_job.remove(&job)?;
        self.rounds.asked.retain(|_, (j, _)| *j != job);
        if let Some(w) = round.watcher {
            self.jobs.end(w);
        }
        Some(round)
    }
}

/// The requests whose capability the client declared, and the capabilities it lacks for the
/// others (each named once).
fn declared(
    requests: Vec<(String, InputRequest)>,
    caps: Option<RawJson<'_>>,
) -> (Vec<(String, InputRequest)>, Vec<&'static str>) {
    let (sendable, missing): (Vec<_>, Vec<_>) =
        requests.into_iter().partition(|(_, r)| r.declared_in(caps));
    let mut names: Vec<&'static str> = Vec::new();
    for (_, r) in &missing {
        if !names.contains(&r.capability()) {
            names.push(r.capability());
        }
    }
    (sendable, names)
}

/// What a job keeps of its request for input asked when its work ends.
pub(super) fn resume_of(id: Id<'_>, msg: &Message<'_>, inputs: Option<Inputs>) -> Box<Resume> {
    Box::new(Resume {
        frame: frame_of(id, msg),
        inputs,
    })
}

/// The request again as one frame, for its replay.
fn frame_of(id: Id<'_>, msg: &Message<'_>) -> Vec<u8> {
    // NB. One allocation of the right size (every async job makes one): an escaped method
    // name may need more, which the buffer then grows for.
    let params = msg.params().map(RawJson::as_str);
    let len = 48 + id.as_raw().len() + msg.method().len() + params.map_or(0, str::len);
    let mut f = BytesMut::with_capacity(len);
    f.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    f.extend_from_slice(id.as_raw().as_bytes());
    f.extend_from_slice(br#","method":"#);
    encode::write_str(&mut f, msg.method());
    if let Some(p) = params {
        f.extend_from_slice(br#","params":"#);
        f.extend_from_slice(p.as_bytes());
    }
    f.put_u8(b'}');
    Vec::from(f)
}

/// `notifications/cancelled` for each of the server's requests `ids`, saying `reason`.
fn write_cancels(out: &mut BytesMut, ids: &[IdBuf], reason: &str) {
    for id in ids {
        encode::begin_notification(out, "notifications/cancelled");
        out.extend_from_slice(br#"{"requestId":"#);
        out.extend_from_slice(id.as_id().as_raw().as_bytes());
        out.extend_from_slice(br#","reason":"#);
        encode::write_str(out, reason);
        out.put_u8(b'}');
        encode::end_message(out);
    }
}

/// `{"jsonrpc":"2.0","id":N,"method":...,"params":...}` and its newline.
fn write_server_request(out: &mut BytesMut, id: i64, r: &InputRequest) {
    encode::begin_request(out, janus_codec::IdBuf::from_i64(id).as_id(), r.method());
    out.extend_from_slice(r.params().as_str().as_bytes());
    encode::end_message(out);
}

/// `resultType: "input_required"` with the requests and the sealed state.
fn write_input_required(
    out: &mut BytesMut,
    conn: &Connection,
    id: Id<'_>,
    shape: Shape,
    requests: &[(String, InputRequest)],
    token: &str,
) {
    encode::begin_result(out, id);
    out.extend_from_slice(br#"{"inputRequests":{"#);
    for (i, (key, r)) in requests.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        let mut w = JsonWriter::new(out);
        w.key(key).begin_object().key("method").str(r.method());
        w.key("params").raw(r.params().as_str()).end_object();
    }
    out.extend_from_slice(br#"},"requestState":"#);
    encode::write_str(out, token);
    answers::end_result(out, &conn.server, shape, ResultType::InputRequired);
    encode::end_message(out);
}

/// `-32021` naming the capabilities the client did not declare.
fn write_missing(out: &mut BytesMut, id: Id<'_>, names: &[&str]) {
    let mut data = BytesMut::new();
    data.extend_from_slice(br#"{"requiredCapabilities":{"#);
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            data.put_u8(b',');
        }
        encode::write_str(&mut data, n);
        data.extend_from_slice(b":{}");
    }
    data.extend_from_slice(b"}}");
    let data = std::str::from_utf8(&data).unwrap_or("{}");
    encode::write_error(
        out,
        Some(id),
        MISSING_CLIENT_CAPABILITY,
        "Missing required client capability",
        Some(data),
    );
}

/// A tool result with `isError: true` and one text block.
fn write_tool_error(out: &mut BytesMut, conn: &Connection, id: Id<'_>, shape: Shape, text: &str) {
    encode::begin_result(out, id);
    answers::begin_tool_result(out);
    shape::write_block(out, shape, &Content::text(text), true);
    let end = answers::ResultTail {
        is_error: true,
        ..answers::ResultTail::default()
    };
    answers::end_tool_result(out, &conn.server, shape, &end);
    encode::end_message(out);
}
