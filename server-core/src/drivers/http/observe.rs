//! What the endpoint tells an observer of each request it answers, for metrics
//! ([`HttpConfig::observe`](super::HttpConfig::observe)): nothing is measured when none is set.

use crate::engine::connection::routing::Line;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The era a request was served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2026-07-28: a stateless POST.
    Modern,
    /// A handshake revision: a POST on a legacy session (or its `initialize`).
    Legacy,
}

impl Era {
    /// The label it is reported under: `2026-07-28` or `legacy`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Modern => "2026-07-28",
            Self::Legacy => "legacy",
        }
    }
}

/// Hears each request the endpoint answers. It is called on the path of every request, so
/// it must be cheap (a few atomic operations) and must not block.
pub trait Observe: Send + Sync + std::fmt::Debug + 'static {
    /// A request was answered: its method (one MCP defines, else `"other"`, so a client
    /// cannot make labels without end), its era, its answer's error code (`None` for a
    /// result), and the time from its body being read to its answer being ready.
    fn answered(&self, method: &'static str, era: Era, error: Option<i32>, took: Duration);
}

/// A request being served, to tell the observer of when it is answered.
#[derive(Debug)]
pub(super) struct Seen {
    observe: Arc<dyn Observe>,
    method: &'static str,
    era: Era,
    started: Instant,
}

impl Seen {
    pub(super) fn new(observe: &Arc<dyn Observe>, method: &str, era: Era) -> Self {
        Self {
            observe: Arc::clone(observe),
            method: crate::engine::connection::method_label(method),
            era,
            started: Instant::now(),
        }
    }

    /// Answered with `error` (`None`: a result).
    pub(super) fn done(self, error: Option<i32>) {
        self.observe
            .answered(self.method, self.era, error, self.started.elapsed());
    }

    /// Answered by `line` (an error answer gives its code).
    pub(super) fn done_by(self, line: Option<&Line>) {
        let error = match line {
            Some(Line::Answer { error, .. }) => *error,
            _ => None,
        };
        self.done(error);
    }
}
