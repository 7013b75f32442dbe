//! Results across revisions: how a tool's result at each revision the description
//! declares becomes the output type generated for the target revision.
//!
//! The output schemas of the revision views decide, compared as JSON (key order
//! ignored, and a root `$schema`, which only names the dialect): the same schema decodes
//! as it is; an object with a single required property whose schema is the other
//! revision's root is a wrapper, unwrapped (or built) around the value. That is how
//! split and the OpenAPI importer make a non-object output root valid before
//! [`Feature::OutputSchemaAnyRoot`](mcpdesc_core::Feature::OutputSchemaAnyRoot), but a
//! description need not come from them. The importer's provenance
//! (`x-mcpdesc-openapi.response.resultWrapper`) is only a hint, used when the schemas
//! alone do not say.

use super::{Lowerer, Views};
use crate::ir::{Decode, RevisionResult};
use mcpdesc_core::provenance::ToolProvenance;
use mcpdesc_core::revision::{ObjectKind, field_available};
use mcpdesc_core::schema::is_object_root;
use mcpdesc_core::{Diagnostic, ProtocolRevision, pointer, refs};
use serde_json::{Map, Value};

/// Keywords of a schema resource root that a wrapper keeps at its own root.
const RESOURCE_KEYWORDS: &[&str] = &["$schema", "$id", "$defs", "definitions"];

/// Keywords a wrapper may carry besides its one property (they do not change which
/// values decode).
const WRAPPER_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "$comment",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "title",
    "description",
];

impl<'a> Lowerer<'a> {
    /// The decoding of tool `name` at every revision of `views` (oldest first), given
    /// the target view's declaration `tool` and its resolved output schema, if any.
    pub(super) fn results(
        &mut self,
        views: &Views<'a>,
        name: &str,
        tool: &Value,
        output: Option<&Value>,
    ) -> Vec<RevisionResult> {
        let target = views.target_revision();
        views
            .revisions()
            .iter()
            .map(|revision| {
                let decode = if revision == target {
                    Decode::Same
                } else {
                    self.decode_at(views, revision, name, tool, output)
                };
                RevisionResult { revision, decode }
            })
            .collect()
    }

    fn decode_at(
        &mut self,
        views: &Views<'a>,
        rev: ProtocolRevision,
        name: &str,
        tool: &Value,
        output: Option<&Value>,
    ) -> Decode {
        let Some((at, other)) = views.tool_at(rev, name) else {
            return Decode::Absent;
        };
        // Content blocks are content blocks at every revision.
        let Some(output) = output else {
            return Decode::Same;
        };
        let other_output = other
            .get("outputSchema")
            .filter(|_| field_available(ObjectKind::Tool, "outputSchema", rev))
            .and_then(|raw| refs::resolve(views.source(), raw, "schemas").ok())
            .map(|(schema, _)| schema);
        let Some(other_output) = other_output else {
            return Decode::Unstructured;
        };
        if same_schema(output, other_output) {
            return Decode::Same;
        }
        let hinted = |t: &Value| {
            ToolProvenance::of_tool(t, "")
                .and_then(Result::ok)
                .and_then(|p| p.response?.result_wrapper)
        };
        if let Some(property) = wrapper_of(other_output, output) {
            return Decode::Unwrap { property };
        }
        if let Some(property) = wrapper_of(output, other_output) {
            return Decode::Wrap { property };
        }
        // The schemas do not say; the importer's provenance may (one side wraps, the
        // wrapper has that property).
        match (hinted(other), hinted(tool)) {
            (Some(p), None) if has_property(other_output, &p) => {
                return Decode::Unwrap { property: p };
            }
            (None, Some(p)) if has_property(output, &p) => return Decode::Wrap { property: p },
            _ => {}
        }
        self.diags.push(
            Diagnostic::warning(
                "codegen-output-differs-by-revision",
                format!(
                    "the output schema of `{name}` at protocol revision {rev} differs from the one at {} the types are generated for; results at {rev} are decoded as {}'s",
                    views.target_revision(),
                    views.target_revision()
                ),
            )
            .at(format!("{at}/outputSchema")),
        );
        Decode::Differs
    }
}

/// Equal schemas, ignoring key order and a root `$schema`.
fn same_schema(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let len = |m: &Map<String, Value>| m.len() - usize::from(m.contains_key("$schema"));
            len(x) == len(y)
                && x.iter()
                    .filter(|(k, _)| *k != "$schema")
                    .all(|(k, v)| y.get(k) == Some(v))
        }
        _ => a == b,
    }
}

fn has_property(schema: &Value, property: &str) -> bool {
    schema
        .get("properties")
        .and_then(|p| p.get(property))
        .is_some()
}

