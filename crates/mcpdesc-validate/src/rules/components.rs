//! Reusable components and local references (§17.1–§17.4).

use crate::ctx::{Ctx, Primitive, ptr};
use mcpdesc_core::refs::{NAMESPACES, RefError, is_local_name, is_reference};
use mcpdesc_core::{DeclKind, Diagnostic};
use serde_json::Value;

/// Reports a failed resolution at the use site (a malformed pointer at its `$componentRef`
/// member, where the schema's pattern also points).
fn report(cx: &mut Ctx<'_>, at: &str, err: RefError) {
    let at = match err {
        // The schema reports the sibling members themselves (closed Reference Object).
        RefError::Siblings => return,
        // A processing limit, not a document error: `Ctx::resolve` said so once.
        RefError::TooDeep => return,
        RefError::Malformed(_) => ptr(at, "$componentRef"),
        _ => at.to_string(),
    };
    cx.push(Diagnostic::error(err.code(), format!("{err} (§17.4)")).at(at));
}

fn check_use_site<'a>(cx: &mut Ctx<'a>, value: &'a Value, at: &str, namespace: &str) {
    if !is_reference(value) {
        return;
    }
    if let Err(e) = cx.resolve(value, namespace) {
        report(cx, at, e);
    }
}

/// §17.1: names, no `protocolVersions`; §17.4: component-to-component references.
pub fn check_components(cx: &mut Ctx<'_>) {
    let Some(Value::Object(components)) = cx.root_obj.get("components") else {
        return;
    };
    if components.contains_key("protocolVersions") {
        cx.push(
            Diagnostic::error(
                "component-protocol-versions",
                "components have no protocol scope; applicability comes from each use site (§17.1)",
            )
            .at("/components/protocolVersions"),
        );
    }
    for ns in NAMESPACES {
        let Some(Value::Object(map)) = components.get(ns) else {
            continue;
        };
        let ns_at = format!("/components/{ns}");
        for (name, value) in map {
            let at = ptr(&ns_at, name);
            if !is_local_name(name) {
                cx.push(
                    Diagnostic::error(
                        "invalid-component-name",
                        format!("component name `{name}` must match ^[A-Za-z0-9._-]+$ (§17.1)"),
                    )
                    .at(at.clone()),
                );
            }
            // Schema components are JSON Schemas: a `protocolVersions` keyword there is
            // schema vocabulary, not an MCP Description scope.
            if ns != "schemas" && value.get("protocolVersions").is_some() && !is_reference(value) {
                cx.push(
                    Diagnostic::error(
                        "component-protocol-versions",
                        "component values must not declare `protocolVersions`; applicability comes \
                         from each use site (§17.1)",
                    )
                    .at(ptr(&at, "protocolVersions")),
                );
            }
            check_use_site(cx, value, &at, ns);
        }
    }
}

/// §17.3, §17.4: every Reference Object at a primitive's use sites resolves in the right
/// namespace.
pub fn check_use_sites<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    if p.kind == DeclKind::Tool {
        for field in ["inputSchema", "outputSchema"] {
            if let Some(v) = p.value.get(field) {
                check_use_site(cx, v, &ptr(&p.pointer, field), "schemas");
            }
        }
    }
    if let (Some(Value::Object(examples)), Some(ns)) =
        (p.value.get("examples"), p.kind.example_namespace())
    {
        let ex_at = ptr(&p.pointer, "examples");
        for (name, v) in examples {
            check_use_site(cx, v, &ptr(&ex_at, name), ns);
        }
    }
    if let Some(Value::Array(els)) = p.value.get("elicitations") {
        for (j, e) in els.iter().enumerate() {
            if let Some(v) = e.get("requestedSchema") {
                let at = format!("{}/elicitations/{j}/requestedSchema", p.pointer);
                check_use_site(cx, v, &at, "schemas");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors};
    use serde_json::json;

    #[test]
    fn resolution_errors_are_distinguished_at_the_use_site() {
        let mut doc = base(&["2026-07-28"]);
        doc["components"] = json!({
            "schemas": {"A": {"$componentRef": "#/components/schemas/B"}, "B": {"$componentRef": "#/components/schemas/A"},
                        "Ok": {"type": "object"}},
            "toolExamples": {"e": {"input": {}, "result": {"resultType": "complete", "content": []}}}
        });
        doc["tools"] = json!([
            {"name": "missing", "inputSchema": {"$componentRef": "#/components/schemas/Missing"}},
            {"name": "wrong", "inputSchema": {"$componentRef": "#/components/toolExamples/e"}},
            {"name": "ok", "inputSchema": {"$componentRef": "#/components/schemas/Ok"},
             "examples": {"e": {"$componentRef": "#/components/toolExamples/e"}}},
            {"name": "remote", "inputSchema": {"$componentRef": "https://x.example/s.json#/components/schemas/Ok"}}
        ]);
        assert_eq!(
            codes_at(&doc, "component-ref-missing"),
            vec!["/tools/0/inputSchema"]
        );
        assert_eq!(
            codes_at(&doc, "component-ref-wrong-namespace"),
            vec!["/tools/1/inputSchema"]
        );
        assert_eq!(
            codes_at(&doc, "component-ref-cycle"),
            vec!["/components/schemas/A", "/components/schemas/B"]
        );
        assert_eq!(
            codes_at(&doc, "component-ref-malformed"),
            vec!["/tools/3/inputSchema/$componentRef"]
        );
    }

    #[test]
    fn names_and_scopes() {
        let mut doc = base(&["2026-07-28"]);
        doc["components"] = json!({
            "schemas": {"bad name": {"type": "object"}, "x-named-schema": {"type": "object", "protocolVersions": 1}},
            "promptExamples": {"p": {"protocolVersions": ["2026-07-28"], "result": {"resultType": "complete", "messages": []}}}
        });
        assert_eq!(
            codes_at(&doc, "invalid-component-name"),
            vec!["/components/schemas/bad name"]
        );
        assert_eq!(
            codes_at(&doc, "component-protocol-versions"),
            vec!["/components/promptExamples/p/protocolVersions"]
        );
    }

    #[test]
    fn elicitation_and_example_use_sites() {
        let mut doc = base(&["2026-07-28"]);
        doc["components"] = json!({"schemas": {"Form": {"type": "object", "properties": {}}}});
        doc["resources"] = json!([{"uri": "a://x", "name": "x",
            "examples": {"e": {"$componentRef": "#/components/resourceExamples/none"}},
            "elicitations": [{"name": "f", "mode": "form", "message": "m",
                              "requestedSchema": {"$componentRef": "#/components/schemas/Form"}}]}]);
        assert_eq!(
            codes_at(&doc, "component-ref-missing"),
            vec!["/resources/0/examples/e"]
        );
        assert_eq!(errors(&doc).len(), 1, "{:?}", errors(&doc));
    }
}
