//! Primitive Client Capability Requirements (§8.5).
//!
//! The object uses the `ClientCapabilities` shape of every revision in the primitive's
//! effective scope. Each check computes the set of scope revisions where it fails and
//! reports once per location, naming those revisions. Revision facts come from
//! `mcpdesc_core::revision` (the client `elicitation` capability appears together with
//! form-mode elicitation in 2025-06-18, so [`Feature::ElicitationForm`] marks it).

use crate::ctx::{Ctx, Primitive, ptr, revs};
use crate::rules::capabilities::check_extension_map;
use mcpdesc_core::decl::is_extension;
use mcpdesc_core::{Diagnostic, Feature, RevisionSet};
use serde_json::{Map, Value};

fn mismatch(cx: &mut Ctx<'_>, at: String, what: &str, bad: RevisionSet) {
    cx.push(
        Diagnostic::error(
            "client-requirement-revision-mismatch",
            format!(
                "{what} is not defined by the client capabilities of MCP {}; split the primitive \
                 into disjoint protocol-scoped variants when requirements differ (§8.5)",
                revs(bad)
            ),
        )
        .at(at),
    );
}

fn deprecated(cx: &mut Ctx<'_>, at: String, what: &str, revs_: RevisionSet) {
    cx.push(
        Diagnostic::warning(
            "deprecated-client-requirement",
            format!("{what} is deprecated in MCP {} (§8.5)", revs(revs_)),
        )
        .at(at),
    );
}

/// Checks members of a capability value against a closed member list, for the revisions
/// `applies`. Members with object values are checked to be objects.
fn closed_members(
    cx: &mut Ctx<'_>,
    value: &Map<String, Value>,
    at: &str,
    cap: &str,
    allowed: &[&str],
    applies: RevisionSet,
) {
    if applies.is_empty() {
        return;
    }
    for (k, v) in value {
        if !allowed.contains(&k.as_str()) {
            mismatch(cx, ptr(at, k), &format!("`{cap}.{k}`"), applies);
        } else if !v.is_object() {
            cx.push(
                Diagnostic::error(
                    "invalid-client-requirement-value",
                    format!("`{cap}.{k}` must be an object (capability markers are objects, §8.5)"),
                )
                .at(ptr(at, k)),
            );
        }
    }
}

fn check_tasks(cx: &mut Ctx<'_>, value: &Map<String, Value>, at: &str, applies: RevisionSet) {
    closed_members(
        cx,
        value,
        at,
        "tasks",
        &["list", "cancel", "requests"],
        applies,
    );
    let Some(Value::Object(requests)) = value.get("requests") else {
        return;
    };
    let rat = ptr(at, "requests");
    closed_members(
        cx,
        requests,
        &rat,
        "tasks.requests",
        &["sampling", "elicitation"],
        applies,
    );
    for (family, op) in [("sampling", "createMessage"), ("elicitation", "create")] {
        if let Some(Value::Object(f)) = requests.get(family) {
            closed_members(
                cx,
                f,
                &ptr(&rat, family),
                &format!("tasks.requests.{family}"),
                &[op],
                applies,
            );
        }
    }
}

