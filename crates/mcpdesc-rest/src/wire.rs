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

/// What the gateway does with a header field, by name: the one rule that configured
/// headers (`RestOptions::static_headers`), header parameters, credentials and forwarded
/// inbound headers all follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderRule {
    /// An end-to-end field: sent as configured or forwarded.
    EndToEnd,
    /// A connection-specific (hop-by-hop) field, RFC 9110 §7.6.1: `Connection` and the
    /// fields it conventionally names (`Keep-Alive`, `Proxy-Connection`, `TE`,
    /// `Transfer-Encoding`, `Upgrade`), `Proxy-Authenticate`/`Proxy-Authorization`
    /// (RFC 9110 §11.7: consumed by the proxy they are for), `Trailer` — or a field
    /// named as a connection option by a `Connection` field of the message.
    HopByHop,
    /// Framing and target fields the HTTP client computes itself: `Content-Length`
    /// (RFC 9110 §8.6) and `Host` (§7.2).
    GatewaySets,
}

/// The hop-by-hop fields by name (lower case).
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

impl HeaderRule {
    /// The rule for a field name (case-insensitive).
    pub fn of(name: &str) -> HeaderRule {
        if HOP_BY_HOP.iter().any(|h| h.eq_ignore_ascii_case(name)) {
            HeaderRule::HopByHop
        } else if name.eq_ignore_ascii_case("host") || name.eq_ignore_ascii_case("content-length") {
            HeaderRule::GatewaySets
        } else {
            HeaderRule::EndToEnd
        }
    }

    /// The rule for a field of a message whose `Connection` fields are `connection`
    /// (their values, comma-separated connection options, RFC 9110 §7.6.1): a field a
    /// connection option names is hop-by-hop too.
    pub fn in_message<'a>(name: &str, connection: impl IntoIterator<Item = &'a str>) -> HeaderRule {
        match HeaderRule::of(name) {
            HeaderRule::EndToEnd
                if connection
                    .into_iter()
                    .flat_map(|v| v.split(','))
                    .any(|opt| opt.trim().eq_ignore_ascii_case(name)) =>
            {
                HeaderRule::HopByHop
            }
            rule => rule,
        }
    }

    /// Whether a field under this rule may be sent upstream as configured or received.
    pub fn passes(self) -> bool {
        self == HeaderRule::EndToEnd
    }
}

/// Whether a header name must never be forwarded or configured ([`HeaderRule::of`] is
/// not [`HeaderRule::EndToEnd`]).
pub fn is_hop_by_hop(name: &str) -> bool {
    !HeaderRule::of(name).passes()
}
