//! A load driver for MCP servers on streamable HTTP, the HTTP floor, and the accept loop the
//! HTTP peers share.
//!
//! The driver opens `n` keep-alive HTTP/1.1 connections (hyper's client, `TCP_NODELAY`), each
//! with one request in flight at a time (closed loop: HTTP/1.1 has no pipelining in practice),
//! all on a tokio multi-thread runtime in the benchmark's process. Connections, and for the
//! legacy era their sessions (`initialize`, `notifications/initialized`), are set up before
//! the clock starts; sessions are deleted after it stops. Every answer is checked: a `200`,
//! its id, no error, and the echoed text (in a JSON body or in an SSE event alike).

use crate::load::{Era, RequestTemplate};
use bytes::Bytes;
use hdrhistogram::Histogram;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use std::convert::Infallible;
use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The endpoint every HTTP target serves.
pub const PATH: &str = "/mcp";

fn bad(msg: String) -> io::Error {
    io::Error::other(msg)
}

/// Serves `service` on `listener` with the endpoint's own hyper loop (`serve_http`: HTTP/1.1
/// and HTTP/2, `TCP_NODELAY` on each connection) until the process is killed. Logs
/// `listening addr=<bound>` on stderr first.
///
/// # Errors
///
/// An accept error that is not about one connection.
pub async fn serve_hyper<S, B>(
    listener: tokio::net::TcpListener,
    bound: SocketAddr,
    service: S,
) -> io::Result<()>
where
    S: tower_service::Service<
            Request<hyper::body::Incoming>,
            Response = Response<B>,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    eprintln!("listening addr={bound}");
    let never = janus_server_core::serve::Shutdown::new();
    janus_server_core::http::serve_http(service, listener, &never, Duration::ZERO).await
}

/// The answer of the floor to one request body: its id and its text, read naively, in a
/// fixed result. Nothing answers an MCP echo over HTTP for less.
fn floor_answer(body: &[u8]) -> Bytes {
    let span = |key: &[u8], ends: &[u8]| {
        memchr::memmem::find(body, key).map(|at| {
            let rest = &body[at + key.len()..];
            let end = rest
                .iter()
                .position(|c| ends.contains(c))
                .unwrap_or(rest.len());
            &rest[..end]
        })
    };
    let id = span(br#""id":"#, b",}").unwrap_or(b"null");
    let text = span(br#""text":""#, b"\"").unwrap_or(b"");
    let mut out = Vec::with_capacity(text.len() + 96);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id);
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":""#);
    out.extend_from_slice(text);
    out.extend_from_slice(br#""}]}}"#);
    Bytes::from(out)
}

/// The HTTP floor: a bare hyper server on `addr` that answers every POST with the echo
/// answer (the id and the text, read naively) and a notification with `202`, on tokio's
/// multi-thread runtime, until killed.
///
/// # Errors
///
/// When the runtime cannot start or the address cannot be bound.
pub fn floor(addr: SocketAddr) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        let service = tower_service_fn(|req: Request<hyper::body::Incoming>| async move {
            let body = req
                .into_body()
                .collect()
                .await
                .map(http_body_util::Collected::to_bytes)
                .unwrap_or_default();
            let mut r = if memchr::memmem::find(&body, br#""id":"#).is_some() {
                let mut r = Response::new(Full::new(floor_answer(&body)));
                r.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    http::HeaderValue::from_static("application/json"),
                );
                r
            } else {
                Response::new(Full::new(Bytes::new()))
            };
            if r.headers().is_empty() {
                *r.status_mut() = StatusCode::ACCEPTED;
            }
            Ok::<_, Infallible>(r)
        });
        serve_hyper(listener, bound, service).await
    })
}

/// A `tower::Service` from an async function (what `tower::service_fn` does, without tower).
#[derive(Clone)]
struct ServiceFn<F>(F);

fn tower_service_fn<F>(f: F) -> ServiceFn<F> {
    ServiceFn(f)
}

impl<F, Fut, Req, Res> tower_service::Service<Req> for ServiceFn<F>
where
    F: FnMut(Req) -> Fut,
    Fut: Future<Output = Result<Res, Infallible>>,
{
    type Response = Res;
    type Error = Infallible;
    type Future = Fut;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Req) -> Fut {
        (self.0)(req)
    }
}

/// An HTTP server under test: a command that serves `/mcp` on a loopback port it logs.
#[derive(Debug, Clone)]
pub struct HttpTarget {
    /// The name in tables.
    pub name: String,
    /// The program.
    pub program: std::path::PathBuf,
    /// Its arguments (it must bind `127.0.0.1:0` and log `addr=<bound>` on stderr).
    pub args: Vec<String>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// The eras it is measured in.
    pub eras: Vec<Era>,
}

