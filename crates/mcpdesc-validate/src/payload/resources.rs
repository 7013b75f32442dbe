//! Resource and Resource Template examples (§10.4) and completion examples
//! (§10.4.6, §11.4; shared with Prompts).

use super::content::{base64_len, check_resource_contents, check_result_frame, is_base64, is_uri};
use super::uri_template;
use super::{at, named_entries};
use crate::ctx::{Ctx, Primitive};
use mcpdesc_core::DeclKind;
use mcpdesc_core::{Feature, RevisionSet};
use serde_json::{Map, Value};

/// Longest example URI matched against a template (matching is quadratic in the
/// URI length; §17.7 asks for bounded work).
const MAX_MATCHED_URI_LEN: usize = 2048;

/// Static Resource examples.
pub(crate) fn check_resource<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    let uri = p.value.get("uri").and_then(Value::as_str);
    let decl = Decl {
        uri,
        mime: p.value.get("mimeType").and_then(Value::as_str),
        size: p.value.get("size").and_then(Value::as_f64),
    };
    check_examples(cx, p, "resourceExamples", |cx, ex, ex_ptr| {
        if ex.contains_key("uri") {
            // §10.4.2: the requested URI is implicit and must not be repeated.
            cx.error(
                "resource-example-shape",
                at(ex_ptr, "uri"),
                "a static Resource example must not repeat `uri`; it is the Resource's own",
            );
        }
        decl
    });
}

/// Resource Template examples and completion examples.
pub(crate) fn check_template<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    let tpl_ptr = at(&p.pointer, "uriTemplate");
    let parsed = match p.value.get("uriTemplate").and_then(Value::as_str) {
        Some(s) => match uri_template::parse(s) {
            Ok(t) => Some(t),
            Err(e) => {
                cx.error(
                    "uri-template-invalid",
                    &tpl_ptr,
                    format!("`{s}` is not an RFC 6570 URI template: {e}"),
                );
                None
            }
        },
        None => None,
    };
    let mime = p.value.get("mimeType").and_then(Value::as_str);
    let tpl = parsed.as_ref();
    check_examples(cx, p, "resourceTemplateExamples", |cx, ex, ex_ptr| {
        let uri = match ex.get("uri") {
            Some(Value::String(u)) => {
                let up = at(ex_ptr, "uri");
                if !is_uri(u) {
                    cx.error(
                        "resource-example-uri-invalid",
                        &up,
                        format!("`{u}` is not a valid URI (RFC 3986)"),
                    );
                } else if u.len() > MAX_MATCHED_URI_LEN {
                    cx.warn(
                        "payload-validation-limit",
                        &up,
                        format!("URI longer than {MAX_MATCHED_URI_LEN} bytes; not matched against `uriTemplate`"),
                    );
                } else if let Some(t) = tpl {
                    if !t.matches(u) {
                        cx.error("uri-template-mismatch", &up, format!("`{u}` is not an RFC 6570 expansion of the Resource Template's `uriTemplate`"));
                    }
                }
                Some(u.as_str())
            }
            Some(_) => {
                cx.error(
                    "resource-example-shape",
                    at(ex_ptr, "uri"),
                    "`uri` must be a string",
                );
                None
            }
            None => {
                cx.error(
                    "resource-example-shape",
                    ex_ptr,
                    "a Resource Template example must contain the concrete `uri` it reads",
                );
                None
            }
        };
        Decl {
            uri,
            mime,
            size: None,
        }
    });
    let vars: Option<Vec<String>> =
        tpl.map(|t| t.variables().into_iter().map(str::to_string).collect());
    check_completion_examples(cx, p, vars.as_deref());
}

/// What a read result is compared with.
#[derive(Debug, Clone, Copy)]
struct Decl<'v> {
    uri: Option<&'v str>,
    mime: Option<&'v str>,
    size: Option<f64>,
}

