//! Streamable HTTP (feature `http`), in process: every rule of `decisions.md`'s HTTP table that
//! the modern endpoint serves, through a plain HTTP/1.1 client on loopback.
#![cfg(feature = "http")]

mod http_client;

use http_client::{call, request};
use janus_server_core::Halt;
use janus_server_core::http::{HttpConfig, McpService, serve_http};
use janus_server_core::serve::Shutdown;
use janus_server_core::tools::{Args, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, Server, demo};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::timeout;

const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

async fn start(server: Arc<Server>, config: HttpConfig) -> (SocketAddr, Shutdown) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = Shutdown::new();
    let s = shutdown.clone();
    tokio::spawn(async move {
        serve_http(
            McpService::new(server, config),
            listener,
            &s,
            Duration::from_secs(2),
        )
        .await
    });
    (addr, shutdown)
}

#[tokio::test]
async fn a_ready_answer_is_json_and_a_notification_first_makes_an_sse_stream() {
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    let r = call(addr, 1, "echo", r#"{"text":"hi"}"#, "").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "hi");
    // Asynchronous work that sends nothing first: still JSON.
    let r = call(addr, 2, "sleep", r#"{"ms":20}"#, "").await;
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 20 ms");
    // Progress first: an SSE stream with the notifications, then the answer.
    let r = call(addr, 3, "sleep", r#"{"ms":250}"#, r#","progressToken":"p""#).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    let events = r.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[1]["params"]["progress"], 200);
    assert_eq!(events[2]["id"], 3);
    assert_eq!(events[2]["result"]["content"][0]["text"], "slept 250 ms");
}

#[tokio::test]
async fn methods_paths_notifications_and_bad_bodies_get_their_status() {
    let (addr, _stop) = start(
        demo::server(),
        HttpConfig {
            max_body: 1024,
            ..HttpConfig::default()
        },
    )
    .await;
    for m in ["GET", "DELETE"] {
        let r = request(addr, m, "/mcp", &[], "").await;
        assert_eq!(r.status, 405, "{m}");
        assert_eq!(r.header("allow"), Some("POST"));
        // A session id that names no session: 404, as for every legacy request.
        let r = request(addr, m, "/mcp", &[("mcp-session-id", "x")], "").await;
        assert_eq!(r.status, 404, "{m}");
    }
    assert_eq!(request(addr, "POST", "/other", &[], "{}").await.status, 404);
    let r = request(
        addr,
        "POST",
        "/mcp",
        &[],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    for (body, code) in [
        ("{", -32700),
        ("\u{7f}not json", -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, -32602),
    ] {
        let r = request(addr, "POST", "/mcp", &[], body).await;
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(r.json()["error"]["code"], code, "{body}");
    }
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}},{ENV}}}}}"#,
        "x".repeat(2000)
    );
    let r = request(addr, "POST", "/mcp", &[], &big).await;
    assert_eq!(r.status, 413);
    // And the endpoint still serves.
    assert_eq!(
        call(addr, 9, "echo", r#"{"text":"ok"}"#, "").await.status,
        200
    );
}

#[tokio::test]
async fn routing_headers_must_match_the_body() {
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}},{ENV}}}}}"#
    );
    let cases: [&[(&str, &str)]; 6] = [
        &[("mcp-method", "tools/call"), ("mcp-name", "echo")],
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ],
        &[("mcp-protocol-version", "2026-07-28"), ("mcp-name", "echo")],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
            ("mcp-name", "echo"),
        ],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add"),
        ],
    ];
    for h in cases {
        let r = request(addr, "POST", "/mcp", h, &body).await;
        assert_eq!(r.status, 400, "{h:?}");
        assert_eq!(r.json()["error"]["code"], -32020, "{h:?}");
        assert_eq!(r.json()["id"], 1);
    }
    // A duplicated routing header.
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    assert_eq!(
        request(addr, "POST", "/mcp", &h, &body).await.json()["error"]["code"],
        -32020
    );
    // Unsupported version (header and body agree): 400 with -32022; unknown method: 404.
    let old = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let r = request(
        addr,
        "POST",
        "/mcp",
        &[
            ("mcp-protocol-version", "2099-01-01"),
            ("mcp-method", "tools/list"),
        ],
        old,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].as_i64()),
        (400, Some(-32022))
    );
    let unknown = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"no/such","params":{{{ENV}}}}}"#);
    let r = request(
        addr,
        "POST",
        "/mcp",
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "no/such"),
        ],
        &unknown,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
}

