//! The tokio driver: serves [`Connection`]s over stdio, TCP, or any byte stream.
//!
//! One task per connection reads frames, answers synchronous requests inline (no task
//! spawned), runs asynchronous tools as tasks, and writes answers in batches: everything that
//! is ready after a read goes out in one write.
//! At most [`Config::max_in_flight`] jobs run per connection; at the limit, reading pauses,
//! so a flood of slow requests cannot grow memory without bound. A client that stops reading
//! stalls the writes, and so the reads, too.
//! `notifications/cancelled` aborts the named job (or drops the named request from a batch in
//! flight), and nothing more is written for it.
//! At end of input every job in flight is finished and written, then the connection ends.

use crate::connection::{Canceller, Connection, Outcome};
use crate::server::Server;
use bytes::{Bytes, BytesMut};
use janus_codec::{DEFAULT_MAX_FRAME_LEN, FrameCodec, IdBuf};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::{AbortHandle, JoinSet};

/// The default most jobs in flight per connection.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;
/// How much the driver asks for in one read.
const READ_CHUNK: usize = 64 * 1024;
/// Output beyond this is written before more frames are handled.
const WRITE_HIGH_WATER: usize = 1024 * 1024;

/// Settings of the driver.
#[derive(Debug, Clone)]
pub struct Config {
    /// The longest line accepted (a longer one is answered `-32600` and skipped).
    pub max_frame_len: usize,
    /// The most asynchronous jobs in flight per connection before reading pauses.
    pub max_in_flight: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
        }
    }
}

/// Serves one connection on a byte stream until the client's input ends (or a write fails,
/// which means the client went away).
///
/// # Errors
///
/// A read error of the input. A write error ends the connection quietly (`Ok`).
pub async fn serve_stream<R, W>(
    server: Arc<Server>,
    mut reader: R,
    mut writer: W,
    config: &Config,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut conn = Connection::new(server);
    let mut codec = FrameCodec::new();
    codec.max_frame_len(config.max_frame_len);
    let mut input = BytesMut::with_capacity(READ_CHUNK);
    let mut out = BytesMut::with_capacity(READ_CHUNK);
    let mut jobs: JoinSet<Option<Bytes>> = JoinSet::new();
    // Live jobs by task; a cancelled job is removed here, so its answer is never written.
    let mut live: HashMap<tokio::task::Id, Option<IdBuf>> = HashMap::new();
    // Jobs that answer a request (not a task's background work): the end of input waits for
    // these only.
    let mut foreground = 0usize;
    let mut background: std::collections::HashSet<tokio::task::Id> = Default::default();
    // The jobs of each request id in flight. A client must not reuse an id while its request
    // is in flight; when one does, a cancellation of that id stops every job that has it.
    let mut by_request: HashMap<IdBuf, Handles> = HashMap::new();
    // The requests of batches in flight whose work is still to come, by the batch's job.
    let mut batches: Batches = HashMap::new();
    let mut eof = false;
    loop {
        while jobs.len() < config.max_in_flight {
            // Each line is framed, parsed and handled where it lies in the input buffer, in
            // one scan where the codec can: nothing of it outlives `handle_read` (a job copies
            // what it needs), so no owned frame is made.
            let parser = conn.parser();
            let outcome = if eof {
                codec.decode_message_eof(&mut input, &parser, |_, read| {
                    conn.handle_read(read, &mut out)
                })
            } else {
                codec.decode_message(&mut input, &parser, |_, read| {
                    conn.handle_read(read, &mut out)
                })
            };
            let Some(outcome) = outcome else { break };
            match outcome {
                Outcome::Done => {}
                Outcome::Spawn(job) => {
                    let handle = jobs.spawn(job.future);
                    if !job.elements.is_empty() {
                        batches.insert(handle.id(), job.elements);
                    }
                    if let Some(id) = &job.id {
                        by_request
                            .entry(id.clone())
                            .or_default()
                            .push(handle.clone());
                    }
                    if job.background {
                        background.insert(handle.id());
                    } else {
                        foreground += 1;
                    }
                    live.insert(handle.id(), job.id);
                }
                Outcome::Cancel(id) => cancel(&id, &mut live, &mut by_request, &batches),
            }
            while let Some(id) = conn.poll_cancel() {
                cancel(&id, &mut live, &mut by_request, &batches);
            }
            if out.len() >= WRITE_HIGH_WATER && !write_out(&mut writer, &mut out).await {
                return Ok(());
            }
        }
        if !out.is_empty() && !write_out(&mut writer, &mut out).await {
            return Ok(());
        }
        if eof && foreground == 0 {
            // Only tasks' background work is left: it ends with the connection.
            return Ok(());
        }
        let can_read = !eof && jobs.len() < config.max_in_flight;
        if can_read {
            input.reserve(READ_CHUNK);
        }
        tokio::select! {
            read = reader.read_buf(&mut input), if can_read => {
                if read? == 0 {
                    eof = true;
                }
            }
            Some(done) = jobs.join_next_with_id(), if !jobs.is_empty() => {
                let mut done = Some(done);
                while let Some(d) = done.take().or_else(|| jobs.try_join_next_with_id()) {
                    let task = match &d {
                        Ok((task, _)) => *task,
                        Err(e) => e.id(),
                    };
                    if !background.remove(&task) {
                        foreground -= 1;
                    }
                    batches.remove(&task);
                    finish(d, &mut live, &mut by_request, &mut out);
                }
            }
        }
    }
}

