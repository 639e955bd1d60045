//! Faults over HTTP's streams: SSE streams whose client never reads them, and a storm of
//! long calls each on its own connection, then all cancelled (the connections closed, or
//! `notifications/cancelled` on a legacy session).

use super::conn::HttpConn;
use super::{PING, Size, bad, janus_http, mib, ping_p99, rss_kib};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

const MODERN: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

/// Writes a POST of `body` to `/mcp` with `headers` on a new connection, and reads nothing.
fn post_unread(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> io::Result<TcpStream> {
    let s = TcpStream::connect(addr)?;
    s.set_nodelay(true)?;
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    (&s).write_all(head.as_bytes())?;
    Ok(s)
}

/// A legacy session on `c`: its id.
fn session(c: &mut HttpConn) -> io::Result<String> {
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
    let (status, session, _) = c.post_with(&[], init)?;
    let session = session.ok_or_else(|| bad(format!("initialize: {status}, no session id")))?;
    let h = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    c.post_with(
        &h,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )?;
    Ok(session)
}

/// The resident set once it stops changing (two samples 250 ms apart alike, 30 s at most).
fn settled_rss(pid: u32) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = rss_kib(pid);
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let now = rss_kib(pid);
        if now == last || Instant::now() > deadline {
            return now;
        }
        last = now;
    }
}

/// What reading a stream found.
struct StreamRead {
    /// The progress notifications it held.
    notes: u64,
    /// `end` was found in it (else the stream ended first).
    found: bool,
    /// The id of the last event read.
    last_id: Option<String>,
}

/// Reads a response stream until `end` shows in it, or the stream ends.
fn read_until(s: &mut TcpStream, end: &[u8]) -> io::Result<StreamRead> {
    const NOTE: &[u8] = b"notifications/progress";
    debug_assert!(end.len() <= NOTE.len());
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut window = Vec::with_capacity(1 << 17);
    let mut chunk = vec![0; 1 << 16];
    let mut read = StreamRead {
        notes: 0,
        found: false,
        last_id: None,
    };
    loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Ok(read);
        }
        window.extend_from_slice(&chunk[..n]);
        read.notes += memchr::memmem::find_iter(&window, NOTE).count() as u64;
        if let Some(at) = memchr::memmem::rfind(&window, b"\nid: ")
            && let Some(len) = memchr::memchr(b'\n', &window[at + 5..])
        {
            read.last_id =
                Some(String::from_utf8_lossy(&window[at + 5..at + 5 + len]).into_owned());
        }
        if memchr::memmem::find(&window, end).is_some() {
            read.found = true;
            return Ok(read);
        }
        // The last chunk of a chunked response.
        if window.ends_with(b"\r\n0\r\n\r\n") {
            return Ok(read);
        }
        // NB. Keep a tail one byte shorter than a notification's pattern: none is counted
        // twice, and one split across two reads is still found (so is `end`, no longer).
        let keep = (NOTE.len() - 1).min(window.len());
        window.drain(..window.len() - keep);
    }
}

/// 8. SSE streams whose client never reads (a 2026-07-28 POST's, a legacy session POST's),
///    each of a call that sends a flood of progress notifications: the server's memory stays
///    bounded, another client is served meanwhile, and when the streams are read at last
///    each ends with its answer (the notifications past the stream's bound were dropped).
pub(super) fn stuck_sse(janus: &Path, size: Size) -> io::Result<String> {
    const LIMIT_MIB: f64 = 96.0;
    let count = size.long_calls as u64 * 50;
    let server = janus_http(janus, &["--tools", "faults"])?;
    let (addr, pid) = (server.addr, server.pid());
    let before = settled_rss(pid);
    let call = |id: u64, meta: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"chatty","arguments":{{"count":{count},"size":1000}},"_meta":{{"progressToken":"p{id}"{meta}}}}}}}"#
        )
    };
    let modern_meta = format!(",{}", &MODERN["\"_meta\":{".len()..]);
    let mut modern = post_unread(
        addr,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "chatty"),
        ],
        &call(1, &modern_meta),
    )?;
    let mut c = HttpConn::open(addr)?;
    let sid = session(&mut c)?;
    let mut legacy = post_unread(
        addr,
        &[
            ("mcp-session-id", &sid),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        &call(2, ""),
    )?;
    let grown = settled_rss(pid).saturating_sub(before);
    let mut active = HttpConn::open(addr)?;
    let p99 = ping_p99(500, || {
        let (status, body) = active.post("tools/call", Some("echo"), PING)?;
        if status == 200 && memchr::memmem::find(&body, b"\"result\"").is_some() {
            Ok(())
        } else {
            Err(bad(format!("another client's ping: {status}")))
        }
    })?;
    let said = format!("said {count}");
    let m = read_until(&mut modern, said.as_bytes())?;
    if !m.found {
        return Err(bad("the 2026-07-28 stream ended without its answer"));
    }
    // A legacy session's stream lets a reader that fell behind go (its events are kept);
    // the client resumes it with `Last-Event-ID` (SEP-1699) and gets the rest, the answer
    // included.
    let mut l = read_until(&mut legacy, said.as_bytes())?;
    let mut resumed = 0;
    while !l.found {
        let Some(last) = l.last_id.take() else {
            return Err(bad("the legacy stream ended before any event"));
        };
        if resumed == 10 {
            return Err(bad("the legacy stream's answer never came"));
        }
        resumed += 1;
        let mut get = TcpStream::connect(addr)?;
        write!(
            get,
            "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: {sid}\r\nmcp-protocol-version: 2025-11-25\r\nlast-event-id: {last}\r\n\r\n"
        )?;
        let more = read_until(&mut get, said.as_bytes())?;
        l = StreamRead {
            notes: l.notes + more.notes,
            found: more.found,
            last_id: more.last_id.or(Some(last)),
        };
    }
    if mib(grown) > LIMIT_MIB {
        return Err(bad(format!(
            "two SSE streams never read grew the server by {:.1} MiB",
            mib(grown)
        )));
    }
    drop(server);
    Ok(format!(
        "SSE streams never read (a 2026-07-28 POST's, a legacy session POST's; each call sends {count} progress notifications of 1 KB): the server grew {:.1} MiB; another client's p99 {p99:.0} us meanwhile; read at last, the 2026-07-28 stream held {} notifications (the rest dropped at its bound) and its answer; the legacy stream let its reader go, and resumed with Last-Event-ID ({resumed} time(s)) gave {} notifications in all and the answer",
        mib(grown),
        m.notes,
        l.notes
    ))
}

