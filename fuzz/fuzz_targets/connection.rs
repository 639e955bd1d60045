//! `Connection::handle_frame` over the demo server, driven as the tokio driver drives it: the
//! connection's own job book hands work out (`poll_action`), and `serve::Runner` runs it,
//! reports its ends and routes its notifications, on a one-thread runtime whose clock is
//! paused (so `sleep` ends at once). Jobs make progress together, as in the driver.
//!
//! Invariants: an arbitrary sequence of frames never panics; every request is answered
//! exactly once, with its id byte for byte, at once or when its job ends (or not at all when
//! the client cancelled it while in flight; a request cancelled inside a 2025-03-26 batch in
//! flight gets no entry in the batch's line, which is written once its other elements end,
//! and not at all when every element was cancelled); a notification or a client's response
//! is never answered; a task's background work answers nothing (it writes status
//! notifications on legacy sessions, and progress while its task runs); progress
//! (`notifications/progress`) goes out only for requests in flight that carried its
//! `progressToken`, before their answer, and none after a cancel; only valid, compact
//! JSON-RPC lines are written (the server's own notifications included); the first request
//! decides the era and it never changes; batches are answered as `decisions.md` says; the
//! book's count of foreground jobs (`Connection::foreground`) is the requests in flight.
//!
//! Input (one byte header, then steps; the seed script writes the same format):
//!
//! - header: from `0xf0` the frame limit, `(b - 0xf0) * 32` bytes (and at most 1024 jobs
//!   running, the default); from `0x80` to `0xef` the default limit (8 MiB) and at most
//!   `(b & 3) + 1` jobs running (more wait in the book's queue); below `0x80` the defaults;
//! - step `t % 4 == 0`: raw bytes: a 16-bit little-endian length, then that many bytes (or
//!   what is left), fed to the framer as they are (newlines included);
//! - step `t % 4 == 1`: one message built from an `arbitrary` [`Template`], and a newline;
//! - step `t % 4 == 2`: a batch of them, and a newline;
//! - step `t % 4 == 3`: run the jobs until the connection writes something or no job runs
//!   (`0xff`: until no job runs).
//!
//! At the end of the input the framer's last line is handled and the jobs run until no
//! request is in flight (tasks' background work then ends with the connection).

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bytes::BytesMut;
use janus_codec::{Era, Frame, FrameCodec, MessageKind, ProtocolVersion};
use janus_fuzz::answers::{
    cancel_target, check_answer, check_error_line, entries, is_job_element, negotiated_for, raw_id,
    terminal, token_of,
};
use janus_fuzz::oracle::{self, ItemView, MessageView, Verdict};
use janus_fuzz::server::fuzz_server;
use janus_fuzz::template::Template;
use janus_fuzz::wire::{self, Line, Reply};
use janus_server_core::serve::Runner;
use janus_server_core::{Connection, Server};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// The harness: a driver of one connection, as the tokio driver drives it (the connection's
// job book, and `serve::Runner` running its work), that checks everything it writes.
// ---------------------------------------------------------------------------------------------
//
// The harness keeps a model of the requests in flight, which it checks the connection's book
// against (`Connection::foreground`) after every frame and every step of the runner:
//
// - a single request in flight (a `tools/call` whose work runs or waits in the queue, or a
//   `tasks/result` waiting for its task) is answered by exactly one line, so it is known
//   exactly;
// - a batch element's job ends silently (its answer goes into the batch's slot), so the model
//   knows a batch's elements only as "open": in the book, or ended into their slot. A cancel
//   of an open element stops it when it is in the book (no entry), and changes nothing when it
//   already ended (its entry stays); which it was is read from the book's count when that
//   tells (every element the cancel named was in the book), else the entry may be there.

/// A request answered by one line of its own, still to come.
struct Single {
    raw: String,
    view: Box<MessageView>,
    token: Option<Value>,
}

/// A request element of a batch in flight whose job has not been seen to end.
struct Element {
    raw: String,
    view: Box<MessageView>,
    token: Option<Value>,
}

