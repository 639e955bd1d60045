//! The Redis store and bus against a real Redis server (`redis-server` on PATH, or
//! JANUS_REDIS_SERVER): two connections stand for two replicas.

use janus_redis::{Options, Redis};
use janus_server_core::input::InputRequest;
use janus_server_core::json::RpcError;
use janus_server_core::store::{Event, StoreError};
use janus_server_core::tasks::{Outcome, Parked, Status, Stored};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A Redis server of the test's own, stopped by its pid when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Self::on(port)
    }

    fn on(port: u16) -> Self {
        let bin = std::env::var("JANUS_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let child = Command::new(&bin)
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(["--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin} (the scale lane installs it): {e}"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self { child, port }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn options(prefix: &str) -> Options {
    Options {
        prefix: format!("{prefix}:"),
        timeout: Duration::from_millis(500),
        ..Options::default()
    }
}

async fn two(server: &Server, prefix: &str) -> (Redis, Redis) {
    let a = Redis::connect(&server.url(), options(prefix))
        .await
        .unwrap();
    let b = Redis::connect(&server.url(), options(prefix))
        .await
        .unwrap();
    (a, b)
}

/// Now, in ms since the epoch (Redis expires keys by its own clock).
fn now() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_made_on_one_replica_is_read_moved_and_ended_on_another() {
    let now_ms = now();
    let server = Server::start();
    let (a, b) = two(&server, "t1").await;
    let (sa, sb) = (a.task_store(), b.task_store());
    let t = sa.create(now_ms, Some(60_000)).await.unwrap();
    assert_eq!(t.id.len(), 22);
    assert_eq!(t.status, Status::Working);
    let seen = sb
        .get(&t.id, now_ms)
        .await
        .unwrap()
        .expect("the other replica sees it");
    assert_eq!(seen, t);
    assert_eq!(sb.get("nope", now_ms).await.unwrap(), None);

    // Two replicas finish it at once: one wins, the other sees the winner's outcome.
    let result = Outcome::Result(Stored {
        content: r#"{"type":"text","text":"done"}"#.into(),
        structured: Some(janus_server_core::Json::parse(r#"{"n":1}"#).unwrap()),
        is_error: false,
        meta: Some(janus_server_core::Json::parse(r#"{"example.com/trace":"t1"}"#).unwrap()),
    });
    let error = Outcome::Error(
        RpcError::new(-32000, "lost").with_data(janus_server_core::Json::parse("[1]").unwrap()),
    );
    let (ra, rb) = tokio::join!(
        sa.advance(&t.id, now_ms + 5, Status::Completed, Some(result.clone())),
        sb.advance(&t.id, now_ms + 6, Status::Failed, Some(error.clone())),
    );
    let ((ta, ca), (tb, cb)) = (ra.unwrap().unwrap(), rb.unwrap().unwrap());
    assert!(ca ^ cb, "exactly one replica moves the task");
    assert_eq!(ta, tb, "both see the task as the winner left it");
    let winner = if ca { result } else { error };
    assert_eq!(ta.outcome, Some(winner));
    assert!(ta.status.is_terminal());
    // A terminal task never moves again, and a cancel after the end is no change.
    let (after, changed) = sb.cancel(&t.id, now_ms + 9).await.unwrap().unwrap();
    assert!(!changed);
    assert_eq!(after, ta);
    assert_eq!(sa.cancel("nope", now_ms).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_for_the_end_on_one_replica_hears_a_cancel_on_another() {
    let now_ms = now();
    let server = Server::start();
    let (a, b) = two(&server, "t2").await;
    let (sa, sb) = (a.task_store(), b.task_store());
    let t = sa.create(now_ms, None).await.unwrap();
    let ended = tokio::spawn(sa.ended(&t.id));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!ended.is_finished(), "a running task has not ended");
    let started = Instant::now();
    let (_, changed) = sb.cancel(&t.id, now_ms + 1).await.unwrap().unwrap();
    assert!(changed);
    let end = tokio::time::timeout(Duration::from_secs(3), ended)
        .await
        .expect("the end is heard at once, not at the next look")
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(end.status, Status::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(2));
    // An unknown task has no end to wait for.
    assert_eq!(sb.ended("nope").await.unwrap(), None);
    // A wait that starts after the end answers at once.
    assert_eq!(
        sb.ended(&t.id).await.unwrap().map(|t| t.status),
        Some(Status::Cancelled)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_asked_on_one_replica_is_answered_through_two_others() {
    let now_ms = now();
    let server = Server::start();
    let (a, b) = two(&server, "t3").await;
    let (sa, sb) = (a.task_store(), b.task_store());
    let t = sa.create(now_ms, None).await.unwrap();
    let requests = vec![
        (
            "name".to_owned(),
            InputRequest::elicit(
                "Your name?",
                r#"{"type":"object","properties":{"n":{"type":"string"}}}"#,
            )
            .unwrap(),
        ),
        ("model".to_owned(), InputRequest::sample_text("Hi", 10)),
        ("roots".to_owned(), InputRequest::list_roots()),
    ];
    let parked = Parked {
        responses: vec![("earlier".into(), r#"{"a":1}"#.into())],
        state: Some("round 2".into()),
        frame: b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}".to_vec(),
    };
    let waiting = sa
        .park(&t.id, now_ms + 1, requests.clone(), parked.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(waiting.status, Status::InputRequired);
    assert_eq!(waiting.input_requests, requests);
    assert_eq!(
        sb.get(&t.id, now_ms).await.unwrap().unwrap().input_requests,
        requests
    );

    // Answers arrive in pieces, through either replica; keys not asked are ignored.
    let r = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    assert_eq!(
        sb.answer(
            &t.id,
            now_ms + 2,
            vec![r("roots", r#"{"roots":[]}"#), r("stray", "{}")]
        )
        .await
        .unwrap(),
        Some(None)
    );
    let left = sa.get(&t.id, now_ms).await.unwrap().unwrap();
    assert_eq!(left.input_requests.len(), 2);
    assert_eq!(left.status, Status::InputRequired);
    let back = sa
        .answer(
            &t.id,
            now_ms + 3,
            vec![
                r("model", r#"{"role":"assistant"}"#),
                r("name", r#"{"action":"accept"}"#),
            ],
        )
        .await
        .unwrap()
        .unwrap()
        .expect("the last answer gives the call back");
    assert_eq!(back.frame, parked.frame);
    assert_eq!(back.state, parked.state);
    assert_eq!(
        back.responses,
        vec![
            r("earlier", r#"{"a":1}"#),
            r("name", r#"{"action":"accept"}"#),
            r("model", r#"{"role":"assistant"}"#),
            r("roots", r#"{"roots":[]}"#),
        ],
        "earlier rounds first, then in the order asked"
    );
    let now = sb.get(&t.id, now_ms).await.unwrap().unwrap();
    assert_eq!(now.status, Status::Working);
    assert!(now.input_requests.is_empty());
    // Once given back, the call is not given twice.
    assert_eq!(
        sb.answer(&t.id, now_ms + 4, vec![r("name", "{}")])
            .await
            .unwrap(),
        Some(None)
    );
    // Parked with no state, the state comes back as none.
    let no_state = Parked {
        state: None,
        responses: Vec::new(),
        ..parked
    };
    sa.park(
        &t.id,
        now_ms + 5,
        vec![("roots".into(), InputRequest::list_roots())],
        no_state,
    )
    .await
    .unwrap();
    let back = sb
        .answer(&t.id, now_ms + 6, vec![r("roots", "{}")])
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(back.state, None);
    assert_eq!(sa.answer("nope", now_ms, Vec::new()).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_listed_in_creation_order_and_the_store_has_a_bound() {
    let server = Server::start();
    // An hour ago: a task that ends has outlived its ttl at once.
    let now_ms = now() - 3_600_000;
    let small = Options {
        max_tasks: 3,
        ..options("t4")
    };
    let a = Redis::connect(&server.url(), small.clone()).await.unwrap();
    let b = Redis::connect(&server.url(), small).await.unwrap();
    let (sa, sb) = (a.task_store(), b.task_store());
    let mut ids = Vec::new();
    for i in 0..3 {
        let store = if i % 2 == 0 { &sa } else { &sb };
        ids.push(store.create(now_ms + i, None).await.unwrap().id);
    }
    assert_eq!(
        sa.create(now_ms + 9, None).await,
        Err(StoreError::Full { max: 3 }),
        "the bound holds across replicas"
    );
    let (page, next) = sb.list(now_ms, 0).await.unwrap();
    assert_eq!(page.iter().map(|t| t.id.clone()).collect::<Vec<_>>(), ids);
    assert_eq!(next, None);
    // A task that ended and outlived its ttl goes, and makes room.
    sa.advance(&ids[0], now_ms, Status::Completed, None)
        .await
        .unwrap();
    assert_eq!(sb.get(&ids[0], now_ms).await.unwrap(), None);
    assert!(sb.create(now_ms + 10, None).await.is_ok());
    assert_eq!(
        sa.expire(now_ms).await.unwrap(),
        0,
        "create dropped the stale id already"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bus_reaches_every_replica_once() {
    let server = Server::start();
    let (a, b) = two(&server, "t5").await;
    let (ba, bb) = (a.bus(), b.bus());
    let heard_a = Arc::new(Mutex::new(Vec::new()));
    let heard_b = Arc::new(Mutex::new(Vec::new()));
    let (ha, hb) = (Arc::clone(&heard_a), Arc::clone(&heard_b));
    ba.subscribe(Arc::new(move |e: &Event| {
        ha.lock().unwrap().push(e.clone())
    }));
    bb.subscribe(Arc::new(move |e: &Event| {
        hb.lock().unwrap().push(e.clone())
    }));
    ba.publish(Event::ToolsChanged);
    bb.publish(Event::ResourceUpdated("file:///a b.txt".into()));
    let deadline = Instant::now() + Duration::from_secs(3);
    while heard_a.lock().unwrap().len() < 2 || heard_b.lock().unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "the bus did not deliver");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    for heard in [&heard_a, &heard_b] {
        let mut h = heard.lock().unwrap().clone();
        h.sort_by_key(|e| format!("{e:?}"));
        assert_eq!(
            h,
            vec![
                Event::ResourceUpdated("file:///a b.txt".into()),
                Event::ToolsChanged
            ],
            "each replica hears each event once, its own included"
        );
    }
    assert!(a.subscribed() && b.subscribed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_going_away_fails_requests_in_bounded_time_and_they_recover() {
    let now_ms = now();
    let mut server = Server::start();
    let port = server.port;
    let (a, b) = two(&server, "t6").await;
    let (sa, sb) = (a.task_store(), b.task_store());
    let t = sa.create(now_ms, None).await.unwrap();
    let ended = tokio::spawn(sa.ended(&t.id));

    let _ = server.child.kill();
    let _ = server.child.wait();
    let started = Instant::now();
    let err = sb.get(&t.id, now_ms).await.expect_err("no Redis, no task");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "bounded: {:?}",
        started.elapsed()
    );
    assert!(a.ping().await.is_err());
    assert!(
        !ended.is_finished(),
        "a wait for an end waits through the gap"
    );

    // Redis comes back (empty: it kept nothing): the connections recover by themselves.
    let server = Server::on(port);
    let deadline = Instant::now() + Duration::from_secs(15);
    let fresh = loop {
        match sb.create(now_ms, None).await {
            Ok(t) => break t,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => panic!("the store did not recover: {e}"),
        }
    };
    assert_eq!(
        sa.get(&fresh.id, now_ms).await.unwrap().unwrap().id,
        fresh.id
    );
    // The lost task is unknown now: the wait ends when it looks again after resubscribing.
    let end = tokio::time::timeout(Duration::from_secs(10), ended)
        .await
        .expect("the wait looked again")
        .unwrap()
        .unwrap();
    assert_eq!(end, None);
    while !(a.subscribed() && b.subscribed()) {
        assert!(
            Instant::now() < deadline,
            "the subscriptions did not come back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(server);
}

#[tokio::test]
async fn connecting_to_nothing_fails_at_once_with_the_reason() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let started = Instant::now();
    let err = Redis::connect(&format!("redis://:secret@127.0.0.1:{port}"), options("x"))
        .await
        .expect_err("nothing listens");
    let text = err.to_string();
    assert!(text.contains("unreachable"), "{text}");
    assert!(!text.contains("secret"), "the password is not told: {text}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(Redis::connect("http://nope", options("x")).await.is_err());
}
