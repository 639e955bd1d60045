//! Tasks, for both task generations (`decisions.md`, "Tasks"): what a task is, as a store
//! keeps it ([`crate::engine::store`] holds the store itself).
//!
//! A task is a tool call whose result is fetched later: the legacy experimental tasks of
//! 2025-11-25 sessions (`params.task`, `tasks/get`, `tasks/result`, `tasks/list`,
//! `tasks/cancel`) and the modern extension `io.modelcontextprotocol/tasks` (`tasks/get`,
//! `tasks/update`, `tasks/cancel`).
//! A store keeps the status, times and outcome of each task; the wire shapes are written by
//! the connection.

use janus_model::json::{Json, RpcError};

/// The most tasks the in-memory store keeps at once.
pub const MAX_TASKS: usize = 1024;
/// The `ttl` of a task created without one, in milliseconds.
pub const DEFAULT_TTL_MS: u64 = 300_000;
/// The longest `ttl` a client may ask for, in milliseconds.
pub const MAX_TTL_MS: u64 = 3_600_000;
/// The poll interval the server suggests, in milliseconds.
pub const POLL_INTERVAL_MS: u64 = 200;
/// Tasks per `tasks/list` page.
pub const LIST_PAGE: usize = 100;

/// The status of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Running (the initial status).
    Working,
    /// Waiting for input from the client.
    InputRequired,
    /// Done, with a result.
    Completed,
    /// Done, with an error (or, in the legacy generation, a tool result with `isError`).
    Failed,
    /// Stopped at the client's request.
    Cancelled,
}

impl Status {
    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// True for `completed`, `failed` and `cancelled`.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// Its place in the order statuses move in: a task never moves to a lower rank.
    #[must_use]
    pub const fn rank(self) -> u8 {
        match self {
            Self::Working => 0,
            Self::InputRequired => 1,
            Self::Completed | Self::Failed | Self::Cancelled => 2,
        }
    }
}

/// A tool result kept for later: its content blocks as encoded, and the rest of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The content blocks, encoded for the task's revision and joined with commas.
    pub content: String,
    /// `structuredContent`.
    pub structured: Option<Json>,
    /// Whether the tool reported a failure (`isError: true`).
    pub is_error: bool,
    /// The result's `_meta`, as the tool gave it.
    pub meta: Option<Json>,
}

/// How a task's work ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A tool result.
    Result(Stored),
    /// A JSON-RPC error.
    Error(RpcError),
}

/// A snapshot of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Its handle.
    pub id: String,
    /// Its status.
    pub status: Status,
    /// When it was created (ms since the epoch).
    pub created_ms: u64,
    /// When its status last changed (ms since the epoch).
    pub updated_ms: u64,
    /// How long after creation it is kept (ms).
    pub ttl_ms: u64,
    /// The poll interval suggested to the client (ms).
    pub poll_ms: u64,
    /// How it ended, once terminal by completion or failure.
    pub outcome: Option<Outcome>,
    /// While `input_required`: the requests still unanswered, by key.
    pub input_requests: Vec<(String, crate::api::input::InputRequest)>,
}

/// What a task waiting for the client's input keeps until every request is answered
/// (`tasks/update`): then the call is handled again with the answers ([`crate::api::input`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parked {
    /// The answers so far: key and response object (JSON text).
    pub responses: Vec<(String, String)>,
    /// The handler's own state.
    pub state: Option<String>,
    /// The call, as one JSON-RPC request frame to handle again.
    pub frame: Vec<u8>,
}

/// Writes `ms` since the Unix epoch as an RFC 3339 UTC timestamp with milliseconds.
#[must_use]
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_764_460_800_000), "2025-11-30T00:00:00.000Z");
    }
}
