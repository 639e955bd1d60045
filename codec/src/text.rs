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
//!   strings to the block scan, which marks the frame when such a string holds one
//!   (`Scanner::maybe_non_ascii`, an INVARIANT of the scanner). A frame scanned whole and not
//!   marked is ASCII, hence UTF-8. Any other frame gets the full check (`simdutf8`), as every
//!   frame used to;
//! - the scanner's spans ([`Span`], which only the scanner makes) start and end next to ASCII
//!   bytes of JSON syntax, so they cut a UTF-8 text at character boundaries.
//!
//! The README's "How the codec gets there" gives what this gains.
//!
//! Debug builds (tests, fuzzing) check both facts where they are relied on. Building with
//! `RUSTFLAGS="--cfg janus_codec_safe"` leaves the `unsafe` out: every frame then gets the
//! full check and every span `str::get`.
#![allow(unsafe_code)]

use crate::scan::{Scanner, Span};

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
        core::str::from_utf8(self.bytes).unwrap_or_default()
    }

    /// The text of `span`, which must lie inside these bytes: a span outside them is never
    /// trusted, it reads as `""` (and fails debug builds).
    ///
    /// Each end of a [`Span`] is next to an ASCII byte of the text the scanner read (its
    /// INVARIANT), so inside these bytes it is a character boundary, whichever scan made it.
    #[inline(always)]
    pub(crate) fn span(self, span: Span<'buf>) -> &'buf str {
        let span = span.bytes();
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
            // SAFETY: `span` lies inside `self.bytes` (checked above), which are UTF-8 (the
            // field's INVARIANT). Each of its ends is a position where the byte at it or the
            // one before it is ASCII, in the scanner's text (the INVARIANT of `Span`, which
            // only the scanner makes): an end of `self.bytes` is a boundary, and any other end
            // has both those bytes inside `self.bytes`, the same bytes the scanner read, so one
            // of them is a whole ASCII character next to it. Both ends being character
            // boundaries of UTF-8 text, `span` is UTF-8 too.
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
    use crate::Error;

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
    fn long_ascii_strings_leave_the_frame_unmarked_and_a_byte_above_ascii_marks_it() {
        // Long strings and strings with escapes go to the block scan, which marks the frame
        // only for a byte above ASCII inside the string: not for ASCII, and not for one after
        // its closing quote in the same block (that byte is the next string's to mark).
        for len in (0..300).step_by(if cfg!(miri) { 37 } else { 1 }) {
            for escape in ["", "\\n", "\\u00e9"] {
                let body = format!("{escape}{}", "y".repeat(len));
                let ascii = format!("[\"{body}\",1]");
                let mut sc = Scanner::new(ascii.as_bytes(), 8);
                sc.value(0).unwrap();
                assert!(sc.at_end() && !sc.maybe_non_ascii(), "{ascii}");
                assert!(Text::of_scan(ascii.as_bytes(), &sc, true).is_some());
                // A byte above ASCII in the next string is that string's, which still marks.
                let next = format!("[\"{body}\",\"\u{e9}\"]");
                let mut sc = Scanner::new(next.as_bytes(), 8);
                sc.value(0).unwrap();
                assert!(sc.maybe_non_ascii(), "{next}");
                // One right after the closing quote is no string's: the scan fails there, and
                // what it took is ASCII.
                let after = format!("[\"{body}\"\u{e9}]");
                let mut sc = Scanner::new(after.as_bytes(), 8);
                assert_eq!(sc.value(0), Err(Error::Syntax), "{after}");
                assert!(!sc.maybe_non_ascii(), "{after}");
            }
        }
    }

    #[test]
    fn spans_are_text() {
        let s = "{\"k\u{e9}\":\"\u{fc}\",\"\":1}";
        let t = Text::of_str(s);
        let mut sc = Scanner::new(s.as_bytes(), 8);
        assert_eq!(sc.enter_object(0), Ok(true));
        let (k, _) = sc.key().unwrap();
        assert_eq!(t.span(k), "k\u{e9}");
        let start = sc.mark().unwrap();
        sc.value(1).unwrap();
        assert_eq!(t.span(sc.since(start)), "\"\u{fc}\"");
        assert_eq!(t.span(sc.since(start).string_body()), "\u{fc}");
        assert_eq!(sc.member_end(), Ok(true));
        let (k, _) = sc.key().unwrap();
        assert_eq!(t.span(k), "");
        let start = sc.mark().unwrap();
        assert_eq!(t.span(sc.since(start)), "");
        sc.value(1).unwrap();
        assert_eq!(t.span(sc.since(start)), "1");
        assert_eq!(t.span(sc.since(start).string_body()), "");
    }
}
