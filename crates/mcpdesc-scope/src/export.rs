//! List exports: what a conforming server sends at one revision (`tools/list`,
//! `resources/list`, `resources/templates/list`, `prompts/list`), and the `serverInfo`
//! a description's Info Object stands for.

use mcpdesc_core::decl::is_extension;
use mcpdesc_core::{DeclKind, Diagnostic, ProtocolRevision, refs};
use mcpdesc_validate::Validated;
use rayon::prelude::*;
use serde_json::{Map, Value};

/// Fields of the MCP type of each primitive (`Tool`, `Resource`, `ResourceTemplate`,
/// `Prompt`) that a description declaration carries (§9.1, §10.1.1, §10.2.1, §11.1).
/// Everything else on a declaration is MCP Description metadata (examples,
/// interactionExamples, completionExamples, elicitations, tags, security,
/// clientRequirements, deprecated, protocolVersions, `x-*`) and is not sent (§9.3, §9.4,
/// §10.4.5, §11.3, §14.7). Which of these exist at a revision is already settled by
/// projection + validation of the view. `None` for a kind that is not a primitive.
pub fn wire_fields(kind: DeclKind) -> Option<&'static [&'static str]> {
    match kind {
        DeclKind::Tool => Some(&[
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "execution",
            "icons",
            "_meta",
        ]),
        DeclKind::Resource => Some(&[
            "uri",
            "name",
            "title",
            "description",
            "mimeType",
            "size",
            "annotations",
            "icons",
            "_meta",
        ]),
        DeclKind::ResourceTemplate => Some(&[
            "uriTemplate",
            "name",
            "title",
            "description",
            "mimeType",
            "annotations",
            "icons",
            "_meta",
        ]),
        DeclKind::Prompt => Some(&[
            "name",
            "title",
            "description",
            "arguments",
            "icons",
            "_meta",
        ]),
        _ => None,
    }
}

/// The compact-JSON size in bytes of what a host receives of a declaration: its
/// [`wire_value`] (the members [`wire_fields`] keeps, `$componentRef` schemas resolved
/// against `view`, `x-*` removed from Icons and Prompt Arguments), measured without
/// building it: a counting writer, nothing cloned but small nested items. An
/// unresolvable reference counts as written. 0 for a kind that is not a primitive.
///
/// The one measure of a tool's wire size: `lint`'s `tool-over-budget` measures the
/// exported tool, the importer's summary this, on each worker thread while it streams.
///
/// ```
/// use mcpdesc_core::DeclKind;
/// use serde_json::{json, Value};
/// let tool = json!({"name": "a", "tags": ["t"], "inputSchema": {"type": "object"}, "x-y": 1});
/// let wire = r#"{"name":"a","inputSchema":{"type":"object"}}"#;
/// assert_eq!(mcpdesc_scope::export::wire_size(DeclKind::Tool, &Value::Null, &tool), wire.len());
/// ```
pub fn wire_size(kind: DeclKind, view: &Value, decl: &Value) -> usize {
    let Some(members) = wire_members(kind, view, decl) else {
        return 0;
    };
    let mut n: usize = 0;
    let mut size = 2; // the braces
    for (k, v) in members {
        // An unresolvable reference counts as written.
        let v = v.unwrap_or_else(|(v, _)| Member::Borrowed(v));
        size += compact_len(k) + 1 + compact_len(v.as_ref());
        n += 1;
    }
    size + n.saturating_sub(1) // commas between members
}

/// The byte length of `v`'s compact JSON serialization (`serde_json::to_writer`: no
/// whitespace, UTF-8, keys in order), counted without building it: the one byte
/// measure of what a host receives ([`wire_size`], and `mcpdesc_hosts::Size`).
pub fn compact_len<T: serde::Serialize + ?Sized>(v: &T) -> usize {
    let mut count = ByteCount(0);
    // Writing to a counter cannot fail, nor can serializing a JSON value.
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}

/// A wire member's value: the declaration's own, or one made for the wire.
enum Member<'a> {
    Borrowed(&'a Value),
    Made(Value),
}

