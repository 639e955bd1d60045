//! Raw JSON values read in place, and the string escapes both ways: [`RawJson`], [`Id`] and
//! [`IdBuf`], the walk over an object's members, unescaping and escaping.
//!
//! Everything here reads text the scanner (`scan.rs`) validated, or writes text that the
//! scanner would accept; nothing knows what a JSON-RPC message is.

use crate::Error;
use crate::arch::{escape_mask16, needs_escape};
use crate::scan::{Kind, Scanner, Span};
use crate::text::Text;
use bytes::{BufMut, BytesMut};
use core::fmt;
use smallvec::SmallVec;
use std::borrow::Cow;

/// A span of JSON text inside a frame, already validated.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawJson<'buf>(&'buf str);

impl<'buf> RawJson<'buf> {
    /// The JSON text, exactly as it stands in the frame.
    #[must_use]
    pub const fn as_str(self) -> &'buf str {
        self.0
    }

    /// The JSON text as bytes.
    #[must_use]
    pub const fn as_bytes(self) -> &'buf [u8] {
        self.0.as_bytes()
    }

    /// True when the value is an object.
    #[must_use]
    pub fn is_object(self) -> bool {
        self.0.as_bytes().first() == Some(&b'{')
    }

    /// True when the value is a string.
    #[must_use]
    pub fn is_string(self) -> bool {
        self.0.as_bytes().first() == Some(&b'"')
    }

    /// True when the value is `null`.
    #[must_use]
    pub fn is_null(self) -> bool {
        self.0 == "null"
    }

    /// The decoded value of a JSON string; `None` for other values.
    /// It borrows from the frame unless the string holds escapes.
    #[must_use]
    #[inline]
    pub fn as_string(self) -> Option<Cow<'buf, str>> {
        let inner = self.0.strip_prefix('"')?.strip_suffix('"')?;
        Some(decode(inner, inner.contains('\\')))
    }

    /// Looks up `key` among the members of this object (the last one wins, as in
    /// `serde_json::Value`). `None` when the value is not an object or has no such member.
    #[must_use]
    pub fn get(self, key: &str) -> Option<Self> {
        let mut found = None;
        for_each_member(self, |k, escaped, v| {
            if raw_eq(k.as_bytes(), escaped, key) {
                found = Some(v);
            }
        });
        found
    }

    /// Looks up several members of this object in one pass (the last of a duplicated key
    /// wins); each slot is `None` when the value is not an object or lacks that key.
    ///
    /// # Example
    ///
    /// ```
    /// use janus_codec::RawJson;
    ///
    /// let params = RawJson::parse(r#"{"name":"echo","arguments":{"text":"hi"}}"#).unwrap();
    /// let [name, args] = params.get_many(["name", "arguments"]);
    /// assert_eq!(name.unwrap().as_str(), r#""echo""#);
    /// assert_eq!(args.unwrap().as_str(), r#"{"text":"hi"}"#);
    /// ```
    #[must_use]
    pub fn get_many<const N: usize>(self, keys: [&str; N]) -> [Option<Self>; N] {
        let mut found = [None; N];
        for_each_member(self, |k, escaped, v| {
            if let Some(i) = keys
                .iter()
                .position(|key| raw_eq(k.as_bytes(), escaped, key))
            {
                found[i] = Some(v);
            }
        });
        found
    }

    /// Checks that `json` is one JSON value, as the parse of a frame checks each value (the
    /// grammar, escapes, numbers that fit a double; any depth, since the scan is iterative),
    /// and wraps it. White space around the value is left out, as in the spans of a
    /// [`crate::Message`].
    ///
    /// # Errors
    ///
    /// The fault, as [`crate::Parser::parse`] would name it: [`Error::Truncated`] when the
    /// text ends inside the value (or holds none), [`Error::Syntax`] when more than one value
    /// or something else follows, and so on.
    ///
    /// # Example
    ///
    /// ```
    /// use janus_codec::{Error, RawJson};
    ///
    /// assert_eq!(RawJson::parse(" \"a\\u00e9\" ").unwrap().as_string().unwrap(), "a\u{e9}");
    /// assert_eq!(RawJson::parse(r#""\""#), Err(Error::Truncated));
    /// assert_eq!(RawJson::parse("1 2"), Err(Error::Syntax));
    /// ```
    pub fn parse(json: &'buf str) -> Result<Self, Error> {
        let mut sc = Scanner::validated(json.as_bytes());
        let start = sc.mark()?;
        sc.value(0)?;
        let value = sc.since(start);
        if !sc.at_end() {
            return Err(Error::Syntax);
        }
        Ok(Self(Text::of_str(json).span(value)))
    }

    /// Wraps text that the scanner took as one JSON value (every accessor relies on that).
    pub(crate) const fn new_unchecked(json: &'buf str) -> Self {
        Self(json)
    }
}

