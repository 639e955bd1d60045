//! Strings: long strings scanned 64 bytes a time on the kernels' masks, and the escapes.
//!
//! Short plain strings (most keys and values) never get here: `mod.rs` skips them from the
//! masks of one 16-byte chunk. Everything else (long text, escapes, bytes above ASCII) is read
//! here. A plain run at the start of a string (long text, base64) is skipped first, two blocks
//! at a time, on one test a pair ([`Kernel::skip_plain`]); the rest is read from the masks of
//! 64-byte blocks: the closing quote and the control bytes from the quote and control masks,
//! the escaped bytes from the backslash runs, and the letters after the backslashes from a
//! classification of their own; only `\u` escapes are read one by one. Bytes above ASCII are
//! noted from the same masks, so that an ASCII frame needs no UTF-8 check after its scan.

use super::{Scanner, block_at};
use crate::Error;
use crate::arch::{self, Kernel, KernelScan};

/// How far ahead of a long string's scan its bytes are asked for: the hardware's own
/// prefetch leaves a scan of several GB/s waiting on memory once its text is out of the
/// caches.
const STRING_PREFETCH: usize = 4096;

/// The bytes of a block that a backslash escapes, from the block's backslashes, without a
/// loop over them: in a run of backslashes every other one escapes the next byte, so what is
/// escaped depends on the parity of where the run starts.
/// `carry` is 1 when the block's first byte is escaped by a backslash at the end of the block
/// before; it is updated for the next block.
#[inline(always)]
pub(super) fn escaped_bytes(backslashes: u64, carry: &mut u64) -> u64 {
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

impl<'buf> Scanner<'buf> {
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
        let start = self.pos + 1;
        let mut escapes = false;
        // A plain run from the string's start (long text, a base64 blob) is skipped with the
        // kernel's test of two blocks at a time, cheaper than their masks. Only from the
        // start: in text that mixes escapes with plain runs, each test that fails is a
        // mispredicted branch and work done twice, and the block loop would pay for the state.
        // The bytes above ASCII are noted, as the blocks' are below: this path takes any UTF-8
        // (and, until the frame's check, any byte above ASCII), and marks the frame when it
        // took one.
        let (mut at, above_ascii) = k.skip_plain(self.b, start);
        let mut high = u64::from(above_ascii);
        // Bytes escaped by a backslash at the end of the block before (none after a plain
        // run).
        let mut carry = 0;
        // Past a surrogate pair's first `\u`: its second one is part of it.
        let mut escapes_from = start;
        let mut padded = [b' '; 64];
        loop {
            k.prefetch(self.b, at + STRING_PREFETCH);
            // The last block is padded with spaces, which are not special.
            let (block, len) = block_at(self.b, at, &mut padded);
            let s = k.strings(block);
            let escaped = escaped_bytes(s.backslash, &mut carry);
            // The string ends at its first quote that no backslash escapes; a control byte
            // before that is a fault. Escapes after it are another string's.
            let stops = (s.quote | s.control) & !escaped;
            let before = stops.wrapping_sub(1) & !stops;
            let escaped = escaped & before;
            if escaped != 0 {
                escapes = true;
                let (others, u) = k.non_escapes(block);
                if escaped & others != 0 {
                    // A fault: each escape in turn names it.
                    return Err(self.escape_fault(escaped, at));
                }
                self.escapes_in(escaped & u, at, &mut escapes_from)?;
            }
            if stops != 0 {
                let end = at + stops.trailing_zeros() as usize;
                if self.b[end] != b'"' {
                    return Err(Error::BadString);
                }
                // INVARIANT of `maybe_non_ascii`: set when the body took a byte above ASCII.
                self.maybe_non_ascii |= (high | (s.high & before)) != 0;
                self.pos = end + 1;
                return Ok((&self.b[start..end], escapes));
            }
            if len < 64 {
                return Err(Error::Truncated);
            }
            high |= s.high;
            at += 64;
        }
    }

    /// The fault among the escapes of a block at `at` whose escaped bytes are `escaped`, found
    /// by checking each escape in turn.
    #[cold]
    #[inline(never)]
    fn escape_fault(&self, escaped: u64, at: usize) -> Error {
        // Not `Ok` for a block with a bad escape; the scan stops there all the same.
        self.escapes_in(escaped, at, &mut 0)
            .err()
            .unwrap_or(Error::BadString)
    }

    /// Checks, in order, each escape of a block at `at` whose escaped bytes are `escaped`: an
    /// escape's backslash is just before its escaped byte (at `at - 1` for bit 0, in the block
    /// before). `from` is where the next escape may start: a surrogate pair's check takes its
    /// second half with it.
    #[inline(always)]
    pub(super) fn escapes_in(
        &self,
        mut escaped: u64,
        at: usize,
        from: &mut usize,
    ) -> Result<(), Error> {
        while escaped != 0 {
            let i = at + escaped.trailing_zeros() as usize - 1;
            if i >= *from {
                *from = self.escape(i)?;
            }
            escaped &= escaped - 1;
        }
        Ok(())
    }

    /// Checks the escape whose `\` is at `i`; returns the offset just after it.
    /// One-letter escapes and `\u` outside the surrogates are decided here, the rest (and
    /// every fault) by [`Scanner::escape_slow`].
    #[inline(always)]
    pub(super) fn escape(&self, i: usize) -> Result<usize, Error> {
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

/// How many words [`trusted_string_end`] looks through before it calls `memchr`.
const SHORT_WORDS: usize = 4;
/// `"` in every byte of a word.
const QUOTES: u64 = u64::from_le_bytes([b'"'; 8]);
/// `\` in every byte of a word.
const BACKSLASHES: u64 = u64::from_le_bytes([b'\\'; 8]);

/// The high bit of each zero byte of `w` set, and maybe that of bytes above the lowest zero
/// byte (never below it).
#[inline(always)]
const fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(0x0101_0101_0101_0101) & !w & 0x8080_8080_8080_8080
}

/// Just past the closing quote of the string whose body starts at `i`, in valid JSON text
/// (`b.len()` when there is none).
#[inline(always)]
pub(crate) fn trusted_string_end(b: &[u8], mut i: usize) -> usize {
    // NB. Most strings of a result or a block are short (keys, type names, a line of text):
    // their end is found a word at a time, before `memchr`'s set-up would pay (about 50
    // instructions a call, where a word takes a dozen). A longer one goes on with `memchr`.
    for _ in 0..SHORT_WORDS {
        let Some(w) = super::word_at(b, i) else {
            break;
        };
        let hits = zero_bytes(w ^ QUOTES) | zero_bytes(w ^ BACKSLASHES);
        if hits == 0 {
            i += 8;
            continue;
        }
        // The lowest flag is exact (a borrow only runs upwards, past a true zero byte).
        i += (hits.trailing_zeros() / 8) as usize;
        if b[i] == b'"' {
            return i + 1;
        }
        // An escape: its next byte is never the end.
        i += 2;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Scanner;
    use crate::tests::xorshift;

    #[test]
    fn a_trusted_string_s_end_agrees_with_serde_json_short_or_long() {
        // Strings of 0 to 40 bytes, with escapes at every
        // place, an escaped quote or backslash among them; what follows holds quotes too.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..20_000 {
            let len = usize::try_from(xorshift(&mut state) % 41).unwrap();
            let mut s = String::new();
            while s.len() < len {
                s.push(match xorshift(&mut state) % 8 {
                    0 => '"',
                    1 => '\\',
                    2 => '\n',
                    3 => 'é',
                    _ => 'a',
                });
            }
            let body = serde_json::to_string(&s).unwrap();
            let text = format!("{body},\"next\"");
            assert_eq!(trusted_string_end(text.as_bytes(), 1), body.len(), "{text}");
        }
    }

    #[test]
    fn escaped_bytes_agree_with_a_walk_over_blocks() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for _ in 0..20_000 {
            let state = xorshift(&mut state);
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
        // Past 128 bytes, a plain start is skipped a pair of blocks at a time first.
        for len in 0..300 {
            for escape in ["", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\\\"] {
                for at in [0, 13, 15, 16, 63, 64, 100, 127, 128, 159, 160, 255, 256] {
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
    fn every_kernel_reads_long_strings_alike() {
        // Plain starts of every length around the pairs of blocks that the wide kernels skip
        // at once, then something for the block scan, then more text; with each kernel the CPU has.
        struct Read<'a>(&'a [u8]);
        impl KernelScan for Read<'_> {
            type Output = (Result<(usize, bool), Error>, usize, bool);
            #[inline(always)]
            fn run(self, k: impl Kernel) -> Self::Output {
                let mut sc = Scanner::new(self.0, 8);
                let got = sc
                    .string_with(k)
                    .map(|(body, escapes)| (body.len(), escapes));
                (got, sc.pos, sc.maybe_non_ascii)
            }
        }
        let step = if cfg!(miri) { 61 } else { 1 };
        for len in (0..400).step_by(step) {
            for (i, then) in ["", "\\n", "\\u00e9", "\\q", "\"", "\u{1}", "\u{e9}"]
                .iter()
                .enumerate()
            {
                let plain: String = (0..len)
                    .map(|j| if (j + i) % 97 == 96 { '\u{fc}' } else { 'p' })
                    .collect();
                let text = format!("\"{plain}{then}{}\"", "t".repeat(len % 70));
                let all = arch::with_each_kernel(|| Read(text.as_bytes()));
                assert!(all.windows(2).all(|w| w[0] == w[1]), "{text:?} {all:?}");
                let want_ok = !matches!(*then, "\\q" | "\u{1}");
                assert_eq!(all[0].0.is_ok(), want_ok, "{text:?}");
            }
        }
    }

    #[test]
    fn the_run_time_string_scan_agrees_with_the_baseline_scan() {
        // `string` takes the widest vectors the CPU has; `string_with(Baseline)` is the SSE2
        // path every other build uses. Random strings with escapes, faults and block ends.
        let pieces: [&str; 13] = [
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
            &"q".repeat(150),
        ];
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let rounds = if cfg!(miri) { 300 } else { 20_000 };
        for _ in 0..rounds {
            let mut text = String::from("\"");
            for _ in 0..(state % 24) {
                text.push_str(pieces[(xorshift(&mut state) % pieces.len() as u64) as usize]);
            }
            let mut wide = Scanner::new(text.as_bytes(), 8);
            let mut base = Scanner::new(text.as_bytes(), 8);
            let got = wide.string();
            assert_eq!(got, base.string_with(arch::Baseline), "{text:?}");
            if got.is_ok() {
                assert_eq!(wide.pos, base.pos, "{text:?}");
                assert_eq!(wide.maybe_non_ascii, base.maybe_non_ascii, "{text:?}");
                assert_eq!(
                    wide.maybe_non_ascii,
                    !text[..wide.pos].is_ascii(),
                    "{text:?}"
                );
            }
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
}
