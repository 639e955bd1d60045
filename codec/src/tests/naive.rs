//! The naive line splitter, and a feeder that drives `FrameCodec` the way a reader does while
//! checking the decoder's contract at every step.
//!
//! One file serves the codec's framing tests and the `frame` fuzz target: the codec builds it
//! as `tests::naive`, the `janus-fuzz` crate includes it with `#[path]`.

use bytes::{Bytes, BytesMut};
use janus_codec::{Frame, FrameCodec, FrameRef};

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

/// The next frame of `buf`, taken as an owned frame (`decode_frame`) or read in place
/// (`decode_with`, the line copied out before the codec takes it out of the buffer).
fn decode(codec: &mut FrameCodec, buf: &mut BytesMut, eof: bool, in_place: bool) -> Option<Frame> {
    let own = |f: FrameRef<'_>| match f {
        FrameRef::Line(line) => Frame::Line(Bytes::copy_from_slice(line)),
        FrameRef::Oversize => Frame::Oversize,
    };
    match (eof, in_place) {
        (false, false) => codec.decode_frame(buf),
        (true, false) => codec.decode_frame_eof(buf),
        (false, true) => codec.decode_with(buf, own),
        (true, true) => codec.decode_with_eof(buf, own),
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
    in_place: bool,
) {
    let max = codec.frame_limit();
    loop {
        let before = buf.len();
        let f = decode(codec, buf, eof, in_place);
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
                assert_eq!(decode(codec, buf, true, in_place), None);
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
                assert_eq!(decode(codec, buf, false, in_place), None);
                assert_eq!(buf.len(), again);
                return;
            }
        }
    }
}

/// Feeds `chunks` one after the other, taking frames after each, then ends the input; the
/// frames are taken both as owned frames and in place, which must agree.
pub fn feed<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]> + Clone) -> Vec<Frame> {
    let owned = feed_with(max, chunks.clone(), false);
    assert_eq!(feed_with(max, chunks, true), owned, "read in place");
    owned
}

fn feed_with<'a>(
    max: usize,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    in_place: bool,
) -> Vec<Frame> {
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
            in_place,
        );
        assert!(consumed <= fed, "consumed more than the input");
        assert_eq!(consumed + buf.len(), fed);
    }
    drain(
        &mut codec,
        &mut buf,
        &mut frames,
        &mut consumed,
        true,
        in_place,
    );
    assert_eq!(consumed, fed, "end of input consumes everything");
    frames
}
