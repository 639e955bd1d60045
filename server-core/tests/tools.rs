//! `Connection` in memory: tools through the tool API: pagination, content types, errors, the
//! handler context, progress.

use janus_server_core::Halt;
use janus_server_core::content::{Annotations, Content, Role};
use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Ctx, Json, LogLevel, RpcError, Server, demo};
use serde_json::json;
use std::sync::Arc;

mod support;
use support::*;

// ------------------------------------------------------------------------------ pagination

/// Follows `nextCursor` from the first page; returns the tool names page by page.
fn pages(c: &mut Client, request: impl Fn(i64, Option<&str>) -> String) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 1..10 {
        let r = c.answer(&request(id, cursor.as_deref()));
        let names = r["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("a page: {r}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        pages.push(names);
        match r["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().expect("a string cursor").to_owned()),
            None => return pages,
        }
    }
    panic!("nextCursor never ends: {pages:?}");
}

#[test]
fn tools_list_pages_chain_through_every_tool() {
    let server = || demo::builder().page_size(1).build().unwrap();
    let want: Vec<Vec<String>> = ["echo", "add", "fail", "sleep"]
        .iter()
        .map(|n| vec![(*n).to_owned()])
        .collect();

    let mut c = Client::with(server());
    let got = pages(&mut c, |id, cursor| {
        let member = cursor.map_or(String::new(), |c| format!(r#""cursor":"{c}","#));
        modern(id, "tools/list", &member)
    });
    assert_eq!(got, want);

    let mut c = Client::with(server());
    c.initialize("2025-11-25");
    let got = pages(&mut c, |id, cursor| {
        let params = cursor.map_or(String::new(), |c| format!(r#"{{"cursor":"{c}"}}"#));
        legacy(id, "tools/list", &params)
    });
    assert_eq!(got, want);
}

#[test]
fn an_invalid_cursor_is_invalid_params() {
    let mut c = Client::with(demo::builder().page_size(1).build().unwrap());
    let first = c.answer(&modern(1, "tools/list", ""));
    let next = first["result"]["nextCursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    for cursor in [
        r#""not-a-cursor""#.to_owned(),
        r#""""#.to_owned(),
        "7".to_owned(),
        "{}".to_owned(),
        format!(r#""{next}0""#),
        format!(r#""x{next}""#),
    ] {
        let r = c.answer(&modern(2, "tools/list", &format!(r#""cursor":{cursor},"#)));
        assert_eq!(code(&r), -32602, "{cursor}: {r}");
    }
    // The last cursor of this server, where there are fewer pages, is past the end.
    let mut cursor = next;
    loop {
        let r = c.answer(&modern(
            3,
            "tools/list",
            &format!(r#""cursor":"{cursor}","#),
        ));
        match r["result"].get("nextCursor") {
            Some(n) => cursor = n.as_str().unwrap().to_owned(),
            None => break,
        }
    }
    let mut fewer = Client::with(demo::builder().page_size(2).build().unwrap());
    let r = fewer.answer(&modern(
        4,
        "tools/list",
        &format!(r#""cursor":"{cursor}","#),
    ));
    assert_eq!(code(&r), -32602, "{cursor}: {r}");
    // The same on a legacy connection.
    let mut c = Client::with(demo::builder().page_size(1).build().unwrap());
    c.initialize("2025-06-18");
    let r = c.answer(&legacy(1, "tools/list", r#"{"cursor":"not-a-cursor"}"#));
    assert_eq!(code(&r), -32602, "{r}");
}

// -------------------------------------------------------------------------- the tool API

/// A server with one tool of each kind of content, tools that answer errors, and tools that
/// show their context.
fn api_server() -> Arc<Server> {
    fn every_block(_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        let note = Annotations {
            audience: vec![Role::User, Role::Assistant],
            priority: Some(0.5),
            last_modified: Some("2026-01-02T03:04:05Z".into()),
        };
        out.text("plain")
            .content(&Content::text("annotated").annotated(note))
            .content(&Content::image(b"\x89PNG", "image/png"))
            .content(&Content::audio(b"RIFF", "audio/wav"))
            .content(&Content::resource_link("file:///a.txt", "a.txt"))
            .content(&Content::resource_text(
                "file:///b.txt",
                Some("text/plain"),
                "bee",
            ))
            .content(&Content::resource_blob("file:///c.bin", None, b"\x00\x01"))
            .structured(Json::parse(r#"[1,"two",{"three":3}]"#).unwrap());
        Ok(())
    }
    fn rejects(_: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        out.text("written before the error");
        match args.i64("n") {
            Some(n) if n > 0 => Ok(()),
            _ => Err(RpcError::invalid_params("n must be a positive integer")
                .with_data(Json::parse(r#"{"field":"n"}"#).unwrap())
                .into()),
        }
    }
    fn rejects_later(_: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, Halt> {
        let ok = args.get("ok").is_some();
        if args.get("now").is_some() {
            return Err(RpcError::new(-32001, "refused at once").into());
        }
        Ok(Box::pin(async move {
            if ok {
                Ok(ToolResult::text("fine").with(Content::image(b"x", "image/gif")))
            } else {
                Err(RpcError::new(-32002, "refused later").into())
            }
        }))
    }
    fn whoami(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        out.text(&format!("id={}", ctx.request_id().as_raw()))
            .text(ctx.version().as_str())
            .text(&format!("{:?}", ctx.era()))
            .text(ctx.client_capabilities().map_or("none", |c| c.as_str()))
            .text(ctx.client_info().map_or("none", |c| c.as_str()))
            .text(ctx.progress_token().map_or("none", |t| t.as_str()));
        Ok(())
    }
    fn chatty(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        ctx.progress(1.0, Some(2.0), Some("half"));
        // Progress that does not increase is not sent.
        ctx.progress(1.0, Some(2.0), None);
        ctx.progress(2.0, Some(2.0), None);
        ctx.log(LogLevel::Debug, None, &Json::string("debug"));
        ctx.log(LogLevel::Error, Some("t"), &Json::string("error"));
        out.text("done");
        Ok(())
    }
    fn chatty_later(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        let ctx = ctx.to_owned();
        Ok(Box::pin(async move {
            for i in 1..=3 {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                ctx.progress(f64::from(i), None, None);
            }
            ctx.log(LogLevel::Warning, None, &Json::string("warned"));
            Ok(ToolResult::text("done later"))
        }))
    }
    let schema = r#"{"type":"object"}"#;
    let spec = |name: &str| ToolSpec::new(name, name, schema).unwrap();
    demo::builder()
        .tool(spec("every-block"), every_block)
        .tool(spec("rejects"), rejects)
        .async_tool(spec("rejects-later"), rejects_later)
        .tool(spec("whoami"), whoami)
        .tool(spec("chatty"), chatty)
        .async_tool(spec("chatty-later"), chatty_later)
        .build()
        .unwrap()
}

fn call_in(era: &str, id: i64, tool: &str, args: &str, meta: &str) -> String {
    if era == "modern" {
        let env = &ENV[..ENV.len() - 1];
        let meta = if meta.is_empty() {
            String::new()
        } else {
            format!(",{meta}")
        };
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args},"_meta":{env}{meta}}}}}}}"#
        )
    } else {
        let meta = if meta.is_empty() {
            String::new()
        } else {
            format!(r#","_meta":{{{meta}}}"#)
        };
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}{meta}}}}}"#
        )
    }
}

fn api_client(era: &str) -> Client {
    let mut c = Client::with(api_server());
    if era == "modern" {
        c.answer(&modern(0, "server/discover", ""));
    } else {
        c.initialize(era);
    }
    c
}

#[test]
fn every_content_type_is_written_in_the_revision_of_the_request() {
    for era in [
        "modern",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ] {
        let mut c = api_client(era);
        let r = c.answer(&call_in(era, 1, "every-block", "{}", ""));
        let blocks = r["result"]["content"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"));
        assert_eq!(blocks.len(), 7, "{era}: {r}");
        assert_eq!(blocks[0], json!({"type": "text", "text": "plain"}));
        let mut note = json!({"audience": ["user", "assistant"], "priority": 0.5});
        if era == "modern" || era >= "2025-06-18" {
            note["lastModified"] = json!("2026-01-02T03:04:05Z");
        }
        assert_eq!(
            blocks[1],
            json!({"type": "text", "text": "annotated", "annotations": note}),
            "{era}"
        );
        assert_eq!(
            blocks[2],
            json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
        );
        if era == "2024-11-05" {
            // No audio in 2024-11-05: the model still learns of it.
            assert_eq!(blocks[3]["type"], "text", "{era}");
            assert!(blocks[3]["text"].as_str().unwrap().contains("audio/wav"));
        } else {
            assert_eq!(
                blocks[3],
                json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
            );
        }
        if era == "modern" || era >= "2025-06-18" {
            assert_eq!(
                blocks[4],
                json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"})
            );
            assert_eq!(
                r["result"]["structuredContent"],
                json!([1, "two", {"three": 3}])
            );
        } else {
            // No resource_link nor structuredContent before 2025-06-18.
            assert_eq!(blocks[4]["type"], "text", "{era}");
            assert!(
                blocks[4]["text"]
                    .as_str()
                    .unwrap()
                    .contains("file:///a.txt")
            );
            assert!(r["result"].get("structuredContent").is_none(), "{era}: {r}");
        }
        assert_eq!(
            blocks[5],
            json!({"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "bee"}})
        );
        assert_eq!(
            blocks[6],
            json!({"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAE="}})
        );
        assert_eq!(
            r["result"].get("resultType").is_some(),
            era == "modern",
            "{era}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_handler_may_answer_a_json_rpc_error_inline_at_start_or_later() {
    for era in ["modern", "2025-06-18"] {
        let mut c = api_client(era);
        let r = c.answer(&call_in(era, 1, "rejects", r#"{"n":0}"#, ""));
        assert_eq!(
            r,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "n must be a positive integer", "data": {"field": "n"}}}),
            "what the handler wrote before its error is dropped"
        );
        let r = c.answer(&call_in(era, 2, "rejects", r#"{"n":1}"#, ""));
        assert_eq!(
            r["result"]["content"][0]["text"],
            "written before the error"
        );
        let r = c.answer(&call_in(era, 3, "rejects-later", r#"{"now":1}"#, ""));
        assert_eq!(r["error"]["code"], -32001, "{r}");
        c.job(&call_in(era, 4, "rejects-later", "{}", ""));
        let r = c.finish().await;
        assert_eq!(r["id"], 4);
        assert_eq!(
            r["error"],
            json!({"code": -32002, "message": "refused later"})
        );
        c.job(&call_in(era, 5, "rejects-later", r#"{"ok":1}"#, ""));
        let r = c.finish().await;
        assert_eq!(r["result"]["content"][1]["type"], "image", "{r}");
    }
}

/// The texts of a tool result's blocks.
fn texts_of(r: &serde_json::Value) -> Vec<&str> {
    r["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("a tool result: {r}"))
        .iter()
        .map(|b| b["text"].as_str().unwrap())
        .collect()
}

#[test]
fn the_context_tells_the_request_its_revision_and_its_client() {
    let mut c = api_client("modern");
    let line = r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"me","version":"2"},"progressToken":"p1"}}}"#;
    let r = c.answer(line);
    let texts = texts_of(&r);
    assert_eq!(
        texts,
        [
            r#"id="w""#,
            "2026-07-28",
            "Modern",
            r#"{"sampling":{}}"#,
            r#"{"name":"me","version":"2"}"#,
            r#""p1""#
        ]
    );
    // On a legacy session, the client is the one `initialize` named.
    let mut c = api_client("2025-06-18");
    let r = c.answer(&call_in("2025-06-18", 7, "whoami", "{}", ""));
    let texts = texts_of(&r);
    assert_eq!(
        texts,
        [
            "id=7",
            "2025-06-18",
            "Legacy",
            "{}",
            r#"{"name":"t","version":"1"}"#,
            "none"
        ]
    );
}

#[test]
fn progress_goes_out_before_the_answer_only_with_a_token_and_only_increasing() {
    for era in ["modern", "2025-03-26", "2024-11-05"] {
        let mut c = api_client(era);
        // Without a token: the answer alone.
        let lines = c.send(&call_in(era, 1, "chatty", "{}", ""));
        assert_eq!(lines.len(), 1, "{era}: {lines:?}");
        let lines = c.send(&call_in(era, 2, "chatty", "{}", r#""progressToken":9"#));
        let progress: Vec<&serde_json::Value> = lines
            .iter()
            .filter(|l| l["method"] == "notifications/progress")
            .collect();
        assert_eq!(progress.len(), 2, "{era}: {lines:?}");
        assert_eq!(progress[0]["params"]["progressToken"], 9);
        assert_eq!(progress[0]["params"]["progress"], 1);
        assert_eq!(progress[0]["params"]["total"], 2);
        // `message` exists from 2025-03-26.
        assert_eq!(
            progress[0]["params"].get("message").is_some(),
            era != "2024-11-05",
            "{era}: {}",
            progress[0]
        );
        assert_eq!(progress[1]["params"]["progress"], 2);
        assert_eq!(
            lines.last().unwrap()["id"],
            2,
            "the answer comes last: {lines:?}"
        );
    }
}

#[test]
fn log_records_go_out_only_at_or_above_the_level_a_modern_request_set() {
    let mut c = api_client("modern");
    let lines = c.send(&call_in("modern", 1, "chatty", "{}", ""));
    assert_eq!(lines.len(), 1, "no level, no records: {lines:?}");
    let lines = c.send(&call_in(
        "modern",
        2,
        "chatty",
        "{}",
        r#""io.modelcontextprotocol/logLevel":"warning""#,
    ));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[0],
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "t", "data": "error"}})
    );
    // Legacy sessions get none until logging/setLevel is served.
    let mut c = api_client("2025-06-18");
    let lines = c.send(&call_in(
        "2025-06-18",
        3,
        "chatty",
        "{}",
        r#""io.modelcontextprotocol/logLevel":"debug""#,
    ));
    assert_eq!(lines.len(), 1, "{lines:?}");
}

#[tokio::test(start_paused = true)]
async fn an_asynchronous_tool_reports_progress_while_it_runs_and_nothing_after_a_cancel() {
    let mut c = api_client("modern");
    let line = call_in(
        "modern",
        1,
        "chatty-later",
        "{}",
        r#""progressToken":"t","io.modelcontextprotocol/logLevel":"info""#,
    );
    c.job(&line);
    let lines = c.settle().await;
    let methods: Vec<&str> = lines
        .iter()
        .map(|l| l["method"].as_str().unwrap_or("answer"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "notifications/message",
            "answer"
        ],
        "{lines:?}"
    );
    assert_eq!(lines[2]["params"]["progress"], 3);
    // Cancelled after its first progress: nothing more.
    c.job(&line);
    let first = c.step().await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0]["params"]["progress"], 1);
    c.silent(&cancel("1"));
    assert!(c.settle().await.is_empty());
}

#[test]
fn specs_are_checked_when_they_are_made_and_when_they_are_registered() {
    let e = ToolSpec::new("t", "d", "{").unwrap_err();
    assert!(
        e.to_string().contains("inputSchema is not one JSON value"),
        "{e}"
    );
    let e = ToolSpec::new("t", "d", r#"{"type":"string"}"#).unwrap_err();
    assert!(e.to_string().contains("object schema"), "{e}");
    let e = ToolSpec::new("", "d", r#"{"type":"object"}"#).unwrap_err();
    assert!(e.to_string().contains("name is empty"), "{e}");
    let ok = ToolSpec::new("t", "d", r#"{"type":"object"}"#).unwrap();
    assert!(ok.clone().output_schema("[]").is_err());
    assert!(ok.clone().annotations("7").is_err());
    assert!(ok.clone().annotations("{").is_err());
    // A spec changed by hand after it was made is checked when it is registered.
    let mut bad = ok;
    bad.input_schema = Json::parse("[]").unwrap();
    let e = Server::builder("s", "1")
        .tool(bad, demo::echo)
        .build()
        .unwrap_err();
    assert_eq!(e.tool, "t");
}
