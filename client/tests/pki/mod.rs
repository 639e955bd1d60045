//! Certificates the tests make: a CA of their own (its certificate in a PEM file, the way a
//! user hands one to the client) and the server certificates it signs, served over TLS on
//! loopback with rustls.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    date_time_ymd,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A certificate authority of the test's own, its certificate written to a PEM file that
/// is removed when it is dropped.
pub(crate) struct Ca {
    issuer: Issuer<'static, KeyPair>,
    der: CertificateDer<'static>,
    file: PathBuf,
}

impl Ca {
    /// A new CA, its certificate in a file of its own.
    pub(crate) fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "Janus test CA");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).unwrap();
        let file = std::env::temp_dir().join(format!(
            "janus-test-ca-{}-{}.pem",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&file, cert.pem()).unwrap();
        Self {
            issuer: Issuer::new(params, key),
            der: cert.der().clone(),
            file,
        }
    }

    /// The PEM file of the CA's certificate.
    pub(crate) fn file(&self) -> &Path {
        &self.file
    }

    /// An acceptor serving a certificate this CA signed for `names` (DNS names or IP
    /// addresses), valid now, or expired long ago when `expired`.
    pub(crate) fn acceptor(&self, names: &[&str], expired: bool) -> TlsAcceptor {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "janus test server");
        if expired {
            params.not_before = date_time_ymd(2019, 1, 1);
            params.not_after = date_time_ymd(2020, 1, 1);
        }
        let leaf = params.signed_by(&key, &self.issuer).unwrap();
        let chain = vec![leaf.der().clone(), self.der.clone()];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        TlsAcceptor::from(Arc::new(config))
    }
}

impl Drop for Ca {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
    }
}
