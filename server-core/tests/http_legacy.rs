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
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Shutdown::new();
    let s = stop.clone();
    tokio::spawn(async move {
        let service = McpService::new(demo::server(), HttpConfig::default());
        serve_http(service, listener, &s, Duration::from_secs(2)).await
    });
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = request(addr, "POST", "/mcp", &[], init).await;
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
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
