//! MCP `_meta` objects (§3.5): key syntax, reserved prefixes and known reserved keys.
//!
//! Public so that the payload rules (named examples: results, content blocks, resource
//! contents) apply exactly the same key rules as declarations do.
//!
//! ```
//! use mcpdesc_validate::meta::{MetaContext, check_meta};
//! use mcpdesc_core::{ProtocolRevision, RevisionSet};
//! let meta = serde_json::json!({"bad key": 1});
//! let scope = RevisionSet::single(ProtocolRevision::V2026_07_28);
//! let d = check_meta(&meta, "/tools/0/_meta", MetaContext::Declaration, scope);
//! assert_eq!(d[0].code, "invalid-meta-key");
//! ```

use crate::rules::identifiers::{has_reserved_prefix, is_meta_key};
use mcpdesc_core::{Diagnostic, Feature, RevisionSet, pointer};
use serde_json::Value;

/// Where a `_meta` object sits, which decides which reserved keys may appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaContext {
    /// A Tool, Resource, Resource Template or Prompt declaration (§3.5).
    Declaration,
    /// A completed result in a named example (§9.3, §10.4.4, §11.3).
    Result,
    /// A content block or Resource Contents entry inside an example result.
    Content,
}

/// A reserved `_meta` key this validator knows, and where MCP allows it.
#[derive(Debug, Clone, Copy)]
struct KnownKey {
    key: &'static str,
    /// Contexts (among the represented ones) where the key is valid.
    allowed: &'static [MetaContext],
    /// Revisions that define the key (`None`: every revision that defines `_meta`).
    feature: Option<Feature>,
    /// What the key is, for messages.
    role: &'static str,
}

/// Known reserved keys. `progressToken` is request metadata in every revision; the
/// `serverInfo` key is result metadata from 2026-07-28 (§9.3, §10.4.4).
const KNOWN_KEYS: &[KnownKey] = &[
    KnownKey {
        key: "progressToken",
        allowed: &[],
        feature: None,
        role: "request-only metadata (`params._meta.progressToken`)",
    },
    KnownKey {
        key: "io.modelcontextprotocol/serverInfo",
        allowed: &[MetaContext::Result],
        feature: Some(Feature::ServerInfoMeta),
        role: "completed-result metadata carrying an MCP Implementation",
    },
];

/// An MCP `Implementation` value: an object with string `name` and `version`.
fn is_implementation(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("name").is_some_and(Value::is_string)
            && o.get("version").is_some_and(Value::is_string)
    })
}

/// Checks one `_meta` object at `at`, used in `context`, for the effective `scope`.
///
/// Errors: `invalid-meta-key` (syntax), `meta-reserved-key-misuse` (a known reserved key
/// in a context, revision or with a value MCP does not allow). Warning:
/// `unknown-reserved-meta-key` (valid but unrecognized key under an MCP-reserved prefix).
pub fn check_meta(
    meta: &Value,
    at: &str,
    context: MetaContext,
    scope: RevisionSet,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(obj) = meta.as_object() else {
        return out;
    };
    for (key, value) in obj {
        let here = pointer::push(at, key);
        if !is_meta_key(key) {
            out.push(
                Diagnostic::error(
                    "invalid-meta-key",
                    format!(
                        "`{key}` is not a valid MCP `_meta` key (optional dot-separated prefix and \
                         `/`, then a name of letters, digits, `.`, `_`, `-`) (§3.5)"
                    ),
                )
                .at(here),
            );
            continue;
        }
        if let Some(k) = KNOWN_KEYS.iter().find(|k| k.key == key) {
            if !k.allowed.contains(&context) {
                out.push(
                    Diagnostic::error(
                        "meta-reserved-key-misuse",
                        format!("`{key}` is {} and is not valid here (§3.5)", k.role),
                    )
                    .at(here),
                );
                continue;
            }
            if let Some(f) = k.feature {
                let bad = scope.without(f);
                if !bad.is_empty() {
                    out.push(
                        Diagnostic::error(
                            "meta-reserved-key-misuse",
                            format!(
                                "`{key}` is not defined for MCP {} (§3.5)",
                                bad.to_strings().join(", ")
                            ),
                        )
                        .at(here.clone()),
                    );
                }
            }
            if k.key == "io.modelcontextprotocol/serverInfo" && !is_implementation(value) {
                out.push(
                    Diagnostic::error(
                        "meta-reserved-key-misuse",
                        format!("`{key}` must be an MCP Implementation object with string `name` and `version` (§9.3)"),
                    )
                    .at(here),
                );
            }
            continue;
        }
        if has_reserved_prefix(key) {
            out.push(
                Diagnostic::warning(
                    "unknown-reserved-meta-key",
                    format!("`{key}` uses an MCP-reserved prefix but is not a key this validator recognizes; it is preserved (§3.5)"),
                )
                .at(here),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::ProtocolRevision::*;
    use serde_json::json;

    fn codes(d: &[Diagnostic]) -> Vec<(&str, &str)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.pointer.as_str()))
            .collect()
    }

    #[test]
    fn literal_values_and_ordinary_keys_pass() {
        let m = json!({"com.example/status": "stable", "display_hint": "compact", "traceparent": "00-1"});
        assert!(
            check_meta(
                &m,
                "/m",
                MetaContext::Declaration,
                RevisionSet::single(V2026_07_28)
            )
            .is_empty()
        );
    }

    #[test]
    fn syntax_and_reserved_keys() {
        let s = RevisionSet::single(V2026_07_28);
        let m =
            json!({"bad key": 1, "progressToken": "t", "io.modelcontextprotocol/future-key": {}});
        let d = check_meta(&m, "/m", MetaContext::Declaration, s);
        assert_eq!(
            codes(&d),
            vec![
                ("invalid-meta-key", "/m/bad key"),
                ("meta-reserved-key-misuse", "/m/progressToken"),
                (
                    "unknown-reserved-meta-key",
                    "/m/io.modelcontextprotocol~1future-key"
                ),
            ]
        );
        assert!(!d[2].is_error());
    }

    #[test]
    fn server_info_only_on_results_from_2026_with_an_implementation() {
        let ok = json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}});
        assert!(
            check_meta(
                &ok,
                "/r",
                MetaContext::Result,
                RevisionSet::single(V2026_07_28)
            )
            .is_empty()
        );
        let d = check_meta(
            &ok,
            "/r",
            MetaContext::Declaration,
            RevisionSet::single(V2026_07_28),
        );
        assert_eq!(
            codes(&d),
            vec![(
                "meta-reserved-key-misuse",
                "/r/io.modelcontextprotocol~1serverInfo"
            )]
        );
        let d = check_meta(
            &ok,
            "/r",
            MetaContext::Result,
            RevisionSet::single(V2025_11_25),
        );
        assert_eq!(
            codes(&d),
            vec![(
                "meta-reserved-key-misuse",
                "/r/io.modelcontextprotocol~1serverInfo"
            )]
        );
        let bad = json!({"io.modelcontextprotocol/serverInfo": "not-an-implementation"});
        let d = check_meta(
            &bad,
            "/r",
            MetaContext::Result,
            RevisionSet::single(V2026_07_28),
        );
        assert_eq!(
            codes(&d),
            vec![(
                "meta-reserved-key-misuse",
                "/r/io.modelcontextprotocol~1serverInfo"
            )]
        );
    }
}