#[tokio::test]
async fn origin_and_host_are_checked() {
    let config = HttpConfig {
        allow_origins: vec!["https://app.example".into()],
        ..HttpConfig::default()
    };
    let (addr, _stop) = start(demo::server(), config).await;
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{ENV}}}}}"#);
    let h = |origin| {
        [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
            ("origin", origin),
        ]
    };
    assert_eq!(
        request(addr, "POST", "/mcp", &h("https://evil.example"), &body)
            .await
            .status,
        403
    );
    assert_eq!(
        request(addr, "POST", "/mcp", &h("http://localhost:3000"), &body)
            .await
            .status,
        200
    );
    assert_eq!(
        request(addr, "POST", "/mcp", &h("https://app.example"), &body)
            .await
            .status,
        200
    );
    // DNS rebinding: a loopback server answers loopback host names only.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let text = format!(
        "POST /mcp HTTP/1.1\r\nhost: evil.example\r\nconnection: close\r\ncontent-length: {}\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\n\r\n{body}",
        body.len()
    );
    s.write_all(text.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    assert!(
        raw.starts_with(b"HTTP/1.1 403"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
}

#[tokio::test]
async fn a_client_that_closes_its_stream_cancels_the_request() {
    static DROPPED: AtomicBool = AtomicBool::new(false);
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            DROPPED.store(true, Ordering::SeqCst);
        }
    }
    fn forever(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        let ctx = ctx.to_owned();
        Ok(Box::pin(async move {
            let _flag = Flag;
            ctx.progress(1.0, None, Some("started"));
            tokio::time::sleep(Duration::from_secs(600)).await;
            Ok(ToolResult::text("never"))
        }))
    }
    let server = demo::builder()
        .async_tool(
            ToolSpec::new("forever", "never ends", r#"{"type":"object"}"#).unwrap(),
            forever,
        )
        .build()
        .unwrap();
    let (addr, _stop) = start(server, HttpConfig::default()).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forever","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}}}"#;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let text = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: {}\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: forever\r\n\r\n{body}",
        body.len()
    );
    s.write_all(text.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = timeout(Duration::from_secs(5), s.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("text/event-stream"));
    assert!(!DROPPED.load(Ordering::SeqCst));
    drop(s);
    timeout(Duration::from_secs(5), async {
        while !DROPPED.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the work is dropped once the client closes its stream");
}

#[tokio::test]
async fn a_task_cancelled_through_another_post_stops_its_work() {
    static DROPPED: AtomicBool = AtomicBool::new(false);
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            DROPPED.store(true, Ordering::SeqCst);
        }
    }
    fn forever(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        Ok(Box::pin(async move {
            let _flag = Flag;
            tokio::time::sleep(Duration::from_secs(600)).await;
            Ok(ToolResult::text("never"))
        }))
    }
    let spec = ToolSpec::new("forever", "never ends", r#"{"type":"object"}"#)
        .unwrap()
        .task_support(janus_server_core::tools::TaskSupport::Optional);
    let server = demo::builder().async_tool(spec, forever).build().unwrap();
    let (addr, _stop) = start(server, HttpConfig::default()).await;
    let env = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
    let post = |id: u64, method: &'static str, name: String, params: String| async move {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params},{env}}}}}"#
        );
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
            ("mcp-name", name.as_str()),
        ];
        request(addr, "POST", "/mcp", &h, &body).await
    };
    let r = post(
        1,
        "tools/call",
        "forever".into(),
        r#""name":"forever""#.into(),
    )
    .await;
    assert_eq!(
        r.json()["result"]["resultType"],
        "task",
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    let task = r.json()["result"]["taskId"].as_str().unwrap().to_owned();
    // Each POST is a request of its own: the work runs apart from any of them.
    let r = post(
        2,
        "tasks/get",
        task.clone(),
        format!(r#""taskId":"{task}""#),
    )
    .await;
    assert_eq!(
        r.json()["result"]["status"],
        "working",
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    assert!(!DROPPED.load(Ordering::SeqCst));
    let r = post(
        3,
        "tasks/cancel",
        task.clone(),
        format!(r#""taskId":"{task}""#),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    timeout(Duration::from_secs(5), async {
        while !DROPPED.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the cancel through another POST stops the task's work");
    let r = post(
        4,
        "tasks/get",
        task.clone(),
        format!(r#""taskId":"{task}""#),
    )
    .await;
    assert_eq!(r.json()["result"]["status"], "cancelled");
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test]
async fn initialize_mints_a_legacy_session_that_later_requests_name() {
    let config = HttpConfig {
        node_id: Some("node7".into()),
        ..HttpConfig::default()
    };
    let (addr, _stop) = start(demo::server(), config).await;
    let r = request(addr, "POST", "/mcp", &[], INIT).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-03-26");
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let (node, bits) = sid.split_once('.').unwrap();
    assert_eq!(node, "node7");
    assert!(bits.len() >= 22, "at least 128 random bits: {sid}");
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    // Without the session: 400; with an unknown one: 404.
    assert_eq!(request(addr, "POST", "/mcp", &[], list).await.status, 400);
    assert_eq!(
        request(
            addr,
            "POST",
            "/mcp",
            &[("mcp-session-id", "node7.nope")],
            list
        )
        .await
        .status,
        404
    );
    let s = [("mcp-session-id", sid.as_str())];
    let r = request(addr, "POST", "/mcp", &s, list).await;
    assert_eq!(r.status, 200);
    assert!(r.json()["result"]["tools"].is_array());
    // The negotiated revision's version header: garbage is 400, absent means 2025-03-26.
    let bad = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "1999-01-01"),
    ];
    assert_eq!(request(addr, "POST", "/mcp", &bad, list).await.status, 400);
    // A batch on a 2025-03-26 session, a notification and a client's response: 200 / 202 / 202.
    let batch = r#"[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}]"#;
    let r = request(addr, "POST", "/mcp", &s, batch).await;
    assert_eq!(r.json().as_array().map(Vec::len), Some(2), "{}", r.json());
    // A batch whose answers come later (a job's) is one line, to the POST that sent it.
    let slow = r#"[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":30}}},{"jsonrpc":"2.0","id":5,"method":"ping"}]"#;
    let r = request(addr, "POST", "/mcp", &s, slow).await;
    assert_eq!(r.status, 200);
    let ids: Vec<_> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].clone())
        .collect();
    assert_eq!(ids, [4, 5], "{}", r.json());
    // A body that is not a message the session serves: 400 with its JSON-RPC error, on the
    // POST that sent it; the session goes on.
    for (bad, code) in [("{\"jsonrpc\":", -32700), ("[]", -32600), ("7", -32600)] {
        let r = request(addr, "POST", "/mcp", &s, bad).await;
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.json()["error"]["code"], code, "{bad}");
        assert!(r.json()["id"].is_null(), "{bad}");
    }
    assert_eq!(request(addr, "POST", "/mcp", &s, list).await.status, 200);
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(request(addr, "POST", "/mcp", &s, note).await.status, 202);
    assert_eq!(
        request(
            addr,
            "POST",
            "/mcp",
            &s,
            r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#
        )
        .await
        .status,
        202
    );
    // DELETE ends it.
    assert_eq!(request(addr, "DELETE", "/mcp", &s, "").await.status, 204);
    assert_eq!(request(addr, "POST", "/mcp", &s, list).await.status, 404);
    assert_eq!(request(addr, "DELETE", "/mcp", &s, "").await.status, 404);
}