/// Walks an `examples` map (names, `$componentRef`s), checks the shape-specific part
/// with `each` and then the read result.
fn check_examples<'a, F>(cx: &mut Ctx<'a>, p: &Primitive<'a>, namespace: &str, mut each: F)
where
    F: FnMut(&mut Ctx<'a>, &'a Map<String, Value>, &str) -> Decl<'a>,
{
    let Some(map) = p.value.get("examples") else {
        return;
    };
    let map_ptr = at(&p.pointer, "examples");
    for (name, raw) in named_entries(cx, map, &map_ptr, "Resource example") {
        let Ok((ex, comp)) = cx.resolve(raw, namespace) else {
            continue;
        };
        let ex_ptr = comp.unwrap_or_else(|| at(&map_ptr, name));
        let Some(o) = ex.as_object() else {
            cx.error(
                "resource-example-shape",
                ex_ptr,
                "a Resource example must be an object with `result`",
            );
            continue;
        };
        let decl = each(cx, o, &ex_ptr);
        match o.get("result") {
            Some(Value::Object(r)) => {
                check_read_result(cx, r, &at(&ex_ptr, "result"), p.scope, decl)
            }
            Some(_) => cx.error(
                "resource-example-shape",
                at(&ex_ptr, "result"),
                "`result` must be an object",
            ),
            None => cx.error(
                "resource-example-shape",
                &ex_ptr,
                "a Resource example must contain `result`",
            ),
        }
    }
}

/// A completed `resources/read` result (§10.4.4).
fn check_read_result(
    cx: &mut Ctx<'_>,
    r: &Map<String, Value>,
    rptr: &str,
    scope: RevisionSet,
    decl: Decl<'_>,
) {
    check_result_frame(cx, r, rptr, scope);
    let with_cache = scope.with(Feature::ResourceResultCache);
    let without_cache = scope.without(Feature::ResourceResultCache);
    for k in ["ttlMs", "cacheScope"] {
        let v = r.get(k);
        if v.is_some() && !without_cache.is_empty() {
            cx.error(
                "resource-example-cache-fields",
                at(rptr, k),
                format!("`{k}` is not defined for MCP {without_cache}"),
            );
        }
        if !with_cache.is_empty() {
            let valid = match k {
                "ttlMs" => v.and_then(Value::as_f64).is_some_and(|n| n >= 0.0),
                _ => matches!(v.and_then(Value::as_str), Some("public" | "private")),
            };
            match v {
                None => cx.error(
                    "resource-example-cache-fields",
                    rptr,
                    format!("completed read results must contain `{k}` for MCP {with_cache}"),
                ),
                Some(v) if !valid => {
                    let want = if k == "ttlMs" {
                        "a non-negative number"
                    } else {
                        "\"public\" or \"private\""
                    };
                    cx.error(
                        "resource-example-cache-fields",
                        at(rptr, k),
                        format!("`{k}` must be {want}, found {v}"),
                    );
                }
                Some(_) => {}
            }
        }
    }
    let entries = match r.get("contents") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(_) => {
            cx.error(
                "resource-example-contents",
                at(rptr, "contents"),
                "`contents` must be a non-empty array",
            );
            return;
        }
        None => {
            cx.error(
                "resource-example-contents",
                rptr,
                "a read result must contain a non-empty `contents` array",
            );
            return;
        }
    };
    let cp = at(rptr, "contents");
    let mut requested_seen = false;
    for (i, e) in entries.iter().enumerate() {
        let ep = at(&cp, &i.to_string());
        check_resource_contents(cx, e, &ep, scope);
        let Some(want) = decl.uri else { continue };
        if e.get("uri").and_then(Value::as_str) != Some(want) {
            continue;
        }
        requested_seen = true;
        if let (Some(dm), Some(em)) = (decl.mime, e.get("mimeType").and_then(Value::as_str)) {
            if essence(dm) != essence(em) {
                cx.warn(
                    "resource-example-mime-mismatch",
                    at(&ep, "mimeType"),
                    format!("the requested entry has `mimeType` `{em}` but the declaration says `{dm}`; the entry's type is authoritative for rendering it"),
                );
            }
        }
        if let Some(size) = decl.size {
            let bytes = match (
                e.get("text").and_then(Value::as_str),
                e.get("blob").and_then(Value::as_str),
            ) {
                (Some(t), None) => Some(t.len()),
                (None, Some(b)) if is_base64(b) => Some(base64_len(b)),
                _ => None,
            };
            if let Some(n) = bytes {
                // Byte counts are small integers; a float comparison is exact here.
                if (n as f64 - size).abs() > f64::EPSILON {
                    cx.warn(
                        "resource-example-size-mismatch",
                        &ep,
                        format!("the requested entry holds {n} bytes but the Resource declares `size` {size}; examples and mutable Resources may differ"),
                    );
                }
            }
        }
    }
    if let (Some(want), false) = (decl.uri, requested_seen) {
        cx.warn(
            "resource-example-requested-uri-missing",
            &cp,
            format!("no `contents` entry identifies the requested URI `{want}`; fine for documented collection or indirection semantics"),
        );
    }
}

