//! A legacy streamable HTTP session given a body it cannot serve: the POST that sent it is
//! answered at once, `400` with the JSON-RPC error (its id when it could be read), and the
//! session goes on.
#![cfg(feature = "http")]

mod http_client;

use http_client::request;
use janus_server_core::demo;
use janus_server_core::http::{HttpConfig, McpService, serve_http};
use janus_server_core::serve::Shutdown;
use std::time::Duration;
use tokio::time::timeout;

#[tokio::test]
async fn a_message_a_session_cannot_serve_is_answered_400_on_its_post() {
    let (addr, sid, stop) = session().await;
    let s = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    // Not JSON-RPC 2.0, but its id can be read: -32600 with that id.
    for (bad, id) in [
        (r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#, 7),
        (r#"{"jsonrpc":"2.0","id":8,"method":5}"#, 8),
        (r#"{"id":9,"method":"ping"}"#, 9),
    ] {
        let r = timeout(
            Duration::from_secs(5),
            request(addr, "POST", "/mcp", &s, bad),
        )
        .await
        .unwrap_or_else(|_| panic!("no answer to {bad}"));
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.json()["error"]["code"], -32600, "{bad}");
        assert_eq!(r.json()["id"], id, "{bad}");
    }
    // A batch, which a 2025-11-25 session does not take: its error, and the POST ends.
    let batch =
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    let r = timeout(
        Duration::from_secs(5),
        request(addr, "POST", "/mcp", &s, batch),
    )
    .await
    .expect("the batch's POST ends");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
    // The session goes on.
    let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let r = request(addr, "POST", "/mcp", &s, ping).await;
    assert_eq!((r.status, r.json()["id"].clone()), (200, 3.into()));
    stop.trigger();
}

/// A session opened on a fresh server; its address, headers and stop.
async fn session() -> (std::net::SocketAddr, String, Shutdown) {
    session_with(HttpConfig::default()).await
}

/// [`session`], the server set by `config`.
async fn session_with(config: HttpConfig) -> (std::net::SocketAddr, String, Shutdown) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Shutdown::new();
    let s = stop.clone();
    tokio::spawn(async move {
        let service = McpService::new(demo::server(), config);
        serve_http(service, listener, &s, Duration::from_secs(2)).await
    });
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = request(addr, "POST", "/mcp", &[], init).await;
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
    (addr, sid, stop)
}

#[tokio::test]
async fn a_delete_answers_the_requests_its_session_still_runs() {
    let (addr, sid, stop) = session().await;
    let s = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5000}}}"#;
    let owned = sid.clone();
    let running = tokio::spawn(async move {
        let sid = owned;
        let s = [
            ("mcp-session-id", sid.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        request(addr, "POST", "/mcp", &s, call).await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(request(addr, "DELETE", "/mcp", &s, "").await.status, 204);
    // The POST ends at once (it waited for ever before), with its request's error.
    let r = timeout(Duration::from_secs(3), running)
        .await
        .expect("the POST of a deleted session ends")
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["id"], 5);
    assert_eq!(r.json()["error"]["code"], -32603);
    assert!(
        r.json()["error"]["data"]["reason"]
            .as_str()
            .is_some_and(|w| w.contains("deleted")),
        "{}",
        r.json()
    );
    stop.trigger();
}

#[tokio::test]
async fn a_request_whose_id_another_post_waits_on_is_refused() {
    let (addr, sid, stop) = session().await;
    let call = |ms: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":{ms}}}}}}}"#
        )
    };
    let first = {
        let (sid, body) = (sid.clone(), call(400));
        tokio::spawn(async move {
            let s = [
                ("mcp-session-id", sid.as_str()),
                ("mcp-protocol-version", "2025-11-25"),
            ];
            request(addr, "POST", "/mcp", &s, &body).await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let s = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = request(addr, "POST", "/mcp", &s, &call(10)).await;
    assert_eq!(r.status, 400, "{}", r.json());
    assert_eq!(r.json()["id"], 42);
    assert_eq!(r.json()["error"]["code"], -32600);
    // The first keeps its answer.
    let r = timeout(Duration::from_secs(3), first)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 400 ms");
    // Once answered, the id may be used again.
    let r = request(addr, "POST", "/mcp", &s, &call(1)).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 1 ms");
    stop.trigger();
}

#[tokio::test]
async fn a_session_busy_longer_than_its_idle_time_does_not_expire() {
    let (addr, sid, stop) = session_with(HttpConfig {
        session_idle: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let s = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    // A call three times as long as the idle time: the session is not idle while it runs.
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":900}}}"#;
    let r = timeout(
        Duration::from_secs(5),
        request(addr, "POST", "/mcp", &s, call),
    )
    .await
    .expect("the call is answered");
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["result"]["content"][0]["text"], "slept 900 ms");
    // Its idle time counts from the end of that work: the next request finds it.
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let r = request(addr, "POST", "/mcp", &s, ping).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    // Idle past the time, it expires.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(request(addr, "POST", "/mcp", &s, ping).await.status, 404);
    stop.trigger();
}
