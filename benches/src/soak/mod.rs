//! `janus-bench soak`: load and faults on one `janus serve` process, bounded in count and
//! time, on loopback, every process stopped by its pid. Each part checks what it must (no
//! answer lost or duplicated, memory bounded, the others served) and prints its figures;
//! `--full` runs the sizes of the scale-out issue, the default a small size for CI.

use crate::http_load::{self, HttpTarget, Load, Running};
use crate::load::{self, Budget, Era, Target};
use hdrhistogram::Histogram;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The sizes of a soak run.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    /// Requests over keep-alive HTTP connections (half each era).
    pub http_requests: u64,
    /// Keep-alive HTTP connections (half each era).
    pub http_connections: usize,
    /// Requests pipelined over stdio (half each era).
    pub stdio_requests: u64,
    /// Idle connections held at once (TCP, then HTTP).
    pub idle: usize,
    /// Long calls then cancelled, and the connections they are spread over.
    pub long_calls: usize,
    /// The connections of the cancellation storm.
    pub storm_connections: usize,
}

impl Size {
    /// The small size CI runs (about a minute).
    pub const SMALL: Self = Self {
        http_requests: 40_000,
        http_connections: 32,
        stdio_requests: 100_000,
        idle: 2_000,
        long_calls: 2_000,
        storm_connections: 8,
    };

    /// The sizes of the scale-out issue.
    pub const FULL: Self = Self {
        http_requests: 1_000_000,
        http_connections: 256,
        stdio_requests: 1_000_000,
        idle: 10_000,
        long_calls: 10_000,
        storm_connections: 40,
    };
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// A process's resident set now, in KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Samples a process's RSS every 100 ms until stopped.
struct Sampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<(Duration, u64)>>,
}

impl Sampler {
    fn start(pid: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let mut samples = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                samples.push((start.elapsed(), rss_kib(pid)));
                std::thread::sleep(Duration::from_millis(100));
            }
            samples
        });
        Self { stop, thread }
    }

    fn finish(self) -> Vec<(Duration, u64)> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// RSS after warm-up (the first fifth of the run) and at most after it; flat when the most
/// is within a tenth (or 8 MiB) of the warm figure.
fn flat(samples: &[(Duration, u64)]) -> (u64, u64, u64, bool) {
    let total = samples.last().map_or(Duration::ZERO, |s| s.0);
    let after: Vec<u64> = samples
        .iter()
        .filter(|s| s.0 >= total / 5)
        .map(|s| s.1)
        .collect();
    let warm = after.first().copied().unwrap_or(0);
    let end = after.last().copied().unwrap_or(0);
    let most = after.iter().copied().max().unwrap_or(0);
    (warm, end, most, most <= warm + (warm / 10).max(8 * 1024))
}

fn janus_http(janus: &Path, extra: &[&str]) -> io::Result<Running> {
    let mut args = vec!["serve".to_owned(), "--http".into(), "127.0.0.1:0".into()];
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    Running::start(&HttpTarget {
        name: "janus".into(),
        program: janus.to_path_buf(),
        args,
        env: vec![("JANUS_LOG".into(), "info".into())],
        eras: Vec::new(),
    })
}

fn janus_tcp(janus: &Path) -> io::Result<Running> {
    Running::start(&HttpTarget {
        name: "janus".into(),
        program: janus.to_path_buf(),
        args: vec!["serve".into(), "--listen".into(), "127.0.0.1:0".into()],
        env: vec![("JANUS_LOG".into(), "info".into())],
        eras: Vec::new(),
    })
}

