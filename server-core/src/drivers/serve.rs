//! The tokio driver: serves [`Connection`]s over stdio, TCP, or any byte stream.
//!
//! The driver only does what the connection asks: it reads frames into it, runs the work of
//! each [`Action::Run`] (in one task a connection, apart from its reading and writing), aborts
//! what an [`Action::Abort`] names, reports each job's end (a panic included) and each
//! notification a job sends, tells it the time, and writes.
//! Everything that is ready after a read goes out in one write.
//!
//! Backpressure: at most [`Config::max_in_flight`] jobs run per connection; more wait in the
//! connection's queue, and reading goes on, so a `notifications/cancelled` always acts at
//! once. Reading pauses only when the queued work reaches [`Config::max_queued_bytes`], and
//! when the client stops reading its answers (a write stalls).
//! At end of input every request in flight is finished and written, then the connection ends;
//! tasks' background work ends with it.
//! A [`Shutdown`] does the same for every connection at once, for at most
//! [`Config::drain`].

use crate::api::ctx::{JobId, Notify};
use crate::engine::connection::Connection;
use crate::engine::connection::jobs::{Action, JobEnd};
use crate::engine::server::Server;
use bytes::{Bytes, BytesMut};
use janus_codec::{DEFAULT_MAX_FRAME_LEN, FrameCodec};
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// The default most jobs running per connection.
pub const DEFAULT_MAX_IN_FLIGHT: usize = crate::engine::connection::DEFAULT_MAX_RUNNING;
/// The default bound of the work waiting to run, per connection, before reading pauses.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 16 * 1024 * 1024;
/// The default time a shutdown gives requests in flight.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(10);
/// How much the driver asks for in one read.
const READ_CHUNK: usize = 64 * 1024;
/// Output beyond this is written before more frames are handled.
const WRITE_HIGH_WATER: usize = 1024 * 1024;

/// Settings of the driver.
#[derive(Debug, Clone)]
pub struct Config {
    /// The longest line accepted (a longer one is answered `-32600` and skipped).
    pub max_frame_len: usize,
    /// The most jobs running at once per connection (at least 1); more wait in a queue.
    pub max_in_flight: usize,
    /// The most work waiting to run per connection, estimated in bytes, before reading
    /// pauses.
    pub max_queued_bytes: usize,
    /// How long a shutdown waits for requests in flight.
    pub drain: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            drain: DEFAULT_DRAIN,
        }
    }
}

impl Config {
    /// Checks the settings.
    ///
    /// # Errors
    ///
    /// `InvalidInput` naming the setting that is zero.
    pub fn check(&self) -> io::Result<()> {
        let zero = |what: &str| {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{what} must be at least 1"),
            ))
        };
        if self.max_in_flight == 0 {
            return zero("max_in_flight");
        }
        if self.max_frame_len == 0 {
            return zero("max_frame_len");
        }
        if self.max_queued_bytes == 0 {
            return zero("max_queued_bytes");
        }
        Ok(())
    }
}

/// Stops serving, gracefully: connections read no more, finish what is in flight (for at
/// most [`Config::drain`]) and end; listeners accept no more. Cloning shares the handle.
#[derive(Debug, Clone)]
pub struct Shutdown(pub(crate) Arc<watch::Sender<bool>>);

impl Default for Shutdown {
    fn default() -> Self {
        Self::new()
    }
}

impl Shutdown {
    /// A handle not yet triggered.
    #[must_use]
    pub fn new() -> Self {
        Self(Arc::new(watch::channel(false).0))
    }

    /// Starts the shutdown.
    pub fn trigger(&self) {
        self.0.send_replace(true);
    }