/// §8.5 for one `clientRequirements` object at `at`, in primitive scope `scope`.
fn check_one(cx: &mut Ctx<'_>, obj: &Map<String, Value>, at: &str, scope: RevisionSet) {
    if obj.is_empty() {
        cx.push(
            Diagnostic::error(
                "empty-client-requirements",
                "`clientRequirements` must be non-empty; omit it to make no claim (§8.5)",
            )
            .at(at),
        );
        return;
    }
    let legacy: RevisionSet = scope.iter().filter(|r| r.is_legacy()).collect();
    if !legacy.is_empty() {
        cx.push(
            Diagnostic::warning(
                "incomplete-validation",
                format!(
                    "MCP {} client capabilities get only structural and selected checks; this \
                     validation of `clientRequirements` is not complete (§8.5, §16.2)",
                    revs(legacy)
                ),
            )
            .at(at),
        );
    }
    for (cap, value) in obj {
        let here = ptr(at, cap);
        if is_extension(cap) {
            continue;
        }
        if cap == "protocolVersions" {
            cx.push(
                Diagnostic::error(
                    "client-requirements-protocol-versions",
                    "`clientRequirements` must not contain `protocolVersions`; it inherits the \
                     primitive's scope (§8.5)",
                )
                .at(here),
            );
            continue;
        }
        let Some(v) = value.as_object() else { continue }; // schema: values are objects
        match cap.as_str() {
            "roots" => {
                let with_list = scope.with(Feature::RootsListChanged);
                let empty_only = scope.without(Feature::RootsListChanged);
                closed_members_roots(cx, v, &here, with_list, empty_only);
                if !empty_only.is_empty() {
                    deprecated(cx, here, "the `roots` client capability", empty_only);
                }
            }
            "sampling" => {
                // Closed `{context?, tools?}` where MCP defines those members; before, the
                // type is an open `object` whose entries are accepted and preserved
                // without semantics (§8.5).
                let rich = scope.with(Feature::SamplingContextTools);
                closed_members(cx, v, &here, "sampling", &["context", "tools"], rich);
                let dep = scope.without(Feature::SamplingUndeprecated);
                if !dep.is_empty() {
                    deprecated(cx, here.clone(), "the `sampling` client capability", dep);
                    for m in ["context", "tools"] {
                        if v.contains_key(m) {
                            deprecated(cx, ptr(&here, m), &format!("`sampling.{m}`"), dep);
                        }
                    }
                }
            }
            "elicitation" => {
                let missing = scope.without(Feature::ElicitationForm);
                if !missing.is_empty() {
                    mismatch(
                        cx,
                        here.clone(),
                        "the `elicitation` client capability",
                        missing,
                    );
                }
                // Closed `{form?, url?}` where MCP defines the sub-capabilities; before,
                // an open `object` (as for `sampling` above).
                let sub = scope.with(Feature::ElicitationSubCapabilities);
                closed_members(cx, v, &here, "elicitation", &["form", "url"], sub);
            }
            "tasks" => {
                let missing = scope.without(Feature::Tasks);
                if !missing.is_empty() {
                    mismatch(
                        cx,
                        here.clone(),
                        "the core `tasks` client capability",
                        missing,
                    );
                }
                check_tasks(cx, v, &here, scope.with(Feature::Tasks));
            }
            "extensions" => {
                let missing = scope.without(Feature::Extensions);
                if !missing.is_empty() {
                    mismatch(
                        cx,
                        here.clone(),
                        "the `extensions` client capability",
                        missing,
                    );
                }
                check_extension_map(cx, v, &here);
            }
            // `experimental` and unknown capabilities: the ClientCapabilities type is open;
            // accept and preserve without inventing semantics (§8.5).
            _ => {}
        }
    }
}

/// `roots`: `{listChanged?: boolean}` where listChanged exists, must be empty elsewhere.
fn closed_members_roots(
    cx: &mut Ctx<'_>,
    v: &Map<String, Value>,
    at: &str,
    with_list: RevisionSet,
    empty_only: RevisionSet,
) {
    for (k, val) in v {
        let here = ptr(at, k);
        if k == "listChanged" {
            if !empty_only.is_empty() {
                mismatch(
                    cx,
                    here.clone(),
                    "`roots.listChanged` (roots must be empty)",
                    empty_only,
                );
            }
            if !with_list.is_empty() && !val.is_boolean() {
                cx.push(
                    Diagnostic::error(
                        "invalid-client-requirement-value",
                        "`roots.listChanged` must be a boolean",
                    )
                    .at(here),
                );
            }
        } else {
            let all = with_list.union(empty_only);
            mismatch(cx, here, &format!("`roots.{k}`"), all);
        }
    }
}

