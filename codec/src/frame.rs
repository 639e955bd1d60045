//! Newline-delimited framing over `BytesMut`, without copying.
//!
//! [`FrameCodec`] cuts the buffer at each `\n` and hands the line out as an owned [`Bytes`]
//! (`split_to` + `freeze`: no copy).
//! A trailing `\r` is dropped, blank lines are skipped, and a UTF-8 byte order mark at the very
//! start of the stream is skipped.
//! A line longer than the limit is reported once as [`Frame::Oversize`] and discarded up to its
//! newline; the frames after it decode as usual.
//! That fault is an item, not a decoder error, because `FramedRead` ends the stream after an
//! error.
//! The search for `\n` resumes where the last one stopped, so a line that arrives a byte at a
//! time costs linear time.

use crate::{Error, Parsed, Parser, Rejection};
use bytes::{Buf, Bytes, BytesMut};

/// The default longest line: 8 MiB, not counting its `\n` (nor a `\r` before it).
pub const DEFAULT_MAX_FRAME_LEN: usize = 8 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One item of the framed stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// One line, without its `\n` and without a trailing `\r`; never blank.
    Line(Bytes),
    /// A line longer than the limit. It was (or is being) discarded up to its newline; the
    /// answer is a `-32600` error with id `null`.
    Oversize,
}

/// One item of the framed stream, read in place ([`FrameCodec::decode_with`]): a
/// [`Frame`] whose line borrows from the input buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameRef<'buf> {
    /// One line, without its `\n` and without a trailing `\r`; never blank.
    Line(&'buf [u8]),
    /// A line longer than the limit (see [`Frame::Oversize`]).
    Oversize,
}

impl<'buf> From<&'buf Frame> for FrameRef<'buf> {
    fn from(frame: &'buf Frame) -> Self {
        match frame {
            Frame::Line(line) => Self::Line(line),
            Frame::Oversize => Self::Oversize,
        }
    }
}

/// The newline framing state of one input stream.
///
/// # Example
///
/// ```
/// use bytes::BytesMut;
/// use janus_codec::{Frame, FrameCodec};
///
/// let mut codec = FrameCodec::new();
/// let mut buf = BytesMut::from(&b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\""[..]);
/// assert_eq!(codec.decode_frame(&mut buf), Some(Frame::Line("{\"a\":1}".into())));
/// assert_eq!(codec.decode_frame(&mut buf), None); // `{"b"` waits for its newline
/// assert_eq!(codec.decode_frame_eof(&mut buf), Some(Frame::Line("{\"b\"".into())));
/// ```
#[derive(Debug, Clone)]
pub struct FrameCodec {
    max_len: usize,
    /// INVARIANT: `buf[..next_index]` holds no `\n` (the part already searched).
    next_index: usize,
    /// True while the rest of an oversize line is being dropped.
    discarding: bool,
    /// True once the start of the stream was checked for a byte order mark.
    bom_checked: bool,
}

impl Default for FrameCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameCodec {
    /// A codec with the default limit ([`DEFAULT_MAX_FRAME_LEN`]).
    #[must_use]
    pub const fn new() -> Self {
        Self {
            max_len: DEFAULT_MAX_FRAME_LEN,
            next_index: 0,
            discarding: false,
            bom_checked: false,
        }
    }

    /// Sets the longest line accepted (bytes before `\n`, a trailing `\r` not counted).
    pub fn max_frame_len(&mut self, n: usize) -> &mut Self {
        self.max_len = n;
        self
    }

    /// The longest line accepted, as [`FrameCodec::max_frame_len`] set it.
    ///
    /// (The setter has the plain name, as builder setters do here; the getter takes `get_`,
    /// as `std::process::Command`'s do.)
    #[must_use]
    pub const fn get_max_frame_len(&self) -> usize {
        self.max_len
    }

    /// Takes the next frame out of `buf`, or `None` when no complete line is buffered.
    ///
    /// It never returns `None` while a complete line is buffered: blank lines and the rest of
    /// an oversize line are skipped in a loop, not by returning early.
    pub fn decode_frame(&mut self, buf: &mut BytesMut) -> Option<Frame> {
        let next = self.next(buf);
        Self::take(buf, next?)
    }

    /// Like [`FrameCodec::decode_frame`] at the end of input: the last line may lack its
    /// newline.
    pub fn decode_frame_eof(&mut self, buf: &mut BytesMut) -> Option<Frame> {
        let next = self.next_eof(buf);
        Self::take(buf, next?)
    }