    /// True once triggered.
    #[must_use]
    pub fn is_triggered(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once triggered.
    pub async fn triggered(&self) {
        let mut rx = self.0.subscribe();
        // An error means the sender is gone, which cannot happen while `self` holds it.
        let _ = rx.wait_for(|t| *t).await;
    }
}

/// The driver's [`Notify`]: notifications of running work come back to the connection's
/// task through a channel.
///
/// The channel is bounded ([`MAX_PENDING_NOTES`]): when a job notifies faster than the client
/// reads, the notifications past the bound are dropped, so memory stays bounded whatever a
/// tool does.
struct Channel(mpsc::Sender<(JobId, Bytes)>);

/// The most notifications of running work waiting to be written, per connection.
pub const MAX_PENDING_NOTES: usize = 4096;

impl Notify for Channel {
    fn notify(&self, job: JobId, line: Bytes) {
        // A send fails once the connection has ended (nothing is wanted then) or when the
        // channel is full (the client reads too slowly: progress and logs are dropped).
        if self.0.try_send((job, line)).is_err() {
            tracing::trace!(job = job.get(), "a notification was dropped");
        }
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Runs a connection's jobs: the driver's half of the job book, shared by [`serve_stream`],
/// the tests and the fuzz target.
///
/// [`Runner::attach`] it to a connection, [`Runner::act`] after each frame, and await
/// [`Runner::next`] while [`Runner::is_idle`] is false: it takes the next job end (a panic
/// included) or notification to the connection, whose answers go to the output.
///
/// A connection's jobs run in one tokio task of their own, the runner's pump (spawned at the
/// first job: a connection of inline tools has none), not a task each: a job handed over is
/// pushed into the pump's set, a job woken is polled by it, and its end goes back to the
/// connection on a channel, many ends a wake-up. The pump is apart from the connection's
/// task, so jobs go on while that task waits to write to a client that does not read, and
/// each connection's jobs are scheduled as any task is (a task's background work that
/// another connection waits for included). (Measured on the bridge: a tokio task a job, its
/// join and its abort handle cost a twentieth of its instructions a forwarded call, 21.8 k
/// against 20.8 k.)
pub struct Runner {
    /// The pump and its channels: `None` until the first job (an idle connection holds no
    /// channel's block for the ends it will never have).
    pump: Option<Pump>,
    /// Jobs handed to the pump whose end (or abort) has not come back.
    running: usize,
    notes_tx: mpsc::Sender<(JobId, Bytes)>,
    notes: mpsc::Receiver<(JobId, Bytes)>,
}

/// A runner's pump: the task, the orders it takes, and the ends it sends back.
struct Pump {
    orders: mpsc::UnboundedSender<Order>,
    /// Each job handed to the pump comes back here once: its end, or `None` when it was
    /// aborted before it ended.
    ends: mpsc::UnboundedReceiver<(JobId, Option<JobEnd>)>,
    /// Aborted (its jobs dropped) when the runner drops.
    task: tokio::task::AbortHandle,
}

/// What the runner asks of its pump.
enum Order {
    Run(JobId, crate::engine::connection::jobs::Work),
    Abort(JobId),
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("running", &self.running)
            .finish_non_exhaustive()
    }
}

impl Default for Runner {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        // NB. The connection ended: its jobs end with it, tasks' background work included.
        if let Some(pump) = self.pump.take() {
            pump.task.abort();
        }
    }
}

impl Runner {
    /// A runner with nothing running.
    #[must_use]
    pub fn new() -> Self {
        let (notes_tx, notes) = mpsc::channel(MAX_PENDING_NOTES);
        Self {
            pump: None,
            running: 0,
            notes_tx,
            notes,
        }
    }

    /// Routes the notifications of `conn`'s jobs through this runner.
    pub fn attach(&self, conn: &mut Connection) {
        conn.set_notify(Arc::new(Channel(self.notes_tx.clone())));
    }

    /// True when no job runs.
    #[must_use]
    pub const fn is_idle(&self) -> bool {
        self.running == 0
    }

    /// Carries out the connection's actions: starts what it runs, aborts what it names.
    #[inline]
    pub fn act(&mut self, conn: &mut Connection) {
        // Most frames (inline tools) start nothing: one check, no call.
        if conn.has_actions() {
            self.act_on(conn);
        }
    }