/// The property `wrapper` wraps `root` in, if it is a wrapper of it: an object schema
/// with that one required property, whose schema is `root` without its resource
/// keywords (which the wrapper has at its own root), local references into the old
/// root rebased under the property.
fn wrapper_of(wrapper: &Value, root: &Value) -> Option<String> {
    let w = wrapper.as_object()?;
    if !is_object_root(wrapper) || !w.keys().all(|k| WRAPPER_KEYWORDS.contains(&k.as_str())) {
        return None;
    }
    let props = w.get("properties")?.as_object()?;
    let [(property, inner)] = props.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let required = w.get("required")?.as_array()?;
    if required.len() != 1 || required[0].as_str() != Some(property) {
        return None;
    }
    let rebase = |r: &str| rebase(r, property);
    let same_resource_keyword = |k: &str| match (w.get(k), root.get(k)) {
        (None, None) => true,
        (Some(a), Some(b)) => k == "$schema" || same_rebased(a, b, &rebase),
        _ => k == "$schema",
    };
    let inner_is_root = match (inner, root) {
        (Value::Object(i), Value::Object(r)) => {
            let members: Vec<_> = r
                .iter()
                .filter(|(k, _)| !RESOURCE_KEYWORDS.contains(&k.as_str()))
                .collect();
            members.len() == i.len()
                && members
                    .iter()
                    .all(|(k, v)| i.get(*k).is_some_and(|iv| same_member(k, iv, v, &rebase)))
        }
        _ => same_rebased(inner, root, &rebase),
    };
    (inner_is_root
        && ["$defs", "definitions", "$id"]
            .iter()
            .all(|k| same_resource_keyword(k)))
    .then(|| property.clone())
}

/// A local reference into a root that moved under `property`, as the wrapper has it
/// ([`mcpdesc_core::local_ref::rebase`]).
fn rebase(r: &str, property: &str) -> String {
    let under = pointer::push("/properties", property);
    mcpdesc_core::local_ref::rebase(r, &under).unwrap_or_else(|| r.to_string())
}

fn same_member(key: &str, a: &Value, b: &Value, rebase: &dyn Fn(&str) -> String) -> bool {
    match (key, a, b) {
        ("$ref", Value::String(x), Value::String(y)) => *x == rebase(y),
        _ => same_rebased(a, b, rebase),
    }
}

/// `a` (the wrapper's side) equals `b` (the root's side) with every `$ref` of `b`
/// rebased; key order ignored.
fn same_rebased(a: &Value, b: &Value, rebase: &dyn Fn(&str) -> String) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, yv) in y {
                    let Some(xv) = x.get(k) else { return false };
                    match (k.as_str(), xv, yv) {
                        ("$ref", Value::String(xr), Value::String(yr)) => {
                            if *xr != rebase(yr) {
                                return false;
                            }
                        }
                        _ => stack.push((xv, yv)),
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y));
            }
            _ => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pet_list() -> Value {
        json!({"type": "array", "items": {"$ref": "#/$defs/Pet"},
               "$defs": {"Pet": {"type": "object", "properties": {"next": {"$ref": "#/items"}}}}})
    }

    /// The wrapper `mcpdesc split` makes (scope's OutputRootStrategy::Wrap) is one.
    #[test]
    fn the_split_wrapper_is_recognized() {
        let doc = json!({
            "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
            "protocolVersions": ["2025-11-25", "2026-07-28"],
            "tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": pet_list()}]
        });
        let (split, _) =
            mcpdesc_scope::split_with(&doc, &mcpdesc_scope::SplitPolicy::wrap_output_root())
                .expect("splits");
        let tools = split
            .value()
            .get("tools")
            .and_then(Value::as_array)
            .expect("tools");
        let at = |rev: &str| {
            tools
                .iter()
                .find(|t| {
                    t["protocolVersions"]
                        .as_array()
                        .is_some_and(|a| a.contains(&json!(rev)))
                })
                .map(|t| t["outputSchema"].clone())
                .expect("variant")
        };
        let (wrapped, raw) = (at("2025-11-25"), at("2026-07-28"));
        assert_ne!(wrapped, raw);
        assert_eq!(wrapper_of(&wrapped, &raw).as_deref(), Some("result"));
        assert_eq!(wrapper_of(&raw, &wrapped), None);
    }

    #[test]
    fn near_wrappers_are_not() {
        let raw = pet_list();
        let wrap = |extra: Value| {
            let mut w = json!({"type": "object", "properties": {"items": {"type": "array",
                "items": {"$ref": "#/$defs/Pet"}}}, "required": ["items"],
                "$defs": raw["$defs"].clone()});
            if let (Value::Object(w), Value::Object(e)) = (&mut w, extra) {
                w.extend(e);
            }
            w
        };
        // `#/items` in Pet moved under the property: rebased, it is a wrapper.
        let mut good = wrap(json!({}));
        good["$defs"]["Pet"]["properties"]["next"]["$ref"] = json!("#/properties/items/items");
        assert_eq!(wrapper_of(&good, &raw).as_deref(), Some("items"));
        // Not rebased: the reference would point elsewhere.
        assert_eq!(wrapper_of(&wrap(json!({})), &raw), None);
        // Optional property, a second property, another root type: not wrappers.
        let mut optional = good.clone();
        optional["required"] = json!([]);
        assert_eq!(wrapper_of(&optional, &raw), None);
        let mut two = good.clone();
        two["properties"]["more"] = json!({});
        assert_eq!(wrapper_of(&two, &raw), None);
        assert_eq!(wrapper_of(&wrap(json!({"type": "array"})), &raw), None);
        // Another `$defs`: not the same values.
        let mut defs = good.clone();
        defs["$defs"]["Pet"]["type"] = json!("string");
        assert_eq!(wrapper_of(&defs, &raw), None);
    }

    #[test]
    fn schemas_are_the_same_up_to_key_order_and_dialect() {
        let a = json!({"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema",
                       "properties": {"a": {"type": "string"}}});
        let b = json!({"properties": {"a": {"type": "string"}}, "type": "object"});
        assert!(same_schema(&a, &b) && same_schema(&b, &a));
        assert!(!same_schema(&a, &json!({"type": "object"})));
    }
}
