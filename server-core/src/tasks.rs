//! The task store, for both task generations (`decisions.md`, "Tasks").
//!
//! A task is a tool call whose result is fetched later: the legacy experimental tasks of
//! 2025-11-25 sessions (`params.task`, `tasks/get`, `tasks/result`, `tasks/list`,
//! `tasks/cancel`) and the modern extension `io.modelcontextprotocol/tasks` (`tasks/get`,
//! `tasks/update`, `tasks/cancel`).
//! The store keeps the status, times and outcome of each task; the wire shapes are written by
//! the connection.
//!
//! Rules the store enforces:
//! - status moves only forward: `working` → `input_required`? → `completed` | `failed` |
//!   `cancelled`; a terminal task never changes again, so a cancel or a late result after it
//!   changes nothing (cancel is idempotent);
//! - a task expires `ttl` after its creation and is purged once terminal;
//! - the store is bounded: past [`MAX_TASKS`] live tasks, creation fails;
//! - time comes from the caller (`now_ms`, milliseconds since the Unix epoch): the store reads
//!   no clock.

use crate::json::{Json, RpcError};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

/// The most tasks one store keeps at once.
pub const MAX_TASKS: usize = 1024;
/// The `ttl` of a task created without one, in milliseconds.
pub const DEFAULT_TTL_MS: u64 = 300_000;
/// The longest `ttl` a client may ask for, in milliseconds.
pub const MAX_TTL_MS: u64 = 3_600_000;
/// The poll interval the server suggests, in milliseconds.
pub const POLL_INTERVAL_MS: u64 = 200;
/// Tasks per `tasks/list` page.
pub const LIST_PAGE: usize = 100;

/// The status of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Running (the initial status).
    Working,
    /// Waiting for input from the client.
    InputRequired,
    /// Done, with a result.
    Completed,
    /// Done, with an error (or, in the legacy generation, a tool result with `isError`).
    Failed,
    /// Stopped at the client's request.
    Cancelled,
}

impl Status {
    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// True for `completed`, `failed` and `cancelled`.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    const fn rank(self) -> u8 {
        match self {
            Self::Working => 0,
            Self::InputRequired => 1,
            Self::Completed | Self::Failed | Self::Cancelled => 2,
        }
    }
}

/// A tool result kept for later: its content blocks as encoded, and the rest of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The content blocks, encoded for the task's revision and joined with commas.
    pub content: String,
    /// `structuredContent`.
    pub structured: Option<Json>,
    /// Whether the tool reported a failure (`isError: true`).
    pub is_error: bool,
}

/// How a task's work ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A tool result.
    Result(Stored),
    /// A JSON-RPC error.
    Error(RpcError),
}

/// A snapshot of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Its handle.
    pub id: String,
    /// Its status.
    pub status: Status,
    /// When it was created (ms since the epoch).
    pub created_ms: u64,
    /// When its status last changed (ms since the epoch).
    pub updated_ms: u64,
    /// How long after creation it is kept (ms).
    pub ttl_ms: u64,
    /// The poll interval suggested to the client (ms).
    pub poll_ms: u64,
    /// How it ended, once terminal by completion or failure.
    pub outcome: Option<Outcome>,
    /// While `input_required`: the requests still unanswered, by key.
    pub input_requests: Vec<(String, crate::input::InputRequest)>,
}

/// What a task waiting for the client's input keeps until every request is answered
/// (`tasks/update`): then the call is handled again with the answers ([`crate::input`]).
#[derive(Debug, Clone)]
pub(crate) struct Parked {
    /// The answers so far: key and response object (JSON text).
    pub(crate) responses: Vec<(String, String)>,
    /// The handler's own state.
    pub(crate) state: Option<String>,
    /// The call, as a frame to handle again.
    pub(crate) frame: Vec<u8>,
}

/// Why a task could not be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFull;

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Task>,
    /// What each task waiting for input keeps.
    parked: HashMap<String, Parked>,
    /// Task ids in creation order, for listing.
    order: VecDeque<String>,
    next: u64,
}

/// The tasks of one connection (the seam for a store shared by replicas later: every call
/// takes the time from the caller and the store reads no clock).
#[derive(Default)]
pub struct TaskStore {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for TaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskStore")
            .field("tasks", &self.lock().tasks.len())
            .finish()
    }
}

