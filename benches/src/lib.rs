//! Benchmarks of Janus.
//!
//! - [`corpus`]: the deterministic MCP messages every benchmark uses.
//! - [`baseline`]: the ways other code reads the same messages (serde_json, simd-json).
//! - [`quick`]: the in-process codec comparison that `janus bench` prints first.
//! - [`load`]: a load driver for stdio servers (pipelined and closed loop) and the floor.
//! - [`e2e`]: the end-to-end comparison of servers that `janus bench` prints next.
//! - [`allocs`]: heap allocations per request on Janus's path.
//! - [`http_load`]: a load driver for streamable HTTP servers, and the HTTP floor.
//! - [`http_bench`]: the HTTP comparison that `janus bench` prints last.
//! - [`rmcp_peer`]: the same demo tools served by rmcp, the official Rust SDK.

pub mod allocs;
pub mod baseline;
pub mod client_bench;
pub mod corpus;
pub mod e2e;
pub mod http_bench;
pub mod http_load;
pub mod load;
pub mod quick;
pub mod rmcp_peer;
pub mod soak;
mod units;

/// The python-sdk v2 peer server script (run with a Python that has mcp==2.3.0).
pub const PY_PEER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/peers/py_server.py");
