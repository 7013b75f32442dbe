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
//! Prompts are served the same way, `<prefix>_<name>`, allocated together over every
//! description's prompts (a separate namespace from the tools, as in MCP).
//!
//! # Resources keep their URIs
//! A resource URI is globally meaningful (a client may have it from elsewhere, and a
//! resource's contents name it), so resources and resource templates are served under
//! their own `uri` / `uriTemplate`, unprefixed. Two descriptions that could both answer a
//! `resources/read` of one URI are therefore refused ([`ComposeError::ResourceOverlap`],
//! naming both), in the spirit of §4.13 ("report a conflict rather than guess"): the
//! same `uri`; a `uri` of one that is an expansion of the other's `uriTemplate`
//! (RFC 6570 matching, `mcpdesc_validate::payload::uri_template`); or two templates
//! whose literal beginnings and endings are compatible (one literal prefix is a prefix
//! of the other's and one literal suffix a suffix of the other's: a conservative test,
//! it may refuse two templates no URI matches both of). Within one description the
//! same URI may repeat in disjoint protocol scopes, as §10 allows.
//!
//! # The composed description
//! - `protocolVersions`: the union of the descriptions'; a declaration of a
//!   description that serves fewer revisions carries that description's set as its own
//!   scope.
//! - `tools`, `resources`, `resourceTemplates`, `prompts`: each description's
//!   declarations in order (tools and prompts renamed); Reference Objects at their use
//!   sites (`inputSchema`, `outputSchema`, `examples`, elicitation `requestedSchema`)
//!   are inlined from that description's components, so no component names can clash.
//! - `security`: each declaration carries its own description's effective requirement
//!   over Streamable HTTP (spec §7.5: its own `security`, else its description's
//!   `streamable-http` transport's, else its root `security`; none when none is
//!   declared; `server::auth::http_transport_security`), with every scheme name
//!   `<prefix>.<name>`. When that description's `streamable-http` transports disagree,
//!   an inheriting declaration gets no `security` but `x-mcpdesc-security-unresolved`
//!   saying why, and the gate refuses it (fail closed). The composed description has
//!   no `transports` and is served only: its requirements are read by the
//!   `--auth-issuer` gate of the HTTP transport alone (stdio has no gate), so folding
//!   the HTTP transport's requirement in is §7.5's "an operation that selects that
//!   transport". Root `securitySchemes` holds each description's schemes under those
//!   names (a prefix has no `.`, so two descriptions' schemes never clash) and the root
//!   has no `security`. The composed
//!   description thus says what each tool needs, as its own description does: the
//!   `--auth-issuer` gate reads per-tool scopes from it, and `tool-scopes` globs match
//!   the served (prefixed) names. Each backend still applies its own description's
//!   schemes and credentials upstream.
//!   [`Composition::routes`] says where each came from, so `tools/call`,
//!   `resources/read` and `prompts/get` reach the owning description's backend
//!   ([`Router`]).
//! - `instructions`: each description's own, in order, under a Markdown heading naming
//!   its `info.name` (`## Pet Store`), separated by a blank line.
//! - `tags`: the union by name (the first description's text wins).
//! - Transports and completions are not composed (`completion/complete` is not served,
//!   for one description or several).

use crate::backend::{Backend, DeclRead, ReadAnswer};
use crate::server::auth::{UNRESOLVED_SECURITY, http_transport_security};
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
    /// Two descriptions declare resources one URI could reach (see the module docs):
    /// `first` (a `uri` or `uriTemplate`) of description `members.0` and `second` of
    /// description `members.1` (positions; the CLI names the files).
    #[error("description {} declares resource `{first}` and description {} declares `{second}`: one resources/read could reach both", .members.0 + 1, .members.1 + 1)]
    ResourceOverlap {
        members: (usize, usize),
        first: String,
        second: String,
    },
}

/// The composed description and, per composed declaration, where it came from.
#[derive(Debug, Clone)]
pub struct Composition {
    /// The description the server lists from.
    pub doc: Value,
    /// Per declaration of [`Composition::doc`]: which description, and where in it.
    pub routes: Routes,
    /// Per description: its prefix.
    pub prefixes: Vec<String>,
}

