//! The structural scanner: one validating pass over JSON text, no DOM.
//!
//! The scanner walks a frame as bytes, not yet known to be UTF-8, and checks the JSON grammar
//! as RFC 8259 and `serde_json` define it: strings (no raw control characters, only the defined escapes, `\u` surrogates in
//! pairs), numbers (grammar, and a value that fits a double, as `serde_json` demands),
//! literals, and nesting up to a limit.
//! It is iterative: nesting costs one bit of a small inline stack, never a stack frame, so no
//! input can overflow the call stack.
//!
//! Strings are read from masks of their special bytes (quotes, backslashes, raw control
//! bytes). A short plain string (most keys and values) is skipped inline from the masks of one
//! 16-byte chunk, where its end comes from the quote mask alone and the other mask only
//! confirms it (the walk is bound by the latency from one token's end to the next); longer
//! ones walk their escapes through the masks of 64-byte blocks.
//! The masks come from `arch`: SSE2 compares through `safe_arch` (a plain loop on other
//! targets), and for long strings AVX2 or AVX-512BW when the CPU has them.
//!
//! The scan notes whether it took any byte above ASCII (all of them sit inside strings):
//! a frame scanned whole without one is ASCII, so it is UTF-8 without a second pass, and any
//! other frame is checked with `simdutf8` afterwards (see `text.rs`). Until then the bytes of
//! a string may be anything above ASCII.

mod bulk;

pub(crate) use bulk::BULK_AFTER;
#[cfg(test)]
pub(crate) use bulk::bulk_end;

use crate::Error;
use crate::arch::{self, Kernel, KernelScan, quotes16};

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

/// How far ahead of a long string's scan its bytes are asked for: the hardware's own
/// prefetch leaves a scan of several GB/s waiting on memory once its text is out of the
/// caches.
const STRING_PREFETCH: usize = 4096;

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

/// The bytes of a block that a backslash escapes, from the block's backslashes, without a
/// loop over them: in a run of backslashes every other one escapes the next byte, so what is
/// escaped depends on the parity of where the run starts.
/// `carry` is 1 when the block's first byte is escaped by a backslash at the end of the block
/// before; it is updated for the next block.
#[inline(always)]
fn escaped_bytes(backslashes: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    if backslashes == 0 {
        return core::mem::take(carry);
    }
    let follows = (backslashes << 1) | *carry;
    if backslashes & follows == 0 {
        // Lone backslashes (the common case: `\n`, `\"`), none escaped itself: each escapes
        // the byte after it.
        *carry = backslashes >> 63;
        return follows;
    }
    // A backslash that is itself escaped starts nothing.
    let backslashes = backslashes & !*carry;
    let follows = (backslashes << 1) | *carry;
    // Runs that start on an odd bit: adding them to the backslashes carries through each run,
    // which leaves a bit just past the run; the parity of the run's start flips the pattern.
    let odd_starts = backslashes & !EVEN & !follows;
    let (sum, overflow) = odd_starts.overflowing_add(backslashes);
    *carry = u64::from(overflow);
    (EVEN ^ (sum << 1)) & follows
}

/// The bytes that make a one-letter escape after a `\` (`\n`, `\"`, ...).
const ONE_LETTER_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let letters = *b"\"\\/bfnrt";
    let mut i = 0;
    while i < letters.len() {
        t[letters[i] as usize] = true;
        i += 1;
    }
    t
};