impl Member<'_> {
    fn as_ref(&self) -> &Value {
        match self {
            Member::Borrowed(v) => v,
            Member::Made(v) => v,
        }
    }

    fn into_owned(self) -> Value {
        match self {
            Member::Borrowed(v) => v.clone(),
            Member::Made(v) => v,
        }
    }
}

/// A wire member whose `$componentRef` does not resolve: the member as declared, and
/// why.
type Unresolved<'a> = (&'a Value, refs::RefError);

/// The members of a declaration's wire value, in the declaration's order: the kind's
/// [`wire_fields`], schemas resolved against `view` (an `Err` when that fails), `x-*`
/// removed from Icons and Prompt Arguments. The one definition [`wire_value`] builds
/// and [`wire_size`] measures. `None` when `decl` is not an object or `kind` is not a
/// primitive.
fn wire_members<'a>(
    kind: DeclKind,
    view: &'a Value,
    decl: &'a Value,
) -> Option<impl Iterator<Item = (&'a String, Result<Member<'a>, Unresolved<'a>>)>> {
    let (Some(fields), Some(obj)) = (wire_fields(kind), decl.as_object()) else {
        return None;
    };
    Some(
        obj.iter()
            .filter(move |(k, _)| fields.contains(&k.as_str()))
            .map(move |(k, v)| {
                let member = match k.as_str() {
                    "inputSchema" | "outputSchema" => refs::resolve(view, v, "schemas")
                        .map(|(r, _)| Member::Borrowed(r))
                        .map_err(|e| (v, e)),
                    "icons" | "arguments" => Ok(Member::Made(without_extensions_in_items(v))),
                    _ => Ok(Member::Borrowed(v)),
                };
                (k, member)
            }),
    )
}

/// An `io::Write` that only counts.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Fields of the MCP `Implementation` (`serverInfo`) that an Info Object carries (§5.1);
/// `contact`, `license` and `x-*` are description metadata.
const IMPLEMENTATION_FIELDS: [&str; 6] = [
    "name",
    "title",
    "version",
    "description",
    "websiteUrl",
    "icons",
];

/// The `tools/list` result (`{"tools": [...]}`) a conforming server would send at `rev`:
/// the tools of the Effective Protocol View as MCP Tool objects, with `$componentRef`
/// schemas resolved inline and `_meta` kept.
///
/// Equal to [`tools_list_of_view`] of [`project`](crate::project::project)`(doc, rev)`, built without the view:
/// the source is the validator's handle, and each tool in scope at `rev` is its
/// [`wire_value`] (projection removes only `protocolVersions` and nested elicitations,
/// which a Tool object does not carry, and keeps the components). Nothing is validated
/// here: the validator checks each declaration at every revision of its scope, so a
/// valid source has valid views (tested on every fixture at every revision). Errors:
/// `revision-not-in-document`, and a `$componentRef` [`wire_value`] cannot resolve.
pub fn export_tools_list(
    doc: &Validated<'_>,
    rev: ProtocolRevision,
) -> Result<Value, Vec<Diagnostic>> {
    crate::project::require_revision(doc.value(), rev).map_err(|d| vec![d])?;
    let applicable: Vec<(usize, &Value)> = tools_at(doc, rev).collect();
    // Each tool's wire value is its own: built on all cores, collected in tool order.
    let wired: Vec<_> = applicable
        .par_iter()
        .map(|&(index, decl)| WireTool::of(doc, index, decl).wire)
        .collect();
    let mut items = Vec::new();
    let mut errs = Vec::new();
    for w in wired {
        match w {
            Ok(Some(v)) => items.push(v),
            Ok(None) => {}
            Err(mut e) => errs.append(&mut e),
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut out = Map::new();
    out.insert(DeclKind::Tool.collection().to_string(), Value::Array(items));
    Ok(Value::Object(out))
}

/// One tool of the `tools/list` at a revision, straight from the validated source
/// ([`wire_tools`]).
#[derive(Debug)]
pub struct WireTool<'a> {
    /// Its index in the source's `tools` (its pointer is `/tools/{index}`).
    pub index: usize,
    /// Its declaration in the source.
    pub decl: &'a Value,
    /// Its [`wire_value`] (`Ok(None)`: the declaration is not an object).
    pub wire: Result<Option<Value>, Vec<Diagnostic>>,
}

impl<'a> WireTool<'a> {
    fn of(doc: &'a Validated<'_>, index: usize, decl: &'a Value) -> Self {
        let wire = wire_value(
            DeclKind::Tool,
            doc.value(),
            decl,
            &format!("/tools/{index}"),
        );
        WireTool { index, decl, wire }
    }
}

/// The tools a server lists at `rev`, in document order, as (index in the source's
/// `tools`, declaration): the declarations whose scope contains `rev`. Empty when
/// `rev` is not one of the document's revisions. Projection changes nothing a Tool
/// object carries, so no view is built: this is the one selection of the tools/list at
/// a revision ([`export_tools_list`], [`wire_tools`], `lint`).
pub fn tools_at<'a>(
    doc: &'a Validated<'_>,
    rev: ProtocolRevision,
) -> impl Iterator<Item = (usize, &'a Value)> + 'a {
    let root = crate::root_scope(doc.value());
    doc.value()
        .get(DeclKind::Tool.collection())
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter(move |(_, decl)| root.contains(rev) && crate::decl_scope(decl, root).contains(rev))
}

/// The `tools/list` at `rev` one tool at a time: [`tools_at`] with each tool's
/// [`wire_value`] (what `export tools-list` emits and `serve` sends), built as the
/// iterator is advanced and dropped by the caller once read. For `lint`, which checks
/// tool by tool with the source's pointers.
pub fn wire_tools<'a>(
    doc: &'a Validated<'a>,
    rev: ProtocolRevision,
) -> impl Iterator<Item = WireTool<'a>> + 'a {
    wire_tools_kept(doc, rev, |_, _| true)
}

