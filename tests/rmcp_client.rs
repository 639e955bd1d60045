//! The official Rust SDK (rmcp 3.11) as a client of the built `janus serve`, over stdio, in each
//! of its lifecycle modes (`ClientLifecycleMode`):
//!
//! - `Initialize`: the legacy `initialize` handshake. rmcp offers its `ProtocolVersion::LATEST`
//!   (2026-07-28) by default; Janus answers with its latest handshake version, 2025-11-25.
//!   The same mode is also run offering 2025-11-25, which Janus echoes.
//! - `Discover { preferred_versions: [2026-07-28] }`: pinned to 2026-07-28; a `server/discover`
//!   first, no fallback, then every request carries the envelope.
//! - `Auto { preferred_versions: [2026-07-28], legacy_version: None }`: the `server/discover`
//!   probe, which Janus answers, so no fallback to `initialize`.
//!
//! Each connection lists the tools, calls `echo` (small and 1 MiB), `add` (reads
//! `structuredContent`), `fail` (sees `isError`) and an unknown tool (sees the `-32602` error).
//! Each mode runs twice: through rmcp's own child-process transport (`TokioChildProcess`), and
//! through rmcp's async read/write transport over the pipes of a child spawned here, whose
//! bytes are recorded so that the test checks what each mode negotiated on the wire, and that
//! `janus serve` exits 0 once the client has closed its input.
//!
//! Each mode runs a third time over streamable HTTP (`StreamableHttpClientTransport` on
//! reqwest) against `janus serve --http`: `Initialize` gets a legacy session, `Discover` and
//! `Auto` send stateless 2026-07-28 POSTs. Once more, `Discover` runs against a server that
//! requires bearer tokens: with rmcp's `auth_header` it is served, without it refused.

mod support;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ErrorCode,
    Implementation, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Map, Value, json};
use std::io;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long one connection may take, all calls included.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `janus serve` may take to exit once its input is closed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);
const MODERN: &str = "2026-07-28";
const LATEST_HANDSHAKE: &str = "2025-11-25";
const PV_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
const UNKNOWN_TOOL: &str = "no-such-tool";
const SMALL_TEXT: &str = "héllo, janus: \"quoted\" \\ back\tslash\nline ✓ 🦀 \u{2028} \u{1}";

type Client = RunningService<RoleClient, ClientConfig>;

/// What the client under test is told to do.
struct Mode {
    name: &'static str,
    lifecycle: ClientLifecycleMode,
    /// The version `initialize` offers (rmcp's `ClientConfig::protocol_version`).
    offer: ProtocolVersion,
    /// The version the client must end up with.
    negotiated: &'static str,
    wire: WireRule,
}

enum WireRule {
    /// `initialize` offering this version, answered with `negotiated`; no envelope after it.
    Legacy { offered: &'static str },
    /// `server/discover` first, then every request enveloped at 2026-07-28.
    Modern,
}

fn client_config(offer: &ProtocolVersion) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("janus-interop-rmcp", "1.0.0"),
    )
    .with_protocol_version(offer.clone())
}

fn text_of(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    &result.content[0]
        .as_text()
        .unwrap_or_else(|| panic!("a text block: {result:?}"))
        .text
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("arguments are objects"),
    }
}

/// Exactly 1 MiB of UTF-8 with escapes, control and multi-byte characters.
fn big_text() -> String {
    const TARGET: usize = 1 << 20;
    let unit = "janus \"echo\" \\ tab\t nl\n é ✓ 🦀 ctl\u{1} ";
    let mut s = String::with_capacity(TARGET);
    'fill: loop {
        for ch in unit.chars() {
            if s.len() + ch.len_utf8() > TARGET {
                break 'fill;
            }
            s.push(ch);
        }
    }
    while s.len() < TARGET {
        s.push('x');
    }
    assert_eq!(s.len(), TARGET);
    s
}

