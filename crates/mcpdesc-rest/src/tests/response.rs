//! HTTP responses → Tool Results at each revision, through [`RestBackend::call`] with a
//! scripted client: what the model reads and what is logged.

use super::*;
use crate::ValidateOutput;
use ProtocolRevision::{V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28};

/// A GET tool with this `response` provenance and `outputSchema`.
fn tool(response: Option<Value>, output_schema: Option<Value>) -> Value {
    let mut prov = get("/x", json!({}));
    if let Some(r) = response {
        prov["response"] = r;
    }
    let mut d = doc(prov, json!({}));
    if let Some(s) = output_schema {
        d["tools"][0]["outputSchema"] = s;
    }
    d
}

/// The result of one call answered by `resp`, under `mode`.
async fn answer(
    d: &Value,
    rev: ProtocolRevision,
    mode: ValidateOutput,
    resp: HttpResponse,
) -> crate::call::CallOutcome {
    let client = Scripted::new(vec![Ok(resp)]);
    let opts = RestOptions {
        validate_output: mode,
        ..RestOptions::default()
    };
    let b = backend_with(d, opts, client);
    call(&b, d, rev, json!({})).await
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn id_schema() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]})
}

#[tokio::test]
async fn json_becomes_structured_content_where_the_revision_has_it() {
    let d = tool(None, None);
    let ok = || response(200, Some("application/json; charset=utf-8"), br#"{"id":1}"#);
    let o = answer(&d, V2026_07_28, ValidateOutput::Warn, ok()).await;
    assert_eq!(
        o.result,
        json!({"content": [text(r#"{"id":1}"#)], "structuredContent": {"id": 1}, "resultType": "complete"})
    );
    assert_eq!(
        o.log
            .upstream
            .as_ref()
            .map(|u| (u.method.as_str(), u.url.as_str(), u.status, u.attempts)),
        Some(("GET", format!("{BASE}/x").as_str(), Some(200), 1))
    );
    assert!(!o.log.is_error && o.log.error.is_none() && o.log.warnings.is_empty());
    // Before structuredContent existed: the text alone.
    let o = answer(&d, V2025_03_26, ValidateOutput::Warn, ok()).await;
    assert_eq!(o.result, json!({"content": [text(r#"{"id":1}"#)]}));
    let o = answer(&d, V2025_06_18, ValidateOutput::Warn, ok()).await;
    assert_eq!(
        o.result,
        json!({"content": [text(r#"{"id":1}"#)], "structuredContent": {"id": 1}})
    );
    // A non-object root is structured content only where any root is allowed.
    let arr = || response(200, Some("application/problem+json"), b"[1,2]");
    let o = answer(&d, V2025_11_25, ValidateOutput::Warn, arr()).await;
    assert_eq!(o.result, json!({"content": [text("[1,2]")]}));
    let o = answer(&d, V2026_07_28, ValidateOutput::Warn, arr()).await;
    assert_eq!(
        o.result,
        json!({"content": [text("[1,2]")], "structuredContent": [1, 2], "resultType": "complete"})
    );
}

#[tokio::test]
async fn a_result_wrapper_wraps_the_body() {
    let d = tool(
        Some(json!({"status": "200", "contentType": "application/json", "resultWrapper": "items"})),
        Some(
            json!({"type": "object", "properties": {"items": {"type": "array"}}, "required": ["items"]}),
        ),
    );
    let o = answer(
        &d,
        V2025_11_25,
        ValidateOutput::Strict,
        response(200, Some("application/json"), b"[1,2]"),
    )
    .await;
    assert_eq!(
        o.result,
        json!({"content": [text(r#"{"items":[1,2]}"#)], "structuredContent": {"items": [1, 2]}})
    );
    assert!(o.log.warnings.is_empty());
}

#[tokio::test]
async fn output_schema_violations_per_validate_output_mode() {
    let d = tool(None, Some(id_schema()));
    let bad = || response(200, Some("application/json"), br#"{"id":"x"}"#);
    let o = answer(&d, V2026_07_28, ValidateOutput::Strict, bad()).await;
    let shown = o.result["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_string();
    assert!(
        shown.starts_with("the API's response does not match the tool's outputSchema: /id: ")
            && shown.ends_with(" (output validation is strict)"),
        "{shown}"
    );
    assert_eq!(o.result["isError"], true);
    assert!(o.result.get("structuredContent").is_none());
    assert!(o.log.is_error);
    assert_eq!(
        o.log.error.as_deref(),
        shown.strip_suffix(" (output validation is strict)")
    );
    // warn: the data, and a warning in the log.
    let o = answer(&d, V2026_07_28, ValidateOutput::Warn, bad()).await;
    assert_eq!(
        o.result,
        json!({"content": [text(r#"{"id":"x"}"#)], "structuredContent": {"id": "x"}, "resultType": "complete"})
    );
    assert_eq!(o.log.warnings.len(), 1);
    assert!(
        o.log.warnings[0]
            .starts_with("the API's response does not match the tool's outputSchema: /id: "),
        "{:?}",
        o.log.warnings
    );
    assert!(!o.log.is_error);
    // off: not checked.
    let o = answer(&d, V2026_07_28, ValidateOutput::Off, bad()).await;
    assert_eq!(o.result["structuredContent"], json!({"id": "x"}));
    assert!(o.log.warnings.is_empty());
    // A valid body: no warning.
    let o = answer(
        &d,
        V2026_07_28,
        ValidateOutput::Strict,
        response(200, Some("application/json"), br#"{"id":2}"#),
    )
    .await;
    assert_eq!(o.result["structuredContent"], json!({"id": 2}));
    assert!(o.log.warnings.is_empty() && !o.log.is_error);
}

#[tokio::test]
async fn a_non_object_body_cannot_be_structured_before_any_root_is_allowed() {
    let d = tool(None, Some(json!({"type": "array"})));
    let arr = || response(200, Some("application/json"), b"[1]");
    for (mode, why) in [
        (
            ValidateOutput::Warn,
            "a result of a tool with an outputSchema must carry matching structured content",
        ),
        (ValidateOutput::Strict, "output validation is strict"),
    ] {
        let o = answer(&d, V2025_11_25, mode, arr()).await;
        assert_eq!(
            o.result["content"][0]["text"],
            format!(
                "the API's response does not match the tool's outputSchema: (root): the body is not a JSON object, which structuredContent must be at this revision ({why})"
            ),
        );
        assert_eq!(o.result["isError"], true);
    }
    let o = answer(&d, V2025_11_25, ValidateOutput::Off, arr()).await;
    assert_eq!(o.result, json!({"content": [text("[1]")]}));
}

#[tokio::test]
async fn a_schema_that_does_not_compile_is_a_warning_not_a_failure() {
    let d = tool(
        None,
        Some(json!({"$ref": "https://example.com/remote.json"})),
    );
    let o = answer(
        &d,
        V2026_07_28,
        ValidateOutput::Strict,
        response(200, Some("application/json"), br#"{"a":1}"#),
    )
    .await;
    assert_eq!(o.result["structuredContent"], json!({"a": 1}));
    assert_eq!(o.log.warnings.len(), 1);
    assert!(
        o.log.warnings[0].starts_with("the outputSchema does not compile: "),
        "{:?}",
        o.log.warnings
    );
}

#[tokio::test]
async fn error_statuses_show_the_status_line_and_the_body() {
    let d = tool(None, Some(id_schema()));
    let o = answer(
        &d,
        V2026_07_28,
        ValidateOutput::Strict,
        response(
            404,
            Some("application/json"),
            br#"{"error":"nope","n":[1]}"#,
        ),
    )
    .await;
    assert_eq!(
        o.result,
        json!({"content": [text("The API answered HTTP 404 Not Found.\n\n{\n  \"error\": \"nope\",\n  \"n\": [\n    1\n  ]\n}")],
               "isError": true, "resultType": "complete"})
    );
    assert_eq!(o.log.error.as_deref(), Some("HTTP 404 Not Found"));
    assert_eq!(o.log.upstream.as_ref().and_then(|u| u.status), Some(404));
    assert!(o.log.is_error);
    // No reason phrase, no body; a 1xx/3xx is no success either.
    let mut r = response(399, None, b"");
    r.reason = None;
    let o = answer(&d, V2024_11_05, ValidateOutput::Warn, r).await;
    assert_eq!(
        o.result,
        json!({"content": [text("The API answered HTTP 399.")], "isError": true})
    );
    let o = answer(
        &d,
        V2024_11_05,
        ValidateOutput::Warn,
        response(300, None, b""),
    )
    .await;
    assert_eq!(o.result["isError"], true);
    // A truncated JSON body is shown as read, not parsed.
    let mut r = response(500, Some("application/json"), br#"{"a": 1"#);
    r.truncated = true;
    let o = answer(&d, V2024_11_05, ValidateOutput::Warn, r).await;
    assert_eq!(
        o.result["content"][0]["text"],
        "The API answered HTTP 500 Internal Server Error.\n\n{\"a\": 1\n… (body cut: 7 of 7+ bytes shown)"
    );
    // A long body is cut at the budget, at a character boundary.
    let long = format!("a{}", "é".repeat(4100));
    let o = answer(
        &d,
        V2024_11_05,
        ValidateOutput::Warn,
        response(500, Some("text/plain"), long.as_bytes()),
    )
    .await;
    assert_eq!(
        o.result["content"][0]["text"],
        format!(
            "The API answered HTTP 500 Internal Server Error.\n\n{}\n… (body cut: 8191 of 8201 bytes shown)",
            &long[..8191]
        )
    );
    // Only a JSON type is pretty-printed.
    let o = answer(
        &d,
        V2024_11_05,
        ValidateOutput::Warn,
        response(400, Some("text/plain"), br#"{"a":1}"#),
    )
    .await;
    assert_eq!(
        o.result["content"][0]["text"],
        "The API answered HTTP 400.\n\n{\"a\":1}"
    );
    // Exactly the budget: shown whole.
    let fits = "x".repeat(crate::ERROR_BODY_BUDGET);
    let o = answer(
        &d,
        V2024_11_05,
        ValidateOutput::Warn,
        response(500, Some("text/plain"), fits.as_bytes()),
    )
    .await;
    assert_eq!(
        o.result["content"][0]["text"],
        format!("The API answered HTTP 500 Internal Server Error.\n\n{fits}")
    );
}

#[tokio::test]
async fn a_body_that_is_not_the_json_it_claims_is_a_tool_error() {
    let d = tool(None, None);
    let o = answer(
        &d,
        V2026_07_28,
        ValidateOutput::Off,
        response(200, Some("application/vnd.api+json"), b"nope"),
    )
    .await;
    let t = o.result["content"][0]["text"].as_str().expect("text");
    assert!(
        t.starts_with(
            "The API answered HTTP 200 OK with Content-Type application/vnd.api+json, but the body is not JSON ("
        ) && t.ends_with(").\n\nnope"),
        "{t}"
    );
    assert_eq!(o.result["isError"], true);
    assert_eq!(
        o.log.error.as_deref(),
        Some("invalid JSON under application/vnd.api+json")
    );
}

#[tokio::test]
async fn other_media_types_become_text_image_audio_or_resource_content() {
    let d = tool(None, None);
    let one = |rev, ct: Option<&str>, body: &[u8]| {
        let d = d.clone();
        let r = response(200, ct, body);
        async move { answer(&d, rev, ValidateOutput::Warn, r).await.result }
    };
    assert_eq!(
        one(V2025_03_26, Some("text/plain; charset=utf-8"), b"hi").await,
        json!({"content": [text("hi")]})
    );
    assert_eq!(
        one(V2025_03_26, Some("application/atom+xml"), b"<a/>").await,
        json!({"content": [text("<a/>")]})
    );
    assert_eq!(
        one(V2025_03_26, Some("application/xml"), b"<a/>").await,
        json!({"content": [text("<a/>")]})
    );
    assert_eq!(
        one(V2025_03_26, Some("image/png"), &[1, 2, 3]).await,
        json!({"content": [{"type": "image", "data": "AQID", "mimeType": "image/png"}]})
    );
    assert_eq!(
        one(V2025_03_26, Some("audio/wav"), &[1, 2, 3]).await,
        json!({"content": [{"type": "audio", "data": "AQID", "mimeType": "audio/wav"}]})
    );
    // No audio content before 2025-03-26: an embedded resource.
    let blob = |mime: &str, b64: &str| json!({"content": [{"type": "resource", "resource": {"uri": format!("{BASE}/x"), "mimeType": mime, "blob": b64}}]});
    assert_eq!(
        one(V2024_11_05, Some("audio/wav"), &[1, 2, 3]).await,
        blob("audio/wav", "AQID")
    );
    assert_eq!(
        one(V2024_11_05, Some("application/pdf"), b"%PDF").await,
        blob("application/pdf", "JVBERg==")
    );
    // No Content-Type: text when it is UTF-8, else bytes.
    assert_eq!(
        one(V2024_11_05, None, b"plain").await,
        json!({"content": [text("plain")]})
    );
    assert_eq!(
        one(V2024_11_05, None, &[0xff]).await,
        blob("application/octet-stream", "/w==")
    );
    // An empty success.
    assert_eq!(
        one(V2026_07_28, Some("application/json"), b"").await,
        json!({"content": [text("HTTP 200 OK: the request succeeded; the response has no body.")], "resultType": "complete"})
    );
    let no_content = response(204, None, b"");
    let o = answer(&d, V2025_03_26, ValidateOutput::Warn, no_content).await;
    assert_eq!(
        o.result,
        json!({"content": [text("HTTP 204 No Content: the request succeeded; the response has no body.")]})
    );
}

#[tokio::test]
async fn a_declared_output_schema_needs_a_json_body() {
    let d = tool(None, Some(id_schema()));
    let one = |mode, r: HttpResponse| {
        let d = d.clone();
        async move { answer(&d, V2026_07_28, mode, r).await.result }
    };
    let err = |why: &str| {
        json!({"content": [text(&format!("The API answered HTTP 200 OK but the tool declares an outputSchema: {why}"))],
               "isError": true, "resultType": "complete"})
    };
    assert_eq!(
        one(ValidateOutput::Warn, response(200, None, b"")).await,
        err("HTTP 200 OK: the request succeeded; the response has no body.")
    );
    assert_eq!(
        one(
            ValidateOutput::Warn,
            response(200, Some("text/plain"), b"hi")
        )
        .await,
        err("hi")
    );
    assert_eq!(
        one(
            ValidateOutput::Strict,
            response(200, Some("image/png"), &[1, 2, 3])
        )
        .await,
        err("the response is 3 bytes of image/png")
    );
    assert_eq!(
        one(ValidateOutput::Warn, response(200, Some("audio/wav"), &[1])).await,
        err("the response is 1 bytes of audio/wav")
    );
    assert_eq!(
        one(ValidateOutput::Warn, response(200, None, &[1, 2])).await,
        err("the response is 2 bytes of content without a Content-Type")
    );
    // off: what there is, as without a schema.
    assert_eq!(
        one(
            ValidateOutput::Off,
            response(200, Some("text/plain"), b"hi")
        )
        .await,
        json!({"content": [text("hi")], "resultType": "complete"})
    );
    // Before structuredContent the schema asks for nothing.
    let o = answer(
        &d,
        V2025_03_26,
        ValidateOutput::Strict,
        response(200, Some("text/plain"), b"hi"),
    )
    .await;
    assert_eq!(o.result, json!({"content": [text("hi")]}));
}
