//! Floods: HTTP (both eras) and stdio, every answer checked; idle connections.

use super::conn::HttpConn;
use super::{
    PING, Sampler, Size, bad, flat, janus_http, janus_tcp, mib, ping_p99, rss_kib, tcp_ping,
};
use crate::http_load::{self, Load};
use crate::load::{self, Budget, Era, Target};
use hdrhistogram::Histogram;
use std::io::{self, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// 1. Requests over keep-alive HTTP connections, both eras at once: each answer checked
///    against its request (none lost, none duplicated, the right echo), RSS flat.
pub(super) fn http_mixed(janus: &Path, size: Size) -> io::Result<String> {
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
pub(super) fn stdio_pipelined(janus: &Path, size: Size) -> io::Result<String> {
    let target = Target {
        name: "janus".into(),
        program: janus.to_path_buf(),
        args: vec!["serve".into()],
        echoes: true,
        light: false,
        surface: false,
        legacy_only: false,
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

/// 3. Idle connections held on one process (TCP, then HTTP keep-alive): the memory each
///    costs, and the p99 of an active client beside them.
pub(super) fn idle(janus: &Path, size: Size) -> io::Result<String> {
    let mut parts = Vec::new();
    // TCP
    let server = janus_tcp(janus)?;
    let active = TcpStream::connect(server.addr)?;
    active.set_nodelay(true)?;
    let mut ar = BufReader::new(active);
    // NB. A first round warms the connection and the server up: it is not counted.
    ping_p99(1000, || tcp_ping(&mut ar))?;
    let before_p99 = ping_p99(5000, || tcp_ping(&mut ar))?;
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
    ping_p99(1000, || tcp_ping(&mut ar))?;
    let after_p99 = ping_p99(5000, || tcp_ping(&mut ar))?;
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
    ping_p99(1000, || ping(&mut active))?;
    let before_p99 = ping_p99(5000, || ping(&mut active))?;
    let before = rss_kib(server.pid());
    let mut held = Vec::with_capacity(size.idle);
    for _ in 0..size.idle {
        let mut c = HttpConn::open(server.addr)?;
        ping(&mut c)?;
        held.push(c);
    }
    std::thread::sleep(Duration::from_millis(300));
    let after = rss_kib(server.pid());
    ping_p99(1000, || ping(&mut active))?;
    let after_p99 = ping_p99(5000, || ping(&mut active))?;
    let each_http = (after.saturating_sub(before)) as f64 / size.idle as f64;
    parts.push(format!(
        "HTTP keep-alive: {each_http:.1} KiB each; an active client's p99 {before_p99:.0} us alone, {after_p99:.0} us beside them"
    ));
    drop(held);
    if each_http > 16.0 {
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
