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
    /// Served name → its position in the index.
    positions: HashMap<String, usize>,
    decls: [Value; 3],
    validators: [ArgsValidator; 3],
    /// The served descriptions' names (each tool's `server`), sorted; with two or more,
    /// `search_tools` takes a `servers` filter and ranks them.
    servers: Vec<String>,
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
    /// Producers of its required identifiers in its own description, best first.
    requires: Vec<mcpdesc_catalog::deps::Producer>,
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
        // Per indexed tool: its served name and declaration (read again for the links).
        let mut served: Vec<(&str, &Value)> = Vec::new();
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
                    method: None,
                    path: None,
                    toolset: sets.first().cloned(),
                    requires: Vec::new(),
                });
                served.push((name, decl));
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
            servers: servers.clone(),
            toolsets: toolsets.into_iter().collect(),
            tools: entries.len(),
        };
        // The provenance (typed) and the dependency links are read on the index build's
        // second thread, after the embedding: no extra wall time at start.
        let components = catalog.components();
        let groups: Vec<&str> = shown.iter().map(|s| s.server.as_str()).collect();
        let (mut index, read) = Index::build_with(entries, semantic, || {
            read_provenance(&served, &groups, components)
        });
        // Each tool's own description: with several, the search's API prior keeps a
        // request's API above a same-domain neighbour.
        index.set_apis(&groups);
        for (s, (method, path, requires)) in shown.iter_mut().zip(read) {
            s.method = method;
            s.path = path;
            s.requires = requires;
        }
        let decls = facade::declarations(&about);
        let compile =
            |d: &Value| ArgsValidator::compile(&d["inputSchema"]).map_err(BuildError::Facade);
        let validators = [
            compile(&decls[0])?,
            compile(&decls[1])?,
            compile(&decls[2])?,
        ];
        Ok(Facade {
            positions: served
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (n.to_string(), i))
                .collect(),
            index,
            shown,
            decls,
            validators,
            servers,
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

    /// The producers of tool `i`'s identifiers that `view` serves and the caller may call.
    fn requires(
        &self,
        i: usize,
        view: &View,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Vec<mcpdesc_catalog::deps::Producer> {
        self.shown[i]
            .requires
            .iter()
            .filter(|p| view.position(&p.name).is_some() && allowed(&p.name))
            .cloned()
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
        let strings = |key: &str| -> Option<Vec<String>> {
            arguments.get(key).and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
        };
        let toolsets = strings("toolsets");
        let servers = strings("servers");
        // The input schema enumerates the names up to a bound; past it, checked here.
        if let Some(unknown) = servers.iter().flatten().find(|s| !self.servers.contains(s)) {
            let shown: String = unknown.chars().take(80).collect();
            let msg = format!(
                "search_tools: unknown server `{shown}`; the servers are: {}",
                self.servers.join(", ")
            );
            return FacadeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
        }
        let filter = Filter {
            toolsets: toolsets.as_deref(),
            read_only: arguments.get("readOnly").and_then(Value::as_bool),
            apis: servers.as_deref(),
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
                    requires: self.requires(h.tool, view, allowed),
                    score: h.score,
                }
                .to_value()
            })
            .collect();
        let n = found.len();
        let mut result = json!({"tools": found});
        if self.servers.len() >= 2 {
            // Which descriptions the request is about, whatever `servers` narrowed to.
            let whole = Filter {
                apis: None,
                ..filter
            };
            result["servers"] = facade::ranked_servers(&self.index.api_ranking(query, &whole));
        }
        FacadeCall::Answered(structured(result, rev), format!("{n} tools found"))
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
        let mut requires = Map::new();
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
                Some(t) => {
                    if let Some(&k) = self.positions.get(name) {
                        let r = self.requires(k, view, allowed);
                        if !r.is_empty() {
                            let r: Vec<Value> = r
                                .iter()
                                .map(|p| json!({"name": p.name, "gives": p.gives}))
                                .collect();
                            requires.insert(name.to_string(), Value::Array(r));
                        }
                    }
                    tools.push(t)
                }
                None => unknown.push(self.unknown(name, rev, allowed)),
            }
        }
        if !unknown.is_empty() {
            let msg = format!("describe_tools: {}", unknown.join("; "));
            return FacadeCall::Answered(error_result(rev, &msg), format!("error: {msg}"));
        }
        let n = tools.len();
        let mut result = json!({"tools": tools});
        if !requires.is_empty() {
            result["requires"] = Value::Object(requires);
        }
        FacadeCall::Answered(structured(result, rev), format!("{n} tools described"))
    }
}