#[tokio::test]
async fn a_legacy_request_in_flight_is_cancelled_by_a_notification_not_by_its_stream() {
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    let r = request(addr, "POST", "/mcp", &[], INIT).await;
    let sid = r.header("mcp-session-id").unwrap().to_owned();
    let s = [("mcp-session-id", sid.as_str())];
    let long = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600000}}}"#;
    let sid2 = sid.clone();
    let waiting = tokio::spawn(async move {
        request(
            addr,
            "POST",
            "/mcp",
            &[("mcp-session-id", sid2.as_str())],
            long,
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
    assert_eq!(request(addr, "POST", "/mcp", &s, cancel).await.status, 202);
    // The POST that waited ends, with nothing for the cancelled request.
    let r = timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the waiting POST ends")
        .unwrap();
    assert_eq!(r.status, 202, "{}", String::from_utf8_lossy(&r.body));
}

#[tokio::test]
async fn sessions_are_capped_expire_when_idle_and_have_one_get_stream() {
    let config = HttpConfig {
        max_sessions: 2,
        session_idle: Duration::from_millis(300),
        ..HttpConfig::default()
    };
    let (addr, _stop) = start(demo::server(), config).await;
    let a = request(addr, "POST", "/mcp", &[], INIT).await;
    let b = request(addr, "POST", "/mcp", &[], INIT).await;
    assert_eq!((a.status, b.status), (200, 200));
    let full = request(addr, "POST", "/mcp", &[], INIT).await;
    assert_eq!(full.status, 503);
    // One GET stream per session: a second one is 409 while the first is open.
    let sid = a.header("mcp-session-id").unwrap().to_owned();
    let mut first = tokio::net::TcpStream::connect(addr).await.unwrap();
    let get = format!("GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: {sid}\r\n\r\n");
    first.write_all(get.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 1024];
    let n = timeout(Duration::from_secs(5), first.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("text/event-stream"));
    let second = request(addr, "GET", "/mcp", &[("mcp-session-id", sid.as_str())], "").await;
    assert_eq!(second.status, 409);
    drop(first);
    // Idle sessions expire: room again.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(request(addr, "POST", "/mcp", &[], INIT).await.status, 200);
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    assert_eq!(
        request(
            addr,
            "POST",
            "/mcp",
            &[("mcp-session-id", sid.as_str())],
            list
        )
        .await
        .status,
        404
    );
}

#[tokio::test]
async fn mcp_param_headers_must_stand_for_the_marked_arguments() {
    fn region(
        _: &Ctx<'_>,
        args: Args<'_>,
        out: &mut janus_server_core::tools::Output<'_>,
    ) -> Result<(), Halt> {
        out.text(&args.str("region").unwrap_or_default());
        Ok(())
    }
    let schema = r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"free":{"type":"string"}}}"#;
    let server = Server::builder("p", "1")
        .tool(ToolSpec::new("region", "r", schema).unwrap(), region)
        .build()
        .unwrap();
    let (addr, _stop) = start(server, HttpConfig::default()).await;
    let body = |args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"region","arguments":{args},{ENV}}}}}"#
        )
    };
    let base = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "region"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h: Vec<(&str, &str)> = base.to_vec();
        h.extend_from_slice(extra);
        h
    };
    let ok = [
        (
            r#"{"region":"eu-west","n":42,"free":"x"}"#,
            with(&[("mcp-param-region", "eu-west"), ("mcp-param-n", "42")]),
        ),
        // Integers compare as numbers; a Base64 sentinel carries any text.
        (
            r#"{"region":" spaced é ","n":7}"#,
            with(&[
                ("mcp-param-region", "=?base64?IHNwYWNlZCDDqSA=?="),
                ("mcp-param-n", "07"),
            ]),
        ),
        // Neither in the body nor in a header.
        (r#"{"free":"x"}"#, with(&[])),
    ];
    for (args, h) in ok {
        let r = request(addr, "POST", "/mcp", &h, &body(args)).await;
        assert_eq!(
            r.status,
            200,
            "{args}: {}",
            String::from_utf8_lossy(&r.body)
        );
    }
    let bad = [
        (r#"{"region":"eu-west"}"#, with(&[])),
        (
            r#"{"region":"eu-west"}"#,
            with(&[("mcp-param-region", "us-east")]),
        ),
        (r#"{"n":42}"#, with(&[("mcp-param-n", "43")])),
        (r#"{}"#, with(&[("mcp-param-region", "eu-west")])),
        (
            r#"{"region":"x"}"#,
            with(&[("mcp-param-region", "=?base64?not base64?=")]),
        ),
    ];
    for (args, h) in bad {
        let r = request(addr, "POST", "/mcp", &h, &body(args)).await;
        assert_eq!(r.status, 400, "{args} {h:?}");
        assert_eq!(r.json()["error"]["code"], -32020, "{args}");
    }
    // A bad x-mcp-header is refused when the spec is made.
    for schema in [
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}"#,
        r#"{"type":"object","properties":{"a":{"x-mcp-header":"A"},"b":{"x-mcp-header":"a"}}}"#,
    ] {
        let e = ToolSpec::new("t", "t", schema).unwrap_err();
        assert!(e.reason.contains("x-mcp-header"), "{e}");
    }
}

#[tokio::test]
async fn mcp_name_may_carry_its_name_or_uri_in_the_base64_sentinel() {
    use janus_server_core::content::Content;
    use janus_server_core::prompts::{PromptArgs, PromptMessages, PromptSpec};
    use janus_server_core::resources::{Contents, ResourceSpec};
    fn hello(
        _: &Ctx<'_>,
        _: Args<'_>,
        out: &mut janus_server_core::tools::Output<'_>,
    ) -> Result<(), Halt> {
        out.text("hi");
        Ok(())
    }
    fn greet(_: &Ctx<'_>, _: PromptArgs<'_>, out: &mut PromptMessages) -> Result<(), Halt> {
        out.user(Content::text("grüß dich"));
        Ok(())
    }
    fn doc(_: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
        out.text(uri, Some("text/plain"), "Straße");
        Ok(())
    }
    // Names and a URI that are not plain header text: non-ASCII, a leading space.
    let (tool, prompt, uri) = (" héllo", "  grüße", "file:///ünï cödé.txt");
    let server = Server::builder("p", "1")
        .tool(
            ToolSpec::new(tool, "t", r#"{"type":"object"}"#).unwrap(),
            hello,
        )
        .tool(
            ToolSpec::new("plain", "t", r#"{"type":"object"}"#).unwrap(),
            hello,
        )
        .prompt(PromptSpec::new(prompt, "p"), greet)
        .resource(ResourceSpec::new(uri, "doc"), doc)
        .build()
        .unwrap();
    let (addr, _stop) = start(server, HttpConfig::default()).await;
    let b64 = |s: &str| {
        use base64::Engine as _;
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s)
        )
    };
    let post = |method: &'static str, params: String, name: String| async move {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params},{ENV}}}}}"#
        );
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
            ("mcp-name", name.as_str()),
        ];
        request(addr, "POST", "/mcp", &h, &body).await
    };
    let json = |s: &str| serde_json::to_string(s).unwrap();
    let r = post(
        "tools/call",
        format!(r#""name":{},"arguments":{{}}"#, json(tool)),
        b64(tool),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["result"]["content"][0]["text"], "hi");
    let r = post(
        "prompts/get",
        format!(r#""name":{}"#, json(prompt)),
        b64(prompt),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json()["result"]["messages"][0]["content"]["text"],
        "grüß dich"
    );
    let r = post(
        "resources/read",
        format!(r#""uri":{}"#, json(uri)),
        b64(uri),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["result"]["contents"][0]["text"], "Straße");
    // Plain text still compares as itself, and a sentinel may carry plain text too.
    let plain = r#""name":"plain","arguments":{}"#;
    assert_eq!(
        post("tools/call", plain.into(), "plain".into())
            .await
            .status,
        200
    );
    assert_eq!(
        post("tools/call", plain.into(), b64("plain")).await.status,
        200
    );
    // A sentinel of other text, one that is not Base64 or not UTF-8, and the sentinel's text
    // sent as it is, are all refused.
    let named = format!(r#""name":{},"arguments":{{}}"#, json(tool));
    for header in [
        b64("héllo"),
        "=?base64?not base64?=".to_owned(),
        "=?base64?/w==?=".to_owned(),
        "héllo".to_owned(),
    ] {
        let r = post("tools/call", named.clone(), header.clone()).await;
        assert_eq!(r.status, 400, "{header}");
        assert_eq!(r.json()["error"]["code"], -32020, "{header}");
    }
}

#[tokio::test]
async fn envelope_faults_keep_the_id_and_a_modern_initialize_is_a_removed_method() {
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    // The envelope lacks clientCapabilities: 400, -32602, the request's id.
    let body = r#"{"jsonrpc":"2.0","id":"e1","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let r = request(addr, "POST", "/mcp", &h, body).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(r.json()["id"], "e1");
    // initialize from a client that announces 2026-07-28 in its header: 404, -32601.
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "initialize"),
    ];
    let r = request(addr, "POST", "/mcp", &h, INIT).await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
    assert_eq!(r.json()["id"], 0);
    assert!(r.header("mcp-session-id").is_none());
    // Without that header it opens a legacy session.
    let r = request(addr, "POST", "/mcp", &[], INIT).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_some());
}

