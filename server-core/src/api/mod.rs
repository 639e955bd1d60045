//! The handler API: what a tool, prompt, resource or completion author writes against. The
//! handlers and their [`ctx::Ctx`], their arguments and results, and the input a handler asks
//! of the client. It knows nothing of connections, eras' dispatch or transports: the engine
//! calls it, never the other way round.

pub mod complete;
pub mod ctx;
pub mod halt;
pub mod input;
pub mod prompts;
pub mod resources;
pub mod tools;
#[cfg(feature = "serde")]
pub mod typed;
