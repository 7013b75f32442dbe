//! Tests a reviewer asked for when shown the mutants that survived a random sample of
//! this crate (issue 33). Each expectation is written by hand from the spec or an RFC.
#![allow(clippy::unwrap_used)]

use crate::DeclKind;

/// §17.3: Tool `examples` may reference `toolExamples`, Resource `resourceExamples`,
/// Resource Template `resourceTemplateExamples`, Prompt `promptExamples`; transports,
/// capabilities objects and elicitation declarations have no `examples` map.
#[test]
fn each_primitive_references_the_example_namespace_of_section_17_3() {
    let expected = [
        (DeclKind::Transport, None),
        (DeclKind::Capabilities, None),
        (DeclKind::Tool, Some("toolExamples")),
        (DeclKind::Resource, Some("resourceExamples")),
        (DeclKind::ResourceTemplate, Some("resourceTemplateExamples")),
        (DeclKind::Prompt, Some("promptExamples")),
        (DeclKind::Elicitation, None),
    ];
    for (kind, ns) in expected {
        assert_eq!(kind.example_namespace(), ns, "{kind:?}");
    }
}

/// RFC 6838 §4.2: a media type is `type-name "/" subtype-name`, both at least one
/// character. A `+json` subtype under an empty type name is no media type, so no JSON.
#[test]
fn a_json_suffix_without_a_type_name_is_not_json() {
    use crate::media::is_json;
    assert!(!is_json("/problem+json"));
    assert!(!is_json(" /vnd.api+json; charset=utf-8"));
    assert!(is_json("application/problem+json"));
}

/// §6.2: a Transport Object's `type` is `streamable-http`, `stdio` or `sse`, and
/// `kind` gives back the string the document wrote.
#[test]
fn a_transports_kind_is_its_type_string_of_section_6_2() {
    use crate::model::Transport;
    for (json, kind) in [
        (
            r#"{"type":"streamable-http","url":"https://chess.example.com/mcp"}"#,
            "streamable-http",
        ),
        (r#"{"type":"stdio","command":"chess-coach"}"#, "stdio"),
        (
            r#"{"type":"sse","url":"https://chess.example.com/sse"}"#,
            "sse",
        ),
    ] {
        let t: Transport = serde_json::from_str(json).unwrap();
        assert_eq!(t.kind(), kind, "{json}");
    }
}

/// §17.2: a Reference Object is an object whose `$componentRef` is a string; anything
/// else (a plain value, an object without the key, a non-string target) is no reference.
#[test]
fn component_ref_reads_the_target_of_a_reference_object_only() {
    use crate::refs::component_ref;
    use serde_json::json;
    assert_eq!(
        component_ref(&json!({"$componentRef": "#/components/schemas/Pet"})),
        Some("#/components/schemas/Pet")
    );
    assert_eq!(component_ref(&json!({"type": "object"})), None);
    assert_eq!(component_ref(&json!({"$componentRef": 7})), None);
    assert_eq!(component_ref(&json!("#/components/schemas/Pet")), None);
}

/// OpenAPI 3.1 §4.8.12.4 (Style Values): the seven `style` names, as `as_str`, `Display`
/// and the serialized provenance write them.
#[test]
fn styles_are_named_as_the_openapi_style_values_table() {
    use crate::provenance::Style;
    for (style, name) in [
        (Style::Matrix, "matrix"),
        (Style::Label, "label"),
        (Style::Simple, "simple"),
        (Style::Form, "form"),
        (Style::SpaceDelimited, "spaceDelimited"),
        (Style::PipeDelimited, "pipeDelimited"),
        (Style::DeepObject, "deepObject"),
    ] {
        assert_eq!(style.as_str(), name);
        assert_eq!(style.to_string(), name);
        assert_eq!(serde_json::to_value(style).unwrap(), name);
    }
}
