//! `Connection` in memory: tasks of both generations, their work as jobs of the book.

use janus_server_core::tools::{
    Args, AsyncTool, Stage, StagedFuture, TaskSupport, ToolFuture, ToolResult, ToolSpec,
};
use janus_server_core::{Ctx, Halt, InputRequest, InputRequired, Server};
use serde_json::json;
use std::time::Duration;

mod support;
use support::*;

const TASKS_ENV: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

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

/// A tool that learns only as its work runs whether it needs a name first: its first stage
/// asks for one (after a pause) unless given it (answered, or as the argument `name`), then
/// ends the call (`"now":true`) or goes on as a task.
struct Staged;

impl AsyncTool for Staged {
    fn call(&self, _: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        Ok(Box::pin(async { Ok(ToolResult::text("a plain call")) }))
    }

    fn call_staged(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Option<Result<StagedFuture, Halt>> {
        let name = ctx
            .input("name")
            .and_then(|a| a.get("content")?.get("name")?.as_string())
            .or_else(|| args.str("name"))
            .map(|n| n.into_owned());
        let now = args.raw().and_then(|a| a.get("now")).is_some();
        Some(Ok(Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            let Some(name) = name else {
                let q = InputRequest::elicit("Your name?", r#"{"type":"object"}"#)?;
                return Err(InputRequired::new().ask("name", q).into());
            };
            let text = format!("hello {name}");
            if now {
                return Ok(Stage::Done(ToolResult::text(text)));
            }
            Ok(Stage::Task(Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(ToolResult::text(text))
            })))
        })))
    }
}

fn staged_client() -> Client {
    let spec = ToolSpec::new("staged", "staged", r#"{"type":"object"}"#)
        .unwrap()
        .task_support(TaskSupport::Optional);
    let server = Server::builder("staged", "1")
        .state_key(b"a key of the tests, 32 bytes ok")
        .async_tool(spec, Staged)
        .build()
        .unwrap();
    Client::with(server)
}

/// The retry of `round`'s question, with the name `name`.
fn answered(id: i64, round: &serde_json::Value, name: &str, more: &str) -> String {
    let key = round["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    let answers = json!({ key: {"action": "accept", "content": {"name": name}} });
    modern_task(
        id,
        "tools/call",
        &format!(
            r#""name":"staged","arguments":{{{more}}},"inputResponses":{answers},"requestState":{},"#,
            round["requestState"]
        ),
    )
}

#[tokio::test(start_paused = true)]
async fn a_staged_call_asks_in_rounds_before_its_task_exists() {
    let mut c = staged_client();
    // Round 1: the first stage asks; the call's answer is the round, with no task.
    c.job(&modern_task(
        1,
        "tools/call",
        r#""name":"staged","arguments":{},"#,
    ));
    let r = c.finish().await;
    let round = &r["result"];
    assert_eq!(round["resultType"], "input_required", "{r}");
    assert!(round.get("taskId").is_none(), "{r}");
    // Round 2 goes on as a task: its answer is the task, working, whose work runs on as
    // background work of the same job.
    c.job(&answered(2, round, "Ada", ""));
    let lines = c.step().await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    let made = &lines[0]["result"];
    assert_eq!(made["resultType"], "task", "{made}");
    assert_eq!(made["status"], "working", "{made}");
    assert!(made.get("requestState").is_none() && made.get("inputRequests").is_none());
    let task = made["taskId"].as_str().unwrap().to_owned();
    assert_eq!(c.running(), 1);
    assert_eq!(c.conn.foreground(), 0);
    assert!(c.settle().await.is_empty());
    let got = c.answer(&modern_task(
        3,
        "tasks/get",
        &format!(r#""taskId":"{task}","#),
    ));
    assert_eq!(got["result"]["status"], "completed", "{got}");
    assert_eq!(got["result"]["result"]["content"][0]["text"], "hello Ada");
    // A first stage that ends the call makes its task already completed.
    c.job(&modern_task(
        4,
        "tools/call",
        r#""name":"staged","arguments":{"now":true},"#,
    ));
    let r = c.finish().await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    c.job(&answered(4, &r["result"], "Bo", r#""now":true"#));
    let r = c.finish().await;
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    assert_eq!(r["result"]["status"], "completed", "{r}");
    assert_eq!(c.running(), 0);
    // Without the tasks extension the call is a plain one: no stages.
    let plain = modern(5, "tools/call", r#""name":"staged","arguments":{},"#);
    c.job(&plain);
    let r = c.finish().await;
    assert_eq!(r["result"]["content"][0]["text"], "a plain call", "{r}");
    // A first stage cancelled is answered nothing, and stops.
    c.job(&modern_task(
        6,
        "tools/call",
        r#""name":"staged","arguments":{},"#,
    ));
    c.silent(&cancel("6"));
    assert_eq!(c.running(), 0);
    assert!(c.settle().await.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_stage_that_ends_after_the_input_ended_fails_its_task() {
    let mut c = staged_client();
    c.job(&modern_task(
        1,
        "tools/call",
        r#""name":"staged","arguments":{"name":"Cy"},"#,
    ));
    let mut out = bytes::BytesMut::new();
    c.conn.handle_eof(&mut out);
    assert!(out.is_empty(), "the stage is a request in flight");
    // Its task is made, but its work cannot run once the input ended: it fails at once.
    let r = c.finish().await;
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    assert_eq!(c.running(), 0, "no work started after the end of input");
    let task = r["result"]["taskId"].as_str().unwrap().to_owned();
    let got = c.answer(&modern_task(
        2,
        "tasks/get",
        &format!(r#""taskId":"{task}","#),
    ));
    assert_eq!(got["result"]["status"], "failed", "{got}");
}