    fn act_on(&mut self, conn: &mut Connection) {
        while let Some(action) = conn.poll_action() {
            let order = match action {
                Action::Run { job, work } => {
                    self.running += 1;
                    Order::Run(job, work)
                }
                Action::Abort(job) => Order::Abort(job),
            };
            let pump = self.pump.get_or_insert_with(|| {
                let (orders, taken) = mpsc::unbounded_channel();
                let (sent, ends) = mpsc::unbounded_channel();
                let task = tokio::spawn(pump(taken, sent)).abort_handle();
                Pump { orders, ends, task }
            });
            // NB. The pump ends only when this runner drops (it holds the receiver).
            let _ = pump.orders.send(order);
        }
    }

    /// Waits for the next job end or notification and hands it (and whatever else is ready)
    /// to the connection; then carries out its actions. Cancel-safe: an event is taken only
    /// when it is handled.
    pub async fn next(&mut self, conn: &mut Connection, out: &mut BytesMut) {
        let ends = self.pump.as_mut().map(|p| &mut p.ends);
        tokio::select! {
            Some(done) = next_end(ends) => {
                conn.handle_time(now_ms());
                self.ended(done, conn, out);
                while let Some(d) = self.pump.as_mut().and_then(|p| p.ends.try_recv().ok()) {
                    self.ended(d, conn, out);
                }
            }
            Some((job, line)) = self.notes.recv() => {
                conn.handle_note(job, &line, out);
            }
        }
        // Notifications sent before a job ended are taken before a later job's answer.
        while let Ok((job, line)) = self.notes.try_recv() {
            conn.handle_note(job, &line, out);
        }
        self.act(conn);
    }

    /// Reports a job's end to the connection.
    fn ended(&mut self, done: (JobId, Option<JobEnd>), conn: &mut Connection, out: &mut BytesMut) {
        self.running -= 1;
        // NB. A panic is caught where it happens ([`Caught`]): `None` is an abort, whose job
        // the connection already dropped.
        let (job, Some(end)) = done else {
            return;
        };
        // The job's notifications sent before it ended go out before its answer.
        while let Ok((j, line)) = self.notes.try_recv() {
            conn.handle_note(j, &line, out);
        }
        conn.handle_done(job, end, out);
    }
}

/// The next end from the pump; never, while there is no pump.
async fn next_end(
    ends: Option<&mut mpsc::UnboundedReceiver<(JobId, Option<JobEnd>)>>,
) -> Option<(JobId, Option<JobEnd>)> {
    match ends {
        Some(e) => e.recv().await,
        None => std::future::pending().await,
    }
}

/// The pump of a connection's jobs: runs what `orders` hands it, polling each job when it is
/// woken, and sends each one's end (or `None` for an abort that came first) to `ends`. It ends
/// when the runner does; its jobs are dropped with it.
async fn pump(
    mut orders: mpsc::UnboundedReceiver<Order>,
    ends: mpsc::UnboundedSender<(JobId, Option<JobEnd>)>,
) {
    use futures_util::stream::{FuturesUnordered, StreamExt};
    use std::task::Poll;
    let mut set: FuturesUnordered<Caught> = FuturesUnordered::new();
    std::future::poll_fn(|cx| {
        loop {
            loop {
                match orders.poll_recv(cx) {
                    Poll::Ready(Some(Order::Run(job, work))) => set.push(Caught::new(job, work)),
                    Poll::Ready(Some(Order::Abort(job))) => {
                        // NB. A walk over the jobs running (at most the connection's limit),
                        // as aborts are rare; a job not found has ended (its end is sent).
                        if let Some(c) = set.iter_mut().find(|c| c.job == job) {
                            c.abort();
                        }
                    }
                    Poll::Ready(None) => return Poll::Ready(()),
                    Poll::Pending => break,
                }
            }
            // NB. The set polls each job woken at most once a call, then yields (waking this
            // task): a job that is always ready cannot hold the thread.
            match set.poll_next_unpin(cx) {
                Poll::Ready(Some(done)) => {
                    // NB. A send fails only once the runner is gone (nothing is wanted).
                    let _ = ends.send(done);
                }
                // NB. No job: the orders' receiver holds the waker.
                Poll::Ready(None) | Poll::Pending => return Poll::Pending,
            }
        }
    })
    .await;
}

/// A job's work in the pump: its job and how it ended, a panic of its included (caught where
/// it happens, in its poll or its drop, so that it never reaches the pump); `None` once it
/// was aborted.
///
/// Its work runs outside tokio's cooperative budget: jobs polled in one task would share that
/// task's one budget, each woken again as it ran out (measured: 14% more instructions a
/// forwarded call in the bridge).
struct Caught {
    job: JobId,
    /// INVARIANT: `None` only once the work ended or was aborted (it is not polled again).
    work: Option<tokio::task::coop::Unconstrained<crate::engine::connection::jobs::Work>>,
    /// The waker of its last poll: an abort wakes it, so that it ends.
    waker: Option<std::task::Waker>,
}

impl Caught {
    fn new(job: JobId, work: crate::engine::connection::jobs::Work) -> Self {
        Self {
            job,
            work: Some(tokio::task::coop::unconstrained(work)),
            waker: None,
        }
    }

