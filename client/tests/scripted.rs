//! The client against scripted HTTP servers on loopback, for wire behaviours Janus's own
//! server never shows but remote servers do (the official conformance suite's client
//! scenarios play them): a response stream closed before its answer, to be resumed by `GET`
//! with `Last-Event-ID` after the stream's `retry` time (SEP-1699); a 2026-07-28 request
//! refused with UnsupportedProtocolVersion (`-32022`), to be made again in a revision the
//! server lists; and the exact wire of the input rounds (SEP-2322).
//!
//! Each server answers one request per connection (`connection: close`) from a script: a
//! function of the request seen to the bytes of the reply, with pauses between them.

use janus_client::{CallOptions, Callbacks, Client, Error, Mode, Options, Transport};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request the server saw.
#[derive(Debug, Clone)]
struct Seen {
    /// The HTTP method.
    verb: String,
    /// The headers, names in lower case.
    headers: HashMap<String, String>,
    /// The body, as JSON (`Null` for none).
    body: Value,
    /// The body, as it came.
    raw: String,
    /// When its head and body were read.
    at: Instant,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    fn method(&self) -> &str {
        self.body["method"].as_str().unwrap_or("")
    }
}

/// A piece of a reply: bytes to write, or a pause.
enum Part {
    Bytes(String),
    Wait(Duration),
}

/// A reply: its status line and headers (without the blank line), then its parts; the
/// connection is closed after the last.
struct Reply {
    head: String,
    parts: Vec<Part>,
}

fn json_reply(status: &str, body: &Value, extra: &str) -> Reply {
    let body = body.to_string();
    Reply {
        head: format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}",
            body.len()
        ),
        parts: vec![Part::Bytes(body)],
    }
}

fn sse_reply(parts: Vec<Part>) -> Reply {
    Reply {
        head: "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
            .into(),
        parts,
    }
}

fn status_reply(status: &str) -> Reply {
    Reply {
        head: format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\n"),
        parts: Vec::new(),
    }
}

type Script = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

/// What a scripted server saw: every request, and when each reply was closed.
#[derive(Default)]
struct Log {
    seen: Mutex<Vec<Seen>>,
    closed: Mutex<Vec<(String, Instant)>>,
}

impl Log {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn read_request(s: &mut (impl AsyncRead + Unpin)) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((head, body))
}

/// A server on loopback that answers by `script`; its URL's path is `/mcp`.
async fn start(script: Script) -> (SocketAddr, Arc<Log>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let log = Arc::new(Log::default());
    let log2 = Arc::clone(&log);
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let script = Arc::clone(&script);
            let log = Arc::clone(&log2);
            tokio::spawn(async move {
                let Some((head, body)) = read_request(&mut s).await else {
                    return;
                };
                let mut lines = head.lines();
                let verb = lines
                    .next()
                    .and_then(|l| l.split(' ').next())
                    .unwrap_or("")
                    .to_owned();
                let headers = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let seen = Seen {
                    verb,
                    headers,
                    body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    raw: String::from_utf8_lossy(&body).into_owned(),
                    at: Instant::now(),
                };
                log.seen.lock().unwrap().push(seen.clone());
                let reply = script(&seen);
                let head = format!("{}connection: close\r\n\r\n", reply.head);
                if s.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for p in reply.parts {
                    match p {
                        Part::Bytes(b) => {
                            if s.write_all(b.as_bytes()).await.is_err() {
                                return;
                            }
                        }
                        Part::Wait(d) => tokio::time::sleep(d).await,
                    }
                }
                let _ = s.shutdown().await;
                let what = format!("{} {}", seen.verb, seen.method());
                log.closed.lock().unwrap().push((what, Instant::now()));
            });
        }
    });
    (addr, log)
}

fn http(addr: SocketAddr) -> Transport {
    Transport::Http {
        url: format!("http://{addr}/mcp"),
        headers: Vec::new(),
    }
}

fn opts(mode: Mode) -> Options {
    Options {
        mode,
        cache: janus_client::AutoCache::default(),
        timeout: Duration::from_secs(10),
        ..Options::default()
    }
}