/// A started HTTP target, killed (by its pid) when dropped.
pub struct Running {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Running {
    /// Starts `target` and waits for the address it logs.
    ///
    /// # Errors
    ///
    /// When it cannot be started or logs no address within its first 50 lines.
    pub fn start(target: &HttpTarget) -> io::Result<Self> {
        let mut child = Command::new(&target.program)
            .args(&target.args)
            .envs(target.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let mut err = BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut addr = None;
        for _ in 0..50 {
            let mut l = String::new();
            if err.read_line(&mut l)? == 0 {
                break;
            }
            // NB. `janus serve --metrics` logs its metrics address too.
            if let Some(a) = l
                .split("addr=")
                .nth(1)
                .filter(|_| !l.contains("metrics listening"))
            {
                addr = a.split_whitespace().next().and_then(|a| a.parse().ok());
                break;
            }
        }
        // The rest of its log is drained, so that it never blocks on a full pipe.
        std::thread::spawn(move || io::copy(&mut err, &mut io::sink()));
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(bad(format!("{} logged no address", target.name)));
        };
        Ok(Self { child, addr })
    }

    /// Its process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for it to exit by itself, for at most `limit`.
    ///
    /// # Errors
    ///
    /// When it is still running after `limit` (it is killed then).
    pub fn wait_exit(&mut self, limit: Duration) -> io::Result<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(s) = self.child.try_wait()? {
                return Ok(s);
            }
            if Instant::now() >= deadline {
                return Err(bad(format!("still running after {} s", limit.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The result of one HTTP measurement.
#[derive(Debug, Clone)]
pub struct HttpRun {
    /// Requests answered.
    pub requests: u64,
    /// Wall time from the start signal to the last answer.
    pub elapsed: Duration,
    /// Latency of every request, in nanoseconds.
    pub latency: Histogram<u64>,
}

impl HttpRun {
    /// Requests per second.
    #[must_use]
    pub fn per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

struct Conn {
    send: Sender,
    host: String,
    session: Option<String>,
}

const ACCEPT: &str = "application/json, text/event-stream";
const LEGACY: &str = "2025-11-25";

impl Conn {
    async fn open(addr: SocketAddr, era: Era) -> io::Result<Self> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (send, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(io::Error::other)?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut c = Self {
            send,
            host: addr.to_string(),
            session: None,
        };
        if era == Era::Legacy {
            let init = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"janus-bench","version":"1.0.0"}}}}}}"#
            );
            let (status, headers, body) = c.post(init.into_bytes(), None).await?;
            if status != StatusCode::OK {
                return Err(bad(format!(
                    "initialize: {status}: {}",
                    String::from_utf8_lossy(&body)
                )));
            }
            let id = headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| bad("initialize: no Mcp-Session-Id".into()))?;
            c.session = Some(id.to_owned());
            let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec();
            let (status, _, _) = c.post(note, None).await?;
            if !status.is_success() {
                return Err(bad(format!("notifications/initialized: {status}")));
            }
        }
        Ok(c)
    }

    async fn post(
        &mut self,
        body: Vec<u8>,
        modern_call: Option<&str>,
    ) -> io::Result<(StatusCode, http::HeaderMap, Bytes)> {
        let mut b = Request::post(PATH)
            .header(http::header::HOST, &self.host)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, ACCEPT);
        if let Some(tool) = modern_call {
            b = b
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", tool);
        }
        if let Some(s) = &self.session {
            b = b
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", LEGACY);
        }
        let req = b
            .body(Full::new(Bytes::from(body)))
            .map_err(io::Error::other)?;
        self.send.ready().await.map_err(io::Error::other)?;
        let resp = self
            .send
            .send_request(req)
            .await
            .map_err(io::Error::other)?;
        let (parts, body) = resp.into_parts();
        let body = body.collect().await.map_err(io::Error::other)?.to_bytes();
        Ok((parts.status, parts.headers, body))
    }

    async fn close(mut self) {
        if let Some(s) = self.session.take() {
            let req = Request::delete(PATH)
                .header(http::header::HOST, &self.host)
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", LEGACY)
                .body(Full::new(Bytes::new()));
            if let (Ok(req), Ok(())) = (req, self.send.ready().await) {
                let _ = self.send.send_request(req).await;
            }
        }
    }
}