/// Per composed declaration, by kind: (description, position in its collection of
/// that description), in the order of the composed collection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routes {
    pub tools: Vec<(usize, usize)>,
    pub resources: Vec<(usize, usize)>,
    pub resource_templates: Vec<(usize, usize)>,
    pub prompts: Vec<(usize, usize)>,
}

impl Routes {
    /// The routes of one kind (none for kinds that are not composed).
    pub fn of(&self, kind: DeclKind) -> &[(usize, usize)] {
        match kind {
            DeclKind::Tool => &self.tools,
            DeclKind::Resource => &self.resources,
            DeclKind::ResourceTemplate => &self.resource_templates,
            DeclKind::Prompt => &self.prompts,
            _ => &[],
        }
    }

    fn of_mut(&mut self, kind: DeclKind) -> Option<&mut Vec<(usize, usize)>> {
        match kind {
            DeclKind::Tool => Some(&mut self.tools),
            DeclKind::Resource => Some(&mut self.resources),
            DeclKind::ResourceTemplate => Some(&mut self.resource_templates),
            DeclKind::Prompt => Some(&mut self.prompts),
            _ => None,
        }
    }
}

/// The composed kinds (the four primitives), in the order of the composed document.
const COMPOSED: [DeclKind; 4] = DeclKind::PRIMITIVES;

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
    check_resources(members)?;
    // One allocation over every tool of every description, and one over every prompt.
    let mut renamed: Vec<Vec<String>> = Vec::new();
    for kind in [DeclKind::Tool, DeclKind::Prompt] {
        let mut requests: Vec<(String, String)> = Vec::new();
        for (m, (doc, _)) in members.iter().enumerate() {
            for t in decls_of(doc, kind) {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                requests.push((format!("{}_{name}", prefixes[m]), format!("{m}/{name}")));
            }
        }
        renamed.push(
            mcpdesc_names::assign_names(&requests, &mcpdesc_names::NameOptions::default())
                .map_err(|e| ComposeError::Names(e.to_string()))?,
        );
    }
    let mut schemes = Map::new();
    for (m, (doc, _)) in members.iter().enumerate() {
        for (name, scheme) in doc
            .get("securitySchemes")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            schemes.insert(scheme_name(&prefixes[m], name), scheme.clone());
        }
    }
    let union = members.iter().fold(RevisionSet::default(), |acc, (d, _)| {
        acc.union(root_scope(d))
    });
    let mut collections: [Vec<Value>; 4] = Default::default();
    let mut routes = Routes::default();
    let mut next_name = [0usize; 2];
    let mut tags: Vec<Value> = Vec::new();
    let mut instructions: Vec<String> = Vec::new();
    for (m, (doc, _)) in members.iter().enumerate() {
        let root = root_scope(doc);
        let inherited = http_transport_security(doc);
        for (k, kind) in COMPOSED.into_iter().enumerate() {
            let names = match kind {
                DeclKind::Tool => Some(0),
                DeclKind::Prompt => Some(1),
                _ => None,
            };
            for (i, d) in decls_of(doc, kind).iter().enumerate() {
                let mut d = d.clone();
                inline_use_sites(doc, kind, &mut d)
                    .map_err(|why| ComposeError::Reference { member: m, why })?;
                if let Value::Object(o) = &mut d {
                    if let Some(n) = names {
                        o.insert("name".into(), json!(renamed[n][next_name[n]]));
                        next_name[n] += 1;
                    }
                    if kind == DeclKind::Tool
                        && let Some(server) = doc.pointer("/info/name")
                    {
                        o.insert(SERVER_EXTENSION.into(), server.clone());
                    }
                    fold_security(o, &inherited, &prefixes[m]);
                    if root != union && !o.contains_key("protocolVersions") {
                        o.insert("protocolVersions".into(), json!(root.to_strings()));
                    }
                }
                collections[k].push(d);
                if let Some(r) = routes.of_mut(kind) {
                    r.push((m, i));
                }
            }
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
        if let Some(text) = doc.get("instructions").and_then(Value::as_str) {
            let name = doc
                .pointer("/info/name")
                .and_then(Value::as_str)
                .unwrap_or(&prefixes[m]);
            instructions.push(format!("## {name}\n\n{text}"));
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
    if !instructions.is_empty() {
        doc.insert("instructions".into(), json!(instructions.join("\n\n")));
    }
    if !tags.is_empty() {
        doc.insert("tags".into(), Value::Array(tags));
    }
    if !schemes.is_empty() {
        doc.insert("securitySchemes".into(), Value::Object(schemes));
    }
    for (kind, list) in COMPOSED.into_iter().zip(collections) {
        if !list.is_empty() {
            doc.insert(kind.collection().into(), Value::Array(list));
        }
    }
    Ok(Composition {
        doc: Value::Object(doc),
        routes,
        prefixes,
    })
}

/// Folds a declaration's effective requirement over Streamable HTTP into it (spec §7.5:
/// its own `security`, else `inherited`, its description's
/// [`http_transport_security`]), with each scheme name composed ([`scheme_name`]); the
/// same for every composed kind (tools, resources, resource templates, prompts). When
/// `inherited` could not be settled, a declaration without its own gets no `security`
/// but [`UNRESOLVED_SECURITY`] saying why (the gate refuses it).
fn fold_security(
    decl: &mut Map<String, Value>,
    inherited: &Result<Option<&Value>, String>,
    prefix: &str,
) {
    let security = match decl.remove("security") {
        Some(own) => Some(own),
        None => match inherited {
            Ok(s) => s.cloned(),
            Err(why) => {
                decl.insert(UNRESOLVED_SECURITY.into(), json!(why));
                None
            }
        },
    };
    if let Some(s) = security {
        decl.insert("security".into(), renamed_security(&s, prefix));
    }
}

/// The composed name of security scheme `name` of the description with `prefix`.
pub fn scheme_name(prefix: &str, name: &str) -> String {
    format!("{prefix}.{name}")
}

/// A Security Requirement Array with each scheme name composed ([`scheme_name`]); an
/// entry that is not an object is kept as it is (the gate refuses what it cannot read).
fn renamed_security(security: &Value, prefix: &str) -> Value {
    let Value::Array(alts) = security else {
        return security.clone();
    };
    let alts = alts.iter().map(|alt| match alt {
        Value::Object(req) => Value::Object(
            req.iter()
                .map(|(name, scopes)| (scheme_name(prefix, name), scopes.clone()))
                .collect(),
        ),
        other => other.clone(),
    });
    Value::Array(alts.collect())
}

/// Refuses descriptions that could both answer one `resources/read`
/// ([`ComposeError::ResourceOverlap`]; the rule is in the module docs).
fn check_resources(members: &[(&Value, Option<&str>)]) -> Result<(), ComposeError> {
    use mcpdesc_validate::payload::uri_template::{self, Part, UriTemplate};
    // Per description: its distinct URIs and its distinct (parsable) templates.
    let mut uris: Vec<Vec<&str>> = Vec::new();
    let mut templates: Vec<Vec<(&str, UriTemplate)>> = Vec::new();
    for (doc, _) in members {
        let mut u: Vec<&str> = decls_of(doc, DeclKind::Resource)
            .iter()
            .filter_map(|r| r.get("uri").and_then(Value::as_str))
            .collect();
        u.sort_unstable();
        u.dedup();
        let mut t: Vec<(&str, UriTemplate)> = Vec::new();
        for r in decls_of(doc, DeclKind::ResourceTemplate) {
            if let Some(s) = r.get("uriTemplate").and_then(Value::as_str)
                && !t.iter().any(|(x, _)| *x == s)
                && let Ok(parsed) = uri_template::parse(s)
            {
                t.push((s, parsed));
            }
        }
        uris.push(u);
        templates.push(t);
    }
    let literal = |t: &UriTemplate, last: bool| -> String {
        let part = if last {
            t.parts.last()
        } else {
            t.parts.first()
        };
        match part {
            Some(Part::Literal(l)) => l.clone(),
            _ => String::new(),
        }
    };
    let overlap = |a: &UriTemplate, b: &UriTemplate| {
        let (pa, pb) = (literal(a, false), literal(b, false));
        let (sa, sb) = (literal(a, true), literal(b, true));
        (pa.starts_with(&pb) || pb.starts_with(&pa)) && (sa.ends_with(&sb) || sb.ends_with(&sa))
    };
    for a in 0..members.len() {
        for b in a + 1..members.len() {
            let refuse = |first: &str, second: &str| ComposeError::ResourceOverlap {
                members: (a, b),
                first: first.to_string(),
                second: second.to_string(),
            };
            if let Some(u) = uris[a].iter().find(|u| uris[b].binary_search(u).is_ok()) {
                return Err(refuse(u, u));
            }
            for u in &uris[a] {
                if let Some((t, _)) = templates[b].iter().find(|(_, t)| t.matches(u)) {
                    return Err(refuse(u, t));
                }
            }
            for (t, parsed) in &templates[a] {
                if let Some(u) = uris[b].iter().find(|u| parsed.matches(u)) {
                    return Err(refuse(t, u));
                }
                if let Some((t2, _)) = templates[b].iter().find(|(_, p)| overlap(parsed, p)) {
                    return Err(refuse(t, t2));
                }
            }
        }
    }
    Ok(())
}

fn decls_of(doc: &Value, kind: DeclKind) -> &[Value] {
    doc.get(kind.collection())
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

/// Replaces the Reference Objects at a declaration's use sites (§17.3) by their targets.
fn inline_use_sites(doc: &Value, kind: DeclKind, decl: &mut Value) -> Result<(), String> {
    let Value::Object(t) = decl else {
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
    let examples = match kind {
        DeclKind::Tool => "toolExamples",
        DeclKind::Resource => "resourceExamples",
        DeclKind::ResourceTemplate => "resourceTemplateExamples",
        _ => "promptExamples",
    };
    if let Some(Value::Object(map)) = t.get_mut("examples") {
        for v in map.values_mut() {
            one(v, examples)?;
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

/// Sends each call (and each `resources/read` and `prompts/get`) to the backend of the
/// description its declaration came from, with the declaration's position in that
/// description.
#[derive(Debug)]
pub struct Router {
    backends: Vec<Arc<dyn Backend>>,
    routes: Routes,
}

impl Router {
    /// `backends[m]` answers for description `m`; `routes` as in [`Composition`].
    pub fn new(backends: Vec<Arc<dyn Backend>>, routes: Routes) -> Router {
        Router { backends, routes }
    }
}

impl Backend for Router {
    fn read(&self, read: DeclRead<'_>) -> ReadAnswer {
        match self
            .routes
            .of(read.kind)
            .get(read.index)
            .and_then(|&(m, i)| Some((self.backends.get(m)?, i)))
        {
            Some((b, index)) => b.read(DeclRead { index, ..read }),
            None => ReadAnswer::NotAvailable,
        }
    }

    fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome> {
        match self
            .routes
            .tools
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

    /// [`jobs`] behind an OAuth scheme `key` (the scheme name [`pets`] uses, meaning
    /// something else there) with `scopes` (name → description), its root requiring
    /// `jobs:read`.
    fn jobs_with_oauth(scopes: Value) -> Value {
        let mut j = jobs();
        j["securitySchemes"] = json!({"key": {"type": "oauth2", "flows": {"clientCredentials":
            {"tokenUrl": "https://as.example/token", "scopes": scopes}}}});
        j["security"] = json!([{"key": ["jobs:read"]}]);
        j
    }

    /// The names of a composition's declarations of `kind`, in order.
    fn names_of(c: &Composition, kind: DeclKind) -> Vec<&str> {
        c.doc[kind.collection()]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["name"].as_str())
            .collect()
    }

    /// The composition of `members`, which must be a valid description.
    fn composed(members: &[(&Value, Option<&str>)]) -> Composition {
        let c = compose(members).expect("composes");
        let errors: Vec<_> = mcpdesc_validate::validate_value(&c.doc)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{:#}", c.doc);
        c
    }

    #[test]
    fn names_are_prefixed_host_safe_and_free_of_collisions() {
        let (p, j) = (pets(), jobs());
        let c = compose(&[(&p, None), (&j, None)]).expect("composes");
        assert_eq!(c.prefixes, ["pet_store", "jobs"]);
        let names = names_of(&c, DeclKind::Tool);
        assert_eq!(
            names,
            [
                "pet_store_get_pet",
                "pet_store_list",
                "jobs_list",
                "jobs_get_pet"
            ]
        );
        assert_eq!(c.routes.tools, [(0, 0), (0, 1), (1, 0), (1, 1)]);
        // The same descriptions in the other order: the same names.
        let c2 = compose(&[(&j, None), (&p, None)]).expect("composes");
        let mut n2 = names_of(&c2, DeclKind::Tool);
        n2.sort_unstable();
        let mut n1 = names.clone();
        n1.sort_unstable();
        assert_eq!(n1, n2);
        // Given prefixes; a name that the prefix makes collide gets a hash suffix.
        let a = desc("a", &["2025-11-25"], vec![tool("x_y")]);
        let b = desc("b", &["2025-11-25"], vec![tool("y")]);
        let c = compose(&[(&a, Some("p")), (&b, Some("p_x"))]).expect("composes");
        let n = names_of(&c, DeclKind::Tool);
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
        let c = composed(&[(&p, None), (&j, None)]);
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
        assert!(c.doc.get("components").is_none());
        // Each tool keeps its own description's security, its schemes renamed.
        assert_eq!(t[0]["security"], json!([{"pet_store.key": []}]));
        assert_eq!(t[1]["security"], json!([{"pet_store.key": []}]));
        assert!(t[2].get("security").is_none());
        assert!(c.doc.get("security").is_none());
        assert_eq!(
            c.doc["securitySchemes"],
            json!({"pet_store.key": {"type": "apiKey", "in": "header", "name": "X-Key"}})
        );
    }

    #[test]
    fn each_tool_keeps_its_own_descriptions_security_under_its_own_schemes() {
        let p = pets();
        // The same scheme name `key` in both, meaning different things.
        let mut j = jobs_with_oauth(json!({"jobs:read": "r", "jobs:write": "w"}));
        j["tools"][1]["security"] = json!([{"key": ["jobs:write"]}, {}]);
        j["tools"].as_array_mut().expect("tools").push(json!(
            {"name": "open", "inputSchema": {"type": "object"}, "security": []}));
        let c = composed(&[(&p, None), (&j, None)]);
        let t = &c.doc["tools"];
        assert_eq!(t[2]["name"], "jobs_list");
        assert_eq!(t[2]["security"], json!([{"jobs.key": ["jobs:read"]}]));
        assert_eq!(t[3]["security"], json!([{"jobs.key": ["jobs:write"]}, {}]));
        // `security: []` (cleared) stays cleared, not inherited.
        assert_eq!(t[4]["name"], "jobs_open");
        assert_eq!(t[4]["security"], json!([]));
        assert_eq!(t[0]["security"], json!([{"pet_store.key": []}]));
        assert_eq!(c.doc["securitySchemes"]["jobs.key"]["type"], "oauth2");
        assert_eq!(c.doc["securitySchemes"]["pet_store.key"]["type"], "apiKey");
        assert!(c.doc["securitySchemes"].get("key").is_none());
    }

    /// Spec §7.5 over Streamable HTTP, written out by hand: a declaration without
    /// `security` of its own gets its description's streamable-http transport's (not
    /// the stdio one's, not root's); one with its own keeps it; transports that disagree
    /// leave an inheriting declaration unresolved, and the gate refuses it.
    #[test]
    fn the_streamable_http_transports_security_is_folded_into_inheriting_declarations() {
        let p = pets();
        let mut j = jobs_with_oauth(json!({"jobs:read": "r", "jobs:http": "h"}));
        j["transports"] = json!([
            {"type": "stdio", "command": "jobs", "security": []},
            {"type": "streamable-http", "url": "https://jobs.example/mcp",
                "security": [{"key": ["jobs:http"]}]}
        ]);
        j["tools"][1]["security"] = json!([{"key": ["jobs:read"]}]);
        j["prompts"] = json!([{"name": "brief"}]);
        let c = composed(&[(&p, None), (&j, None)]);
        assert!(c.doc.get("transports").is_none() && c.doc.get("security").is_none());
        let t = &c.doc["tools"];
        assert_eq!(t[2]["name"], "jobs_list");
        assert_eq!(t[2]["security"], json!([{"jobs.key": ["jobs:http"]}]));
        assert_eq!(t[3]["security"], json!([{"jobs.key": ["jobs:read"]}]));
        assert_eq!(
            c.doc["prompts"][0]["security"],
            json!([{"jobs.key": ["jobs:http"]}])
        );
        // The other description (no transports) keeps its root's.
        assert_eq!(t[0]["security"], json!([{"pet_store.key": []}]));
        let s = |v: &str| std::collections::BTreeSet::from([v.to_string()]);
        assert_eq!(
            crate::server::auth::needed_scopes(&c.doc, &t[2]),
            Ok(vec![s("jobs:http")])
        );

        // `security: []` on the transport clears root for it.
        j["transports"][1]["security"] = json!([]);
        let c = compose(&[(&p, None), (&j, None)]).expect("composes");
        assert_eq!(c.doc["tools"][2]["security"], json!([]));
        assert_eq!(
            crate::server::auth::needed_scopes(&c.doc, &c.doc["tools"][2]),
            Ok(Vec::new())
        );

        // Two streamable-http transports that disagree: unresolved, refused; a
        // declaration with its own requirement is unaffected.
        j["transports"]
            .as_array_mut()
            .expect("transports")
            .push(json!({"type": "streamable-http", "url": "https://jobs.example/other"}));
        let c = composed(&[(&p, None), (&j, None)]);
        let t = &c.doc["tools"];
        assert!(t[2].get("security").is_none());
        assert!(t[2][UNRESOLVED_SECURITY].is_string(), "{:#}", t[2]);
        assert!(crate::server::auth::needed_scopes(&c.doc, &t[2]).is_err());
        assert_eq!(t[3]["security"], json!([{"jobs.key": ["jobs:read"]}]));
    }

    #[test]
    fn prompts_are_prefixed_resources_keep_their_uris_and_instructions_are_headed() {
        let mut a = desc("Alpha", &["2025-11-25"], vec![]);
        a["instructions"] = json!("Use alpha.");
        a["prompts"] = json!([{"name": "brief"}, {"name": "shared"}]);
        a["resources"] = json!([{"uri": "a://x", "name": "x"}]);
        let mut b = desc("beta", &["2025-11-25"], vec![]);
        b["prompts"] = json!([{"name": "shared"}]);
        b["resourceTemplates"] = json!([{"uriTemplate": "b://{id}", "name": "t"}]);
        let c = compose(&[(&a, None), (&b, None)]).expect("composes");
        let names = |c: &Composition| -> Vec<String> {
            let mut n: Vec<String> = names_of(c, DeclKind::Prompt)
                .into_iter()
                .map(String::from)
                .collect();
            n.sort_unstable();
            n
        };
        assert_eq!(names(&c), ["alpha_brief", "alpha_shared", "beta_shared"]);
        assert_eq!(c.doc["resources"][0]["uri"], "a://x");
        assert_eq!(c.doc["resourceTemplates"][0]["uriTemplate"], "b://{id}");
        assert_eq!(c.routes.prompts, [(0, 0), (0, 1), (1, 0)]);
        assert_eq!(c.routes.resource_templates, [(1, 0)]);
        // Only descriptions with instructions contribute, each under its info.name.
        assert_eq!(c.doc["instructions"], "## Alpha\n\nUse alpha.");
        // Order-independent names.
        let c2 = compose(&[(&b, None), (&a, None)]).expect("composes");
        assert_eq!(names(&c2), names(&c));
        // Templates whose literal ends are compatible overlap; disjoint ones do not.
        let mut d = desc("d", &["2025-11-25"], vec![]);
        d["resourceTemplates"] = json!([{"uriTemplate": "b://{+path}", "name": "p"}]);
        assert!(matches!(
            compose(&[(&b, None), (&d, None)]),
            Err(ComposeError::ResourceOverlap {
                members: (0, 1),
                ..
            })
        ));
        d["resourceTemplates"] = json!([{"uriTemplate": "c://{id}", "name": "p"}]);
        assert!(compose(&[(&b, None), (&d, None)]).is_ok());
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
                token_exchange: None,
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
            token_exchange: None,
        }));
        assert_eq!(out.result["isError"], true);
        assert_eq!(
            a.0.lock().expect("a").len() + b.0.lock().expect("b").len(),
            3
        );
    }
}
