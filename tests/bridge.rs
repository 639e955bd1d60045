//! `janus bridge` between real processes: janus-client in front (both eras), `janus serve`
//! behind it spoken to in the other era (the bridge's `--mode`), over stdio.

use janus_client::{CallOptions, Client, Command, Error, Mode, Options, Transport};
use janus_model::content::Block;
use std::time::Duration;
use support::raw_front::RawFront;

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

/// A client (in `front`) of `janus bridge --mode BACK -- janus serve`.
async fn through_bridge(front: Mode, back: &str) -> Client {
    through_bridge_to(front, back, "demo").await
}

/// `janus bridge OPTIONS --mode BACK -- janus serve --tools TOOLS`.
fn bridge_to(options: &[&str], back: &str, tools: &str) -> Command {
    let mut args = vec!["bridge"];
    args.extend_from_slice(options);
    args.extend_from_slice(&["--mode", back, "--", JANUS, "serve", "--tools", tools]);
    Command::new(JANUS, args)
}

/// A client (in `front`) of `janus bridge --mode BACK -- janus serve --tools TOOLS`.
async fn through_bridge_to(front: Mode, back: &str, tools: &str) -> Client {
    let cmd = bridge_to(&[], back, tools);
    let opts = Options {
        mode: front,
        trusted: true,
        timeout: Duration::from_secs(20),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    Client::connect(Transport::Stdio(cmd), opts)
        .await
        .expect("the bridge serves")
}

async fn exercise(c: &Client, label: &str) {
    let tools = c.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add", "fail", "sleep"], "{label}");
    let echo = tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(
        echo.annotations.read_only,
        Some(true),
        "{label}: hints pass through"
    );
    // Many calls in flight at once, each answered with its own text.
    let calls = (0..32).map(|i| {
        let args = format!(r#"{{"text":"call {i} \u00e9"}}"#);
        async move {
            let r = c
                .call_tool("echo", Some(&args), CallOptions::default())
                .await
                .unwrap();
            assert_eq!(r.text(), format!("call {i} é"), "{label}");
        }
    });
    futures_join(calls).await;
    let sum = c
        .call_tool("add", Some(r#"{"a":2,"b":40}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(sum.structured.as_deref(), Some(r#"{"sum":42}"#), "{label}");
    let failed = c
        .call_tool("fail", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert!(failed.is_error, "{label}");
    assert!(matches!(failed.content[0].block, Block::Text(_)), "{label}");
    // The backend's tool error reaches the client as it gave it; a tool the backend does
    // not have is the front's rejection.
    let refused = c
        .call_tool("add", Some(r#"{"a":"x"}"#), CallOptions::default())
        .await
        .unwrap();
    assert!(
        refused.is_error && refused.text().contains("a and b"),
        "{label}"
    );
    match c
        .call_tool("nope", Some("{}"), CallOptions::default())
        .await
    {
        Err(Error::Rejected(r)) => assert_eq!(r.code, -32602, "{label}: {r}"),
        other => panic!("{label}: {other:?}"),
    }
    // Progress of the backend's work reaches the front request that asked for it.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let opts = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let slept = c
        .call_tool("sleep", Some(r#"{"ms":250}"#), opts)
        .await
        .unwrap();
    assert!(slept.text().contains("250"), "{label}: {}", slept.text());
    let mut heard = 0;
    while rx.try_recv().is_ok() {
        heard += 1;
    }
    assert!(heard >= 1, "{label}: progress through the bridge");
}

async fn futures_join(calls: impl Iterator<Item = impl std::future::Future<Output = ()>>) {
    let mut set = Vec::new();
    for c in calls {
        set.push(c);
    }
    let mut pinned: Vec<_> = set.into_iter().map(Box::pin).collect();
    // NB. Polled together: the requests are in flight at once on the one connection.
    std::future::poll_fn(|cx| {
        pinned.retain_mut(|f| f.as_mut().poll(cx).is_pending());
        if pinned.is_empty() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_client_in_front_of_a_legacy_backend() {
    let c = through_bridge(Mode::Modern, "legacy").await;
    assert!(c.negotiated().version.is_modern());
    let info = c.discover().await.unwrap();
    let server = info.result().get("_meta").map(|m| m.as_str().to_owned());
    assert!(
        server.is_some_and(|m| m.contains(r#""name":"janus""#)),
        "server/discover from the backend's initialize: {}",
        info.result_str()
    );
    exercise(&c, "modern front, legacy backend").await;
    c.close(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_on_several_threads_serves_the_same() {
    // NB. One thread is the stdio front's default; `--threads N` spreads it.
    let cmd = bridge_to(&["--threads", "2"], "legacy", "demo");
    let opts = Options {
        mode: Mode::Modern,
        trusted: true,
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts)
        .await
        .expect("the bridge serves");
    exercise(&c, "two threads").await;
    c.close(Duration::from_secs(2)).await;
    let refused = std::process::Command::new(JANUS)
        .args(["bridge", "--threads", "0", "--", JANUS, "serve"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--threads"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_client_in_front_of_a_modern_backend() {
    let c = through_bridge(Mode::Legacy, "modern").await;
    assert!(c.negotiated().version.is_handshake());
    assert!(
        c.negotiated()
            .server_info
            .as_deref()
            .is_some_and(|i| i.contains(r#""name":"janus""#)),
        "initialize answered from the backend's server/discover: {:?}",
        c.negotiated()
    );
    exercise(&c, "legacy front, modern backend").await;
    c.close(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_resources_are_forwarded_in_both_directions() {
    for (front, back) in [(Mode::Modern, "legacy"), (Mode::Legacy, "modern")] {
        let label = format!("{front:?} front, {back} backend");
        let c = through_bridge_to(front, back, "conformance").await;
        let resources = c.list_resources().await.unwrap();
        assert!(
            resources.iter().any(|r| r.uri == "test://static-text"),
            "{label}"
        );
        let text = c.read_resource("test://static-text").await.unwrap();
        assert!(text[0].text().is_some_and(|t| !t.is_empty()), "{label}");
        let binary = c.read_resource("test://static-binary").await.unwrap();
        assert!(binary[0].blob().is_some(), "{label}");
        let templates = c.list_resource_templates().await.unwrap();
        assert_eq!(
            templates[0].uri_template, "test://template/{id}/data",
            "{label}"
        );
        let templated = c.read_resource("test://template/42/data").await.unwrap();
        assert!(templated[0].text().unwrap().contains("42"), "{label}");
        let e = c.read_resource("test://nothing").await.unwrap_err();
        assert!(e.rejection().is_some(), "{label}: {e}");
        let prompts = c.list_prompts().await.unwrap();
        let p = prompts
            .iter()
            .find(|p| p.name == "test_prompt_with_arguments")
            .unwrap();
        assert!(p.arguments.iter().all(|a| a.required), "{label}");
        let got = c
            .get_prompt(
                "test_prompt_with_arguments",
                &[("arg1", "a"), ("arg2", "b")],
            )
            .await
            .unwrap();
        assert!(
            got.messages[0].1.as_text().is_some_and(|t| t.contains('a')),
            "{label}: {got:?}"
        );
        let values = c
            .complete(
                janus_client::CompletionRef::Prompt("test_prompt_with_arguments"),
                "arg1",
                "par",
                &[],
            )
            .await
            .unwrap();
        assert_eq!(values, ["paris", "park", "party"], "{label}");
        // The backend's rejection (a required argument missing) reaches the client.
        let e = c
            .get_prompt("test_prompt_with_arguments", &[])
            .await
            .unwrap_err();
        assert!(e.rejection().is_some(), "{label}: {e}");
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_exits_or_hangs_is_absorbed_at_the_front() {
    let c = through_bridge_to(Mode::Modern, "legacy", "faults").await;
    // A backend that dies mid-request: that request gets -32603 with the reason.
    match c
        .call_tool("exit", Some("{}"), CallOptions::default())
        .await
    {
        Err(Error::Rejected(r)) => {
            assert_eq!(r.code, -32603, "{r}");
            assert!(
                r.data.as_deref().is_some_and(|d| d.contains("reason")),
                "{r}"
            );
        }
        other => panic!("{other:?}"),
    }
    // It is restarted: calls work again within a bounded time, and fail clearly meanwhile.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match c
            .call_tool("echo", Some(r#"{"text":"back"}"#), CallOptions::default())
            .await
        {
            Ok(r) => {
                assert_eq!(r.text(), "back");
                break;
            }
            Err(Error::Rejected(r)) => {
                assert_eq!(r.code, -32603, "{r}");
                assert!(tokio::time::Instant::now() < deadline, "never back: {r}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    // A backend that never answers: the front's caller times out (the call is cancelled on
    // the wire, and the bridge cancels it at the backend); the front goes on.
    let opts = CallOptions {
        timeout: Some(Duration::from_millis(300)),
        ..CallOptions::default()
    };
    assert!(matches!(
        c.call_tool("hang", Some("{}"), opts).await,
        Err(Error::Timeout(_))
    ));
    let r = c
        .call_tool("echo", Some(r#"{"text":"still"}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "still");
    c.close(Duration::from_secs(2)).await;
}

/// The address a process logs in its `listening (HTTP...) addr=...` line.
fn logged_addr(child: &mut std::process::Child) -> String {
    use std::io::BufRead as _;
    let mut err = std::io::BufReader::new(child.stderr.take().expect("piped stderr"));
    for _ in 0..40 {
        let mut l = String::new();
        if err.read_line(&mut l).unwrap_or(0) == 0 {
            break;
        }
        if let Some(a) = l
            .split("addr=")
            .nth(1)
            .filter(|_| l.contains("listening (HTTP"))
        {
            let addr = a.split_whitespace().next().unwrap().to_owned();
            std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
            return addr;
        }
    }
    panic!("no address logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_backend_and_an_http_front() {
    let backend = support::HttpServe::start(&[]);
    let upstream = format!("http://{}/mcp", backend.addr);
    // The backend over HTTP, in legacy sessions, behind a modern stdio front.
    let cmd = Command::new(
        JANUS,
        [
            "bridge",
            "--mode",
            "legacy",
            "--upstream",
            upstream.as_str(),
        ],
    );
    let opts = Options {
        mode: Mode::Modern,
        timeout: Duration::from_secs(20),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    exercise(&c, "modern stdio front, legacy HTTP backend").await;
    c.close(Duration::from_secs(2)).await;
    // The bridge's own front over streamable HTTP (both eras), a stdio backend behind it.
    let mut front = std::process::Command::new(JANUS)
        .args([
            "bridge",
            "--http",
            "127.0.0.1:0",
            "--mode",
            "legacy",
            "--",
            JANUS,
            "serve",
        ])
        .env("JANUS_LOG", "info")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let addr = logged_addr(&mut front);
    let _front = Killed(front);
    for mode in [Mode::Modern, Mode::Legacy] {
        let opts = Options {
            mode,
            timeout: Duration::from_secs(20),
            cache: janus_client::AutoCache::default(),
            ..Options::default()
        };
        let t = Transport::Http {
            url: format!("http://{addr}/mcp"),
            headers: Vec::new(),
        };
        let c = Client::connect(t, opts).await.unwrap();
        exercise(&c, &format!("{mode:?} HTTP front, legacy stdio backend")).await;
        c.close(Duration::from_secs(2)).await;
    }
}

/// A child process killed (by its pid) and reaped when dropped, a failed test's included.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_of_the_backend_s_tools_reaches_the_front() {
    a_change_of_the_tools_through(Mode::Modern, "legacy").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_of_a_modern_backend_s_tools_reaches_a_legacy_front() {
    // NB. A 2026-07-28 backend tells of changes only on a listen stream: the bridge holds one.
    a_change_of_the_tools_through(Mode::Legacy, "modern").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_of_a_modern_http_backend_s_tools_reaches_a_legacy_front() {
    // NB. Over HTTP the bridge's listen stream is a POST's event stream, held open.
    let backend = support::HttpServe::start(&["--tools", "conformance"]);
    let c = through_bridge_upstream(&backend, "modern", Mode::Legacy).await;
    tools_change_and_the_front_hears(&c).await;
    c.close(Duration::from_secs(2)).await;
}

/// A client (in `front`) of `janus bridge --mode BACK --upstream` the HTTP `backend`.
async fn through_bridge_upstream(backend: &support::HttpServe, back: &str, front: Mode) -> Client {
    let upstream = format!("http://{}/mcp", backend.addr);
    let cmd = Command::new(
        JANUS,
        ["bridge", "--mode", back, "--upstream", upstream.as_str()],
    );
    Client::connect(Transport::Stdio(cmd), front_options(front))
        .await
        .expect("the bridge serves")
}

fn front_options(mode: Mode) -> Options {
    Options {
        mode,
        trusted: true,
        timeout: Duration::from_secs(20),
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    }
}

async fn a_change_of_the_tools_through(front: Mode, back: &str) {
    let c = through_bridge_to(front, back, "conformance").await;
    tools_change_and_the_front_hears(&c).await;
    c.close(Duration::from_secs(2)).await;
}

/// A tool added at the backend, then removed, reaches the front client's list.
async fn tools_change_and_the_front_hears(c: &Client) {
    let has =
        |tools: &[janus_client::ToolSpec]| tools.iter().any(|t| t.name == "test_dynamic_tool");
    assert!(!has(&c.list_tools().await.unwrap()));
    let r = c
        .call_tool(
            "test_trigger_tool_change",
            Some("{}"),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("Added"), "{}", r.text());
    // The backend's list_changed makes the bridge list its tools again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !has(&c.list_tools().await.unwrap()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the new tool never reached the front"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let r = c
        .call_tool("test_dynamic_tool", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "A tool added at run time");
    // And its removal.
    c.call_tool(
        "test_trigger_tool_change",
        Some("{}"),
        CallOptions::default(),
    )
    .await
    .unwrap();
    while has(&c.list_tools().await.unwrap()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tool was never removed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backend_s_requests_for_input_reach_the_front_client_in_its_era() {
    for (front, back) in [(Mode::Modern, "legacy"), (Mode::Legacy, "modern")] {
        let label = format!("{front:?} front, {back} backend");
        let callbacks = janus_client::Callbacks::new()
            .elicit(|_| async {
                Ok(r#"{"action":"accept","content":{"username":"ada","email":"ada@example.com","context":"tea"}}"#.into())
            })
            .sample(|_| async {
                Ok(r#"{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"test"}"#.into())
            });
        // NB. Two backends: a retry finds the call it resumes on whichever one runs it.
        let cmd = bridge_to(&["--pool", "2"], back, "conformance");
        let opts = Options {
            mode: front,
            callbacks,
            timeout: Duration::from_secs(20),
            cache: janus_client::AutoCache::default(),
            ..Options::default()
        };
        let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
        let r = c
            .call_tool(
                "test_elicitation",
                Some(r#"{"message":"who?"}"#),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert!(!r.is_error && r.text().contains("ada"), "{label}: {r:?}");
        let r = c
            .call_tool(
                "test_sampling",
                Some(r#"{"prompt":"hi"}"#),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert!(r.text().contains("sampled"), "{label}: {r:?}");
        // Input asked during prompts/get reaches the front client the same way.
        let p = c
            .get_prompt("test_input_required_result_prompt", &[])
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let text = format!("{:?}", p.messages);
        assert!(
            text.contains("Answer with this context in mind: tea"),
            "{label}: {text}"
        );
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_cannot_start_is_a_clear_error_and_exit_2() {
    let out = std::process::Command::new(JANUS)
        .args(["bridge", "--mode", "legacy", "--", "/nonexistent/backend"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing but protocol on stdout");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the bridge could not start"), "{err}");
    // The requests its client sent meanwhile are answered, each saying why, before it
    // exits: a notification is not, nor a line that is no message.
    let mut child = unstartable();
    {
        use std::io::Write as _;
        let mut input = child.stdin.take().unwrap();
        let sent = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\nnot json\n",
            r#"{"jsonrpc":"2.0","id":"two","method":"server/discover","params":{}}"#,
        );
        input.write_all(sent.as_bytes()).unwrap();
        // NB. Its input ends without a last line break: that request is answered too.
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    for (a, id) in answers
        .iter()
        .zip([serde_json::json!(1), serde_json::json!("two")])
    {
        assert_eq!(a["id"], id, "{a}");
        assert_eq!(a["error"]["code"], -32603, "{a}");
        let why = a["error"]["data"]["reason"].as_str().unwrap_or_default();
        assert!(why.contains("the backend could not start"), "{a}");
    }
    // A client that keeps its input open, waiting: its request is answered, and the bridge
    // still exits (once the client falls quiet).
    let mut child = unstartable();
    let mut input = child.stdin.take().unwrap();
    {
        use std::io::Write as _;
        writeln!(
            input,
            r#"{{"jsonrpc":"2.0","id":7,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        )
        .unwrap();
    }
    let mut output = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut output, &mut line).unwrap();
    let a: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (a["id"].clone(), a["error"]["code"].clone()),
        (7.into(), (-32603).into()),
        "{a}"
    );
    // NB. Bounded: a bridge that never exits fails the test instead of hanging it.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the bridge did not exit while its client kept its input open");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(2));
    drop(input);
}

/// `janus bridge` in front of a backend that cannot start, its stdin and stdout piped.
fn unstartable() -> std::process::Child {
    std::process::Command::new(JANUS)
        .args(["bridge", "--mode", "legacy", "--", "/nonexistent/backend"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_breaks_the_protocol_is_absorbed_at_the_front() {
    for front in [Mode::Modern, Mode::Legacy] {
        let c = through_bridge_to(front, "legacy", "faults").await;
        // A backend that answers with a result of the wrong shape, among lines that are not
        // JSON-RPC: the front request gets -32603 saying why, at once (not a hang).
        let opts = CallOptions {
            timeout: Some(Duration::from_secs(10)),
            ..CallOptions::default()
        };
        match c.call_tool("garbage", Some("{}"), opts).await {
            Err(Error::Rejected(r)) => {
                assert_eq!(r.code, -32603, "{front:?}: {r}");
                assert!(
                    r.data.as_deref().is_some_and(|d| d.contains("reason")),
                    "{front:?}: {r}"
                );
            }
            other => panic!("{front:?}: {other:?}"),
        }
        // An answer that cannot be read (nested too deep) but says whose it is: that call
        // fails at once, saying so, not at the bridge's 60 s timeout (this one's is 10 s).
        let opts = CallOptions {
            timeout: Some(Duration::from_secs(10)),
            ..CallOptions::default()
        };
        match c.call_tool("unreadable", Some("{}"), opts).await {
            Err(Error::Rejected(r)) => {
                assert_eq!(r.code, -32603, "{front:?}: {r}");
                assert!(
                    r.data
                        .as_deref()
                        .is_some_and(|d| d.contains("could not be read")),
                    "{front:?}: {r}"
                );
            }
            other => panic!("{front:?}: {other:?}"),
        }
        // A flood of notifications nobody asked for and of text that is not JSON: skipped,
        // and the call's answer comes after it.
        let r = c
            .call_tool("noisy", Some(r#"{"count":20000}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "flooded 20000", "{front:?}");
        // Requests nobody expects (an unknown method, a ping) and an answer to nothing: the
        // bridge answers or drops them, and the call goes on.
        let r = c
            .call_tool("asking", Some("{}"), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "asked", "{front:?}");
        // ... and, after its answer, a request for input that belongs to no call: refused.
        tokio::time::sleep(Duration::from_millis(100)).await;
        // The same backend process still serves, with many calls in flight.
        let calls = (0..16).map(|i| {
            let c = &c;
            async move {
                let r = c
                    .call_tool(
                        "echo",
                        Some(&format!(r#"{{"text":"after {i}"}}"#)),
                        CallOptions::default(),
                    )
                    .await
                    .unwrap();
                assert_eq!(r.text(), format!("after {i}"));
            }
        });
        futures_join(calls).await;
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backend_log_messages_reach_the_front_by_its_log_level() {
    // The backend logs three messages at `info` during the call. A front client that asked
    // for `info` (logging/setLevel after its handshake, or each 2026-07-28 request's level)
    // hears them, in order, before the answer; one that asked for `warning` hears none.
    for (front, back) in [
        (Mode::Legacy, "legacy"),
        (Mode::Modern, "legacy"),
        (Mode::Legacy, "modern"),
    ] {
        for (level, heard) in [("info", 3), ("warning", 0)] {
            let label = format!("{front:?} front, {back} backend, level {level}");
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let cmd = bridge_to(&[], back, "conformance");
            let opts = Options {
                logs: Some(tx),
                log_level: Some(level.into()),
                ..front_options(front)
            };
            let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
            let r = c
                .call_tool("test_tool_with_logging", Some("{}"), CallOptions::default())
                .await
                .unwrap();
            assert!(r.text().contains("successfully"), "{label}: {}", r.text());
            let mut got = Vec::new();
            while let Ok(m) = rx.try_recv() {
                got.push(m);
            }
            assert_eq!(got.len(), heard, "{label}: {got:?}");
            if heard > 0 {
                assert_eq!(got[0].level, "info", "{label}");
                assert!(got[0].data.contains("started"), "{label}: {got:?}");
                assert!(got[2].data.contains("completed"), "{label}: {got:?}");
            }
            c.close(Duration::from_secs(2)).await;
        }
    }
}

/// The children of process `pid` (Linux).
fn children_of(pid: u32) -> Vec<u32> {
    let path = format!("/proc/{pid}/task/{pid}/children");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Bytes process `pid` has read so far (`rchar` of /proc/PID/io).
fn bytes_read(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_of_backends_shares_the_calls() {
    let front = support::HttpServe::launch(&[
        "bridge",
        "--http",
        "127.0.0.1:0",
        "--pool",
        "3",
        "--mode",
        "legacy",
        "--",
        JANUS,
        "serve",
    ]);
    let backends = children_of(front.child.id());
    assert_eq!(backends.len(), 3, "three backend processes: {backends:?}");
    let before: Vec<u64> = backends.iter().map(|&p| bytes_read(p)).collect();
    let t = Transport::Http {
        url: format!("http://{}/mcp", front.addr),
        headers: Vec::new(),
    };
    let c = Client::connect(t, front_options(Mode::Modern))
        .await
        .unwrap();
    exercise(&c, "a pool of three").await;
    c.close(Duration::from_secs(2)).await;
    // Each backend read calls of its own.
    for (p, b) in backends.iter().zip(before) {
        assert!(bytes_read(*p) > b + 200, "backend {p} got no calls");
    }
}

#[test]
fn a_legacy_backend_s_questions_asked_at_once_are_one_round() {
    // The fixture, spoken to in 2025-11-25, sends its three requests for input at once: the
    // front asks them in one input_required; a retry that answers two gets the third again.
    let mut f = RawFront::start();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}"#;
    let call = r#""name":"test_input_required_result_multiple_inputs","arguments":{}"#;
    let first = f.ask_with(1, "tools/call", call, meta);
    let r = &first["result"];
    assert_eq!(r["resultType"], "input_required", "{first}");
    let asked = r["inputRequests"].as_object().unwrap();
    let mut methods: Vec<&str> = asked
        .values()
        .map(|q| q["method"].as_str().unwrap())
        .collect();
    methods.sort_unstable();
    assert_eq!(
        methods,
        ["elicitation/create", "roots/list", "sampling/createMessage"],
        "{first}"
    );
    let key_of = |m: &str| {
        asked
            .iter()
            .find(|(_, q)| q["method"] == m)
            .map(|(k, _)| k.clone())
            .unwrap()
    };
    let (name, greeting, roots) = (
        key_of("elicitation/create"),
        key_of("sampling/createMessage"),
        key_of("roots/list"),
    );
    // The greeting left out: asked again, alone, under its key.
    let retry = format!(
        r#"{call},"inputResponses":{{"{name}":{{"action":"accept","content":{{"name":"Ada"}}}},"{roots}":{{"roots":[]}}}},"requestState":{}"#,
        r["requestState"]
    );
    let second = f.ask_with(2, "tools/call", &retry, meta);
    let r = &second["result"];
    assert_eq!(r["resultType"], "input_required", "{second}");
    let again: Vec<&String> = r["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(again, [&greeting], "{second}");
    let last = format!(
        r#"{call},"inputResponses":{{"{greeting}":{{"role":"assistant","content":{{"type":"text","text":"Hello"}},"model":"m"}}}},"requestState":{}"#,
        r["requestState"]
    );
    let done = f.ask_with(3, "tools/call", &last, meta);
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Hello Ada!", "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_s_a_resource_s_and_a_prompt_s_meta_cross_the_bridge_in_every_direction() {
    // NB. The backend's tool gives a `_meta` of its own with a stamp's key in it: the members
    // reach the front's client, and the stamp is the one that answered it (the bridge's, in
    // the backend's name).
    let want_meta = r#"{"example.com/n":[1,2],"example.com/trace":"t-42"}"#;
    for (front, back) in [
        (Mode::Modern, "legacy"),
        (Mode::Legacy, "modern"),
        (Mode::Modern, "modern"),
        (Mode::Legacy, "legacy"),
    ] {
        let c = through_bridge_to(front, back, "faults").await;
        let r = c
            .call_tool("meta", None, CallOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{front:?} front, {back} backend: {e}"));
        assert_eq!(r.text(), "with meta");
        let meta: serde_json::Value =
            serde_json::from_str(r.meta.as_deref().expect("a _meta")).unwrap();
        assert_eq!(
            meta,
            serde_json::from_str::<serde_json::Value>(want_meta).unwrap(),
            "{front:?} front, {back} backend"
        );
        assert_eq!(
            r.structured.as_deref(),
            Some(r#"{"n":2,"ok":true}"#),
            "{front:?} front, {back} backend"
        );
        // A resource's contents keep theirs too.
        let read = c.read_resource("faults://meta").await.unwrap();
        assert_eq!(read[0].text(), Some("<p>with meta</p>"));
        assert_eq!(
            read[0].meta.as_ref().map(janus_model::json::Json::as_str),
            Some(r#"{"ui":{"prefersBorder":true}}"#),
            "{front:?} front, {back} backend"
        );
        // And a prompt's result its own (the stamp's key in it is the answer's).
        let got = c.get_prompt("meta", &[]).await.unwrap();
        assert_eq!(got.messages.len(), 1);
        assert_eq!(
            got.meta.as_ref().map(janus_model::json::Json::as_str),
            Some(r#"{"example.com/p":"q"}"#),
            "{front:?} front, {back} backend"
        );
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_serves_only_tools_is_asked_only_for_them() {
    // NB. A backend in a few lines of sh: it declares tools alone, and answers anything else
    // it is asked with `{}` (a list of prompts or resources of the wrong shape): the bridge
    // does not ask it for those, and serves its tool.
    let script = support::sh_backend("");
    let cmd = Command::new(
        JANUS,
        ["bridge", "--mode", "legacy", "--", "sh", "-c", &script],
    );
    let opts = Options {
        mode: Mode::Modern,
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let c = Client::connect(Transport::Stdio(cmd), opts)
        .await
        .expect("the bridge serves");
    let r = c
        .call_tool("hello", None, CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "hello from sh");
    assert!(c.list_prompts().await.map_or(true, |p| p.is_empty()));
    c.close(Duration::from_secs(2)).await;
}

/// The blocks of `janus serve --tools faults`'s `rich` (src/fixtures/faults.rs).
const RICH_BLOCKS: [&str; 3] = [
    r#"{"type":"text","text":"plain","_meta":{"example.com/k":"v"}}"#,
    r#"{"type":"resource_link","uri":"faults://meta","name":"meta","title":"The meta page","size":17,"_meta":{"example.com/r":1}}"#,
    r#"{"type":"audio","data":"AAAA","mimeType":"audio/wav","annotations":{"audience":["user"],"lastModified":"2026-01-01T00:00:00Z"}}"#,
];

/// `tools/call` of `rich` by a raw handshake client of revision `version` through `janus
/// bridge --mode legacy -- janus serve --tools faults` (a 2025-11-25 backend): the result.
fn rich_through_handshake_front(version: &str) -> serde_json::Value {
    use std::io::{BufRead as _, Write as _};
    let mut child = std::process::Command::new(JANUS)
        .args([
            "bridge", "--mode", "legacy", "--", JANUS, "serve", "--tools", "faults",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let stdin = child.stdin.as_mut().unwrap();
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"raw","version":"1"}}}}}}"#
    );
    writeln!(stdin, "{init}").unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"rich","arguments":{{}}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let got = loop {
        let mut l = String::new();
        assert!(out.read_line(&mut l).unwrap() > 0, "the bridge ended");
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        if v["id"] == 1 {
            assert_eq!(v["result"]["protocolVersion"], version, "{v}");
        }
        if v["id"] == 2 {
            break v;
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    got["result"].clone()
}

#[test]
fn blocks_reach_a_client_of_the_backend_s_revision_or_later_as_the_backend_wrote_them() {
    let want: Vec<serde_json::Value> = RICH_BLOCKS
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    // A 2026-07-28 client and a 2025-11-25 one, in front of a 2025-11-25 backend: every
    // member of every block, those the model does not read included.
    let mut f = RawFront::start_with(&[JANUS, "serve", "--tools", "faults"]);
    let modern = f.ask(1, "tools/call", r#""name":"rich","arguments":{}"#);
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    assert_eq!(
        modern["result"]["content"].as_array().unwrap(),
        &want,
        "{modern}"
    );
    let same = rich_through_handshake_front("2025-11-25");
    assert_eq!(same["content"].as_array().unwrap(), &want, "{same}");
    // A 2024-11-05 client gets them in its revision: a resource_link and audio it has no
    // type for become text that names them.
    let old = rich_through_handshake_front("2024-11-05");
    let blocks = old["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 3, "{old}");
    assert!(blocks.iter().all(|b| b["type"] == "text"), "{old}");
    assert_eq!(blocks[0]["text"], "plain", "{old}");
    assert_eq!(blocks[1]["text"], "Resource meta: faults://meta", "{old}");
    assert!(
        blocks[2]["text"].as_str().unwrap().contains("audio/wav"),
        "{old}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_change_of_the_backend_s_tools_is_one_list_changed_at_the_front() {
    let (tx, mut notices) = tokio::sync::mpsc::unbounded_channel();
    let opts = Options {
        mode: Mode::Legacy,
        notices: Some(tx),
        timeout: Duration::from_secs(20),
        ..front_options(Mode::Legacy)
    };
    let cmd = bridge_to(&[], "legacy", "conformance");
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let r = c
        .call_tool(
            "test_trigger_tool_change",
            Some("{}"),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(r.text().contains("Added"), "{}", r.text());
    // NB. The backend's one list_changed: the bridge lists again and tells its front once
    // (it told once for each of the backend's tools, added again one by one).
    let mut heard = 0;
    let until = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Some(n)) = tokio::time::timeout_at(until, notices.recv()).await {
        if n.method == "notifications/tools/list_changed" {
            heard += 1;
        }
    }
    assert_eq!(heard, 1);
    let tools = c.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "test_dynamic_tool"));
    c.close(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_front_s_call_without_the_input_it_needs_is_a_tool_error() {
    // NB. In front of a 2026-07-28 backend: the backend refuses a client that did not declare
    // the capability (-32021), and a client that refuses the question ends the call; a
    // handshake session's tools/call gets a tool error for both, as from `janus serve`.
    let refusing = janus_client::Callbacks::new().elicit(|_| async {
        Err(janus_client::Rejection {
            code: -1,
            message: "User rejected".into(),
            data: None,
        })
    });
    for (callbacks, says) in [
        (
            janus_client::Callbacks::new(),
            "did not declare elicitation",
        ),
        (refusing, "User rejected"),
    ] {
        let opts = Options {
            callbacks,
            ..front_options(Mode::Legacy)
        };
        let cmd = bridge_to(&[], "modern", "conformance");
        let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
        let r = c
            .call_tool(
                "test_elicitation",
                Some(r#"{"message":"who?"}"#),
                CallOptions::default(),
            )
            .await
            .unwrap_or_else(|e| panic!("{says}: {e}"));
        assert!(r.is_error, "{says}: {r:?}");
        assert!(r.text().contains(says), "{says}: {}", r.text());
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_of_the_backend_s_prompts_reaches_the_front_of_either_era() {
    for (front, back) in [(Mode::Legacy, "modern"), (Mode::Modern, "legacy")] {
        let label = format!("{front:?} front, {back} backend");
        let c = through_bridge_to(front, back, "conformance").await;
        let has = |prompts: &[janus_client::Prompt]| {
            prompts.iter().any(|p| p.name == "test_dynamic_prompt")
        };
        assert!(!has(&c.list_prompts().await.unwrap()), "{label}");
        c.call_tool(
            "test_trigger_prompt_change",
            Some("{}"),
            CallOptions::default(),
        )
        .await
        .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !has(&c.list_prompts().await.unwrap()) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{label}: the new prompt never reached the front"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let got = c
            .get_prompt("test_dynamic_prompt", &[])
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(
            format!("{got:?}").contains("added at run time"),
            "{label}: {got:?}"
        );
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_of_one_request_to_an_http_backend_fails_that_request_only() {
    // NB. An answer over the 8 MiB a message may take is a transport fault of its request:
    // the next request goes on the same session at once (it made the connection again, and
    // failed what came meanwhile as "restarting").
    let backend = support::HttpServe::start(&["--tools", "faults"]);
    let c = through_bridge_upstream(&backend, "legacy", Mode::Modern).await;
    match c
        .call_tool("huge", Some(r#"{"size":9437184}"#), CallOptions::default())
        .await
    {
        Err(janus_client::Error::Rejected(r)) => {
            assert_eq!(r.code, -32603, "{r}");
            assert!(r.data.unwrap_or_default().contains("size limit"));
        }
        other => panic!("{other:?}"),
    }
    for i in 0..3 {
        let r = c
            .call_tool("echo", Some(r#"{"text":"next"}"#), CallOptions::default())
            .await
            .unwrap_or_else(|e| panic!("call {i} after the fault: {e}"));
        assert_eq!(r.text(), "next");
    }
    c.close(Duration::from_secs(2)).await;
}
