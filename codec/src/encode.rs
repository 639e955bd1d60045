//! Writers of JSON-RPC messages straight into a `BytesMut`, without serde.
//!
//! Every message is compact JSON followed by one `\n`, and never holds another raw line
//! break: strings are escaped, and passthrough JSON ([`write_raw`]) is written without the
//! white space outside its strings, where the only raw line breaks of valid JSON are.
//!
//! # Example
//!
//! ```
//! use bytes::BytesMut;
//! use janus_codec::{encode, IdBuf};
//!
//! let mut out = BytesMut::new();
//! let id = IdBuf::from_i64(3);
//! encode::write_error(&mut out, Some(id.as_id()), -32601, "Method not found", None);
//! assert_eq!(
//!     &out[..],
//!     &br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}
//! "#[..]
//! );
//! ```

use crate::raw::{self, Id};
use bytes::{BufMut, BytesMut};
use smallvec::SmallVec;

/// Writes `s` as a JSON string (quoted and escaped).
///
/// Runs that need no escape are copied whole; `"`, `\` and control characters are escaped
/// (`\n`, `\t`... or `\u00XX`). Non-ASCII text is written as UTF-8.
#[inline]
pub fn write_str(out: &mut BytesMut, s: &str) {
    raw::write_str(out, s);
}

/// Writes JSON text that is already encoded (a value the caller knows to be valid), compact:
/// white space outside strings is left out, so the output stays one line of compact JSON
/// however the text was spaced.
///
/// A text with no white space at all (the usual case) is copied whole. Should the text hold
/// a raw line break inside a string (invalid JSON, against the contract), it becomes a space:
/// the output never breaks its line.
pub fn write_raw(out: &mut BytesMut, json: &str) {
    let b = json.as_bytes();
    // A string has no white space outside itself: only a (invalid) raw line break matters.
    let plain = if b.first() == Some(&b'"') {
        memchr::memchr2(b'\n', b'\r', b).is_none()
    } else {
        !has_white_space(b)
    };
    if plain {
        out.extend_from_slice(b);
        return;
    }
    out.reserve(b.len());
    let begin = out.len();
    let mut run = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = crate::scan::trusted_string_end(b, i + 1),
            b' ' | b'\t' | b'\r' | b'\n' => {
                out.extend_from_slice(&b[run..i]);
                while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
                    i += 1;
                }
                run = i;
            }
            _ => i += 1,
        }
    }
    out.extend_from_slice(&b[run..]);
    // NB. Only with invalid text: a raw line break that sat inside a string.
    if memchr::memchr2(b'\r', b'\n', &out[begin..]).is_some() {
        for c in &mut out[begin..] {
            if matches!(*c, b'\r' | b'\n') {
                *c = b' ';
            }
        }
    }
}

/// True when `b`, valid JSON text, holds white space: a byte up to a space (the other bytes
/// below it, control bytes, have no place in valid JSON). Whole 64-byte blocks are tested
/// without an early exit inside them, so the compare vectorises; the rest a word at a time.
fn has_white_space(b: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        if block.iter().fold(false, |acc, &c| acc | (c <= b' ')) {
            return true;
        }
    }
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        // A byte below 0x21 borrows into its high bit, which it did not have.
        if w.wrapping_sub(ONES * 0x21) & !w & (ONES * 0x80) != 0 {
            return true;
        }
    }
    words.remainder().iter().any(|&c| c <= b' ')
}

/// Writes an integer.
pub fn write_i64(out: &mut BytesMut, n: i64) {
    let mut buf = itoa::Buffer::new();
    out.extend_from_slice(buf.format(n).as_bytes());
}

