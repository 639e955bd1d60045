//! Resumable streams of legacy HTTP sessions, in process (2025-11-25 `transports.mdx`,
//! "Resumability and Redelivery", SEP-1699): event ids, the priming event, a handler that
//! lets go of its connection, a client that drops its own, and `GET` with `Last-Event-ID`
//! that replays what followed on that stream, and only that stream.
#![cfg(feature = "http")]

mod http_client;

use http_client::{Reply, request};
use janus_server_core::Halt;
use janus_server_core::http::{HttpConfig, McpService, serve_http};
use janus_server_core::serve::Shutdown;
use janus_server_core::tools::{Args, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, Server};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

/// Progress 1, lets go of its connection, progress 2, then answers.
fn closer(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        ctx.progress(1.0, None, None);
        ctx.close_stream();
        tokio::time::sleep(Duration::from_millis(30)).await;
        ctx.progress(2.0, None, None);
        Ok(ToolResult::text("closed, then answered"))
    }))
}

/// Progress 1, waits, progress 2, then answers.
fn slow(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        ctx.progress(1.0, None, None);
        tokio::time::sleep(Duration::from_millis(300)).await;
        ctx.progress(2.0, None, None);
        Ok(ToolResult::text("slow answer"))
    }))
}

async fn start() -> (SocketAddr, Arc<Server>) {
    let spec = |n: &str| ToolSpec::new(n, n, r#"{"type":"object"}"#).unwrap();
    let server = Server::builder("http-resume", "1")
        .async_tool(spec("closer"), closer)
        .async_tool(spec("slow"), slow)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = Arc::clone(&server);
    tokio::spawn(async move {
        let stop = Shutdown::new();
        serve_http(
            McpService::new(s, HttpConfig::default()),
            listener,
            &stop,
            Duration::from_secs(1),
        )
        .await
    });
    (addr, server)
}

async fn session(addr: SocketAddr, version: &str) -> String {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let r = request(addr, "POST", "/mcp", &[], &init).await;
    assert_eq!(r.status, 200);
    r.header("mcp-session-id").unwrap().to_owned()
}

fn call(id: i64, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"progressToken":"p{id}"}}}}}}"#
    )
}

fn heads<'a>(sid: &'a str, version: &'a str) -> [(&'a str, &'a str); 3] {
    [
        ("mcp-session-id", sid),
        ("mcp-protocol-version", version),
        ("accept", "application/json, text/event-stream"),
    ]
}

async fn resume(addr: SocketAddr, sid: &str, last: &str) -> Reply {
    let h = [
        ("mcp-session-id", sid),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "text/event-stream"),
        ("last-event-id", last),
    ];
    request(addr, "GET", "/mcp", &h, "").await
}

fn data(events: &[(Option<String>, String)]) -> Vec<Value> {
    events
        .iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect()
}

#[tokio::test]
async fn a_handler_lets_go_of_its_connection_and_the_client_resumes_to_its_answer() {
    let (addr, _) = start().await;
    let sid = session(addr, "2025-11-25").await;
    let r = request(
        addr,
        "POST",
        "/mcp",
        &heads(&sid, "2025-11-25"),
        &call(1, "closer"),
    )
    .await;
    assert_eq!(r.status, 200);
    let body = String::from_utf8_lossy(&r.body).into_owned();
    // The priming event comes first: an id, a retry, no data.
    let events = r.sse();
    assert_eq!(events[0].1, "", "{body}");
    assert!(body.contains("retry: "), "{body}");
    let ids: Vec<&str> = events.iter().filter_map(|(i, _)| i.as_deref()).collect();
    assert_eq!(ids.len(), events.len(), "every event has an id: {body}");
    // The connection ended before the answer.
    assert!(
        data(&events).iter().all(|m| m.get("result").is_none()),
        "{body}"
    );
    let last = ids.last().unwrap().to_string();
    let again = resume(addr, &sid, &last).await;
    assert_eq!(again.status, 200);
    assert_eq!(
        again.header("content-type"),
        Some("text/event-stream"),
        "{again:?}",
        again = String::from_utf8_lossy(&again.body)
    );
    let got = data(&again.sse());
    let answer = got.iter().find(|m| m["id"] == 1).expect("the answer");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "closed, then answered"
    );
    // What was read before is not sent again; the progress after the let-go is.
    let progress: Vec<&Value> = got
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 1, "{got:?}");
    assert_eq!(progress[0]["params"]["progress"], 2.0);
    // Resuming from the priming event replays the whole stream.
    let first = ids[0].to_string();
    let whole = data(&resume(addr, &sid, &first).await.sse());
    assert_eq!(whole.len(), 3, "{whole:?}");
    assert_eq!(whole[2]["id"], 1);
}

