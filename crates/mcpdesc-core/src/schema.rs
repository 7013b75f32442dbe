//! Facts about embedded Tool schemas (§9.2) that more than one crate needs.

use serde_json::Value;

/// Whether a (resolved) Tool schema root describes an object (§9.2: "The schema root
/// MUST describe an object"; before MCP 2026-07-28 the same holds for `outputSchema`).
///
/// The official schema states it as `"type": {"const": "object"}` with `type` required,
/// and every revision's MCP schema types `inputSchema.type` as the string `"object"`.
/// So only the string form counts: a type list, even `["object"]`, is not an object
/// root on the wire, and neither is a schema without `type` (however object-like its
/// keywords), a boolean schema or a non-object value.
///
/// ```
/// use mcpdesc_core::schema::is_object_root;
/// use serde_json::json;
/// assert!(is_object_root(&json!({"type": "object"})));
/// assert!(!is_object_root(&json!({"type": ["object"]})));
/// assert!(!is_object_root(&json!({"properties": {}})));
/// ```
pub fn is_object_root(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_roots_per_the_official_schema() {
        for yes in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        ] {
            assert!(is_object_root(&yes), "{yes}");
        }
        for no in [
            json!({"type": ["object"]}),
            json!({"type": ["object", "null"]}),
            json!({"type": "array"}),
            json!({"type": "Object"}),
            json!({"properties": {"a": {}}}),
            json!({"$ref": "#/$defs/A"}),
            json!({"anyOf": [{"type": "object"}]}),
            json!(true),
            json!({}),
            json!("object"),
        ] {
            assert!(!is_object_root(&no), "{no}");
        }
    }
}
