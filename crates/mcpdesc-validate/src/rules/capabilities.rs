//! Server Capabilities Objects (§8.2–§8.4, §8.6) and the extension-identifier map rules
//! shared with `clientRequirements.extensions` (§8.5).

use crate::ctx::{Ctx, ptr, revs, scope_of};
use crate::rules::identifiers::{
    Maturity, catalogued, has_reserved_prefix, is_extension_identifier,
};
use mcpdesc_core::decl::is_extension;
use mcpdesc_core::{Diagnostic, Feature, RevisionSet};
use serde_json::{Map, Value};

/// §8.4/§8.5: keys of an `extensions` protocol-extension map.
pub fn check_extension_map(cx: &mut Ctx<'_>, map: &Map<String, Value>, at: &str) {
    for key in map.keys() {
        let here = ptr(at, key);
        if is_extension(key) {
            cx.push(
                Diagnostic::error(
                    "extension-not-allowed",
                    format!(
                        "`{key}`: an `extensions` map is an MCP protocol-extension namespace, not a \
                         specification-extension location (§8.4, §14.2)"
                    ),
                )
                .at(here),
            );
            continue;
        }
        if !is_extension_identifier(key) {
            cx.push(
                Diagnostic::error(
                    "invalid-extension-identifier",
                    format!("extension identifier `{key}` must have the form `prefix/name` (§8.4)"),
                )
                .at(here),
            );
            continue;
        }
        if has_reserved_prefix(key) {
            match catalogued(key) {
                Some(Maturity::Official) => {}
                Some(Maturity::Experimental) => cx.push(
                    Diagnostic::warning(
                        "experimental-extension-identifier",
                        format!("`{key}` is a catalogued experimental MCP extension; review its maturity (§8.4)"),
                    )
                    .at(here),
                ),
                None => cx.push(
                    Diagnostic::warning(
                        "unknown-reserved-extension-identifier",
                        format!(
                            "`{key}` uses an MCP-reserved prefix but is not in this validator's \
                             extension catalogue; it is preserved (§8.4)"
                        ),
                    )
                    .at(here),
                ),
            }
        }
    }
}

/// §8.6: at most one Capabilities Object per revision.
pub fn check_disjoint(cx: &mut Ctx<'_>) {
    let root = cx.root_scope;
    let scopes: Vec<(usize, RevisionSet)> = cx
        .root_array("capabilities")
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_object().map(|o| (i, scope_of(o, root))))
        .collect();
    for (a, (i, si)) in scopes.iter().enumerate() {
        for (j, sj) in &scopes[a + 1..] {
            let overlap = si.intersection(*sj);
            if !overlap.is_empty() {
                cx.push(
                    Diagnostic::error(
                        "overlapping-capability-scope",
                        format!(
                            "capabilities {i} and {j} both apply to MCP {}; Capabilities Object \
                             scopes must be pairwise disjoint (§8.6)",
                            revs(overlap)
                        ),
                    )
                    .at(format!("/capabilities/{j}")),
                );
            }
        }
    }
}

