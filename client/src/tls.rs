//! `https` for the HTTP transports and the authorization requests: rustls (on ring) behind
//! hyper-util's connector.
//!
//! A server's certificate is checked against the platform's roots (read once per process by
//! rustls-native-certs, which honours `SSL_CERT_FILE` and `SSL_CERT_DIR`) and the CA files
//! the caller adds ([`Tls::ca_files`]). An `http` URL builds none of this: its client is
//! hyper's plain connector, as before.
//!
//! A certificate the client refuses is an [`Error::Transport`] that names the host and the
//! reason (an unknown issuer, an expired certificate, another name), read from the error
//! hyper hands back: the rustls error sits at the end of its source chain, inside the
//! `io::Error`s the TLS connector wraps it in.

use crate::error::Error;
use bytes::Bytes;
use http::{Request, Uri};
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::{Client as HyperClient, ResponseFuture};
use hyper_util::rt::TokioExecutor;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{CertificateError, ClientConfig, RootCertStore};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// How the client checks the certificates of `https` servers.
///
/// The platform's roots are always trusted; `ca_files` adds private certificate authorities
/// (say, the one that signed an internal server's certificate). It is read only for an
/// `https` URL: an `http` one sets up no TLS at all.
///
/// ```
/// # use janus_client::{Options, Tls};
/// let opts = Options {
///     tls: Tls { ca_files: vec!["/etc/janus/internal-ca.pem".into()] },
///     ..Options::default()
/// };
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tls {
    /// PEM files of certificate authorities trusted beside the platform's roots; each holds
    /// one certificate or more. A file that cannot be read or holds none is an
    /// [`Error::Config`] when the client connects.
    pub ca_files: Vec<PathBuf>,
}

/// The hyper client of one HTTP connection: plain for an `http` URL, TLS for an `https` one.
///
/// NB. Two clients rather than one TLS connector that also speaks plain HTTP: an `http` URL
/// then loads no roots and builds no TLS configuration, and costs what it cost before.
#[derive(Clone)]
pub(crate) enum Hyper {
    /// `http`.
    Plain(HyperClient<HttpConnector, Full<Bytes>>),
    /// `https` (and only `https`: the connector refuses to fall back to plain HTTP).
    Tls(HyperClient<HttpsConnector<HttpConnector>, Full<Bytes>>),
}

impl Hyper {
    /// The client for `uri`'s scheme.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for a scheme other than `http` and `https`, and for a CA file that
    /// cannot be read or holds no certificate.
    pub(crate) fn new(uri: &Uri, tls: &Tls) -> Result<Self, Error> {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        let builder = HyperClient::builder(TokioExecutor::new());
        match uri.scheme_str() {
            Some("http") => Ok(Self::Plain(builder.build(http))),
            Some("https") => {
                // NB. The plain connector refuses any scheme but `http` unless told not to:
                // here it only opens the TCP connection the TLS connector then wraps.
                http.enforce_http(false);
                let mut https = HttpsConnector::from((http, client_config(tls)?));
                https.enforce_https();
                Ok(Self::Tls(builder.build(https)))
            }
            _ => Err(Error::Config(format!("{uri} is no http or https URL"))),
        }
    }

    /// Whether this client speaks TLS.
    pub(crate) const fn is_tls(&self) -> bool {
        matches!(self, Self::Tls(_))
    }

    /// Sends `req`.
    pub(crate) fn request(&self, req: Request<Full<Bytes>>) -> ResponseFuture {
        match self {
            Self::Plain(c) => c.request(req),
            Self::Tls(c) => c.request(req),
        }
    }
}

/// The platform's roots, read once: reading them is file I/O and parsing some hundred
/// certificates, which a process need not repeat for every connection.
fn platform_roots() -> &'static RootCertStore {
    static ROOTS: OnceLock<RootCertStore> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for e in &found.errors {
            tracing::debug!("reading the platform's root certificates: {e}");
        }
        let mut roots = RootCertStore::empty();
        let (added, ignored) = roots.add_parsable_certificates(found.certs);
        if ignored > 0 {
            tracing::debug!("{ignored} of the platform's root certificates could not be used");
        }
        if added == 0 {
            tracing::warn!(
                "the platform has no root certificates: only CA files given to the client are trusted"
            );
        }
        roots
    })
}

/// The rustls configuration for `tls`: the one without CA files is shared by every
/// connection of the process.
fn client_config(tls: &Tls) -> Result<Arc<ClientConfig>, Error> {
    static DEFAULT: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    if tls.ca_files.is_empty() {
        if let Some(c) = DEFAULT.get() {
            return Ok(Arc::clone(c));
        }
        let c = Arc::new(build_config(platform_roots().clone())?);
        return Ok(Arc::clone(DEFAULT.get_or_init(|| c)));
    }
    let mut roots = platform_roots().clone();
    for path in &tls.ca_files {
        let shown = path.display();
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|e| Error::Config(format!("cannot read the CA file {shown}: {e}")))?;
        if certs.is_empty() {
            return Err(Error::Config(format!(
                "the CA file {shown} holds no PEM certificate"
            )));
        }
        for cert in certs {
            roots.add(cert).map_err(|e| {
                Error::Config(format!("the CA file {shown} holds no usable CA: {e}"))
            })?;
        }
    }
    Ok(Arc::new(build_config(roots)?))
}

