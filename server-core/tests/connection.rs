//! `Connection` in memory, without IO: each rule of `decisions.md` driven through
//! `handle_line` / `handle_frame`, with assertions on the parsed output and on the `Outcome`.

use bytes::{Bytes, BytesMut};
use janus_server_core::codec::{Era, Frame, IdBuf, ProtocolVersion};
use janus_server_core::tools::{Args, Call, Output, ToolResult, ToolSpec};
use janus_server_core::{Connection, Job, Outcome, Server, demo};
use serde_json::{Value, json};
use std::sync::Arc;

const ENV: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Parses the lines a frame appended: each `\n`-terminated, one compact JSON message.
fn parse_lines(out: &[u8]) -> Vec<Value> {
    if out.is_empty() {
        return Vec::new();
    }
    assert_eq!(out.last(), Some(&b'\n'), "output does not end with \\n");
    out[..out.len() - 1]
        .split(|&b| b == b'\n')
        .map(|line| {
            assert!(!line.contains(&b'\r'), "a raw line break in the output");
            let text = std::str::from_utf8(line).expect("output is UTF-8");
            assert_compact(text);
            serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
        })
        .collect()
}

/// No white space outside strings.
fn assert_compact(text: &str) {
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else {
            assert!(!c.is_whitespace(), "not compact: {text}");
        }
    }
}

/// A scripted client of one `Connection`.
struct Client {
    conn: Connection,
}

impl Client {
    fn new() -> Self {
        Self::with(demo::server())
    }

    fn with(server: Arc<Server>) -> Self {
        Self {
            conn: Connection::new(server),
        }
    }

    /// Hands one line to the connection; returns the raw output and the outcome.
    fn raw(&mut self, line: &[u8]) -> (BytesMut, Outcome) {
        let mut out = BytesMut::new();
        let outcome = self.conn.handle_line(line, &mut out);
        (out, outcome)
    }

    fn send(&mut self, line: &str) -> (Vec<Value>, Outcome) {
        let (out, outcome) = self.raw(line.as_bytes());
        (parse_lines(&out), outcome)
    }

    /// One line in, exactly one answer out at once.
    fn answer(&mut self, line: &str) -> Value {
        let (mut lines, outcome) = self.send(line);
        assert!(matches!(outcome, Outcome::Done), "{outcome:?} for {line}");
        assert_eq!(lines.len(), 1, "want one answer to {line}, got {lines:?}");
        let v = lines.remove(0);
        // A batch answer is an array of messages.
        for m in v
            .as_array()
            .map_or_else(|| vec![&v], |a| a.iter().collect())
        {
            assert_eq!(m["jsonrpc"], "2.0", "{m}");
        }
        v
    }

    /// One line in, nothing out.
    fn silent(&mut self, line: &str) {
        let (lines, outcome) = self.send(line);
        assert!(matches!(outcome, Outcome::Done), "{outcome:?} for {line}");
        assert!(lines.is_empty(), "want no answer to {line}, got {lines:?}");
    }

    /// One line in, a job out (and nothing written at once).
    fn job(&mut self, line: &str) -> Job {
        match self.send(line) {
            (lines, Outcome::Spawn(job)) if lines.is_empty() => job,
            other => panic!("want a job for {line}, got {other:?}"),
        }
    }

    /// A legacy connection that negotiated `version`.
    fn legacy(version: &str) -> Self {
        let mut c = Self::new();
        c.initialize(version);
        c
    }

    fn initialize(&mut self, version: &str) -> Value {
        let r = self.answer(&initialize(0, version));
        assert_eq!(r["result"]["protocolVersion"], version, "{r}");
        self.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// A modern connection (one request answered).
    fn modern() -> Self {
        let mut c = Self::new();
        let r = c.answer(&modern(0, "server/discover", ""));
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        c
    }
}

fn initialize(id: i64, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

/// A request with the modern envelope; `members` are more members of `params` (each followed
/// by a comma), e.g. `"name":"echo",`.
fn modern(id: impl std::fmt::Display, method: &str, members: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{members}"_meta":{ENV}}}}}"#
    )
}

/// A request without envelope; `params` is JSON text or empty for none.
fn legacy(id: impl std::fmt::Display, method: &str, params: &str) -> String {
    if params.is_empty() {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#)
    } else {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
    }
}

fn cancel(request_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{request_id}}}}}"#
    )
}

/// Runs a job to its line, parsed.
async fn finish(job: Job) -> Value {
    let line: Bytes = job.future.await.expect("the job writes a line");
    let mut lines = parse_lines(&line);
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines.remove(0)
}

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

// ------------------------------------------------------------------------------ era detection

