//! An operation's `outputSchema` and the provenance of the response it came from.
//!
//! The first success response, in the order 200, 201, 202, 203, 204, 2XX, then the
//! other 2xx codes ascending, that has a JSON media type with a schema; 204 ends the
//! search with no schema. A root `$ref` is inlined at the root (the target stays
//! available in `$defs` for recursion); when it named a component schema, provenance
//! records that component's `$defs` name as `response.component`, so consumers can give
//! every tool that returns (or nests) `Pet` one `Pet` type.

use crate::diag::Diags;
use crate::input::object_shape;
use crate::schema::{SchemaCx, push_token};
use crate::site::{OpSite, Shared, object_form, op_list};
use crate::spec::{Spec, SpecVersion};
use mcpdesc_core::media::{essence, is_json};
use mcpdesc_core::provenance::Response;
use serde_json::{Map, Value, json};

/// The chosen output schema.
#[derive(Debug)]
pub struct Output {
    pub schema: Value,
}

/// Response status codes in selection order.
fn response_order(responses: &Map<String, Value>) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in ["200", "201", "202", "203", "204"] {
        if responses.contains_key(c) {
            out.push(c);
        }
    }
    for c in ["2XX", "2xx"] {
        if responses.contains_key(c) {
            out.push(c);
        }
    }
    let mut rest: Vec<&str> = responses
        .keys()
        .map(String::as_str)
        .filter(|k| {
            k.len() == 3
                && k.starts_with('2')
                && k.chars().all(|c| c.is_ascii_digit())
                && !out.contains(k)
        })
        .collect();
    rest.sort_unstable();
    out.extend(rest);
    out
}

fn response_record(status: &str) -> Response {
    Response {
        status: status.to_string(),
        content_type: None,
        result_wrapper: None,
        component: None,
        other: Map::new(),
    }
}

/// The output schema of an operation and the response it came from.
pub(crate) fn build(
    spec: &Spec,
    shared: &Shared,
    site: &OpSite<'_>,
    cx: &mut SchemaCx<'_>,
    diags: &mut Diags,
) -> (Option<Output>, Option<Response>) {
    let Some(Value::Object(responses)) = site.op.get("responses") else {
        return (None, None);
    };
    let mut rptr = site.op_ptr.clone();
    push_token(&mut rptr, "responses");
    for code in response_order(responses) {
        let mut ptr = rptr.clone();
        push_token(&mut ptr, code);
        let Ok((doc, ptr, resp)) = spec.deref(site.item_doc, &ptr, &responses[code]) else {
            diags.warn(
                site.item_doc,
                "openapi-response-unresolved",
                format!("response `{code}` cannot be resolved; skipped"),
                ptr,
            );
            continue;
        };
        let mut record = response_record(code);
        if code == "204" {
            return (None, Some(record));
        }
        let (mt, schema, sptr) = if spec.version == SpecVersion::Swagger2 {
            let produces = op_list(site.op, "produces").unwrap_or_else(|| shared.produces.clone());
            let json_mt = if produces.is_empty() {
                Some("application/json".to_string())
            } else {
                produces.iter().find(|p| is_json(p)).cloned()
            };
            match (json_mt, resp.get("schema")) {
                (Some(mt), Some(s)) => {
                    let mut p = ptr.clone();
                    push_token(&mut p, "schema");
                    (mt, s, p)
                }
                _ => continue,
            }
        } else {
            let Some(Value::Object(content)) = resp.get("content") else {
                continue;
            };
            let Some((mt, media)) = content
                .iter()
                .find(|(k, _)| essence(k) == "application/json")
                .or_else(|| content.iter().find(|(k, _)| is_json(k)))
            else {
                continue;
            };
            let Some(s) = media.get("schema") else {
                continue;
            };
            let mut p = ptr.clone();
            push_token(&mut p, "content");
            push_token(&mut p, mt);
            push_token(&mut p, "schema");
            (mt.clone(), s, p)
        };
        record.content_type = Some(mt);
        // Inline a root reference: the root must show its type.
        let (sdoc, sptr, target) = match spec.deref(doc, &sptr, schema) {
            Ok(x) => x,
            Err(_) => (doc, sptr, schema),
        };
        let inlined = !std::ptr::eq(target, schema);
        if inlined {
            record.component = cx
                .component_def_name(&(sdoc, sptr.clone()))
                .map(|n| n.to_string());
        }
        let mut p = sptr.clone();
        let mut conv = cx.convert(sdoc, target, &mut p, diags);
        // 3.1: siblings of a root `$ref` apply too; keep the description the author
        // put next to it (the inlined target's own description otherwise).
        if spec.version == SpecVersion::OpenApi31 && inlined {
            if let (Value::Object(m), Some(d)) = (
                &mut conv,
                schema.get("description").filter(|d| d.is_string()),
            ) {
                m.insert("description".into(), d.clone());
            }
        }
        // Roots and root property schemas must be objects before 2025-11-25 (§9.2).
        let mut conv = object_form(conv);
        if let Some(Value::Object(props)) = conv.get_mut("properties") {
            for v in props.values_mut() {
                if v.is_boolean() {
                    *v = object_form(std::mem::take(v));
                }
            }
        }
        make_object_type_explicit(spec, sdoc, &sptr, target, &mut conv);
        let defs = cx.finish_defs(&mut conv, diags);
        if let (Value::Object(m), Some(defs)) = (&mut conv, defs) {
            m.insert("$defs".into(), Value::Object(defs));
        }
        return (Some(Output { schema: conv }), Some(record));
    }
    (None, None)
}

/// Where a converted output schema implies an object without saying so (properties
/// without a `type`, or an `allOf` of objects), adds the `type: "object"` that makes
/// its root an object root (§9.2), valid before MCP 2026-07-28 too.
fn make_object_type_explicit(spec: &Spec, doc: usize, ptr: &str, src: &Value, conv: &mut Value) {
    let Value::Object(m) = conv else { return };
    if m.contains_key("type")
        || m.contains_key("anyOf")
        || m.contains_key("oneOf")
        || m.contains_key("not")
        || m.contains_key("$ref")
    {
        return;
    }
    let implied = m.contains_key("properties")
        || m.contains_key("additionalProperties")
        || m.contains_key("patternProperties")
        || object_shape(spec, doc, ptr, src, 0).is_some_and(|_| m.contains_key("allOf"));
    if implied {
        m.insert("type".into(), json!("object"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order() {
        let m: Map<String, Value> = serde_json::from_value(
            json!({"default": {}, "299": {}, "2XX": {}, "201": {}, "206": {}}),
        )
        .unwrap_or_default();
        assert_eq!(response_order(&m), vec!["201", "2XX", "206", "299"]);
    }
}
