//! `FrameCodec::decode_frame` / `decode_frame_eof`: a byte stream fed in arbitrary chunks
//! gives the same frames as fed whole, and both give what a naive line splitter gives; bytes
//! are never consumed beyond the input; the frame cap holds for every line and for what the
//! codec keeps buffered.
//!
//! Input: one byte for the frame limit (`0xff`: the default 8 MiB, else that many bytes),
//! four bytes seeding the chunk sizes, then the stream.

#![no_main]

use bytes::{Bytes, BytesMut};
use janus_codec::{DEFAULT_MAX_FRAME_LEN, Frame, FrameCodec};
use libfuzzer_sys::fuzz_target;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The naive framer: drop a byte order mark at the very start, split at each `\n`, drop one
/// `\r` at the end of each line; a line longer than `max` is `Oversize`, a blank line (spaces,
/// tabs and carriage returns) is skipped; the bytes after the last `\n` are the last line.
fn naive(stream: &[u8], max: usize) -> Vec<Frame> {
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

/// A small deterministic generator for the chunk sizes.
struct XorShift(u32);

impl XorShift {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
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
) {
    let max = codec.frame_limit();
    loop {
        let before = buf.len();
        let f = if eof {
            codec.decode_frame_eof(buf)
        } else {
            codec.decode_frame(buf)
        };
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
                assert_eq!(codec.decode_frame_eof(buf), None);
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
                assert_eq!(codec.decode_frame(buf), None);
                assert_eq!(buf.len(), again);
                return;
            }
        }
    }
}

/// Feeds `chunks` one after the other, taking frames after each, then ends the input.
fn feed<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<Frame> {
    let mut codec = FrameCodec::new();
    codec.max_frame_len(max);
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    let (mut fed, mut consumed) = (0, 0);
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        fed += chunk.len();
        drain(&mut codec, &mut buf, &mut frames, &mut consumed, false);
        assert!(consumed <= fed, "consumed more than the input");
        assert_eq!(consumed + buf.len(), fed);
    }
    drain(&mut codec, &mut buf, &mut frames, &mut consumed, true);
    assert_eq!(consumed, fed, "end of input consumes everything");
    frames
}

fuzz_target!(|data: &[u8]| {
    let Some((&limit, rest)) = data.split_first() else {
        return;
    };
    let Some((seed, stream)) = rest.split_first_chunk::<4>() else {
        return;
    };
    let max = if limit == 0xff {
        DEFAULT_MAX_FRAME_LEN
    } else {
        usize::from(limit)
    };
    let want = naive(stream, max);
    assert_eq!(feed(max, [stream]), want, "fed whole");

    let mut rng = XorShift(u32::from_le_bytes(*seed) | 1);
    let mut chunks = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let most = [1, 2, 3, 5, 8, 16, 64, 4096][(rng.next() % 8) as usize];
        let n = (1 + rng.next() as usize % most).min(stream.len() - at);
        // An empty read now and then: the codec must not change its mind.
        if rng.next().is_multiple_of(8) {
            chunks.push(&stream[at..at]);
        }
        chunks.push(&stream[at..at + n]);
        at += n;
    }
    assert_eq!(feed(max, chunks), want, "fed in chunks");
});
