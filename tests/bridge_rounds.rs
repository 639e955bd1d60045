//! A backend's questions asked one after another during one call, through `janus bridge`:
//! each round of the front's client answers the question it was asked (the keys of a call's
//! rounds are never reused: the server core serves a retry every earlier answer). And a
//! question the front's client cannot or does not answer (it did not declare the capability,
//! answered with an error, cancelled) is answered at the backend at once, not left to time
//! out there.

use janus_client::{
    CallOptions, Callbacks, Cancel, Client, Command, Mode, Options, Rejection, Transport,
};
use std::time::Duration;
use support::copies::{bridge_copying, line_in};

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

/// Answers the conformance fixture's two steps, each with what its own message asks.
fn by_step() -> Callbacks {
    Callbacks::new().elicit(|params| async move {
        let content = if params.contains("Step 1") {
            r#"{"name":"Ada"}"#
        } else {
            r#"{"color":"teal"}"#
        };
        Ok(format!(r#"{{"action":"accept","content":{content}}}"#))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_s_questions_in_sequence_each_get_their_own_answer() {
    for front in [Mode::Modern, Mode::Legacy] {
        let cmd = Command::new(
            JANUS,
            [
                "bridge",
                "--mode",
                "legacy",
                "--",
                JANUS,
                "serve",
                "--tools",
                "conformance",
            ],
        );
        let opts = Options {
            mode: front,
            callbacks: by_step(),
            timeout: Duration::from_secs(20),
            cache: janus_client::AutoCache::default(),
            ..Options::default()
        };
        let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
        for _ in 0..2 {
            let r = c
                .call_tool(
                    "test_input_required_result_multi_round",
                    None,
                    CallOptions::default(),
                )
                .await
                .unwrap_or_else(|e| panic!("{front:?} front: {e}"));
            assert_eq!(
                r.text(),
                "Hello Ada, your favorite color is teal.",
                "{front:?} front: {r:?}"
            );
        }
        c.close(Duration::from_secs(2)).await;
    }
}

/// A fresh file for what the bridge sends its backend.
fn heard_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("janus-bridge-rounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let heard = dir.join(name);
    let _ = std::fs::remove_file(&heard);
    heard
}

/// An error answer of the bridge's to a request of the backend's.
fn refused_at_backend(l: &serde_json::Value) -> bool {
    l.get("error").is_some() && l.get("method").is_none()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_the_front_cannot_or_does_not_answer_is_answered_at_the_backend_at_once() {
    // A front client that declared no elicitation (either era): the front's request is
    // refused as the server core refuses it (-32021; a tool error on a handshake session),
    // and the backend's question at once.
    for front in [Mode::Modern, Mode::Legacy] {
        let heard = heard_file(&format!("undeclared-{front:?}.jsonl"));
        let opts = Options {
            mode: front,
            timeout: Duration::from_secs(20),
            ..Options::default()
        };
        let cmd = bridge_copying("legacy", "conformance", &heard);
        let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
        let args = Some(r#"{"message":"who?"}"#);
        let call = c.call_tool("test_elicitation", args, CallOptions::default());
        let (answered, line) = tokio::join!(
            call,
            line_in(&heard, "the question refused", refused_at_backend)
        );
        assert!(line["error"]["code"].is_i64(), "{front:?}: {line}");
        match (front, answered) {
            (Mode::Modern, Err(janus_client::Error::Rejected(r))) => {
                assert_eq!(r.code, -32021, "{r}");
            }
            (Mode::Legacy, Ok(r)) => assert!(r.is_error, "{r:?}"),
            (_, other) => panic!("{front:?}: {other:?}"),
        }
        c.close(Duration::from_secs(2)).await;
    }
    // A handshake client that answers with an error: the backend's question gets an error
    // at once too.
    let heard = heard_file("error.jsonl");
    let opts = Options {
        mode: Mode::Legacy,
        callbacks: Callbacks::new().elicit(|_| async {
            Err(Rejection {
                code: -1,
                message: "no".into(),
                data: None,
            })
        }),
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let cmd = bridge_copying("legacy", "conformance", &heard);
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let args = Some(r#"{"message":"who?"}"#);
    let r = c
        .call_tool("test_elicitation", args, CallOptions::default())
        .await;
    assert!(r.as_ref().is_ok_and(|r| r.is_error), "{r:?}");
    line_in(&heard, "the question refused", refused_at_backend).await;
    c.close(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_while_its_question_waits_is_cancelled_at_the_backend() {
    let heard = heard_file("cancel.jsonl");
    let opts = Options {
        mode: Mode::Legacy,
        // NB. Never answers in the test's time.
        callbacks: Callbacks::new().elicit(|_| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(r#"{"action":"decline"}"#.into())
        }),
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let cmd = bridge_copying("legacy", "conformance", &heard);
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let cancel = Cancel::new();
    let o = CallOptions {
        cancel: Some(cancel.clone()),
        ..CallOptions::default()
    };
    let args = Some(r#"{"message":"who?"}"#);
    let call = c.call_tool("test_elicitation", args, o);
    let fire = async {
        // NB. Once the question is out (the bridge's call went to the backend), a moment
        // for it to reach the front's client.
        line_in(&heard, "the call", |l| l["method"] == "tools/call").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.fire();
    };
    let (r, ()) = tokio::join!(call, fire);
    assert!(r.is_err(), "{r:?}");
    line_in(&heard, "the cancel", |l| {
        l["method"] == "notifications/cancelled"
    })
    .await;
    c.close(Duration::from_secs(2)).await;
}
