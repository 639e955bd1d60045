//! janus-client's resources, prompts, completions and input callbacks against `janus serve
//! --tools conformance` (a child process, and over streamable HTTP), in both eras.

use janus_client::{
    CallOptions, Callbacks, Client, Command, CompletionRef, Mode, Options, Transport,
};
use std::time::Duration;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

fn options(mode: Mode) -> Options {
    let callbacks = Callbacks::new()
        .elicit(|_| async {
            Ok(
                r#"{"action":"accept","content":{"username":"ada","email":"ada@example.com"}}"#
                    .into(),
            )
        })
        .sample(|_| async {
            Ok(
                r#"{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"test"}"#
                    .into(),
            )
        });
    Options {
        mode,
        callbacks,
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    }
}

async fn exercise(c: &Client, label: &str) {
    let resources = c.list_resources().await.unwrap();
    assert!(
        resources.iter().any(|r| r.uri == "test://static-text"),
        "{label}"
    );
    let text = c.read_resource("test://static-text").await.unwrap();
    assert!(
        text[0].text().is_some_and(|t| !t.is_empty()),
        "{label}: {text:?}"
    );
    let binary = c.read_resource("test://static-binary").await.unwrap();
    assert!(
        binary[0].blob().is_some() && binary[0].text().is_none(),
        "{label}"
    );
    let templated = c.read_resource("test://template/42/data").await.unwrap();
    assert!(templated[0].text().unwrap().contains("42"), "{label}");
    let e = c.read_resource("test://nothing").await.unwrap_err();
    assert!(e.rejection().is_some(), "{label}: {e}");
    let templates = c.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "test://template/{id}/data");
    let prompts = c.list_prompts().await.unwrap();
    let p = prompts
        .iter()
        .find(|p| p.name == "test_prompt_with_arguments")
        .unwrap();
    assert!(p.arguments.iter().all(|a| a.required), "{label}");
    let got = c
        .get_prompt(
            "test_prompt_with_arguments",
            &[("arg1", "a"), ("arg2", "b")],
        )
        .await
        .unwrap();
    assert_eq!(got.messages[0].0, janus_model::content::Role::User);
    assert!(
        got.messages[0].1.as_text().is_some_and(|t| t.contains('a')),
        "{label}"
    );
    // A missing required argument is the server's rejection.
    assert!(
        c.get_prompt("test_prompt_with_arguments", &[])
            .await
            .unwrap_err()
            .rejection()
            .is_some()
    );
    let values = c
        .complete(
            CompletionRef::Prompt("test_prompt_with_arguments"),
            "arg1",
            "par",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(values, ["paris", "park", "party"], "{label}");
    // Input from the server, through the callbacks, whatever the era.
    let r = c
        .call_tool(
            "test_elicitation",
            Some(r#"{"message":"who?"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(!r.is_error, "{label}: {r:?}");
    assert!(r.text().contains("ada"), "{label}: {r:?}");
    let r = c
        .call_tool(
            "test_sampling",
            Some(r#"{"prompt":"hi"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("sampled"), "{label}: {r:?}");
}

#[tokio::test]
async fn the_servers_log_messages_reach_the_caller_at_the_level_asked() {
    for mode in [Mode::Legacy, Mode::Modern] {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let o = Options {
            logs: Some(tx),
            log_level: Some("debug".into()),
            ..options(mode)
        };
        let t = Transport::Stdio(Command::new(JANUS, ["serve", "--tools", "conformance"]));
        let c = Client::connect(t, o).await.unwrap();
        let r = c
            .call_tool("test_tool_with_logging", Some("{}"), CallOptions::default())
            .await
            .unwrap();
        assert!(!r.is_error, "{mode:?}: {r:?}");
        let mut got = Vec::new();
        while let Ok(m) = rx.try_recv() {
            got.push(m);
        }
        assert_eq!(got.len(), 3, "{mode:?}: {got:?}");
        assert!(
            got.iter()
                .all(|m| !m.level.is_empty() && !m.data.is_empty())
        );
        c.close(Duration::from_secs(2)).await;
        // Without a level asked, a 2026-07-28 server sends none.
        if mode == Mode::Modern {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let o = Options {
                logs: Some(tx),
                ..options(mode)
            };
            let t = Transport::Stdio(Command::new(JANUS, ["serve", "--tools", "conformance"]));
            let c = Client::connect(t, o).await.unwrap();
            c.call_tool("test_tool_with_logging", Some("{}"), CallOptions::default())
                .await
                .unwrap();
            assert!(rx.try_recv().is_err());
            c.close(Duration::from_secs(2)).await;
        }
    }
}

#[tokio::test]
async fn the_surface_over_stdio_in_both_eras() {
    for mode in [Mode::Legacy, Mode::Modern] {
        let t = Transport::Stdio(Command::new(JANUS, ["serve", "--tools", "conformance"]));
        let c = Client::connect(t, options(mode)).await.unwrap();
        exercise(&c, &format!("stdio {mode:?}")).await;
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test]
async fn the_surface_over_http_in_both_eras() {
    let mut child = tokio::process::Command::new(JANUS)
        .args(["serve", "--tools", "conformance", "--http", "127.0.0.1:0"])
        .env("JANUS_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let addr = {
        use tokio::io::AsyncBufReadExt;
        let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .expect("janus says where it listens")
                .unwrap()
                .expect("a log line");
            if let Some(rest) = line.split("addr=").nth(1) {
                break rest.split_whitespace().next().unwrap().to_owned();
            }
        }
    };
    for mode in [Mode::Legacy, Mode::Modern, Mode::Auto] {
        let t = Transport::Http {
            url: format!("http://{addr}/mcp"),
            headers: Vec::new(),
        };
        let c = Client::connect(t, options(mode)).await.unwrap();
        exercise(&c, &format!("http {mode:?}")).await;
        c.close(Duration::from_secs(2)).await;
    }
    child.kill().await.ok();
}
