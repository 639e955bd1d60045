//! Legacy streamable HTTP sessions (2025-03-26 to 2025-11-25): `initialize` mints a session,
//! whose later POSTs, `GET` stream and `DELETE` name it with `Mcp-Session-Id`.
//!
//! A session is one legacy [`Connection`]. Its answers are routed by request id: each POST
//! registers the ids it carries and gets, on its own response, the lines that answer them
//! (JSON when they are ready at once or before anything else, SSE when a notification of its
//! work comes first). Whatever answers no POST (a task's status notification) goes on the
//! session's `GET` stream when one is open. Unlike 2026-07-28, a closed POST stream is not a
//! cancel: the client sends `notifications/cancelled`. Every stream is resumable
//! ([`super::resume`]): what it sends is kept, with event ids, for a `GET` with
//! `Last-Event-ID`.

use super::body::{
    AbortOnDrop, McpBody, Streams, empty, json_response, refuse, sse_event, sse_response,
    too_many_streams,
};
use super::ids::{cancelled_ids, mint, request_ids, requests};
use super::observe::{Era, Observe, Seen};
use super::resume::{self, CLOSE, lock};
use crate::api::ctx::Principal;
use crate::api::ctx::{JobId, Notify};
use crate::engine::connection::jobs::Work;
use crate::engine::connection::jobs::{Action, JobEnd};
use crate::engine::connection::{Connection, Emitted, Line};
use crate::engine::server::Server;
use bytes::{Bytes, BytesMut};
use http::{HeaderValue, Response, StatusCode};
use janus_codec::{IdBuf, Parsed, ProtocolVersion, Rejection, encode};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::mpsc;

/// The default most sessions at once.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// The default idle time after which a session expires.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(30 * 60);
/// The most lines waiting on one stream.
const STREAM_ROOM: usize = 1024;

/// The legacy sessions of one endpoint.
#[derive(Debug)]
pub(super) struct Sessions {
    server: Arc<Server>,
    node: String,
    max: usize,
    idle: Duration,
    map: Mutex<Map>,
    streams: Arc<Streams>,
    observe: Option<Arc<dyn Observe>>,
}

/// The live sessions, and when the idle ones are next dropped.
#[derive(Debug, Default)]
struct Map {
    sessions: HashMap<String, Arc<Session>>,
    /// NB. The sweep of idle sessions runs at most once a [`SWEEP_EVERY_MS`] (or when room is
    /// needed): run at every request, it locked every session's state, a cost that grew with
    /// the number of sessions. A session looked up is checked on its own.
    next_sweep_ms: u64,
}

/// How often idle sessions are swept away, at most.
const SWEEP_EVERY_MS: u64 = 1_000;

#[derive(Debug)]
struct Session {
    state: Mutex<State>,
}

impl Session {
    /// Ends the session's work: its jobs are dropped, and each request a POST still waits
    /// for is answered `-32603` with `why` as `data.reason` (without it, a POST whose request
    /// was running would wait for ever: the session it holds keeps its channel open).
    fn end(&self, why: &str) {
        let mut st = lock(&self.state);
        for h in st.handles.values() {
            h.abort();
        }
        let waiting = std::mem::take(&mut st.waiting);
        for (id, tx) in waiting {
            let mut out = BytesMut::new();
            janus_model::shape::write_reason(
                &mut out,
                Some(id.as_id()),
                janus_codec::INTERNAL_ERROR,
                "Internal error",
                why,
            );
            // NB. A POST's channel has room for each of its requests' answers.
            let _ = tx.try_send(out.freeze());
            if let Some(s) = st.seen.remove(&id) {
                s.done(Some(janus_codec::INTERNAL_ERROR));
            }
        }
    }
}