impl fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl<'buf> RawJson<'buf> {
    /// Whether an object has a member whose key is none of `keys` (false for other values),
    /// found without decoding or collecting its members.
    #[must_use]
    pub fn has_other_members(self, keys: &[&str]) -> bool {
        let mut other = false;
        for_each_member(self, |k, escaped, _| {
            other |= !keys.iter().any(|key| raw_eq(k.as_bytes(), escaped, key));
        });
        other
    }

    /// The members of an object, in order, each key decoded (borrowed unless it has escapes);
    /// empty for other values.
    #[must_use]
    pub fn members(self) -> Vec<(Cow<'buf, str>, Self)> {
        let mut out = Vec::new();
        for_each_member(self, |k, escaped, v| out.push((decode(k, escaped), v)));
        out
    }
}

impl<'buf> RawJson<'buf> {
    /// True when the value is an array.
    #[must_use]
    pub fn is_array(self) -> bool {
        self.0.starts_with('[')
    }

    /// The elements of an array, in order; empty for other values.
    #[must_use]
    pub fn elements(self) -> Vec<Self> {
        self.iter_elements().collect()
    }

    /// The elements of an array, in order, each read as it is asked for (no vector); none
    /// for other values.
    ///
    /// # Example
    ///
    /// ```
    /// use janus_codec::RawJson;
    ///
    /// let v = RawJson::parse(r#"[1, {"a":[2]}, "x"]"#).unwrap();
    /// let texts: Vec<&str> = v.iter_elements().map(|e| e.as_str()).collect();
    /// assert_eq!(texts, ["1", r#"{"a":[2]}"#, r#""x""#]);
    /// ```
    #[must_use]
    pub fn iter_elements(self) -> Elements<'buf> {
        Elements {
            text: Text::of_str(self.0),
            sc: self.is_array().then(|| Scanner::trusted(self.0.as_bytes())),
            started: false,
        }
    }
}

/// The elements of an array ([`RawJson::iter_elements`]).
pub struct Elements<'buf> {
    text: Text<'buf>,
    /// `None` once the array has ended (or for a value that is no array).
    sc: Option<Scanner<'buf>>,
    started: bool,
}

impl fmt::Debug for Elements<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Elements")
            .field("ended", &self.sc.is_none())
            .finish_non_exhaustive()
    }
}

impl<'buf> Iterator for Elements<'buf> {
    type Item = RawJson<'buf>;

    fn next(&mut self) -> Option<RawJson<'buf>> {
        let sc = self.sc.as_mut()?;
        // The text is validated, so none of these steps can fail; end quietly if one does.
        let step = |sc: &mut Scanner<'buf>, started: bool| -> Result<Option<Span<'buf>>, Error> {
            let more = if started {
                sc.element_end()?
            } else {
                sc.enter_array(0)?
            };
            if !more {
                return Ok(None);
            }
            let start = sc.mark()?;
            sc.value(1)?;
            Ok(Some(sc.since(start)))
        };
        let got = step(sc, self.started).ok().flatten();
        self.started = true;
        match got {
            Some(span) => Some(RawJson(self.text.span(span))),
            None => {
                self.sc = None;
                None
            }
        }
    }
}

