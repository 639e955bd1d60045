//! `requestState`: what a modern input round keeps between the client's attempts, sealed with
//! HMAC-SHA256 (`decisions.md`, "Server surface").
//!
//! The token is `base64url(payload) "." base64url(mac)`. The payload is JSON:
//! `{"d": identity, "e": expiry (ms since the epoch), "k": {keys asked: 1}, "r": {answers of
//! earlier rounds}, "s": the handler's state}`. The identity is a SHA-256 over the method,
//! the name (tool, prompt or URI), the arguments without insignificant whitespace, and the
//! caller; a token shown on another request, by another caller, or after its expiry is
//! refused, and so is one whose MAC does not verify.

use crate::api::ctx::Principal;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::BytesMut;
use hmac::{Hmac, KeyInit, Mac};
use janus_codec::RawJson;
use janus_codec::encode::JsonWriter;
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// The most a token may be, decoded (a client's answers travel in it).
const MAX_TOKEN: usize = 1 << 20;

/// What one round keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sealed {
    pub(crate) identity: [u8; 32],
    pub(crate) expires_ms: u64,
    /// The keys this round asked.
    pub(crate) keys: Vec<String>,
    /// The answers of the earlier rounds: key and response object (JSON text).
    pub(crate) responses: Vec<(String, String)>,
    pub(crate) state: Option<String>,
}

/// Why a token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not a token of this server, or changed.
    Tampered,
    /// For another request or caller.
    Foreign,
    Expired,
}

impl Refused {
    pub(crate) const fn message(self) -> &'static str {
        match self {
            Self::Tampered => "Invalid params: requestState failed its integrity check",
            Self::Foreign => "Invalid params: requestState belongs to another request",
            Self::Expired => "Invalid params: requestState has expired",
        }
    }
}

/// The identity of a request: method, name, arguments (whitespace outside strings left out,
/// so a client that re-encodes them compactly still matches) and caller.
pub(crate) fn identity(
    method: &str,
    name: &str,
    args: Option<&str>,
    principal: Option<&Principal>,
) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in [method, name] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    if let Some(a) = args {
        hash_compact(&mut h, a.as_bytes());
    }
    h.update([0]);
    if let Some(p) = principal {
        for part in [p.subject.as_deref(), p.client_id.as_deref()] {
            h.update(part.unwrap_or("").as_bytes());
            h.update([0]);
        }
    }
    h.finalize().into()
}

/// Feeds `json` to `h` without the whitespace between its tokens.
fn hash_compact(h: &mut Sha256, json: &[u8]) {
    let mut in_string = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, &b) in json.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            h.update(&json[start..i]);
            start = i + 1;
        }
    }
    h.update(&json[start..]);
}

fn mac(key: &[u8]) -> HmacSha256 {
    <HmacSha256 as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"))
}

/// The token of `s`, under `key`.
pub(crate) fn seal(key: &[u8], s: &Sealed) -> String {
    let mut p = BytesMut::new();
    let mut w = JsonWriter::new(&mut p);
    w.begin_object()
        .key("d")
        .str(&URL_SAFE_NO_PAD.encode(s.identity));
    w.key("e").raw(itoa::Buffer::new().format(s.expires_ms));
    // NB. The keys asked are an object's member names (the codec reads objects by member).
    w.key("k").begin_object();
    for k in &s.keys {
        w.key(k).raw("1");
    }
    w.end_object().key("r").begin_object();
    for (k, v) in &s.responses {
        w.key(k).raw(v);
    }
    w.end_object();
    if let Some(st) = &s.state {
        w.key("s").str(st);
    }
    w.end_object();
    let mut m = mac(key);
    m.update(&p);
    let tag = m.finalize().into_bytes();
    let mut token = URL_SAFE_NO_PAD.encode(&p);
    token.push('.');
    token.push_str(&URL_SAFE_NO_PAD.encode(tag));
    token
}