/// [`wire_tools`] of the tools `keep` keeps, given each one's index in the source's
/// `tools` and its declaration (a server serving a selection of the tools): the
/// others' wire values are not built.
pub fn wire_tools_kept<'a>(
    doc: &'a Validated<'a>,
    rev: ProtocolRevision,
    mut keep: impl FnMut(usize, &Value) -> bool + 'a,
) -> impl Iterator<Item = WireTool<'a>> + 'a {
    tools_at(doc, rev)
        .filter(move |&(index, decl)| keep(index, decl))
        .map(move |(index, decl)| WireTool::of(doc, index, decl))
}

/// [`export_tools_list`] for an already projected (single-revision) view.
pub fn tools_list_of_view(view: &Validated<'_>) -> Result<Value, Vec<Diagnostic>> {
    list_of_view(DeclKind::Tool, view)
}

/// The list result of one primitive kind for an already projected (single-revision)
/// view: `{"tools": [...]}`, `{"resources": [...]}`, `{"resourceTemplates": [...]}` or
/// `{"prompts": [...]}` (the MCP list results use the description's collection names).
/// Each entry is [`wire_value`] of the declaration. A kind that is not a primitive
/// gives an empty list.
pub fn list_of_view(kind: DeclKind, view: &Validated<'_>) -> Result<Value, Vec<Diagnostic>> {
    list_of_value(kind, view.value())
}

