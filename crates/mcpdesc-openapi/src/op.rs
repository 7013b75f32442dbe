//! One OpenAPI operation → one tool (before naming and protocol variants): the
//! operations of a spec ([`collect_ops`]), and per operation its input ([`crate::input`]),
//! output ([`crate::output`]), annotations, text, security and provenance ([`build`]).
//!
//! **Provenance** (`x-mcpdesc-openapi`, [`mcpdesc_core::provenance::ToolProvenance`]):
//! method, path, operationId, the effective servers (operation, else path item, else
//! root; [`crate::servers`]), the request body (media type, shape, `required`, Encoding
//! Objects), the chosen response (status, media type, `component`; `resultWrapper` is
//! added per variant by [`crate::variants`]), and for every input property where it goes
//! (`arguments`: location, original name, style/explode, `allowReserved`, a `content`
//! parameter's media type, 2.0 `collectionFormat`): enough to rebuild the HTTP request.
//! It is built as the typed model the gateway reads, never as loose JSON.

use crate::diag::Diags;
use crate::input;
use crate::output::{self, Output};
use crate::schema::{Direction, SchemaCx, push_token};
pub use crate::site::{OpSite, Shared};
use crate::spec::{Spec, SpecVersion};
use crate::{ImportOptions, security, servers};
use mcpdesc_core::provenance::{Method, ToolProvenance};
use serde_json::{Map, Value, json};

/// A tool built from one operation, before naming.
#[derive(Debug)]
pub struct Built {
    /// Name source: `x-mcp.name`, operationId, or method + path.
    pub raw_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Value,
    pub output: Option<Output>,
    pub annotations: Map<String, Value>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    pub security: Option<Value>,
    pub provenance: ToolProvenance,
    pub remote_refs: usize,
}

/// Lists the operations of the spec in document order.
pub fn collect_ops<'a>(spec: &'a Spec, diags: &mut Diags) -> Vec<OpSite<'a>> {
    let mut out = Vec::new();
    let Some(paths) = spec.docs[0].value.get("paths") else {
        return out;
    };
    let Some(paths) = paths.as_object() else {
        diags.warn(
            0,
            "openapi-paths-invalid",
            "`paths` is not an object",
            "/paths",
        );
        return out;
    };
    for (path, item) in paths {
        let mut item_ptr = String::from("/paths");
        push_token(&mut item_ptr, path);
        if path.starts_with("x-") {
            continue;
        }
        let (item_doc, item_ptr2, item) = match spec.deref(0, &item_ptr, item) {
            Ok(x) => x,
            Err(e) => {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    format!("path item cannot be resolved: {e}; its operations are skipped"),
                    item_ptr,
                );
                continue;
            }
        };
        let Some(item) = item.as_object() else {
            diags.warn(
                0,
                "openapi-operation-skipped",
                "path item is not an object; skipped",
                item_ptr,
            );
            continue;
        };
        for (k, v) in item {
            let Some(method) = Method::parse(k) else {
                continue;
            };
            let mut display_ptr = item_ptr.clone();
            push_token(&mut display_ptr, k);
            if k.bytes().any(|b| b.is_ascii_uppercase()) {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    format!("`{k}` is not an operation key (methods are lower case); skipped"),
                    display_ptr,
                );
                continue;
            }
            if spec.version == SpecVersion::Swagger2 && method == Method::Trace {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    "Swagger 2.0 has no `trace` operations; skipped",
                    display_ptr,
                );
                continue;
            }
            let Some(op) = v.as_object() else {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    "operation is not an object; skipped",
                    display_ptr,
                );
                continue;
            };
            let mut op_ptr = item_ptr2.clone();
            push_token(&mut op_ptr, k);
            out.push(OpSite {
                path,
                method,
                item_doc,
                item,
                op_ptr,
                op,
                display_ptr,
            });
        }
    }
    out
}

