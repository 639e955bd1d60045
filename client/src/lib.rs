//! `janus-client`: a Model Context Protocol client for servers of both eras, on the Janus
//! codec (no DOM on the hot path).
//!
//! - **Lifecycle modes** ([`Mode`]): `Legacy` (the `initialize` handshake offering
//!   2025-11-25, the default), `Modern` (2026-07-28 pinned, no negotiation traffic) and `Auto`
//!   (`server/discover` first, the handshake as the fallback; the outcome remembered per
//!   server in an [`AutoCache`]). What was settled is [`Client::negotiated`].
//! - **Tools, resources, prompts and completions** ([`Client::list_tools`],
//!   [`Client::call_tool`], [`Client::read_resource`], [`Client::get_prompt`],
//!   [`Client::complete`], ...), every list's pages followed.
//! - **Transports**: a child process (its stderr kept apart), TCP, streamable HTTP in both
//!   eras, and the 2024-11-05 HTTP+SSE transport ([`Transport`]), `http` or `https` (rustls,
//!   the platform's roots and the CA files of [`Tls`]).
//! - **Requests in flight together** on one connection, each with a [`Duration`] timeout
//!   that cancels it on the wire when it fires, a [`Cancel`] handle, and its progress
//!   delivered to the caller.
//! - **Input from the server** ([`Callbacks`]): elicitation, sampling and roots answer a
//!   legacy session's server requests and a 2026-07-28 `input_required` alike.
//! - **One normalised [`ToolSpec`] and [`CallResult`]** whatever the revision, and a
//!   [`SafetyClass`] computed fail closed from the hints and the server's trust.
//! - **Typed errors** ([`Error`]): a protocol rejection is never taken for a transport or
//!   session failure, a timeout or a cancellation.
//! - **Authorization** ([`OAuth`]): the MCP authorization spec's OAuth 2.1 client, started
//!   by a server's `401`, the user reached through a [`Browser`].
//! - **Configuration** in the `mcpServers` format hosts use ([`config`]).
//!
//! ```no_run
//! # async fn run() -> Result<(), janus_client::Error> {
//! use janus_client::{CallOptions, Client, Command, Mode, Options, Transport};
//! let server = Transport::Stdio(Command::new("janus", ["serve"]));
//! let client = Client::connect(server, Options { mode: Mode::Auto, ..Options::default() }).await?;
//! for tool in client.list_tools().await? {
//!     println!("{} ({})", tool.name, tool.safety.as_str());
//! }
//! let r = client.call_tool("echo", Some(r#"{"text":"hi"}"#), CallOptions::default()).await?;
//! assert_eq!(r.text(), "hi");
//! # Ok(()) }
//! ```
//!
//! [`Duration`]: std::time::Duration

pub mod auth;
mod client;
pub mod config;
mod core;
mod error;
mod http;
mod input;
mod json;
mod result;
mod spec;
mod surface;
mod tls;
mod transport;

pub use auth::{Browser, Enterprise, Headless, Loopback, OAuth, OAuthConfig};
pub use client::{
    AutoCache, CallOptions, Cancel, Client, DEFAULT_MAX_ROUNDS, DEFAULT_TIMEOUT, LogMessage, Mode,
    Negotiated, Notice, Options, PROBE_TIMEOUT, Paused, Progress, ReadPath, Reply,
};
pub use core::{Forwarded, Identity, members_of};
pub use error::{Error, Rejection};
pub use input::{Answer, Callbacks};
pub use json::{canonical, compact};
pub use result::{CallResult, Content};
pub use spec::{Annotations, SafetyClass, TaskSupport, ToolSpec};
pub use surface::{
    Completion, CompletionRef, Prompt, PromptArgument, PromptMessages, Resource, ResourceContents,
    ResourceTemplate,
};
pub use tls::Tls;
pub use transport::{Command, Transport};
