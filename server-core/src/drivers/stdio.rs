//! Stdin and stdout as non-blocking, epoll-driven streams.
//!
//! tokio's own `stdin`/`stdout` do every read and write on a blocking thread, a hop each way
//! per chunk. When both are pipes or sockets (how an MCP host starts a server), Janus sets
//! them non-blocking and drives them through `AsyncFd` instead; the original flags come back
//! when the streams are dropped. Anything else (a terminal, a file) gets tokio's streams.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A pipe or socket end, non-blocking while this value lives.
pub(crate) struct Pipe {
    fd: AsyncFd<OwnedFd>,
    /// The file status flags before, restored on drop.
    flags: rustix::fs::OFlags,
    /// What a read lands in first (made at the first read): zeroed once. A read straight
    /// into the caller's buffer must zero its spare room first, as this crate reads no
    /// uninitialised memory, and the room is the driver's whole read chunk (64 KiB) while a
    /// read returns what the pipe holds, often a few lines: the copy out of here costs what
    /// was read, the zeroing what might have been.
    scratch: Vec<u8>,
}

/// The most one read takes: a pipe's default capacity.
const SCRATCH: usize = 64 * 1024;

impl Pipe {
    /// Wraps a duplicate of `fd` when it is a pipe or a socket; `None` otherwise.
    pub(crate) fn new(fd: impl AsFd) -> Option<Self> {
        let owned = fd.as_fd().try_clone_to_owned().ok()?;
        let kind = rustix::fs::FileType::from_raw_mode(rustix::fs::fstat(&owned).ok()?.st_mode);
        if !matches!(
            kind,
            rustix::fs::FileType::Fifo | rustix::fs::FileType::Socket
        ) {
            return None;
        }
        let flags = rustix::fs::fcntl_getfl(&owned).ok()?;
        rustix::fs::fcntl_setfl(&owned, flags | rustix::fs::OFlags::NONBLOCK).ok()?;
        // NB. `AsyncFd::new` is deprecated because a wrapped type could close or replace its
        // descriptor behind tokio's back; its replacement, `register`, is an `unsafe fn` for
        // that promise. An `OwnedFd` that nothing else holds keeps its descriptor for life,
        // which is the promise, and this crate forbids unsafe code.
        #[allow(deprecated)]
        let registered = AsyncFd::new(owned);
        match registered {
            Ok(fd) => Some(Self {
                fd,
                flags,
                scratch: Vec::new(),
            }),
            Err(e) => {
                tracing::debug!(error = %e, "stdio cannot be polled; using blocking stdio");
                None
            }
        }
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        let _ = rustix::fs::fcntl_setfl(self.fd.get_ref(), self.flags);
    }
}

impl AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        if me.scratch.is_empty() {
            me.scratch = vec![0; SCRATCH];
        }
        let room = buf.remaining().min(SCRATCH);
        loop {
            let mut guard = ready!(me.fd.poll_read_ready(cx))?;
            let scratch = &mut me.scratch[..room];
            match guard
                .try_io(|fd| rustix::io::read(fd.get_ref(), &mut *scratch).map_err(io::Error::from))
            {
                Ok(Ok(n)) => {
                    // NB. A short read drained the pipe (or socket): its readiness is cleared
                    // now, so the next read waits for the poller instead of making a read
                    // that would block (one system call a request less when they come one
                    // at a time). Data written meanwhile is a new edge, which the clear keeps.
                    if n > 0 && n < room {
                        guard.clear_ready();
                    }
                    buf.put_slice(&me.scratch[..n]);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => {}
            }
        }
    }
}

impl AsyncWrite for Pipe {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            match guard.try_io(|fd| rustix::io::write(fd.get_ref(), data).map_err(io::Error::from))
            {
                Ok(result) => return Poll::Ready(result),
                Err(_would_block) => {}
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
