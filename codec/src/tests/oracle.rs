//! The naive oracle: a frame read through `serde_json`, and the codec's reading in the same
//! shape. [`assert_agrees`] compares the two.
//!
//! One file serves the codec's tests and the fuzz targets: the codec builds it as
//! `tests::oracle` (its crate is also named `janus_codec` in tests), the `janus-fuzz` crate
//! includes it with `#[path]`.
//!
//! The oracle shares no code with the codec. Whether a frame is JSON is what serde_json says,
//! with one documented exception for numbers near `f64::MAX` ([`parse_json`]), and with
//! serde_json's recursion limit lifted so that nesting is checked up to the codec's limit
//! (128 containers) rather than serde_json's (127).
//! The JSON-RPC 2.0 classification and the era rule of `decisions.md` are written out again on
//! the `Value`, from the specification rather than from `message/`.
//! Ids are compared by value and byte for byte (through `serde_json::value::RawValue`).

use janus_codec::era::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY,
    PROTOCOL_VERSION_KEY,
};
use janus_codec::{
    DEFAULT_MAX_DEPTH, Envelope, Era, INVALID_REQUEST, Id, Message, MessageKind, Parsed, Parser,
    RawJson, Rejection,
};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};
use std::collections::BTreeMap;

/// The `_meta` keys the codec reads into an [`Envelope`], in the order of its fields.
pub const ENVELOPE_KEYS: [&str; 5] = [
    PROTOCOL_VERSION_KEY,
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROGRESS_TOKEN_KEY,
];

/// A request id as a reader sees it: `1` and `"1"` are different ids.
#[derive(Debug, Clone, PartialEq)]
pub enum IdValue {
    /// A string id, decoded.
    Str(String),
    /// An integer id (one that serde_json reads as `i64` or `u64`).
    Int(Number),
}

/// An id: its value and its JSON text exactly as it stands in the frame.
#[derive(Debug, Clone, PartialEq)]
pub struct IdView {
    /// The value.
    pub value: IdValue,
    /// The raw text, escapes as sent.
    pub raw: String,
}

/// A well-formed message, every part as a `Value`.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageView {
    /// Request, notification, response or error response.
    pub kind: MessageKind,
    /// The id, when it is a string or an integer.
    pub id: Option<IdView>,
    /// The decoded method of a request or notification; `None` for responses.
    pub method: Option<String>,
    /// `params` of a request or notification.
    pub params: Option<Value>,
    /// `params._meta`, of any type, when `params` is an object that has it.
    pub meta: Option<Value>,
    /// `result` of a response.
    pub result: Option<Value>,
    /// `error` of an error response.
    pub error: Option<Value>,
    /// The values of [`ENVELOPE_KEYS`] in `params._meta`, when it is an object.
    pub envelope: [Option<Value>; 5],
    /// The era this message would open as a connection's first request.
    pub era: Era,
}

/// One JSON value read as a JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemView {
    /// A valid message.
    Message(Box<MessageView>),
    /// JSON that is not a JSON-RPC 2.0 message: `-32600`, with the id when one could be read.
    Invalid(Option<IdView>),
}

/// What a whole frame is.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Not UTF-8, not JSON, or nested deeper than the limit: `-32700`, id `null`.
    NotJson,
    /// One JSON value that is not a non-empty array.
    Single(ItemView),
    /// A non-empty array: a JSON-RPC batch, each element read on its own.
    Batch(Vec<ItemView>),
}

// ---------------------------------------------------------------------------------------------
// JSON through serde_json.
// ---------------------------------------------------------------------------------------------

/// A `Value` read by serde_json, member by member.
///
/// NB. Not `Value::deserialize`: with serde_json's `raw_value` feature (needed here for ids),
/// that reads an object whose first key is `$serde_json::private::RawValue` as the raw JSON
/// text held in its value, so `{"$serde_json::private::RawValue":""}` would not be JSON.
/// The fuzzer found that key in serde_json's own comparisons.
struct Plain(Value);

impl<'de> Deserialize<'de> for Plain {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PlainVisitor).map(Plain)
    }
}

struct PlainVisitor;