    /// Reads the next frame in place: calls `f` with it while its bytes are still in `buf`,
    /// then takes them out, and returns what `f` returned; `None` when no complete line is
    /// buffered (and `f` is not called).
    ///
    /// It frames exactly as [`FrameCodec::decode_frame`] does, without making an owned
    /// [`Bytes`] of each line: a reader that is done with a line once it has handled it (as
    /// Janus's dispatch loop is) saves the reference count's two atomic operations per frame.
    ///
    /// # Example
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use janus_codec::{FrameCodec, FrameRef};
    ///
    /// let mut codec = FrameCodec::new();
    /// let mut buf = BytesMut::from(&b"{\"a\":1}\r\n\n{\"b\""[..]);
    /// let len = codec.decode_with(&mut buf, |frame| match frame {
    ///     FrameRef::Line(line) => line.len(),
    ///     FrameRef::Oversize => 0,
    /// });
    /// assert_eq!(len, Some(7));
    /// assert_eq!(&buf[..], b"\n{\"b\""); // the blank line is skipped at the next call
    /// assert_eq!(codec.decode_with(&mut buf, |_| ()), None);
    /// ```
    pub fn decode_with<R>(
        &mut self,
        buf: &mut BytesMut,
        f: impl FnOnce(FrameRef<'_>) -> R,
    ) -> Option<R> {
        let next = self.next(buf)?;
        Some(Self::read_in_place(buf, next, f))
    }

    /// Like [`FrameCodec::decode_with`] at the end of input: the last line may lack its
    /// newline.
    pub fn decode_with_eof<R>(
        &mut self,
        buf: &mut BytesMut,
        f: impl FnOnce(FrameRef<'_>) -> R,
    ) -> Option<R> {
        let next = self.next_eof(buf)?;
        Some(Self::read_in_place(buf, next, f))
    }

    /// Reads the next frame in place and parses it with `parser`: calls `f` with the frame
    /// and what [`Parser::parse`] gives for its line (for an oversize line, the rejection
    /// [`Error::FrameTooLong`]), then takes the line out of `buf`, and returns what `f`
    /// returned; `None` when no complete line is buffered.
    ///
    /// It frames exactly as [`FrameCodec::decode_with`] does, in fewer passes: when the
    /// buffer starts with a message, one scan validates it and finds the newline after it, so
    /// the line's bytes are read once, not once by a search for `\n` and again by the
    /// parse. Any other case (a fault in the JSON text, white space before the message, a
    /// line not yet complete, a line over the limit) is framed as `decode_with` frames it.
    ///
    /// # Example
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use janus_codec::{FrameCodec, Parsed, Parser};
    ///
    /// let mut codec = FrameCodec::new();
    /// let parser = Parser::new();
    /// let mut buf = BytesMut::from(&b"\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\r\n{\"b\""[..]);
    /// let method = codec.decode_message(&mut buf, &parser, |_line, read| match read {
    ///     Ok(Parsed::Single(msg)) => msg.method().to_owned(),
    ///     _ => String::new(),
    /// });
    /// assert_eq!(method.as_deref(), Some("ping"));
    /// assert_eq!(&buf[..], b"{\"b\"");
    /// assert_eq!(codec.decode_message(&mut buf, &parser, |_, _| ()), None);
    /// ```
    pub fn decode_message<R>(
        &mut self,
        buf: &mut BytesMut,
        parser: &Parser,
        f: impl FnOnce(FrameRef<'_>, Result<Parsed<'_>, Rejection<'_>>) -> R,
    ) -> Option<R> {
        self.read_message(buf, parser, f, false)
    }

    /// Like [`FrameCodec::decode_message`] at the end of input: the last line may lack its
    /// newline.
    pub fn decode_message_eof<R>(
        &mut self,
        buf: &mut BytesMut,
        parser: &Parser,
        f: impl FnOnce(FrameRef<'_>, Result<Parsed<'_>, Rejection<'_>>) -> R,
    ) -> Option<R> {
        self.read_message(buf, parser, f, true)
    }

    #[inline]
    fn read_message<R>(
        &mut self,
        buf: &mut BytesMut,
        parser: &Parser,
        f: impl FnOnce(FrameRef<'_>, Result<Parsed<'_>, Rejection<'_>>) -> R,
        eof: bool,
    ) -> Option<R> {
        // The fast path: a line that starts at the buffer's start, where no search for its
        // newline began (so a line that arrives in pieces is scanned this way once at most).
        if self.bom_checked
            && !self.discarding
            && self.next_index == 0
            && buf.first() == Some(&b'{')
        {
            // The longest line, a `\r` and the `\n`: the scan never reads further.
            let window = &buf[..buf.len().min(self.max_len.saturating_add(2))];
            if let Some((read, len, taken)) = parser.parse_line_at_start(window, self.max_len) {
                let r = f(FrameRef::Line(&window[..len]), read);
                buf.advance(taken);
                return Some(r);
            }
        }
        let next = if eof {
            self.next_eof(buf)?
        } else {
            self.next(buf)?
        };
        Some(Self::read_in_place(buf, next, |frame| match frame {
            FrameRef::Line(line) => f(frame, parser.parse(line)),
            FrameRef::Oversize => f(frame, Err(Error::FrameTooLong.into())),
        }))
    }

    /// Takes a found frame out of `buf`, as an owned [`Frame`].
    #[inline]
    fn take(buf: &mut BytesMut, next: Next) -> Option<Frame> {
        Some(match next {
            Next::Oversize => Frame::Oversize,
            Next::Line { len, taken } => {
                let mut line = buf.split_to(taken);
                line.truncate(len);
                Frame::Line(line.freeze())
            }
        })
    }

    /// Hands a found frame to `f` in place, then takes its bytes out of `buf`.
    #[inline]
    fn read_in_place<R>(buf: &mut BytesMut, next: Next, f: impl FnOnce(FrameRef<'_>) -> R) -> R {
        match next {
            Next::Oversize => f(FrameRef::Oversize),
            Next::Line { len, taken } => {
                let r = f(FrameRef::Line(&buf[..len]));
                buf.advance(taken);
                r
            }
        }
    }

    /// Finds the next frame at the start of `buf`. Blank lines, a byte order mark at the
    /// start of the stream, and the bytes of oversize lines are taken out of `buf` on the way;
    /// the frame's own bytes are left for the caller to take.
    #[inline]
    fn next(&mut self, buf: &mut BytesMut) -> Option<Next> {
        if !self.bom_checked {
            if buf.len() < BOM.len() && BOM.starts_with(buf) {
                return None;
            }
            if buf.starts_with(BOM) {
                buf.advance(BOM.len());
            }
            self.bom_checked = true;
        }
        loop {
            if self.discarding {
                if let Some(nl) = memchr::memchr(b'\n', buf) {
                    buf.advance(nl + 1);
                    self.discarding = false;
                    continue;
                }
                buf.clear();
                return None;
            }
            let from = self.next_index.min(buf.len());
            let Some(off) = memchr::memchr(b'\n', &buf[from..]) else {
                if buf.len() > self.max_len.saturating_add(1) {
                    // Too long whatever follows: even with a `\r` last, the line is over.
                    buf.clear();
                    self.next_index = 0;
                    self.discarding = true;
                    return Some(Next::Oversize);
                }
                self.next_index = buf.len();
                return None;
            };
            let nl = from + off;
            self.next_index = 0;
            let end = if nl > 0 && buf[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            if end > self.max_len {
                buf.advance(nl + 1);
                return Some(Next::Oversize);
            }
            if is_blank(&buf[..end]) {
                buf.advance(nl + 1);
                continue;
            }
            return Some(Next::Line {
                len: end,
                taken: nl + 1,
            });
        }
    }

    /// [`FrameCodec::next`] at the end of input: what is left after the last newline is the
    /// last line.
    fn next_eof(&mut self, buf: &mut BytesMut) -> Option<Next> {
        // A stream shorter than a byte order mark is not one.
        self.bom_checked |= buf.len() < BOM.len();
        if let Some(next) = self.next(buf) {
            return Some(next);
        }
        self.next_index = 0;
        if self.discarding {
            self.discarding = false;
            buf.clear();
            return None;
        }
        let taken = buf.len();
        let len = if buf.last() == Some(&b'\r') {
            taken - 1
        } else {
            taken
        };
        // The length is checked first, as in `next`: a blank line longer than the limit is
        // oversize whether or not its newline arrived.
        if len > self.max_len {
            buf.clear();
            return Some(Next::Oversize);
        }
        if is_blank(&buf[..len]) {
            buf.clear();
            return None;
        }
        Some(Next::Line { len, taken })
    }
}

/// A frame found at the start of the buffer, not yet taken out of it.
#[derive(Clone, Copy)]
enum Next {
    /// The line is the first `len` bytes; `taken` bytes (its newline included) go with it.
    Line { len: usize, taken: usize },
    /// An oversize line, already dropped (or being dropped) from the buffer.
    Oversize,
}

/// True for a line of JSON white space only (the empty line included).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r'))
}

#[cfg(feature = "tokio-util")]
mod tokio_impl {
    use super::{Frame, FrameCodec};
    use bytes::BytesMut;
    use std::io;

    impl tokio_util::codec::Decoder for FrameCodec {
        type Item = Frame;
        type Error = io::Error;

        fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
            Ok(self.decode_frame(buf))
        }

        fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
            Ok(self.decode_frame_eof(buf))
        }
    }

    /// Writes one already-encoded message and its `\n`.
    ///
    /// A message with a raw line break in it is refused (`InvalidInput`), so the output stays
    /// one message per line.
    impl tokio_util::codec::Encoder<&[u8]> for FrameCodec {
        type Error = io::Error;

        fn encode(&mut self, item: &[u8], dst: &mut BytesMut) -> io::Result<()> {
            let item = item.strip_suffix(b"\n").unwrap_or(item);
            if memchr::memchr2(b'\n', b'\r', item).is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a message must not hold a raw line break",
                ));
            }
            dst.reserve(item.len() + 1);
            dst.extend_from_slice(item);
            dst.extend_from_slice(b"\n");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(codec: &mut FrameCodec, buf: &mut BytesMut) -> Vec<Frame> {
        std::iter::from_fn(|| codec.decode_frame(buf)).collect()
    }

    fn line(s: &str) -> Frame {
        Frame::Line(Bytes::copy_from_slice(s.as_bytes()))
    }

    #[test]
    fn oversize_line_is_discarded_and_next_frame_decodes() {
        let mut c = FrameCodec::new();
        c.max_frame_len(4);
        let mut buf = BytesMut::from(&b"12345\nabcd\r\n"[..]);
        assert_eq!(
            frames(&mut c, &mut buf),
            vec![Frame::Oversize, line("abcd")]
        );
        // Detected before its newline arrives, then dropped as it streams in.
        let mut buf = BytesMut::from(&b"123456"[..]);
        assert_eq!(c.decode_frame(&mut buf), Some(Frame::Oversize));
        assert!(buf.is_empty());
        buf.extend_from_slice(b"789");
        assert_eq!(c.decode_frame(&mut buf), None);
        buf.extend_from_slice(b"0\nok\n");
        assert_eq!(frames(&mut c, &mut buf), vec![line("ok")]);
    }

    #[test]
    fn limit_does_not_count_the_carriage_return() {
        let mut c = FrameCodec::new();
        c.max_frame_len(4);
        let mut buf = BytesMut::from(&b"abcd\r"[..]);
        assert_eq!(c.decode_frame(&mut buf), None);
        buf.extend_from_slice(b"\n");
        assert_eq!(c.decode_frame(&mut buf), Some(line("abcd")));
    }

    #[test]
    fn blank_lines_are_skipped_without_returning_early() {
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::from(&b"\n\r\n  \t\n{}\n"[..]);
        assert_eq!(c.decode_frame(&mut buf), Some(line("{}")));
        assert!(buf.is_empty());
    }

    #[test]
    fn bom_only_at_the_start_and_only_whole() {
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::from(&b"\xEF\xBB"[..]);
        assert_eq!(c.decode_frame(&mut buf), None);
        buf.extend_from_slice(b"\xBF1\n\xEF\xBB\xBF2\n");
        assert_eq!(
            frames(&mut c, &mut buf),
            vec![line("1"), Frame::Line(Bytes::from_static(b"\xEF\xBB\xBF2"))]
        );
    }

    #[test]
    fn eof_yields_the_last_line_without_newline() {
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::from(&b"a\nb\r"[..]);
        assert_eq!(c.decode_frame_eof(&mut buf), Some(line("a")));
        assert_eq!(c.decode_frame_eof(&mut buf), Some(line("b")));
        assert_eq!(c.decode_frame_eof(&mut buf), None);
    }
}
