//! The seed table: frames and what the codec must read in them.
//!
//! Every seed is checked three ways: with [`Parser`] directly, through [`FrameCodec`] (behind a
//! byte order mark, with CRLF and blank lines around it), and against the oracle. The property
//! tests also mutate the seeds.

use crate::Era::{Legacy, Modern};
use crate::{Era, Frame, FrameCodec, Message, PARSE_ERROR, Parsed, Parser, Rejection};
use bytes::BytesMut;
use std::borrow::Cow;

/// What a frame reads as, with every part as the text the codec hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome<'a> {
    /// A request: the raw id, the decoded method, `params` and `params._meta` as sent.
    Request {
        id: &'a str,
        method: Cow<'a, str>,
        params: Option<&'a str>,
        meta: Option<&'a str>,
        era: Era,
    },
    /// A notification.
    Notification {
        method: Cow<'a, str>,
        params: Option<&'a str>,
        meta: Option<&'a str>,
        era: Era,
    },
    /// A success response.
    Response { id: &'a str, result: &'a str },
    /// An error response; `id` is `None` for `"id":null`.
    ErrorResponse { id: Option<&'a str>, error: &'a str },
    /// A rejection: its JSON-RPC code and the raw id it carries.
    Reject { code: i32, id: Option<&'a str> },
    /// A batch, element by element.
    Batch(Items<'a>),
}

/// The elements of a batch: a table's slice, or what the codec read.
#[derive(Clone)]
pub(super) enum Items<'a> {
    Table(&'a [Outcome<'a>]),
    Read(Vec<Outcome<'a>>),
}

impl<'a> Items<'a> {
    fn as_slice(&self) -> &[Outcome<'a>] {
        match self {
            Self::Table(s) => s,
            Self::Read(v) => v,
        }
    }
}

impl PartialEq for Items<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Items<'_> {}

impl core::fmt::Debug for Items<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// One row of the table.
pub(super) struct Seed {
    pub(super) name: &'static str,
    pub(super) input: &'static [u8],
    pub(super) expect: Outcome<'static>,
}

const fn seed(name: &'static str, input: &'static [u8], expect: Outcome<'static>) -> Seed {
    Seed {
        name,
        input,
        expect,
    }
}

const fn req(
    id: &'static str,
    method: &'static str,
    params: Option<&'static str>,
    meta: Option<&'static str>,
    era: Era,
) -> Outcome<'static> {
    Outcome::Request {
        id,
        method: Cow::Borrowed(method),
        params,
        meta,
        era,
    }
}

const fn ping(id: &'static str) -> Outcome<'static> {
    req(id, "ping", None, None, Legacy)
}

const fn note(method: &'static str, params: Option<&'static str>) -> Outcome<'static> {
    Outcome::Notification {
        method: Cow::Borrowed(method),
        params,
        meta: None,
        era: Legacy,
    }
}

/// JSON that is not a JSON-RPC message: `-32600`, with the raw id when one could be read.
const fn invalid(id: Option<&'static str>) -> Outcome<'static> {
    Outcome::Reject { code: -32600, id }
}

/// Not UTF-8, or not JSON: `-32700`, id `null`.
const NOT_JSON: Outcome<'static> = Outcome::Reject {
    code: -32700,
    id: None,
};

/// Writes `prefix`, `levels` nested arrays, then `suffix`.
const fn nest<const N: usize>(prefix: &[u8], levels: usize, suffix: &[u8]) -> [u8; N] {
    nest_around(prefix, levels, b"", suffix)
}

/// Writes `prefix`, `levels` nested arrays around `core`, then `suffix`.
const fn nest_around<const N: usize>(
    prefix: &[u8],
    levels: usize,
    core: &[u8],
    suffix: &[u8],
) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < prefix.len() {
        out[i] = prefix[i];
        i += 1;
    }
    let mut k = 0;
    while k < levels {
        out[i + k] = b'[';
        out[i + levels + core.len() + k] = b']';
        k += 1;
    }
    let mut c = 0;
    while c < core.len() {
        out[i + levels + c] = core[c];
        c += 1;
    }
    i += 2 * levels + core.len();
    let mut j = 0;
    while j < suffix.len() {
        out[i + j] = suffix[j];
        j += 1;
    }
    assert!(i + suffix.len() == N);
    out
}

const fn utf8(b: &[u8]) -> &str {
    match core::str::from_utf8(b) {
        Ok(s) => s,
        Err(_) => panic!("seed text is not UTF-8"),
    }
}

const DEEP_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","id":128,"method":"deep","params":"#;
/// The message object and 127 arrays in `params`: 128 containers, the default limit.
const DEEP_128: [u8; DEEP_PREFIX.len() + 2 * 127 + 1] = nest(DEEP_PREFIX, 127, b"}");
const DEEP_128_PARAMS: &str = utf8(DEEP_128.split_at(DEEP_PREFIX.len()).1.split_at(254).0);
/// One container more than the limit.
const DEEP_129: [u8; DEEP_PREFIX.len() + 2 * 128 + 1] = nest(DEEP_PREFIX, 128, b"}");
/// 126 arrays in `params` around an empty object, which the scan takes without its container
/// stack (`Scanner::value`): 128 containers.
const EMPTY_AT_128: [u8; DEEP_PREFIX.len() + 2 * 126 + 3] =
    nest_around(DEEP_PREFIX, 126, b"{}", b"}");
const EMPTY_AT_128_PARAMS: &str = utf8(EMPTY_AT_128.split_at(DEEP_PREFIX.len()).1.split_at(254).0);
/// The empty object one level deeper: 129 containers.
const EMPTY_AT_129: [u8; DEEP_PREFIX.len() + 2 * 127 + 3] =
    nest_around(DEEP_PREFIX, 127, b"{}", b"}");
/// 128 nested arrays at the top: a batch of one element that is not an object.
const ARRAYS_128: [u8; 256] = nest(b"", 128, b"");
const ARRAYS_129: [u8; 258] = nest(b"", 129, b"");

