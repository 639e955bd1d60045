//! `FrameCodec::decode_frame` / `decode_frame_eof`: a byte stream fed in arbitrary chunks
//! gives the same frames as fed whole, and both give what a naive line splitter gives; bytes
//! are never consumed beyond the input; the frame cap holds for every line and for what the
//! codec keeps buffered.
//!
//! Input: one byte for the frame limit (`0xff`: the default 8 MiB, else that many bytes),
//! four bytes seeding the chunk sizes, then the stream.

#![no_main]

use janus_codec::DEFAULT_MAX_FRAME_LEN;
use janus_fuzz::naive::{feed, naive};
use libfuzzer_sys::fuzz_target;

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
