//! Empty ordinary declaration collections (§3.3, §15.6): present means non-empty.
//!
//! Semantically significant empties (`security: []`, `security: [{}]`, empty scope
//! arrays) and collections inside embedded schemas, extension values, literal example
//! values and protocol-native content are deliberately not in this list (§3.3).

use crate::ctx::{Ctx, Primitive, ptr};
use mcpdesc_core::Diagnostic;
use mcpdesc_core::refs::NAMESPACES;
use mcpdesc_core::skeleton::ROOT_COLLECTIONS;
use serde_json::{Map, Value};

/// Per-primitive collections named by §3.3 (plus Tool `interactionExamples`, §9.4).
const PRIMITIVE: [&str; 7] = [
    "icons",
    "tags",
    "elicitations",
    "arguments",
    "examples",
    "completionExamples",
    "interactionExamples",
];

fn is_empty_collection(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn check_in(cx: &mut Ctx<'_>, obj: &Map<String, Value>, base: &str, keys: &[&str]) {
    for key in keys {
        if obj.get(*key).is_some_and(is_empty_collection) {
            cx.push(
                Diagnostic::error(
                    "empty-collection",
                    format!("`{key}` is present but empty; omit an ordinary collection that has no entries (§3.3)"),
                )
                .at(ptr(base, key)),
            );
        }
    }
}

/// §3.3 outside primitive declarations.
pub fn check_document(cx: &mut Ctx<'_>) {
    let root = cx.root_obj;
    check_in(cx, root, "", &ROOT_COLLECTIONS);
    check_in(cx, root, "", &["components"]);
    if let Some(Value::Object(components)) = root.get("components") {
        check_in(cx, components, "/components", &NAMESPACES);
    }
    if let Some(Value::Object(info)) = root.get("info") {
        check_in(cx, info, "/info", &["icons"]);
    }
    for (i, c) in cx.root_array("capabilities").iter().enumerate() {
        if let Some(c) = c.as_object() {
            check_in(cx, c, &format!("/capabilities/{i}"), &["extensions"]);
        }
    }
}

/// §3.3 in one primitive declaration.
pub fn check_primitive(cx: &mut Ctx<'_>, p: &Primitive<'_>) {
    check_in(cx, p.value, &p.pointer, &PRIMITIVE);
    if let Some(Value::Object(cr)) = p.value.get("clientRequirements") {
        check_in(
            cx,
            cr,
            &ptr(&p.pointer, "clientRequirements"),
            &["extensions"],
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_support::{base, codes_at, errors};
    use serde_json::json;

    #[test]
    fn root_collections() {
        let mut doc = base(&["2026-07-28"]);
        for k in [
            "transports",
            "capabilities",
            "tools",
            "resources",
            "resourceTemplates",
            "prompts",
            "tags",
        ] {
            doc[k] = json!([]);
        }
        doc["securitySchemes"] = json!({});
        doc["components"] = json!({});
        assert_eq!(
            codes_at(&doc, "empty-collection"),
            vec![
                "/transports",
                "/capabilities",
                "/tools",
                "/resources",
                "/resourceTemplates",
                "/prompts",
                "/tags",
                "/securitySchemes",
                "/components"
            ]
        );
    }

    #[test]
    fn nested_collections() {
        let mut doc = base(&["2026-07-28"]);
        doc["info"]["icons"] = json!([]);
        doc["capabilities"] = json!([{"extensions": {}}]);
        doc["components"] = json!({"schemas": {}});
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}, "icons": [], "tags": [],
            "elicitations": [], "examples": {}, "interactionExamples": {}, "clientRequirements": {"extensions": {}}}]);
        doc["prompts"] = json!([{"name": "p", "arguments": [], "completionExamples": {}}]);
        assert_eq!(
            codes_at(&doc, "empty-collection"),
            vec![
                "/info/icons",
                "/capabilities/0/extensions",
                "/components/schemas",
                "/tools/0/icons",
                "/tools/0/tags",
                "/tools/0/elicitations",
                "/tools/0/examples",
                "/tools/0/interactionExamples",
                "/tools/0/clientRequirements/extensions",
                "/prompts/0/arguments",
                "/prompts/0/completionExamples"
            ]
        );
    }

    #[test]
    fn significant_empties_are_not_collections() {
        let mut doc = base(&["2026-07-28"]);
        doc["securitySchemes"] = json!({"k": {"type": "apiKey", "in": "header", "name": "K"}});
        doc["security"] = json!([]);
        doc["tools"] = json!([{"name": "t", "inputSchema": {"type": "object", "properties": {}, "required": []},
            "security": [{}, {"k": []}]}]);
        assert!(errors(&doc).is_empty(), "{:?}", errors(&doc));
    }
}
