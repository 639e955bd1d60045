//! Tests of the tokio driver over in-memory duplex streams and loopback TCP.
//! Every test is bounded in count and time and stops by itself.

use janus_server_core::Ctx;
use janus_server_core::Halt;
use janus_server_core::demo;
use janus_server_core::serve::{Config, Shutdown, serve_stream, serve_stream_until, serve_tcp};
use janus_server_core::server::Server;
use janus_server_core::tools::{Args, Output, ToolFuture, ToolSpec};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::time::timeout;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn echo(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},{META}}}}}"#
    ) + "\n"
}

fn call(id: u64, tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args},{META}}}}}"#
    ) + "\n"
}

/// The notification that cancels request `id`, with its newline.
fn cancelled(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
    ) + "\n"
}

/// Starts a server on one end of a duplex pipe; returns the client's end and the serve task.
fn start(
    server: Arc<Server>,
    config: Config,
    capacity: usize,
) -> (DuplexStream, tokio::task::JoinHandle<std::io::Result<()>>) {
    let (client, server_end) = tokio::io::duplex(capacity);
    let task = tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_end);
        serve_stream(server, r, w, &config).await
    });
    (client, task)
}

async fn read_lines(r: impl tokio::io::AsyncRead + Unpin, n: usize) -> Vec<Value> {
    let mut lines = BufReader::new(r).lines();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let line = timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("an answer in time")
            .expect("read")
            .expect("a line before the end");
        out.push(serde_json::from_str(&line).expect("JSON line"));
    }
    out
}

