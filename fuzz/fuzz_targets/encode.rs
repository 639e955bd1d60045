//! `encode` (`write_str`, `write_raw`, `write_result`, `write_error`, `write_notification`,
//! `begin_*`/`end_message`, `JsonWriter`), `IdBuf` and the `FrameCodec` encoder: any string
//! and any id round-trip through serde_json (and through the codec's own parser) unchanged;
//! ids are echoed byte for byte; the output never holds a raw line break but its final `\n`.
//!
//! Input: structured, through `arbitrary`.

#![no_main]

use arbitrary::Arbitrary;
use bytes::BytesMut;
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{FrameCodec, Id, IdBuf, MessageKind, Parser, RawJson};
use janus_fuzz::oracle::{parse_json, span_value};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use tokio_util::codec::Encoder;

/// Containers deeper than this are cut to `null` (serde_json reads 127 at most).
const MAX_TREE_DEPTH: usize = 24;

/// A JSON value whose numbers survive a trip through text unchanged.
#[derive(Arbitrary, Debug)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    /// Eighths print exactly and read back exactly, even without `float_roundtrip`.
    Eighths(i16),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
    /// A value the `JsonWriter` writes as already-encoded text (pretty, with line breaks).
    Raw(Box<Json>),
}

impl Json {
    fn value(&self, depth: usize) -> Value {
        if depth > MAX_TREE_DEPTH {
            return Value::Null;
        }
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::from(*b),
            Self::Int(n) => Value::from(*n),
            Self::UInt(n) => Value::from(*n),
            Self::Eighths(n) => Value::from(f64::from(*n) / 8.0),
            Self::Str(s) => Value::from(s.as_str()),
            Self::Arr(items) => items.iter().map(|j| j.value(depth + 1)).collect(),
            // The last of a duplicated key wins, as when serde_json reads the text back.
            Self::Obj(members) => {
                Value::Object(members.iter().fold(Map::new(), |mut m, (k, j)| {
                    m.insert(k.clone(), j.value(depth + 1));
                    m
                }))
            }
            Self::Raw(j) => j.value(depth),
        }
    }

    /// Writes the value through a `JsonWriter`.
    fn write(&self, w: &mut JsonWriter<'_>, depth: usize) {
        if depth > MAX_TREE_DEPTH {
            w.null();
            return;
        }
        match self {
            Self::Null => {
                w.null();
            }
            Self::Bool(b) => {
                w.bool(*b);
            }
            Self::Int(n) => {
                w.int(*n);
            }
            Self::UInt(_) | Self::Eighths(_) | Self::Raw(_) => {
                w.raw(&pretty(&self.value(depth)));
            }
            Self::Str(s) => {
                w.str(s);
            }
            Self::Arr(items) => {
                w.begin_array();
                for j in items {
                    j.write(w, depth + 1);
                }
                w.end_array();
            }
            Self::Obj(members) => {
                w.begin_object();
                for (k, j) in members {
                    w.key(k);
                    j.write(w, depth + 1);
                }
                w.end_object();
            }
        }
    }
}

/// A request id: built by `IdBuf`, or read by the parser from JSON text as a client sent it.
#[derive(Arbitrary, Debug)]
enum IdIn {
    Int(i64),
    Str(String),
    Raw(String),
}

#[derive(Arbitrary, Debug)]
struct Input {
    text: String,
    id: IdIn,
    code: i32,
    message: String,
    data: Option<Json>,
    result: Json,
    pretty: bool,
    method: String,
    params: Option<Json>,
    tree: Json,
    line: Vec<u8>,
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("a Value serialises")
}

fn text_of(v: &Value, pretty_print: bool) -> String {
    if pretty_print {
        pretty(v)
    } else {
        serde_json::to_string(v).expect("a Value serialises")
    }
}

