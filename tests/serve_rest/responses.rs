//! Responses → Tool Results, per revision. Every result is checked by the workspace
//! validator as a named example of its tool (§9.3), the oracle for "valid at that
//! revision".

use super::recorder::{Recorder, Reply};
use super::*;
use mcpdesc_core::ProtocolRevision::{self, *};
use mcpdesc_rest::ValidateOutput;

fn pet_tools() -> Vec<Value> {
    let mut get_pet = tool(
        "get_pet",
        json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        json!({"method": "GET", "path": "/pets/{id}",
               "response": {"status": "200", "contentType": "application/json"},
               "arguments": {"id": {"in": "path", "name": "id"}}}),
    );
    get_pet["protocolVersions"] = json!(REVS);
    get_pet["outputSchema"] = json!({"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}, "required": ["id"]});
    // The importer's split: a wrapped variant before 2026-07-28, the array root after.
    let mut list_old = tool(
        "list_pets",
        json!({"type": "object"}),
        json!({"method": "GET", "path": "/pets",
               "response": {"status": "200", "contentType": "application/json", "resultWrapper": "result"}}),
    );
    list_old["protocolVersions"] = json!(["2025-06-18", "2025-11-25"]);
    list_old["outputSchema"] = json!({"type": "object", "properties": {"result": {"type": "array", "items": {"type": "object"}}}, "required": ["result"]});
    let mut list_new = tool(
        "list_pets",
        json!({"type": "object"}),
        json!({"method": "GET", "path": "/pets",
               "response": {"status": "200", "contentType": "application/json"}}),
    );
    list_new["protocolVersions"] = json!(["2026-07-28"]);
    list_new["outputSchema"] = json!({"type": "array", "items": {"type": "object"}});
    let any = tool(
        "any",
        json!({"type": "object"}),
        json!({"method": "GET", "path": "/any"}),
    );
    vec![get_pet, list_old, list_new, any]
}

async fn one(
    reply: Reply,
    name: &str,
    args: Value,
    rev: ProtocolRevision,
    mode: ValidateOutput,
) -> (Value, mcpdesc_rest::call::CallLog) {
    let rec = Recorder::always(reply);
    let d = doc(pet_tools(), json!({}));
    let b = gateway(
        &d,
        RestOptions {
            validate_output: mode,
            ..at(&rec.base())
        },
    );
    let out = call(&b, &d, name, args.clone(), rev).await;
    assert_valid(&d, name, &args, &out.result, rev);
    (out.result, out.log)
}

#[tokio::test]
async fn json_becomes_structured_content_per_revision() {
    for rev in [V2025_06_18, V2025_11_25, V2026_07_28] {
        let (r, log) = one(
            Reply::json(200, r#"{"id":"p1","name":"Rex"}"#),
            "get_pet",
            json!({"id": "p1"}),
            rev,
            ValidateOutput::Warn,
        )
        .await;
        assert_eq!(r["structuredContent"], json!({"id": "p1", "name": "Rex"}));
        assert_eq!(text(&r), r#"{"id":"p1","name":"Rex"}"#);
        assert_eq!(r.get("resultType").is_some(), rev == V2026_07_28, "{rev}");
        assert!(log.warnings.is_empty());
    }
    // The wrapper recorded for revisions before 2026-07-28; the bare array after.
    let (r, _) = one(
        Reply::json(200, r#"[{"id":"a"}]"#),
        "list_pets",
        json!({}),
        V2025_11_25,
        ValidateOutput::Strict,
    )
    .await;
    assert_eq!(r["structuredContent"], json!({"result": [{"id": "a"}]}));
    let (r, _) = one(
        Reply::json(200, r#"[{"id":"a"}]"#),
        "list_pets",
        json!({}),
        V2026_07_28,
        ValidateOutput::Strict,
    )
    .await;
    assert_eq!(r["structuredContent"], json!([{"id": "a"}]));
    // No outputSchema: structured content where the revision has it and the value is
    // an object; text only before StructuredContent.
    for (rev, structured) in [
        (V2024_11_05, false),
        (V2025_03_26, false),
        (V2025_06_18, true),
    ] {
        let (r, _) = one(
            Reply::json(200, r#"{"a":1}"#),
            "any",
            json!({}),
            rev,
            ValidateOutput::Warn,
        )
        .await;
        assert_eq!(r.get("structuredContent").is_some(), structured, "{rev}");
        assert_eq!(text(&r), r#"{"a":1}"#);
    }
    let (r, _) = one(
        Reply::json(200, "[1]"),
        "any",
        json!({}),
        V2025_06_18,
        ValidateOutput::Warn,
    )
    .await;
    assert!(
        r.get("structuredContent").is_none(),
        "arrays are structured only from 2026-07-28"
    );
    let (r, _) = one(
        Reply::json(200, "[1]"),
        "any",
        json!({}),
        V2026_07_28,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["structuredContent"], json!([1]));
}

#[tokio::test]
async fn output_validation_warn() {
    let rec = Recorder::always(Reply::json(200, r#"{"name":7}"#));
    let d = doc(pet_tools(), json!({}));
    let b = gateway(&d, at(&rec.base()));
    let out = call(&b, &d, "get_pet", json!({"id": "p"}), V2026_07_28).await;
    // warn (the default): the data is returned and the log says why; the validator
    // confirms the data does not match, which is what warn knowingly passes on.
    assert!(out.result.get("isError").is_none());
    assert_eq!(out.result["structuredContent"], json!({"name": 7}));
    assert_eq!(out.log.warnings.len(), 1, "{:?}", out.log);
    assert!(
        out.log.warnings[0].contains("outputSchema"),
        "{:?}",
        out.log
    );
    let e = example_errors(&d, "get_pet", &json!({"id": "p"}), &out.result, V2026_07_28);
    assert!(
        e.iter()
            .all(|e| e.starts_with("tool-example-output-mismatch"))
            && !e.is_empty(),
        "{e:#?}"
    );
}

/// An outputSchema that is a `$componentRef` is checked against the component it names
/// (the gateway locates it at start and compiles it on the first call).
#[tokio::test]
async fn output_schema_by_component_ref() {
    let mut get = tool(
        "get_pet",
        json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        json!({"method": "GET", "path": "/pets/{id}",
               "response": {"status": "200", "contentType": "application/json"},
               "arguments": {"id": {"in": "path", "name": "id"}}}),
    );
    get["protocolVersions"] = json!(REVS);
    get["outputSchema"] = json!({"$componentRef": "#/components/schemas/Pet"});
    let d = doc(
        vec![get],
        json!({"components": {"schemas": {"Pet": {"type": "object", "required": ["id"],
            "properties": {"id": {"type": "string"}}}}}}),
    );
    for (body, is_error) in [(r#"{"name":"x"}"#, true), (r#"{"id":"p"}"#, false)] {
        let rec = Recorder::always(Reply::json(200, body));
        let b = gateway(
            &d,
            RestOptions {
                validate_output: ValidateOutput::Strict,
                ..at(&rec.base())
            },
        );
        let out = call(&b, &d, "get_pet", json!({"id": "p"}), V2026_07_28).await;
        assert_eq!(
            out.result.get("isError").is_some(),
            is_error,
            "{body}: {:#}",
            out.result
        );
        if is_error {
            let t = text(&out.result);
            assert!(t.contains("outputSchema") && t.contains("id"), "{t}");
        } else {
            assert_eq!(out.result["structuredContent"], json!({"id": "p"}));
        }
        assert_valid(&d, "get_pet", &json!({"id": "p"}), &out.result, V2026_07_28);
    }
}

#[tokio::test]
async fn output_validation_strict_and_off() {
    let rec = Recorder::always(Reply::json(200, r#"{"name":7}"#));
    let d = doc(pet_tools(), json!({}));
    for (mode, is_error) in [(ValidateOutput::Strict, true), (ValidateOutput::Off, false)] {
        let b = gateway(
            &d,
            RestOptions {
                validate_output: mode,
                ..at(&rec.base())
            },
        );
        let out = call(&b, &d, "get_pet", json!({"id": "p"}), V2026_07_28).await;
        assert_eq!(
            out.result.get("isError").is_some(),
            is_error,
            "{mode:?}: {:#}",
            out.result
        );
        if is_error {
            assert!(out.result.get("structuredContent").is_none());
            let t = text(&out.result);
            assert!(t.contains("outputSchema") && t.contains("id"), "{t}");
            assert_valid(&d, "get_pet", &json!({"id": "p"}), &out.result, V2026_07_28);
        } else {
            assert!(out.log.warnings.is_empty());
        }
    }
}

#[tokio::test]
async fn http_errors_are_tool_errors_with_status_and_body() {
    let (r, log) = one(
        Reply::json(404, r#"{"code":404,"message":"no such pet"}"#),
        "get_pet",
        json!({"id": "zz"}),
        V2026_07_28,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["isError"], true);
    assert!(r.get("structuredContent").is_none());
    assert_eq!(
        text(&r),
        "The API answered HTTP 404 Not Found.\n\n{\n  \"code\": 404,\n  \"message\": \"no such pet\"\n}"
    );
    assert!(log.is_error);
    // A text body, and a huge one cut to the budget at a character boundary.
    let big = "é".repeat(100_000);
    let (r, _) = one(
        Reply::with(500, "text/plain", big.as_bytes()),
        "any",
        json!({}),
        V2025_03_26,
        ValidateOutput::Warn,
    )
    .await;
    let t = text(&r);
    assert!(
        t.starts_with("The API answered HTTP 500 Internal Server Error.\n\néé"),
        "{}",
        &t[..80]
    );
    assert!(
        t.len() < mcpdesc_rest::ERROR_BODY_BUDGET + 200,
        "{}",
        t.len()
    );
    assert!(t.ends_with("bytes shown)"), "{}", &t[t.len() - 80..]);
}

#[tokio::test]
async fn other_media_types() {
    let (r, _) = one(
        Reply::with(200, "text/plain; charset=utf-8", "héllo".as_bytes()),
        "any",
        json!({}),
        V2025_06_18,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["content"], json!([{"type": "text", "text": "héllo"}]));
    let png = [0x89u8, b'P', b'N', b'G'];
    let (r, _) = one(
        Reply::with(200, "image/png", &png),
        "any",
        json!({}),
        V2024_11_05,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(
        r["content"],
        json!([{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}])
    );
    // Audio content exists from 2025-03-26 on; before, an embedded resource blob.
    let (r, _) = one(
        Reply::with(200, "audio/wav", b"RIFF"),
        "any",
        json!({}),
        V2025_03_26,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(
        r["content"],
        json!([{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}])
    );
    let (r, _) = one(
        Reply::with(200, "audio/wav", b"RIFF"),
        "any",
        json!({}),
        V2024_11_05,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["content"][0]["type"], "resource");
    assert_eq!(r["content"][0]["resource"]["blob"], "UklGRg==");
    let (r, _) = one(
        Reply::with(200, "application/pdf", b"%PDF"),
        "any",
        json!({}),
        V2026_07_28,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["content"][0]["resource"]["mimeType"], "application/pdf");
    assert!(
        r["content"][0]["resource"]["uri"]
            .as_str()
            .is_some_and(|u| u.ends_with("/any"))
    );
    // 204: a short text block.
    let (r, _) = one(
        Reply::empty(204),
        "any",
        json!({}),
        V2026_07_28,
        ValidateOutput::Warn,
    )
    .await;
    assert!(text(&r).starts_with("HTTP 204 No Content"), "{r:#}");
    assert!(r.get("isError").is_none());
    // A tool that declares an outputSchema answered without JSON: a tool error, since a
    // successful result would need structuredContent (§9.3).
    let (r, _) = one(
        Reply::empty(204),
        "get_pet",
        json!({"id": "p"}),
        V2025_06_18,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["isError"], true);
}

#[tokio::test]
async fn invalid_json_under_a_json_type() {
    let (r, log) = one(
        Reply::json(200, r#"{"id": "p1", oops"#),
        "get_pet",
        json!({"id": "p1"}),
        V2026_07_28,
        ValidateOutput::Warn,
    )
    .await;
    assert_eq!(r["isError"], true);
    assert!(text(&r).contains("not JSON"), "{r:#}");
    assert!(log.error.is_some());
}
