//! Hand-written expectations for the survivors of a mutation sample of this crate
//! (34 mutants, seed 3302): inlining leaves instance data alone, and strict mode's
//! bare-`$ref` rule.

use mcpdesc_core::ProtocolRevision;
use mcpdesc_hosts::strict::{StrictFinding, StrictIssue, findings};
use mcpdesc_hosts::table::StrictLimits;
use mcpdesc_hosts::{FitOptions, fit_tools_list, host};
use serde_json::json;

#[test]
fn inlining_refs_leaves_instance_values_that_look_like_refs_alone() {
    // JSON Schema 2020-12 §9 (meta-data) and §6.1 (validation): `default`, `examples`,
    // `const` and `enum` hold instances, not subschemas, so an object there with a
    // `$ref` member is data; `required` is a list of names.
    let input = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "doc": {
                "type": "object",
                "default": {"$ref": "#/$defs/A"},
                "examples": [{"$ref": "#/$defs/A"}],
                "const": {"$ref": "#/$defs/A"},
                "enum": [{"$ref": "#/$defs/A"}]
            }
        },
        "required": ["a"],
        "$defs": {"A": {"type": "string"}}
    });
    let list = json!({"tools": [{
        "name": "put_doc",
        "title": "Put a document",
        "description": "Stores one JSON document.",
        "inputSchema": input,
        "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}
    }]});
    let opts = FitOptions {
        host: host("gemini-cli"),
        server_prefix: Some("gh"),
        budget: None,
    };
    let fitted = fit_tools_list(list, ProtocolRevision::V2026_07_28, &opts);
    assert_eq!(
        fitted.tools_list["tools"][0]["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "doc": {
                    "type": "object",
                    "default": {"$ref": "#/$defs/A"},
                    "examples": [{"$ref": "#/$defs/A"}],
                    "const": {"$ref": "#/$defs/A"},
                    "enum": [{"$ref": "#/$defs/A"}]
                }
            },
            "required": ["a"]
        })
    );
}

#[test]
fn strict_mode_takes_a_bare_ref_but_not_one_with_siblings() {
    // OpenAI structured outputs: `$ref` is supported; a `$ref` with sibling keywords
    // is what the Agents SDK's ensure_strict_json_schema has to inline.
    let limits = StrictLimits {
        max_depth: 10,
        max_properties: 100,
        max_enum_values: 500,
    };
    let schema = |a: serde_json::Value| {
        json!({"type": "object", "properties": {"a": a}, "required": ["a"],
               "additionalProperties": false, "$defs": {"A": {"type": "string"}}})
    };
    assert_eq!(
        findings(&schema(json!({"$ref": "#/$defs/A"})), "", limits),
        []
    );
    assert_eq!(
        findings(
            &schema(json!({"$ref": "#/$defs/A", "description": "the a"})),
            "/inputSchema",
            limits
        ),
        [StrictFinding {
            pointer: "/inputSchema/properties/a".into(),
            issue: StrictIssue::RefWithSiblings
        }]
    );
}
