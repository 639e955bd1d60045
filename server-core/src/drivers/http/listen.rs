//! The listener: each accepted connection is served as HTTP/1.1 (keep-alive) or, when it
//! opens with the HTTP/2 preface, as HTTP/2 without TLS, until a shutdown drains it.
//!
//! NB. The protocol is chosen by peeking at the connection's first bytes, then hyper's own
//! HTTP/1.1 or HTTP/2 connection serves it. hyper-util's `auto` builder does the same, but
//! it keeps a connection's version-reading state and a copy of both builders in every
//! connection: 21.3 KiB per idle keep-alive connection against 15.4 KiB here (4,000 held).

use crate::drivers::serve::Shutdown;
use http_body::Body;
use hyper::{Request, Response};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

/// What an HTTP/2 connection without TLS opens with (RFC 9113 §3.4).
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Serves the endpoint (an [`super::McpService`], alone or behind layers such as
/// [`super::AuthLayer`]) on `listener` until `shutdown`: then it accepts no more, and the
/// connections finish their requests (for at most `drain`).
///
/// # Errors
///
/// An accept error that is not about one connection.
pub async fn serve_http<S, RB>(
    service: S,
    listener: tokio::net::TcpListener,
    shutdown: &Shutdown,
    drain: Duration,
) -> io::Result<()>
where
    S: tower_service::Service<
            Request<hyper::body::Incoming>,
            Response = Response<RB>,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    RB: Body + Send + 'static,
    RB::Data: Send,
    RB::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let h1 = hyper::server::conn::http1::Builder::new();
    let h2 = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
    loop {
        let (stream, peer): (tokio::net::TcpStream, SocketAddr) = tokio::select! {
            a = listener.accept() => match a {
                Ok(x) => x,
                Err(e) if matches!(e.kind(), io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock) => continue,
                Err(e) => return Err(e),
            },
            () = shutdown.triggered() => break,
        };
        let _ = stream.set_nodelay(true);
        let svc = hyper_util::service::TowerToHyperService::new(service.clone());
        let watcher = graceful.watcher();
        let (h1, h2, stop) = (h1.clone(), h2.clone(), shutdown.clone());
        tokio::spawn(async move {
            let is_h2 = tokio::select! {
                h2 = opens_with_h2_preface(&stream) => match h2 {
                    Ok(h2) => h2,
                    Err(_) => return,
                },
                // NB. A connection that sent nothing yet is not waited for by the drain.
                () = stop.triggered() => return,
            };
            let io = hyper_util::rt::TokioIo::new(stream);
            let ended = if is_h2 {
                watcher.watch(h2.serve_connection(io, svc)).await
            } else {
                watcher.watch(h1.serve_connection(io, svc)).await
            };
            if let Err(e) = ended {
                tracing::debug!(%peer, error = %e, "HTTP connection ended with an error");
            }
        });
    }
    let _ = tokio::time::timeout(drain, graceful.shutdown()).await;
    Ok(())
}

/// The longest wait for a connection whose first bytes are a part of the HTTP/2 preface to
/// tell: then it is served as HTTP/1.1 (which refuses what is not a request).
const PREFACE_WAIT: Duration = Duration::from_secs(10);

/// Whether the connection's first bytes are the HTTP/2 preface: read without taking them
/// (peeked), as soon as they tell; false for a connection closed before it sent anything.
async fn opens_with_h2_preface(stream: &tokio::net::TcpStream) -> io::Result<bool> {
    let mut buf = [0u8; H2_PREFACE.len()];
    let started = tokio::time::Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let n = stream.peek(&mut buf).await?;
        if n == 0 || buf[..n] != H2_PREFACE[..n] {
            return Ok(false);
        }
        if n == H2_PREFACE.len() {
            return Ok(true);
        }
        // NB. A part of the preface so far: peeking again at once would find the same bytes
        // (readiness does not wait for more), so the pause grows, and a client that stops
        // there costs a wake-up every 100 ms at most, for a bounded time.
        if started.elapsed() >= PREFACE_WAIT {
            return Ok(false);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}