impl<'de> Visitor<'de> for PlainVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Plain(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // The last of a duplicated key wins, as in `Value`.
        let mut members = Map::new();
        while let Some((k, Plain(v))) = map.next_entry::<String, Plain>()? {
            members.insert(k, v);
        }
        Ok(Value::Object(members))
    }
}

/// One JSON value from `text`, with serde_json's recursion limit lifted. Only called on text
/// whose nesting is bounded (the codec's limit, or a few levels more for what a server wrote
/// around a client's value), so the recursion is bounded.
fn serde_value(text: &[u8]) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    let Plain(v) = Plain::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Parses JSON text into a `Value` as serde_json does, except that a number is in range when
/// its correctly rounded value is finite, and that nesting deeper than the codec's limit
/// ([`DEFAULT_MAX_DEPTH`], the rule of `decisions.md`) is not JSON.
///
/// NB. Built without its `float_roundtrip` feature (as here), serde_json computes a decimal as
/// `significand as f64 * 10^exponent`, rounding twice, so near `f64::MAX` it refuses some
/// finite numbers (`1.7976931348623158e308`, or `f64::MAX` written out as an integer) and
/// accepts some that overflow (`1.79769313486231581e308`). The codec, like serde_json with
/// `float_roundtrip`, simd-json and `str::parse::<f64>`, rounds once. The oracle follows the
/// codec there, which is what `decisions.md` asks.
#[must_use]
pub fn parse_json(text: &[u8]) -> Option<Value> {
    if nesting(text) > DEFAULT_MAX_DEPTH {
        return None;
    }
    parse_any_depth(text)
}