/// `out` is one line: `\n` last, no other raw line break, UTF-8, JSON; returns its value.
fn one_line(out: &[u8]) -> Value {
    let (last, body) = out.split_last().expect("something was written");
    assert_eq!(*last, b'\n', "a message ends with \\n");
    assert!(
        !body.contains(&b'\n') && !body.contains(&b'\r'),
        "a raw line break inside a message: {:?}",
        String::from_utf8_lossy(out)
    );
    parse_json(body).unwrap_or_else(|| panic!("not JSON: {:?}", String::from_utf8_lossy(out)))
}

/// The id's raw text as it stands in a written message.
fn written_id(line: &[u8]) -> String {
    let text = core::str::from_utf8(line).expect("UTF-8");
    janus_fuzz::oracle::raw_members(text.trim_end())
        .and_then(|m| m.get("id").map(|r| r.get().to_owned()))
        .expect("a message with an id")
}

/// Checks the written messages that carry `id` (`id_value` is serde_json's reading of it).
fn messages_with_id(input: &Input, id: Id<'_>, id_value: &Value) {
    // A success response.
    let result = input.result.value(0);
    let mut out = BytesMut::new();
    encode::write_result(&mut out, id, &text_of(&result, input.pretty));
    let v = one_line(&out);
    assert_eq!(
        v,
        json!({"jsonrpc": "2.0", "id": id_value, "result": result})
    );
    assert_eq!(
        written_id(&out),
        id.as_raw(),
        "the id is echoed byte for byte"
    );
    let line = &out[..out.len() - 1];
    let m = Parser::new()
        .parse_single(line)
        .expect("the codec reads its own response");
    assert_eq!(m.kind(), MessageKind::Response);
    assert_eq!(
        m.id(),
        Some(Id::from_json(RawJson::parse(id.as_raw()).unwrap()).unwrap())
    );
    assert_eq!(m.id().map(Id::as_raw), Some(id.as_raw()));
    assert_eq!(span_value(line, m.result().unwrap()), result);

    // The same, begun and ended by hand.
    let mut split = BytesMut::new();
    encode::begin_result(&mut split, id);
    encode::write_raw(&mut split, &text_of(&result, input.pretty));
    encode::end_message(&mut split);
    assert_eq!(split, out);

    // An error response, with and without the id.
    let data = input.data.as_ref().map(|d| d.value(0));
    let data_text = data.as_ref().map(|d| text_of(d, input.pretty));
    for with_id in [true, false] {
        let mut out = BytesMut::new();
        let the_id = with_id.then_some(id);
        encode::write_error(
            &mut out,
            the_id,
            input.code,
            &input.message,
            data_text.as_deref(),
        );
        let v = one_line(&out);
        let mut error = json!({"code": input.code, "message": input.message});
        if let Some(d) = &data {
            error["data"] = d.clone();
        }
        let want_id = if with_id {
            id_value.clone()
        } else {
            Value::Null
        };
        assert_eq!(v, json!({"jsonrpc": "2.0", "id": want_id, "error": error}));
        assert_eq!(written_id(&out), the_id.map_or("null", Id::as_raw));
        let line = &out[..out.len() - 1];
        let m = Parser::new()
            .parse_single(line)
            .expect("the codec reads its own error");
        assert_eq!(m.kind(), MessageKind::ErrorResponse);
        assert_eq!(m.id().map(Id::as_raw), the_id.map(Id::as_raw));
    }
}