/// Builds the tool of one operation.
pub fn build(
    spec: &Spec,
    opts: &ImportOptions,
    shared: &Shared,
    site: &OpSite<'_>,
    diags: &mut Diags,
) -> Built {
    let op = site.op;
    let x_mcp = op.get("x-mcp").and_then(Value::as_object);
    let str_of = |m: Option<&Map<String, Value>>, k: &str| {
        m.and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };

    let mut icx = SchemaCx::new(spec, Direction::Input, &shared.defs)
        .with_budget(shared.schema_budget, &site.display_ptr);
    let input = input::build(spec, shared, site, &mut icx, diags);
    let mut ocx = SchemaCx::new(spec, Direction::Output, &shared.defs)
        .with_budget(shared.schema_budget, &site.display_ptr);
    let (output, response) = output::build(spec, shared, site, &mut ocx, diags);
    let remote_refs = icx.remote_refs + ocx.remote_refs;

    // ---- annotations
    let mut annotations = method_annotations(site.method);
    if let Some(over) = x_mcp.and_then(|m| m.get("annotations")) {
        let mut ptr = site.op_ptr.clone();
        push_token(&mut ptr, "x-mcp");
        push_token(&mut ptr, "annotations");
        override_annotations(&mut annotations, over, site.item_doc, &ptr, diags);
    }

    // ---- text
    let summary = op
        .get("summary")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let long = op
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let title = str_of(x_mcp, "title")
        .or_else(|| summary.map(|s| s.lines().next().unwrap_or(s).trim().to_string()));
    let description = str_of(x_mcp, "description").or_else(|| match (summary, long) {
        (Some(s), Some(d)) if d.starts_with(s) => Some(d.to_string()),
        (Some(s), Some(d)) => Some(format!("{s}\n\n{d}")),
        (Some(s), None) => Some(s.to_string()),
        (None, Some(d)) => Some(d.to_string()),
        (None, None) => None,
    });
    let description = description.map(|d| match opts.description_max {
        Some(max) => truncate_description(&d, max),
        None => d,
    });

    // ---- security
    let security = op.get("security").and_then(|s| {
        let mut ptr = site.op_ptr.clone();
        push_token(&mut ptr, "security");
        security::map_requirements(s, &shared.schemes, site.item_doc, &ptr, diags)
    });

    // ---- provenance
    let provenance = ToolProvenance {
        method: site.method,
        path: site.path.to_string(),
        operation_id: site.operation_id().map(str::to_string),
        servers: servers::of_operation(spec, site, diags)
            .unwrap_or_else(|| shared.root_servers.clone()),
        request_body: input.request_body,
        response,
        arguments: input.arguments,
        pointer: Some(site.display_ptr.clone()),
        other: Map::new(),
    };

    Built {
        raw_name: site.raw_name(),
        title,
        description,
        input_schema: input.schema,
        output,
        annotations,
        tags: site.tags(),
        deprecated: op.get("deprecated").and_then(Value::as_bool) == Some(true),
        security,
        provenance,
        remote_refs,
    }
}

/// Applies `x-mcp.annotations` over the method's hints, member by member. A member
/// whose value the Tool Annotations Object (§9.1, [`mcpdesc_core::model::ToolAnnotations`])
/// does not allow (`destructiveHint: "yes"`, `title: 3`, a `null` hint) is dropped
/// with a warning: the importer's output must conform, and a hint the author got wrong
/// must not silently turn into its default.
fn override_annotations(
    annotations: &mut Map<String, Value>,
    over: &Value,
    doc: usize,
    ptr: &str,
    diags: &mut Diags,
) {
    let Value::Object(over) = over else {
        diags.warn(
            doc,
            "openapi-x-mcp-invalid",
            "`x-mcp.annotations` is not an object; ignored",
            ptr,
        );
        return;
    };
    for (k, v) in over {
        let mut one = Map::new();
        one.insert(k.clone(), v.clone());
        let fits = !v.is_null()
            && serde_json::from_value::<mcpdesc_core::model::ToolAnnotations>(Value::Object(one))
                .is_ok();
        if fits {
            annotations.insert(k.clone(), v.clone());
        } else {
            let mut at = ptr.to_string();
            push_token(&mut at, k);
            diags.warn(
                doc,
                "openapi-x-mcp-invalid",
                format!("`x-mcp.annotations.{k}` does not have the type Tool Annotations gives it; ignored"),
                at,
            );
        }
    }
}

