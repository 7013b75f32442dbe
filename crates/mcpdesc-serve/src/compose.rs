//! Several descriptions served as one MCP server (`mcpdesc serve A B …`, issue 21 §2).
//!
//! The descriptions are composed into one description that the server lists from, and
//! each keeps its own backend ([`Router`]): a `tools/call` goes to the backend of the
//! description the tool came from, with that description's own servers, credentials
//! and limits, so a request never reaches another description's hosts and a credential
//! is only ever sent for its own description's schemes.
//!
//! # Served names
//! Every tool is served as `<prefix>_<name>`, normalized by the naming rules
//! (`mcpdesc_names`: `^[a-z][a-z0-9_]*$`, at most 64 characters). The prefix of a
//! description is given by the caller, else its `info.name` (normalized the same way).
//! All names of all descriptions are allocated together, so they are free of collisions
//! (a collision gets a hash suffix of the tool's key, `<member>/<name>`), and the result
//! depends only on the descriptions and prefixes, never on their order. Protocol-scoped
//! variants of one tool share its served name.
//!
//! # The composed description
//! - `protocolVersions`: the union of the descriptions'; a tool of a description that
//!   serves fewer revisions carries that description's set as its own scope.
//! - `tools`: each description's tools in order, renamed; Reference Objects at the
//!   tool's use sites (`inputSchema`, `outputSchema`, `examples`, elicitation
//!   `requestedSchema`) are inlined from that description's components, so no
//!   component names can clash; `security` is dropped (each backend applies its own
//!   description's security).
//! - `tags`: the union by name (the first description's text wins).
//! - Resources, resource templates, prompts, transports and instructions are not
//!   composed (only tools are listed and called through a composite server).

use crate::backend::Backend;
use mcpdesc_core::decl::root_scope;
use mcpdesc_core::{DeclKind, RevisionSet, refs};
use mcpdesc_rest::BoxFuture;
use mcpdesc_rest::call::{CallOutcome, ToolCall};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// Why descriptions cannot be composed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    /// A prefix is not host-safe (`^[a-z][a-z0-9_]*$`) or leaves too little room.
    #[error("prefix `{prefix}`: {why}")]
    Prefix { prefix: String, why: String },
    /// Two descriptions have the same prefix.
    #[error("prefix `{0}` is given to two descriptions")]
    DuplicatePrefix(String),
    /// A Reference Object does not resolve (the description was not validated).
    #[error("description {member}: {why}")]
    Reference { member: usize, why: String },
    /// The names could not be allocated.
    #[error("{0}")]
    Names(String),
}

/// The composed description and, per composed tool, where it came from.
#[derive(Debug, Clone)]
pub struct Composition {
    /// The description the server lists from.
    pub doc: Value,
    /// Per tool of [`Composition::doc`]: (description, position in its `tools`).
    pub routes: Vec<(usize, usize)>,
    /// Per description: its prefix.
    pub prefixes: Vec<String>,
}

/// The tool-level key under which a composed tool keeps its own description's
/// `info.name` (the search facade's `server` field). An `x-` member: never on the wire.
pub(crate) const SERVER_EXTENSION: &str = "x-mcpdesc-server";

/// The default prefix of a description: its `info.name`, normalized by the naming
/// rules (`GitHub v3 REST API` → `git_hub_v3_rest_api`), at most 24 characters.
pub fn default_prefix(doc: &Value) -> String {
    let name = doc
        .pointer("/info/name")
        .and_then(Value::as_str)
        .unwrap_or("api");
    let opts = mcpdesc_names::NameOptions::new(24, "").unwrap_or_default();
    let p = mcpdesc_names::normalize(name, &opts);
    if p.is_empty() { "api".into() } else { p }
}