#[test]
fn a_fresh_connection_has_no_era() {
    let c = Client::new();
    assert_eq!(c.conn.era(), None);
    assert_eq!(c.conn.negotiated(), None);
}

#[test]
fn notifications_before_the_first_request_are_dropped_and_decide_nothing() {
    let mut c = Client::new();
    c.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c.silent(&format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized","params":{{"_meta":{ENV}}}}}"#
    ));
    // Even a cancel is dropped: there is nothing it could name yet.
    c.silent(&cancel("1"));
    c.silent(r#"{"jsonrpc":"2.0","method":"no/such/notification","params":{}}"#);
    assert_eq!(c.conn.era(), None);
    let r = c.answer(&initialize(0, "2025-06-18"));
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
}

#[test]
fn client_responses_are_ignored_and_decide_nothing() {
    let mut c = Client::new();
    c.silent(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"no"}}"#);
    assert_eq!(c.conn.era(), None);
    let r = c.answer(&modern(1, "tools/list", ""));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(c.conn.era(), Some(Era::Modern));
    c.silent(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);

    let mut c = Client::legacy("2025-06-18");
    c.silent(r#"{"jsonrpc":"2.0","id":9,"result":{"content":[]}}"#);
    c.silent(r#"{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"x"}}"#);
    assert_eq!(c.answer(&legacy(1, "ping", ""))["result"], json!({}));
}

#[test]
fn the_first_modern_request_opens_a_modern_connection() {
    let mut c = Client::new();
    let r = c.answer(&modern(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"hi"},"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "hi");
    assert_eq!(c.conn.era(), Some(Era::Modern));
    assert_eq!(c.conn.negotiated(), None);
}

#[test]
fn the_first_legacy_request_opens_a_legacy_connection_negotiated_by_initialize() {
    let mut c = Client::new();
    assert_eq!(c.answer(&legacy(1, "ping", ""))["result"], json!({}));
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), None);
    c.initialize("2025-03-26");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_03_26));
}

#[test]
fn the_protocol_version_key_alone_is_the_modern_signal() {
    // Only the version key: modern, so the missing capabilities are a -32602 (not the legacy
    // refusal before initialize).
    let mut c = Client::new();
    let r = c.answer(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
    );
    assert_eq!(code(&r), -32602, "{r}");
    assert_eq!(c.conn.era(), Some(Era::Modern));

    // Written with an escaped slash, the key is the same key.
    let mut c = Client::new();
    let r = c.answer(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol\/clientCapabilities":{}}}}"#,
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(c.conn.era(), Some(Era::Modern));

    // No version key: legacy, whatever else `_meta` holds or wherever the keys stand.
    for params in [
        r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#,
        r#"{"_meta":{"progressToken":1}}"#,
        r#"{"_meta":["io.modelcontextprotocol/protocolVersion"]}"#,
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
        r#"[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}]"#,
    ] {
        let mut c = Client::new();
        let r = c.answer(&legacy(1, "tools/list", params));
        assert_eq!(code(&r), -32600, "{params}: {r}");
        assert_eq!(r["error"]["message"], "Invalid request parameters", "{r}");
        assert_eq!(c.conn.era(), Some(Era::Legacy), "{params}");
    }
}

#[test]
fn an_initialize_with_an_envelope_opens_legacy_and_is_served_plain() {
    let mut c = Client::new();
    let r = c.answer(&format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-03-26","capabilities":{{}},"_meta":{ENV}}}}}"#
    ));
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26", "{r}");
    assert!(r["result"].get("resultType").is_none(), "{r}");
    assert!(r["result"].get("_meta").is_none(), "{r}");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_03_26));
}

#[test]
fn the_era_is_locked() {
    let mut c = Client::legacy("2025-06-18");
    let r = c.answer(&modern(1, "server/discover", ""));
    assert_eq!(code(&r), -32600, "{r}");
    assert_eq!(c.conn.era(), Some(Era::Legacy));
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_06_18));

    let mut c = Client::modern();
    let r = c.answer(&initialize(1, "2025-06-18"));
    assert_eq!(code(&r), -32022, "{r}");
    assert_eq!(c.conn.era(), Some(Era::Modern));
    assert_eq!(c.conn.negotiated(), None);
}

// ---------------------------------------------------------------------------------- versions

#[test]
fn each_handshake_version_is_echoed_and_negotiated() {
    for (v, known) in HANDSHAKE.iter().zip(ProtocolVersion::HANDSHAKE) {
        let mut c = Client::new();
        let r = c.answer(&initialize(0, v));
        assert_eq!(r["result"]["protocolVersion"], *v, "{r}");
        assert_eq!(c.conn.negotiated(), Some(known));
    }
}