/// The jobs of one request id: one, unless a client reused an id in flight.
type Handles = SmallVec<[AbortHandle; 1]>;

/// The requests of a batch job whose work is still to come, by the batch's job.
type Batches = HashMap<tokio::task::Id, Vec<(IdBuf, Canceller)>>;

/// Aborts the jobs of request `id`, if any is in flight, and cancels it inside the batches in
/// flight; nothing will be written for it.
fn cancel(
    id: &IdBuf,
    live: &mut HashMap<tokio::task::Id, Option<IdBuf>>,
    by_request: &mut HashMap<IdBuf, Handles>,
    batches: &Batches,
) {
    for handle in by_request.remove(id).unwrap_or_default() {
        handle.abort();
        live.remove(&handle.id());
    }
    for (element, canceller) in batches.values().flatten() {
        if element == id {
            canceller.cancel();
        }
    }
}

/// Takes a finished job's answer into `out`, unless the job was cancelled.
fn finish(
    done: Result<(tokio::task::Id, Option<Bytes>), tokio::task::JoinError>,
    live: &mut HashMap<tokio::task::Id, Option<IdBuf>>,
    by_request: &mut HashMap<IdBuf, Handles>,
    out: &mut BytesMut,
) {
    let (task, line) = match done {
        Ok((task, line)) => (task, line),
        // Cancelled (aborted) jobs write nothing. Panics are caught inside the job itself.
        Err(e) => (e.id(), None),
    };
    if let Some(request) = live.remove(&task) {
        // Only this job's handle goes: another job may have the same id.
        if let Some(request) = request
            && let Some(handles) = by_request.get_mut(&request)
        {
            handles.retain(|h| h.id() != task);
            if handles.is_empty() {
                by_request.remove(&request);
            }
        }
        if let Some(line) = line {
            out.extend_from_slice(&line);
        }
    }
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
/// A read error of stdin.
pub async fn serve_stdio(server: Arc<Server>, config: &Config) -> io::Result<()> {
    #[cfg(unix)]
    if let (Some(input), Some(output)) = (
        crate::stdio::Pipe::new(std::io::stdin()),
        crate::stdio::Pipe::new(std::io::stdout()),
    ) {
        return serve_stream(server, input, output, config).await;
    }
    serve_stream(server, tokio::io::stdin(), tokio::io::stdout(), config).await
}

/// Accepts TCP connections on `listener` and serves each one in its own task, for ever.
///
/// # Errors
///
/// An accept error that is not about one connection.
pub async fn serve_tcp(
    server: Arc<Server>,
    listener: TcpListener,
    config: Config,
) -> io::Result<()> {
    let config = Arc::new(config);
    loop {
        let (socket, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) if is_per_connection(&e) => {
                tracing::debug!(error = %e, "accept failed for one connection");
                continue;
            }
            Err(e) => return Err(e),
        };
        let _ = socket.set_nodelay(true);
        let server = Arc::clone(&server);
        let config = Arc::clone(&config);
        tokio::spawn(async move {
            let (r, w) = socket.into_split();
            if let Err(e) = serve_stream(server, r, w, &config).await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
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
