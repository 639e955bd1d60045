//! The naive line splitter, and a feeder that drives `FrameCodec` the way a reader does while
//! checking the decoder's contract at every step.
//!
//! One file serves the codec's framing tests and the `frame` fuzz target: the codec builds it
//! as `tests::naive`, the `janus-fuzz` crate includes it with `#[path]`.

use bytes::{Bytes, BytesMut};
use janus_codec::{Error, Frame, FrameCodec, FrameRef, Parsed, Parser, Rejection};

/// The UTF-8 byte order mark, which the codec skips at the start of a stream.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The naive framer: drop a byte order mark at the very start, split at each `\n`, drop one
/// `\r` at the end of each line; a line longer than `max` is `Oversize`, a blank line (spaces,
/// tabs and carriage returns) is skipped; the bytes after the last `\n` are the last line.
pub fn naive(stream: &[u8], max: usize) -> Vec<Frame> {
    let body = stream.strip_prefix(BOM).unwrap_or(stream);
    body.split(|&b| b == b'\n')
        .filter_map(|piece| {
            let line = piece.strip_suffix(b"\r").unwrap_or(piece);
            if line.len() > max {
                Some(Frame::Oversize)
            } else if line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r')) {
                None
            } else {
                Some(Frame::Line(Bytes::copy_from_slice(line)))
            }
        })
        .collect()
}

/// How a test takes frames out of the codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// As owned frames (`decode_frame`).
    Owned,
    /// In place (`decode_with`), the line copied out before the codec takes it out.
    InPlace,
    /// Framed and parsed in one step (`decode_message`); what it parsed must be what
    /// `Parser::parse` gives for the line.
    Message,
}

/// The next frame of `buf`, taken as `mode` says.
fn decode(codec: &mut FrameCodec, buf: &mut BytesMut, eof: bool, mode: Mode) -> Option<Frame> {
    fn own(f: FrameRef<'_>) -> Frame {
        match f {
            FrameRef::Line(line) => Frame::Line(Bytes::copy_from_slice(line)),
            FrameRef::Oversize => Frame::Oversize,
        }
    }
    fn parsed(f: FrameRef<'_>, read: Result<Parsed<'_>, Rejection<'_>>) -> Frame {
        let want = match f {
            FrameRef::Line(line) => Parser::new().parse(line),
            FrameRef::Oversize => Err(Error::FrameTooLong.into()),
        };
        assert_eq!(
            format!("{read:?}"),
            format!("{want:?}"),
            "framed and parsed in one step, {f:?}"
        );
        own(f)
    }
    let parser = Parser::new();
    match (eof, mode) {
        (false, Mode::Owned) => codec.decode_frame(buf),
        (true, Mode::Owned) => codec.decode_frame_eof(buf),
        (false, Mode::InPlace) => codec.decode_with(buf, own),
        (true, Mode::InPlace) => codec.decode_with_eof(buf, own),
        (false, Mode::Message) => codec.decode_message(buf, &parser, parsed),
        (true, Mode::Message) => codec.decode_message_eof(buf, &parser, parsed),
    }
}

/// Takes every frame out of `buf`, checking the decoder's contract on the way.
/// `consumed` counts the bytes taken out of the buffer so far.
fn drain(
    codec: &mut FrameCodec,
    buf: &mut BytesMut,
    frames: &mut Vec<Frame>,
    consumed: &mut usize,
    eof: bool,
    mode: Mode,
) {
    let max = codec.get_max_frame_len();
    loop {
        let before = buf.len();
        let f = decode(codec, buf, eof, mode);
        assert!(buf.len() <= before, "decoding added bytes to the buffer");
        *consumed += before - buf.len();
        match f {
            Some(f) => {
                if let Frame::Line(line) = &f {
                    assert!(!line.is_empty(), "a frame is never blank");
                    assert!(line.len() <= max, "a line over the frame limit");
                    assert!(!line.contains(&b'\n'), "a line holds a newline");
                    assert!(
                        line.len() < before - buf.len() + usize::from(eof),
                        "a line is cut from the bytes consumed, with its newline"
                    );
                }
                frames.push(f);
            }
            None if eof => {
                assert!(buf.is_empty(), "end of input leaves nothing behind");
                assert_eq!(decode(codec, buf, true, mode), None);
                return;
            }
            None => {
                assert!(
                    !buf.contains(&b'\n'),
                    "decode_frame returned None with a complete line buffered"
                );
                // The cap bounds what is kept: a partial line longer than the limit (and its
                // possible `\r`) is reported and dropped at once, not buffered.
                assert!(
                    buf.len() <= max.saturating_add(1).max(BOM.len() - 1),
                    "{} bytes buffered over a limit of {max}",
                    buf.len()
                );
                // Asking again without new bytes changes nothing.
                let again = buf.len();
                assert_eq!(decode(codec, buf, false, mode), None);
                assert_eq!(buf.len(), again);
                return;
            }
        }
    }
}

/// Feeds `chunks` one after the other, taking frames after each, then ends the input; the
/// frames are taken as owned frames, in place, and parsed in one step, which must agree.
pub fn feed<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]> + Clone) -> Vec<Frame> {
    let owned = feed_with(max, chunks.clone(), Mode::Owned);
    assert_eq!(
        feed_with(max, chunks.clone(), Mode::InPlace),
        owned,
        "read in place"
    );
    assert_eq!(
        feed_with(max, chunks, Mode::Message),
        owned,
        "framed and parsed at once"
    );
    owned
}

fn feed_with<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]>, mode: Mode) -> Vec<Frame> {
    let mut codec = FrameCodec::new();
    codec.max_frame_len(max);
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    let (mut fed, mut consumed) = (0, 0);
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        fed += chunk.len();
        drain(
            &mut codec,
            &mut buf,
            &mut frames,
            &mut consumed,
            false,
            mode,
        );
        assert!(consumed <= fed, "consumed more than the input");
        assert_eq!(consumed + buf.len(), fed);
    }
    drain(&mut codec, &mut buf, &mut frames, &mut consumed, true, mode);
    assert_eq!(consumed, fed, "end of input consumes everything");
    frames
}
