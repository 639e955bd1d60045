//! The bookkeeping of every piece of asynchronous work of a connection (quinn's "poll for
//! actions").
//!
//! A job is one of: the work of a `tools/call` whose handler answers later, a task's work, or
//! a `tasks/result` waiting for its task to end (no work runs for it). For each the book
//! keeps the request it answers (so `notifications/cancelled` can find it), its slot in a
//! JSON-RPC batch in flight, whether it is foreground (a request waits for it) or a task's
//! background work, and its cancellation signal.
//!
//! The book builds no future and reads no clock. It hands work out as [`Action`]s, which the
//! driver polls: run this future, abort that job. At most `max_running` jobs run at once; the
//! rest wait in a queue, where a cancel finds them too, so the connection keeps reading
//! whatever is running (`decisions.md`, "Both eras": a cancel acts at once).

use crate::api::ctx::{CancelSignal, JobId};
use crate::api::tools::ToolFuture;
use crate::engine::store::StoreFuture;
use crate::engine::tasks::Task;
use bytes::{BufMut, Bytes, BytesMut};
use janus_codec::{Id, IdBuf};
use janus_model::shape::Shape;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// The book's maps: keyed by ids the connection gave, or a client chose (the seed is the
/// process's own, so a client cannot aim at one bucket).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// What a connection does once a store has answered: the rest of a request.
pub(crate) type Then = Box<dyn FnOnce(&mut crate::Connection, &mut BytesMut) + Send>;

/// The work of a job, as the driver runs it: a future to poll to its end, whose output goes
/// back to the connection ([`JobEnd::Finished`]). Whatever it is (a tool's work, a task's,
/// a wait for a store), the driver treats it alike.
pub struct Work(WorkKind);

enum WorkKind {
    /// A tool's (or a prompt's, or a resource's) work.
    Tool(ToolFuture),
    /// The first stage of a call that is to run as a task.
    Staged(crate::api::tools::StagedFuture),
    /// A task's work, which stops when its task ends elsewhere (cancelled by another
    /// connection or process): `ended` resolves first.
    Task {
        work: ToolFuture,
        ended: Option<StoreFuture<Option<Task>>>,
    },
    /// A store's answer, and the rest of the request.
    Store(Pin<Box<dyn Future<Output = Then> + Send>>),
}

impl Work {
    pub(crate) fn tool(work: ToolFuture) -> Self {
        Self(WorkKind::Tool(work))
    }

    pub(crate) fn task(work: ToolFuture, ended: StoreFuture<Option<Task>>) -> Self {
        Self(WorkKind::Task {
            work,
            ended: Some(ended),
        })
    }

    pub(crate) fn staged(work: crate::api::tools::StagedFuture) -> Self {
        Self(WorkKind::Staged(work))
    }

    pub(crate) fn store(wait: Pin<Box<dyn Future<Output = Then> + Send>>) -> Self {
        Self(WorkKind::Store(wait))
    }
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.0 {
            WorkKind::Tool(_) => "tool",
            WorkKind::Staged(_) => "staged",
            WorkKind::Task { .. } => "task",
            WorkKind::Store(_) => "store",
        };
        f.debug_tuple("Work").field(&kind).finish()
    }
}

impl Future for Work {
    type Output = Done;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Done> {
        match &mut self.get_mut().0 {
            WorkKind::Tool(work) => work.as_mut().poll(cx).map(|r| Done(DoneKind::Tool(r))),
            WorkKind::Staged(work) => work.as_mut().poll(cx).map(|r| Done(DoneKind::Staged(r))),
            WorkKind::Task { work, ended } => {
                if let Some(e) = ended {
                    match e.as_mut().poll(cx) {
                        Poll::Ready(Ok(_)) => return Poll::Ready(Done(DoneKind::Ended)),
                        // NB. A store that cannot say whether the task ended elsewhere does
                        // not stop its work: the work goes on to its own end.
                        Poll::Ready(Err(_)) => *ended = None,
                        Poll::Pending => {}
                    }
                }
                work.as_mut().poll(cx).map(|r| Done(DoneKind::Tool(r)))
            }
            WorkKind::Store(wait) => wait.as_mut().poll(cx).map(|t| Done(DoneKind::Then(t))),
        }
    }
}