/// The calls every mode makes; returns the negotiated version the client reports.
async fn exercise(client: &Client) -> String {
    let negotiated = client
        .peer_info()
        .expect("the client knows the server after its lifecycle started")
        .protocol_version
        .to_string();

    let tools = client.list_tools(None).await.expect("tools/list");
    let mut names: Vec<&str> = tools.tools.iter().map(|t| &*t.name).collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "echo", "fail", "sleep"]);
    let add = tools.tools.iter().find(|t| t.name == "add").expect("add");
    assert!(add.output_schema.is_some(), "add lists its outputSchema");

    let r = client
        .call_tool(
            CallToolRequestParams::new("echo").with_arguments(args(json!({"text": SMALL_TEXT}))),
        )
        .await
        .expect("echo (small)");
    assert_ne!(r.is_error, Some(true), "echo (small): {r:?}");
    assert_eq!(text_of(&r), SMALL_TEXT, "echo (small) text");

    let big = big_text();
    let r = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args(json!({"text": big}))))
        .await
        .expect("echo (1 MiB)");
    assert_ne!(r.is_error, Some(true), "echo (1 MiB) isError");
    assert!(text_of(&r) == big, "echo (1 MiB) changed the text");

    let r = client
        .call_tool(CallToolRequestParams::new("add").with_arguments(args(json!({"a": 2, "b": 3}))))
        .await
        .expect("add");
    assert_ne!(r.is_error, Some(true), "add: {r:?}");
    assert_eq!(
        r.structured_content,
        Some(json!({"sum": 5})),
        "add structuredContent"
    );
    assert_eq!(text_of(&r), "5");

    let r = client
        .call_tool(CallToolRequestParams::new("fail").with_arguments(Map::new()))
        .await
        .expect("fail answers a result");
    assert_eq!(r.is_error, Some(true), "fail: {r:?}");
    assert_eq!(text_of(&r), "fail: this tool always fails");

    match client
        .call_tool(CallToolRequestParams::new(UNKNOWN_TOOL).with_arguments(Map::new()))
        .await
    {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "unknown tool: {e:?}");
            assert_eq!(e.message, format!("Unknown tool: {UNKNOWN_TOOL}"));
        }
        other => panic!("calling an unknown tool: want a -32602 error, got {other:?}"),
    }
    negotiated
}

/// Runs one mode through rmcp's `TokioChildProcess`.
async fn via_child_process(mode: &Mode) -> String {
    let mut cmd = tokio::process::Command::new(support::janus_bin());
    cmd.arg("serve");
    let transport = TokioChildProcess::new(cmd).expect("spawn janus serve");
    let client = client_config(&mode.offer)
        .serve_with_lifecycle(transport, mode.lifecycle.clone())
        .await
        .unwrap_or_else(|e| panic!("{}: the lifecycle failed: {e}", mode.name));
    let negotiated = exercise(&client).await;
    client.cancel().await.expect("the client stops");
    negotiated
}

