//! The client over streamable HTTP against Janus's endpoint in process (loopback), in every
//! lifecycle mode: a legacy session (its id, its revision header, its `DELETE`), 2026-07-28
//! requests with their routing headers and the `x-mcp-header` mirrors, progress on SSE
//! streams, timeouts that cancel, input callbacks in both eras, and statuses that are no
//! MCP answer.

use janus_client::{CallOptions, Callbacks, Client, Content, Error, Mode, Options, Transport};
use janus_server_core::Halt;
use janus_server_core::http::{HttpConfig, McpService, serve_http};
use janus_server_core::serve::Shutdown;
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, InputRequest, InputRequired, Server, demo};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

async fn start(server: Arc<Server>) -> SocketAddr {
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

fn http(addr: SocketAddr) -> Transport {
    Transport::Http {
        url: format!("http://{addr}/mcp"),
        headers: Vec::new(),
    }
}

fn opts(mode: Mode) -> Options {
    Options {
        mode,
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    }
}

#[tokio::test]
async fn every_mode_works_over_http_and_both_eras_agree() {
    let addr = start(demo::server()).await;
    let mut results = Vec::new();
    for (mode, version) in [
        (Mode::Legacy, "2025-11-25"),
        (Mode::Modern, "2026-07-28"),
        (Mode::Auto, "2026-07-28"),
    ] {
        let c = Client::connect(http(addr), opts(mode)).await.unwrap();
        assert_eq!(c.negotiated().version.as_str(), version, "{mode:?}");
        let tools = c.list_tools().await.unwrap();
        assert_eq!(tools.len(), 4, "{mode:?}");
        let r = c
            .call_tool("add", Some(r#"{"a":20,"b":22}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.structured.as_deref(), Some(r#"{"sum":42}"#));
        results.push(r);
        let e = c
            .call_tool("nope", None, CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(e.rejection().map(|r| r.code), Some(-32602), "{mode:?}: {e}");
        // 1 MiB through and back.
        let big = "x".repeat(1 << 20);
        let args = format!(r#"{{"text":"{big}"}}"#);
        let r = c
            .call_tool("echo", Some(&args), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.content, [Content::text(big)]);
        c.close(Duration::from_secs(1)).await;
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[tokio::test]
async fn progress_rides_the_sse_stream_and_a_timeout_cancels() {
    let addr = start(demo::server()).await;
    for mode in [Mode::Legacy, Mode::Modern] {
        let c = Client::connect(http(addr), opts(mode)).await.unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let o = CallOptions {
            progress: Some(tx),
            ..CallOptions::default()
        };
        let r = c
            .call_tool("sleep", Some(r#"{"ms":250}"#), o)
            .await
            .unwrap();
        assert_eq!(r.text(), "slept 250 ms");
        let mut n = 0;
        while rx.try_recv().is_ok() {
            n += 1;
        }
        assert!(n >= 2, "{mode:?}: {n} progress notifications");
        let o = CallOptions {
            timeout: Some(Duration::from_millis(100)),
            ..CallOptions::default()
        };
        let e = c
            .call_tool("sleep", Some(r#"{"ms":5000}"#), o)
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Timeout(_)), "{mode:?}: {e}");
        // The connection goes on.
        let r = c
            .call_tool("echo", Some(r#"{"text":"after"}"#), CallOptions::default())
            .await;
        assert_eq!(r.unwrap().text(), "after");
    }
}

fn asking() -> Arc<Server> {
    let schema = r#"{"type":"object","properties":{"name":{"type":"string"}}}"#;
    let ask = move |ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>| -> Result<(), Halt> {
        let Some(a) = ctx.input("name") else {
            return Err(InputRequired::new()
                .ask("name", InputRequest::elicit("Your name?", schema)?)
                .into());
        };
        let name = a
            .get("content")
            .and_then(|c| c.get("name"))
            .and_then(|n| n.as_string());
        out.text(&format!("Hello, {}", name.unwrap_or_default()));
        Ok(())
    };
    let region = r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}"#;
    let bad = r#"{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}"#;
    Server::builder("asking", "1")
        .tool(
            ToolSpec::new("ask", "asks", r#"{"type":"object"}"#).unwrap(),
            ask,
        )
        .tool(
            ToolSpec::new("where", "a header", region).unwrap(),
            |_: &Ctx<'_>, a: Args<'_>, o: &mut Output<'_>| -> Result<(), Halt> {
                o.text(&format!("in {}", a.str("region").unwrap_or_default()));
                Ok(())
            },
        )
        .tool(
            ToolSpec::new("bad", "an invalid header", bad).unwrap(),
            |_: &Ctx<'_>, _: Args<'_>, o: &mut Output<'_>| -> Result<(), Halt> {
                o.text("bad");
                Ok(())
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn input_callbacks_and_header_mirrors_over_http() {
    let addr = start(asking()).await;
    for mode in [Mode::Legacy, Mode::Modern] {
        let callbacks = Callbacks::new()
            .elicit(|_| async { Ok(r#"{"action":"accept","content":{"name":"Lin"}}"#.to_owned()) });
        let o = Options {
            callbacks,
            ..opts(mode)
        };
        let c = Client::connect(http(addr), o).await.unwrap();
        let r = c
            .call_tool("ask", None, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "Hello, Lin", "{mode:?}");
        let names: Vec<String> = c
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        if mode == Mode::Modern {
            // A tool whose x-mcp-header breaks the rules is left out over HTTP; the others
            // get their headers, which the server checks against the body.
            assert_eq!(names, ["ask", "where"]);
            let r = c
                .call_tool(
                    "where",
                    Some(r#"{"region":"Zürich"}"#),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert_eq!(r.text(), "in Zürich");
        } else {
            assert_eq!(names, ["ask", "where", "bad"]);
        }
    }
}

#[tokio::test]
async fn a_modern_call_lists_the_tools_first_to_mirror_its_headers_and_skips_an_excluded_tool() {
    let addr = start(asking()).await;
    // A call on a new connection, the tools never listed: the server checks the
    // Mcp-Param-Region header against the body, so the call succeeds only with it.
    let c = Client::connect(http(addr), opts(Mode::Modern))
        .await
        .unwrap();
    let r = c
        .call_tool(
            "where",
            Some(r#"{"region":" eu-1"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(r.text(), "in  eu-1");
    // A tool left out of the list for its x-mcp-header is not called.
    let c = Client::connect(http(addr), opts(Mode::Modern))
        .await
        .unwrap();
    let e = c
        .call_tool("bad", Some(r#"{"n":1}"#), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::Protocol(m) if m.contains("x-mcp-header") && m.contains("bad")),
        "{e}"
    );
    // In a handshake session there is no header to mirror: the call is made as it is.
    let c = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap();
    let r = c
        .call_tool("bad", Some(r#"{"n":1}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "bad");
}

#[tokio::test]
async fn a_status_that_is_no_mcp_answer_is_typed_and_auto_falls_back_on_it() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // A server that answers every POST 404 with an HTML page.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = s.read(&mut buf).await;
                let body = "<html>no</html>";
                let r = format!(
                    "HTTP/1.1 404 Not Found\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(r.as_bytes()).await;
            });
        }
    });
    let e = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::Status(404, ref b) if b.contains("html")),
        "{e}"
    );
    assert_eq!(e.exit_code(), 4);
    // Auto: the probe's 404 means legacy; the handshake then fails the same way.
    let e = Client::connect(http(addr), opts(Mode::Auto))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Status(404, _)), "{e}");
    // Nobody listening: a transport failure.
    drop(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap());
    let e = Client::connect(
        Transport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Vec::new(),
        },
        opts(Mode::Legacy),
    )
    .await
    .unwrap_err();
    // Its message goes down the error's chain to the reason.
    assert!(
        matches!(&e, Error::Transport(m) if m.contains("127.0.0.1:9") && m.contains("refused")),
        "{e}"
    );
    // A scheme the client does not speak is the caller's mistake (https is spoken: tls.rs).
    let e = Client::connect(
        Transport::Http {
            url: "ftp://example.com/mcp".into(),
            headers: Vec::new(),
        },
        opts(Mode::Legacy),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e}");
}
