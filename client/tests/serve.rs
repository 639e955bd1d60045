//! The client against a Janus server in process (`serve_stream` over a byte pipe), in every
//! lifecycle mode: specs and results the same in both eras, the safety classes, pipelined
//! calls, timeouts that cancel on the wire, the caller's cancel, progress, input callbacks in
//! both eras, and a server that goes away.

use janus_client::{
    CallOptions, Callbacks, Cancel, Client, Content, Error, Mode, Options, SafetyClass, Transport,
};
use janus_codec::ProtocolVersion;
use janus_server_core::Halt;
use janus_server_core::serve::{Config, serve_stream};
use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, InputRequest, InputRequired, Server, demo};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

async fn connect_to(server: Arc<Server>, opts: Options) -> Result<Client, Error> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_io);
    tokio::spawn(async move { serve_stream(server, sr, sw, &Config::default()).await });
    let (cr, cw) = tokio::io::split(client_io);
    Client::connect(Transport::Stream(Box::new(cr), Box::new(cw)), opts).await
}

fn opts(mode: Mode) -> Options {
    Options {
        mode,
        ..Options::default()
    }
}

#[tokio::test]
async fn every_mode_settles_and_both_eras_give_the_same_specs_and_results() {
    let legacy = connect_to(demo::server(), opts(Mode::Legacy))
        .await
        .unwrap();
    let modern = connect_to(demo::server(), opts(Mode::Modern))
        .await
        .unwrap();
    let auto = connect_to(demo::server(), opts(Mode::Auto)).await.unwrap();
    assert_eq!(legacy.negotiated().version, ProtocolVersion::V2025_11_25);
    assert!(
        legacy
            .negotiated()
            .server_info
            .as_deref()
            .unwrap()
            .contains("janus")
    );
    assert_eq!(modern.negotiated().version, ProtocolVersion::V2026_07_28);
    assert_eq!(
        modern.negotiated().server_info,
        None,
        "pinned: no negotiation traffic"
    );
    assert_eq!(auto.negotiated().version, ProtocolVersion::V2026_07_28);
    assert!(
        auto.negotiated()
            .server_info
            .as_deref()
            .unwrap()
            .contains("janus")
    );
    let specs = legacy.list_tools().await.unwrap();
    let mut modern_specs = modern.list_tools().await.unwrap();
    // NB. Tasks are an extension in 2026-07-28, which this client did not declare: there a
    // tool says nothing of them. Everything else is the same.
    let sleep =
        |v: &[janus_client::ToolSpec]| v.iter().find(|t| t.name == "sleep").unwrap().task_support;
    assert_eq!(sleep(&specs), janus_client::TaskSupport::Optional);
    assert_eq!(sleep(&modern_specs), janus_client::TaskSupport::Forbidden);
    for t in &mut modern_specs {
        if t.name == "sleep" {
            t.task_support = janus_client::TaskSupport::Optional;
        }
    }
    assert_eq!(specs, modern_specs);
    let echo = specs.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.title.as_deref(), Some("Echo"));
    assert_eq!(echo.annotations.read_only, Some(true));
    // The demo server is not trusted here: its hints do not count.
    assert_eq!(echo.safety, SafetyClass::Destructive);
    for c in [&legacy, &modern] {
        let r = c
            .call_tool("echo", Some(r#"{"text":"hi"}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.content, [Content::text("hi")]);
        let sum = c
            .call_tool("add", Some(r#"{"a":2,"b":3}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(sum.structured.as_deref(), Some(r#"{"sum":5}"#));
        let failed = c
            .call_tool("fail", None, CallOptions::default())
            .await
            .unwrap();
        assert!(failed.is_error);
        // An unknown tool is a protocol rejection, not a transport failure.
        let e = c
            .call_tool("nope", None, CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(e.rejection().map(|r| r.code), Some(-32602), "{e}");
        // Arguments spaced over several lines still make one line on the wire.
        let spaced = c
            .call_tool(
                "echo",
                Some("{\r\n  \"text\":\n    \"hi\"\n}"),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(spaced.text(), "hi");
        // A name that needs escapes is still sent as valid JSON, and named back.
        let e = c
            .call_tool("no\"pe\\\n", None, CallOptions::default())
            .await
            .unwrap_err();
        let r = e.rejection().expect("a rejection");
        assert_eq!(r.code, -32602, "{e}");
        assert!(r.message.contains("no\"pe\\\n"), "{e}");
    }
    let a = legacy.call_tool("add", Some(r#"{"a":1,"b":1}"#), CallOptions::default());
    let b = modern.call_tool("add", Some(r#"{"a":1,"b":1}"#), CallOptions::default());
    assert_eq!(a.await.unwrap(), b.await.unwrap());
    legacy.close(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_child_server_gets_its_input_closed_and_exits() {
    // `cat` answers nothing and exits at the end of its input: close() says goodbye and
    // waits for it; nothing is killed.
    let t = Transport::Stdio(janus_client::Command::new(
        "sh",
        ["-c", "cat >/dev/null; echo bye >&2"],
    ));
    let c = Client::connect(t, opts(Mode::Modern)).await.unwrap();
    let started = std::time::Instant::now();
    c.close(Duration::from_secs(5)).await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "it exited, it was not killed"
    );
}

#[tokio::test]
async fn a_trusted_server_gets_the_classes_its_hints_give() {
    let c = connect_to(
        demo::server(),
        Options {
            trusted: true,
            ..Options::default()
        },
    )
    .await
    .unwrap();
    let specs = c.list_tools().await.unwrap();
    let class = |n: &str| specs.iter().find(|t| t.name == n).unwrap().safety;
    assert_eq!(class("echo"), SafetyClass::ReadOnly);
}

#[tokio::test]
async fn calls_in_flight_together_are_matched_to_their_answers() {
    for mode in [Mode::Legacy, Mode::Modern] {
        let c = Arc::new(connect_to(demo::server(), opts(mode)).await.unwrap());
        let mut set = tokio::task::JoinSet::new();
        for i in 0..200 {
            let c = Arc::clone(&c);
            set.spawn(async move {
                let args = format!(r#"{{"text":"n{i}"}}"#);
                let r = c
                    .call_tool("echo", Some(&args), CallOptions::default())
                    .await
                    .unwrap();
                assert_eq!(r.text(), format!("n{i}"));
            });
        }
        // A slow call among them does not hold the others.
        let slow = {
            let c = Arc::clone(&c);
            tokio::spawn(async move {
                c.call_tool("sleep", Some(r#"{"ms":200}"#), CallOptions::default())
                    .await
                    .unwrap()
                    .text()
            })
        };
        while let Some(r) = set.join_next().await {
            r.unwrap();
        }
        assert_eq!(slow.await.unwrap(), "slept 200 ms");
    }
}

/// A tool that waits until it is cancelled, and says so.
fn waiter(flag: Arc<AtomicBool>) -> Arc<Server> {
    struct Dropped(Arc<AtomicBool>, bool);
    impl Drop for Dropped {
        fn drop(&mut self) {
            if !self.1 {
                self.0.store(true, Ordering::SeqCst);
            }
        }
    }
    let spec = ToolSpec::new("wait", "waits", r#"{"type":"object"}"#).unwrap();
    Server::builder("waiter", "1")
        .async_tool(
            spec,
            move |_: &Ctx<'_>, _: Args<'_>| -> Result<ToolFuture, Halt> {
                let guard = Dropped(Arc::clone(&flag), false);
                Ok(Box::pin(async move {
                    let mut guard = guard;
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    guard.1 = true;
                    Ok(ToolResult::text("done"))
                }))
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_timeout_cancels_the_request_on_the_wire_and_the_caller_can_cancel_too() {
    for mode in [Mode::Legacy, Mode::Modern] {
        let flag = Arc::new(AtomicBool::new(false));
        let c = connect_to(waiter(Arc::clone(&flag)), opts(mode))
            .await
            .unwrap();
        let o = CallOptions {
            timeout: Some(Duration::from_millis(100)),
            ..CallOptions::default()
        };
        let e = c.call_tool("wait", None, o).await.unwrap_err();
        assert!(
            matches!(e, Error::Timeout(d) if d == Duration::from_millis(100)),
            "{e}"
        );
        for _ in 0..50 {
            if flag.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            flag.load(Ordering::SeqCst),
            "{mode:?}: the server's work was cancelled"
        );
        // The caller's cancel.
        let flag2 = Arc::new(AtomicBool::new(false));
        let c = connect_to(waiter(Arc::clone(&flag2)), opts(mode))
            .await
            .unwrap();
        let cancel = Cancel::new();
        let o = CallOptions {
            cancel: Some(cancel.clone()),
            ..CallOptions::default()
        };
        let call = c.call_tool("wait", None, o);
        let fire = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            cancel.fire();
        };
        let (r, ()) = tokio::join!(call, fire);
        assert!(matches!(r, Err(Error::Cancelled)), "{r:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(flag2.load(Ordering::SeqCst));
    }
}

#[tokio::test]
async fn a_short_timeout_fires_while_a_longer_one_waits_on_the_same_connection() {
    for mode in [Mode::Legacy, Mode::Modern] {
        let flag = Arc::new(AtomicBool::new(false));
        let c = connect_to(waiter(Arc::clone(&flag)), opts(mode))
            .await
            .unwrap();
        let with = |ms| CallOptions {
            timeout: Some(Duration::from_millis(ms)),
            ..CallOptions::default()
        };
        let long = c.call_tool("wait", None, with(20_000));
        let short = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let at = std::time::Instant::now();
            let r = c.call_tool("wait", None, with(150)).await;
            (r, at.elapsed())
        };
        // The long call is left waiting: the bound only ends the test.
        let bounded = tokio::time::timeout(Duration::from_secs(10), async {
            tokio::select! {
                _ = long => panic!("{mode:?}: the long call ended first"),
                out = short => out,
            }
        });
        let (r, took) = bounded.await.expect("the short timeout fired");
        assert!(
            matches!(r, Err(Error::Timeout(d)) if d == Duration::from_millis(150)),
            "{mode:?}: {r:?}"
        );
        assert!(took >= Duration::from_millis(150), "{mode:?}: {took:?}");
        // The connection still serves; the long call, dropped, is cancelled on the wire.
        let (a, b, d) = tokio::join!(
            c.call_tool("wait", None, with(100)),
            c.call_tool("wait", None, with(120)),
            c.call_tool("wait", None, with(80)),
        );
        for r in [a, b, d] {
            assert!(matches!(r, Err(Error::Timeout(_))), "{mode:?}: {r:?}");
        }
    }
}

#[tokio::test]
async fn progress_reaches_the_caller() {
    for mode in [Mode::Legacy, Mode::Modern] {
        let c = connect_to(demo::server(), opts(mode)).await.unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let o = CallOptions {
            progress: Some(tx),
            ..CallOptions::default()
        };
        let r = c
            .call_tool("sleep", Some(r#"{"ms":350}"#), o)
            .await
            .unwrap();
        assert_eq!(r.text(), "slept 350 ms");
        let mut seen = Vec::new();
        while let Ok(p) = rx.try_recv() {
            seen.push(p);
        }
        assert!(seen.len() >= 3, "{mode:?}: {seen:?}");
        assert_eq!(seen[0].total, Some(350.0));
        assert!(seen.windows(2).all(|w| w[0].progress < w[1].progress));
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
            .and_then(|n| n.as_string())
            .map(|s| s.into_owned())
            .unwrap_or_default();
        out.text(&format!("Hello, {name}"));
        Ok(())
    };
    let spec = ToolSpec::new("ask", "asks", r#"{"type":"object"}"#).unwrap();
    Server::builder("asking", "1")
        .tool(spec, ask)
        .build()
        .unwrap()
}

#[tokio::test]
async fn one_callback_answers_the_servers_input_in_both_eras() {
    for mode in [Mode::Legacy, Mode::Modern, Mode::Auto] {
        let callbacks = Callbacks::new().elicit(|params: String| async move {
            assert!(params.contains("Your name?"), "{params}");
            Ok(r#"{"action":"accept","content":{"name":"Ada"}}"#.to_owned())
        });
        let o = Options {
            mode,
            callbacks,
            ..Options::default()
        };
        let c = connect_to(asking(), o).await.unwrap();
        let r = c
            .call_tool("ask", None, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "Hello, Ada", "{mode:?}");
    }
    // Without the callback the capability is not declared: the server says so.
    let c = connect_to(asking(), opts(Mode::Modern)).await.unwrap();
    let e = c
        .call_tool("ask", None, CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.rejection().map(|r| r.code), Some(-32021), "{e}");
    let c = connect_to(asking(), opts(Mode::Legacy)).await.unwrap();
    let r = c
        .call_tool("ask", None, CallOptions::default())
        .await
        .unwrap();
    assert!(r.is_error, "{r:?}");
}

/// A fake legacy-only server on a pipe: `server/discover` is unknown to it, `initialize`
/// answers `version`, and every other request `-32601`; it hangs up after `lines` lines.
async fn legacy_only(version: &'static str, lines: usize) -> Transport {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (sr, mut sw) = tokio::io::split(server_io);
    tokio::spawn(async move {
        let mut r = BufReader::new(sr).lines();
        let mut n = 0;
        while let Ok(Some(line)) = r.next_line().await {
            n += 1;
            if n > lines {
                break;
            }
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            let Some(id) = v.get("id") else { continue };
            let answer = if v["method"] == "initialize" {
                serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":version,"capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0"}}})
            } else if v["method"] == "tools/list" && v["params"]["_meta"].is_null() {
                serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}})
            } else {
                serde_json::json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"Method not found"}})
            };
            let mut text = answer.to_string();
            text.push('\n');
            if sw.write_all(text.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let (cr, cw) = tokio::io::split(client_io);
    Transport::Stream(Box::new(cr), Box::new(cw))
}

#[tokio::test]
async fn auto_falls_back_to_the_handshake_and_modern_fails_clearly_against_an_old_server() {
    let c = Client::connect(legacy_only("2025-06-18", 100).await, opts(Mode::Auto))
        .await
        .unwrap();
    assert_eq!(c.negotiated().version, ProtocolVersion::V2025_06_18);
    assert_eq!(c.list_tools().await.unwrap()[0].name, "t");
    // Pinned modern: the first request is refused, never a hang.
    let c = Client::connect(legacy_only("2025-06-18", 100).await, opts(Mode::Modern))
        .await
        .unwrap();
    let e = tokio::time::timeout(Duration::from_secs(5), c.list_tools())
        .await
        .expect("an answer, not a hang")
        .unwrap_err();
    assert_eq!(e.rejection().map(|r| r.code), Some(-32601), "{e}");
    // A revision the client does not speak is an error of the handshake.
    let e = Client::connect(legacy_only("2099-01-01", 100).await, opts(Mode::Legacy))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Protocol(_)), "{e}");
    // A server that goes away: what waits gets a session error.
    let c = Client::connect(legacy_only("2025-11-25", 2).await, opts(Mode::Legacy))
        .await
        .unwrap();
    let e = c.list_tools().await.unwrap_err();
    assert!(matches!(e, Error::Session(_)), "{e}");
}

#[tokio::test]
async fn a_list_whose_cursor_comes_back_fails_at_once_not_after_thousands_of_pages() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let pages = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&pages);
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(server_io);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            let Some(id) = v.get("id").cloned() else {
                continue;
            };
            let result = match v["method"].as_str() {
                Some("initialize") => serde_json::json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "loop", "version": "1"}
                }),
                Some("tools/list") => {
                    counted.fetch_add(1, Ordering::SeqCst);
                    serde_json::json!({
                        "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
                        "nextCursor": if v["params"]["cursor"].is_null() { "a" } else { "b" }
                    })
                }
                _ => serde_json::json!({}),
            };
            let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
            let mut out = answer.to_string();
            out.push('\n');
            if w.write_all(out.as_bytes()).await.is_err() {
                return;
            }
        }
    });
    let (cr, cw) = tokio::io::split(client_io);
    let c = Client::connect(
        Transport::Stream(Box::new(cr), Box::new(cw)),
        opts(Mode::Legacy),
    )
    .await
    .unwrap();
    // NB. Pages "a", then "b" for ever: the second "b" is the loop.
    match c.list_tools().await {
        Err(Error::Protocol(why)) => assert!(why.contains("twice"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(pages.load(Ordering::SeqCst), 3);
}
