//! The dual-era MCP server core of Janus.
//!
//! - [`Connection`]: the sans-IO state machine of one connection. The first request decides
//!   the era (legacy `initialize` handshake, or the modern 2026-07-28 per-request envelope) and
//!   locks it; frames go in, encoded answers come out, and asynchronous work is handed out as
//!   [`Action`]s whose ends come back as events ([`jobs`]). No IO, no clock, no tokio.
//! - [`Server`]: identity and tools, shared by all connections; the parts of answers that
//!   never change are encoded once.
//! - [`tools`]: the two kinds of handler (inline, or a future), their [`Ctx`], arguments and
//!   results with every [`content`] type; [`Json`] is JSON text checked where it is given.
//! - [`prompts`], [`resources`] and [`complete`]: the rest of the server surface, served in
//!   both eras (`prompts/*`, `resources/*`, `completion/complete`).
//! - [`input`]: elicitation, sampling and roots from the client, one handler API for both
//!   eras (server-to-client requests on handshake sessions, MRTR in 2026-07-28).
//! - [`stateless`]: one modern request in, its notifications and answer out, with no
//!   connection (what streamable HTTP serves each modern POST with).
//! - [`store`]: the seam for the state that outlives a request: the process's task store
//!   ([`store::TaskStore`], in memory by default), whose answers the core waits for without
//!   blocking.
//! - [`demo`]: the tools `janus serve` ships (`echo`, `add`, `fail`, `sleep`).
//! - `serve` (feature `tokio`): the driver over stdio, TCP or any byte stream, with
//!   pipelining, cancellation and backpressure.
//!
//! The wire behaviour follows `decisions.md` of the Janus project.
//!
//! # Example
//!
//! ```
//! use bytes::BytesMut;
//! use janus_server_core::{Connection, demo};
//!
//! let mut conn = Connection::new(demo::server());
//! let mut out = BytesMut::new();
//! conn.handle_line(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#, &mut out);
//! let reply: serde_json::Value = serde_json::from_slice(&out).unwrap();
//! assert_eq!(reply["result"]["content"][0]["text"], "hi");
//! assert_eq!(reply["result"]["resultType"], "complete");
//! ```
//!
//! # Cargo features
//!
//! - `tokio` (default): the `serve` driver and the asynchronous demo tool `sleep`.
//! - `http`: streamable HTTP (`http`): a `tower::Service` and `serve_http` on hyper.
//! - `serde`: typed tools (`typed`, `ServerBuilder::typed_tool`):
//!   arguments and results as Rust types, their JSON Schemas generated with schemars.

mod api;
pub mod demo;
mod drivers;
mod engine;

#[cfg(feature = "serde")]
pub use api::typed;
pub use api::{complete, ctx, halt, input, prompts, resources, tools};
#[cfg(feature = "http")]
pub use drivers::http;
#[cfg(feature = "tokio")]
pub use drivers::serve;
pub use drivers::stateless;
pub use engine::connection::jobs;
pub use engine::{connection, server, store, tasks};
pub use janus_model::{content, json};

pub use connection::{Connection, DEFAULT_MAX_RUNNING, LIMIT_REACHED};
pub use ctx::{Context, Ctx, JobId, LogLevel, Notify, PeerKey};
pub use halt::Halt;
pub use input::{InputRequest, InputRequired};
pub use janus_codec as codec;
pub use jobs::{Action, Done, JobEnd, Work};
pub use json::{Json, RpcError};
pub use server::Server;