#[derive(Debug)]
struct State {
    conn: Connection,
    /// The POST streams waiting for answers, by request id.
    waiting: HashMap<IdBuf, mpsc::Sender<Bytes>>,
    /// The requests to tell the observer of when answered (none without one).
    seen: HashMap<IdBuf, Seen>,
    /// Where each running job's notifications go: the POST that started it.
    routes: HashMap<JobId, mpsc::Sender<Bytes>>,
    handles: HashMap<JobId, tokio::task::AbortHandle>,
    /// The session's server-to-client stream (`GET`): its writer's channel, and its log.
    stream: Option<mpsc::Sender<Bytes>>,
    get_log: Option<resume::Shared>,
    /// What the session's streams sent, for their resumption.
    logs: resume::Logs,
    last_used_ms: u64,
    /// When a wake-up for the connection's input deadlines is set.
    deadline_armed: Option<u64>,
}

/// The session's [`Notify`]: a job's notifications go to the POST that started it, else to
/// the `GET` stream.
struct Routed(Weak<Session>);

impl Notify for Routed {
    fn notify(&self, job: JobId, line: Bytes) {
        // NB. A change of the server's lists may be made by a handler of this very session,
        // under its lock: the session's own notes are delivered from a task of their own.
        if job == JobId::CONNECTION
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            let weak = self.0.clone();
            rt.spawn(async move { Self(weak).deliver(job, &line) });
            return;
        }
        self.deliver(job, &line);
    }

    fn close_stream(&self, job: JobId) {
        let Some(session) = self.0.upgrade() else {
            return;
        };
        let st = lock(&session.state);
        if let Some(tx) = st.routes.get(&job) {
            let _ = tx.try_send(CLOSE);
        }
    }
}

impl Routed {
    fn deliver(&self, job: JobId, line: &[u8]) {
        let Some(session) = self.0.upgrade() else {
            return;
        };
        let mut st = lock(&session.state);
        let mut out = BytesMut::new();
        st.conn.handle_note(job, line, &mut out);
        // NB. The line is the job's notification: its route is the job's.
        while st.conn.poll_line().is_some() {}
        if out.is_empty() {
            return;
        }
        let event = sse_event(&out);
        let to = st.routes.get(&job).or(st.stream.as_ref());
        if let Some(tx) = to {
            // NB. A slow reader loses notifications, never answers: they keep the room of the
            // answers still due on this stream.
            let due = st.waiting.values().filter(|w| w.same_channel(tx)).count();
            if tx.capacity() > due {
                let _ = tx.try_send(event);
            }
        }
    }
}

/// Where a line the connection wrote goes.
enum To {
    /// The POST being served: its own line.
    Mine,
    /// Another POST's stream.
    Other(mpsc::Sender<Bytes>),
    /// The `GET` stream, if one is open.
    Stream,
}

/// What a POST's own lines are, as [`State::route`] found them.
#[derive(Debug, Default)]
struct Own {
    /// The lines, in order.
    lines: BytesMut,
    /// Each line's length.
    lens: Vec<usize>,
    /// True when one of them is not an answer: then the response is a stream.
    events: bool,
    /// True when one answers a message that could not be read (`id: null`): the body was
    /// not a JSON-RPC message the session could serve (`400`).
    unreadable: bool,
}

impl Own {
    fn push(&mut self, line: &[u8], answer: bool) {
        self.lines.extend_from_slice(line);
        self.lens.push(line.len());
        self.events |= !answer;
    }

    /// The lines one by one.
    fn each(&self) -> impl Iterator<Item = &[u8]> {
        let mut at = 0;
        self.lens.iter().map(move |&n| {
            let line = &self.lines[at..at + n];
            at += n;
            line
        })
    }
}

impl State {
    /// How long the session has been idle: not at all while a POST waits for an answer or
    /// work runs (a request longer than the idle time does not expire its session under it).
    fn idle_for(&self, now_ms: u64) -> u64 {
        if self.waiting.is_empty() && self.handles.is_empty() {
            now_ms.saturating_sub(self.last_used_ms)
        } else {
            0
        }
    }