/// Calls `f(raw key, key has escapes, value)` for each member of a validated object.
pub(crate) fn for_each_member<'buf>(
    obj: RawJson<'buf>,
    mut f: impl FnMut(&'buf str, bool, RawJson<'buf>),
) {
    if !obj.is_object() {
        return;
    }
    let text = Text::of_str(obj.0);
    let mut sc = Scanner::trusted(obj.0.as_bytes());
    // The text is validated, so none of these steps can fail; stop quietly if one does.
    let _ = (|| -> Result<(), Error> {
        if !sc.enter_object(0)? {
            return Ok(());
        }
        loop {
            let (k, escaped) = sc.key()?;
            let start = sc.mark()?;
            sc.value(1)?;
            f(text.span(k), escaped, RawJson(text.span(sc.since(start))));
            if !sc.member_end()? {
                return Ok(());
            }
        }
    })();
}

/// A validated raw string (as between its quotes) as text: borrowed when it holds no escape.
#[inline(always)]
pub(crate) fn decode(raw: &str, escaped: bool) -> Cow<'_, str> {
    // Inline, a string without escapes (nearly every method) is borrowed with no call.
    if escaped {
        Cow::Owned(unescaped(raw))
    } else {
        Cow::Borrowed(raw)
    }
}

/// [`decode`] of a raw string that holds an escape.
fn unescaped(raw: &str) -> String {
    let mut s = String::new();
    unescape_into(raw, &mut s);
    s
}

/// A JSON-RPC id: a string or an integer, kept as its raw bytes so that it is echoed byte for
/// byte, and so that `1` and `"1"` stay different.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Id<'buf>(&'buf str);

impl<'buf> Id<'buf> {
    /// Wraps the text of a string or an integer that the scanner took as one.
    pub(crate) const fn new_unchecked(raw: &'buf str) -> Self {
        Self(raw)
    }

    /// Wraps the id of a message an encoder of this crate wrote: `None` unless it looks like
    /// one (a quoted string, or an integer's sign or digit first).
    pub(crate) fn from_written(raw: &'buf str) -> Option<Self> {
        let b = raw.as_bytes();
        let string = b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"';
        let integer = !b.is_empty() && (b[0] == b'-' || b[0].is_ascii_digit());
        (string || integer).then_some(Self(raw))
    }

    /// The id as JSON text: a quoted string (escapes as sent) or an integer.
    #[must_use]
    pub const fn as_raw(self) -> &'buf str {
        self.0
    }

    /// True for a string id.
    #[must_use]
    pub fn is_string(self) -> bool {
        self.0.as_bytes()[0] == b'"'
    }

    /// The value of an integer id that fits an `i64`.
    #[must_use]
    pub fn as_i64(self) -> Option<i64> {
        if self.is_string() {
            None
        } else {
            self.0.parse().ok()
        }
    }

    /// The decoded text of a string id.
    #[must_use]
    pub fn as_string(self) -> Option<Cow<'buf, str>> {
        RawJson(self.0).as_string()
    }

    /// Copies the id out of its frame (inline up to 23 bytes: no allocation for usual ids).
    #[must_use]
    pub fn to_owned(self) -> IdBuf {
        IdBuf(SmallVec::from_slice(self.0.as_bytes()))
    }

    /// Reads an id from JSON text: a string or an integer, as a request id must be.
    #[must_use]
    pub fn from_json(raw: RawJson<'buf>) -> Option<Self> {
        let mut sc = Scanner::validated(raw.0.as_bytes());
        match sc.value(0) {
            Ok(Kind::String { .. } | Kind::Integer) if sc.at_end() => Some(Id(raw.0)),
            _ => None,
        }
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Display for Id<'_> {
    /// Writes the id as JSON, so `92` and `"92"` read differently.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// An owned JSON-RPC id: the raw JSON bytes, inline up to 23 bytes.
///
/// INVARIANT: the bytes are the UTF-8 text of an id: they come from an [`Id`] (a span of a
/// checked frame) or from the constructors, which write JSON.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IdBuf(SmallVec<[u8; 23]>);

impl IdBuf {
    /// An integer id.
    #[must_use]
    pub fn from_i64(n: i64) -> Self {
        let mut b = itoa::Buffer::new();
        Self(SmallVec::from_slice(b.format(n).as_bytes()))
    }

    /// A string id, escaped as JSON needs.
    #[must_use]
    pub fn from_string(s: &str) -> Self {
        let mut out = bytes::BytesMut::new();
        write_str(&mut out, s);
        Self(SmallVec::from_slice(&out))
    }

    /// Borrows the id.
    #[must_use]
    pub fn as_id(&self) -> Id<'_> {
        Id(core::str::from_utf8(&self.0).expect("an IdBuf holds the UTF-8 text of an id"))
    }
}

