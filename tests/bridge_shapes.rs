//! What a broken handshake backend answers, through `janus bridge`: a `resultType` (no
//! member of its revision) is no signal, the call runs once; an error object of the wrong
//! shape, or one that speaks of the bridge's own request (`-32700`, `-32600`, `-32022`), is
//! `-32603` saying why; a result whose blocks, `structuredContent` or `isError` are of the
//! wrong type is `-32603` saying why; the backend's own errors go on as it gave them.

use janus_client::{CallOptions, Client, Command, Error, Mode, Options, Transport};
use std::time::Duration;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

async fn front(mode: Mode) -> Client {
    let cmd = Command::new(
        JANUS,
        [
            "bridge", "--mode", "legacy", "--", JANUS, "serve", "--tools", "faults",
        ],
    );
    let opts = Options {
        mode,
        timeout: Duration::from_secs(10),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    Client::connect(Transport::Stdio(cmd), opts).await.unwrap()
}

/// The backend's tool `says` answers with `answer`'s members as they are.
async fn says(c: &Client, answer: &str) -> Result<janus_client::CallResult, Error> {
    let args = format!(r#"{{"answer":{answer}}}"#);
    c.call_tool("says", Some(&args), CallOptions::default())
        .await
}

/// The call's error: `code`, and a `data.reason` that holds `why`.
fn refused(r: Result<janus_client::CallResult, Error>, code: i64, why: &str, label: &str) {
    match r {
        Err(Error::Rejected(r)) => {
            assert_eq!(r.code, code, "{label}: {r}");
            let data: serde_json::Value =
                serde_json::from_str(r.data.as_deref().unwrap_or("null")).unwrap();
            let reason = data["reason"].as_str().unwrap_or_default();
            assert!(reason.contains(why), "{label}: {r}");
        }
        other => panic!("{label}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_backend_s_result_type_is_no_signal() {
    for mode in [Mode::Modern, Mode::Legacy] {
        let c = front(mode).await;
        let r = says(
            &c,
            r#"{"result":{"content":[{"type":"text","text":"once"}],"resultType":"input_required","inputRequests":{"x":{"method":"roots/list"}}}}"#,
        )
        .await
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!(r.text(), "once", "{mode:?}");
        let r = says(
            &c,
            r#"{"result":{"content":[{"type":"text","text":"no task"}],"resultType":"task","task":{"taskId":"t1","status":"working"}}}"#,
        )
        .await
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!(r.text(), "no task", "{mode:?}");
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_s_errors_reach_the_front_as_what_they_say() {
    for mode in [Mode::Modern, Mode::Legacy] {
        let c = front(mode).await;
        let label = format!("{mode:?}");
        refused(
            says(&c, r#"{"error":"str"}"#).await,
            -32603,
            "malformed",
            &label,
        );
        // NB. What the backend sent stays out of the message.
        match says(&c, r#"{"error":"backend text"}"#).await {
            Err(Error::Rejected(r)) => assert_eq!(r.message, "Internal error", "{label}: {r}"),
            other => panic!("{label}: {other:?}"),
        }
        refused(
            says(&c, r#"{"error":{"code":1.5,"message":"m"}}"#).await,
            -32603,
            "malformed",
            &label,
        );
        refused(
            says(&c, r#"{"error":{"code":-32700,"message":"Parse error"}}"#).await,
            -32603,
            "-32700",
            &label,
        );
        refused(
            says(
                &c,
                r#"{"error":{"code":-32022,"message":"Unsupported","data":{"supported":["x"]}}}"#,
            )
            .await,
            -32603,
            "-32022",
            &label,
        );
        refused(
            says(&c, r#"{"error":{"code":-32603,"message":"db down"}}"#).await,
            -32603,
            "db down",
            &label,
        );
        // The backend's own refusal of the call goes on as it gave it.
        match says(
            &c,
            r#"{"error":{"code":-32602,"message":"no such city","data":{"city":"x"}}}"#,
        )
        .await
        {
            Err(Error::Rejected(r)) => {
                assert_eq!(
                    (r.code, r.message.as_str()),
                    (-32602, "no such city"),
                    "{label}"
                );
                assert_eq!(r.data.as_deref(), Some(r#"{"city":"x"}"#), "{label}");
            }
            other => panic!("{label}: {other:?}"),
        }
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_of_the_wrong_shape_is_an_internal_error_saying_why() {
    for mode in [Mode::Modern, Mode::Legacy] {
        let c = front(mode).await;
        let label = format!("{mode:?}");
        for (answer, why) in [
            (
                r#"{"result":{"content":[5,{"type":"text","text":"a"}]}}"#,
                "block",
            ),
            (r#"{"result":{"content":[{"text":"untyped"}]}}"#, "block"),
            (
                r#"{"result":{"content":[],"structuredContent":5}}"#,
                "structuredContent",
            ),
            (r#"{"result":{"content":[],"isError":"yes"}}"#, "isError"),
        ] {
            refused(
                says(&c, answer).await,
                -32603,
                why,
                &format!("{label} {answer}"),
            );
        }
        // A block of a type no revision has yet goes on, as do the well-formed members.
        let r = says(
            &c,
            r#"{"result":{"content":[{"type":"text","text":"ok"},{ "x":1, "type":"future_kind"}],"structuredContent":{"n":1},"isError":false}}"#,
        )
        .await
        .unwrap();
        assert_eq!(r.text(), "ok", "{label}");
        assert_eq!(r.content.len(), 2, "{label}: {r:?}");
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_frame_cap_fails_its_call_at_once() {
    let c = front(Mode::Modern).await;
    // NB. The bridge's own cap on a backend's line is 8 MiB; the front's call waits 10 s.
    let r = c
        .call_tool("huge", Some(r#"{"size":9000000}"#), CallOptions::default())
        .await;
    refused(r, -32603, "longer than", "9 MB");
    let r = c
        .call_tool("huge", Some(r#"{"size":1000}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text().len(), 1000);
    c.close(Duration::from_secs(2)).await;
}
