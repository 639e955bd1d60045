//! A scripted client of one `Connection`, in memory: lines in, parsed answers out, and the
//! connection's jobs run by the driver's own `Runner` on the test's runtime (paused clocks
//! make `sleep` instant).

#![allow(dead_code, unreachable_pub)]

use bytes::BytesMut;
use janus_server_core::serve::Runner;
use janus_server_core::{Connection, Server, demo};
use serde_json::Value;
use std::sync::Arc;

pub const ENV: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Parses the lines a frame appended: each `\n`-terminated, one compact JSON message.
pub fn parse_lines(out: &[u8]) -> Vec<Value> {
    if out.is_empty() {
        return Vec::new();
    }
    assert_eq!(out.last(), Some(&b'\n'), "output does not end with \\n");
    out[..out.len() - 1]
        .split(|&b| b == b'\n')
        .map(|line| {
            assert!(!line.contains(&b'\r'), "a raw line break in the output");
            let text = std::str::from_utf8(line).expect("output is UTF-8");
            assert_compact(text);
            serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
        })
        .collect()
}

/// No white space outside strings.
pub fn assert_compact(text: &str) {
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else {
            assert!(!c.is_whitespace(), "not compact: {text}");
        }
    }
}

/// A scripted client of one `Connection`.
pub struct Client {
    pub conn: Connection,
    runner: Runner,
    /// What the connection wrote while its jobs ran, not yet taken.
    later: BytesMut,
}

impl Client {
    pub fn new() -> Self {
        Self::with(demo::server())
    }

    pub fn with(server: Arc<Server>) -> Self {
        let mut conn = Connection::new(server);
        // The runner tells the connection the system's time as jobs end; so does this.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        conn.handle_time(u64::try_from(now.as_millis()).unwrap());
        let runner = Runner::new();
        runner.attach(&mut conn);
        Self {
            conn,
            runner,
            later: BytesMut::new(),
        }
    }

    /// Jobs running (started by the connection and not ended).
    pub fn running(&self) -> usize {
        self.conn.running()
    }

    /// Hands one line to the connection and starts the work it asks for; returns what it
    /// wrote at once.
    ///
    /// The runner needs a tokio runtime only when a job starts, so tests without
    /// asynchronous tools need none.
    pub fn raw(&mut self, line: &[u8]) -> BytesMut {
        let mut out = BytesMut::new();
        self.conn.handle_line(line, &mut out);
        self.runner.act(&mut self.conn);
        out
    }

    pub fn send(&mut self, line: &str) -> Vec<Value> {
        parse_lines(&self.raw(line.as_bytes()))
    }

    /// One line in, exactly one answer out at once, no job started.
    pub fn answer(&mut self, line: &str) -> Value {
        let before = self.conn.foreground();
        let mut lines = self.send(line);
        assert_eq!(
            self.conn.foreground(),
            before,
            "a job was started for {line}"
        );
        assert_eq!(lines.len(), 1, "want one answer to {line}, got {lines:?}");
        let v = lines.remove(0);
        // A batch answer is an array of messages.
        for m in v
            .as_array()
            .map_or_else(|| vec![&v], |a| a.iter().collect())
        {
            assert_eq!(m["jsonrpc"], "2.0", "{m}");
        }
        v
    }

    /// One line in, nothing out.
    pub fn silent(&mut self, line: &str) {
        let lines = self.send(line);
        assert!(lines.is_empty(), "want no answer to {line}, got {lines:?}");
    }

    /// One line in, a request's job out (and nothing written at once).
    pub fn job(&mut self, line: &str) {
        let before = self.conn.foreground();
        let lines = self.send(line);
        assert!(lines.is_empty(), "want a job for {line}, got {lines:?}");
        assert_eq!(
            self.conn.foreground(),
            before + 1,
            "want one job for {line}"
        );
    }

    /// Runs the jobs until none is left; returns what the connection wrote meanwhile.
    pub async fn settle(&mut self) -> Vec<Value> {
        self.settle_raw().await;
        let out = std::mem::take(&mut self.later);
        parse_lines(&out)
    }

    /// Runs the jobs until none is left, keeping what the connection wrote.
    pub async fn settle_raw(&mut self) {
        while !self.runner.is_idle() {
            self.runner.next(&mut self.conn, &mut self.later).await;
        }
    }

    /// What the connection wrote while its jobs ran, not yet taken.
    pub fn take_later(&mut self) -> BytesMut {
        std::mem::take(&mut self.later)
    }

    /// Runs the jobs until the connection writes something (or none is left).
    pub async fn step(&mut self) -> Vec<Value> {
        while self.later.is_empty() && !self.runner.is_idle() {
            self.runner.next(&mut self.conn, &mut self.later).await;
        }
        let out = std::mem::take(&mut self.later);
        parse_lines(&out)
    }

    /// Waits up to 200 ms for what the connection writes as notes arrive (a session's list
    /// changes, a listener's notifications), and returns it.
    pub async fn hear(&mut self) -> Vec<Value> {
        parse_lines(&self.hear_raw().await)
    }

    /// [`Client::hear`], the bytes.
    pub async fn hear_raw(&mut self) -> BytesMut {
        let _ = tokio::time::timeout(
            std::time::Duration::from_millis(200),
            self.runner.next(&mut self.conn, &mut self.later),
        )
        .await;
        while self.later.is_empty() {
            if tokio::time::timeout(
                std::time::Duration::from_millis(20),
                self.runner.next(&mut self.conn, &mut self.later),
            )
            .await
            .is_err()
            {
                break;
            }
        }
        std::mem::take(&mut self.later)
    }

    /// Runs the jobs to their end; wants exactly one line.
    pub async fn finish(&mut self) -> Value {
        let mut lines = self.settle().await;
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines.remove(0)
    }

    /// A legacy connection that negotiated `version`.
    pub fn legacy(version: &str) -> Self {
        let mut c = Self::new();
        c.initialize(version);
        c
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        let r = self.answer(&initialize(0, version));
        assert_eq!(r["result"]["protocolVersion"], version, "{r}");
        self.silent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// A modern connection (one request answered).
    pub fn modern() -> Self {
        let mut c = Self::new();
        let r = c.answer(&modern(0, "server/discover", ""));
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        c
    }
}

pub fn initialize(id: i64, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

/// A request with the modern envelope; `members` are more members of `params` (each followed
/// by a comma), e.g. `"name":"echo",`.
pub fn modern(id: impl std::fmt::Display, method: &str, members: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{members}"_meta":{ENV}}}}}"#
    )
}

/// A request without envelope; `params` is JSON text or empty for none.
pub fn legacy(id: impl std::fmt::Display, method: &str, params: &str) -> String {
    if params.is_empty() {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#)
    } else {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
    }
}

pub fn cancel(request_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{request_id}}}}}"#
    )
}

/// A legacy `tools/call` of the demo `sleep` for 200 ms.
pub fn sleep_200(id: i64) -> String {
    legacy(
        id,
        "tools/call",
        r#"{"name":"sleep","arguments":{"ms":200}}"#,
    )
}

pub fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}
