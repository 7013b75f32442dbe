//! Rules shared by every embedded MCP result: the completed-result frame (no JSON-RPC
//! envelope, no task/input-required state, `resultType` per revision), content blocks
//! per revision, Resource Contents, and literal `_meta` (§3.5, §9.3, §10.4.4, §11.3;
//! the `_meta` rules themselves are [`crate::meta`]'s, shared with declarations).

use super::at;
use crate::ctx::Ctx;
use crate::meta::{MetaContext, check_meta};
use mcpdesc_core::revision::content_types;
use mcpdesc_core::{Feature, RevisionSet};
use serde_json::{Map, Value};

/// JSON-RPC envelope members that never belong in a result payload.
const ENVELOPE: &[&str] = &["jsonrpc", "id", "method", "error"];
/// Members of non-completed results (tasks, Multi Round-Trip input requests).
const NOT_COMPLETED: &[&str] = &["task", "inputRequests", "requestState"];

/// Checks what every completed result shares: envelope, completion state,
/// `resultType` per revision, result-level `_meta`.
pub(crate) fn check_result_frame(
    cx: &mut Ctx<'_>,
    result: &Map<String, Value>,
    rptr: &str,
    scope: RevisionSet,
) {
    for k in ENVELOPE {
        if result.contains_key(*k) {
            cx.error(
                "result-json-rpc-envelope",
                at(rptr, k),
                format!("`{k}` is a JSON-RPC envelope member; examples hold only the completed result payload"),
            );
        }
    }
    for k in NOT_COMPLETED {
        if result.contains_key(*k) {
            cx.error(
                "result-not-completed",
                at(rptr, k),
                format!("`{k}` belongs to a non-completed workflow (task or input-required state); examples show completed results only"),
            );
        }
    }
    match result.get("resultType") {
        Some(rt) => {
            if rt.as_str() != Some("complete") {
                cx.error(
                    "result-not-completed",
                    at(rptr, "resultType"),
                    format!("`resultType` {rt} is not a completed result; examples must be `\"complete\"`"),
                );
            }
            let revs = scope.without(Feature::ResultType);
            if !revs.is_empty() {
                cx.error(
                    "result-type-inapplicable",
                    at(rptr, "resultType"),
                    format!("`resultType` is not defined for MCP {revs}; split the declaration into protocol-scoped variants"),
                );
            }
        }
        None => {
            let revs = scope.with(Feature::ResultType);
            if !revs.is_empty() {
                cx.error(
                    "result-type-missing",
                    rptr,
                    format!(
                        "completed results must contain `resultType: \"complete\"` for MCP {revs}"
                    ),
                );
            }
        }
    }
    if let Some(m) = result.get("_meta") {
        cx.extend(check_meta(
            m,
            &at(rptr, "_meta"),
            MetaContext::Result,
            scope,
        ));
    }
}

/// A content block (text, image, audio, resource, resource_link) in a Tool result or
/// Prompt message, checked against every revision of the scope.
pub(crate) fn check_content_block(cx: &mut Ctx<'_>, block: &Value, ptr: &str, scope: RevisionSet) {
    let Some(b) = block.as_object() else { return };
    if let Some(t) = b.get("type").and_then(Value::as_str) {
        let revs: RevisionSet = scope
            .iter()
            .filter(|r| !content_types(*r).contains(&t))
            .collect();
        if !revs.is_empty() {
            cx.error(
                "content-type-inapplicable",
                at(ptr, "type"),
                format!("content type `{t}` is not defined for MCP {revs}"),
            );
        }
        if matches!(t, "image" | "audio") {
            if let Some(d) = b.get("data").and_then(Value::as_str) {
                if !is_base64(d) {
                    cx.error(
                        "base64-invalid",
                        at(ptr, "data"),
                        format!("`{t}` content `data` must be base64"),
                    );
                }
            }
        }
        if t == "resource" {
            if let Some(r) = b.get("resource") {
                check_resource_contents(cx, r, &at(ptr, "resource"), scope);
            }
        }
        if t == "resource_link" && b.contains_key("icons") {
            let revs = scope.without(Feature::Icons);
            if !revs.is_empty() {
                cx.error(
                    "content-field-inapplicable",
                    at(ptr, "icons"),
                    format!("`icons` is not defined for MCP {revs}"),
                );
            }
        }
    }
    if b.get("annotations")
        .and_then(|a| a.get("lastModified"))
        .is_some()
    {
        let revs = scope.without(Feature::ResourceAnnotationLastModified);
        if !revs.is_empty() {
            cx.error(
                "content-field-inapplicable",
                at(&at(ptr, "annotations"), "lastModified"),
                format!("`annotations.lastModified` is not defined for MCP {revs}"),
            );
        }
    }
    if let Some(m) = b.get("_meta") {
        cx.extend(check_meta(
            m,
            &at(ptr, "_meta"),
            MetaContext::Content,
            scope,
        ));
    }
}

