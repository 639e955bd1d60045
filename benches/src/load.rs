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
    /// A slow peer: measured on the smallest payload only, to keep the run short.
    pub light: bool,
    /// It serves the demo's resource and prompt too (the server-surface workloads).
    pub surface: bool,
    /// It speaks the handshake revisions only: measured with legacy clients only.
    pub legacy_only: bool,
}

/// One `tools/call` of `echo` with id `id`, encoded for `era`, with its newline.
#[must_use]
pub fn echo_request(era: Era, id: u64, text: &str) -> Vec<u8> {
    let t = RequestTemplate::new(era, text);
    let mut b = Vec::new();
    t.write(&mut b, id);
    b
}

/// An echo request encoded once, but for its id: writing one is two copies and an integer.
#[derive(Debug, Clone)]
pub struct RequestTemplate {
    prefix: &'static [u8],
    suffix: Vec<u8>,
}

impl RequestTemplate {
    /// The template of `era`'s echo request with this text.
    #[must_use]
    pub fn new(era: Era, text: &str) -> Self {
        let suffix = match era {
            Era::Legacy => format!(
                r#","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
            ),
            Era::Modern => format!(
                r#","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"janus-bench","version":"1.0.0"}}}}}}}}"#
            ),
        };
        let mut suffix = suffix.into_bytes();
        suffix.push(b'\n');
        Self {
            prefix: br#"{"jsonrpc":"2.0","id":"#,
            suffix,
        }
    }

    /// The template of `era`'s request of `method` whose params hold `members` (JSON object
    /// members, without braces; the modern envelope is added in that era).
    #[must_use]
    pub fn call(era: Era, method: &str, members: &str) -> Self {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"janus-bench","version":"1.0.0"}}"#;
        let params = match era {
            Era::Legacy => format!("{{{members}}}"),
            Era::Modern => format!("{{{members},{meta}}}"),
        };
        let mut suffix = format!(r#","method":"{method}","params":{params}}}"#).into_bytes();
        suffix.push(b'\n');
        Self {
            prefix: br#"{"jsonrpc":"2.0","id":"#,
            suffix,
        }
    }

    /// Appends the request with id `id` to `out`.
    pub fn write(&self, out: &mut Vec<u8>, id: u64) {
        out.extend_from_slice(self.prefix);
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
        out.extend_from_slice(&self.suffix);
    }

    /// About the length of one request, to size buffers.
    #[must_use]
    pub fn size_hint(&self) -> usize {
        self.prefix.len() + self.suffix.len() + 8
    }
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
        // NB. A first request answered before the clock starts, in either era (the
        // handshake, or a `server/discover` whose result or error will do): a server's
        // start-up (a bridge's, which connects its backend first) is not a request's time.
        let (first, method, want): (_, _, &[u8]) = match era {
            Era::Legacy => (INITIALIZE, "initialize", br#""protocolVersion""#),
            Era::Modern => (DISCOVER, "server/discover", br#""id":0"#),
        };
        s.write(first)?;
        let line = s.read_line()?;
        if !contains(&line, want) {
            return Err(bad(format!(
                "{}: bad {method} answer {}",
                target.name,
                String::from_utf8_lossy(&line)
            )));
        }
        if era == Era::Legacy {
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

fn lossy(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned()
}

/// How long a run lasts, and its most requests.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// The writer stops starting new requests after this long.
    pub time: Duration,
    /// And after this many.
    pub max_requests: u64,
}

/// What the server process used, read from `/proc` before its input closed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resources {
    /// User plus system CPU time.
    pub cpu: Duration,
    /// Peak resident set size, in KiB.
    pub peak_rss_kib: u64,
}

/// Reads a process's CPU time and peak RSS from `/proc` (Linux); `None` elsewhere.
#[must_use]
pub fn resources(pid: u32) -> Option<Resources> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel's USER_HZ is 100 on every Linux that Janus runs on.
    let cpu = Duration::from_millis(ticks * 10);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let peak_rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    Some(Resources { cpu, peak_rss_kib })
}

/// The result of a run.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Requests answered (every one sent).
    pub requests: u64,
    /// Wall time from the first write to the last answer.
    pub elapsed: Duration,
    /// What the server used over its whole life (start and handshake included).
    pub resources: Option<Resources>,
}

