//! `Connection` in memory: what holds in both eras (`decisions.md`, "Both eras"): bad
//! frames, cancellation, panics, ids.

use bytes::{Bytes, BytesMut};
use janus_server_core::Halt;
use janus_server_core::codec::Frame;
use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, Server, demo};
use serde_json::{Value, json};
use std::sync::Arc;

mod support;
use support::*;

// -------------------------------------------------------------------------------- both eras

/// A fresh, a legacy and a modern connection, with a request each era serves.
fn every_state() -> Vec<(Client, String)> {
    vec![
        (Client::new(), legacy(r#""next""#, "ping", "")),
        (
            Client::legacy("2025-06-18"),
            legacy(r#""next""#, "ping", ""),
        ),
        (Client::modern(), modern(r#""next""#, "tools/list", "")),
    ]
}

fn assert_served(c: &mut Client, next: &str) {
    let r = c.answer(next);
    assert!(r.get("result").is_some(), "the connection goes on: {r}");
}

#[test]
fn lines_that_are_not_json_or_not_utf8_are_parse_errors_and_the_connection_goes_on() {
    let bad: [&[u8]; 8] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"#,
        b"hello",
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\xaf\"}",
        b"\xed\xa0\x80",
    ];
    for (mut c, next) in every_state() {
        let era = c.conn.era();
        for line in bad {
            let out = c.raw(line);
            let r = parse_lines(&out);
            assert_eq!(r.len(), 1, "{r:?}");
            assert_eq!(
                code(&r[0]),
                -32700,
                "{:?}: {}",
                String::from_utf8_lossy(line),
                r[0]
            );
            assert!(r[0]["id"].is_null(), "{}", r[0]);
        }
        assert_eq!(c.conn.era(), era, "a parse error decides no era");
        assert_served(&mut c, &next);
    }
}

#[test]
fn json_that_is_not_json_rpc_is_an_invalid_request_with_the_id_where_readable() {
    let cases: [(&str, Value); 14] = [
        (r#"{"id":1,"method":"ping"}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#, json!("a")),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#,
            json!(4),
        ),
        (r#"{"jsonrpc":"2.0","id":5,"method":7}"#, json!(5)),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}"#,
            json!(6),
        ),
        (r#"{"jsonrpc":"2.0","id":7}"#, json!(7)),
        ("42", Value::Null),
        ("null", Value::Null),
        ("[]", Value::Null),
    ];
    for (mut c, next) in every_state() {
        let era = c.conn.era();
        for (line, id) in &cases {
            let r = c.answer(line);
            assert_eq!(code(&r), -32600, "{line}: {r}");
            assert_eq!(&r["id"], id, "{line}: {r}");
        }
        assert_eq!(c.conn.era(), era, "an invalid message decides no era");
        assert_served(&mut c, &next);
    }
}

#[test]
fn an_oversize_frame_is_an_invalid_request_with_id_null_and_the_connection_goes_on() {
    for (mut c, next) in every_state() {
        let mut out = BytesMut::new();
        c.conn.handle_frame(&Frame::Oversize, &mut out);
        let r = parse_lines(&out);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(code(&r[0]), -32600, "{}", r[0]);
        assert!(r[0]["id"].is_null(), "{}", r[0]);
        // A frame that is a line is handled as that line.
        let mut out = BytesMut::new();
        c.conn
            .handle_frame(&Frame::Line(Bytes::from(next.clone())), &mut out);
        let r = parse_lines(&out);
        assert!(r[0].get("result").is_some(), "{}", r[0]);
    }
}

#[test]
fn nesting_deeper_than_128_is_a_parse_error() {
    // Containers around the innermost value: the message, params, arguments, then arrays.
    let deep = |depth: usize, meta: &str| {
        let n = depth - 3;
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{meta}"name":"echo","arguments":{{"text":"deep","deep":{}{}}}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    let modern_meta = format!(r#""_meta":{ENV},"#);
    for (mut c, meta) in [
        (Client::legacy("2025-06-18"), String::new()),
        (Client::modern(), modern_meta),
    ] {
        let r = c.answer(&deep(128, &meta));
        assert_eq!(r["result"]["content"][0]["text"], "deep", "{r}");
        let r = c.answer(&deep(129, &meta));
        assert_eq!(code(&r), -32700, "{r}");
        assert!(r["id"].is_null(), "{r}");
        let r = c.answer(&"[".repeat(100_000));
        assert_eq!(code(&r), -32700, "{r}");
        let r = c.answer(&deep(128, &meta));
        assert_eq!(r["result"]["content"][0]["text"], "deep", "{r}");
    }
}

#[tokio::test(start_paused = true)]
async fn cancelled_names_the_request_by_its_id_bytes() {
    for legacy_era in [true, false] {
        let mut c = if legacy_era {
            Client::legacy("2025-06-18")
        } else {
            Client::modern()
        };
        let sleep = |id: &str| {
            if legacy_era {
                legacy(
                    id,
                    "tools/call",
                    r#"{"name":"sleep","arguments":{"ms":200}}"#,
                )
            } else {
                modern(
                    id,
                    "tools/call",
                    r#""name":"sleep","arguments":{"ms":200},"#,
                )
            }
        };
        for id in ["5", r#""5""#, r#""s""#] {
            c.job(&sleep(id));
        }
        // Malformed cancels are ignored.
        c.silent(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        c.silent(&cancel(r#"{"x":1}"#));
        c.silent(&cancel("1.5"));
        c.silent(&cancel("6"));
        assert_eq!(c.running(), 3);
        // `"5"` is not `5`.
        c.silent(&cancel(r#""5""#));
        assert_eq!(c.running(), 2);
        let mut ids: Vec<String> = c
            .settle()
            .await
            .iter()
            .map(|r| r["id"].to_string())
            .collect();
        ids.sort();
        assert_eq!(ids, [r#""s""#, "5"]);
    }
}

#[tokio::test(start_paused = true)]
async fn two_requests_reusing_an_id_in_flight_are_both_answered_and_one_cancel_stops_both() {
    let mut c = Client::modern();
    let sleep = modern(9, "tools/call", r#""name":"sleep","arguments":{"ms":200},"#);
    c.job(&sleep);
    c.job(&sleep);
    assert_eq!(c.running(), 2);
    let both = c.settle().await;
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both.iter().all(|r| r["id"] == 9));
    c.job(&sleep);
    c.job(&sleep);
    c.silent(&cancel("9"));
    assert!(c.settle().await.is_empty());
    // When the first of the two ends, the other stays cancellable.
    c.job(&modern(
        9,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":100},"#,
    ));
    c.job(&sleep);
    let first = c.step().await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0]["result"]["content"][0]["text"], "slept 100 ms");
    assert_eq!(c.running(), 1);
    c.silent(&cancel("9"));
    assert_eq!(c.running(), 0);
    assert!(c.settle().await.is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_asynchronous_tool_is_a_job_named_by_its_request_id() {
    let mut c = Client::modern();
    c.job(&modern(
        7,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":200},"#,
    ));
    // Other requests are served while it runs.
    let r = c.answer(&modern(
        8,
        "tools/call",
        r#""name":"echo","arguments":{"text":"x"},"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "x");
    let started = tokio::time::Instant::now();
    let r = c.finish().await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(200));
    assert_eq!(r["id"], 7);
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "slept 200 ms"}])
    );
    assert_eq!(r["result"]["resultType"], "complete");

    let mut c = Client::legacy("2024-11-05");
    c.job(&legacy(
        r#""é""#,
        "tools/call",
        r#"{"name":"sleep","arguments":{"ms":1}}"#,
    ));
    let r = c.finish().await;
    assert_eq!(r["id"], "é");
    assert!(r["result"].get("resultType").is_none(), "{r}");
}

/// A server whose `boom` tool panics when its argument says so, and `later` does the same
/// inside its future.
fn panicking_server() -> Arc<Server> {
    fn panics(_: &Ctx<'_>, _: Args<'_>, _: &mut Output<'_>) -> Result<(), Halt> {
        panic!("secret internals")
    }
    fn boom(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        out.text("partial output");
        assert!(args.get("boom").is_none(), "secret internals");
        Ok(())
    }
    fn later(_: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, Halt> {
        let boom = args.get("boom").is_some();
        Ok(Box::pin(async move {
            assert!(!boom, "secret internals");
            Ok(ToolResult::text("fine"))
        }))
    }
    fn starts_badly(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        panic!("secret internals")
    }
    let schema = r#"{"type":"object"}"#;
    demo::builder()
        .tool(
            ToolSpec::new("panic", "Always panics.", schema).unwrap(),
            panics,
        )
        .tool(
            ToolSpec::new("boom", "Panics after writing, when asked.", schema).unwrap(),
            boom,
        )
        .async_tool(
            ToolSpec::new("later", "Panics in its future, when asked.", schema).unwrap(),
            later,
        )
        .async_tool(
            ToolSpec::new("starts-badly", "Panics before its future.", schema).unwrap(),
            starts_badly,
        )
        .build()
        .unwrap()
}

fn assert_internal_error(out: &[u8], id: &Value) {
    let text = std::str::from_utf8(out).unwrap();
    assert!(
        !text.contains("secret") && !text.contains("partial"),
        "{text}"
    );
    let r = parse_lines(out);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        r[0],
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "Internal error"}})
    );
}

#[test]
fn a_panicking_tool_is_an_internal_error_without_internals_and_the_connection_goes_on() {
    let mut modern_client = Client::with(panicking_server());
    modern_client.answer(&modern(0, "tools/list", ""));
    let mut legacy_client = Client::with(panicking_server());
    legacy_client.initialize("2025-06-18");
    for (c, meta) in [
        (&mut modern_client, format!(r#","_meta":{ENV}"#)),
        (&mut legacy_client, String::new()),
    ] {
        for (id, call) in [
            (1, r#""name":"panic""#),
            (2, r#""name":"boom","arguments":{"boom":true}"#),
        ] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{call}{meta}}}}}"#
            );
            let out = c.raw(line.as_bytes());
            assert_internal_error(&out, &json!(id));
        }
        // The same tool, not asked to panic, and the others still work.
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"boom","arguments":{{}}{meta}}}}}"#
        );
        assert_eq!(
            c.answer(&line)["result"]["content"][0]["text"],
            "partial output"
        );
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}{meta}}}}}"#
        );
        assert_eq!(c.answer(&line)["result"]["content"][0]["text"], "x");
    }
}