/// Opens `token` under `key` and checks it against the request's `identity` at `now_ms`.
pub(crate) fn open(
    key: &[u8],
    token: &str,
    identity: &[u8; 32],
    now_ms: u64,
) -> Result<Sealed, Refused> {
    if token.len() > MAX_TOKEN {
        return Err(Refused::Tampered);
    }
    let (payload, tag) = token.rsplit_once('.').ok_or(Refused::Tampered)?;
    let payload = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| Refused::Tampered)?;
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Refused::Tampered)?;
    let mut m = mac(key);
    m.update(&payload);
    m.verify_slice(&tag).map_err(|_| Refused::Tampered)?;
    // The MAC holds: the payload is ours, so what follows fails only on a bug.
    let text = std::str::from_utf8(&payload).map_err(|_| Refused::Tampered)?;
    let raw = RawJson::parse(text).map_err(|_| Refused::Tampered)?;
    let d = raw
        .get("d")
        .and_then(RawJson::as_string)
        .and_then(|d| URL_SAFE_NO_PAD.decode(d.as_bytes()).ok())
        .ok_or(Refused::Tampered)?;
    if d.as_slice() != identity {
        return Err(Refused::Foreign);
    }
    let expires_ms = raw
        .get("e")
        .and_then(|e| e.as_str().parse::<u64>().ok())
        .ok_or(Refused::Tampered)?;
    if now_ms > expires_ms {
        return Err(Refused::Expired);
    }
    let keys = raw
        .get("k")
        .map(|k| {
            k.members()
                .into_iter()
                .map(|(k, _)| k.into_owned())
                .collect()
        })
        .ok_or(Refused::Tampered)?;
    let responses = raw
        .get("r")
        .map(|r| {
            r.members()
                .into_iter()
                .map(|(k, v)| (k.into_owned(), v.as_str().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let state = raw
        .get("s")
        .and_then(RawJson::as_string)
        .map(std::borrow::Cow::into_owned);
    Ok(Sealed {
        identity: *identity,
        expires_ms,
        keys,
        responses,
        state,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed() -> Sealed {
        Sealed {
            identity: identity("tools/call", "t", Some(r#"{"a": 1}"#), None),
            expires_ms: 1_000,
            keys: vec!["user_name".into(), "q\"uote".into()],
            responses: vec![("earlier".into(), r#"{"action":"accept"}"#.into())],
            state: Some("state-ok".into()),
        }
    }

    #[test]
    fn a_sealed_round_opens_as_it_was() {
        let s = sealed();
        let t = seal(b"key", &s);
        assert_eq!(open(b"key", &t, &s.identity, 999), Ok(s));
    }

    #[test]
    fn every_change_to_a_token_is_refused() {
        let s = sealed();
        let t = seal(b"key", &s);
        assert_eq!(open(b"other", &t, &s.identity, 0), Err(Refused::Tampered));
        assert_eq!(
            open(b"key", &format!("{t}-TAMPERED"), &s.identity, 0),
            Err(Refused::Tampered)
        );
        for i in 0..t.len() {
            let mut b = t.clone().into_bytes();
            b[i] = if b[i] == b'A' { b'B' } else { b'A' };
            let Ok(changed) = String::from_utf8(b) else {
                continue;
            };
            if changed != t {
                assert!(open(b"key", &changed, &s.identity, 0).is_err(), "byte {i}");
            }
        }
    }

    #[test]
    fn a_token_is_bound_to_its_request_and_its_time() {
        let s = sealed();
        let t = seal(b"key", &s);
        let other = identity("tools/call", "t", Some(r#"{"a":2}"#), None);
        assert_eq!(open(b"key", &t, &other, 0), Err(Refused::Foreign));
        assert_eq!(open(b"key", &t, &s.identity, 1_001), Err(Refused::Expired));
    }

    #[test]
    fn the_identity_ignores_whitespace_but_not_content_or_caller() {
        let a = identity("m", "n", Some("{\"a\": [1, 2],\n \"b\": \"x y\"}"), None);
        assert_eq!(
            a,
            identity("m", "n", Some(r#"{"a":[1,2],"b":"x y"}"#), None)
        );
        assert_ne!(a, identity("m", "n", Some(r#"{"a":[1,2],"b":"xy"}"#), None));
        let p = Principal::new(Some("alice".into()), None, vec![]);
        assert_ne!(
            a,
            identity("m", "n", Some(r#"{"a":[1,2],"b":"x y"}"#), Some(&p))
        );
    }
}