/// A legacy session's replies: `initialize` (with session id `s-1`), notifications, and a
/// refused standing `GET`; everything else goes to `rest`.
fn session(rest: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Script {
    Arc::new(move |seen: &Seen| {
        if seen.verb == "GET" && seen.header("last-event-id").is_none() {
            return status_reply("405 Method Not Allowed");
        }
        if seen.verb == "DELETE" {
            return status_reply("204 No Content");
        }
        match seen.method() {
            "initialize" => json_reply(
                "200 OK",
                &json!({"jsonrpc":"2.0","id":seen.body["id"],"result":{
                    "protocolVersion":"2025-11-25","capabilities":{"tools":{}},
                    "serverInfo":{"name":"scripted","version":"1"}}}),
                "mcp-session-id: s-1\r\n",
            ),
            _ if seen.verb == "POST" && seen.body.get("id").is_none() => {
                status_reply("202 Accepted")
            }
            _ => rest(seen),
        }
    })
}

#[tokio::test]
async fn a_response_stream_closed_before_its_answer_is_resumed_by_get_after_its_retry_time() {
    let call_id = Arc::new(Mutex::new(Value::Null));
    let id = Arc::clone(&call_id);
    let (addr, log) = start(session(move |seen| {
        if seen.verb == "POST" && seen.method() == "tools/call" {
            *id.lock().unwrap() = seen.body["id"].clone();
            // The priming event (an id, a retry time, no data), then the stream is closed.
            return sse_reply(vec![
                Part::Bytes("id: p-1\nretry: 300\ndata: \n\n".into()),
                Part::Wait(Duration::from_millis(30)),
            ]);
        }
        if seen.verb == "GET" {
            let answer = json!({"jsonrpc":"2.0","id":*id.lock().unwrap(),
                "result":{"content":[{"type":"text","text":"resumed"}]}});
            // The answer on the resumed stream, which the server then keeps open: the client
            // stops reading once it has its answer.
            return sse_reply(vec![
                Part::Bytes(format!(
                    "id: p-2\nretry: 300\ndata: \n\nid: p-3\ndata: {answer}\n\n"
                )),
                Part::Wait(Duration::from_secs(20)),
            ]);
        }
        status_reply("500 Internal Server Error")
    }))
    .await;
    let c = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap();
    let started = Instant::now();
    let r = c
        .call_tool("slow", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "resumed");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let seen = log.seen();
    let resumed: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.verb == "GET" && s.header("last-event-id").is_some())
        .collect();
    assert_eq!(resumed.len(), 1, "{seen:?}");
    let get = resumed[0];
    assert_eq!(get.header("last-event-id"), Some("p-1"));
    assert_eq!(get.header("mcp-session-id"), Some("s-1"));
    assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    // It waited the stream's retry time after the stream closed.
    let closed = log
        .closed
        .lock()
        .unwrap()
        .iter()
        .find(|(what, _)| what == "POST tools/call")
        .map(|(_, at)| *at)
        .unwrap();
    let waited = get.at.duration_since(closed);
    assert!(waited >= Duration::from_millis(290), "{waited:?}");
    assert!(waited < Duration::from_millis(1500), "{waited:?}");
}

#[tokio::test]
async fn a_resumption_the_server_refuses_or_that_brings_nothing_fails_the_request() {
    // Every resumption is refused: the request fails with the status, not at its timeout.
    let (addr, _) = start(session(|seen| {
        if seen.verb == "POST" {
            return sse_reply(vec![Part::Bytes("id: p-1\nretry: 10\ndata: \n\n".into())]);
        }
        status_reply("405 Method Not Allowed")
    }))
    .await;
    let c = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap();
    let e = c
        .call_tool("slow", None, CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::Status(405, ref m) if m.contains("p-1")),
        "{e}"
    );
    // Every resumption is primed and closed with nothing more: a few tries, then an error.
    let (addr, log) = start(session(|_| {
        sse_reply(vec![Part::Bytes("id: again\nretry: 10\ndata: \n\n".into())])
    }))
    .await;
    let c = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap();
    let e = c
        .call_tool("slow", None, CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::Transport(ref m) if m.contains("brought nothing new")),
        "{e}"
    );
    let gets = log.seen().iter().filter(|s| s.verb == "GET").count();
    assert!((1..=6).contains(&gets), "{gets}");
}

#[tokio::test]
async fn a_response_stream_that_cannot_be_resumed_fails_its_request_at_once() {
    // No event id to resume from (a handshake session), or the 2026-07-28 era, which has no
    // resumption: the request fails as soon as its stream ends, with no GET to resume it.
    let legacy = session(|_| sse_reply(vec![Part::Bytes("retry: 10\ndata: \n\n".into())]));
    let modern: Script = Arc::new(|seen: &Seen| match seen.method() {
        "tools/list" => json_reply(
            "200 OK",
            &json!({"jsonrpc":"2.0","id":seen.body["id"],"result":{"resultType":"complete","tools":[]}}),
            "",
        ),
        _ => sse_reply(vec![Part::Bytes("id: m-1\nretry: 10\ndata: \n\n".into())]),
    });
    for (mode, script) in [(Mode::Legacy, legacy), (Mode::Modern, modern)] {
        let (addr, log) = start(script).await;
        let c = Client::connect(http(addr), opts(mode)).await.unwrap();
        let started = Instant::now();
        let e = c
            .call_tool("slow", None, CallOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(e, Error::Transport(ref m) if m.contains("ended before the answer")),
            "{mode:?}: {e}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{mode:?}");
        let resumed = log
            .seen()
            .iter()
            .any(|s| s.verb == "GET" && s.header("last-event-id").is_some());
        assert!(!resumed, "{mode:?}");
    }
}

