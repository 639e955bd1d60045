//! A runner of wire scenarios against the built `janus serve` (stdio).
//!
//! The format is the one of the project's shared conformance file: each scenario is a fresh
//! process; `send` writes one line, `send_hex` raw bytes (each followed by `\n`); `expect`
//! waits for the response with that `id` (answers may come out of order) and checks JSON
//! Pointers (`~1` for `/`) against values or matchers (`$type`, `$absent`, `$absent_or`);
//! `expect_batch` waits for one array line holding these responses in any order.
//! After the last step the runner closes the input: the server must exit 0 and must have
//! written nothing that no step expected.

#![allow(dead_code)]

pub(crate) mod copies;
pub(crate) mod raw_front;
pub(crate) mod web;

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// How long one expectation may wait.
const WAIT: Duration = Duration::from_secs(20);

/// The path of the built `janus` binary.
pub(crate) fn janus_bin() -> &'static str {
    env!("CARGO_BIN_EXE_janus")
}

/// A handshake server in a few lines of sh: it declares tools alone, lists one (`hello`),
/// answers its calls, and answers anything else with `{}`.
const SH_BACKEND: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  [ -z "$id" ] && continue
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"hello","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"hello from sh"}]}}\n' "$id" ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done"#;

/// [`SH_BACKEND`]'s script, then `at_end` once its input ends (`sh -c SCRIPT sh ARG`: `$1`
/// is ARG).
pub(crate) fn sh_backend(at_end: &str) -> String {
    format!("{SH_BACKEND}\n{at_end}")
}

/// A running `janus serve` with its output read line by line on a thread.
pub(crate) struct Server {
    child: Child,
    lines: Receiver<Vec<u8>>,
    /// Lines received but not yet matched by a step.
    pending: Vec<Value>,
}

impl Server {
    /// Starts `janus serve` with extra arguments.
    pub(crate) fn start(args: &[&str]) -> Self {
        let mut child = Command::new(janus_bin())
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("janus serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Self {
            child,
            lines: rx,
            pending: Vec::new(),
        }
    }

