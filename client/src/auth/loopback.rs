//! The loopback redirect of a native application (RFC 8252 §7.3): a listener on
//! `127.0.0.1`, the authorization URL shown to the user, the redirect read from the one
//! request the browser makes.

use super::{Browser, BrowserFuture};
use crate::error::Error;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A [`Browser`] for a person: it shows the authorization URL (through the function given to
/// [`Loopback::new`]) and waits for the browser's redirect to `http://127.0.0.1:PORT/callback`
/// on a listener of its own.
pub struct Loopback {
    listener: Mutex<Option<std::net::TcpListener>>,
    port: u16,
    show: Arc<dyn Fn(&str) + Send + Sync>,
}

impl Loopback {
    /// Listens on a free port of `127.0.0.1`; `show` is given each authorization URL to
    /// open (print it, or start a browser with it).
    ///
    /// # Errors
    ///
    /// [`Error::Auth`] when no port can be had.
    pub fn new(show: impl Fn(&str) + Send + Sync + 'static) -> Result<Self, Error> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| Error::Auth(format!("no loopback port for the redirect: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Auth(format!("no loopback port for the redirect: {e}")))?
            .port();
        Ok(Self {
            listener: Mutex::new(Some(listener)),
            port,
            show: Arc::new(show),
        })
    }
}

impl Browser for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BrowserFuture<'a> {
        Box::pin(async move {
            let std_listener = self
                .listener
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .as_ref()
                .map(std::net::TcpListener::try_clone)
                .transpose()
                .map_err(|e| Error::Auth(format!("the loopback listener: {e}")))?
                .ok_or_else(|| Error::Auth("the loopback listener is gone".into()))?;
            let listener = tokio::net::TcpListener::from_std(std_listener)
                .map_err(|e| Error::Auth(format!("the loopback listener: {e}")))?;
            (self.show)(url);
            loop {
                let (mut sock, _) = listener
                    .accept()
                    .await
                    .map_err(|e| Error::Auth(format!("the loopback listener: {e}")))?;
                let mut buf = vec![0u8; 8192];
                let mut n = 0;
                // NB. Only the request line is needed: read until it is whole.
                while n < buf.len() && !buf[..n].contains(&b'\n') {
                    match sock.read(&mut buf[n..]).await {
                        Ok(0) | Err(_) => break,
                        Ok(k) => n += k,
                    }
                }
                let line = String::from_utf8_lossy(&buf[..n]);
                let target = line
                    .lines()
                    .next()
                    .and_then(|l| l.strip_prefix("GET "))
                    .and_then(|l| l.split(' ').next())
                    .filter(|t| t.starts_with("/callback"));
                let Some(target) = target else {
                    let _ = sock
                        .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                    continue;
                };
                let page = "Janus: authorization received; you can close this window.";
                let _ = sock
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                            page.len()
                        )
                        .as_bytes(),
                    )
                    .await;
                return Ok(format!("http://127.0.0.1:{}{target}", self.port));
            }
        })
    }
}
