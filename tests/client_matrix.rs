//! janus-client against real MCP servers, in every lifecycle mode that applies (the issue's
//! interoperability matrix): `janus serve` (stdio, HTTP), rmcp 3.11's server (stdio, HTTP
//! stateless, HTTP with legacy sessions), python-sdk v2 2.3.0's `MCPServer` (stdio, HTTP)
//! and python-sdk v1 1.30.0's `FastMCP` (stdio, HTTP, its SSE transport).
//!
//! Each case lists the tools, calls one short and with 1 MiB, reads `structuredContent` and
//! `isError`, calls an unknown tool (a rejection or a tool error, as that server answers),
//! lets a call time out (it is cancelled, and the connection goes on), and checks the
//! revision settled. Auto falls back to `initialize` against v1; Modern fails against it
//! with a clear error, never a hang. The tools v1 and v2 serve normalise to the same specs
//! and results; the safety classes follow the hints and the trust given.
//!
//! Run by the `client` interop lane (`tests/interop/run.sh client`), which makes the Python
//! environments and names their interpreters in JANUS_MATRIX_PY_V1 and JANUS_MATRIX_PY_V2;
//! the feature `client-matrix` keeps it out of the plain test run. A missing interpreter
//! fails the test: nothing is skipped. Each case prints a row of the README's table.
#![cfg(feature = "client-matrix")]

use janus_client::{
    CallOptions, Client, Command, Error, Mode, Options, SafetyClass, ToolSpec, Transport,
};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");
/// The benchmark's executable, which serves the rmcp peer.
const JANUS_BENCH: &str = env!("CARGO_BIN_EXE_janus-bench");
/// No case may take longer: a hang is a failure.
const CASE_LIMIT: Duration = Duration::from_secs(60);

fn python(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} names no Python interpreter: run tests/interop/run.sh client")
    })
}

fn script() -> String {
    format!("{}/tests/interop/server_py.py", env!("CARGO_MANIFEST_DIR"))
}

fn options(mode: Mode, trusted: bool) -> Options {
    Options {
        mode,
        trusted,
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    }
}

