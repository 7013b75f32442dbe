//! One listing → the Effective Protocol View of its revision.
//!
//! Fields the revision does not define are dropped and reported; which fields a
//! revision defines comes only from `mcpdesc_core::revision`.

use crate::dump::{Listing, Origin};
use mcpdesc_core::revision::{FIELD_FACTS, SUPPORTED_TOOL_SCHEMA_DIALECTS, field_available};
use mcpdesc_core::{Diagnostic, Feature, ObjectKind, ProtocolRevision};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A tool of a view, cleaned for its revision.
#[derive(Debug, Clone)]
pub struct ViewTool {
    pub name: String,
    pub value: Map<String, Value>,
    pub origin: Origin,
}

/// Why a field was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// The revision does not define the field (`field-not-in-revision`).
    NotInRevision,
    /// Not a field of the MCP Tool type at all (`unknown-tool-field`).
    Unknown,
    /// Root `$schema` of a tool schema before dialects were defined.
    DialectNotInRevision,
    /// `outputSchema` without an object root before any root was allowed.
    OutputSchemaRoot,
}

impl DropReason {
    /// Stable diagnostic code.
    pub fn code(self) -> &'static str {
        match self {
            DropReason::NotInRevision => "field-not-in-revision",
            DropReason::Unknown => "unknown-tool-field",
            DropReason::DialectNotInRevision => "schema-dialect-not-in-revision",
            DropReason::OutputSchemaRoot => "output-schema-root-not-object",
        }
    }
}

/// One dropped field (aggregated into one warning per tool and field by the caller).
#[derive(Debug, Clone)]
pub struct Dropped {
    pub tool: String,
    /// Pointer-like field path inside the tool, e.g. `title`, `inputSchema/$schema`.
    pub field: String,
    pub reason: DropReason,
    pub revision: ProtocolRevision,
    pub origin: Origin,
}

/// Result of building one view.
#[derive(Debug, Default)]
pub struct BuiltView {
    pub tools: Vec<ViewTool>,
    pub dropped: Vec<Dropped>,
    pub errors: Vec<Diagnostic>,
}

/// The MCP Tool wire fields: the ones every revision has plus the table's
/// revision-dependent ones.
fn is_tool_wire_field(field: &str) -> bool {
    matches!(field, "name" | "description" | "inputSchema")
        || FIELD_FACTS
            .iter()
            .any(|f| f.object == ObjectKind::Tool && f.field == field)
}

fn push_origin(o: &Origin, field: &str) -> Origin {
    // Positions point at the tool; the pointer names the exact field.
    Origin {
        pointer: mcpdesc_core::pointer::push(&o.pointer, field),
        position: o.position,
    }
}

/// Cleans the root `$schema` of an embedded tool schema for `rev`.
fn clean_schema(
    schema: &mut Value,
    key: &str,
    rev: ProtocolRevision,
    tool: &str,
    origin: &Origin,
    out: &mut BuiltView,
) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let Some(dialect) = obj.get("$schema").cloned() else {
        return;
    };
    let field = format!("{key}/$schema");
    if !rev.has(Feature::ToolSchemaDialect) {
        obj.shift_remove("$schema");
        out.dropped.push(Dropped {
            tool: tool.to_string(),
            field,
            reason: DropReason::DialectNotInRevision,
            revision: rev,
            origin: push_origin(&push_origin(origin, key), "$schema"),
        });
    } else if !dialect
        .as_str()
        .is_some_and(|d| SUPPORTED_TOOL_SCHEMA_DIALECTS.contains(&d))
    {
        out.errors.push(push_origin(&push_origin(origin, key), "$schema").apply(Diagnostic::error(
            "unsupported-schema-dialect",
            format!(
                "tool `{tool}`: {key} declares dialect {dialect}, which mcpdesc cannot validate (supported: {})",
                SUPPORTED_TOOL_SCHEMA_DIALECTS.join(", ")
            ),
        )));
    }
}

