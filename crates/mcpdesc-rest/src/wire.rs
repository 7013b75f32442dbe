//! What a request carries that every part of building it reads: the [`Body`] value and
//! the header names never forwarded or configured. A leaf: `request`, `body`, `plan` and
//! `auth` import it, and it imports none of them.

/// A request body.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The `Content-Type` field value.
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// Headers never forwarded or configured: hop-by-hop (RFC 9110 §7.6.1) and framing.
pub const HOP_BY_HOP: [&str; 10] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// Whether a header name must never be forwarded or configured.
pub fn is_hop_by_hop(name: &str) -> bool {
    HOP_BY_HOP.iter().any(|h| h.eq_ignore_ascii_case(name))
        || name.eq_ignore_ascii_case("content-length")
}
