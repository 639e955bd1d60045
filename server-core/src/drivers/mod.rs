//! The drivers: what runs the engine over real IO. [`stateless`] serves one modern request
//! with no connection; `serve` (feature `tokio`) runs connections over stdio, TCP or any byte
//! stream; `http` (feature `http`) is streamable HTTP for both eras on hyper.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "tokio")]
pub mod serve;
pub mod stateless;
#[cfg(all(feature = "tokio", unix))]
mod stdio;