/// What a job's work gave, handed back to the connection in [`JobEnd::Finished`].
pub struct Done(pub(crate) DoneKind);

pub(crate) enum DoneKind {
    /// A tool's result or error.
    Tool(Result<crate::api::tools::ToolResult, crate::api::halt::Halt>),
    /// How the first stage of a call that is to run as a task ended.
    Staged(Result<crate::api::tools::Stage, crate::api::halt::Halt>),
    /// A task's work stopped because its task ended elsewhere.
    Ended,
    /// A store answered: the rest of the request.
    Then(Then),
}

impl std::fmt::Debug for Done {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            DoneKind::Tool(r) => f.debug_tuple("Done").field(r).finish(),
            DoneKind::Staged(r) => f.debug_tuple("Done").field(r).finish(),
            DoneKind::Ended => f.write_str("Done(Ended)"),
            DoneKind::Then(_) => f.write_str("Done(Then)"),
        }
    }
}

impl From<Result<crate::api::tools::ToolResult, crate::api::halt::Halt>> for Done {
    fn from(r: Result<crate::api::tools::ToolResult, crate::api::halt::Halt>) -> Self {
        Self(DoneKind::Tool(r))
    }
}

/// What the driver must do for the connection's asynchronous work.
pub enum Action {
    /// Run `work` as job `job`, and report its end with
    /// [`crate::Connection::handle_done`]. A panic inside it is reported as
    /// [`JobEnd::Panicked`].
    Run {
        /// The job.
        job: JobId,
        /// Its work.
        work: Work,
    },
    /// Stop job `job` (drop its future). Whatever it would still produce is dropped by the
    /// connection, so reporting its end is optional.
    Abort(JobId),
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Run { job, .. } => f
                .debug_struct("Run")
                .field("job", job)
                .finish_non_exhaustive(),
            Self::Abort(job) => f.debug_tuple("Abort").field(job).finish(),
        }
    }
}

/// How a job's work ended, as the driver reports it.
#[derive(Debug)]
pub enum JobEnd {
    /// The future's output.
    Finished(Done),
    /// The future panicked: the request gets `-32603` without internals.
    Panicked,
}

/// How a tool's (or a prompt's, or a resource's) work ended, for the connection.
#[derive(Debug)]
pub(crate) enum ToolEnd {
    /// The future's output.
    Finished(Result<crate::api::tools::ToolResult, crate::api::halt::Halt>),
    /// The future panicked.
    Panicked,
}

/// What a job is for.
#[derive(Debug)]
pub(crate) enum Kind {
    /// A `tools/call`: its answer is the work's result.
    Call { shape: Shape, resume: Box<Resume> },
    /// The first stage of a `tools/call` that is to run as a task (`legacy`: 2025-11-25's,
    /// kept `ttl` ms): its end makes the task, or asks the client a round of input.
    Staged {
        shape: Shape,
        resume: Box<Resume>,
        legacy: bool,
        ttl: Option<u64>,
    },
    /// A task's work: its result goes to the task store.
    Task {
        task: String,
        shape: Shape,
        legacy: bool,
        resume: Box<Resume>,
    },
    /// A `tasks/result` waiting for task `task` to end: its work is the wait.
    Wait { task: String },
    /// A request waiting for the task store's answer: its work is the wait.
    Store,
    /// A request of a handshake session waiting for the client's answers to the server's
    /// input requests: no work runs ([`crate::api::input`]).
    Input,
    /// A `subscriptions/listen` held open: its work waits for the server to end it.
    Listen,
    /// A `resources/read` or `prompts/get` whose handler answers later: its work's result
    /// holds the encoded result object ([`crate::api::resources::AsyncReadResource`]).
    Surface {
        shape: Shape,
        /// The URI read (for its not-found answer); `None` for a prompt.
        uri: Option<String>,
        resume: Box<Resume>,
    },
}