#[tokio::test]
async fn a_tool_future_that_panics_is_an_internal_error() {
    let mut c = Client::with(panicking_server());
    c.job(&modern(
        1,
        "tools/call",
        r#""name":"later","arguments":{"boom":1},"#,
    ));
    let r = c.finish().await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}})
    );
    // An asynchronous handler that panics before its future: the same, at once.
    let out = c.raw(modern(3, "tools/call", r#""name":"starts-badly","#).as_bytes());
    assert_internal_error(&out, &json!(3));
    assert_eq!(c.conn.foreground(), 0);
    // The connection goes on, and the same tool works when it does not panic.
    c.job(&modern(2, "tools/call", r#""name":"later","#));
    let r = c.finish().await;
    assert_eq!(r["result"]["content"][0]["text"], "fine");
}

#[test]
fn ids_are_echoed_byte_for_byte() {
    let mut c = Client::new();
    c.answer(&legacy(0, "ping", ""));
    for id in [
        "1",
        r#""1""#,
        r#""\u00e9""#,
        r#""é""#,
        r#""a\nb\/c""#,
        "9007199254740993",
        "18446744073709551615",
        "-9223372036854775808",
        "0",
        r#""""#,
    ] {
        let out = c.raw(legacy(id, "ping", "").as_bytes());
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n")
        );
        let out = c.raw(legacy(id, "tools/list", "").as_bytes());
        let text = std::str::from_utf8(&out).unwrap();
        assert!(
            text.starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":")),
            "{text}"
        );
    }
}