/// A gauge's value on a `/metrics` page at `addr`.
fn gauge(addr: SocketAddr, name: &str) -> io::Result<f64> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")?;
    let mut page = String::new();
    s.read_to_string(&mut page)?;
    Ok(page
        .lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0))
}

/// Polls `/metrics` until the open streams are `n` (60 s at most): how long it took.
fn streams_reach(metrics: SocketAddr, n: f64) -> io::Result<Duration> {
    let started = Instant::now();
    loop {
        let open = gauge(metrics, "janus_http_streams_open")?;
        if (open - n).abs() < 0.5 {
            return Ok(started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err(bad(format!("{open} streams open, not {n}")));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// 9. The cancellation storm over HTTP: long calls, each on its own connection (half
///    2026-07-28 POSTs, half in one legacy session), then all cancelled at once (the modern
///    connections closed, a `notifications/cancelled` for each legacy one): every request's
///    work and stream are let go, the legacy POSTs end with nothing for their call, and the
///    server serves again at once.
pub(super) fn http_storm(janus: &Path, size: Size) -> io::Result<String> {
    let metrics: SocketAddr = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let server = janus_http(
        janus,
        &["--metrics", &metrics.to_string(), "--max-streams", "100000"],
    )?;
    let (addr, pid) = (server.addr, server.pid());
    let base = rss_kib(pid);
    let half = size.long_calls / 2;
    let mut c = HttpConn::open(addr)?;
    let sid = session(&mut c)?;
    // NB. Twice: what the first storm leaves is the allocator's to reuse; a leak would
    // grow the second.
    let first = storm(addr, metrics, pid, half, &mut c, &sid)?;
    let second = storm(addr, metrics, pid, half, &mut c, &sid)?;
    drop(server);
    if second.after > first.after + first.after / 2 {
        return Err(bad(format!(
            "the HTTP storm leaves more each time: {:.1} MiB after the first, {:.1} MiB after the second",
            mib(first.after),
            mib(second.after)
        )));
    }
    Ok(format!(
        "{} long calls over HTTP, each on its own connection (half 2026-07-28, half in one legacy session), then all cancelled, twice: every stream let go in {:.0} and {:.0} ms, served again in {:.0} and {:.0} ms, no cancelled call answered; RSS {:.1} MiB idle, {:.1} MiB with the calls, {:.1} MiB after the first storm, {:.1} MiB after the second",
        2 * half,
        first.released.as_secs_f64() * 1000.0,
        second.released.as_secs_f64() * 1000.0,
        first.served.as_secs_f64() * 1000.0,
        second.served.as_secs_f64() * 1000.0,
        mib(base),
        mib(first.peak.max(second.peak)),
        mib(first.after),
        mib(second.after)
    ))
}

/// What one storm measured.
struct Storm {
    peak: u64,
    after: u64,
    released: Duration,
    served: Duration,
}

/// `half` long 2026-07-28 calls each on its own connection and `half` in session `sid`
/// (whose other requests go on `c`), then all cancelled.
fn storm(
    addr: SocketAddr,
    metrics: SocketAddr,
    pid: u32,
    half: usize,
    c: &mut HttpConn,
    sid: &str,
) -> io::Result<Storm> {
    let sleep = |id: usize, meta: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":600000}}{meta}}}}}"#
        )
    };
    let modern_meta = format!(",{MODERN}}}");
    let mut modern = Vec::with_capacity(half);
    for id in 0..half {
        modern.push(post_unread(
            addr,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "sleep"),
            ],
            &sleep(id, &modern_meta),
        )?);
    }
    let h = [
        ("mcp-session-id", sid),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let mut legacy = Vec::with_capacity(half);
    for id in 0..half {
        legacy.push(post_unread(addr, &h, &sleep(id, ""))?);
    }
    streams_reach(metrics, (2 * half) as f64)?;
    let peak = rss_kib(pid);
    let started = Instant::now();
    drop(modern);
    for id in 0..half {
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        );
        let (status, _, _) = c.post_with(&h, cancel.as_bytes())?;
        if status != 202 {
            return Err(bad(format!("a cancel: {status}")));
        }
    }
    streams_reach(metrics, 0.0)?;
    let released = started.elapsed();
    let mut active = HttpConn::open(addr)?;
    let (status, body) = active.post("tools/call", Some("echo"), PING)?;
    if status != 200 || memchr::memmem::find(&body, b"\"result\"").is_none() {
        return Err(bad(format!("served after the storm: {status}")));
    }
    let served = started.elapsed();
    // Each legacy POST ended with nothing for its cancelled call.
    for mut s in legacy {
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            if s.read(&mut byte)? == 0 {
                break;
            }
            head.push(byte[0]);
        }
        if !head.starts_with(b"HTTP/1.1 202") {
            return Err(bad(format!(
                "a cancelled legacy call's POST: {}",
                String::from_utf8_lossy(&head)
            )));
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    Ok(Storm {
        peak,
        after: rss_kib(pid),
        released,
        served,
    })
}