impl Run {
    /// Requests per second.
    #[must_use]
    pub fn per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }
}

/// A growable set of answered ids, one bit each.
struct Seen(Vec<u64>);

impl Seen {
    /// Marks `id`; false when it was already marked.
    fn insert(&mut self, id: u64) -> bool {
        let (w, b) = (usize::try_from(id / 64).unwrap_or(usize::MAX), id % 64);
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        let fresh = self.0[w] & (1 << b) == 0;
        self.0[w] |= 1 << b;
        fresh
    }
}

/// Checks one answer: an id in `1..=sent` not seen before, no error, and the echoed text.
fn check_answer(line: &[u8], sent: u64, seen: &mut Seen, text: Option<&[u8]>) -> io::Result<()> {
    let id = answer_id(line).ok_or_else(|| bad(format!("no id in {}", lossy(line))))?;
    if id == 0 || id > sent {
        return Err(bad(format!(
            "unexpected id {id} ({} sent): {}",
            sent,
            lossy(line)
        )));
    }
    if !seen.insert(id) {
        return Err(bad(format!("id {id} answered twice")));
    }
    if contains(line, br#""error""#) {
        return Err(bad(format!("an error answer: {}", lossy(line))));
    }
    if let Some(t) = text {
        // Find the text block's value, then compare it in place: a search for a long text
        // as a needle would cost more than the server's work.
        let at = memchr::memmem::find(line, br#""text":"#).map(|at| at + 7);
        if !at.is_some_and(|at| line[at..].starts_with(t)) {
            return Err(bad(format!("id {id}: the echoed text is wrong")));
        }
    }
    Ok(())
}

/// Sends echo requests with at most `window` unanswered, until the budget is spent, and waits
/// for every answer.
///
/// # Errors
///
/// When an answer is lost, duplicated or wrong, or the server fails.
pub fn pipelined(
    target: &Target,
    era: Era,
    budget: Budget,
    window: usize,
    text: &str,
) -> io::Result<Run> {
    let want = target.echoes.then(|| format!(r#""{text}""#).into_bytes());
    pipelined_template(
        target,
        era,
        budget,
        window,
        RequestTemplate::new(era, text),
        want,
    )
}

/// [`pipelined`] with any request: each answer must hold a `"text":` member that starts
/// with `want` (JSON text, quotes included), when given.
///
/// # Errors
///
/// As [`pipelined`].
pub fn pipelined_template(
    target: &Target,
    era: Era,
    budget: Budget,
    window: usize,
    template: RequestTemplate,
    want: Option<Vec<u8>>,
) -> io::Result<Run> {
    let mut s = Session::start(target, era)?;
    let stdin = s.stdin.take().expect("stdin open");
    let mut resources = None;
    let pid = s.child.id();
    let (requests, elapsed) = drive(
        stdin,
        &mut s.stdout,
        &target.name,
        budget,
        window,
        template,
        want,
        || resources = resources_at(pid),
    )?;
    let status = s.finish()?;
    if !status.success() {
        return Err(bad(format!("{} exited with {status}", target.name)));
    }
    Ok(Run {
        requests,
        elapsed,
        resources,
    })
}

/// The pipelined loop over any pair of streams: a writer thread keeps `window` requests in
/// flight until the budget is spent, this thread reads and checks every answer. `at_end` runs
/// once every answer is in, before the writer closes its stream.
#[allow(clippy::too_many_arguments)]
fn drive<W: Write + Send + 'static, R: BufRead>(
    mut writer: W,
    reader: &mut R,
    name: &str,
    budget: Budget,
    window: usize,
    template: RequestTemplate,
    want: Option<Vec<u8>>,
    mut at_end: impl FnMut(),
) -> io::Result<(u64, Duration)> {
    const STOPPED: usize = 1 << (usize::BITS - 1);
    let answered = Arc::new(AtomicUsize::new(0));
    // Requests sent, with the STOPPED bit set once the writer has stopped.
    let sent = Arc::new(AtomicUsize::new(0));
    let (w_answered, w_sent) = (Arc::clone(&answered), Arc::clone(&sent));
    let window = window.max(1);
    let reader_thread = thread::current();
    // The writer keeps its stream open until every answer is read, so a server never sees the
    // end of its input while answers are still due.
    let (close_tx, close_rx) = std::sync::mpsc::channel::<()>();
    let start = Instant::now();
    let writer = thread::spawn(move || -> io::Result<()> {
        let mut n = 0u64;
        let batch_bytes = 64 * 1024;
        let mut chunk = Vec::with_capacity(batch_bytes + template.size_hint());
        let result = loop {
            if n >= budget.max_requests || start.elapsed() >= budget.time {
                break Ok(());
            }
            let done = w_answered.load(Ordering::Acquire) as u64;
            let allowed = (done + window as u64).saturating_sub(n);
            if allowed == 0 {
                thread::park_timeout(Duration::from_millis(1));
                continue;
            }
            chunk.clear();
            let mut k = 0;
            while k < allowed && n < budget.max_requests && (k == 0 || chunk.len() < batch_bytes) {
                n += 1;
                k += 1;
                template.write(&mut chunk, n);
            }
            // Counted as sent before the write: the server may answer the first requests of
            // the chunk before the write returns.
            w_sent.store(usize::try_from(n).unwrap_or(usize::MAX), Ordering::Release);
            reader_thread.unpark();
            if let Err(e) = writer.write_all(&chunk).and_then(|()| writer.flush()) {
                break Err(e);
            }
        };
        w_sent.fetch_or(STOPPED, Ordering::AcqRel);
        reader_thread.unpark();
        let _ = close_rx.recv_timeout(Duration::from_secs(60));
        drop(writer);
        result
    });
    let writer_thread = writer.thread().clone();
    let check_text = want.as_deref();
    let mut seen = Seen(Vec::new());
    let mut line = Vec::with_capacity(1024);
    let mut got = 0u64;
    let outcome = loop {
        let state = sent.load(Ordering::Acquire);
        let total = (state & !STOPPED) as u64;
        if got == total {
            if state & STOPPED != 0 {
                break Ok(());
            }
            thread::park_timeout(Duration::from_millis(1));
            continue;
        }
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break Err(bad(format!("{name}: output ended early"))),
            Ok(_) => {}
            Err(e) => break Err(e),
        }
        // NB. Read again: while this read waited, more may have been sent, and a server that
        // answers out of order (a bridge, a server with asynchronous tools) may answer them
        // first.
        let total = (sent.load(Ordering::Acquire) & !STOPPED) as u64;
        if let Err(e) = check_answer(&line, total, &mut seen, check_text) {
            break Err(e);
        }
        got += 1;
        answered.fetch_add(1, Ordering::Release);
        writer_thread.unpark();
    };
    let elapsed = start.elapsed();
    if outcome.is_ok() {
        at_end();
    }
    let _ = close_tx.send(());
    let written = writer
        .join()
        .map_err(|_| bad("the writer panicked".into()))?;
    outcome?;
    written?;
    Ok((got, elapsed))
}

/// Runs `server --listen 127.0.0.1:PORT` and drives `connections` TCP connections at once,
/// half legacy and half modern, each pipelining 16 B echoes; returns requests per second in
/// all.
///
/// # Errors
///
/// When the server does not start, or an answer is lost or wrong.
pub fn mixed_tcp(
    server: &Target,
    connections: usize,
    budget: Budget,
    window: usize,
    text: &str,
) -> io::Result<f64> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(&server.program)
        .args(&server.args)
        .arg("--listen")
        .arg(&addr)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let _guard = KillOnDrop(child);
    let waited = Instant::now();
    let mut handles = Vec::new();
    for i in 0..connections.max(1) {
        let stream = loop {
            match std::net::TcpStream::connect(&addr) {
                Ok(s) => break s,
                Err(_) if waited.elapsed() < Duration::from_secs(5) => {
                    thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(e),
            }
        };
        stream.set_nodelay(true)?;
        let era = if i % 2 == 0 { Era::Legacy } else { Era::Modern };
        let text = text.to_owned();
        let name = format!("{} tcp #{i}", server.name);
        let echoes = server.echoes;
        handles.push(thread::spawn(move || -> io::Result<(u64, Duration)> {
            let mut reader = BufReader::with_capacity(256 * 1024, stream.try_clone()?);
            let mut writer = stream;
            if era == Era::Legacy {
                writer.write_all(INITIALIZE)?;
                let mut line = Vec::new();
                reader.read_until(b'\n', &mut line)?;
                if !contains(&line, br#""protocolVersion""#) {
                    return Err(bad(format!("{name}: bad initialize answer")));
                }
            }
            drive(
                writer,
                &mut reader,
                &name,
                budget,
                window,
                RequestTemplate::new(era, &text),
                echoes.then(|| format!(r#""{text}""#).into_bytes()),
                || {},
            )
        }));
    }
    let mut total = 0;
    let mut longest = Duration::ZERO;
    for h in handles {
        let (n, d) = h
            .join()
            .map_err(|_| bad("a connection panicked".into()))??;
        total += n;
        longest = longest.max(d);
    }
    Ok(total as f64 / longest.as_secs_f64())
}

/// The warm-up request of a 2026-07-28 session (id 0), before the clock starts.
pub const DISCOVER: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":{\"name\":\"janus-bench\",\"version\":\"1.0.0\"}}}}\n";

/// The legacy handshake's first line.
pub const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"janus-bench\",\"version\":\"1.0.0\"}}}\n";

/// Kills a child process when dropped.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn resources_at(pid: u32) -> Option<Resources> {
    resources(pid)
}

fn resources_of(s: &Session) -> Option<Resources> {
    resources(s.child.id())
}

/// Sends echo requests one at a time until the budget is spent, and records each round trip
/// in nanoseconds.
///
/// # Errors
///
/// When an answer is lost or wrong, or the server fails.
pub fn closed_loop(
    target: &Target,
    era: Era,
    budget: Budget,
    text: &str,
) -> io::Result<(Histogram<u64>, Run)> {
    let mut s = Session::start(target, era)?;
    let template = RequestTemplate::new(era, text);
    let mut hist =
        Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).map_err(|e| bad(e.to_string()))?;
    let mut seen = Seen(Vec::new());
    let want = format!(r#""{text}""#);
    let check_text = target.echoes.then_some(want.as_bytes());
    let mut req = Vec::with_capacity(template.size_hint());
    let start = Instant::now();
    let mut id = 0;
    while id < budget.max_requests && start.elapsed() < budget.time {
        id += 1;
        req.clear();
        template.write(&mut req, id);
        let t = Instant::now();
        s.write(&req)?;
        let line = s.read_line()?;
        let ns = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
        check_answer(&line, id, &mut seen, check_text)?;
        hist.saturating_record(ns.max(1));
    }
    let elapsed = start.elapsed();
    let resources = resources_of(&s);
    let status = s.finish()?;
    if !status.success() {
        return Err(bad(format!("{} exited with {status}", target.name)));
    }
    Ok((
        hist,
        Run {
            requests: id,
            elapsed,
            resources,
        },
    ))
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

/// The relay floor: runs `cmd` (a server and its arguments) and copies bytes between it
/// and this process's stdin and stdout, both ways, as they come (one thread a direction),
/// reading nothing of them; ends when the server's output ends. The least any bridge in a
/// process of its own adds: two pipes and a process more on each request's way.
///
/// # Errors
///
/// The server cannot be started, or an IO error on the way.
pub fn relay(cmd: &[String]) -> io::Result<()> {
    let (program, args) = cmd
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command"))?;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let (Some(mut to), Some(mut from)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(io::Error::other("the server's pipes"));
    };
    // NB. The input's end closes the server's input (`to` is dropped with the thread).
    std::thread::spawn(move || {
        let _ = pass(&mut io::stdin().lock(), &mut to);
    });
    let passed = pass(&mut from, &mut io::stdout().lock());
    let _ = child.wait();
    passed
}

/// Copies `input` to `output` as it comes: each read is written (and flushed) at once.
fn pass(input: &mut impl Read, output: &mut impl Write) -> io::Result<()> {
    let mut buf = vec![0_u8; 256 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return output.flush(),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        output.write_all(&buf[..n])?;
        output.flush()?;
    }
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
        let mut seen = Seen(Vec::new());
        for l in lines {
            check_answer(l, 3, &mut seen, None).unwrap();
        }
        assert!((1..=3).all(|id| !seen.insert(id)));
    }

    #[test]
    fn answers_are_checked_for_duplicates_and_text() {
        let mut seen = Seen(Vec::new());
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