/// The MIME type without parameters, lower-cased.
fn essence(m: &str) -> String {
    m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase()
}

/// Completion examples of a Prompt (`names` = declared arguments) or Resource
/// Template (`names` = template variables; `None` when the template is invalid).
pub(crate) fn check_completion_examples(
    cx: &mut Ctx<'_>,
    p: &Primitive<'_>,
    names: Option<&[String]>,
) {
    let Some(map) = p.value.get("completionExamples") else {
        return;
    };
    let map_ptr = at(&p.pointer, "completionExamples");
    let what = if p.kind == DeclKind::Prompt {
        "Prompt argument"
    } else {
        "URI template variable"
    };
    let scope = p.scope;
    for (name, ex) in named_entries(cx, map, &map_ptr, "completion example") {
        let ex_ptr = at(&map_ptr, name);
        let Some(o) = ex.as_object() else {
            cx.error(
                "completion-example-shape",
                ex_ptr,
                "a completion example must be an object",
            );
            continue;
        };
        let revs = scope.without(Feature::Completions);
        if !revs.is_empty() {
            cx.error(
                "completion-example-inapplicable",
                &ex_ptr,
                format!("completion is not defined for MCP {revs}"),
            );
        }
        let arg = o.get("argument");
        let target = arg.and_then(|a| a.get("name")).and_then(Value::as_str);
        let value_ok = arg
            .and_then(|a| a.get("value"))
            .is_some_and(Value::is_string);
        match (target, value_ok) {
            (Some(t), true) => {
                if let Some(ns) = names {
                    if !ns.iter().any(|n| n == t) {
                        cx.error(
                            "completion-argument-unknown",
                            at(&at(&ex_ptr, "argument"), "name"),
                            format!("`{t}` is not a {what} of this declaration"),
                        );
                    }
                }
            }
            _ => {
                let ap = if arg.is_some() {
                    at(&ex_ptr, "argument")
                } else {
                    ex_ptr.clone()
                };
                cx.error(
                    "completion-example-shape",
                    ap,
                    "`argument` must contain string `name` and `value`",
                );
            }
        }
        if let Some(c) = o.get("context") {
            let ctxp = at(&ex_ptr, "context");
            let revs = scope.without(Feature::CompletionContext);
            if !revs.is_empty() {
                cx.error(
                    "completion-context-inapplicable",
                    &ctxp,
                    format!("completion `context` is not defined for MCP {revs}"),
                );
            }
            match c.get("arguments").and_then(Value::as_object) {
                Some(m) if !m.is_empty() => {
                    let ap = at(&ctxp, "arguments");
                    for (k, v) in m {
                        let kp = at(&ap, k);
                        if !v.is_string() {
                            cx.error(
                                "completion-example-shape",
                                &kp,
                                "context argument values must be strings",
                            );
                        }
                        if Some(k.as_str()) == target {
                            cx.error("completion-context-duplicates-argument", &kp, format!("`{k}` is the argument being completed and must not also appear in context"));
                        } else if let Some(ns) = names {
                            if !ns.iter().any(|n| n == k) {
                                cx.error(
                                    "completion-context-unknown",
                                    &kp,
                                    format!("`{k}` is not a {what} of this declaration"),
                                );
                            }
                        }
                    }
                }
                _ => cx.error(
                    "completion-example-shape",
                    ctxp,
                    "`context` must contain a non-empty `arguments` map (omit an empty context)",
                ),
            }
        }
        match o.get("result") {
            Some(Value::Object(r)) => {
                let rp = at(&ex_ptr, "result");
                check_result_frame(cx, r, &rp, scope);
                let values_ok = r
                    .get("completion")
                    .and_then(|c| c.get("values"))
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().all(Value::is_string));
                if !values_ok {
                    let cp = if r.contains_key("completion") {
                        at(&rp, "completion")
                    } else {
                        rp
                    };
                    cx.error(
                        "completion-example-shape",
                        cp,
                        "`completion.values` must be an array of strings",
                    );
                }
            }
            _ => cx.error(
                "completion-example-shape",
                &ex_ptr,
                "a completion example must contain an object `result`",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use serde_json::{Value, json};

    fn res(revs: &[&str], r: Value) -> Value {
        doc(revs, json!({"resources": [r]}))
    }

    #[test]
    fn cache_fields_per_revision() {
        let r = |result: Value| json!({"uri": "example:///x", "name": "x", "examples": {"e": {"result": result}}});
        let ok = json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "contents": [{"uri": "example:///x", "text": "t"}]});
        assert!(run(&res(&["2026-07-28"], r(ok))).is_empty());
        let e = errors(&res(
            &["2026-07-28"],
            r(
                json!({"resultType": "complete", "contents": [{"uri": "example:///x", "text": "t"}]}),
            ),
        ));
        assert_eq!(
            e.iter()
                .filter(|(c, p)| c == "resource-example-cache-fields"
                    && p == "/resources/0/examples/e/result")
                .count(),
            2
        );
        let e = errors(&res(
            &["2026-07-28"],
            r(
                json!({"resultType": "complete", "ttlMs": -1, "cacheScope": "shared", "contents": [{"uri": "example:///x", "text": "t"}]}),
            ),
        ));
        assert!(has(
            &e,
            "resource-example-cache-fields",
            "/resources/0/examples/e/result/ttlMs"
        ));
        assert!(has(
            &e,
            "resource-example-cache-fields",
            "/resources/0/examples/e/result/cacheScope"
        ));
        let e = errors(&res(
            &["2025-11-25"],
            r(
                json!({"ttlMs": 1, "cacheScope": "private", "contents": [{"uri": "example:///x", "text": "t"}]}),
            ),
        ));
        assert!(has(
            &e,
            "resource-example-cache-fields",
            "/resources/0/examples/e/result/ttlMs"
        ));
        assert!(has(
            &e,
            "resource-example-cache-fields",
            "/resources/0/examples/e/result/cacheScope"
        ));
    }

    #[test]
    fn contents_rules() {
        let r = |contents: Value| json!({"uri": "asset:///b", "name": "b", "examples": {"e": {"result": {"contents": contents}}}});
        let e = errors(&res(
            &["2025-11-25"],
            r(json!([{"uri": "asset:///b", "blob": "not base64"}])),
        ));
        assert!(has(
            &e,
            "base64-invalid",
            "/resources/0/examples/e/result/contents/0/blob"
        ));
        let e = errors(&res(
            &["2025-11-25"],
            r(json!([{"uri": "asset:///b", "text": "t", "blob": "dGV4dA=="}])),
        ));
        assert!(has(
            &e,
            "resource-contents-invalid",
            "/resources/0/examples/e/result/contents/0"
        ));
        let e = errors(&res(&["2025-11-25"], r(json!([]))));
        assert!(has(
            &e,
            "resource-example-contents",
            "/resources/0/examples/e/result/contents"
        ));
        let e = errors(&res(
            &["2024-11-05"],
            r(json!([{"uri": "asset:///b", "text": "t", "_meta": {"k": 1}}])),
        ));
        assert!(has(
            &e,
            "payload-meta-inapplicable",
            "/resources/0/examples/e/result/contents/0/_meta"
        ));
    }

    #[test]
    fn consistency_warnings() {
        let d = res(
            &["2025-11-25"],
            json!({"uri": "test://single", "name": "s", "mimeType": "application/json", "size": 100,
                   "examples": {"e": {"result": {"contents": [{"uri": "test://single", "mimeType": "text/plain", "text": "short"}]}}}}),
        );
        assert!(errors(&d).is_empty());
        let w = warnings(&d);
        assert!(has(
            &w,
            "resource-example-mime-mismatch",
            "/resources/0/examples/e/result/contents/0/mimeType"
        ));
        assert!(has(
            &w,
            "resource-example-size-mismatch",
            "/resources/0/examples/e/result/contents/0"
        ));
        let d = res(
            &["2025-11-25"],
            json!({"uri": "collection:///items", "name": "c", "examples": {"e": {"result": {"contents": [{"uri": "collection:///items/one", "text": "1"}]}}}}),
        );
        assert_eq!(
            warnings(&d),
            vec![(
                "resource-example-requested-uri-missing".to_string(),
                "/resources/0/examples/e/result/contents".to_string()
            )]
        );
        let fine = res(
            &["2025-11-25"],
            json!({"uri": "asset:///p", "name": "p", "mimeType": "application/octet-stream", "size": 3,
                   "examples": {"e": {"result": {"contents": [{"uri": "asset:///p", "mimeType": "application/octet-stream", "blob": "AAEC"}]}}}}),
        );
        assert!(run(&fine).is_empty());
    }

    #[test]
    fn template_examples() {
        let t = |tpl: &str, uri: &str| {
            doc(
                &["2025-11-25"],
                json!({"resourceTemplates": [{"uriTemplate": tpl, "name": "g", "examples": {"e": {"uri": uri,
                    "result": {"contents": [{"uri": uri, "text": "x"}]}}}}]}),
            )
        };
        assert!(run(&t("chess://games/{game_id}", "chess://games/example-1234")).is_empty());
        assert_eq!(
            errors(&t(
                "chess://games/{game_id}",
                "chess://players/example-1234"
            )),
            vec![(
                "uri-template-mismatch".to_string(),
                "/resourceTemplates/0/examples/e/uri".to_string()
            )]
        );
        assert_eq!(
            errors(&t("test://items/{id", "test://items/123")),
            vec![(
                "uri-template-invalid".to_string(),
                "/resourceTemplates/0/uriTemplate".to_string()
            )]
        );
        let d = doc(
            &["2026-07-28"],
            json!({"resourceTemplates": [{"uriTemplate": "test://items/{id}", "name": "i",
            "examples": {"missing-uri": {"result": {"resultType": "complete", "contents": []}}}}]}),
        );
        let e = errors(&d);
        assert!(has(
            &e,
            "resource-example-shape",
            "/resourceTemplates/0/examples/missing-uri"
        ));
        assert!(has(
            &e,
            "resource-example-contents",
            "/resourceTemplates/0/examples/missing-uri/result/contents"
        ));
    }

    #[test]
    fn completion_examples() {
        let d = doc(
            &["2026-07-28"],
            json!({"resourceTemplates": [{"uriTemplate": "repo://{owner}/{repository}/issues/{issue}", "name": "r", "completionExamples": {
                "ok": {"argument": {"name": "issue", "value": "12"}, "context": {"arguments": {"owner": "o", "repository": "w"}},
                       "result": {"resultType": "complete", "completion": {"values": ["120"]}}},
                "bad": {"argument": {"name": "ticket", "value": "12"}, "context": {"arguments": {"issue": "12", "workspace": "docs"}},
                        "result": {"resultType": "complete", "completion": {"values": ["120"]}, "requestState": "input-required"}}}}]}),
        );
        let e = errors(&d);
        let b = "/resourceTemplates/0/completionExamples/bad";
        assert!(has(
            &e,
            "completion-argument-unknown",
            &format!("{b}/argument/name")
        ));
        assert!(has(
            &e,
            "completion-context-unknown",
            &format!("{b}/context/arguments/workspace")
        ));
        assert!(has(
            &e,
            "result-not-completed",
            &format!("{b}/result/requestState")
        ));
        assert_eq!(e.len(), 3, "{e:?}");

        let d = doc(
            &["2024-11-05", "2025-03-26"],
            json!({"prompts": [{"name": "p", "arguments": [{"name": "department"}, {"name": "name"}], "completionExamples": {
                "c": {"argument": {"name": "name", "value": "a"}, "context": {"arguments": {"name": "x"}},
                      "result": {"completion": {"values": ["Ada"]}, "_meta": {"captured": true}}}}}]}),
        );
        let e = errors(&d);
        let c = "/prompts/0/completionExamples/c";
        assert!(has(&e, "completion-example-inapplicable", c));
        assert!(has(
            &e,
            "completion-context-inapplicable",
            &format!("{c}/context")
        ));
        assert!(has(
            &e,
            "completion-context-duplicates-argument",
            &format!("{c}/context/arguments/name")
        ));
        assert!(has(
            &e,
            "payload-meta-inapplicable",
            &format!("{c}/result/_meta")
        ));
    }
}
