//! Where the bulk scan's 64-byte blocks come from: the text itself ([`Direct`]), or the text
//! with its runs of white space squeezed ([`Squeezed`]).
//!
//! The bulk scan's cost is a fixed cost a block, whatever the block holds (BENCHMARKS.md,
//! seventeenth session), so indented text, where half the bytes are indentation, costs twice
//! its compact form. Squeezing drops each space that follows a byte up to a space (white
//! space or a control byte): an indentation after a line break shrinks to the line break, and
//! `": "` keeps its one space. That leaves the text's verdict as it was:
//! - outside strings, each run of white space keeps its first byte, so the tokens it
//!   separated are still apart, and a control byte that is a fault is still there;
//! - inside strings, a run of spaces shrinks but stays, and no dropped space is escaped or
//!   ends an escape (the byte before it is no backslash), so every escape reads the same;
//! - only spaces go, so the bytes above ASCII and the control bytes are all still there.
//!
//! The scan reads the squeezed blocks as it reads the text's own, with the positions of the
//! squeezed text for escapes and literals; the one position it hands back, just past the
//! closing bracket where it ends, is mapped back to the text by counting the kept bytes again.

use super::{block_at, chunk64};
use crate::arch::Kernel;

/// How far ahead of the bulk scan its bytes are asked for (see `string.rs`'s own distance).
const PREFETCH: usize = 2048;

/// How many bytes of text a bulk scan must have before it for squeezing to pay for setting
/// up its buffer.
const SQUEEZE_TEXT: usize = 512;

/// Whether a bulk scan from `at` in `b` reads the text squeezed: when the text goes on for
/// [`SQUEEZE_TEXT`] bytes or more and its first block drops `from` bytes or more (by default
/// the kernel's [`Kernel::SQUEEZE_FROM`]; 0, which tests use: always, with any kernel).
#[inline(always)]
pub(super) fn worth_squeezing<K: Kernel>(k: K, b: &[u8], at: usize, from: Option<u32>) -> bool {
    let from = from.unwrap_or(K::SQUEEZE_FROM);
    if from > 64 || (from != 0 && b.len().saturating_sub(at) < SQUEEZE_TEXT) {
        return false;
    }
    let mut padded = [b' '; 64];
    let (block, len) = block_at(b, at, &mut padded);
    let mut low = Squeezed::low_before(b, at);
    let dropped = !kept(k, block, &mut low) & low_bits(len);
    dropped.count_ones() >= from
}

/// The blocks a bulk scan reads, and the text their positions index.
pub(super) trait Blocks {
    /// The block at the cursor, and how many of its bytes are text (fewer than 64 only at the
    /// text's end, where spaces fill the rest of the block).
    fn next(&mut self, k: impl Kernel) -> (&[u8; 64], usize);
    /// The text the positions of the blocks index: the scan reads escapes and literals from
    /// it. It holds at least 16 bytes past the block at the cursor, unless the text ends
    /// before, and the byte before that block.
    fn text(&self) -> &[u8];
    /// The position in [`Blocks::text`] of the block at the cursor.
    fn at(&self) -> usize;
    /// Moves the cursor to the next block; `from`, a position in [`Blocks::text`], moves with
    /// the text when its bytes move.
    fn advance(&mut self, from: &mut usize);
    /// The position in the scanner's text of `end`, a position in [`Blocks::text`] just past
    /// a byte of a block already read (`None`: never, but the scan then gives up).
    fn position(&self, k: impl Kernel, end: usize) -> Option<usize>;
}

/// The text's own blocks.
pub(super) struct Direct<'a> {
    b: &'a [u8],
    at: usize,
    /// The last block, filled with spaces.
    padded: [u8; 64],
}

impl<'a> Direct<'a> {
    /// The blocks of `b` from `at`.
    #[inline(always)]
    pub(super) const fn new(b: &'a [u8], at: usize) -> Self {
        Self {
            b,
            at,
            padded: [b' '; 64],
        }
    }
}

impl Blocks for Direct<'_> {
    #[inline(always)]
    fn next(&mut self, k: impl Kernel) -> (&[u8; 64], usize) {
        k.prefetch(self.b, self.at + PREFETCH);
        block_at(self.b, self.at, &mut self.padded)
    }

    #[inline(always)]
    fn text(&self) -> &[u8] {
        self.b
    }

    #[inline(always)]
    fn at(&self) -> usize {
        self.at
    }

    #[inline(always)]
    fn advance(&mut self, _: &mut usize) {
        self.at += 64;
    }

    #[inline(always)]
    fn position(&self, _: impl Kernel, end: usize) -> Option<usize> {
        Some(end)
    }
}

