//! `tools/list` export: what a conforming server would send at one revision.

use crate::project::project;
use mcpdesc_core::{Diagnostic, ProtocolRevision, refs};
use serde_json::{Map, Value};

/// Fields of the MCP `Tool` type that a description carries (§9.1). Everything else
/// on a Tool Object is MCP Description metadata (examples, interactionExamples,
/// elicitations, tags, security, clientRequirements, deprecated, protocolVersions,
/// `x-*`) and is not sent (§9.3, §9.4). Which of these exist at a revision is already
/// settled by projection + validation of the view.
const MCP_TOOL_FIELDS: [&str; 9] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "execution",
    "icons",
    "_meta",
];

/// The `tools/list` result (`{"tools": [...]}`) a conforming server would send at `rev`:
/// the tools of the validated Effective Protocol View as MCP Tool objects, with
/// `$componentRef` schemas resolved inline and `_meta` kept.
pub fn export_tools_list(doc: &Value, rev: ProtocolRevision) -> Result<Value, Vec<Diagnostic>> {
    let view = project(doc, rev)?;
    tools_list_of_view(&view)
}

/// [`export_tools_list`] for an already projected (single-revision) view.
pub fn tools_list_of_view(view: &Value) -> Result<Value, Vec<Diagnostic>> {
    let mut tools = Vec::new();
    let mut errs = Vec::new();
    for (i, tool) in view
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(obj) = tool.as_object() else {
            continue;
        };
        let mut out = Map::new();
        for (k, v) in obj {
            if !MCP_TOOL_FIELDS.contains(&k.as_str()) {
                continue;
            }
            let v = if k == "inputSchema" || k == "outputSchema" {
                match refs::resolve(view, v, "schemas") {
                    Ok((resolved, _)) => resolved.clone(),
                    Err(e) => {
                        errs.push(
                            Diagnostic::error(e.code(), e.to_string())
                                .at(format!("/tools/{i}/{k}")),
                        );
                        continue;
                    }
                }
            } else {
                v.clone()
            };
            out.insert(k.clone(), v);
        }
        tools.push(Value::Object(out));
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(serde_json::json!({ "tools": tools }))
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
        let got = tools_list_of_view(&view).expect("resolvable");
        assert_eq!(
            got,
            json!({"tools": [{"name": "t", "title": "T", "inputSchema": {"type": "object"},
            "_meta": {"k": 1}, "execution": {"taskSupport": "optional"}}]})
        );
    }
}
