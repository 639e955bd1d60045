//! How a handler ends without its result.

use crate::api::input::{BadInputRequest, InputRequired};
use janus_model::json::RpcError;
use std::fmt;

/// The other outcome of a handler (tool, prompt, resource, completion): not a result, but
/// either a JSON-RPC error for the request or the input it needs from the client first.
///
/// A handler returns `Result<_, E>` for any `E` that converts into this, so `RpcError`,
/// `InputRequired` and `Halt` itself all work, and `?` lifts either into a `Halt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Halt {
    /// The request is answered with this error.
    Error(RpcError),
    /// The handler needs the client's answers to these requests; the core asks (as the
    /// request's era says), then runs the handler again with them. Not an error on the wire.
    Input(InputRequired),
}

impl From<RpcError> for Halt {
    fn from(e: RpcError) -> Self {
        Self::Error(e)
    }
}

impl From<InputRequired> for Halt {
    fn from(input: InputRequired) -> Self {
        Self::Input(input)
    }
}

impl From<BadInputRequest> for Halt {
    /// A request the server built wrong is its own fault: `-32603`, nothing of the cause.
    fn from(e: BadInputRequest) -> Self {
        Self::Error(e.into())
    }
}

impl fmt::Display for Halt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Error(e) => e.fmt(f),
            Self::Input(i) => write!(f, "input required ({} requests)", i.requests().count()),
        }
    }
}

impl std::error::Error for Halt {}