/// Checks one echo answer (a JSON body, or SSE events that hold it).
fn check(body: &[u8], id: u64, text: &[u8]) -> io::Result<()> {
    let lossy = || String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
    let at = memchr::memmem::find(body, br#""id":"#)
        .ok_or_else(|| bad(format!("no id in {}", lossy())))?;
    let digits: &[u8] = &body[at + 5..];
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    if std::str::from_utf8(&digits[..n])
        .ok()
        .and_then(|d| d.parse().ok())
        != Some(id)
    {
        return Err(bad(format!("id {id}: another id in {}", lossy())));
    }
    if memchr::memmem::find(body, br#""error""#).is_some() {
        return Err(bad(format!("an error answer: {}", lossy())));
    }
    let t = memchr::memmem::find(body, br#""text":""#).map(|at| at + 8);
    if !t.is_some_and(|t| body[t..].starts_with(text) && body.get(t + text.len()) == Some(&b'"')) {
        return Err(bad(format!("id {id}: the echoed text is wrong")));
    }
    Ok(())
}

/// Nanoseconds from 1 ns to 100 s, 3 significant figures.
fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("valid bounds")
}

/// What one measurement sends.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// Keep-alive connections, one request in flight on each.
    pub connections: usize,
    /// How long the clock runs.
    pub time: Duration,
    /// The most requests over all connections.
    pub max_requests: u64,
}

/// Echoes `text` through the server at `addr` in `era` with `load`.
///
/// # Errors
///
/// A connection or session that cannot be opened, or an answer that is not the right echo.
pub fn measure(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    era: Era,
    load: Load,
    text: &str,
) -> io::Result<HttpRun> {
    let template = Arc::new(RequestTemplate::new(era, text));
    let text: Arc<[u8]> = Arc::from(text.as_bytes());
    let n = load.connections.max(1);
    rt.block_on(async move {
        let ready = Arc::new(tokio::sync::Barrier::new(n + 1));
        let go = Arc::new(tokio::sync::Barrier::new(n + 1));
        let deadline = Arc::new(OnceLock::<Instant>::new());
        let budget = Arc::new(AtomicU64::new(load.max_requests));
        let mut tasks = Vec::with_capacity(n);
        for _ in 0..n {
            let (ready, go, deadline, budget) = (
                Arc::clone(&ready),
                Arc::clone(&go),
                Arc::clone(&deadline),
                Arc::clone(&budget),
            );
            let (template, text) = (Arc::clone(&template), Arc::clone(&text));
            tasks.push(tokio::spawn(async move {
                let opened = Conn::open(addr, era).await;
                ready.wait().await;
                go.wait().await;
                let mut c = opened?;
                let deadline = *deadline.get().expect("set before the start");
                let mut h = latency_histogram();
                let modern = (era == Era::Modern).then_some("echo");
                let mut id = 0u64;
                let mut body = Vec::with_capacity(template.size_hint());
                while Instant::now() < deadline
                    && budget
                        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1))
                        .is_ok()
                {
                    id += 1;
                    body.clear();
                    template.write(&mut body, id);
                    let started = Instant::now();
                    let (status, _, answer) = c.post(std::mem::take(&mut body), modern).await?;
                    let took = started.elapsed();
                    if status != StatusCode::OK {
                        return Err(bad(format!(
                            "status {status}: {}",
                            String::from_utf8_lossy(&answer[..answer.len().min(300)])
                        )));
                    }
                    check(&answer, id, &text)?;
                    h.saturating_record(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX));
                    body = Vec::with_capacity(template.size_hint());
                }
                let ended = Instant::now();
                c.close().await;
                Ok::<_, io::Error>((id, h, ended))
            }));
        }
        ready.wait().await;
        let start = Instant::now();
        deadline
            .set(start + load.time)
            .expect("the deadline is set once");
        go.wait().await;
        let mut requests = 0;
        let mut latency = latency_histogram();
        let mut last = start;
        for t in tasks {
            let (count, h, ended) = t.await.map_err(io::Error::other)??;
            requests += count;
            latency.add(&h).map_err(io::Error::other)?;
            last = last.max(ended);
        }
        Ok(HttpRun {
            requests,
            elapsed: last - start,
            latency,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_answers_the_id_and_the_text() {
        let req = crate::load::echo_request(Era::Modern, 42, "hello");
        let answer = floor_answer(&req);
        let v: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(v["id"], 42);
        assert_eq!(v["result"]["content"][0]["text"], "hello");
        assert!(check(&answer, 42, b"hello").is_ok());
    }

    #[test]
    fn answers_are_checked() {
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"abc"}]}}"#;
        assert!(check(ok, 7, b"abc").is_ok());
        assert!(check(ok, 8, b"abc").is_err());
        assert!(check(ok, 7, b"ab").is_err());
        assert!(check(ok, 7, b"abd").is_err());
        let sse = b"id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"abc\"}]}}\n\n";
        assert!(check(sse, 7, b"abc").is_ok());
        let err = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}"#;
        assert!(check(err, 7, b"abc").is_err());
    }
}