/// One Resource Contents entry: `uri` plus exactly one of `text`/`blob` (§10.4.4).
pub(crate) fn check_resource_contents(
    cx: &mut Ctx<'_>,
    entry: &Value,
    ptr: &str,
    scope: RevisionSet,
) {
    let Some(e) = entry.as_object() else {
        cx.error(
            "resource-contents-invalid",
            ptr,
            "a contents entry must be an object",
        );
        return;
    };
    match e.get("uri") {
        Some(Value::String(u)) => {
            if !is_uri(u) {
                cx.error(
                    "resource-example-uri-invalid",
                    at(ptr, "uri"),
                    format!("`{u}` is not a valid URI (RFC 3986)"),
                );
            }
        }
        _ => cx.error(
            "resource-contents-invalid",
            ptr,
            "a contents entry must contain a string `uri`",
        ),
    }
    match (e.get("text"), e.get("blob")) {
        (Some(_), Some(_)) => cx.error(
            "resource-contents-invalid",
            ptr,
            "a contents entry must contain exactly one of `text` and `blob`, not both",
        ),
        (None, None) => cx.error(
            "resource-contents-invalid",
            ptr,
            "a contents entry must contain exactly one of `text` and `blob`",
        ),
        (None, Some(b)) => {
            if !b.as_str().is_some_and(is_base64) {
                cx.error(
                    "base64-invalid",
                    at(ptr, "blob"),
                    "`blob` must be valid base64",
                );
            }
        }
        (Some(_), None) => {}
    }
    if let Some(m) = e.get("_meta") {
        cx.extend(check_meta(
            m,
            &at(ptr, "_meta"),
            MetaContext::Content,
            scope,
        ));
    }
}

/// Standard base64 (RFC 4648 §4) with padding.
pub(crate) fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return false;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return false;
    }
    b[..b.len() - pad]
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
}

/// Decoded length of valid base64.
pub(crate) fn base64_len(s: &str) -> usize {
    let pad = s.bytes().rev().take_while(|&c| c == b'=').count();
    s.len() / 4 * 3 - pad
}

/// An absolute RFC 3986 URI.
pub(crate) fn is_uri(s: &str) -> bool {
    fluent_uri::Uri::parse(s).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64() {
        for ok in ["", "AAEC", "dGV4dA==", "aW1hZ2U=", "a+/b"] {
            assert!(is_base64(ok), "{ok}");
        }
        for bad in ["not base64", "abc", "a===", "ab=c", "ab c"] {
            assert!(!is_base64(bad), "{bad}");
        }
        assert_eq!(base64_len("AAEC"), 3);
        assert_eq!(base64_len("dGV4dA=="), 4);
    }

    #[test]
    fn uris() {
        assert!(is_uri("example:///account"));
        assert!(is_uri("test://items/123"));
        assert!(is_uri("https://auth.example.com/authorize"));
        assert!(!is_uri("not a valid URI"));
        assert!(!is_uri("/relative/only"));
    }
}
