//! A plain HTTP/1.1 client for the tests of `janus serve --http`: one request a connection.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The `_meta` of a 2026-07-28 request whose client declares `caps`.
pub(crate) fn envelope(caps: &str) -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}"#
    )
}

/// A 2026-07-28 request's body.
pub(crate) fn modern(id: u64, method: &str, params: &str, caps: &str) -> String {
    let meta = envelope(caps);
    let params = if params.is_empty() {
        format!("{{{meta}}}")
    } else {
        format!("{{{params},{meta}}}")
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// Sends a POST to `/mcp` on a new connection, with `headers`; the stream, to read the
/// answer from.
pub(crate) fn post(addr: &str, headers: &[(&str, &str)], body: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    s
}

/// Sends a 2026-07-28 POST with its routing headers (`Mcp-Name` when `name` is given).
pub(crate) fn send(addr: &str, method: &str, name: Option<&str>, body: &str) -> TcpStream {
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if let Some(n) = name {
        headers.push(("mcp-name", n));
    }
    post(addr, &headers, body)
}

/// Reads a whole answer: its status, head (as sent) and the JSON it carries (a JSON body,
/// or the last event of a stream); `Value::Null` when it carries none.
pub(crate) fn read_answer(mut s: TcpStream) -> (u16, String, Value) {
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let json = body
        .lines()
        .map(|l| l.trim().strip_prefix("data:").map_or(l.trim(), str::trim))
        .rfind(|l| l.starts_with('{'))
        .map_or(Value::Null, |j| serde_json::from_str(j).unwrap());
    (status, head.to_owned(), json)
}

/// The value of header `name` (lower case) in `head`.
pub(crate) fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// One 2026-07-28 request and its JSON answer.
pub(crate) fn ask(addr: &str, method: &str, name: Option<&str>, body: &str) -> Value {
    read_answer(send(addr, method, name, body)).2
}

/// A `GET` of `path`: the status and the body.
pub(crate) fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    (
        head.split(' ').nth(1).unwrap().parse().unwrap(),
        body.to_owned(),
    )
}

/// A free loopback port (bound, then let go).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

/// The value of the sample `name{labels}` in a Prometheus text page (labels as written,
/// in the exporter's order); 0 when absent.
pub(crate) fn sample(page: &str, series: &str) -> f64 {
    page.lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.strip_prefix(' ')))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}