/// 1. Requests over keep-alive HTTP connections, both eras at once: each answer checked
///    against its request (none lost, none duplicated, the right echo), RSS flat.
fn http_mixed(janus: &Path, size: Size) -> io::Result<String> {
    let server = janus_http(janus, &[])?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let sampler = Sampler::start(server.pid());
    let half = size.http_requests / 2;
    let load = Load {
        connections: (size.http_connections / 2).max(1),
        time: Duration::from_secs(1800),
        max_requests: half,
    };
    let started = Instant::now();
    let (modern, legacy) = std::thread::scope(|s| {
        let m = s.spawn(|| http_load::measure(&rt, server.addr, Era::Modern, load, "soak"));
        let l = s.spawn(|| http_load::measure(&rt, server.addr, Era::Legacy, load, "soak"));
        (m.join(), l.join())
    });
    let elapsed = started.elapsed();
    let samples = sampler.finish();
    let modern = modern.map_err(|_| bad("the modern load panicked"))??;
    let legacy = legacy.map_err(|_| bad("the legacy load panicked"))??;
    let answered = modern.requests + legacy.requests;
    if answered != 2 * half {
        return Err(bad(format!("{answered} of {} answered", 2 * half)));
    }
    let (warm, end, most, is_flat) = flat(&samples);
    if !is_flat {
        return Err(bad(format!(
            "RSS grew after warm-up: {:.1} MiB then up to {:.1} MiB",
            mib(warm),
            mib(most)
        )));
    }
    let p99 = |h: &Histogram<u64>| h.value_at_quantile(0.99) as f64 / 1000.0;
    Ok(format!(
        "HTTP, {} keep-alive connections, both eras: {answered} requests answered, 0 lost, 0 duplicated, {:.0} req/s; p99 {:.0} us (2026-07-28) and {:.0} us (legacy); RSS {:.1} MiB after warm-up, {:.1} MiB at the end (at most {:.1})",
        load.connections * 2,
        answered as f64 / elapsed.as_secs_f64(),
        p99(&modern.latency),
        p99(&legacy.latency),
        mib(warm),
        mib(end),
        mib(most)
    ))
}

/// 2. Requests pipelined over stdio, each era: every id answered once.
fn stdio_pipelined(janus: &Path, size: Size) -> io::Result<String> {
    let target = Target {
        name: "janus".into(),
        program: janus.to_path_buf(),
        args: vec!["serve".into()],
        echoes: true,
        light: false,
        surface: false,
    };
    let mut parts = Vec::new();
    for era in [Era::Modern, Era::Legacy] {
        let budget = Budget {
            time: Duration::from_secs(1800),
            max_requests: size.stdio_requests / 2,
        };
        let run = load::pipelined(&target, era, budget, 256, "soak")?;
        if run.requests != budget.max_requests {
            return Err(bad(format!(
                "{}: {} of {} answered",
                era.name(),
                run.requests,
                budget.max_requests
            )));
        }
        parts.push(format!(
            "{}: {} answered at {:.0} req/s, peak RSS {:.1} MiB",
            era.name(),
            run.requests,
            run.per_sec(),
            run.resources.map_or(0.0, |r| mib(r.peak_rss_kib))
        ));
    }
    Ok(format!(
        "stdio, pipelined (256 in flight), 0 lost, 0 duplicated: {}",
        parts.join("; ")
    ))
}

/// A small request every era serves at once (an echo call: 2026-07-28 has no `ping`).
const PING: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"p\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

/// A blocking keep-alive HTTP/1.1 client of `/mcp`, one request at a time.
struct HttpConn {
    // NB. One descriptor a connection: the writes go through the reader's stream.
    r: BufReader<TcpStream>,
}

impl HttpConn {
    fn open(addr: SocketAddr) -> io::Result<Self> {
        let s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Self {
            r: BufReader::new(s),
        })
    }

    /// POSTs a 2026-07-28 request; its status and body.
    fn post(
        &mut self,
        method: &str,
        name: Option<&str>,
        body: &[u8],
    ) -> io::Result<(u16, Vec<u8>)> {
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(n) = name {
            headers.push(("mcp-name", n));
        }
        self.post_with(&headers, body)
            .map(|(status, _, body)| (status, body))
    }

    /// POSTs `body` with `headers`; its status, its `Mcp-Session-Id` and its body.
    fn post_with(
        &mut self,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<(u16, Option<String>, Vec<u8>)> {
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            body.len()
        );
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let mut req = head.into_bytes();
        req.extend_from_slice(body);
        self.r.get_mut().write_all(&req)?;
        let mut status = 0;
        let mut len = None;
        let mut chunked = false;
        let mut session = None;
        loop {
            let mut line = String::new();
            if self.r.read_line(&mut line)? == 0 {
                return Err(bad("the connection closed"));
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(rest) = line.strip_prefix("HTTP/1.1 ") {
                status = rest.get(..3).and_then(|s| s.parse().ok()).unwrap_or(0);
            } else if let Some((n, v)) = line.split_once(':') {
                if n.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().ok();
                } else if n.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = v.trim().eq_ignore_ascii_case("chunked");
                } else if n.eq_ignore_ascii_case("mcp-session-id") {
                    session = Some(v.trim().to_owned());
                }
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                self.r.read_line(&mut size)?;
                let n = usize::from_str_radix(size.trim(), 16).map_err(|_| bad("bad chunk"))?;
                let mut chunk = vec![0; n + 2];
                self.r.read_exact(&mut chunk)?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else {
            body.resize(len.unwrap_or(0), 0);
            self.r.read_exact(&mut body)?;
        }
        Ok((status, session, body))
    }
}

