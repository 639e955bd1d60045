//! Input rounds (`janus_server_core::input`) against hostile clients, in both eras, through
//! `Connection` and `serve::Runner` (a one-thread runtime on a paused clock).
//!
//! A modern connection gets calls of tools that ask for input (inline, over two rounds with a
//! state of their own, from inside asynchronous work), retries of the last `input_required`
//! answer whose `requestState` was edited byte by byte, dropped, forged, or sent for another
//! tool or other arguments, with `inputResponses` of every shape; it also listens
//! (`subscriptions/listen`, filters of every shape) while the server's lists change, and
//! cancels. A handshake session gets the same tools, replies (results, errors, junk) to the
//! server's requests and to requests it never sent, cancels, and time that passes the input
//! timeout.
//!
//! Invariants: nothing panics; every line written is compact JSON-RPC 2.0; every request is
//! answered exactly once (a cancelled one at most once), at once, when its work ends, when
//! its round ends (replies, an error reply, the timeout) or at the end of the input; a reply
//! to a request never sent writes nothing; an `input_required` answer has a `requestState`
//! string and a non-empty `inputRequests` object; a retry whose state differs from the
//! state the server sealed, or that names another tool or other arguments, is `-32602`;
//! the server's own requests have integer ids and one of the three input methods; on the
//! modern side every change notification is tagged with the `subscriptionId` of a listen
//! that is open (never of one cancelled), and a listen still open at the end of the input is
//! answered `complete`, tagged.

#![no_main]

use arbitrary::Arbitrary;
use bytes::BytesMut;
use janus_server_core::Halt;
use janus_server_core::serve::Runner;
use janus_server_core::tools::{Args, Output, ToolFuture, ToolResult, ToolSpec};
use janus_server_core::{Connection, Ctx, InputRequest, InputRequired, Server};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

const SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string"}}}"#;
const TOOLS: [&str; 4] = ["ask", "two", "later", "both"];
const TIMEOUT_MS: u64 = 1000;
const START_MS: u64 = 1_700_000_000_000;

fn name_of(ctx: &Ctx<'_>, key: &str) -> Option<String> {
    let c = ctx.input(key)?.get("content")?;
    c.get("name")?.as_string().map(|s| s.into_owned())
}

fn ask(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    let Some(n) = name_of(ctx, "name") else {
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Name?", SCHEMA)?)
            .into());
    };
    out.text(&n);
    Ok(())
}

fn two(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    if name_of(ctx, "a").is_none() {
        return Err(InputRequired::new()
            .ask("a", InputRequest::elicit("A?", SCHEMA)?)
            .state("first")
            .into());
    }
    if ctx.input("b").is_none() {
        return Err(InputRequired::new()
            .ask("b", InputRequest::sample_text("b?", 8))
            .into());
    }
    out.text(ctx.request_state().unwrap_or("none"));
    Ok(())
}

fn later(ctx: &Ctx<'_>, _: Args<'_>) -> Result<ToolFuture, Halt> {
    let ctx = ctx.to_owned();
    Ok(Box::pin(async move {
        tokio::task::yield_now().await;
        if ctx.input("name").is_none() {
            return Err(InputRequired::new()
                .ask("name", InputRequest::elicit("Later?", SCHEMA)?)
                .into());
        }
        Ok(ToolResult::text("later"))
    }))
}

fn both(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    if ctx.input("m").is_none() || ctx.input("r").is_none() {
        return Err(InputRequired::new()
            .ask("m", InputRequest::sample_text("m?", 4))
            .ask("r", InputRequest::list_roots())
            .into());
    }
    out.text("both");
    Ok(())
}