/// How many squeezed bytes are kept before the block at the cursor (the scan looks one byte
/// back, for an escape whose backslash ends the block before).
const BEHIND: usize = 16;
/// How many squeezed bytes past the cursor are made before the block at the cursor is read:
/// the block, the 16 bytes that escapes and literals may read past it, and a block more, so
/// that the block read was written a block before (a load of bytes that recent stores wrote
/// in parts waits for the stores).
const AHEAD: usize = 64 + 16 + 64;
/// Where the cursor is when the squeezed bytes are moved back to the buffer's start.
const MOVE_AT: usize = 512;
/// The squeezed bytes' buffer: a block's worth of writes past [`AHEAD`] from below
/// [`MOVE_AT`].
const BUFFER: usize = MOVE_AT + AHEAD + 64;

/// The blocks of a text with its runs of white space squeezed (the module's doc).
pub(super) struct Squeezed<'a> {
    /// The scanner's text.
    b: &'a [u8],
    /// The first byte of `b` squeezed.
    start: usize,
    /// The next byte of `b` to squeeze.
    raw: usize,
    /// The block of `b` squeezed last starts here.
    last: usize,
    /// 1 when the byte before `raw` is at most a space.
    low: u64,
    /// All of `b` is squeezed.
    done: bool,
    /// The squeezed bytes from `BEHIND` before the cursor to `made`; once `done`, spaces for
    /// a block after them.
    buf: [u8; BUFFER],
    at: usize,
    made: usize,
}

/// Bits `0..n` (all for 64 and more).
#[inline(always)]
const fn low_bits(n: usize) -> u64 {
    if n >= 64 { !0 } else { (1 << n) - 1 }
}

/// The bytes of `block` that squeezing keeps, given `low`, 1 when the byte before the block
/// is at most a space (it becomes the block's last).
#[inline(always)]
pub(super) fn kept(k: impl Kernel, block: &[u8; 64], low: &mut u64) -> u64 {
    let (space, low_bytes) = k.low_bytes(block);
    let dropped = space & ((low_bytes << 1) | *low);
    *low = low_bytes >> 63;
    !dropped
}

impl<'a> Squeezed<'a> {
    /// The squeezed blocks of `b` from `at`.
    #[inline(always)]
    pub(super) fn new(b: &'a [u8], at: usize) -> Self {
        Self {
            b,
            start: at,
            raw: at,
            last: at,
            low: Self::low_before(b, at),
            done: false,
            buf: [b' '; BUFFER],
            at: BEHIND,
            made: BEHIND,
        }
    }

    /// 1 when the byte of `b` before `at` is at most a space.
    #[inline(always)]
    fn low_before(b: &[u8], at: usize) -> u64 {
        u64::from(
            at.checked_sub(1)
                .and_then(|i| b.get(i))
                .is_some_and(|&x| x <= b' '),
        )
    }

    /// Squeezes blocks of the text into the buffer until it holds [`AHEAD`] bytes past the
    /// cursor, or the whole text. The loop works on locals, so that they stay in registers.
    #[inline(always)]
    fn fill(&mut self, k: impl Kernel) {
        let b = self.b;
        let want = self.at + AHEAD;
        let (mut made, mut raw, mut low) = (self.made, self.raw, self.low);
        while made < want {
            // Never short (see `BUFFER`); were it, the squeezed text would end here.
            let Some(Ok(out)) = self
                .buf
                .get_mut(made..made + 64)
                .map(<&mut [u8; 64]>::try_from)
            else {
                self.done = true;
                break;
            };
            k.prefetch(b, raw + PREFETCH);
            if let Some(block) = chunk64(b, raw) {
                let keep = kept(k, block, &mut low);
                k.compress(block, keep, out);
                made += keep.count_ones() as usize;
                raw += 64;
            } else {
                let rest = b.get(raw..).unwrap_or_default();
                let mut padded = [b' '; 64];
                padded[..rest.len()].copy_from_slice(rest);
                let keep = kept(k, &padded, &mut low) & low_bits(rest.len());
                k.compress(&padded, keep, out);
                made += keep.count_ones() as usize;
                self.last = raw;
                raw = b.len();
                self.done = true;
                if let Some(after) = self.buf.get_mut(made..made + 64) {
                    after.fill(b' ');
                }
                break;
            }
        }
        if !self.done {
            self.last = raw.saturating_sub(64);
        }
        (self.made, self.raw, self.low) = (made, raw, low);
    }
}

