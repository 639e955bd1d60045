//! Three `janus serve --http --store redis://...` replicas on one Redis (a real
//! `redis-server`, which the scale lane installs): a task made through one is polled, awaited
//! and cancelled through the others, a list change made on one reaches a `listen` stream held
//! on another, and Redis going away fails only what needs it, for a bounded time.

mod support;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::HttpServe;

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

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

const CAPS: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

/// A 2026-07-28 request's body and its routing headers.
fn modern(id: u64, method: &str, params: &str) -> String {
    let meta = format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{CAPS}}}"#
    );
    let params = if params.is_empty() {
        format!("{{{meta}}}")
    } else {
        format!("{{{params},{meta}}}")
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// Sends a 2026-07-28 POST on a new connection; the stream, to read the answer from.
fn send(addr: &str, method: &str, name: Option<&str>, body: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: {method}\r\ncontent-length: {}\r\n",
        body.len()
    );
    if let Some(n) = name {
        head.push_str(&format!("mcp-name: {n}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    s
}

/// One request, its JSON answer (read from a JSON body or the last event of a stream).
fn ask(addr: &str, method: &str, name: Option<&str>, body: &str) -> Value {
    let mut s = send(addr, method, name, body);
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (_, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    let json = body
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("data:")
                .map(str::trim)
                .or(Some(l.trim()))
        })
        .filter(|l| l.starts_with('{'))
        .next_back()
        .unwrap_or_else(|| panic!("no JSON in {raw}"));
    serde_json::from_str(json).unwrap()
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

fn replicas(redis: &Redis, n: usize) -> Vec<HttpServe> {
    let url = format!("redis://127.0.0.1:{}", redis.port);
    (0..n)
        .map(|i| {
            HttpServe::start(&[
                "--tools",
                "scale",
                "--store",
                &url,
                "--node-id",
                &format!("r{i}"),
            ])
        })
        .collect()
}

#[test]
fn replicas_share_tasks_list_changes_and_survive_redis_going_away() {
    let mut redis = Redis::on(free_port());
    let r = replicas(&redis, 3);
    let addr = |i: usize| r[i].addr.as_str();

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
    assert!(got["result"]["status"].is_string(), "{got}");
    assert_eq!(json!(got["result"]["taskId"]), json!(fresh));
}
