//! The writers of [`crate::encode`], read back with serde_json and with the codec.
//!
//! `decisions.md` ("Both eras"): compact JSON, exactly one message per line, `\n` terminated,
//! never an embedded newline, and each answer carries its request's id byte for byte.

use super::prop::character;
use super::proptest_config;
use crate::encode::{self, JsonWriter};
use crate::{IdBuf, MessageKind, Parser};
use bytes::BytesMut;
use proptest::collection::vec;
use proptest::option::weighted;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any string, with more quotes, backslashes and control characters than chance gives.
fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => vec(character(), 0..24).prop_map(String::from_iter),
        1 => any::<String>(),
    ]
}

/// A JSON value whose numbers survive a trip through text unchanged.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // Eighths print exactly and read back exactly, even without `float_roundtrip`.
        (-8000i32..8000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((string(), inner), 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An id as the codec holds it, and as serde_json reads it.
fn id() -> impl Strategy<Value = (IdBuf, Value)> {
    prop_oneof![
        any::<i64>().prop_map(|n| (IdBuf::from_i64(n), Value::from(n))),
        string().prop_map(|s| (IdBuf::from_string(&s), Value::String(s))),
    ]
}

/// The value as JSON text, compact or with the line breaks of pretty printing.
fn text_of(v: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(v).expect("a Value serialises")
    } else {
        serde_json::to_string(v).expect("a Value serialises")
    }
}

/// Checks that `out` is one line: `\n` last and no other raw line break.
fn assert_one_line(out: &[u8]) -> &[u8] {
    let line = out
        .strip_suffix(b"\n")
        .expect("a message ends with its newline");
    assert!(
        !line.contains(&b'\n') && !line.contains(&b'\r'),
        "a raw line break inside {:?}",
        String::from_utf8_lossy(out)
    );
    line
}

fn write_value(w: &mut JsonWriter<'_>, v: &Value) {
    match v {
        Value::Null => {
            w.null();
        }
        Value::Bool(b) => {
            w.bool(*b);
        }
        Value::Number(n) => match n.as_i64() {
            Some(i) => {
                w.int(i);
            }
            None => {
                w.raw(&n.to_string());
            }
        },
        Value::String(s) => {
            w.str(s);
        }
        Value::Array(items) => {
            w.begin_array();
            for item in items {
                write_value(w, item);
            }
            w.end_array();
        }
        Value::Object(members) => {
            w.begin_object();
            for (k, item) in members {
                w.key(k);
                write_value(w, item);
            }
            w.end_object();
        }
    }
}

proptest! {
    #![proptest_config(proptest_config(512))]

    /// `write_raw` gives what serde_json writes compact, however the text was spaced.
    #[test]
    fn raw_text_is_written_compact(v in json_value()) {
        let mut out = BytesMut::new();
        encode::write_raw(&mut out, &serde_json::to_string_pretty(&v).unwrap());
        let compact = serde_json::to_string(&v).unwrap();
        prop_assert_eq!(&out[..], compact.as_bytes());
    }

    /// `write_str` writes a JSON string that reads back as the same text, on one line.
    #[test]
    fn write_str_round_trips_on_one_line(s in string()) {
        let mut out = BytesMut::new();
        encode::write_str(&mut out, &s);
        prop_assert!(!out.contains(&b'\n') && !out.contains(&b'\r'));
        prop_assert!(!out[1..out.len() - 1].iter().any(|&b| b < 0x20));
        let back: String = serde_json::from_slice(&out).expect("serde_json reads it");
        prop_assert_eq!(&back, &s);
        // The codec reads it back too, as a method name.
        let frame = [br#"{"jsonrpc":"2.0","id":1,"method":"#, &out[..], b"}"].concat();
        let msg = Parser::new().parse_single(&frame).expect("the codec reads it");
        prop_assert_eq!(msg.method(), s.as_str());
    }

    /// `IdBuf` holds the JSON text of the id; the codec reads it back as it was built.
    #[test]
    fn ids_round_trip(n in any::<i64>(), s in string()) {
        let int = IdBuf::from_i64(n);
        let raw = int.as_id().as_raw();
        prop_assert_eq!(raw, n.to_string());
        prop_assert!(!int.as_id().is_string());
        prop_assert_eq!(int.as_id().as_i64(), Some(n));
        prop_assert_eq!(int.as_id().as_string(), None);

        let string = IdBuf::from_string(&s);
        let id = string.as_id();
        prop_assert!(id.is_string());
        prop_assert_eq!(id.as_i64(), None);
        prop_assert_eq!(id.as_string().map(|c| c.into_owned()), Some(s.clone()));
        prop_assert_eq!(serde_json::from_str::<String>(id.as_raw()).ok(), Some(s.clone()));
        prop_assert_ne!(&string, &IdBuf::from_string(&format!("{s}.")));

        // An id read from a frame and copied out keeps its bytes.
        for owned in [int, string] {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"m"}}"#, owned.as_id());
            let msg = Parser::new().parse_single(frame.as_bytes()).expect("the codec reads it");
            prop_assert_eq!(msg.id().map(|id| id.to_owned()), Some(owned));
        }
    }

    /// `write_result` writes one line that serde_json reads with the id and result given, and
    /// that the codec reads as a response carrying the id byte for byte.
    #[test]
    fn results_are_one_line((id, id_value) in id(), result in json_value(), pretty in any::<bool>()) {
        let mut out = BytesMut::new();
        encode::write_result(&mut out, id.as_id(), &text_of(&result, pretty));
        let line = assert_one_line(&out);
        let v: Value = serde_json::from_slice(line).expect("serde_json reads it");
        prop_assert_eq!(v, json!({"jsonrpc": "2.0", "id": id_value, "result": result}));
        let msg = Parser::new().parse_single(line).expect("the codec reads it");
        prop_assert_eq!(msg.kind(), MessageKind::Response);
        prop_assert_eq!(msg.id().map(|i| i.as_raw()), Some(id.as_id().as_raw()));

        // The same through begin_result / end_message.
        let mut parts = BytesMut::new();
        encode::begin_result(&mut parts, id.as_id());
        encode::write_raw(&mut parts, &text_of(&result, pretty));
        encode::end_message(&mut parts);
        prop_assert_eq!(parts, out);
    }

    /// `write_error` writes one line with the id (or null), code, message and data given.
    #[test]
    fn errors_are_one_line(
        id in weighted(0.8, id()),
        code in any::<i32>(),
        message in string(),
        data in weighted(0.5, json_value()),
        pretty in any::<bool>(),
    ) {
        let mut out = BytesMut::new();
        let data_text = data.as_ref().map(|d| text_of(d, pretty));
        encode::write_error(
            &mut out,
            id.as_ref().map(|(i, _)| i.as_id()),
            code,
            &message,
            data_text.as_deref(),
        );
        let line = assert_one_line(&out);
        let v: Value = serde_json::from_slice(line).expect("serde_json reads it");
        let mut error = json!({"code": code, "message": message});
        if let Some(d) = data {
            error["data"] = d;
        }
        let id_value = id.as_ref().map_or(Value::Null, |(_, v)| v.clone());
        prop_assert_eq!(v, json!({"jsonrpc": "2.0", "id": id_value, "error": error}));
        let msg = Parser::new().parse_single(line).expect("the codec reads it");
        prop_assert_eq!(msg.kind(), MessageKind::ErrorResponse);
        prop_assert_eq!(
            msg.id().map(|i| i.as_raw()),
            id.as_ref().map(|(i, _)| i.as_id().as_raw())
        );
    }

    /// `write_notification` writes one line with the method and params given.
    #[test]
    fn notifications_are_one_line(
        method in string(),
        params in weighted(0.7, json_value()),
        pretty in any::<bool>(),
    ) {
        let mut out = BytesMut::new();
        let text = params.as_ref().map(|p| text_of(p, pretty));
        encode::write_notification(&mut out, &method, text.as_deref());
        let line = assert_one_line(&out);
        let v: Value = serde_json::from_slice(line).expect("serde_json reads it");
        let mut want = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            want["params"] = p;
        }
        prop_assert_eq!(v, want);
    }

    /// `JsonWriter` puts the commas and colons where serde_json expects them.
    #[test]
    fn json_writer_writes_what_serde_json_reads(v in json_value()) {
        let mut out = BytesMut::new();
        write_value(&mut JsonWriter::new(&mut out), &v);
        prop_assert!(!out.contains(&b'\n'));
        let back: Value = serde_json::from_slice(&out).expect("serde_json reads it");
        prop_assert_eq!(back, v);
    }
}

#[test]
fn write_raw_leaves_out_white_space_outside_strings() {
    let mut out = BytesMut::new();
    encode::write_raw(&mut out, "[1,\r\n\t\"a\\nb c\"\n, { \"k\" : \" \" } ]");
    assert_eq!(&out[..], br#"[1,"a\nb c",{"k":" "}]"#);
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v, json!([1, "a\nb c", {"k": " "}]));
}

#[test]
fn write_raw_never_breaks_its_line_even_for_text_against_its_contract() {
    // A raw line break inside a string is invalid JSON: it becomes a space, and white space
    // outside strings around it is still left out. A string left open ends the text.
    for (text, want) in [
        ("{\"a b\" : \"c\nd\" }", "{\"a b\":\"c d\"}"),
        ("[ \"x\\\"\r\" , 2 ]", "[\"x\\\" \",2]"),
        ("[ \"open ", "[\"open "),
        (" \"a\\", "\"a\\"),
    ] {
        let mut out = BytesMut::from(&b"> "[..]);
        encode::write_raw(&mut out, text);
        assert_eq!(&out[..], format!("> {want}").as_bytes(), "{text:?}");
    }
}
