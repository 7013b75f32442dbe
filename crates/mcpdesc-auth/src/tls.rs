//! The one TLS client set-up of the gateway's outbound HTTP (the REST gateway's
//! upstream requests and the issuer calls of [`crate::issuer`]): rustls with the ring
//! crypto provider, its safe default protocol versions (TLS 1.2 and 1.3), the platform's
//! certificate verifier (the system's roots and revocation checks, through
//! `rustls-platform-verifier`) and no client certificate.

use std::sync::Arc;

/// The rustls client configuration every outbound HTTPS client of the gateway uses (hand
/// it to reqwest with `ClientBuilder::tls_backend_preconfigured`). An error is rustls'
/// when the platform verifier cannot be set up (no usable root store, say).
pub fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    use rustls_platform_verifier::BuilderVerifierExt as _;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_platform_verifier()?
        .with_no_client_auth())
}
