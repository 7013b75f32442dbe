//! MCP identifier grammars shared by `capabilities.extensions`,
//! `clientRequirements.extensions` (§8.4, §8.5) and `_meta` keys (§3.5), plus the
//! validator's extension catalogue (validator metadata, §8.4).

/// How mature a catalogued official MCP extension is (§8.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maturity {
    /// Catalogued official extension: no identifier warning.
    Official,
    /// Catalogued experimental extension: warn that its maturity must be reviewed.
    Experimental,
}

/// One extension-catalogue row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogueEntry {
    pub identifier: &'static str,
    pub maturity: Maturity,
}

/// Where the catalogue comes from (§8.4 requires disclosing source, date and maturity).
pub const EXTENSION_CATALOGUE_SOURCE: &str = "MCP extension identifiers used as recognized \
     official extensions by the mcpdesc 0.8.0 specification text and its official fixtures \
     (spec §8.7; fixtures expected-valid/client-capability-requirements.json, \
     expected-valid/security-root-and-override.json)";

/// Effective date of the catalogue snapshot (the mcpdesc 0.8.0 release date).
pub const EXTENSION_CATALOGUE_DATE: &str = "2026-09-08";

/// The frozen extension catalogue.
pub const EXTENSION_CATALOGUE: &[CatalogueEntry] = &[
    CatalogueEntry {
        identifier: "io.modelcontextprotocol/tasks",
        maturity: Maturity::Official,
    },
    CatalogueEntry {
        identifier: "io.modelcontextprotocol/ui",
        maturity: Maturity::Official,
    },
];

/// Catalogue maturity of an identifier, if catalogued.
pub fn catalogued(identifier: &str) -> Option<Maturity> {
    EXTENSION_CATALOGUE
        .iter()
        .find(|e| e.identifier == identifier)
        .map(|e| e.maturity)
}

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

    #[test]
    fn catalogue() {
        assert_eq!(
            catalogued("io.modelcontextprotocol/ui"),
            Some(Maturity::Official)
        );
        assert_eq!(
            catalogued("io.modelcontextprotocol/future-capability"),
            None
        );
    }
}