const NOTE_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","method":"n","params":"#;

/// The `params` text of a frame that starts with [`NOTE_PREFIX`] and ends with `}`.
const fn note_params(frame: &[u8]) -> &str {
    let rest = frame.split_at(NOTE_PREFIX.len()).1;
    utf8(rest.split_at(rest.len() - 1).0)
}

/// `f64::MAX` rounded to 17 digits and written out as an integer (309 digits): finite, and
/// below `f64::MAX`.
const MAX_AS_INTEGER: &[u8] = br#"{"jsonrpc":"2.0","method":"n","params":[179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000]}"#;
const MAX_AS_INTEGER_PARAMS: &str = note_params(MAX_AS_INTEGER);

const BATCH: &[Outcome<'static>] = &[
    ping("1"),
    note("n", None),
    invalid(None),
    invalid(Some("2")),
    invalid(None),
];
const BATCH_OF_ONE: &[Outcome<'static>] = &[Outcome::Response {
    id: r#""b""#,
    result: "[]",
}];
/// 64 elements that are no messages, then those of [`BATCH_OF_BRACKETS`].
const LONG_BATCH: &[Outcome<'static>] = &{
    const NOT_AN_OBJECT: Outcome<'static> = invalid(None);
    let mut t = [NOT_AN_OBJECT; 66];
    // NB. What is replaced holds nothing to drop; a const cannot run a destructor.
    core::mem::forget(core::mem::replace(&mut t[64], BRACKETS_REQUEST));
    core::mem::forget(core::mem::replace(&mut t[65], BRACKETS_RESPONSE));
    t
};
/// The elements of the batch whose params hold brackets and quotes inside their strings.
const BATCH_OF_BRACKETS: &[Outcome<'static>] = &[BRACKETS_REQUEST, BRACKETS_RESPONSE];
const BRACKETS_REQUEST: Outcome<'static> = req(
    "1",
    "m",
    Some(r#"{"a":"]}\"[{","b":[[],{"c":"\\"}],"d":"}"}"#),
    None,
    Legacy,
);
const BRACKETS_RESPONSE: Outcome<'static> = Outcome::Response {
    id: "2",
    result: r#"["[",{"]":"{"}]"#,
};
const ONE_INVALID: &[Outcome<'static>] = &[invalid(None)];

const MODERN_META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The table. Names say what each row pins down.
pub(super) static SEEDS: &[Seed] = &[
    // Valid requests, notifications and responses.
    seed("integer id", br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, ping("1")),
    seed("string id \"1\" is not id 1", br#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#, ping(r#""1""#)),
    seed("id 0", br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#, ping("0")),
    seed("negative id", br#"{"jsonrpc":"2.0","id":-7,"method":"ping"}"#, ping("-7")),
    seed("empty string id", br#"{"jsonrpc":"2.0","id":"","method":"ping"}"#, ping(r#""""#)),
    seed("id kept byte for byte with its escapes", br#"{"jsonrpc":"2.0","id":"a\"b\u00e9\/","method":"ping"}"#, ping(r#""a\"b\u00e9\/""#)),
    seed("id i64::MAX", br#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}"#, ping("9223372036854775807")),
    seed("id i64::MIN", br#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#, ping("-9223372036854775808")),
    seed("id u64::MAX", br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#, ping("18446744073709551615")),
    seed("members in any order", br#"{"method":"ping","id":3,"jsonrpc":"2.0"}"#, ping("3")),
    seed("notification", br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, note("notifications/initialized", None)),
    seed("notification with params", br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#, note("notifications/cancelled", Some(r#"{"requestId":1}"#))),
    seed("params array", br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,"_meta"]}"#, req("1", "m", Some(r#"[1,"_meta"]"#), None, Legacy)),
    seed("empty params object", br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#, req("1", "m", Some("{}"), None, Legacy)),
    seed("legacy initialize",
        br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        req("0", "initialize", Some(r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#), None, Legacy)),
    seed("response", br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, Outcome::Response { id: "1", result: "{}" }),
    seed("response with a null result", br#"{"jsonrpc":"2.0","id":"r","result":null}"#, Outcome::Response { id: r#""r""#, result: "null" }),
    seed("error response", br#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#,
        Outcome::ErrorResponse { id: Some(r#""x""#), error: r#"{"code":-32601,"message":"no"}"# }),
    seed("error response with id null", br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        Outcome::ErrorResponse { id: None, error: r#"{"code":-32700,"message":"x"}"# }),
    seed("error response without id", br#"{"jsonrpc":"2.0","error":1}"#, invalid(None)),
    // The era rule.
    seed("modern request",
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        req("1", "tools/list", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#), Some(MODERN_META), Modern)),
    seed("the version key alone is the signal",
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}"#,
        req("1", "tools/list", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}"#), Some(r#"{"io.modelcontextprotocol/protocolVersion":7}"#), Modern)),
    seed("initialize with an envelope is legacy",
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        req("1", "initialize", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#), Some(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#), Legacy)),
    seed("_meta without the version key is legacy",
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":5,"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        req("1", "tools/call", Some(r#"{"name":"t","_meta":{"progressToken":5,"io.modelcontextprotocol/clientCapabilities":{}}}"#), Some(r#"{"progressToken":5,"io.modelcontextprotocol/clientCapabilities":{}}"#), Legacy)),
    seed("_meta that is not an object",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":"io.modelcontextprotocol/protocolVersion"}}"#,
        req("1", "m", Some(r#"{"_meta":"io.modelcontextprotocol/protocolVersion"}"#), Some(r#""io.modelcontextprotocol/protocolVersion""#), Legacy)),
    seed("the version key deeper than _meta",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}"#,
        req("1", "m", Some(r#"{"x":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#), None, Legacy)),
    seed("_meta beside params, not in it",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        req("1", "m", None, None, Legacy)),
    seed("modern notification",
        br#"{"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}"#,
        Outcome::Notification { method: Cow::Borrowed("n"), params: Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}"#), meta: Some(r#"{"io.modelcontextprotocol/protocolVersion":"x"}"#), era: Modern }),
    // Escapes in keys and values.
    seed("escaped jsonrpc key", br#"{"js\u006fnrpc":"2.0","id":1,"method":"ping"}"#, ping("1")),
    seed("escaped version value", br#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#, ping("1")),
    seed("escaped id key", br#"{"jsonrpc":"2.0","\u0069\u0064":1,"method":"ping"}"#, ping("1")),
    seed("escaped method value", br#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#, req("1", "tools/list", None, None, Legacy)),
    seed("escaped method key", br#"{"jsonrpc":"2.0","id":1,"m\u0065thod":"ping"}"#, ping("1")),
    seed("escaped params and _meta keys",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","p\u0061rams":{"\u005fmeta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}}"#,
        req("1", "m", Some(r#"{"\u005fmeta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}"#), Some(r#"{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}"#), Modern)),
    seed("escaped initialize is initialize",
        br#"{"jsonrpc":"2.0","id":1,"method":"initializ\u0065","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        req("1", "initialize", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#), Some(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#), Legacy)),
    seed("a key that only looks like jsonrpc", br#"{"jsonrpc ":"2.0","id":1,"method":"ping"}"#, invalid(Some("1"))),
    seed("surrogate pair in a method", br#"{"jsonrpc":"2.0","id":1,"method":"a\uD83D\uDE00b"}"#, req("1", "a\u{1F600}b", None, None, Legacy)),
    seed("raw UTF-8 in a method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"caf\u{e9} \u{1F600}\"}".as_bytes(), req("1", "caf\u{e9} \u{1F600}", None, None, Legacy)),
    seed("every short escape", br#"{"jsonrpc":"2.0","id":1,"method":"\"\\\/\b\f\n\r\t"}"#, req("1", "\"\\/\u{8}\u{c}\n\r\t", None, None, Legacy)),
    seed("escaped NUL", br#"{"jsonrpc":"2.0","id":1,"method":"\u0000"}"#, req("1", "\0", None, None, Legacy)),
    seed("raw DEL is allowed", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\x7f\"}", req("1", "\x7f", None, None, Legacy)),
    seed("lone high surrogate", br#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#, NOT_JSON),
    seed("lone low surrogate", br#"{"jsonrpc":"2.0","id":1,"method":"\udc00"}"#, NOT_JSON),
    seed("high surrogate then a letter escape", br#"{"jsonrpc":"2.0","id":1,"method":"\ud800\u0041"}"#, NOT_JSON),
    seed("high surrogate then a letter", br#"{"jsonrpc":"2.0","id":1,"method":"\ud800x"}"#, NOT_JSON),
    seed("two high surrogates", br#"{"jsonrpc":"2.0","id":1,"method":"\ud800\ud800"}"#, NOT_JSON),
    seed("lone surrogate in a key", br#"{"jsonrpc":"2.0","id":1,"method":"m","\udfff":1}"#, NOT_JSON),
    seed("lone surrogate in an ignored member", br#"{"jsonrpc":"2.0","id":1,"method":"m","x":["\ud83d"]}"#, NOT_JSON),
    seed("unknown escape", br#"{"jsonrpc":"2.0","id":1,"method":"\x41"}"#, NOT_JSON),
    seed("short \\u escape", br#"{"jsonrpc":"2.0","id":1,"method":"\u12"}"#, NOT_JSON),
    seed("\\u escape with a non-hex digit", br#"{"jsonrpc":"2.0","id":1,"method":"\u12g4"}"#, NOT_JSON),
    seed("raw tab in a string", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}", NOT_JSON),
    seed("raw newline in a string", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\nb\"}", NOT_JSON),
    seed("raw control character in a key", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"\x01\":2}", NOT_JSON),
    // Duplicate keys: the last one wins, as in `serde_json::Value`.
    seed("duplicate id", br#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#, ping("2")),
    seed("duplicate id, the last escaped", br#"{"jsonrpc":"2.0","id":1,"\u0069d":"x","method":"ping"}"#, ping(r#""x""#)),
    seed("duplicate id, the last null", br#"{"jsonrpc":"2.0","id":1,"method":"ping","id":null}"#, invalid(None)),
    seed("duplicate method", br#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#, req("1", "b", None, None, Legacy)),
    seed("duplicate jsonrpc, the last right", br#"{"jsonrpc":"1.0","id":1,"method":"ping","jsonrpc":"2.0"}"#, ping("1")),
    seed("duplicate jsonrpc, the last wrong", br#"{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}"#, invalid(Some("1"))),
    seed("duplicate params, the last without _meta",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"params":{"a":1}}"#,
        req("1", "m", Some(r#"{"a":1}"#), None, Legacy)),
    seed("duplicate params, the last an array",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"params":[]}"#,
        req("1", "m", Some("[]"), None, Legacy)),
    seed("duplicate params, the last with _meta",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[],"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        req("1", "m", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#), Some(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#), Modern)),
    seed("duplicate _meta, the last without the version key",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}}"#,
        req("1", "m", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}"#), Some("{}"), Legacy)),
    seed("duplicate version key in _meta",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/protocolVersion":2}}}"#,
        req("1", "m", Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/protocolVersion":2}}"#), Some(r#"{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/protocolVersion":2}"#), Modern)),
    seed("duplicate result", br#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#, Outcome::Response { id: "1", result: "2" }),
    // The compact members the parser takes whole, and their near misses.
    seed("compact jsonrpc, then an escaped duplicate", br#"{"jsonrpc":"2.0","j\u0073onrpc":"1.0","id":1,"method":"ping"}"#, invalid(Some("1"))),
    seed("compact jsonrpc alone", br#"{"jsonrpc":"2.0"}"#, invalid(None)),
    seed("compact jsonrpc with a longer version", br#"{"jsonrpc":"2.00","id":1,"method":"ping"}"#, invalid(Some("1"))),
    seed("compact jsonrpc, then garbage", br#"{"jsonrpc":"2.0"x,"id":1,"method":"ping"}"#, NOT_JSON),
    // The spaced first member (`"jsonrpc": "2.0"`, as `json.dumps` writes it), taken whole too.
    seed("spaced jsonrpc alone", br#"{"jsonrpc": "2.0"}"#, invalid(None)),
    seed("spaced jsonrpc with a longer version", br#"{"jsonrpc": "2.00", "id": 1, "method": "ping"}"#, invalid(Some("1"))),
    seed("spaced jsonrpc, then garbage", br#"{"jsonrpc": "2.0"x, "id": 1, "method": "ping"}"#, NOT_JSON),
    seed("spaced jsonrpc, then a wrong duplicate", br#"{"jsonrpc": "2.0", "id": 1, "method": "ping", "jsonrpc": "1.0"}"#, invalid(Some("1"))),
    seed("spaced jsonrpc, then a space before the comma", b"{\"jsonrpc\": \"2.0\" ,\n \"id\": 1, \"method\": \"ping\"}", ping("1")),
    seed("jsonrpc with two spaces after the colon", br#"{"jsonrpc":  "2.0", "id": 1, "method": "ping"}"#, ping("1")),
    seed("jsonrpc second, spaced", br#"{"id": 1, "jsonrpc": "2.0", "method": "ping"}"#, ping("1")),
    seed("compact keys with white space after the colon", b"{\"jsonrpc\":\"2.0\",\"id\": 1,\"method\":\t\"ping\",\"params\": [] }", req("1", "ping", Some("[]"), None, Legacy)),
    seed("keys that start like the compact ones", br#"{"jsonrpc":"2.0","idx":1,"methods":"a","method":"ping","id":2,"paramsx":1,"resultx":1,"errorx":1}"#, ping("2")),
    seed("compact key with no value", br#"{"jsonrpc":"2.0","id":}"#, NOT_JSON),
    seed("compact key at the end of the frame", br#"{"jsonrpc":"2.0","id":"#, NOT_JSON),
    // White space.
    seed("white space everywhere",
        b" \t{ \"jsonrpc\" :\t\"2.0\" ,\r\n \"id\" : 7 , \"method\" : \"ping\" , \"params\" : { \"_meta\" : { } } }\r\n\t ",
        req("7", "ping", Some("{ \"_meta\" : { } }"), Some("{ }"), Legacy)),
    // Ids of other types, and other faults in JSON that is JSON.
    seed("id null on a request", br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, invalid(None)),
    seed("id float", br#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#, invalid(None)),
    seed("id with an exponent", br#"{"jsonrpc":"2.0","id":1e2,"method":"ping"}"#, invalid(None)),
    seed("id -0", br#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#, invalid(None)),
    seed("id just above u64::MAX", br#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#, invalid(None)),
    seed("id just below i64::MIN", br#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#, invalid(None)),
    seed("id true", br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, invalid(None)),
    seed("id array", br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, invalid(None)),
    seed("id object", br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, invalid(None)),
    seed("id float on an error", br#"{"jsonrpc":"2.0","id":1.5,"error":{}}"#, invalid(None)),
    seed("missing jsonrpc keeps the id", br#"{"id":5,"method":"ping"}"#, invalid(Some("5"))),
    seed("missing jsonrpc keeps a string id", br#"{"id":"5","method":"ping"}"#, invalid(Some(r#""5""#))),
    seed("jsonrpc 1.0", br#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, invalid(Some("5"))),
    seed("jsonrpc as a number", br#"{"jsonrpc":2.0,"id":5,"method":"ping"}"#, invalid(Some("5"))),
    seed("jsonrpc null", br#"{"jsonrpc":null,"id":5,"method":"ping"}"#, invalid(Some("5"))),
    seed("both result and error", br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#, invalid(Some("1"))),
    seed("method and result", br#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#, invalid(Some("1"))),
    seed("method and error", br#"{"jsonrpc":"2.0","id":1,"method":"m","error":{}}"#, invalid(Some("1"))),
    seed("method not a string", br#"{"jsonrpc":"2.0","id":1,"method":1}"#, invalid(Some("1"))),
    seed("method null", br#"{"jsonrpc":"2.0","id":1,"method":null}"#, invalid(Some("1"))),
    seed("params a number", br#"{"jsonrpc":"2.0","id":1,"method":"m","params":1}"#, invalid(Some("1"))),
    seed("params null", br#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#, invalid(Some("1"))),
    seed("params a string", br#"{"jsonrpc":"2.0","id":"p","method":"m","params":"{}"}"#, invalid(Some(r#""p""#))),
    seed("result with id null", br#"{"jsonrpc":"2.0","id":null,"result":{}}"#, invalid(None)),
    seed("result without id", br#"{"jsonrpc":"2.0","result":{}}"#, invalid(None)),
    seed("neither method nor result nor error", br#"{"jsonrpc":"2.0","id":1}"#, invalid(Some("1"))),
    seed("empty object", b"{}", invalid(None)),
    seed("top-level integer", b"1", invalid(None)),
    seed("top-level string", br#""{\"jsonrpc\":\"2.0\"}""#, invalid(None)),
    seed("top-level null", b"null", invalid(None)),
    seed("top-level true", b" true ", invalid(None)),
    // Batches.
    seed("batch", br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"n"},1,{"id":2},[]]"#,
        Outcome::Batch(Items::Table(BATCH))),
    seed("batch of one", br#"[{"jsonrpc":"2.0","id":"b","result":[]}]"#, Outcome::Batch(Items::Table(BATCH_OF_ONE))),
    // Its elements are read with their containers skipped by the brackets (the batch is
    // validated first): brackets and quotes inside strings are no brackets.
    seed("batch with brackets inside strings", br#"[{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"]}\"[{","b":[[],{"c":"\\"}],"d":"}"}},{"jsonrpc":"2.0","id":2,"result":["[",{"]":"{"}]}]"#,
        Outcome::Batch(Items::Table(BATCH_OF_BRACKETS))),
    // Past its 64th element a batch is read from its validated text when the iterator gets
    // there, with containers skipped by their brackets.
    seed("batch with brackets inside strings past the 64th element", br#"[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"]}\"[{","b":[[],{"c":"\\"}],"d":"}"}},{"jsonrpc":"2.0","id":2,"result":["[",{"]":"{"}]}]"#,
        Outcome::Batch(Items::Table(LONG_BATCH))),
    // Runs of spaces are skipped eight bytes a step: runs that end inside a word, at its end
    // and past it, runs of tabs, line breaks, and a run that reaches the end of the text.
    seed("indented message", b"{\n  \"jsonrpc\": \"2.0\",\n  \"id\":\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t7,\r\n                                \"method\"   :   \"ping\"\n}\n                \t", ping("7")),
    seed("wide-spaced line", b"{                \"jsonrpc\":\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\"2.0\" ,                 \"id\"  :  8   ,   \"method\": \"ping\"                                  }                 ", ping("8")),
    seed("line breaks with indentation of fifteen spaces", b"{\n               \"jsonrpc\":\"2.0\",\r\n               \"id\": 7,\"method\":\"ping\"}", ping("7")),
    // A line break and an indentation of fewer than eight spaces are taken from one word,
    // which also gives the next token's byte: indentation of none to seven spaces, a closer
    // after a line break, eight spaces (the run skip), a tab after seven spaces, and a byte
    // that no token starts with.
    seed("JSON.stringify indentation, two spaces a level", b"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"method\": \"ping\",\n  \"params\": {\n    \"a\": [\n      1,\n      {},\n       -2.5e3\n        ],\n\"b\": null\n  }\n}",
        req("7", "ping", Some("{\n    \"a\": [\n      1,\n      {},\n       -2.5e3\n        ],\n\"b\": null\n  }"), None, Legacy)),
    seed("a byte above ASCII after a line break's indentation", b"{\"jsonrpc\":\"2.0\",\n   \xc3\xa9\"id\":7,\"method\":\"ping\"}", NOT_JSON),
    seed("a tab after a line break's seven spaces", b"{\"jsonrpc\":\"2.0\",\n       \t\"id\":7,\n\n\"method\":\"ping\"}", ping("7")),
    seed("a vertical tab after a long run of white space", b"{\"jsonrpc\":\"2.0\",\n                    \x0b\"id\":7,\"method\":\"ping\"}", NOT_JSON),
    seed("empty batch", b"[]", invalid(None)),
    seed("empty batch with white space", b" [ \t] ", invalid(None)),
    seed("batch with a bad element is not JSON", br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{]"#, NOT_JSON),
    // Text that is not JSON, or not UTF-8.
    seed("empty frame", b"", NOT_JSON),
    seed("white space only", b" \t ", NOT_JSON),
    seed("truncated object", br#"{"jsonrpc":"2.0","id":1"#, NOT_JSON),
    seed("trailing comma", br#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#, NOT_JSON),
    seed("missing colon", br#"{"jsonrpc" "2.0"}"#, NOT_JSON),
    seed("single quotes", br#"{'jsonrpc':'2.0'}"#, NOT_JSON),
    seed("two values in one frame", br#"{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}"#, NOT_JSON),
    seed("garbage after the object", br#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#, NOT_JSON),
    seed("garbage after an invalid message", br#"{"id":1} x"#, NOT_JSON),
    seed("NUL outside a string", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\0", NOT_JSON),
    seed("form feed is not white space", b"\x0c{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", NOT_JSON),
    seed("truncated literal", b"nul", NOT_JSON),
    seed("bad literal", b"[nulL]", NOT_JSON),
    seed("trailing comma in an array", b"[1,]", NOT_JSON),
    seed("byte order mark without the framer", b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", NOT_JSON),
    seed("invalid UTF-8 in a string", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", NOT_JSON),
    seed("overlong UTF-8", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\x80\"}", NOT_JSON),
    seed("UTF-8 encoded surrogate", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xed\xa0\x80\"}", NOT_JSON),
    seed("truncated UTF-8", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xe2\x82\"}", NOT_JSON),
    seed("invalid UTF-8 outside strings", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\xff", NOT_JSON),
    seed("invalid UTF-8 with a readable id", b"{\"id\":1,\"\xff\":1}", NOT_JSON),
    // Numbers at the limits.
    seed("numbers serde_json reads", br#"{"jsonrpc":"2.0","method":"n","params":[1e308,-1e308,1E+2,0.5e-3,5e-324,1e-400,-0,-0.0,0e99999999999999999999,1e-99999999999999999999]}"#,
        note("n", Some("[1e308,-1e308,1E+2,0.5e-3,5e-324,1e-400,-0,-0.0,0e99999999999999999999,1e-99999999999999999999]"))),
    // Runs of digits across the eight-byte steps of the digit scan, and what ends them.
    seed("long digit runs", br#"{"jsonrpc":"2.0","method":"n","params":[123456789012345678,1234567890123456789,-98765432109876543210.123456789012345678e-12345678,0.00000000000000001,7.25E+00000008]}"#,
        note("n", Some("[123456789012345678,1234567890123456789,-98765432109876543210.123456789012345678e-12345678,0.00000000000000001,7.25E+00000008]"))),
    seed("a letter after eight digits", br#"{"jsonrpc":"2.0","method":"n","params":[12345678a]}"#, NOT_JSON),
    seed("a second point after a fraction", br#"{"jsonrpc":"2.0","method":"n","params":[1.23456789.5]}"#, NOT_JSON),
    seed("a minus inside the digits", br#"{"jsonrpc":"2.0","method":"n","params":[-1234567-8]}"#, NOT_JSON),
    seed("1e309", br#"{"jsonrpc":"2.0","method":"n","params":[1e309]}"#, NOT_JSON),
    seed("-1e309", br#"{"jsonrpc":"2.0","method":"n","params":[-1e309]}"#, NOT_JSON),
    seed("huge exponent", br#"{"jsonrpc":"2.0","method":"n","params":[1e99999999999999999999]}"#, NOT_JSON),
    seed("huge exponent on a fraction", br#"{"jsonrpc":"2.0","method":"n","params":[0.001e99999999999999999999]}"#, NOT_JSON),
    seed("400 digits", br#"{"jsonrpc":"2.0","method":"n","params":[1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000]}"#, NOT_JSON),
    // NB. serde_json (without `float_roundtrip`) refuses the next two and accepts the third:
    // the codec rounds once, like `str::parse::<f64>` (see `oracle::parse_json`).
    seed("f64::MAX as an integer", MAX_AS_INTEGER, note("n", Some(MAX_AS_INTEGER_PARAMS))),
    seed("rounds down to f64::MAX", br#"{"jsonrpc":"2.0","method":"n","params":[1.7976931348623158e308]}"#, note("n", Some("[1.7976931348623158e308]"))),
    seed("rounds up past f64::MAX", br#"{"jsonrpc":"2.0","method":"n","params":[1.79769313486231581e308]}"#, NOT_JSON),
    // Found by the `era` fuzz target (a fault of the oracle, which read it as JSON).
    seed("a second exponent after a number serde_json refuses", br#"{"jsonrpc":"2.0","method":"n","params":[1.7976931348623158e308e+308]}"#, NOT_JSON),
    seed("leading zero", br#"{"jsonrpc":"2.0","id":01,"method":"ping"}"#, NOT_JSON),
    seed("negative leading zero", b"[-01]", NOT_JSON),
    seed("plus sign", b"[+1]", NOT_JSON),
    seed("bare minus", b"[-]", NOT_JSON),
    seed("no digit after the point", b"[1.]", NOT_JSON),
    seed("no digit after the point, then an exponent", b"[1.e5]", NOT_JSON),
    seed("no digit in the exponent", b"[1e+]", NOT_JSON),
    seed("leading point", b"[.5]", NOT_JSON),
    seed("NaN", b"[NaN]", NOT_JSON),
    seed("Infinity", b"[-Infinity]", NOT_JSON),
    // Nesting.
    // The bulk scan: large containers, past the bytes the token walk takes before it hands
    // over (every seed is also read with the bulk scan from the first value on).
    seed("a large result the bulk scan takes, every kind of token", br#"{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a","n":1,"ok":true},{"name":"bb","title":"Tool \"two\" caf\u00e9 \ud83d\ude00","schema":{"type":"object","properties":{"x":{"type":"number","minimum":-1.5e-3,"maximum":1E+2,"default":0}},"required":["x"],"additionalProperties":false},"tags":[null,true,false,-0,0.25,12345678901234567,[],{}]},{"name":"bb","title":"Tool \"two\" caf\u00e9 \ud83d\ude00","schema":{"type":"object","properties":{"x":{"type":"number","minimum":-1.5e-3,"maximum":1E+2,"default":0}},"required":["x"],"additionalProperties":false},"tags":[null,true,false,-0,0.25,12345678901234567,[],{}]},{"name":"bb","title":"Tool \"two\" caf\u00e9 \ud83d\ude00","schema":{"type":"object","properties":{"x":{"type":"number","minimum":-1.5e-3,"maximum":1E+2,"default":0}},"required":["x"],"additionalProperties":false},"tags":[null,true,false,-0,0.25,12345678901234567,[],{}]},{"last":"\n\t\\\/","deep":[[[[{"a":[{"b":[]}]}]]]]}]}}"#, Outcome::Response { id: "7", result: r#"{"tools":[{"name":"a","n":1,"ok":true},{"name":"bb","title":"Tool \"two\" caf\u00e9 \ud83d\ude00","schema":{"type":"object","properties":{"x":{"type":"number","minimum":-1.5e-3,"maximum":1E+2,"default":0}},"required":["x"],"additionalProperties":false},"tags":[null,true,false,-0,0.25,12345678901234567,[],{}]},{"name":"bb","title":"Tool \"two\" caf\u00e9 \ud83d\ude00","schema":{"type":"object","properties":{"x":{"type":"number","minimum":-1.5e-3,"maximum":1E+2,"default":0}},"required":["x"],"additionalProperties":false},"tags":[null,true,false,-0,0.25,12345678901234567,[],{}]},{"name":"bb","title":"Tool \"two\" caf\u00e9 \ud83d\ude00","schema":{"type":"object","properties":{"x":{"type":"number","minimum":-1.5e-3,"maximum":1E+2,"default":0}},"required":["x"],"additionalProperties":false},"tags":[null,true,false,-0,0.25,12345678901234567,[],{}]},{"last":"\n\t\\\/","deep":[[[[{"a":[{"b":[]}]}]]]]}]}"# }),
    seed("a large spaced result the bulk scan takes", br#"{"jsonrpc": "2.0", "id": 8, "result": {   "tools": [     {       "name": "a",       "n": 1,       "ok": true     },     {       "name": "bb",       "title": "Tool \"two\" caf\u00e9 \ud83d\ude00",       "schema": {         "type": "object",         "properties": {           "x": {             "type": "number",             "minimum": -0.0015,             "maximum": 100.0,             "default": 0           }         },         "required": [           "x"         ],         "additionalProperties": false       },       "tags": [         null,         true,         false,         0,         0.25,         12345678901234567,         [],         {}       ]     },     {       "name": "bb",       "title": "Tool \"two\" caf\u00e9 \ud83d\ude00",       "schema": {         "type": "object",         "properties": {           "x": {             "type": "number",             "minimum": -0.0015,             "maximum": 100.0,             "default": 0           }         },         "required": [           "x"         ],         "additionalProperties": false       },       "tags": [         null,         true,         false,         0,         0.25,         12345678901234567,         [],         {}       ]     },     {       "name": "bb",       "title": "Tool \"two\" caf\u00e9 \ud83d\ude00",       "schema": {         "type": "object",         "properties": {           "x": {             "type": "number",             "minimum": -0.0015,             "maximum": 100.0,             "default": 0           }         },         "required": [           "x"         ],         "additionalProperties": false       },       "tags": [         null,         true,         false,         0,         0.25,         12345678901234567,         [],         {}       ]     },     {       "last": "\n\t\\/",       "deep": [         [           [             [               {                 "a": [                   {                     "b": []                   }                 ]               }             ]           ]         ]       ]     }   ] }}"#, Outcome::Response { id: "8", result: r#"{   "tools": [     {       "name": "a",       "n": 1,       "ok": true     },     {       "name": "bb",       "title": "Tool \"two\" caf\u00e9 \ud83d\ude00",       "schema": {         "type": "object",         "properties": {           "x": {             "type": "number",             "minimum": -0.0015,             "maximum": 100.0,             "default": 0           }         },         "required": [           "x"         ],         "additionalProperties": false       },       "tags": [         null,         true,         false,         0,         0.25,         12345678901234567,         [],         {}       ]     },     {       "name": "bb",       "title": "Tool \"two\" caf\u00e9 \ud83d\ude00",       "schema": {         "type": "object",         "properties": {           "x": {             "type": "number",             "minimum": -0.0015,             "maximum": 100.0,             "default": 0           }         },         "required": [           "x"         ],         "additionalProperties": false       },       "tags": [         null,         true,         false,         0,         0.25,         12345678901234567,         [],         {}       ]     },     {       "name": "bb",       "title": "Tool \"two\" caf\u00e9 \ud83d\ude00",       "schema": {         "type": "object",         "properties": {           "x": {             "type": "number",             "minimum": -0.0015,             "maximum": 100.0,             "default": 0           }         },         "required": [           "x"         ],         "additionalProperties": false       },       "tags": [         null,         true,         false,         0,         0.25,         12345678901234567,         [],         {}       ]     },     {       "last": "\n\t\\/",       "deep": [         [           [             [               {                 "a": [                   {                     "b": []                   }                 ]               }             ]           ]         ]       ]     }   ] }"# }),
    // Indented text the bulk scan reads squeezed (`scan/blocks.rs`): runs of spaces inside
    // strings, an escape after one, literals and numbers after indentations; a control byte
    // after a run of spaces, and two numbers a run apart, are still faults.
    seed("an indented result the bulk scan reads squeezed", b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"result\": {\n  \"tools\": [\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    }\n  ],\n  \"nextCursor\": \"c\"\n}   \n}", Outcome::Response { id: "9", result: "{\n  \"tools\": [\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    }\n  ],\n  \"nextCursor\": \"c\"\n}" }),
    seed("a control byte after a run of spaces in an indented result", b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"result\": {\n  \"tools\": [\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\":    \x01null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    }\n  ],\n  \"nextCursor\": \"c\"\n}   \n}", NOT_JSON),
    seed("two numbers a run of spaces apart in an indented result", b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"result\": {\n  \"tools\": [\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3     7,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    },\n    {\n      \"name\": \"a    b\",\n      \"text\": \"x   \\u00e9\\\\n   \\\"   \",\n      \"ok\": true,\n      \"n\": -1.5e3,\n      \"none\": null,\n      \"list\": [\n        1,\n        [],\n        {}\n      ]\n    }\n  ],\n  \"nextCursor\": \"c\"\n}   \n}", NOT_JSON),
    seed("70 levels past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","d":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}"#, note("n", Some(r#"{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","d":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#))),
    seed("a long number and a three-digit exponent past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111,2.5e100,-7E-99]}"#, note("n", Some(r#"["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111,2.5e100,-7E-99]"#))),
    seed("a bad escape past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","s":"a\qb"}}"#, NOT_JSON),
    seed("a lone surrogate past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","s":"\ud800"}}"#, NOT_JSON),
    seed("a second point past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",1.2.3]}"#, NOT_JSON),
    seed("a second exponent past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",1e2e3]}"#, NOT_JSON),
    seed("a point after an exponent past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",1e2.5]}"#, NOT_JSON),
    seed("a leading zero past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",012]}"#, NOT_JSON),
    seed("a trailing comma past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","a":1,}}"#, NOT_JSON),
    seed("a missing colon past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","a" 1}}"#, NOT_JSON),
    seed("a key without a value past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","a":}}"#, NOT_JSON),
    seed("an array member with a key past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy","k":1]}"#, NOT_JSON),
    seed("an object member without a key past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",1}}"#, NOT_JSON),
    seed("a cut literal past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",tru]}"#, NOT_JSON),
    seed("a long literal past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",nullx]}"#, NOT_JSON),
    seed("brackets of two kinds past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","a":[1}}}"#, NOT_JSON),
    seed("a raw control byte past the hand-over", b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\"a\":\"b\x01\"}}", NOT_JSON),
    seed("an exponent that overflows past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",1e999]}"#, NOT_JSON),
    seed("two values without a comma past the hand-over", br#"{"jsonrpc":"2.0","method":"n","params":["yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",1 2]}"#, NOT_JSON),
    // Long strings: a plain start is skipped two blocks at a time, then the block scan goes on.
    seed("a plain run of two blocks and more, then escapes and text above ASCII", r#"{"jsonrpc":"2.0","method":"n","params":["zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n\u00e9 café done"]}"#.as_bytes(), note("n", Some(r#"["zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n\u00e9 café done"]"#))),
    seed("a raw control byte after a plain run of two blocks", b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":[\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\x01zz\"]}", NOT_JSON),
    seed("a bad escape after a plain run of two blocks", br#"{"jsonrpc":"2.0","method":"n","params":["zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\q"]}"#, NOT_JSON),
    seed("128 containers are accepted", &DEEP_128, req("128", "deep", Some(DEEP_128_PARAMS), None, Legacy)),
    seed("129 containers are not JSON", &DEEP_129, NOT_JSON),
    seed("an empty object as the 128th container is accepted", &EMPTY_AT_128, req("128", "deep", Some(EMPTY_AT_128_PARAMS), None, Legacy)),
    seed("an empty object as the 129th container is not JSON", &EMPTY_AT_129, NOT_JSON),
    seed("128 arrays are a batch", &ARRAYS_128, Outcome::Batch(Items::Table(ONE_INVALID))),
    seed("129 arrays are not JSON", &ARRAYS_129, NOT_JSON),
];

/// The codec's reading of a frame, as an [`Outcome`].
pub(super) fn outcome(frame: &[u8]) -> Outcome<'_> {
    fn message<'a>(m: &Message<'a>) -> Outcome<'a> {
        let method = Cow::Owned(m.method().to_owned());
        let (params, meta) = (m.params().map(|p| p.as_str()), m.meta().map(|p| p.as_str()));
        let era = crate::Era::of_first_request(m);
        match m.kind() {
            crate::MessageKind::Request => Outcome::Request {
                id: m.id().expect("a request has an id").as_raw(),
                method,
                params,
                meta,
                era,
            },
            crate::MessageKind::Notification => Outcome::Notification {
                method,
                params,
                meta,
                era,
            },
            crate::MessageKind::Response => Outcome::Response {
                id: m.id().expect("a response has an id").as_raw(),
                result: m.result().expect("a response has a result").as_str(),
            },
            crate::MessageKind::ErrorResponse => Outcome::ErrorResponse {
                id: m.id().map(|id| id.as_raw()),
                error: m.error().expect("an error response has an error").as_str(),
            },
        }
    }
    fn rejection(r: Rejection<'_>) -> Outcome<'_> {
        Outcome::Reject {
            code: r.error.rpc_code(),
            id: r.id.map(|id| id.as_raw()),
        }
    }
    match Parser::new().parse(frame) {
        Ok(Parsed::Single(m)) => message(&m),
        Ok(Parsed::Batch(b)) => Outcome::Batch(Items::Read(
            b.iter()
                .map(|item| item.map_or_else(rejection, |m| message(&m)))
                .collect(),
        )),
        Err(r) => rejection(r),
    }
}

#[test]
fn every_seed_reads_as_expected() {
    for s in SEEDS {
        assert_eq!(outcome(s.input), s.expect, "seed {:?}", s.name);
    }
}

#[test]
fn seed_names_are_unique() {
    let mut names: Vec<_> = SEEDS.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), SEEDS.len());
}

#[test]
fn the_oracle_agrees_with_every_seed() {
    for s in SEEDS {
        super::oracle::assert_agrees(s.input);
    }
}

#[test]
fn parse_errors_name_their_fault() {
    use crate::Error;
    let cases: [(&[u8], Error); 10] = [
        (&DEEP_129, Error::TooDeep),
        (&EMPTY_AT_129, Error::TooDeep),
        (&ARRAYS_129, Error::TooDeep),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"\ud800x"}"#,
            Error::LoneSurrogate,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"a\qb"}"#,
            Error::BadString,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"n","params":[1e309]}"#,
            Error::BadNumber,
        ),
        (br#"{"jsonrpc":"2.0","id":1"#, Error::Truncated),
        (
            br#"{"jsonrpc":"2.0","id":1,,"method":"ping"}"#,
            Error::Syntax,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            Error::Syntax,
        ),
        (b"{\"jsonrpc\":\"\xff\"}", Error::InvalidUtf8),
    ];
    for (frame, error) in cases {
        let r = Parser::new().parse(frame).unwrap_err();
        assert_eq!(r.error, error, "{:?}", String::from_utf8_lossy(frame));
        assert_eq!(r.error.rpc_code(), PARSE_ERROR);
    }
}

#[test]
fn the_nesting_limit_is_a_setting() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{}]}}"#;
    let mut p = Parser::new();
    // The message object, params, the array and the inner object: 4 containers.
    assert!(p.max_depth(4).parse_single(frame).is_ok());
    let r = p.max_depth(3).parse_single(frame).unwrap_err();
    assert_eq!((r.error, r.id), (crate::Error::TooDeep, None));
    assert_eq!(r.error.rpc_code(), PARSE_ERROR);
    // A million open brackets are refused without recursion.
    let huge = [b'['; 1_000_000];
    assert_eq!(outcome(&huge), NOT_JSON);
}

/// Every seed, framed as a client would send it: after a byte order mark, with CRLF and blank
/// lines, twice. Seeds that hold a line break or are blank are left out.
pub(super) fn framed_seeds() -> impl Iterator<Item = (&'static Seed, Vec<u8>)> {
    SEEDS
        .iter()
        .filter(|s| {
            !s.input.contains(&b'\n')
                && !s.input.contains(&b'\r')
                && !s.input.iter().all(|&b| b == b' ' || b == b'\t')
        })
        .map(|s| {
            let mut stream = b"\xEF\xBB\xBF".to_vec();
            stream.extend_from_slice(s.input);
            stream.extend_from_slice(b"\r\n\n \r\n");
            stream.extend_from_slice(s.input);
            stream.push(b'\n');
            (s, stream)
        })
}

#[test]
fn every_seed_reads_the_same_through_the_framer() {
    for (s, stream) in framed_seeds() {
        let mut codec = FrameCodec::new();
        let mut buf = BytesMut::from(&stream[..]);
        let frames: Vec<_> = std::iter::from_fn(|| codec.decode_frame(&mut buf)).collect();
        assert!(buf.is_empty(), "seed {:?}", s.name);
        assert_eq!(frames.len(), 2, "seed {:?}", s.name);
        for f in frames {
            let Frame::Line(line) = f else {
                panic!("seed {:?}: oversize", s.name)
            };
            assert_eq!(&line[..], s.input, "seed {:?}", s.name);
            assert_eq!(outcome(&line), s.expect, "seed {:?}", s.name);
        }
    }
}