/// §8.5 on one primitive.
pub fn check(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    if let Some(Value::Object(cr)) = p.value.get("clientRequirements") {
        let at = ptr(&p.pointer, "clientRequirements");
        check_one(cx, cr, &at, p.scope);
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors, warnings, warnings_at};
    use serde_json::json;

    fn prompt_with(scope: &[&str], cr: serde_json::Value) -> serde_json::Value {
        let mut doc = base(scope);
        doc["prompts"] = json!([{"name": "p", "clientRequirements": cr}]);
        doc
    }

    #[test]
    fn must_be_non_empty() {
        let doc = prompt_with(&["2026-07-28"], json!({}));
        assert_eq!(
            codes_at(&doc, "empty-client-requirements"),
            vec!["/prompts/0/clientRequirements"]
        );
    }

    #[test]
    fn core_tasks_only_in_2025_11_25() {
        let doc = prompt_with(
            &["2025-11-25"],
            json!({"tasks": {"requests": {"sampling": {"createMessage": {}}}}}),
        );
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
        let doc = prompt_with(
            &["2025-11-25", "2026-07-28"],
            json!({"tasks": {"list": {}}}),
        );
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/tasks"]
        );
        let doc = prompt_with(
            &["2025-11-25"],
            json!({"tasks": {"requests": {"tools": {"call": {}}}}}),
        );
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/tasks/requests/tools"]
        );
    }

    #[test]
    fn elicitation_from_2025_06_18_and_sub_capabilities_from_2025_11_25() {
        let doc = prompt_with(&["2025-03-26"], json!({"elicitation": {}}));
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/elicitation"]
        );
        let doc = prompt_with(&["2025-06-18"], json!({"elicitation": {}}));
        assert!(errors(&doc).is_empty());
        // 2025-06-18's `elicitation` is an open `object`: unknown entries are accepted
        // and preserved (§8.5); 2025-11-25's is closed `{form?, url?}`.
        let doc = prompt_with(
            &["2025-06-18", "2025-11-25"],
            json!({"elicitation": {"form": {}}}),
        );
        assert!(errors(&doc).is_empty() && warnings(&doc).is_empty());
        let doc = prompt_with(&["2025-11-25"], json!({"elicitation": {"text": {}}}));
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/elicitation/text"]
        );
        let doc = prompt_with(&["2025-06-18"], json!({"elicitation": {"text": {}}}));
        assert!(errors(&doc).is_empty() && warnings(&doc).is_empty());
        let doc = prompt_with(
            &["2025-11-25", "2026-07-28"],
            json!({"elicitation": {"form": {}, "url": {}}}),
        );
        assert!(errors(&doc).is_empty());
    }

    #[test]
    fn roots_and_sampling_deprecated_in_2026() {
        let doc = prompt_with(
            &["2026-07-28"],
            json!({"roots": {}, "sampling": {"context": {}}}),
        );
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
        assert_eq!(
            warnings_at(&doc, "deprecated-client-requirement"),
            vec![
                "/prompts/0/clientRequirements/roots",
                "/prompts/0/clientRequirements/sampling",
                "/prompts/0/clientRequirements/sampling/context"
            ]
        );
        let doc = prompt_with(&["2026-07-28"], json!({"roots": {"listChanged": true}}));
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/roots/listChanged"]
        );
        let doc = prompt_with(&["2025-06-18"], json!({"roots": {"listChanged": true}}));
        assert!(errors(&doc).is_empty() && warnings(&doc).is_empty());
    }

    #[test]
    fn sampling_members_closed_from_2025_11_25_open_before() {
        // Before 2025-11-25 `sampling` is an open `object` (§8.5: accept and preserve).
        let doc = prompt_with(&["2025-06-18"], json!({"sampling": {"tools": {}}}));
        assert!(errors(&doc).is_empty() && warnings(&doc).is_empty());
        let doc = prompt_with(&["2025-11-25"], json!({"sampling": {"images": {}}}));
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/sampling/images"]
        );
        let doc = prompt_with(
            &["2025-11-25"],
            json!({"sampling": {"tools": {}}, "experimental": {"com.example/x": {}}, "futureCapability": {}}),
        );
        assert!(errors(&doc).is_empty() && warnings(&doc).is_empty());
    }

    #[test]
    fn extensions_only_2026_and_identifier_rules() {
        let doc = prompt_with(
            &["2025-11-25"],
            json!({"extensions": {"io.modelcontextprotocol/ui": {}}}),
        );
        assert_eq!(
            codes_at(&doc, "client-requirement-revision-mismatch"),
            vec!["/prompts/0/clientRequirements/extensions"]
        );
        let doc = prompt_with(
            &["2026-07-28"],
            json!({"extensions": {"io.modelcontextprotocol/future-capability": {}}}),
        );
        assert!(errors(&doc).is_empty());
        assert_eq!(
            warnings_at(&doc, "unknown-reserved-extension-identifier"),
            vec![
                "/prompts/0/clientRequirements/extensions/io.modelcontextprotocol~1future-capability"
            ]
        );
    }

    #[test]
    fn legacy_scope_warns_incomplete() {
        let doc = prompt_with(&["2024-11-05"], json!({"roots": {"listChanged": false}}));
        assert!(errors(&doc).is_empty());
        assert_eq!(
            warnings_at(&doc, "incomplete-validation"),
            vec!["/prompts/0/clientRequirements"]
        );
    }

    #[test]
    fn no_protocol_versions_inside() {
        let doc = prompt_with(&["2026-07-28"], json!({"protocolVersions": ["2026-07-28"]}));
        assert_eq!(
            codes_at(&doc, "client-requirements-protocol-versions"),
            vec!["/prompts/0/clientRequirements/protocolVersions"]
        );
    }
}
