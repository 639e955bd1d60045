//! `janus serve --store`: a store that cannot be used at start ends the process with exit 2
//! and the reason, before it serves anything.

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn serve_with_store(store: &str) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let out = Command::new(support::janus_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--store", store])
        .stdin(Stdio::null())
        .output()
        .expect("janus runs");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn an_unreachable_redis_at_start_is_exit_2_with_the_reason() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let (code, err, took) = serve_with_store(&format!("redis://:hunter2@127.0.0.1:{port}"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unreachable"), "{err}");
    assert!(
        !err.contains("hunter2"),
        "the password is not logged: {err}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_store_that_is_not_one_is_exit_2() {
    for store in ["postgres://x", "nonsense", "redis://[::1"] {
        let (code, err, _) = serve_with_store(store);
        assert_eq!(code, Some(2), "{store}: {err}");
        assert!(
            err.contains("store") || err.contains("Redis"),
            "{store}: {err}"
        );
    }
}
