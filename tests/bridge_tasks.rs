//! A 2026-07-28 backend's own tasks (the tasks extension) behind `janus bridge`: the bridge
//! declares the extension, waits for the task the backend makes of a call (its input asked
//! of the front's client on the way), and cancels it with `tasks/cancel` when the front's
//! call is cancelled. And janus-client's own wait for a task, directly.

use janus_client::{
    CallOptions, Callbacks, Cancel, Client, Command, Error, Mode, Options, Transport,
};
use std::path::PathBuf;
use std::time::Duration;
use support::copies::{bridge_copying, line_in, lines_of, wait_for_line};
use support::raw_front::RawFront;

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

/// A client (in `front`, declaring the tasks extension or not) of `janus bridge --mode
/// modern` in front of `janus serve --tools conformance`, what the bridge sends its backend
/// copied to a file: the client, the test's directory and that file.
async fn front_of_copied_modern_backend(
    name: &str,
    front: Mode,
    tasks: bool,
) -> (Client, PathBuf, PathBuf) {
    let dir = scratch(name);
    let heard = dir.join("to-backend.jsonl");
    let cmd = bridge_copying("modern", "conformance", &heard);
    let c = Client::connect(Transport::Stdio(cmd), options(front, tasks))
        .await
        .expect("the bridge serves");
    (c, dir, heard)
}

