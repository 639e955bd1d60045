//! A backend that floods `janus bridge` with changes of its tools: the front stays up, and
//! the bridge lists the backend's tools again once per catch-up, not once per notice.

use janus_client::{CallOptions, Client, Mode, Options, Transport};
use std::time::Duration;

mod support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_tool_changes_is_listed_again_a_few_times_not_once_each() {
    // NB. What the bridge sends its backend is copied to a file.
    let dir = std::env::temp_dir().join(format!("janus-bridge-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let heard = dir.join("to-backend.jsonl");
    let cmd = support::copies::bridge_copying("legacy", "faults", &heard);
    let opts = Options {
        mode: Mode::Modern,
        timeout: Duration::from_secs(20),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let listings = || {
        std::fs::read_to_string(&heard)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(r#""method":"tools/list""#))
            .count()
    };
    let before = listings();
    // 10,000 list_changed among 40,000 other lines.
    let r = c
        .call_tool("noisy", Some(r#"{"count":50000}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "flooded 50000");
    // The listings the flood caused settle (each takes a moment), then are counted.
    let mut seen = listings();
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = listings();
        if now == seen {
            break;
        }
        seen = now;
    }
    let caused = seen - before;
    assert!(
        (1..=200).contains(&caused),
        "10,000 changes told, {caused} listings"
    );
    // The front still serves, its tools as they were.
    let tools = c.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "noisy"));
    let r = c
        .call_tool("echo", Some(r#"{"text":"after"}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "after");
    c.close(Duration::from_secs(2)).await;
    let _ = std::fs::remove_dir_all(&dir);
}
