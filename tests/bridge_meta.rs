//! What a front request says beyond its arguments reaches the backend behind `janus bridge`:
//! its `_meta` members (a trace context) in every revision, and, to a 2026-07-28 backend,
//! its client's info and capabilities instead of the bridge's (but for the extensions,
//! which the bridge's own client declares); a completion's too, and the backend's `total` and
//! `hasMore` come back.

use janus_client::{CallOptions, Client, Forwarded, Mode, Options, Transport};
use std::sync::Arc;
use std::time::Duration;
use support::copies::{bridge_copying, lines_of};

mod support;

/// The `tools/call` lines the backend was sent.
fn calls_heard(path: &std::path::Path) -> Vec<serde_json::Value> {
    lines_of(path)
        .into_iter()
        .filter(|l| l["method"] == "tools/call")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_front_request_s_meta_and_client_reach_the_backend_in_its_revision() {
    let dir = std::env::temp_dir().join(format!("janus-bridge-meta-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for back in ["legacy", "modern"] {
        let heard = dir.join(format!("{back}.jsonl"));
        let _ = std::fs::remove_file(&heard);
        let cmd = bridge_copying(back, "demo", &heard);
        let opts = Options {
            mode: Mode::Modern,
            name: "front-app".into(),
            version: "3".into(),
            timeout: Duration::from_secs(20),
            ..Options::default()
        };
        let c = Client::connect(Transport::Stdio(cmd), opts)
            .await
            .expect("the bridge serves");
        // NB. The front client itself says what a host would put in `_meta`, and declares
        // an extension the bridge does not pass on.
        let theirs = Forwarded {
            capabilities: Some(
                r#"{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#.into(),
            ),
            meta: Some(r#"{"traceparent":"00-4bf92f-00f067-01","example.com/tenant":"t7"}"#.into()),
            ..Forwarded::default()
        };
        let o = CallOptions {
            forwarded: Some(Arc::new(theirs)),
            ..CallOptions::default()
        };
        let r = c
            .call_tool("echo", Some(r#"{"text":"hi"}"#), o)
            .await
            .unwrap();
        assert_eq!(r.text(), "hi");
        // A plain one from the same client, after it.
        let r = c
            .call_tool("echo", Some(r#"{"text":"again"}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "again");
        c.close(Duration::from_secs(2)).await;

        let calls = calls_heard(&heard);
        assert_eq!(calls.len(), 2, "{back}: {calls:?}");
        let meta = &calls[0]["params"]["_meta"];
        assert_eq!(meta["traceparent"], "00-4bf92f-00f067-01", "{back}: {meta}");
        assert_eq!(meta["example.com/tenant"], "t7", "{back}: {meta}");
        assert!(
            calls[1]["params"]["_meta"].get("traceparent").is_none(),
            "{back}: the second call carried the first one's _meta: {}",
            calls[1]
        );
        let info = &meta["io.modelcontextprotocol/clientInfo"];
        let caps = &meta["io.modelcontextprotocol/clientCapabilities"];
        if back == "modern" {
            assert_eq!(info["name"], "front-app", "{meta}");
            assert_eq!(caps, &serde_json::json!({"elicitation": {}}), "{meta}");
            assert_eq!(
                calls[1]["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
                "front-app"
            );
        } else {
            // NB. A handshake backend met the bridge once: no envelope on its requests.
            assert!(info.is_null() && caps.is_null(), "{meta}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_s_client_is_the_one_a_modern_backend_hears_of() {
    let dir = std::env::temp_dir().join(format!("janus-bridge-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let heard = dir.join("modern.jsonl");
    let cmd = bridge_copying("modern", "demo", &heard);
    let opts = Options {
        mode: Mode::Legacy,
        name: "old-host".into(),
        version: "1.2".into(),
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts)
        .await
        .expect("the bridge serves");
    let r = c
        .call_tool("echo", Some(r#"{"text":"hi"}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "hi");
    c.close(Duration::from_secs(2)).await;
    let calls = calls_heard(&heard);
    let meta = &calls[0]["params"]["_meta"];
    // The session's initialize said who it is: each request forwarded says so again.
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"],
        serde_json::json!({"name": "old-host", "version": "1.2"}),
        "{meta}"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
        "{meta}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completion_goes_on_with_its_meta_and_comes_back_with_the_backend_s_count() {
    let dir = std::env::temp_dir().join(format!("janus-bridge-complete-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for back in ["legacy", "modern"] {
        let heard = dir.join(format!("{back}.jsonl"));
        let _ = std::fs::remove_file(&heard);
        let cmd = bridge_copying(back, "faults", &heard);
        let opts = Options {
            mode: Mode::Modern,
            name: "front-app".into(),
            timeout: Duration::from_secs(20),
            ..Options::default()
        };
        let c = Client::connect(Transport::Stdio(cmd), opts)
            .await
            .expect("the bridge serves");
        let o = CallOptions {
            forwarded: Some(Arc::new(Forwarded {
                meta: Some(r#"{"traceparent":"00-77aa-00bb-01"}"#.into()),
                ..Forwarded::default()
            })),
            ..CallOptions::default()
        };
        let got = c
            .complete_with(
                janus_client::CompletionRef::Prompt("hang"),
                "word",
                "w",
                &[],
                o,
            )
            .await
            .unwrap();
        // NB. The backend has 5,000 and gave 100: the front's client hears of the rest.
        assert_eq!(got.values.len(), 100, "{back}");
        assert_eq!(got.values[0], "w0", "{back}");
        assert_eq!((got.total, got.has_more), (Some(5000), true), "{back}");
        c.close(Duration::from_secs(2)).await;

        let asked: Vec<_> = lines_of(&heard)
            .into_iter()
            .filter(|l| l["method"] == "completion/complete")
            .collect();
        assert_eq!(asked.len(), 1, "{back}: {asked:?}");
        let meta = &asked[0]["params"]["_meta"];
        assert_eq!(meta["traceparent"], "00-77aa-00bb-01", "{back}: {meta}");
        if back == "modern" {
            assert_eq!(
                meta["io.modelcontextprotocol/clientInfo"]["name"], "front-app",
                "{meta}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