/// Composes `members` (validated descriptions) with their prefixes (`None`: the
/// [`default_prefix`]).
pub fn compose(members: &[(&Value, Option<&str>)]) -> Result<Composition, ComposeError> {
    let mut prefixes: Vec<String> = Vec::new();
    for (doc, given) in members {
        let p = match given {
            Some(p) => {
                if !mcpdesc_names::is_host_safe(p, 40) {
                    return Err(ComposeError::Prefix {
                        prefix: p.to_string(),
                        why: "a prefix is lower-case ASCII letters, digits and `_`, starts with a letter, and has at most 40 characters".into(),
                    });
                }
                p.to_string()
            }
            None => default_prefix(doc),
        };
        if prefixes.contains(&p) {
            return Err(ComposeError::DuplicatePrefix(p));
        }
        prefixes.push(p);
    }
    // One allocation over every tool of every description.
    let mut requests: Vec<(String, String)> = Vec::new();
    for (m, (doc, _)) in members.iter().enumerate() {
        for t in tools_of(doc) {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            requests.push((format!("{}_{name}", prefixes[m]), format!("{m}/{name}")));
        }
    }
    let names = mcpdesc_names::assign_names(&requests, &mcpdesc_names::NameOptions::default())
        .map_err(|e| ComposeError::Names(e.to_string()))?;
    let union = members.iter().fold(RevisionSet::default(), |acc, (d, _)| {
        acc.union(root_scope(d))
    });
    let mut tools = Vec::new();
    let mut routes = Vec::new();
    let mut tags: Vec<Value> = Vec::new();
    let mut k = 0;
    for (m, (doc, _)) in members.iter().enumerate() {
        let root = root_scope(doc);
        for (i, t) in tools_of(doc).iter().enumerate() {
            let mut t = t.clone();
            inline_use_sites(doc, &mut t)
                .map_err(|why| ComposeError::Reference { member: m, why })?;
            if let Value::Object(o) = &mut t {
                o.insert("name".into(), json!(names[k]));
                if let Some(server) = doc.pointer("/info/name") {
                    o.insert(SERVER_EXTENSION.into(), server.clone());
                }
                o.remove("security");
                if root != union && !o.contains_key("protocolVersions") {
                    o.insert("protocolVersions".into(), json!(root.to_strings()));
                }
            }
            tools.push(t);
            routes.push((m, i));
            k += 1;
        }
        for tag in doc
            .get("tags")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !tags.iter().any(|t| t.get("name") == tag.get("name")) {
                tags.push(tag.clone());
            }
        }
    }
    let first = members.first().map(|(d, _)| *d);
    let mut doc = Map::new();
    doc.insert(
        "mcpdesc".into(),
        first
            .and_then(|d| d.get("mcpdesc"))
            .cloned()
            .unwrap_or(json!("0.8.0")),
    );
    doc.insert(
        "info".into(),
        json!({"name": prefixes.join("+"), "version": "1.0.0"}),
    );
    doc.insert("protocolVersions".into(), json!(union.to_strings()));
    if !tags.is_empty() {
        doc.insert("tags".into(), Value::Array(tags));
    }
    if !tools.is_empty() {
        doc.insert("tools".into(), Value::Array(tools));
    }
    Ok(Composition {
        doc: Value::Object(doc),
        routes,
        prefixes,
    })
}

