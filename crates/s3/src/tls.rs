//! TLS for https endpoints: rustls with the aws-lc-rs provider and the platform's roots.

use std::sync::Arc;

use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};

/// The TLS settings of every S3 connection. The platform's root certificates are read once,
/// here; certificates it cannot parse are left out (a server they vouch for then fails its
/// handshake with a clear error, as with any unknown root).
pub(crate) fn config() -> TlsConfig {
    let native = rustls_native_certs::load_native_certs();
    let roots: Vec<Certificate<'static>> =
        native.certs.iter().map(|c| Certificate::from_der(c.as_ref()).to_owned()).collect();
    TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .root_certs(RootCerts::Specific(Arc::new(roots)))
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .build()
}
