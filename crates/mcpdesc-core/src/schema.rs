//! Facts about embedded Tool schemas (§9.2) that more than one crate needs.

use serde_json::Value;

/// The JSON Schema 2020-12 Meta-Data vocabulary (Validation §9): keywords that describe
/// a value and never change which values are valid. In the order a wrapper schema
/// that hoists them lists them.
pub const META_DATA_KEYWORDS: [&str; 7] = [
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// The JSON Schema 2020-12 Content vocabulary (Validation §8): in 2020-12 these are
/// annotations only (a validator does not decode or check the content).
pub const CONTENT_KEYWORDS: [&str; 3] = ["contentMediaType", "contentEncoding", "contentSchema"];

/// Whether `keyword` is a JSON Schema annotation that never changes which values are
/// valid: the Meta-Data and Content vocabularies and `$comment` (Core §8.3).
///
/// ```
/// use mcpdesc_core::schema::is_annotation;
/// assert!(is_annotation("readOnly") && is_annotation("$comment") && is_annotation("contentSchema"));
/// assert!(!is_annotation("format") && !is_annotation("minLength") && !is_annotation("$ref"));
/// ```
pub fn is_annotation(keyword: &str) -> bool {
    keyword == "$comment"
        || META_DATA_KEYWORDS.contains(&keyword)
        || CONTENT_KEYWORDS.contains(&keyword)
}

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
    fn annotation_keywords_per_json_schema_2020_12() {
        for k in [
            "title",
            "description",
            "default",
            "examples",
            "deprecated",
            "readOnly",
            "writeOnly",
            "contentMediaType",
            "contentEncoding",
            "contentSchema",
            "$comment",
        ] {
            assert!(is_annotation(k), "{k}");
        }
        // Assertions, applicators, identifiers and `format` (an assertion when the
        // format-assertion vocabulary is on) are not annotations here.
        for k in [
            "type",
            "enum",
            "const",
            "format",
            "minLength",
            "pattern",
            "$ref",
            "$defs",
            "$id",
            "$schema",
            "items",
            "properties",
            "required",
            "x-mcp-header",
            "example",
            "Title",
        ] {
            assert!(!is_annotation(k), "{k}");
        }
    }

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
