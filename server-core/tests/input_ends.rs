//! A handshake session's round that the handler ends early (`InputRequired::ends_on`): the
//! work it holds while the client is asked failed first, so the request gets its error at
//! once and the client hears that its server requests are void; a round answered first
//! waits on it no more.
//! And a round that takes the client's error replies as answers
//! (`InputRequired::takes_refusals`): the handler runs again and reads them.

use janus_model::json::RpcError;
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, Halt, InputRequest, InputRequired, Server};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

mod support;
use support::*;

const NAME: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

/// Where a round's ending goes: one sender per round, in the order the rounds were asked.
type Endings = Arc<Mutex<Vec<oneshot::Sender<RpcError>>>>;

/// A server whose tool `watched` asks for a name with an ending the test holds.
fn server(endings: &Endings) -> Arc<Server> {
    let endings = Arc::clone(endings);
    let spec = ToolSpec::new("watched", "asks, and may end early", r#"{"type":"object"}"#).unwrap();
    Server::builder("ends", "1")
        .tool(
            spec,
            move |ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>| -> Result<(), Halt> {
                let Some(name) = ctx.input("name") else {
                    let (tx, rx) = oneshot::channel();
                    endings.lock().unwrap().push(tx);
                    let end = async move {
                        match rx.await {
                            Ok(e) => e,
                            Err(_) => std::future::pending().await,
                        }
                    };
                    return Err(InputRequired::new()
                        .ask("name", InputRequest::elicit("Your name?", NAME)?)
                        .ends_on(end)
                        .into());
                };
                out.text(&format!("Hello, {}", name.as_str().len()));
                Ok(())
            },
        )
        .tool(
            ToolSpec::new(
                "refusable",
                "asks, and hears an error reply",
                r#"{"type":"object"}"#,
            )
            .unwrap(),
            |ctx: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>| -> Result<(), Halt> {
                if let Some(e) = ctx.input_refusal("name") {
                    out.text(&format!("refused: {}", e.as_str()));
                    return Ok(());
                }
                let Some(name) = ctx.input("name") else {
                    return Err(InputRequired::new()
                        .ask("name", InputRequest::elicit("Your name?", NAME)?)
                        .takes_refusals()
                        .into());
                };
                out.text(&format!("answered: {}", name.as_str()));
                Ok(())
            },
        )
        .build()
        .unwrap()
}

fn session(endings: &Endings) -> Client {
    let mut c = Client::with(server(endings));
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = c.answer(init);
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
    c.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c
}

fn asked(c: &mut Client) -> serde_json::Value {
    let mut out = c.send(&legacy(
        1,
        "tools/call",
        r#"{"name":"watched","arguments":{}}"#,
    ));
    assert_eq!(out.len(), 1, "{out:?}");
    let q = out.remove(0);
    assert_eq!(q["method"], "elicitation/create", "{q}");
    q
}

#[tokio::test]
async fn an_ending_that_comes_first_answers_the_request_and_voids_its_server_request() {
    let endings = Endings::default();
    let mut c = session(&endings);
    let q = asked(&mut c);
    assert_eq!(c.conn.foreground(), 2, "the request and its watcher");
    let tx = endings.lock().unwrap().pop().unwrap();
    let mut gone = RpcError::new(-32603, "the work failed");
    gone.data = Some(janus_model::json::Json::parse(r#"{"reason":"it exited"}"#).unwrap());
    tx.send(gone).unwrap();
    let lines = c.settle().await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["method"], "notifications/cancelled", "{lines:?}");
    assert_eq!(lines[0]["params"]["requestId"], q["id"], "{lines:?}");
    assert_eq!(lines[1]["id"], 1, "{lines:?}");
    assert_eq!(lines[1]["error"]["code"], -32603, "{lines:?}");
    assert_eq!(
        lines[1]["error"]["data"]["reason"], "it exited",
        "{lines:?}"
    );
    assert_eq!(c.conn.foreground(), 0);
    // The client's late answer is ignored.
    let late = json!({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "decline"}});
    c.silent(&late.to_string());
}

#[tokio::test]
async fn a_round_answered_first_waits_on_its_ending_no_more() {
    let endings = Endings::default();
    let mut c = session(&endings);
    let q = asked(&mut c);
    let answer = json!({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "accept", "content": {"name": "Ann"}}});
    let out = c.send(&answer.to_string());
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 1, "{out:?}");
    assert!(out[0]["result"]["content"].is_array(), "{out:?}");
    // NB. The watcher's job ended with the round: nothing runs, and an ending that comes
    // now writes nothing.
    let settled = tokio::time::timeout(std::time::Duration::from_secs(5), c.settle()).await;
    assert!(settled.is_ok(), "a job runs on after the round");
    assert_eq!(c.conn.foreground(), 0);
    assert_eq!(c.running(), 0);
    let tx = endings.lock().unwrap().pop().unwrap();
    let _ = tx.send(RpcError::new(-32603, "too late"));
    assert!(c.settle().await.is_empty());
}

#[test]
fn a_round_that_takes_refusals_runs_again_with_the_client_s_error() {
    let endings = Endings::default();
    let mut c = session(&endings);
    let mut out = c.send(&legacy(
        1,
        "tools/call",
        r#"{"name":"refusable","arguments":{}}"#,
    ));
    assert_eq!(out.len(), 1, "{out:?}");
    let q = out.remove(0);
    let reply = json!({"jsonrpc": "2.0", "id": q["id"], "error": {"code": -1, "message": "no", "data": {"why": "said so"}}});
    let out = c.send(&reply.to_string());
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 1, "{out:?}");
    let text = out[0]["result"]["content"][0]["text"].as_str().unwrap();
    let e: serde_json::Value =
        serde_json::from_str(text.strip_prefix("refused: ").unwrap()).unwrap();
    assert_eq!(
        e,
        json!({"code": -1, "message": "no", "data": {"why": "said so"}})
    );
    assert_ne!(out[0]["result"]["isError"], true, "{out:?}");
    assert_eq!(c.conn.foreground(), 0);
    // An error reply that is no object still ends the round (a tool error).
    let mut out = c.send(&legacy(
        2,
        "tools/call",
        r#"{"name":"refusable","arguments":{}}"#,
    ));
    let q = out.remove(0);
    let reply = json!({"jsonrpc": "2.0", "id": q["id"], "error": "no"});
    let out = c.send(&reply.to_string());
    let ended = out.iter().find(|l| l["id"] == 2).unwrap();
    assert_eq!(ended["result"]["isError"], true, "{out:?}");
}
