//! The baselines: how code without Janus's codec reads the same frames.
//!
//! Each function takes one frame with its `\n`, finds the line, reads the message's kind and
//! the era its `_meta` gives, and returns `(is a request, is modern)`, or `None` when the frame
//! is not a message. That is the work `janus_codec::_benchable::classify` does, done another way.

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

/// serde_json into a borrowed typed envelope with `&RawValue` params, then a second pass over
/// `params` for `_meta`.
#[must_use]
pub fn serde_envelope(frame: &[u8]) -> Option<(bool, bool)> {
    let env: Envelope<'_> = serde_json::from_slice(line(frame)).ok()?;
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
    let v: serde_json::Value = serde_json::from_slice(line(frame)).ok()?;
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

/// Reusable buffers for the simd-json baseline (it parses a mutable copy in place).
#[derive(Default)]
pub struct SimdScratch {
    copy: Vec<u8>,
    buffers: simd_json::Buffers,
}

/// simd-json into a borrowed value (the frame copied into a reused buffer first, since simd-json
/// parses in place), then lookups.
#[must_use]
pub fn simd_borrowed(frame: &[u8], scratch: &mut SimdScratch) -> Option<(bool, bool)> {
    use simd_json::prelude::*;
    scratch.copy.clear();
    scratch.copy.extend_from_slice(line(frame));
    let v =
        simd_json::to_borrowed_value_with_buffers(&mut scratch.copy, &mut scratch.buffers).ok()?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus;

    #[test]
    fn baselines_agree_with_janus_on_the_corpus() {
        let mut scratch = SimdScratch::default();
        for item in corpus::all() {
            let janus = janus_codec::_benchable::classify(line(&item.frame))
                .ok()
                .map(|(k, e)| {
                    (
                        k == janus_codec::MessageKind::Request,
                        e == janus_codec::Era::Modern,
                    )
                });
            assert!(janus.is_some(), "{}", item.name);
            assert_eq!(serde_envelope(&item.frame), janus, "{}", item.name);
            assert_eq!(serde_value(&item.frame), janus, "{}", item.name);
            assert_eq!(
                simd_borrowed(&item.frame, &mut scratch),
                janus,
                "{}",
                item.name
            );
        }
    }
}