fn server() -> Arc<Server> {
    let spec = |n: &str| ToolSpec::new(n, n, r#"{"type":"object"}"#).expect("a spec");
    Server::builder("fuzz-input", "1")
        .state_key(b"the fuzz target's state key, 32b")
        .state_ttl(Duration::from_secs(60))
        .input_timeout(Duration::from_millis(TIMEOUT_MS))
        .tool(spec("ask"), ask)
        .tool(spec("two"), two)
        .async_tool(spec("later"), later)
        .tool(spec("both"), both)
        .build()
        .expect("a server")
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
}

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

#[derive(Arbitrary, Debug)]
enum AnswerT {
    Accept(String),
    Decline,
    Sampled,
    Roots,
    Number(i64),
    Null,
    Text(String),
}

impl AnswerT {
    fn value(&self) -> Value {
        match self {
            Self::Accept(n) => json!({"action": "accept", "content": {"name": n}}),
            Self::Decline => json!({"action": "decline"}),
            Self::Sampled => {
                json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})
            }
            Self::Roots => json!({"roots": [{"uri": "file:///r"}]}),
            Self::Number(n) => json!(n),
            Self::Null => Value::Null,
            Self::Text(s) => json!(s),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum CapsT {
    All,
    None,
    Elicit,
    Junk,
}

impl CapsT {
    fn value(&self) -> Value {
        match self {
            Self::All => json!({"elicitation": {}, "sampling": {}, "roots": {}}),
            Self::None => json!({}),
            Self::Elicit => json!({"elicitation": {"form": {}}}),
            Self::Junk => json!({"elicitation": 3, "sampling": []}),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Step {
    /// A modern call of a tool, with arguments `{"n": arg}`.
    Call { tool: u8, arg: u8, caps: CapsT },
    /// A retry of the last `input_required`: its state edited (byte, xor) or dropped, for
    /// the same or another tool or argument, with answers to some keys.
    Retry {
        edits: Vec<(u16, u8)>,
        drop_state: bool,
        other_tool: bool,
        other_arg: bool,
        answers: Vec<(u8, AnswerT)>,
        responses_junk: bool,
    },
    /// A retry with a state of arbitrary text.
    Forged {
        state: String,
        answers: Vec<(u8, AnswerT)>,
    },
    /// A handshake session's call.
    Legacy { tool: u8 },
    /// A reply to one of the server's requests (or to one it never sent).
    Reply {
        which: u8,
        answer: AnswerT,
        error: bool,
        stray: bool,
    },
    /// A cancel of a handshake session's request.
    Cancel { which: u8 },
    /// A modern `subscriptions/listen`.
    Listen { filter: FilterT },
    /// A cancel of a modern request (a listen, most often).
    ModernCancel { which: u8 },
    /// The server's lists change: a tool added or removed, a resource updated, or every
    /// listen ended.
    Change { what: u8, n: u8 },
    /// Time passes, by `secs` tenths of a second.
    Time { tenths: u8 },
    /// The jobs run until none does.
    Run,
}

const KEYS: [&str; 6] = ["name", "a", "b", "m", "r", "zz"];

#[derive(Arbitrary, Debug)]
enum FilterT {
    Absent,
    Tools,
    All(Vec<u8>),
    Junk(i64),
    WrongUris,
}

impl FilterT {
    fn value(&self) -> Option<Value> {
        Some(match self {
            Self::Absent => return None,
            Self::Tools => json!({"toolsListChanged": true}),
            Self::All(uris) => json!({
                "toolsListChanged": true,
                "promptsListChanged": true,
                "resourcesListChanged": true,
                "resourceSubscriptions": uris.iter().take(3).map(|u| format!("r://{}", u % 4)).collect::<Vec<_>>(),
            }),
            Self::Junk(n) => json!(n),
            Self::WrongUris => json!({"resourceSubscriptions": [1, 2]}),
        })
    }
}

struct Side {
    conn: Connection,
    runner: Runner,
    /// The raw ids of the listens open, and of those cancelled.
    listens: Vec<i64>,
    cancelled: Vec<i64>,
    /// Requests not yet answered, by id: how many answers each may still get, and whether
    /// it must get one.
    open: HashMap<i64, bool>,
    next: i64,
}

impl Side {
    fn new(server: &Arc<Server>) -> Self {
        let mut conn = Connection::new(Arc::clone(server));
        let runner = Runner::new();
        runner.attach(&mut conn);
        conn.handle_time(START_MS);
        Self {
            conn,
            runner,
            listens: Vec::new(),
            cancelled: Vec::new(),
            open: HashMap::new(),
            next: 100,
        }
    }

    /// Sends a line; returns the lines written (all checked).
    fn send(&mut self, line: &str) -> Vec<Value> {
        let mut out = BytesMut::new();
        self.conn.handle_line(line.as_bytes(), &mut out);
        self.act();
        self.take(&out)
    }

    /// Starts the work the connection hands out (inside the runtime, which spawns it).
    fn act(&mut self) {
        let (runner, conn) = (&mut self.runner, &mut self.conn);
        RUNTIME.with(|rt| {
            let _in = rt.enter();
            runner.act(conn);
        });
    }

    fn request(&mut self, method: &str, params: Value) -> Vec<Value> {
        self.next += 1;
        let id = self.next;
        self.open.insert(id, true);
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string())
    }

    /// Checks what the connection wrote and settles the answers it holds.
    fn take(&mut self, out: &[u8]) -> Vec<Value> {
        let mut got = Vec::new();
        for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let v: Value = serde_json::from_slice(line).expect("valid JSON");
            assert_eq!(
                serde_json::to_vec(&v).map(|c| c.len()).ok(),
                Some(line.len()),
                "compact JSON"
            );
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
            if v.get("method").is_some() {
                let m = v["method"].as_str().unwrap_or_default();
                if m.ends_with("list_changed")
                    || m.ends_with("resources/updated")
                    || m.ends_with("acknowledged")
                {
                    if let Some(tag) = v["params"]["_meta"][SUB].as_i64() {
                        assert!(
                            self.listens.contains(&tag),
                            "a change for a listen not open: {v}"
                        );
                        assert!(
                            !self.cancelled.contains(&tag),
                            "a change after the cancel: {v}"
                        );
                    } else {
                        // NB. Untagged changes go to a handshake session only.
                        assert!(self.listens.is_empty() && self.cancelled.is_empty(), "{v}");
                    }
                }
                if v.get("id").is_some() {
                    assert!(v["id"].is_i64(), "a server request's id: {v}");
                    let m = v["method"].as_str().unwrap_or_default();
                    assert!(
                        ["elicitation/create", "sampling/createMessage", "roots/list"].contains(&m),
                        "{v}"
                    );
                }
            } else {
                let id = v["id"].as_i64().expect("an answer to a request of ours");
                assert!(
                    self.open.remove(&id).is_some(),
                    "one answer per request: {v}"
                );
                if let Some(at) = self.listens.iter().position(|l| *l == id) {
                    self.listens.remove(at);
                    if v.get("result").is_some() {
                        assert_eq!(v["result"]["resultType"], "complete", "{v}");
                        assert_eq!(v["result"]["_meta"][SUB], id, "{v}");
                    }
                }
                if let Some(r) = v.get("result")
                    && r["resultType"] == "input_required"
                {
                    assert!(r["requestState"].is_string(), "{v}");
                    assert!(
                        r["inputRequests"]
                            .as_object()
                            .is_some_and(|o| !o.is_empty()),
                        "{v}"
                    );
                }
            }
            got.push(v);
        }
        got
    }

    /// Runs the jobs until none runs, or until those left wait for something only a later
    /// step brings (a listen: the paused clock then jumps to the bound).
    fn run(&mut self) -> Vec<Value> {
        let mut all = Vec::new();
        while !self.runner.is_idle() {
            let mut out = BytesMut::new();
            let (runner, conn) = (&mut self.runner, &mut self.conn);
            let ran = RUNTIME.with(|rt| {
                rt.block_on(async {
                    tokio::time::timeout(Duration::from_secs(3600), runner.next(conn, &mut out))
                        .await
                })
            });
            all.extend(self.take(&out));
            if ran.is_err() {
                break;
            }
        }
        all
    }
}

fn modern_params(tool: &str, arg: u8, caps: &Value, more: Value) -> Value {
    let mut p = json!({
        "name": tool,
        "arguments": {"n": arg},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        },
    });
    if let (Some(p), Value::Object(m)) = (p.as_object_mut(), more) {
        p.extend(m);
    }
    p
}

fn responses(answers: &[(u8, AnswerT)]) -> Value {
    let mut m = serde_json::Map::new();
    for (k, a) in answers.iter().take(6) {
        m.insert(KEYS[usize::from(*k) % KEYS.len()].to_owned(), a.value());
    }
    Value::Object(m)
}

/// The last `input_required` of the modern side: its tool, argument, capabilities, state.
struct Round {
    tool: usize,
    arg: u8,
    caps: Value,
    state: String,
}

fuzz_target!(|steps: Vec<Step>| {
    let server = server();
    let mut modern = Side::new(&server);
    let mut legacy = Side::new(&server);
    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
        "clientInfo": {"name": "fuzz", "version": "1"},
    });
    legacy.request("initialize", init);
    let mut now = START_MS;
    let mut round: Option<Round> = None;
    // The server requests of the session not yet replied to.
    let mut asked: Vec<i64> = Vec::new();
    let note = |got: &[Value], asked: &mut Vec<i64>| {
        for v in got {
            if v.get("method").is_some()
                && let Some(id) = v["id"].as_i64()
            {
                asked.push(id);
            }
        }
    };
    for step in steps.into_iter().take(64) {
        match step {
            Step::Call { tool, arg, caps } => {
                let t = usize::from(tool) % TOOLS.len();
                let caps = caps.value();
                let got =
                    modern.request("tools/call", modern_params(TOOLS[t], arg, &caps, json!({})));
                let mut got = got;
                got.extend(modern.run());
                if let Some(s) = got
                    .iter()
                    .find_map(|v| v["result"]["requestState"].as_str())
                {
                    round = Some(Round {
                        tool: t,
                        arg,
                        caps,
                        state: s.to_owned(),
                    });
                }
            }
            Step::Retry {
                edits,
                drop_state,
                other_tool,
                other_arg,
                answers,
                responses_junk,
            } => {
                let Some(r) = &round else { continue };
                let mut state = r.state.clone().into_bytes();
                for (at, x) in edits.iter().take(4) {
                    if !state.is_empty() {
                        let i = usize::from(*at) % state.len();
                        state[i] ^= x;
                    }
                }
                let state = String::from_utf8_lossy(&state).into_owned();
                let tool = if other_tool {
                    (r.tool + 1) % TOOLS.len()
                } else {
                    r.tool
                };
                let arg = if other_arg {
                    r.arg.wrapping_add(1)
                } else {
                    r.arg
                };
                let mut more = serde_json::Map::new();
                if !drop_state {
                    more.insert("requestState".into(), json!(state));
                }
                let resp = if responses_junk {
                    json!([1, 2])
                } else {
                    responses(&answers)
                };
                more.insert("inputResponses".into(), resp);
                let p = modern_params(TOOLS[tool], arg, &r.caps, Value::Object(more));
                let mut got = modern.request("tools/call", p);
                got.extend(modern.run());
                let answer = got.iter().find(|v| v.get("method").is_none());
                let tampered = !drop_state && (state != r.state || other_tool || other_arg);
                if tampered || responses_junk {
                    assert_eq!(
                        answer.map(|a| a["error"]["code"].clone()),
                        Some(json!(-32602)),
                        "a retry whose state is not the sealed one: {got:?}"
                    );
                }
                if let Some(s) = got
                    .iter()
                    .find_map(|v| v["result"]["requestState"].as_str())
                {
                    round = Some(Round {
                        tool,
                        arg,
                        caps: r.caps.clone(),
                        state: s.to_owned(),
                    });
                }
            }
            Step::Forged { state, answers } => {
                let caps = CapsT::All.value();
                let more = json!({"requestState": state, "inputResponses": responses(&answers)});
                let mut got = modern.request("tools/call", modern_params("ask", 0, &caps, more));
                got.extend(modern.run());
                if round.as_ref().is_none_or(|r| r.state != state) {
                    assert_eq!(got[0]["error"]["code"], -32602, "{got:?}");
                }
            }
            Step::Legacy { tool } => {
                let t = TOOLS[usize::from(tool) % TOOLS.len()];
                let mut got = legacy.request("tools/call", json!({"name": t, "arguments": {}}));
                got.extend(legacy.run());
                note(&got, &mut asked);
            }
            Step::Reply {
                which,
                answer,
                error,
                stray,
            } => {
                let id = if stray || asked.is_empty() {
                    json!(9_000_000 + i64::from(which))
                } else {
                    json!(asked.remove(usize::from(which) % asked.len()))
                };
                let line = if error {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -1, "message": "no"}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "result": answer.value()})
                };
                let mut got = legacy.send(&line.to_string());
                if stray {
                    assert!(got.is_empty(), "a reply to nothing writes nothing: {got:?}");
                }
                got.extend(legacy.run());
                note(&got, &mut asked);
            }
            Step::Cancel { which } => {
                let ids: Vec<i64> = legacy.open.keys().copied().collect();
                if ids.is_empty() {
                    continue;
                }
                let id = ids[usize::from(which) % ids.len()];
                // NB. A cancelled request may still be answered (its answer raced the cancel).
                legacy.open.insert(id, false);
                let line = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
                let got = legacy.send(&line.to_string());
                note(&got, &mut asked);
            }
            Step::Listen { filter } => {
                let mut p = json!({"_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                }});
                if let Some(f) = filter.value() {
                    p["notifications"] = f;
                }
                modern.listens.push(modern.next + 1);
                modern.request("subscriptions/listen", p);
                modern.run();
            }
            Step::ModernCancel { which } => {
                let ids: Vec<i64> = modern.open.keys().copied().collect();
                if ids.is_empty() {
                    continue;
                }
                let id = ids[usize::from(which) % ids.len()];
                modern.open.insert(id, false);
                modern.cancelled.push(id);
                let line = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
                    "requestId": id,
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    },
                }});
                modern.send(&line.to_string());
                modern.run();
            }
            Step::Change { what, n } => {
                let name = format!("new{}", n % 4);
                match what % 4 {
                    0 => {
                        let spec =
                            ToolSpec::new(&name, "new", r#"{"type":"object"}"#).expect("a spec");
                        let _ = server.add_tool(spec, ask);
                    }
                    1 => {
                        server.remove_tool(&name);
                    }
                    2 => server.resource_updated(&format!("r://{}", n % 4)),
                    _ => server.end_subscriptions(),
                }
                let got = legacy.run();
                note(&got, &mut asked);
                modern.run();
            }
            Step::Time { tenths } => {
                now += u64::from(tenths) * 100;
                for side in [&mut modern, &mut legacy] {
                    side.conn.handle_time(now);
                    let mut out = BytesMut::new();
                    side.conn.handle_deadlines(&mut out);
                    side.act();
                    let got = side.take(&out);
                    note(&got, &mut asked);
                }
            }
            Step::Run => {
                let got = legacy.run();
                note(&got, &mut asked);
                modern.run();
            }
        }
    }
    // The end of the input answers every round still open.
    for side in [&mut modern, &mut legacy] {
        let mut out = BytesMut::new();
        side.conn.handle_eof(&mut out);
        side.act();
        side.take(&out);
        side.run();
        let unanswered: Vec<i64> = side
            .open
            .iter()
            .filter(|(_, must)| **must)
            .map(|(id, _)| *id)
            .collect();
        assert!(
            unanswered.is_empty(),
            "requests never answered: {unanswered:?}"
        );
    }
});
