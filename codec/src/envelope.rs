//! The modern `_meta` envelope, read from bytes (public as `janus_codec::era`).
//!
//! A modern (2026-07-28) request carries its protocol version and client capabilities in
//! `params._meta`.
//! [`Envelope`] reads those keys from the text of `_meta` alone, skipping every other value
//! without decoding it.
//! The parse of a message reads them on its way through `_meta` (with [`fast_key`] and
//! [`key_index`]), so this sits under the message; `era.rs`, above it, decides the era.

use crate::raw::{RawJson, for_each_member, raw_eq};
use crate::scan::{Scanner, Span};
use crate::version::ProtocolVersion;
use core::fmt;
use std::borrow::Cow;

/// `_meta` key of the protocol version a modern request speaks.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the capabilities a modern client declares for this request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's `Implementation` (optional).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of a request's log level (optional, deprecated with Logging).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key under which a result names the server.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key of a progress token (both eras).
pub const PROGRESS_TOKEN_KEY: &str = "progressToken";

/// The envelope keys found in one request's `params._meta`, as raw JSON spans.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Envelope<'buf> {
    /// `io.modelcontextprotocol/protocolVersion`, of any type.
    pub protocol_version: Option<RawJson<'buf>>,
    /// `io.modelcontextprotocol/clientCapabilities`, of any type.
    pub client_capabilities: Option<RawJson<'buf>>,
    /// `io.modelcontextprotocol/clientInfo`, of any type.
    pub client_info: Option<RawJson<'buf>>,
    /// `io.modelcontextprotocol/logLevel`, of any type.
    pub log_level: Option<RawJson<'buf>>,
    /// `progressToken`, of any type.
    pub progress_token: Option<RawJson<'buf>>,
}

/// The envelope's keys, in the order of [`Envelope`]'s fields.
const KEYS: [&str; 5] = [
    PROTOCOL_VERSION_KEY,
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROGRESS_TOKEN_KEY,
];

/// An envelope while its `_meta` is being scanned: each key's value as bytes of the frame, in
/// the order of [`KEYS`]. The parse makes an [`Envelope`] of it once the frame is known to be
/// UTF-8 ([`Envelope::from_spans`]).
pub(crate) type EnvelopeSpans<'buf> = [Option<Span<'buf>>; 5];

/// The prefix of every envelope key but `progressToken`, from its opening quote.
const PREFIX: &[u8] = b"\"io.modelcontextprotocol/";

/// The rest of each prefixed key, with its closing quote and colon, in the order of [`KEYS`].
/// The prefix and the rest are compared apart: whole, the longest key is past the length up to
/// which a compare against a constant is a few word compares, and it became a `memcmp` call.
const AFTER_PREFIX: [&[u8]; 4] = [
    b"protocolVersion\":",
    b"clientCapabilities\":",
    b"clientInfo\":",
    b"logLevel\":",
];

/// Which envelope key the raw key `k` is (its index in [`KEYS`]), if any.
#[inline]
pub(crate) fn key_index(k: &[u8], escaped: bool) -> Option<usize> {
    KEYS.iter().position(|key| raw_eq(k, escaped, key))
}

/// Takes a compact envelope key with its colon (`"progressToken":` and the like) at the
/// cursor without scanning it as a string: the key's index in [`KEYS`].
#[inline(always)]
pub(crate) fn fast_key(sc: &mut Scanner<'_>) -> Option<usize> {
    #[inline(always)]
    fn taken(sc: &mut Scanner<'_>, i: usize) -> Option<usize> {
        sc.take_pair(PREFIX, AFTER_PREFIX[i]).then_some(i)
    }
    let rest = sc.rest();
    if rest.starts_with(PREFIX) {
        return match *rest.get(PREFIX.len())? {
            b'p' => taken(sc, 0),
            b'c' if rest.get(PREFIX.len() + 6) == Some(&b'C') => taken(sc, 1),
            b'c' => taken(sc, 2),
            b'l' => taken(sc, 3),
            _ => None,
        };
    }
    sc.take(b"\"progressToken\":").then_some(4)
}

