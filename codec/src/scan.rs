//! The structural scanner: one validating pass over JSON text, no DOM.
//!
//! The scanner walks a frame that is already known to be UTF-8 (the caller checks the whole
//! frame at once with `simdutf8`) and checks the JSON grammar as RFC 8259 and `serde_json`
//! define it: strings (no raw control characters, only the defined escapes, `\u` surrogates in
//! pairs), numbers (grammar, and a value that fits a double, as `serde_json` demands),
//! literals, and nesting up to a limit.
//! It is iterative: nesting costs one bit of a small inline stack, never a stack frame, so no
//! input can overflow the call stack.
//!
//! Strings are skipped sixteen bytes at a time: an SSE2 compare gives the mask of `"` and `\`
//! (through `safe_arch`, so this crate keeps `unsafe_code` forbidden; a word-at-a-time path
//! serves other targets), and `memchr2` takes over on long plain runs.
//! Raw control characters are looked for once per frame ([`has_control`]): a frame without any
//! (every compact frame) skips that check inside strings.

use crate::Error;
use smallvec::SmallVec;

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

/// True when some byte of `b` satisfies `class`. Whole 64-byte blocks are tested without an
/// early exit inside them, so the compare vectorises.
#[inline]
pub(crate) fn any_byte(b: &[u8], class: impl Fn(u8) -> bool) -> bool {
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        if block.iter().fold(0u8, |acc, &x| acc | u8::from(class(x))) != 0 {
            return true;
        }
    }
    blocks.remainder().iter().any(|&x| class(x))
}

/// True when `b` holds a byte below 0x20 (a control character).
#[inline]
pub(crate) fn has_control(b: &[u8]) -> bool {
    any_byte(b, |x| x < 0x20)
}

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
const LO: u64 = 0x0101_0101_0101_0101;
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
const HI: u64 = 0x8080_8080_8080_8080;

/// A mask with the high bit set in every byte of `w` equal to `b` (exact for the lowest one).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
const fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (LO * b as u64);
    x.wrapping_sub(LO) & !x & HI
}

/// A 16-bit mask of the bytes of `s` that are `"` or `\\` (bit `i` for `s[i]`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn specials16(s: &[u8; 16]) -> u32 {
    use safe_arch::{cmp_eq_mask_i8_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i};
    let v = m128i::from(*s);
    let quote = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'"' as i8));
    let backslash = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8));
    move_mask_i8_m128i(quote | backslash) as u32
}

/// A 16-bit mask of the bytes of `s` that are `"` or `\\` (bit `i` for `s[i]`): the portable
/// path, two words at a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn specials16(s: &[u8; 16]) -> u32 {
    specials16_portable(s)
}

/// The portable [`specials16`], also built in tests to check it against the SSE2 one.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
fn specials16_portable(s: &[u8; 16]) -> u32 {
    let mut mask = 0;
    for (half, word) in s.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let mut m = eq_mask(w, b'"') | eq_mask(w, b'\\');
        // The word mask is exact only up to its lowest hit: re-check the bytes above it.
        while m != 0 {
            let byte = (m.trailing_zeros() / 8) as usize;
            if matches!(word[byte], b'"' | b'\\') {
                mask |= 1 << (half * 8 + byte);
            }
            m &= m - 1;
        }
    }
    mask
}

/// The offset of the first `"` or `\\` in `s`: sixteen bytes at a time (SSE2 where the target
/// has it), then memchr2 for long runs without one.
#[inline(always)]
fn find_quote_or_backslash(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(chunk) = s.get(i..i + 16) {
        let m = specials16(chunk.try_into().unwrap_or(&[0; 16]));
        if m != 0 {
            return Some(i + m.trailing_zeros() as usize);
        }
        i += 16;
        if i == 256 {
            // A long plain run: memchr2's wider vectors win from here on.
            return memchr::memchr2(b'"', b'\\', &s[i..]).map(|p| p + i);
        }
    }
    s[i..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|p| p + i)
}

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

/// A stack of container kinds, one bit each (1 = object), inline up to 128 levels.
struct Containers {
    bits: SmallVec<[u64; 2]>,
    len: usize,
}

impl Containers {
    #[inline]
    fn new() -> Self {
        Self {
            bits: SmallVec::from_buf([0; 2]),
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, object: bool) {
        let (w, b) = (self.len / 64, self.len % 64);
        if w == self.bits.len() {
            self.bits.push(0);
        }
        if object {
            self.bits[w] |= 1 << b;
        } else {
            self.bits[w] &= !(1 << b);
        }
        self.len += 1;
    }

    /// Pops the top; returns whether it was an object.
    #[inline]
    fn pop(&mut self) -> bool {
        let top = self.top();
        self.len -= 1;
        top
    }

    #[inline]
    fn top(&self) -> bool {
        let i = self.len - 1;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }
}

/// A cursor over one JSON text.
pub(crate) struct Scanner<'buf> {
    /// The whole text. INVARIANT: valid UTF-8 (it is a `&str`).
    pub(crate) s: &'buf str,
    b: &'buf [u8],
    pub(crate) pos: usize,
    max_depth: usize,
    /// False when the text has a byte below 0x20 somewhere, so strings must be checked for them.
    clean: bool,
}

