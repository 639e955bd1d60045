//! Input a backend asks during several requests at once (`tools/call`, `prompts/get`),
//! through `janus bridge`: each question reaches the front request it belongs to, and each
//! answer the request that asked. A 2026-07-28 backend names the request in its
//! `input_required`; a handshake backend on streamable HTTP sends its request on the
//! response stream of the call it is for. A handshake backend on stdio names none: its
//! question goes to one of the calls of the one front client they all came from, and is
//! refused when they came from several.

use janus_client::{CallOptions, Callbacks, Client, Mode, Options, Transport};
use std::time::Duration;

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

/// Answers an elicitation with its own message as the username (and "tea" as the context a
/// prompt asks), after a pause (so that the calls' questions are all out at once).
fn echoing() -> Callbacks {
    Callbacks::new().elicit(|params| async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let p: serde_json::Value = serde_json::from_str(&params).unwrap();
        let content =
            serde_json::json!({"username": p["message"], "email": "a@b.c", "context": "tea"});
        Ok(serde_json::json!({"action": "accept", "content": content}).to_string())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_backend_s_questions_during_calls_in_flight_go_to_their_own_calls() {
    for front in [Mode::Modern, Mode::Legacy] {
        questions_go_to_their_own_calls(front, &stdio_bridge("modern"), true).await;
    }
}

/// `janus bridge` speaking `mode` to `janus serve --tools conformance` on stdio.
fn stdio_bridge(mode: &str) -> [&str; 8] {
    [
        "bridge",
        "--mode",
        mode,
        "--",
        JANUS,
        "serve",
        "--tools",
        "conformance",
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_http_backend_s_questions_during_calls_in_flight_go_to_their_own_calls() {
    let backend = support::HttpServe::start(&["--tools", "conformance"]);
    let upstream = format!("http://{}/mcp", backend.addr);
    let bridge = [
        "bridge",
        "--mode",
        "legacy",
        "--upstream",
        upstream.as_str(),
    ];
    for front in [Mode::Modern, Mode::Legacy] {
        questions_go_to_their_own_calls(front, &bridge, false).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_stdio_backend_s_questions_during_calls_in_flight_reach_their_one_client() {
    // NB. Nothing ties such a question to its call: each is put to one of the calls in
    // flight of the front's one client, and each answer still reaches the question it
    // answers (so every call gets its own message back).
    for front in [Mode::Modern, Mode::Legacy] {
        questions_go_to_their_own_calls(front, &stdio_bridge("legacy"), true).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_stdio_backend_s_question_is_never_put_to_another_front_client() {
    // NB. Two clients of an HTTP front, one stdio backend: while one client's call runs, a
    // question of the other's cannot be told apart, and is refused, not put to the first.
    let front = support::HttpServe::launch(&[
        "bridge",
        "--http",
        "127.0.0.1:0",
        "--mode",
        "legacy",
        "--",
        JANUS,
        "serve",
        "--tools",
        "faults",
    ]);
    let url = format!("http://{}/mcp", front.addr);
    let asked_first = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&asked_first);
    let first_opts = Options {
        mode: Mode::Legacy,
        callbacks: Callbacks::new().elicit(move |_| {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            async { Ok(r#"{"action":"accept","content":{"username":"first"}}"#.to_owned()) }
        }),
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let http = || Transport::Http {
        url: url.clone(),
        headers: Vec::new(),
    };
    let first = Client::connect(http(), first_opts).await.unwrap();
    let second_opts = Options {
        mode: Mode::Modern,
        callbacks: echoing(),
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let second = Client::connect(http(), second_opts).await.unwrap();
    let sleeping = first.call_tool("sleep", Some(r#"{"ms":1500}"#), CallOptions::default());
    let asking = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        second
            .call_tool(
                "elicit",
                Some(r#"{"message":"second?"}"#),
                CallOptions::default(),
            )
            .await
    };
    let (slept, asked) = tokio::join!(sleeping, asking);
    let slept = slept.unwrap();
    assert!(slept.text().contains("slept 1500"), "{slept:?}");
    assert!(
        !asked_first.load(std::sync::atomic::Ordering::SeqCst),
        "the first client was asked the second's question"
    );
    // NB. The backend's question was refused: the call fails, with no answer of a user.
    match asked {
        Ok(r) => assert!(
            r.is_error && !r.text().contains("accept"),
            "the second call: {r:?}"
        ),
        Err(janus_client::Error::Rejected(r)) => assert!(r.code < 0, "{r}"),
        Err(e) => panic!("the second call: {e}"),
    }
    // NB. Alone in flight, the same question reaches its client.
    let r = second
        .call_tool(
            "elicit",
            Some(r#"{"message":"alone?"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("alone?"), "{r:?}");
    first.close(Duration::from_secs(2)).await;
    second.close(Duration::from_secs(2)).await;
}

/// Eight elicitations at once (and, with `prompts`, four prompts that ask in rounds) through
/// `janus BRIDGE...`, each answered with its own message.
async fn questions_go_to_their_own_calls(front: Mode, bridge: &[&str], prompts: bool) {
    {
        let cmd = janus_client::Command::new(JANUS, bridge.iter().copied());
        let opts = Options {
            mode: front,
            callbacks: echoing(),
            timeout: Duration::from_secs(20),
            cache: janus_client::AutoCache::default(),
            ..Options::default()
        };
        let c = std::sync::Arc::new(Client::connect(Transport::Stdio(cmd), opts).await.unwrap());
        // All in flight at once, each asked its own question.
        let mut calls = tokio::task::JoinSet::new();
        for i in 0..8 {
            let c = std::sync::Arc::clone(&c);
            calls.spawn(async move {
                let args = format!(r#"{{"message":"who-{i}?"}}"#);
                let r = c
                    .call_tool("test_elicitation", Some(&args), CallOptions::default())
                    .await
                    .unwrap_or_else(|e| panic!("{front:?} front, call {i}: {e}"));
                assert!(
                    r.text().contains(&format!("who-{i}?")),
                    "{front:?} front, call {i}: {}",
                    r.text()
                );
            });
        }
        // ... and prompts/get, whose input goes the same way.
        for i in 0..if prompts { 4 } else { 0 } {
            let c = std::sync::Arc::clone(&c);
            calls.spawn(async move {
                let p = c
                    .get_prompt("test_input_required_result_prompt", &[])
                    .await
                    .unwrap_or_else(|e| panic!("{front:?} front, prompt {i}: {e}"));
                let text = format!("{:?}", p.messages);
                assert!(text.contains("context in mind: tea"), "{front:?}: {text}");
            });
        }
        while let Some(done) = calls.join_next().await {
            done.unwrap();
        }
        let c = std::sync::Arc::into_inner(c).expect("the calls are done");
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_a_question_waits_for_the_front_s_client_is_not_the_backend_s_timeout() {
    // NB. The backend call's timeout is 2 s, and the person answering a 2026-07-28 front's
    // round takes 3: the front's request ended with the round, and the backend waits for its
    // retry, not the reverse, so the call goes on. (Its timeout ran on, the call was
    // cancelled at the backend under the question, and the retry failed.) A handshake
    // front's request stays open while its client is asked: there the timeout runs on
    // (`bridge_rounds`).
    let callbacks = Callbacks::new().elicit(|_| async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        Ok(r#"{"action":"accept","content":{"username":"ada","email":"ada@example.com"}}"#.into())
    });
    let opts = Options {
        mode: Mode::Modern,
        callbacks,
        timeout: Duration::from_secs(20),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    let cmd = janus_client::Command::new(
        JANUS,
        [
            "bridge",
            "--timeout-secs",
            "2",
            "--mode",
            "legacy",
            "--",
            JANUS,
            "serve",
            "--tools",
            "conformance",
        ],
    );
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let r = c
        .call_tool(
            "test_elicitation",
            Some(r#"{"message":"who?"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("ada"), "{}", r.text());
    c.close(Duration::from_secs(2)).await;
}
