//! A stdio server started through a wrapper (`sh -c`, as `npx` or `uv run` do) leaves
//! nothing running once its client is closed or dropped: the wrapper's own children are in
//! the server's process group, which janus-client stops whole (and so `janus bridge`, which
//! drops a backend's client when it restarts it); a bridge that ends closes its backend's
//! input and gives it time before it stops it.

use janus_client::{Client, Command, Mode, Options, Transport};
use std::time::{Duration, Instant};
use support::sh_backend;

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

/// Whether process `pid` is gone (or a zombie waiting for its reaper).
fn gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
    })
}

/// A client of `janus serve` started by `sh`, which first starts a `sleep` of its own; the
/// sleep's pid.
async fn served_with_a_straggler(tag: &str) -> (Client, u32) {
    let file = std::env::temp_dir().join(format!("janus-pgroup-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let script = r#"sleep 300 & echo $! > "$0"; exec "$1" serve"#;
    let cmd = Command::new(
        "sh",
        ["-c", script, file.to_str().expect("a UTF-8 path"), JANUS],
    );
    let opts = Options {
        mode: Mode::Legacy,
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let pid = std::fs::read_to_string(&file)
        .expect("the wrapper wrote its child's pid")
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(!gone(pid), "the straggler runs while the server does");
    (c, pid)
}

/// Waits (5 s at most) for `pid` to be gone.
async fn wait_gone(pid: u32, how: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(pid) {
        assert!(Instant::now() < deadline, "{how}: process {pid} still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_wrapped_server_started_is_stopped_with_it() {
    let (c, pid) = served_with_a_straggler("close").await;
    c.close(Duration::from_secs(2)).await;
    wait_gone(pid, "after close").await;

    let (c, pid) = served_with_a_straggler("drop").await;
    drop(c);
    wait_gone(pid, "after drop").await;
}

/// A modern client of `janus bridge` in front of `backend` (given `file` as `$1`), which
/// calls its tool, then closes the bridge's input and waits for it to exit; how long the
/// bridge took to end.
async fn bridge_ended(backend: &str, file: &std::path::Path) -> Duration {
    let cmd = Command::new(
        JANUS,
        [
            "bridge",
            "--mode",
            "legacy",
            "--",
            "sh",
            "-c",
            backend,
            "sh",
            file.to_str().expect("a UTF-8 path"),
        ],
    );
    let opts = Options {
        mode: Mode::Modern,
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let r = c
        .call_tool("hello", None, janus_client::CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "hello from sh");
    let t = Instant::now();
    c.close(Duration::from_secs(10)).await;
    t.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_that_ends_lets_its_backend_end_on_its_own_then_terminates_it() {
    // NB. The backend's input is closed and it is given time: one that finishes something
    // when its input ends (a flush, here a file written after a pause) does so, where a
    // bridge that killed it would have lost it.
    let file = std::env::temp_dir().join(format!("janus-bridge-end-{}", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let took = bridge_ended(&sh_backend(r#"sleep 0.3; echo flushed > "$1""#), &file).await;
    assert_eq!(
        std::fs::read_to_string(&file).ok().as_deref(),
        Some("flushed\n"),
        "the backend finished its end before the bridge exited"
    );
    assert!(
        took < Duration::from_secs(5),
        "the bridge ended in {took:?}"
    );

    // NB. One that does not exit when its input ends gets SIGTERM (its whole group) after
    // the bridge's grace, and the bridge ends all the same.
    let _ = std::fs::remove_file(&file);
    let took = bridge_ended(&sh_backend(r#"sleep 300 & echo $! > "$1"; wait"#), &file).await;
    let pid: u32 = std::fs::read_to_string(&file)
        .expect("the backend wrote its sleep's pid")
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    wait_gone(pid, "after the bridge ended").await;
    assert!(
        took < Duration::from_secs(8),
        "the bridge ended in {took:?}"
    );
}