    /// Routes what the connection wrote, by what the connection says each line is
    /// ([`Connection::poll_line`]): each answer to the POST waiting for its id; a
    /// server-to-client request to the POST of the request it was sent for; the other lines
    /// (notifications of inline handlers) to `mine`; what has no POST to the `GET` stream (or
    /// nowhere). Returns the lines for `mine`.
    fn route(&mut self, mut out: BytesMut, mine: Option<&mpsc::Sender<Bytes>>) -> Own {
        let mut own = Own::default();
        // Notifications with no POST of their own (an inline handler's, replayed by a
        // reply): they go where the answer after them goes.
        let mut held: Vec<BytesMut> = Vec::new();
        while let Some(Emitted { len, line }) = self.conn.poll_line() {
            let bytes = out.split_to(len.min(out.len()));
            let answer = line.is_answer();
            if !self.seen.is_empty() {
                self.tell(&line);
            }
            let to = match line {
                Line::Answer { id: None, .. } => {
                    own.unreadable = true;
                    To::Mine
                }
                Line::Answer { id: Some(id), .. } => self.answer_to(std::iter::once(id), mine),
                Line::Batch { ids } => self.answer_to(ids.into_iter(), mine),
                Line::Request { origin } => {
                    let tx = match origin {
                        Some(o) => self.waiting.get(&o).cloned(),
                        None => mine.cloned(),
                    };
                    match tx {
                        Some(tx) if mine.is_some_and(|m| m.same_channel(&tx)) => To::Mine,
                        Some(tx) => To::Other(tx),
                        None => To::Stream,
                    }
                }
                Line::Notification { .. } | Line::Listen { .. } => match mine {
                    Some(_) => To::Mine,
                    None => {
                        held.push(bytes);
                        continue;
                    }
                },
            };
            match to {
                To::Mine => {
                    if answer {
                        for h in held.drain(..) {
                            own.push(&h, false);
                        }
                    }
                    own.push(&bytes, answer);
                }
                To::Other(tx) => {
                    if answer {
                        for h in held.drain(..) {
                            let _ = tx.try_send(h.freeze());
                        }
                    }
                    let _ = tx.try_send(bytes.freeze());
                }
                To::Stream => {
                    if let Some(s) = &self.stream {
                        let _ = s.try_send(bytes.freeze());
                    }
                }
            }
        }
        if let Some(s) = &self.stream {
            for h in held {
                let _ = s.try_send(h.freeze());
            }
        }
        own
    }

    /// Where an answer to `ids` goes: the POST waiting for them (each stops waiting; a
    /// batch's line answers every id in it), else the `GET` stream.
    /// Tells the observer of the requests `line` answers.
    fn tell(&mut self, line: &Line) {
        match line {
            Line::Answer {
                id: Some(id),
                error,
            } => {
                if let Some(s) = self.seen.remove(id) {
                    s.done(*error);
                }
            }
            Line::Batch { ids } => {
                for id in ids {
                    if let Some(s) = self.seen.remove(id) {
                        s.done(None);
                    }
                }
            }
            _ => {}
        }
    }

    fn answer_to(
        &mut self,
        ids: impl Iterator<Item = IdBuf>,
        mine: Option<&mpsc::Sender<Bytes>>,
    ) -> To {
        let mut to = To::Stream;
        for id in ids {
            if let Some(tx) = self.waiting.remove(&id) {
                to = To::Other(tx);
                // NB. Idle from its last answer on, whatever ended the work (an input round
                // that ran out of time included).
                self.last_used_ms = self.last_used_ms.max(super::now_ms());
            }
        }
        match to {
            To::Other(tx) if mine.is_some_and(|m| m.same_channel(&tx)) => To::Mine,
            to => to,
        }
    }
}

impl Sessions {
    pub(super) fn new(
        server: Arc<Server>,
        node: String,
        max: usize,
        idle: Duration,
        streams: Arc<Streams>,
        observe: Option<Arc<dyn Observe>>,
    ) -> Self {
        Self {
            streams,
            observe,
            server,
            node,
            max,
            idle,
            map: Mutex::new(Map::default()),
        }
    }

    /// How many sessions are alive (expired ones not yet swept included).
    pub(super) fn len(&self) -> usize {
        lock(&self.map).sessions.len()
    }

