//! A bridge whose backend's input is copied to a file, and that file read back: what the
//! bridge sent its backend, for the tests to check.

use serde_json::Value;
use std::path::Path;

/// `janus bridge --mode MODE -- janus serve --tools TOOLS`, with every line the bridge sends
/// its backend copied to `heard`.
pub(crate) fn bridge_copying(mode: &str, tools: &str, heard: &Path) -> janus_client::Command {
    let janus = super::janus_bin();
    janus_client::Command::new(
        janus,
        [
            "bridge",
            "--mode",
            mode,
            "--",
            "sh",
            "-c",
            r#"tee "$0" | "$1" serve --tools "$2""#,
            heard.to_str().expect("a UTF-8 temporary path"),
            janus,
            tools,
        ],
    )
}

/// The JSON lines of the file at `path` (the ones complete so far).
pub(crate) fn lines_of(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Waits (5 s at most) for a line of the file at `path` that `want` accepts.
pub(crate) async fn line_in(
    path: &Path,
    what: &str,
    want: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        if let Some(l) = seen(path, what, &want, deadline) {
            return l;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The first line of the file at `path` that `want` accepts; past `deadline`, a failure
/// that names `what` and shows the file.
fn seen(
    path: &Path,
    what: &str,
    want: impl Fn(&serde_json::Value) -> bool,
    deadline: std::time::Instant,
) -> Option<serde_json::Value> {
    let found = lines_of(path).into_iter().find(|l| want(l));
    assert!(
        found.is_some() || std::time::Instant::now() < deadline,
        "never seen: {what}; the file holds:\n{}",
        std::fs::read_to_string(path).unwrap_or_default()
    );
    found
}

/// As [`line_in`], blocking the thread (for tests without a runtime).
pub(crate) fn wait_for_line(
    path: &Path,
    what: &str,
    want: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        if let Some(l) = seen(path, what, &want, deadline) {
            return l;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
