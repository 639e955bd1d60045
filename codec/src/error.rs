//! The codec's error type: small, `Copy`, and mapped to JSON-RPC codes.

use core::fmt;

/// JSON-RPC 2.0 error code for text that is not JSON.
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0 error code for JSON that is not a valid request object.
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0 error code for a method the server does not know.
pub const METHOD_NOT_FOUND: i32 = -32601;
/// JSON-RPC 2.0 error code for parameters the method cannot accept.
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC 2.0 error code for a failure inside the server.
pub const INTERNAL_ERROR: i32 = -32603;
/// MCP 2026-07-28 `MissingRequiredClientCapability`.
pub const MISSING_CLIENT_CAPABILITY: i32 = -32021;
/// MCP 2026-07-28 `UnsupportedProtocolVersion`.
pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;

/// Why a frame could not be read as a JSON-RPC message.
///
/// Each variant maps to one JSON-RPC error code through [`Error::rpc_code`].
/// The type allocates nothing and its `Display` is a static string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not valid UTF-8.
    InvalidUtf8,
    /// The text breaks the JSON grammar (a stray byte, a missing comma, a bad literal...).
    Syntax,
    /// The text ends inside a value.
    Truncated,
    /// A string holds a raw control character, or an escape that JSON does not define.
    BadString,
    /// A `\u` escape names half of a surrogate pair without the other half.
    LoneSurrogate,
    /// A number breaks the JSON grammar, or its value is too large for a double.
    BadNumber,
    /// Containers are nested deeper than the configured limit.
    TooDeep,
    /// The line is longer than the configured frame limit; it was skipped.
    FrameTooLong,
    /// The JSON value is not an object (nor, where allowed, an array of objects).
    NotAnObject,
    /// `jsonrpc` is missing or is not the string `"2.0"`.
    BadVersion,
    /// `id` is not a string or an integer (or is `null` where a request needs one).
    BadId,
    /// `method` is not a string.
    BadMethod,
    /// `params` is not an object or an array.
    BadParams,
    /// The message has both `result` and `error`, or a method together with either.
    Ambiguous,
    /// The message has neither `method` nor `result` nor `error`, or a response has no id.
    Incomplete,
    /// A batch array is empty.
    EmptyBatch,
}

impl Error {
    /// The JSON-RPC error code an answer to this fault carries.
    ///
    /// Text that is not JSON (bad UTF-8, grammar, nesting beyond the limit) is `-32700`; JSON
    /// that is not a JSON-RPC 2.0 message, and an oversize frame, are `-32600`.
    #[must_use]
    pub const fn rpc_code(self) -> i32 {
        match self {
            Self::InvalidUtf8
            | Self::Syntax
            | Self::Truncated
            | Self::BadString
            | Self::LoneSurrogate
            | Self::BadNumber
            | Self::TooDeep => PARSE_ERROR,
            Self::FrameTooLong
            | Self::NotAnObject
            | Self::BadVersion
            | Self::BadId
            | Self::BadMethod
            | Self::BadParams
            | Self::Ambiguous
            | Self::Incomplete
            | Self::EmptyBatch => INVALID_REQUEST,
        }
    }

    /// True when the fault is in the JSON text itself (code `-32700`).
    #[must_use]
    pub const fn is_parse_error(self) -> bool {
        self.rpc_code() == PARSE_ERROR
    }

    /// A short, lowercase description with no trailing period.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidUtf8 => "invalid utf-8",
            Self::Syntax => "invalid json syntax",
            Self::Truncated => "json text ends inside a value",
            Self::BadString => "invalid string: raw control character or unknown escape",
            Self::LoneSurrogate => "invalid string: lone surrogate in \\u escape",
            Self::BadNumber => "invalid number or number out of range",
            Self::TooDeep => "nesting exceeds the depth limit",
            Self::FrameTooLong => "line exceeds the frame length limit",
            Self::NotAnObject => "a json-rpc message must be an object",
            Self::BadVersion => "jsonrpc must be \"2.0\"",
            Self::BadId => "id must be a string or an integer",
            Self::BadMethod => "method must be a string",
            Self::BadParams => "params must be an object or an array",
            Self::Ambiguous => "a message cannot mix method, result and error",
            Self::Incomplete => "a message needs a method, a result or an error",
            Self::EmptyBatch => "a batch cannot be empty",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::error::Error for Error {}
