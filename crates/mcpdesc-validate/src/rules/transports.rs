//! Transports: coverage (§6.5) and revision applicability of transport types (§6.2).
//! Type-specific property sets (§6.6) are enforced by the schema's closed `oneOf` branches.

use crate::ctx::{Ctx, ptr, revs, scope_of};
use mcpdesc_core::{Diagnostic, Feature, RevisionSet};
use serde_json::Value;

/// §6.5: when `transports` is present, every root revision has an applicable transport.
/// (Revisions outside root coverage are reported by the scope rule.)
pub fn check_coverage(cx: &mut Ctx<'_>) {
    let Some(Value::Array(transports)) = cx.root_obj.get("transports") else {
        return;
    };
    if transports.is_empty() {
        return; // `empty-collection`
    }
    let mut covered = RevisionSet::EMPTY;
    for t in transports {
        if let Some(obj) = t.as_object() {
            covered = covered.union(scope_of(obj, cx.root_scope));
        }
    }
    let gap = cx.root_scope.difference(covered);
    if !gap.is_empty() {
        cx.push(
            Diagnostic::error(
                "transport-coverage-gap",
                format!(
                    "no transport applies to root revision(s) {}; when `transports` is present it \
                     must cover every root revision (§6.5)",
                    revs(gap)
                ),
            )
            .at("/transports"),
        );
    }
}

/// §6.2.1: streamable-http only where defined; §6.2.3: SSE outside its standard revision warns.
pub fn check_types(cx: &mut Ctx<'_>) {
    let root = cx.root_scope;
    for (i, t) in cx.root_array("transports").iter().enumerate() {
        let Some(obj) = t.as_object() else { continue };
        let scope = scope_of(obj, root);
        let at = ptr(&format!("/transports/{i}"), "type");
        match obj.get("type").and_then(Value::as_str) {
            Some("streamable-http") => {
                let bad = scope.without(Feature::StreamableHttp);
                if !bad.is_empty() {
                    cx.push(
                        Diagnostic::error(
                            "transport-revision-mismatch",
                            format!(
                                "the streamable-http transport is not defined for MCP {} \
                                 (it is defined {}, §6.2.1)",
                                revs(bad),
                                Feature::StreamableHttp.phrase()
                            ),
                        )
                        .at(at),
                    );
                }
            }
            Some("sse") => {
                let modern = scope.without(Feature::SseStandard);
                if !modern.is_empty() {
                    cx.push(
                        Diagnostic::warning(
                            "legacy-sse-transport",
                            format!(
                                "the legacy SSE transport is associated with MCP {}, where \
                                 streamable-http is the standard remote transport (§6.2.3)",
                                revs(modern)
                            ),
                        )
                        .at(at),
                    );
                }
            }
            Some("stdio") => {}
            Some(other) => cx.push(
                Diagnostic::error(
                    "unknown-transport-type",
                    format!(
                        "transport type `{other}` is not one of streamable-http, stdio, sse (§6.2)"
                    ),
                )
                .at(at),
            ),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, warnings_at};
    use serde_json::json;

    #[test]
    fn coverage_gap_only_when_transports_present() {
        let mut doc = base(&["2025-11-25", "2026-07-28"]);
        assert!(codes_at(&doc, "transport-coverage-gap").is_empty());
        doc["transports"] =
            json!([{"type": "stdio", "command": "x", "protocolVersions": ["2025-11-25"]}]);
        assert_eq!(
            codes_at(&doc, "transport-coverage-gap"),
            vec!["/transports"]
        );
        doc["transports"] = json!([
            {"type": "stdio", "command": "x", "protocolVersions": ["2025-11-25"]},
            {"type": "stdio", "command": "y", "protocolVersions": ["2026-07-28"]}
        ]);
        assert!(codes_at(&doc, "transport-coverage-gap").is_empty());
    }

    #[test]
    fn streamable_http_from_2025_03_26() {
        let mut doc = base(&["2024-11-05"]);
        doc["transports"] = json!([{"type": "streamable-http", "url": "https://x.example/mcp"}]);
        assert_eq!(
            codes_at(&doc, "transport-revision-mismatch"),
            vec!["/transports/0/type"]
        );
        let mut doc = base(&["2025-03-26"]);
        doc["transports"] = json!([{"type": "streamable-http", "url": "https://x.example/mcp"}]);
        assert!(codes_at(&doc, "transport-revision-mismatch").is_empty());
    }

    #[test]
    fn unknown_transport_type_replaces_the_schema_branch_noise() {
        let mut doc = base(&["2026-07-28"]);
        doc["transports"] = json!([{"type": "websocket", "url": "wss://x.example/mcp"}]);
        let d = crate::validate_value(&doc);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (d[0].code.as_str(), d[0].pointer.as_str()),
            ("unknown-transport-type", "/transports/0/type")
        );
    }

    #[test]
    fn transport_property_sets_are_per_type() {
        let mut doc = base(&["2026-07-28"]);
        doc["transports"] =
            json!([{"type": "stdio", "command": "x", "url": "https://x.example/mcp"}]);
        assert_eq!(
            codes_at(&doc, "unknown-property"),
            vec!["/transports/0/url"]
        );
    }

    #[test]
    fn sse_warns_from_2025_03_26_only() {
        let mut doc = base(&["2024-11-05"]);
        doc["transports"] = json!([{"type": "sse", "url": "https://x.example/sse"}]);
        assert!(warnings_at(&doc, "legacy-sse-transport").is_empty());
        let mut doc = base(&["2024-11-05", "2025-03-26"]);
        doc["transports"] = json!([{"type": "sse", "url": "https://x.example/sse"}]);
        assert_eq!(
            warnings_at(&doc, "legacy-sse-transport"),
            vec!["/transports/0/type"]
        );
    }
}
