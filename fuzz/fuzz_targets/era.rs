//! `Envelope` (`from_meta`, `from_params`, `check`) and `Era::of_first_request`: the same
//! verdict and the same extracted values as a serde_json implementation of the rule of
//! `decisions.md` ("Era detection" and "Modern era", first two rows).
//!
//! Input: one mode byte, then text.
//! - mode 0: the text is a whole frame;
//! - mode 1, 2, 3: the text is the `_meta` of a request whose method is `tools/call`,
//!   `initialize` or `server/discover` (so the fuzzer works on `_meta` alone);
//! - mode 4: the text is the `params` of a `tools/list` request.
//!
//! Whatever the mode, text that is JSON is also read directly with `Envelope::from_meta` and
//! `Envelope::from_params`.

#![no_main]

use janus_codec::era::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY};
use janus_codec::{
    Envelope, EnvelopeError, EnvelopeFault, Era, INVALID_PARAMS, MessageKind, Parsed, Parser,
    ProtocolVersion, RawJson, UNSUPPORTED_PROTOCOL_VERSION,
};
use janus_fuzz::oracle::{self, envelope_of, envelope_values, era_of, parse_json, span_value};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// What `check` must say of an envelope, from its values (`decisions.md`, "Modern era"):
/// a missing or mistyped key is `-32602` naming it; a version string that is not a modern
/// revision is `-32022` with the version as sent; else the revision.
fn check_oracle(
    env: &[Option<Value>; 5],
) -> Result<ProtocolVersion, (Option<EnvelopeFault>, String)> {
    let [version, capabilities, client_info, _, _] = env;
    let fault = EnvelopeFault {
        missing_version: version.is_none(),
        missing_capabilities: capabilities.is_none(),
        version_not_string: version.as_ref().is_some_and(|v| !v.is_string()),
        capabilities_not_object: capabilities.as_ref().is_some_and(|c| !c.is_object()),
        client_info_not_object: client_info.as_ref().is_some_and(|c| !c.is_object()),
    };
    if fault.any() {
        return Err((Some(fault), String::new()));
    }
    let requested = version.as_ref().and_then(Value::as_str).unwrap_or_default();
    match requested {
        "2026-07-28" => Ok(ProtocolVersion::V2026_07_28),
        other => Err((None, other.to_owned())),
    }
}

/// Compares `env.check()` with the oracle's verdict on the same values.
fn assert_check(env: &Envelope<'_>, values: &[Option<Value>; 5]) {
    let got = env.check();
    let want = check_oracle(values);
    match (&got, &want) {
        (Ok(v), Ok(w)) => assert_eq!(v, w),
        (Err(EnvelopeError::Invalid(f)), Err((Some(w), _))) => {
            assert_eq!(f, w, "{env:?}");
            assert_eq!(got.as_ref().unwrap_err().rpc_code(), INVALID_PARAMS);
            // The message names the missing keys, and only those.
            let text = f.to_string();
            let missing: Vec<&str> = [
                (f.missing_version, PROTOCOL_VERSION_KEY),
                (f.missing_capabilities, CLIENT_CAPABILITIES_KEY),
            ]
            .into_iter()
            .filter_map(|(on, key)| on.then_some(key))
            .collect();
            match text.split_once("missing the required envelope key(s): ") {
                Some((_, rest)) => {
                    let named = rest.split(';').next().unwrap_or_default();
                    assert_eq!(named, missing.join(", "), "{text}");
                }
                None => assert!(missing.is_empty(), "{text}"),
            }
        }
        (Err(EnvelopeError::Unsupported { requested }), Err((None, w))) => {
            assert_eq!(requested, w, "{env:?}");
            assert_eq!(
                got.as_ref().unwrap_err().rpc_code(),
                UNSUPPORTED_PROTOCOL_VERSION
            );
        }
        _ => panic!("check of {env:?}: codec {got:?}, oracle {want:?}"),
    }
}

/// Reads `text` (valid JSON) directly as a `_meta` and as a `params`.
fn direct(text: &[u8], value: &Value) {
    let s = core::str::from_utf8(text).expect("JSON is UTF-8");
    let trimmed = s.trim_matches([' ', '\t', '\r', '\n']);
    let raw = RawJson::parse(s).expect("the codec validated this text");
    assert_eq!(raw.as_str(), trimmed);
    let env = Envelope::from_meta(raw);
    let values = envelope_of(Some(value));
    assert_eq!(envelope_values(text, env), values, "from_meta of {s:?}");
    assert_check(&env, &values);
    let env = Envelope::from_params(raw);
    let meta = value.as_object().and_then(|p| p.get("_meta"));
    assert_eq!(
        envelope_values(text, env),
        envelope_of(meta),
        "from_params of {s:?}"
    );
}

/// Compares the era and the envelope of every call in `frame` with the oracle.
fn frame(frame: &[u8]) {
    let parsed = Parser::new().parse(frame);
    let want = oracle::oracle(frame);
    let messages: Vec<_> = match parsed {
        Ok(Parsed::Single(m)) => vec![Ok(m)],
        Ok(Parsed::Batch(b)) => b.iter().collect(),
        Err(_) => return,
    };
    let views: Vec<_> = match want {
        oracle::Verdict::Single(v) => vec![v],
        oracle::Verdict::Batch(v) => v,
        oracle::Verdict::NotJson => panic!("the codec read a frame serde_json refuses"),
    };
    assert_eq!(messages.len(), views.len());
    for (m, view) in messages.iter().zip(views) {
        let (Ok(m), oracle::ItemView::Message(view)) = (m, view) else {
            continue;
        };
        if !matches!(m.kind(), MessageKind::Request | MessageKind::Notification) {
            continue;
        }
        let meta = m.meta().map(|v| span_value(frame, v));
        assert_eq!(meta, view.meta);
        let values = envelope_values(frame, m.envelope());
        assert_eq!(values, view.envelope, "envelope of {m:?}");
        assert_eq!(values, envelope_of(meta.as_ref()));
        let era = Era::of_first_request(m);
        assert_eq!(
            era,
            era_of(view.method.as_deref(), meta.as_ref()),
            "era of {m:?}"
        );
        assert_eq!(
            era == Era::Modern,
            m.method() != "initialize" && m.envelope().is_modern()
        );
        assert_check(&m.envelope(), &values);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, text)) = data.split_first() else {
        return;
    };
    let wrapped;
    let whole: &[u8] = match mode % 5 {
        0 => text,
        m @ 1..=3 => {
            let method = ["tools/call", "initialize", "server/discover"][usize::from(m - 1)];
            let mut f =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"_meta":"#)
                    .into_bytes();
            f.extend_from_slice(text);
            f.extend_from_slice(b"}}");
            wrapped = f;
            &wrapped
        }
        _ => {
            let mut f = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"#.to_vec();
            f.extend_from_slice(text);
            f.push(b'}');
            wrapped = f;
            &wrapped
        }
    };
    frame(whole);
    // `direct` reads the text with `RawJson::parse`, which validates as the parse does: a frame
    // the codec refuses as not JSON is the `message` target's business.
    let codec_json = Parser::new()
        .parse(text)
        .map_or_else(|r| !r.error.is_parse_error(), |_| true);
    if let Some(v) = parse_json(text).filter(|_| codec_json) {
        direct(text, &v);
    }
});
