//! A load driver for MCP servers on stdio: pipelined throughput and closed-loop latency.
//!
//! Requests are encoded before the clock starts, so the driver spends its time writing bytes
//! and reading lines. Every answer is checked: its id (each exactly once) and, for servers
//! that echo, the text. A lost, duplicated or wrong answer fails the run.

use hdrhistogram::Histogram;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The era a load session speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize` and `notifications/initialized` first, then plain requests.
    Legacy,
    /// Every request with the 2026-07-28 `_meta` envelope; `tools/call` first.
    Modern,
}

impl Era {
    /// The name in tables.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Legacy => "legacy",
            Self::Modern => "modern",
        }
    }
}

/// A server under test: a command that speaks MCP on stdin/stdout.
#[derive(Debug, Clone)]
pub struct Target {
    /// The name in tables.
    pub name: String,
    /// The program.
    pub program: std::path::PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Whether its answers echo the request's text (the floor's do not).
    pub echoes: bool,
}

/// One `tools/call` of `echo` with id `id`, encoded for `era`, with its newline.
#[must_use]
pub fn echo_request(era: Era, id: u64, text: &str) -> Vec<u8> {
    let line = match era {
        Era::Legacy => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
        ),
        Era::Modern => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"janus-bench","version":"1.0.0"}}}}}}}}"#
        ),
    };
    let mut b = line.into_bytes();
    b.push(b'\n');
    b
}

/// Printable ASCII text of `len` bytes that needs no JSON escaping.
#[must_use]
pub fn payload(len: usize) -> String {
    (0..len)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect()
}

/// A running server with its pipes.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    /// Starts the target and opens the era (the legacy handshake, or nothing).
    ///
    /// # Errors
    ///
    /// When the server cannot be started or answers the handshake wrongly.
    pub fn start(target: &Target, era: Era) -> io::Result<Self> {
        let mut child = Command::new(&target.program)
            .args(&target.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(256 * 1024, child.stdout.take().expect("piped"));
        let mut s = Self {
            child,
            stdin,
            stdout,
        };
        if era == Era::Legacy {
            s.write(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"janus-bench","version":"1.0.0"}}}
"#)?;
            let line = s.read_line()?;
            if !contains(&line, br#""protocolVersion""#) {
                return Err(bad(format!(
                    "{}: bad initialize answer {}",
                    target.name,
                    String::from_utf8_lossy(&line)
                )));
            }
            s.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        }
        Ok(s)
    }

    fn write(&mut self, b: &[u8]) -> io::Result<()> {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(b)?;
        w.flush()
    }

    fn read_line(&mut self) -> io::Result<Vec<u8>> {
        let mut line = Vec::new();
        if self.stdout.read_until(b'\n', &mut line)? == 0 {
            return Err(bad("the server closed its output".into()));
        }
        Ok(line)
    }

    /// Closes the input and waits for the server to exit; returns its status.
    ///
    /// # Errors
    ///
    /// When waiting fails.
    pub fn finish(mut self) -> io::Result<std::process::ExitStatus> {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        self.child.wait()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Reads the integer id of an answer line, naively (`"id":` then digits).
fn answer_id(line: &[u8]) -> Option<u64> {
    let at = memchr::memmem::find(line, br#""id":"#)? + 5;
    let digits = &line[at..];
    let end = digits.iter().position(|c| !c.is_ascii_digit())?;
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

/// Checks one answer: an id in `1..=n` not seen before, and the echoed text.
fn check_answer(line: &[u8], n: u64, seen: &mut [bool], text: Option<&[u8]>) -> io::Result<()> {
    let id = answer_id(line).ok_or_else(|| bad(format!("no id in {}", lossy(line))))?;
    if id == 0 || id > n {
        return Err(bad(format!("unexpected id {id}")));
    }
    let slot = &mut seen[usize::try_from(id - 1).unwrap_or(usize::MAX)];
    if *slot {
        return Err(bad(format!("id {id} answered twice")));
    }
    *slot = true;
    if contains(line, br#""error""#) {
        return Err(bad(format!("an error answer: {}", lossy(line))));
    }
    if let Some(t) = text {
        if !contains(line, t) {
            return Err(bad(format!("id {id}: the echoed text is wrong")));
        }
    }
    Ok(())
}

fn lossy(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned()
}

/// The result of a pipelined run.
#[derive(Debug, Clone, Copy)]
pub struct Throughput {
    /// Requests answered.
    pub requests: u64,
    /// Wall time from the first write to the last answer.
    pub elapsed: Duration,
}

impl Throughput {
    /// Requests per second.
    #[must_use]
    pub fn per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }
}

/// Sends `n` echo requests with at most `window` unanswered at any time, and waits for every
/// answer.
///
/// # Errors
///
/// When an answer is lost, duplicated or wrong, or the server fails.
pub fn pipelined(
    target: &Target,
    era: Era,
    n: u64,
    window: usize,
    text: &str,
) -> io::Result<Throughput> {
    let mut s = Session::start(target, era)?;
    let requests: Vec<Vec<u8>> = (1..=n).map(|id| echo_request(era, id, text)).collect();
    let done = Arc::new(AtomicUsize::new(0));
    let mut stdin = s.stdin.take().expect("stdin open");
    let writer_done = Arc::clone(&done);
    let window = window.max(1);
    let start = Instant::now();
    let writer = thread::spawn(move || -> io::Result<()> {
        let mut sent = 0usize;
        let mut chunk = Vec::with_capacity(64 * 1024);
        while sent < requests.len() {
            let answered = writer_done.load(Ordering::Acquire);
            let allowed = (answered + window).saturating_sub(sent);
            if allowed == 0 {
                thread::park_timeout(Duration::from_millis(1));
                continue;
            }
            chunk.clear();
            for r in requests.iter().skip(sent).take(allowed.min(512)) {
                chunk.extend_from_slice(r);
                sent += 1;
            }
            stdin.write_all(&chunk)?;
            stdin.flush()?;
        }
        Ok(())
    });
    let writer_thread = writer.thread().clone();
    let mut seen = vec![false; usize::try_from(n).unwrap_or(0)];
    let want = format!(r#""{text}""#);
    let check_text = target.echoes.then_some(want.as_bytes());
    let mut line = Vec::with_capacity(1024);
    for _ in 0..n {
        line.clear();
        if s.stdout.read_until(b'\n', &mut line)? == 0 {
            return Err(bad(format!("{}: output ended early", target.name)));
        }
        check_answer(&line, n, &mut seen, check_text)?;
        done.fetch_add(1, Ordering::Release);
        writer_thread.unpark();
    }
    let elapsed = start.elapsed();
    writer
        .join()
        .map_err(|_| bad("the writer panicked".into()))??;
    let status = s.finish()?;
    if !status.success() {
        return Err(bad(format!("{} exited with {status}", target.name)));
    }
    Ok(Throughput {
        requests: n,
        elapsed,
    })
}

/// Sends `n` echo requests one at a time and records each round trip, in nanoseconds.
///
/// # Errors
///
/// When an answer is lost or wrong, or the server fails.
pub fn closed_loop(target: &Target, era: Era, n: u64, text: &str) -> io::Result<Histogram<u64>> {
    let mut s = Session::start(target, era)?;
    let mut hist =
        Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).map_err(|e| bad(e.to_string()))?;
    let mut seen = vec![false; usize::try_from(n).unwrap_or(0)];
    let want = format!(r#""{text}""#);
    let check_text = target.echoes.then_some(want.as_bytes());
    for id in 1..=n {
        let req = echo_request(era, id, text);
        let t = Instant::now();
        s.write(&req)?;
        let line = s.read_line()?;
        let ns = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
        check_answer(&line, n, &mut seen, check_text)?;
        hist.saturating_record(ns.max(1));
    }
    let status = s.finish()?;
    if !status.success() {
        return Err(bad(format!("{} exited with {status}", target.name)));
    }
    Ok(hist)
}

/// The floor: reads lines, reads each id naively, writes a fixed answer. Nothing can answer an
/// MCP request over stdio for less; the benchmark compares servers against it.
///
/// # Errors
///
/// IO errors of stdin or stdout.
pub fn floor(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut r = BufReader::with_capacity(256 * 1024, input);
    let mut w = io::BufWriter::with_capacity(256 * 1024, output);
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if let Some(at) = memchr::memmem::find(&line, br#""id":"#) {
            let rest = &line[at + 5..];
            let end = rest
                .iter()
                .position(|&c| c == b',' || c == b'}')
                .unwrap_or(rest.len());
            w.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
            w.write_all(&rest[..end])?;
            w.write_all(
                br#","result":{"protocolVersion":"2025-11-25","content":[{"type":"text","text":"ok"}]}}
"#,
            )?;
        }
        // Answer promptly: flush whenever no more input is already buffered.
        if r.buffer().is_empty() {
            w.flush()?;
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_answers_each_request_with_its_id() {
        let mut input = Vec::new();
        for id in 1..=3 {
            input.extend_from_slice(&echo_request(Era::Modern, id, "x"));
        }
        let mut out = Vec::new();
        floor(&input[..], &mut out).unwrap();
        let lines: Vec<&[u8]> = out
            .split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(lines.len(), 3);
        let mut seen = vec![false; 3];
        for l in lines {
            check_answer(l, 3, &mut seen, None).unwrap();
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn answers_are_checked_for_duplicates_and_text() {
        let mut seen = vec![false; 2];
        let ok = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"abc"}]}}"#;
        check_answer(ok, 2, &mut seen, Some(br#""abc""#)).unwrap();
        assert!(check_answer(ok, 2, &mut seen, Some(br#""abc""#)).is_err());
        let wrong =
            br#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"abd"}]}}"#;
        assert!(check_answer(wrong, 2, &mut seen, Some(br#""abc""#)).is_err());
        let err = br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"x"}}"#;
        assert!(check_answer(err, 2, &mut seen, None).is_err());
    }
}
