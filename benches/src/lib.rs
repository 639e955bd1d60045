//! Benchmarks of Janus.
//!
//! - [`corpus`]: the deterministic MCP messages every benchmark uses.
//! - [`baseline`]: the ways other code reads the same messages (serde_json, simd-json).
//! - [`quick`]: the in-process comparison that `janus bench` prints.

pub mod baseline;
pub mod corpus;
pub mod quick;