/// What a job's request needs when its work ends with an [`crate::InputRequired`]: the
/// request again as one frame (its method, name, arguments and era envelope, as the client
/// sent them) and the answers it was served with. Copied when the job starts, since the
/// frame it came in is gone by then.
#[derive(Debug)]
pub(crate) struct Resume {
    /// The request as one frame ([`crate::engine::connection`] builds it).
    pub(crate) frame: Vec<u8>,
    /// The client's answers the request was served with.
    pub(crate) inputs: Option<crate::api::input::Inputs>,
}

/// Where a job's answer goes: straight out, or into a slot of a batch in flight.
pub(crate) type Slot = Option<(u64, usize)>;

/// What a job with work is, as it is registered ([`Jobs::start`]).
#[derive(Debug)]
pub(crate) struct NewJob {
    /// The request it answers (none for a task's work).
    pub(crate) request: Option<IdBuf>,
    pub(crate) slot: Slot,
    pub(crate) kind: Kind,
    pub(crate) signal: Option<CancelSignal>,
    /// The size of the request that started it, for the queue's byte bound.
    pub(crate) cost: usize,
}

/// A job of the book.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The request it answers (none for a task's work).
    pub(crate) request: Option<IdBuf>,
    pub(crate) slot: Slot,
    pub(crate) kind: Kind,
    pub(crate) signal: Option<CancelSignal>,
    running: bool,
    /// What a `tasks/result` waiter holds (its request), counted in `held_bytes` until it is
    /// answered or cancelled.
    held: usize,
}

/// The answers of a batch in flight, in the order of its elements.
#[derive(Debug, Default)]
struct Batch {
    lines: Vec<Option<Bytes>>,
    /// Elements whose job has not ended.
    open: usize,
    /// True while the connection is still reading the batch's elements: then the batch is
    /// not done, whatever `open` says (a cancel among its elements may settle every slot
    /// registered so far).
    reading: bool,
}

/// What a queued job costs, beyond its frame: the boxed future and the entry (an estimate).
const QUEUED_COST: usize = 256;

/// The book of one connection's jobs.
pub(crate) struct Jobs {
    next: u64,
    entries: HashMap<JobId, Entry>,
    /// The queued jobs' work, in arrival order.
    queue: VecDeque<(JobId, Work, usize)>,
    /// The jobs of each request id in flight (more than one when a client reuses an id).
    by_request: HashMap<IdBuf, SmallVec<[JobId; 1]>>,
    /// The job running each task's work.
    by_task: HashMap<String, JobId>,
    /// The `tasks/result` waiting on each task.
    waits: HashMap<String, SmallVec<[JobId; 1]>>,
    batches: HashMap<u64, Batch>,
    next_batch: u64,
    /// The ids answered by each batch line written and not yet recorded, oldest first (with
    /// routed output only).
    closed_batches: Option<VecDeque<Vec<IdBuf>>>,
    actions: VecDeque<Action>,
    running: usize,
    max_running: usize,
    foreground: usize,
    queued_bytes: usize,
    /// Queued work whose job was cancelled, still in the queue.
    dead: usize,
    /// What waiters and batches in flight hold ([`Jobs::queued_bytes`]).
    held_bytes: usize,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs")
            .field("live", &self.entries.len())
            .field("running", &self.running)
            .field("queued", &self.queue.len())
            .finish_non_exhaustive()
    }
}

impl Jobs {
    pub(crate) fn new(max_running: usize) -> Self {
        Self {
            next: 0,
            entries: HashMap::default(),
            queue: VecDeque::new(),
            by_request: HashMap::default(),
            by_task: HashMap::default(),
            waits: HashMap::default(),
            batches: HashMap::default(),
            next_batch: 0,
            closed_batches: None,
            actions: VecDeque::new(),
            running: 0,
            max_running: max_running.max(1),
            foreground: 0,
            queued_bytes: 0,
            dead: 0,
            held_bytes: 0,
        }
    }

