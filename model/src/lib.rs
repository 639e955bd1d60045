//! The MCP model of Janus, one for the server and the client: content blocks ([`content`]),
//! tool specs ([`tool`]), tool results ([`result`]), prompts ([`prompt`]), resources
//! ([`resource`]), completions ([`complete`]), JSON text and JSON-RPC errors
//! ([`json`]), and the shape each protocol revision has them in ([`shape`]).
//!
//! Each shape is read and written here and nowhere else: the server core's builders and
//! answers write these types, janus-client reads the wire into them (its normalised views
//! are built from them), and a bridge forwards between the two with them.

pub mod complete;
pub mod content;
pub mod json;
pub mod prompt;
pub mod resource;
pub mod result;
pub mod shape;
pub mod tool;

pub use json::{Json, RpcError};
