//! MCP `_meta` vocabulary (§3.5, §8.4): the identifier grammars shared by `_meta` keys,
//! `capabilities.extensions` and `clientRequirements.extensions`, the MCP-reserved
//! prefix rule, and the reserved keys MCP defines.
//!
//! Which revision defines which key is a revision fact and lives in
//! [`crate::revision`] (e.g. [`crate::Feature::ServerInfoMeta`]).

/// `_meta` key of the server identity on completed results (2026-07-28,
/// [`crate::Feature::ServerInfoMeta`]).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key of the per-request envelope carrying the protocol revision
/// ([`crate::Feature::StatelessLifecycle`]).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the per-request client identity ([`crate::Feature::StatelessLifecycle`]).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the per-request client capabilities ([`crate::Feature::StatelessLifecycle`]).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of a request's progress token (request metadata in every revision).
pub const PROGRESS_TOKEN: &str = "progressToken";

/// Reserved keys valid only in request `_meta` (never in results, content or declarations).
pub const REQUEST_ONLY_KEYS: &[&str] = &[PROGRESS_TOKEN];

/// One DNS-like prefix label: letter, then letters/digits/hyphens, not ending in a hyphen.
fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphabetic()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        }
        _ => false,
    }
}

/// A dot-separated prefix of labels (without the trailing `/`).
fn is_prefix(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_label)
}

/// A name: alphanumeric at both ends, `.`, `_`, `-` inside.
fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        }
        _ => false,
    }
}

/// Mandatory-prefix identifier `prefix/name` (§8.4 extension identifiers).
pub fn is_extension_identifier(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => is_prefix(prefix) && is_name(name),
        None => false,
    }
}

/// MCP `_meta` key: optional `prefix/`, then a name that may be empty (MCP `_meta` key
/// format, all revisions that define `_meta`).
pub fn is_meta_key(s: &str) -> bool {
    let name = match s.rsplit_once('/') {
        Some((prefix, name)) => {
            if !is_prefix(prefix) {
                return false;
            }
            name
        }
        None => s,
    };
    name.is_empty() || is_name(name)
}

/// Whether an identifier's prefix is reserved for MCP use.
///
/// §8.4 reserves a prefix whose *second* label is `modelcontextprotocol` or `mcp`
/// (`io.modelcontextprotocol/…`); the MCP `_meta` key rules reserve any prefix with one of
/// those labels followed by another label (`modelcontextprotocol.io/…`). Both readings are
/// honoured: being reserved only ever adds a warning for unrecognized identifiers.
pub fn has_reserved_prefix(s: &str) -> bool {
    let Some((prefix, _)) = s.rsplit_once('/') else {
        return false;
    };
    let labels: Vec<String> = prefix.split('.').map(str::to_ascii_lowercase).collect();
    let reserved = |l: &str| l == "modelcontextprotocol" || l == "mcp";
    labels.get(1).is_some_and(|l| reserved(l))
        || labels
            .iter()
            .take(labels.len().saturating_sub(1))
            .any(|l| reserved(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_identifier_grammar() {
        for ok in [
            "io.modelcontextprotocol/ui",
            "com.example/custom-feature",
            "a/b",
            "a-b.c9/x.y_z",
        ] {
            assert!(is_extension_identifier(ok), "{ok}");
        }
        for bad in [
            "missing-prefix",
            "x-example-policy",
            "/name",
            "io./x",
            "9io/x",
            "io-/x",
            "io/-x",
            "io/x-",
            "io/",
        ] {
            assert!(!is_extension_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn meta_key_grammar() {
        for ok in [
            "display_hint",
            "com.example/status",
            "io.modelcontextprotocol/serverInfo",
            "traceparent",
            "a",
            "com.example/",
        ] {
            assert!(is_meta_key(ok), "{ok}");
        }
        for bad in [
            "bad key",
            "_private",
            "-x",
            "x-",
            "com..example/x",
            "1com/x",
            "com.example/bad key",
        ] {
            assert!(!is_meta_key(bad), "{bad}");
        }
    }

    #[test]
    fn reserved_prefixes() {
        assert!(has_reserved_prefix("io.modelcontextprotocol/future-key"));
        assert!(has_reserved_prefix("dev.MCP/x"));
        assert!(has_reserved_prefix("modelcontextprotocol.io/x"));
        assert!(has_reserved_prefix("tools.mcp.com/x"));
        assert!(!has_reserved_prefix("com.example/x"));
        assert!(!has_reserved_prefix("progressToken"));
        assert!(!has_reserved_prefix("mcp/x"));
    }
}