/// The value of each hex digit; 0xff for other bytes.
const HEX: [u8; 256] = {
    let mut t = [0xff; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// A stack of container kinds (object or array), as a shift register: bit 0 of `inner` is
/// the top container, bit `j` the one `j` levels under it, for the 64 innermost levels; a push
/// shifts in, a pop shifts out, and the check after every value tests one bit.
/// Deeper levels shift on into `outer` (64 more) and then into `spill`.
#[derive(Clone)]
struct Containers {
    /// Bit `j`: the container `j` levels under the top (0 for the top) is an object.
    inner: u64,
    /// Bit `j`: the container `64 + j` levels under the top is an object.
    outer: u64,
    /// The levels under the 128 innermost, outermost first; only with a depth limit raised
    /// past the default.
    spill: Vec<bool>,
    len: usize,
}

impl Containers {
    #[inline]
    const fn new() -> Self {
        Self {
            inner: 0,
            outer: 0,
            spill: Vec::new(),
            len: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, object: bool) {
        if self.len >= 64 {
            self.push_outer();
        }
        self.inner = (self.inner << 1) | u64::from(object);
        self.len += 1;
    }

    /// Moves the 64th level down into `outer` (and `outer`'s last into `spill`).
    #[cold]
    fn push_outer(&mut self) {
        if self.len >= 128 {
            self.spill.push(self.outer >> 63 != 0);
        }
        self.outer = (self.outer << 1) | (self.inner >> 63);
    }

    /// Pops the top; returns whether it was an object.
    #[inline(always)]
    fn pop(&mut self) -> bool {
        let was = self.top();
        self.inner >>= 1;
        self.len -= 1;
        if self.len >= 64 {
            self.pop_outer();
        }
        was
    }

    /// Moves the level 64 under the new top back up from `outer` (and `spill` into `outer`).
    #[cold]
    fn pop_outer(&mut self) {
        self.inner |= (self.outer & 1) << 63;
        self.outer >>= 1;
        if self.len >= 128 {
            self.outer |= u64::from(self.spill.pop().unwrap_or(false)) << 63;
        }
    }

    /// Whether the top container is an object (meaningless while `len` is 0).
    #[inline(always)]
    const fn top(&self) -> bool {
        self.inner & 1 != 0
    }
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
    max_depth: usize,
    /// INVARIANT: false only while every byte the scan took is ASCII. The grammar takes bytes
    /// above ASCII only inside strings; the short-string paths refuse them (leaving such a
    /// string to [`Scanner::string_with`]), and `string_with`, which does not look for them,
    /// sets this for every string it takes. A frame scanned whole with this false is ASCII, so
    /// it is UTF-8 without a second pass (`text.rs` relies on this).
    maybe_non_ascii: bool,
    /// The text is known to be valid JSON ([`Scanner::trusted`]).
    trusted: bool,
    /// True when a `\n` ends the text (it is not white space): the scan of a line at the
    /// start of a buffer that holds more than the line.
    newline_ends: bool,
    /// How many bytes a container's token walk takes before it hands the rest to the bulk
    /// scan (`bulk.rs`).
    bulk_after: usize,
}

impl<'buf> Scanner<'buf> {
    pub(crate) const fn new(b: &'buf [u8], max_depth: usize) -> Self {
        Self {
            b,
            pos: 0,
            max_depth,
            maybe_non_ascii: false,
            newline_ends: false,
            trusted: false,
            bulk_after: bulk::BULK_AFTER,
        }
    }

    /// Sets how many bytes a container's token walk takes before it hands the rest to the bulk
    /// scan (`usize::MAX`: never).
    pub(crate) const fn with_bulk_after(mut self, bytes: usize) -> Self {
        self.bulk_after = bytes;
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

    #[inline(always)]
    pub(crate) fn skip_ws(&mut self) {
        match self.b.get(self.pos) {
            // Compact text: nothing to skip.
            Some(&c) if c > b' ' => {}
            // Spaced text (`", "`, `": "`): one space.
            Some(b' ') if self.b.get(self.pos + 1).is_some_and(|&c| c > b' ') => self.pos += 1,
            // A line's end (`\n`, when it ends the text) or the end of the text.
            Some(b'\n') if self.newline_ends => {}
            None => {}
            _ => self.skip_ws_run(),
        }
    }

    /// Skips white space; true when there was some (spaced text).
    #[inline(always)]
    pub(crate) fn past_ws(&mut self) -> bool {
        let at = self.pos;
        self.skip_ws();
        self.pos != at
    }

    /// [`Scanner::skip_ws`] for longer runs (line breaks and indentation): runs of spaces
    /// eight bytes a step, from one word compare, the other white space byte by byte.
    #[inline(never)]
    fn skip_ws_run(&mut self) {
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        // INVARIANT of `pos`: every step takes white space, which is ASCII.
        loop {
            match self.b.get(self.pos) {
                Some(b' ') => match word_at(self.b, self.pos) {
                    Some(w) => {
                        // The first byte that is no space is the lowest nonzero byte.
                        let other = w ^ SPACES;
                        self.pos += if other == 0 {
                            8
                        } else {
                            (other.trailing_zeros() / 8) as usize
                        };
                    }
                    None => self.pos += 1,
                },
                Some(b'\t' | b'\r') => self.pos += 1,
                Some(b'\n') if !self.newline_ends => self.pos += 1,
                _ => return,
            }
        }
    }

    /// Skips white space and returns the byte at the cursor then, if any: one bounds check and
    /// one load when no white space comes first, as in compact text.
    #[inline(always)]
    fn peek_past_ws(&mut self) -> Option<u8> {
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' => Some(c),
            _ => {
                self.skip_ws();
                self.peek()
            }
        }
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
    pub(crate) fn at_end(&mut self) -> bool {
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

    /// Reads a string whose opening quote is at the cursor.
    /// Returns its contents (between the quotes, escapes left as they are) and whether it holds
    /// an escape.
    ///
    /// The text is taken 64 bytes at a time: the masks of a block give its closing quote, its
    /// control bytes and its escapes at once, and the letters after the backslashes are checked
    /// on masks too; only `\u` escapes are read one by one.
    #[inline(never)]
    pub(crate) fn string(&mut self) -> Result<(&'buf [u8], bool), Error> {
        arch::with_widest_kernel(StringScan(self))
    }

    /// [`Scanner::string`] with the masks of `k` (the baseline ones, or those of a wider
    /// instruction set, for which this is inlined into a function that enables it).
    #[inline(always)]
    pub(crate) fn string_with(&mut self, k: impl Kernel) -> Result<(&'buf [u8], bool), Error> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        // This path takes any UTF-8 (and, until the frame's check, any byte above ASCII).
        self.maybe_non_ascii = true;
        let start = self.pos + 1;
        let mut escapes = false;
        let mut at = start;
        // Bytes escaped by a backslash at the end of the block before.
        let mut carry = 0;
        // Past a surrogate pair's first `\u`: its second one is part of it.
        let mut escapes_from = start;
        let mut padded = [b' '; 64];
        loop {
            k.prefetch(self.b, at + STRING_PREFETCH);
            // The last block is padded with spaces, which are not special.
            let (block, len) = match chunk64(self.b, at) {
                Some(block) => (block, 64),
                None => {
                    let rest = self.b.get(at..).unwrap_or_default();
                    padded[..rest.len()].copy_from_slice(rest);
                    (&padded, rest.len())
                }
            };
            let s = k.strings(block);
            let escaped = escaped_bytes(s.backslash, &mut carry);
            // The string ends at its first quote that no backslash escapes; a control byte
            // before that is a fault. Escapes after it are another string's.
            let stops = (s.quote | s.control) & !escaped;
            let before = stops.wrapping_sub(1) & !stops;
            let escaped = escaped & before;
            if escaped != 0 {
                escapes = true;
                let (letters, u) = k.escape_letters(block);
                if escaped & !(letters | u) != 0 {
                    // A fault: each escape in turn names it.
                    return Err(self.escape_fault(escaped, at));
                }
                let mut units = escaped & u;
                while units != 0 {
                    // The escape's backslash is just before its `u` (at `at - 1` for bit 0).
                    let i = at + units.trailing_zeros() as usize - 1;
                    if i >= escapes_from {
                        escapes_from = self.escape(i)?;
                    }
                    units &= units - 1;
                }
            }
            if stops != 0 {
                let end = at + stops.trailing_zeros() as usize;
                if self.b[end] != b'"' {
                    return Err(Error::BadString);
                }
                self.pos = end + 1;
                return Ok((&self.b[start..end], escapes));
            }
            if len < 64 {
                return Err(Error::Truncated);
            }
            at += 64;
        }
    }

    /// The fault among the escapes of a block at `at` whose escaped bytes are `escaped`, found
    /// by checking each escape in turn.
    #[cold]
    #[inline(never)]
    fn escape_fault(&self, escaped: u64, at: usize) -> Error {
        // The escaping backslashes: each just before an escaped byte (bit 0's may lie in the
        // block before).
        let mut starts = escaped;
        let mut from = 0;
        while starts != 0 {
            let i = at + starts.trailing_zeros() as usize - 1;
            if i >= from {
                match self.escape(i) {
                    Ok(after) => from = after,
                    Err(e) => return e,
                }
            }
            starts &= starts - 1;
        }
        // Not reached for a block with a bad escape; the scan stops there all the same.
        Error::BadString
    }

    /// Checks the escape whose `\` is at `i`; returns the offset just after it.
    /// One-letter escapes and `\u` outside the surrogates are decided here, the rest (and
    /// every fault) by [`Scanner::escape_slow`].
    #[inline(always)]
    fn escape(&self, i: usize) -> Result<usize, Error> {
        match self.b.get(i + 1) {
            Some(&x) if ONE_LETTER_ESCAPE[usize::from(x)] => return Ok(i + 2),
            Some(b'u') => {
                if let Some(w) = self.b.get(i + 2..i + 6) {
                    let h = [w[0], w[1], w[2], w[3]].map(|x| HEX[usize::from(x)]);
                    let hex = (h[0] | h[1] | h[2] | h[3]) < 16;
                    let surrogate = (h[0] == 0xD) & (h[1] >= 8);
                    if hex & !surrogate {
                        return Ok(i + 6);
                    }
                }
            }
            _ => {}
        }
        self.escape_slow(i)
    }

    /// [`Scanner::escape`] for surrogates, faults, and `\u` escapes at the end of the text
    /// (one-letter escapes never get here).
    #[cold]
    #[inline(never)]
    fn escape_slow(&self, i: usize) -> Result<usize, Error> {
        match self.b.get(i + 1) {
            Some(b'u') => self.unicode_escape(i),
            Some(_) => Err(Error::BadString),
            None => Err(Error::Truncated),
        }
    }

    /// Checks a `\uXXXX` escape (a surrogate pair is two of them) at `i`.
    fn unicode_escape(&self, i: usize) -> Result<usize, Error> {
        let unit = self.hex4(i + 2)?;
        match unit {
            0xD800..=0xDBFF => {
                // NB. serde_json refuses a high surrogate that is not followed by a low one.
                if self.b.get(i + 6) == Some(&b'\\') && self.b.get(i + 7) == Some(&b'u') {
                    let low = self.hex4(i + 8)?;
                    if (0xDC00..=0xDFFF).contains(&low) {
                        return Ok(i + 12);
                    }
                } else if i + 6 >= self.b.len() {
                    return Err(Error::Truncated);
                }
                Err(Error::LoneSurrogate)
            }
            0xDC00..=0xDFFF => Err(Error::LoneSurrogate),
            _ => Ok(i + 6),
        }
    }

    fn hex4(&self, at: usize) -> Result<u16, Error> {
        let Some(d) = self.b.get(at..at + 4) else {
            return Err(
                if self.b[at.min(self.b.len())..]
                    .iter()
                    .all(u8::is_ascii_hexdigit)
                {
                    Error::Truncated
                } else {
                    Error::BadString
                },
            );
        };
        let mut v = 0u16;
        for &c in d {
            let n = HEX[usize::from(c)];
            if n > 15 {
                return Err(Error::BadString);
            }
            v = (v << 4) | u16::from(n);
        }
        Ok(v)
    }

    /// Reads a number at the cursor; returns whether `serde_json` would read it as an integer.
    ///
    /// Numbers as messages hold them (integers of up to 18 digits, decimals, exponents of up
    /// to two digits, with or without a sign) are read here in a few steps, runs of digits
    /// eight bytes at a time; every other number, and every fault, in
    /// [`Scanner::number_slow`].
    #[inline(always)]
    fn number(&mut self) -> Result<bool, Error> {
        // Most numbers in messages are short positive integers (ids, counts, limits): up to 18
        // digits always fit a `u64`.
        let b = self.b;
        let start = self.pos;
        if matches!(b.get(start), Some(b'1'..=b'9')) {
            let i = digit_run(b, start + 1);
            if i - start <= 18 && !matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
                self.pos = i;
                return Ok(true);
            }
            return self.number_dense(Some(i));
        }
        self.number_dense(None)
    }

    /// [`Scanner::number`] for the rest: signs, decimals, exponents. `int_end` is where the
    /// digits end, when [`Scanner::number`] found that already (a number without a sign).
    #[inline(never)]
    fn number_dense(&mut self, int_end: Option<usize>) -> Result<bool, Error> {
        let b = self.b;
        let start = self.pos;
        let negative = b.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let mut i = match (int_end, b.get(int_start)) {
            (Some(end), _) => end,
            (None, Some(b'1'..=b'9')) => digit_run(b, int_start + 1),
            (None, Some(b'0')) => int_start + 1,
            (None, _) => return self.number_slow(),
        };
        let int_digits = i - int_start;
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            let end = digit_run(b, i + 1);
            if end == i + 1 {
                return self.number_slow();
            }
            i = end;
            integer = false;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let mut d = i + 1;
            if matches!(b.get(d), Some(b'+' | b'-')) {
                d += 1;
            }
            let end = digit_run(b, d);
            // NB. Up to 200 digits before the point and an exponent under 100, the value is
            // below 10^300: finite, as serde_json needs.
            if end == d || end - d > 2 || int_digits > 200 {
                return self.number_slow();
            }
            i = end;
            integer = false;
        }
        if integer {
            // Up to 18 digits fit an `i64` and a `u64`; serde_json reads `-0` as a float.
            if int_digits > 18 || (negative && b[int_start] == b'0') {
                return self.number_slow();
            }
        } else if int_digits > 200 {
            return self.number_slow();
        }
        self.pos = i;
        Ok(integer)
    }

    /// [`Scanner::number`] for every number.
    #[inline(never)]
    fn number_slow(&mut self) -> Result<bool, Error> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        let negative = b[i] == b'-';
        if negative {
            i += 1;
        }
        let int_start = i;
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digit_run(b, i + 1),
            Some(_) => return Err(Error::BadNumber),
            None => return Err(Error::Truncated),
        }
        let int_digits = i - int_start;
        let int_is_zero = b[int_start] == b'0';
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            i = digits(b, i + 1)?;
            integer = false;
        }
        let mut exp: i64 = 0;
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            let neg_exp = match b.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let d = i;
            i = digits(b, i)?;
            exp = b[d..i].iter().fold(0i64, |e, &c| {
                e.saturating_mul(10).saturating_add(i64::from(c - b'0'))
            });
            if neg_exp {
                exp = -exp;
            }
            integer = false;
        }
        self.pos = i;
        // serde_json reads `-0` as a float, and integers beyond i64/u64 as floats.
        if integer {
            let digits = &b[int_start..i];
            let fits = if negative {
                !int_is_zero && fits_under(digits, b"9223372036854775808")
            } else {
                fits_under(digits, b"18446744073709551615")
            };
            if fits {
                return Ok(true);
            }
        }
        // serde_json refuses a number whose value overflows a double. Anything below 10^300 is
        // finite; only the rare rest is parsed to find out.
        let magnitude = if int_is_zero {
            exp
        } else {
            exp.saturating_add(int_digits as i64)
        };
        if magnitude > 300 {
            // The number's bytes are ASCII: the grammar above took only digits, signs, `.`
            // and exponent letters.
            let v: f64 = core::str::from_utf8(&b[start..i])
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or(Error::BadNumber)?;
            if v.is_infinite() {
                return Err(Error::BadNumber);
            }
        }
        Ok(false)
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
            _ => self.nested(depth),
        }
    }

    /// [`Scanner::value`] for containers and literals: iterative, with a bit stack.
    #[inline(never)]
    fn nested(&mut self, depth: usize) -> Result<Kind, Error> {
        let mut stack = Containers::new();
        // How many containers may open here: the limit less those already around the value.
        let room = self.max_depth.saturating_sub(depth);
        // Past this, the rest of a large container goes to the bulk scan.
        let mut hand_over_at = self.pos.saturating_add(self.bulk_after);
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
                    if let Some(object) = self.bulk_rest(&stack, room) {
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
        if depth + 1 > self.max_depth {
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
        if depth + 1 > self.max_depth {
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

/// [`Scanner::string`] as a scan over blocks, for `arch` to run with the widest kernel.
struct StringScan<'sc, 'buf>(&'sc mut Scanner<'buf>);

impl<'buf> KernelScan for StringScan<'_, 'buf> {
    type Output = Result<(&'buf [u8], bool), Error>;

    #[inline(always)]
    fn run(self, kernel: impl Kernel) -> Self::Output {
        self.0.string_with(kernel)
    }
}

/// Skips the digits from `i` on, of which there must be one at least; returns where they end.
fn digits(b: &[u8], start: usize) -> Result<usize, Error> {
    let i = digit_run(b, start);
    if i > start {
        Ok(i)
    } else if i == b.len() {
        Err(Error::Truncated)
    } else {
        Err(Error::BadNumber)
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

/// Just past the closing quote of the string whose body starts at `i`, in valid JSON text
/// (`b.len()` when there is none).
#[inline(always)]
pub(crate) fn trusted_string_end(b: &[u8], mut i: usize) -> usize {
    while let Some(off) = b
        .get(i..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        i += off;
        if b[i] == b'"' {
            return i + 1;
        }
        // An escape: its next byte is never the end.
        i += 2;
    }
    b.len()
}

/// The end of the run of ASCII digits that starts at `i` (`i` itself when there is none),
/// eight bytes a step: no branch per digit.
#[inline(always)]
fn digit_run(b: &[u8], mut i: usize) -> usize {
    while let Some(w) = word_at(b, i) {
        let m = non_digits8(w);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while matches!(b.get(i), Some(b'0'..=b'9')) {
        i += 1;
    }
    i
}

/// The eight bytes of `b` from `i` as a little-endian word (byte `i` lowest), when there are
/// that many.
#[inline(always)]
fn word_at(b: &[u8], i: usize) -> Option<u64> {
    let eight: [u8; 8] = b.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(eight))
}

/// The high bit of each byte of `v` (little-endian) that may not be an ASCII digit, exact
/// up to and including the first such byte (a carry may mark bytes after it, which no
/// caller reads).
///
/// A digit `0x30..=0x39` xor `0x30` is `0..=9`, and adding `0x76` leaves its high bit clear;
/// any other byte has its high bit set by one of the two.
#[inline(always)]
const fn non_digits8(v: u64) -> u64 {
    let a = v ^ 0x3030_3030_3030_3030;
    (a.wrapping_add(0x7676_7676_7676_7676) | a) & 0x8080_8080_8080_8080
}

/// True when the decimal `digits` (no sign, no leading zero) are at most `max`.
fn fits_under(digits: &[u8], max: &[u8]) -> bool {
    digits.len() < max.len() || (digits.len() == max.len() && digits <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(s: &str, depth: usize) -> Result<Kind, Error> {
        let mut sc = Scanner::new(s.as_bytes(), depth);
        let k = sc.value(0)?;
        if sc.at_end() {
            Ok(k)
        } else {
            Err(Error::Syntax)
        }
    }

    #[test]
    fn escaped_bytes_agree_with_a_walk_over_blocks() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Backslash runs of every length, across block ends: dense random masks.
            let blocks = [state, state.rotate_left(17) & state.rotate_left(5), !state];
            let mut carry = 0;
            let mut escape_next = false;
            for backslashes in blocks {
                let mut naive = 0;
                for bit in 0..64 {
                    if escape_next {
                        naive |= 1 << bit;
                        escape_next = false;
                    } else if backslashes & (1 << bit) != 0 {
                        escape_next = true;
                    }
                }
                assert_eq!(
                    escaped_bytes(backslashes, &mut carry),
                    naive,
                    "{backslashes:#x}"
                );
                assert_eq!(carry, u64::from(escape_next));
            }
        }
    }

    #[test]
    fn strings_end_at_their_quote_wherever_it_falls() {
        // Every length around the chunk sizes, plain and with escapes that cross chunks.
        for len in 0..200 {
            for escape in ["", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\\\"] {
                for at in [0, 13, 15, 16, 63, 64, 100, 159, 160] {
                    let mut body = "x".repeat(len);
                    if at <= body.len() {
                        body.insert_str(at, escape);
                    }
                    let text = format!("\"{body}\"");
                    let mut sc = Scanner::new(text.as_bytes(), 8);
                    assert_eq!(
                        sc.string(),
                        Ok((body.as_bytes(), !escape.is_empty() && at <= len))
                    );
                    assert_eq!(sc.pos, text.len());
                    // The same with more text after it, so the chunk loop (not the tail) ends it.
                    let longer = format!("{text}{}", " ".repeat(80));
                    let mut sc = Scanner::new(longer.as_bytes(), 8);
                    assert_eq!(sc.skip_string().map(|_| sc.pos), Ok(text.len()), "{longer}");
                }
            }
        }
    }

    #[test]
    fn the_run_time_string_scan_agrees_with_the_baseline_scan() {
        // `string` takes the widest vectors the CPU has; `string_with(Baseline)` is the SSE2
        // path every other build uses. Random strings with escapes, faults and block ends.
        let pieces: [&str; 12] = [
            "abc",
            "\\n",
            "\\\"",
            "\\\\",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud800x",
            "\\q",
            "\u{1}",
            "\u{e9}",
            "\"",
            &"p".repeat(61),
        ];
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let rounds = if cfg!(miri) { 300 } else { 20_000 };
        for _ in 0..rounds {
            let mut text = String::from("\"");
            for _ in 0..(state % 24) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            let mut wide = Scanner::new(text.as_bytes(), 8);
            let mut base = Scanner::new(text.as_bytes(), 8);
            let got = wide.string();
            assert_eq!(got, base.string_with(arch::Baseline), "{text:?}");
            if got.is_ok() {
                assert_eq!(wide.pos, base.pos, "{text:?}");
            }
        }
    }

    #[test]
    fn members_taken_whole_or_in_parts_validate_alike() {
        let values = [
            "\"\"",
            "\"v\"",
            "\"a\\\"b\"",
            "1",
            "{}",
            "[\"x\"]",
            "\"0123456789abc\"",
        ];
        for key_len in 0..18 {
            let key = "k".repeat(key_len);
            for value in values {
                for pad in 0..3 {
                    let text = format!("{{\"{key}\":{value},\"{}\":{value}}}", "p".repeat(pad * 7));
                    assert_eq!(check(&text, 8), Ok(Kind::Object), "{text}");
                    let spaced = text.replace(':', " : ").replace(',', " , ");
                    assert_eq!(check(&spaced, 8), Ok(Kind::Object), "{spaced}");
                }
            }
        }
        for (text, want) in [
            (r#"{"a":"b"x}"#, Error::Syntax),
            (r#"{"a":"b\q"}"#, Error::BadString),
            ("{\"a\":\"b\u{1}\"}", Error::BadString),
            (r#"{"a""b"}"#, Error::Syntax),
            (r#"{"a":"b",}"#, Error::Syntax),
            (r#"{"a":"b","c"}"#, Error::Syntax),
            (r#"{"a":"b"]"#, Error::Syntax),
            (r#"["a":"b"]"#, Error::Syntax),
            (r#"{"a":"b""#, Error::Truncated),
        ] {
            assert_eq!(check(text, 8), Err(want), "{text}");
        }
    }

    #[test]
    fn string_faults_are_found_in_chunks_and_in_the_tail() {
        for pad in [0, 5, 16, 40, 70] {
            let x = "y".repeat(pad);
            let cases = [
                (format!("\"{x}\u{1}\""), Error::BadString),
                (format!("\"{x}\\q\""), Error::BadString),
                (format!("\"{x}\\ud800\""), Error::LoneSurrogate),
                (format!("\"{x}\\udc00\""), Error::LoneSurrogate),
                (format!("\"{x}\\u12g4\""), Error::BadString),
                (format!("\"{x}"), Error::Truncated),
                (format!("\"{x}\\u12"), Error::Truncated),
                (format!("\"{x}\\"), Error::Truncated),
            ];
            for (text, want) in cases {
                let mut sc = Scanner::new(text.as_bytes(), 8);
                assert_eq!(sc.string(), Err(want), "{text:?}");
            }
        }
    }

    #[test]
    fn the_container_stack_agrees_with_a_vec_in_any_order_of_pushes_and_pops() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..50 {
            let mut stack = Containers::new();
            let mut model: Vec<bool> = Vec::new();
            // Walks up and down across the 128 inline levels.
            for _ in 0..2_000 {
                let r = next();
                if model.is_empty() || (r % 100 < 55 && model.len() < 400) {
                    let k = r & (1 << 40) != 0;
                    stack.push(k);
                    model.push(k);
                } else {
                    assert_eq!(stack.pop(), model.pop().unwrap());
                }
                assert_eq!(stack.len, model.len());
                if let Some(&top) = model.last() {
                    assert_eq!(stack.top(), top);
                }
            }
        }
    }

    #[test]
    fn the_container_stack_keeps_kinds_past_its_inline_levels() {
        for depth in [1, 2, 127, 128, 129, 300] {
            let kinds: Vec<bool> = (0..depth).map(|i| (i * 7 + i / 3) % 2 == 0).collect();
            let mut stack = Containers::new();
            for &k in &kinds {
                stack.push(k);
            }
            for &k in kinds.iter().rev() {
                assert_eq!(stack.top(), k);
                assert_eq!(stack.pop(), k);
            }
            assert_eq!(stack.len, 0);
        }
        // Mixed objects and arrays beyond 128 levels, through the scanner.
        let open: String = (0..300)
            .map(|i| if i % 3 == 0 { "{\"k\":" } else { "[" })
            .collect();
        let close: String = (0..300)
            .rev()
            .map(|i| if i % 3 == 0 { "}" } else { "]" })
            .collect();
        let text = format!("{open}1{close}");
        assert_eq!(check(&text, 1000), Ok(Kind::Object));
        let wrong = format!("{open}1{}", close.replacen('}', "]", 1));
        assert_eq!(check(&wrong, 1000), Err(Error::Syntax));
    }

    #[test]
    fn depth_limit_counts_containers() {
        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert_eq!(check(&ok, 128), Ok(Kind::Array));
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert_eq!(check(&deep, 128), Err(Error::TooDeep));
        let huge = "[".repeat(1_000_000);
        assert_eq!(check(&huge, 128), Err(Error::TooDeep));
        assert_eq!(check(&huge, usize::MAX), Err(Error::Truncated));
    }

    #[test]
    fn the_digit_run_ends_at_the_first_byte_that_is_no_digit() {
        // Every byte value, at every place of an eight-byte step and of the tail after it.
        for len in [3usize, 8, 11, 16, 21] {
            for at in 0..len {
                for x in 0..=255u8 {
                    let mut b = vec![b'7'; len];
                    b[at] = x;
                    // The bytes after the first one that is no digit do not matter.
                    b.extend_from_slice(&[0xff, b'5', 0]);
                    let want = if x.is_ascii_digit() { len } else { at };
                    assert_eq!(digit_run(&b, 0), want, "len {len}, {x:#x} at {at}");
                }
            }
        }
        assert_eq!(digit_run(b"", 0), 0);
        assert_eq!(digit_run(b"12345678901234567890", 3), 20);
    }

    #[test]
    fn numbers_follow_serde_json() {
        assert_eq!(check("18446744073709551615", 8), Ok(Kind::Integer));
        assert_eq!(check("18446744073709551616", 8), Ok(Kind::Float));
        assert_eq!(check("-9223372036854775808", 8), Ok(Kind::Integer));
        assert_eq!(check("-9223372036854775809", 8), Ok(Kind::Float));
        assert_eq!(check("-0", 8), Ok(Kind::Float));
        assert_eq!(check("1e308", 8), Ok(Kind::Float));
        assert_eq!(check("1e309", 8), Err(Error::BadNumber));
        assert_eq!(check("0e99999999999999999999", 8), Ok(Kind::Float));
        assert_eq!(check("01", 8), Err(Error::Syntax));
        assert_eq!(check("1.", 8), Err(Error::Truncated));
        assert_eq!(check("1.e5", 8), Err(Error::BadNumber));
        assert_eq!(check("-", 8), Err(Error::Truncated));
        assert_eq!(check("+1", 8), Err(Error::Syntax));
    }
}
