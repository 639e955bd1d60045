//! No input to a safe public function panics: every entry point and accessor of the crate,
//! fed arbitrary bytes and text, and text built from JSON's tokens (so that most of it gets
//! past the first byte of the scan).

use super::proptest_config;
use crate::encode::{self, JsonWriter};
use crate::{
    Envelope, Era, FrameCodec, FrameRef, Id, IdBuf, Parsed, Parser, ProtocolVersion, RawJson, dom,
};
use bytes::BytesMut;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// Pieces of JSON-RPC text, and the bytes around its faults.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    "\\u",
    "\\ud83d",
    "\\ude00",
    "\\n",
    ":",
    ",",
    " ",
    "\n",
    "\r",
    "\t",
    "0",
    "1",
    "-",
    "e",
    ".",
    "9e999",
    "true",
    "null",
    "f",
    "\u{0}",
    "\u{e9}",
    "\"jsonrpc\"",
    "\"2.0\"",
    "\"id\"",
    "\"method\"",
    "\"params\"",
    "\"result\"",
    "\"error\"",
    "\"_meta\"",
    "\"io.modelcontextprotocol/protocolVersion\"",
    "\"io.modelcontextprotocol/clientCapabilities\"",
    "\"2026-07-28\"",
    "\"initialize\"",
    "\"name\"",
    "\"x\"",
    "{\"jsonrpc\":\"2.0\",",
    "\"params\":{\"_meta\":{",
];

/// Text of JSON tokens, in any order.
fn tokens() -> impl Strategy<Value = String> {
    vec(select(TOKENS), 0..48).prop_map(|t| t.concat())
}

/// Any text, or text of JSON tokens.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), tokens()]
}

/// Any bytes, or text of JSON tokens.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        vec(any::<u8>(), 0..200),
        tokens().prop_map(String::into_bytes)
    ]
}

/// Calls every accessor of a raw value.
fn read_raw(v: RawJson<'_>, key: &str) {
    let _ = (
        v.as_str(),
        v.as_bytes(),
        v.is_object(),
        v.is_string(),
        v.is_null(),
    );
    let _ = (
        v.as_string(),
        v.get(key),
        v.get_many([key, "_meta", "id"]),
        format!("{v:?}"),
    );
    if let Some(id) = Id::from_json(v) {
        read_id(id);
    }
    let env = Envelope::from_meta(v);
    let _ = (
        env.check().map_err(|e| e.rpc_code()),
        Envelope::from_params(v).check(),
    );
    if let Err(crate::EnvelopeError::Invalid(fault)) = env.check() {
        let _ = fault.to_string();
    }
    let _ = dom::to_owned_value(v.as_str());
}

fn read_id(id: Id<'_>) {
    let _ = (id.as_raw(), id.is_string(), id.as_i64(), id.as_string());
    let _ = (id.to_string(), format!("{id:?}"), id.to_owned().as_id());
}

/// Calls every accessor of a parse's outcome.
fn read_parsed(parsed: Result<Parsed<'_>, crate::Rejection<'_>>, key: &str) {
    let msg = match parsed {
        Ok(Parsed::Single(m)) => m,
        Ok(Parsed::Batch(b)) => {
            let _ = b.as_str();
            for item in b.iter() {
                read_parsed(item.map(Parsed::Single), key);
            }
            return;
        }
        Err(r) => {
            let _ = (r.error.rpc_code(), r.error.to_string(), r.id.map(read_id));
            return;
        }
    };
    let _ = (
        msg.kind(),
        msg.method(),
        msg.is_request(),
        Era::of_first_request(&msg),
    );
    let _ = (msg.envelope().check(), msg.param(key), format!("{msg:?}"));
    msg.id().map(read_id);
    for v in [msg.params(), msg.meta(), msg.result(), msg.error()]
        .into_iter()
        .flatten()
    {
        read_raw(v, key);
    }
}

proptest! {
    #![proptest_config(proptest_config(512))]

    #[test]
    fn raw_values_and_ids_never_panic(json in text(), key in text()) {
        if let Ok(v) = RawJson::parse(&json) {
            read_raw(v, &key);
        }
        let _ = ProtocolVersion::from_wire(&json);
        read_id(IdBuf::from_string(&json).as_id());
    }

    #[test]
    fn parsing_never_panics(frame in bytes(), depth in select(&[0, 1, 2, 3, 128, usize::MAX][..]), key in text()) {
        let mut parser = Parser::new();
        parser.max_depth(depth);
        read_parsed(parser.parse(&frame), &key);
        let _ = parser.parse_single(&frame).map(|m| m.kind());
        let _ = crate::_benchable::classify(&frame);
        let _ = dom::parse_in_place(&mut frame.clone());
    }

    #[test]
    fn framing_never_panics(
        stream in bytes(),
        limit in select(&[0, 1, 2, 5, 64, usize::MAX][..]),
        chunk in 1..16usize,
    ) {
        let mut codec = FrameCodec::new();
        codec.max_frame_len(limit);
        let _ = codec.get_max_frame_len();
        let parser = Parser::new();
        let mut buf = BytesMut::new();
        for (i, piece) in stream.chunks(chunk).enumerate() {
            buf.extend_from_slice(piece);
            match i % 3 {
                0 => while codec.decode_frame(&mut buf).is_some() {},
                1 => while codec.decode_with(&mut buf, |f| matches!(f, FrameRef::Line(_))).is_some() {},
                _ => while codec.decode_message(&mut buf, &parser, |_, m| read_parsed(m, "name")).is_some() {},
            }
        }
        while codec.decode_message_eof(&mut buf, &parser, |_, m| read_parsed(m, "name")).is_some() {}
        while codec.decode_frame_eof(&mut buf).is_some() {}
        while codec.decode_with_eof(&mut buf, |_| ()).is_some() {}
    }

    #[test]
    fn encoding_never_panics(a in text(), b in text(), n in any::<i64>(), ops in vec(0..12u8, 0..40)) {
        let id = IdBuf::from_i64(n);
        let mut out = BytesMut::new();
        encode::write_str(&mut out, &a);
        encode::write_raw(&mut out, &a);
        encode::write_i64(&mut out, n);
        encode::write_result(&mut out, id.as_id(), &a);
        encode::write_error(&mut out, Some(id.as_id()), -1, &a, Some(&b));
        encode::write_error(&mut out, None, 0, &b, None);
        encode::write_notification(&mut out, &a, Some(&b));
        encode::begin_notification(&mut out, &b);
        encode::begin_result(&mut out, id.as_id());
        encode::end_message(&mut out);
        // Any sequence of writer calls, balanced or not.
        let mut w = JsonWriter::new(&mut out);
        for op in ops {
            match op {
                0 => { w.begin_object(); }
                1 => { w.end_object(); }
                2 => { w.begin_array(); }
                3 => { w.end_array(); }
                4 => { w.key(&a); }
                5 => { w.str(&b); }
                6 => { w.raw(&a); }
                7 => { w.int(n); }
                8 => { w.bool(n % 2 == 0); }
                9 => { w.null(); }
                10 => { w.buffer().extend_from_slice(b.as_bytes()); }
                _ => { w.raw(&b); }
            }
        }
    }
}
