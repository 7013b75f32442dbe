//! Primitive declarations: same-identity variants (§9.5, §10.5, §11.1/§11.5) and
//! revision applicability of declaration fields (§9.1, §10.1.1, §10.2.1, §11.1, §11.2,
//! §10.3 `lastModified`), all from the revision-facts table.

use crate::ctx::{Ctx, Primitive, ptr, revs};
use mcpdesc_core::revision::FIELD_FACTS;
use mcpdesc_core::{DeclKind, Diagnostic, Feature, ObjectKind, RevisionSet};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Same-identity declarations must have pairwise-disjoint effective scopes.
pub fn check_variants(cx: &mut Ctx<'_>) {
    let prims = cx.primitives();
    // (collection, identity) -> [(index, scope)]
    let mut groups: HashMap<(DeclKind, &str), Vec<(usize, RevisionSet)>> = HashMap::new();
    for p in prims.iter() {
        let Some(key) = p.kind.identity_key() else {
            continue;
        };
        let Some(id) = p.value.get(key).and_then(Value::as_str) else {
            continue;
        };
        let group = groups.entry((p.kind, id)).or_default();
        for (other, oscope) in group.iter() {
            let overlap = p.scope.intersection(*oscope);
            if !overlap.is_empty() {
                cx.push(
                    Diagnostic::error(
                        "overlapping-primitive-scope",
                        format!(
                            "{} with {} `{id}` overlaps /{}/{other} for MCP {}; same-{} \
                             declarations must have pairwise-disjoint protocol scopes (§9.5, §10.5, §11.1)",
                            p.kind.label(),
                            key,
                            p.kind.collection(),
                            revs(overlap),
                            key
                        ),
                    )
                    .at(p.pointer.clone()),
                );
            }
        }
        group.push((p.index, p.scope));
    }
}

fn field_mismatch(cx: &mut Ctx<'_>, at: String, label: &str, field: &str, bad: RevisionSet) {
    cx.push(
        Diagnostic::error(
            "field-revision-mismatch",
            format!(
                "{label} `{field}` is not defined for MCP {} (revision applicability, §9–§11)",
                revs(bad)
            ),
        )
        .at(at),
    );
}

fn check_fields(
    cx: &mut Ctx<'_>,
    obj: &Map<String, Value>,
    kind: ObjectKind,
    label: &str,
    at: &str,
    scope: RevisionSet,
) {
    for fact in FIELD_FACTS.iter().filter(|f| f.object == kind) {
        if !obj.contains_key(fact.field) {
            continue;
        }
        let bad = scope.without(fact.feature);
        if !bad.is_empty() {
            field_mismatch(cx, ptr(at, fact.field), label, fact.field, bad);
        }
    }
}

/// Declaration fields that exist only in some revisions (the revision-facts table).
pub fn check_field_applicability(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    let Some(object) = p.kind.object_kind() else {
        return;
    };
    check_fields(cx, p.value, object, p.kind.label(), &p.pointer, p.scope);
    if object == ObjectKind::Prompt
        && let Some(Value::Array(args)) = p.value.get("arguments")
    {
        for (k, a) in args.iter().enumerate() {
            if let Some(a) = a.as_object() {
                let at = format!("{}/arguments/{k}", p.pointer);
                check_fields(
                    cx,
                    a,
                    ObjectKind::PromptArgument,
                    "Prompt Argument",
                    &at,
                    p.scope,
                );
            }
        }
    }
    // §10.3: Resource Annotations `lastModified` (`ResourceAnnotationLastModified`).
    if matches!(object, ObjectKind::Resource | ObjectKind::ResourceTemplate)
        && let Some(Value::Object(ann)) = p.value.get("annotations")
        && ann.contains_key("lastModified")
    {
        let bad = p.scope.without(Feature::ResourceAnnotationLastModified);
        if !bad.is_empty() {
            let at = format!("{}/annotations/lastModified", p.pointer);
            field_mismatch(cx, at, "Resource Annotations", "lastModified", bad);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors};
    use serde_json::json;

    #[test]
    fn same_name_tools_need_disjoint_scopes() {
        let mut doc = base(&["2025-11-25", "2026-07-28"]);
        doc["tools"] = json!([
            {"name": "run", "inputSchema": {"type": "object"}},
            {"name": "run", "protocolVersions": ["2026-07-28"], "inputSchema": {"type": "object"}}
        ]);
        assert_eq!(
            codes_at(&doc, "overlapping-primitive-scope"),
            vec!["/tools/1"]
        );
        doc["tools"][0]["protocolVersions"] = json!(["2025-11-25"]);
        assert!(codes_at(&doc, "overlapping-primitive-scope").is_empty());
    }

    #[test]
    fn resources_by_uri_templates_by_uri_template_prompts_by_name() {
        let mut doc = base(&["2026-07-28"]);
        doc["resources"] = json!([{"uri": "a://x", "name": "one"}, {"uri": "a://x", "name": "two"}, {"uri": "a://y", "name": "one"}]);
        doc["resourceTemplates"] = json!([{"uriTemplate": "a://{x}", "name": "t"}, {"uriTemplate": "a://{x}", "name": "u"}]);
        doc["prompts"] = json!([{"name": "p"}, {"name": "p"}]);
        // Different kinds never collide with each other.
        doc["tools"] = json!([{"name": "p", "inputSchema": {"type": "object"}}]);
        assert_eq!(
            codes_at(&doc, "overlapping-primitive-scope"),
            vec!["/resources/1", "/resourceTemplates/1", "/prompts/1"]
        );
    }

    #[test]
    fn field_applicability_follows_the_facts_table() {
        let mut doc = base(&["2025-03-26", "2025-06-18"]);
        doc["tools"] = json!([{"name": "t", "title": "T", "inputSchema": {"type": "object"},
            "annotations": {}, "outputSchema": {"type": "object"}}]);
        let mut got = codes_at(&doc, "field-revision-mismatch");
        got.sort();
        assert_eq!(got, vec!["/tools/0/outputSchema", "/tools/0/title"]);
        // execution: 2025-11-25 only.
        let mut doc = base(&["2025-11-25"]);
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}, "icons": [{"src": "https://x.example/i.png"}]}]);
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
        doc["protocolVersions"] = json!(["2026-07-28"]);
        assert_eq!(
            codes_at(&doc, "field-revision-mismatch"),
            vec!["/tools/0/execution"]
        );
    }

    #[test]
    fn prompt_argument_title_and_resource_last_modified() {
        let mut doc = base(&["2024-11-05"]);
        doc["prompts"] = json!([{"name": "p", "arguments": [{"name": "a", "title": "A"}]}]);
        doc["resources"] = json!([{"uri": "a://x", "name": "x", "annotations": {"lastModified": "2026-01-01T00:00:00Z", "priority": 0.5}}]);
        assert_eq!(
            codes_at(&doc, "field-revision-mismatch"),
            vec![
                "/prompts/0/arguments/0/title",
                "/resources/0/annotations/lastModified"
            ]
        );
    }

    #[test]
    fn info_is_unscoped() {
        let mut doc = base(&["2024-11-05"]);
        doc["info"]["title"] = json!("T");
        doc["info"]["icons"] = json!([{"src": "https://x.example/i.png"}]);
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
    }
}
