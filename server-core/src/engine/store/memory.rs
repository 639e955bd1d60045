//! [`MemoryTaskStore`]: the tasks of one process, in its memory. Every operation answers at
//! once (its future is ready when it is made), so the core serves task requests inline.

use super::{StoreError, StoreFuture, TaskStore, new_task_id, ready};
use crate::api::input::InputRequest;
use crate::engine::tasks::{
    DEFAULT_TTL_MS, LIST_PAGE, MAX_TASKS, MAX_TTL_MS, Outcome, POLL_INTERVAL_MS, Parked, Status,
    Task,
};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Task>,
    /// What each task waiting for input keeps.
    parked: HashMap<String, Parked>,
    /// Task ids in creation order, for listing.
    order: VecDeque<String>,
    /// Who waits for each task's end ([`TaskStore::ended`]).
    waiting: HashMap<String, Vec<Waker>>,
}

/// The tasks of one process, in memory (the default store): at most [`MAX_TASKS`] at once.
/// Cloning it gives another handle on the same tasks.
#[derive(Clone, Default)]
pub struct MemoryTaskStore {
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("tasks", &self.len())
            .finish()
    }
}

fn lock(m: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    // A panic while holding the lock leaves consistent data (every update is a few
    // assignments that cannot panic), so a poisoned lock is taken over.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl MemoryTaskStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks are kept (expired ones not yet dropped included).
    #[must_use]
    pub fn len(&self) -> usize {
        lock(&self.inner).tasks.len()
    }

    /// True when no task is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn create_now(&self, now_ms: u64, ttl_ms: Option<u64>) -> Result<Task, StoreError> {
        let mut inner = lock(&self.inner);
        purge(&mut inner, now_ms);
        if inner.tasks.len() >= MAX_TASKS {
            return Err(StoreError::Full { max: MAX_TASKS });
        }
        let id = new_task_id();
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

    fn advance_now(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> Option<(Task, bool)> {
        let mut inner = lock(&self.inner);
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
            wake(&mut inner, id);
        }
        Some((t, changed))
    }

    fn park_now(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> Option<Task> {
        let mut inner = lock(&self.inner);
        let task = inner.tasks.get_mut(id)?;
        if task.status.is_terminal() {
            return Some(task.clone());
        }
        task.status = Status::InputRequired;
        task.updated_ms = now_ms;
        task.input_requests = requests;
        let t = task.clone();
        inner.parked.insert(id.to_owned(), parked);
        Some(t)
    }

    fn answer_now(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> Option<Option<Parked>> {
        let mut inner = lock(&self.inner);
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

    fn list_now(&self, now_ms: u64, cursor: usize) -> (Vec<Task>, Option<usize>) {
        let mut inner = lock(&self.inner);
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
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> StoreFuture<Task> {
        ready(self.create_now(now_ms, ttl_ms))
    }

    fn get(&self, id: &str, now_ms: u64) -> StoreFuture<Option<Task>> {
        let mut inner = lock(&self.inner);
        purge(&mut inner, now_ms);
        ready(Ok(inner.tasks.get(id).cloned()))
    }

    fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> StoreFuture<Option<(Task, bool)>> {
        ready(Ok(self.advance_now(id, now_ms, status, outcome)))
    }

    fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> StoreFuture<Option<Task>> {
        ready(Ok(self.park_now(id, now_ms, requests, parked)))
    }

    fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> StoreFuture<Option<Option<Parked>>> {
        ready(Ok(self.answer_now(id, now_ms, responses)))
    }

    fn list(&self, now_ms: u64, cursor: usize) -> StoreFuture<(Vec<Task>, Option<usize>)> {
        ready(Ok(self.list_now(now_ms, cursor)))
    }

    fn expire(&self, now_ms: u64) -> StoreFuture<usize> {
        ready(Ok(purge(&mut lock(&self.inner), now_ms)))
    }

    fn ended(&self, id: &str) -> StoreFuture<Option<Task>> {
        let inner = Arc::clone(&self.inner);
        let id = id.to_owned();
        Box::pin(std::future::poll_fn(move |cx| {
            let mut g = lock(&inner);
            match g.tasks.get(&id) {
                None => Poll::Ready(Ok(None)),
                Some(t) if t.status.is_terminal() => Poll::Ready(Ok(Some(t.clone()))),
                Some(_) => {
                    let wakers = g.waiting.entry(id.clone()).or_default();
                    if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                        wakers.push(cx.waker().clone());
                    }
                    Poll::Pending
                }
            }
        }))
    }
}

/// Wakes whoever waits for task `id`'s end.
fn wake(inner: &mut Inner, id: &str) {
    if let Some(wakers) = inner.waiting.remove(id) {
        for w in wakers {
            w.wake();
        }
    }
}

/// Drops terminal tasks whose time to live has run out; how many went.
fn purge(inner: &mut Inner, now_ms: u64) -> usize {
    let expired: Vec<String> = inner
        .tasks
        .values()
        .filter(|t| t.status.is_terminal() && now_ms >= t.created_ms.saturating_add(t.ttl_ms))
        .map(|t| t.id.clone())
        .collect();
    if expired.is_empty() {
        return 0;
    }
    for id in &expired {
        inner.tasks.remove(id);
        inner.parked.remove(id);
        wake(inner, id);
    }
    inner.order.retain(|id| !expired.contains(id));
    expired.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::Context;

    /// The answer of a store future that must be ready at once.
    fn now<T>(mut f: StoreFuture<T>) -> T {
        match Pin::new(&mut f).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v.expect("the memory store does not fail"),
            Poll::Pending => panic!("the memory store answers at once"),
        }
    }

    fn done() -> Outcome {
        Outcome::Result(crate::engine::tasks::Stored {
            content: String::new(),
            structured: None,
            is_error: false,
            meta: None,
        })
    }

    #[test]
    fn task_ids_are_128_random_bits_and_never_repeat() {
        let s = MemoryTaskStore::new();
        let ids: std::collections::HashSet<String> =
            (0..500).map(|i| now(s.create(i, None)).id).collect();
        assert_eq!(ids.len(), 500);
        for id in &ids {
            assert_eq!(id.len(), 22, "{id}");
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
                "{id}"
            );
        }
    }

    #[test]
    fn status_moves_only_forward_and_cancel_is_idempotent() {
        let s = MemoryTaskStore::new();
        let t = now(s.create(1_000, Some(10_000)));
        assert_eq!(t.status, Status::Working);
        let (t2, changed) = now(s.advance(&t.id, 2_000, Status::Completed, Some(done()))).unwrap();
        assert!(changed);
        assert_eq!(t2.status, Status::Completed);
        // Cancelling a completed task changes nothing, twice.
        for _ in 0..2 {
            let (t3, changed) = now(s.cancel(&t.id, 3_000)).unwrap();
            assert!(!changed);
            assert_eq!(t3.status, Status::Completed);
            assert_eq!(t3.updated_ms, 2_000);
            assert_eq!(t3.outcome, Some(done()));
        }
        assert!(now(s.cancel("nope", 3_000)).is_none());
    }

    #[test]
    fn terminal_tasks_expire_and_the_store_is_bounded() {
        let s = MemoryTaskStore::new();
        let t = now(s.create(0, Some(1_000)));
        now(s.cancel(&t.id, 10)).unwrap();
        assert!(now(s.get(&t.id, 999)).is_some());
        assert!(now(s.get(&t.id, 1_000)).is_none());
        for _ in 0..MAX_TASKS {
            now(s.create(5_000, None));
        }
        let mut full = s.create(5_000, None);
        let got = Pin::new(&mut full).poll(&mut Context::from_waker(Waker::noop()));
        assert!(matches!(
            got,
            Poll::Ready(Err(StoreError::Full { max: MAX_TASKS }))
        ));
        assert_eq!(s.len(), MAX_TASKS);
    }

    #[test]
    fn listing_pages_in_creation_order() {
        let s = MemoryTaskStore::new();
        let ids: Vec<String> = (0..250).map(|i| now(s.create(i, None)).id).collect();
        let (p1, c1) = now(s.list(300, 0));
        assert_eq!(p1.len(), LIST_PAGE);
        assert_eq!(p1[0].id, ids[0]);
        let (p3, c3) = now(s.list(300, 200));
        assert_eq!(p3.len(), 50);
        assert_eq!(c1, Some(100));
        assert_eq!(c3, None);
    }

    #[test]
    fn ended_resolves_when_any_handle_ends_the_task() {
        struct Count(std::sync::atomic::AtomicUsize);
        impl std::task::Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let a = MemoryTaskStore::new();
        let b = a.clone();
        let t = now(a.create(0, None));
        let count = Arc::new(Count(std::sync::atomic::AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&count));
        let mut cx = Context::from_waker(&waker);
        let mut ended = a.ended(&t.id);
        assert!(Pin::new(&mut ended).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut ended).poll(&mut cx).is_pending());
        // Another handle (another connection) cancels it: the waiter is woken once.
        now(b.cancel(&t.id, 5)).unwrap();
        assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        match Pin::new(&mut ended).poll(&mut cx) {
            Poll::Ready(Ok(Some(t))) => assert_eq!(t.status, Status::Cancelled),
            other => panic!("{other:?}"),
        }
        // An unknown task has ended as far as anyone can wait for it.
        let mut gone = a.ended("nope");
        assert!(matches!(
            Pin::new(&mut gone).poll(&mut cx),
            Poll::Ready(Ok(None))
        ));
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

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
                let store = MemoryTaskStore::new();
                let mut t = 1_000_000u64;
                let mut ids: Vec<String> = Vec::new();
                let mut last: HashMap<String, Task> = HashMap::new();
                for op in ops {
                    match op {
                        Op::Create(ttl) => {
                            let task = now(store.create(t, ttl));
                            prop_assert_eq!(task.status, Status::Working);
                            ids.push(task.id.clone());
                        }
                        Op::Advance(i, s) => {
                            if let Some(id) = ids.get(i) {
                                let _ = now(store.advance(id, t, STATUSES[usize::from(s)], None));
                            }
                        }
                        Op::Cancel(i) => {
                            if let Some(id) = ids.get(i) {
                                let _ = now(store.cancel(id, t));
                            }
                        }
                        Op::Tick(ms) => t += ms,
                        Op::Get(i) => {
                            if let Some(id) = ids.get(i) {
                                let _ = now(store.get(id, t));
                            }
                        }
                        Op::List => {
                            let _ = now(store.list(t, 0));
                        }
                    }
                    for id in &ids {
                        let current = lock(&store.inner).tasks.get(id).cloned();
                        match (last.get(id), current) {
                            (Some(before), Some(after)) => {
                                prop_assert!(after.status.rank() >= before.status.rank());
                                if before.status.is_terminal() {
                                    prop_assert_eq!(&after, before);
                                }
                            }
                            (Some(before), None) => {
                                prop_assert!(before.status.is_terminal(), "a live task vanished");
                                prop_assert!(t >= before.created_ms + before.ttl_ms);
                            }
                            _ => {}
                        }
                        if let Some(task) = lock(&store.inner).tasks.get(id).cloned() {
                            last.insert(id.clone(), task);
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