#[tokio::test]
async fn a_client_that_drops_its_connection_gets_what_it_missed_from_the_same_stream() {
    let (addr, _) = start().await;
    let sid = session(addr, "2025-11-25").await;
    // Read until the first progress event, then drop the connection.
    let body = call(5, "slow");
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\nmcp-session-id: {sid}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let mut buf = vec![0u8; 4096];
    let last = loop {
        let n = timeout(Duration::from_secs(5), tcp.read(&mut buf))
            .await
            .expect("events in time")
            .unwrap();
        assert!(n > 0, "{seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        if let Some(at) = seen.find("notifications/progress") {
            let before = &seen[..at];
            let id = before.rfind("id: ").map(|i| &before[i + 4..]).unwrap();
            break id.lines().next().unwrap().to_owned();
        }
    };
    drop(tcp);
    // Another POST's stream in between: its events are not this stream's.
    let other = request(
        addr,
        "POST",
        "/mcp",
        &heads(&sid, "2025-11-25"),
        &call(6, "closer"),
    )
    .await;
    assert_eq!(other.status, 200);
    let got = data(&resume(addr, &sid, &last).await.sse());
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0]["params"]["progress"], 2.0);
    assert_eq!(got[0]["params"]["progressToken"], "p5");
    assert_eq!(got[1]["id"], 5);
    assert_eq!(got[1]["result"]["content"][0]["text"], "slow answer");
}

#[tokio::test]
async fn the_sessions_get_stream_resumes_too() {
    let (addr, server) = start().await;
    let sid = session(addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "text/event-stream"),
    ];
    let text = format!(
        "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n{}\r\n",
        h.iter()
            .map(|(n, v)| format!("{n}: {v}\r\n"))
            .collect::<String>()
    );
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(text.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let mut buf = vec![0u8; 4096];
    while !seen.contains("retry: ") {
        let n = timeout(Duration::from_secs(5), tcp.read(&mut buf))
            .await
            .expect("the priming event")
            .unwrap();
        assert!(n > 0);
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let priming = seen[seen.find("id: ").unwrap() + 4..]
        .lines()
        .next()
        .unwrap()
        .to_owned();
    drop(tcp);
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A list change while nobody reads: kept for the resumption.
    let spec = ToolSpec::new("new", "new", r#"{"type":"object"}"#).unwrap();
    server
        .add_tool(
            spec,
            |_: &Ctx<'_>, _: Args<'_>, o: &mut janus_server_core::tools::Output<'_>| {
                o.text("x");
                Ok(())
            },
        )
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The stream is open again (not read): a resumption takes it over, and gets the change.
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let text = format!(
        "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n{}last-event-id: {priming}\r\n\r\n",
        h.iter()
            .map(|(n, v)| format!("{n}: {v}\r\n"))
            .collect::<String>()
    );
    tcp.write_all(text.as_bytes()).await.unwrap();
    let mut seen = String::new();
    while !seen.contains("list_changed") {
        let n = timeout(Duration::from_secs(5), tcp.read(&mut buf))
            .await
            .expect("the change, replayed")
            .unwrap();
        assert!(n > 0, "{seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(seen.contains("notifications/tools/list_changed"), "{seen}");
}

#[tokio::test]
async fn a_bad_last_event_id_is_refused_and_older_sessions_get_ids_without_priming() {
    let (addr, _) = start().await;
    let sid = session(addr, "2025-11-25").await;
    for bad in ["nope", "99-1", "1-999", "1-x"] {
        let r = resume(addr, &sid, bad).await;
        assert_eq!(r.status, 400, "{bad}: {}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.json()["error"]["code"], -32600);
    }
    // A session of 2025-06-18: event ids, but no priming event (its clients may not know
    // one).
    let sid = session(addr, "2025-06-18").await;
    let r = request(
        addr,
        "POST",
        "/mcp",
        &heads(&sid, "2025-06-18"),
        &call(1, "slow"),
    )
    .await;
    let events = r.sse();
    assert!(
        events.iter().all(|(id, d)| id.is_some() && !d.is_empty()),
        "{events:?}"
    );
    assert_eq!(data(&events).last().unwrap()["id"], 1);
}