/// Asserts that the output ends without another line, and that serve ends, both within 2 s.
async fn assert_ends_promptly(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let rest = timeout(Duration::from_secs(2), lines.next_line())
        .await
        .expect("the stream ends promptly")
        .unwrap();
    assert!(rest.is_none(), "unexpected output {rest:?}");
    timeout(Duration::from_secs(2), task)
        .await
        .expect("serve ends")
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_pipelined_requests_are_each_answered_once() {
    let (client, task) = start(demo::server(), Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    let writer = tokio::spawn(async move {
        let mut batch = String::new();
        for i in 0..10_000u64 {
            batch.push_str(&echo(i, &format!("m{i}")));
            if batch.len() > 32 * 1024 {
                w.write_all(batch.as_bytes()).await.unwrap();
                batch.clear();
            }
        }
        w.write_all(batch.as_bytes()).await.unwrap();
        w.shutdown().await.unwrap();
    });
    let answers = read_lines(r, 10_000).await;
    let mut seen = HashSet::new();
    for a in &answers {
        let id = a["id"].as_u64().expect("integer id");
        assert!(seen.insert(id), "id {id} answered twice");
        assert_eq!(a["result"]["content"][0]["text"], format!("m{id}"));
    }
    assert_eq!(seen.len(), 10_000);
    writer.await.unwrap();
    timeout(Duration::from_secs(10), task)
        .await
        .expect("serve ends at EOF")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_cancelled_request_is_never_answered_and_the_connection_goes_on() {
    let (client, task) = start(demo::server(), Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    w.write_all(call(1, "sleep", r#"{"ms":5000}"#).as_bytes())
        .await
        .unwrap();
    w.write_all(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}
"#,
    )
    .await
    .unwrap();
    w.write_all(echo(2, "after").as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let mut lines = BufReader::new(r).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 2);
    // The input is closed: serve ends without waiting the 5 s, and writes nothing for id 1.
    assert_ends_promptly(&mut lines, task).await;
}

#[tokio::test]
async fn a_reused_id_in_flight_stays_cancellable_after_its_namesake_finishes() {
    // A client must not reuse an id in flight; when one does, finishing the first request
    // must not forget the second, and cancelling the id stops what is left of it.
    let (client, task) = start(demo::server(), Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    w.write_all(call(1, "sleep", r#"{"ms":10}"#).as_bytes())
        .await
        .unwrap();
    w.write_all(call(1, "sleep", r#"{"ms":5000}"#).as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(r).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 1, "the short sleep answers first");
    w.write_all(cancelled(1).as_bytes()).await.unwrap();
    w.write_all(echo(2, "after").as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let next: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(next["id"], 2);
    // The long sleep was stopped: serve ends well before its 5 s, and writes nothing for it.
    assert_ends_promptly(&mut lines, task).await;
}

#[tokio::test]
async fn a_request_cancelled_inside_a_batch_gets_no_entry_and_the_batch_does_not_wait_for_it() {
    // Batches are answered on 2025-03-26 sessions. The batch's answer waits for all of its
    // requests; cancelling the slow one drops its work and its entry.
    let (client, task) = start(demo::server(), Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    w.write_all(
        concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5000}}},"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1}}},"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
            "\n",
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut lines = BufReader::new(r).lines();
    let init: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-03-26", "{init}");
    w.write_all(cancelled(1).as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let batch = timeout(Duration::from_secs(2), lines.next_line())
        .await
        .expect("the batch is answered without waiting for the cancelled sleep")
        .unwrap()
        .expect("a batch line");
    let batch: Value = serde_json::from_str(&batch).unwrap();
    let mut ids: Vec<i64> = batch
        .as_array()
        .expect("an array")
        .iter()
        .map(|e| e["id"].as_i64().expect("integer id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [2, 3], "{batch}");
    assert_ends_promptly(&mut lines, task).await;
}

#[tokio::test]
async fn requests_in_flight_at_end_of_input_are_answered_before_serve_returns() {
    let (client, task) = start(demo::server(), Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    w.write_all(call(7, "sleep", r#"{"ms":150}"#).as_bytes())
        .await
        .unwrap();
    w.write_all(call(8, "sleep", r#"{"ms":50}"#).as_bytes())
        .await
        .unwrap();
    w.shutdown().await.unwrap();
    let answers = read_lines(r, 2).await;
    // Out of order: the shorter sleep finishes first.
    assert_eq!(answers[0]["id"], 8);
    assert_eq!(answers[1]["id"], 7);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "slept 150 ms");
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_panicking_tool_is_an_internal_error_and_the_connection_goes_on() {
    fn boom(_: &Ctx<'_>, _: Args<'_>, _: &mut Output<'_>) -> Result<(), Halt> {
        panic!("secret internals")
    }
    fn boom_later(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        Ok(Box::pin(async {
            tokio::task::yield_now().await;
            panic!("secret internals")
        }))
    }
    let server = demo::builder()
        .tool(
            ToolSpec::new("boom", "panics", r#"{"type":"object"}"#).unwrap(),
            boom,
        )
        .async_tool(
            ToolSpec::new("boom-later", "panics later", r#"{"type":"object"}"#).unwrap(),
            boom_later,
        )
        .build()
        .unwrap();
    let (client, task) = start(server, Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    w.write_all(call(1, "boom", "{}").as_bytes()).await.unwrap();
    w.write_all(call(2, "boom-later", "{}").as_bytes())
        .await
        .unwrap();
    w.write_all(echo(3, "still here").as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let mut answers = read_lines(r, 3).await;
    answers.sort_by_key(|a| a["id"].as_u64());
    for a in &answers[..2] {
        assert_eq!(a["error"]["code"], -32603);
        assert_eq!(a["error"]["message"], "Internal error");
        assert!(!a.to_string().contains("secret"));
    }
    assert_eq!(answers[2]["result"]["content"][0]["text"], "still here");
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_work_that_panics_as_its_cancel_drops_it_leaves_the_connection_serving() {
    /// Panics when dropped: the work of `sticky`, dropped by its cancel.
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("secret internals at drop");
        }
    }
    fn sticky(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        let bomb = Bomb;
        Ok(Box::pin(async move {
            let _held = &bomb;
            std::future::pending::<()>().await;
            unreachable!()
        }))
    }
    let server = demo::builder()
        .async_tool(
            ToolSpec::new(
                "sticky",
                "waits; panics when dropped",
                r#"{"type":"object"}"#,
            )
            .unwrap(),
            sticky,
        )
        .build()
        .unwrap();
    let (client, task) = start(server, Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    let mut lines = BufReader::new(r).lines();
    for id in [1, 2] {
        w.write_all(call(id, "sticky", "{}").as_bytes())
            .await
            .unwrap();
    }
    // NB. Both running before the first is cancelled; the second stays in flight.
    w.write_all(call(3, "sleep", r#"{"ms":50}"#).as_bytes())
        .await
        .unwrap();
    let slept = timeout(Duration::from_secs(20), lines.next_line()).await;
    let slept: Value = serde_json::from_str(&slept.unwrap().unwrap().unwrap()).unwrap();
    assert_eq!(slept["id"], 3, "{slept}");
    w.write_all(cancelled(1).as_bytes()).await.unwrap();
    w.write_all(echo(4, "still here").as_bytes()).await.unwrap();
    let next = timeout(Duration::from_secs(20), lines.next_line()).await;
    let next: Value = serde_json::from_str(&next.unwrap().unwrap().unwrap()).unwrap();
    assert_eq!(next["id"], 4, "a cancelled request is not answered: {next}");
    assert_eq!(next["result"]["content"][0]["text"], "still here");
    // NB. The other is still in flight: cancelled too, its panic caught as well; then the
    // input ends and the connection ends well.
    w.write_all(cancelled(2).as_bytes()).await.unwrap();
    w.write_all(echo(5, "and here").as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let last = timeout(Duration::from_secs(20), lines.next_line()).await;
    let last: Value = serde_json::from_str(&last.unwrap().unwrap().unwrap()).unwrap();
    assert_eq!(last["id"], 5, "{last}");
    assert!(
        timeout(Duration::from_secs(20), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .is_none()
    );
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn jobs_that_keep_working_do_not_starve_one_another_or_the_connection() {
    // NB. Each job yields to the runtime in a loop: every one ends, and a request read
    // meanwhile is answered, whatever their number.
    fn busy(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        Ok(Box::pin(async {
            for _ in 0..200 {
                tokio::task::yield_now().await;
            }
            Ok(janus_server_core::tools::ToolResult::text("done"))
        }))
    }
    let server = demo::builder()
        .async_tool(
            ToolSpec::new("busy", "yields 200 times", r#"{"type":"object"}"#).unwrap(),
            busy,
        )
        .build()
        .unwrap();
    let (client, task) = start(server, Config::default(), 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    for id in 0..64 {
        w.write_all(call(id, "busy", "{}").as_bytes())
            .await
            .unwrap();
    }
    w.write_all(echo(64, "read meanwhile").as_bytes())
        .await
        .unwrap();
    w.shutdown().await.unwrap();
    let answers = read_lines(r, 65).await;
    let ids: HashSet<u64> = answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    assert_eq!(ids.len(), 65);
    for a in &answers {
        let want = if a["id"] == 64 {
            "read meanwhile"
        } else {
            "done"
        };
        assert_eq!(a["result"]["content"][0]["text"], want, "{a}");
    }
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn jobs_go_on_while_the_connection_waits_to_write_to_a_client_that_does_not_read() {
    // NB. A client that stops reading stalls the connection's writes; the work of its
    // requests (which may be what another connection waits for) still runs to its end.
    static ENDED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static ALL: tokio::sync::Notify = tokio::sync::Notify::const_new();
    fn mark(_: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
        Ok(Box::pin(async {
            // Long enough for the connection to be stalled on its write meanwhile.
            tokio::time::sleep(Duration::from_millis(100)).await;
            if ENDED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 7 {
                ALL.notify_one();
            }
            Ok(janus_server_core::tools::ToolResult::text("marked"))
        }))
    }
    let server = demo::builder()
        .async_tool(
            ToolSpec::new("mark", "counts its calls", r#"{"type":"object"}"#).unwrap(),
            mark,
        )
        .build()
        .unwrap();
    // A pipe of 4 KiB: the echoes' answers fill it while the marks sleep.
    let (client, task) = start(server, Config::default(), 4 * 1024);
    let (r, mut w) = tokio::io::split(client);
    let mut input = String::new();
    for id in 0..8 {
        input += &call(id, "mark", "{}");
    }
    let big = "x".repeat(1000);
    for id in 8..24 {
        input += &echo(id, &big);
    }
    let writer = tokio::spawn(async move {
        w.write_all(input.as_bytes()).await.unwrap();
        w.shutdown().await.unwrap();
    });
    timeout(Duration::from_secs(10), ALL.notified())
        .await
        .expect("every job ended while nothing was read");
    let answers = read_lines(r, 24).await;
    let ids: HashSet<u64> = answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    assert_eq!(ids.len(), 24);
    writer.await.unwrap();
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn an_oversize_line_is_refused_and_the_next_line_is_served() {
    let config = Config {
        max_frame_len: 1024,
        ..Config::default()
    };
    let (client, task) = start(demo::server(), config, 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    let long = "x".repeat(4000);
    w.write_all(echo(1, &long).as_bytes()).await.unwrap();
    w.write_all(echo(2, "short").as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let answers = read_lines(r, 2).await;
    assert_eq!(answers[0]["id"], Value::Null);
    assert_eq!(answers[0]["error"]["code"], -32600);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "short");
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_flood_of_slow_requests_pauses_reading_at_the_queue_bound() {
    let config = Config {
        max_in_flight: 4,
        max_queued_bytes: 64 * 1024,
        ..Config::default()
    };
    // A small pipe: what the server does not read stays with the writer.
    let (client, task) = start(demo::server(), config, 4096);
    let (r, mut w) = tokio::io::split(client);
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&written);
    let flood = tokio::spawn(async move {
        for i in 0..100_000u64 {
            let line = call(i, "sleep", r#"{"ms":60000}"#);
            if w.write_all(line.as_bytes()).await.is_err() {
                return;
            }
            counter.fetch_add(line.len(), std::sync::atomic::Ordering::Relaxed);
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let n = written.load(std::sync::atomic::Ordering::Relaxed);
    // Past the 4 running, the queue holds about 64 KiB of work (some 200 requests), then
    // reading pauses: far below the 100k requests.
    assert!(
        n > 4 * 150,
        "the server read beyond its running jobs: {n} bytes"
    );
    assert!(
        n < 256 * 1024,
        "the server kept reading: {n} bytes accepted"
    );
    assert!(!flood.is_finished());
    flood.abort();
    drop(r);
    task.abort();
}

#[tokio::test]
async fn cancels_behind_a_full_set_of_running_jobs_act_at_once() {
    // The hostile client of the core issue: more long sleeps than may run, then a cancel of
    // every one. Every cancel is heard at once, and the connection serves on.
    let config = Config {
        max_in_flight: 16,
        ..Config::default()
    };
    let (client, task) = start(demo::server(), config, 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    let writer = tokio::spawn(async move {
        let mut text = String::new();
        for i in 0..2_000u64 {
            text.push_str(&call(i, "sleep", r#"{"ms":600000}"#));
        }
        for i in 0..2_000u64 {
            text.push_str(&cancelled(i));
        }
        text.push_str(&echo(5_000, "after"));
        w.write_all(text.as_bytes()).await.unwrap();
        w.shutdown().await.unwrap();
    });
    // Only the echo is answered, well before any sleep could end, and the end of input then
    // ends the connection: nothing was left in flight.
    let answers = timeout(Duration::from_secs(10), read_lines(r, 1))
        .await
        .expect("the cancels were heard at once");
    assert_eq!(answers[0]["id"], 5_000);
    timeout(Duration::from_secs(10), task)
        .await
        .expect("nothing was left in flight")
        .unwrap()
        .unwrap();
    writer.await.unwrap();
}

#[tokio::test]
async fn a_zero_in_flight_limit_is_an_error_not_a_panic() {
    let (client, server) = tokio::io::duplex(1024);
    let (r, w) = tokio::io::split(server);
    let config = Config {
        max_in_flight: 0,
        ..Config::default()
    };
    let err = serve_stream(demo::server(), r, w, &config)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("max_in_flight"), "{err}");
    drop(client);
}

#[tokio::test]
async fn a_shutdown_stops_reading_and_finishes_what_is_in_flight() {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (r, w) = tokio::io::split(server);
    let shutdown = Shutdown::new();
    let task = tokio::spawn({
        let shutdown = shutdown.clone();
        async move { serve_stream_until(demo::server(), r, w, &Config::default(), &shutdown).await }
    });
    let (r, mut w) = tokio::io::split(client);
    w.write_all(call(1, "sleep", r#"{"ms":200}"#).as_bytes())
        .await
        .unwrap();
    w.write_all(echo(2, "first").as_bytes()).await.unwrap();
    let mut lines = BufReader::new(r).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 2);
    shutdown.trigger();
    tokio::time::sleep(Duration::from_millis(20)).await;
    // Written after the shutdown: never read.
    let _ = w.write_all(echo(3, "late").as_bytes()).await;
    let last: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(last["id"], 1, "the sleep in flight is finished: {last}");
    timeout(Duration::from_secs(5), task)
        .await
        .expect("serve ends once the sleep is answered")
        .unwrap()
        .unwrap();
    assert!(
        lines.next_line().await.unwrap().is_none(),
        "nothing after the drain"
    );
}

#[tokio::test(start_paused = true)]
async fn a_shutdown_gives_up_on_work_still_running_after_the_drain_time() {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (r, w) = tokio::io::split(server);
    let shutdown = Shutdown::new();
    let config = Config {
        drain: Duration::from_secs(2),
        ..Config::default()
    };
    let task = tokio::spawn({
        let shutdown = shutdown.clone();
        async move { serve_stream_until(demo::server(), r, w, &config, &shutdown).await }
    });
    let (r, mut w) = tokio::io::split(client);
    w.write_all(call(1, "sleep", r#"{"ms":600000}"#).as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(10)).await;
    shutdown.trigger();
    let started = tokio::time::Instant::now();
    task.await.unwrap().unwrap();
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(3),
        "{took:?}"
    );
    let mut lines = BufReader::new(r).lines();
    assert!(
        lines.next_line().await.unwrap().is_none(),
        "the sleep is not answered"
    );
}

#[tokio::test]
async fn a_client_that_goes_away_ends_the_connection_cleanly() {
    let (mut client, task) = start(demo::server(), Config::default(), 1024);
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&echo(i, "nobody reads this"));
    }
    // The client writes without reading until the pipe is full, then goes away whole.
    let _ = timeout(
        Duration::from_millis(200),
        client.write_all(text.as_bytes()),
    )
    .await;
    drop(client);
    let result = timeout(Duration::from_secs(5), task)
        .await
        .expect("serve ends when the client is gone")
        .unwrap();
    assert!(result.is_ok(), "a write error is a clean end: {result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_serves_concurrent_connections_of_both_eras() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = Shutdown::new();
    let accept = tokio::spawn({
        let shutdown = shutdown.clone();
        async move { serve_tcp(demo::server(), listener, Config::default(), &shutdown).await }
    });
    let mut clients = Vec::new();
    for c in 0..4u64 {
        clients.push(tokio::spawn(async move {
            let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (r, mut w) = stream.into_split();
            let legacy = c % 2 == 1;
            let mut text = String::new();
            if legacy {
                text.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
                text.push('\n');
            }
            for i in 1..=1000u64 {
                if legacy {
                    text.push_str(&format!(
                        r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"c{c}-{i}"}}}}}}"#
                    ));
                    text.push('\n');
                } else {
                    text.push_str(&echo(i, &format!("c{c}-{i}")));
                }
            }
            w.write_all(text.as_bytes()).await.unwrap();
            w.shutdown().await.unwrap();
            let answers = read_lines(r, 1000 + usize::from(legacy)).await;
            for a in answers {
                let id = a["id"].as_u64().unwrap();
                if id == 0 {
                    assert_eq!(a["result"]["protocolVersion"], "2025-06-18");
                    continue;
                }
                assert_eq!(a["result"]["content"][0]["text"], format!("c{c}-{id}"));
                assert_eq!(a["result"].get("resultType").is_some(), !legacy);
            }
        }));
    }
    for c in clients {
        timeout(Duration::from_secs(30), c).await.unwrap().unwrap();
    }
    shutdown.trigger();
    timeout(Duration::from_secs(5), accept)
        .await
        .expect("the listener drains and ends after a shutdown")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_task_beyond_the_stores_limit_is_refused_at_once_and_the_store_stays_usable() {
    let (client, task) = start(demo::server(), Config::default(), 1 << 20);
    let (r, mut w) = tokio::io::split(client);
    let mut text = String::from(
        r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    text.push('\n');
    let max = janus_server_core::tasks::MAX_TASKS as u64;
    for i in 0..=max {
        text.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":600000}},"task":{{"ttl":60000}}}}}}"#
        ));
        text.push('\n');
    }
    text.push_str(r#"{"jsonrpc":"2.0","id":"list","method":"tasks/list"}"#);
    text.push('\n');
    w.write_all(text.as_bytes()).await.unwrap();
    // Every task is created (and its work runs, 1024 at once), the one past the limit is
    // refused with a code a client can act on, and tasks/list answers, all at once.
    let answers = read_lines(r, max as usize + 3).await;
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|a| a.get("error").is_some())
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["id"], max);
    assert_eq!(
        refused[0]["error"]["code"],
        janus_server_core::LIMIT_REACHED
    );
    assert_eq!(refused[0]["error"]["data"]["limit"], "tasks");
    let list = answers
        .iter()
        .find(|a| a["id"] == "list")
        .expect("tasks/list");
    assert_eq!(list["result"]["tasks"].as_array().map(Vec::len), Some(100));
    w.shutdown().await.unwrap();
    timeout(Duration::from_secs(5), task)
        .await
        .expect("tasks' background work does not hold the connection")
        .unwrap()
        .unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn any_listener_is_served_through_serve_accepted_and_drains_on_shutdown() {
    let dir = std::env::temp_dir().join(format!("janus-unix-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("mcp.sock");
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path).unwrap();
    let shutdown = Shutdown::new();
    let serving = tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            let accept = || async {
                let (stream, _) = listener.accept().await?;
                Ok(stream.into_split())
            };
            janus_server_core::serve::serve_accepted(
                demo::server(),
                accept,
                Config::default(),
                &shutdown,
            )
            .await
        }
    });
    let stream = tokio::net::UnixStream::connect(&path).await.unwrap();
    let (r, mut w) = stream.into_split();
    w.write_all(call(1, "sleep", r#"{"ms":100}"#).as_bytes())
        .await
        .unwrap();
    w.write_all(echo(2, "over a unix socket").as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(r).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["result"]["content"][0]["text"], "over a unix socket");
    shutdown.trigger();
    let last: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(last["id"], 1, "the sleep in flight is drained: {last}");
    timeout(Duration::from_secs(5), serving)
        .await
        .expect("the listener ends after the drain")
        .unwrap()
        .unwrap();
    let _ = std::fs::remove_file(&path);
}

#[tokio::test]
async fn at_end_of_input_tasks_work_gives_its_slots_to_the_requests_still_to_answer() {
    // Found in review: with one running slot held by a task's long work, a request queued
    // behind it kept the connection open until the task ended.
    let config = Config {
        max_in_flight: 1,
        ..Config::default()
    };
    let (client, task) = start(demo::server(), config, 64 * 1024);
    let (r, mut w) = tokio::io::split(client);
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    w.write_all(format!("{init}\n").as_bytes()).await.unwrap();
    w.write_all(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600000},"task":{}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10}}}
"#).await.unwrap();
    w.shutdown().await.unwrap();
    let answers = read_lines(r, 3).await;
    assert_eq!(answers[2]["id"], 2, "{answers:?}");
    timeout(Duration::from_secs(5), task)
        .await
        .expect("the connection ends once request 2 is answered")
        .unwrap()
        .unwrap();
}
