//! `Stateless`: modern requests one at a time, with no connection.

use bytes::{Bytes, BytesMut};
use janus_server_core::codec::Parser;
use janus_server_core::stateless::Stateless;
use janus_server_core::{JobEnd, JobId, Notify, demo};
use std::sync::{Arc, Mutex};

mod support;
use support::*;

#[derive(Default)]
struct Collect(Mutex<Vec<(JobId, Bytes)>>);

impl Notify for Collect {
    fn notify(&self, job: JobId, line: Bytes) {
        self.0.lock().unwrap().push((job, line));
    }
}

fn serve(
    s: &Stateless,
    line: &str,
    notify: &Arc<dyn Notify>,
) -> (BytesMut, Option<janus_server_core::stateless::Pending>) {
    let mut out = BytesMut::new();
    let read = Parser::new().parse(line.as_bytes());
    let pending = s.handle(read, 1_764_460_800_000, notify, &mut out);
    (out, pending)
}

const TASKS_ENV: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

#[tokio::test(start_paused = true)]
async fn one_request_in_its_notifications_and_answer_out() {
    let s = Stateless::new(demo::server());
    let collect = Arc::new(Collect::default());
    let notify: Arc<dyn Notify> = collect.clone();
    // At once.
    let (out, pending) = serve(
        &s,
        &modern(
            1,
            "tools/call",
            r#""name":"echo","arguments":{"text":"hi"},"#,
        ),
        &notify,
    );
    assert!(pending.is_none());
    let r = parse_lines(&out);
    assert_eq!(r[0]["result"]["content"][0]["text"], "hi");
    assert_eq!(r[0]["result"]["resultType"], "complete");
    // Later, with progress on the request's own sink.
    let line = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":250},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;
    let (out, pending) = serve(&s, line, &notify);
    assert!(out.is_empty());
    let mut pending = pending.expect("the sleep's work");
    assert!(!pending.is_background());
    let result = pending.take_work().expect("work").await;
    let notes = collect.0.lock().unwrap().clone();
    assert_eq!(notes.len(), 2, "progress at 100 and 200 ms");
    assert!(notes.iter().all(|(job, _)| *job == pending.job()));
    let first = parse_lines(&notes[0].1);
    assert_eq!(first[0]["params"]["progressToken"], "p");
    let mut out = BytesMut::new();
    assert!(pending.finish(JobEnd::Finished(result), &mut out).is_none());
    let r = parse_lines(&out);
    assert_eq!(r[0]["id"], 2);
    assert_eq!(r[0]["result"]["content"][0]["text"], "slept 250 ms");
}

#[tokio::test(start_paused = true)]
async fn tasks_live_in_the_shared_store_across_requests() {
    let s = Stateless::new(demo::server());
    let notify: Arc<dyn Notify> = Arc::new(Collect::default());
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":10}},"_meta":{TASKS_ENV}}}}}"#
    );
    let (out, pending) = serve(&s, &call, &notify);
    let r = parse_lines(&out);
    assert_eq!(r[0]["result"]["resultType"], "task", "{}", r[0]);
    let task = r[0]["result"]["taskId"].as_str().unwrap().to_owned();
    let mut pending = pending.expect("the task's work");
    assert!(pending.is_background());
    let get = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"{task}","_meta":{TASKS_ENV}}}}}"#
    );
    let (out, _) = serve(&s, &get, &notify);
    assert_eq!(parse_lines(&out)[0]["result"]["status"], "working");
    let result = pending.take_work().unwrap().await;
    let mut out = BytesMut::new();
    assert!(pending.finish(JobEnd::Finished(result), &mut out).is_none());
    assert!(out.is_empty(), "a task's end answers nothing");
    let (out, _) = serve(&s, &get, &notify);
    let r = parse_lines(&out);
    assert_eq!(r[0]["result"]["status"], "completed", "{}", r[0]);
    assert_eq!(
        r[0]["result"]["result"]["content"][0]["text"],
        "slept 10 ms"
    );
}

#[test]
fn what_is_not_one_modern_request_is_refused_or_ignored() {
    let s = Stateless::new(demo::server());
    let notify: Arc<dyn Notify> = Arc::new(Collect::default());
    let (out, _) = serve(&s, &format!("[{}]", modern(1, "tools/list", "")), &notify);
    let r = parse_lines(&out);
    assert_eq!(code(&r[0]), -32600);
    assert!(r[0]["id"].is_null());
    let (out, _) = serve(&s, &initialize(2, "2025-11-25"), &notify);
    assert_eq!(code(&parse_lines(&out)[0]), -32022);
    let (out, _) = serve(&s, &legacy(3, "tools/list", ""), &notify);
    assert_eq!(code(&parse_lines(&out)[0]), -32602, "no envelope");
    let (out, pending) = serve(&s, &cancel("1"), &notify);
    assert!(out.is_empty() && pending.is_none());
    let (out, _) = serve(&s, "{", &notify);
    assert_eq!(code(&parse_lines(&out)[0]), -32700);
}

#[tokio::test(start_paused = true)]
async fn a_tasks_work_dropped_before_its_end_fails_its_task() {
    let s = Stateless::new(demo::server());
    let notify: Arc<dyn Notify> = Arc::new(Collect::default());
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":600000}},"_meta":{TASKS_ENV}}}}}"#
    );
    let (out, pending) = serve(&s, &call, &notify);
    let task = parse_lines(&out)[0]["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(pending.expect("the task's work"));
    let get = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"{task}","_meta":{TASKS_ENV}}}}}"#
    );
    let (out, _) = serve(&s, &get, &notify);
    let r = parse_lines(&out);
    assert_eq!(r[0]["result"]["status"], "failed", "{}", r[0]);
    assert_eq!(r[0]["result"]["error"]["code"], -32603);
}