    fn get(&self, id: &str, now_ms: u64) -> Option<Arc<Session>> {
        let mut map = lock(&self.map);
        if now_ms >= map.next_sweep_ms {
            self.expire(&mut map, now_ms);
        }
        let s = map.sessions.get(id).cloned()?;
        let mut st = lock(&s.state);
        if st.idle_for(now_ms) >= self.idle_ms() {
            drop(st);
            map.sessions.remove(id);
            return None;
        }
        st.last_used_ms = now_ms;
        drop(st);
        Some(s)
    }

    fn idle_ms(&self) -> u64 {
        u64::try_from(self.idle.as_millis()).unwrap_or(u64::MAX)
    }

    fn expire(&self, map: &mut Map, now_ms: u64) {
        let idle = self.idle_ms();
        map.sessions
            .retain(|_, s| lock(&s.state).idle_for(now_ms) < idle);
        map.next_sweep_ms = now_ms.saturating_add(SWEEP_EVERY_MS.min(idle));
    }

    /// `initialize`: a new session, answered with its id.
    pub(super) async fn initialize(
        &self,
        read: Result<Parsed<'_>, Rejection<'_>>,
        principal: Option<Arc<Principal>>,
        now_ms: u64,
    ) -> Response<McpBody> {
        let id = {
            let mut map = lock(&self.map);
            if now_ms >= map.next_sweep_ms || map.sessions.len() >= self.max {
                self.expire(&mut map, now_ms);
            }
            if map.sessions.len() >= self.max {
                return refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    crate::LIMIT_REACHED,
                    "Session limit reached: try again later",
                );
            }
            let Some(id) = mint(&self.node) else {
                return refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    janus_codec::INTERNAL_ERROR,
                    "No session id could be made",
                );
            };
            let session = Arc::new_cyclic(|weak: &Weak<Session>| {
                let mut conn = Connection::new(Arc::clone(&self.server));
                conn.set_routing(true);
                conn.set_notify(Arc::new(Routed(weak.clone())));
                Session {
                    state: Mutex::new(State {
                        conn,
                        waiting: HashMap::new(),
                        seen: HashMap::new(),
                        routes: HashMap::new(),
                        handles: HashMap::new(),
                        stream: None,
                        get_log: None,
                        logs: resume::Logs::default(),
                        last_used_ms: now_ms,
                        deadline_armed: None,
                    }),
                }
            });
            map.sessions.insert(id.clone(), session);
            id
        };
        let Some(session) = self.get(&id, now_ms) else {
            return empty(StatusCode::NOT_FOUND);
        };
        let mut r = post(session, read, principal, now_ms, &self.streams, None).await;
        if r.status() == StatusCode::OK
            && let Ok(v) = HeaderValue::from_str(&id)
        {
            r.headers_mut().insert("mcp-session-id", v);
        } else {
            lock(&self.map).sessions.remove(&id);
        }
        r
    }

    /// A POST naming session `id`.
    pub(super) async fn post(
        &self,
        id: &str,
        version: Option<&str>,
        read: Result<Parsed<'_>, Rejection<'_>>,
        principal: Option<Arc<Principal>>,
        now_ms: u64,
    ) -> Response<McpBody> {
        let Some(session) = self.get(id, now_ms) else {
            return refuse(
                StatusCode::NOT_FOUND,
                janus_codec::INVALID_REQUEST,
                "Session not found",
            );
        };
        // NB. Absent means 2025-03-26; anything Janus does not speak is refused.
        if version.is_some_and(|v| ProtocolVersion::from_wire(v).is_none_or(|v| !v.is_handshake()))
        {
            return refuse(
                StatusCode::BAD_REQUEST,
                janus_codec::INVALID_REQUEST,
                "Unsupported MCP-Protocol-Version header",
            );
        }
        post(
            session,
            read,
            principal,
            now_ms,
            &self.streams,
            self.observe.as_ref(),
        )
        .await
    }

    /// `GET`: the session's server-to-client stream, one at a time; with `Last-Event-ID`,
    /// the resumption of the stream that sent that event (a POST's or the `GET` stream).
    pub(super) fn stream(
        &self,
        id: &str,
        last_event_id: Option<&str>,
        now_ms: u64,
    ) -> Response<McpBody> {
        let Some(session) = self.get(id, now_ms) else {
            return refuse(
                StatusCode::NOT_FOUND,
                janus_codec::INVALID_REQUEST,
                "Session not found",
            );
        };
        let mut st = lock(&session.state);
        if let Some(last) = last_event_id {
            let Some((log, seq)) = st.logs.find(last) else {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    janus_codec::INVALID_REQUEST,
                    "Unknown Last-Event-ID: no stream of this session sent it",
                );
            };
            let Some(permit) = self.streams.try_open() else {
                return too_many_streams();
            };
            let Some(rx) = lock(&log).resume(seq, STREAM_ROOM) else {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    janus_codec::INVALID_REQUEST,
                    "The events after this Last-Event-ID are no longer kept",
                );
            };
            return sse_response(rx, AbortOnDrop(Vec::new()), Some(permit));
        }
        if st.get_log.as_ref().is_some_and(|l| lock(l).is_read()) {
            return refuse(
                StatusCode::CONFLICT,
                janus_codec::INVALID_REQUEST,
                "This session's stream is already open",
            );
        }
        let Some(permit) = self.streams.try_open() else {
            return too_many_streams();
        };
        let (tx, mut rx) = mpsc::channel::<Bytes>(STREAM_ROOM);
        let (log, body) = open_stream(&mut st, STREAM_ROOM);
        // NB. A stream opened again is a new one: the old one's writer ends with its channel.
        st.stream = Some(tx);
        st.get_log = Some(Arc::clone(&log));
        let weak = Arc::downgrade(&session);
        tokio::spawn(async move {
            while let Some(b) = rx.recv().await {
                forward(&log, &b);
            }
            if let Some(s) = weak.upgrade() {
                lock(&s.state).logs.ended(&log);
            }
        });
        sse_response(body, AbortOnDrop(Vec::new()), Some(permit))
    }

    /// `DELETE`: ends the session (its work is dropped; the requests its POSTs still wait
    /// for are answered with an error).
    pub(super) fn delete(&self, id: &str) -> Response<McpBody> {
        let removed = lock(&self.map).sessions.remove(id);
        match removed {
            Some(s) => {
                s.end("the session was deleted before the request was answered");
                empty(StatusCode::NO_CONTENT)
            }
            None => refuse(
                StatusCode::NOT_FOUND,
                janus_codec::INVALID_REQUEST,
                "Session not found",
            ),
        }
    }
}