    /// Writes raw bytes to the server's input.
    pub(crate) fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to janus");
        stdin.flush().expect("flush to janus");
    }

    /// Writes one line.
    pub(crate) fn send(&mut self, line: &str) {
        let mut b = line.as_bytes().to_vec();
        b.push(b'\n');
        self.send_bytes(&b);
    }

    /// Reads one more output line into `pending`; checks the line's form first.
    fn receive(&mut self, deadline: Instant) -> Result<(), String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => {
                let v = check_line(&line)?;
                self.pending.push(v);
                Ok(())
            }
            Err(RecvTimeoutError::Timeout) => Err("timed out waiting for output".into()),
            Err(RecvTimeoutError::Disconnected) => Err("the server closed its output".into()),
        }
    }

    /// Waits for the response (not a batch) with this id and removes it from the pending lines.
    pub(crate) fn expect_id(&mut self, id: &Value) -> Result<Value, String> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(i) = self
                .pending
                .iter()
                .position(|v| v.is_object() && v.get("id") == Some(id))
            {
                return Ok(self.pending.remove(i));
            }
            self.receive(deadline)
                .map_err(|e| format!("expecting id {id}: {e}; pending: {:?}", self.pending))?;
        }
    }

    /// Waits for a notification with this method and removes it from the pending lines.
    pub(crate) fn expect_notification(&mut self, method: &str) -> Result<Value, String> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(i) = self.pending.iter().position(|v| {
                v.get("id").is_none() && v.get("method").and_then(Value::as_str) == Some(method)
            }) {
                return Ok(self.pending.remove(i));
            }
            self.receive(deadline)
                .map_err(|e| format!("expecting {method}: {e}"))?;
        }
    }

    /// Waits for an array line and removes it from the pending lines.
    pub(crate) fn expect_array(&mut self) -> Result<Vec<Value>, String> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(i) = self.pending.iter().position(Value::is_array) {
                let Value::Array(a) = self.pending.remove(i) else {
                    unreachable!()
                };
                return Ok(a);
            }
            self.receive(deadline)
                .map_err(|e| format!("expecting a batch: {e}"))?;
        }
    }

    /// Closes the input, waits for exit 0, and checks that nothing unexpected was written.
    pub(crate) fn finish(mut self) -> Result<(), String> {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(s) = self.child.try_wait().map_err(|e| e.to_string())? {
                break s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return Err("the server did not exit after its input closed".into());
            }
            thread::sleep(Duration::from_millis(5));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(2)) {
            self.pending.push(check_line(&line)?);
        }
        if !status.success() {
            return Err(format!("the server exited with {status}"));
        }
        if !self.pending.is_empty() {
            return Err(format!("unexpected output: {:?}", self.pending));
        }
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One output line must be compact JSON-RPC: valid UTF-8 JSON, `\n`-terminated, no other
/// line break.
fn check_line(line: &[u8]) -> Result<Value, String> {
    let body = line
        .strip_suffix(b"\n")
        .ok_or("an output line does not end with \\n")?;
    if body.contains(&b'\r') || body.contains(&b'\n') {
        return Err("an output line holds a raw line break".into());
    }
    serde_json::from_slice(body).map_err(|e| {
        format!(
            "output is not JSON ({e}): {:?}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        )
    })
}

/// Checks one response against an expectation object (`id` plus pointer keys).
pub(crate) fn check_response(
    resp: &Value,
    expect: &serde_json::Map<String, Value>,
) -> Result<(), String> {
    if resp.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(format!("no \"jsonrpc\":\"2.0\" in {resp}"));
    }
    for (key, want) in expect {
        if key == "id" {
            continue;
        }
        let pointer = format!("/{key}");
        let got = resp.pointer(&pointer);
        let ok = match want {
            Value::Object(m) if m.contains_key("$type") => got.is_some_and(|g| {
                let t = m["$type"].as_str().unwrap_or("");
                match t {
                    "string" => g.is_string(),
                    "number" => g.is_number(),
                    "integer" => g.is_i64() || g.is_u64(),
                    "object" => g.is_object(),
                    "array" => g.is_array(),
                    "boolean" => g.is_boolean(),
                    "null" => g.is_null(),
                    _ => false,
                }
            }),
            Value::Object(m) if m.contains_key("$absent") => got.is_none(),
            Value::Object(m) if m.contains_key("$absent_or") => {
                got.is_none() || got == Some(&m["$absent_or"])
            }
            _ => got == Some(want),
        };
        if !ok {
            return Err(format!("{pointer}: want {want}, got {got:?} in {resp}"));
        }
    }
    Ok(())
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Runs one scenario; `Err` says which step failed and why.
pub(crate) fn run_scenario(scenario: &Value) -> Result<(), String> {
    let mut server = Server::start(&[]);
    let steps = scenario["steps"].as_array().ok_or("no steps")?;
    for (i, step) in steps.iter().enumerate() {
        let fail = |e: String| format!("step {i}: {e}");
        if let Some(line) = step.get("send").and_then(Value::as_str) {
            server.send(line);
        } else if let Some(h) = step.get("send_hex").and_then(Value::as_str) {
            let mut b = hex(h);
            b.push(b'\n');
            server.send_bytes(&b);
        } else if let Some(exp) = step.get("expect").and_then(Value::as_object) {
            let id = exp.get("id").cloned().unwrap_or(Value::Null);
            let resp = server.expect_id(&id).map_err(fail)?;
            check_response(&resp, exp).map_err(fail)?;
        } else if let Some(exps) = step.get("expect_batch").and_then(Value::as_array) {
            let mut got = server.expect_array().map_err(fail)?;
            if got.len() != exps.len() {
                return Err(fail(format!(
                    "batch of {} answers, want {}",
                    got.len(),
                    exps.len()
                )));
            }
            for exp in exps {
                let exp = exp.as_object().ok_or("bad expect_batch")?;
                let id = exp.get("id").cloned().unwrap_or(Value::Null);
                let at = got
                    .iter()
                    .position(|r| r.get("id") == Some(&id))
                    .ok_or_else(|| fail(format!("no answer with id {id} in the batch")))?;
                check_response(&got.remove(at), exp).map_err(fail)?;
            }
        } else {
            return Err(fail(format!("unknown step {step}")));
        }
    }
    server.finish()
}

/// Runs every scenario of a file; panics with the list of failures.
pub(crate) fn run_file(path: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read the scenarios at {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("scenarios are JSON");
    let scenarios = doc["scenarios"].as_array().expect("a scenarios array");
    assert!(!scenarios.is_empty(), "no scenarios in {}", path.display());
    let failures: Vec<String> = scenarios
        .iter()
        .filter_map(|s| {
            let name = s["name"].as_str().unwrap_or("?");
            run_scenario(s).err().map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        scenarios.len(),
        failures.join("\n")
    );
    scenarios.len()
}

/// A `janus serve --http 127.0.0.1:0` with extra arguments, and the address it logs; killed
/// (by its pid) when dropped, unless it has exited.
pub(crate) struct HttpServe {
    /// The process.
    pub(crate) child: Child,
    /// Where it listens (`127.0.0.1:PORT`).
    pub(crate) addr: String,
}

impl HttpServe {
    /// Starts it and waits for its `listening (HTTP...) addr=...` log line; the rest of its
    /// log is drained on a thread, so it never blocks on a full pipe.
    pub(crate) fn start(args: &[&str]) -> Self {
        let mut all = vec!["serve", "--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Self::launch(&all)
    }

    /// Starts `janus ARGS...` (a command that serves HTTP and logs where, as `janus bridge
    /// --http` does) the same way.
    pub(crate) fn launch(args: &[&str]) -> Self {
        let mut child = Command::new(janus_bin())
            .args(args)
            .env("JANUS_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("janus serve --http starts");
        let mut err = BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut addr = None;
        for _ in 0..20 {
            let mut l = String::new();
            if err.read_line(&mut l).unwrap_or(0) == 0 {
                break;
            }
            if l.contains("listening (HTTP") {
                addr = l
                    .split("addr=")
                    .nth(1)
                    .and_then(|a| a.split_whitespace().next())
                    .map(str::to_owned);
                break;
            }
        }
        thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("janus {args:?} logged no address");
        };
        Self { child, addr }
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
