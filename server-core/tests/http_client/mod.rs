//! A plain HTTP/1.1 client on loopback for the in-process HTTP tests: one request per
//! connection, the raw head and the body (chunked or not) as they came.
#![allow(dead_code)]

use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::timeout;

pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The `data` of each SSE event that has some (not a priming event's).
    pub(crate) fn events(&self) -> Vec<Value> {
        self.sse()
            .into_iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(_, d)| serde_json::from_str(&d).unwrap())
            .collect()
    }

    /// Each SSE event's id and data (empty for a priming event), in order; fields other
    /// than these (`retry`, `event`) are left out.
    pub(crate) fn sse(&self) -> Vec<(Option<String>, String)> {
        String::from_utf8_lossy(&self.body)
            .split("\n\n")
            .filter(|e| e.lines().any(|l| l.starts_with("data:")))
            .map(|e| {
                let id = e
                    .lines()
                    .find_map(|l| l.strip_prefix("id: "))
                    .map(str::to_owned);
                let data = e
                    .lines()
                    .find_map(|l| l.strip_prefix("data:"))
                    .unwrap_or_default()
                    .trim_start()
                    .to_owned();
                (id, data)
            })
            .collect()
    }
}

/// Undoes `Transfer-Encoding: chunked`.
fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
}

pub(crate) async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    raw_request(addr, text.as_bytes()).await
}

/// Sends `bytes` (a whole request, head and body, as given) on a new connection and reads the
/// answer until the server closes it.
pub(crate) async fn raw_request(addr: SocketAddr, bytes: &[u8]) -> Reply {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(bytes).await.unwrap();
    let mut raw = Vec::new();
    timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v == "chunked")
    {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

/// A modern `tools/call` POST with the routing headers that match it.
pub(crate) async fn call(addr: SocketAddr, id: u64, tool: &str, args: &str, meta: &str) -> Reply {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}{meta}}}}}}}"#
    );
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    request(addr, "POST", "/mcp", &h, &body).await
}