/// The latency of `n` pings, one after the other, by `ping`.
fn ping_p99(n: usize, mut ping: impl FnMut() -> io::Result<()>) -> io::Result<f64> {
    let mut h =
        Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).map_err(|e| bad(e.to_string()))?;
    for _ in 0..n {
        let t = Instant::now();
        ping()?;
        h.saturating_record(u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }
    Ok(h.value_at_quantile(0.99) as f64 / 1000.0)
}

fn tcp_ping(r: &mut BufReader<TcpStream>) -> io::Result<()> {
    let mut line = Vec::with_capacity(PING.len() + 1);
    line.extend_from_slice(PING);
    line.push(b'\n');
    r.get_mut().write_all(&line)?;
    let mut line = Vec::new();
    if r.read_until(b'\n', &mut line)? == 0 || memchr::memmem::find(&line, b"\"result\"").is_none()
    {
        return Err(bad(format!(
            "no ping answer: {}",
            String::from_utf8_lossy(&line)
        )));
    }
    Ok(())
}

/// 3. Idle connections held on one process (TCP, then HTTP keep-alive): the memory each
///    costs, and the p99 of an active client beside them.
fn idle(janus: &Path, size: Size) -> io::Result<String> {
    let mut parts = Vec::new();
    // TCP
    let server = janus_tcp(janus)?;
    let active = TcpStream::connect(server.addr)?;
    active.set_nodelay(true)?;
    let mut ar = BufReader::new(active);
    let before_p99 = ping_p99(2000, || tcp_ping(&mut ar))?;
    let before = rss_kib(server.pid());
    let mut held = Vec::with_capacity(size.idle);
    for _ in 0..size.idle {
        let s = TcpStream::connect(server.addr)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut r = BufReader::new(s);
        tcp_ping(&mut r)?;
        held.push(r);
    }
    std::thread::sleep(Duration::from_millis(300));
    let after = rss_kib(server.pid());
    let after_p99 = ping_p99(2000, || tcp_ping(&mut ar))?;
    let each = (after.saturating_sub(before)) as f64 / size.idle as f64;
    parts.push(format!(
        "TCP: {:.1} KiB each; an active client's p99 {before_p99:.0} us alone, {after_p99:.0} us beside them",
        each
    ));
    drop(held);
    drop(server);
    if each > 16.0 {
        return Err(bad(format!("an idle TCP connection costs {each:.1} KiB")));
    }
    // HTTP keep-alive
    let server = janus_http(janus, &[])?;
    let mut active = HttpConn::open(server.addr)?;
    let ping = |c: &mut HttpConn| -> io::Result<()> {
        let (status, body) = c.post("tools/call", Some("echo"), PING)?;
        if status != 200 || memchr::memmem::find(&body, b"\"result\"").is_none() {
            return Err(bad(format!("ping: {status}")));
        }
        Ok(())
    };
    let before_p99 = ping_p99(2000, || ping(&mut active))?;
    let before = rss_kib(server.pid());
    let mut held = Vec::with_capacity(size.idle);
    for _ in 0..size.idle {
        let mut c = HttpConn::open(server.addr)?;
        ping(&mut c)?;
        held.push(c);
    }
    std::thread::sleep(Duration::from_millis(300));
    let after = rss_kib(server.pid());
    let after_p99 = ping_p99(2000, || ping(&mut active))?;
    let each_http = (after.saturating_sub(before)) as f64 / size.idle as f64;
    parts.push(format!(
        "HTTP keep-alive: {each_http:.1} KiB each; an active client's p99 {before_p99:.0} us alone, {after_p99:.0} us beside them"
    ));
    drop(held);
    // NB. hyper gives each HTTP/1.1 connection an 8 KiB read buffer and an 8 KiB header
    // buffer, and keeps them while it is idle: the 16 KiB target holds for TCP, not here.
    if each_http > 24.0 {
        return Err(bad(format!(
            "an idle HTTP connection costs {each_http:.1} KiB"
        )));
    }
    Ok(format!(
        "{} idle connections: {}",
        size.idle,
        parts.join("; ")
    ))
}

