//! Modern requests served one at a time, with no connection: one request in, its
//! notifications and its answer out. Streamable HTTP serves every modern POST this way.
//!
//! A 2026-07-28 request carries everything it needs (its version, the client's capabilities)
//! in its envelope, so nothing is kept between requests but the tasks, in the server's task
//! store ([`crate::engine::store`]: the seam where a store for several replicas fits).
//!
//! [`Stateless::handle`] answers at once when it can. Otherwise it hands back a [`Pending`]:
//! the work to run, and the way to its answer ([`Pending::finish`]). Notifications of the
//! work go to the [`Notify`] given with the request, for the transport to put on that
//! request's stream; a transport that stops the request (its client closed the stream) just
//! drops the work and the `Pending`.
//!
//! A request may take more than one piece of work (a wait for a slow store, then the task it
//! created): [`Pending::finish`] hands back the next one. A task's work runs as a background
//! `Pending` held by whichever transport started it; a `tasks/cancel` through another request
//! (or process) stops it, since its work ends when the store says its task ended.

use crate::api::ctx::{JobId, Notify};
use crate::engine::connection::jobs::{Action, Done, JobEnd, Work};
use crate::engine::connection::{Connection, Emitted, Line};
use crate::engine::server::Server;
use bytes::BytesMut;
use janus_codec::{INVALID_REQUEST, Parsed, Rejection};
use janus_model::shape;
use std::sync::Arc;

/// Serves modern requests without a connection.
#[derive(Debug, Clone)]
pub struct Stateless {
    server: Arc<Server>,
}

/// A request whose answer comes when its work ends.
pub struct Pending {
    conn: Connection,
    job: JobId,
    work: Option<Work>,
    background: bool,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("job", &self.job)
            .field("background", &self.background)
            .finish_non_exhaustive()
    }
}

impl Pending {
    /// The job the work runs as (its notifications name it).
    #[must_use]
    pub const fn job(&self) -> JobId {
        self.job
    }

    /// True for a task's work: the request was already answered (with the task), and no one
    /// waits for the work; its end only updates the task store.
    #[must_use]
    pub const fn is_background(&self) -> bool {
        self.background
    }

    /// The work to run (once).
    pub fn take_work(&mut self) -> Option<Work> {
        self.work.take()
    }

    /// The work ended: its answer goes to `out` (nothing for a task's work, whose end is
    /// kept in the task store). When the request needs more work (it waited for the store,
    /// and now runs the task it created), that comes back, to run and finish in turn; a
    /// background one once the request is answered.
    #[must_use = "the request may need more work"]
    pub fn finish(mut self, end: JobEnd, out: &mut BytesMut) -> Option<Self> {
        self.conn.set_routing(false);
        self.finish_routed(end, out, &mut Vec::new())
    }

    /// [`Pending::finish`] that also says what each line it wrote is, in `lines` (as
    /// [`Stateless::handle_routed`]).
    #[must_use = "the request may need more work"]
    pub fn finish_routed(
        mut self,
        end: JobEnd,
        out: &mut BytesMut,
        lines: &mut impl Extend<Emitted>,
    ) -> Option<Self> {
        self.conn.handle_done(self.job, end, out);
        lines.extend(std::iter::from_fn(|| self.conn.poll_line()));
        self.work = None;
        self.background = false;
        match self.conn.poll_action() {
            Some(Action::Run { job, work }) => {
                self.job = job;
                self.work = Some(work);
                self.background = self.conn.foreground() == 0;
                Some(self)
            }
            Some(Action::Abort(_)) | None => None,
        }
    }
}

impl Drop for Pending {
    /// A task's work dropped before its end (its transport went away) fails its task, so the
    /// shared store never keeps a task `working` that nothing runs.
    fn drop(&mut self) {
        if self.background {
            let e = janus_model::json::RpcError::new(
                janus_codec::INTERNAL_ERROR,
                "The task's work stopped before it ended",
            );
            let end = JobEnd::Finished(Done::from(Err(e.into())));
            self.conn.handle_done(self.job, end, &mut BytesMut::new());
        }
    }
}

impl Stateless {
    /// Serves `server`'s tools, over its task store.
    #[must_use]
    pub const fn new(server: Arc<Server>) -> Self {
        Self { server }
    }