fuzz_target!(|input: Input| {
    // Any string: escaped exactly as serde_json escapes it, read back unchanged.
    let mut out = BytesMut::new();
    encode::write_str(&mut out, &input.text);
    assert_eq!(
        &out[..],
        serde_json::to_string(&input.text).unwrap().as_bytes(),
        "write_str of {:?}",
        input.text
    );
    assert!(!out.contains(&b'\n') && !out.contains(&b'\r'));
    assert_eq!(serde_json::from_slice::<String>(&out).unwrap(), input.text);
    let s = core::str::from_utf8(&out).unwrap();
    assert_eq!(
        RawJson::parse(s).unwrap().as_string().as_deref(),
        Some(input.text.as_str()),
        "the codec decodes what it encodes"
    );

    // Integers.
    if let IdIn::Int(n) = input.id {
        let mut out = BytesMut::new();
        encode::write_i64(&mut out, n);
        assert_eq!(&out[..], n.to_string().as_bytes());
    }

    // Ids: built, or read from a client's frame.
    match &input.id {
        IdIn::Int(n) => {
            let id = IdBuf::from_i64(*n);
            assert_eq!(id.as_id().as_i64(), Some(*n));
            assert_eq!(id.as_id().as_raw(), n.to_string());
            messages_with_id(&input, id.as_id(), &Value::from(*n));
        }
        IdIn::Str(s) => {
            let id = IdBuf::from_string(s);
            assert!(id.as_id().is_string());
            assert_eq!(id.as_id().as_string().as_deref(), Some(s.as_str()));
            messages_with_id(&input, id.as_id(), &Value::from(s.as_str()));
        }
        IdIn::Raw(raw) => {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"m"}}"#);
            if let Ok(m) = Parser::new().parse_single(frame.as_bytes())
                && let Some(id) = m.id()
            {
                let value: Value =
                    serde_json::from_str(id.as_raw()).expect("an id serde_json reads");
                let owned = id.to_owned();
                assert_eq!(owned.as_id(), id);
                messages_with_id(&input, id, &value);
                messages_with_id(&input, owned.as_id(), &value);
            }
        }
    }

    // Notifications: the method and params read back.
    let params = input.params.as_ref().map(|p| p.value(0));
    let params_text = params.as_ref().map(|p| text_of(p, input.pretty));
    let mut out = BytesMut::new();
    encode::write_notification(&mut out, &input.method, params_text.as_deref());
    let v = one_line(&out);
    let mut want = json!({"jsonrpc": "2.0", "method": input.method});
    if let Some(p) = &params {
        want["params"] = p.clone();
    }
    assert_eq!(v, want);
    let line = &out[..out.len() - 1];
    match Parser::new().parse_single(line) {
        Ok(m) => {
            assert_eq!(m.kind(), MessageKind::Notification);
            assert_eq!(m.method(), input.method);
            assert_eq!(m.params().map(|p| span_value(line, p)), params);
        }
        // Params that are not structured make the notification invalid, and nothing else.
        Err(r) => assert!(
            params
                .as_ref()
                .is_some_and(|p| !p.is_object() && !p.is_array())
                && !r.error.is_parse_error(),
            "{r:?} on {:?}",
            String::from_utf8_lossy(line)
        ),
    }
    if let Some(p) = &params_text {
        let mut split = BytesMut::new();
        encode::begin_notification(&mut split, &input.method);
        encode::write_raw(&mut split, p);
        encode::end_message(&mut split);
        assert_eq!(split, out);
    }

    // The nested writer.
    let mut out = BytesMut::new();
    input.tree.write(&mut JsonWriter::new(&mut out), 0);
    assert!(!out.contains(&b'\n') && !out.contains(&b'\r'));
    assert_eq!(
        parse_json(&out),
        Some(input.tree.value(0)),
        "JsonWriter wrote {:?}",
        String::from_utf8_lossy(&out)
    );

    // The frame encoder: one line, or a refusal when the message holds a line break.
    let mut out = BytesMut::new();
    let body = input.line.strip_suffix(b"\n").unwrap_or(&input.line);
    let breaks = body.contains(&b'\n') || body.contains(&b'\r');
    match FrameCodec::new().encode(&input.line[..], &mut out) {
        Ok(()) => {
            assert!(!breaks);
            assert_eq!(&out[..body.len()], body);
            assert_eq!(&out[body.len()..], b"\n");
        }
        Err(_) => {
            assert!(breaks);
            assert!(out.is_empty());
        }
    }
});
