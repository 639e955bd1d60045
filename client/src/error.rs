//! The client's errors, typed so that a caller never takes one kind for another: the server's
//! protocol rejection (a JSON-RPC error: code, message, data) is not a transport or session
//! failure, and neither is a timeout or a cancellation.

use janus_codec::RawJson;
use std::time::Duration;

/// A JSON-RPC error the server answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The error code.
    pub code: i64,
    /// The message.
    pub message: String,
    /// The `data` member, as JSON text.
    pub data: Option<String>,
}

impl Rejection {
    /// A JSON-RPC error object read as a rejection (a server's, or a client's error reply
    /// that a gateway passes on): one without an integer `code` (or no object at all) is
    /// `-32603`, its message saying what came; one without a `message` keeps its code.
    #[must_use]
    pub fn of_error_object(error: Option<RawJson<'_>>) -> Self {
        let [code, message, data] =
            error.map_or([None; 3], |e| e.get_many(["code", "message", "data"]));
        let code = code.and_then(|c| c.as_str().parse::<i64>().ok());
        let data = data.map(|d| crate::json::compact(d.as_str()));
        match (code, message.and_then(RawJson::as_string)) {
            (Some(code), message) => Self {
                code,
                message: message.map_or_else(|| "(no message)".to_owned(), |m| m.into_owned()),
                data,
            },
            (None, _) => {
                // NB. What the server sent goes in `data.reason` (cut short), not in the
                // message: a gateway passes the rejection on, and a message is no place for a
                // peer's text.
                let text = error.map_or("", |e| e.as_str());
                let excerpt: String = text.chars().take(120).collect();
                let why = format!("a malformed error object: {excerpt}");
                Self {
                    code: janus_codec::INTERNAL_ERROR.into(),
                    message: "Internal error".to_owned(),
                    data: data
                        .or_else(|| Some(janus_model::shape::reason(&why).as_str().to_owned())),
                }
            }
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)?;
        if let Some(d) = &self.data {
            write!(f, " data: {d}")?;
        }
        Ok(())
    }
}

/// Where a broken session's error gives the end of the server process's stderr.
pub(crate) const STDERR_TAIL: &str = "; its stderr ends with: ";

/// What can go wrong with a request.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server refused the request with a JSON-RPC error.
    #[error("the server refused the request: {0}")]
    Rejected(Rejection),
    /// The transport failed: the process could not start, the connection broke, an HTTP
    /// status that is no MCP answer.
    #[error("transport: {0}")]
    Transport(String),
    /// An HTTP status that carries no MCP answer (its first bytes given).
    #[error("HTTP {0}: {1}")]
    Status(u16, String),
    /// The session is gone: the server exited or closed its end, or its session expired.
    #[error("session: {0}")]
    Session(String),
    /// No answer came in time; the request was cancelled on the wire.
    #[error("no answer within {0:?} (the request was cancelled)")]
    Timeout(Duration),
    /// The caller cancelled the request.
    #[error("cancelled by the caller")]
    Cancelled,
    /// The server broke the protocol: an answer that is not valid MCP, a revision the client
    /// does not speak.
    #[error("protocol: {0}")]
    Protocol(String),
    /// The server asked for input (an elicitation, a sampling, the roots) that the caller's
    /// callback refused to give: the request cannot go on without it.
    #[error("input refused: {0}")]
    InputRefused(String),
    /// Authorization failed: discovery, registration, the authorization or token request,
    /// or a check of what the authorization server sent (never with a token or secret).
    #[error("authorization: {0}")]
    Auth(String),
    /// The client's own settings are wrong (a configuration file, a mode, a server entry).
    #[error("configuration: {0}")]
    Config(String),
}

/// How the transport faults of one answer begin ([`Error::is_answer_fault`]): an answer
/// over the size limit, one whose body could not be read, a response stream that ended (or
/// was resumed in vain) before it.
pub(crate) const ANSWER_FAULT: &str = "the answer: ";

/// How the error of a request refused for a session the server no longer knows begins
/// ([`Error::is_session_lost`]).
pub(crate) const SESSION_LOST: &str = "the server no longer knows this session";

impl Error {
    /// Whether the request was refused because the server no longer knows the client's
    /// session (HTTP `404` on a handshake session: it expired, or the server was started
    /// again). The server did not run it: it may be sent again on a new session.
    #[must_use]
    pub fn is_session_lost(&self) -> bool {
        matches!(self, Self::Session(why) if why.starts_with(SESSION_LOST))
    }

    /// Whether this is a fault of one request's answer (cut short, over the size limit, a
    /// response stream that ended before it), not of the connection: the server was reached
    /// and answered, and the next request may go the same way.
    #[must_use]
    pub fn is_answer_fault(&self) -> bool {
        matches!(self, Self::Transport(why) if why.starts_with(ANSWER_FAULT))
    }

    /// The exit code the `janus` command uses for this error: each kind its own, so a script
    /// tells a rejection from a transport failure.
    #[must_use]
    pub const fn exit_code(&self) -> i32 {
        match self {
            Self::Rejected(_) | Self::InputRefused(_) => 3,
            Self::Transport(_) | Self::Status(..) | Self::Session(_) => 4,
            Self::Timeout(_) | Self::Cancelled => 5,
            Self::Protocol(_) => 6,
            Self::Config(_) => 7,
            Self::Auth(_) => 8,
        }
    }

    /// The error as it displays, without the tail of a server process's stderr that a
    /// broken session's error carries (a gateway logs that, and does not tell its own
    /// clients: it may hold paths, tracebacks, secrets).
    #[must_use]
    pub fn without_stderr(&self) -> String {
        let full = self.to_string();
        match full.find(STDERR_TAIL) {
            Some(at) => full[..at].to_owned(),
            None => full,
        }
    }

    /// The JSON-RPC rejection, when this is one.
    #[must_use]
    pub const fn rejection(&self) -> Option<&Rejection> {
        match self {
            Self::Rejected(r) => Some(r),
            _ => None,
        }
    }
}
