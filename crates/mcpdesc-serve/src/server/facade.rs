//! `--discovery search`: the served catalog behind three tools ([`mcpdesc_catalog::facade`]).
//!
//! `tools/list` is the facade's three tools plus the `--pin`ned tools as themselves, the
//! same on every connection. `search_tools` ranks the served tools with the catalog's
//! index ([`mcpdesc_catalog::Index`], built once at start over every tool any served
//! revision lists, under the names they are served by); `describe_tools` answers each
//! tool exactly as `tools/list` would list it at the negotiated revision (after host
//! fitting); `call_tool` hands the named tool and its arguments to the same call path as
//! a direct `tools/call`, so argument validation, the backend and the upstream request
//! are those of a direct call.

use super::BuildError;
use super::args::{ArgsValidator, describe};
use super::catalog::{Catalog, View};
use mcpdesc_catalog::facade::{self, About, Found};
use mcpdesc_catalog::search::{Entry, Filter, Index, Semantic, ToolText};
use mcpdesc_core::{Feature, ProtocolRevision};
use mcpdesc_rest::call::{complete, error_result, text_block};
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap, HashSet};

/// What the search facade knows at start.
#[derive(Debug)]
pub struct Facade {
    index: Index,
    /// Per indexed tool: what a search result shows besides name and score.
    shown: Vec<Shown>,
    decls: [Value; 3],
    validators: [ArgsValidator; 3],
    /// `--pin` names (served names), listed as themselves.
    pins: Vec<String>,
    pinned: HashSet<String>,
}

#[derive(Debug)]
struct Shown {
    server: String,
    title: Option<String>,
    summary: String,
    method: Option<String>,
    path: Option<String>,
    toolset: Option<String>,
}

/// What a facade `tools/call` turned into.
pub(crate) enum FacadeCall {
    /// Answered here (search, describe, or a facade argument error).
    Answered(Value, String),
    /// `call_tool`: call this served tool with these arguments.
    Forward {
        name: String,
        arguments: Map<String, Value>,
    },
    /// Not a facade tool (a pinned tool, or unknown).
    NotFacade,
}

