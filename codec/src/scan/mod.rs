//! The structural scanner: one validating pass over JSON text, no DOM.
//!
//! The scanner walks a frame as bytes, not yet known to be UTF-8, and checks the JSON grammar
//! as RFC 8259 and `serde_json` define it: strings (no raw control characters, only the
//! defined escapes, `\u` surrogates in pairs), numbers (grammar, and a value that fits a
//! double, as `serde_json` demands), literals, and nesting up to a limit.
//! It is iterative: nesting costs one bit of a small inline stack, never a stack frame, so no
//! input can overflow the call stack.
//!
//! Strings are read from masks of their special bytes (quotes, backslashes, raw control
//! bytes). A short plain string (most keys and values) is skipped inline from the masks of one
//! 16-byte chunk, where its end comes from the quote mask alone and the other mask only
//! confirms it (the walk is bound by the latency from one token's end to the next); longer
//! ones, and those with escapes, are read 64 bytes at a time (`string.rs`). Numbers are read
//! in `number.rs`, white space in `space.rs`; the walk keeps the kinds of the open
//! containers one bit a level (`containers.rs`).
//! Once a container's walk has taken [`BULK_AFTER`] bytes, the rest of it goes to the bulk
//! scan (`bulk.rs`), which validates 64 bytes at a time from masks of each block, with no
//! step per token.
//! The masks come from `arch`: SSE2 compares through `safe_arch` (a plain loop on other
//! targets), and for blocks of 64 bytes the kernels of AVX2 or AVX-512BW when the CPU has them.
//!
//! The scan notes whether it took any byte above ASCII (all of them sit inside strings):
//! a frame scanned whole without one is ASCII, so it is UTF-8 without a second pass, and any
//! other frame is checked with `simdutf8` afterwards (see `text.rs`). Until then the bytes of
//! a string may be anything above ASCII.

mod blocks;
mod bulk;
mod containers;
mod number;
mod space;
mod string;

use containers::Containers;

use string::escaped_bytes;
pub(crate) use string::trusted_string_end;

pub(crate) use bulk::BULK_AFTER;
#[cfg(test)]
pub(crate) use bulk::bulk_end;

use crate::Error;
use crate::arch::quotes16;

/// The kind of a JSON value, as seen from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    /// A string; `escaped` is true when it holds at least one `\` escape.
    String {
        escaped: bool,
    },
    /// A number that `serde_json` reads as `i64` or `u64`.
    Integer,
    /// Any other number.
    Float,
    Bool,
    Null,
}

/// The sixteen bytes of `b` from `at`, when there are that many.
#[inline(always)]
fn chunk16(b: &[u8], at: usize) -> Option<&[u8; 16]> {
    b.get(at..at + 16)?.try_into().ok()
}

/// The sixty-four bytes of `b` from `at`, when there are that many.
#[inline(always)]
fn chunk64(b: &[u8], at: usize) -> Option<&[u8; 64]> {
    b.get(at..at + 64)?.try_into().ok()
}

