//! Input from the client over streamable HTTP, in process: a legacy session's server request
//! goes on the stream of the POST it is for, the client's reply is POSTed, and the answer
//! follows on the first stream; a client that never replies gets its answer at the timeout.
#![cfg(feature = "http")]

mod http_client;

use http_client::request;
use janus_server_core::Halt;
use janus_server_core::http::{HttpConfig, McpService, serve_http};
use janus_server_core::serve::Shutdown;
use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, InputRequest, InputRequired, Server};
use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

fn ask_name(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    let name = ctx
        .input("name")
        .and_then(|r| r.get("content"))
        .and_then(|c| c.get("name"))
        .and_then(|n| n.as_string());
    let Some(name) = name else {
        let schema = r#"{"type":"object","properties":{"name":{"type":"string"}}}"#;
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Your name?", schema)?)
            .into());
    };
    ctx.progress(1.0, None, Some("named"));
    out.text(&format!("Hello, {name}"));
    Ok(())
}

/// `ask_name`, asked from inside asynchronous work.
fn ask_later(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(2)).await;
        let name = ctx.input("name").and_then(|r| {
            r.get("content")?
                .get("name")?
                .as_string()
                .map(|s| s.into_owned())
        });
        let Some(name) = name else {
            let schema = r#"{"type":"object","properties":{"name":{"type":"string"}}}"#;
            return Err(InputRequired::new()
                .ask("name", InputRequest::elicit("Your name?", schema)?)
                .into());
        };
        ctx.progress(1.0, None, Some("named"));
        Ok(ToolResult::text(format!("Hello, {name}")))
    }))
}

async fn start() -> SocketAddr {
    let server = Server::builder("http-input", "1")
        .input_timeout(Duration::from_millis(300))
        .tool(
            ToolSpec::new("ask_name", "asks", r#"{"type":"object"}"#).unwrap(),
            ask_name,
        )
        .async_tool(
            ToolSpec::new("ask_later", "asks later", r#"{"type":"object"}"#).unwrap(),
            ask_later,
        )
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let stop = Shutdown::new();
        serve_http(
            McpService::new(server, HttpConfig::default()),
            listener,
            &stop,
            Duration::from_secs(1),
        )
        .await
    });
    addr
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}"#;
const CALL_LATER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_later","arguments":{}}}"#;

/// A POST whose response is read as it streams.
struct Stream {
    tcp: TcpStream,
    seen: String,
}

impl Stream {
    async fn post(addr: SocketAddr, sid: &str, body: &str) -> Self {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\nmcp-session-id: {sid}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        Self {
            tcp,
            seen: String::new(),
        }
    }

    /// The session's `GET` stream.
    async fn get(addr: SocketAddr, sid: &str) -> Self {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: {sid}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n"
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        let mut s = Self {
            tcp,
            seen: String::new(),
        };
        // NB. Open once its priming event is in: what follows goes to it.
        s.primed().await;
        s
    }

    async fn primed(&mut self) {
        let mut buf = vec![0u8; 1024];
        while !self.seen.contains("retry: ") {
            let n = timeout(Duration::from_secs(5), self.tcp.read(&mut buf))
                .await
                .expect("the priming event")
                .unwrap();
            assert!(n > 0, "the stream ended: {}", self.seen);
            self.seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }

    /// Reads until the stream holds an SSE message for which `want` holds; returns it.
    async fn until(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        let mut buf = vec![0u8; 8192];
        loop {
            for line in self.seen.lines() {
                if let Some(data) = line.strip_prefix("data: ")
                    && let Ok(v) = serde_json::from_str::<Value>(data)
                    && want(&v)
                {
                    return v;
                }
            }
            let n = timeout(Duration::from_secs(5), self.tcp.read(&mut buf))
                .await
                .unwrap_or_else(|_| panic!("the stream went quiet: {:?}", self.seen))
                .unwrap();
            assert!(n > 0, "the stream ended: {}", self.seen);
            self.seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }
}

async fn session(addr: SocketAddr) -> String {
    let r = request(addr, "POST", "/mcp", &[], INIT).await;
    assert_eq!(r.status, 200);
    r.header("mcp-session-id").unwrap().to_owned()
}

#[tokio::test]
async fn a_server_request_rides_its_posts_stream_and_the_reply_brings_the_answer() {
    let addr = start().await;
    round_on_a_post_stream(addr, CALL).await;
}

#[tokio::test]
async fn asynchronous_work_that_asks_rides_its_posts_stream_too() {
    let addr = start().await;
    round_on_a_post_stream(addr, CALL_LATER).await;
}

#[tokio::test]
async fn asynchronous_work_that_asks_a_modern_request_answers_input_required() {
    let addr = start().await;
    let call = |more: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"ask_later","arguments":{{}},{more}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}}}}}}"#
        )
    };
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ask_later"),
    ];
    let r = request(addr, "POST", "/mcp", &h, &call("")).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["result"]["resultType"], "input_required", "{v}");
    let more = format!(
        r#""requestState":{},"inputResponses":{{"name":{{"action":"accept","content":{{"name":"Ro"}}}}}},"#,
        v["result"]["requestState"]
    );
    let v = request(addr, "POST", "/mcp", &h, &call(&more)).await.json();
    assert_eq!(v["result"]["content"][0]["text"], "Hello, Ro", "{v}");
}

