//! The naive oracle, and the codec's reading of a frame in the same shape.
//!
//! The oracle shares no code with the codec. Whether a frame is JSON is what
//! `serde_json::from_slice::<Value>` says, with one documented exception for numbers
//! ([`parse_json`]). The JSON-RPC 2.0 classification and the era rule of `decisions.md` are
//! written out again on the `Value`, from the specification rather than from `message.rs`.
//!
//! [`codec`] reads the same frame with [`Parser`] and turns every span into a `Value` with
//! serde_json, after checking that the span lies inside the frame. [`assert_agrees`] compares
//! the two readings.

use crate::era::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY,
    PROTOCOL_VERSION_KEY,
};
use crate::{
    Envelope, Era, INVALID_REQUEST, Id, Message, MessageKind, Parsed, Parser, RawJson, Rejection,
};
use serde_json::{Number, Value};

/// serde_json refuses a value with more nested containers than this; the codec accepts 128.
/// Frames that reach it are left to the seed table.
pub(super) const SERDE_MAX_NESTING: usize = 127;

/// The `_meta` keys the codec reads into an [`Envelope`], in the order of its fields.
const ENVELOPE_KEYS: [&str; 5] = [
    PROTOCOL_VERSION_KEY,
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROGRESS_TOKEN_KEY,
];

/// A request id as a reader sees it: `1` and `"1"` are different ids.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum IdValue {
    /// A string id, decoded.
    Str(String),
    /// An integer id (one that serde_json reads as `i64` or `u64`).
    Int(Number),
}

/// A well-formed message, every part as a `Value`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MessageView {
    pub(super) kind: MessageKind,
    pub(super) id: Option<IdValue>,
    /// The decoded method of a request or notification; `None` for responses.
    pub(super) method: Option<String>,
    /// `params` of a request or notification.
    pub(super) params: Option<Value>,
    /// `params._meta`, of any type, when `params` is an object that has it.
    pub(super) meta: Option<Value>,
    pub(super) result: Option<Value>,
    pub(super) error: Option<Value>,
    /// The values of [`ENVELOPE_KEYS`] in `params._meta`, when it is an object.
    pub(super) envelope: [Option<Value>; 5],
    /// The era this message would open as a connection's first request.
    pub(super) era: Era,
}

/// One JSON value read as a JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ItemView {
    /// A valid message.
    Message(Box<MessageView>),
    /// JSON that is not a JSON-RPC 2.0 message: `-32600`, with the id when one could be read.
    Invalid(Option<IdValue>),
}

/// What a whole frame is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Verdict {
    /// Not UTF-8 or not JSON: `-32700`, id `null`.
    NotJson,
    /// One JSON value that is not a non-empty array.
    Single(ItemView),
    /// A non-empty array: a JSON-RPC batch, each element read on its own.
    Batch(Vec<ItemView>),
}

// ---------------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------------

/// Parses JSON text into a `Value` as serde_json does, except that a number is in range when
/// its correctly rounded value is finite.
///
/// NB. This is the one deliberate divergence from serde_json. Built without its
/// `float_roundtrip` feature (as here), serde_json computes a decimal as
/// `significand as f64 * 10^exponent`, rounding twice, so near `f64::MAX` it refuses some finite
/// numbers (`1.7976931348623158e308`, or `f64::MAX` written out as an integer) and accepts some
/// that overflow (`1.79769313486231581e308`). The codec, like serde_json with `float_roundtrip`,
/// simd-json and `str::parse::<f64>`, rounds once. The oracle follows the codec here, and the
/// seed table pins the codec's verdict on those numbers.
pub(super) fn parse_json(text: &[u8]) -> Option<Value> {
    let mut fixed: Option<Vec<u8>> = None;
    loop {
        let cur = fixed.as_deref().unwrap_or(text);
        match serde_json::from_slice::<Value>(cur) {
            Ok(v) => {
                // serde_json may have accepted a number that overflows once rounded correctly.
                let overflow = numbers(cur).any(|n| !parse_f64(n).is_finite());
                return if overflow { None } else { Some(v) };
            }
            Err(e) if e.to_string().starts_with("number out of range") => {
                let at = offset_of(cur, e.line(), e.column());
                let (start, end) = number_around(cur, at);
                if !parse_f64(&cur[start..end]).is_finite() {
                    return None;
                }
                // A number byte right after the number (`1.7976931348623158e308e+308`) is
                // never JSON; the replacement must not make it so (`0.0e+308` would be).
                if cur.get(end).is_some_and(|&b| is_number_byte(b)) {
                    return None;
                }
                // The number is finite: put a float of the same kind in its place and go on.
                let mut next = cur[..start].to_vec();
                next.extend_from_slice(b"0.0");
                next.extend_from_slice(&cur[end..]);
                fixed = Some(next);
            }
            Err(_) => return None,
        }
    }
}