/// Serves one POST body on a session.
async fn post(
    session: Arc<Session>,
    read: Result<Parsed<'_>, Rejection<'_>>,
    principal: Option<Arc<Principal>>,
    now_ms: u64,
    streams: &Arc<Streams>,
    observe: Option<&Arc<dyn Observe>>,
) -> Response<McpBody> {
    // NB. A message that is no request the session can serve, but whose id could be read,
    // is answered on this POST too (its `-32600`, with the id: `400`).
    let rejected = read.is_err();
    let mut ids = request_ids(&read);
    // NB. A POST with requests holds a place while it waits; past the cap nothing starts.
    let permit = if ids.is_empty() {
        None
    } else {
        match streams.try_open() {
            Some(p) => Some(p),
            None => return too_many_streams(),
        }
    };
    let (tx, mut rx) = mpsc::channel::<Bytes>(STREAM_ROOM.max(ids.len() + 1));
    let own = {
        let mut st = lock(&session.state);
        // NB. A message refused whose id another POST waits on (a reused id) does not take
        // that POST's place.
        if rejected {
            ids.retain(|id| !st.waiting.contains_key(id));
        } else if let Some(id) = ids.iter().find(|id| st.waiting.contains_key(*id)) {
            // NB. A request whose id another POST of the session waits on is refused, not
            // run: its answer could not be told from the other's (and took its place).
            let mut out = BytesMut::new();
            encode::write_error(
                &mut out,
                Some(id.as_id()),
                janus_codec::INVALID_REQUEST,
                "Invalid Request: the id is already in use by a request in flight on this session",
                None,
            );
            return json_response(StatusCode::BAD_REQUEST, out);
        }
        for id in &ids {
            st.waiting.insert(id.clone(), tx.clone());
        }
        if let Some(o) = observe {
            for (id, method) in requests(&read) {
                st.seen.insert(id, Seen::new(o, &method, Era::Legacy));
            }
        }
        st.conn.handle_time(now_ms);
        // NB. Each POST carries its own token: its requests are that token's.
        st.conn.set_principal(principal);
        let cancelled = cancelled_ids(&read);
        let mut out = BytesMut::new();
        st.conn.handle_read(read, &mut out);
        // NB. A POST without requests is answered 202: nothing rides its response.
        let own = st.route(out, (!ids.is_empty()).then_some(&tx));
        // NB. A body refused whole (a batch on a session that takes none, say) answers none
        // of its requests: the POST does not wait for them.
        if own.unreadable {
            for id in &ids {
                st.waiting.remove(id);
                if let Some(s) = st.seen.remove(id) {
                    s.done(Some(janus_codec::INVALID_REQUEST));
                }
            }
        }
        // NB. Work started by a POST without requests (the client's replies to server
        // requests replay the request they were for) has no stream of that POST to use: its
        // notifications go to the stream of the request it answers, else the GET stream.
        act(&session, &mut st, (!ids.is_empty()).then_some(&tx));
        arm_deadline(&session, &mut st);
        // NB. A cancelled request is never answered: its POST stops waiting for it.
        for id in cancelled {
            st.waiting.remove(&id);
            st.seen.remove(&id);
        }
        own
    };
    let answered_now = {
        let st = lock(&session.state);
        !ids.iter().any(|id| st.waiting.contains_key(id))
    };
    if answered_now && !own.events {
        return if own.lens.is_empty() {
            empty(StatusCode::ACCEPTED)
        } else if own.unreadable || rejected {
            // A body that is not a message the session serves: its JSON-RPC error, `400`.
            json_response(StatusCode::BAD_REQUEST, own.lines)
        } else {
            json_response(StatusCode::OK, own.lines)
        };
    }
    drop(tx);
    // Lines of this POST written at once that are not all answers (an inline handler's
    // notifications, a server request for one of its requests) make it a stream.
    let first = if own.lens.is_empty() {
        // The answer (or a notification first, which makes it a stream) comes from the work.
        let Some(first) = rx.recv().await else {
            // Every request of the POST was cancelled: nothing more comes for it.
            return empty(StatusCode::ACCEPTED);
        };
        if first != CLOSE && !first.starts_with(b"event:") && remaining(&session, &ids) == 0 {
            return json_response(StatusCode::OK, BytesMut::from(first));
        }
        Some(first)
    } else {
        None
    };
    let (log, body) = open_stream(&mut lock(&session.state), STREAM_ROOM + own.lens.len());
    for line in own.each() {
        lock(&log).write(line);
    }
    if let Some(b) = first {
        forward(&log, &b);
    }
    if answered_now {
        lock(&session.state).logs.ended(&log);
        return sse_response(body, AbortOnDrop(Vec::new()), permit);
    }
    let weak = Arc::downgrade(&session);
    drop(session);
    tokio::spawn(async move {
        // NB. A client that went away resumes with `Last-Event-ID`: the stream is written
        // to its log until every answer is in, whoever reads it.
        while remaining_of(&weak, &ids) > 0 {
            let Some(b) = rx.recv().await else { break };
            forward(&log, &b);
        }
        // NB. An answer leaves `waiting` and enters the channel under the same lock: once
        // none waits, every answer is in the channel. What is there goes out, then the
        // stream ends.
        while let Ok(b) = rx.try_recv() {
            forward(&log, &b);
        }
        drop(rx);
        if let Some(session) = weak.upgrade() {
            let mut st = lock(&session.state);
            st.logs.ended(&log);
            // The POST's jobs still running send their notifications to the GET stream now.
            st.routes.retain(|_, tx| !tx.is_closed());
        }
    });
    sse_response(body, AbortOnDrop(Vec::new()), permit)
}

