//! Routed output (`Connection::set_routing`, `poll_line`): what the connection says each line
//! it wrote is, checked against a whole parse of the line, in both eras, for answers, errors,
//! batches, server-to-client requests, a job's notifications and a listen stream's.

use janus_codec::IdBuf;
use janus_server_core::Halt;
use janus_server_core::connection::{Emitted, Line};
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, InputRequest, InputRequired, JobId, demo};
use serde_json::Value;

mod support;
use support::*;

/// The id of a parsed message as the JSON text an `IdBuf` holds.
fn id_of(m: &Value) -> Option<IdBuf> {
    let id = m.get("id")?;
    match id {
        Value::Number(n) => Some(IdBuf::from_i64(n.as_i64()?)),
        Value::String(s) => Some(IdBuf::from_string(s)),
        _ => None,
    }
}

/// Takes every record the connection holds and checks it against the lines of `out`: the
/// lengths tile the output, and each line is what its record says. Returns the records.
fn records(c: &mut Client, out: &[u8]) -> Vec<Emitted> {
    let got: Vec<Emitted> = std::iter::from_fn(|| c.conn.poll_line()).collect();
    assert_eq!(
        got.iter().map(|e| e.len).sum::<usize>(),
        out.len(),
        "the records tile the output: {got:?} over {}",
        String::from_utf8_lossy(out)
    );
    let mut at = 0;
    for e in &got {
        let line = &out[at..at + e.len];
        at += e.len;
        assert_eq!(line.last(), Some(&b'\n'), "a record is a whole line");
        let m: Value = serde_json::from_slice(line).expect("a JSON line");
        let text = String::from_utf8_lossy(line);
        match &e.line {
            Line::Answer { id, error } => {
                assert!(
                    m.get("result").is_some() || m.get("error").is_some(),
                    "{text}"
                );
                assert_eq!(*id, id_of(&m), "{text}");
                let code = m["error"]["code"]
                    .as_i64()
                    .map(|c| i32::try_from(c).unwrap());
                assert_eq!(*error, code, "{text}");
            }
            Line::Batch { ids } => {
                let want: Vec<IdBuf> = m
                    .as_array()
                    .expect("a batch's line is an array")
                    .iter()
                    .filter_map(id_of)
                    .collect();
                assert_eq!(*ids, want, "{text}");
            }
            Line::Request { .. } => {
                assert!(m.get("method").is_some() && m.get("id").is_some(), "{text}");
            }
            Line::Notification { .. } | Line::Listen { .. } => {
                assert!(m.get("method").is_some() && m.get("id").is_none(), "{text}");
            }
        }
    }
    got
}

/// Sends a line and checks the records of what was written at once.
fn send(c: &mut Client, line: &str) -> Vec<Emitted> {
    let out = c.raw(line.as_bytes());
    records(c, &out)
}

fn answer(id: Option<IdBuf>, error: Option<i32>) -> Line {
    Line::Answer { id, error }
}

#[tokio::test(start_paused = true)]
async fn a_legacy_connection_says_what_each_answer_error_and_batch_line_is() {
    let mut c = Client::new();
    c.conn.set_routing(true);
    let got = send(&mut c, &initialize(0, "2025-03-26"));
    assert_eq!(got[0].line, answer(Some(IdBuf::from_i64(0)), None));
    assert!(
        send(
            &mut c,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        )
        .is_empty()
    );
    let got = send(&mut c, &legacy(1, "nope/nope", "{}"));
    assert_eq!(got[0].line, answer(Some(IdBuf::from_i64(1)), Some(-32601)));
    let got = send(&mut c, r#"{"jsonrpc":"2.0","id":"#);
    assert_eq!(got[0].line, answer(None, Some(-32700)));
    // A string id with escapes, answered later by a job.
    let id = r#""a\"b,c""#;
    assert!(
        send(
            &mut c,
            &legacy(id, "tools/call", r#"{"name":"sleep","arguments":{"ms":5}}"#)
        )
        .is_empty()
    );
    c.settle_raw().await;
    let out = c.take_later();
    let got = records(&mut c, &out);
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].line,
        answer(Some(IdBuf::from_string("a\"b,c")), None)
    );
    // A batch: answered at once, and one whose answers wait for a job.
    let got = send(
        &mut c,
        r#"[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":"x","method":"nope"}]"#,
    );
    assert_eq!(
        got[0].line,
        Line::Batch {
            ids: vec![IdBuf::from_i64(2), IdBuf::from_string("x")]
        }
    );
    let slow = r#"[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5}}},{"jsonrpc":"2.0","id":4,"method":"ping"}]"#;
    assert!(send(&mut c, slow).is_empty());
    c.settle_raw().await;
    let out = c.take_later();
    let got = records(&mut c, &out);
    assert_eq!(
        got.iter().map(|e| &e.line).collect::<Vec<_>>(),
        [&Line::Batch {
            ids: vec![IdBuf::from_i64(3), IdBuf::from_i64(4)]
        }]
    );
}