/// The correctly rounded value of a JSON number token.
fn parse_f64(token: &[u8]) -> f64 {
    core::str::from_utf8(token)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not a number token: {:?}", String::from_utf8_lossy(token)))
}

/// The byte offset of a serde_json error position (1-based line; the column counts the bytes
/// read on that line, so it ends just after the number it complains about).
fn offset_of(text: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    (line_start + column).saturating_sub(1).min(text.len() - 1)
}

fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

/// The number that covers offset `at`: from its first byte, the longest prefix that follows
/// the JSON number grammar (serde_json may complain before it reads the whole token).
fn number_around(text: &[u8], at: usize) -> (usize, usize) {
    assert!(
        is_number_byte(text[at]),
        "serde_json's error position is not in a number: {:?} at {at}",
        String::from_utf8_lossy(text)
    );
    let mut start = at;
    while start > 0 && is_number_byte(text[start - 1]) {
        start -= 1;
    }
    let t = &text[start..];
    let digit = |i: usize| t.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = usize::from(t[0] == b'-');
    if t.get(i) == Some(&b'0') {
        i += 1;
    } else {
        while digit(i) {
            i += 1;
        }
    }
    if t.get(i) == Some(&b'.') && digit(i + 1) {
        i += 1;
        while digit(i) {
            i += 1;
        }
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(t.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digit(j) {
            while digit(j) {
                j += 1;
            }
            i = j;
        }
    }
    (start, start + i)
}

/// The number tokens of a text that is valid JSON (strings skipped).
fn numbers(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut i = 0;
    core::iter::from_fn(move || {
        while i < text.len() {
            match text[i] {
                b'"' => {
                    i += 1;
                    while text[i] != b'"' {
                        i += if text[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i < text.len() && is_number_byte(text[i]) {
                        i += 1;
                    }
                    return Some(&text[start..i]);
                }
                _ => i += 1,
            }
        }
        None
    })
}

/// The deepest nesting of `[` and `{` outside strings; a rough count on text that is not JSON.
pub(super) fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The oracle's reading of a frame.
pub(super) fn oracle(frame: &[u8]) -> Verdict {
    let Some(v) = parse_json(frame) else {
        return Verdict::NotJson;
    };
    match &v {
        Value::Array(items) if !items.is_empty() => {
            Verdict::Batch(items.iter().map(classify).collect())
        }
        // An empty array is an empty batch; JSON-RPC 2.0 answers it with one Invalid Request.
        other => Verdict::Single(classify(other)),
    }
}

/// A request id: a string or an integer. JSON-RPC 2.0 advises against fractional ids and
/// `decisions.md` refuses them, so a number must be one serde_json holds as an integer.
fn id_value(v: &Value) -> Option<IdValue> {
    match v {
        Value::String(s) => Some(IdValue::Str(s.clone())),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(IdValue::Int(n.clone())),
        _ => None,
    }
}

/// JSON-RPC 2.0, section 4 and 5, with the choices of `decisions.md` ("Both eras").
fn classify(v: &Value) -> ItemView {
    let Value::Object(obj) = v else {
        return ItemView::Invalid(None);
    };
    let id = obj.get("id");
    let readable_id = id.and_then(id_value);
    let invalid = ItemView::Invalid(readable_id.clone());
    // `"jsonrpc": "2.0"` exactly.
    if obj.get("jsonrpc") != Some(&Value::String("2.0".to_owned())) {
        return invalid;
    }
    // An id that is there must be a string, an integer or null.
    let id_is_null = id == Some(&Value::Null);
    if id.is_some() && readable_id.is_none() && !id_is_null {
        return invalid;
    }
    let result = obj.get("result").cloned();
    let error = obj.get("error").cloned();
    let kind = match (obj.get("method"), &result, &error) {
        // A call: a string method, no result, no error; null is not a request id.
        (Some(Value::String(_)), None, None) if !id_is_null => {
            if readable_id.is_some() {
                MessageKind::Request
            } else {
                MessageKind::Notification
            }
        }
        (Some(_), _, _) => return invalid,
        // A success answers a request, so it names one.
        (None, Some(_), None) if readable_id.is_some() => MessageKind::Response,
        // An error may carry a null id (the request could not be read).
        (None, None, Some(_)) if readable_id.is_some() || id_is_null => MessageKind::ErrorResponse,
        _ => return invalid,
    };
    let is_call = matches!(kind, MessageKind::Request | MessageKind::Notification);
    let params = if is_call { obj.get("params") } else { None };
    // Params, when there, are structured: an object or an array.
    if params.is_some_and(|p| !p.is_object() && !p.is_array()) {
        return invalid;
    }
    let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
    let meta = params
        .and_then(Value::as_object)
        .and_then(|p| p.get("_meta"));
    let meta_obj = meta.and_then(Value::as_object);
    let envelope = ENVELOPE_KEYS.map(|k| meta_obj.and_then(|m| m.get(k)).cloned());
    // decisions.md, "Era detection", rule 2.
    let modern = method.as_deref().is_some_and(|m| m != "initialize")
        && meta_obj.is_some_and(|m| m.contains_key(PROTOCOL_VERSION_KEY));
    ItemView::Message(Box::new(MessageView {
        kind,
        id: readable_id,
        method,
        params: params.cloned(),
        meta: meta.cloned(),
        result: if kind == MessageKind::Response {
            result
        } else {
            None
        },
        error: if kind == MessageKind::ErrorResponse {
            error
        } else {
            None
        },
        envelope,
        era: if modern { Era::Modern } else { Era::Legacy },
    }))
}

// ---------------------------------------------------------------------------------------------
// The codec's reading, in the oracle's shape.
// ---------------------------------------------------------------------------------------------

/// Checks that `text` is a span of `frame` with no white space around it.
fn span<'a>(frame: &[u8], text: &'a str) -> &'a str {
    let start = (text.as_ptr() as usize).wrapping_sub(frame.as_ptr() as usize);
    assert!(
        start <= frame.len() && text.len() <= frame.len() - start,
        "span {text:?} is not inside its frame"
    );
    let ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    assert!(
        !text.is_empty() && !text.starts_with(ws) && !text.ends_with(ws),
        "span {text:?} is not trimmed"
    );
    text
}

fn span_value(frame: &[u8], raw: RawJson<'_>) -> Value {
    let text = span(frame, raw.as_str());
    parse_json(text.as_bytes()).unwrap_or_else(|| panic!("span {text:?} is not JSON"))
}

fn codec_id(frame: &[u8], id: Id<'_>) -> IdValue {
    let raw = span(frame, id.as_raw());
    assert_eq!(id.to_owned().as_id(), id, "IdBuf keeps the bytes");
    if id.is_string() {
        let decoded = id.as_string().expect("a string id decodes").into_owned();
        assert_eq!(id.as_i64(), None);
        IdValue::Str(decoded)
    } else {
        let n: Number = serde_json::from_str(raw).expect("an integer id is a JSON number");
        assert!(n.is_i64() || n.is_u64(), "id {raw} is not an integer");
        assert_eq!(id.as_i64(), n.as_i64(), "Id::as_i64 of {raw}");
        IdValue::Int(n)
    }
}

fn codec_message(frame: &[u8], m: &Message<'_>) -> MessageView {
    let kind = m.kind();
    let is_call = matches!(kind, MessageKind::Request | MessageKind::Notification);
    assert_eq!(m.is_request(), kind == MessageKind::Request);
    match kind {
        MessageKind::Request | MessageKind::Response => assert!(m.id().is_some()),
        MessageKind::Notification => assert!(m.id().is_none()),
        MessageKind::ErrorResponse => {}
    }
    if is_call {
        assert!(m.result().is_none() && m.error().is_none());
    } else {
        assert_eq!(m.method(), "");
        assert!(m.params().is_none() && m.meta().is_none());
    }
    assert_eq!(m.result().is_some(), kind == MessageKind::Response);
    assert_eq!(m.error().is_some(), kind == MessageKind::ErrorResponse);
    if let Some(p) = m.params() {
        // The `_meta` found during the validating pass is the one a later lookup finds.
        assert_eq!(p.get("_meta"), m.meta());
        assert_eq!(Envelope::from_params(p), m.envelope());
    }
    let env = m.envelope();
    let envelope = [
        env.protocol_version,
        env.client_capabilities,
        env.client_info,
        env.log_level,
        env.progress_token,
    ]
    .map(|v| v.map(|v| span_value(frame, v)));
    MessageView {
        kind,
        id: m.id().map(|id| codec_id(frame, id)),
        method: is_call.then(|| m.method().to_owned()),
        params: m.params().map(|v| span_value(frame, v)),
        meta: m.meta().map(|v| span_value(frame, v)),
        result: m.result().map(|v| span_value(frame, v)),
        error: m.error().map(|v| span_value(frame, v)),
        envelope,
        era: Era::of_first_request(m),
    }
}

fn codec_rejection(frame: &[u8], r: Rejection<'_>) -> ItemView {
    assert_eq!(
        r.error.rpc_code(),
        INVALID_REQUEST,
        "a rejection of JSON is -32600"
    );
    ItemView::Invalid(r.id.map(|id| codec_id(frame, id)))
}

/// The codec's reading of a frame.
pub(super) fn codec(frame: &[u8]) -> Verdict {
    match Parser::new().parse(frame) {
        Err(r) if r.error.is_parse_error() => {
            assert_eq!(r.id, None, "a frame that is not JSON has no id");
            Verdict::NotJson
        }
        Err(r) => Verdict::Single(codec_rejection(frame, r)),
        Ok(Parsed::Single(m)) => {
            Verdict::Single(ItemView::Message(Box::new(codec_message(frame, &m))))
        }
        Ok(Parsed::Batch(b)) => {
            assert!(span(frame, b.as_str()).starts_with('['));
            Verdict::Batch(
                b.iter()
                    .map(|item| match item {
                        Ok(m) => ItemView::Message(Box::new(codec_message(frame, &m))),
                        Err(r) => codec_rejection(frame, r),
                    })
                    .collect(),
            )
        }
    }
}

/// Asserts that the codec reads `frame` as the oracle does; returns false (and checks
/// nothing) when the frame nests too deep for serde_json.
pub(super) fn assert_agrees(frame: &[u8]) -> bool {
    if nesting(frame) >= SERDE_MAX_NESTING {
        return false;
    }
    let want = oracle(frame);
    let got = codec(frame);
    assert_eq!(
        got,
        want,
        "codec (left) and oracle (right) differ on {:?}",
        String::from_utf8_lossy(frame)
    );
    // The shortcuts agree with the full reading.
    let single = Parser::new().parse_single(frame);
    let summary = crate::classify(frame);
    match &want {
        Verdict::Single(ItemView::Message(view)) => {
            assert_eq!(summary.ok(), Some((view.kind, view.era)));
            assert!(single.is_ok());
        }
        Verdict::NotJson => {
            assert!(single.is_err_and(|r| r.error.is_parse_error()));
            assert!(summary.is_err_and(|r| r.error.is_parse_error()));
        }
        Verdict::Single(ItemView::Invalid(_)) | Verdict::Batch(_) => {
            assert!(single.is_err_and(|r| r.error.rpc_code() == INVALID_REQUEST));
            assert!(summary.is_err_and(|r| r.error.rpc_code() == INVALID_REQUEST));
        }
    }
    true
}

#[test]
fn the_oracle_rounds_numbers_once() {
    // serde_json alone gets these two wrong (see `parse_json`).
    assert!(serde_json::from_slice::<Value>(b"1.7976931348623158e308").is_err());
    assert!(serde_json::from_slice::<Value>(b"1.79769313486231581e308").is_ok());
    assert_eq!(
        parse_json(b"[1.7976931348623158e308, 1]"),
        Some(serde_json::json!([0.0, 1]))
    );
    assert_eq!(parse_json(b"{\"a\":\n 1.79769313486231581e308}"), None);
    assert_eq!(parse_json(b"[1e309]"), None);
    // serde_json stops at the overflowing exponent, before the bytes that make it not JSON.
    assert_eq!(parse_json(b"[1e99999999999999999.5]"), None);
    assert_eq!(parse_json(b"[1.7976931348623158e308.5]"), None);
    // Found by the `era` fuzz target: replacing the number with `0.0` made `0.0e+308`.
    assert_eq!(parse_json(b"[1.7976931348623158e308e+308]"), None);
    assert_eq!(
        parse_json(b"[\"1e999\", -1.5e3]"),
        Some(serde_json::json!(["1e999", -1500.0]))
    );
}

#[test]
fn nesting_skips_strings() {
    assert_eq!(nesting(br#"[{"a":"[[[{\"]"}]"#), 2);
    assert_eq!(nesting(b"1"), 0);
}
