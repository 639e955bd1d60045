//! `janus-bench soak`: load and faults on one `janus serve` process, bounded in count and
//! time, on loopback, every process stopped by its pid. Each part checks what it must (no
//! answer lost or duplicated, memory bounded, the others served) and prints its figures;
//! `--full` runs the sizes of the scale-out issue, the default a small size for CI.

use crate::http_load::{HttpTarget, Running};
use hdrhistogram::Histogram;
use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod conn;
mod faults;
mod floods;
mod redis;
mod streams;

pub use redis::redis_tasks;

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

/// A small request every era serves at once (an echo call: 2026-07-28 has no `ping`).
const PING: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"p\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

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

/// Runs every part with `size`; a report, or the first failure.
///
/// # Errors
///
/// The first part that fails, with what it found.
pub fn run(janus: &Path, size: Size) -> io::Result<String> {
    type Part = fn(&Path, Size) -> io::Result<String>;
    let parts: [(&str, Part); 9] = [
        ("http", floods::http_mixed),
        ("stdio", floods::stdio_pipelined),
        ("idle", floods::idle),
        ("slow reader", |j, _| faults::slow_reader(j)),
        ("cancellation storm", faults::cancel_storm),
        ("task flood", |j, _| faults::task_flood(j)),
        ("SIGTERM", |j, _| faults::sigterm_under_load(j)),
        ("SSE never read", streams::stuck_sse),
        ("HTTP cancellation storm", streams::http_storm),
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
