//! Writers of JSON-RPC messages straight into a `BytesMut`, without serde.
//!
//! Every message is compact JSON followed by one `\n`, and never holds another raw line
//! break: strings are escaped, and passthrough JSON has its raw `\r`/`\n` white space (the only
//! place they can be in valid JSON) replaced with spaces.
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

use crate::message::Id;
use bytes::{BufMut, BytesMut};
use smallvec::SmallVec;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `w` that needs escaping (exact for the lowest one).
#[inline(always)]
const fn needs_escape_mask(w: u64) -> u64 {
    let q = w ^ (LO * b'"' as u64);
    let b = w ^ (LO * b'\\' as u64);
    let quote = q.wrapping_sub(LO) & !q;
    let bslash = b.wrapping_sub(LO) & !b;
    let control = w.wrapping_sub(LO * 0x20) & !w;
    (quote | bslash | control) & HI
}

#[inline(always)]
const fn needs_escape(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The offset of the first byte of `s` at or after `from` that needs escaping.
#[inline]
fn next_escape(s: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + 8 <= s.len() {
        let w = u64::from_le_bytes([
            s[i],
            s[i + 1],
            s[i + 2],
            s[i + 3],
            s[i + 4],
            s[i + 5],
            s[i + 6],
            s[i + 7],
        ]);
        let m = needs_escape_mask(w);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..].iter().position(|&c| needs_escape(c)).map(|p| p + i)
}

/// Writes `s` as a JSON string (quoted and escaped).
///
/// Runs that need no escape are copied whole; `"`, `\` and control characters are escaped
/// (`\n`, `\t`... or `\u00XX`). Non-ASCII text is written as UTF-8.
pub fn write_str(out: &mut BytesMut, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.put_u8(b'"');
    let mut run = 0;
    while let Some(i) = next_escape(b, run) {
        out.extend_from_slice(&b[run..i]);
        let c = b[i];
        let short = match c {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            0x08 => Some(b'b'),
            0x0c => Some(b'f'),
            _ => None,
        };
        match short {
            Some(e) => out.extend_from_slice(&[b'\\', e]),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(c >> 4)],
                    HEX[usize::from(c & 0xf)],
                ]);
            }
        }
        run = i + 1;
    }
    out.extend_from_slice(&b[run..]);
    out.put_u8(b'"');
}

/// Writes JSON text that is already encoded (a value the caller knows to be valid), as is,
/// but for raw `\r` and `\n` (white space in valid JSON), which become spaces.
pub fn write_raw(out: &mut BytesMut, json: &str) {
    let b = json.as_bytes();
    if memchr::memchr2(b'\n', b'\r', b).is_none() {
        out.extend_from_slice(b);
        return;
    }
    out.reserve(b.len());
    let mut run = 0;
    for i in memchr::memchr2_iter(b'\n', b'\r', b) {
        out.extend_from_slice(&b[run..i]);
        out.put_u8(b' ');
        run = i + 1;
    }
    out.extend_from_slice(&b[run..]);
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
    fn the_mask_finds_the_first_byte_in_every_lane() {
        for special in [b'"', b'\\', 0u8, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut s = vec![b'a'; 20];
                s[at] = special;
                assert_eq!(next_escape(&s, 0), Some(at));
            }
        }
        assert_eq!(
            next_escape(&[0x7f, b' ', 0xc3, 0xa9, b'~', 0x20, 0x21, 0xff], 0),
            None
        );
    }

    #[test]
    fn raw_passthrough_removes_line_breaks() {
        let mut out = BytesMut::new();
        write_raw(&mut out, "{\r\n\"a\" :\n1}");
        assert_eq!(&out[..], b"{  \"a\" : 1}");
    }
}