fn tools_of(doc: &Value) -> &[Value] {
    doc.get(DeclKind::Tool.collection())
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

/// Replaces the Reference Objects at a tool's use sites (§17.3) by their targets.
fn inline_use_sites(doc: &Value, tool: &mut Value) -> Result<(), String> {
    let Value::Object(t) = tool else {
        return Ok(());
    };
    let one = |v: &mut Value, ns: &str| -> Result<(), String> {
        if v.get("$componentRef").is_some() {
            let (target, _) = refs::resolve(doc, v, ns).map_err(|e| e.to_string())?;
            *v = target.clone();
        }
        Ok(())
    };
    for field in ["inputSchema", "outputSchema"] {
        if let Some(v) = t.get_mut(field) {
            one(v, "schemas")?;
        }
    }
    if let Some(Value::Object(examples)) = t.get_mut("examples") {
        for v in examples.values_mut() {
            one(v, "toolExamples")?;
        }
    }
    if let Some(Value::Array(els)) = t.get_mut("elicitations") {
        for e in els {
            if let Some(v) = e.get_mut("requestedSchema") {
                one(v, "schemas")?;
            }
        }
    }
    Ok(())
}

/// Sends each call to the backend of the description its tool came from, with the
/// tool's position in that description.
#[derive(Debug)]
pub struct Router {
    backends: Vec<Arc<dyn Backend>>,
    routes: Vec<(usize, usize)>,
}

impl Router {
    /// `backends[m]` answers for description `m`; `routes` as in [`Composition`].
    pub fn new(backends: Vec<Arc<dyn Backend>>, routes: Vec<(usize, usize)>) -> Router {
        Router { backends, routes }
    }
}

impl Backend for Router {
    fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome> {
        match self
            .routes
            .get(call.index)
            .and_then(|&(m, i)| Some((self.backends.get(m)?, i)))
        {
            Some((b, index)) => b.call(ToolCall { index, ..call }),
            None => {
                let rev = call.revision;
                Box::pin(std::future::ready(CallOutcome::tool_error(
                    rev,
                    format!("tool `{}` has no backend", call.tool_name()),
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::ProtocolRevision;
    use std::sync::Mutex;

    fn tool(name: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object"}})
    }

    fn desc(name: &str, revs: &[&str], tools: Vec<Value>) -> Value {
        json!({"mcpdesc": "0.8.0", "info": {"name": name, "version": "1"},
            "protocolVersions": revs, "tools": tools})
    }

    fn pets() -> Value {
        let mut d = desc(
            "Pet Store",
            &["2025-06-18", "2025-11-25"],
            vec![
                tool("getPet"),
                json!({"name": "list", "inputSchema": {"$componentRef": "#/components/schemas/In"},
                    "examples": {"one": {"$componentRef": "#/components/toolExamples/One"}}}),
            ],
        );
        d["components"] = json!({
            "schemas": {"In": {"type": "object", "properties": {"limit": {"type": "integer"}}}},
            "toolExamples": {"One": {"input": {}, "result": {"content": [{"type": "text", "text": "pets"}]}}}
        });
        d["security"] = json!([{"key": []}]);
        d["securitySchemes"] = json!({"key": {"type": "apiKey", "in": "header", "name": "X-Key"}});
        d
    }

    fn jobs() -> Value {
        desc(
            "jobs",
            &["2025-11-25", "2026-07-28"],
            vec![tool("list"), tool("get_pet")],
        )
    }

    #[test]
    fn names_are_prefixed_host_safe_and_free_of_collisions() {
        let (p, j) = (pets(), jobs());
        let c = compose(&[(&p, None), (&j, None)]).expect("composes");
        assert_eq!(c.prefixes, ["pet_store", "jobs"]);
        let names: Vec<&str> = c.doc["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "pet_store_get_pet",
                "pet_store_list",
                "jobs_list",
                "jobs_get_pet"
            ]
        );
        assert_eq!(c.routes, [(0, 0), (0, 1), (1, 0), (1, 1)]);
        // The same descriptions in the other order: the same names.
        let c2 = compose(&[(&j, None), (&p, None)]).expect("composes");
        let mut n2: Vec<&str> = c2.doc["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        n2.sort_unstable();
        let mut n1 = names.clone();
        n1.sort_unstable();
        assert_eq!(n1, n2);
        // Given prefixes; a name that the prefix makes collide gets a hash suffix.
        let a = desc("a", &["2025-11-25"], vec![tool("x_y")]);
        let b = desc("b", &["2025-11-25"], vec![tool("y")]);
        let c = compose(&[(&a, Some("p")), (&b, Some("p_x"))]).expect("composes");
        let n: Vec<&str> = c.doc["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_ne!(n[0], n[1]);
        assert!(
            n.iter().all(|n| n.starts_with("p_x_y") && n.len() <= 64),
            "{n:?}"
        );
        assert!(matches!(
            compose(&[(&a, Some("p")), (&b, Some("p"))]),
            Err(ComposeError::DuplicatePrefix(_))
        ));
        assert!(matches!(
            compose(&[(&a, Some("Bad-Prefix"))]),
            Err(ComposeError::Prefix { .. })
        ));
    }

    #[test]
    fn the_composition_is_a_valid_description_with_each_scope_kept() {
        let (p, j) = (pets(), jobs());
        let c = compose(&[(&p, None), (&j, None)]).expect("composes");
        let errors: Vec<_> = mcpdesc_validate::validate_value(&c.doc)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{:#}", c.doc);
        assert_eq!(
            c.doc["protocolVersions"],
            json!(["2025-06-18", "2025-11-25", "2026-07-28"])
        );
        let t = &c.doc["tools"];
        assert_eq!(
            t[0]["protocolVersions"],
            json!(["2025-06-18", "2025-11-25"])
        );
        assert_eq!(
            t[2]["protocolVersions"],
            json!(["2025-11-25", "2026-07-28"])
        );
        // Use sites inlined; security left to each description's backend.
        assert_eq!(
            t[1]["inputSchema"]["properties"]["limit"]["type"],
            "integer"
        );
        assert_eq!(
            t[1]["examples"]["one"]["result"]["content"][0]["text"],
            "pets"
        );
        assert!(t[0].get("security").is_none());
        assert!(c.doc.get("components").is_none());
    }

    #[derive(Debug, Default)]
    struct Recording(Mutex<Vec<usize>>, &'static str);

    impl Backend for Recording {
        fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome> {
            if let Ok(mut v) = self.0.lock() {
                v.push(call.index);
            }
            let r = mcpdesc_rest::call::text_result(call.revision, self.1);
            Box::pin(std::future::ready(CallOutcome {
                result: r,
                log: Default::default(),
            }))
        }
    }

    #[test]
    fn a_call_reaches_only_its_own_descriptions_backend() {
        let (p, j) = (pets(), jobs());
        let c = compose(&[(&p, None), (&j, None)]).expect("composes");
        let a = Arc::new(Recording(Mutex::default(), "pets"));
        let b = Arc::new(Recording(Mutex::default(), "jobs"));
        let router = Router::new(vec![a.clone(), b.clone()], c.routes.clone());
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let args = Map::new();
        let call = |index: usize| {
            let tool = c.doc["tools"][index].clone();
            let out = rt.block_on(router.call(ToolCall {
                tool: &tool,
                index,
                revision: ProtocolRevision::V2025_11_25,
                arguments: &args,
                forwarded_headers: &[],
                meta: None,
            }));
            out.result["content"][0]["text"].clone()
        };
        assert_eq!(call(3), "jobs");
        assert_eq!(call(1), "pets");
        assert_eq!(call(2), "jobs");
        assert_eq!(*a.0.lock().expect("a"), [1]);
        assert_eq!(*b.0.lock().expect("b"), [1, 0]);
        // An index no tool has is a tool error, sent nowhere.
        let tool = json!({"name": "nope"});
        let out = rt.block_on(router.call(ToolCall {
            tool: &tool,
            index: 99,
            revision: ProtocolRevision::V2025_11_25,
            arguments: &args,
            forwarded_headers: &[],
            meta: None,
        }));
        assert_eq!(out.result["isError"], true);
        assert_eq!(
            a.0.lock().expect("a").len() + b.0.lock().expect("b").len(),
            3
        );
    }
}
