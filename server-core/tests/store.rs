//! The task store as the seam of the state that outlives a request (`decisions.md`,
//! "Storage"): one store per server, shared by every connection; a task made through one
//! connection is read, awaited and cancelled through another, and the cancel stops its work
//! where it runs; a store that is slow or fails gives the requests that need it a clear
//! `-32603` within a bounded time while the connection serves everything else.

use janus_server_core::demo;
use janus_server_core::input::InputRequest;
use janus_server_core::store::{Deadline, MemoryTaskStore, StoreError, StoreFuture, TaskStore};
use janus_server_core::tasks::{Outcome, Parked, Status, Task};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod support;
use support::*;

fn task_call(id: i64, ms: u64) -> String {
    legacy(
        id,
        "tools/call",
        &format!(r#"{{"name":"sleep","arguments":{{"ms":{ms}}},"task":{{}}}}"#),
    )
}

fn on_task(id: i64, method: &str, task: &str) -> String {
    legacy(id, method, &format!(r#"{{"taskId":"{task}"}}"#))
}

fn session(server: &Arc<janus_server_core::Server>) -> Client {
    let mut c = Client::with(Arc::clone(server));
    c.initialize("2025-11-25");
    c
}

#[tokio::test(start_paused = true)]
async fn a_task_made_on_one_connection_is_read_and_cancelled_on_another_which_stops_its_work() {
    let server = demo::server();
    let mut a = session(&server);
    let mut b = session(&server);
    let r = a.answer(&task_call(1, 60_000));
    let task = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    // 128 random bits, base64url: never a clock or a counter.
    assert_eq!(task.len(), 22, "{task}");
    assert_eq!(a.running(), 1);
    let r = b.answer(&on_task(2, "tasks/get", &task));
    assert_eq!(r["result"]["status"], "working", "{r}");
    let lines = b.send(&on_task(3, "tasks/cancel", &task));
    let answer = lines
        .iter()
        .find(|l| l["id"] == 3)
        .expect("the cancel's answer");
    assert_eq!(answer["result"]["status"], "cancelled", "{lines:?}");
    // The work ran on the other connection: it stops there, and writes nothing.
    assert!(a.settle().await.is_empty());
    assert_eq!(a.running(), 0, "the cancel stopped the work where it ran");
    let r = a.answer(&on_task(4, "tasks/get", &task));
    assert_eq!(r["result"]["status"], "cancelled", "{r}");
    // A second cancel, on either connection, changes nothing and is no error.
    let r = a.answer(&on_task(5, "tasks/cancel", &task));
    assert_eq!(r["result"]["status"], "cancelled", "{r}");
}

#[tokio::test(start_paused = true)]
async fn a_tasks_result_waiting_on_one_connection_is_answered_when_another_ends_the_task() {
    let server = demo::server();
    let mut a = session(&server);
    let mut b = session(&server);
    let r = a.answer(&task_call(1, 100));
    let task = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    b.job(&on_task(2, "tasks/result", &task));
    // The work ends on the first connection: its session hears the status.
    let lines = a.settle().await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["method"], "notifications/tasks/status");
    // The second connection's tasks/result is answered with the tool's result.
    let r = b.finish().await;
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "slept 100 ms", "{r}");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task.as_str()
    );
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_closes_fails_the_tasks_whose_work_it_ran() {
    let server = demo::server();
    let mut a = session(&server);
    let mut b = session(&server);
    let r = a.answer(&task_call(1, 60_000));
    let task = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let mut out = bytes::BytesMut::new();
    a.conn.handle_eof(&mut out);
    assert!(a.settle().await.is_empty());
    // The store outlives the connection: the task is not left `working` with nothing to end it.
    let r = b.answer(&on_task(2, "tasks/get", &task));
    assert_eq!(r["result"]["status"], "failed", "{r}");
}

/// What the test store does with each operation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    /// Answers as the memory store does.
    Serve,
    /// Never answers.
    Hang,
    /// Fails at once.
    Fail(String),
}

/// A store that delays or fails on command, over the memory store.
#[derive(Clone)]
struct Faulty {
    inner: MemoryTaskStore,
    mode: Arc<Mutex<Mode>>,
}

impl Faulty {
    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    fn apply<T: Send + 'static>(&self, f: StoreFuture<T>) -> StoreFuture<T> {
        match self.mode.lock().unwrap().clone() {
            Mode::Serve => f,
            Mode::Hang => Box::pin(std::future::pending()),
            Mode::Fail(reason) => {
                Box::pin(std::future::ready(Err(StoreError::Unavailable(reason))))
            }
        }
    }
}