    pub(crate) fn set_max_running(&mut self, n: usize) {
        self.max_running = n.max(1);
        self.schedule();
    }

    /// A fresh id for a job about to be registered.
    pub(crate) const fn reserve(&mut self) -> JobId {
        self.next += 1;
        JobId(self.next)
    }

    fn insert(&mut self, job: JobId, entry: Entry) {
        if let Some(r) = &entry.request {
            self.by_request.entry(r.clone()).or_default().push(job);
        }
        if !matches!(entry.kind, Kind::Task { .. }) {
            self.foreground += 1;
        }
        match &entry.kind {
            Kind::Task { task, .. } => {
                self.by_task.insert(task.clone(), job);
            }
            Kind::Wait { task } => self.waits.entry(task.clone()).or_default().push(job),
            Kind::Call { .. }
            | Kind::Staged { .. }
            | Kind::Input
            | Kind::Listen
            | Kind::Surface { .. }
            | Kind::Store => {}
        }
        if let Some((batch, _)) = entry.slot
            && let Some(b) = self.batches.get_mut(&batch)
        {
            b.open += 1;
        }
        self.entries.insert(job, entry);
    }

    /// Registers job `job` with its work: it runs at once if there is room, else it is queued.
    pub(crate) fn start(&mut self, job: JobId, new: NewJob, work: Work) {
        let NewJob {
            request,
            slot,
            kind,
            signal,
            cost,
        } = new;
        self.insert(
            job,
            Entry {
                request,
                slot,
                kind,
                signal,
                running: false,
                held: 0,
            },
        );
        let cost = cost + QUEUED_COST;
        self.queued_bytes += cost;
        self.queue.push_back((job, work, cost));
        self.schedule();
    }

    /// Registers a request waiting for the client's answers (no work runs); `cost` is the
    /// size of its request, held against the byte bound until it is answered. A cancel of
    /// the request removes it ([`Jobs::holds`] turns false).
    pub(crate) fn hold(&mut self, request: IdBuf, cost: usize) -> JobId {
        let (slot, kind) = (None, Kind::Input);
        let job = self.reserve();
        let held = cost + QUEUED_COST;
        self.held_bytes += held;
        self.insert(
            job,
            Entry {
                request: Some(request),
                slot,
                kind,
                signal: None,
                running: false,
                held,
            },
        );
        job
    }

    /// Takes job `job` out of the book before its work ends (the server ends it): its work
    /// is aborted.
    pub(crate) fn end(&mut self, job: JobId) -> Option<Entry> {
        let entry = self.remove(job)?;
        if entry.running {
            self.actions.push_back(Action::Abort(job));
        }
        self.schedule();
        Some(entry)
    }

    /// True while job `job` is in the book (a held request not yet answered or cancelled).
    pub(crate) fn holds(&self, job: JobId) -> bool {
        self.entries.contains_key(&job)
    }

    /// Moves queued work to running while there is room.
    fn schedule(&mut self) {
        while self.running < self.max_running {
            let Some((job, work, cost)) = self.queue.pop_front() else {
                break;
            };
            self.queued_bytes -= cost;
            let Some(entry) = self.entries.get_mut(&job) else {
                debug_assert!(self.dead > 0, "dead counts the cancelled work still queued");
                self.dead = self.dead.saturating_sub(1);
                continue;
            };
            entry.running = true;
            self.running += 1;
            self.actions.push_back(Action::Run { job, work });
        }
    }

    /// True when an action waits for the driver.
    #[inline]
    pub(crate) fn has_actions(&self) -> bool {
        !self.actions.is_empty()
    }