#[test]
fn any_other_version_gets_the_latest_handshake_version() {
    // Versions are an enumerated set: no date comparison picks a neighbour.
    for v in [
        r#""2026-07-28""#,
        r#""garbage""#,
        r#""""#,
        r#""2025-05-01""#,
        r#""2025-12-31""#,
        r#""2024-01-01""#,
        "20250618",
        "null",
    ] {
        let mut c = Client::new();
        let r = c.answer(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":{v},"capabilities":{{}}}}}}"#
        ));
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{v}: {r}");
        assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::LATEST_HANDSHAKE));
    }
    let mut c = Client::new();
    let r = c.answer(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#);
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
}

// -------------------------------------------------------------------------------- legacy era

#[test]
fn ping_is_answered_before_and_after_initialize() {
    let mut c = Client::new();
    assert_eq!(c.answer(&legacy(1, "ping", ""))["result"], json!({}));
    assert_eq!(c.answer(&legacy(2, "ping", "{}"))["result"], json!({}));
    c.initialize("2024-11-05");
    assert_eq!(c.answer(&legacy(3, "ping", ""))["result"], json!({}));
}

#[test]
fn requests_before_initialize_are_refused_naming_the_method() {
    let mut c = Client::new();
    for method in [
        "tools/call",
        "tools/list",
        "server/discover",
        "no/such/method",
        "logging/setLevel",
    ] {
        let r = c.answer(&legacy(1, method, r#"{"name":"echo"}"#));
        assert_eq!(code(&r), -32600, "{r}");
        assert_eq!(r["error"]["message"], "Invalid request parameters", "{r}");
        let reason = r["error"]["data"]["reason"].as_str().expect("a reason");
        assert!(reason.contains(method), "{reason}");
        assert_eq!(c.conn.negotiated(), None);
    }
    c.initialize("2025-06-18");
    let r = c.answer(&legacy(
        2,
        "tools/call",
        r#"{"name":"echo","arguments":{"text":"x"}}"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "x", "{r}");
}

#[test]
fn an_enveloped_request_on_a_legacy_connection_is_refused_before_and_after_initialize() {
    let mut c = Client::new();
    c.answer(&legacy(1, "ping", ""));
    for method in ["tools/call", "ping"] {
        let r = c.answer(&modern(
            2,
            method,
            r#""name":"echo","arguments":{"text":"x"},"#,
        ));
        assert_eq!(code(&r), -32600, "{r}");
    }
    c.initialize("2025-11-25");
    for method in ["tools/call", "tools/list", "ping", "server/discover"] {
        let r = c.answer(&modern(
            3,
            method,
            r#""name":"echo","arguments":{"text":"x"},"#,
        ));
        assert_eq!(code(&r), -32600, "{r}");
        assert!(r.get("result").is_none());
    }
    assert_eq!(c.answer(&legacy(4, "ping", ""))["result"], json!({}));
}

#[test]
fn notifications_before_initialize_are_dropped() {
    let mut c = Client::new();
    c.answer(&legacy(1, "ping", ""));
    c.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c.silent(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
    assert_eq!(c.conn.negotiated(), None);
    c.initialize("2025-06-18");
}

#[test]
fn a_second_initialize_is_refused_and_keeps_the_negotiated_version() {
    let mut c = Client::legacy("2025-06-18");
    let r = c.answer(&initialize(1, "2025-03-26"));
    assert_eq!(code(&r), -32600, "{r}");
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_06_18));
    // Still 2025-06-18: structured content, and no batches.
    let r = c.answer(&legacy(
        2,
        "tools/call",
        r#"{"name":"add","arguments":{"a":1,"b":2}}"#,
    ));
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 3}), "{r}");
    let r = c.answer(&format!("[{}]", legacy(3, "ping", "")));
    assert_eq!(code(&r), -32600, "{r}");
}

#[test]
fn the_initialized_notification_is_optional() {
    let mut c = Client::new();
    c.answer(&initialize(0, "2025-06-18"));
    let r = c.answer(&legacy(1, "tools/list", ""));
    assert_eq!(r["result"]["tools"][0]["name"], "echo", "{r}");
    c.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(c.answer(&legacy(2, "ping", ""))["result"], json!({}));
}

