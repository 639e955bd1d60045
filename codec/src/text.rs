//! Text out of a scanned frame without a second pass over it: with `wide`, the only `unsafe`
//! code in Janus.
//!
//! The parse scans a frame as bytes ([`Scanner`]) and hands out its spans as `&str`.
//! Checking the whole frame's UTF-8 apart from the scan is one more pass over every byte,
//! and making each span a `&str` with `str::get` checks both ends of every span again.
//! Neither is needed:
//!
//! - outside strings the JSON grammar only takes ASCII bytes. Inside them, the inline path of
//!   short plain strings (most keys and values) refuses bytes above ASCII, leaving such
//!   strings to the block scan, which marks the frame (`Scanner::maybe_non_ascii`, an
//!   INVARIANT of the scanner). A frame scanned whole and not marked is ASCII, hence UTF-8.
//!   Any other frame gets the full check (`simdutf8`), as every frame used to;
//! - the scanner's spans start and end at ASCII bytes of JSON syntax (or at the end), so they
//!   cut a UTF-8 text at character boundaries.
//!
//! The gain, measured with interleaved runs of `janus-bench`'s in-place reading loop on the
//! project's machine (2026-11-30), against the same byte scan with a `simdutf8` pass and
//! checked spans: the 165-byte legacy call 93.7 → 80 ns, the 32 KB `tools/list` result
//! 11.47 → 11.1 µs, the 1 MiB argument by about 11 µs (the pass over it).
//!
//! Debug builds (tests, fuzzing) check both facts where they are relied on. Building with
//! `RUSTFLAGS="--cfg janus_codec_safe"` leaves the `unsafe` out: every frame then gets the
//! full check and every span `str::get`.
#![allow(unsafe_code)]

use crate::scan::Scanner;

/// Bytes that are UTF-8: a frame after its scan, or text that already was a `str`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text<'buf> {
    /// INVARIANT: valid UTF-8.
    bytes: &'buf [u8],
}

impl<'buf> Text<'buf> {
    /// The text of a frame after `sc` scanned it: `complete` when the scan took the whole
    /// frame as JSON without a fault. `None` when the frame is not UTF-8.
    #[inline(always)]
    pub(crate) fn of_scan(frame: &'buf [u8], sc: &Scanner<'buf>, complete: bool) -> Option<Self> {
        #[cfg(not(janus_codec_safe))]
        if complete && !sc.maybe_non_ascii() && sc.took_all_of(frame) {
            debug_assert!(frame.is_ascii(), "the scan missed a byte above ASCII");
            // INVARIANT: the scan took every byte of `frame` and none above ASCII (the
            // INVARIANT of `Scanner::maybe_non_ascii`): ASCII text is UTF-8.
            return Some(Self { bytes: frame });
        }
        let _ = (sc, complete);
        simdutf8::basic::from_utf8(frame).ok().map(Self::of_str)
    }

    /// Text that already is a `str`.
    #[inline(always)]
    pub(crate) const fn of_str(s: &'buf str) -> Self {
        // INVARIANT: a `str` is UTF-8.
        Self {
            bytes: s.as_bytes(),
        }
    }

    /// The whole text.
    #[cfg(test)]
    fn as_str(self) -> &'buf str {
        self.span(self.bytes)
    }

    /// The text of `span`: a slice of these bytes that the scanner gave, so that each of its
    /// ends lies next to an ASCII byte of JSON syntax or at an end of the text (see
    /// `Scanner::since`), which is a character boundary.
    ///
    /// A span outside the bytes is never trusted: it reads as `""` (and fails debug builds).
    #[inline(always)]
    pub(crate) fn span(self, span: &'buf [u8]) -> &'buf str {
        let at = (span.as_ptr() as usize).wrapping_sub(self.bytes.as_ptr() as usize);
        if at > self.bytes.len() || span.len() > self.bytes.len() - at {
            debug_assert!(false, "a span outside its text");
            return "";
        }
        #[cfg(not(janus_codec_safe))]
        {
            // In UTF-8 text, a boundary is an end or a byte that does not continue a character.
            let boundary = |i: usize| self.bytes.get(i).is_none_or(|&b| (b as i8) >= -0x40);
            debug_assert!(
                boundary(at) && boundary(at + span.len()),
                "a span that cuts a character"
            );
            // SAFETY: `span` lies inside `self.bytes` (asserted), which are UTF-8 (the field's
            // INVARIANT), and it starts and ends at character boundaries, as every span the
            // scanner gives does (this function's contract): so it is UTF-8 too.
            unsafe { core::str::from_utf8_unchecked(span) }
        }
        // A span that is UTF-8 on its own: the check costs the span's length, not the text's.
        #[cfg(janus_codec_safe)]
        core::str::from_utf8(span).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ascii_frame_scanned_whole_is_text_and_others_are_checked() {
        let ascii = br#"{"a":["b",1,true]}"#;
        let mut sc = Scanner::new(ascii, 8);
        sc.value(0).unwrap();
        assert!(!sc.maybe_non_ascii());
        assert_eq!(
            Text::of_scan(ascii, &sc, true).unwrap().as_str(),
            r#"{"a":["b",1,true]}"#
        );
        // A byte above ASCII anywhere in a key or a value, short or long, marks the frame for
        // the full check, which finds whether it is UTF-8.
        for len in (0..200).step_by(if cfg!(miri) { 41 } else { 1 }) {
            for at in [0, len / 2, len] {
                for (tail, utf8) in [(&b"\xc3\xa9"[..], true), (b"\xff", false), (b"\xc3", false)] {
                    let mut body = vec![b'x'; len];
                    body.splice(at..at, tail.iter().copied());
                    let mut key = b"{\"".to_vec();
                    key.extend_from_slice(&body);
                    key.extend_from_slice(b"\":1}");
                    let mut value = b"{\"k\":\"".to_vec();
                    value.extend_from_slice(&body);
                    value.extend_from_slice(b"\"}");
                    for frame in [key, value] {
                        let mut sc = Scanner::new(&frame, 8);
                        sc.value(0).unwrap();
                        assert!(sc.maybe_non_ascii(), "{frame:?}");
                        assert_eq!(
                            Text::of_scan(&frame, &sc, true).is_some(),
                            utf8,
                            "{frame:?}"
                        );
                    }
                }
            }
        }
        // A scan that stopped early proves nothing about the rest.
        let mut sc = Scanner::new(b"[1,\xff]", 8);
        assert!(sc.value(0).is_err());
        assert!(Text::of_scan(b"[1,\xff]", &sc, false).is_none());
    }

    #[test]
    fn spans_are_text() {
        let s = "{\"k\u{e9}\":1}";
        let t = Text::of_str(s);
        assert_eq!(t.span(&s.as_bytes()[1..6]), "\"k\u{e9}\"");
        assert_eq!(t.span(&s.as_bytes()[7..8]), "1");
        assert_eq!(t.span(&s.as_bytes()[9..]), "");
    }
}
