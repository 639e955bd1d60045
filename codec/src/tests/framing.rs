//! `FrameCodec` against a naive line splitter, fed whole, split at every byte offset, and in
//! random chunkings (tokio-util's `lines_decoder_max_length*` tests, in property form).

use super::naive::{BOM, feed, naive};
use super::prop::{Writer, byte, frame};
use super::proptest_config;
use super::seeds::framed_seeds;
use crate::{DEFAULT_MAX_FRAME_LEN, Frame, FrameCodec};
use bytes::{Bytes, BytesMut};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// The frames of `stream`, checked to be the same whole, split at every byte offset, and fed
/// a byte at a time.
fn frames_in_every_split(stream: &[u8], max: usize) -> Vec<Frame> {
    let whole = feed(max, [stream]);
    for at in 0..=stream.len() {
        let (a, b) = stream.split_at(at);
        assert_eq!(feed(max, [a, b]), whole, "split at {at} of {stream:?}");
    }
    assert_eq!(
        feed(max, stream.chunks(1)),
        whole,
        "byte at a time: {stream:?}"
    );
    whole
}

fn line(s: &[u8]) -> Frame {
    Frame::Line(Bytes::copy_from_slice(s))
}

/// Streams with the frames they hold: `(name, stream, limit, frames)`; `None` is `Oversize`.
#[allow(clippy::type_complexity)]
const FRAME_SEEDS: &[(&str, &[u8], usize, &[Option<&[u8]>])] = &[
    (
        "byte order mark, CRLF and blank lines",
        b"\xEF\xBB\xBF{\"a\":1}\r\n\n\r\n  \t\n{\"b\":2}\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"{\"a\":1}"), Some(b"{\"b\":2}")],
    ),
    (
        "a byte order mark only at the start",
        b"1\n\xEF\xBB\xBF2\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"1"), Some(b"\xEF\xBB\xBF2")],
    ),
    (
        "two byte order marks",
        b"\xEF\xBB\xBF\xEF\xBB\xBF1\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"\xEF\xBB\xBF1")],
    ),
    (
        "half a byte order mark is data",
        b"\xEF\xBB\n\xEF",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"\xEF\xBB"), Some(b"\xEF")],
    ),
    (
        "only a byte order mark",
        b"\xEF\xBB\xBF",
        DEFAULT_MAX_FRAME_LEN,
        &[],
    ),
    ("empty stream", b"", DEFAULT_MAX_FRAME_LEN, &[]),
    (
        "only blank lines",
        b"\n\r\n \t\r\n\r",
        DEFAULT_MAX_FRAME_LEN,
        &[],
    ),
    (
        "last line without its newline",
        b"a\nb",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"a"), Some(b"b")],
    ),
    (
        "last line ends in a carriage return",
        b"a\r",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"a")],
    ),
    (
        "one carriage return is dropped",
        b"a\r\r\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"a\r")],
    ),
    (
        "a carriage return inside a line",
        b"a\rb\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"a\rb")],
    ),
    (
        "white space around a line is kept",
        b" {} \t\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b" {} \t")],
    ),
    (
        "bytes that are not UTF-8",
        b"\x00\xff\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"\x00\xff")],
    ),
    (
        "oversize line, then a valid one",
        b"12345\nabcd\r\n",
        4,
        &[None, Some(b"abcd")],
    ),
    (
        "oversize line long before its newline",
        b"123456789\nok\n",
        4,
        &[None, Some(b"ok")],
    ),
    (
        "two oversize lines",
        b"123456789\n12345\nok",
        4,
        &[None, None, Some(b"ok")],
    ),
    ("oversize last line", b"ok\n123456", 4, &[Some(b"ok"), None]),
    (
        "oversize last line by one byte",
        b"ok\n12345",
        4,
        &[Some(b"ok"), None],
    ),
    (
        "a line at the limit, with its carriage return",
        b"abcd\r\nabcde\r\n",
        4,
        &[Some(b"abcd"), None],
    ),
    (
        "a carriage return does not count, at the end either",
        b"abcd\r",
        4,
        &[Some(b"abcd")],
    ),
    (
        "a blank line longer than the limit",
        b"     \nx\n",
        2,
        &[None, Some(b"x")],
    ),
    (
        "a blank last line longer than the limit",
        b"x\n   ",
        2,
        &[Some(b"x"), None],
    ),
    (
        "a blank last line just over the limit",
        b"x\n    \r",
        3,
        &[Some(b"x"), None],
    ),
    ("limit zero", b"\n\r\nx\n", 0, &[None]),
    // Lines that `decode_message` frames with the scan of the message itself.
    (
        "messages one after another, white space before their newlines",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"} \t\r\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\r\r\n",
        DEFAULT_MAX_FRAME_LEN,
        &[
            Some(b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"} \t"),
            Some(b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\r"),
        ],
    ),
    (
        "a value broken over two lines is two lines",
        b"{\"a\":\n1}\n{\"b\":[\r\n]}\n",
        DEFAULT_MAX_FRAME_LEN,
        &[Some(b"{\"a\":"), Some(b"1}"), Some(b"{\"b\":["), Some(b"]}")],
    ),
    (
        "a message at the limit, with a carriage return, and one a byte over",
        b"{\"a\":1}\r\n{\"ab\":1}\n{\"a\":1}\n",
        7,
        &[Some(b"{\"a\":1}"), None, Some(b"{\"a\":1}")],
    ),
    (
        "text after a message on its line, and bytes that are not UTF-8",
        b"{\"a\":1} x\n{\"a\":\"\xff\"}\n{\"a\":\"\xc3\xa9\"}\n{}\n",
        DEFAULT_MAX_FRAME_LEN,
        &[
            Some(b"{\"a\":1} x"),
            Some(b"{\"a\":\"\xff\"}"),
            Some(b"{\"a\":\"\xc3\xa9\"}"),
            Some(b"{}"),
        ],
    ),
];