#[tokio::test]
async fn the_work_a_reply_replays_sends_its_notifications_to_its_requests_stream() {
    for tool in ["ask_later", "ask_name"] {
        replay_notifications(tool).await;
    }
}

async fn replay_notifications(tool: &str) {
    let addr = start().await;
    let sid = session(addr).await;
    let mut get = Stream::get(addr, &sid).await;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"progressToken":"t"}}}}}}"#
    );
    let call = call.as_str();
    let mut post = Stream::post(addr, &sid, call).await;
    let asked = post.until(|v| v["method"] == "elicitation/create").await;
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"accept","content":{{"name":"Di"}}}}}}"#,
        asked["id"]
    );
    let s = [("mcp-session-id", sid.as_str())];
    // A POST of replies is 202 whatever the work it replays writes.
    let r = request(addr, "POST", "/mcp", &s, &reply).await;
    assert_eq!(
        r.status,
        202,
        "{tool}: {}",
        String::from_utf8_lossy(&r.body)
    );
    // The replayed work was started by the reply's POST, which has no stream: its progress
    // goes with its answer, to the call's own stream; nothing to the GET stream.
    let progress = post
        .until(|v| v["method"] == "notifications/progress")
        .await;
    assert_eq!(progress["params"]["progressToken"], "t", "{progress}");
    let answer = post
        .until(|v| v["id"] == 1 && v.get("result").is_some())
        .await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "Hello, Di",
        "{answer}"
    );
    let mut buf = [0u8; 256];
    let quiet = timeout(Duration::from_millis(100), get.tcp.read(&mut buf)).await;
    assert!(quiet.is_err(), "the GET stream stays quiet: {:?}", quiet);
}

/// A legacy session's call whose tool asks: the server request and the answer ride the
/// call's POST stream; the reply POST brings the answer.
async fn round_on_a_post_stream(addr: SocketAddr, body: &str) {
    let sid = session(addr).await;
    let mut call = Stream::post(addr, &sid, body).await;
    let asked = call.until(|v| v["method"] == "elicitation/create").await;
    assert!(
        call.seen.contains("text/event-stream"),
        "a stream: {}",
        call.seen
    );
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"accept","content":{{"name":"Jo"}}}}}}"#,
        asked["id"]
    );
    let s = [("mcp-session-id", sid.as_str())];
    assert_eq!(request(addr, "POST", "/mcp", &s, &reply).await.status, 202);
    let answer = call
        .until(|v| v["id"] == 1 && v.get("result").is_some())
        .await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "Hello, Jo",
        "{answer}"
    );
    // A reply to a request never sent is accepted and changes nothing.
    let stray = r#"{"jsonrpc":"2.0","id":424242,"result":{}}"#;
    assert_eq!(request(addr, "POST", "/mcp", &s, stray).await.status, 202);
}

#[tokio::test]
async fn a_client_that_never_replies_gets_its_answer_at_the_timeout() {
    let addr = start().await;
    let sid = session(addr).await;
    let mut call = Stream::post(addr, &sid, CALL).await;
    call.until(|v| v["method"] == "elicitation/create").await;
    let answer = call
        .until(|v| v["id"] == 1 && v.get("result").is_some())
        .await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("in time")
    );
}
