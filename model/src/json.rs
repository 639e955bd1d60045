//! JSON given by a server author: [`Json`], text checked once when it is made, and
//! [`RpcError`], a JSON-RPC error a handler answers with.
//!
//! Every piece of JSON text that goes on the wire from outside the codec (schemas,
//! annotations, `structuredContent`, error `data`) is a [`Json`], so it is checked where it is
//! given, with a clear error, and never later on the wire.

use core::fmt;

/// One JSON value as text, checked when it was made.
///
/// INVARIANT: the text is exactly one valid JSON value.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Json(String);

/// Why text is not one JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidJson {
    /// The start of the text, for the message.
    excerpt: String,
}

impl fmt::Display for InvalidJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not one JSON value: {}", self.excerpt)
    }
}

impl std::error::Error for InvalidJson {}

impl Json {
    /// Checks `text` and keeps it.
    ///
    /// # Errors
    ///
    /// [`InvalidJson`] when `text` is not exactly one JSON value.
    pub fn parse(text: impl Into<String>) -> Result<Self, InvalidJson> {
        let text = text.into();
        if janus_codec::dom::to_owned_value(&text).is_ok() {
            Ok(Self(text))
        } else {
            let excerpt: String = text.chars().take(60).collect();
            Err(InvalidJson { excerpt })
        }
    }

    /// A JSON string holding `s`.
    #[must_use]
    pub fn string(s: &str) -> Self {
        let mut out = bytes::BytesMut::new();
        janus_codec::encode::write_str(&mut out, s);
        Self(String::from_utf8_lossy(&out).into_owned())
    }

    /// A value read from a checked frame, as sent.
    #[must_use]
    pub fn from_raw(raw: janus_codec::RawJson<'_>) -> Self {
        Self(raw.as_str().to_owned())
    }

    /// The text of a value that the caller built with the codec's writer, which only writes
    /// valid JSON (for the Janus crates: the caller keeps the invariant).
    #[doc(hidden)]
    #[must_use]
    pub fn from_written(out: &[u8]) -> Self {
        Self(String::from_utf8_lossy(out).into_owned())
    }

    /// The JSON text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when the value is a JSON object.
    #[must_use]
    pub fn is_object(&self) -> bool {
        self.0.trim_start().starts_with('{')
    }

    /// The value serialised with serde (feature `serde`).
    ///
    /// # Errors
    ///
    /// The serialiser's error, for a value that has no JSON form (a map with non-string keys).
    #[cfg(feature = "serde")]
    pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_string(value).map(Self)
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<&str> for Json {
    type Error = InvalidJson;

    fn try_from(text: &str) -> Result<Self, InvalidJson> {
        Self::parse(text)
    }
}

impl TryFrom<String> for Json {
    type Error = InvalidJson;

    fn try_from(text: String) -> Result<Self, InvalidJson> {
        Self::parse(text)
    }
}

/// The members of a JSON object's text without its braces; `None` for an empty object or
/// text that is no object.
#[must_use]
pub fn object_members(json: &str) -> Option<&str> {
    let inner = json.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    (!inner.is_empty()).then_some(inner)
}

/// Object `obj` without the members whose key `drop` names, its other members as sent;
/// `None` when none is left.
#[must_use]
pub fn object_without(obj: janus_codec::RawJson<'_>, drop: impl Fn(&str) -> bool) -> Option<Json> {
    let mut out = bytes::BytesMut::new();
    for (k, v) in obj.members().into_iter().filter(|(k, _)| !drop(k)) {
        out.extend_from_slice(if out.is_empty() { b"{" } else { b"," });
        janus_codec::encode::write_str(&mut out, &k);
        out.extend_from_slice(b":");
        out.extend_from_slice(v.as_str().as_bytes());
    }
    if out.is_empty() {
        return None;
    }
    out.extend_from_slice(b"}");
    Some(Json::from_written(&out))
}

/// A JSON-RPC error, as a handler answers a request with it instead of a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The JSON-RPC code.
    pub code: i32,
    /// A short description, for people.
    pub message: String,
    /// More about it.
    pub data: Option<Json>,
}

impl RpcError {
    /// An error with `code` and `message`.
    #[must_use]
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602`: the request's parameters (a tool's arguments, say) are not acceptable.
    #[must_use]
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(janus_codec::INVALID_PARAMS, message)
    }

    /// `-32603` with the plain message `Internal error`, nothing of the cause.
    #[must_use]
    pub fn internal() -> Self {
        Self::new(janus_codec::INTERNAL_ERROR, "Internal error")
    }

    /// Adds `data`.
    #[must_use]
    pub fn with_data(mut self, data: Json) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// A finite number as JSON: integers without a fraction.
pub fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// The text a JSON string member holds (escapes decoded), owned; `None` for anything else.
pub(crate) fn owned_string(v: Option<janus_codec::RawJson<'_>>) -> Option<String> {
    v.and_then(janus_codec::RawJson::as_string)
        .map(std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_checked_when_it_is_made() {
        assert!(Json::parse(r#"{"a":[1,2,{"b":null}]}"#).is_ok());
        assert!(Json::parse("7").is_ok());
        for bad in ["", "{", r#"{"a":}"#, "[1,]", "{} {}", "nul"] {
            let e = Json::parse(bad).unwrap_err();
            assert!(e.to_string().starts_with("not one JSON value"), "{bad}");
        }
        assert_eq!(Json::string("a\"b\n").as_str(), r#""a\"b\n""#);
        assert!(Json::parse(" {}").unwrap().is_object());
    }
}