#[tokio::test]
async fn an_inline_handler_that_sends_progress_first_answers_with_an_sse_stream() {
    fn chatty(
        ctx: &Ctx<'_>,
        _: Args<'_>,
        out: &mut janus_server_core::tools::Output<'_>,
    ) -> Result<(), Halt> {
        ctx.progress(1.0, Some(2.0), Some("half"));
        ctx.progress(2.0, Some(2.0), None);
        out.text("done");
        Ok(())
    }
    let server = Server::builder("p", "1")
        .tool(
            ToolSpec::new("chatty", "c", r#"{"type":"object"}"#).unwrap(),
            chatty,
        )
        .build()
        .unwrap();
    let (addr, _stop) = start(server, HttpConfig::default()).await;
    let r = call(addr, 4, "chatty", "{}", r#","progressToken":7"#).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[0]["params"]["progressToken"], 7);
    assert_eq!(events[1]["params"]["progress"], 2);
    assert_eq!(events[2]["id"], 4);
    assert_eq!(events[2]["result"]["content"][0]["text"], "done");
    // Without a progress token nothing comes first: one JSON answer.
    let r = call(addr, 5, "chatty", "{}", "").await;
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn past_the_cap_of_open_streams_a_waiting_request_gets_503() {
    let (addr, _stop) = start(
        demo::server(),
        HttpConfig {
            max_streams: 1,
            ..HttpConfig::default()
        },
    )
    .await;
    let first = tokio::spawn(async move { call(addr, 1, "sleep", r#"{"ms":400}"#, "").await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = call(addr, 2, "sleep", r#"{"ms":1}"#, "").await;
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Too many")
    );
    // An answer that is ready at once waits for nothing: it is served.
    let r = call(addr, 3, "echo", r#"{"text":"still"}"#, "").await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "still");
    let r = first.await.unwrap();
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 400 ms");
    // The place is given back.
    let r = call(addr, 4, "sleep", r#"{"ms":1}"#, "").await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 1 ms");
}

#[tokio::test]
async fn a_body_that_is_not_utf8_or_streams_past_the_cap_is_refused() {
    let (addr, _stop) = start(
        demo::server(),
        HttpConfig {
            max_body: 1024,
            ..HttpConfig::default()
        },
    )
    .await;
    let body: &[u8] =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}";
    let mut bad = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bad.extend_from_slice(body);
    let r = http_client::raw_request(addr, &bad).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    // A chunked body declares no length: the cap is enforced as it streams in.
    let mut chunked = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        chunked.extend_from_slice(b"200\r\n");
        chunked.extend_from_slice(&[b' '; 0x200]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = http_client::raw_request(addr, &chunked).await;
    assert_eq!(r.status, 413);
    assert!(r.json()["error"]["code"].is_i64());
}

#[tokio::test]
async fn http2_without_tls_is_served_too() {
    use http_body_util::BodyExt as _;
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut send, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .expect("an HTTP/2 connection with prior knowledge");
    tokio::spawn(conn);
    // Several requests at once on the one connection, each its own stream.
    let mut answers = Vec::new();
    for id in 1..=4 {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"h2 {id}"}},{ENV}}}}}"#
        );
        let req = http::Request::post(format!("http://{addr}/mcp"))
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .body(http_body_util::Full::new(bytes::Bytes::from(body)))
            .unwrap();
        answers.push(send.send_request(req));
    }
    for (i, answer) in answers.into_iter().enumerate() {
        let r = timeout(Duration::from_secs(10), answer)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.version(), http::Version::HTTP_2);
        let body = r.into_body().collect().await.unwrap().to_bytes();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["result"]["content"][0]["text"], format!("h2 {}", i + 1));
    }
}