/// Runs one mode through rmcp's streamable HTTP client; `token` goes in `Authorization`.
async fn via_http(
    mode: &Mode,
    server: &support::HttpServe,
    token: Option<&str>,
) -> Result<String, String> {
    let url = format!("http://{}/mcp", server.addr);
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    if let Some(t) = token {
        config = config.auth_header(t);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = client_config(&mode.offer)
        .serve_with_lifecycle(transport, mode.lifecycle.clone())
        .await
        .map_err(|e| format!("{}: the lifecycle failed over HTTP: {e}", mode.name))?;
    let negotiated = exercise(&client).await;
    client.cancel().await.expect("the client stops");
    Ok(negotiated)
}

/// Bytes seen on one direction of the pipes.
type Tape = Arc<Mutex<Vec<u8>>>;

/// A pipe end that copies what passes through it onto a tape.
struct Recorder<T> {
    inner: T,
    tape: Tape,
}

impl<T: AsyncRead + Unpin> AsyncRead for Recorder<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let fresh = &buf.filled()[before..];
            self.tape.lock().expect("tape").extend_from_slice(fresh);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Recorder<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = polled {
            self.tape
                .lock()
                .expect("tape")
                .extend_from_slice(&data[..n]);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Runs one mode through rmcp's async read/write transport over recorded pipes; returns the
/// negotiated version, the lines each side wrote, and the server's exit status.
async fn via_recorded_pipes(mode: &Mode) -> (String, Vec<Value>, Vec<Value>) {
    let mut child = tokio::process::Command::new(support::janus_bin())
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn janus serve");
    let sent = Tape::default();
    let received = Tape::default();
    let reader = Recorder {
        inner: child.stdout.take().expect("piped stdout"),
        tape: Arc::clone(&received),
    };
    let writer = Recorder {
        inner: child.stdin.take().expect("piped stdin"),
        tape: Arc::clone(&sent),
    };
    let client = client_config(&mode.offer)
        .serve_with_lifecycle((reader, writer), mode.lifecycle.clone())
        .await
        .unwrap_or_else(|e| panic!("{}: the lifecycle failed: {e}", mode.name));
    let negotiated = exercise(&client).await;
    // Stopping the client drops the transport, which closes the server's input.
    client.cancel().await.expect("the client stops");
    let status = tokio::time::timeout(EXIT_TIMEOUT, child.wait())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{}: janus serve did not exit after its input closed",
                mode.name
            )
        })
        .expect("wait for janus serve");
    assert!(
        status.success(),
        "{}: janus serve exited with {status}",
        mode.name
    );
    save_wire(mode, &sent, &received);
    let lines = |tape: &Tape| -> Vec<Value> {
        let bytes = tape.lock().expect("tape").clone();
        assert!(
            bytes.is_empty() || bytes.ends_with(b"\n"),
            "a torn last line"
        );
        bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("every line on the wire is JSON"))
            .collect()
    };
    (negotiated, lines(&sent), lines(&received))
}

/// Keeps the bytes of a recorded connection for a reader, in the format of the Python lanes'
/// `tests/interop/tap.py` (`C`/`S` and the line; lines of one side keep their order):
/// `target/tmp/rmcp-wire/<mode>.log`.
fn save_wire(mode: &Mode, sent: &Tape, received: &Tape) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rmcp-wire");
    std::fs::create_dir_all(&dir).expect("a folder for the wire logs");
    let mut log = Vec::new();
    for (tag, tape) in [(b"C ", sent), (b"S ", received)] {
        for line in tape.lock().expect("tape").split(|&b| b == b'\n') {
            if !line.is_empty() {
                log.extend_from_slice(tag);
                log.extend_from_slice(line);
                log.push(b'\n');
            }
        }
    }
    let name: String = mode
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    std::fs::write(dir.join(format!("{name}.log")), log).expect("write the wire log");
}

fn requests(client: &[Value]) -> Vec<&Value> {
    client
        .iter()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some())
        .collect()
}

fn response<'a>(server: &'a [Value], id: &Value) -> &'a Value {
    let found: Vec<&Value> = server
        .iter()
        .filter(|m| m.get("id") == Some(id) && m.get("method").is_none())
        .collect();
    assert_eq!(found.len(), 1, "one response to id {id}: {found:?}");
    found[0]
}

