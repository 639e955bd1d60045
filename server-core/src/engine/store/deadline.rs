//! [`Deadline`]: a bound on the time of every operation of a store (feature `tokio`).

use super::{StoreError, StoreFuture, TaskStore};
use crate::api::input::InputRequest;
use crate::engine::tasks::{Outcome, Parked, Status, Task};
use std::time::Duration;

/// The time a store operation may take under [`Deadline::new`] by default.
pub const DEFAULT_STORE_DEADLINE: Duration = Duration::from_secs(5);

/// A store whose every operation answers within `limit`, or fails with
/// [`StoreError::Unavailable`] (the request that needed it gets `-32603` with that reason):
/// a store that hangs never holds a request for longer. [`TaskStore::ended`] is left
/// unbounded, since it waits for as long as the task runs.
#[derive(Debug, Clone)]
pub struct Deadline<S> {
    inner: S,
    limit: Duration,
}

impl<S: TaskStore> Deadline<S> {
    /// `inner`, each operation bounded by `limit`.
    #[must_use]
    pub const fn new(inner: S, limit: Duration) -> Self {
        Self { inner, limit }
    }

    fn bound<T: Send + 'static>(&self, f: StoreFuture<T>) -> StoreFuture<T> {
        let limit = self.limit;
        // NB. The timer starts at the first poll, which the core makes where it handles the
        // request (inside the driver's runtime).
        Box::pin(async move {
            match tokio::time::timeout(limit, f).await {
                Ok(r) => r,
                Err(_) => Err(StoreError::Unavailable(format!(
                    "the task store did not answer within {} ms",
                    limit.as_millis()
                ))),
            }
        })
    }
}

impl<S: TaskStore> TaskStore for Deadline<S> {
    fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> StoreFuture<Task> {
        self.bound(self.inner.create(now_ms, ttl_ms))
    }

    fn get(&self, id: &str, now_ms: u64) -> StoreFuture<Option<Task>> {
        self.bound(self.inner.get(id, now_ms))
    }

    fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> StoreFuture<Option<(Task, bool)>> {
        self.bound(self.inner.advance(id, now_ms, status, outcome))
    }

    fn cancel(&self, id: &str, now_ms: u64) -> StoreFuture<Option<(Task, bool)>> {
        self.bound(self.inner.cancel(id, now_ms))
    }

    fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> StoreFuture<Option<Task>> {
        self.bound(self.inner.park(id, now_ms, requests, parked))
    }

    fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> StoreFuture<Option<Option<Parked>>> {
        self.bound(self.inner.answer(id, now_ms, responses))
    }

    fn list(&self, now_ms: u64, cursor: usize) -> StoreFuture<(Vec<Task>, Option<usize>)> {
        self.bound(self.inner.list(now_ms, cursor))
    }

    fn expire(&self, now_ms: u64) -> StoreFuture<usize> {
        self.bound(self.inner.expire(now_ms))
    }

    fn ended(&self, id: &str) -> StoreFuture<Option<Task>> {
        self.inner.ended(id)
    }
}
