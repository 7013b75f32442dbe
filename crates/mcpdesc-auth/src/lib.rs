//! # mcpdesc-auth
//!
//! `mcpdesc serve --http` as an OAuth 2.1 resource server (MCP authorization, issue 28):
//! access-token validation ([`jwt`]: RFC 9068 JWTs on `jsonwebtoken`, with an explicit
//! algorithm allowlist) and the authorization server as the gateway talks to it
//! ([`issuer`]: RFC 8414 / OpenID discovery, the JWKS with rate-limited refetch on key
//! rotation, RFC 7662 introspection, RFC 8693 token exchange). The HTTP side (RFC 9728
//! metadata, challenges, scopes per tool) is in `mcpdesc-serve`. [`tls`] is the one rustls
//! client set-up of every outbound HTTPS client (issuer calls and the REST gateway's).

pub mod issuer;
pub mod jwt;
pub mod tls;

pub use issuer::{
    ClientCredential, ExchangeError, Issuer, IssuerError, IssuerOptions, Metadata, SubjectToken,
    UpstreamToken, token_hash,
};
pub use jwt::{Checks, Claims, KeySet, Reject};

#[cfg(test)]
mod tests_mutants;