/// Per tool (`decls`: served name and declaration; `groups`: its description): its
/// method and path, read through the typed provenance, and the producers of its required
/// identifiers among the tools of the same description (never across two).
#[allow(clippy::type_complexity)]
fn read_provenance(
    decls: &[(&str, &Value)],
    groups: &[&str],
    components: &Value,
) -> Vec<(
    Option<String>,
    Option<String>,
    Vec<mcpdesc_catalog::deps::Producer>,
)> {
    use mcpdesc_catalog::deps::{Shape, link};
    use mcpdesc_core::provenance::ToolProvenance;
    let mut out = Vec::with_capacity(decls.len());
    let mut shapes = Vec::with_capacity(decls.len());
    for (name, decl) in decls {
        let prov = ToolProvenance::of_tool(decl, "").and_then(Result::ok);
        shapes.push(Shape::of_tool_read(name, components, decl, prov.as_ref()));
        out.push((
            prov.as_ref().map(|p| p.method.as_str().to_string()),
            prov.map(|p| p.path),
            Vec::new(),
        ));
    }
    let mut names: Vec<&str> = groups.to_vec();
    names.sort_unstable();
    names.dedup();
    if names.len() == 1 {
        for (o, requires) in out.iter_mut().zip(link(&shapes)) {
            o.2 = requires;
        }
        return out;
    }
    for own in names {
        let members: Vec<usize> = (0..decls.len()).filter(|&i| groups[i] == own).collect();
        let group: Vec<Shape> = members.iter().map(|&i| shapes[i].clone()).collect();
        for (i, requires) in members.into_iter().zip(link(&group)) {
            out[i].2 = requires;
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::RevisionSet;
    use std::sync::Arc;

    /// A tool with required path arguments `needs` and a response schema.
    fn tool(name: &str, path: &str, needs: &[&str], output: Value) -> Value {
        let mut args = Map::new();
        let mut props = Map::new();
        for n in needs {
            args.insert(n.to_string(), json!({"in": "path", "name": n}));
            props.insert(n.to_string(), json!({"type": "string"}));
        }
        json!({"name": name, "description": format!("The {name} operation."),
            "inputSchema": {"type": "object", "properties": props, "required": needs},
            "outputSchema": output,
            "x-mcpdesc-openapi": {"method": "GET", "path": path, "arguments": args}})
    }

    /// A small GitHub-like description: the user's repositories give `owner`
    /// (`owner.login`) and `repo` (a repository's `name`), the pull request list gives
    /// `pull_number` (a pull's `number`), and the reviews need all three.
    fn catalog() -> Catalog {
        let tools = vec![
            tool(
                "list_my_repos",
                "/user/repos",
                &[],
                json!({"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "owner": {"type": "object", "properties": {"login": {"type": "string"}}}}}}),
            ),
            tool(
                "list_pulls",
                "/repos/{owner}/{repo}/pulls",
                &["owner", "repo"],
                json!({"type": "array", "items": {"type": "object", "properties": {
                    "number": {"type": "integer"}, "title": {"type": "string"}}}}),
            ),
            tool(
                "get_pull_reviews",
                "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
                &["owner", "repo", "pull_number"],
                json!({"type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "integer"}, "state": {"type": "string"}}}}),
            ),
        ];
        let doc = json!({"mcpdesc": "0.8.0", "info": {"name": "hub", "version": "1"},
            "protocolVersions": ["2025-11-25"], "tools": tools});
        let revisions = RevisionSet::from_json(&doc["protocolVersions"]);
        Catalog::new(Arc::new(doc), revisions, 100)
    }

    fn answer(call: FacadeCall) -> Value {
        match call {
            FacadeCall::Answered(v, _) => v["structuredContent"].clone(),
            _ => Value::Null,
        }
    }

    /// Expectations written by hand from `mcpdesc_catalog::deps`' rules: the reviews
    /// require the repositories (owner, repo: two identifiers, first) and the pull list
    /// (pull_number); a producer the caller may not call is left out.
    #[test]
    fn search_and_describe_list_the_producers_of_required_identifiers() {
        let catalog = catalog();
        let facade = Facade::build(&catalog, &[], None).expect("facade");
        let view = catalog.view(ProtocolRevision::V2025_11_25).expect("served");
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        let everyone = |_: &str| true;
        let found = answer(facade.call(
            &catalog,
            view,
            facade::SEARCH_TOOLS,
            &args(json!({"query": "get_pull_reviews", "limit": 1})),
            &everyone,
        ));
        let hit = &found["tools"][0];
        assert_eq!(hit["name"], "get_pull_reviews");
        assert_eq!(hit["method"], "GET");
        assert_eq!(
            hit["path"],
            "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"
        );
        assert_eq!(
            hit["requires"],
            json!([{"name": "list_my_repos", "gives": ["owner", "repo"]},
                {"name": "list_pulls", "gives": ["pull_number"]}])
        );
        let described = answer(facade.call(
            &catalog,
            view,
            facade::DESCRIBE_TOOLS,
            &args(json!({"names": ["list_pulls", "list_my_repos"]})),
            &everyone,
        ));
        assert_eq!(described["tools"][0]["name"], "list_pulls");
        assert!(described["tools"][0].get("requires").is_none());
        assert_eq!(
            described["requires"],
            json!({"list_pulls": [{"name": "list_my_repos", "gives": ["owner", "repo"]}]})
        );
        // A caller who may not call list_my_repos does not see it as a producer.
        let no_repos = |n: &str| n != "list_my_repos";
        let found = answer(facade.call(
            &catalog,
            view,
            facade::SEARCH_TOOLS,
            &args(json!({"query": "get_pull_reviews", "limit": 1})),
            &no_repos,
        ));
        assert_eq!(
            found["tools"][0]["requires"],
            json!([{"name": "list_pulls", "gives": ["pull_number"]}])
        );
        // A tool that needs nothing has no `requires`.
        let found = answer(facade.call(
            &catalog,
            view,
            facade::SEARCH_TOOLS,
            &args(json!({"query": "list_my_repos", "limit": 1})),
            &everyone,
        ));
        assert_eq!(found["tools"][0]["name"], "list_my_repos");
        assert!(found["tools"][0].get("requires").is_none());
    }

    /// More descriptions than the input schema enumerates (41, one tool each, composed
    /// as `prepare_many` composes them): `servers` still filters, and an unknown name is
    /// refused here, naming it and the known ones (by hand).
    #[test]
    fn servers_past_the_listing_bound_are_checked_by_name() {
        let tools: Vec<Value> = (0..41)
            .map(|i| {
                let mut t = tool(&format!("report_{i}"), &format!("/r{i}"), &[], json!({}));
                t[crate::compose::SERVER_EXTENSION] = json!(format!("api{i:02}"));
                t
            })
            .collect();
        let doc = json!({"mcpdesc": "0.8.0", "info": {"name": "many", "version": "1"},
            "protocolVersions": ["2025-11-25"], "tools": tools});
        let revisions = RevisionSet::from_json(&doc["protocolVersions"]);
        let catalog = Catalog::new(Arc::new(doc), revisions, 100);
        let facade = Facade::build(&catalog, &[], None).expect("facade");
        let view = catalog.view(ProtocolRevision::V2025_11_25).expect("served");
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        let everyone = |_: &str| true;
        let servers = &facade.decls[0]["inputSchema"]["properties"]["servers"];
        assert!(servers["items"].get("enum").is_none(), "{servers}");
        let found = answer(facade.call(
            &catalog,
            view,
            facade::SEARCH_TOOLS,
            &args(json!({"query": "report operation", "limit": 50, "servers": ["api07"]})),
            &everyone,
        ));
        assert_eq!(found["tools"], json!([found["tools"][0]]));
        assert_eq!(found["tools"][0]["name"], "report_7");
        match facade.call(
            &catalog,
            view,
            facade::SEARCH_TOOLS,
            &args(json!({"query": "report", "servers": ["api07", "nowhere"]})),
            &everyone,
        ) {
            FacadeCall::Answered(v, _) => {
                assert_eq!(v["isError"], true, "{v}");
                let text = v["content"][0]["text"].as_str().unwrap_or_default();
                assert!(
                    text.contains("`nowhere`")
                        && text.contains("api00, api01")
                        && text.contains("api40"),
                    "{text}"
                );
            }
            _ => panic!("answered here"),
        }
    }
}
