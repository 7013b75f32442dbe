//! Hand-written expectations: branch choice in structural errors (the transport and
//! example `oneOf`s of the official schema), validation in parts against the whole
//! document, and §12.5's legacy treatment of form elicitations.

// A failed unwrap is a failed test, which is what we want here.
#![allow(clippy::unwrap_used)]

use crate::{StructuralSchema, Validator, validate_value};
use mcpdesc_core::{Diagnostic, Severity};
use serde_json::{Value, json};

fn doc(scope: &[&str]) -> Value {
    json!({"mcpdesc": "0.8.0", "info": {"name": "n", "version": "1"}, "protocolVersions": scope})
}

fn structural(doc: &Value) -> Vec<(String, String)> {
    StructuralSchema::get()
        .check(doc)
        .into_iter()
        .map(|d| (d.code, d.pointer))
        .collect()
}

fn code_pointer(diags: &[Diagnostic]) -> Vec<(&str, &str)> {
    diags
        .iter()
        .map(|d| (d.code.as_str(), d.pointer.as_str()))
        .collect()
}

/// `"type": "stdio"` says which transport is meant: its errors are reported even though
/// the streamable-http and sse branches fail on fewer keywords (only their `type`
/// constant, a direct member, which marks them as other shapes).
#[test]
fn a_transport_is_reported_against_the_branch_its_type_names() {
    let mut d = doc(&["2025-06-18"]);
    d["transports"] = json!([{"type": "stdio", "url": "https://example.com/mcp"}]);
    assert_eq!(
        structural(&d),
        [
            ("schema-required".into(), "/transports/0/command".into()),
            ("unknown-property".into(), "/transports/0/url".into()),
        ]
    );
}

/// An inline example without `$componentRef` is not a broken Reference Object: its
/// own errors are reported, not the Reference Object branch's.
#[test]
fn an_inline_example_is_not_reported_as_a_reference_object() {
    let mut d = doc(&["2025-06-18"]);
    d["components"] = json!({"toolExamples": {"ex": {"input": 5, "result": 5}}});
    let got = structural(&d);
    assert!(
        !got.iter().any(|(_, p)| p.contains("$componentRef")),
        "{got:?}"
    );
    assert!(
        got.contains(&(
            "schema-type".into(),
            "/components/toolExamples/ex/input".into()
        )),
        "{got:?}"
    );
}

/// The module contract of [`crate::ToolParts`]: in parts, exactly the whole document's
/// diagnostics in the same order — tools of a later part sort after earlier ones.
#[test]
fn tools_validated_in_parts_report_in_document_order() {
    let mut whole = doc(&["2025-06-18"]);
    let tools: Vec<Value> = (0..3).map(|i| json!({"name": format!("t{i}")})).collect();
    whole["tools"] = Value::Array(tools.clone());
    let want = validate_value(&whole);
    assert_eq!(
        code_pointer(&want),
        [
            ("schema-required", "/tools/0/inputSchema"),
            ("schema-required", "/tools/1/inputSchema"),
            ("schema-required", "/tools/2/inputSchema"),
        ]
    );
    let parts = Validator::new().tool_parts(whole.clone()).unwrap();
    let (first, _) = parts.check(tools[..2].to_vec());
    let (second, _) = parts.check(tools[2..].to_vec());
    assert_eq!(parts.finish(vec![first, second]), want);
}

/// §12.5: 2024-11-05 and 2025-03-26 define no elicitation; a form elicitation whose
/// scope reaches 2025-03-26 gets the incomplete-validation warning there, no error.
#[test]
fn a_form_elicitation_reaching_a_legacy_revision_is_warned_about() {
    let mut d = doc(&["2025-03-26", "2025-06-18"]);
    d["transports"] = json!([{"type": "stdio", "command": "svc"}]);
    d["tools"] = json!([{
        "name": "deploy",
        "inputSchema": {"type": "object"},
        "elicitations": [{
            "name": "confirm", "mode": "form", "message": "Proceed?",
            "requestedSchema": {"type": "object",
                                "properties": {"ok": {"type": "boolean"}}}
        }]
    }]);
    let got = validate_value(&d);
    let about: Vec<&Diagnostic> = got
        .iter()
        .filter(|d| d.pointer.starts_with("/tools/0/elicitations/0"))
        .collect();
    assert_eq!(about.len(), 1, "{got:#?}");
    assert_eq!(about[0].code, "elicitation-validation-incomplete");
    assert_eq!(about[0].severity, Severity::Warning);
    assert_eq!(about[0].pointer, "/tools/0/elicitations/0");
    assert_eq!(
        about[0].message,
        "legacy MCP [2025-03-26] define no elicitation; only structural and selected \
         checks were applied (§12.5)"
    );
}
