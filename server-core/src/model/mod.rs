//! The MCP model below everything else: content blocks, JSON text and JSON-RPC errors, and the
//! shapes each revision writes them in ([`shape`]). The handler API builds these, the engine
//! writes them.

pub mod content;
pub mod json;
pub(crate) mod shape;
pub(crate) mod tool;
