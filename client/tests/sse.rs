//! The 2024-11-05 HTTP+SSE transport: a `GET` stream whose first event names the POST
//! endpoint, answers on the stream. The server here is Janus's connection core behind a
//! small shim that speaks that old transport (Janus itself serves streamable HTTP only),
//! over plain TCP or behind rustls with certificates the test makes.

mod pki;

use bytes::BytesMut;
use janus_client::{CallOptions, Client, Error, Mode, Options, Tls, Transport};
use janus_server_core::{Connection, demo};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

struct Shim {
    conn: Mutex<Connection>,
    stream: Mutex<Option<mpsc::UnboundedSender<String>>>,
}

/// Reads one request: its head and its body.
async fn read_request(s: &mut (impl AsyncRead + Unpin)) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((head, body))
}

async fn serve(
    shim: Arc<Shim>,
    mut s: impl AsyncRead + AsyncWrite + Unpin,
    endpoint: &'static str,
) {
    let Some((head, body)) = read_request(&mut s).await else {
        return;
    };
    if head.starts_with("GET /sse") {
        let (tx, mut rx) = mpsc::unbounded_channel();
        *shim.stream.lock().unwrap() = Some(tx);
        let mut out = String::from(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
        );
        out.push_str(&format!("event: endpoint\r\ndata: {endpoint}\r\n\r\n"));
        if s.write_all(out.as_bytes()).await.is_err() {
            return;
        }
        while let Some(line) = rx.recv().await {
            let e = format!("event: message\ndata: {line}\n\n");
            if s.write_all(e.as_bytes()).await.is_err() {
                return;
            }
        }
        return;
    }
    if head.starts_with("POST /messages") {
        let mut out = BytesMut::new();
        shim.conn.lock().unwrap().handle_line(&body, &mut out);
        let tx = shim.stream.lock().unwrap().clone();
        for line in out[..].split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            if let Some(tx) = &tx {
                let _ = tx.send(String::from_utf8_lossy(line).into_owned());
            }
        }
        let _ = s
            .write_all(
                b"HTTP/1.1 202 Accepted\r\ncontent-length: 8\r\nconnection: close\r\n\r\nAccepted",
            )
            .await;
        return;
    }
    let _ = s
        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        .await;
}

async fn start(endpoint: &'static str) -> SocketAddr {
    start_on(endpoint, None).await
}

/// The shim, behind TLS when given an acceptor (a refused handshake ends that connection).
async fn start_on(endpoint: &'static str, tls: Option<tokio_rustls::TlsAcceptor>) -> SocketAddr {
    let shim = Arc::new(Shim {
        conn: Mutex::new(Connection::new(demo::server())),
        stream: Mutex::new(None),
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            let shim = Arc::clone(&shim);
            match tls.clone() {
                None => drop(tokio::spawn(serve(shim, s, endpoint))),
                Some(acceptor) => drop(tokio::spawn(async move {
                    if let Ok(s) = acceptor.accept(s).await {
                        serve(shim, s, endpoint).await;
                    }
                })),
            }
        }
    });
    addr
}

fn sse(addr: SocketAddr, path: &str) -> Transport {
    Transport::Sse {
        url: format!("http://{addr}{path}"),
        headers: Vec::new(),
    }
}

#[tokio::test]
async fn an_old_sse_server_is_reached_through_its_endpoint_event() {
    for endpoint in ["/messages?session_id=1", "messages?session_id=2"] {
        let addr = start(endpoint).await;
        let c = Client::connect(sse(addr, "/sse"), Options::default())
            .await
            .unwrap();
        assert_eq!(c.negotiated().version.as_str(), "2025-11-25");
        let tools = c.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "echo"));
        let r = c
            .call_tool("echo", Some(r#"{"text":"old"}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "old");
        let e = c
            .call_tool("nope", None, CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(e.rejection().map(|r| r.code), Some(-32602), "{e}");
    }
    // Auto: the probe's error comes on the stream; the handshake follows.
    let addr = start("/messages").await;
    let o = Options {
        mode: Mode::Auto,
        cache: janus_client::AutoCache::default(),
        ..Options::default()
    };
    let c = Client::connect(sse(addr, "/sse"), o).await.unwrap();
    // NB. Janus's core answers server/discover: a modern server behind an old transport.
    assert_eq!(c.negotiated().version.as_str(), "2026-07-28");
}

#[tokio::test]
async fn a_stream_that_names_no_endpoint_or_is_not_there_is_an_error() {
    let addr = start("/messages").await;
    let e = Client::connect(sse(addr, "/nothing"), Options::default())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Status(404, _)), "{e}");
}

#[tokio::test]
async fn an_old_sse_server_is_reached_over_https_and_refused_without_its_ca() {
    let ca = pki::Ca::new();
    let addr = start_on("/messages", Some(ca.acceptor(&["localhost"], false))).await;
    let url = format!("https://localhost:{}/sse", addr.port());
    let transport = || Transport::Sse {
        url: url.clone(),
        headers: Vec::new(),
    };
    let o = Options {
        tls: Tls {
            ca_files: vec![ca.file().to_path_buf()],
        },
        ..Options::default()
    };
    let c = Client::connect(transport(), o).await.unwrap();
    assert!(
        c.list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "echo")
    );
    let r = c
        .call_tool("echo", Some(r#"{"text":"sealed"}"#), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "sealed");
    // Without the CA the stream's GET is refused, and the error says whose certificate.
    let e = Client::connect(transport(), Options::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::Transport(m) if m.contains("the certificate of localhost is not trusted")),
        "{e}"
    );
}

#[tokio::test]
async fn an_https_stream_that_names_a_plain_endpoint_is_refused() {
    let ca = pki::Ca::new();
    let addr = start_on(
        "http://127.0.0.1:9/messages",
        Some(ca.acceptor(&["localhost"], false)),
    )
    .await;
    let o = Options {
        tls: Tls {
            ca_files: vec![ca.file().to_path_buf()],
        },
        ..Options::default()
    };
    let e = Client::connect(
        Transport::Sse {
            url: format!("https://localhost:{}/sse", addr.port()),
            headers: Vec::new(),
        },
        o,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&e, Error::Protocol(m) if m.contains("not https")),
        "{e}"
    );
}