/// A batch in flight: what its one line must hold.
struct BatchModel {
    key: u64,
    /// The entries answered when the batch was read: requests answered at once and invalid
    /// elements, by raw id.
    fixed: BTreeMap<String, usize>,
    /// Its elements that run as jobs, each answered in the batch's line.
    open: Vec<Element>,
    /// Elements cancelled when their job may already have ended: their entry may be there.
    maybe: Vec<String>,
}

impl BatchModel {
    /// True when `got` is what this batch may answer: every fixed and open entry, and some of
    /// the maybe ones.
    fn matches(&self, got: &BTreeMap<String, usize>) -> bool {
        let mut rest = got.clone();
        let mut take = |id: &str| match rest.get_mut(id) {
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    rest.remove(id);
                }
                true
            }
            None => false,
        };
        for (id, n) in &self.fixed {
            for _ in 0..*n {
                if !take(id) {
                    return false;
                }
            }
        }
        for e in &self.open {
            if !take(&e.raw) {
                return false;
            }
        }
        for id in &self.maybe {
            let _ = take(id);
        }
        rest.is_empty()
    }
}

/// A progress token still allowed after the request it was ascribed to was answered: two
/// requests in flight had the same id, and which of them the answer ended is unknown.
struct Ghost {
    token: Value,
    /// The raw id: the ghost lives while a request with that id is in flight.
    raw: String,
}

struct Harness {
    conn: Connection,
    runner: Runner,
    codec: FrameCodec,
    input: BytesMut,
    singles: Vec<Single>,
    batches: Vec<BatchModel>,
    next_batch: u64,
    ghosts: Vec<Ghost>,
    /// Tasks whose work may still run, with the progress token of the call that created
    /// them: a task's work may report progress while the task runs.
    task_tokens: Vec<(String, Value)>,
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
    /// The demo server with a prompt, a resource, a template and their completions, shared by
    /// every connection as `janus serve` shares it.
    static SERVER: Arc<Server> = fuzz_server();
}

/// With `JANUS_FUZZ_TRACE` set, prints what goes in and out (to read a crash's replay).
fn trace(what: &str, bytes: &[u8]) {
    thread_local! {
        static ON: bool = std::env::var_os("JANUS_FUZZ_TRACE").is_some();
    }
    if ON.with(|on| *on) && !bytes.is_empty() {
        eprintln!("{what} {}", String::from_utf8_lossy(bytes).trim_end());
    }
}

/// Milliseconds since the Unix epoch, as the driver tells the connection the time.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What a frame's cancels hit: single requests (always in the book: a single's job ends with
/// a line), elements of the batch being read (just started), and elements of earlier batches
/// (in the book, or ended into their slot).
#[derive(Default)]
struct Hits {
    singles: usize,
    own: usize,
    earlier: Vec<(u64, Element)>,
}

