//! `Connection` in memory: the legacy era (`decisions.md`, "Legacy era"), batches included.

use janus_server_core::codec::ProtocolVersion;
use janus_server_core::demo;
use serde_json::json;

mod support;
use support::*;

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
    let mut c = Client::with(demo::builder().instructions("Use echo.").build().unwrap());
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
    let out = c.raw(batch.as_bytes());
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
async fn a_batch_with_asynchronous_work_is_one_array_once_its_work_ends() {
    let mut c = Client::legacy("2025-03-26");
    c.job(&format!(
        "[{},{}]",
        legacy(
            1,
            "tools/call",
            r#"{"name":"sleep","arguments":{"ms":200}}"#
        ),
        legacy(2, "ping", ""),
    ));
    let answers = c.finish().await;
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
    let lines = c.send(&format!(
        "[{},{},{}]",
        sleep_200(1),
        sleep_200(2),
        sleep_200(3)
    ));
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(c.running(), 3);
    let start = tokio::time::Instant::now();
    let answers = c.finish().await;
    assert_eq!(answers.as_array().map(Vec::len), Some(3), "{answers}");
    // Three sleeps of 200 ms one after the other would take 600 ms of the paused clock.
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_millis(400), "{took:?}");
}

#[tokio::test(start_paused = true)]
async fn a_request_cancelled_inside_a_batch_in_flight_gets_no_entry() {
    let mut c = Client::legacy("2025-03-26");
    let lines = c.send(&format!(
        "[{},{},{}]",
        sleep_200(1),
        sleep_200(2),
        legacy(3, "ping", "")
    ));
    assert!(lines.is_empty(), "{lines:?}");
    // The requests whose work is to come can be cancelled one by one.
    c.silent(&cancel("1"));
    assert_eq!(c.running(), 1);
    let answers = c.finish().await;
    let mut ids: Vec<i64> = answers
        .as_array()
        .expect("an array")
        .iter()
        .map(|a| a["id"].as_i64().expect("an integer id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [2, 3], "{answers}");

    // Every entry cancelled: no line at all.
    assert!(c.send(&format!("[{}]", sleep_200(4))).is_empty());
    c.silent(&cancel("4"));
    assert!(c.settle().await.is_empty());
    assert_eq!(c.conn.foreground(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_cancel_inside_a_batch_stops_an_earlier_request_and_its_batch_answers_at_once() {
    let mut c = Client::legacy("2025-03-26");
    c.job(&sleep_200(1));
    // The batch's cancel names request 1, in flight; its ping is answered at once.
    let r = c.send(&format!("[{},{}]", cancel("1"), legacy(2, "ping", "")));
    assert_eq!(r, [json!([{"jsonrpc": "2.0", "id": 2, "result": {}}])]);
    assert_eq!(c.running(), 0);
    assert!(
        c.settle().await.is_empty(),
        "the cancelled sleep answers nothing"
    );
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

#[tokio::test(start_paused = true)]
async fn a_cancel_inside_a_batch_of_its_own_request_does_not_end_the_batch_early() {
    // Found by the connection fuzz target: the cancel settled every slot registered so far,
    // and the batch was written before its later elements were read.
    let mut c = Client::legacy("2025-03-26");
    let lines = c.send(&format!(
        "[{},{},{},{},{}]",
        legacy(r#""a""#, "ping", ""),
        legacy(1, "tools/call", r#"{"name":"sleep","arguments":{"ms":10}}"#),
        cancel("1"),
        legacy(2, "ping", ""),
        legacy(3, "tools/call", r#"{"name":"sleep","arguments":{"ms":10}}"#),
    ));
    assert!(lines.is_empty(), "the batch waits for request 3: {lines:?}");
    let answers = c.finish().await;
    let mut ids: Vec<String> = answers
        .as_array()
        .expect("an array")
        .iter()
        .map(|a| a["id"].to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, [r#""a""#, "2", "3"], "{answers}");
    // The smallest case: nothing else to wait for once the cancel has run.
    let lines = c.send(&format!(
        "[{},{},{}]",
        sleep_200(4),
        cancel("4"),
        legacy(
            5,
            "tools/call",
            r#"{"name":"echo","arguments":{"text":"e"}}"#
        ),
    ));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let entries = lines[0].as_array().expect("an array");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["id"], 5);
}