/// [`list_of_view`] of a view's value.
pub(crate) fn list_of_value(kind: DeclKind, view: &Value) -> Result<Value, Vec<Diagnostic>> {
    let mut items = Vec::new();
    let mut errs = Vec::new();
    for (i, decl) in view
        .get(kind.collection())
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        match wire_value(kind, view, decl, &format!("/{}/{i}", kind.collection())) {
            Ok(Some(v)) => items.push(v),
            Ok(None) => {}
            Err(mut e) => errs.append(&mut e),
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut out = Map::new();
    out.insert(kind.collection().to_string(), Value::Array(items));
    Ok(Value::Object(out))
}

/// One declaration of a projected view as its MCP list value: the kind's
/// [`wire_fields`] in the declaration's order, `$componentRef` schemas resolved against
/// `view`, and `x-*` extensions removed from the nested objects that may carry them
/// (Icons, Prompt Arguments: §14.2). `at` is the declaration's JSON pointer, for
/// diagnostics. `Ok(None)` when `decl` is not an object or `kind` is not a primitive.
pub fn wire_value(
    kind: DeclKind,
    view: &Value,
    decl: &Value,
    at: &str,
) -> Result<Option<Value>, Vec<Diagnostic>> {
    let Some(members) = wire_members(kind, view, decl) else {
        return Ok(None);
    };
    let mut out = Map::new();
    let mut errs = Vec::new();
    for (k, v) in members {
        match v {
            Ok(v) => {
                out.insert(k.clone(), v.into_owned());
            }
            Err((_, e)) => {
                errs.push(Diagnostic::error(e.code(), e.to_string()).at(format!("{at}/{k}")));
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(Some(Value::Object(out)))
}

/// The MCP `Implementation` (`serverInfo`) that the document's Info Object describes:
/// its Implementation fields, Icons without their `x-*` extensions. The same value at
/// every revision: Implementation is an open object in each revision's schema, and a
/// server has one identity (capture requires every session to report the same one).
pub fn server_info(doc: &Value) -> Value {
    let mut out = Map::new();
    if let Some(info) = doc.get("info").and_then(Value::as_object) {
        for (k, v) in info {
            if !IMPLEMENTATION_FIELDS.contains(&k.as_str()) {
                continue;
            }
            let v = if k == "icons" {
                without_extensions_in_items(v)
            } else {
                v.clone()
            };
            out.insert(k.clone(), v);
        }
    }
    Value::Object(out)
}

/// An array of objects with every `x-*` member of each object removed.
fn without_extensions_in_items(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| match item {
                    Value::Object(m) => Value::Object(
                        m.iter()
                            .filter(|(k, _)| !is_extension(k))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_description_metadata_and_inlines_refs() {
        let view = json!({
            "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"}, "protocolVersions": ["2025-11-25"],
            "components": {"schemas": {"In": {"$componentRef": "#/components/schemas/In2"}, "In2": {"type": "object"}}},
            "tools": [{"name": "t", "title": "T", "inputSchema": {"$componentRef": "#/components/schemas/In"},
                       "tags": ["a"], "security": [], "deprecated": true, "x-a": 1, "_meta": {"k": 1},
                       "examples": {"e": {"input": {}, "result": {"content": []}}},
                       "execution": {"taskSupport": "optional"}}]
        });
        let got = list_of_value(DeclKind::Tool, &view).expect("resolvable");
        assert_eq!(
            got,
            json!({"tools": [{"name": "t", "title": "T", "inputSchema": {"type": "object"},
            "_meta": {"k": 1}, "execution": {"taskSupport": "optional"}}]})
        );
    }

    /// `export_tools_list` of a whole description at one revision: the tools in scope at
    /// that revision, in document order, as the wire carries them (hand-written).
    #[test]
    fn export_tools_list_keeps_the_revision_s_tools_in_order() {
        let doc = json!({
            "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"},
            "protocolVersions": ["2025-06-18", "2025-11-25"],
            "components": {"schemas": {"In": {"type": "object", "properties": {"q": {"type": "string"}}}}},
            "tools": [
                {"name": "a", "inputSchema": {"$componentRef": "#/components/schemas/In"}, "tags": ["x"]},
                {"name": "b", "protocolVersions": ["2025-11-25"], "inputSchema": {"type": "object"}},
                {"name": "c", "title": "C", "inputSchema": {"type": "object"}, "x-note": 1}
            ]
        });
        let valid = mcpdesc_validate::Validator::new()
            .check(&doc)
            .expect("a valid description");
        let wire = |rev| export_tools_list(&valid, rev).expect("exports");
        let a = json!({"name": "a", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}});
        let b = json!({"name": "b", "inputSchema": {"type": "object"}});
        let c = json!({"name": "c", "title": "C", "inputSchema": {"type": "object"}});
        assert_eq!(
            wire(ProtocolRevision::V2025_06_18),
            json!({"tools": [a, c]})
        );
        assert_eq!(
            wire(ProtocolRevision::V2025_11_25),
            json!({"tools": [a, b, c]})
        );
        let err =
            export_tools_list(&valid, ProtocolRevision::V2026_07_28).expect_err("not declared");
        assert_eq!(err[0].code, "revision-not-in-document");
    }

    // Hand-written from §10.1.1, §10.2.1, §11.1, §11.2, §14.2 (not from the field table).
    #[test]
    fn resources_templates_prompts_keep_only_mcp_fields() {
        let view = json!({
            "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"}, "protocolVersions": ["2025-11-25"],
            "resources": [{"uri": "file:///a", "name": "a", "mimeType": "text/plain", "size": 3,
                "annotations": {"audience": ["user"], "x-odd": 1}, "tags": ["t"], "x-r": true,
                "icons": [{"src": "https://e.example/i.png", "x-icon": 1}],
                "examples": {"e": {"result": {"contents": [{"uri": "file:///a", "text": "abc"}]}}}}],
            "resourceTemplates": [{"uriTemplate": "file:///{p}", "name": "f", "deprecated": false,
                "completionExamples": {"c": {}}}],
            "prompts": [{"name": "p", "title": "P", "arguments": [{"name": "x", "required": true, "x-arg": 2}],
                "examples": {"e": {"result": {"messages": []}}}, "security": []}]
        });
        assert_eq!(
            list_of_value(DeclKind::Resource, &view).expect("ok"),
            json!({"resources": [{"uri": "file:///a", "name": "a", "mimeType": "text/plain", "size": 3,
                "annotations": {"audience": ["user"], "x-odd": 1},
                "icons": [{"src": "https://e.example/i.png"}]}]})
        );
        assert_eq!(
            list_of_value(DeclKind::ResourceTemplate, &view).expect("ok"),
            json!({"resourceTemplates": [{"uriTemplate": "file:///{p}", "name": "f"}]})
        );
        assert_eq!(
            list_of_value(DeclKind::Prompt, &view).expect("ok"),
            json!({"prompts": [{"name": "p", "title": "P", "arguments": [{"name": "x", "required": true}]}]})
        );
    }

    /// The wire size is the length of the exported tool's compact JSON (the text a
    /// host receives), for tools with description metadata, extensions, references.
    #[test]
    fn wire_size_is_the_length_of_the_exported_value() {
        let view = json!({
            "mcpdesc": "0.8.0", "info": {"name": "s", "version": "1"}, "protocolVersions": ["2025-11-25"],
            "components": {"schemas": {"In": {"type": "object", "properties": {"q": {"type": "string"}}}}},
            "tools": [
                {"name": "t", "title": "T", "inputSchema": {"$componentRef": "#/components/schemas/In"},
                 "tags": ["a"], "security": [], "deprecated": true, "x-a": 1, "_meta": {"k": 1},
                 "icons": [{"src": "https://e.example/i.png", "x-icon": {"big": "value"}}],
                 "annotations": {"readOnlyHint": true}},
                {"name": "u", "inputSchema": {"type": "object"}},
                {"name": "é\"", "description": "ünïcode \u{1F600}", "inputSchema": {"type": "object"}}
            ]
        });
        let list = list_of_value(DeclKind::Tool, &view).expect("resolvable");
        let exported = list["tools"].as_array().expect("tools");
        for (decl, wire) in view["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .zip(exported)
        {
            assert_eq!(
                wire_size(DeclKind::Tool, &view, decl),
                serde_json::to_string(wire).expect("json").len(),
                "{wire}"
            );
        }
        // By hand: `{"name":"u","inputSchema":{"type":"object"}}`.
        assert_eq!(wire_size(DeclKind::Tool, &view, &view["tools"][1]), 44);
        assert_eq!(wire_size(DeclKind::Tool, &view, &json!({})), 2);
        assert_eq!(wire_size(DeclKind::Tool, &view, &json!("t")), 0);
        assert_eq!(
            wire_size(DeclKind::Transport, &view, &json!({"type": "stdio"})),
            0
        );
    }

    #[test]
    fn server_info_is_the_implementation_part_of_info() {
        let doc = json!({"info": {"name": "s", "title": "S", "version": "1", "description": "d",
            "websiteUrl": "https://s.example", "contact": {"name": "c"}, "license": {"name": "MIT"},
            "icons": [{"src": "https://s.example/i.png", "x-i": 1}], "x-team": "a"}});
        assert_eq!(
            server_info(&doc),
            json!({"name": "s", "title": "S", "version": "1", "description": "d",
                "websiteUrl": "https://s.example", "icons": [{"src": "https://s.example/i.png"}]})
        );
    }
}