impl TaskStore {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every update is one
        // assignment), so a poisoned lock is taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates a `working` task kept `ttl_ms` (clamped to [`MAX_TTL_MS`]; the default when
    /// `None`).
    ///
    /// # Errors
    ///
    /// [`StoreFull`] when [`MAX_TASKS`] tasks are live even after purging expired ones.
    pub fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> Result<Task, StoreFull> {
        let mut inner = self.lock();
        purge(&mut inner, now_ms);
        if inner.tasks.len() >= MAX_TASKS {
            return Err(StoreFull);
        }
        inner.next += 1;
        // Unguessable enough to not collide across connections, readable in logs.
        let id = format!("task-{:x}-{}", now_ms, inner.next);
        let task = Task {
            id: id.clone(),
            status: Status::Working,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms: ttl_ms.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS),
            poll_ms: POLL_INTERVAL_MS,
            outcome: None,
            input_requests: Vec::new(),
        };
        inner.tasks.insert(id.clone(), task.clone());
        inner.order.push_back(id);
        Ok(task)
    }

    /// True when a task can be created now.
    #[must_use]
    pub fn has_room(&self, now_ms: u64) -> bool {
        let mut inner = self.lock();
        purge(&mut inner, now_ms);
        inner.tasks.len() < MAX_TASKS
    }

    /// The task `id`, unless unknown or purged.
    #[must_use]
    pub fn get(&self, id: &str, now_ms: u64) -> Option<Task> {
        let mut inner = self.lock();
        purge(&mut inner, now_ms);
        inner.tasks.get(id).cloned()
    }

    /// Moves the task to `status` (forward only) with `outcome`; a terminal task is left as
    /// it is. Returns the task as it is now, and whether it changed.
    pub fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> Option<(Task, bool)> {
        let mut inner = self.lock();
        let task = inner.tasks.get_mut(id)?;
        let changed = !task.status.is_terminal()
            && status.rank() >= task.status.rank()
            && status != task.status;
        if changed {
            task.status = status;
            task.updated_ms = now_ms;
            if outcome.is_some() {
                task.outcome = outcome;
            }
            if status.is_terminal() {
                task.input_requests.clear();
            }
        }
        let t = task.clone();
        if t.status.is_terminal() {
            inner.parked.remove(id);
        }
        Some((t, changed))
    }

    /// Parks task `id` in `input_required` with `requests` (a task still running; a terminal
    /// one is left as it is). Returns the task as it is now.
    pub(crate) fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, crate::input::InputRequest)>,
        parked: Parked,
    ) -> Option<Task> {
        let mut inner = self.lock();
        let task = inner.tasks.get_mut(id)?;
        if !task.status.is_terminal() {
            task.status = Status::InputRequired;
            task.updated_ms = now_ms;
            task.input_requests = requests;
            let t = task.clone();
            inner.parked.insert(id.to_owned(), parked);
            return Some(t);
        }
        Some(task.clone())
    }

    /// The client answered some of task `id`'s requests (keys it did not ask are ignored).
    /// When none is left, the task is `working` again and what it kept comes back, with the
    /// answers, for the call to be handled again. `None` for an unknown task.
    pub(crate) fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> Option<Option<Parked>> {
        let mut inner = self.lock();
        let Inner { tasks, parked, .. } = &mut *inner;
        let task = tasks.get_mut(id)?;
        let (Status::InputRequired, Some(p)) = (task.status, parked.get_mut(id)) else {
            return Some(None);
        };
        for (k, v) in responses {
            if let Some(i) = task.input_requests.iter().position(|(rk, _)| *rk == k) {
                task.input_requests.remove(i);
                p.responses.push((k, v));
            }
        }
        if !task.input_requests.is_empty() {
            return Some(None);
        }
        task.status = Status::Working;
        task.updated_ms = now_ms;
        Some(parked.remove(id))
    }

    /// The status of task `id`, if it is known.
    #[must_use]
    pub fn status(&self, id: &str) -> Option<Status> {
        self.lock().tasks.get(id).map(|t| t.status)
    }

    /// Cancels the task: `cancelled` unless already terminal (then unchanged). Returns the
    /// task as it is now and whether it changed; `None` for an unknown task.
    pub fn cancel(&self, id: &str, now_ms: u64) -> Option<(Task, bool)> {
        self.advance(id, now_ms, Status::Cancelled, None)
    }

    /// A page of tasks in creation order from `cursor` (an index), and the next cursor.
    #[must_use]
    pub fn list(&self, now_ms: u64, cursor: usize) -> (Vec<Task>, Option<usize>) {
        let mut inner = self.lock();
        purge(&mut inner, now_ms);
        let page: Vec<Task> = inner
            .order
            .iter()
            .skip(cursor)
            .take(LIST_PAGE)
            .filter_map(|id| inner.tasks.get(id).cloned())
            .collect();
        let next = cursor + LIST_PAGE;
        (page, (next < inner.order.len()).then_some(next))
    }

    /// How many tasks are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// True when no task is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Drops terminal tasks whose time to live has run out.
fn purge(inner: &mut Inner, now_ms: u64) {
    let expired: Vec<String> = inner
        .tasks
        .values()
        .filter(|t| t.status.is_terminal() && now_ms >= t.created_ms.saturating_add(t.ttl_ms))
        .map(|t| t.id.clone())
        .collect();
    if expired.is_empty() {
        return;
    }
    for id in &expired {
        inner.tasks.remove(id);
        inner.parked.remove(id);
    }
    inner.order.retain(|id| !expired.contains(id));
}

