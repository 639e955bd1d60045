//! White space: the token walk's steps past it. Compact text takes one compare, `json.dumps`
//! spacing one more; line breaks and indentation go to a run skip out of line.

use super::{Scanner, word_at};

impl Scanner<'_> {
    /// Skips white space (up to a `\n` that ends the text, when one does).
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
                Some(b'\n') if !self.newline_ends => {
                    // A line break, and the indentation after it in the same step.
                    self.pos += 1;
                    if let Some(w) = word_at(self.b, self.pos) {
                        let other = w ^ SPACES;
                        self.pos += if other == 0 {
                            8
                        } else {
                            (other.trailing_zeros() / 8) as usize
                        };
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips white space and returns the byte at the cursor then, if any: one bounds check and
    /// one load when no white space comes first, as in compact text.
    #[inline(always)]
    pub(super) fn peek_past_ws(&mut self) -> Option<u8> {
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' => Some(c),
            _ => {
                self.skip_ws();
                self.peek()
            }
        }
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
        // a message (a line feed is white space) and as a line (a line feed ends it).
        let mut state = 0x0123_4567_89AB_CDEF_u64;
        for len in 0..=40 {
            for round in 0..64 {
                let mut text: Vec<u8> = (0..len)
                    .map(|_| b" \t\r\n          "[(xorshift(&mut state) % 14) as usize])
                    .collect();
                let end: [&[u8]; 4] = [b"\"", b"\x0b", b"\xc3", b""];
                text.extend_from_slice(end[round % 4]);
                for line in [false, true] {
                    let mut sc = if line {
                        Scanner::line_at_start(&text, 8)
                    } else {
                        Scanner::new(&text, 8)
                    };
                    sc.skip_ws();
                    let want = text
                        .iter()
                        .position(|&c| !(matches!(c, b' ' | b'\t' | b'\r') || c == b'\n' && !line))
                        .unwrap_or(text.len());
                    assert_eq!(sc.pos(), want, "{text:?} line: {line}");
                }
            }
        }
    }
}
