//! Criterion benches of the codec against its baselines, on the MCP corpus.
//!
//! - `classify/*`: one frame through framing, whole-frame validation, the message view and the
//!   era rule; baselines: serde_json typed envelope + `_meta` pass, serde_json `Value`,
//!   simd-json borrowed value, sonic-rs `Value` (the same contenders as `janus bench`).
//! - `framing`: a stream of small frames; baseline: tokio-util `LinesCodec`.
//! - `encode`: a 64 KiB text result; baseline: serde_json.

use bytes::BytesMut;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use janus_bench::baseline::{self, Scratch};
use janus_bench::corpus;
use janus_bench::quick::{Contender, copies_for, stream_of, time_stream};
use janus_codec::{Frame, FrameCodec, FrameRef, IdBuf, encode};
use std::time::Duration;
use tokio_util::codec::{Decoder, LinesCodec};

/// Times `iters` frames with `who`, over streams of copies so that only reading is timed.
fn time_iters(who: Contender, item: &corpus::Item, iters: u64) -> Duration {
    let frame = &item.frame[..];
    let per = copies_for(frame.len()).min(iters as usize).max(1);
    let stream = stream_of(frame, per);
    let mut scratch = Scratch::default();
    let mut left = iters as usize;
    let mut total = Duration::ZERO;
    while left > 0 {
        let n = left.min(per);
        let part = &stream[..n * frame.len()];
        total += time_stream(who, part, frame.len(), item.body, &mut scratch).0;
        left -= n;
    }
    total
}

fn classify(c: &mut Criterion) {
    for item in corpus::everything() {
        let mut g = c.benchmark_group(format!("classify/{}", item.name));
        g.throughput(Throughput::Bytes(item.frame.len() as u64));
        if item.frame.len() > 100_000 {
            g.sample_size(20);
        }
        for who in Contender::ALL {
            g.bench_function(BenchmarkId::from_parameter(who.name()), |b| {
                b.iter_custom(|iters| time_iters(who, &item, iters));
            });
        }
        g.finish();
    }
}

fn framing(c: &mut Criterion) {
    let frame = corpus::modern_call().frame;
    let stream = stream_of(&frame, 4096);
    let mut g = c.benchmark_group("framing/4096 modern calls");
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.bench_function("janus FrameCodec", |b| {
        b.iter_batched_ref(
            || BytesMut::from(&stream[..]),
            |buf| {
                let mut codec = FrameCodec::new();
                let mut n = 0;
                while let Some(Frame::Line(l)) = codec.decode_frame(buf) {
                    n += l.len();
                }
                n
            },
            criterion::BatchSize::LargeInput,
        );
    });
    g.bench_function("janus FrameCodec in place", |b| {
        b.iter_batched_ref(
            || BytesMut::from(&stream[..]),
            |buf| {
                let mut codec = FrameCodec::new();
                let mut n = 0;
                while let Some(len) = codec.decode_with(buf, |f| match f {
                    FrameRef::Line(l) => l.len(),
                    FrameRef::Oversize => 0,
                }) {
                    n += len;
                }
                n
            },
            criterion::BatchSize::LargeInput,
        );
    });
    g.bench_function("tokio-util LinesCodec", |b| {
        b.iter_batched_ref(
            || BytesMut::from(&stream[..]),
            |buf| {
                let mut codec = LinesCodec::new_with_max_length(8 << 20);
                let mut n = 0;
                while let Ok(Some(l)) = codec.decode(buf) {
                    n += l.len();
                }
                n
            },
            criterion::BatchSize::LargeInput,
        );
    });
    g.finish();
}

/// A typed response as a serde-based server writes it (borrowing the text, no clone).
#[derive(serde::Serialize)]
struct Response<'a> {
    jsonrpc: &'static str,
    id: i64,
    result: ToolResult<'a>,
}

#[derive(serde::Serialize)]
struct ToolResult<'a> {
    content: [TextBlock<'a>; 1],
}

#[derive(serde::Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

fn encoding(c: &mut Criterion) {
    // The text of the 64 KiB tool result, decoded: what an echo handler writes back.
    let item = corpus::large_tool_result();
    let v: serde_json::Value = serde_json::from_slice(baseline::line(&item.frame)).unwrap();
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = IdBuf::from_i64(7);
    let mut g = c.benchmark_group("encode/text result 64 KiB");
    g.throughput(Throughput::Bytes(text.len() as u64));
    let mut out = BytesMut::with_capacity(1 << 20);
    g.bench_function("janus encode", |b| {
        b.iter(|| {
            out.clear();
            encode::begin_result(&mut out, id.as_id());
            let mut w = encode::JsonWriter::new(&mut out);
            w.begin_object().key("content").begin_array();
            w.begin_object()
                .key("type")
                .str("text")
                .key("text")
                .str(&text);
            w.end_object().end_array().end_object();
            encode::end_message(&mut out);
            out.len()
        });
    });
    let mut vec = Vec::with_capacity(1 << 20);
    g.bench_function("serde_json to_writer", |b| {
        b.iter(|| {
            vec.clear();
            let msg = Response {
                jsonrpc: "2.0",
                id: 7,
                result: ToolResult {
                    content: [TextBlock {
                        kind: "text",
                        text: &text,
                    }],
                },
            };
            serde_json::to_writer(&mut vec, &msg).unwrap();
            vec.push(b'\n');
            vec.len()
        });
    });
    g.finish();
}

criterion_group!(benches, classify, framing, encoding);
criterion_main!(benches);