/// Writes `ms` since the Unix epoch as an RFC 3339 UTC timestamp with milliseconds.
#[must_use]
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_764_460_800_000), "2025-11-30T00:00:00.000Z");
    }

    #[test]
    fn status_moves_only_forward_and_cancel_is_idempotent() {
        let s = TaskStore::default();
        let t = s.create(1_000, Some(10_000)).unwrap();
        assert_eq!(t.status, Status::Working);
        let done = Outcome::Result(Stored {
            content: String::new(),
            structured: None,
            is_error: false,
        });
        let (t2, changed) = s
            .advance(&t.id, 2_000, Status::Completed, Some(done.clone()))
            .unwrap();
        assert!(changed);
        assert_eq!(t2.status, Status::Completed);
        // Cancelling a completed task changes nothing, twice.
        for _ in 0..2 {
            let (t3, changed) = s.cancel(&t.id, 3_000).unwrap();
            assert!(!changed);
            assert_eq!(t3.status, Status::Completed);
            assert_eq!(t3.updated_ms, 2_000);
            assert_eq!(t3.outcome, Some(done.clone()));
        }
        assert!(s.cancel("nope", 3_000).is_none());
    }

    #[test]
    fn terminal_tasks_expire_and_the_store_is_bounded() {
        let s = TaskStore::default();
        let t = s.create(0, Some(1_000)).unwrap();
        s.cancel(&t.id, 10).unwrap();
        assert!(s.get(&t.id, 999).is_some());
        assert!(s.get(&t.id, 1_000).is_none());
        for _ in 0..MAX_TASKS {
            s.create(5_000, None).unwrap();
        }
        assert_eq!(s.create(5_000, None), Err(StoreFull));
        assert_eq!(s.len(), MAX_TASKS);
    }

    #[test]
    fn listing_pages_in_creation_order() {
        let s = TaskStore::default();
        let ids: Vec<String> = (0..250).map(|i| s.create(i, None).unwrap().id).collect();
        let (p1, c1) = s.list(300, 0);
        assert_eq!(p1.len(), LIST_PAGE);
        assert_eq!(p1[0].id, ids[0]);
        let (p3, c3) = s.list(300, 200);
        assert_eq!(p3.len(), 50);
        assert_eq!(c1, Some(100));
        assert_eq!(c3, None);
    }

    mod prop {
        use super::super::*;
        use proptest::prelude::*;
        use std::collections::HashMap;

        #[derive(Debug, Clone)]
        enum Op {
            Create(Option<u64>),
            Advance(usize, u8),
            Cancel(usize),
            Tick(u64),
            Get(usize),
            List,
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                proptest::option::of(0u64..5_000).prop_map(Op::Create),
                (0usize..16, 0u8..5).prop_map(|(i, s)| Op::Advance(i, s)),
                (0usize..16).prop_map(Op::Cancel),
                (0u64..3_000).prop_map(Op::Tick),
                (0usize..16).prop_map(Op::Get),
                Just(Op::List),
            ]
        }

        const STATUSES: [Status; 5] = [
            Status::Working,
            Status::InputRequired,
            Status::Completed,
            Status::Failed,
            Status::Cancelled,
        ];

        proptest! {
            /// Random task operations never move a status backwards, never change a terminal
            /// task, and purge only terminal tasks whose time to live has run out.
            #[test]
            fn status_order_holds_and_only_expired_terminal_tasks_vanish(
                ops in proptest::collection::vec(op(), 1..200)
            ) {
                let store = TaskStore::default();
                let mut now = 1_000_000u64;
                let mut ids: Vec<String> = Vec::new();
                let mut last: HashMap<String, Task> = HashMap::new();
                for op in ops {
                    match op {
                        Op::Create(ttl) => {
                            let t = store.create(now, ttl).unwrap();
                            prop_assert_eq!(t.status, Status::Working);
                            ids.push(t.id.clone());
                        }
                        Op::Advance(i, s) => {
                            if let Some(id) = ids.get(i) {
                                let _ = store.advance(id, now, STATUSES[usize::from(s)], None);
                            }
                        }
                        Op::Cancel(i) => {
                            if let Some(id) = ids.get(i) {
                                let _ = store.cancel(id, now);
                            }
                        }
                        Op::Tick(ms) => now += ms,
                        Op::Get(i) => {
                            if let Some(id) = ids.get(i) {
                                let _ = store.get(id, now);
                            }
                        }
                        Op::List => {
                            let _ = store.list(now, 0);
                        }
                    }
                    for id in &ids {
                        let current = store.lock().tasks.get(id).cloned();
                        match (last.get(id), current) {
                            (Some(before), Some(after)) => {
                                prop_assert!(after.status.rank() >= before.status.rank());
                                if before.status.is_terminal() {
                                    prop_assert_eq!(&after, before);
                                }
                            }
                            (Some(before), None) => {
                                prop_assert!(before.status.is_terminal(), "a live task vanished");
                                prop_assert!(now >= before.created_ms + before.ttl_ms);
                            }
                            _ => {}
                        }
                        if let Some(t) = store.lock().tasks.get(id).cloned() {
                            last.insert(id.clone(), t);
                        } else {
                            last.remove(id);
                        }
                    }
                    prop_assert!(store.len() <= MAX_TASKS);
                }
            }
        }
    }
}