    /// The server it serves.
    #[must_use]
    pub const fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// Serves one message read from a request body, at time `now_ms`. The answer, when it is
    /// ready, is appended to `out`; notifications of work that goes on go to `notify`.
    ///
    /// A notification or a client's response writes nothing; a batch is refused (`-32600`,
    /// id `null`: 2026-07-28 has no batches); everything else is served as on a modern
    /// connection.
    pub fn handle(
        &self,
        read: Result<Parsed<'_>, Rejection<'_>>,
        now_ms: u64,
        notify: &Arc<dyn Notify>,
        out: &mut BytesMut,
    ) -> Option<Pending> {
        self.handle_as(read, now_ms, notify, None, out)
    }

    /// [`Stateless::handle`] for a request whose sender the transport verified: its
    /// handlers see `principal` ([`crate::Ctx::principal`]).
    pub fn handle_as(
        &self,
        read: Result<Parsed<'_>, Rejection<'_>>,
        now_ms: u64,
        notify: &Arc<dyn Notify>,
        principal: Option<Arc<crate::api::ctx::Principal>>,
        out: &mut BytesMut,
    ) -> Option<Pending> {
        self.serve::<Vec<Emitted>>(read, now_ms, notify, principal, out, None)
    }

    /// [`Stateless::handle_as`] that also says what each line it wrote is, in `lines`:
    /// the answer (with its error's code) and the notifications before it, so a transport
    /// chooses its status and its response's type without reading the output back. The
    /// [`Pending`] it hands back keeps saying so ([`Pending::finish_routed`]).
    #[allow(clippy::too_many_arguments)]
    pub fn handle_routed(
        &self,
        read: Result<Parsed<'_>, Rejection<'_>>,
        now_ms: u64,
        notify: &Arc<dyn Notify>,
        principal: Option<Arc<crate::api::ctx::Principal>>,
        out: &mut BytesMut,
        lines: &mut impl Extend<Emitted>,
    ) -> Option<Pending> {
        self.serve(read, now_ms, notify, principal, out, Some(lines))
    }

    fn serve<E: Extend<Emitted>>(
        &self,
        read: Result<Parsed<'_>, Rejection<'_>>,
        now_ms: u64,
        notify: &Arc<dyn Notify>,
        principal: Option<Arc<crate::api::ctx::Principal>>,
        out: &mut BytesMut,
        lines: Option<&mut E>,
    ) -> Option<Pending> {
        if let Ok(Parsed::Batch(_)) = read {
            let mark = out.len();
            shape::write_reason(
                out,
                None,
                INVALID_REQUEST,
                shape::INVALID_REQUEST_MESSAGE,
                "a 2026-07-28 request is one message, not a batch",
            );
            if let Some(lines) = lines {
                lines.extend([Emitted {
                    len: out.len() - mark,
                    line: Line::Answer {
                        id: None,
                        error: Some(INVALID_REQUEST),
                    },
                }]);
            }
            return None;
        }
        // NB. A connection that served a request answered at once is kept (one a thread) for
        // the next: building one a POST was a measured part of a modern POST's cost.
        let mut conn = SPARE
            .with(|s| s.borrow_mut().take())
            .filter(|c| c.serves(&self.server))
            .unwrap_or_else(|| Connection::modern_server(Arc::clone(&self.server)));
        conn.set_notify(Arc::clone(notify));
        conn.set_principal(principal);
        conn.handle_time(now_ms);
        conn.set_routing(lines.is_some());
        conn.handle_read(read, out);
        if let Some(lines) = lines {
            lines.extend(std::iter::from_fn(|| conn.poll_line()));
        }
        match conn.poll_action() {
            Some(Action::Run { job, work }) => {
                let background = conn.foreground() == 0;
                Some(Pending {
                    conn,
                    job,
                    work: Some(work),
                    background,
                })
            }
            Some(Action::Abort(_)) | None => {
                if conn.is_spare() {
                    conn.release();
                    SPARE.with(|s| *s.borrow_mut() = Some(conn));
                }
                None
            }
        }
    }
}

thread_local! {
    /// A modern connection kept between stateless requests of this thread.
    static SPARE: std::cell::RefCell<Option<Connection>> = const { std::cell::RefCell::new(None) };
}
