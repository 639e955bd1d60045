//! Checks of what a server writes: `decisions.md`, "Output": compact JSON, exactly one
//! message per line, `\n` terminated, never an embedded newline, valid UTF-8.

use crate::oracle::raw_members;
use serde_json::Value;

/// One JSON-RPC answer read back from the output.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The id's JSON text, exactly as written (`null` included).
    pub id: String,
    /// The `result`, for a success.
    pub result: Option<Value>,
    /// The error code, for an error.
    pub code: Option<i64>,
    /// The whole message.
    pub message: Value,
}

/// One output line: an answer, a batch answer (a non-empty array of answers), or a
/// notification of the server's own (`notifications/tasks/status`, say).
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// One answer.
    Single(Reply),
    /// A batch answer, in the order written.
    Batch(Vec<Reply>),
    /// A notification from the server: its method and the whole message.
    Notification(String, Value),
}

impl Line {
    /// True for an answer (or a batch of them), false for a server notification.
    #[must_use]
    pub const fn is_answer(&self) -> bool {
        !matches!(self, Self::Notification(..))
    }
}

/// Splits `out` into its lines and checks each: the buffer ends with `\n`, holds no `\r`, and
/// every line is one compact JSON-RPC 2.0 answer (or a non-empty array of them).
///
/// # Panics
///
/// When the output breaks one of those rules.
#[must_use]
pub fn lines(out: &[u8]) -> Vec<Line> {
    if out.is_empty() {
        return Vec::new();
    }
    assert_eq!(out.last(), Some(&b'\n'), "output does not end with \\n");
    assert!(!out.contains(&b'\r'), "a raw \\r in the output");
    out[..out.len() - 1]
        .split(|&b| b == b'\n')
        .map(line)
        .collect()
}

/// Reads one line (without its `\n`).
fn line(bytes: &[u8]) -> Line {
    let text = core::str::from_utf8(bytes).expect("output is UTF-8");
    assert_compact(text);
    let v = crate::oracle::parse_any_depth(text.as_bytes())
        .unwrap_or_else(|| panic!("output is not JSON: {text}"));
    match v {
        Value::Array(items) => {
            assert!(!items.is_empty(), "an empty batch answer: {text}");
            let raw = crate::oracle::raw_elements(text).expect("an array");
            Line::Batch(
                items
                    .into_iter()
                    .zip(raw)
                    .map(|(m, r)| reply(m, r.get()))
                    .collect(),
            )
        }
        m if m.get("method").is_some() && m.get("id").is_none() => notification(m, text),
        m => Line::Single(reply(m, text)),
    }
}

/// Checks a notification from the server: `jsonrpc` 2.0, a string method, object params.
fn notification(m: Value, text: &str) -> Line {
    let obj = m.as_object().expect("a notification is an object");
    assert_eq!(obj.get("jsonrpc"), Some(&Value::from("2.0")), "{text}");
    let method = obj["method"]
        .as_str()
        .unwrap_or_else(|| panic!("a method that is not a string: {text}"))
        .to_owned();
    assert!(
        obj.get("params").is_none_or(Value::is_object),
        "notification params that are not an object: {text}"
    );
    assert!(
        obj.keys()
            .all(|k| matches!(k.as_str(), "jsonrpc" | "method" | "params")),
        "a notification has jsonrpc, method and params only: {text}"
    );
    Line::Notification(method, m)
}

/// Checks one answer: `jsonrpc` 2.0, an id, and exactly one of `result` and `error` (an error
/// with an integer code and a string message).
fn reply(m: Value, text: &str) -> Reply {
    let obj = m
        .as_object()
        .unwrap_or_else(|| panic!("an answer that is not an object: {text}"));
    assert_eq!(obj.get("jsonrpc"), Some(&Value::from("2.0")), "{text}");
    let raw = raw_members(text).expect("an object");
    let id = raw
        .get("id")
        .unwrap_or_else(|| panic!("an answer without id: {text}"))
        .get()
        .to_owned();
    assert!(
        id == "null" || id.starts_with('"') || id.bytes().all(|b| b == b'-' || b.is_ascii_digit()),
        "an id that is not a string, an integer or null: {text}"
    );
    let result = obj.get("result").cloned();
    let code = match obj.get("error") {
        None => None,
        Some(e) => {
            let code = e["code"]
                .as_i64()
                .unwrap_or_else(|| panic!("an error code that is not an integer: {text}"));
            assert!(e["message"].is_string(), "an error message: {text}");
            Some(code)
        }
    };
    assert!(
        result.is_some() != code.is_some(),
        "an answer needs exactly one of result and error: {text}"
    );
    assert_eq!(
        obj.len(),
        3,
        "an answer has jsonrpc, id and result or error only: {text}"
    );
    Reply {
        id,
        result,
        code,
        message: m,
    }
}

/// No white space outside strings.
///
/// # Panics
///
/// When there is some.
pub fn assert_compact(text: &str) {
    let (mut in_string, mut escaped) = (false, false);
    for c in text.bytes() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else {
            assert!(
                !matches!(c, b' ' | b'\t' | b'\n' | b'\r'),
                "not compact: {text}"
            );
        }
    }
}
