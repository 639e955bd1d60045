//! Tasks end to end over stdio, both generations (`decisions.md`, "Tasks"): create, poll,
//! result, cancel twice, unknown ids, expiry, and a cancelled task's work that really stops.

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::Server;

const EXT: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

fn modern(id: u64, method: &str, params: &str, caps: &str) -> String {
    let meta = format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}"#
    );
    let params = if params.is_empty() {
        format!("{{{meta}}}")
    } else {
        format!("{{{params},{meta}}}")
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

fn legacy(id: u64, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
}

fn ask(s: &mut Server, line: &str, id: u64) -> Value {
    s.send(line);
    s.expect_id(&json!(id)).expect("an answer")
}

/// Polls `tasks/get` until the status is terminal; returns the last answer.
fn poll_until_terminal(s: &mut Server, get: impl Fn(u64) -> String, first_id: u64) -> Value {
    let start = Instant::now();
    let mut id = first_id;
    loop {
        let r = ask(s, &get(id), id);
        let status = r["result"]["status"].as_str().unwrap_or("").to_owned();
        if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
            return r;
        }
        assert_eq!(status, "working", "{r}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the task never ended"
        );
        std::thread::sleep(Duration::from_millis(30));
        id += 1;
    }
}

#[test]
fn modern_extension_create_poll_result_cancel_twice_unknown() {
    let mut s = Server::start(&[]);
    let created = ask(
        &mut s,
        &modern(
            1,
            "tools/call",
            r#""name":"sleep","arguments":{"ms":150}"#,
            EXT,
        ),
        1,
    );
    let r = &created["result"];
    assert_eq!(r["resultType"], "task", "{created}");
    assert_eq!(r["status"], "working");
    assert!(r["ttlMs"].is_u64() && r["pollIntervalMs"].is_u64() && r["createdAt"].is_string());
    assert!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string());
    let task = r["taskId"].as_str().unwrap().to_owned();
    let get = |id: u64| modern(id, "tasks/get", &format!(r#""taskId":"{task}""#), EXT);
    let done = poll_until_terminal(&mut s, get, 100);
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "slept 150 ms"
    );
    // Cancel is idempotent: a completed task acknowledges and stays completed.
    for id in [2, 3] {
        let ack = ask(
            &mut s,
            &modern(id, "tasks/cancel", &format!(r#""taskId":"{task}""#), EXT),
            id,
        );
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    }
    let again = ask(&mut s, &get(4), 4);
    assert_eq!(again["result"]["status"], "completed");
    let ack = ask(
        &mut s,
        &modern(
            5,
            "tasks/update",
            &format!(r#""taskId":"{task}","inputResponses":{{}}"#),
            EXT,
        ),
        5,
    );
    assert_eq!(ack["result"]["resultType"], "complete");
    for (id, method) in [(6, "tasks/get"), (7, "tasks/cancel"), (8, "tasks/update")] {
        let r = ask(
            &mut s,
            &modern(id, method, r#""taskId":"no-such-task""#, EXT),
            id,
        );
        assert_eq!(r["error"]["code"], -32602, "{method}: {r}");
    }
    for (id, method) in [(9, "tasks/list"), (10, "tasks/result")] {
        let r = ask(
            &mut s,
            &modern(id, method, &format!(r#""taskId":"{task}""#), EXT),
            id,
        );
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
    }
    // Without the extension the same call is a plain result; a forbidden tool never a task.
    let plain = ask(
        &mut s,
        &modern(
            11,
            "tools/call",
            r#""name":"sleep","arguments":{"ms":1}"#,
            "{}",
        ),
        11,
    );
    assert_eq!(
        plain["result"]["content"][0]["text"], "slept 1 ms",
        "{plain}"
    );
    let fail = ask(
        &mut s,
        &modern(12, "tools/call", r#""name":"fail","arguments":{}"#, EXT),
        12,
    );
    assert_eq!(fail["result"]["isError"], true, "{fail}");
    assert!(fail["result"].get("taskId").is_none());
    s.finish().unwrap();
}

#[test]
fn a_cancelled_modern_task_stops_and_the_server_exits_without_waiting_for_it() {
    let mut s = Server::start(&[]);
    let created = ask(
        &mut s,
        &modern(
            1,
            "tools/call",
            r#""name":"sleep","arguments":{"ms":600000}"#,
            EXT,
        ),
        1,
    );
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let ack = ask(
        &mut s,
        &modern(2, "tasks/cancel", &format!(r#""taskId":"{task}""#), EXT),
        2,
    );
    assert_eq!(ack["result"]["resultType"], "complete");
    let got = ask(
        &mut s,
        &modern(3, "tasks/get", &format!(r#""taskId":"{task}""#), EXT),
        3,
    );
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert!(got["result"].get("result").is_none());
    // The ten-minute sleep is gone: the server exits at once when its input closes.
    let t = Instant::now();
    s.finish().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5));
}

fn legacy_session() -> Server {
    let mut s = Server::start(&[]);
    let init = ask(
        &mut s,
        &legacy(
            0,
            "initialize",
            r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}"#,
        ),
        0,
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"].is_object(),
        "{init}"
    );
    s
}

#[test]
fn legacy_tasks_create_result_list_cancel_twice_unknown() {
    let mut s = legacy_session();
    let list = ask(&mut s, &legacy(1, "tools/list", ""), 1);
    let sleep = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "sleep")
        .cloned()
        .unwrap();
    assert_eq!(sleep["execution"]["taskSupport"], "optional");
    let created = ask(
        &mut s,
        &legacy(
            2,
            "tools/call",
            r#""name":"sleep","arguments":{"ms":150},"task":{"ttl":60000}"#,
        ),
        2,
    );
    let t = &created["result"]["task"];
    assert_eq!(t["status"], "working", "{created}");
    assert_eq!(t["ttl"], 60000);
    let task = t["taskId"].as_str().unwrap().to_owned();
    // tasks/result waits for the end, then answers what the call would have, naming the task.
    let result = ask(
        &mut s,
        &legacy(3, "tasks/result", &format!(r#""taskId":"{task}""#)),
        3,
    );
    assert_eq!(
        result["result"]["content"][0]["text"], "slept 150 ms",
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task.as_str()
    );
    let status = s.expect_notification("notifications/tasks/status").unwrap();
    assert_eq!(status["params"]["status"], "completed");
    let got = ask(
        &mut s,
        &legacy(4, "tasks/get", &format!(r#""taskId":"{task}""#)),
        4,
    );
    assert_eq!(got["result"]["status"], "completed");
    let listed = ask(&mut s, &legacy(5, "tasks/list", ""), 5);
    assert_eq!(listed["result"]["tasks"][0]["taskId"], task.as_str());
    for id in [6, 7] {
        let c = ask(
            &mut s,
            &legacy(id, "tasks/cancel", &format!(r#""taskId":"{task}""#)),
            id,
        );
        assert_eq!(
            c["result"]["status"], "completed",
            "cancel is idempotent: {c}"
        );
    }
    for (id, method) in [(8, "tasks/get"), (9, "tasks/result"), (10, "tasks/cancel")] {
        let r = ask(&mut s, &legacy(id, method, r#""taskId":"nope""#), id);
        assert_eq!(r["error"]["code"], -32602, "{method}: {r}");
    }
    // A tool that forbids tasks refuses one; without params.task it answers plainly.
    let refused = ask(
        &mut s,
        &legacy(
            11,
            "tools/call",
            r#""name":"echo","arguments":{"text":"x"},"task":{}"#,
        ),
        11,
    );
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    s.finish().unwrap();
}

#[test]
fn legacy_cancel_stops_the_work_and_expired_tasks_are_purged() {
    let mut s = legacy_session();
    let created = ask(
        &mut s,
        &legacy(
            1,
            "tools/call",
            r#""name":"sleep","arguments":{"ms":600000},"task":{}"#,
        ),
        1,
    );
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let c = ask(
        &mut s,
        &legacy(2, "tasks/cancel", &format!(r#""taskId":"{task}""#)),
        2,
    );
    assert_eq!(c["result"]["status"], "cancelled", "{c}");
    let n = s.expect_notification("notifications/tasks/status").unwrap();
    assert_eq!(n["params"]["status"], "cancelled");
    let r = ask(
        &mut s,
        &legacy(3, "tasks/result", &format!(r#""taskId":"{task}""#)),
        3,
    );
    assert!(
        r["error"]["code"].is_i64(),
        "a cancelled task has no result: {r}"
    );
    // A task kept 100 ms is gone once it has ended and its time has passed.
    let short = ask(
        &mut s,
        &legacy(
            4,
            "tools/call",
            r#""name":"sleep","arguments":{"ms":0},"task":{"ttl":100}"#,
        ),
        4,
    );
    let short_id = short["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    s.expect_notification("notifications/tasks/status").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let gone = ask(
        &mut s,
        &legacy(5, "tasks/get", &format!(r#""taskId":"{short_id}""#)),
        5,
    );
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    let t = Instant::now();
    s.finish().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5));
}
