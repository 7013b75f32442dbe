//! Security: choosing the alternative, applying credentials, the OAuth 2.0
//! client-credentials token cache.

/// OAuth 2.0 access tokens fetched with the client-credentials flow, by scheme and
/// scopes, until they expire.
#[derive(Debug, Default)]
pub struct TokenCache {}
