//! A zero-copy JSON-RPC framing codec for the Model Context Protocol.
//!
//! `janus-codec` reads MCP traffic where it lies:
//!
//! - [`FrameCodec`] cuts newline-delimited frames out of a `BytesMut` without copying, with a
//!   length limit that recovers at the next line: as owned [`Frame`]s, read in place
//!   ([`FrameCodec::decode_with`], a [`FrameRef`] borrowed from the buffer), or read in place
//!   and parsed in the same scan ([`FrameCodec::decode_message`], where the message's own scan
//!   finds its newline);
//! - [`Parser::parse`] validates a whole frame as JSON in one pass (grammar, UTF-8, escapes,
//!   numbers, nesting) and returns a [`Message`] whose id, method, `params`, `result`,
//!   `error` and `params._meta` are spans of the frame. No DOM is built and nothing is
//!   allocated for a well-formed message;
//! - [`Envelope`] reads the modern (2026-07-28) `_meta` envelope from those bytes, and
//!   [`Era::of_first_request`] decides a connection's era from it;
//! - [`encode`] writes responses, errors and notifications straight into a `BytesMut`;
//! - [`dom`] builds a simd-json value for the rare handler that needs one.
//!
//! It does no IO and reads no clock. Faults in a frame are values ([`Rejection`],
//! [`Frame::Oversize`]) with their JSON-RPC code, never panics.
//!
//! The crate's `unsafe` code sits in two private modules, each behind a safe API, and building
//! with `RUSTFLAGS="--cfg janus_codec_safe"` leaves it all out:
//!
//! - on x86_64 the scans over 64-byte blocks (long strings, and the bulk scan that takes the
//!   rest of a large container from masks of its blocks) use AVX2 or AVX-512BW when the CPU has
//!   them, detected at run time (`arch/wide/`; the safe build uses SSE2 through `safe_arch`
//!   everywhere);
//! - a frame that the scan proved ASCII is text without a second UTF-8 pass, and the spans
//!   the scan gives are text without a check of their ends (`text.rs`; the safe build checks
//!   every frame with `simdutf8` and every span with `str::get`).
//!
//! # Example
//!
//! ```
//! use bytes::BytesMut;
//! use janus_codec::{encode, Era, Frame, FrameCodec, Parser};
//!
//! let mut input = BytesMut::from(&br#"{"jsonrpc":"2.0","id":"a","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
//! "#[..]);
//! let Some(Frame::Line(frame)) = FrameCodec::new().decode_frame(&mut input) else { panic!() };
//! let msg = Parser::new().parse_single(&frame).unwrap();
//! assert_eq!(Era::of_first_request(&msg), Era::Modern);
//!
//! let mut out = BytesMut::new();
//! encode::write_result(&mut out, msg.id().unwrap(), r#"{"resultType":"complete"}"#);
//! assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete"}}
//! "#[..]);
//! ```
//!
//! # Cargo features
//!
//! - `tokio-util` (default): `tokio_util::codec::{Decoder, Encoder}` for [`FrameCodec`].
//!   Without it the crate does not depend on tokio.

// The modules in layers: each imports only from the layers before it in this list (`error`
// and `version` from anywhere), so none imports another that imports it.
//
// 1. `arch`: byte masks (SSE2, the portable loops, the run-time AVX2/AVX-512BW kernels);
// 2. `scan`: the structural scanner (the token walk, strings, numbers, the bulk scan); `text`:
//    text out of its spans;
// 3. `raw`: `RawJson`, `Id`/`IdBuf`, the member walk, unescaping and escaping;
// 4. `envelope`: the `_meta` keys; then `message`: the parse; then `era`;
// 5. `encode` and `frame` (and `dom`) on top.
mod arch;
pub mod dom;
pub mod encode;
mod envelope;
pub mod era;
mod error;
mod frame;
mod message;
mod raw;
mod scan;
mod text;
pub mod version;

#[cfg(test)]
mod tests;
// The test oracle is shared with the fuzz crate and names this crate as it does.
#[cfg(test)]
extern crate self as janus_codec;

pub use era::{Envelope, EnvelopeError, EnvelopeFault, Era};
pub use error::{
    Error, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION,
};
pub use frame::{DEFAULT_MAX_FRAME_LEN, Frame, FrameCodec, FrameRef};
pub use message::{Batch, DEFAULT_MAX_DEPTH, Message, MessageKind, Parsed, Parser, Rejection};
pub use raw::{Elements, Id, IdBuf, RawJson};
pub use version::ProtocolVersion;

/// Items for the benchmarks (`janus-bench`) and the fuzz targets only: not part of the
/// crate's API, and free to change (as httparse's `_benchable`).
#[doc(hidden)]
pub mod _benchable {
    use crate::{Era, MessageKind, Parser, Rejection};

    /// Validates and reads one frame the way a server's hot path does: the message's kind and
    /// the era a first request would open, or the rejection.
    ///
    /// # Errors
    ///
    /// The [`Rejection`] of [`Parser::parse_single`].
    pub fn classify(frame: &[u8]) -> Result<(MessageKind, Era), Rejection<'_>> {
        let msg = Parser::new().parse_single(frame)?;
        Ok((msg.kind(), Era::of_first_request(&msg)))
    }
}