    /// Drops the work now (its request was cancelled, or its connection dropped it): the job
    /// ends, with no outcome, at its next poll.
    fn abort(&mut self) {
        drop_caught(self.job, self.work.take());
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }
}

/// Drops a job's work, a panic there caught: the pump goes on.
fn drop_caught<T>(job: JobId, work: Option<T>) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(work))).is_err() {
        tracing::warn!(job = job.get(), "a job's work panicked as it was dropped");
    }
}

impl Drop for Caught {
    fn drop(&mut self) {
        drop_caught(self.job, self.work.take());
    }
}

impl std::future::Future for Caught {
    type Output = (JobId, Option<JobEnd>);

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        use std::panic::{AssertUnwindSafe, catch_unwind};
        let this = &mut *self;
        let job = this.job;
        let Some(work) = this.work.as_mut() else {
            return std::task::Poll::Ready((job, None));
        };
        // NB. A work that panicked is not polled again: the job ends with this poll.
        match catch_unwind(AssertUnwindSafe(|| std::pin::Pin::new(work).poll(cx))) {
            Ok(std::task::Poll::Pending) => {
                if !this.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    this.waker = Some(cx.waker().clone());
                }
                std::task::Poll::Pending
            }
            Ok(std::task::Poll::Ready(done)) => {
                this.work = None;
                std::task::Poll::Ready((job, Some(JobEnd::Finished(done))))
            }
            Err(_) => {
                // NB. Its state is unknown after the panic: dropped here.
                drop_caught(job, this.work.take());
                std::task::Poll::Ready((job, Some(JobEnd::Panicked)))
            }
        }
    }
}

/// Serves one connection on a byte stream until the client's input ends (or a write fails,
/// which means the client went away).
///
/// # Errors
///
/// A setting that is out of range ([`Config::check`]), or a read error of the input. A
/// write error ends the connection quietly (`Ok`).
pub async fn serve_stream<R, W>(
    server: Arc<Server>,
    reader: R,
    writer: W,
    config: &Config,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    serve_stream_until(server, reader, writer, config, &Shutdown::new()).await
}