/// [`parse_json`] without the depth limit, for what a server writes (a client's value
/// echoed inside an error's `data` is a few levels deeper than it was sent).
#[must_use]
pub fn parse_any_depth(text: &[u8]) -> Option<Value> {
    assert!(
        nesting(text) <= 4 * DEFAULT_MAX_DEPTH,
        "nested far deeper than any frame the codec accepts"
    );
    let mut fixed: Option<Vec<u8>> = None;
    loop {
        let cur = fixed.as_deref().unwrap_or(text);
        match serde_value(cur) {
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

const fn is_number_byte(b: u8) -> bool {
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

/// The deepest nesting of `[` and `{` outside strings: exact on JSON text, a rough count on
/// text that is not JSON (which is refused whatever the count).
#[must_use]
pub fn nesting(text: &[u8]) -> usize {
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

/// The members of a JSON object as raw text, the last of a duplicated key winning (as in
/// `Value`); `None` when `text` is not an object. `text` must be valid JSON.
#[must_use]
pub fn raw_members(text: &str) -> Option<BTreeMap<String, &RawValue>> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    BTreeMap::<String, &RawValue>::deserialize(&mut de).ok()
}

/// The elements of a JSON array as raw text; `None` when `text` is not an array.
#[must_use]
pub fn raw_elements(text: &str) -> Option<Vec<&RawValue>> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    Vec::<&RawValue>::deserialize(&mut de).ok()
}

// ---------------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------------

/// The oracle's reading of a frame.
#[must_use]
pub fn oracle(frame: &[u8]) -> Verdict {
    let Some(v) = parse_json(frame) else {
        return Verdict::NotJson;
    };
    let text = core::str::from_utf8(frame).expect("serde_json accepted it, so it is UTF-8");
    match &v {
        Value::Array(items) if !items.is_empty() => {
            let raw = raw_elements(text).expect("a JSON array");
            assert_eq!(raw.len(), items.len());
            Verdict::Batch(
                items
                    .iter()
                    .zip(raw)
                    .map(|(item, raw)| classify(item, raw.get()))
                    .collect(),
            )
        }
        // An empty array is an empty batch; JSON-RPC 2.0 answers it with one Invalid Request.
        other => Verdict::Single(classify(other, text)),
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

/// The era rule of `decisions.md` ("Era detection", rule 2), on values.
#[must_use]
pub fn era_of(method: Option<&str>, meta: Option<&Value>) -> Era {
    let modern = method.is_some_and(|m| m != "initialize")
        && meta
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(PROTOCOL_VERSION_KEY));
    if modern { Era::Modern } else { Era::Legacy }
}

/// The values of the envelope keys in a `_meta` value (nothing when it is not an object).
#[must_use]
pub fn envelope_of(meta: Option<&Value>) -> [Option<Value>; 5] {
    let obj = meta.and_then(Value::as_object);
    ENVELOPE_KEYS.map(|k| obj.and_then(|m| m.get(k)).cloned())
}

/// JSON-RPC 2.0, sections 4 and 5, with the choices of `decisions.md` ("Both eras").
/// `text` is the value's JSON text, for the raw id.
#[must_use]
pub fn classify(v: &Value, text: &str) -> ItemView {
    let Value::Object(obj) = v else {
        return ItemView::Invalid(None);
    };
    let id = obj.get("id");
    let readable_id = id.and_then(id_value).map(|value| IdView {
        value,
        raw: raw_members(text)
            .and_then(|m| m.get("id").map(|r| r.get().to_owned()))
            .expect("an object with an id"),
    });
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
    ItemView::Message(Box::new(MessageView {
        kind,
        id: readable_id,
        era: era_of(method.as_deref(), meta),
        envelope: envelope_of(meta),
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
    }))
}

// ---------------------------------------------------------------------------------------------
// The codec's reading, in the oracle's shape.
// ---------------------------------------------------------------------------------------------

/// Checks that `text` is a span of `frame` with no white space around it.
pub fn span<'a>(frame: &[u8], text: &'a str) -> &'a str {
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

/// A span of the frame, read by serde_json.
pub fn span_value(frame: &[u8], raw: RawJson<'_>) -> Value {
    let text = span(frame, raw.as_str());
    parse_json(text.as_bytes()).unwrap_or_else(|| panic!("span {text:?} is not JSON"))
}

fn codec_id(frame: &[u8], id: Id<'_>) -> IdView {
    let raw = span(frame, id.as_raw());
    assert_eq!(id.to_owned().as_id(), id, "IdBuf keeps the bytes");
    assert_eq!(id.to_string(), raw, "Display writes the id as sent");
    let value = if id.is_string() {
        let decoded = id.as_string().expect("a string id decodes").into_owned();
        assert_eq!(id.as_i64(), None);
        assert_eq!(
            serde_json::from_str::<String>(raw).ok().as_deref(),
            Some(&*decoded),
            "Id::as_string of {raw}"
        );
        IdValue::Str(decoded)
    } else {
        let n: Number = serde_json::from_str(raw).expect("an integer id is a JSON number");
        assert!(n.is_i64() || n.is_u64(), "id {raw} is not an integer");
        assert_eq!(id.as_i64(), n.as_i64(), "Id::as_i64 of {raw}");
        assert_eq!(id.as_string(), None);
        IdValue::Int(n)
    };
    assert_eq!(
        Id::from_json(RawJson::parse(raw).expect("an id is JSON")),
        Some(id)
    );
    IdView {
        value,
        raw: raw.to_owned(),
    }
}

/// The envelope's spans as values.
pub fn envelope_values(frame: &[u8], env: Envelope<'_>) -> [Option<Value>; 5] {
    [
        env.protocol_version,
        env.client_capabilities,
        env.client_info,
        env.log_level,
        env.progress_token,
    ]
    .map(|v| v.map(|v| span_value(frame, v)))
}

/// Checks `RawJson::get` on every member of an object span against serde_json's map.
fn check_members(frame: &[u8], raw: RawJson<'_>, value: &Map<String, Value>) {
    for (k, v) in value {
        let got = raw.get(k).map(|s| span_value(frame, s));
        assert_eq!(got.as_ref(), Some(v), "RawJson::get({k:?}) on {raw:?}");
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
        assert_eq!(m.envelope(), Envelope::default());
    }
    assert_eq!(m.result().is_some(), kind == MessageKind::Response);
    assert_eq!(m.error().is_some(), kind == MessageKind::ErrorResponse);
    let params = m.params().map(|v| span_value(frame, v));
    if let Some(p) = m.params() {
        // The `_meta` found during the validating pass is the one a later lookup finds.
        assert_eq!(p.get("_meta"), m.meta());
        assert_eq!(Envelope::from_params(p), m.envelope());
        if let Some(Value::Object(map)) = &params {
            check_members(frame, p, map);
        }
    }
    if let Some(meta) = m.meta() {
        assert_eq!(Envelope::from_meta(meta), m.envelope());
    } else {
        assert_eq!(m.envelope(), Envelope::default());
    }
    MessageView {
        kind,
        id: m.id().map(|id| codec_id(frame, id)),
        method: is_call.then(|| m.method().to_owned()),
        params,
        meta: m.meta().map(|v| span_value(frame, v)),
        result: m.result().map(|v| span_value(frame, v)),
        error: m.error().map(|v| span_value(frame, v)),
        envelope: envelope_values(frame, m.envelope()),
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

/// The codec's reading of a frame with `parser`.
pub fn codec_with(parser: &Parser, frame: &[u8]) -> Verdict {
    match parser.parse(frame) {
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

/// The codec's reading of a frame with the default parser.
pub fn codec(frame: &[u8]) -> Verdict {
    codec_with(&Parser::new(), frame)
}

/// Asserts that the codec reads `frame` as the oracle does, that the shortcuts
/// (`parse_single`, `classify`) agree with the full reading, and that the nesting limit is a
/// setting: at the frame's own depth nothing changes, one below it the frame is not JSON.
///
/// # Panics
///
/// On any difference, with the frame in the message.
pub fn assert_agrees(frame: &[u8]) {
    let want = oracle(frame);
    let got = codec(frame);
    assert_eq!(
        got,
        want,
        "codec (left) and oracle (right) differ on {:?}",
        String::from_utf8_lossy(frame)
    );
    let single = Parser::new().parse_single(frame);
    let summary = janus_codec::_benchable::classify(frame);
    match &want {
        Verdict::Single(ItemView::Message(view)) => {
            assert_eq!(summary.ok(), Some((view.kind, view.era)));
            assert!(single.is_ok());
        }
        Verdict::NotJson => {
            assert!(single.is_err_and(|r| r.error.is_parse_error() && r.id.is_none()));
            assert!(summary.is_err_and(|r| r.error.is_parse_error()));
        }
        Verdict::Single(ItemView::Invalid(_)) | Verdict::Batch(_) => {
            assert!(single.is_err_and(|r| r.error.rpc_code() == INVALID_REQUEST));
            assert!(summary.is_err_and(|r| r.error.rpc_code() == INVALID_REQUEST));
        }
    }
    // The bulk scan taking every container from its first value on reads the same.
    assert_eq!(
        codec_with(Parser::new().bulk_after(0), frame),
        want,
        "with the bulk scan from the start, on {:?}",
        String::from_utf8_lossy(frame)
    );
    // And so does the bulk scan reading every container squeezed (`scan/blocks.rs`).
    assert_eq!(
        codec_with(Parser::new().bulk_after(0).squeeze_from(0), frame),
        want,
        "with the bulk scan from the start, squeezed, on {:?}",
        String::from_utf8_lossy(frame)
    );
    let depth = nesting(frame);
    if depth <= DEFAULT_MAX_DEPTH {
        let mut p = Parser::new();
        assert_eq!(codec_with(p.bulk_after(0).max_depth(depth), frame), want);
        assert_eq!(codec_with(p.squeeze_from(0).max_depth(depth), frame), want);
        if depth > 0 {
            assert_eq!(codec_with(p.max_depth(depth - 1), frame), Verdict::NotJson);
        }
        p.squeeze_from(usize::MAX);
        p.bulk_after(usize::MAX);
        assert_eq!(codec_with(p.max_depth(depth), frame), want);
        if depth > 0 {
            assert_eq!(
                codec_with(p.max_depth(depth - 1), frame),
                Verdict::NotJson,
                "{} containers under a limit of {}",
                depth,
                depth - 1
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn depth_is_checked_to_the_codec_limit_not_serde_jsons() {
        let deep = |n: usize| {
            let mut f = "[".repeat(n);
            f.push_str(&"]".repeat(n));
            f.into_bytes()
        };
        // serde_json alone stops at 127 containers.
        assert!(serde_json::from_slice::<Value>(&deep(128)).is_err());
        assert!(parse_json(&deep(128)).is_some());
        assert_eq!(parse_json(&deep(129)), None);
    }
}
