//! `https` on the streamable HTTP transport, both eras, against Janus's endpoint in process
//! behind rustls on loopback, with certificates the test makes: a private CA added with
//! [`Tls::ca_files`] is trusted; without it, or with a certificate for another name or out
//! of date, the client refuses the server with a transport error that names the host and
//! says why.

mod pki;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use janus_client::{CallOptions, Client, Error, Mode, Options, Tls, Transport};
use janus_server_core::demo;
use janus_server_core::http::{HttpConfig, McpService};
use pki::Ca;
use std::net::SocketAddr;
use std::path::Path;
use tokio_rustls::TlsAcceptor;

/// Janus's demo server over TLS on loopback; a handshake the client refuses ends only that
/// connection.
async fn start(acceptor: TlsAcceptor) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = McpService::new(demo::server(), HttpConfig::default());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, service) = (acceptor.clone(), service.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), TowerToHyperService::new(service))
                    .await;
            });
        }
    });
    addr
}

fn https(host: &str, addr: SocketAddr) -> Transport {
    Transport::Http {
        url: format!("https://{host}:{}/mcp", addr.port()),
        headers: Vec::new(),
    }
}

fn opts(mode: Mode, ca: Option<&Path>) -> Options {
    Options {
        mode,
        cache: janus_client::AutoCache::default(),
        tls: Tls {
            ca_files: ca.map(Path::to_path_buf).into_iter().collect(),
        },
        ..Options::default()
    }
}

/// The error of the first request to the server: the handshake's in a legacy session, the
/// first listing's in 2026-07-28 (whose `connect` sends nothing).
async fn first_error(transport: Transport, o: Options) -> Error {
    let modern = o.mode == Mode::Modern;
    match Client::connect(transport, o).await {
        Err(e) => {
            assert!(!modern, "a modern connect sent something: {e}");
            e
        }
        Ok(c) => c.list_tools().await.unwrap_err(),
    }
}

#[tokio::test]
async fn both_eras_work_over_https_when_the_servers_ca_is_added() {
    let ca = Ca::new();
    let addr = start(ca.acceptor(&["localhost", "127.0.0.1"], false)).await;
    for (mode, version, host) in [
        (Mode::Modern, "2026-07-28", "localhost"),
        (Mode::Legacy, "2025-11-25", "localhost"),
        (Mode::Legacy, "2025-11-25", "127.0.0.1"),
    ] {
        let c = Client::connect(https(host, addr), opts(mode, Some(ca.file())))
            .await
            .unwrap();
        assert_eq!(c.negotiated().version.as_str(), version, "{mode:?} {host}");
        let tools = c.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "echo"), "{mode:?} {host}");
        let r = c
            .call_tool("echo", Some(r#"{"text":"sealed"}"#), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(r.text(), "sealed", "{mode:?} {host}");
        c.close(std::time::Duration::from_secs(1)).await;
    }
}

#[tokio::test]
async fn a_server_certificate_from_an_unknown_ca_is_a_transport_error_naming_the_host() {
    let ca = Ca::new();
    let addr = start(ca.acceptor(&["localhost"], false)).await;
    for mode in [Mode::Legacy, Mode::Modern] {
        let e = first_error(https("localhost", addr), opts(mode, None)).await;
        let Error::Transport(m) = &e else {
            panic!("{mode:?}: not a transport error: {e:?}");
        };
        assert!(
            m.contains("the certificate of localhost is not trusted: its issuer is unknown"),
            "{mode:?}: {m}"
        );
        assert_eq!(e.exit_code(), 4);
    }
    // Another CA's certificate does not make this one trusted.
    let other = Ca::new();
    let e = first_error(
        https("localhost", addr),
        opts(Mode::Legacy, Some(other.file())),
    )
    .await;
    assert!(
        matches!(&e, Error::Transport(m) if m.contains("localhost is not trusted")),
        "{e}"
    );
}

#[tokio::test]
async fn a_certificate_for_another_name_is_a_transport_error_naming_the_host() {
    let ca = Ca::new();
    let addr = start(ca.acceptor(&["mcp.example"], false)).await;
    let e = first_error(
        https("localhost", addr),
        opts(Mode::Legacy, Some(ca.file())),
    )
    .await;
    let Error::Transport(m) = &e else {
        panic!("not a transport error: {e:?}");
    };
    assert!(
        m.contains("the certificate of localhost is for another name"),
        "{m}"
    );
    assert!(m.contains("mcp.example"), "the name it is for: {m}");
}

#[tokio::test]
async fn an_expired_certificate_is_a_transport_error_saying_so() {
    let ca = Ca::new();
    let addr = start(ca.acceptor(&["localhost"], true)).await;
    let e = first_error(
        https("localhost", addr),
        opts(Mode::Modern, Some(ca.file())),
    )
    .await;
    assert!(
        matches!(&e, Error::Transport(m) if m.contains("the certificate of localhost has expired")),
        "{e}"
    );
}

#[tokio::test]
async fn a_ca_file_that_cannot_be_read_is_a_configuration_error_of_connect() {
    let missing = Path::new("/nonexistent/janus-ca.pem");
    let addr: SocketAddr = "127.0.0.1:9".parse().unwrap();
    for mode in [Mode::Legacy, Mode::Modern] {
        let e = Client::connect(https("localhost", addr), opts(mode, Some(missing)))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::Config(m) if m.contains("/nonexistent/janus-ca.pem")),
            "{mode:?}: {e}"
        );
    }
}

#[tokio::test]
async fn a_plain_server_behind_an_https_url_is_a_transport_error_not_a_hang() {
    // An HTTP (not TLS) server: the client's TLS hello gets an HTTP error page back.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let stop = janus_server_core::serve::Shutdown::new();
        janus_server_core::http::serve_http(
            McpService::new(demo::server(), HttpConfig::default()),
            listener,
            &stop,
            std::time::Duration::from_secs(1),
        )
        .await
    });
    let e = first_error(https("localhost", addr), opts(Mode::Legacy, None)).await;
    assert!(
        matches!(&e, Error::Transport(m) if m.contains("TLS handshake with localhost failed: the server does not speak TLS")),
        "{e}"
    );
}