/// 4. A client that sends and never reads (TCP, then stdio): the server stops reading it,
///    its memory stays bounded, and another client is served meanwhile.
fn slow_reader(janus: &Path) -> io::Result<String> {
    const LIMIT_MIB: f64 = 96.0;
    let line = |id: u64| load::echo_request(Era::Modern, id, &"x".repeat(4000));
    // TCP
    let server = janus_tcp(janus)?;
    let before = rss_kib(server.pid());
    let stuck = TcpStream::connect(server.addr)?;
    stuck.set_write_timeout(Some(Duration::from_secs(2)))?;
    let mut written = 0u64;
    let mut w = &stuck;
    for id in 1.. {
        match w.write_all(&line(id)) {
            Ok(()) => written += 1,
            Err(_) => break,
        }
        if written > 200_000 {
            return Err(bad("the server read 800 MB from a client that never reads"));
        }
    }
    let grown = rss_kib(server.pid()).saturating_sub(before);
    let active = TcpStream::connect(server.addr)?;
    active.set_nodelay(true)?;
    active.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut ar = BufReader::new(active);
    let p99 = ping_p99(200, || tcp_ping(&mut ar))?;
    if mib(grown) > LIMIT_MIB {
        return Err(bad(format!(
            "a stuck TCP reader grew the server by {:.1} MiB",
            mib(grown)
        )));
    }
    let tcp = format!(
        "TCP: reading stopped after {written} requests of 4 KB, the server grew {:.1} MiB, another client's p99 {p99:.0} us",
        mib(grown)
    );
    drop(stuck);
    drop(server);
    // stdio: its output never read
    let mut child: Child = Command::new(janus)
        .args(["serve", "--drain-secs", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = child.id();
    let before = rss_kib(pid);
    let mut stdin = child.stdin.take().expect("piped");
    let count = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&count);
    let writer = std::thread::spawn(move || {
        for id in 1..=200_000u64 {
            if stdin.write_all(&line(id)).is_err() {
                return;
            }
            counter.fetch_add(1, Ordering::Relaxed);
        }
    });
    let mut last = 0;
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = count.load(Ordering::Relaxed);
        if now == last || now >= 200_000 {
            break;
        }
        last = now;
    }
    let written = count.load(Ordering::Relaxed);
    let grown = rss_kib(pid).saturating_sub(before);
    // A SIGTERM ends it within its drain time, though its answers are never read.
    let term = Instant::now();
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    let exited = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if term.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    if !exited.is_some_and(|s| s.success()) {
        return Err(bad(format!(
            "stdio with its output never read: SIGTERM did not end it within its drain time ({exited:?})"
        )));
    }
    if written >= 200_000 || mib(grown) > LIMIT_MIB {
        return Err(bad(format!(
            "stdio with its output never read: {written} requests read, {:.1} MiB grown",
            mib(grown)
        )));
    }
    Ok(format!(
        "a client that never reads: {tcp}; stdio (output never read): reading stopped after {written} requests, the server grew {:.1} MiB, SIGTERM ended it in {:.1} s (exit 0)",
        mib(grown),
        term.elapsed().as_secs_f64()
    ))
}