impl TaskStore for Faulty {
    fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> StoreFuture<Task> {
        self.apply(self.inner.create(now_ms, ttl_ms))
    }
    fn get(&self, id: &str, now_ms: u64) -> StoreFuture<Option<Task>> {
        self.apply(self.inner.get(id, now_ms))
    }
    fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> StoreFuture<Option<(Task, bool)>> {
        self.apply(self.inner.advance(id, now_ms, status, outcome))
    }
    fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> StoreFuture<Option<Task>> {
        self.apply(self.inner.park(id, now_ms, requests, parked))
    }
    fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> StoreFuture<Option<Option<Parked>>> {
        self.apply(self.inner.answer(id, now_ms, responses))
    }
    fn list(&self, now_ms: u64, cursor: usize) -> StoreFuture<(Vec<Task>, Option<usize>)> {
        self.apply(self.inner.list(now_ms, cursor))
    }
    fn expire(&self, now_ms: u64) -> StoreFuture<usize> {
        self.apply(self.inner.expire(now_ms))
    }
    fn ended(&self, id: &str) -> StoreFuture<Option<Task>> {
        self.inner.ended(id)
    }
}

fn faulty_server() -> (Arc<janus_server_core::Server>, Faulty) {
    let faulty = Faulty {
        inner: MemoryTaskStore::new(),
        mode: Arc::new(Mutex::new(Mode::Serve)),
    };
    let store = Deadline::new(faulty.clone(), Duration::from_millis(200));
    let server = demo::builder().task_store(Arc::new(store)).build().unwrap();
    (server, faulty)
}

fn reason(v: &serde_json::Value) -> String {
    v["error"]["data"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_store_that_hangs_gives_its_requests_an_error_in_bounded_time_and_stalls_nothing_else() {
    let (server, store) = faulty_server();
    let mut c = session(&server);
    let r = c.answer(&task_call(1, 50));
    let task = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    assert!(
        !c.settle().await.is_empty(),
        "the task's status notification"
    );
    store.set(Mode::Hang);
    let started = tokio::time::Instant::now();
    // Each request that needs the store waits as a job of its own...
    c.job(&on_task(2, "tasks/get", &task));
    c.job(&task_call(3, 10));
    // ...while the connection serves the others at once.
    let r = c.answer(&legacy(
        4,
        "tools/call",
        r#"{"name":"echo","arguments":{"text":"on"}}"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "on", "{r}");
    let lines = c.settle().await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    for l in &lines {
        assert_eq!(code(l), -32603, "{l}");
        assert!(reason(l).contains("did not answer within 200 ms"), "{l}");
    }
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(200) && waited < Duration::from_secs(1),
        "{waited:?}"
    );
    // The store is back: so are the requests that need it.
    store.set(Mode::Serve);
    let r = c.answer(&on_task(5, "tasks/get", &task));
    assert_eq!(r["result"]["status"], "completed", "{r}");
}

#[tokio::test(start_paused = true)]
async fn a_store_that_fails_gives_a_clear_error_at_once_and_the_connection_goes_on() {
    let (server, store) = faulty_server();
    let mut c = session(&server);
    store.set(Mode::Fail(
        "connection refused (redis at 127.0.0.1:6379)".into(),
    ));
    for (id, line) in [
        (1, task_call(1, 10)),
        (2, on_task(2, "tasks/get", "abc")),
        (3, on_task(3, "tasks/cancel", "abc")),
        (4, on_task(4, "tasks/result", "abc")),
        (5, legacy(5, "tasks/list", "{}")),
    ] {
        let r = c.answer(&line);
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(code(&r), -32603, "{r}");
        assert_eq!(
            reason(&r),
            "connection refused (redis at 127.0.0.1:6379)",
            "{r}"
        );
    }
    assert_eq!(
        c.running(),
        0,
        "no work started for a task the store could not make"
    );
    let r = c.answer(&legacy(
        6,
        "tools/call",
        r#"{"name":"echo","arguments":{"text":"still"}}"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "still", "{r}");
    store.set(Mode::Serve);
    let r = c.answer(&task_call(7, 10));
    assert!(r["result"]["task"]["taskId"].is_string(), "{r}");
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_wait_for_the_store_writes_nothing() {
    let (server, store) = faulty_server();
    let mut c = session(&server);
    store.set(Mode::Hang);
    c.job(&on_task(1, "tasks/get", "abc"));
    c.silent(&cancel("1"));
    assert!(c.settle().await.is_empty());
    assert_eq!(c.conn.foreground(), 0);
}
