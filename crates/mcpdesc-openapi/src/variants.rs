//! Final tool objects, split into protocol-scoped variants where the revisions
//! disagree on what a tool may contain.
//!
//! The split is the one of `mcpdesc split` (crate `mcpdesc-scope`,
//! [`mcpdesc_scope::split::split_tool_output_root`]): it computes, per root revision,
//! the maximal valid form of the tool (dropping `title`, `annotations`,
//! `outputSchema`, … where a revision does not define them, wrapping a non-object
//! output root as `{"result": …}` before 2026-07-28) and groups equal forms into
//! disjoint variants (§9.5). All revision facts come from `mcpdesc_core::revision`
//! through that crate.
//!
//! The split decides on a *skeleton* of the tool: the schemas are replaced by stubs
//! with the same root kind, and the description and provenance (free text and an
//! extension, kept as they are in every revision) by placeholders (the split's decisions depend on a schema's root only;
//! the importer never emits `$schema` or `x-mcp-header`, the only schema-internal
//! things the split looks at). The real schemas are put back into each variant
//! afterwards. This keeps the split's cost independent of schema size (the GitHub
//! spec's output schemas are 9 MB) and lets the importer wrap with its own [`wrap`],
//! which keeps `$defs` at the schema root where the `#/$defs/…` references resolve
//! (the split's generic wrap nests them under `result`, where a `#/$defs/…`
//! reference, resolved from the resource root, would not find them).
//!
//! A wrapped variant records `resultWrapper: "result"` in its provenance, so a
//! runtime knows to wrap the structured result. With `--wrap-output` the output is
//! wrapped before the split, everywhere.

use crate::op::Built;
use mcpdesc_core::RevisionSet;
use mcpdesc_core::provenance::EXTENSION;
use mcpdesc_scope::split::{LossAction, is_object_root, split_tool_output_root};
use serde_json::{Map, Value, json};

/// The tool objects for one operation (one, or several disjoint variants). Takes the
/// built tool by value: the schemas move into the last variant (the common case is
/// one variant, so nothing is copied).
pub fn tool_values(b: Built, name: &str, root: RevisionSet, wrap_output: bool) -> Vec<Value> {
    // The output schema as the tool declares it before any split.
    let pre_wrapped = wrap_output && b.output.is_some();
    let stub = b.output.as_ref().map(|o| {
        if wrap_output || is_object_root(&o.schema) {
            json!({"type": "object"})
        } else {
            json!({})
        }
    });
    let skeleton = tool_value(&b, name, stub);
    let variants = split_tool_output_root(&skeleton, root, &Value::Null);
    drop(skeleton);
    let Built {
        input_schema,
        output,
        description,
        provenance,
        ..
    } = b;
    let mut input = Some(input_schema);
    let mut description = description.map(Value::String);
    let mut provenance = Some(provenance);
    let mut output = output.map(|o| {
        if wrap_output {
            wrap(o.schema)
        } else {
            o.schema
        }
    });
    let n = variants.len();
    let mut out = Vec::with_capacity(n);
    for (i, v) in variants.into_iter().enumerate() {
        let last = i + 1 == n;
        let mut value = v.value;
        let Value::Object(t) = &mut value else {
            continue;
        };
        // `protocolVersions` first, as the typed model orders a Tool (the split puts
        // it after the name). The schemas are still stubs here: cheap to rebuild.
        if let Some(pv) = t.shift_remove("protocolVersions") {
            let mut m = Map::with_capacity(t.len() + 1);
            m.insert("protocolVersions".into(), pv);
            m.extend(std::mem::take(t));
            *t = m;
        }
        let take = |slot: &mut Option<Value>| {
            if last { slot.take() } else { slot.clone() }
        };
        if let Some(s) = take(&mut input) {
            t.insert("inputSchema".into(), s);
        }
        if t.contains_key("description") {
            if let Some(d) = take(&mut description) {
                t.insert("description".into(), d);
            }
        }
        let mut prov = if last {
            provenance.take()
        } else {
            provenance.clone()
        };
        if t.contains_key("outputSchema") {
            let wrapped_here = v
                .losses
                .iter()
                .any(|l| l.action == LossAction::Wrapped && l.pointer == "/outputSchema");
            if let Some(schema) = take(&mut output) {
                t.insert(
                    "outputSchema".into(),
                    if wrapped_here { wrap(schema) } else { schema },
                );
            }
            if wrapped_here || pre_wrapped {
                if let Some(r) = prov.as_mut().and_then(|p| p.response.as_mut()) {
                    r.result_wrapper = Some(RESULT.into());
                }
            }
        }
        if let Some(p) = prov {
            t.insert(EXTENSION.into(), p.to_value());
        }
        out.push(value);
    }
    out
}

/// The tool with every field (before the split); the schemas are stubs.
fn tool_value(b: &Built, name: &str, output_stub: Option<Value>) -> Value {
    let mut t = Map::new();
    t.insert("name".into(), json!(name));
    if let Some(title) = &b.title {
        t.insert("title".into(), json!(title));
    }
    if b.description.is_some() {
        t.insert("description".into(), json!("-"));
    }
    t.insert("inputSchema".into(), json!({"type": "object"}));
    if let Some(o) = output_stub {
        t.insert("outputSchema".into(), o);
    }
    if !b.annotations.is_empty() {
        t.insert("annotations".into(), Value::Object(b.annotations.clone()));
    }
    if !b.tags.is_empty() {
        t.insert("tags".into(), json!(b.tags));
    }
    if b.deprecated {
        t.insert("deprecated".into(), json!(true));
    }
    if let Some(s) = &b.security {
        t.insert("security".into(), s.clone());
    }
    t.insert(EXTENSION.into(), json!({}));
    Value::Object(t)
}

/// The property a wrapped output puts the body in (`resultWrapper`).
const RESULT: &str = "result";

/// `{"type":"object","properties":{"result": S},"required":["result"]}`, keeping
/// `$defs` at the root where S's `#/$defs/…` references resolve.
pub fn wrap(schema: Value) -> Value {
    let mut inner = schema;
    let defs = inner.as_object_mut().and_then(|m| m.shift_remove("$defs"));
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), json!({ RESULT: inner }));
    root.insert("required".into(), json!([RESULT]));
    if let Some(d) = defs {
        root.insert("$defs".into(), d);
    }
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_defs_at_root() {
        let s = json!({"type": "array", "items": {"$ref": "#/$defs/A"}, "$defs": {"A": {"type": "string"}}});
        let w = wrap(s);
        assert_eq!(w["$defs"]["A"], json!({"type": "string"}));
        assert_eq!(
            w["properties"]["result"]["items"]["$ref"],
            json!("#/$defs/A")
        );
        assert!(w["properties"]["result"].get("$defs").is_none());
    }
}
