//! Checks of what a connection answers, against the request it got (`decisions.md`,
//! "Output" and the error codes).

use crate::oracle::{self, MessageView};
use crate::template::HANDSHAKE;
use crate::wire::{Line, Reply};
use janus_codec::{Era, MessageKind};
use janus_server_core::LIMIT_REACHED;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The `_meta` key of the server's own info, which every modern result carries.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The error codes `decisions.md` gives answers (`-32603` only for a failing handler),
/// `LIMIT_REACHED` for a full task store, and `-32002` for a legacy resource not found.
pub const CODES: [i64; 9] = [
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
    -32021,
    -32022,
    LIMIT_REACHED as i64,
    -32002,
];

/// The raw id of a view (it has one: it is a request).
pub fn raw_id(v: &MessageView) -> &str {
    &v.id.as_ref().expect("a request has an id").raw
}

/// The request's `_meta.progressToken`, when it has one.
pub fn token_of(v: &MessageView) -> Option<Value> {
    v.envelope[4].clone()
}

/// A string `params.protocolVersion` that is a handshake version, else the latest one.
pub fn negotiated_for(v: &MessageView) -> &'static str {
    let asked = v
        .params
        .as_ref()
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str);
    HANDSHAKE
        .into_iter()
        .find(|h| Some(*h) == asked)
        .unwrap_or("2025-11-25")
}

/// A task status that is terminal.
pub fn terminal(status: &Value) -> bool {
    matches!(status.as_str(), Some("completed" | "failed" | "cancelled"))
}

/// Checks the answer to one request, served on a connection of era `era`.
pub fn check_answer(reply: &Reply, v: &MessageView, era: Era) {
    let text = &reply.message;
    assert_eq!(
        reply.id,
        raw_id(v),
        "the id is echoed byte for byte: {text}"
    );
    if let Some(code) = reply.code {
        assert!(CODES.contains(&code), "an unexpected error code: {text}");
    }
    let method = v.method.as_deref().unwrap_or_default();
    match era {
        Era::Modern => {
            if method == "initialize" {
                assert_eq!(reply.code, Some(-32022), "modern initialize: {text}");
            }
            if let Some(r) = &reply.result {
                // decisions.md: every modern result carries these two.
                assert!(r.get("resultType").is_some(), "no resultType: {text}");
                assert!(
                    r["_meta"].get(SERVER_INFO).is_some(),
                    "no serverInfo: {text}"
                );
            }
        }
        Era::Legacy => {
            if v.era == Era::Modern && method != "initialize" {
                assert_eq!(reply.code, Some(-32600), "the era is locked: {text}");
            } else if method == "ping" {
                assert_eq!(reply.result, Some(json!({})), "ping: {text}");
            }
            if let Some(r) = &reply.result {
                assert!(r.get("resultType").is_none(), "a legacy result: {text}");
            }
        }
    }
}

/// The entries of a batch answer, by raw id; checks their codes.
pub fn entries(replies: &[Reply]) -> BTreeMap<String, usize> {
    let mut got = BTreeMap::new();
    for r in replies {
        *got.entry(r.id.clone()).or_default() += 1;
        if let Some(code) = r.code {
            assert!(CODES.contains(&code), "an unexpected error code: {r:?}");
        }
    }
    got
}

/// The single error line of a frame that is not a message: its code, and id `null`.
pub fn check_error_line(lines: &[Line], code: i64, id: &str) {
    let [Line::Single(r)] = lines else {
        panic!("want one error line, got {lines:?}")
    };
    assert_eq!(r.code, Some(code), "{r:?}");
    assert_eq!(r.id, id, "{r:?}");
}

/// The request a `notifications/cancelled` names: the raw text of its `requestId` (the
/// connection finds requests by their id's bytes). `text` is the message's JSON text.
pub fn cancel_target(v: &MessageView, text: &str) -> Option<String> {
    if v.kind != MessageKind::Notification || v.method.as_deref() != Some("notifications/cancelled")
    {
        return None;
    }
    let members = oracle::raw_members(text)?;
    let params = oracle::raw_members(members.get("params")?.get())?;
    Some(params.get("requestId")?.get().to_owned())
}

/// True for a batch element that runs as a job on a 2025-03-26 session: a `tools/call` of the
/// asynchronous `sleep` whose arguments are an object (or absent). Anything else is answered
/// at once (2025-03-26 has no tasks, and the era lock refuses a modern element).
pub fn is_job_element(v: &MessageView) -> bool {
    let Some(params) = v.params.as_ref().and_then(Value::as_object) else {
        return false;
    };
    v.kind == MessageKind::Request
        && v.era == Era::Legacy
        && v.method.as_deref() == Some("tools/call")
        && params.get("name").and_then(Value::as_str) == Some("sleep")
        && params
            .get("arguments")
            .is_none_or(|a| a.is_null() || a.is_object())
}
