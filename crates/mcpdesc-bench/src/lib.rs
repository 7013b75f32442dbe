//! # mcpdesc-bench
//!
//! Inputs shared by the criterion benches (`benches/stages.rs`) and `cargo xtask bench`:
//! a synthetic description of any number of tools, and the GitHub REST spec from npm
//! `@octokit/openapi` (issue 7's reference input) when `cargo xtask deps` installed it.
//!
//! The crate also holds the `baseline` binary: plain serde_json read + parse + write,
//! the whole-process reference the importer is compared with; and the OpenAPI corpus
//! runner ([`corpus`], `examples/corpus.rs`, what `cargo xtask corpus` runs).

pub mod corpus;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Environment variable that overrides the GitHub spec location.
pub const GITHUB_SPEC_ENV: &str = "MCPDESC_GITHUB_SPEC";

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where `cargo xtask deps` puts the GitHub REST spec (13 MB, OpenAPI 3.0.3).
pub fn default_github_spec() -> PathBuf {
    workspace_root().join(".deps/node/node_modules/@octokit/openapi/generated/api.github.com.json")
}

/// The GitHub spec path (`$MCPDESC_GITHUB_SPEC` or the `.deps` install), if the file
/// exists. Benches that need it skip with a message otherwise.
pub fn github_spec() -> Option<PathBuf> {
    let p = std::env::var_os(GITHUB_SPEC_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(default_github_spec);
    p.is_file().then_some(p)
}

/// `(operationId, "METHOD /path")` of every operation in an OpenAPI document, in
/// document order: the input of the naming stage.
pub fn operation_ids(spec: &Value) -> Vec<(String, String)> {
    const METHODS: &[&str] = &[
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let mut out = Vec::new();
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, op) in item {
            if !METHODS.contains(&method.as_str()) {
                continue;
            }
            if let Some(id) = op.get("operationId").and_then(Value::as_str) {
                out.push((id.to_string(), format!("{} {path}", method.to_uppercase())));
            }
        }
    }
    out
}

/// A conforming description with `n` tools, each with a small input and output schema,
/// annotations, a tag and a security requirement (the shape of an imported REST API).
pub fn synthetic_description(n: usize) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "title": format!("Tool {i}"),
                "description": "Does something useful with the given arguments.",
                "inputSchema": {"type": "object", "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "count": {"type": "integer", "minimum": 0},
                    "mode": {"type": "string", "enum": ["a", "b", "c"]},
                    "tags": {"type": "array", "items": {"type": "string"}}
                }, "required": ["id"], "additionalProperties": false},
                "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                "annotations": {"readOnlyHint": i % 2 == 0},
                "tags": ["t"],
                "security": [{"oauth": ["read"]}]
            })
        })
        .collect();
    json!({
        "mcpdesc": "0.8.0", "info": {"name": "big", "version": "1"},
        "protocolVersions": ["2025-11-25", "2026-07-28"],
        "transports": [{"type": "streamable-http", "url": "https://x.example/mcp"}],
        "securitySchemes": {"oauth": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": "https://x.example/token", "scopes": {"read": "Read"}}}}},
        "tags": [{"name": "t"}],
        "tools": tools
    })
}

/// Imports the spec at `path` with default options (validation included) and returns
/// the description as JSON, or a message saying why not.
pub fn import_description(path: &Path) -> Result<Value, String> {
    let mut doc = mcpdesc_openapi::ValueSink::new();
    mcpdesc_openapi::import(
        mcpdesc_openapi::Source::Path(path),
        &mcpdesc_openapi::ImportOptions::default(),
        &mut doc,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    doc.into_value()
        .ok_or_else(|| format!("{}: no document", path.display()))
}

/// A copy of `doc` with every `every`-th tool changed the way a release changes tools:
/// a new description, a new required input property, an output property dropped (the
/// input of the `diff` bench: 1% of the GitHub description is `every = 100`). Stays a
/// conforming description.
pub fn with_changed_tools(doc: &Value, every: usize) -> Value {
    let mut out = doc.clone();
    let Some(tools) = out.get_mut("tools").and_then(Value::as_array_mut) else {
        return out;
    };
    for tool in tools.iter_mut().step_by(every.max(1)) {
        let Some(t) = tool.as_object_mut() else {
            continue;
        };
        let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
        t.insert("description".into(), json!(format!("{desc} (changed)")));
        if let Some(input) = t.get_mut("inputSchema").and_then(Value::as_object_mut) {
            let props = input.entry("properties").or_insert_with(|| json!({}));
            if let Some(p) = props.as_object_mut() {
                p.insert("bench_added".into(), json!({"type": "string"}));
            }
            let req = input.entry("required").or_insert_with(|| json!([]));
            if let Some(r) = req.as_array_mut() {
                r.push(json!("bench_added"));
            }
        }
        if let Some(props) = t
            .get_mut("outputSchema")
            .and_then(|o| o.get_mut("properties"))
            .and_then(Value::as_object_mut)
        {
            if let Some(first) = props.keys().next().cloned() {
                props.shift_remove(&first);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_copy_conforms_and_changes_one_in_every() {
        let doc = synthetic_description(250);
        let changed = with_changed_tools(&doc, 100);
        let diags = mcpdesc_validate::validate_value(&changed);
        assert!(mcpdesc_validate::conforms(&diags), "{diags:?}");
        let differ = |i: usize| doc["tools"][i] != changed["tools"][i];
        let n = (0..250).filter(|&i| differ(i)).count();
        assert_eq!(n, 3); // tools 0, 100 and 200
        assert!(differ(0) && differ(100) && !differ(1));
    }

    #[test]
    fn synthetic_description_conforms() {
        let doc = synthetic_description(25);
        let diags = mcpdesc_validate::validate_value(&doc);
        assert!(mcpdesc_validate::conforms(&diags), "{diags:?}");
        assert_eq!(doc["tools"].as_array().map(Vec::len), Some(25));
    }

    #[test]
    fn operation_ids_in_document_order_with_method_and_path() {
        let spec = json!({"paths": {
            "/a": {"get": {"operationId": "getA"}, "parameters": [], "post": {"operationId": "postA"}},
            "/b": {"delete": {}, "put": {"operationId": "putB"}}
        }});
        assert_eq!(
            operation_ids(&spec),
            [
                ("getA".to_string(), "GET /a".to_string()),
                ("postA".to_string(), "POST /a".to_string()),
                ("putB".to_string(), "PUT /b".to_string()),
            ]
        );
    }
}