/// The block of `b` at `at` and how many of its bytes are text: the text's 64 bytes there, or
/// at its end the bytes left, copied into `padded` (spaces, which no scan takes for more than
/// white space, fill the rest).
#[inline(always)]
fn block_at<'a>(b: &'a [u8], at: usize, padded: &'a mut [u8; 64]) -> (&'a [u8; 64], usize) {
    match chunk64(b, at) {
        Some(block) => (block, 64),
        None => {
            let rest = b.get(at..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            (padded, rest.len())
        }
    }
}

/// `n` as a `u32`, or `u32::MAX` when it is larger (a limit no text reaches).
const fn saturating_u32(n: usize) -> u32 {
    if n > u32::MAX as usize {
        u32::MAX
    } else {
        n as u32
    }
}

/// `m` without its lowest set bit.
#[inline(always)]
const fn without_lowest(m: u64) -> u64 {
    m & m.wrapping_sub(1)
}

/// The bits of `m` up to its lowest set one, that one included (all bits when `m` is 0).
#[inline(always)]
const fn up_to_lowest(m: u64) -> u64 {
    m ^ m.wrapping_sub(1)
}

/// Bytes of a scanned text that the scanner took as one value, or as the body of a string
/// (a key's, say), for `text.rs` to hand out as `&str`.
///
/// Only this module makes one, which is what lets `Text::span` trust it without a check.
///
/// INVARIANT: each end of the span is a position `p` of the scanner's text where the byte at
/// `p` or the byte at `p - 1` is an ASCII byte of that text. In any UTF-8 text that holds
/// those bytes, such a `p` is a character boundary: an ASCII byte is a whole character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span<'buf>(&'buf [u8]);

impl<'buf> Span<'buf> {
    /// The bytes of the span.
    #[inline(always)]
    pub(crate) const fn bytes(self) -> &'buf [u8] {
        self.0
    }

    /// The body of a string value's span (between its quotes); empty, at the span's start,
    /// when the span is not a string's.
    #[inline(always)]
    pub(crate) fn string_body(self) -> Self {
        match self.0 {
            // INVARIANT: the body's ends are next to the quotes, which are ASCII.
            [b'"', body @ .., b'"'] => Self(body),
            // INVARIANT: the span's start is one of its ends, so it meets the invariant.
            _ => Self(&self.0[..0]),
        }
    }
}

/// Where a value starts, for [`Scanner::since`]: a position the scanner stood at, at an ASCII
/// byte.
///
/// INVARIANT: the byte at this position of the scanner's text is ASCII.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark(usize);

/// A cursor over one JSON text.
pub(crate) struct Scanner<'buf> {
    /// The whole text, not yet known to be UTF-8: see [`Scanner::maybe_non_ascii`].
    b: &'buf [u8],
    /// Where the scan is. Every byte before it that the scan took is part of a token it
    /// checked.
    ///
    /// INVARIANT: 0, or the byte at `pos - 1` is ASCII: every step of the scan ends just after
    /// a byte of JSON syntax (a quote, a bracket, `:`, `,`, white space, a digit or a
    /// literal's letter). [`Span`] relies on it; only this module moves the cursor.
    pos: usize,
    /// The nesting limit (`u32::MAX`: none that a text can reach).
    max_depth: u32,
    /// INVARIANT: false only while every byte the scan took is ASCII. The grammar takes bytes
    /// above ASCII only inside strings; the short-string paths refuse them (leaving such a
    /// string to [`Scanner::string_with`]); `string_with` and the bulk scan take them and set
    /// this when a string they took holds one (from the masks of its blocks). A frame scanned
    /// whole with this false is ASCII, so it is UTF-8 without a second pass (`text.rs` relies
    /// on this).
    maybe_non_ascii: bool,
    /// The text is known to be valid JSON ([`Scanner::trusted`]).
    trusted: bool,
    /// True when a `\n` ends the text (it is not white space): the scan of a line at the
    /// start of a buffer that holds more than the line.
    newline_ends: bool,
    /// How many bytes a container's token walk takes before it hands the rest to the bulk
    /// scan (`bulk.rs`).
    bulk_after: u32,
    /// How many bytes of its first block squeezing must drop for the bulk scan to read the
    /// text squeezed (`blocks.rs`): the kernel's own figure, or this one (0: always, with any
    /// kernel).
    squeeze_from: Option<u32>,
}

impl<'buf> Scanner<'buf> {
    pub(crate) const fn new(b: &'buf [u8], max_depth: usize) -> Self {
        Self {
            b,
            pos: 0,
            max_depth: saturating_u32(max_depth),
            maybe_non_ascii: false,
            newline_ends: false,
            trusted: false,
            bulk_after: bulk::BULK_AFTER as u32,
            squeeze_from: None,
        }
    }

