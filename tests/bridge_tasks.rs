//! A 2026-07-28 backend's own tasks (the tasks extension) behind `janus bridge`: the bridge
//! declares the extension, waits for the task the backend makes of a call (its input asked
//! of the front's client on the way), and cancels it with `tasks/cancel` when the front's
//! call is cancelled. And janus-client's own wait for a task, directly.

use janus_client::{
    CallOptions, Callbacks, Cancel, Client, Command, Error, Mode, Options, Transport,
};
use std::path::PathBuf;
use std::time::Duration;
use support::copies::{bridge_copying, line_in, lines_of};

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

/// Answers every elicitation with the name "ada" (and a confirmation).
fn answering() -> Callbacks {
    Callbacks::new().elicit(|_| async {
        Ok(r#"{"action":"accept","content":{"name":"ada","confirm":true}}"#.into())
    })
}

fn options(mode: Mode, tasks: bool) -> Options {
    Options {
        mode,
        tasks,
        name: "front-host".into(),
        callbacks: answering(),
        timeout: Duration::from_secs(20),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    }
}

/// A directory of its own for one test's copies.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("janus-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_backend_s_tasks_are_waited_for_behind_the_bridge() {
    // NB. What the bridge sends its backend is copied to a file.
    let dir = scratch("bridge-modern-tasks");
    let heard = dir.join("to-backend.jsonl");
    let cmd = bridge_copying("modern", "conformance", &heard);
    let c = Client::connect(Transport::Stdio(cmd), options(Mode::Legacy, false))
        .await
        .expect("the bridge serves");
    // A tool the backend runs only as a task: its tool error, not -32021.
    let r = c
        .call_tool("failing_job", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert!(r.is_error && r.text().contains("failed"), "{r:?}");
    // One that asks in a round first, then runs as a task: the front's client answers the
    // round (as a real request on its legacy session).
    let r = c
        .call_tool("test_tool_with_task", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "Hello, ada, from a task", "{r:?}");
    // A tool the backend may run either way is called without the extension: a plain call
    // (its input asked in a round).
    let r = c
        .call_tool(
            "confirm_delete",
            Some(r#"{"filename":"a.txt"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("a.txt: action=accept"), "{r:?}");
    // The task-only ones were tasks at the backend, waited for with tasks/get; the other
    // was not declared a task's.
    let sent = lines_of(&heard);
    let asked = |m: &str| sent.iter().filter(|l| l["method"] == m).count();
    assert!(asked("tasks/get") >= 2, "{sent:?}");
    assert!(
        sent.iter().all(|l| l["method"] != "tasks/result"),
        "{sent:?}"
    );
    let declared = |l: &serde_json::Value| {
        l["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            .get("io.modelcontextprotocol/tasks")
            .is_some()
    };
    let calls_of = |tool: &str| -> Vec<&serde_json::Value> {
        sent.iter()
            .filter(|l| l["method"] == "tools/call" && l["params"]["name"] == tool)
            .collect()
    };
    assert!(
        calls_of("failing_job").iter().any(|l| declared(l)),
        "{sent:?}"
    );
    assert!(
        !calls_of("confirm_delete").iter().any(|l| declared(l)),
        "{sent:?}"
    );
    // The bridge's waits speak for the front's client, as its calls do, and declare the
    // extension they need.
    let polls: Vec<_> = sent.iter().filter(|l| l["method"] == "tasks/get").collect();
    assert!(
        polls.iter().all(|l| declared(l)
            && l["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"] == "front-host"),
        "{polls:?}"
    );
    // A call cancelled at the front cancels the backend's task, with tasks/cancel.
    let cancel = Cancel::new();
    let opts = CallOptions {
        cancel: Some(cancel.clone()),
        ..CallOptions::default()
    };
    let known = |l: &serde_json::Value| {
        sent.iter()
            .any(|s| s["method"] == "tasks/get" && s["params"]["taskId"] == l["params"]["taskId"])
    };
    let call = c.call_tool("failing_job", Some("{}"), opts);
    let fire = async {
        // (The backend answers with its task at once; the bridge then polls it.)
        let polled = line_in(&heard, "a poll of the new task", |l| {
            l["method"] == "tasks/get" && !known(l)
        })
        .await;
        cancel.fire();
        polled["params"]["taskId"].as_str().unwrap().to_owned()
    };
    let (got, task) = tokio::join!(call, fire);
    assert!(matches!(got, Err(Error::Cancelled)), "{got:?}");
    line_in(&heard, &format!("tasks/cancel of {task}"), |l| {
        l["method"] == "tasks/cancel" && l["params"]["taskId"] == task.as_str()
    })
    .await;
    c.close(Duration::from_secs(2)).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn janus_client_waits_for_a_task_when_it_declares_the_extension() {
    let serve = || Command::new(JANUS, ["serve", "--tools", "conformance"]);
    // Declared: the task's result is the call's.
    let c = Client::connect(Transport::Stdio(serve()), options(Mode::Modern, true))
        .await
        .unwrap();
    let r = c
        .call_tool("failing_job", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert!(r.is_error && r.text().contains("failed"), "{r:?}");
    let r = c
        .call_tool(
            "confirm_delete",
            Some(r#"{"filename":"b.txt"}"#),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("b.txt: action=accept"), "{r:?}");
    // Two questions at once within a task.
    let r = c
        .call_tool("multi_input", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "first: ada, second: ada", "{r:?}");
    // A task that fails with a protocol error: the error is the call's.
    let e = c
        .call_tool("protocol_error_job", Some("{}"), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.rejection().map(|r| r.code), Some(-32603), "{e}");
    c.close(Duration::from_secs(2)).await;
    // Not declared (the default): the server refuses a task-only tool with -32021; declared
    // on the one request, it is a task again.
    let c = Client::connect(Transport::Stdio(serve()), options(Mode::Modern, false))
        .await
        .unwrap();
    let e = c
        .call_tool("failing_job", Some("{}"), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.rejection().map(|r| r.code), Some(-32021), "{e}");
    let one = CallOptions {
        tasks: true,
        ..CallOptions::default()
    };
    let r = c.call_tool("failing_job", Some("{}"), one).await.unwrap();
    assert!(r.is_error && r.text().contains("failed"), "{r:?}");
    c.close(Duration::from_secs(2)).await;
}