/// Checks what the mode negotiated on the wire; returns a short account of it.
fn check_wire(mode: &Mode, client: &[Value], server: &[Value]) -> String {
    let reqs = requests(client);
    for r in &reqs {
        response(server, &r["id"]);
    }
    let unknown = reqs
        .iter()
        .find(|r| r["method"] == "tools/call" && r["params"]["name"] == UNKNOWN_TOOL)
        .expect("the unknown tool was called on the wire");
    assert_eq!(response(server, &unknown["id"])["error"]["code"], -32602);
    let methods: Vec<&str> = reqs.iter().filter_map(|r| r["method"].as_str()).collect();
    match mode.wire {
        WireRule::Legacy { offered } => {
            assert_eq!(methods[0], "initialize", "{}: first request", mode.name);
            assert!(
                !methods.contains(&"server/discover"),
                "{}: no discover",
                mode.name
            );
            assert_eq!(
                reqs[0]["params"]["protocolVersion"], offered,
                "{}: offered",
                mode.name
            );
            let answered = &response(server, &reqs[0]["id"])["result"]["protocolVersion"];
            assert_eq!(
                answered, mode.negotiated,
                "{}: initialize answered",
                mode.name
            );
            assert!(
                client
                    .iter()
                    .any(|m| m["method"] == "notifications/initialized" && m.get("id").is_none()),
                "{}: notifications/initialized",
                mode.name
            );
            for r in &reqs[1..] {
                assert!(
                    r["params"]["_meta"].get(PV_KEY).is_none(),
                    "{}: {} carries the envelope on a legacy connection",
                    mode.name,
                    r["method"]
                );
                let result = &response(server, &r["id"])["result"];
                assert!(
                    result.get("resultType").is_none(),
                    "legacy results have no resultType"
                );
            }
            format!("initialize {offered}->{answered}")
        }
        WireRule::Modern => {
            assert_eq!(
                methods[0], "server/discover",
                "{}: first request",
                mode.name
            );
            assert!(
                !methods.contains(&"initialize"),
                "{}: no initialize",
                mode.name
            );
            let discovered = &response(server, &reqs[0]["id"])["result"]["supportedVersions"];
            assert_eq!(discovered, &json!([MODERN]), "{}: discover", mode.name);
            for r in &reqs {
                let meta = &r["params"]["_meta"];
                assert_eq!(
                    meta[PV_KEY], MODERN,
                    "{}: {} envelope",
                    mode.name, r["method"]
                );
                assert!(
                    meta[CAPS_KEY].is_object(),
                    "{}: {} capabilities",
                    mode.name,
                    r["method"]
                );
                if let Some(result) = response(server, &r["id"]).get("result") {
                    assert_eq!(
                        result["resultType"], "complete",
                        "{}: resultType",
                        r["method"]
                    );
                    assert!(
                        result["_meta"][SERVER_INFO_KEY].is_object(),
                        "serverInfo stamp"
                    );
                }
            }
            format!("server/discover -> {discovered}, every request enveloped {MODERN}")
        }
    }
}

async fn run(mode: Mode) {
    let negotiated = tokio::time::timeout(CONNECTION_TIMEOUT, via_child_process(&mode))
        .await
        .unwrap_or_else(|_| panic!("{}: timed out (child-process transport)", mode.name));
    assert_eq!(
        negotiated, mode.negotiated,
        "{}: negotiated (child-process transport)",
        mode.name
    );
    let (negotiated, sent, received) =
        tokio::time::timeout(CONNECTION_TIMEOUT, via_recorded_pipes(&mode))
            .await
            .unwrap_or_else(|_| panic!("{}: timed out (recorded pipes)", mode.name));
    assert_eq!(
        negotiated, mode.negotiated,
        "{}: negotiated (recorded pipes)",
        mode.name
    );
    let wire = check_wire(&mode, &sent, &received);
    let http = support::HttpServe::start(&[]);
    let over_http = tokio::time::timeout(CONNECTION_TIMEOUT, via_http(&mode, &http, None))
        .await
        .unwrap_or_else(|_| panic!("{}: timed out (streamable HTTP)", mode.name))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        over_http, mode.negotiated,
        "{}: negotiated (streamable HTTP)",
        mode.name
    );
    println!(
        "rmcp 3.11 mode={} negotiated={negotiated} wire=[{wire}] http={over_http}: PASS",
        mode.name
    );
}

#[tokio::test]
async fn rmcp_initialize_mode_default_offer() {
    // rmcp's default `ClientConfig` offers `ProtocolVersion::LATEST`, which is 2026-07-28: a
    // handshake cannot negotiate it, so Janus answers its latest handshake version.
    assert_eq!(ProtocolVersion::default(), ProtocolVersion::V_2026_07_28);
    run(Mode {
        name: "Initialize",
        lifecycle: ClientLifecycleMode::Initialize,
        offer: ProtocolVersion::default(),
        negotiated: LATEST_HANDSHAKE,
        wire: WireRule::Legacy { offered: MODERN },
    })
    .await;
}

