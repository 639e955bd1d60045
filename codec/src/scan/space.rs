//! White space: the token walk's steps past it. Compact text takes one compare, `json.dumps`
//! spacing one more, a line break with fewer than eight spaces of indentation (pretty
//! printers) one word; longer runs go to a run skip out of line.

use super::{Scanner, word_at};

/// Eight spaces, as a word.
const SPACES: u64 = u64::from_le_bytes([b' '; 8]);

/// How many spaces the word `w` (eight bytes of text, the first lowest) starts with: 0 to 8.
/// The first byte that is no space is the lowest nonzero byte of `w ^ SPACES`.
#[inline(always)]
const fn leading_spaces(w: u64) -> u32 {
    (w ^ SPACES).trailing_zeros() / 8
}

impl Scanner<'_> {
    /// Skips white space (up to a `\n` that ends the text, when one does).
    #[inline(always)]
    pub(crate) fn skip_ws(&mut self) {
        let _ = self.peek_past_ws();
    }

    /// Skips white space; true when there was some (spaced text).
    #[inline(always)]
    pub(crate) fn past_ws(&mut self) -> bool {
        let at = self.pos;
        self.skip_ws();
        self.pos != at
    }

    /// The white space [`Scanner::peek_past_ws`] does not take in one step (runs of spaces,
    /// indentation of eight spaces or more, tabs, `\r`): runs of spaces eight bytes a step,
    /// from one word compare, the other white space byte by byte.
    #[inline(never)]
    fn skip_ws_run(&mut self) {
        // INVARIANT of `pos`: every step takes white space, which is ASCII.
        loop {
            match self.b.get(self.pos) {
                Some(b' ') => {
                    self.pos += word_at(self.b, self.pos).map_or(1, |w| leading_spaces(w) as usize);
                }
                Some(b'\t' | b'\r') => self.pos += 1,
                Some(b'\n') if !self.newline_ends => {
                    // A line break, and the indentation after it in the same step.
                    self.pos += 1;
                    if let Some(w) = word_at(self.b, self.pos) {
                        self.pos += leading_spaces(w) as usize;
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips white space and returns the byte at the cursor then, if any: one bounds check and
    /// one load when no white space comes first, as in compact text. The two usual shapes of
    /// white space give the next token's byte from the loads that found its end: one space
    /// (`", "`, `": "`), and a line break with fewer than eight spaces of indentation, whose
    /// word holds the next token's first byte too.
    #[inline(always)]
    pub(super) fn peek_past_ws(&mut self) -> Option<u8> {
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' => return Some(c),
            Some(b' ') => {
                if let Some(&c) = self.b.get(self.pos + 1)
                    && c > b' '
                {
                    self.pos += 1;
                    return Some(c);
                }
            }
            Some(b'\n') if !self.newline_ends => {
                if let Some(w) = word_at(self.b, self.pos + 1) {
                    // The first byte that is no space, if any: at `n` (below 8).
                    let n = leading_spaces(w);
                    if let Some(c) = w.checked_shr(n * 8).map(|v| v as u8)
                        && c > b' '
                    {
                        // INVARIANT of `pos`: a line feed and `n` spaces, all ASCII.
                        self.pos += 1 + n as usize;
                        return Some(c);
                    }
                }
            }
            _ => {}
        }
        self.skip_ws_run();
        self.peek()
    }
}

#[cfg(test)]
mod tests {
    use super::Scanner;
    use crate::tests::xorshift;

    #[test]
    fn white_space_runs_are_skipped_as_byte_by_byte_reading_skips_them() {
        // Runs of every length to 40 from the four white space bytes, then a byte that ends
        // them (a token, a vertical tab, a byte above ASCII) or the end of the text, read as
        // a message (a line feed is white space) and as a line (a line feed ends it), skipped
        // and peeked past (which gives the byte there too).
        let mut state = 0x0123_4567_89AB_CDEF_u64;
        for len in 0..=40 {
            for round in 0..64 {
                let mut text: Vec<u8> = (0..len)
                    .map(|_| b" \t\r\n          "[(xorshift(&mut state) % 14) as usize])
                    .collect();
                let end: [&[u8]; 4] = [b"\"", b"\x0b", b"\xc3", b""];
                text.extend_from_slice(end[round % 4]);
                for line in [false, true] {
                    let scanner = || {
                        if line {
                            Scanner::line_at_start(&text, 8)
                        } else {
                            Scanner::new(&text, 8)
                        }
                    };
                    let (mut sc, mut peeked) = (scanner(), scanner());
                    sc.skip_ws();
                    let byte = peeked.peek_past_ws();
                    let want = text
                        .iter()
                        .position(|&c| !(matches!(c, b' ' | b'\t' | b'\r') || c == b'\n' && !line))
                        .unwrap_or(text.len());
                    assert_eq!(sc.pos(), want, "{text:?} line: {line}");
                    assert_eq!(peeked.pos(), want, "{text:?} line: {line}");
                    assert_eq!(byte, text.get(want).copied(), "{text:?} line: {line}");
                }
            }
        }
    }
}
