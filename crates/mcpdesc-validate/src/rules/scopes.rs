//! `mcpdesc` version (§4.1, §4.8), root coverage (§4.9) and protocol scopes (§4.10).

use crate::ctx::{Ctx, Primitive, ptr, revs};
use mcpdesc_core::{Diagnostic, Feature, ProtocolRevision, RevisionSet};
use serde_json::Value;

/// The only `mcpdesc` version this validator recognizes.
pub const MCPDESC_VERSION: &str = "0.8.0";

/// §4.1, §4.8: `mcpdesc` must be a recognized version. (Absence is a schema error.)
pub fn check_mcpdesc_version(cx: &mut Ctx<'_>) {
    let Some(v) = cx.root_obj.get("mcpdesc") else {
        return;
    };
    if v.as_str() != Some(MCPDESC_VERSION) {
        cx.push(
            Diagnostic::error(
                "unsupported-mcpdesc-version",
                format!("`mcpdesc` is {v}; this validator recognizes only \"{MCPDESC_VERSION}\""),
            )
            .at("/mcpdesc"),
        );
    }
}

/// Checks one `protocolVersions` array: non-empty, known revisions, unique, within
/// `parent` (when given). Returns the effective scope it declares (known members only).
fn check_scope_array(
    cx: &mut Ctx<'_>,
    value: &Value,
    at: &str,
    parent: Option<(RevisionSet, &str)>,
) -> RevisionSet {
    let Some(items) = value.as_array() else {
        return RevisionSet::EMPTY;
    };
    if items.is_empty() {
        cx.push(
            Diagnostic::error(
                "empty-protocol-scope",
                "`protocolVersions` must not be empty (§4.9, §4.10)",
            )
            .at(at),
        );
        return RevisionSet::EMPTY;
    }
    let mut seen = RevisionSet::EMPTY;
    for (i, item) in items.iter().enumerate() {
        let here = ptr(at, i.to_string());
        let Some(s) = item.as_str() else { continue };
        let Some(rev) = ProtocolRevision::parse(s) else {
            cx.push(
                Diagnostic::error(
                    "unknown-protocol-revision",
                    format!(
                        "`{s}` is not an MCP revision covered by mcpdesc 0.8.0 ({}) (§4.9)",
                        revs(RevisionSet::ALL)
                    ),
                )
                .at(here),
            );
            continue;
        };
        if seen.contains(rev) {
            cx.push(
                Diagnostic::error(
                    "duplicate-protocol-revision",
                    format!("`{s}` is listed more than once in `protocolVersions` (§4.9)"),
                )
                .at(here),
            );
            continue;
        }
        seen.insert(rev);
        if let Some((parent, what)) = parent
            && !parent.contains(rev)
        {
            cx.push(
                Diagnostic::error(
                    "protocol-scope-outside-parent",
                    format!(
                        "`{s}` is outside the effective scope of its {what} ({})",
                        revs(parent)
                    ),
                )
                .at(here),
            );
        }
    }
    seen
}

/// §4.9: root `protocolVersions` is a non-empty closed set of unique revisions.
pub fn check_root_scope(cx: &mut Ctx<'_>) {
    if let Some(v) = cx.root_obj.get("protocolVersions") {
        check_scope_array(cx, v, "/protocolVersions", None);
    }
}

/// §16.2 (last paragraph), §3.5, §8.5, §12.5: legacy compatibility revisions in root
/// coverage get only structural and selected checks, and validators SHOULD warn that
/// validation is incomplete and MUST NOT report it as complete. One warning for the
/// document; the declaration-level warnings (`legacy-payload-validation-incomplete`,
/// `incomplete-validation`, `elicitation-validation-incomplete`) still say where.
pub fn check_legacy_coverage(cx: &mut Ctx<'_>) {
    let legacy: RevisionSet = cx.root_scope.iter().filter(|r| r.is_legacy()).collect();
    if legacy.is_empty() {
        return;
    }
    cx.push(
        Diagnostic::warning(
            "legacy-validation-incomplete",
            format!(
                "the document covers the legacy compatibility revision(s) MCP {}: complete \
                 revision-specific semantic validation is defined {}, so for these revisions \
                 only structural and selected checks were applied and this validation is \
                 incomplete (§3.5, §16.2)",
                revs(legacy),
                Feature::CompleteSemanticValidation.phrase()
            ),
        )
        .at("/protocolVersions"),
    );
}

/// §4.10: every explicit scope of a transport or Capabilities Object is a non-empty
/// subset of the root scope.
pub fn check_root_declaration_scopes(cx: &mut Ctx<'_>) {
    let root = cx.root_scope;
    for key in ["transports", "capabilities"] {
        for (i, item) in cx.root_array(key).iter().enumerate() {
            let Some(obj) = item.as_object() else {
                continue;
            };
            if let Some(pv) = obj.get("protocolVersions") {
                let at = format!("/{key}/{i}/protocolVersions");
                check_scope_array(
                    cx,
                    pv,
                    &at,
                    Some((root, "document (root `protocolVersions`)")),
                );
            }
        }
    }
}

/// §4.10 for a primitive declaration. (Nested Elicitation Declaration scopes, §12.5,
/// are checked by the payload rules as `elicitation-scope-outside-parent`.)
pub fn check_primitive_scope(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    if let Some(pv) = p.value.get("protocolVersions") {
        let at = ptr(&p.pointer, "protocolVersions");
        let root = cx.root_scope;
        check_scope_array(
            cx,
            pv,
            &at,
            Some((root, "document (root `protocolVersions`)")),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at};
    use serde_json::json;

    #[test]
    fn mcpdesc_version_must_be_recognized() {
        let mut doc = base(&["2026-07-28"]);
        assert!(codes_at(&doc, "unsupported-mcpdesc-version").is_empty());
        doc["mcpdesc"] = json!("0.7.0");
        assert_eq!(
            codes_at(&doc, "unsupported-mcpdesc-version"),
            vec!["/mcpdesc"]
        );
    }

    #[test]
    fn root_scope_closed_and_unique() {
        let doc = base(&["2027-01-01", "2025-06-18", "2025-06-18"]);
        assert_eq!(
            codes_at(&doc, "unknown-protocol-revision"),
            vec!["/protocolVersions/0"]
        );
        assert_eq!(
            codes_at(&doc, "duplicate-protocol-revision"),
            vec!["/protocolVersions/2"]
        );
        let doc = base(&[]);
        assert_eq!(
            codes_at(&doc, "empty-protocol-scope"),
            vec!["/protocolVersions"]
        );
    }

    #[test]
    fn scoped_declarations_within_parent() {
        let mut doc = base(&["2025-11-25"]);
        doc["transports"] =
            json!([{"type": "stdio", "command": "x", "protocolVersions": ["2026-07-28"]}]);
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}, "protocolVersions": ["2025-11-25"]}]);
        assert_eq!(
            codes_at(&doc, "protocol-scope-outside-parent"),
            vec!["/transports/0/protocolVersions/0"]
        );
    }

    #[test]
    fn empty_scoped_protocol_versions() {
        let mut doc = base(&["2026-07-28"]);
        doc["capabilities"] = json!([{"protocolVersions": [], "tools": {}}]);
        assert_eq!(
            codes_at(&doc, "empty-protocol-scope"),
            vec!["/capabilities/0/protocolVersions"]
        );
    }
}
