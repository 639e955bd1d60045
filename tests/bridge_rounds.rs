//! A backend's questions asked one after another during one call, through `janus bridge`:
//! each round of the front's client answers the question it was asked (the keys of a call's
//! rounds are never reused: the server core serves a retry every earlier answer).

use janus_client::{CallOptions, Callbacks, Client, Command, Mode, Options, Transport};
use std::time::Duration;

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