/// 5. Long calls on many connections, then every one cancelled at once: the connections
///    serve again at once, nothing answers a cancelled call, and the memory comes back.
fn cancel_storm(janus: &Path, size: Size) -> io::Result<String> {
    let server = janus_tcp(janus)?;
    let base = rss_kib(server.pid());
    let per = size.long_calls / size.storm_connections.max(1);
    let mut conns = Vec::new();
    for _ in 0..size.storm_connections {
        let s = TcpStream::connect(server.addr)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut batch = Vec::new();
        for id in 1..=per {
            batch.extend_from_slice(format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"sleep\",\"arguments\":{{\"ms\":600000}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}\n"
            ).as_bytes());
        }
        (&s).write_all(&batch)?;
        conns.push(BufReader::new(s));
    }
    // Every call is in: a ping behind them on each connection is answered.
    for r in &mut conns {
        tcp_ping(r)?;
    }
    let peak = rss_kib(server.pid());
    let started = Instant::now();
    for r in &mut conns {
        let mut batch = Vec::new();
        for id in 1..=per {
            batch.extend_from_slice(format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}\n"
            ).as_bytes());
        }
        r.get_mut().write_all(&batch)?;
    }
    for r in &mut conns {
        tcp_ping(r)?;
    }
    let served = started.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let after = rss_kib(server.pid());
    // Nothing more comes on any connection: a cancelled call is never answered.
    for r in &mut conns {
        r.get_ref()
            .set_read_timeout(Some(Duration::from_millis(50)))?;
        let mut extra = Vec::new();
        if r.read_until(b'\n', &mut extra).is_ok_and(|n| n > 0) {
            return Err(bad(format!(
                "a cancelled call was answered: {}",
                String::from_utf8_lossy(&extra)
            )));
        }
    }
    Ok(format!(
        "{} long calls on {} connections, then all cancelled: served again in {:.0} ms, none answered; RSS {:.1} MiB idle, {:.1} MiB with the calls, {:.1} MiB after",
        per * size.storm_connections,
        size.storm_connections,
        served.as_secs_f64() * 1000.0,
        mib(base),
        mib(peak),
        mib(after)
    ))
}

/// 6. A flood of task-creating calls: past the store's bound each gets a clear error, and the
///    server goes on serving.
fn task_flood(janus: &Path) -> io::Result<String> {
    let mut child = Command::new(janus)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let n = 1500u64;
    let mut batch = Vec::new();
    for id in 1..=n {
        batch.extend_from_slice(format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"sleep\",\"arguments\":{{\"ms\":600000}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{\"extensions\":{{\"io.modelcontextprotocol/tasks\":{{}}}}}}}}}}}}\n"
        ).as_bytes());
    }
    batch.extend_from_slice(PING);
    batch.push(b'\n');
    // NB. Written from a thread: the answers are read meanwhile (a server whose output is
    // not read stops reading).
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&batch);
        stdin
    });
    let (mut made, mut refused) = (0, 0);
    for _ in 0..=n {
        let mut line = Vec::new();
        if out.read_until(b'\n', &mut line)? == 0 {
            return Err(bad("the server closed its output"));
        }
        if memchr::memmem::find(&line, b"\"taskId\"").is_some() {
            made += 1;
        } else if memchr::memmem::find(&line, b"\"error\"").is_some()
            && memchr::memmem::find(&line, b"\"message\"").is_some()
        {
            refused += 1;
        }
    }
    drop(writer.join().map_err(|_| bad("the writer panicked"))?);
    let status = child.wait()?;
    if made + refused != n || refused == 0 || !status.success() {
        return Err(bad(format!(
            "a task flood: {made} made, {refused} refused of {n}, exit {status}"
        )));
    }
    Ok(format!(
        "a flood of {n} task-creating calls: {made} tasks made, {refused} refused with an error, then served and exited 0"
    ))
}