#[tokio::test]
async fn rmcp_initialize_mode_offering_2025_11_25() {
    run(Mode {
        name: "Initialize(offer 2025-11-25)",
        lifecycle: ClientLifecycleMode::Initialize,
        offer: ProtocolVersion::LATEST_WITH_INITIALIZE,
        negotiated: LATEST_HANDSHAKE,
        wire: WireRule::Legacy {
            offered: LATEST_HANDSHAKE,
        },
    })
    .await;
}

#[tokio::test]
async fn rmcp_discover_mode_pinned_2026_07_28() {
    run(Mode {
        name: "Discover(2026-07-28)",
        lifecycle: ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        offer: ProtocolVersion::default(),
        negotiated: MODERN,
        wire: WireRule::Modern,
    })
    .await;
}

#[tokio::test]
async fn rmcp_auto_mode_probes_server_discover() {
    run(Mode {
        name: "Auto(2026-07-28)",
        lifecycle: ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: None,
        },
        offer: ProtocolVersion::default(),
        negotiated: MODERN,
        wire: WireRule::Modern,
    })
    .await;
}

#[tokio::test]
async fn rmcp_over_http_with_a_bearer_token() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rmcp-auth");
    std::fs::create_dir_all(&dir).expect("a folder for the secret");
    let secret = "a shared secret of at least thirty-two bytes, for rmcp";
    let secret_file = dir.join("secret");
    std::fs::write(&secret_file, secret).expect("write the secret");
    let resource = "http://127.0.0.1/mcp";
    let http = support::HttpServe::start(&[
        "--auth-resource",
        resource,
        "--auth-server",
        "https://auth.example",
        "--auth-hmac-secret-file",
        secret_file.to_str().expect("a UTF-8 path"),
    ]);
    let exp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        + 600;
    let key = jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()).expect("an HMAC key");
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &json!({"sub": "rmcp", "aud": resource, "exp": exp}),
        &key,
    )
    .expect("a token");
    let mode = Mode {
        name: "Discover(2026-07-28, bearer)",
        lifecycle: ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        offer: ProtocolVersion::default(),
        negotiated: MODERN,
        wire: WireRule::Modern,
    };
    let served = tokio::time::timeout(CONNECTION_TIMEOUT, via_http(&mode, &http, Some(&token)))
        .await
        .expect("in time");
    assert_eq!(served.as_deref(), Ok(MODERN));
    let refused = tokio::time::timeout(CONNECTION_TIMEOUT, via_http(&mode, &http, None))
        .await
        .expect("a refusal in time, never a hang");
    let e = refused.expect_err("no token: refused");
    assert!(e.contains("lifecycle failed"), "{e}");
}

/// rmcp in its discovery mode (pinned to 2026-07-28, which fails against a handshake-only
/// server) through `janus bridge` in front of `janus serve` spoken to in a handshake revision
/// only: `server/discover` is answered from the backend's `initialize`, every call forwarded.
#[tokio::test]
async fn rmcp_discover_mode_through_the_bridge_to_a_legacy_backend() {
    let janus = support::janus_bin();
    let mut cmd = tokio::process::Command::new(janus);
    cmd.args(["bridge", "--mode", "legacy", "--"])
        .arg(janus)
        .arg("serve");
    let transport = TokioChildProcess::new(cmd).expect("spawn janus bridge");
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = tokio::time::timeout(
        CONNECTION_TIMEOUT,
        client_config(&ProtocolVersion::default()).serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .expect("in time")
    .unwrap_or_else(|e| panic!("the discovery through the bridge failed: {e}"));
    let negotiated = tokio::time::timeout(CONNECTION_TIMEOUT, exercise(&client))
        .await
        .expect("in time");
    assert_eq!(negotiated, MODERN);
    // The backend's identity, from its `initialize`, on the front's answers.
    let info = client.peer_info().expect("the bridge described itself");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("janus")
    );
    client.cancel().await.expect("the client stops");
}