/// Builds the view of `listing` at `rev`.
pub fn build_view(listing: &Listing, rev: ProtocolRevision) -> BuiltView {
    let mut out = BuiltView::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, raw) in listing.tools.iter().enumerate() {
        let Some(obj) = raw.value.as_object() else {
            out.errors.push(raw.origin.apply(Diagnostic::error(
                "tool-invalid",
                "a tools/list entry is not an object",
            )));
            continue;
        };
        let Some(name) = obj
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            out.errors.push(raw.origin.apply(Diagnostic::error(
                "tool-invalid",
                "a tool has no (non-empty string) `name`",
            )));
            continue;
        };
        if !obj.get("inputSchema").is_some_and(Value::is_object) {
            out.errors.push(
                push_origin(&raw.origin, "inputSchema").apply(Diagnostic::error(
                    "tool-invalid",
                    format!(
                        "tool `{name}` has no `inputSchema` object (required by every MCP revision)"
                    ),
                )),
            );
            continue;
        }
        if let Some(&first) = seen.get(name) {
            let a = &listing.tools[first];
            out.errors.push(raw.origin.apply(Diagnostic::error(
                "dump-duplicate-tool",
                format!(
                    "tool `{name}` is listed twice in one tools/list: on page {} ({}, at {}) and on page {} ({}, at {})",
                    a.page,
                    a.page_origin.label(),
                    a.origin.pointer,
                    raw.page,
                    raw.page_origin.label(),
                    raw.origin.pointer
                ),
            )));
            continue;
        }
        seen.insert(name.to_string(), i);
        let mut clean = Map::new();
        for (k, v) in obj {
            let keep = if !is_tool_wire_field(k) {
                Some(DropReason::Unknown)
            } else if !field_available(ObjectKind::Tool, k, rev) {
                Some(DropReason::NotInRevision)
            } else {
                None
            };
            if let Some(reason) = keep {
                out.dropped.push(Dropped {
                    tool: name.to_string(),
                    field: k.clone(),
                    reason,
                    revision: rev,
                    origin: push_origin(&raw.origin, k),
                });
                continue;
            }
            let mut v = v.clone();
            if k == "inputSchema" {
                clean_schema(&mut v, k, rev, name, &raw.origin, &mut out);
            } else if k == "outputSchema" {
                let object_root = mcpdesc_core::schema::is_object_root(&v);
                if !object_root && !rev.has(Feature::OutputSchemaAnyRoot) {
                    out.dropped.push(Dropped {
                        tool: name.to_string(),
                        field: k.clone(),
                        reason: DropReason::OutputSchemaRoot,
                        revision: rev,
                        origin: push_origin(&raw.origin, k),
                    });
                    continue;
                }
                clean_schema(&mut v, k, rev, name, &raw.origin, &mut out);
            }
            clean.insert(k.clone(), v);
        }
        out.tools.push(ViewTool {
            name: name.to_string(),
            value: in_model_order::<mcpdesc_core::model::Tool>(clean),
            origin: raw.origin.clone(),
        });
    }
    out
}

/// `object`'s members in the order the description's model `T` gives them (§9.1 for a
/// Tool, §5 for Info; nested typed objects too, such as Tool Annotations), not the
/// order the server happened to send: what the importer builds is what it writes (a
/// document is emitted in its members' order). Kept as it is when it does not read as
/// a `T` (validation then says why).
pub(crate) fn in_model_order<T>(object: Map<String, Value>) -> Map<String, Value>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let ordered = T::deserialize(&Value::Object(object.clone()))
        .ok()
        .and_then(|typed| serde_json::to_value(typed).ok());
    match ordered {
        Some(Value::Object(m)) if m.len() == object.len() => m,
        _ => object,
    }
}

/// The first JSON pointer (inside the tool) where `a` and `b` differ; `None` when equal.
/// Object key order does not matter; array order does.
pub fn first_difference(a: &Value, b: &Value, at: &str, depth: usize) -> Option<String> {
    if depth > 512 {
        return if a == b { None } else { Some(at.to_string()) };
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let p = mcpdesc_core::pointer::push(at, k);
                match y.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(va, vb, &p, depth + 1) {
                            return Some(d);
                        }
                    }
                    None => return Some(p),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| mcpdesc_core::pointer::push(at, k))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(va, vb, &format!("{at}/{i}"), depth + 1) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len())))
        }
        _ => (a != b).then(|| at.to_string()),
    }
}
