//! A backend's questions asked one after another during one call, through `janus bridge`:
//! each round of the front's client answers the question it was asked (the keys of a call's
//! rounds are never reused: the server core serves a retry every earlier answer). A
//! question the front's client cannot or does not answer (it did not declare the capability,
//! cancelled, its session went) is answered at the backend at once, not left to time out
//! there; a handshake client's error reply reaches the backend as its answer. And a backend
//! call that fails while a handshake front's client is asked ends the front's request then.

use janus_client::{
    CallOptions, Callbacks, Cancel, Client, Command, Mode, Options, Rejection, Transport,
};
use std::time::Duration;
use support::copies::{bridge_copying, line_in, lines_of};

mod support;

const JANUS: &str = env!("CARGO_BIN_EXE_janus");

/// Answers the conformance fixture's two steps, each with what its own message asks.
fn by_step() -> Callbacks {
    Callbacks::new().elicit(|params| async move {
        let content = if params.contains("Step 1") {
            r#"{"name":"Ada"}"#
        } else {
            r#"{"color":"teal"}"#
        };
        Ok(format!(r#"{{"action":"accept","content":{content}}}"#))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_s_questions_in_sequence_each_get_their_own_answer() {
    for front in [Mode::Modern, Mode::Legacy] {
        let cmd = Command::new(
            JANUS,
            [
                "bridge",
                "--mode",
                "legacy",
                "--",
                JANUS,
                "serve",
                "--tools",
                "conformance",
            ],
        );
        let opts = Options {
            mode: front,
            callbacks: by_step(),
            timeout: Duration::from_secs(20),
            cache: janus_client::AutoCache::default(),
            ..Options::default()
        };
        let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
        for _ in 0..2 {
            let r = c
                .call_tool(
                    "test_input_required_result_multi_round",
                    None,
                    CallOptions::default(),
                )
                .await
                .unwrap_or_else(|e| panic!("{front:?} front: {e}"));
            assert_eq!(
                r.text(),
                "Hello Ada, your favorite color is teal.",
                "{front:?} front: {r:?}"
            );
        }
        c.close(Duration::from_secs(2)).await;
    }
}

/// A fresh file for what the bridge sends its backend.
fn heard_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("janus-bridge-rounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let heard = dir.join(name);
    let _ = std::fs::remove_file(&heard);
    heard
}

/// An error answer of the bridge's to a request of the backend's.
fn refused_at_backend(l: &serde_json::Value) -> bool {
    l.get("error").is_some() && l.get("method").is_none()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_the_front_cannot_or_does_not_answer_is_answered_at_the_backend_at_once() {
    // A front client that declared no elicitation (either era): the front's request is
    // refused as the server core refuses it (-32021; a tool error on a handshake session),
    // and the backend's question at once.
    for front in [Mode::Modern, Mode::Legacy] {
        let heard = heard_file(&format!("undeclared-{front:?}.jsonl"));
        let opts = Options {
            mode: front,
            timeout: Duration::from_secs(20),
            ..Options::default()
        };
        let cmd = bridge_copying("legacy", "conformance", &heard);
        let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
        let args = Some(r#"{"message":"who?"}"#);
        let call = c.call_tool("test_elicitation", args, CallOptions::default());
        let (answered, line) = tokio::join!(
            call,
            line_in(&heard, "the question refused", refused_at_backend)
        );
        assert!(line["error"]["code"].is_i64(), "{front:?}: {line}");
        match (front, answered) {
            (Mode::Modern, Err(janus_client::Error::Rejected(r))) => {
                assert_eq!(r.code, -32021, "{r}");
            }
            (Mode::Legacy, Ok(r)) => assert!(r.is_error, "{r:?}"),
            (_, other) => panic!("{front:?}: {other:?}"),
        }
        c.close(Duration::from_secs(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_client_s_error_reply_reaches_the_backend_as_its_error() {
    // NB. The backend's call goes on with the client's error (code, message and data as the
    // client gave them), and its answer is the front's: not cancelled, nothing made up.
    let heard = heard_file("error.jsonl");
    let opts = Options {
        mode: Mode::Legacy,
        callbacks: Callbacks::new().elicit(|_| async {
            Err(Rejection {
                code: -1,
                message: "no".into(),
                data: Some(r#"{"why":"the user said so"}"#.into()),
            })
        }),
        timeout: Duration::from_secs(20),
        ..Options::default()
    };
    let cmd = bridge_copying("legacy", "conformance", &heard);
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let args = Some(r#"{"message":"who?"}"#);
    let r = c
        .call_tool("test_elicitation", args, CallOptions::default())
        .await;
    // NB. The backend (a janus serve) ends its own round on the error: a tool error.
    assert!(
        r.as_ref()
            .is_ok_and(|r| r.is_error && r.text().contains("no")),
        "{r:?}"
    );
    let line = line_in(&heard, "the client's error passed on", refused_at_backend).await;
    assert_eq!(line["error"]["code"], -1, "{line}");
    assert_eq!(line["error"]["message"], "no", "{line}");
    assert_eq!(line["error"]["data"]["why"], "the user said so", "{line}");
    let cancelled = lines_of(&heard)
        .into_iter()
        .any(|l| l["method"] == "notifications/cancelled");
    assert!(!cancelled, "the backend's call was cancelled");
    c.close(Duration::from_secs(2)).await;
}

/// A handshake client whose elicitation callback never answers in a test's time.
fn never_answering() -> Options {
    Options {
        mode: Mode::Legacy,
        callbacks: Callbacks::new().elicit(|_| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(r#"{"action":"decline"}"#.into())
        }),
        timeout: Duration::from_secs(20),
        ..Options::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_while_its_question_waits_is_cancelled_at_the_backend() {
    let heard = heard_file("cancel.jsonl");
    let opts = never_answering();
    let cmd = bridge_copying("legacy", "conformance", &heard);
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let cancel = Cancel::new();
    let o = CallOptions {
        cancel: Some(cancel.clone()),
        ..CallOptions::default()
    };
    let args = Some(r#"{"message":"who?"}"#);
    let call = c.call_tool("test_elicitation", args, o);
    let fire = async {
        // NB. Once the question is out (the bridge's call went to the backend), a moment
        // for it to reach the front's client.
        line_in(&heard, "the call", |l| l["method"] == "tools/call").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.fire();
    };
    let (r, ()) = tokio::join!(call, fire);
    assert!(r.is_err(), "{r:?}");
    line_in(&heard, "the cancel", |l| {
        l["method"] == "notifications/cancelled"
    })
    .await;
    c.close(Duration::from_secs(2)).await;
}

/// A handshake client of `janus bridge` (raw lines), whose lines out come through a channel.
struct LegacyFront {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<serde_json::Value>,
}

impl LegacyFront {
    /// The bridge (`args` before its backend), initialised by a client that declares
    /// elicitation.
    fn start(args: &[&str]) -> Self {
        use std::io::BufRead as _;
        let mut child = std::process::Command::new(JANUS)
            .arg("bridge")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines() {
                let Ok(l) = l else { return };
                let v = serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l}"));
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let mut me = Self { child, lines };
        me.send(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}"#,
        );
        me.next_where("the initialize result", |l| l["id"] == 0);
        me.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        me
    }

    fn send(&mut self, line: &str) {
        use std::io::Write as _;
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line `want` accepts (the ones before it are kept in `skipped`), within 10 s.
    fn next_where(
        &mut self,
        what: &str,
        want: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if want(&l) => return l,
                Ok(_) => {}
                Err(e) => panic!("{what}: none within 10 s ({e})"),
            }
        }
    }

    /// Calls `test_elicitation` (request id 1): the elicitation request the client gets.
    fn asked(&mut self) -> serde_json::Value {
        self.send(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"who?"}}}"#,
        );
        self.next_where("the question", |l| l["method"] == "elicitation/create")
    }

    /// The client's late answer to the question (ignored), then plain calls: one is served
    /// within 5 s (a backend restarted after a pause fails the calls that come meanwhile).
    fn still_serves(&mut self, question: &serde_json::Value) {
        let late = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"decline"}}}}"#,
            question["id"]
        );
        self.send(&late);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        for id in 2.. {
            self.send(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"test_simple_text","arguments":{{}}}}}}"#
            ));
            let r = self.next_where("the next call's answer", |l| l["id"] == id);
            if r["result"]["content"].is_array() {
                return;
            }
            assert_eq!(r["error"]["code"], -32603, "{r}");
            assert!(
                std::time::Instant::now() < deadline,
                "not served again: {r}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for LegacyFront {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The answer to request 1 and the cancel of the question, in either order.
fn ended_round(front: &mut LegacyFront, question: &serde_json::Value) -> serde_json::Value {
    let qid = question["id"].clone();
    let mut answer = None;
    let mut cancelled = false;
    while answer.is_none() || !cancelled {
        let l = front.next_where("the round's end", |l| {
            l["id"] == 1
                || (l["method"] == "notifications/cancelled" && l["params"]["requestId"] == qid)
        });
        if l["id"] == 1 {
            answer = Some(l);
        } else {
            cancelled = true;
        }
    }
    answer.unwrap()
}

/// The bridge's options before its backend: a legacy conformance backend whose calls time
/// out after 1 s.
const TIMING_OUT: &[&str] = &[
    "--mode",
    "legacy",
    "--timeout-secs",
    "1",
    "--",
    JANUS,
    "serve",
    "--tools",
    "conformance",
];

#[test]
fn a_handshake_front_asked_for_input_hears_at_once_of_a_backend_call_timed_out() {
    // NB. The backend's call times out after 1 s while the front's client is being asked
    // (it never answers): the front's request gets the timeout then, not at the server core's
    // input timeout (300 s), and its client hears that the question is void.
    let mut front = LegacyFront::start(TIMING_OUT);
    let question = front.asked();
    let answer = ended_round(&mut front, &question);
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let reason = answer["error"]["data"]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("within"), "{answer}");
    front.still_serves(&question);
}

#[test]
fn a_handshake_front_asked_for_input_hears_at_once_of_a_backend_that_exited() {
    let dir = std::env::temp_dir().join(format!("janus-bridge-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("backend.pid");
    let _ = std::fs::remove_file(&pid_file);
    let mut front = LegacyFront::start(&[
        "--mode",
        "legacy",
        "--",
        "sh",
        "-c",
        r#"echo $$ > "$0"; exec "$1" serve --tools conformance"#,
        pid_file.to_str().unwrap(),
        JANUS,
    ]);
    let question = front.asked();
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    let answer = ended_round(&mut front, &question);
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(answer["error"]["data"]["reason"].is_string(), "{answer}");
    // NB. The backend is restarted: the next call is served.
    front.still_serves(&question);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_http_session_asked_for_input_hears_at_once_of_a_backend_call_timed_out() {
    // NB. The same on a legacy streamable HTTP session: the question went on the call's
    // event stream, which ends with the timeout's error.
    let front =
        support::HttpServe::launch(&[&["bridge", "--http", "127.0.0.1:0"], TIMING_OUT].concat());
    let opts = never_answering();
    let t = Transport::Http {
        url: format!("http://{}/mcp", front.addr),
        headers: Vec::new(),
    };
    let c = Client::connect(t, opts).await.unwrap();
    let started = std::time::Instant::now();
    let args = Some(r#"{"message":"who?"}"#);
    let r = c
        .call_tool("test_elicitation", args, CallOptions::default())
        .await;
    match r {
        Err(janus_client::Error::Rejected(r)) => assert_eq!(r.code, -32603, "{r}"),
        other => panic!("{other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "answered at once"
    );
    let r = c
        .call_tool("test_simple_text", None, CallOptions::default())
        .await
        .unwrap();
    assert!(!r.is_error, "{r:?}");
    c.close(Duration::from_secs(2)).await;
}

#[test]
fn a_legacy_http_session_deleted_while_asked_for_input_ends_the_backend_call() {
    // NB. The server core gives up the round of a session that goes (its connection is
    // dropped): the bridge hears of it and ends the parked call (the backend's question
    // refused, its call cancelled), not at the backend's timeout.
    use std::io::Read as _;
    use support::web::{header, post, read_answer};
    let heard = heard_file("deleted.jsonl");
    let janus = support::janus_bin();
    let front = support::HttpServe::launch(&[
        "bridge",
        "--http",
        "127.0.0.1:0",
        "--mode",
        "legacy",
        "--",
        "sh",
        "-c",
        r#"tee "$0" | "$1" serve --tools conformance"#,
        heard.to_str().unwrap(),
        janus,
    ]);
    let addr = front.addr.as_str();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let (status, head, _) = read_answer(post(addr, &[], init));
    assert_eq!(status, 200, "{head}");
    let session = header(&head, "mcp-session-id")
        .expect("a session")
        .to_owned();
    let on = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (status, _, _) = read_answer(post(
        addr,
        &on,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    assert_eq!(status, 202);
    let mut call = post(
        addr,
        &on,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"who?"}}}"#,
    );
    // NB. The question comes on the call's event stream.
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("elicitation/create") {
        let n = call.read(&mut chunk).expect("the call's stream");
        assert!(n > 0, "{}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    let mut delete = std::net::TcpStream::connect(addr).unwrap();
    delete
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    std::io::Write::write_all(
        &mut delete,
        format!(
            "DELETE /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap();
    let mut answer = String::new();
    delete.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let refused = line_in(&heard, "the question refused", refused_at_backend).await;
        assert!(refused["error"]["code"].is_i64(), "{refused}");
        line_in(&heard, "the call cancelled", |l| {
            l["method"] == "notifications/cancelled"
        })
        .await;
    });
}

/// A 2026-07-28 backend in sh whose tool `prog` reports progress 0 and 50, asks for input,
/// and, called again with the answer, reports 0 and 50 again, then 100.
const RERUNS: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  [ -z "$id" ] && continue
  tok=$(printf '%s' "$line" | sed -n 's/.*"progressToken":\("[^"]*"\).*/\1/p')
  case "$line" in
    *'"method":"server/discover"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[{"name":"prog","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      for v in 0 50; do printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%s,"total":100}}\n' "$tok" "$v"; done
      case "$line" in
        *inputResponses*)
          printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":100,"total":100}}\n' "$tok"
          printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}\n' "$id" ;;
        *) printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"go?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}}\n' "$id" ;;
      esac ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete"}}\n' "$id" ;;
  esac
done"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_front_s_progress_never_goes_back_across_an_input_round() {
    let opts = Options {
        mode: Mode::Legacy,
        callbacks: Callbacks::new()
            .elicit(|_| async { Ok(r#"{"action":"accept","content":{}}"#.into()) }),
        timeout: Duration::from_secs(10),
        ..Options::default()
    };
    let cmd = Command::new(
        JANUS,
        ["bridge", "--mode", "modern", "--", "sh", "-c", RERUNS],
    );
    let c = Client::connect(Transport::Stdio(cmd), opts).await.unwrap();
    let (tx, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let r = c
        .call_tool(
            "prog",
            Some("{}"),
            CallOptions {
                progress: Some(tx),
                ..CallOptions::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(r.text(), "done");
    let mut values = Vec::new();
    while let Ok(p) = heard.try_recv() {
        values.push(p.progress);
    }
    // NB. The backend ran its work twice (0, 50, then 0, 50, 100): the front hears each
    // value once, going up.
    assert_eq!(values, [0.0, 50.0, 100.0]);
    c.close(Duration::from_secs(2)).await;
}
