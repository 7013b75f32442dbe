//! MCP `_meta` objects (§3.5): key syntax, reserved prefixes and the reserved keys MCP
//! defines — the one check for every place `_meta` appears: declarations and, in named
//! examples, completed results, content blocks and Resource Contents.
//!
//! The key grammar and the reserved keys are MCP vocabulary and live in
//! [`mcpdesc_core::meta`]; which revision defines what is in the revision table
//! ([`Feature::Meta`], [`Feature::ServerInfoMeta`]). What this module adds is the
//! decision, and the diagnostic codes, which differ by context for historical reasons
//! and stay stable:
//!
//! | finding | declaration | result, content, contents |
//! |---|---|---|
//! | `_meta` not defined in a scope revision | `field-revision-mismatch` (the field table, not here) | `payload-meta-inapplicable` |
//! | key syntax | `invalid-meta-key` | `invalid-meta-key` |
//! | reserved key misused (placement, revision, value) | `meta-reserved-key-misuse` | `payload-meta-reserved-key` |
//! | unrecognized key under an MCP-reserved prefix (warning) | `unknown-reserved-meta-key` | `payload-meta-unknown-reserved-key` |
//!
//! ```
//! use mcpdesc_validate::meta::{MetaContext, check_meta};
//! use mcpdesc_core::{ProtocolRevision, RevisionSet};
//! let meta = serde_json::json!({"bad key": 1});
//! let scope = RevisionSet::single(ProtocolRevision::V2026_07_28);
//! let d = check_meta(&meta, "/tools/0/_meta", MetaContext::Declaration, scope);
//! assert_eq!(d[0].code, "invalid-meta-key");
//! ```

use mcpdesc_core::meta::{REQUEST_ONLY_KEYS, SERVER_INFO, has_reserved_prefix, is_meta_key};
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

impl MetaContext {
    /// `(misused reserved key, unrecognized reserved key)` codes of this context.
    fn codes(self) -> (&'static str, &'static str) {
        match self {
            MetaContext::Declaration => ("meta-reserved-key-misuse", "unknown-reserved-meta-key"),
            MetaContext::Result | MetaContext::Content => (
                "payload-meta-reserved-key",
                "payload-meta-unknown-reserved-key",
            ),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            MetaContext::Declaration => "a declaration",
            MetaContext::Result => "a result",
            MetaContext::Content => "a content block or contents entry",
        }
    }
}

/// An MCP `Implementation` value: an object with string `name` and `version`.
fn is_implementation(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("name").is_some_and(Value::is_string)
            && o.get("version").is_some_and(Value::is_string)
    })
}

/// Checks one `_meta` object at `at`, used in `context`, for the effective `scope`.
/// The codes per context are in the module table.
pub fn check_meta(
    meta: &Value,
    at: &str,
    context: MetaContext,
    scope: RevisionSet,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let (misuse, unknown) = context.codes();
    if context != MetaContext::Declaration {
        let revs = scope.without(Feature::Meta);
        if !revs.is_empty() {
            out.push(
                Diagnostic::error(
                    "payload-meta-inapplicable",
                    format!(
                        "`_meta` here is not defined for MCP {revs} (it is defined {}) (§3.5)",
                        Feature::Meta.phrase()
                    ),
                )
                .at(at),
            );
        }
    }
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
        if REQUEST_ONLY_KEYS.contains(&key.as_str()) {
            out.push(
                Diagnostic::error(
                    misuse,
                    format!(
                        "`{key}` is request-only metadata (`params._meta.{key}`) and is not valid in {} (§3.5)",
                        context.noun()
                    ),
                )
                .at(here),
            );
            continue;
        }
        if key == SERVER_INFO {
            if context != MetaContext::Result {
                out.push(
                    Diagnostic::error(
                        misuse,
                        format!(
                            "`{key}` is completed-result metadata and is not valid in {} (§3.5, §9.3)",
                            context.noun()
                        ),
                    )
                    .at(here),
                );
                continue;
            }
            let bad = scope.without(Feature::ServerInfoMeta);
            if !bad.is_empty() {
                out.push(
                    Diagnostic::error(
                        misuse,
                        format!(
                            "`{key}` is not defined for MCP {bad} (it is defined {}) (§3.5)",
                            Feature::ServerInfoMeta.phrase()
                        ),
                    )
                    .at(here.clone()),
                );
            }
            if !is_implementation(value) {
                out.push(
                    Diagnostic::error(
                        misuse,
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
                    unknown,
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
        // In examples the same findings carry the payload codes (module table).
        let d = check_meta(
            &ok,
            "/r",
            MetaContext::Result,
            RevisionSet::single(V2025_11_25),
        );
        assert_eq!(
            codes(&d),
            vec![(
                "payload-meta-reserved-key",
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
                "payload-meta-reserved-key",
                "/r/io.modelcontextprotocol~1serverInfo"
            )]
        );
        let d = check_meta(
            &ok,
            "/c",
            MetaContext::Content,
            RevisionSet::single(V2026_07_28),
        );
        assert_eq!(
            codes(&d),
            vec![(
                "payload-meta-reserved-key",
                "/c/io.modelcontextprotocol~1serverInfo"
            )]
        );
    }

    /// One function, three contexts: the same `_meta` gets the same findings everywhere,
    /// under each context's codes (the table in the module docs), and only examples
    /// check whether `_meta` exists at all (declarations have the field table).
    #[test]
    fn one_check_for_every_context() {
        let m = json!({"bad key": 1, "progressToken": "t", "io.modelcontextprotocol/future-key": {}, "com.example/x": 1});
        let legacy = RevisionSet::single(V2025_03_26);
        assert_eq!(
            codes(&check_meta(&m, "/m", MetaContext::Declaration, legacy)),
            vec![
                ("invalid-meta-key", "/m/bad key"),
                ("meta-reserved-key-misuse", "/m/progressToken"),
                (
                    "unknown-reserved-meta-key",
                    "/m/io.modelcontextprotocol~1future-key"
                ),
            ]
        );
        for context in [MetaContext::Result, MetaContext::Content] {
            let d = check_meta(&m, "/m", context, legacy);
            assert_eq!(
                codes(&d),
                vec![
                    ("payload-meta-inapplicable", "/m"),
                    ("invalid-meta-key", "/m/bad key"),
                    ("payload-meta-reserved-key", "/m/progressToken"),
                    (
                        "payload-meta-unknown-reserved-key",
                        "/m/io.modelcontextprotocol~1future-key"
                    ),
                ]
            );
            assert!(d[0].message.contains("from MCP 2025-06-18 on"), "{}", d[0]);
            assert!(!d[3].is_error());
        }
    }
}