    /// The next action for the driver.
    pub(crate) fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// The request job `job` answers (none for a task's work, or a job not in the book).
    pub(crate) fn request_of(&self, job: JobId) -> Option<Id<'_>> {
        self.entries.get(&job)?.request.as_ref().map(IdBuf::as_id)
    }

    /// True while job `job` is live: its notifications and answer are still wanted.
    pub(crate) fn is_live(&self, job: JobId) -> bool {
        self.entries.get(&job).is_some_and(|e| e.running)
    }

    /// Takes job `job` out of the book as its work ends; `None` when it was cancelled.
    pub(crate) fn finish(&mut self, job: JobId) -> Option<Entry> {
        let entry = self.remove(job)?;
        self.schedule();
        Some(entry)
    }

    /// Removes an entry and its indexes. Frees its running slot; does not schedule.
    fn remove(&mut self, job: JobId) -> Option<Entry> {
        let entry = self.entries.remove(&job)?;
        if entry.running {
            self.running -= 1;
        }
        self.held_bytes -= entry.held;
        if !matches!(entry.kind, Kind::Task { .. }) {
            self.foreground -= 1;
        }
        if let Some(r) = &entry.request
            && let Some(jobs) = self.by_request.get_mut(r)
        {
            jobs.retain(|j| *j != job);
            if jobs.is_empty() {
                self.by_request.remove(r);
            }
        }
        match &entry.kind {
            Kind::Task { task, .. } => {
                if self.by_task.get(task) == Some(&job) {
                    self.by_task.remove(task);
                }
            }
            Kind::Wait { task } => {
                if let Some(w) = self.waits.get_mut(task) {
                    w.retain(|j| *j != job);
                    if w.is_empty() {
                        self.waits.remove(task);
                    }
                }
            }
            Kind::Call { .. }
            | Kind::Staged { .. }
            | Kind::Input
            | Kind::Listen
            | Kind::Surface { .. }
            | Kind::Store => {}
        }
        Some(entry)
    }

    /// Stops a job (the request was cancelled, or its task was): an abort for running work,
    /// its queued work dropped, its signal raised, and its batch slot closed without an
    /// answer (the batch's line goes to `out` when that was its last open slot).
    fn stop(&mut self, job: JobId, out: &mut BytesMut) {
        let Some(entry) = self.remove(job) else {
            return;
        };
        if entry.running {
            self.actions.push_back(Action::Abort(job));
        } else if !matches!(entry.kind, Kind::Input) {
            // NB. The queue is compacted once half of it is dead, so a flood of calls and
            // cancels costs amortised constant time and the byte count stays true.
            self.dead += 1;
            if self.dead * 2 > self.queue.len() {
                let entries = &self.entries;
                let mut freed = 0;
                self.queue.retain(|(j, _, cost)| {
                    let live = entries.contains_key(j);
                    if !live {
                        freed += cost;
                    }
                    live
                });
                self.queued_bytes -= freed;
                self.dead = 0;
            }
        }
        if let Some(s) = &entry.signal {
            s.cancel();
        }
        self.deliver(entry.slot, None, out);
    }

    /// Cancels every job answering request `id`; nothing more is written for them.
    pub(crate) fn cancel_request(&mut self, id: &IdBuf, out: &mut BytesMut) {
        for job in self.by_request.get(id).cloned().unwrap_or_default() {
            self.stop(job, out);
        }
        self.schedule();
    }

    /// Stops the work of task `task`, if it runs.
    pub(crate) fn cancel_task_work(&mut self, task: &str, out: &mut BytesMut) {
        if let Some(job) = self.by_task.get(task).copied() {
            self.stop(job, out);
            self.schedule();
        }
    }

    /// Takes the `tasks/result` requests of this connection waiting for `task` out of the
    /// book (their waits are aborted): the caller answers them.
    pub(crate) fn take_waiters(&mut self, task: &str) -> Vec<Entry> {
        let jobs = self.waits.get(task).cloned().unwrap_or_default();
        jobs.into_iter().filter_map(|j| self.end(j)).collect()
    }

    /// Opens a batch whose elements will take `n` slots.
    pub(crate) fn open_batch(&mut self, n: usize) -> u64 {
        self.next_batch += 1;
        self.batches.insert(
            self.next_batch,
            Batch {
                lines: vec![None; n],
                open: 0,
                reading: true,
            },
        );
        self.next_batch
    }

    /// Delivers an answer: into its batch slot (the batch's line goes to `out` once every
    /// slot is settled) or straight to `out`. `None` settles a slot without an answer.
    pub(crate) fn deliver(&mut self, slot: Slot, line: Option<&[u8]>, out: &mut BytesMut) {
        match slot {
            None => {
                if let Some(l) = line {
                    out.extend_from_slice(l);
                }
            }
            Some((batch, i)) => {
                if let Some(b) = self.batches.get_mut(&batch) {
                    if let (Some(l), Some(place)) = (line, b.lines.get_mut(i)) {
                        self.held_bytes += l.len();
                        *place = Some(Bytes::copy_from_slice(l));
                    }
                    b.open = b.open.saturating_sub(1);
                }
                self.close_batch_if_done(batch, out);
            }
        }
    }

    /// Keeps the ids each batch line answers, for the connection's routed output, while `on`.
    pub(crate) fn set_routing(&mut self, on: bool) {
        self.closed_batches = on.then(VecDeque::new);
    }

    /// The ids the oldest batch line written answers (with routing on).
    pub(crate) fn take_closed_batch(&mut self) -> Vec<IdBuf> {
        self.closed_batches
            .as_mut()
            .and_then(VecDeque::pop_front)
            .unwrap_or_default()
    }

    /// Sets the answer of slot `i` that was ready when the batch was read.
    pub(crate) fn fill(&mut self, batch: u64, i: usize, line: Bytes) {
        if let Some(place) = self
            .batches
            .get_mut(&batch)
            .and_then(|b| b.lines.get_mut(i))
        {
            self.held_bytes += line.len();
            *place = Some(line);
        }
    }

    /// Every element of the batch was read: its line goes out once no slot is open.
    pub(crate) fn end_batch(&mut self, batch: u64, out: &mut BytesMut) {
        if let Some(b) = self.batches.get_mut(&batch) {
            b.reading = false;
        }
        self.close_batch_if_done(batch, out);
    }

    /// Writes the batch's line (nothing when it has no answers) once it was read whole and
    /// no slot is open.
    fn close_batch_if_done(&mut self, batch: u64, out: &mut BytesMut) {
        if self
            .batches
            .get(&batch)
            .is_none_or(|b| b.reading || b.open > 0)
        {
            return;
        }
        let Some(b) = self.batches.remove(&batch) else {
            return;
        };
        self.held_bytes -= b.lines.iter().flatten().map(Bytes::len).sum::<usize>();
        if let Some(closed) = self.closed_batches.as_mut() {
            // NB. Each element is a line of the encoder: its head names the request it
            // answers.
            let ids = b
                .lines
                .iter()
                .flatten()
                .filter_map(|l| match janus_codec::encode::read_head(l)? {
                    janus_codec::encode::Head::Result(id)
                    | janus_codec::encode::Head::Error(Some(id), _) => Some(id.to_owned()),
                    _ => None,
                })
                .collect();
            if b.lines.iter().any(Option::is_some) {
                closed.push_back(ids);
            }
        }
        let start = out.len();
        for line in b.lines.iter().flatten() {
            out.put_u8(if out.len() == start { b'[' } else { b',' });
            out.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
        }
        if out.len() > start {
            out.extend_from_slice(b"]\n");
        }
    }

    /// Jobs a request waits for (everything but tasks' background work).
    pub(crate) const fn foreground(&self) -> usize {
        self.foreground
    }

    /// Jobs whose work runs now.
    pub(crate) const fn running(&self) -> usize {
        self.running
    }

    /// What waits in the book, estimated in bytes: queued work, `tasks/result` waiters, and
    /// the answers of batches in flight.
    pub(crate) const fn queued_bytes(&self) -> usize {
        self.queued_bytes + self.held_bytes
    }

    /// Stops the tasks' background work that no `tasks/result` of this connection waits
    /// for: at end of input it ends with the connection anyway, and its running slots go to
    /// the requests still to answer. Returns the tasks whose work it stopped.
    pub(crate) fn end_background(&mut self, out: &mut BytesMut) -> Vec<String> {
        let idle: Vec<(String, JobId)> = self
            .by_task
            .iter()
            .filter(|(task, _)| !self.waits.contains_key(*task))
            .map(|(task, job)| (task.clone(), *job))
            .collect();
        for (_, job) in &idle {
            self.stop(*job, out);
        }
        self.schedule();
        idle.into_iter().map(|(task, _)| task).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tools::ToolResult;
    use janus_codec::ProtocolVersion;

    fn work() -> ToolFuture {
        Box::pin(async { Ok(ToolResult::text("x")) })
    }

    fn call(jobs: &mut Jobs, id: i64) -> JobId {
        let job = jobs.reserve();
        let new = NewJob {
            request: Some(IdBuf::from_i64(id)),
            slot: None,
            kind: Kind::Call {
                shape: Shape::new(ProtocolVersion::V2026_07_28),
                resume: Box::new(Resume {
                    frame: Vec::new(),
                    inputs: None,
                }),
            },
            signal: None,
            cost: 100,
        };
        jobs.start(job, new, Work::tool(work()));
        job
    }

    fn runs(jobs: &mut Jobs) -> Vec<JobId> {
        std::iter::from_fn(|| jobs.poll_action())
            .filter_map(|a| match a {
                Action::Run { job, .. } => Some(job),
                Action::Abort(_) => None,
            })
            .collect()
    }

    #[test]
    fn work_beyond_the_running_limit_waits_and_runs_as_room_frees() {
        let mut jobs = Jobs::new(2);
        let ids: Vec<JobId> = (0..5).map(|i| call(&mut jobs, i)).collect();
        assert_eq!(runs(&mut jobs), ids[..2]);
        assert_eq!(jobs.running(), 2);
        assert_eq!(jobs.queued_bytes(), 3 * (100 + QUEUED_COST));
        assert!(jobs.finish(ids[0]).is_some());
        assert_eq!(runs(&mut jobs), [ids[2]]);
        // A cancel of queued work frees its bytes; one of running work aborts it.
        let mut out = BytesMut::new();
        jobs.cancel_request(&IdBuf::from_i64(3), &mut out);
        jobs.cancel_request(&IdBuf::from_i64(1), &mut out);
        let actions: Vec<Action> = std::iter::from_fn(|| jobs.poll_action()).collect();
        assert!(
            matches!(actions[0], Action::Abort(j) if j == ids[1]),
            "{actions:?}"
        );
        assert!(
            matches!(actions[1], Action::Run { job, .. } if job == ids[4]),
            "{actions:?}"
        );
        assert_eq!(jobs.queued_bytes(), 0);
        assert!(
            jobs.finish(ids[1]).is_none(),
            "a cancelled job's end is ignored"
        );
        assert!(out.is_empty());
        assert_eq!(jobs.foreground(), 2);
    }

    #[test]
    fn a_flood_of_calls_and_cancels_keeps_the_queue_and_its_byte_count_true() {
        let mut jobs = Jobs::new(1);
        let mut out = BytesMut::new();
        call(&mut jobs, -1);
        for i in 0..10_000 {
            call(&mut jobs, i);
            jobs.cancel_request(&IdBuf::from_i64(i), &mut out);
            assert!(jobs.queue.len() <= 3, "dead work is compacted away");
        }
        assert_eq!(
            jobs.queued_bytes(),
            jobs.queue.iter().map(|(_, _, c)| c).sum::<usize>()
        );
        assert_eq!(jobs.foreground(), 1);
    }
}