/// Whether a request the bridge sent declares the tasks extension.
fn declares_tasks(l: &serde_json::Value) -> bool {
    l["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
        .get("io.modelcontextprotocol/tasks")
        .is_some()
}

/// A directory of its own for one test's copies.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("janus-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_backend_s_tasks_are_waited_for_behind_the_bridge() {
    let (c, dir, heard) =
        front_of_copied_modern_backend("bridge-modern-tasks", Mode::Legacy, false).await;
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
    let calls_of = |tool: &str| -> Vec<&serde_json::Value> {
        sent.iter()
            .filter(|l| l["method"] == "tools/call" && l["params"]["name"] == tool)
            .collect()
    };
    assert!(
        calls_of("failing_job").iter().any(|l| declares_tasks(l)),
        "{sent:?}"
    );
    assert!(
        !calls_of("confirm_delete").iter().any(|l| declares_tasks(l)),
        "{sent:?}"
    );
    // The bridge's waits speak for the front's client, as its calls do, and declare the
    // extension they need.
    let polls: Vec<_> = sent.iter().filter(|l| l["method"] == "tasks/get").collect();
    assert!(
        polls.iter().all(|l| declares_tasks(l)
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
async fn a_modern_front_waits_for_a_modern_backend_s_tasks_with_their_results_as_sent() {
    // A 2026-07-28 client that declares the tasks extension, in front of a 2026-07-28
    // backend: the bridge's first call of a task-only tool is refused (-32021) and made again
    // declaring the extension; the task's result reaches the front.
    let (c, dir, heard) =
        front_of_copied_modern_backend("bridge-modern-front-tasks", Mode::Modern, true).await;
    let r = c
        .call_tool("failing_job", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert!(r.is_error && r.text().contains("failed"), "{r:?}");
    let r = c
        .call_tool("test_tool_with_task", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "Hello, ada, from a task", "{r:?}");
    let sent = lines_of(&heard);
    assert!(
        sent.iter().any(|l| l["method"] == "tasks/get"),
        "the backend's tasks were waited for: {sent:?}"
    );
    let declared: Vec<bool> = sent
        .iter()
        .filter(|l| l["method"] == "tools/call" && l["params"]["name"] == "failing_job")
        .map(declares_tasks)
        .collect();
    assert_eq!(
        declared,
        [false, true],
        "refused, then made declaring: {sent:?}"
    );
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

#[test]
fn a_tool_the_backend_runs_only_as_a_task_is_a_task_at_the_front() {
    let mut f = RawFront::start();
    let mut id = 1;
    // A tool error of the backend's task: the front's task completes, with the error result.
    let made = f.ask(id, "tools/call", r#""name":"failing_job","arguments":{}"#);
    assert_eq!(made["result"]["resultType"], "task", "{made}");
    let task = made["result"]["taskId"].as_str().unwrap().to_owned();
    let done = f.settled(&mut id, &task);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    // Input the backend's task asks for: the front's task waits in input_required with the
    // request; tasks/update answers it, and the task completes with what was answered.
    id += 1;
    let made = f.ask(
        id,
        "tools/call",
        r#""name":"confirm_delete","arguments":{"filename":"a.txt"}"#,
    );
    let task = made["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = f.settled(&mut id, &task);
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let asked = waiting["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(asked.len(), 1, "{waiting}");
    let (key, request) = asked.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{waiting}");
    assert!(
        request["params"]["message"]
            .as_str()
            .unwrap()
            .contains("a.txt")
    );
    id += 1;
    let ack = f.ask(
        id,
        "tasks/update",
        &format!(
            r#""taskId":"{task}","inputResponses":{{"{key}":{{"action":"accept","content":{{"confirm":true}}}}}}"#
        ),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = f.settled(&mut id, &task);
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("a.txt: action=accept"), "{text}");
    // A tool the backend runs only as a task, which asks before its task exists: the front
    // asks in a round of the call, with no task yet; the retry that answers makes the task,
    // which ends with what was answered.
    id += 1;
    let call = r#""name":"test_tool_with_task","arguments":{}"#;
    let round = f.ask(id, "tools/call", call);
    let r = &round["result"];
    assert_eq!(r["resultType"], "input_required", "{round}");
    assert!(r.get("taskId").is_none(), "{round}");
    let asked = r["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(asked.len(), 1, "{round}");
    let (key, request) = asked.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{round}");
    id += 1;
    let retry = format!(
        r#"{call},"inputResponses":{{"{key}":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":{}"#,
        r["requestState"]
    );
    let made = f.ask(id, "tools/call", &retry);
    let r = &made["result"];
    assert_eq!(r["resultType"], "task", "{made}");
    assert!(r.get("requestState").is_none() && r.get("inputRequests").is_none());
    let task = r["taskId"].as_str().expect("taskId").to_owned();
    let done = f.settled(&mut id, &task);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Alice, from a task",
        "{done}"
    );
}

#[test]
fn cancelling_the_front_task_cancels_the_backend_s_task() {
    // failing_job runs only as a task, for half a second. Cancelled at once (before the
    // backend's task exists, say), then once the backend has answered with its task; each
    // on a bridge of its own.
    for early in [true, false] {
        cancel_one_front_task(early);
    }
}

/// One front task cancelled (`early`: at once; else once the backend's task exists), and
/// the backend's task is cancelled with `tasks/cancel`, never `notifications/cancelled`.
fn cancel_one_front_task(early: bool) {
    // NB. What the bridge sends the backend and what it answers are copied to files.
    let dir = std::env::temp_dir().join(format!(
        "janus-bridge-cancel-{}-{early}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (heard, said) = (dir.join("to-backend.jsonl"), dir.join("from-backend.jsonl"));
    let script = r#"tee "$0" | "$1" serve --tools conformance | tee "$2""#;
    let mut f = RawFront::start_with(&[
        "sh",
        "-c",
        script,
        heard.to_str().unwrap(),
        JANUS,
        said.to_str().unwrap(),
    ]);
    let made_n = |l: &serde_json::Value| l["result"]["task"]["taskId"].is_string();
    let made = f.ask(1, "tools/call", r#""name":"failing_job","arguments":{}"#);
    assert_eq!(made["result"]["resultType"], "task", "{made}");
    let task = made["result"]["taskId"].as_str().unwrap().to_owned();
    if !early {
        wait_for_line(&said, "the backend's task", made_n);
    }
    let cancelled = f.ask(2, "tasks/cancel", &format!(r#""taskId":"{task}""#));
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let mut id = 2;
    let ended = f.settled(&mut id, &task);
    assert_eq!(ended["status"], "cancelled", "{ended}");
    // NB. Cancelled at once, the front's work may end before it called the backend at all:
    // then there is nothing to cancel there.
    let asked = |l: &serde_json::Value| l["method"] == "tools/call";
    // (What was sent on the way has 300 ms to reach the copy.)
    if early {
        std::thread::sleep(Duration::from_millis(300));
    }
    if early && !lines_of(&heard).iter().any(asked) {
        drop(f);
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    // The task the backend made was cancelled there, with tasks/cancel.
    let made = wait_for_line(&said, "the backend's task", made_n);
    let backend_task = made["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_for_line(&heard, &format!("tasks/cancel of {backend_task}"), |l| {
        l["method"] == "tasks/cancel" && l["params"]["taskId"] == backend_task.as_str()
    });
    let sent = lines_of(&heard);
    let call = sent
        .iter()
        .find(|l| l["method"] == "tools/call")
        .map(|l| l["id"].clone())
        .expect("the task-making call");
    assert!(
        !sent
            .iter()
            .any(|l| l["method"] == "notifications/cancelled" && l["params"]["requestId"] == call),
        "the task-making request was cancelled with notifications/cancelled"
    );
    drop(f);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cancelled_front_task_does_not_hold_up_the_next_one() {
    // Task-making calls on one bridge, each cancelled: at once, then once the backend has
    // heard it, in turn. Each one cancelled late must have reached the backend: a call
    // cancelled before (with its backend task still being made) holds nothing up.
    let dir = std::env::temp_dir().join(format!("janus-bridge-next-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let heard = dir.join("to-backend.jsonl");
    let mut f = RawFront::start_with(&[
        "sh",
        "-c",
        r#"tee "$0" | "$1" serve --tools conformance"#,
        heard.to_str().unwrap(),
        JANUS,
    ]);
    let calls = || {
        lines_of(&heard)
            .iter()
            .filter(|l| l["method"] == "tools/call")
            .count()
    };
    let mut id = 1;
    for n in 0..6 {
        let before = calls();
        id += 1;
        let made = f.ask(id, "tools/call", r#""name":"failing_job","arguments":{}"#);
        let task = made["result"]["taskId"].as_str().unwrap().to_owned();
        if n % 2 == 1 {
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            while calls() == before {
                assert!(
                    std::time::Instant::now() < deadline,
                    "call {n} never reached the backend; it heard:\n{}",
                    std::fs::read_to_string(&heard).unwrap_or_default()
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        id += 1;
        let cancelled = f.ask(id, "tasks/cancel", &format!(r#""taskId":"{task}""#));
        assert!(cancelled.get("error").is_none(), "{cancelled}");
        assert_eq!(f.settled(&mut id, &task)["status"], "cancelled");
    }
    drop(f);
    let _ = std::fs::remove_dir_all(&dir);
}
