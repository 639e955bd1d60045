//! Heap allocations per request on Janus's path, counted in memory.
//!
//! The caller passes the counter of its global allocator (the `janus` binary counts with
//! `stats_alloc`); frames go through `FrameCodec` and `Connection` into a reused output buffer,
//! as the driver does, after a warm-up that the count leaves out.

use bytes::BytesMut;
use janus_codec::{FrameCodec, FrameRef};
use janus_server_core::{Connection, demo};

use crate::load::{Era, RequestTemplate};

/// Requests counted per era.
const COUNTED: u64 = 10_000;
/// Requests handled before counting starts.
const WARM_UP: u64 = 100;

/// Allocations per request of 16 B echoes in `era`, given the allocator's running count of
/// allocations.
///
/// # Panics
///
/// When an echo does not produce an answer (the path measured would not be the real one).
#[must_use]
pub fn per_request(era: Era, allocations: &dyn Fn() -> usize) -> f64 {
    per_request_of(
        era,
        &RequestTemplate::new(era, "abcdefghijklmnop"),
        allocations,
    )
}

/// Allocations per `resources/read` of the demo's static 64 KiB text resource in `era`.
#[must_use]
pub fn per_static_read(era: Era, allocations: &dyn Fn() -> usize) -> f64 {
    let members = format!(r#""uri":"{}""#, janus_server_core::demo::TEXT_64K_URI);
    per_request_of(
        era,
        &RequestTemplate::call(era, "resources/read", &members),
        allocations,
    )
}

/// Allocations per request of `template` (answered inline) in `era`.
///
/// # Panics
///
/// When a request does not produce an answer.
#[must_use]
pub fn per_request_of(
    era: Era,
    template: &RequestTemplate,
    allocations: &dyn Fn() -> usize,
) -> f64 {
    let mut stream = Vec::new();
    if era == Era::Legacy {
        stream.extend_from_slice(crate::load::INITIALIZE);
    }
    for id in 1..=WARM_UP + COUNTED {
        template.write(&mut stream, id);
    }
    let mut input = BytesMut::from(&stream[..]);
    let mut codec = FrameCodec::new();
    let mut conn = Connection::new(demo::server());
    let mut out = BytesMut::with_capacity(1 << 20);
    let mut handle = |input: &mut BytesMut, out: &mut BytesMut| {
        // As the dispatch loop reads: the line in place, framed and parsed in one step.
        let parser = conn.parser();
        let outcome = codec.decode_message(input, &parser, |frame, read| {
            assert!(matches!(frame, FrameRef::Line(_)), "a frame per request");
            conn.handle_read(read, out);
        });
        assert!(outcome.is_some(), "a frame per request");
        assert!(conn.poll_action().is_none(), "echo answers inline");
        assert!(out.ends_with(b"\n"), "an answer per request");
        out.clear();
    };
    if era == Era::Legacy {
        handle(&mut input, &mut out);
    }
    for _ in 0..WARM_UP {
        handle(&mut input, &mut out);
    }
    let before = allocations();
    for _ in 0..COUNTED {
        handle(&mut input, &mut out);
    }
    (allocations() - before) as f64 / COUNTED as f64
}
