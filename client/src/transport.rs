//! Where a server is and how bytes reach it. Every transport here carries newline-delimited
//! JSON-RPC: a child process's stdin and stdout (its stderr captured apart, never mixed into
//! the protocol), a TCP connection, or any byte stream the caller already holds.

use crate::error::Error;
use bytes::{Bytes, BytesMut};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// How much of a child's stderr is kept (its last bytes), for the errors that need it.
const STDERR_KEPT: usize = 16 << 10;

/// A server to start as a child process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to its environment.
    pub env: Vec<(String, String)>,
    /// Its working directory (the caller's when `None`).
    pub cwd: Option<PathBuf>,
}

impl Command {
    /// `program` with `args`.
    #[must_use]
    pub fn new(
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }
}

/// Where a server is.
pub enum Transport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio(Command),
    /// A TCP address (`host:port`) speaking newline-delimited JSON-RPC.
    Tcp(String),
    /// A streamable HTTP endpoint (both eras), with headers every request carries.
    Http {
        /// The endpoint's URL (`http://` or `https://`; see [`Options::tls`]).
        ///
        /// [`Options::tls`]: crate::Options::tls
        url: String,
        /// Extra headers (say `Authorization`).
        headers: Vec<(String, String)>,
    },
    /// The 2024-11-05 HTTP+SSE transport: the URL of its `GET` stream, with headers every
    /// request carries.
    Sse {
        /// The stream's URL (`http://` or `https://`; see [`Options::tls`]).
        ///
        /// [`Options::tls`]: crate::Options::tls
        url: String,
        /// Extra headers.
        headers: Vec<(String, String)>,
    },
    /// A byte stream already open: what the server writes, and where to write to it.
    Stream(
        Box<dyn AsyncRead + Send + Unpin>,
        Box<dyn AsyncWrite + Send + Unpin>,
    ),
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stdio(c) => f.debug_tuple("Stdio").field(c).finish(),
            Self::Tcp(a) => f.debug_tuple("Tcp").field(a).finish(),
            Self::Http { url, .. } => f
                .debug_struct("Http")
                .field("url", url)
                .finish_non_exhaustive(),
            Self::Sse { url, .. } => f
                .debug_struct("Sse")
                .field("url", url)
                .finish_non_exhaustive(),
            Self::Stream(..) => f.write_str("Stream"),
        }
    }
}

impl Transport {
    /// The same transport again, for a new connection (a restarted process, say); `None`
    /// for a stream already open, which cannot be opened twice.
    #[must_use]
    pub fn try_clone(&self) -> Option<Self> {
        Some(match self {
            Self::Stdio(c) => Self::Stdio(c.clone()),
            Self::Tcp(a) => Self::Tcp(a.clone()),
            Self::Http { url, headers } => Self::Http {
                url: url.clone(),
                headers: headers.clone(),
            },
            Self::Sse { url, headers } => Self::Sse {
                url: url.clone(),
                headers: headers.clone(),
            },
            Self::Stream(..) => return None,
        })
    }

    /// The key the outcome of mode `Auto` is remembered under: the command line or the
    /// address; `None` for a stream, which is never the same twice.
    pub(crate) fn key(&self) -> Option<String> {
        match self {
            Self::Stdio(c) => Some(format!("stdio:{} {}", c.program, c.args.join(" "))),
            Self::Tcp(a) => Some(format!("tcp:{a}")),
            Self::Http { url, .. } => Some(format!("http:{url}")),
            Self::Sse { url, .. } => Some(format!("sse:{url}")),
            Self::Stream(..) => None,
        }
    }
}

/// The last bytes a child wrote to its stderr.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stderr(Arc<Mutex<VecDeque<u8>>>);

impl Stderr {
    fn push(&self, line: &[u8]) {
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.extend(line);
        while kept.len() > STDERR_KEPT {
            kept.pop_front();
        }
    }

    /// What was kept, as text.
    pub(crate) fn text(&self) -> String {
        let kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (a, b) = kept.as_slices();
        let mut v = a.to_vec();
        v.extend_from_slice(b);
        String::from_utf8_lossy(&v).trim_end().to_owned()
    }
}

/// An open line transport: what the server writes, where to write, and what keeps the
/// child (killed when this is dropped).
pub(crate) struct Opened {
    pub(crate) read: Box<dyn AsyncRead + Send + Unpin>,
    pub(crate) write: Box<dyn AsyncWrite + Send + Unpin>,
    pub(crate) child: Option<Process>,
    pub(crate) stderr: Stderr,
    /// Ends when the child's stderr does.
    pub(crate) stderr_done: Option<tokio::task::JoinHandle<()>>,
}

/// A server's process, the leader of a process group of its own: when it is dropped, what
/// is left of the group is killed (the process itself, and whatever it started).
pub(crate) struct Process {
    pub(crate) child: tokio::process::Child,
    /// The group's id (the process's own pid), while it may have members.
    group: Option<u32>,
}

impl Process {
    fn new(child: tokio::process::Child) -> Self {
        let group = child.id();
        Self { child, group }
    }

    /// Sends SIGTERM to the group (the process and whatever it started).
    pub(crate) fn terminate(&self) {
        #[cfg(unix)]
        self.signal(rustix::process::Signal::TERM);
    }

    /// Sends `sig` to the group. An empty group (every member exited) is ESRCH: nothing to
    /// do.
    #[cfg(unix)]
    fn signal(&self, sig: rustix::process::Signal) {
        if let Some(pid) = self
            .group
            .and_then(|p| i32::try_from(p).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, sig);
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        #[cfg(unix)]
        self.signal(rustix::process::Signal::KILL);
    }
}