#[test]
fn the_initialize_result_has_the_shape_of_the_negotiated_revision() {
    for v in HANDSHAKE {
        let mut c = Client::new();
        let r = c.answer(&initialize(0, v))["result"].clone();
        let keys: Vec<&str> = r
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["capabilities", "protocolVersion", "serverInfo"],
            "{v}: {r}"
        );
        assert!(r["capabilities"]["tools"].is_object(), "{r}");
        assert_eq!(r["serverInfo"]["name"], "janus");
        assert_eq!(r["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        // `Implementation.title` exists from 2025-06-18.
        let titled = matches!(v, "2025-06-18" | "2025-11-25");
        assert_eq!(r["serverInfo"].get("title").is_some(), titled, "{v}: {r}");
    }
    // `instructions` when the server has some.
    let mut c = Client::with(demo::builder().instructions("Use echo.").build());
    let r = c.answer(&initialize(0, "2025-06-18"));
    assert_eq!(r["result"]["instructions"], "Use echo.", "{r}");
}

#[test]
fn legacy_results_have_the_shapes_of_the_negotiated_revision() {
    for v in HANDSHAKE {
        let mut c = Client::legacy(v);
        let list = c.answer(&legacy(1, "tools/list", ""))["result"].clone();
        for key in ["resultType", "ttlMs", "cacheScope", "_meta", "nextCursor"] {
            assert!(list.get(key).is_none(), "{v}: {key} in {list}");
        }
        let tools = list["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["echo", "add", "fail", "sleep"]);
        let add = &tools[1];
        let (annotations, titled, tasks) = match v {
            "2024-11-05" => (false, false, false),
            "2025-03-26" => (true, false, false),
            "2025-06-18" => (true, true, false),
            _ => (true, true, true),
        };
        assert_eq!(add.get("annotations").is_some(), annotations, "{v}: {add}");
        assert_eq!(add.get("title").is_some(), titled, "{v}: {add}");
        assert_eq!(add.get("outputSchema").is_some(), titled, "{v}: {add}");
        for t in tools {
            assert_eq!(t.get("execution").is_some(), tasks, "{v}: {t}");
        }

        let call = c.answer(&legacy(
            2,
            "tools/call",
            r#"{"name":"add","arguments":{"a":40,"b":2}}"#,
        ))["result"]
            .clone();
        assert_eq!(
            call["content"],
            json!([{"type": "text", "text": "42"}]),
            "{call}"
        );
        assert_eq!(
            call.get("structuredContent").is_some(),
            titled,
            "{v}: {call}"
        );
        assert!(
            call.get("resultType").is_none() && call.get("_meta").is_none(),
            "{call}"
        );

        let fail = c.answer(&legacy(3, "tools/call", r#"{"name":"fail"}"#))["result"].clone();
        assert_eq!(fail["isError"], true, "{fail}");
        assert!(fail.get("resultType").is_none(), "{fail}");
    }
}

#[test]
fn tools_that_support_tasks_carry_task_support_on_2025_11_25() {
    let mut c = Client::legacy("2025-11-25");
    let r = c.answer(&legacy(1, "tools/list", ""));
    let tools = r["result"]["tools"].as_array().expect("tools");
    let support: Vec<(&str, &str)> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["execution"]["taskSupport"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        support,
        [
            ("echo", "forbidden"),
            ("add", "forbidden"),
            ("fail", "forbidden"),
            ("sleep", "optional")
        ]
    );
}

#[test]
fn a_batch_on_2025_03_26_is_answered_as_one_array() {
    let mut c = Client::legacy("2025-03-26");
    let batch = format!(
        "[{},{},{},{},{},{},{}]",
        legacy(1, "ping", ""),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        legacy(
            2,
            "tools/call",
            r#"{"name":"echo","arguments":{"text":"hello"}}"#
        ),
        initialize(3, "2025-03-26"),
        r#"{"jsonrpc":"2.0","id":50,"result":{}}"#,
        r#"{"id":4,"method":"ping"}"#,
        modern(5, "tools/list", ""),
    );
    let (out, outcome) = c.raw(batch.as_bytes());
    assert!(matches!(outcome, Outcome::Done), "{outcome:?}");
    let mut lines = parse_lines(&out);
    assert_eq!(lines.len(), 1, "one line: {lines:?}");
    let answers = lines.remove(0);
    let answers = answers.as_array().expect("an array");
    let by_id = |id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id} in {answers:?}"))
    };
    assert_eq!(
        answers.len(),
        5,
        "no entry for notifications or responses: {answers:?}"
    );
    assert_eq!(by_id(1)["result"], json!({}));
    assert_eq!(by_id(2)["result"]["content"][0]["text"], "hello");
    // initialize inside a batch: -32600 for that element.
    assert_eq!(code(by_id(3)), -32600);
    // Not JSON-RPC: -32600 with its id.
    assert_eq!(code(by_id(4)), -32600);
    // The era lock holds inside a batch.
    assert_eq!(code(by_id(5)), -32600);
    assert_eq!(c.conn.negotiated(), Some(ProtocolVersion::V2025_03_26));

    // Only notifications: no line at all.
    c.silent(&format!(
        "[{},{}]",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        cancel("77")
    ));
    // An element that is no message: an error element with id null.
    let r = c.answer(&format!("[1,{}]", legacy(6, "ping", "")));
    let r = r.as_array().expect("an array");
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(
        r.iter().any(|a| a["id"].is_null() && code(a) == -32600),
        "{r:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_batch_with_asynchronous_work_is_one_job_yielding_one_array() {
    let mut c = Client::legacy("2025-03-26");
    let job = c.job(&format!(
        "[{},{}]",
        legacy(
            1,
            "tools/call",
            r#"{"name":"sleep","arguments":{"ms":200}}"#
        ),
        legacy(2, "ping", ""),
    ));
    // A batch's work is not one request: no single id names it.
    assert!(job.id.is_none(), "{job:?}");
    let answers = finish(job).await;
    let answers = answers.as_array().expect("an array");
    assert_eq!(answers.len(), 2, "{answers:?}");
    let sleep = answers.iter().find(|a| a["id"] == 1).expect("the sleep");
    assert_eq!(sleep["result"]["content"][0]["text"], "slept 200 ms");
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == 2 && a["result"] == json!({}))
    );
}

/// A legacy `tools/call` of the demo `sleep` for 200 ms.
fn sleep_200(id: i64) -> String {
    legacy(
        id,
        "tools/call",
        r#"{"name":"sleep","arguments":{"ms":200}}"#,
    )
}

#[tokio::test(start_paused = true)]
async fn a_batchs_requests_run_together() {
    let mut c = Client::legacy("2025-03-26");
    let job = c.job(&format!(
        "[{},{},{}]",
        sleep_200(1),
        sleep_200(2),
        sleep_200(3)
    ));
    let start = tokio::time::Instant::now();
    let answers = finish(job).await;
    assert_eq!(answers.as_array().map(Vec::len), Some(3), "{answers}");
    // Three sleeps of 200 ms one after the other would take 600 ms of the paused clock.
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_millis(400), "{took:?}");
}