#[test]
fn frame_seeds_read_as_expected_in_every_split() {
    for &(name, stream, max, want) in FRAME_SEEDS {
        let want: Vec<Frame> = want
            .iter()
            .map(|f| f.map_or(Frame::Oversize, line))
            .collect();
        assert_eq!(naive(stream, max), want, "naive framer on {name:?}");
        assert_eq!(frames_in_every_split(stream, max), want, "{name:?}");
    }
}

#[test]
fn seed_streams_read_the_same_in_every_split() {
    for (seed, stream) in framed_seeds() {
        let frames = frames_in_every_split(&stream, DEFAULT_MAX_FRAME_LEN);
        assert_eq!(
            frames,
            vec![line(seed.input), line(seed.input)],
            "{:?}",
            seed.name
        );
        // With a limit just under the seed, both copies are oversize and skipped alike.
        let max = seed.input.len() - 1;
        let frames = frames_in_every_split(&stream, max);
        assert_eq!(frames, naive(&stream, max));
        assert!(frames.len() >= 2 && frames.iter().all(|f| *f == Frame::Oversize));
    }
}

#[test]
fn oversize_line_is_reported_once_and_the_next_line_decodes() {
    let mut codec = FrameCodec::new();
    codec.max_frame_len(8);
    let mut buf = BytesMut::from(&b"0123456789"[..]);
    assert_eq!(codec.decode_frame(&mut buf), Some(Frame::Oversize));
    // The rest of the long line streams in and is dropped without another report.
    for _ in 0..4 {
        buf.extend_from_slice(b"0123456789");
        assert_eq!(codec.decode_frame(&mut buf), None);
        assert!(buf.is_empty());
    }
    buf.extend_from_slice(b"\r\n{\"ok\":1}\n");
    assert_eq!(codec.decode_frame(&mut buf), Some(line(b"{\"ok\":1}")));
    assert_eq!(codec.decode_frame(&mut buf), None);
}

#[cfg(feature = "tokio-util")]
#[test]
fn the_tokio_decoder_and_encoder_are_the_frame_codec() {
    use tokio_util::codec::{Decoder, Encoder};
    let stream = b"\xEF\xBB\xBF{}\r\n\n12345678\nab";
    let mut codec = FrameCodec::new();
    codec.max_frame_len(4);
    let mut buf = BytesMut::from(&stream[..]);
    let mut frames = Vec::new();
    while let Some(f) = codec.decode(&mut buf).expect("framing never fails") {
        frames.push(f);
    }
    while let Some(f) = codec.decode_eof(&mut buf).expect("framing never fails") {
        frames.push(f);
    }
    assert_eq!(frames, naive(stream, 4));
    assert_eq!(frames, vec![line(b"{}"), Frame::Oversize, line(b"ab")]);

    let mut out = BytesMut::new();
    codec.encode(&b"{}"[..], &mut out).unwrap();
    codec.encode(&b"[]\n"[..], &mut out).unwrap();
    assert_eq!(&out[..], b"{}\n[]\n");
    for bad in [&b"{\n}"[..], b"{}\r", b"{}\n\n"] {
        let e = codec.encode(bad, &mut out).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    }
    assert_eq!(&out[..], b"{}\n[]\n", "a refused message writes nothing");
}

/// One piece of a generated stream.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => (frame(), any::<u64>()).prop_map(|(j, seed)| Writer::new(seed).write(&j)),
        2 => select(vec![
            &b"\n"[..], b"\r\n", b"\r", b"\r\r\n", b" ", b"\t", b"", b"\xEF", b"\xEF\xBB", BOM,
        ])
        .prop_map(<[u8]>::to_vec),
        2 => vec(byte(), 0..12),
        1 => (0usize..40).prop_map(|n| vec![b'x'; n]),
        2 => (0usize..8).prop_map(|n| vec![b' '; n]),
    ]
}

proptest! {
    #![proptest_config(proptest_config(512))]

    /// Random streams in random chunks, with random limits: the frames are those of the
    /// naive framer, and the same however the bytes arrive.
    #[test]
    fn random_chunkings_give_the_naive_frames(
        pieces in vec(piece(), 0..10),
        max in prop_oneof![1 => Just(DEFAULT_MAX_FRAME_LEN), 2 => 0usize..6, 2 => 0usize..40],
        sizes in vec(1usize..17, 1..16),
    ) {
        let stream = pieces.concat();
        let want = naive(&stream, max);
        prop_assert_eq!(&feed(max, [&stream[..]]), &want);
        let mut chunks = Vec::new();
        let mut rest = &stream[..];
        for &n in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (a, b) = rest.split_at(n.min(rest.len()));
            chunks.push(a);
            rest = b;
        }
        prop_assert_eq!(&feed(max, chunks), &want);
    }
}