impl Facade {
    /// Indexes every tool the catalog serves at any revision (newest revision's
    /// declaration first; names as served). `pins` must each be a served tool.
    pub fn build(
        catalog: &Catalog,
        pins: &[String],
        semantic: Option<Box<dyn Semantic>>,
    ) -> Result<Facade, BuildError> {
        let server = catalog
            .server_info
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut seen = HashSet::new();
        let mut entries = Vec::new();
        let mut shown = Vec::new();
        let mut toolsets = BTreeSet::new();
        let mut servers: Vec<String> = Vec::new();
        for view in catalog.views().iter().rev() {
            for (i, e) in view.tools().iter().enumerate() {
                let name = view.served_name(i);
                if !seen.insert(name.to_string()) {
                    continue;
                }
                let decl = e.decl();
                let sets: Vec<String> = mcpdesc_catalog::toolsets_of(decl)
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                toolsets.extend(sets.iter().cloned());
                let prov = decl.get("x-mcpdesc-openapi");
                let title = decl
                    .get("title")
                    .or_else(|| decl.get("annotations").and_then(|a| a.get("title")))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                // A composed tool names its own description (several APIs in one server).
                let own = decl
                    .get(crate::compose::SERVER_EXTENSION)
                    .and_then(Value::as_str)
                    .map_or_else(|| server.clone(), str::to_string);
                if !servers.contains(&own) {
                    servers.push(own.clone());
                }
                shown.push(Shown {
                    server: own,
                    summary: facade::first_sentence(
                        decl.get("description")
                            .and_then(Value::as_str)
                            .or(title.as_deref())
                            .unwrap_or(""),
                    ),
                    title,
                    method: prov
                        .and_then(|p| p.get("method"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    path: prov
                        .and_then(|p| p.get("path"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    toolset: sets.first().cloned(),
                });
                entries.push(Entry {
                    text: ToolText::of_tool(name, catalog.components(), decl),
                    read_only: mcpdesc_catalog::is_read_only(decl),
                    toolsets: sets,
                });
            }
        }
        for p in pins {
            if !seen.contains(p) {
                return Err(BuildError::PinUnknown(p.clone()));
            }
            if facade::NAMES.contains(&p.as_str()) {
                return Err(BuildError::PinReserved(p.clone()));
            }
        }
        if servers.is_empty() {
            servers.push(server);
        }
        servers.sort();
        let about = About {
            servers,
            toolsets: toolsets.into_iter().collect(),
            tools: entries.len(),
        };
        let decls = facade::declarations(&about);
        let compile =
            |d: &Value| ArgsValidator::compile(&d["inputSchema"]).map_err(BuildError::Facade);
        let validators = [
            compile(&decls[0])?,
            compile(&decls[1])?,
            compile(&decls[2])?,
        ];
        Ok(Facade {
            index: {
                // Each tool's own description: with several, the search's API prior
                // keeps a request's API above a same-domain neighbour.
                let mut index = Index::build(entries, semantic);
                let apis: Vec<&str> = shown.iter().map(|s| s.server.as_str()).collect();
                index.set_apis(&apis);
                index
            },
            shown,
            decls,
            validators,
            pins: pins.to_vec(),
            pinned: pins.iter().cloned().collect(),
        })
    }

    /// Whether `name` is listed as itself.
    pub fn is_pinned(&self, name: &str) -> bool {
        self.pinned.contains(name)
    }

    /// Tools indexed.
    pub fn tool_count(&self) -> usize {
        self.index.len()
    }

    /// The `tools/list` result at `view`'s revision: the facade's tools, then the pinned
    /// tools as `tools/list` lists them.
    pub fn tools_list(&self, catalog: &Catalog, view: &View) -> Map<String, Value> {
        let mut tools: Vec<Value> = self
            .decls
            .iter()
            .map(|d| facade::at_revision(d, view.revision))
            .collect();
        for p in &self.pins {
            if let Some(i) = view.position(p)
                && let Some(v) = catalog.listed_tool(view, i)
            {
                tools.push(v);
            }
        }
        let mut m = Map::new();
        m.insert("tools".into(), Value::Array(tools));
        m
    }

    /// A facade `tools/call` of `name` at `view`. `search_tools` and `describe_tools`
    /// show only the tools `allowed` names (with `--auth-issuer`: those the caller's
    /// scopes permit); to them another tool does not exist.
    pub(crate) fn call(
        &self,
        catalog: &Catalog,
        view: &View,
        name: &str,
        arguments: &Map<String, Value>,
        allowed: &dyn Fn(&str) -> bool,
    ) -> FacadeCall {
        let Some(k) = facade::NAMES.iter().position(|n| *n == name) else {
            return FacadeCall::NotFacade;
        };
        let rev = view.revision;
        let violations = self.validators[k].check(arguments);
        if !violations.is_empty() {
            let msg = describe(name, &violations);
            return FacadeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
        }
        match name {
            facade::SEARCH_TOOLS => self.search(view, arguments, allowed),
            facade::DESCRIBE_TOOLS => self.describe(catalog, view, arguments, allowed),
            _ => {
                let target = arguments.get("name").and_then(Value::as_str).unwrap_or("");
                let args = match arguments.get("arguments") {
                    Some(Value::Object(a)) => a.clone(),
                    _ => Map::new(),
                };
                if facade::NAMES.contains(&target) && view.position(target).is_none() {
                    let msg = format!(
                        "call_tool: `{target}` is one of the facade's own tools; call it directly"
                    );
                    return FacadeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
                }
                if view.position(target).is_none() {
                    let msg = self.unknown(target, rev, allowed);
                    return FacadeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
                }
                FacadeCall::Forward {
                    name: target.to_string(),
                    arguments: args,
                }
            }
        }
    }

    /// The served tools of `view` that match `query`, best first, all of them (code mode's
    /// `search_api` ranks with this same search).
    pub(crate) fn ranked(&self, view: &View, query: &str) -> Vec<&str> {
        let hits = self
            .index
            .search(query, self.index.len(), &Filter::default());
        hits.into_iter()
            .map(|h| self.index.name(h.tool))
            .filter(|n| view.position(n).is_some())
            .collect()
    }

    fn unknown(&self, name: &str, rev: ProtocolRevision, allowed: &dyn Fn(&str) -> bool) -> String {
        let mut close = self.index.closest(name, self.index.len());
        close.retain(|n| allowed(n));
        close.truncate(5);
        let shown: String = name.chars().take(80).collect();
        if close.is_empty() {
            format!("Unknown tool `{shown}` (MCP {rev}); use search_tools to find one")
        } else {
            format!(
                "Unknown tool `{shown}` (MCP {rev}); the closest are: {}",
                close.join(", ")
            )
        }
    }

    fn search(
        &self,
        view: &View,
        arguments: &Map<String, Value>,
        allowed: &dyn Fn(&str) -> bool,
    ) -> FacadeCall {
        let rev = view.revision;
        let query = arguments.get("query").and_then(Value::as_str).unwrap_or("");
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(facade::DEFAULT_LIMIT)
            .min(facade::MAX_LIMIT) as usize;
        if query.trim().is_empty() {
            let msg = "search_tools: `query` is blank; describe the task in your own words";
            return FacadeCall::Answered(error_result(rev, msg), format!("error: {msg}"));
        }
        let toolsets: Option<Vec<String>> = arguments.get("toolsets").and_then(|v| {
            v.as_array().map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
        });
        let filter = Filter {
            toolsets: toolsets.as_deref(),
            read_only: arguments.get("readOnly").and_then(Value::as_bool),
        };
        // Every hit, then those the negotiated revision serves and the caller may call
        // (before `limit`: a caller still gets `limit` permitted hits).
        let hits = self.index.search(query, self.index.len(), &filter);
        let found: Vec<Value> = hits
            .into_iter()
            .filter(|h| view.position(self.index.name(h.tool)).is_some())
            .filter(|h| allowed(self.index.name(h.tool)))
            .take(limit)
            .map(|h| {
                let s = &self.shown[h.tool];
                Found {
                    name: self.index.name(h.tool).to_string(),
                    server: s.server.clone(),
                    title: s.title.clone(),
                    summary: s.summary.clone(),
                    method: s.method.clone(),
                    path: s.path.clone(),
                    toolset: s.toolset.clone(),
                    score: h.score,
                }
                .to_value()
            })
            .collect();
        let n = found.len();
        FacadeCall::Answered(
            structured(json!({"tools": found}), rev),
            format!("{n} tools found"),
        )
    }

    fn describe(
        &self,
        catalog: &Catalog,
        view: &View,
        arguments: &Map<String, Value>,
        allowed: &dyn Fn(&str) -> bool,
    ) -> FacadeCall {
        let rev = view.revision;
        let mut tools = Vec::new();
        let mut unknown = Vec::new();
        let mut listed: HashMap<&str, ()> = HashMap::new();
        for name in arguments
            .get("names")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if listed.insert(name, ()).is_some() {
                continue;
            }
            match view
                .position(name)
                .filter(|_| allowed(name))
                .and_then(|i| catalog.listed_tool(view, i))
            {
                Some(t) => tools.push(t),
                None => unknown.push(self.unknown(name, rev, allowed)),
            }
        }
        if !unknown.is_empty() {
            let msg = format!("describe_tools: {}", unknown.join("; "));
            return FacadeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
        }
        let n = tools.len();
        FacadeCall::Answered(
            structured(json!({"tools": tools}), rev),
            format!("{n} tools described"),
        )
    }
}

/// A successful facade result at `rev`: `structuredContent` where the revision has it,
/// and the same value as JSON text (what a client without structured content reads).
fn structured(value: Value, rev: ProtocolRevision) -> Value {
    let mut m = Map::new();
    m.insert(
        "content".into(),
        json!([text_block(
            serde_json::to_string(&value).unwrap_or_default()
        )]),
    );
    if rev.has(Feature::StructuredContent) {
        m.insert("structuredContent".into(), value);
    }
    complete(rev, m)
}