/// The protocol is told from a connection's first bytes, however they are split: an
/// HTTP/1.1 request whose first byte (`P`, as the HTTP/2 preface's) comes alone, and an
/// HTTP/2 preface sent in two writes.
#[tokio::test]
async fn the_protocol_is_told_from_first_bytes_that_come_apart() {
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"split"}},{ENV}}}}}"#
    );
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: echo\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    // Connections that stop inside the preface wait there; the others are served.
    let mut stalled = Vec::new();
    for _ in 0..50 {
        let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
        c.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
        stalled.push(c);
    }
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.set_nodelay(true).unwrap();
    s.write_all(b"P").await.unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
    s.write_all(&request.as_bytes()[1..]).await.unwrap();
    let mut raw = Vec::new();
    timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let raw = String::from_utf8_lossy(&raw);
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains(r#""text":"split""#), "{raw}");

    // HTTP/2: the preface's first half, a pause, then the rest and the client's frames.
    let (near, far) = tokio::io::duplex(1 << 16);
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    tokio::spawn(async move {
        let (mut from_client, mut to_client) = tokio::io::split(far);
        let (mut from_server, mut to_server) = tcp.into_split();
        let mut first = [0u8; 10];
        from_client.read_exact(&mut first).await.unwrap();
        to_server.write_all(&first).await.unwrap();
        tokio::time::sleep(Duration::from_millis(30)).await;
        let up = tokio::io::copy(&mut from_client, &mut to_server);
        let down = tokio::io::copy(&mut from_server, &mut to_client);
        let _ = tokio::join!(up, down);
    });
    let (mut send, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(near),
    )
    .await
    .expect("an HTTP/2 connection with prior knowledge");
    tokio::spawn(conn);
    let req = http::Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap();
    let r = timeout(Duration::from_secs(10), send.send_request(req))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.version(), http::Version::HTTP_2);
    drop(stalled);
}

