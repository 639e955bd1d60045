//! Faults: clients that never read, a cancellation storm, a task flood, SIGTERM under load.

use super::conn::HttpConn;
use super::{PING, Size, bad, janus_http, janus_tcp, mib, ping_p99, rss_kib, tcp_ping};
use crate::load::{self, Era};
use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// 4. A client that sends and never reads (TCP, then stdio): the server stops reading it,
///    its memory stays bounded, and another client is served meanwhile.
pub(super) fn slow_reader(janus: &Path) -> io::Result<String> {
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
pub(super) fn cancel_storm(janus: &Path, size: Size) -> io::Result<String> {
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

/// 6. A flood of task-creating calls (stdio, then HTTP): past the store's bound each gets a
///    clear error, and the server goes on serving.
pub(super) fn task_flood(janus: &Path) -> io::Result<String> {
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
    // The same over HTTP (2026-07-28 POSTs on one keep-alive connection): the process's one
    // store is bounded the same way.
    let server = janus_http(janus, &[])?;
    let mut c = HttpConn::open(server.addr)?;
    let (mut made_http, mut refused_http) = (0, 0);
    for id in 1..=n {
        let body = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"sleep\",\"arguments\":{{\"ms\":600000}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{\"extensions\":{{\"io.modelcontextprotocol/tasks\":{{}}}}}}}}}}}}"
        );
        let (_, answer) = c.post("tools/call", Some("sleep"), body.as_bytes())?;
        if memchr::memmem::find(&answer, b"\"taskId\"").is_some() {
            made_http += 1;
        } else if memchr::memmem::find(&answer, b"\"error\"").is_some()
            && memchr::memmem::find(&answer, b"\"message\"").is_some()
        {
            refused_http += 1;
        }
    }
    let (status, answer) = c.post("tools/call", Some("echo"), PING)?;
    if made_http + refused_http != n
        || refused_http == 0
        || status != 200
        || memchr::memmem::find(&answer, b"\"result\"").is_none()
    {
        return Err(bad(format!(
            "a task flood over HTTP: {made_http} made, {refused_http} refused of {n}, then {status}"
        )));
    }
    drop(server);
    Ok(format!(
        "a flood of {n} task-creating calls: on stdio {made} tasks made, {refused} refused with an error, then served and exited 0; over HTTP {made_http} made, {refused_http} refused, then served"
    ))
}

/// 7. SIGTERM under load over HTTP: the requests in flight are answered, then exit 0.
pub(super) fn sigterm_under_load(janus: &Path) -> io::Result<String> {
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