#[tokio::test(start_paused = true)]
async fn a_request_cancelled_inside_a_batch_job_gets_no_entry() {
    let mut c = Client::legacy("2025-03-26");
    let job = c.job(&format!(
        "[{},{},{}]",
        sleep_200(1),
        sleep_200(2),
        legacy(3, "ping", "")
    ));
    // The requests whose work is to come can be cancelled one by one.
    let ids: Vec<&str> = job
        .elements
        .iter()
        .map(|(id, _)| id.as_id().as_raw())
        .collect();
    assert_eq!(ids, ["1", "2"], "{job:?}");
    job.elements[0].1.cancel();
    let answers = finish(job).await;
    let mut ids: Vec<i64> = answers
        .as_array()
        .expect("an array")
        .iter()
        .map(|a| a["id"].as_i64().expect("an integer id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [2, 3], "{answers}");

    // Every entry cancelled: no line at all.
    let job = c.job(&format!("[{}]", sleep_200(4)));
    job.elements[0].1.cancel();
    assert_eq!(job.future.await, None);
}

#[test]
fn a_batch_anywhere_else_is_one_invalid_request_with_id_null() {
    let batch = format!("[{}]", legacy(1, "ping", ""));
    let mut clients = vec![Client::new(), Client::modern()];
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        clients.push(Client::legacy(v));
    }
    // A legacy connection before initialize, even one about to ask for 2025-03-26.
    let mut before = Client::new();
    before.answer(&legacy(0, "ping", ""));
    clients.push(before);
    for mut c in clients {
        let era = c.conn.era();
        let r = c.answer(&batch);
        assert!(r.is_object(), "one error, not an array: {r}");
        assert_eq!(code(&r), -32600, "{r}");
        assert!(r["id"].is_null(), "{r}");
        assert_eq!(c.conn.era(), era, "a batch decides no era");
    }
}

// -------------------------------------------------------------------------------- modern era

#[test]
fn envelope_faults_are_invalid_params_naming_the_keys() {
    let pv = "io.modelcontextprotocol/protocolVersion";
    let cc = "io.modelcontextprotocol/clientCapabilities";
    let cases = [
        (format!(r#"{{"{cc}":{{}}}}"#), vec![pv]),
        (format!(r#"{{"{pv}":"2026-07-28"}}"#), vec![cc]),
        ("{}".to_owned(), vec![pv, cc]),
        (format!(r#"{{"{pv}":7,"{cc}":{{}}}}"#), vec![pv]),
        (format!(r#"{{"{pv}":"2026-07-28","{cc}":[]}}"#), vec![cc]),
        (format!(r#"{{"{pv}":"2026-07-28","{cc}":null}}"#), vec![cc]),
        (
            format!(
                r#"{{"{pv}":"2026-07-28","{cc}":{{}},"io.modelcontextprotocol/clientInfo":"me"}}"#
            ),
            vec!["io.modelcontextprotocol/clientInfo"],
        ),
    ];
    let mut c = Client::modern();
    for (meta, keys) in cases {
        let r = c.answer(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
        ));
        assert_eq!(code(&r), -32602, "{meta}: {r}");
        let message = r["error"]["message"].as_str().expect("a message");
        for key in keys {
            assert!(
                message.contains(key),
                "{meta}: {message} does not name {key}"
            );
        }
    }
    // No params or no `_meta` at all: both keys are missing.
    for line in [legacy(2, "tools/list", ""), legacy(3, "tools/list", "{}")] {
        let r = c.answer(&line);
        assert_eq!(code(&r), -32602, "{r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains(pv) && message.contains(cc), "{message}");
    }
    // The connection goes on.
    assert_eq!(
        c.answer(&modern(4, "tools/list", ""))["result"]["resultType"],
        "complete"
    );
}

#[test]
fn an_unsupported_version_is_32022_and_the_connection_stays_open() {
    for requested in ["2099-01-01", "2025-11-25", "2026-12-01", "2026-07-27", ""] {
        let mut c = Client::new();
        let r = c.answer(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{requested}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ));
        assert_eq!(code(&r), -32022, "{r}");
        assert_eq!(
            r["error"]["data"],
            json!({"supported": ["2026-07-28"], "requested": requested}),
            "{r}"
        );
        assert_eq!(c.conn.era(), Some(Era::Modern));
        let r = c.answer(&modern(2, "tools/list", ""));
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
    }
}

#[test]
fn initialize_on_a_modern_connection_is_32022_with_requested() {
    let mut c = Client::modern();
    let r = c.answer(&initialize(1, "2025-06-18"));
    assert_eq!(code(&r), -32022, "{r}");
    assert_eq!(r["error"]["data"]["requested"], "2025-06-18", "{r}");
    assert_eq!(
        r["error"]["data"]["supported"],
        json!(["2026-07-28"]),
        "{r}"
    );
    // With an envelope too.
    let r = c.answer(&modern(
        2,
        "initialize",
        r#""protocolVersion":"2026-07-28","capabilities":{},"#,
    ));
    assert_eq!(code(&r), -32022, "{r}");
    assert_eq!(r["error"]["data"]["requested"], "2026-07-28", "{r}");
}

/// Found by the `connection` fuzz target: `data.requested` echoed a spaced `protocolVersion`
/// as sent, so the answer was not compact JSON.
#[test]
fn initialize_on_a_modern_connection_echoes_requested_compact() {
    let mut c = Client::modern();
    let line = concat!(
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": "#,
        r#"{"protocolVersion": ["2025-06-18", {"a b": "c, d"}],"#,
        r#" "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#,
    );
    // `answer` checks that every line is compact.
    let r = c.answer(line);
    assert_eq!(code(&r), -32022, "{r}");
    assert_eq!(
        r["error"]["data"]["requested"],
        json!(["2025-06-18", {"a b": "c, d"}]),
        "{r}"
    );
}

#[test]
fn removed_and_unknown_methods_are_method_not_found() {
    let mut c = Client::new();
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "no/such/method",
    ] {
        let r = c.answer(&modern(1, method, ""));
        assert_eq!(code(&r), -32601, "{method}: {r}");
        assert_eq!(c.conn.era(), Some(Era::Modern));
    }
}

#[test]
fn server_discover_has_its_shape() {
    let mut c = Client::new();
    let r = c.answer(&modern(1, "server/discover", ""));
    assert_eq!(
        r["result"],
        json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "tools": {"listChanged": false},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "ttlMs": 60_000,
            "cacheScope": "public",
            "_meta": {SERVER_INFO: {
                "name": "janus",
                "version": env!("CARGO_PKG_VERSION"),
                "title": "Janus demo server"
            }}
        })
    );
}

#[test]
fn modern_tools_list_has_its_shape() {
    let mut c = Client::new();
    let r = c.answer(&modern(1, "tools/list", ""))["result"].clone();
    let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["_meta", "cacheScope", "resultType", "tools", "ttlMs"],
        "{r}"
    );
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["cacheScope"], "public");
    assert!(r["ttlMs"].is_u64(), "{r}");
    assert_eq!(r["_meta"][SERVER_INFO]["name"], "janus");
    let tools = r["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 4);
    // The 2026 Tool has no `execution`; it has titles, output schemas and annotations.
    assert!(tools.iter().all(|t| t.get("execution").is_none()), "{r}");
    assert_eq!(tools[1]["title"], "Add");
    assert!(tools[1]["outputSchema"].is_object() && tools[1]["annotations"].is_object());
}

#[test]
fn modern_tools_call_has_its_shape() {
    let mut c = Client::new();
    let r = c.answer(&modern(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"hi"},"#,
    ));
    let r = &r["result"];
    let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["_meta", "content", "resultType"], "{r}");
    assert_eq!(r["content"], json!([{"type": "text", "text": "hi"}]));

    let r = c.answer(&modern(
        2,
        "tools/call",
        r#""name":"add","arguments":{"a":2,"b":40},"#,
    ));
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 42}), "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "42", "{r}");

    let r = c.answer(&modern(3, "tools/call", r#""name":"no-such-tool","#));
    assert_eq!(code(&r), -32602, "{r}");
    assert_eq!(r["error"]["message"], "Unknown tool: no-such-tool", "{r}");

    // A failure inside the tool is a result.
    let r = c.answer(&modern(4, "tools/call", r#""name":"fail","#));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert!(r.get("error").is_none(), "{r}");
}

#[tokio::test(start_paused = true)]
async fn every_modern_result_carries_result_type_and_server_info() {
    let mut c = Client::new();
    let mut results = vec![
        c.answer(&modern(1, "server/discover", "")),
        c.answer(&modern(2, "tools/list", "")),
        c.answer(&modern(
            3,
            "tools/call",
            r#""name":"echo","arguments":{"text":"x"},"#,
        )),
        c.answer(&modern(
            4,
            "tools/call",
            r#""name":"add","arguments":{"a":1,"b":1},"#,
        )),
        c.answer(&modern(5, "tools/call", r#""name":"fail","#)),
    ];
    let job = c.job(&modern(
        6,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":5},"#,
    ));
    results.push(finish(job).await);
    for r in results {
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        assert_eq!(r["result"]["_meta"][SERVER_INFO]["name"], "janus", "{r}");
    }
}

#[test]
fn capabilities_are_per_request() {
    let mut c = Client::new();
    c.answer(&modern(1, "tools/list", ""));
    for line in [
        legacy(2, "tools/list", ""),
        legacy(
            3,
            "tools/list",
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        ),
        legacy(
            4,
            "tools/list",
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#,
        ),
    ] {
        assert_eq!(code(&c.answer(&line)), -32602, "{line}");
    }
    assert_eq!(
        c.answer(&modern(5, "tools/list", ""))["result"]["resultType"],
        "complete"
    );
}

#[test]
fn tasks_requests_without_the_declared_extension_are_missing_capability() {
    let required =
        json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let mut c = Client::modern();
    for method in [
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "tasks/list",
        "tasks/result",
    ] {
        let r = c.answer(&modern(1, method, r#""taskId":"t-1","#));
        assert_eq!(code(&r), -32021, "{method}: {r}");
        assert_eq!(r["error"]["data"], required, "{r}");
    }
    // Declared on this request (in `extensions`): not a missing capability.
    let declared = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
    let r = c.answer(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"t-1","_meta":{declared}}}}}"#
    ));
    assert_ne!(code(&r), -32021, "{r}");
    // Declared elsewhere, or on an earlier request: missing.
    for caps in [
        r#"{"io.modelcontextprotocol/tasks":{}}"#,
        r#"{"extensions":{}}"#,
        r#"{"extensions":{"io.modelcontextprotocol/tasks":true}}"#,
        "{}",
    ] {
        let r = c.answer(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{{"taskId":"t-1","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}}}}}"#
        ));
        assert_eq!(code(&r), -32021, "{caps}: {r}");
    }
}

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
            let (out, outcome) = c.raw(line);
            assert!(matches!(outcome, Outcome::Done));
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
        let outcome = c.conn.handle_frame(&Frame::Oversize, &mut out);
        assert!(matches!(outcome, Outcome::Done));
        let r = parse_lines(&out);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(code(&r[0]), -32600, "{}", r[0]);
        assert!(r[0]["id"].is_null(), "{}", r[0]);
        // A frame that is a line is handled as that line.
        let mut out = BytesMut::new();
        let outcome = c
            .conn
            .handle_frame(&Frame::Line(Bytes::from(next.clone())), &mut out);
        assert!(matches!(outcome, Outcome::Done));
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

#[test]
fn cancelled_names_the_request_by_its_id_bytes() {
    for mut c in [Client::legacy("2025-06-18"), Client::modern()] {
        for (id, want) in [
            ("5", IdBuf::from_i64(5)),
            (r#""5""#, IdBuf::from_string("5")),
            (r#""s""#, IdBuf::from_string("s")),
        ] {
            match c.send(&cancel(id)) {
                (lines, Outcome::Cancel(got)) if lines.is_empty() => assert_eq!(got, want),
                other => panic!("want a cancel of {id}, got {other:?}"),
            }
        }
        // Malformed cancels are ignored.
        c.silent(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        c.silent(&cancel(r#"{"x":1}"#));
        c.silent(&cancel("1.5"));
    }
}

#[tokio::test(start_paused = true)]
async fn an_asynchronous_tool_is_a_job_named_by_its_request_id() {
    let mut c = Client::modern();
    let job = c.job(&modern(
        7,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":200},"#,
    ));
    assert_eq!(job.id, Some(IdBuf::from_i64(7)));
    // Other requests are served while it runs.
    let r = c.answer(&modern(
        8,
        "tools/call",
        r#""name":"echo","arguments":{"text":"x"},"#,
    ));
    assert_eq!(r["result"]["content"][0]["text"], "x");
    let started = tokio::time::Instant::now();
    let r = finish(job).await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(200));
    assert_eq!(r["id"], 7);
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "slept 200 ms"}])
    );
    assert_eq!(r["result"]["resultType"], "complete");

    let mut c = Client::legacy("2024-11-05");
    let job = c.job(&legacy(
        r#""é""#,
        "tools/call",
        r#"{"name":"sleep","arguments":{"ms":1}}"#,
    ));
    assert_eq!(job.id, Some(IdBuf::from_string("é")));
    let r = finish(job).await;
    assert_eq!(r["id"], "é");
    assert!(r["result"].get("resultType").is_none(), "{r}");
}

/// A server whose `boom` tool panics when its argument says so, and `later` does the same
/// inside its future.
fn panicking_server() -> Arc<Server> {
    let schema = r#"{"type":"object"}"#;
    demo::builder()
        .tool(
            ToolSpec::new("panic", "Always panics.", schema),
            |_: Args<'_>, _: &mut Output<'_>| -> Call { panic!("secret internals") },
        )
        .tool(
            ToolSpec::new("boom", "Panics after writing, when asked.", schema),
            |args: Args<'_>, out: &mut Output<'_>| {
                out.text("partial output");
                assert!(args.get("boom").is_none(), "secret internals");
                Call::Done
            },
        )
        .tool(
            ToolSpec::new("later", "Panics in its future, when asked.", schema),
            |args: Args<'_>, _: &mut Output<'_>| {
                let boom = args.get("boom").is_some();
                Call::Later(Box::pin(async move {
                    assert!(!boom, "secret internals");
                    ToolResult::text("fine")
                }))
            },
        )
        .build()
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
            let (out, outcome) = c.raw(line.as_bytes());
            assert!(matches!(outcome, Outcome::Done), "{outcome:?}");
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
    let job = c.job(&modern(
        1,
        "tools/call",
        r#""name":"later","arguments":{"boom":1},"#,
    ));
    assert_eq!(job.id, Some(IdBuf::from_i64(1)));
    let line = job.future.await.expect("a line");
    assert_internal_error(&line, &json!(1));
    // The connection goes on, and the same tool works when it does not panic.
    let job = c.job(&modern(2, "tools/call", r#""name":"later","#));
    let r = finish(job).await;
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
        let (out, _) = c.raw(legacy(id, "ping", "").as_bytes());
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n")
        );
        let (out, _) = c.raw(legacy(id, "tools/list", "").as_bytes());
        let text = std::str::from_utf8(&out).unwrap();
        assert!(
            text.starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":")),
            "{text}"
        );
    }
}

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
    let server = || demo::builder().page_size(1).build();
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
    let mut c = Client::with(demo::builder().page_size(1).build());
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
    let mut fewer = Client::with(demo::builder().page_size(2).build());
    let r = fewer.answer(&modern(
        4,
        "tools/list",
        &format!(r#""cursor":"{cursor}","#),
    ));
    assert_eq!(code(&r), -32602, "{cursor}: {r}");
    // The same on a legacy connection.
    let mut c = Client::with(demo::builder().page_size(1).build());
    c.initialize("2025-06-18");
    let r = c.answer(&legacy(1, "tools/list", r#"{"cursor":"not-a-cursor"}"#));
    assert_eq!(code(&r), -32602, "{r}");
}