#[tokio::test]
async fn a_legacy_answer_right_after_its_last_notification_is_never_lost() {
    fn burst(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        let ctx = ctx.to_owned();
        Ok(Box::pin(async move {
            for p in [0.0, 50.0, 100.0] {
                ctx.progress(p, Some(100.0), None);
            }
            // The answer follows the last notification at once: the race the stream must win.
            Ok(ToolResult::text("burst done"))
        }))
    }
    let server = Server::builder("p", "1")
        .async_tool(
            ToolSpec::new("burst", "b", r#"{"type":"object"}"#).unwrap(),
            burst,
        )
        .build()
        .unwrap();
    let (addr, _stop) = start(server, HttpConfig::default()).await;
    let r = request(addr, "POST", "/mcp", &[], INIT).await;
    let sid = r.header("mcp-session-id").unwrap().to_owned();
    let s = [("mcp-session-id", sid.as_str())];
    // The session's GET stream is open too, as SDK clients keep it.
    let mut get = tokio::net::TcpStream::connect(addr).await.unwrap();
    get.write_all(
        format!("GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: {sid}\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    for id in 1..=30 {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"burst","arguments":{{}},"_meta":{{"progressToken":"t"}}}}}}"#
        );
        let r = request(addr, "POST", "/mcp", &s, &body).await;
        assert_eq!(r.status, 200);
        let events = r.events();
        let last = events.last().expect("events");
        assert_eq!(last["id"], id, "round {id}: {events:?}");
        assert_eq!(last["result"]["content"][0]["text"], "burst done");
    }
    drop(get);
}

#[tokio::test]
async fn the_accept_header_decides_what_an_answer_may_be() {
    let (addr, _stop) = start(demo::server(), HttpConfig::default()).await;
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":250},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;
    let post = |accept: &'static str| async move {
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "sleep"),
            ("accept", accept),
        ];
        request(addr, "POST", "/mcp", &h, body).await
    };
    // Both: progress first makes a stream (as with no Accept at all).
    let r = post("application/json, text/event-stream").await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.events().len(), 3);
    // JSON only: the answer alone, as JSON; the progress is dropped.
    let r = post("application/json").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 250 ms");
    // Neither (or refused with q=0): 406.
    for accept in ["text/html", "application/json;q=0, text/event-stream;q=0"] {
        let r = post(accept).await;
        assert_eq!(r.status, 406, "{accept}");
        assert_eq!(r.json()["error"]["code"], -32600, "{accept}");
    }
    // Ranges count: */* and application/* take JSON.
    for accept in ["*/*", "application/*"] {
        let r = post(accept).await;
        assert_eq!(r.status, 200, "{accept}");
    }
    // A listen stream is SSE or nothing.
    let listen = r#"{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "subscriptions/listen"),
        ("accept", "application/json"),
    ];
    let r = request(addr, "POST", "/mcp", &h, listen).await;
    assert_eq!(r.status, 406);
    // A legacy session's GET stream needs SSE.
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = request(addr, "POST", "/mcp", &[], init).await;
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "application/json"),
    ];
    assert_eq!(request(addr, "GET", "/mcp", &h, "").await.status, 406);
}