/// A server process on a loopback port: killed (by its pid, with the child) when dropped.
struct Served {
    child: tokio::process::Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `program args` and waits until `port` accepts connections.
async fn serve_on(program: &str, args: &[String], port: u16, path: &str) -> Served {
    let child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Served {
                child,
                url: format!("http://127.0.0.1:{port}{path}"),
            };
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{program} {args:?} never listened on {port}");
}

/// `janus serve --http` on a port it picks and logs.
async fn janus_http() -> Served {
    janus_http_with(&[]).await
}

/// `janus serve --http ... extra` on a port it picks and logs.
async fn janus_http_with(extra: &[&str]) -> Served {
    let mut child = tokio::process::Command::new(JANUS)
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(extra)
        .env("JANUS_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("janus logs its address");
        if let Some(rest) = line.split("addr=").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Served {
        child,
        url: format!("http://{addr}/mcp"),
    }
}

fn stdio(program: &str, args: &[&str]) -> Transport {
    Transport::Stdio(Command::new(program, args.iter().copied()))
}

fn http(url: &str) -> Transport {
    Transport::Http {
        url: url.to_owned(),
        headers: Vec::new(),
    }
}

/// One case of the matrix: every check on one connection. Returns the README's row.
async fn case(
    server: &str,
    transport_name: &str,
    transport: Transport,
    mode: Mode,
    revision: &str,
) -> String {
    let run = async {
        let c = Client::connect(transport, options(mode, false)).await?;
        assert_eq!(
            c.negotiated().version.as_str(),
            revision,
            "{server} {transport_name} {mode:?}"
        );
        let tools = c.list_tools().await?;
        for t in ["echo", "add", "fail"] {
            assert!(
                tools.iter().any(|s| s.name == t),
                "{server}: no {t} in {tools:?}"
            );
        }
        let r = c
            .call_tool("echo", Some(r#"{"text":"hi"}"#), CallOptions::default())
            .await?;
        assert_eq!(r.text(), "hi", "{server}: {r:?}");
        assert!(!r.is_error);
        let big = "y".repeat(1 << 20);
        let r = c
            .call_tool(
                "echo",
                Some(&format!(r#"{{"text":"{big}"}}"#)),
                CallOptions::default(),
            )
            .await?;
        assert_eq!(r.text().len(), big.len(), "{server}: 1 MiB back");
        let r = c
            .call_tool("add", Some(r#"{"a":2,"b":3}"#), CallOptions::default())
            .await?;
        let s: serde_json::Value =
            serde_json::from_str(r.structured.as_deref().expect("structuredContent")).unwrap();
        assert_eq!(s["sum"].as_f64(), Some(5.0), "{server}: {s}");
        let r = c
            .call_tool("fail", Some("{}"), CallOptions::default())
            .await?;
        assert!(r.is_error, "{server}: {r:?}");
        match c
            .call_tool("no_such_tool", Some("{}"), CallOptions::default())
            .await
        {
            Err(Error::Rejected(_)) => {}
            Ok(r) if r.is_error => {}
            other => panic!("{server}: an unknown tool gave {other:?}"),
        }
        if tools.iter().any(|s| s.name == "sleep") {
            let o = CallOptions {
                timeout: Some(Duration::from_millis(300)),
                ..CallOptions::default()
            };
            let e = c
                .call_tool("sleep", Some(r#"{"ms":5000}"#), o)
                .await
                .unwrap_err();
            assert!(matches!(e, Error::Timeout(_)), "{server}: {e}");
            let r = c
                .call_tool("echo", Some(r#"{"text":"after"}"#), CallOptions::default())
                .await?;
            assert_eq!(
                r.text(),
                "after",
                "{server}: the connection goes on after a cancel"
            );
        }
        c.close(Duration::from_secs(2)).await;
        Ok::<_, Error>(())
    };
    match tokio::time::timeout(CASE_LIMIT, run).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{server} {transport_name} {mode:?}: {e}"),
        Err(_) => panic!("{server} {transport_name} {mode:?}: no end within {CASE_LIMIT:?}"),
    }
    let mode = format!("{mode:?}");
    let row = format!("| {server} | {transport_name} | {mode} | {revision} | pass |");
    println!("{row}");
    row
}

const ALL_MODES: [(Mode, &str); 3] = [
    (Mode::Legacy, "2025-11-25"),
    (Mode::Modern, "2026-07-28"),
    (Mode::Auto, "2026-07-28"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn janus_serve_in_every_mode_and_transport() {
    for (mode, rev) in ALL_MODES {
        case("janus serve", "stdio", stdio(JANUS, &["serve"]), mode, rev).await;
    }
    let s = janus_http().await;
    for (mode, rev) in ALL_MODES {
        case("janus serve", "streamable HTTP", http(&s.url), mode, rev).await;
    }
}

/// A tool, a prompt and a resource whose names and URI are not plain header text (non-ASCII,
/// leading spaces): over streamable HTTP a 2026-07-28 request carries them in `Mcp-Name`'s
/// Base64 sentinel, which `janus serve --http` decodes before it compares.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_are_not_header_text_over_http_in_every_mode() {
    const TOOL: &str = " héllo wörld";
    const PROMPT: &str = "  grüße";
    const URI: &str = "file:///ünï cödé/naïve.txt";
    let s = janus_http_with(&["--tools", "names"]).await;
    for (mode, rev) in ALL_MODES {
        let run = async {
            let c = Client::connect(http(&s.url), options(mode, false)).await?;
            assert_eq!(c.negotiated().version.as_str(), rev, "{mode:?}");
            let tools = c.list_tools().await?;
            assert!(tools.iter().any(|t| t.name == TOOL), "{tools:?}");
            let r = c
                .call_tool(TOOL, Some(r#"{"who":"Zoë"}"#), CallOptions::default())
                .await?;
            assert_eq!(r.text(), "héllo, Zoë", "{mode:?}: {r:?}");
            assert!(!r.is_error);
            let p = c.get_prompt(PROMPT, &[("who", "Zoë")]).await?;
            assert_eq!(p.messages.len(), 1, "{mode:?}: {p:?}");
            assert_eq!(
                p.messages[0].1.as_text(),
                Some("Grüß Zoë!"),
                "{mode:?}: {p:?}"
            );
            let contents = c.read_resource(URI).await?;
            assert_eq!(contents[0].uri, URI);
            assert_eq!(contents[0].text(), Some("naïve café"), "{mode:?}");
            c.close(Duration::from_secs(2)).await;
            Ok::<_, Error>(())
        };
        match tokio::time::timeout(CASE_LIMIT, run).await {
            Ok(Ok(())) => println!(
                "| janus serve --tools names | streamable HTTP | {mode:?} | {rev} | pass |"
            ),
            Ok(Err(e)) => panic!("names {mode:?}: {e}"),
            Err(_) => panic!("names {mode:?}: no end within {CASE_LIMIT:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_servers_in_every_mode_and_transport() {
    for (mode, rev) in ALL_MODES {
        case(
            "rmcp 3.11",
            "stdio",
            stdio(JANUS_BENCH, &["rmcp-peer"]),
            mode,
            rev,
        )
        .await;
    }
    for (sessions, name) in [
        (false, "streamable HTTP (stateless)"),
        (true, "streamable HTTP (sessions)"),
    ] {
        let port = free_port();
        let mut args = vec![
            "rmcp-peer".to_owned(),
            "--http".to_owned(),
            format!("127.0.0.1:{port}"),
        ];
        if sessions {
            args.push("--sessions".into());
        }
        let s = serve_on(JANUS_BENCH, &args, port, "/mcp").await;
        for (mode, rev) in ALL_MODES {
            case("rmcp 3.11", name, http(&s.url), mode, rev).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_v2_in_every_mode_and_transport() {
    let py = python("JANUS_MATRIX_PY_V2");
    let script = script();
    for (mode, rev) in ALL_MODES {
        case(
            "python-sdk v2 2.3.0 MCPServer",
            "stdio",
            stdio(&py, &["-B", &script, "stdio"]),
            mode,
            rev,
        )
        .await;
    }
    let port = free_port();
    let args = [
        "-B".to_owned(),
        script.clone(),
        "http".into(),
        port.to_string(),
    ];
    let s = serve_on(&py, &args, port, "/mcp").await;
    for (mode, rev) in ALL_MODES {
        case(
            "python-sdk v2 2.3.0 MCPServer",
            "streamable HTTP",
            http(&s.url),
            mode,
            rev,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_v1_falls_back_and_refuses_modern_clearly() {
    let py = python("JANUS_MATRIX_PY_V1");
    let script = script();
    let name = "python-sdk v1 1.30.0 FastMCP";
    let legacy = [(Mode::Legacy, "2025-11-25"), (Mode::Auto, "2025-11-25")];
    for (mode, rev) in legacy {
        case(
            name,
            "stdio",
            stdio(&py, &["-B", &script, "stdio"]),
            mode,
            rev,
        )
        .await;
    }
    let port = free_port();
    let s = serve_on(
        &py,
        &["-B".into(), script.clone(), "http".into(), port.to_string()],
        port,
        "/mcp",
    )
    .await;
    for (mode, rev) in legacy {
        case(name, "streamable HTTP", http(&s.url), mode, rev).await;
    }
    let sse_port = free_port();
    let sse = serve_on(
        &py,
        &[
            "-B".into(),
            script.clone(),
            "sse".into(),
            sse_port.to_string(),
        ],
        sse_port,
        "/sse",
    )
    .await;
    let t = Transport::Sse {
        url: sse.url.clone(),
        headers: Vec::new(),
    };
    case(name, "HTTP+SSE (2024-11-05)", t, Mode::Legacy, "2025-11-25").await;
    // Pinned modern against a legacy-only server: a clear error, at once.
    for (label, t) in [
        ("stdio", stdio(&py, &["-B", &script, "stdio"])),
        ("streamable HTTP", http(&s.url)),
    ] {
        let run = async {
            let c = Client::connect(t, options(Mode::Modern, false)).await?;
            c.list_tools().await
        };
        let e = tokio::time::timeout(Duration::from_secs(20), run)
            .await
            .unwrap_or_else(|_| panic!("{label}: modern against v1 hung"))
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Rejected(_) | Error::Status(..) | Error::Protocol(_)
            ),
            "{label}: {e}"
        );
        println!(
            "| {name} | {label} | Modern | (none: refused, {}) | clear error |",
            e.exit_code()
        );
    }
}

/// The specs of a server, and its add result.
async fn served(
    t: Transport,
    mode: Mode,
    trusted: bool,
) -> (Vec<ToolSpec>, janus_client::CallResult) {
    let c = Client::connect(t, options(mode, trusted)).await.unwrap();
    let specs = c.list_tools().await.unwrap();
    let r = c
        .call_tool("add", Some(r#"{"a":40,"b":2}"#), CallOptions::default())
        .await
        .unwrap();
    c.close(Duration::from_secs(2)).await;
    (specs, r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_tools_from_v1_and_v2_normalise_alike_and_get_their_classes() {
    let (v1, v2) = (python("JANUS_MATRIX_PY_V1"), python("JANUS_MATRIX_PY_V2"));
    let script = script();
    // v1 speaks 2025-11-25 shapes, v2 2026-07-28's (resultType, caching hints, the stamp).
    let (specs1, r1) = served(stdio(&v1, &["-B", &script, "stdio"]), Mode::Legacy, false).await;
    let (specs2, r2) = served(stdio(&v2, &["-B", &script, "stdio"]), Mode::Modern, false).await;
    assert_eq!(specs1, specs2);
    assert_eq!(r1, r2);
    assert_eq!(r1.structured.as_deref(), Some(r#"{"sum":42}"#));
    let class = |specs: &[ToolSpec], n: &str| specs.iter().find(|s| s.name == n).unwrap().safety;
    // Untrusted: every tool is destructive, hints or not.
    for n in ["echo", "reads", "changes"] {
        assert_eq!(class(&specs2, n), SafetyClass::Destructive, "{n}");
    }
    let (trusted, _) = served(stdio(&v2, &["-B", &script, "stdio"]), Mode::Auto, true).await;
    assert_eq!(
        class(&trusted, "echo"),
        SafetyClass::Destructive,
        "no hints"
    );
    assert_eq!(class(&trusted, "reads"), SafetyClass::ReadOnly);
    assert_eq!(class(&trusted, "changes"), SafetyClass::Mutating);
}
