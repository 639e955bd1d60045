//! The era of a connection, and the modern `_meta` envelope that decides it.
//!
//! A modern (2026-07-28) request carries its protocol version and client capabilities in
//! `params._meta`.
//! [`Envelope`] reads those keys from the text of `_meta` alone, skipping every other value
//! without decoding it; [`Era::of_first_request`] applies the rule of `decisions.md`.

pub use crate::envelope::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, Envelope, EnvelopeError, EnvelopeFault,
    LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY, PROTOCOL_VERSION_KEY, SERVER_INFO_KEY,
};
use crate::message::Message;

/// The two eras of MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// The `initialize` handshake (2024-11-05 to 2025-11-25).
    Legacy,
    /// Stateless requests with the `_meta` envelope (2026-07-28).
    Modern,
}

impl Era {
    /// The era that a connection's first request opens (`decisions.md`, "Era detection").
    ///
    /// Modern when the method is not `initialize` and `params._meta` is an object that holds
    /// `io.modelcontextprotocol/protocolVersion`; legacy otherwise.
    ///
    /// # Example
    ///
    /// ```
    /// use janus_codec::{Era, Parser};
    ///
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let msg = Parser::new().parse_single(frame).unwrap();
    /// assert_eq!(Era::of_first_request(&msg), Era::Modern);
    /// ```
    #[must_use]
    pub fn of_first_request(msg: &Message<'_>) -> Self {
        if msg.method() != "initialize" && msg.envelope().is_modern() {
            Self::Modern
        } else {
            Self::Legacy
        }
    }
}
