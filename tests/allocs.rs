//! The inline paths allocate nothing per request: a 16 B echo and a `resources/read` of a
//! static resource, in both eras, counted by the global allocator over thousands of requests
//! through `FrameCodec` and `Connection` (as `janus bench` reports them); and janus-client's
//! read path allocates nothing per answer.

use janus_bench::{allocs, load::Era};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The count is global: one test counts at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn echo_and_a_static_read_allocate_nothing_per_request() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let count = || GLOBAL.stats().allocations;
    for era in [Era::Legacy, Era::Modern] {
        assert_eq!(
            allocs::per_request(era, &count),
            0.0,
            "echo, {}",
            era.name()
        );
        assert_eq!(
            allocs::per_static_read(era, &count),
            0.0,
            "resources/read, {}",
            era.name()
        );
        // The count sees what a request does allocate: a prompt's messages are built anew.
        let prompt = janus_bench::load::RequestTemplate::call(
            era,
            "prompts/get",
            r#""name":"greet","arguments":{"name":"Ann"}"#,
        );
        assert!(allocs::per_request_of(era, &prompt, &count) >= 1.0);
    }
}

#[test]
fn the_clients_read_path_allocates_nothing_per_answer() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let count = || GLOBAL.stats().allocations;
    // Framing, the codec's parse and the match to the waiting request: the line itself is
    // handed over. (One allocation makes the read buffer shareable, once for all answers.)
    let per_answer = janus_bench::client_bench::read_path_allocs(10_000, &count);
    assert!(per_answer < 0.001, "{per_answer} allocations per answer");
}