/// 7. SIGTERM under load over HTTP: the requests in flight are answered, then exit 0.
fn sigterm_under_load(janus: &Path) -> io::Result<String> {
    let server = janus_http(janus, &["--drain-secs", "10"])?;
    let addr = server.addr;
    let pid = server.pid();
    let clients: Vec<_> = (0..32)
        .map(|i| {
            std::thread::spawn(move || -> io::Result<()> {
                let mut c = HttpConn::open(addr)?;
                let body = format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"sleep\",\"arguments\":{{\"ms\":1500}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}"
                );
                let (status, body) = c.post("tools/call", Some("sleep"), body.as_bytes())?;
                if status == 200 && memchr::memmem::find(&body, b"slept 1500 ms").is_some() {
                    Ok(())
                } else {
                    Err(bad(format!("{status}: {}", String::from_utf8_lossy(&body))))
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    let mut answered = 0;
    for c in clients {
        c.join().map_err(|_| bad("a client panicked"))??;
        answered += 1;
    }
    let mut server = server;
    let status = server.wait_exit(Duration::from_secs(15))?;
    if !status.success() {
        return Err(bad(format!("exit {status} after SIGTERM")));
    }
    Ok(format!(
        "SIGTERM under load (HTTP, 32 calls in flight): {answered} answered, exit 0 after {:.1} s",
        started.elapsed().as_secs_f64()
    ))
}

/// Task-creating calls for `per` rounds on each of `conns` closed-loop connections spread
/// over `addrs`, in legacy sessions (whose tasks say their `ttl`: 1 s, so the in-memory
/// store's bound is never met); the calls per second.
fn task_rate(addrs: &[SocketAddr], conns: usize, per: u64) -> io::Result<f64> {
    let started = Instant::now();
    let threads: Vec<_> = (0..conns)
        .map(|i| {
            let addr = addrs[i % addrs.len()];
            std::thread::spawn(move || -> io::Result<()> {
                let mut c = HttpConn::open(addr)?;
                let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
                let (_, session, _) = c.post_with(&[], init)?;
                let session = session.ok_or_else(|| bad("no session id"))?;
                let h = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
                c.post_with(&h, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
                for id in 1..=per {
                    let body = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":0}},"task":{{"ttl":1}}}}}}"#
                    );
                    let (status, _, answer) = c.post_with(&h, body.as_bytes())?;
                    if status != 200 || memchr::memmem::find(&answer, b"\"taskId\"").is_none() {
                        return Err(bad(format!(
                            "a task-creating call: {status} {}",
                            String::from_utf8_lossy(&answer)
                        )));
                    }
                }
                Ok(())
            })
        })
        .collect();
    for t in threads {
        t.join().map_err(|_| bad("a client panicked"))??;
    }
    Ok((conns as u64 * per) as f64 / started.elapsed().as_secs_f64())
}

/// 8. (`--with-redis`: `redis-server` on PATH) Task-creating calls through three replicas that
///    share one Redis, against one replica with the in-memory store, in the same run.
pub fn redis_tasks(janus: &Path, size: Size) -> io::Result<String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let mut redis = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| bad(format!("redis-server: {e}")))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            let _ = redis.kill();
            return Err(bad("redis-server did not listen"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let conns = 32;
    let per = (size.long_calls as u64 / 4).max(100);
    let result = (|| {
        let one = janus_http(janus, &[])?;
        let memory = task_rate(&[one.addr], conns, per)?;
        drop(one);
        let url = format!("redis://127.0.0.1:{port}");
        let replicas = (0..3)
            .map(|i| janus_http(janus, &["--store", &url, "--node-id", &format!("r{i}")]))
            .collect::<io::Result<Vec<_>>>()?;
        let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let shared = task_rate(&addrs, conns, per)?;
        Ok::<_, io::Error>((memory, shared))
    })();
    let _ = redis.kill();
    let _ = redis.wait();
    let (memory, shared) = result?;
    Ok(format!(
        "task-creating calls ({conns} closed-loop connections, {} calls): one replica with the in-memory store {memory:.0}/s, three replicas on one Redis {shared:.0}/s ({:.2}x)",
        conns as u64 * per,
        shared / memory
    ))
}

/// Runs every part with `size`; a report, or the first failure.
///
/// # Errors
///
/// The first part that fails, with what it found.
pub fn run(janus: &Path, size: Size) -> io::Result<String> {
    type Part = fn(&Path, Size) -> io::Result<String>;
    let parts: [(&str, Part); 7] = [
        ("http", http_mixed),
        ("stdio", stdio_pipelined),
        ("idle", idle),
        ("slow reader", |j, _| slow_reader(j)),
        ("cancellation storm", cancel_storm),
        ("task flood", |j, _| task_flood(j)),
        ("SIGTERM", |j, _| sigterm_under_load(j)),
    ];
    let mut report = String::new();
    for (name, part) in parts {
        let started = Instant::now();
        let line = part(janus, size).map_err(|e| bad(format!("soak {name}: {e}")))?;
        println!("- {line} ({:.1} s)", started.elapsed().as_secs_f64());
        report.push_str(&format!("- {line}\n"));
    }
    Ok(report)
}
