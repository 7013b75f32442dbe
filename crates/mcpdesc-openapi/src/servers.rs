//! Servers an operation is sent to, as provenance records them
//! ([`mcpdesc_core::provenance::Server`]).
//!
//! A 3.x Server Object without variables is its URL ([`Server::Url`]); one with
//! variables keeps its template, description and variables (default, enum,
//! description: [`Server::Template`]), so a gateway can offer the choice the API offers
//! (regions, versions) and [`Server::default_url`] gives what a plain URL would have
//! been. Swagger 2.0 has no variables: `schemes` × `host` + `basePath`.

use crate::diag::Diags;
use crate::site::OpSite;
use crate::spec::{Spec, SpecVersion};
use indexmap::IndexMap;
use mcpdesc_core::provenance::{Server, ServerTemplate, ServerVariable};
use serde_json::Value;

/// The root's servers (3.x `servers`, 2.0 `schemes` × `host` + `basePath`).
pub(crate) fn root(spec: &Spec, diags: &mut Diags) -> Vec<Server> {
    let root = &spec.docs[0].value;
    if spec.version == SpecVersion::Swagger2 {
        return swagger(root);
    }
    match root.get("servers").and_then(Value::as_array) {
        Some(s) => from_objects(s, 0, "/servers", diags),
        None => Vec::new(),
    }
}

/// An operation's own servers (3.x operation, else path item `servers`); None when
/// neither declares any (the root's apply).
pub(crate) fn of_operation(
    spec: &Spec,
    site: &OpSite<'_>,
    diags: &mut Diags,
) -> Option<Vec<Server>> {
    if spec.version == SpecVersion::Swagger2 {
        return None;
    }
    let item_ptr = site
        .op_ptr
        .rsplit_once('/')
        .map_or(String::new(), |(p, _)| p.to_string());
    for (owner, ptr) in [(site.op, &site.op_ptr), (site.item, &item_ptr)] {
        if let Some(Value::Array(s)) = owner.get("servers") {
            let at = mcpdesc_core::pointer::push(ptr, "servers");
            let v = from_objects(s, site.item_doc, &at, diags);
            if !v.is_empty() {
                return Some(v);
            }
        }
    }
    None
}

/// 3.x Server Objects, in order, each once; objects without a string `url` are skipped.
fn from_objects(servers: &[Value], doc: usize, ptr: &str, diags: &mut Diags) -> Vec<Server> {
    let mut out: Vec<Server> = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        let Some(url) = s.get("url").and_then(Value::as_str) else {
            continue;
        };
        let server = match s.get("variables") {
            Some(Value::Object(vars)) if !vars.is_empty() => {
                let at = mcpdesc_core::pointer::push(
                    &mcpdesc_core::pointer::push(ptr, i.to_string()),
                    "variables",
                );
                template(url, s, vars, doc, &at, diags)
            }
            _ => Server::Url(url.to_string()),
        };
        if !out.contains(&server) {
            out.push(server);
        }
    }
    out
}

/// A Server Object with variables. A variable needs a default (OpenAPI requires one);
/// without it the first enum value serves, and a variable with neither is left out
/// with a warning (its `{name}` stays in the URL, as a plain URL would keep it).
fn template(
    url: &str,
    server: &Value,
    vars: &serde_json::Map<String, Value>,
    doc: usize,
    ptr: &str,
    diags: &mut Diags,
) -> Server {
    let mut variables = IndexMap::new();
    for (name, v) in vars {
        let enumeration: Option<Vec<String>> = v
            .get("enum")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(scalar).collect::<Vec<_>>())
            .filter(|a| !a.is_empty());
        let default = v
            .get("default")
            .filter(|d| !d.is_null())
            .map(scalar)
            .or_else(|| enumeration.as_ref().and_then(|e| e.first().cloned()));
        let Some(default) = default else {
            diags.warn(
                doc,
                "openapi-server-variable-dropped",
                format!(
                    "server variable `{name}` has neither `default` nor `enum`; it is not offered"
                ),
                mcpdesc_core::pointer::push(ptr, name),
            );
            continue;
        };
        variables.insert(
            name.clone(),
            ServerVariable {
                default,
                enumeration,
                description: v
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
        );
    }
    if variables.is_empty() {
        return Server::Url(url.to_string());
    }
    Server::Template(ServerTemplate {
        url: url.to_string(),
        description: server
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        variables,
    })
}

/// A variable value as text (real specs write numbers: `default: 443`).
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// 2.0: `schemes` × `host` + `basePath`.
fn swagger(root: &Value) -> Vec<Server> {
    let host = root.get("host").and_then(Value::as_str);
    let base = root.get("basePath").and_then(Value::as_str).unwrap_or("");
    let schemes: Vec<&str> = root
        .get("schemes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let urls: Vec<String> = match host {
        Some(h) => {
            let schemes = if schemes.is_empty() {
                vec!["https"]
            } else {
                schemes
            };
            schemes.iter().map(|s| format!("{s}://{h}{base}")).collect()
        }
        None if !base.is_empty() => vec![base.to_string()],
        None => Vec::new(),
    };
    urls.into_iter().map(Server::Url).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variables_make_templates_and_plain_servers_stay_urls() {
        let mut d = Diags::default();
        let servers = json!([
            {"url": "https://api.example.com/v1"},
            {"url": "https://{region}.example.com:{port}/{base}", "description": "regional",
             "variables": {
                "region": {"default": "eu", "enum": ["eu", "us"], "description": "where"},
                "port": {"default": 443},
                "base": {"enum": ["v2", "v1"]},
                "broken": {}
             }},
            {"url": "https://api.example.com/v1"},
            {"url": "https://{x}.example.com", "variables": {}}
        ]);
        let out = from_objects(
            servers.as_array().map_or(&[][..], Vec::as_slice),
            0,
            "/servers",
            &mut d,
        );
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0], Server::Url("https://api.example.com/v1".into()));
        let Server::Template(t) = &out[1] else {
            panic!("{:?}", out[1])
        };
        assert_eq!(t.description.as_deref(), Some("regional"));
        assert_eq!(
            t.variables["region"].enumeration,
            Some(vec!["eu".to_string(), "us".to_string()])
        );
        assert_eq!(t.variables["region"].description.as_deref(), Some("where"));
        assert_eq!(t.variables["port"].default, "443");
        assert_eq!(t.variables["base"].default, "v2");
        assert!(!t.variables.contains_key("broken"));
        assert_eq!(out[1].default_url(), "https://eu.example.com:443/v2");
        assert_eq!(out[2], Server::Url("https://{x}.example.com".into()));
        assert_eq!(d.items.len(), 1);
        assert_eq!(d.items[0].1.code, "openapi-server-variable-dropped");
        assert_eq!(d.items[0].1.pointer, "/servers/1/variables/broken");
    }

    #[test]
    fn swagger_hosts() {
        assert_eq!(
            swagger(&json!({"host": "h.io", "basePath": "/v2", "schemes": ["https", "http"]})),
            [
                Server::Url("https://h.io/v2".into()),
                Server::Url("http://h.io/v2".into())
            ]
        );
        assert_eq!(
            swagger(&json!({"basePath": "/v2"})),
            [Server::Url("/v2".into())]
        );
        assert!(swagger(&json!({})).is_empty());
    }
}