impl<'buf> Envelope<'buf> {
    /// Reads the envelope from the text of `_meta`. A `_meta` that is not an object holds no
    /// envelope. Each key's last occurrence wins.
    #[must_use]
    pub fn from_meta(meta: RawJson<'buf>) -> Self {
        let mut env = Self::default();
        for_each_member(meta, |k, escaped, v| {
            if let Some(i) = key_index(k.as_bytes(), escaped) {
                *env.field(i) = Some(v);
            }
        });
        env
    }

    /// The envelope of scanned spans, each made a [`RawJson`] by `json` (the spans are of a
    /// frame that is now known to be UTF-8).
    #[inline(always)]
    pub(crate) fn from_spans(
        spans: &EnvelopeSpans<'buf>,
        json: impl Fn(Span<'buf>) -> RawJson<'buf>,
    ) -> Self {
        let [
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
        ] = *spans;
        Self {
            protocol_version: protocol_version.map(&json),
            client_capabilities: client_capabilities.map(&json),
            client_info: client_info.map(&json),
            log_level: log_level.map(&json),
            progress_token: progress_token.map(&json),
        }
    }

    /// The field of the key `KEYS[i]`.
    #[inline(always)]
    fn field(&mut self, i: usize) -> &mut Option<RawJson<'buf>> {
        match i {
            0 => &mut self.protocol_version,
            1 => &mut self.client_capabilities,
            2 => &mut self.client_info,
            3 => &mut self.log_level,
            _ => &mut self.progress_token,
        }
    }

    /// Reads the envelope from the text of `params`: finds `_meta` among its members first.
    #[must_use]
    pub fn from_params(params: RawJson<'buf>) -> Self {
        params.get("_meta").map(Self::from_meta).unwrap_or_default()
    }

    /// True when the envelope's signal key, `io.modelcontextprotocol/protocolVersion`, is there.
    #[must_use]
    pub const fn is_modern(&self) -> bool {
        self.protocol_version.is_some()
    }

    /// Checks the envelope of a request on a modern connection.
    ///
    /// # Errors
    ///
    /// [`EnvelopeError::Invalid`] (`-32602`) when a required key is missing or a key has the
    /// wrong type; [`EnvelopeError::Unsupported`] (`-32022`) when the version is a string that
    /// is not a modern revision.
    pub fn check(&self) -> Result<ProtocolVersion, EnvelopeError<'buf>> {
        let mut fault = EnvelopeFault::default();
        let version = match self.protocol_version {
            None => {
                fault.missing_version = true;
                None
            }
            Some(v) => {
                let s = v.as_string();
                fault.version_not_string = s.is_none();
                s
            }
        };
        match self.client_capabilities {
            None => fault.missing_capabilities = true,
            Some(c) => fault.capabilities_not_object = !c.is_object(),
        }
        fault.client_info_not_object = self.client_info.is_some_and(|c| !c.is_object());
        if fault.any() {
            return Err(EnvelopeError::Invalid(fault));
        }
        // Both are present here: the fault checks above passed.
        let requested = version.unwrap_or_default();
        match ProtocolVersion::from_wire(&requested) {
            Some(v) if v.is_modern() => Ok(v),
            _ => Err(EnvelopeError::Unsupported { requested }),
        }
    }
}

/// Why a modern request's envelope was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvelopeError<'buf> {
    /// A required key is missing or a key has the wrong type: `-32602`.
    Invalid(EnvelopeFault),
    /// The version is not one this server speaks in the modern era: `-32022`.
    Unsupported {
        /// The version as sent (decoded).
        requested: Cow<'buf, str>,
    },
}

impl EnvelopeError<'_> {
    /// The JSON-RPC error code of the answer.
    #[must_use]
    pub const fn rpc_code(&self) -> i32 {
        match self {
            Self::Invalid(_) => crate::error::INVALID_PARAMS,
            Self::Unsupported { .. } => crate::error::UNSUPPORTED_PROTOCOL_VERSION,
        }
    }
}

/// What is wrong with an envelope; `Display` names the keys, without allocating.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct EnvelopeFault {
    /// `io.modelcontextprotocol/protocolVersion` is absent.
    pub missing_version: bool,
    /// `io.modelcontextprotocol/clientCapabilities` is absent.
    pub missing_capabilities: bool,
    /// The protocol version is not a string.
    pub version_not_string: bool,
    /// The client capabilities are not an object.
    pub capabilities_not_object: bool,
    /// The client info is present but not an object.
    pub client_info_not_object: bool,
}