impl<'buf> Scanner<'buf> {
    pub(crate) fn new(s: &'buf str, max_depth: usize) -> Self {
        let b = s.as_bytes();
        Self {
            s,
            b,
            pos: 0,
            max_depth,
            clean: !has_control(b),
        }
    }

    /// A scanner over text that an earlier pass validated; `depth` limits are not checked again.
    pub(crate) fn validated(s: &'buf str) -> Self {
        let mut sc = Self::new(s, usize::MAX);
        // Validated text has no raw control characters inside strings.
        sc.clean = true;
        sc
    }

    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    #[inline(always)]
    pub(crate) fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if c > b' ' || !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                break;
            }
            self.pos += 1;
        }
    }

    /// Skips white space, then takes `c` or fails.
    #[inline(always)]
    pub(crate) fn expect(&mut self, c: u8) -> Result<(), Error> {
        self.skip_ws();
        match self.peek() {
            Some(x) if x == c => {
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

    /// The text from `start` to the cursor.
    #[inline(always)]
    pub(crate) fn since(&self, start: usize) -> &'buf str {
        &self.s[start..self.pos]
    }

    /// True when only white space is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos == self.b.len()
    }

    /// Reads a string whose opening quote is at the cursor.
    /// Returns its contents (between the quotes, escapes left as they are) and whether it holds
    /// an escape.
    #[inline]
    pub(crate) fn string(&mut self) -> Result<(&'buf str, bool), Error> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        let start = self.pos + 1;
        // Most strings are short and plain: a word-at-a-time look finds their end.
        let Some(first) = find_quote_or_backslash(&self.b[start..]) else {
            return Err(self.unterminated(start));
        };
        if self.b[start + first] == b'"' {
            return self.string_end(start, start + first, false);
        }
        // After an escape the next special byte is often near (escaped text is dense with
        // them): look a few words ahead before paying for memchr2's setup.
        let mut i = start + first;
        loop {
            if self.b[i] == b'"' {
                return self.string_end(start, i, true);
            }
            i = self.escape(i)?;
            let Some(off) = find_quote_or_backslash(&self.b[i..]) else {
                break;
            };
            i += off;
        }
        Err(self.unterminated(start))
    }

    /// Ends the string that runs from `start` to its closing quote at `end`.
    #[inline(always)]
    fn string_end(
        &mut self,
        start: usize,
        end: usize,
        escaped: bool,
    ) -> Result<(&'buf str, bool), Error> {
        if !self.clean && has_control(&self.b[start..end]) {
            return Err(Error::BadString);
        }
        self.pos = end + 1;
        Ok((&self.s[start..end], escaped))
    }

    /// The fault of a string that has no closing quote.
    #[cold]
    fn unterminated(&self, start: usize) -> Error {
        if !self.clean && has_control(&self.b[start..]) {
            Error::BadString
        } else {
            Error::Truncated
        }
    }

    /// Checks the escape whose `\` is at `i`; returns the offset just after it.
    #[inline(always)]
    fn escape(&self, i: usize) -> Result<usize, Error> {
        match self.b.get(i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(i + 2),
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
    fn number(&mut self) -> Result<bool, Error> {
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
            Some(b'1'..=b'9') => {
                i += 1;
                while matches!(b.get(i), Some(b'0'..=b'9')) {
                    i += 1;
                }
            }
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
            let v: f64 = self.s[start..i].parse().map_err(|_| Error::BadNumber)?;
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
    #[inline]
    pub(crate) fn value(&mut self, depth: usize) -> Result<Kind, Error> {
        // Scalars are most values: they need no container stack.
        self.skip_ws();
        match self.peek() {
            Some(b'"') => Ok(Kind::String {
                escaped: self.string()?.1,
            }),
            Some(b'-' | b'0'..=b'9') => Ok(if self.number()? {
                Kind::Integer
            } else {
                Kind::Float
            }),
            _ => self.nested(depth),
        }
    }

    /// [`Scanner::value`] for containers and literals: iterative, with a bit stack.
    #[inline(never)]
    fn nested(&mut self, depth: usize) -> Result<Kind, Error> {
        let mut stack = Containers::new();
        'value: loop {
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(Error::Truncated);
            };
            let kind = match c {
                b'{' | b'[' => {
                    if depth + stack.len + 1 > self.max_depth {
                        return Err(Error::TooDeep);
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let object = c == b'{';
                    let close = if object { b'}' } else { b']' };
                    match self.peek() {
                        Some(x) if x == close => {
                            self.pos += 1;
                            if object { Kind::Object } else { Kind::Array }
                        }
                        Some(_) => {
                            stack.push(object);
                            if object {
                                self.key()?;
                            }
                            continue 'value;
                        }
                        None => return Err(Error::Truncated),
                    }
                }
                b'"' => Kind::String {
                    escaped: self.string()?.1,
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
                self.skip_ws();
                let object = stack.top();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if object {
                            self.key()?;
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

    /// Reads `"key" :` (white space around it included) and returns the raw key.
    #[inline]
    pub(crate) fn key(&mut self) -> Result<(&'buf str, bool), Error> {
        self.skip_ws();
        match self.peek() {
            // Compact text: `"key":` with nothing between.
            Some(b'"') => {
                let k = self.string()?;
                if self.peek() == Some(b':') {
                    self.pos += 1;
                    return Ok(k);
                }
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
        self.skip_ws();
        match self.peek() {
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

    /// At `{`: enters the object. `Ok(false)` when it is empty (and consumed whole).
    #[inline]
    pub(crate) fn enter_object(&mut self, depth: usize) -> Result<bool, Error> {
        if depth + 1 > self.max_depth {
            return Err(Error::TooDeep);
        }
        self.pos += 1;
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Ok(true),
            None => Err(Error::Truncated),
        }
    }
}

/// Skips the digits from `i` on, of which there must be one at least; returns where they end.
fn digits(b: &[u8], mut i: usize) -> Result<usize, Error> {
    let start = i;
    while matches!(b.get(i), Some(b'0'..=b'9')) {
        i += 1;
    }
    if i > start {
        Ok(i)
    } else if i == b.len() {
        Err(Error::Truncated)
    } else {
        Err(Error::BadNumber)
    }
}

/// True when the decimal `digits` (no sign, no leading zero) are at most `max`.
fn fits_under(digits: &[u8], max: &[u8]) -> bool {
    digits.len() < max.len() || (digits.len() == max.len() && digits <= max)
}

/// Compares a raw string (as between its quotes) with `want`, decoding escapes when there are
/// any. `want` must not need escaping.
#[inline]
pub(crate) fn raw_eq(raw: &str, escaped: bool, want: &str) -> bool {
    if !escaped {
        return raw == want;
    }
    // An escape is at least two bytes for one, so a decoded match is never longer than raw.
    if raw.len() < want.len() {
        return false;
    }
    let mut w = want.bytes();
    let mut ok = true;
    for_each_char(raw, |c| {
        let mut tmp = [0u8; 4];
        for b in c.encode_utf8(&mut tmp).bytes() {
            if w.next() != Some(b) {
                ok = false;
            }
        }
    });
    ok && w.next().is_none()
}

/// Decodes a validated raw string (as between its quotes) into `out`.
pub(crate) fn unescape_into(raw: &str, out: &mut String) {
    out.reserve(raw.len());
    for_each_char(raw, |c| out.push(c));
}

/// Calls `f` with each character of a validated raw string, escapes decoded.
fn for_each_char(raw: &str, mut f: impl FnMut(char)) {
    let b = raw.as_bytes();
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        raw[run..i].chars().for_each(&mut f);
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
        f(c);
        i += len;
        run = i;
    }
    raw[run..].chars().for_each(f);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check(s: &str, depth: usize) -> Result<Kind, Error> {
        let mut sc = Scanner::new(s, depth);
        let k = sc.value(0)?;
        if sc.at_end() {
            Ok(k)
        } else {
            Err(Error::Syntax)
        }
    }

    #[test]
    fn portable_mask_agrees_with_the_target_mask() {
        let alphabet = [b'"', b'\\', b'a', 0, 0x7f, 0x80, 0xff, b' '];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..20_000 {
            let mut block = [0u8; 16];
            for b in &mut block {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = alphabet[(state % 8) as usize];
            }
            assert_eq!(specials16(&block), specials16_portable(&block), "{block:?}");
        }
    }

    #[test]
    fn word_search_finds_the_first_special_byte() {
        let mut s = vec![b'a'; 200];
        for at in 0..200 {
            s[at] = b'"';
            assert_eq!(find_quote_or_backslash(&s), Some(at));
            s[at] = b'\\';
            assert_eq!(find_quote_or_backslash(&s), Some(at));
            s[at] = b'a';
        }
        assert_eq!(find_quote_or_backslash(&s), None);
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

    #[test]
    fn escapes_decode_and_compare() {
        let mut out = String::new();
        unescape_into(r#"a\u00e9\n\ud83d\ude00\/"#, &mut out);
        assert_eq!(out, "a\u{e9}\n\u{1F600}/");
        assert!(raw_eq(r"js\u006fnrpc", true, "jsonrpc"));
        assert!(!raw_eq(r"js\u006fnrpcx", true, "jsonrpc"));
        assert!(!raw_eq(r"js\u006fr", true, "jsonrpc"));
    }
}