/// A 2026-07-28 server that refuses the first `refusals` requests with `-32022`, listing
/// `supported`, and answers the others (`tools/list`, empty).
fn refusing(refusals: usize, supported: Value) -> Script {
    let n = Arc::new(Mutex::new(0usize));
    Arc::new(move |seen: &Seen| {
        let mut n = n.lock().unwrap();
        *n += 1;
        if *n <= refusals {
            return json_reply(
                "400 Bad Request",
                &json!({"jsonrpc":"2.0","id":seen.body["id"],"error":{"code":-32022,
                    "message":"Unsupported protocol version",
                    "data":{"supported":supported,"requested":"2026-07-28"}}}),
                "",
            );
        }
        json_reply(
            "200 OK",
            &json!({"jsonrpc":"2.0","id":seen.body["id"],"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[]}}),
            "",
        )
    })
}

#[tokio::test]
async fn a_modern_request_refused_with_32022_is_made_again_in_a_revision_the_server_lists() {
    let (addr, log) = start(refusing(1, json!(["2026-07-28"]))).await;
    let c = Client::connect(http(addr), opts(Mode::Modern))
        .await
        .unwrap();
    assert!(c.list_tools().await.unwrap().is_empty());
    let seen = log.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_ne!(seen[0].body["id"], seen[1].body["id"]);
    let retry = &seen[1];
    assert_eq!(retry.method(), "tools/list");
    let meta = &retry.body["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(retry.header("mcp-protocol-version"), Some("2026-07-28"));
    assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());

    // A server that keeps refusing gets one retry, then its error is the caller's.
    let (addr, log) = start(refusing(usize::MAX, json!(["2026-07-28"]))).await;
    let c = Client::connect(http(addr), opts(Mode::Modern))
        .await
        .unwrap();
    let e = c.list_tools().await.unwrap_err();
    assert_eq!(e.rejection().map(|r| r.code), Some(-32022), "{e}");
    assert_eq!(log.seen().len(), 2);

    // A server that lists no revision the client speaks: no retry at all.
    let (addr, log) = start(refusing(1, json!(["2099-01-01", "2025-11-25"]))).await;
    let c = Client::connect(http(addr), opts(Mode::Modern))
        .await
        .unwrap();
    let e = c.list_tools().await.unwrap_err();
    assert_eq!(e.rejection().map(|r| r.code), Some(-32022), "{e}");
    assert_eq!(log.seen().len(), 1);
}

#[tokio::test]
async fn input_rounds_echo_the_request_state_exactly_and_only_when_one_was_sent() {
    // A state with escapes and white space, as a server may write it: it must come back
    // byte for byte, not re-encoded.
    const STATE: &str = r#""{\"n\": \"caf\u00e9\",\n \"k\":1}""#;
    let (addr, log) = start(Arc::new(|seen: &Seen| {
        let p = &seen.body["params"];
        let name = p["name"].as_str().unwrap_or("");
        let id = &seen.body["id"];
        let ask = json!({"confirm":{"method":"elicitation/create","params":{
            "message":"Confirm?","requestedSchema":{"type":"object","properties":{
                "confirmed":{"type":"boolean","default":true}}}}}});
        let body = match (seen.method(), name, p.get("inputResponses")) {
            ("tools/list", _, _) => json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","tools":[]}}).to_string(),
            ("tools/call", "stateful", None) => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","inputRequests":{ask},"requestState":{STATE}}}}}"#
            ),
            ("tools/call", "stateless", None) => json!({"jsonrpc":"2.0","id":id,"result":{
                "resultType":"input_required","inputRequests":ask}}).to_string(),
            // The last round, or a tool with no rounds: a result without resultType is complete.
            _ => json!({"jsonrpc":"2.0","id":id,"result":{"content":[{"type":"text","text":name}]}}).to_string(),
        };
        Reply {
            head: format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            ),
            parts: vec![Part::Bytes(body)],
        }
    }))
    .await;
    let o = Options {
        callbacks: Callbacks::new().accept_defaults(),
        ..opts(Mode::Modern)
    };
    let c = Client::connect(http(addr), o).await.unwrap();
    for tool in ["stateful", "plain", "stateless"] {
        let r = c
            .call_tool(tool, Some("{}"), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), tool);
    }
    let calls: Vec<Seen> = log
        .seen()
        .into_iter()
        .filter(|s| s.method() == "tools/call")
        .collect();
    assert_eq!(calls.len(), 5, "{calls:?}");
    let p = |i: usize| &calls[i].body["params"];
    // The retry has a new id, the answers keyed as asked (the schema's default accepted),
    // and the state as it was sent.
    assert_ne!(calls[0].body["id"], calls[1].body["id"]);
    assert_eq!(
        p(1)["inputResponses"],
        json!({"confirm":{"action":"accept","content":{"confirmed":true}}})
    );
    assert!(
        calls[1].raw.contains(&format!(r#""requestState":{STATE}"#)),
        "{}",
        calls[1].raw
    );
    // A call between the rounds of others carries none of theirs.
    assert!(p(2).get("inputResponses").is_none() && p(2).get("requestState").is_none());
    // No state sent: none echoed.
    assert!(p(4).get("inputResponses").is_some());
    assert!(p(4).get("requestState").is_none(), "{:?}", p(4));
}

#[tokio::test]
async fn an_sse_event_over_the_size_cap_fails_its_request_at_once_and_the_session_goes_on() {
    let (addr, _) = start(session(|seen| {
        if seen.verb == "POST" && seen.method() == "tools/call" {
            let id = seen.body["id"].clone();
            if seen.body["params"]["name"] == "huge" {
                // 9 MiB of one event's data, past the 8 MiB a message may take; then the
                // stream stays open (it is not read to its end).
                let mut parts = vec![Part::Bytes("data: {\"jsonrpc\":\"2.0\",\"id\":".into())];
                parts.push(Part::Bytes(format!("{id},\"result\":{{\"x\":\"")));
                for _ in 0..9 {
                    parts.push(Part::Bytes("a".repeat(1 << 20)));
                }
                parts.push(Part::Wait(Duration::from_secs(20)));
                return sse_reply(parts);
            }
            let answer = json!({"jsonrpc":"2.0","id":id,
                "result":{"content":[{"type":"text","text":"small"}]}});
            return sse_reply(vec![Part::Bytes(format!("data: {answer}\n\n"))]);
        }
        status_reply("500 Internal Server Error")
    }))
    .await;
    let c = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap();
    let started = Instant::now();
    match c
        .call_tool("huge", Some("{}"), CallOptions::default())
        .await
    {
        Err(janus_client::Error::Transport(why)) => assert!(why.contains("size limit"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let r = c
        .call_tool("small", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "small");
}

#[tokio::test]
async fn a_round_that_asks_nothing_but_carries_a_state_is_retried_at_once_with_it() {
    let (addr, log) = start(Arc::new(|seen: &Seen| {
        let p = &seen.body["params"];
        let id = &seen.body["id"];
        let body = match (seen.method(), p.get("requestState")) {
            ("tools/list", _) => {
                json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","tools":[]}})
            }
            ("tools/call", None) => json!({"jsonrpc":"2.0","id":id,"result":{
                "resultType":"input_required","requestState":"s-1"}}),
            (_, state) => {
                json!({"jsonrpc":"2.0","id":id,"result":{"content":[{"type":"text","text":
                format!("state {}", state.and_then(Value::as_str).unwrap_or("none"))}]}})
            }
        }
        .to_string();
        Reply {
            head: format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            ),
            parts: vec![Part::Bytes(body)],
        }
    }))
    .await;
    let c = Client::connect(http(addr), opts(Mode::Modern))
        .await
        .unwrap();
    let r = c
        .call_tool("t", Some("{}"), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "state s-1");
    let calls: Vec<Seen> = log
        .seen()
        .into_iter()
        .filter(|s| s.method() == "tools/call")
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[1].body["params"].get("inputResponses").is_none());
}

#[tokio::test]
async fn a_status_s_body_is_shown_with_its_control_characters_escaped() {
    let (addr, _) = start(session(|_| {
        let body = "oops\n2026 WARN forged\u{1b}[31m!";
        Reply {
            head: format!(
                "HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n",
                body.len()
            ),
            parts: vec![Part::Bytes(body.into())],
        }
    }))
    .await;
    let c = Client::connect(http(addr), opts(Mode::Legacy))
        .await
        .unwrap();
    match c.call_tool("t", Some("{}"), CallOptions::default()).await {
        Err(janus_client::Error::Status(500, text)) => {
            assert!(!text.contains('\n') && !text.contains('\u{1b}'), "{text:?}");
            assert!(text.starts_with("oops\\n2026 WARN forged"), "{text:?}");
        }
        other => panic!("{other:?}"),
    }
}
