//! `janus serve --http --metrics ADDR`: `/metrics` counts requests by method, era and
//! outcome and times them, times the store; `/healthz` and `/readyz`; on SIGTERM the replica
//! is not ready first (while it still serves), then drains and exits 0. `janus bridge
//! --metrics ADDR`: the backend connected, and connected again; a bridge that ends ends its
//! HTTP backend's session.

mod support;

use std::time::{Duration, Instant};
use support::HttpServe;
use support::web::{self, ask, free_port, get, post, read_answer, sample};

const TASKS: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

#[test]
fn metrics_health_and_a_drain_that_is_announced_first() {
    let port = free_port();
    let metrics = format!("127.0.0.1:{port}");
    let mut serve = HttpServe::start(&["--metrics", &metrics, "--unready-secs", "2"]);
    let addr = serve.addr.clone();

    for id in 0..3 {
        let body = web::modern(
            id,
            "tools/call",
            r#""name":"echo","arguments":{"text":"m"}"#,
            "{}",
        );
        let r = ask(&addr, "tools/call", Some("echo"), &body);
        assert_eq!(r["result"]["content"][0]["text"], "m", "{r}");
    }
    let r = ask(&addr, "made/up", None, &web::modern(7, "made/up", "", "{}"));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let body = web::modern(
        8,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":1}"#,
        TASKS,
    );
    let r = ask(&addr, "tools/call", Some("sleep"), &body);
    assert_eq!(r["result"]["resultType"], "task", "{r}");

    // A legacy session: its initialize and a request on it.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (status, head, _) = read_answer(post(&addr, &[], init));
    assert_eq!(status, 200);
    let session = web::header(&head, "mcp-session-id")
        .expect("a session id")
        .to_owned();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, _, r) = read_answer(post(&addr, &[("mcp-session-id", &session)], list));
    assert_eq!(status, 200);
    assert!(r["result"]["tools"].is_array(), "{r}");

    let (status, page) = get(&metrics, "/metrics");
    assert_eq!(status, 200);
    let n = |series: &str| sample(&page, series);
    assert_eq!(
        n(r#"mcp_requests_total{method="tools/call",era="2026-07-28",outcome="ok"}"#),
        4.0,
        "{page}"
    );
    assert_eq!(
        n(r#"mcp_requests_total{method="other",era="2026-07-28",outcome="-32601"}"#),
        1.0,
        "an unknown method is `other`: {page}"
    );
    assert_eq!(
        n(r#"mcp_requests_total{method="initialize",era="legacy",outcome="ok"}"#),
        1.0
    );
    assert_eq!(
        n(r#"mcp_requests_total{method="tools/list",era="legacy",outcome="ok"}"#),
        1.0
    );
    assert_eq!(
        n(r#"mcp_request_duration_seconds_count{method="tools/call",era="2026-07-28"}"#),
        4.0
    );
    assert!(n(r#"mcp_request_duration_seconds_sum{method="tools/call",era="2026-07-28"}"#) > 0.0);
    assert_eq!(n("janus_tasks_created_total"), 1.0, "{page}");
    assert!(
        n(r#"janus_store_duration_seconds_count{op="create"}"#) >= 1.0,
        "{page}"
    );
    assert_eq!(n("janus_http_sessions"), 1.0);
    assert_eq!(n("janus_serving"), 1.0);
    assert!(!page.contains("made/up"), "no label from the client");

    assert_eq!(get(&metrics, "/healthz").0, 200);
    assert_eq!(get(&metrics, "/readyz").0, 200);
    assert_eq!(get(&metrics, "/nope").0, 404);

    // SIGTERM: not ready at once, still serving for the grace, then drained and gone.
    let pid = serve.child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let started = Instant::now();
    loop {
        let (status, body) = get(&metrics, "/readyz");
        if status == 503 {
            assert!(body.contains("draining"), "{body}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "still ready after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let body = web::modern(
        9,
        "tools/call",
        r#""name":"echo","arguments":{"text":"late"}"#,
        "{}",
    );
    let r = ask(&addr, "tools/call", Some("echo"), &body);
    assert_eq!(
        r["result"]["content"][0]["text"], "late",
        "served while not ready: {r}"
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = serve.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "never exited");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "the grace was kept"
    );
}

#[test]
fn a_metrics_address_that_cannot_be_bound_is_exit_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = std::process::Command::new(support::janus_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--metrics", &addr])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Polls `/metrics` at `metrics` until `done` holds of the page (15 s at most).
fn until(metrics: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, page) = get(metrics, "/metrics");
        assert_eq!(status, 200);
        if done(&page) {
            return page;
        }
        assert!(Instant::now() < deadline, "never {what}: {page}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn echo(addr: &str, id: u64, text: &str) -> serde_json::Value {
    let args = format!(r#""name":"echo","arguments":{{"text":"{text}"}}"#);
    ask(
        addr,
        "tools/call",
        Some("echo"),
        &web::modern(id, "tools/call", &args, "{}"),
    )
}

#[test]
fn a_bridge_reports_its_backend_and_is_ready_only_while_it_is_connected() {
    let janus = support::janus_bin().to_owned();
    let metrics = format!("127.0.0.1:{}", free_port());
    // A stdio backend that can be made to exit: the bridge restarts it and counts it.
    let bridge = HttpServe::launch(&[
        "bridge",
        "--http",
        "127.0.0.1:0",
        "--metrics",
        &metrics,
        "--mode",
        "legacy",
        "--",
        &janus,
        "serve",
        "--tools",
        "faults",
    ]);
    let addr = bridge.addr.clone();
    assert_eq!(echo(&addr, 1, "a")["result"]["content"][0]["text"], "a");
    assert_eq!(get(&metrics, "/readyz").0, 200);
    let (_, page) = get(&metrics, "/metrics");
    assert_eq!(
        sample(&page, "janus_bridge_backend_connected"),
        1.0,
        "{page}"
    );
    assert_eq!(sample(&page, "janus_bridge_backend_reconnects_total"), 0.0);
    assert_eq!(
        sample(
            &page,
            r#"mcp_requests_total{method="tools/call",era="2026-07-28",outcome="ok"}"#
        ),
        1.0,
        "{page}"
    );
    let body = web::modern(2, "tools/call", r#""name":"exit","arguments":{}"#, "{}");
    let r = ask(&addr, "tools/call", Some("exit"), &body);
    assert_eq!(r["error"]["code"], -32603, "{r}");
    until(&metrics, "restarted", |p| {
        sample(p, "janus_bridge_backend_reconnects_total") == 1.0
            && sample(p, "janus_bridge_backend_connected") == 1.0
    });
    assert_eq!(get(&metrics, "/readyz").0, 200);
    assert_eq!(echo(&addr, 3, "b")["result"]["content"][0]["text"], "b");
    drop(bridge);

    // An HTTP backend that goes away: not ready (and said why) until it is back.
    let port = free_port();
    let backend_addr = format!("127.0.0.1:{port}");
    let mut backend = HttpServe::launch(&["serve", "--http", &backend_addr]);
    let upstream = format!("http://{backend_addr}/mcp");
    let metrics = format!("127.0.0.1:{}", free_port());
    let bridge = HttpServe::launch(&[
        "bridge",
        "--http",
        "127.0.0.1:0",
        "--metrics",
        &metrics,
        "--upstream",
        &upstream,
    ]);
    let addr = bridge.addr.clone();
    assert_eq!(echo(&addr, 1, "c")["result"]["content"][0]["text"], "c");
    assert_eq!(get(&metrics, "/readyz").0, 200);
    backend.child.kill().unwrap();
    backend.child.wait().unwrap();
    let r = echo(&addr, 2, "lost");
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let (status, why) = get(&metrics, "/readyz");
    assert_eq!(status, 503, "{why}");
    assert!(why.contains("backend"), "{why}");
    let page = until(&metrics, "disconnected", |p| {
        sample(p, "janus_bridge_backend_connected") == 0.0
    });
    assert!(page.contains("janus_bridge_backend_connected 0"), "{page}");
    drop(backend);
    let _backend = HttpServe::launch(&["serve", "--http", &backend_addr]);
    until(&metrics, "connected again", |p| {
        sample(p, "janus_bridge_backend_connected") == 1.0
            && sample(p, "janus_bridge_backend_reconnects_total") == 1.0
    });
    assert_eq!(get(&metrics, "/readyz").0, 200);
    assert_eq!(echo(&addr, 3, "d")["result"]["content"][0]["text"], "d");
}

#[test]
fn a_bridge_that_ends_ends_its_http_backend_s_session() {
    // NB. A handshake session at the backend: the bridge's DELETE is what ends it.
    let metrics = format!("127.0.0.1:{}", free_port());
    let backend = HttpServe::start(&["--metrics", &metrics]);
    let upstream = format!("http://{}/mcp", backend.addr);
    let mut bridge = std::process::Command::new(support::janus_bin())
        .args(["bridge", "--mode", "legacy", "--upstream", &upstream])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = bridge.stdin.take().unwrap();
    let mut output = std::io::BufReader::new(bridge.stdout.take().unwrap());
    let call = web::modern(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"hi"}"#,
        "{}",
    );
    std::io::Write::write_all(&mut input, format!("{call}\n").as_bytes()).unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut output, &mut line).unwrap();
    let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
    until(&metrics, "a session", |p| {
        sample(p, "janus_http_sessions") == 1.0
    });
    // The bridge's input ends: it ends, and its backend's session with it.
    drop(input);
    let deadline = Instant::now() + Duration::from_secs(10);
    while bridge.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the bridge did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(bridge.wait().unwrap().success());
    // NB. At once: the bridge waited for its DELETE to be answered.
    let (_, page) = get(&metrics, "/metrics");
    assert_eq!(sample(&page, "janus_http_sessions"), 0.0, "{page}");
}
