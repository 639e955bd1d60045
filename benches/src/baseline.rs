//! The baselines: how code without Janus's codec reads the same frames.
//!
//! Each function takes one frame with its `\n`, finds the line, reads the message's kind and
//! the era its `_meta` gives, and returns `(is a request, is modern)`, or `None` when the frame
//! is not a message. That is the work `janus_codec::_benchable::classify` does, done another way.
//! A batch (a JSON array) is read element by element, and gives its first element's answer.
//! The `*_text` forms take the JSON text itself (an HTTP body, which may hold line breaks).

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The era signal key.
const PV: &str = "io.modelcontextprotocol/protocolVersion";

/// The line of a frame: up to its `\n`, without a trailing `\r` (memchr, as Janus frames).
#[must_use]
pub fn line(frame: &[u8]) -> &[u8] {
    let end = memchr::memchr(b'\n', frame).unwrap_or(frame.len());
    let l = &frame[..end];
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// A borrowed, typed JSON-RPC envelope with raw `params`, as a serde-based server reads it.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

/// The second pass: `params._meta` and its envelope keys.
#[derive(Deserialize)]
struct ParamsMeta<'a> {
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default, borrow)]
    _client_capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, borrow)]
    _client_info: Option<&'a RawValue>,
}

/// The text of an HTTP body carried as a frame: without its last `\n`.
#[must_use]
pub fn body(frame: &[u8]) -> &[u8] {
    frame.strip_suffix(b"\n").unwrap_or(frame)
}

/// True when the JSON text is an array (a batch).
fn is_batch(text: &[u8]) -> bool {
    text.iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|c| *c == b'[')
}

/// serde_json into a borrowed typed envelope with `&RawValue` params, then a second pass over
/// `params` for `_meta`.
#[must_use]
pub fn serde_envelope(frame: &[u8]) -> Option<(bool, bool)> {
    serde_envelope_text(line(frame))
}

/// [`serde_envelope`] of JSON text; a batch as serde-based servers read one (the array of raw
/// values first, then each element).
#[must_use]
pub fn serde_envelope_text(text: &[u8]) -> Option<(bool, bool)> {
    if is_batch(text) {
        let items: Vec<&RawValue> = serde_json::from_slice(text).ok()?;
        let mut first = None;
        for it in items {
            let r = serde_envelope_one(it.get().as_bytes())?;
            first.get_or_insert(r);
        }
        return first;
    }
    serde_envelope_one(text)
}

fn serde_envelope_one(text: &[u8]) -> Option<(bool, bool)> {
    let env: Envelope<'_> = serde_json::from_slice(text).ok()?;
    if env.jsonrpc != "2.0" {
        return None;
    }
    let request = env.method.is_some() && env.id.is_some();
    let _ = (env.result, env.error);
    let modern = match env.params {
        Some(p) if env.method.as_deref() != Some("initialize") => {
            serde_json::from_str::<ParamsMeta<'_>>(p.get())
                .ok()
                .and_then(|p| p.meta)
                .is_some_and(|m| m.protocol_version.is_some())
        }
        _ => false,
    };
    Some((request, modern))
}

/// serde_json into a `Value`, then lookups.
#[must_use]
pub fn serde_value(frame: &[u8]) -> Option<(bool, bool)> {
    serde_value_text(line(frame))
}

/// [`serde_value`] of JSON text.
#[must_use]
pub fn serde_value_text(text: &[u8]) -> Option<(bool, bool)> {
    let v: serde_json::Value = serde_json::from_slice(text).ok()?;
    match v.as_array() {
        Some(items) => first_of(items.iter().map(value_kind)),
        None => value_kind(&v),
    }
}

/// The first answer of a batch's elements, or `None` when one is no message (or none is there).
pub(crate) fn first_of(mut it: impl Iterator<Item = Option<(bool, bool)>>) -> Option<(bool, bool)> {
    let first = it.next()??;
    it.all(|r| r.is_some()).then_some(first)
}

fn value_kind(v: &serde_json::Value) -> Option<(bool, bool)> {
    let obj = v.as_object()?;
    if obj.get("jsonrpc")?.as_str()? != "2.0" {
        return None;
    }
    let method = obj.get("method").and_then(|m| m.as_str());
    let request = method.is_some() && obj.contains_key("id");
    let modern = method != Some("initialize")
        && v.pointer("/params/_meta")
            .and_then(|m| m.as_object())
            .is_some_and(|m| m.contains_key(PV));
    Some((request, modern))
}

/// Buffers that readers keep from one round to the next, as a long-lived reader keeps its
/// buffers: the simd-json baseline's copy (it parses a mutable copy in place) and its parse
/// buffers, and Janus's input buffer.
#[derive(Default)]
pub struct Scratch {
    copy: Vec<u8>,
    buffers: simd_json::Buffers,
    /// Janus's input buffer, filled with the stream before each round.
    pub input: bytes::BytesMut,
}