impl fmt::Debug for IdBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.as_id(), f)
    }
}

/// Compares a raw string (as between its quotes) with `want`, decoding escapes when there are
/// any. `want` must not need escaping.
///
/// The raw bytes need not be known UTF-8 yet: the parse compares keys before it checks the
/// frame's UTF-8, and a frame that fails that check is refused whatever its keys are.
#[inline(always)]
pub(crate) fn raw_eq(raw: &[u8], escaped: bool, want: &str) -> bool {
    // Inline, the compare of a key or a value without escapes against a constant is a few
    // loads, where a call compared it through `memcmp`.
    if escaped {
        escaped_eq(raw, want)
    } else {
        raw == want.as_bytes()
    }
}

/// [`raw_eq`] of a raw string that holds an escape.
fn escaped_eq(raw: &[u8], want: &str) -> bool {
    // An escape is at least two bytes for one, so a decoded match is never longer than raw.
    if raw.len() < want.len() {
        return false;
    }
    let mut rest = want.as_bytes();
    let mut ok = true;
    for_each_piece(raw, |piece| match piece {
        Piece::Raw(run) => match rest.strip_prefix(&raw[run]) {
            Some(r) => rest = r,
            None => ok = false,
        },
        Piece::Char(c) => {
            let mut tmp = [0u8; 4];
            match rest.strip_prefix(c.encode_utf8(&mut tmp).as_bytes()) {
                Some(r) => rest = r,
                None => ok = false,
            }
        }
    });
    ok && rest.is_empty()
}

/// Decodes a validated raw string (as between its quotes) into `out`.
pub(crate) fn unescape_into(raw: &str, out: &mut String) {
    out.reserve(raw.len());
    for_each_piece(raw.as_bytes(), |piece| match piece {
        // Runs start and end at a `\` or at an end of `raw`: both are char boundaries.
        Piece::Raw(run) => out.push_str(raw.get(run).unwrap_or_default()),
        Piece::Char(c) => out.push(c),
    });
}

/// A piece of a raw string: where a run of it stands as it is, or the character of one escape.
enum Piece {
    Raw(core::ops::Range<usize>),
    Char(char),
}

/// Calls `f` with each piece of a raw string whose escapes were checked, in order.
fn for_each_piece(b: &[u8], mut f: impl FnMut(Piece)) {
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if run < i {
            f(Piece::Raw(run..i));
        }
        let (c, len) = match b[i + 1] {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            _ => {
                let hi = hex(&b[i + 2..i + 6]);
                if (0xD800..0xDC00).contains(&hi) {
                    let lo = hex(&b[i + 8..i + 12]);
                    let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    (char::from_u32(cp).unwrap_or('\u{FFFD}'), 12)
                } else {
                    (char::from_u32(hi).unwrap_or('\u{FFFD}'), 6)
                }
            }
        };
        f(Piece::Char(c));
        i += len;
        run = i;
    }
    if run < b.len() {
        f(Piece::Raw(run..b.len()));
    }
}

fn hex(d: &[u8]) -> u32 {
    d.iter().fold(0, |v, &c| {
        let n = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => c - b'A' + 10,
        };
        (v << 4) | u32::from(n)
    })
}

