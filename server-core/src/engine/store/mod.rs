//! The seams for the state that outlives a request (`decisions.md`, "Storage"): the task
//! store, and the bus that carries list changes and resource updates to every process.
//!
//! A process has one [`TaskStore`], shared by every connection it serves (stdio, TCP, each
//! legacy HTTP session and every stateless POST): it is the [`Server`](crate::Server)'s,
//! given with [`ServerBuilder::task_store`](crate::engine::server::ServerBuilder::task_store), so no
//! connection can end up with a store of its own. [`MemoryTaskStore`] is the default; a store
//! that several processes share (say on Redis) implements the same trait.
//!
//! Every operation returns a future, and the core never blocks on one: it polls the future
//! once where the request is handled, and a store that answers at once (the in-memory one
//! always does) is served there, with no job and no wait. A store that does not answer at
//! once makes the request a job of its connection: the connection goes on reading and
//! serving, and the request is answered when the store answers (or fails: `-32603` with
//! `data.reason`). A store that talks to a network bounds its own time; [`Deadline`]
//! (feature `tokio`) bounds any store's.
//!
//! The [`Bus`] is the server's too ([`ServerBuilder::bus`](crate::engine::server::ServerBuilder::bus),
//! a [`MemoryBus`] by default): a list change or resource update made through one process
//! reaches the sessions and `subscriptions/listen` streams of every process on the bus.
//!
//! A task's end is heard wherever it happens ([`TaskStore::ended`]): a `tasks/result`
//! waiting on one connection is answered when another ends the task, and a task's running
//! work stops when another connection (or process) cancels it.

use crate::api::input::InputRequest;
use crate::engine::tasks::{Outcome, Parked, Status, Task};
use std::future::Future;
use std::pin::Pin;

mod bus;
#[cfg(feature = "tokio")]
mod deadline;
mod memory;

pub use bus::{Bus, Event, Hear, MemoryBus};
#[cfg(feature = "tokio")]
pub use deadline::{DEFAULT_STORE_DEADLINE, Deadline};
pub use memory::MemoryTaskStore;

/// What a store operation gives back: a future of its answer.
pub type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'static>>;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// No task can be created: the store holds as many as it may (`max`).
    Full {
        /// The most tasks the store keeps.
        max: usize,
    },
    /// The store could not be reached or did not answer in time; the reason is given to the
    /// client as `data.reason` of a `-32603`, so it names no secret.
    Unavailable(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Full { max } => write!(f, "the task store is full ({max} tasks)"),
            Self::Unavailable(reason) => write!(f, "the task store is unavailable: {reason}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// The tasks of a process (both generations, `decisions.md`, "Tasks"): their status, times,
/// outcome and, while one waits for the client, what it keeps.
///
/// Rules every implementation keeps:
/// - task ids are random (128 bits or more, [`new_task_id`]), never a clock or a counter, so
///   two processes never mint the same one;
/// - status moves only forward: `working` → `input_required`? → `completed` | `failed` |
///   `cancelled`; a terminal task never changes again (so a cancel after the end changes
///   nothing, and is no error);
/// - a terminal task is kept `ttl_ms` after its creation, then expires;
/// - time comes from the caller (`now_ms`, milliseconds since the Unix epoch).
///
/// Transitions are atomic: when two connections (or processes) move one task at once, one
/// of them wins and the other sees the task as the winner left it.
pub trait TaskStore: Send + Sync + 'static {
    /// Creates a `working` task kept `ttl_ms` (clamped to [`crate::engine::tasks::MAX_TTL_MS`]; the
    /// default when `None`). [`StoreError::Full`] when no more may be kept.
    fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> StoreFuture<Task>;

    /// The task `id`, unless unknown or expired.
    fn get(&self, id: &str, now_ms: u64) -> StoreFuture<Option<Task>>;

    /// Moves the task to `status` (forward only) with `outcome`; a terminal task is left as
    /// it is. The task as it is now, and whether it changed; `None` for an unknown task.
    fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> StoreFuture<Option<(Task, bool)>>;

    /// Cancels the task (`cancelled` unless already terminal, then unchanged): as
    /// [`TaskStore::advance`]. Its work stops wherever it runs, since [`TaskStore::ended`]
    /// resolves.
    fn cancel(&self, id: &str, now_ms: u64) -> StoreFuture<Option<(Task, bool)>> {
        self.advance(id, now_ms, Status::Cancelled, None)
    }

    /// Parks a running task in `input_required` with `requests` and what it keeps until they
    /// are answered (a terminal task is left as it is). The task as it is now.
    fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> StoreFuture<Option<Task>>;

    /// The client answered some of a parked task's requests (keys it was not asked are
    /// ignored). When none is left, the task is `working` again and what it kept comes back
    /// with every answer, for its call to be handled again. `None` for an unknown task.
    fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> StoreFuture<Option<Option<Parked>>>;

    /// A page of tasks in creation order from `cursor` (an index), and the next cursor.
    fn list(&self, now_ms: u64, cursor: usize) -> StoreFuture<(Vec<Task>, Option<usize>)>;

    /// Drops the terminal tasks whose time to live has run out; how many went.
    fn expire(&self, now_ms: u64) -> StoreFuture<usize>;

    /// Resolves once task `id` is terminal, with the task as it ended (`None` when it is
    /// unknown or expired), wherever it ended. Not bounded in time: it waits for as long as
    /// the task runs, and whoever waits drops it to stop waiting.
    fn ended(&self, id: &str) -> StoreFuture<Option<Task>>;
}

/// A new task id: 128 random bits, base64url without padding (22 characters).
///
/// # Panics
///
/// When the operating system has no randomness to give, which leaves nothing safe to do.
#[must_use]
pub fn new_task_id() -> String {
    use base64::Engine as _;
    let mut bits = [0u8; 16];
    getrandom::fill(&mut bits).expect("the operating system gives random bytes");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bits)
}

/// A store future that is already answered.
pub(crate) fn ready<T: Send + 'static>(v: Result<T, StoreError>) -> StoreFuture<T> {
    Box::pin(std::future::ready(v))
}