/// simd-json into a borrowed value (the frame copied into a reused buffer first, since simd-json
/// parses in place), then lookups.
#[must_use]
pub fn simd_borrowed(frame: &[u8], scratch: &mut Scratch) -> Option<(bool, bool)> {
    simd_borrowed_text(line(frame), scratch)
}

/// [`simd_borrowed`] of JSON text.
#[must_use]
pub fn simd_borrowed_text(text: &[u8], scratch: &mut Scratch) -> Option<(bool, bool)> {
    use simd_json::prelude::*;
    scratch.copy.clear();
    scratch.copy.extend_from_slice(text);
    let v =
        simd_json::to_borrowed_value_with_buffers(&mut scratch.copy, &mut scratch.buffers).ok()?;
    match v.as_array() {
        Some(items) => first_of(items.iter().map(simd_kind)),
        None => simd_kind(&v),
    }
}

fn simd_kind(v: &simd_json::BorrowedValue<'_>) -> Option<(bool, bool)> {
    use simd_json::prelude::*;
    if v.get_str("jsonrpc")? != "2.0" {
        return None;
    }
    let method = v.get_str("method");
    let request = method.is_some() && v.contains_key("id");
    let modern = method != Some("initialize")
        && v.get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.as_object())
            .is_some_and(|m| m.contains_key(PV));
    Some((request, modern))
}

/// sonic-rs into a `Value`, then lookups: the fastest DOM reader there is on this machine.
#[must_use]
pub fn sonic_value(frame: &[u8]) -> Option<(bool, bool)> {
    sonic_value_text(line(frame))
}

/// [`sonic_value`] of JSON text.
#[must_use]
pub fn sonic_value_text(text: &[u8]) -> Option<(bool, bool)> {
    use sonic_rs::JsonContainerTrait;
    let v: sonic_rs::Value = sonic_rs::from_slice(text).ok()?;
    match v.as_array() {
        Some(items) => first_of(items.iter().map(sonic_kind)),
        None => sonic_kind(&v),
    }
}

fn sonic_kind(v: &sonic_rs::Value) -> Option<(bool, bool)> {
    use sonic_rs::{JsonContainerTrait, JsonValueTrait};
    if v.get("jsonrpc")?.as_str()? != "2.0" {
        return None;
    }
    let method = v.get("method").and_then(|m| m.as_str());
    let request = method.is_some() && v.get("id").is_some();
    let modern = method != Some("initialize")
        && v.pointer(&["params", "_meta"])
            .and_then(|m| m.as_object())
            .is_some_and(|m| m.get(&PV).is_some());
    Some((request, modern))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus;

    fn janus(text: &[u8]) -> Option<(bool, bool)> {
        let kind = |msg: &janus_codec::Message<'_>| {
            (
                msg.kind() == janus_codec::MessageKind::Request,
                janus_codec::Era::of_first_request(msg) == janus_codec::Era::Modern,
            )
        };
        match janus_codec::Parser::new().parse(text).ok()? {
            janus_codec::Parsed::Single(m) => Some(kind(&m)),
            janus_codec::Parsed::Batch(b) => first_of(b.iter().map(|m| m.ok().map(|m| kind(&m)))),
        }
    }

    /// Runs `f` on a thread with a large stack: the DOM readers recurse once per level, and
    /// an unoptimised build's frames are large (sonic-rs overflows the test thread's 2 MiB
    /// on the schema nested 40 deep).
    pub(crate) fn on_a_large_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(f)
            .expect("a thread")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
    }

    #[test]
    fn baselines_agree_with_janus_on_the_corpus() {
        on_a_large_stack(baselines_agree);
    }

    fn baselines_agree() {
        let mut scratch = Scratch::default();
        for item in corpus::everything() {
            let text = if item.body {
                body(&item.frame)
            } else {
                line(&item.frame)
            };
            let j = janus(text);
            assert!(j.is_some(), "{}", item.name);
            if !item.body {
                let single = janus_codec::_benchable::classify(text).ok();
                assert!(single.is_some() || text.starts_with(b"["), "{}", item.name);
            }
            assert_eq!(serde_envelope_text(text), j, "{}", item.name);
            assert_eq!(serde_value_text(text), j, "{}", item.name);
            assert_eq!(simd_borrowed_text(text, &mut scratch), j, "{}", item.name);
            assert_eq!(sonic_value_text(text), j, "{}", item.name);
        }
        // A batch with an element that is no message is no batch of messages.
        let bad =
            br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"1.0","id":2,"method":"b"}]"#;
        assert_eq!(serde_envelope_text(bad), None);
        assert_eq!(serde_value_text(bad), None);
        assert_eq!(simd_borrowed_text(bad, &mut scratch), None);
        assert_eq!(sonic_value_text(bad), None);
        assert_eq!(janus(bad), None);
    }
}