impl EnvelopeFault {
    /// True when anything is wrong.
    #[must_use]
    pub const fn any(&self) -> bool {
        self.missing_version
            || self.missing_capabilities
            || self.version_not_string
            || self.capabilities_not_object
            || self.client_info_not_object
    }
}

impl fmt::Display for EnvelopeFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if self.missing_version || self.missing_capabilities {
            f.write_str("params._meta is missing the required envelope key(s): ")?;
            for (on, key) in [
                (self.missing_version, PROTOCOL_VERSION_KEY),
                (self.missing_capabilities, CLIENT_CAPABILITIES_KEY),
            ] {
                if on {
                    write!(f, "{sep}{key}")?;
                    sep = ", ";
                }
            }
            sep = "; ";
        }
        for (on, what) in [
            (self.version_not_string, "protocolVersion must be a string"),
            (
                self.capabilities_not_object,
                "clientCapabilities must be an object",
            ),
            (self.client_info_not_object, "clientInfo must be an object"),
        ] {
            if on {
                write!(f, "{sep}params._meta io.modelcontextprotocol/{what}")?;
                sep = "; ";
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(meta: &str) -> Envelope<'_> {
        Envelope::from_meta(RawJson::parse(meta).unwrap())
    }

    #[test]
    fn check_reports_missing_and_mistyped_keys() {
        let e = env(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#);
        let Err(EnvelopeError::Invalid(f)) = e.check() else {
            panic!("expected a fault")
        };
        assert!(f.missing_capabilities && !f.missing_version);
        assert_eq!(
            f.to_string(),
            "params._meta is missing the required envelope key(s): \
             io.modelcontextprotocol/clientCapabilities"
        );
        let e = env(
            r#"{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":[]}"#,
        );
        let Err(EnvelopeError::Invalid(f)) = e.check() else {
            panic!("expected a fault")
        };
        assert!(f.version_not_string && f.capabilities_not_object);
        assert_eq!(e.check().unwrap_err().rpc_code(), -32602);
    }

    #[test]
    fn check_accepts_modern_and_refuses_other_versions() {
        let ok = env(
            r#"{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
        );
        assert_eq!(ok.check(), Ok(ProtocolVersion::V2026_07_28));
        for v in ["2025-11-25", "2099-01-01", ""] {
            let text = format!(
                r#"{{"io.modelcontextprotocol/protocolVersion":"{v}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#
            );
            let e = env(&text);
            assert_eq!(
                e.check(),
                Err(EnvelopeError::Unsupported {
                    requested: Cow::Borrowed(v)
                })
            );
        }
    }

    #[test]
    fn the_fast_keys_are_the_keys_and_their_near_misses_are_not() {
        use crate::scan::Scanner;
        let fast = |text: &[u8]| {
            let mut sc = Scanner::new(text, 8);
            fast_key(&mut sc).map(|i| (i, sc.pos()))
        };
        for (i, key) in KEYS.iter().enumerate() {
            let quoted = format!("\"{key}\":");
            let text = format!("{quoted}1");
            assert_eq!(fast(text.as_bytes()), Some((i, quoted.len())), "{key}");
            // Each byte of the key changed, and the key cut short, are not taken.
            for at in 0..quoted.len() {
                let mut miss = text.clone().into_bytes();
                miss[at] ^= 0x01;
                assert_eq!(fast(&miss), None, "{key} changed at {at}");
                assert_eq!(fast(&quoted.as_bytes()[..at]), None, "{key} cut at {at}");
            }
        }
    }

    #[test]
    fn escaped_keys_and_last_duplicate_win() {
        let e = env(
            r#"{"io.modelcontextprotocol\/protocolVersion":"x","io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":5}"#,
        );
        assert_eq!(e.protocol_version.unwrap().as_str(), "\"2026-07-28\"");
        assert_eq!(e.progress_token.unwrap().as_str(), "5");
        assert!(env("[1]").protocol_version.is_none());
        assert!(env("null").protocol_version.is_none());
    }
}
