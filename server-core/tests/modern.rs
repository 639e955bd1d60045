//! `Connection` in memory: the modern era (`decisions.md`, "Modern era").

use janus_server_core::codec::Era;
use serde_json::json;

mod support;
use support::*;

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
                "tools": {"listChanged": true},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "logging": {},
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
    c.job(&modern(
        6,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":5},"#,
    ));
    results.push(c.finish().await);
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