/// A new stream of the session, and the channel its connection reads; a 2025-11-25
/// session's starts with the priming event.
fn open_stream(st: &mut State, room: usize) -> (resume::Shared, mpsc::Receiver<Bytes>) {
    let (tx, rx) = mpsc::channel(room + 2);
    let prime = st
        .conn
        .negotiated()
        .is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
    let log = st.logs.open(tx.clone());
    if prime {
        let _ = tx.try_send(lock(&log).priming());
    }
    (log, rx)
}

/// Writes what came on a stream's channel: an event, or a handler's [`CLOSE`].
fn forward(log: &resume::Shared, b: &Bytes) {
    let mut l = lock(log);
    if *b == CLOSE {
        l.let_go();
    } else {
        l.write(b);
    }
}

/// [`remaining`] of a session that may be gone (then none).
fn remaining_of(session: &Weak<Session>, ids: &[IdBuf]) -> usize {
    session.upgrade().map_or(0, |s| remaining(&s, ids))
}

/// How many of `ids` still wait for their answer.
fn remaining(session: &Session, ids: &[IdBuf]) -> usize {
    let st = lock(&session.state);
    ids.iter().filter(|id| st.waiting.contains_key(*id)).count()
}

/// Carries out the connection's actions: spawns the work of each job (its notifications to
/// `route`), aborts what it names.
fn act(session: &Arc<Session>, st: &mut State, route: Option<&mpsc::Sender<Bytes>>) {
    while let Some(action) = st.conn.poll_action() {
        match action {
            Action::Run { job, work } => {
                // NB. Work a reply replays answers a request whose POST still waits: its
                // notifications go there too.
                let waiting = st
                    .conn
                    .job_request(job)
                    .and_then(|r| st.waiting.get(&r.to_owned()));
                if let Some(tx) = waiting.or(route) {
                    st.routes.insert(job, tx.clone());
                }
                let handle = spawn(Arc::downgrade(session), job, work);
                st.handles.insert(job, handle);
            }
            Action::Abort(job) => {
                st.routes.remove(&job);
                if let Some(h) = st.handles.remove(&job) {
                    h.abort();
                }
            }
        }
    }
}

