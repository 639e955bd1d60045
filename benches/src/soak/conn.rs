//! A blocking keep-alive HTTP/1.1 client of `/mcp`.

use super::bad;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A blocking keep-alive HTTP/1.1 client of `/mcp`, one request at a time.
pub(super) struct HttpConn {
    // NB. One descriptor a connection: the writes go through the reader's stream.
    r: BufReader<TcpStream>,
}

impl HttpConn {
    pub(super) fn open(addr: SocketAddr) -> io::Result<Self> {
        let s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Self {
            r: BufReader::new(s),
        })
    }

    /// POSTs a 2026-07-28 request; its status and body.
    pub(super) fn post(
        &mut self,
        method: &str,
        name: Option<&str>,
        body: &[u8],
    ) -> io::Result<(u16, Vec<u8>)> {
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(n) = name {
            headers.push(("mcp-name", n));
        }
        self.post_with(&headers, body)
            .map(|(status, _, body)| (status, body))
    }

    /// POSTs `body` with `headers`; its status, its `Mcp-Session-Id` and its body.
    pub(super) fn post_with(
        &mut self,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<(u16, Option<String>, Vec<u8>)> {
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            body.len()
        );
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let mut req = head.into_bytes();
        req.extend_from_slice(body);
        self.r.get_mut().write_all(&req)?;
        let mut status = 0;
        let mut len = None;
        let mut chunked = false;
        let mut session = None;
        loop {
            let mut line = String::new();
            if self.r.read_line(&mut line)? == 0 {
                return Err(bad("the connection closed"));
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(rest) = line.strip_prefix("HTTP/1.1 ") {
                status = rest.get(..3).and_then(|s| s.parse().ok()).unwrap_or(0);
            } else if let Some((n, v)) = line.split_once(':') {
                if n.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().ok();
                } else if n.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = v.trim().eq_ignore_ascii_case("chunked");
                } else if n.eq_ignore_ascii_case("mcp-session-id") {
                    session = Some(v.trim().to_owned());
                }
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                self.r.read_line(&mut size)?;
                let n = usize::from_str_radix(size.trim(), 16).map_err(|_| bad("bad chunk"))?;
                let mut chunk = vec![0; n + 2];
                self.r.read_exact(&mut chunk)?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else {
            body.resize(len.unwrap_or(0), 0);
            self.r.read_exact(&mut body)?;
        }
        Ok((status, session, body))
    }
}