/// RFC 9110 method semantics as tool hints; `openWorldHint` is true because the tool
/// calls a remote API.
pub fn method_annotations(method: Method) -> Map<String, Value> {
    let (ro, destructive, idempotent) = match method {
        Method::Get | Method::Head | Method::Options | Method::Trace => (true, false, true),
        Method::Put | Method::Delete => (false, true, true),
        Method::Patch => (false, true, false),
        Method::Post => (false, false, false),
    };
    let mut m = Map::new();
    m.insert("readOnlyHint".into(), json!(ro));
    m.insert("destructiveHint".into(), json!(destructive));
    m.insert("idempotentHint".into(), json!(idempotent));
    m.insert("openWorldHint".into(), json!(true));
    m
}

/// Cuts a description to `max` characters, at a word boundary when one is near, and
/// marks the cut with `…` (counted).
pub fn truncate_description(d: &str, max: usize) -> String {
    if d.chars().count() <= max {
        return d.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let keep: String = d.chars().take(max - 1).collect();
    let cut = match keep.rfind(char::is_whitespace) {
        Some(i) if i >= keep.len() * 4 / 5 => keep[..i].trim_end().to_string(),
        _ => keep,
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation() {
        assert_eq!(truncate_description("short", 10), "short");
        let t = truncate_description("hello wonderful world of apis", 20);
        assert!(t.chars().count() <= 20, "{t}");
        assert!(t.ends_with('…'));
        assert_eq!(truncate_description("abcdef", 4), "abc…");
    }

    #[test]
    fn hints() {
        assert_eq!(method_annotations(Method::Get)["readOnlyHint"], json!(true));
        assert_eq!(
            method_annotations(Method::Patch)["idempotentHint"],
            json!(false)
        );
        assert_eq!(
            method_annotations(Method::Delete)["destructiveHint"],
            json!(true)
        );
        assert_eq!(
            method_annotations(Method::Post)["destructiveHint"],
            json!(false)
        );
    }

    /// `x-mcp.annotations` members of the type §9.1 gives them replace the method's
    /// hints; members of the wrong type are dropped with a warning at their pointer and
    /// the method's hint stays (a fuzzer finding: `destructiveHint: "tru/e"` made the
    /// importer's output non-conforming).
    #[test]
    fn annotation_overrides_keep_only_members_of_the_right_type() {
        let mut a = method_annotations(Method::Delete);
        let over = json!({
            "destructiveHint": "tru/e",
            "idempotentHint": false,
            "readOnlyHint": null,
            "title": 3,
            "openWorldHint": false,
            "x-vendor": {"any": ["thing"]}
        });
        let mut diags = Diags::default();
        override_annotations(
            &mut a,
            &over,
            0,
            "/paths/~1a/delete/x-mcp/annotations",
            &mut diags,
        );
        assert_eq!(
            Value::Object(a),
            json!({
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": false,
                "x-vendor": {"any": ["thing"]}
            })
        );
        let warned: Vec<(&str, &str)> = diags
            .items
            .iter()
            .map(|(_, d)| (d.code.as_str(), d.pointer.as_str()))
            .collect();
        assert_eq!(
            warned,
            [
                (
                    "openapi-x-mcp-invalid",
                    "/paths/~1a/delete/x-mcp/annotations/destructiveHint"
                ),
                (
                    "openapi-x-mcp-invalid",
                    "/paths/~1a/delete/x-mcp/annotations/readOnlyHint"
                ),
                (
                    "openapi-x-mcp-invalid",
                    "/paths/~1a/delete/x-mcp/annotations/title"
                ),
            ]
        );

        let mut b = method_annotations(Method::Get);
        let mut diags = Diags::default();
        override_annotations(&mut b, &json!("yes"), 0, "/p", &mut diags);
        assert_eq!(b, method_annotations(Method::Get));
        assert_eq!(diags.items.len(), 1);
    }
}