fn ask(ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
    if ctx.input("name").is_none() {
        let schema = r#"{"type":"object","properties":{"name":{"type":"string"}}}"#;
        return Err(InputRequired::new()
            .ask("name", InputRequest::elicit("Your name?", schema)?)
            .into());
    }
    out.text("thanks");
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_server_request_names_the_request_it_was_sent_for_and_notes_name_their_job() {
    let spec = ToolSpec::new("ask", "Asks a name", r#"{"type":"object"}"#).unwrap();
    let server = demo::builder().tool(spec, ask).build().unwrap();
    let mut c = Client::with(server);
    c.conn.set_routing(true);
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
    send(&mut c, init);
    send(
        &mut c,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let got = send(
        &mut c,
        &legacy(9, "tools/call", r#"{"name":"ask","arguments":{}}"#),
    );
    assert_eq!(
        got.iter().map(|e| &e.line).collect::<Vec<_>>(),
        [&Line::Request {
            origin: Some(IdBuf::from_i64(9))
        }],
    );
    // A job's progress is its notification.
    let call = r#"{"name":"sleep","arguments":{"ms":250},"_meta":{"progressToken":"p"}}"#;
    assert!(send(&mut c, &legacy(10, "tools/call", call)).is_empty());
    c.settle_raw().await;
    let out = c.take_later();
    let got = records(&mut c, &out);
    let notes: Vec<_> = got
        .iter()
        .filter(|e| matches!(e.line, Line::Notification { job: Some(j) } if j != JobId::CONNECTION))
        .collect();
    assert!(
        !notes.is_empty(),
        "progress notifications of the job: {got:?}"
    );
    assert_eq!(
        got.last().map(|e| &e.line),
        Some(&answer(Some(IdBuf::from_i64(10)), None))
    );
}

#[tokio::test]
async fn a_listen_stream_s_notifications_are_its_own() {
    let server = demo::server();
    let mut c = Client::with(std::sync::Arc::clone(&server));
    c.conn.set_routing(true);
    let listen = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{"_meta":{ENV},"notifications":{{"toolsListChanged":true}}}}}}"#
    );
    assert!(send(&mut c, &listen).is_empty());
    let heard = c.hear_raw().await;
    let got = records(&mut c, &heard);
    assert!(
        matches!(
            got.as_slice(),
            [Emitted {
                line: Line::Listen { .. },
                ..
            }]
        ),
        "the acknowledgement: {got:?}"
    );
    let spec = ToolSpec::new("later", "Added", r#"{"type":"object"}"#).unwrap();
    server.add_tool(spec, demo::fail).unwrap();
    let heard = c.hear_raw().await;
    let got = records(&mut c, &heard);
    assert!(
        matches!(
            got.as_slice(),
            [Emitted {
                line: Line::Listen { .. },
                ..
            }]
        ),
        "the list change: {got:?}"
    );
    // Off, nothing is recorded.
    c.conn.set_routing(false);
    send_unrouted(&mut c);
}

fn send_unrouted(c: &mut Client) {
    let out = c.raw(modern(2, "server/discover", "").as_bytes());
    assert!(!out.is_empty());
    assert!(c.conn.poll_line().is_none());
}
