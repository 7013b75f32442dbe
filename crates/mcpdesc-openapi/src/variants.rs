//! Final tool objects, split into protocol-scoped variants where the revisions
//! disagree on what a tool may contain.
//!
//! A tool spans the root revisions unless its content is not valid in all of them:
//! `title` and `outputSchema` exist since 2025-06-18, `annotations` since 2025-03-26,
//! and a non-object `outputSchema` root only in 2026-07-28 (all read from
//! `mcpdesc_core::revision`, never hard-coded). For every root revision we compute
//! the tool's shape in that revision; revisions with the same shape form one variant
//! with its own `protocolVersions` (omitted when one variant covers them all).
//! Variants are disjoint by construction (§9.5). Before 2026-07-28 a non-object
//! output is wrapped as `{"result": …}` (or everywhere with `--wrap-output`), and the
//! provenance records the wrapper so a runtime can wrap the structured result.
//!
//! This is the importer's own minimal split. `mcpdesc split` (crate
//! `mcpdesc-scope`) splits arbitrary documents; here the only revision-dependent
//! parts are the ones listed above, so the shape signature is exact.

use crate::op::Built;
use mcpdesc_core::revision::{ObjectKind, field_available};
use mcpdesc_core::{Feature, RevisionSet};
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    title: bool,
    /// None: no outputSchema; Some(true): wrapped; Some(false): native.
    output: Option<bool>,
    annotations: bool,
}

/// The tool objects for one operation (one, or several disjoint variants).
pub fn tool_values(b: &Built, name: &str, root: RevisionSet, wrap_output: bool) -> Vec<Value> {
    let mut groups: Vec<(Shape, RevisionSet)> = Vec::new();
    for r in root.iter() {
        let shape = Shape {
            title: b.title.is_some() && field_available(ObjectKind::Tool, "title", r),
            output: match &b.output {
                Some(o) if field_available(ObjectKind::Tool, "outputSchema", r) => {
                    Some(wrap_output || (!o.object_root && !r.has(Feature::OutputSchemaAnyRoot)))
                }
                _ => None,
            },
            annotations: field_available(ObjectKind::Tool, "annotations", r),
        };
        match groups.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, set)) => set.insert(r),
            None => groups.push((shape, RevisionSet::single(r))),
        }
    }
    let single = groups.len() == 1;
    groups
        .into_iter()
        .map(|(shape, set)| tool_value(b, name, shape, (!single).then_some(set)))
        .collect()
}

fn tool_value(b: &Built, name: &str, shape: Shape, scope: Option<RevisionSet>) -> Value {
    let mut t = Map::new();
    if let Some(s) = scope {
        t.insert("protocolVersions".into(), json!(s.to_strings()));
    }
    t.insert("name".into(), json!(name));
    if shape.title {
        if let Some(title) = &b.title {
            t.insert("title".into(), json!(title));
        }
    }
    if let Some(d) = &b.description {
        t.insert("description".into(), json!(d));
    }
    t.insert("inputSchema".into(), b.input_schema.clone());
    let mut prov = b.provenance.clone();
    if let (Some(wrapped), Some(o)) = (shape.output, &b.output) {
        if wrapped {
            t.insert("outputSchema".into(), wrap(&o.schema));
            if let Some(Value::Object(r)) = prov.get_mut("response") {
                r.insert("resultWrapper".into(), json!("result"));
            }
        } else {
            t.insert("outputSchema".into(), o.schema.clone());
        }
    }
    if shape.annotations && !b.annotations.is_empty() {
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
    t.insert("x-mcpdesc-openapi".into(), Value::Object(prov));
    Value::Object(t)
}

/// `{"type":"object","properties":{"result": S},"required":["result"]}`, keeping
/// `$defs` at the root where S's `#/$defs/…` references resolve.
pub fn wrap(schema: &Value) -> Value {
    let mut inner = schema.clone();
    let defs = inner.as_object_mut().and_then(|m| m.remove("$defs"));
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), json!({ "result": inner }));
    root.insert("required".into(), json!(["result"]));
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
        let w = wrap(&s);
        assert_eq!(w["$defs"]["A"], json!({"type": "string"}));
        assert_eq!(
            w["properties"]["result"]["items"]["$ref"],
            json!("#/$defs/A")
        );
        assert!(w["properties"]["result"].get("$defs").is_none());
    }
}
