//! `Connection` in memory: tasks of both generations, their work as jobs of the book.

use serde_json::json;

mod support;
use support::*;

const TASKS_ENV: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

fn modern_task(id: i64, method: &str, members: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{members}"_meta":{TASKS_ENV}}}}}"#
    )
}

#[tokio::test(start_paused = true)]
async fn a_modern_task_runs_as_background_work_and_a_cancel_stops_it() {
    let mut c = Client::modern();
    let r = c.answer(&modern_task(
        1,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":60000},"#,
    ));
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    let task = r["result"]["taskId"].as_str().unwrap().to_owned();
    assert!(
        r["result"]["createdAt"].as_str().unwrap().starts_with("20"),
        "{r}"
    );
    // Its work runs, but no request waits for it.
    assert_eq!(c.running(), 1);
    assert_eq!(c.conn.foreground(), 0);
    let r = c.answer(&modern_task(
        2,
        "tasks/cancel",
        &format!(r#""taskId":"{task}","#),
    ));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(c.running(), 0, "the cancel stopped the work");
    let r = c.answer(&modern_task(
        3,
        "tasks/get",
        &format!(r#""taskId":"{task}","#),
    ));
    assert_eq!(r["result"]["status"], "cancelled", "{r}");
    assert!(c.settle().await.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_modern_task_keeps_its_result_for_tasks_get() {
    let mut c = Client::modern();
    let r = c.answer(&modern_task(
        1,
        "tools/call",
        r#""name":"sleep","arguments":{"ms":50},"#,
    ));
    let task = r["result"]["taskId"].as_str().unwrap().to_owned();
    assert!(
        c.settle().await.is_empty(),
        "a modern task's end writes nothing"
    );
    let r = c.answer(&modern_task(
        2,
        "tasks/get",
        &format!(r#""taskId":"{task}","#),
    ));
    assert_eq!(r["result"]["status"], "completed", "{r}");
    assert_eq!(
        r["result"]["result"]["content"],
        json!([{"type": "text", "text": "slept 50 ms"}])
    );
    assert_eq!(r["result"]["result"]["resultType"], "complete");
}

#[tokio::test(start_paused = true)]
async fn legacy_tasks_result_waits_for_the_task_and_a_cancel_answers_it() {
    let mut c = Client::legacy("2025-11-25");
    let call = |id: i64, ms: u64| {
        legacy(
            id,
            "tools/call",
            &format!(r#"{{"name":"sleep","arguments":{{"ms":{ms}}},"task":{{}}}}"#),
        )
    };
    let r = c.answer(&call(1, 100));
    let done = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let r = c.answer(&call(2, 60_000));
    let stopped = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let result =
        |id: i64, task: &str| legacy(id, "tasks/result", &format!(r#"{{"taskId":"{task}"}}"#));
    c.job(&result(3, &done));
    c.job(&result(4, &stopped));
    // The first task ends: its status notification, then the waiting tasks/result.
    let lines = c.step().await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["method"], "notifications/tasks/status");
    assert_eq!(lines[0]["params"]["status"], "completed");
    assert_eq!(lines[1]["id"], 3);
    assert_eq!(lines[1]["result"]["content"][0]["text"], "slept 100 ms");
    assert_eq!(
        lines[1]["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        done.as_str()
    );
    // Cancelling the second answers its waiting tasks/result, and the cancel itself.
    let lines = c.send(&legacy(
        5,
        "tasks/cancel",
        &format!(r#"{{"taskId":"{stopped}"}}"#),
    ));
    let ids: Vec<&serde_json::Value> = lines.iter().map(|l| &l["id"]).collect();
    assert!(
        ids.contains(&&json!(4)) && ids.contains(&&json!(5)),
        "{lines:?}"
    );
    let waiter = lines.iter().find(|l| l["id"] == 4).unwrap();
    assert_eq!(code(waiter), -32600, "{waiter}");
    assert_eq!(c.running(), 0);
    assert_eq!(c.conn.foreground(), 0);
    // A cancelled tasks/result request gets nothing.
    let r = c.answer(&call(6, 60_000));
    let t = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    c.job(&result(7, &t));
    c.silent(&cancel("7"));
    assert_eq!(c.conn.foreground(), 0);
}
