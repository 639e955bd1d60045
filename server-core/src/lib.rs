//! The dual-era MCP server core of Janus.
//!
//! This crate will hold the sans-IO `Connection` state machine (era detection and lock, the
//! legacy handshake, the modern per-request envelope), the tool registry and the task store.
//! It is built on [`janus_codec`] and does no IO of its own.

pub use janus_codec as codec;
