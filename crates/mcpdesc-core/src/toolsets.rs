//! Toolsets and read-only tools: how a description groups its tools for serving.
//!
//! A **toolset** is a name a tool belongs to: the tool's `x-mcpdesc-toolsets` (an array of
//! names; see [`TOOLSETS_EXTENSION`]) when it has one, else its `tags` (the OpenAPI
//! importer carries each operation's OpenAPI tags there). A tool may be in several.
//! `serve --toolsets`, the search facade, `lint` and `docs` all read toolsets here.

use serde_json::Value;
use std::collections::BTreeMap;

/// The tool-level extension that declares a tool's toolsets explicitly: an array of
/// toolset names; when present it replaces the tool's `tags` as its toolsets (an
/// OpenAPI Overlay can set it without touching the vendor's tags).
pub const TOOLSETS_EXTENSION: &str = "x-mcpdesc-toolsets";

/// The toolsets of a tool declaration ([`TOOLSETS_EXTENSION`], else `tags`).
pub fn toolsets_of(decl: &Value) -> Vec<&str> {
    let names = decl
        .get(TOOLSETS_EXTENSION)
        .filter(|v| v.is_array())
        .or_else(|| decl.get("tags"));
    names
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The tool's effective `readOnlyHint` (`annotations.readOnlyHint`; false when absent).
pub fn is_read_only(decl: &Value) -> bool {
    decl.get("annotations")
        .and_then(|a| a.get("readOnlyHint"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// One toolset of a description: its tools' declaration indexes (into `tools`), and the
/// description of the root tag of the same name, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Toolset {
    pub tools: Vec<usize>,
    pub description: Option<String>,
}

/// Every toolset of a document, by name (sorted), with the tools in it. A tool declared
/// in several protocol-scoped variants counts once per variant.
pub fn toolsets(doc: &Value) -> BTreeMap<String, Toolset> {
    let mut out: BTreeMap<String, Toolset> = BTreeMap::new();
    for (i, decl) in tools(doc).enumerate() {
        for name in toolsets_of(decl) {
            out.entry(name.to_string()).or_default().tools.push(i);
        }
    }
    for tag in doc
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(name), Some(d)) = (
            tag.get("name").and_then(Value::as_str),
            tag.get("description").and_then(Value::as_str),
        ) && let Some(t) = out.get_mut(name)
        {
            t.description = Some(d.to_string());
        }
    }
    out
}

fn tools(doc: &Value) -> impl Iterator<Item = &Value> {
    doc.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}