/// §8.2–§8.4: revision applicability of capability members and extension identifiers.
pub fn check_members(cx: &mut Ctx<'_>) {
    let root = cx.root_scope;
    for (i, c) in cx.root_array("capabilities").iter().enumerate() {
        let Some(obj) = c.as_object() else { continue };
        let scope = scope_of(obj, root);
        let at = format!("/capabilities/{i}");
        for (member, feature) in [
            ("completions", Feature::Completions),
            ("tasks", Feature::Tasks),
        ] {
            if !obj.contains_key(member) {
                continue;
            }
            let bad = scope.without(feature);
            if !bad.is_empty() {
                cx.push(
                    Diagnostic::error(
                        "capability-revision-mismatch",
                        format!(
                            "the `{member}` capability is not defined for MCP {} (§8.2, §8.3)",
                            revs(bad)
                        ),
                    )
                    .at(ptr(&at, member)),
                );
            }
        }
        if let Some(ext) = obj.get("extensions") {
            let early = scope.without(Feature::Extensions);
            if !early.is_empty() {
                cx.push(
                    Diagnostic::warning(
                        "pre-standard-extension-capabilities",
                        format!(
                            "MCP {} does not define `capabilities.extensions`; the map is preserved \
                             as a deployed pre-standard convention and does not imply support of \
                             MCP {} or later (§8.4)",
                            revs(early),
                            Feature::Extensions.since()
                        ),
                    )
                    .at(ptr(&at, "extensions")),
                );
            }
            if let Some(map) = ext.as_object() {
                check_extension_map(cx, map, &ptr(&at, "extensions"));
            }
        }
        if obj.contains_key("logging") {
            let deprecated = scope.without(Feature::LoggingUndeprecated);
            if !deprecated.is_empty() {
                cx.push(
                    Diagnostic::warning(
                        "deprecated-logging-capability",
                        format!(
                            "the `logging` capability is deprecated in MCP {} (§8.4)",
                            revs(deprecated)
                        ),
                    )
                    .at(ptr(&at, "logging")),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors, warnings_at};
    use serde_json::json;

    #[test]
    fn scopes_pairwise_disjoint() {
        let mut doc = base(&["2025-11-25", "2026-07-28"]);
        doc["capabilities"] = json!([
            {"protocolVersions": ["2025-11-25"], "tools": {"listChanged": true}},
            {"protocolVersions": ["2026-07-28"], "tools": {}}
        ]);
        assert!(codes_at(&doc, "overlapping-capability-scope").is_empty());
        doc["capabilities"][1]["protocolVersions"] = json!(["2025-11-25", "2026-07-28"]);
        assert_eq!(
            codes_at(&doc, "overlapping-capability-scope"),
            vec!["/capabilities/1"]
        );
        // An omitted scope covers the whole root and overlaps everything.
        doc["capabilities"] = json!([{"tools": {}}, {"protocolVersions": ["2026-07-28"]}]);
        assert_eq!(
            codes_at(&doc, "overlapping-capability-scope"),
            vec!["/capabilities/1"]
        );
    }

    #[test]
    fn completions_and_tasks_by_revision() {
        let mut doc = base(&["2024-11-05", "2025-03-26"]);
        doc["capabilities"] = json!([{"completions": {}}]);
        assert_eq!(
            codes_at(&doc, "capability-revision-mismatch"),
            vec!["/capabilities/0/completions"]
        );
        let mut doc = base(&["2025-11-25"]);
        doc["capabilities"] = json!([{"completions": {}, "tasks": {"list": {}}}]);
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
        let mut doc = base(&["2025-11-25", "2026-07-28"]);
        doc["capabilities"] = json!([{"tasks": {}}]);
        assert_eq!(
            codes_at(&doc, "capability-revision-mismatch"),
            vec!["/capabilities/0/tasks"]
        );
    }

    #[test]
    fn extensions_before_2026_warn_and_logging_in_2026_warns() {
        let mut doc = base(&["2025-11-25"]);
        doc["capabilities"] =
            json!([{"extensions": {"io.modelcontextprotocol/ui": {}}, "logging": {}}]);
        assert_eq!(
            warnings_at(&doc, "pre-standard-extension-capabilities"),
            vec!["/capabilities/0/extensions"]
        );
        assert!(warnings_at(&doc, "deprecated-logging-capability").is_empty());
        let mut doc = base(&["2026-07-28"]);
        doc["capabilities"] =
            json!([{"extensions": {"io.modelcontextprotocol/ui": {}}, "logging": {}}]);
        assert!(warnings_at(&doc, "pre-standard-extension-capabilities").is_empty());
        assert_eq!(
            warnings_at(&doc, "deprecated-logging-capability"),
            vec!["/capabilities/0/logging"]
        );
    }

    #[test]
    fn extension_identifiers() {
        let mut doc = base(&["2026-07-28"]);
        doc["capabilities"] = json!([{"extensions": {
            "missing-prefix": {}, "x-example-policy": {}, "com.example/ok": {},
            "io.modelcontextprotocol/future-capability": {}, "io.modelcontextprotocol/tasks": {}
        }}]);
        assert_eq!(
            codes_at(&doc, "invalid-extension-identifier"),
            vec!["/capabilities/0/extensions/missing-prefix"]
        );
        assert_eq!(
            codes_at(&doc, "extension-not-allowed"),
            vec!["/capabilities/0/extensions/x-example-policy"]
        );
        assert_eq!(
            warnings_at(&doc, "unknown-reserved-extension-identifier"),
            vec!["/capabilities/0/extensions/io.modelcontextprotocol~1future-capability"]
        );
    }
}