/// Opens a transport.
pub(crate) async fn open(t: Transport) -> Result<Opened, Error> {
    match t {
        Transport::Http { url, .. } | Transport::Sse { url, .. } => Err(Error::Config(format!(
            "{url}: an HTTP endpoint is no line transport"
        ))),
        Transport::Stream(read, write) => Ok(Opened {
            read,
            write,
            child: None,
            stderr: Stderr::default(),
            stderr_done: None,
        }),
        Transport::Tcp(addr) => {
            let s = tokio::net::TcpStream::connect(&addr)
                .await
                .map_err(|e| Error::Transport(format!("cannot connect to {addr}: {e}")))?;
            let _ = s.set_nodelay(true);
            let (r, w) = s.into_split();
            Ok(Opened {
                read: Box::new(r),
                write: Box::new(w),
                child: None,
                stderr: Stderr::default(),
                stderr_done: None,
            })
        }
        Transport::Stdio(c) => {
            let mut cmd = tokio::process::Command::new(&c.program);
            cmd.args(&c.args)
                .envs(c.env.iter().map(|(k, v)| (k, v)))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .kill_on_drop(true);
            // NB. In a group of its own, so that the whole group can be stopped: servers are
            // often started through a wrapper (`npx`, `uv run`, `sh -c`) whose own child is
            // the server, which killing the wrapper alone would leave running.
            #[cfg(unix)]
            cmd.process_group(0);
            if let Some(d) = &c.cwd {
                cmd.current_dir(d);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| Error::Transport(format!("cannot start {}: {e}", c.program)))?;
            let (Some(stdin), Some(stdout), Some(err)) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take())
            else {
                return Err(Error::Transport("the child's pipes are missing".into()));
            };
            let stderr = Stderr::default();
            let kept = stderr.clone();
            let done = tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(err);
                let mut line = Vec::new();
                while lines
                    .read_until(b'\n', &mut line)
                    .await
                    .is_ok_and(|n| n > 0)
                {
                    tracing::debug!(target: "janus_client::stderr", "{}", String::from_utf8_lossy(&line).trim_end());
                    kept.push(&line);
                    line.clear();
                }
            });
            Ok(Opened {
                read: Box::new(stdout),
                write: Box::new(stdin),
                child: Some(Process::new(child)),
                stderr,
                stderr_done: Some(done),
            })
        }
    }
}

/// Writes what comes on `lines` to `w`, several lines in one write when they queue up; ends
/// when every sender is gone (the client closed) or a write fails.
pub(crate) async fn writer(
    mut w: Box<dyn AsyncWrite + Send + Unpin>,
    mut lines: mpsc::UnboundedReceiver<BytesMut>,
) {
    let mut buf = BytesMut::new();
    while let Some(first) = lines.recv().await {
        // NB. An empty line is the client's goodbye.
        if first.is_empty() {
            break;
        }
        if lines.is_empty() {
            if w.write_all(&first).await.is_err() {
                break;
            }
        } else {
            buf.clear();
            buf.extend_from_slice(&first);
            let mut bye = false;
            while let Ok(more) = lines.try_recv() {
                bye = more.is_empty();
                buf.extend_from_slice(&more);
                if bye || buf.len() > 1 << 20 {
                    break;
                }
            }
            if w.write_all(&buf).await.is_err() || bye {
                break;
            }
        }
        if w.flush().await.is_err() {
            break;
        }
    }
    // NB. Closing the server's input is how a stdio client says goodbye.
    let _ = w.flush().await;
    let _ = w.shutdown().await;
}

/// How many lines the reader hands over before it lets other tasks run.
///
/// NB. The callers woken by a buffer of answers send their next requests; were the whole
/// buffer dispatched first, the writer would run only after all of them, and the server
/// would sit idle meanwhile. Yielding every few lines lets the writer send those requests
/// while the rest of the buffer is read, so that client and server work at the same time
/// (in `janus bench`, about 1.5x the pipelined calls per second of dispatching all at once).
const DISPATCH_BATCH: usize = 32;

/// Reads `r` into frames, each handed to `line`; a line over `max_frame` bytes is dropped,
/// and the start of it handed to `oversize` (to tell whose answer it was); returns why the
/// input ended.
pub(crate) async fn reader(
    mut r: Box<dyn AsyncRead + Send + Unpin>,
    max_frame: usize,
    mut line: impl FnMut(Bytes),
    mut oversize: impl FnMut(&[u8]),
) -> String {
    let mut codec = janus_codec::FrameCodec::new();
    codec.max_frame_len(max_frame);
    let mut buf = BytesMut::with_capacity(64 << 10);
    loop {
        let mut n = 0;
        loop {
            // NB. Only a buffer past the cap can hold a line over it, whose start is the
            // buffer's: kept (a few hundred bytes) before the codec drops it.
            let head = (buf.len() > max_frame).then(|| buf[..buf.len().min(256)].to_vec());
            let Some(f) = codec.decode_frame(&mut buf) else {
                break;
            };
            match f {
                janus_codec::Frame::Line(l) => line(l),
                janus_codec::Frame::Oversize => {
                    tracing::warn!("the server sent a line over {max_frame} bytes: dropped");
                    oversize(head.as_deref().unwrap_or_default());
                }
            }
            n += 1;
            if n == DISPATCH_BATCH {
                n = 0;
                tokio::task::yield_now().await;
            }
        }
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(64 << 10);
        }
        match r.read_buf(&mut buf).await {
            Ok(0) => {
                while let Some(f) = codec.decode_frame_eof(&mut buf) {
                    if let janus_codec::Frame::Line(l) = f {
                        line(l);
                    }
                }
                return "the server closed its output".into();
            }
            Ok(_) => {}
            Err(e) => return format!("reading from the server failed: {e}"),
        }
    }
}