fn build_config(roots: RootCertStore) -> Result<ClientConfig, Error> {
    // NB. The provider is named rather than taken from the process's default, which is
    // unset (or ambiguous) when the binary links more than one rustls provider.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Config(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // The client speaks HTTP/1.1 only; saying so lets a server that serves both pick it.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// What went wrong with a request to `uri`, as one line: a refused certificate named with
/// its host and reason, anything else as its error chain.
pub(crate) fn describe(e: &(dyn std::error::Error + 'static), uri: &Uri) -> String {
    let mut chain = Vec::<String>::new();
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return tls_failure(tls, uri.host().unwrap_or("the server"));
        }
        let text = e.to_string();
        if chain.last() != Some(&text) {
            chain.push(text);
        }
        // NB. An `io::Error` wrapping another error displays it but skips it as its source
        // (it returns the inner error's source): the rustls error is reached through
        // `get_ref`, the way the TLS connector nests it.
        next = e
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
            .map(|inner| inner as &(dyn std::error::Error + 'static))
            .or_else(|| e.source());
    }
    chain.join(": ")
}

/// A TLS failure with `host`, in words.
fn tls_failure(e: &rustls::Error, host: &str) -> String {
    let cert = match e {
        rustls::Error::InvalidCertificate(cert) => cert,
        // NB. What a server that answers in plain HTTP looks like to a TLS client.
        rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
            return format!(
                "the TLS handshake with {host} failed: the server does not speak TLS (is the URL http?)"
            );
        }
        e => return format!("the TLS handshake with {host} failed: {e}"),
    };
    match cert {
        CertificateError::UnknownIssuer => format!(
            "the certificate of {host} is not trusted: its issuer is unknown (neither among the \
             platform's roots nor in a CA file given to the client)"
        ),
        CertificateError::BadSignature => {
            format!("the certificate of {host} is not trusted: its signature is invalid")
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("the certificate of {host} has expired ({cert})")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            format!("the certificate of {host} is not valid yet ({cert})")
        }
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            format!("the certificate of {host} is for another name ({cert})")
        }
        CertificateError::Revoked => format!("the certificate of {host} has been revoked"),
        other => format!("the certificate of {host} was refused ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_url_builds_the_plain_client_and_an_https_one_the_tls_client() {
        let tls = Tls {
            ca_files: vec!["/nonexistent/ca.pem".into()],
        };
        // NB. The CA file is not read for an `http` URL: no TLS is set up there.
        let plain = Hyper::new(&"http://127.0.0.1:1/mcp".parse().unwrap(), &tls).unwrap();
        assert!(!plain.is_tls());
        let https = Hyper::new(&"https://127.0.0.1:1/mcp".parse().unwrap(), &Tls::default());
        assert!(https.unwrap().is_tls());
        let e = Hyper::new(&"ftp://h/".parse().unwrap(), &Tls::default()).err();
        assert!(matches!(e, Some(Error::Config(_))), "{e:?}");
    }

    #[test]
    fn a_ca_file_that_is_missing_or_holds_no_certificate_is_a_configuration_error_naming_it() {
        let uri: Uri = "https://localhost/mcp".parse().unwrap();
        let missing = Tls {
            ca_files: vec!["/nonexistent/ca.pem".into()],
        };
        let Err(Error::Config(m)) = Hyper::new(&uri, &missing) else {
            panic!("a missing CA file was accepted");
        };
        assert!(m.contains("/nonexistent/ca.pem"), "{m}");
        let empty = std::env::temp_dir().join(format!("janus-empty-ca-{}.pem", std::process::id()));
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let r = Hyper::new(
            &uri,
            &Tls {
                ca_files: vec![empty.clone()],
            },
        );
        let _ = std::fs::remove_file(&empty);
        let Err(Error::Config(m)) = r else {
            panic!("a CA file without a certificate was accepted");
        };
        assert!(m.contains("holds no PEM certificate"), "{m}");
    }

    #[test]
    fn a_rustls_error_nested_in_io_errors_is_read_as_a_certificate_failure_naming_the_host() {
        let uri: Uri = "https://mcp.example:8443/mcp".parse().unwrap();
        // The nesting hyper-rustls makes: io::Error::other around tokio-rustls's io::Error.
        let inner = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
        );
        let outer = std::io::Error::other(inner);
        let text = describe(&outer, &uri);
        assert!(
            text.contains("certificate of mcp.example is not trusted"),
            "{text}"
        );
        let expired =
            std::io::Error::other(rustls::Error::InvalidCertificate(CertificateError::Expired));
        assert!(describe(&expired, &uri).contains("mcp.example has expired"));
        let refused =
            std::io::Error::other(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert_eq!(describe(&refused, &uri), "connection refused");
    }
}
