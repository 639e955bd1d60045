//! A backend that ends while its bridge is idle is started again in the background, before
//! any request fails for it; a backend that dies tells the front why without its stderr
//! (which stays in the bridge's log).

use janus_client::{CallOptions, Client, Command, Error, Mode, Options, Transport};
use std::time::Duration;

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

async fn front(cmd: Command) -> Client {
    let opts = Options {
        mode: Mode::Modern,
        timeout: Duration::from_secs(10),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    Client::connect(Transport::Stdio(cmd), opts).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_ends_while_idle_is_back_before_the_next_request() {
    let c = front(faults()).await;
    quit_and_call_again(&c).await;
    c.close(Duration::from_secs(2)).await;
}

/// `janus bridge --mode legacy -- janus serve --tools faults`.
fn faults() -> Command {
    Command::new(
        JANUS,
        [
            "bridge", "--mode", "legacy", "--", JANUS, "serve", "--tools", "faults",
        ],
    )
}

/// Ends the backend while the bridge is idle (its tool `quit`), then calls it again.
async fn quit_and_call_again(c: &Client) {
    let r = c
        .call_tool("quit", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "bye");
    // NB. It ends 100 ms after its answer; the bridge sees it within a quarter second and
    // starts it again after a tenth: well within two seconds.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let r = c
        .call_tool("echo", Some(r#"{"text":"back"}"#), CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("the first request after the end failed: {e}"));
    assert_eq!(r.text(), "back");
}

/// A handshake backend in sh that writes a secret to its stderr and exits when called.
const LEAKY: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  [ -z "$id" ] && continue
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"leak","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*) echo "Traceback: API_TOKEN=sk-secret-42" >&2; exit 3 ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_s_stderr_stays_out_of_the_front_s_answers() {
    let c = front(Command::new(
        JANUS,
        ["bridge", "--mode", "legacy", "--", "sh", "-c", LEAKY],
    ))
    .await;
    match c
        .call_tool("leak", Some("{}"), CallOptions::default())
        .await
    {
        Err(Error::Rejected(r)) => {
            assert_eq!(r.code, -32603, "{r}");
            let data = r.data.unwrap_or_default();
            assert!(data.contains("reason"), "{data}");
            assert!(!data.contains("sk-secret"), "the stderr leaked: {data}");
            assert!(!r.message.contains("sk-secret"), "{}", r.message);
        }
        other => panic!("{other:?}"),
    }
    c.close(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_started_again_with_the_same_tools_tells_the_front_of_no_change() {
    let (tx, mut notices) = tokio::sync::mpsc::unbounded_channel();
    let opts = Options {
        mode: Mode::Legacy,
        notices: Some(tx),
        timeout: Duration::from_secs(10),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(faults()), opts)
        .await
        .unwrap();
    quit_and_call_again(&c).await;
    // NB. The restart listed the tools again (the same ones): nothing to tell.
    tokio::time::sleep(Duration::from_millis(300)).await;
    while let Ok(n) = notices.try_recv() {
        assert_ne!(n.method, "notifications/tools/list_changed", "{n:?}");
    }
    c.close(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_comes_while_the_backend_restarts_waits_for_it() {
    let c = front(faults()).await;
    // NB. `exit` ends the backend's process under its call: the call fails, and the bridge
    // starts the backend again after a pause.
    match c
        .call_tool("exit", Some("{}"), CallOptions::default())
        .await
    {
        Err(Error::Rejected(r)) => assert_eq!(r.code, -32603, "{r}"),
        other => panic!("{other:?}"),
    }
    // At once: served by the next process (it failed as "restarting" before).
    let r = c
        .call_tool("echo", Some(r#"{"text":"waited"}"#), CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("the request during the restart failed: {e}"));
    assert_eq!(r.text(), "waited");
    c.close(Duration::from_secs(2)).await;
}

/// An HTTP backend that forgot the bridge's session (it expired while the bridge was idle,
/// or the server was started again) answers `404`, which means it did not run the request:
/// the bridge opens a new session and sends the request again there, so the front client
/// never hears of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_http_backend_refused_for_a_forgotten_session_is_sent_again_on_a_new_one() {
    let backend = support::HttpServe::start(&["--session-idle-secs", "1"]);
    let upstream = format!("http://{}/mcp", backend.addr);
    let c = front(Command::new(
        JANUS,
        [
            "bridge",
            "--mode",
            "legacy",
            "--upstream",
            upstream.as_str(),
        ],
    ))
    .await;
    // NB. Seven rounds: a session lost is no crash, so the bridge's pause before a new one
    // does not double each time (from 100 ms, the seventh would wait past the 5 s a request
    // waits for the backend).
    for round in 0..7 {
        // NB. Each round past the backend's idle time: the session is gone at its request.
        tokio::time::sleep(Duration::from_millis(1300)).await;
        match round % 3 {
            0 => {
                let r = c
                    .call_tool("echo", Some(r#"{"text":"again"}"#), CallOptions::default())
                    .await
                    .unwrap_or_else(|e| panic!("round {round}, a call: {e}"));
                assert_eq!(r.text(), "again");
            }
            1 => {
                let read = c
                    .read_resource("demo://text-64k")
                    .await
                    .unwrap_or_else(|e| panic!("round {round}, a read: {e}"));
                assert_eq!(read.len(), 1);
            }
            _ => {
                let got = c
                    .get_prompt("greet", &[("name", "again")])
                    .await
                    .unwrap_or_else(|e| panic!("round {round}, a prompt: {e}"));
                assert!(format!("{got:?}").contains("again"), "{got:?}");
            }
        }
    }
    c.close(Duration::from_secs(2)).await;
}
