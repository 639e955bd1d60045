//! Routed output: what each line the connection wrote is, so that a transport that sends
//! lines to different places (an HTTP request's response, its SSE stream, a session's `GET`
//! stream) routes them and chooses its statuses without reading its own output back.
//!
//! A driver turns it on ([`Connection::set_routing`]); then each call that writes to the
//! output also records one [`Emitted`] a line, in order, which the driver takes with
//! [`Connection::poll_line`] as quinn-proto hands out its events. Off (stdio, TCP), it costs
//! one branch a call.

use super::Connection;
use crate::api::ctx::JobId;
use bytes::BytesMut;
use janus_codec::IdBuf;
use janus_codec::encode::{self, Head};
use std::collections::VecDeque;

/// What one line of the output is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// The answer to a request: its id (`None` for `id: null`, the answer to a message that
    /// could not be read), and the error's code when it is an error.
    Answer {
        /// The request's id.
        id: Option<IdBuf>,
        /// The error's code; `None` for a result.
        error: Option<i32>,
    },
    /// One line that answers the requests of a batch, these ids in the batch's order.
    Batch {
        /// The requests the line answers.
        ids: Vec<IdBuf>,
    },
    /// A request of the server to the client (elicitation, sampling, roots) on a handshake
    /// session, sent for the client's request `origin`.
    Request {
        /// The id of the client's request whose handler asked.
        origin: Option<IdBuf>,
    },
    /// A notification: of a job's work (progress, a log message), of the connection
    /// ([`JobId::CONNECTION`]: a session's list changes), or (`None`) written while a request
    /// was handled (an inline handler's, a task's status), before the answer it goes with.
    Notification {
        /// The job whose work sent it.
        job: Option<JobId>,
    },
    /// A notification on the `subscriptions/listen` stream of job `job`.
    Listen {
        /// The listen request's job.
        job: JobId,
    },
}

impl Line {
    /// True for a line that answers a request (or a batch of them).
    #[must_use]
    pub const fn is_answer(&self) -> bool {
        matches!(self, Self::Answer { .. } | Self::Batch { .. })
    }
}

/// One line of the output and what it is: the next `len` bytes (its newline included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// The line's length in the output, its newline included.
    pub len: usize,
    /// What the line is.
    pub line: Line,
}

/// The records of a connection whose driver routes its output.
#[derive(Debug, Default)]
pub(super) struct Routing {
    lines: VecDeque<Emitted>,
}

impl Connection {
    /// Turns routed output on or off: while on, every call that writes to the output records
    /// what each line is, for [`Connection::poll_line`]. Records not taken are dropped when it
    /// is turned off.
    pub fn set_routing(&mut self, on: bool) {
        if on != self.routing.is_some() {
            self.routing = on.then(Box::default);
            self.jobs.set_routing(on);
        }
    }

    /// The next line's record, in the order the lines were written (with routing on).
    pub fn poll_line(&mut self) -> Option<Emitted> {
        self.routing.as_mut()?.lines.pop_front()
    }

    /// Records what the lines written to `out` from `mark` on are, when routing is on.
    /// `job`: the job whose notification [`Connection::handle_note`] wrote.
    #[inline]
    pub(super) fn record(&mut self, out: &BytesMut, mark: usize, job: Option<JobId>) {
        if self.routing.is_some() && out.len() > mark {
            self.record_lines(&out[mark..], job);
        }
    }

    #[inline(never)]
    fn record_lines(&mut self, mut rest: &[u8], job: Option<JobId>) {
        while !rest.is_empty() {
            // NB. Compact JSON holds no raw line break: each one ends a line.
            let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            let line = self.what_is(&rest[..len], job);
            if let Some(r) = self.routing.as_mut() {
                r.lines.push_back(Emitted { len, line });
            }
            rest = &rest[len..];
        }
    }

    /// What a line the connection wrote is: its head, as the codec's encoder wrote it, and
    /// what the connection knows of it.
    fn what_is(&mut self, line: &[u8], job: Option<JobId>) -> Line {
        if line.first() == Some(&b'[') {
            return Line::Batch {
                ids: self.jobs.take_closed_batch(),
            };
        }
        match encode::read_head(line) {
            Some(Head::Result(id)) => Line::Answer {
                id: Some(id.to_owned()),
                error: None,
            },
            Some(Head::Error(id, code)) => Line::Answer {
                id: id.map(janus_codec::Id::to_owned),
                error: Some(code),
            },
            Some(Head::Request(sid)) => Line::Request {
                origin: self.input_request_origin(sid).map(|o| o.to_owned()),
            },
            // NB. Every line the connection writes is of its encoder; a driver's own line
            // given to `handle_note` is the job's notification.
            Some(Head::Notification) | None => match job {
                Some(j) if self.listeners.contains_key(&j) => Line::Listen { job: j },
                job => Line::Notification { job },
            },
        }
    }
}