    /// A scanner over `text` with this one's reading of a line feed, for the escapes and the
    /// literals of text that a bulk scan squeezed (`blocks.rs`).
    #[inline(always)]
    const fn view<'t>(&self, text: &'t [u8]) -> Scanner<'t> {
        let mut view = Scanner::new(text, usize::MAX);
        view.newline_ends = self.newline_ends;
        view
    }

    /// Sets how many bytes of its first block squeezing must drop for the bulk scan to read
    /// the text squeezed (0: always, with any kernel; above 64: never; `None`: as the kernel
    /// says).
    pub(crate) const fn with_squeeze_from(mut self, bytes: Option<usize>) -> Self {
        self.squeeze_from = match bytes {
            Some(n) => Some(saturating_u32(n)),
            None => None,
        };
        self
    }

    /// Sets how many bytes a container's token walk takes before it hands the rest to the bulk
    /// scan (`usize::MAX`: never).
    pub(crate) const fn with_bulk_after(mut self, bytes: usize) -> Self {
        self.bulk_after = saturating_u32(bytes);
        self
    }

    /// A scanner without a depth limit (for text that an earlier pass validated, or that
    /// [`crate::RawJson::parse`] validates now).
    pub(crate) const fn validated(b: &'buf [u8]) -> Self {
        Self::new(b, usize::MAX)
    }

    /// A scanner over text known to be one valid JSON value or more (a [`crate::RawJson`],
    /// a batch already scanned): containers are skipped by their brackets, not checked again.
    /// Scalars are read as usual, so every [`Kind`] is what a validating scan gives.
    pub(crate) const fn trusted(b: &'buf [u8]) -> Self {
        let mut sc = Self::new(b, usize::MAX);
        sc.trusted = true;
        sc
    }

    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// A scanner over the line at the start of `b`, which may hold more after the line's
    /// `\n`: that `\n` ends the text ([`Scanner::at_end`] is true there).
    pub(crate) const fn line_at_start(b: &'buf [u8], max_depth: usize) -> Self {
        let mut sc = Self::new(b, max_depth);
        sc.newline_ends = true;
        sc
    }

    /// Skips white space, then takes the ASCII byte `c` or fails.
    #[inline(always)]
    pub(crate) fn expect(&mut self, c: u8) -> Result<(), Error> {
        match self.peek_past_ws() {
            // INVARIANT of `pos`: `c` is ASCII (a constant at every call, so this folds away).
            Some(x) if x == c && c.is_ascii() => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(Error::Syntax),
            None => Err(Error::Truncated),
        }
    }

    /// The bytes from the cursor on.
    #[inline(always)]
    pub(crate) fn rest(&self) -> &'buf [u8] {
        &self.b[self.pos.min(self.b.len())..]
    }

    /// False when every byte the scan took is ASCII (see the field's INVARIANT).
    #[cfg_attr(janus_codec_safe, allow(dead_code))]
    #[inline(always)]
    pub(crate) const fn maybe_non_ascii(&self) -> bool {
        self.maybe_non_ascii
    }

    /// True when `frame` is the start of this scanner's text and the cursor is past it: the
    /// scan took every byte of `frame`.
    #[cfg_attr(janus_codec_safe, allow(dead_code))]
    #[inline(always)]
    pub(crate) fn took_all_of(&self, frame: &[u8]) -> bool {
        core::ptr::eq(self.b.as_ptr(), frame.as_ptr())
            && frame.len() <= self.b.len()
            && self.pos >= frame.len()
    }

    /// Where the scan is (the length of the text it took so far).
    #[inline(always)]
    pub(crate) const fn pos(&self) -> usize {
        self.pos
    }

    /// Skips white space and marks where the next value starts, for [`Scanner::since`].
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] at the end of the text, and [`Error::Syntax`] at a byte above ASCII,
    /// which no value starts with: what [`Scanner::value`] would say there.
    #[inline(always)]
    pub(crate) fn mark(&mut self) -> Result<Mark, Error> {
        match self.peek_past_ws() {
            // INVARIANT: the byte at the mark is ASCII.
            Some(c) if c.is_ascii() => Ok(Mark(self.pos)),
            Some(_) => Err(Error::Syntax),
            None => Err(Error::Truncated),
        }
    }

    /// The text from `start` to the cursor: the value taken since the mark.
    #[inline(always)]
    pub(crate) fn since(&self, start: Mark) -> Span<'buf> {
        // INVARIANT: the start is a mark, at an ASCII byte; the end is the cursor, just after
        // an ASCII byte (the INVARIANT of `pos`) or at the mark itself.
        Span(&self.b[start.0..self.pos])
    }

    /// Takes `lit` (ASCII text) when the text at the cursor starts with it.
    #[inline(always)]
    pub(crate) fn take(&mut self, lit: &'static [u8]) -> bool {
        // INVARIANT of `pos`: the cursor lands after the last byte of `lit`, checked ASCII (a
        // constant at every call, so the check folds away).
        let taken = lit.last().is_some_and(u8::is_ascii) && self.rest().starts_with(lit);
        if taken {
            self.pos += lit.len();
        }
        taken
    }

    /// Takes `first` then `then` (ASCII text) when the text at the cursor starts with the two,
    /// compared apart (so that each stays a compare against a short constant).
    #[inline(always)]
    pub(crate) fn take_pair(&mut self, first: &'static [u8], then: &'static [u8]) -> bool {
        // INVARIANT of `pos`: the cursor lands after the last byte of `then`, checked ASCII (a
        // constant at every call, so the check folds away).
        let rest = self.rest();
        let taken = then.last().is_some_and(u8::is_ascii)
            && rest.starts_with(first)
            && rest[first.len()..].starts_with(then);
        if taken {
            self.pos += first.len() + then.len();
        }
        taken
    }

    /// Takes the member `lit` (a key, its colon and a value, in ASCII) when the text at the
    /// cursor starts with it, and returns the span of its value, which starts at `value_at`.
    #[inline(always)]
    pub(crate) fn take_member(
        &mut self,
        lit: &'static [u8],
        value_at: usize,
    ) -> Option<Span<'buf>> {
        // INVARIANT: the value's span starts at an ASCII byte and ends after one (checked; a
        // constant at every call, so the checks fold away).
        if !lit.get(value_at).is_some_and(u8::is_ascii) {
            return None;
        }
        let start = self.pos;
        self.take(lit)
            .then(|| Span(&self.b[start + value_at..self.pos]))
    }

    /// True when only white space is left (up to a `\n` that ends the text, when one does).
    #[inline]
    pub(crate) fn at_end(&mut self) -> bool {
        // A line's scan ends at its `\n`, which is no white space there: one load says so,
        // where the white-space steps would look for a run first.
        match self.b.get(self.pos) {
            None => return true,
            Some(b'\n') if self.newline_ends => return true,
            _ => {}
        }
        self.skip_ws();
        match self.b.get(self.pos) {
            None => true,
            Some(&c) => c == b'\n' && self.newline_ends,
        }
    }

    /// The offset of the closing quote of a short plain string (no escape, no control byte
    /// and no byte above ASCII before a closing quote within 160 bytes) whose body starts at
    /// `start`; `None` sends the caller to [`Scanner::string`], which handles every string.
    #[inline(always)]
    fn plain_string_end(&self, start: usize) -> Option<usize> {
        let mut at = start;
        while at < start + 160 {
            let Some(chunk) = chunk16(self.b, at) else {
                // The last few bytes of the text: a short look, byte by byte.
                let rest = self.b.get(at..)?;
                let end = at
                    + rest
                        .iter()
                        .position(|&x| matches!(x, b'"' | b'\\' | 0..0x20 | 0x80..))?;
                return (self.b[end] == b'"').then_some(end);
            };
            let (quotes, bad) = quotes16(chunk);
            if bad & up_to_lowest(quotes) != 0 {
                return None;
            }
            if quotes != 0 {
                return Some(at + quotes.trailing_zeros() as usize);
            }
            at += 16;
        }
        None
    }

    /// Validates and skips a string whose opening quote is at the cursor; returns whether it
    /// holds an escape. Short plain strings (most keys and values) take an inline path.
    #[inline(always)]
    fn skip_string(&mut self) -> Result<bool, Error> {
        match self.plain_string_end(self.pos + 1) {
            Some(end) => {
                self.pos = end + 1;
                Ok(false)
            }
            None => Ok(self.string()?.1),
        }
    }

    /// Skips `"key" :` inside a container whose contents are not kept.
    #[inline(always)]
    fn skip_key(&mut self) -> Result<(), Error> {
        if self.peek_past_ws() == Some(b'"')
            && let Some(end) = self.plain_string_end(self.pos + 1)
            && self.b.get(end + 1) == Some(&b':')
        {
            self.pos = end + 2;
            return Ok(());
        }
        self.key_bytes().map(|_| ())
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), Error> {
        let end = self.pos + word.len();
        match self.b.get(self.pos..end) {
            Some(w) if w == word => {
                self.pos = end;
                Ok(())
            }
            Some(_) => Err(Error::Syntax),
            None if word.starts_with(&self.b[self.pos..]) => Err(Error::Truncated),
            None => Err(Error::Syntax),
        }
    }

    /// Validates and skips one value at the cursor (white space before it included).
    ///
    /// `depth` is the number of containers already open around the value; opening one more
    /// than the scanner's limit allows is [`Error::TooDeep`].
    #[inline(always)]
    pub(crate) fn value(&mut self, depth: usize) -> Result<Kind, Error> {
        // Scalars are most values: they need no container stack.
        match self.peek_past_ws() {
            Some(b'"') => Ok(Kind::String {
                escaped: self.skip_string()?,
            }),
            Some(b'-' | b'0'..=b'9') => Ok(if self.number()? {
                Kind::Integer
            } else {
                Kind::Float
            }),
            Some(c @ (b'{' | b'[')) if self.trusted => {
                self.pos = skip_trusted_container(self.b, self.pos);
                Ok(if c == b'{' { Kind::Object } else { Kind::Array })
            }
            // An empty object (a client's `"clientCapabilities": {}`) needs no container
            // stack; one more level than the limit allows is still refused by `nested`.
            Some(b'{')
                if self.b.get(self.pos + 1) == Some(&b'}') && depth < self.max_depth as usize =>
            {
                self.pos += 2;
                Ok(Kind::Object)
            }
            _ => self.nested(depth),
        }
    }

    /// [`Scanner::value`] for containers and literals: iterative, with a bit stack.
    #[inline(never)]
    fn nested(&mut self, depth: usize) -> Result<Kind, Error> {
        let mut stack = Containers::new();
        // How many containers may open here: the limit less those already around the value.
        let room = (self.max_depth as usize).saturating_sub(depth);
        // Past this, the rest of a large container goes to the bulk scan.
        let mut hand_over_at = self.pos.saturating_add(self.bulk_after as usize);
        'value: loop {
            let Some(c) = self.peek_past_ws() else {
                return Err(Error::Truncated);
            };
            let kind = match c {
                b'{' | b'[' => {
                    if stack.len >= room {
                        return Err(Error::TooDeep);
                    }
                    self.pos += 1;
                    let object = c == b'{';
                    let close = if object { b'}' } else { b']' };
                    match self.peek_past_ws() {
                        Some(x) if x == close => {
                            self.pos += 1;
                            if object { Kind::Object } else { Kind::Array }
                        }
                        // Compact text: `{"` opens an object and its first key at once.
                        Some(b'"') if object => {
                            stack.push(true);
                            if !self.member_at_quote()? {
                                continue 'value;
                            }
                            Kind::String { escaped: false }
                        }
                        Some(_) => {
                            stack.push(object);
                            if !object || !self.skip_member()? {
                                continue 'value;
                            }
                            // The whole first member was taken: on to what follows it.
                            Kind::String { escaped: false }
                        }
                        None => return Err(Error::Truncated),
                    }
                }
                b'"' => Kind::String {
                    escaped: self.skip_string()?,
                },
                b'-' | b'0'..=b'9' => {
                    if self.number()? {
                        Kind::Integer
                    } else {
                        Kind::Float
                    }
                }
                b't' => {
                    self.literal(b"true")?;
                    Kind::Bool
                }
                b'f' => {
                    self.literal(b"false")?;
                    Kind::Bool
                }
                b'n' => {
                    self.literal(b"null")?;
                    Kind::Null
                }
                _ => return Err(Error::Syntax),
            };
            if stack.len == 0 {
                return Ok(kind);
            }
            // A value inside a container ended: take separators and closers.
            loop {
                if self.pos > hand_over_at {
                    // Once: after a fault or an unusual token, the walk goes on to the end.
                    hand_over_at = usize::MAX;
                    if let Some(object) = self.bulk_rest(stack.inner, stack.len, room) {
                        return Ok(if object { Kind::Object } else { Kind::Array });
                    }
                }
                let object = stack.top();
                // Compact text: `,"` ends a member and starts the next key, one load for both.
                if object && matches!(self.b.get(self.pos..self.pos + 2), Some(b",\"")) {
                    self.pos += 1;
                    if self.member_at_quote()? {
                        continue;
                    }
                    continue 'value;
                }
                match self.peek_past_ws() {
                    Some(b',') => {
                        self.pos += 1;
                        if object && self.skip_member()? {
                            // A whole member was taken: on to what follows it.
                            continue;
                        }
                        continue 'value;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    Some(_) => return Err(Error::Syntax),
                    None => return Err(Error::Truncated),
                }
                self.pos += 1;
                let was_object = stack.pop();
                if stack.len == 0 {
                    return Ok(if was_object {
                        Kind::Object
                    } else {
                        Kind::Array
                    });
                }
            }
        }
    }

    /// Skips `"key":` inside an object whose contents are not kept, and its value too when
    /// that is a short plain string in the same 16 bytes (`"type":"string"`): one mask serves
    /// both. Returns whether the value was taken.
    #[inline(always)]
    fn skip_member(&mut self) -> Result<bool, Error> {
        if self.peek_past_ws() == Some(b'"') {
            return self.member_at_quote();
        }
        self.skip_key().map(|()| false)
    }

    /// [`Scanner::skip_member`] with the key's opening quote at the cursor.
    #[inline(always)]
    fn member_at_quote(&mut self) -> Result<bool, Error> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        let start = self.pos + 1;
        if let Some(chunk) = chunk16(self.b, start) {
            let (quotes, bad) = quotes16(chunk);
            let k = quotes.trailing_zeros() as usize;
            // `k` is 64 when the chunk has no quote: the key is longer.
            if k < 16 && bad & up_to_lowest(quotes) == 0 && self.b.get(start + k + 1) == Some(&b':')
            {
                // When the value is a string, its quotes are the next two: the opening
                // one right after the colon (at bit k + 2), or after one space (as Python's
                // `json.dumps` writes it).
                let closing = without_lowest(without_lowest(quotes));
                let after_colon = start + k + 2;
                let opens = match self.b.get(after_colon) {
                    Some(b'"') => true,
                    Some(b' ') => self.b.get(after_colon + 1) == Some(&b'"'),
                    _ => false,
                };
                if closing != 0 && opens && bad & up_to_lowest(closing) == 0 {
                    self.pos = start + 1 + closing.trailing_zeros() as usize;
                    return Ok(true);
                }
                self.pos = start + k + 2;
                return Ok(false);
            }
        }
        self.skip_key().map(|()| false)
    }

    /// Reads `"key" :` (white space around it included) and returns the raw key (between its
    /// quotes) and whether it holds an escape.
    #[inline(always)]
    pub(crate) fn key(&mut self) -> Result<(Span<'buf>, bool), Error> {
        self.key_bytes().map(|(k, escaped)| {
            // INVARIANT: a key's body lies between its quotes, which are ASCII.
            (Span(k), escaped)
        })
    }

    /// [`Scanner::key`], as bytes.
    #[inline(always)]
    fn key_bytes(&mut self) -> Result<(&'buf [u8], bool), Error> {
        // Compact text: a short plain `"key":` with nothing between.
        if self.peek_past_ws() == Some(b'"')
            && let Some(end) = self.plain_string_end(self.pos + 1)
            && self.b.get(end + 1) == Some(&b':')
        {
            let k = &self.b[self.pos + 1..end];
            self.pos = end + 2;
            return Ok((k, false));
        }
        self.key_slow()
    }

    /// [`Scanner::key`] for every other key.
    #[inline(never)]
    fn key_slow(&mut self) -> Result<(&'buf [u8], bool), Error> {
        match self.peek() {
            Some(b'"') => {
                let k = self.string()?;
                self.expect(b':')?;
                Ok(k)
            }
            Some(_) => Err(Error::Syntax),
            None => Err(Error::Truncated),
        }
    }

    /// After a member value: `Ok(true)` at `,` (another member follows), `Ok(false)` at `}`.
    #[inline]
    pub(crate) fn member_end(&mut self) -> Result<bool, Error> {
        match self.peek_past_ws() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(Error::Syntax),
            None => Err(Error::Truncated),
        }
    }

    /// After an array element: `Ok(true)` at `,` (another element follows), `Ok(false)` at
    /// `]`.
    #[inline]
    pub(crate) fn element_end(&mut self) -> Result<bool, Error> {
        match self.peek_past_ws() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(Error::Syntax),
            None => Err(Error::Truncated),
        }
    }

    /// At `[`: enters the array, which has `depth` containers around it. `Ok(false)` when it
    /// is empty (and consumed whole).
    #[inline]
    pub(crate) fn enter_array(&mut self, depth: usize) -> Result<bool, Error> {
        if self.peek() != Some(b'[') {
            return Err(Error::Syntax);
        }
        if depth + 1 > self.max_depth as usize {
            return Err(Error::TooDeep);
        }
        // INVARIANT of `pos`: past the `[`.
        self.pos += 1;
        match self.peek_past_ws() {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Ok(true),
            None => Err(Error::Truncated),
        }
    }

    /// At `{`: enters the object. `Ok(false)` when it is empty (and consumed whole).
    #[inline]
    pub(crate) fn enter_object(&mut self, depth: usize) -> Result<bool, Error> {
        if self.peek() != Some(b'{') {
            return Err(Error::Syntax);
        }
        if depth + 1 > self.max_depth as usize {
            return Err(Error::TooDeep);
        }
        // INVARIANT of `pos`: past the `{`.
        self.pos += 1;
        match self.peek_past_ws() {
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Ok(true),
            None => Err(Error::Truncated),
        }
    }
}

/// Just past the container that opens at `at` in valid JSON text: its brackets counted,
/// its strings skipped whole (a bracket inside one is no bracket). Nothing is checked: the
/// text must be valid, and at worst (were it not) the result is some index up to `b.len()`.
fn skip_trusted_container(b: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while let Some(&c) = b.get(i) {
        i += 1;
        match c {
            b'"' => i = trusted_string_end(b, i),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// The eight bytes of `b` from `i` as a little-endian word (byte `i` lowest), when there are
/// that many.
#[inline(always)]
pub(super) fn word_at(b: &[u8], i: usize) -> Option<u64> {
    let eight: [u8; 8] = b.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(eight))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn check(s: &str, depth: usize) -> Result<Kind, Error> {
        let mut sc = Scanner::new(s.as_bytes(), depth);
        let k = sc.value(0)?;
        if sc.at_end() {
            Ok(k)
        } else {
            Err(Error::Syntax)
        }
    }
}
