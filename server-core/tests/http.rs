//! Streamable HTTP (feature `http`), in process: every rule of `decisions.md`'s HTTP table that
//! the modern endpoint serves, through a plain HTTP/1.1 client on loopback.
#![cfg(feature = "http")]

use janus_server_core::http::{HttpConfig, McpService, serve_http};
use janus_server_core::serve::Shutdown;
use janus_server_core::tools::{Args, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, RpcError, Server, demo};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::timeout;

const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The `data` of each SSE event.
    fn events(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.body)
            .split("\n\n")
            .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }
}

/// Undoes `Transfer-Encoding: chunked`.
fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
}

async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    s.write_all(text.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v == "chunked")
    {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

/// A modern POST with the routing headers that match it.
async fn call(addr: SocketAddr, id: u64, tool: &str, args: &str, meta: &str) -> Reply {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}{meta}}}}}}}"#
    );
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    request(addr, "POST", "/mcp", &h, &body).await
}

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
        let r = request(addr, m, "/mcp", &[("mcp-session-id", "x")], "").await;
        assert_eq!(r.status, 405, "{m}");
        assert_eq!(r.header("allow"), Some("POST"));
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
    fn forever(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, RpcError> {
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