fn write_id(out: &mut BytesMut, id: Option<Id<'_>>) {
    match id {
        Some(id) => out.extend_from_slice(id.as_raw().as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
}

/// Starts a success response: `{"jsonrpc":"2.0","id":ID,"result":`.
/// Write the result value next, then call [`end_message`].
pub fn begin_result(out: &mut BytesMut, id: Id<'_>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    write_id(out, Some(id));
    out.extend_from_slice(br#","result":"#);
}

/// Ends a message begun with [`begin_result`] or [`begin_notification`]: `}` and the newline.
pub fn end_message(out: &mut BytesMut) {
    out.extend_from_slice(b"}\n");
}

/// Writes a whole success response whose result is already-encoded JSON.
pub fn write_result(out: &mut BytesMut, id: Id<'_>, result: &str) {
    out.reserve(result.len() + id.as_raw().len() + 40);
    begin_result(out, id);
    write_raw(out, result);
    end_message(out);
}

/// Writes a whole error response. `id` is `None` for `"id":null`; `data` is already-encoded
/// JSON.
pub fn write_error(
    out: &mut BytesMut,
    id: Option<Id<'_>>,
    code: i32,
    message: &str,
    data: Option<&str>,
) {
    out.reserve(message.len() + data.map_or(0, str::len) + 64);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    write_id(out, id);
    out.extend_from_slice(br#","error":{"code":"#);
    write_i64(out, i64::from(code));
    out.extend_from_slice(br#","message":"#);
    write_str(out, message);
    if let Some(data) = data {
        out.extend_from_slice(br#","data":"#);
        write_raw(out, data);
    }
    out.extend_from_slice(b"}}\n");
}

/// Starts a notification: `{"jsonrpc":"2.0","method":"M","params":`.
/// Write the params value next, then call [`end_message`].
pub fn begin_notification(out: &mut BytesMut, method: &str) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    write_str(out, method);
    out.extend_from_slice(br#","params":"#);
}

/// Writes a whole notification; `params` is already-encoded JSON.
pub fn write_notification(out: &mut BytesMut, method: &str, params: Option<&str>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    write_str(out, method);
    if let Some(p) = params {
        out.extend_from_slice(br#","params":"#);
        write_raw(out, p);
    }
    end_message(out);
}

/// Starts a request of the server's own: `{"jsonrpc":"2.0","id":ID,"method":"M","params":`.
/// Write the params value next, then call [`end_message`].
pub fn begin_request(out: &mut BytesMut, id: Id<'_>, method: &str) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    write_id(out, Some(id));
    out.extend_from_slice(br#","method":"#);
    write_str(out, method);
    out.extend_from_slice(br#","params":"#);
}

/// What a message this module wrote is, read from its fixed head alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head<'a> {
    /// `{"jsonrpc":"2.0","id":ID,"result":` ([`begin_result`], [`write_result`]).
    Result(Id<'a>),
    /// `{"jsonrpc":"2.0","id":ID,"error":{"code":N,` ([`write_error`]); no id for `null`.
    Error(Option<Id<'a>>, i32),
    /// `{"jsonrpc":"2.0","id":ID,"method":` ([`begin_request`]).
    Request(Id<'a>),
    /// `{"jsonrpc":"2.0","method":` ([`begin_notification`], [`write_notification`]).
    Notification,
}

/// Reads the head of a message this module's writers wrote: the writer that sent it knows
/// what it is at this cost (the head's bytes, whatever the message's size), with no parse.
/// `None` for any other shape (a batch's line, a message of another writer).
#[must_use]
pub fn read_head(line: &[u8]) -> Option<Head<'_>> {
    let rest = line.strip_prefix(br#"{"jsonrpc":"2.0","#)?;
    if rest.starts_with(br#""method":"#) {
        return Some(Head::Notification);
    }
    let token = rest.strip_prefix(br#""id":"#)?;
    let end = match token.first()? {
        b'"' => {
            // A string id, to its closing quote, past escapes.
            let mut i = 1;
            loop {
                match token.get(i)? {
                    b'\\' => i += 2,
                    b'"' => break i + 1,
                    _ => i += 1,
                }
            }
        }
        _ => token.iter().position(|&b| b == b',')?,
    };
    let raw = core::str::from_utf8(&token[..end]).ok()?;
    let after = &token[end..];
    if after.starts_with(br#","result":"#) {
        return Some(Head::Result(Id::from_written(raw)?));
    }
    if after.starts_with(br#","method":"#) {
        return Some(Head::Request(Id::from_written(raw)?));
    }
    let code = after.strip_prefix(br#","error":{"code":"#)?;
    let digits = code.iter().position(|&b| b == b',')?;
    let code = core::str::from_utf8(&code[..digits]).ok()?.parse().ok()?;
    let id = if raw == "null" {
        None
    } else {
        Some(Id::from_written(raw)?)
    };
    Some(Head::Error(id, code))
}

/// A small writer of nested JSON that puts the commas in by itself.
///
/// # Example
///
/// ```
/// use bytes::BytesMut;
/// use janus_codec::encode::JsonWriter;
///
/// let mut out = BytesMut::new();
/// let mut w = JsonWriter::new(&mut out);
/// w.begin_object();
/// w.key("content").begin_array();
/// w.begin_object().key("type").str("text").key("text").str("hi\n").end_object();
/// w.end_array();
/// w.key("isError").bool(false);
/// w.end_object();
/// assert_eq!(&out[..], br#"{"content":[{"type":"text","text":"hi\n"}],"isError":false}"#);
/// ```
pub struct JsonWriter<'a> {
    out: &'a mut BytesMut,
    /// One entry per open container: true until its first element is written.
    first: SmallVec<[bool; 16]>,
    /// True right after a key, so the value takes no comma.
    after_key: bool,
}

impl<'a> JsonWriter<'a> {
    /// A writer that appends to `out`.
    pub fn new(out: &'a mut BytesMut) -> Self {
        Self {
            out,
            first: SmallVec::new(),
            after_key: false,
        }
    }

    /// The buffer, for writing a part by hand (the writer does not see what is written).
    pub fn buffer(&mut self) -> &mut BytesMut {
        self.out
    }

    #[inline]
    fn sep(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if let Some(first) = self.first.last_mut() {
            if *first {
                *first = false;
            } else {
                self.out.put_u8(b',');
            }
        }
    }

    /// Opens an object.
    pub fn begin_object(&mut self) -> &mut Self {
        self.sep();
        self.out.put_u8(b'{');
        self.first.push(true);
        self
    }

    /// Closes the innermost object.
    pub fn end_object(&mut self) -> &mut Self {
        self.first.pop();
        self.out.put_u8(b'}');
        self
    }

    /// Opens an array.
    pub fn begin_array(&mut self) -> &mut Self {
        self.sep();
        self.out.put_u8(b'[');
        self.first.push(true);
        self
    }

    /// Closes the innermost array.
    pub fn end_array(&mut self) -> &mut Self {
        self.first.pop();
        self.out.put_u8(b']');
        self
    }

    /// Writes an object key; the next call writes its value.
    pub fn key(&mut self, k: &str) -> &mut Self {
        self.sep();
        write_str(self.out, k);
        self.out.put_u8(b':');
        self.after_key = true;
        self
    }

    /// Writes a string value.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.sep();
        write_str(self.out, s);
        self
    }

    /// Writes already-encoded JSON as a value.
    pub fn raw(&mut self, json: &str) -> &mut Self {
        self.sep();
        write_raw(self.out, json);
        self
    }

    /// Writes an integer value.
    pub fn int(&mut self, n: i64) -> &mut Self {
        self.sep();
        write_i64(self.out, n);
        self
    }

    /// Writes a boolean value.
    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.sep();
        self.out
            .extend_from_slice(if b { b"true" as &[u8] } else { b"false" });
        self
    }

    /// Writes `null`.
    pub fn null(&mut self) -> &mut Self {
        self.sep();
        self.out.extend_from_slice(b"null");
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IdBuf;

    #[test]
    fn escapes_every_control_character_and_specials() {
        for c in 0u8..=0x7f {
            let s = String::from(char::from(c));
            let mut out = BytesMut::new();
            write_str(&mut out, &s);
            let back: String = serde_json::from_slice(&out).unwrap();
            assert_eq!(back, s, "byte {c:#x}");
            assert!(!out.contains(&b'\n'));
        }
    }

    #[test]
    fn escapes_land_right_in_every_lane_and_the_tail() {
        for special in ['"', '\\', '\0', '\u{1f}', '\n', '\u{7f}', '\u{e9}'] {
            for len in [1, 15, 16, 17, 33, 40] {
                for at in 0..len {
                    let s: String = (0..len)
                        .map(|i| if i == at { special } else { 'a' })
                        .collect();
                    let mut out = BytesMut::new();
                    write_str(&mut out, &s);
                    assert_eq!(&out[..], serde_json::to_string(&s).unwrap().as_bytes());
                }
            }
        }
    }

    #[test]
    fn raw_line_breaks_inside_strings_never_break_the_line() {
        for bad in ["\"a\nb\"", "[\"a\rb\", 1 ]", "{\"k\": \"x\ny\"}"] {
            let mut out = BytesMut::new();
            write_raw(&mut out, bad);
            assert!(!out.contains(&b'\n') && !out.contains(&b'\r'), "{bad:?}");
        }
    }

    #[test]
    fn white_space_is_found_at_any_place_of_a_text_of_any_length() {
        for len in 0..200 {
            let plain = vec![b'a'; len];
            assert!(!has_white_space(&plain), "{len}");
            for at in 0..len {
                for ws in [b' ', b'\t', b'\r', b'\n'] {
                    let mut one = plain.clone();
                    one[at] = ws;
                    assert!(has_white_space(&one), "{len} {at} {ws}");
                }
            }
        }
    }

    #[test]
    fn a_string_s_spaces_stay_and_the_others_go_at_any_length() {
        for len in 0..150 {
            let body = "a".repeat(len);
            let compact = format!("[\"{body}\",1]");
            assert_eq!(written(&compact), compact);
            for ws in [" ", "\t", "\r\n", "\n  "] {
                let spaced = format!("{ws}[{ws}\"{body}\"{ws},{ws}1{ws}]{ws}");
                assert_eq!(written(&spaced), compact, "{len} {ws:?}");
            }
            for at in 0..len {
                let mut inner = body.clone();
                inner.replace_range(at..=at, " ");
                let text = format!("[\"{inner}\",1]");
                assert_eq!(written(&format!(" {text}")), text, "{len} {at}");
            }
        }
    }

    fn written(json: &str) -> String {
        let mut out = BytesMut::new();
        write_raw(&mut out, json);
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn raw_passthrough_is_compact() {
        let mut out = BytesMut::new();
        write_raw(&mut out, "{\r\n\"a b\" :\n[1, \"x\\\" y\"]\t}");
        assert_eq!(&out[..], br#"{"a b":[1,"x\" y"]}"#);
    }

    #[test]
    fn every_writer_s_head_is_read_back_as_the_whole_parse_reads_it() {
        let ids = [
            IdBuf::from_i64(7),
            IdBuf::from_i64(-3),
            IdBuf::from_string("a\"b\\c,d"),
            IdBuf::from_string("\u{e9} x"),
            IdBuf::from_string("\",\"result\":"),
        ];
        for id in &ids {
            let id = id.as_id();
            let mut out = BytesMut::new();
            write_result(&mut out, id, r#"{"content":[]}"#);
            assert_eq!(read_head(&out), Some(Head::Result(id)));
            out.clear();
            write_error(&mut out, Some(id), -32601, "m", Some(r#"{"code":1}"#));
            assert_eq!(read_head(&out), Some(Head::Error(Some(id), -32601)));
            out.clear();
            begin_request(&mut out, id, "elicitation/create");
            out.extend_from_slice(b"{}");
            end_message(&mut out);
            assert_eq!(read_head(&out), Some(Head::Request(id)));
            let whole = crate::Parser::new()
                .parse_single(out.strip_suffix(b"\n").unwrap())
                .unwrap();
            assert_eq!(whole.id(), Some(id));
        }
        let mut out = BytesMut::new();
        write_error(&mut out, None, -32700, "Parse error", None);
        assert_eq!(read_head(&out), Some(Head::Error(None, -32700)));
        out.clear();
        write_notification(&mut out, "notifications/progress", Some("{}"));
        assert_eq!(read_head(&out), Some(Head::Notification));
        // Other shapes are not read.
        for other in [
            &br#"{"id":1,"jsonrpc":"2.0","result":{}}"#[..],
            br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#,
            br#"{"jsonrpc":"2.0","id":"open"#,
            br#"{"jsonrpc":"2.0","id":true,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"message":"m","code":1}}"#,
        ] {
            assert_eq!(read_head(other), None, "{}", String::from_utf8_lossy(other));
        }
    }
}