impl Blocks for Squeezed<'_> {
    #[inline(always)]
    fn next(&mut self, k: impl Kernel) -> (&[u8; 64], usize) {
        if !self.done && self.made < self.at + AHEAD {
            self.fill(k);
        }
        let len = if self.done {
            self.made.saturating_sub(self.at).min(64)
        } else {
            64
        };
        match self.buf.get(self.at..self.at + 64) {
            Some(block) => (block.try_into().unwrap_or(&[b' '; 64]), len),
            None => (&[b' '; 64], 0),
        }
    }

    #[inline(always)]
    fn text(&self) -> &[u8] {
        &self.buf[..self.made]
    }

    #[inline(always)]
    fn at(&self) -> usize {
        self.at
    }

    #[inline(always)]
    fn advance(&mut self, from: &mut usize) {
        self.at += 64;
        if self.at >= MOVE_AT {
            // The cursor never passes `made` (the scan stops at a block of fewer than 64
            // bytes), and `made` stays a block below the buffer's end.
            let by = self.at - BEHIND;
            let end = (self.made + 64).min(BUFFER);
            self.buf.copy_within(by..end, 0);
            self.at -= by;
            self.made -= by;
            *from = from.saturating_sub(by);
        }
    }

    fn position(&self, k: impl Kernel, end: usize) -> Option<usize> {
        // Count back the bytes kept after the one before `end`, from the text's block
        // squeezed last.
        let mut after = self.made.checked_sub(end)?;
        let mut at = self.last;
        loop {
            let mut low = Self::low_before(self.b, at);
            let mut padded = [b' '; 64];
            let (block, len) = block_at(self.b, at, &mut padded);
            let keep = kept(k, block, &mut low) & low_bits(len);
            let count = keep.count_ones() as usize;
            if after < count {
                let mut keep = keep;
                for _ in 0..count - 1 - after {
                    keep &= keep - 1;
                }
                return Some(at + keep.trailing_zeros() as usize + 1);
            }
            after -= count;
            if at <= self.start {
                return None;
            }
            at = at.checked_sub(64)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{KernelScan, with_each_kernel};

    /// What squeezing `b` from `from` keeps, as the positions of `b` kept.
    fn model(b: &[u8], from: usize) -> Vec<usize> {
        (from..b.len())
            .filter(|&i| !(b[i] == b' ' && i > 0 && b[i - 1] <= b' '))
            .collect()
    }

    /// The squeezed text a kernel gives, and the position it maps each of its bytes back to.
    struct Squeeze<'a>(&'a [u8], usize);

    impl KernelScan for Squeeze<'_> {
        type Output = (Vec<u8>, Vec<Option<usize>>);

        fn run(self, k: impl Kernel) -> Self::Output {
            let mut src = Squeezed::new(self.0, self.1);
            let (mut bytes, mut ends) = (Vec::new(), Vec::new());
            let mut from = 0;
            loop {
                let (block, len) = src.next(k);
                let block = *block;
                bytes.extend_from_slice(&block[..len]);
                assert!(block[len..].iter().all(|&x| x == b' '));
                let at = src.at();
                assert_eq!(&src.text()[at..at + len], &block[..len]);
                ends.extend((0..len).map(|i| src.position(k, at + i + 1)));
                if len < 64 {
                    return (bytes, ends);
                }
                src.advance(&mut from);
            }
        }
    }

    #[test]
    fn every_kernel_squeezes_as_the_model_and_maps_each_byte_back() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for round in 0..300 {
            // Runs of spaces, line breaks, tabs and control bytes between tokens, long enough
            // for the buffer to move its bytes back (past `MOVE_AT`) several times.
            let len = [0, 1, 63, 64, 65, 200, 3000, 9000][round % 8];
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    match state % 16 {
                        0..=6 => b' ',
                        7 => b'\n',
                        8 => b'\t',
                        9 => 0x01,
                        10 => b'\\',
                        11 => 0xc3,
                        _ => b"\"{}[],:ab1"[(state >> 8) as usize % 10],
                    }
                })
                .collect();
            let from = if len > 0 {
                (state >> 20) as usize % len
            } else {
                0
            };
            let kept = model(&text, from);
            let want: Vec<u8> = kept.iter().map(|&i| text[i]).collect();
            let ends: Vec<Option<usize>> = kept.iter().map(|&i| Some(i + 1)).collect();
            for (bytes, got) in with_each_kernel(|| Squeeze(&text, from)) {
                assert_eq!(bytes, want, "round {round}");
                assert_eq!(got, ends, "round {round}");
            }
        }
    }

    #[test]
    fn a_long_run_of_spaces_squeezes_to_its_first_byte() {
        let mut text = b"[1,\n".to_vec();
        text.extend_from_slice(&[b' '; 5000]);
        text.extend_from_slice(b"2]");
        for (bytes, ends) in with_each_kernel(|| Squeeze(&text, 3)) {
            assert_eq!(bytes, b"\n2]");
            assert_eq!(ends, [Some(4), Some(text.len() - 1), Some(text.len())]);
        }
    }
}
