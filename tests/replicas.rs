//! Three `janus serve --http --store redis://...` replicas on one Redis (a real
//! `redis-server`, which the scale lane installs): a task made through one is polled, awaited
//! and cancelled through the others, a list change made on one reaches a `listen` stream held
//! on another, and Redis going away fails only what needs it, for a bounded time.

mod support;

use serde_json::{Value, json};
use std::io::Read;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::HttpServe;
use support::web::{self, ask, free_port, send};

/// A Redis server of the test's own, stopped by its pid when dropped.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
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
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self { child, port }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

const CAPS: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

fn modern(id: u64, method: &str, params: &str) -> String {
    web::modern(id, method, params, CAPS)
}

fn call(addr: &str, id: u64, tool: &str, args: &str) -> Value {
    let body = modern(
        id,
        "tools/call",
        &format!(r#""name":"{tool}","arguments":{args}"#),
    );
    ask(addr, "tools/call", Some(tool), &body)
}

fn task_op(addr: &str, id: u64, method: &str, task: &str) -> Value {
    ask(
        addr,
        method,
        Some(task),
        &modern(id, method, &format!(r#""taskId":"{task}""#)),
    )
}

/// `n` replicas on `redis`, each with its metrics address.
fn replicas(redis: &Redis, n: usize) -> Vec<(HttpServe, String)> {
    let url = format!("redis://127.0.0.1:{}", redis.port);
    (0..n)
        .map(|i| {
            let metrics = format!("127.0.0.1:{}", free_port());
            let serve = HttpServe::start(&[
                "--tools",
                "scale",
                "--store",
                &url,
                "--node-id",
                &format!("r{i}"),
                "--metrics",
                &metrics,
            ]);
            (serve, metrics)
        })
        .collect()
}

#[test]
fn replicas_share_tasks_list_changes_and_survive_redis_going_away() {
    let mut redis = Redis::on(free_port());
    let r = replicas(&redis, 3);
    let addr = |i: usize| r[i].0.addr.as_str();
    let ready = |i: usize| web::get(&r[i].1, "/readyz");
    for i in 0..3 {
        assert_eq!(ready(i).0, 200, "replica {i} is ready");
    }

    // A task made through replica 0 is read through 1 and awaited through 2.
    let made = call(addr(0), 1, "sleep", r#"{"ms":400}"#);
    assert_eq!(made["result"]["resultType"], "task", "{made}");
    let task = made["result"]["taskId"].as_str().unwrap().to_owned();
    let seen = task_op(addr(1), 2, "tasks/get", &task);
    assert_eq!(seen["result"]["status"], "working", "{seen}");
    let start = Instant::now();
    let done = loop {
        let got = task_op(addr(2), 3, "tasks/get", &task);
        if got["result"]["status"] != "working" {
            break got;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "never ended");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "slept 400 ms"
    );

    // A long task made through 0 is cancelled through 1; 2 sees it cancelled.
    let long = call(addr(0), 4, "sleep", r#"{"ms":600000}"#);
    let long = long["result"]["taskId"].as_str().unwrap().to_owned();
    let ack = task_op(addr(1), 5, "tasks/cancel", &long);
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let got = task_op(addr(2), 6, "tasks/get", &long);
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert_eq!(
        task_op(addr(2), 7, "tasks/get", "no-such-task")["error"]["code"],
        -32602
    );

    // A listen stream on 2 hears a tool list change made on 0.
    let listen = modern(
        8,
        "subscriptions/listen",
        r#""notifications":{"toolsListChanged":true}"#,
    );
    let mut stream = send(addr(2), "subscriptions/listen", None, &listen);
    std::thread::sleep(Duration::from_millis(300));
    let changed = call(addr(0), 9, "test_trigger_tool_change", "{}");
    assert!(
        changed["result"]["content"][0]["text"].is_string(),
        "{changed}"
    );
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    while !String::from_utf8_lossy(&seen).contains("notifications/tools/list_changed") {
        assert!(
            Instant::now() < deadline,
            "the list change never reached the other replica: {}",
            String::from_utf8_lossy(&seen)
        );
        let mut buf = [0u8; 4096];
        if let Ok(n) = stream.read(&mut buf) {
            seen.extend_from_slice(&buf[..n]);
        }
    }
    drop(stream);

    // Redis goes away: what needs it fails clearly and soon; the rest goes on.
    let port = redis.port;
    redis.stop();
    let started = Instant::now();
    let failed = task_op(addr(1), 10, "tasks/get", &task);
    assert!(started.elapsed() < Duration::from_secs(5), "bounded");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(
        failed["error"]["data"]["reason"]
            .as_str()
            .is_some_and(|r| !r.is_empty()),
        "{failed}"
    );
    let made = call(addr(0), 11, "sleep", r#"{"ms":1}"#);
    assert_eq!(made["error"]["code"], -32603, "{made}");
    let echo = call(addr(1), 12, "echo", r#"{"text":"still here"}"#);
    assert_eq!(echo["result"]["content"][0]["text"], "still here", "{echo}");
    let (status, why) = ready(1);
    assert_eq!(status, 503, "not ready without its store: {why}");
    assert!(why.contains("store"), "{why}");
    let (_, page) = web::get(&r[0].1, "/metrics");
    assert!(
        web::sample(&page, r#"janus_store_errors_total{op="create"}"#) >= 1.0,
        "store failures are counted: {page}"
    );

    // Redis comes back (empty): the replicas recover by themselves.
    let _redis = Redis::on(port);
    let deadline = Instant::now() + Duration::from_secs(20);
    let fresh = loop {
        let made = call(addr(2), 13, "sleep", r#"{"ms":1}"#);
        if made["result"]["taskId"].is_string() {
            break made["result"]["taskId"].as_str().unwrap().to_owned();
        }
        assert!(Instant::now() < deadline, "no recovery: {made}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let got = task_op(addr(0), 14, "tasks/get", &fresh);
    while ready(1).0 != 200 {
        assert!(Instant::now() < deadline, "not ready again: {:?}", ready(1));
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(got["result"]["status"].is_string(), "{got}");
    assert_eq!(json!(got["result"]["taskId"]), json!(fresh));
}