impl Harness {
    fn new(limit: usize, max_running: Option<usize>) -> Self {
        let mut codec = FrameCodec::new();
        codec.max_frame_len(limit);
        let mut conn = Connection::new(SERVER.with(Arc::clone));
        if let Some(n) = max_running {
            conn.set_max_running(n);
        }
        let runner = Runner::new();
        runner.attach(&mut conn);
        Self {
            conn,
            runner,
            codec,
            input: BytesMut::new(),
            singles: Vec::new(),
            batches: Vec::new(),
            next_batch: 0,
            ghosts: Vec::new(),
            task_tokens: Vec::new(),
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

    /// Ends the input: the last line, then the jobs until no request is in flight (as the
    /// driver does at end of input: tasks' background work then ends with the connection).
    /// Every request has been answered then.
    fn finish(&mut self) {
        while let Some(frame) = self.codec.decode_frame_eof(&mut self.input) {
            self.frame(&frame);
        }
        while self.conn.foreground() > 0 && !self.runner.is_idle() {
            self.step();
        }
        assert_eq!(
            self.conn.foreground(),
            0,
            "requests in flight with no work left to answer them"
        );
        assert!(
            self.singles.is_empty() && self.batches.is_empty(),
            "requests never answered: {:?} {:?}",
            self.singles.iter().map(|s| &s.raw).collect::<Vec<_>>(),
            self.batches.iter().map(|b| &b.fixed).collect::<Vec<_>>(),
        );
    }

    /// Runs the jobs until the connection writes something, or until no job runs; with
    /// `all`, until no job runs.
    fn run(&mut self, all: bool) {
        while !self.runner.is_idle() {
            if self.step() && !all {
                break;
            }
        }
    }

    /// One step of the runner: the next job end or notification. Returns whether the
    /// connection wrote.
    fn step(&mut self) -> bool {
        let mut out = BytesMut::new();
        let (runner, conn) = (&mut self.runner, &mut self.conn);
        RUNTIME.with(|rt| rt.block_on(runner.next(conn, &mut out)));
        trace("job >", &out);
        let lines = wire::lines(&out);
        for line in &lines {
            self.later(line);
        }
        self.close_settled();
        self.check_book();
        !out.is_empty()
    }

    /// The connection's book against the model: every single request in flight is a job of
    /// the book, and so is every open batch element that has not ended into its slot.
    fn check_book(&self) {
        let fg = self.conn.foreground();
        let open: usize = self.batches.iter().map(|b| b.open.len()).sum();
        assert!(
            self.singles.len() <= fg && fg <= self.singles.len() + open,
            "the book's foreground jobs ({fg}) are the requests in flight ({} single, {open} in batches)",
            self.singles.len()
        );
    }

    /// A line written for something in flight (not for the frame being read): the answer of
    /// a request whose job ended, a batch's line, or a notification of the server's own.
    fn later(&mut self, line: &Line) {
        match line {
            Line::Notification(method, m) => self.notification(method, m),
            Line::Single(r) => {
                let candidates: Vec<usize> = (0..self.singles.len())
                    .filter(|&i| self.singles[i].raw == r.id)
                    .collect();
                assert!(
                    !candidates.is_empty(),
                    "an answer for no request in flight (answered twice, after its cancel, or by a task's background work): {}",
                    r.message
                );
                // Of requests in flight with the same id, the one without a progress token
                // first: what is left in flight may then still report progress.
                let i = candidates
                    .iter()
                    .copied()
                    .find(|&i| self.singles[i].token.is_none())
                    .unwrap_or(candidates[0]);
                let s = self.singles.remove(i);
                if let Some(token) = &s.token
                    && candidates.len() > 1
                {
                    self.ghosts.push(Ghost {
                        token: token.clone(),
                        raw: s.raw.clone(),
                    });
                }
                let era = self.conn.era().expect("a request was served");
                check_answer(r, &s.view, era);
                self.after_answer(r, &s.view);
            }
            Line::Batch(replies) => {
                let got = entries(replies);
                let Some(i) = self.batches.iter().position(|b| b.matches(&got)) else {
                    panic!(
                        "a batch line that no batch in flight may write (an entry missing, extra or twice): {replies:?}; in flight: {:?}",
                        self.batches
                            .iter()
                            .map(|b| (
                                &b.fixed,
                                b.open.iter().map(|e| &e.raw).collect::<Vec<_>>(),
                                &b.maybe
                            ))
                            .collect::<Vec<_>>()
                    )
                };
                let b = self.batches.remove(i);
                let era = self.conn.era().expect("a request was served");
                for e in &b.open {
                    let r = replies
                        .iter()
                        .find(|r| r.id == e.raw)
                        .expect("matches() found it");
                    check_answer(r, &e.view, era);
                }
            }
        }
    }

    /// Batches with nothing open are settled: their line has been written (if they had any
    /// entry), and taken out of the model as it was read.
    fn close_settled(&mut self) {
        let mut kept = Vec::new();
        for b in std::mem::take(&mut self.batches) {
            if !b.open.is_empty() {
                kept.push(b);
                continue;
            }
            // Nothing open: every element was answered at once or cancelled while in the
            // book (a maybe element whose entry is written makes the line match, and it was
            // taken out then); so no entry may be left to write.
            assert!(
                b.fixed.is_empty(),
                "a batch whose jobs all ended or were cancelled is not answered: {:?}",
                b.fixed
            );
        }
        self.batches = kept;
    }

    /// A notification of the server's own: a task's status (legacy sessions), or progress
    /// for a request in flight that carried a progress token (or for a task's work).
    fn notification(&mut self, method: &str, m: &Value) {
        match method {
            "notifications/progress" => {
                let token = m["params"]
                    .get("progressToken")
                    .unwrap_or_else(|| panic!("progress without a token: {m}"));
                assert!(
                    m["params"]["progress"].is_number(),
                    "progress without a number: {m}"
                );
                assert!(
                    self.token_live(token),
                    "progress for no request in flight that carried its token (after its answer or its cancel?): {m}"
                );
            }
            "notifications/tasks/status" => {
                assert_eq!(
                    self.conn.negotiated(),
                    Some(ProtocolVersion::V2025_11_25),
                    "task status notifications are legacy (2025-11-25): {m}"
                );
                let p = &m["params"];
                let id = p["taskId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("a status without taskId: {m}"));
                assert!(p["status"].is_string(), "a status without status: {m}");
                if terminal(&p["status"]) {
                    self.task_ended(id);
                }
            }
            _ => panic!("an unexpected notification from the server: {m}"),
        }
    }

    /// True when some request in flight (or some task whose work may run) carried `token`.
    fn token_live(&self, token: &Value) -> bool {
        self.singles.iter().any(|s| s.token.as_ref() == Some(token))
            || self
                .batches
                .iter()
                .flat_map(|b| &b.open)
                .any(|e| e.token.as_ref() == Some(token))
            || self
                .ghosts
                .iter()
                .any(|g| &g.token == token && self.singles.iter().any(|s| s.raw == g.raw))
            || self.task_tokens.iter().any(|(_, t)| t == token)
    }

    fn task_ended(&mut self, id: &str) {
        self.task_tokens.retain(|(t, _)| t != id);
    }

    /// What an answer tells: the task ids it hands out, tasks whose work may report progress,
    /// tasks that ended.
    fn after_answer(&mut self, r: &Reply, v: &MessageView) {
        self.ghosts
            .retain(|g| self.singles.iter().any(|s| s.raw == g.raw));
        self.remember_tasks(r);
        let Some(result) = &r.result else { return };
        let created = if let Some(id) = result["task"]["taskId"].as_str() {
            Some((id, &result["task"]["status"]))
        } else if result["resultType"] == "task" {
            result["taskId"].as_str().map(|id| (id, &result["status"]))
        } else {
            None
        };
        if let (Some((id, status)), Some(token)) = (created, token_of(v))
            && !terminal(status)
        {
            self.task_tokens.push((id.to_owned(), token));
        }
        let task = v
            .params
            .as_ref()
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str);
        if let Some(task) = task {
            let ended = match v.method.as_deref() {
                Some("tasks/cancel" | "tasks/result") => true,
                Some("tasks/get") => terminal(&result["status"]),
                _ => false,
            };
            if ended {
                self.task_ended(task);
            }
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

    /// A cancel of the request whose raw id is `target`: the single requests it names are
    /// out of the model (nothing may be written for them any more), and so are the batch
    /// elements it names, which `hits` collects. `building` is the batch being read.
    fn cancel(&mut self, target: &str, building: Option<u64>, hits: &mut Hits) {
        let before = self.singles.len();
        self.singles.retain(|s| s.raw != target);
        hits.singles += before - self.singles.len();
        for b in &mut self.batches {
            let mut i = 0;
            while i < b.open.len() {
                if b.open[i].raw != target {
                    i += 1;
                    continue;
                }
                let e = b.open.remove(i);
                if Some(b.key) == building {
                    hits.own += 1;
                } else {
                    hits.earlier.push((b.key, e));
                }
            }
        }
    }

    /// Settles what a frame's cancels hit, now that the book tells how many jobs they
    /// stopped (`stopped`): when that is every element they named, none of them ended into
    /// its slot, so none has an entry; else each may have one.
    fn settle_hits(&mut self, hits: Hits, stopped: usize) {
        let sure = hits.singles + hits.own;
        assert!(
            sure <= stopped && stopped <= sure + hits.earlier.len(),
            "a cancel stopped {stopped} jobs; it named {sure} in the book and {} batch elements",
            hits.earlier.len()
        );
        if stopped == sure + hits.earlier.len() {
            return;
        }
        for (key, e) in hits.earlier {
            if let Some(b) = self.batches.iter_mut().find(|b| b.key == key) {
                b.maybe.push(e.raw);
            }
        }
    }

    /// Handles one frame and checks what it wrote against the oracle's reading of it.
    fn frame(&mut self, frame: &Frame) {
        self.conn.handle_time(now_ms());
        let era_before = self.conn.era();
        let negotiated_before = self.conn.negotiated();
        let fg_before = self.conn.foreground();
        let mut out = BytesMut::new();
        match frame {
            Frame::Line(l) => trace("<", l),
            Frame::Oversize => trace("<", b"(a line over the limit)"),
        }
        self.conn.handle_frame(frame, &mut out);
        trace(">", &out);
        self.runner.act(&mut self.conn);
        let fg_after = self.conn.foreground();
        let lines = wire::lines(&out);
        let era_after = self.conn.era();
        if let Some(e) = era_before {
            assert_eq!(era_after, Some(e), "the era is locked");
        }
        let line = match frame {
            Frame::Oversize => {
                check_error_line(&lines, -32600, "null");
                assert_eq!(
                    fg_after, fg_before,
                    "an oversize line starts and stops nothing"
                );
                assert_eq!(era_after, era_before);
                return;
            }
            Frame::Line(line) => line,
        };
        match oracle::oracle(line) {
            Verdict::NotJson => check_error_line(&lines, -32700, "null"),
            Verdict::Single(ItemView::Invalid(id)) => {
                check_error_line(&lines, -32600, id.as_ref().map_or("null", |i| &i.raw));
            }
            Verdict::Single(ItemView::Message(v)) => match v.kind {
                MessageKind::Request => {
                    self.request(v, &lines, fg_before, era_before, negotiated_before);
                    self.check_book();
                    return;
                }
                MessageKind::Notification => {
                    // A cancel may settle a batch in flight: its line is written now.
                    let text = core::str::from_utf8(line).expect("JSON is UTF-8");
                    let mut hits = Hits::default();
                    if era_before.is_some()
                        && let Some(target) = cancel_target(&v, text)
                    {
                        self.cancel(&target, None, &mut hits);
                    }
                    let stopped = fg_before.checked_sub(fg_after).unwrap_or_else(|| {
                        panic!("a notification started a job: {fg_before} -> {fg_after}")
                    });
                    self.settle_hits(hits, stopped);
                    for l in &lines {
                        assert!(
                            matches!(l, Line::Batch(_)),
                            "a notification is never answered: {lines:?}"
                        );
                        self.later(l);
                    }
                    self.close_settled();
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
                if on_batch_session {
                    let text = core::str::from_utf8(line).expect("JSON is UTF-8");
                    self.batch(&items, text, &lines, fg_before, fg_after);
                } else {
                    check_error_line(&lines, -32600, "null");
                    assert_eq!(
                        fg_after, fg_before,
                        "a refused batch starts and stops nothing"
                    );
                }
                assert_eq!(self.conn.negotiated(), negotiated_before);
            }
        }
        assert_eq!(era_after, era_before, "only a request decides the era");
        self.check_book();
    }

    /// Checks what a batch on a 2025-03-26 session wrote and started: its elements that run
    /// as jobs are open, its cancels act in order (on earlier frames' requests and on this
    /// batch's elements before them), and the lines written are the batches that settled:
    /// those the cancels completed, and this one when nothing of it is left to run.
    fn batch(
        &mut self,
        items: &[ItemView],
        text: &str,
        lines: &[Line],
        fg_before: usize,
        fg_after: usize,
    ) {
        let raws = oracle::raw_elements(text).expect("a JSON array");
        self.next_batch += 1;
        let key = self.next_batch;
        self.batches.push(BatchModel {
            key,
            fixed: BTreeMap::new(),
            open: Vec::new(),
            maybe: Vec::new(),
        });
        let mut hits = Hits::default();
        let mut started = 0;
        for (item, raw) in items.iter().zip(raws) {
            let fixed_id = match item {
                ItemView::Invalid(id) => Some(id.as_ref().map_or("null", |i| &i.raw).to_owned()),
                ItemView::Message(m) if m.kind == MessageKind::Request => {
                    if is_job_element(m) {
                        started += 1;
                        let e = Element {
                            raw: raw_id(m).to_owned(),
                            view: m.clone(),
                            token: token_of(m),
                        };
                        let b = self.batches.last_mut().expect("this batch");
                        b.open.push(e);
                        None
                    } else {
                        Some(raw_id(m).to_owned())
                    }
                }
                ItemView::Message(m) => {
                    if let Some(target) = cancel_target(m, raw.get()) {
                        self.cancel(&target, Some(key), &mut hits);
                    }
                    None
                }
            };
            if let Some(id) = fixed_id {
                let b = self.batches.last_mut().expect("this batch");
                *b.fixed.entry(id).or_default() += 1;
            }
        }
        let stopped = (fg_before + started)
            .checked_sub(fg_after)
            .unwrap_or_else(|| {
                panic!("the batch started more jobs than its {started} calls of sleep")
            });
        self.settle_hits(hits, stopped);
        for l in lines {
            assert!(
                matches!(l, Line::Batch(_)),
                "a batch is answered with an array: {lines:?}"
            );
            self.later(l);
        }
        self.close_settled();
    }

    /// Checks what a single request wrote and started.
    fn request(
        &mut self,
        v: Box<MessageView>,
        lines: &[Line],
        fg_before: usize,
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
        // A request is answered now (its line is the last answer written), or its job is in
        // the book. Answers before its own are of `tasks/result` requests a `tasks/cancel`
        // settled; notifications of the server's own may come along.
        let job = self.conn.foreground() == fg_before + 1;
        let own = if job {
            None
        } else {
            let own = lines.iter().rposition(Line::is_answer);
            assert!(
                own.is_some(),
                "a request is answered once, now or by a job: {lines:?}"
            );
            own
        };
        for (i, line) in lines.iter().enumerate() {
            if Some(i) != own {
                self.later(line);
                continue;
            }
            let Line::Single(r) = line else {
                panic!("a request is answered with one message: {line:?}")
            };
            check_answer(r, &v, era);
            self.after_answer(r, &v);
        }
        if job {
            self.singles.push(Single {
                raw: raw_id(&v).to_owned(),
                token: token_of(&v),
                view: v,
            });
        }
    }
}

/// Reads `n` bytes, or what is left.
fn take<'a>(u: &mut Unstructured<'a>, n: usize) -> &'a [u8] {
    let n = n.min(u.len());
    u.bytes(n).unwrap_or_default()
}

fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (limit, max_running) = match take(&mut u, 1) {
        [b] if *b >= 0xf0 => (usize::from(b - 0xf0) * 32, None),
        [b] if *b >= 0x80 => (
            janus_codec::DEFAULT_MAX_FRAME_LEN,
            Some(usize::from(b & 3) + 1),
        ),
        _ => (janus_codec::DEFAULT_MAX_FRAME_LEN, None),
    };
    let mut h = Harness::new(limit, max_running);
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
            _ => h.run(t == 0xff),
        }
    }
    h.finish();
}

fuzz_target!(|data: &[u8]| {
    RUNTIME.with(|rt| {
        // The runner spawns on this runtime.
        let guard = rt.enter();
        run(data);
        drop(guard);
        // Background work left ends with the connection (its tasks were aborted): let the
        // runtime drop it now.
        rt.block_on(tokio::task::yield_now());
    });
});