/// Wakes the session when its earliest input round times out, unless a wake-up at that
/// time or earlier is set already.
fn arm_deadline(session: &Arc<Session>, st: &mut State) {
    let Some(due) = st.conn.next_deadline() else {
        return;
    };
    if st.deadline_armed.is_some_and(|at| at <= due) {
        return;
    }
    st.deadline_armed = Some(due);
    let weak = Arc::downgrade(session);
    tokio::spawn(async move {
        let wait = due.saturating_sub(super::now_ms());
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        let Some(session) = weak.upgrade() else {
            return;
        };
        let mut st = lock(&session.state);
        if st.deadline_armed == Some(due) {
            st.deadline_armed = None;
        }
        st.conn.handle_time(super::now_ms());
        let mut out = BytesMut::new();
        st.conn.handle_deadlines(&mut out);
        st.route(out, None);
        act(&session, &mut st, None);
        arm_deadline(&session, &mut st);
    });
}

/// Runs a job's work; its end goes back to the session.
fn spawn(session: Weak<Session>, job: JobId, work: Work) -> tokio::task::AbortHandle {
    let task = tokio::spawn(work);
    let abort = task.abort_handle();
    tokio::spawn(async move {
        let end = match task.await {
            Ok(r) => JobEnd::Finished(r),
            Err(e) if e.is_panic() => JobEnd::Panicked,
            Err(_) => return,
        };
        let Some(session) = session.upgrade() else {
            return;
        };
        let mut st = lock(&session.state);
        st.handles.remove(&job);
        st.routes.remove(&job);
        let now = super::now_ms();
        // NB. The session is idle from the end of its work, not from the POST that started
        // it: a call longer than the idle time does not expire its session as it ends.
        st.last_used_ms = st.last_used_ms.max(now);
        st.conn.handle_time(now);
        let mut out = BytesMut::new();
        st.conn.handle_done(job, end, &mut out);
        st.route(out, None);
        act(&session, &mut st, None);
        arm_deadline(&session, &mut st);
    });
    abort
}