/// [`serve_stream`], until `shutdown` is triggered: then no more is read, requests in flight
/// are finished (for at most [`Config::drain`]) and written, and the connection ends.
///
/// # Errors
///
/// As [`serve_stream`].
pub async fn serve_stream_until<R, W>(
    server: Arc<Server>,
    mut reader: R,
    mut writer: W,
    config: &Config,
    shutdown: &Shutdown,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    config.check()?;
    let mut conn = Connection::new(server);
    let mut work = Runner::new();
    work.attach(&mut conn);
    conn.set_max_running(config.max_in_flight);
    let mut codec = FrameCodec::new();
    codec.max_frame_len(config.max_frame_len);
    let mut input = BytesMut::with_capacity(READ_CHUNK);
    let mut out = BytesMut::with_capacity(READ_CHUNK);
    let mut eof = false;
    let mut told_eof = false;
    let mut deadline: Option<tokio::time::Instant> = None;
    // One subscription for the connection's life, not one per wake-up.
    let mut stop = shutdown.0.subscribe();
    loop {
        conn.handle_time(now_ms());
        while conn.queued_bytes() < config.max_queued_bytes && (!eof || !input.is_empty()) {
            // Each line is framed, parsed and handled where it lies in the input buffer, in
            // one scan where the codec can: nothing of it outlives `handle_read` (a job copies
            // what it needs), so no owned frame is made.
            let parser = conn.parser();
            let handled = if eof {
                codec.decode_message_eof(&mut input, &parser, |_, read| {
                    conn.handle_read(read, &mut out);
                })
            } else {
                codec.decode_message(&mut input, &parser, |_, read| {
                    conn.handle_read(read, &mut out);
                })
            };
            if handled.is_none() {
                break;
            }
            work.act(&mut conn);
            if out.len() >= WRITE_HIGH_WATER
                && !write_until(&mut writer, &mut out, &mut stop, deadline, config.drain).await
            {
                return Ok(());
            }
        }
        if eof && input.is_empty() && !told_eof {
            // Every request is read: background work no one waits for gives up its slots.
            told_eof = true;
            conn.handle_eof(&mut out);
            work.act(&mut conn);
        }
        if !out.is_empty()
            && !write_until(&mut writer, &mut out, &mut stop, deadline, config.drain).await
        {
            return Ok(());
        }
        if eof && conn.foreground() == 0 && (input.is_empty() || deadline.is_some()) {
            // Only tasks' background work is left: it ends with the connection.
            return Ok(());
        }
        if deadline.is_some_and(|d| d <= tokio::time::Instant::now()) {
            tracing::debug!("shutdown: the drain time ran out with requests in flight");
            return Ok(());
        }
        let can_read = !eof && conn.queued_bytes() < config.max_queued_bytes;
        if can_read {
            input.reserve(READ_CHUNK);
        }
        // NB. A request waiting for the client's answers ends at its deadline.
        let input_due = conn.next_deadline().map(|due| {
            tokio::time::Instant::now() + Duration::from_millis(due.saturating_sub(now_ms()))
        });
        tokio::select! {
            read = reader.read_buf(&mut input), if can_read => {
                if read? == 0 {
                    eof = true;
                }
            }
            // NB. Also while no job runs: a session's list changes come as notes.
            () = work.next(&mut conn, &mut out) => {}
            _ = stop.wait_for(|t| *t), if deadline.is_none() => {
                eof = true;
                // NB. What was read but not handled is dropped: a shutdown reads no more.
                input.clear();
                deadline = Some(tokio::time::Instant::now() + config.drain);
            }
            () = sleep_until(deadline), if deadline.is_some() => {}
            () = sleep_until(input_due), if input_due.is_some() => {
                conn.handle_time(now_ms());
                conn.handle_deadlines(&mut out);
                work.act(&mut conn);
            }
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// [`write_out`], which waits for a client that reads slowly for as long as it takes until a
/// shutdown; from then on, for the drain time at most (a client that never reads cannot
/// hold a shutdown). False when the client is gone or the drain time ran out.
async fn write_until<W: AsyncWrite + Unpin>(
    writer: &mut W,
    out: &mut BytesMut,
    stop: &mut tokio::sync::watch::Receiver<bool>,
    deadline: Option<tokio::time::Instant>,
    drain: Duration,
) -> bool {
    let write = write_out(writer, out);
    tokio::pin!(write);
    if deadline.is_none() {
        tokio::select! {
            biased;
            ok = &mut write => return ok,
            _ = stop.wait_for(|t| *t) => {}
        }
    }
    let until = deadline.unwrap_or_else(|| tokio::time::Instant::now() + drain);
    tokio::time::timeout_at(until, write)
        .await
        .unwrap_or_else(|_| {
            tracing::debug!("shutdown: the client did not read its answers within the drain time");
            false
        })
}

/// Writes and flushes `out`; false when the client is gone.
async fn write_out<W: AsyncWrite + Unpin>(writer: &mut W, out: &mut BytesMut) -> bool {
    let ok = writer.write_all(out).await.is_ok() && writer.flush().await.is_ok();
    out.clear();
    if !ok {
        tracing::debug!("the client went away: a write failed");
    }
    ok
}

/// Serves one connection on this process's stdin and stdout.
///
/// # Errors
///
/// As [`serve_stream`].
pub async fn serve_stdio(
    server: Arc<Server>,
    config: &Config,
    shutdown: &Shutdown,
) -> io::Result<()> {
    #[cfg(unix)]
    if let (Some(input), Some(output)) = (
        crate::drivers::stdio::Pipe::new(std::io::stdin()),
        crate::drivers::stdio::Pipe::new(std::io::stdout()),
    ) {
        return serve_stream_until(server, input, output, config, shutdown).await;
    }
    serve_stream_until(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        config,
        shutdown,
    )
    .await
}

/// The backlog [`bind`] asks for: the kernel takes the least of it and its own cap
/// (`net.core.somaxconn`, 4096 on Linux since 5.4).
pub const LISTEN_BACKLOG: u32 = 4096;

/// A TCP listener on `addr` (address reuse on, as servers have it) whose backlog is
/// [`LISTEN_BACKLOG`]. `tokio::net::TcpListener::bind` asks for 128, as the standard
/// library does: a burst of new connections past it waits for a SYN retransmission, a
/// second or more (1,000 connections at once took 4 s to be accepted, against 0.07 s).
///
/// # Errors
///
/// The address cannot be bound.
pub fn bind(addr: std::net::SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Accepts TCP connections on `listener` and serves each one in its own task, until
/// `shutdown` is triggered; then it accepts no more and waits for its connections to drain.
///
/// # Errors
///
/// A setting that is out of range, or an accept error that is not about one connection.
pub async fn serve_tcp(
    server: Arc<Server>,
    listener: TcpListener,
    config: Config,
    shutdown: &Shutdown,
) -> io::Result<()> {
    // The listener lives in the accept closure, so it closes before the drain begins.
    let listener = Arc::new(listener);
    let accept = move || {
        let listener = Arc::clone(&listener);
        async move {
            let (socket, peer) = listener.accept().await?;
            let _ = socket.set_nodelay(true);
            tracing::trace!(%peer, "accepted");
            // NB. `into_split` halves share no lock, unlike `tokio::io::split`'s.
            Ok(socket.into_split())
        }
    };
    serve_accepted(server, accept, config, shutdown).await
}

/// Serves every connection that `accept` yields, as a read half and a write half (a Unix
/// socket's `into_split`, `tokio::io::split` of a TLS stream, any listener's), each in its
/// own task, until `shutdown` is triggered; then it accepts no more
/// and waits for its connections to drain (for at most [`Config::drain`] and a second).
///
/// # Errors
///
/// A setting that is out of range, or an accept error that is not about one connection
/// (errors such as a reset connection are logged and skipped).
pub async fn serve_accepted<A, F, R, W>(
    server: Arc<Server>,
    mut accept: A,
    config: Config,
    shutdown: &Shutdown,
) -> io::Result<()>
where
    A: FnMut() -> F,
    F: std::future::Future<Output = io::Result<(R, W)>>,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    config.check()?;
    let config = Arc::new(config);
    let mut connections = JoinSet::new();
    // NB. One accept future lives until it completes: reaping an ended connection must not
    // drop an accept half done (a TLS handshake, say).
    let mut next = Box::pin(accept());
    loop {
        let accepted = tokio::select! {
            a = &mut next => {
                next = Box::pin(accept());
                a
            }
            () = shutdown.triggered() => break,
            // Ended connections are reaped as they go, so the set stays small.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let (r, w) = match accepted {
            Ok(halves) => halves,
            Err(e) if is_per_connection(&e) => {
                tracing::debug!(error = %e, "accept failed for one connection");
                continue;
            }
            Err(e) => return Err(e),
        };
        let server = Arc::clone(&server);
        let config = Arc::clone(&config);
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            if let Err(e) = serve_stream_until(server, r, w, &config, &shutdown).await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    // No more accepts: the listener closes here, and new clients are refused at once.
    drop(next);
    drop(accept);
    // Each connection drains within `config.drain`; the margin covers the last writes.
    let _ = tokio::time::timeout(config.drain + Duration::from_secs(1), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    Ok(())
}

fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}