/// Writes `s` as a JSON string (quoted and escaped).
///
/// Runs that need no escape are copied whole; `"`, `\` and control characters are escaped
/// (`\n`, `\t`... or `\u00XX`). Non-ASCII text is written as UTF-8.
pub(crate) fn write_str(out: &mut BytesMut, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.put_u8(b'"');
    // `run` is where the bytes not yet copied start: plain runs are copied whole, at the next
    // escape or at the end.
    let mut run = 0;
    let mut i = 0;
    while let Some(block) = b.get(i..i + 16) {
        let mut m = escape_mask16(block.try_into().unwrap_or(&[0; 16]));
        while m != 0 {
            let at = i + m.trailing_zeros() as usize;
            out.extend_from_slice(&b[run..at]);
            write_escape(out, b[at]);
            run = at + 1;
            m &= m - 1;
        }
        i += 16;
    }
    for (at, &c) in b.iter().enumerate().skip(i) {
        if needs_escape(c) {
            out.extend_from_slice(&b[run..at]);
            write_escape(out, c);
            run = at + 1;
        }
    }
    out.extend_from_slice(&b[run..]);
    out.put_u8(b'"');
}

/// Writes the escape of one byte that needs it (`"`, `\\` or a control character).
#[inline]
fn write_escape(out: &mut BytesMut, c: u8) {
    let short = match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 0xf)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_decode_and_compare() {
        let mut out = String::new();
        unescape_into(r#"a\u00e9\n\ud83d\ude00\/"#, &mut out);
        assert_eq!(out, "a\u{e9}\n\u{1F600}/");
        assert!(raw_eq(br"js\u006fnrpc", true, "jsonrpc"));
        assert!(!raw_eq(br"js\u006fnrpcx", true, "jsonrpc"));
        assert!(!raw_eq(br"js\u006fr", true, "jsonrpc"));
        // Raw runs of non-ASCII text around escapes.
        out.clear();
        unescape_into("\u{e9}\\t\u{fc}", &mut out);
        assert_eq!(out, "\u{e9}\t\u{fc}");
        assert!(raw_eq("\u{e9}\\u00e9".as_bytes(), true, "\u{e9}\u{e9}"));
        assert!(!raw_eq("\u{e9}\\u00e9".as_bytes(), true, "\u{e9}e"));
    }

    #[test]
    fn elements_read_an_array_in_order_whatever_its_spacing() {
        let v = RawJson::parse(" [ 1 , {\"a\":[2,3]} ,\"x,]\" , [] , null ] ").unwrap();
        assert!(v.is_array());
        assert_eq!(
            v.elements()
                .into_iter()
                .map(RawJson::as_str)
                .collect::<Vec<_>>(),
            ["1", r#"{"a":[2,3]}"#, r#""x,]""#, "[]", "null"]
        );
        assert!(RawJson::parse("[ ]").unwrap().elements().is_empty());
        assert!(RawJson::parse(r#"{"a":1}"#).unwrap().elements().is_empty());
        // The iterator ends for good, and reads lazily.
        let mut it = RawJson::parse("[[1],2]").unwrap().iter_elements();
        assert_eq!(it.next().map(RawJson::as_str), Some("[1]"));
        assert_eq!(it.next().map(RawJson::as_str), Some("2"));
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
    }

    #[test]
    fn get_many_reads_several_members_in_one_walk() {
        let v = RawJson::parse(r#"{"a":1,"b":{"c":2},"a":3}"#).unwrap();
        assert_eq!(
            v.get_many(["a", "b", "z"]).map(|x| x.map(RawJson::as_str)),
            [Some("3"), Some(r#"{"c":2}"#), None]
        );
        assert_eq!(RawJson::parse("[1]").unwrap().get_many(["a"]), [None]);
    }

    #[test]
    fn members_come_in_order_with_their_keys_decoded() {
        let v = RawJson::parse(r#"{"a":1,"b\u00e9":{"c":2},"a":[3]}"#).unwrap();
        let m: Vec<(String, &str)> = v
            .members()
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.as_str()))
            .collect();
        assert_eq!(
            m,
            [
                ("a".to_owned(), "1"),
                ("b\u{e9}".to_owned(), r#"{"c":2}"#),
                ("a".to_owned(), "[3]")
            ]
        );
        assert!(RawJson::parse("[1,2]").unwrap().members().is_empty());
    }
}
