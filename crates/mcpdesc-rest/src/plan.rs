//! Per-tool plans, read once from the description at start: the typed provenance, the
//! path template cut into pieces, each argument's serializer and the schema facts it
//! needs, the base URL, the security alternatives and the output schema. A call then
//! only walks its plan.
//!
//! Plans are kept by the tool declaration's position in the description's `tools`, so
//! each protocol-scoped variant of a tool (§9.5) has its own (a wrapped output before
//! 2026-07-28, say), and the caller's own (tool, revision) index (the server's catalog)
//! is the only one: a [`ToolCall`](crate::call::ToolCall) names the declaration by
//! position.

use super::auth::{self, Alternative};
use super::output::OutputCheck;
use super::{OptionError, Problem, RestOptions};
use crate::origin::Origin;

use mcpdesc_core::provenance::{
    BodyShape, Encoding, Location, Method, RootProvenance, Server, Style, ToolProvenance,
};
use mcpdesc_core::{Diagnostic, pointer, refs};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Every tool's plan, by the declaration's position in `tools`.
#[derive(Debug, Default)]
pub struct Plans {
    /// `None`: no provenance (or no name).
    by_index: Vec<Option<ToolPlan>>,
    warnings: Vec<Diagnostic>,
    /// Origins of every http(s) server the description declares.
    pub(crate) server_origins: BTreeSet<Origin>,
    /// Origins of OAuth token endpoints (allowed for token requests only).
    pub(crate) token_origins: BTreeSet<Origin>,
}

/// What the gateway needs to call one tool variant.
#[derive(Debug)]
pub struct ToolPlan {
    pub method: Method,
    /// The path template in pieces, `/`-separated segments kept apart so a value that
    /// makes a whole segment `.` or `..` can be caught.
    pub segments: Vec<Vec<Piece>>,
    /// Non-body arguments in provenance order.
    pub params: Vec<ArgPlan>,
    pub body: Option<BodyPlan>,
    /// The base URL (no trailing `/`), or why the tool has none.
    pub base: Result<String, String>,
    /// `Accept`: the media type of the recorded response, if any.
    pub accept: Option<String>,
    /// `x-mcpdesc-openapi.response.resultWrapper`.
    pub result_wrapper: Option<String>,
    /// Effective security alternatives (`None`: no requirement declared).
    pub security: Option<Vec<Alternative>>,
    pub output: Option<OutputCheck>,
    /// Set when the provenance cannot be served (every call is a tool error saying so).
    pub unusable: Option<String>,
}

/// One piece of a path segment.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Literal template text, already percent-encoded where the template needed it.
    Literal(String),
    /// `{name}`: index into [`ToolPlan::params`], or `None` when no argument declares it.
    Var { name: String, arg: Option<usize> },
}

/// One argument (tool input property) and how it is sent.
#[derive(Debug, Clone)]
pub struct ArgPlan {
    /// The tool input property name.
    pub property: String,
    pub location: Location,
    /// The name on the wire (parameter name, body member name).
    pub name: String,
    pub style: Style,
    pub explode: bool,
    /// `style`, `explode` or `allowReserved` was recorded (for body members this picks
    /// style-based over content-based serialization, OpenAPI 3.1.1 §4.8.15).
    pub explicit_style: bool,
    pub allow_reserved: bool,
    /// A parameter described by `content`: its media type.
    pub content_type: Option<String>,
    /// Swagger 2.0 `collectionFormat`.
    pub collection_format: Option<String>,
    /// What the input schema says about the value.
    pub facts: SchemaFacts,
}

/// The JSON Schema facts serialization needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemaFacts {
    /// The first non-null `type`, if declared.
    pub ty: Option<String>,
    /// `contentEncoding` (`base64`, `base64url`) of a string.
    pub content_encoding: Option<String>,
    /// `contentMediaType`.
    pub content_media_type: Option<String>,
    /// For arrays: the items' facts.
    pub items: Option<Box<SchemaFacts>>,
}

/// The request body.
#[derive(Debug, Clone)]
pub struct BodyPlan {
    pub content_type: String,
    pub kind: BodyKind,
    pub shape: BodyShape,
    pub required: bool,
    /// Body arguments: members (`as: properties`) or the one whole-body argument.
    pub members: Vec<ArgPlan>,
    pub encoding: indexmap::IndexMap<String, Encoding>,
}

pub use mcpdesc_core::media::{BodyKind, essence, is_json};

fn warn(code: &str, ptr: &str, msg: String) -> Diagnostic {
    Diagnostic::warning(code, msg).at(ptr)
}

impl Plans {
    /// Reads the plans of every tool of `doc`. Errors: malformed provenance
    /// (`provenance-invalid`, located), a bad `--base-url` or credential.
    pub fn new(doc: &Arc<Value>, opts: &RestOptions) -> Result<Plans, Vec<Problem>> {
        let mut plans = Plans::default();
        let mut errors: Vec<Problem> = Vec::new();
        let root_prov = match RootProvenance::of_document(doc) {
            Some(Ok(r)) => Some(r),
            Some(Err(d)) => {
                errors.push(Problem::Description(d));
                None
            }
            None => None,
        };
        let schemes = auth::Schemes::read(doc);
        for o in schemes.token_origins() {
            plans.token_origins.insert(o);
        }
        errors.extend(
            auth::check_credentials(&schemes, &opts.credentials)
                .into_iter()
                .map(Problem::Description),
        );
        let base_override = match &opts.base_url {
            Some(b) => match normalize_base(b) {
                Ok(b) => Some(b),
                Err(why) => {
                    errors.push(Problem::Option(OptionError::BaseUrl {
                        url: b.clone(),
                        why,
                    }));
                    None
                }
            },
            None => None,
        };
        let root_servers: Vec<Server> = root_prov
            .as_ref()
            .map(|r| r.servers.clone())
            .unwrap_or_default();
        for s in &root_servers {
            plans.note_server(s, "/x-mcpdesc-openapi/servers");
        }
        let root_security = doc.get("security");
        let tools = doc.get("tools").and_then(Value::as_array);
        let tools = tools.map_or(&[][..], Vec::as_slice);
        plans.by_index.resize_with(tools.len(), || None);
        for (i, tool) in tools.iter().enumerate() {
            let ptr = format!("/tools/{i}");
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let prov = match ToolProvenance::of_tool(tool, &ptr) {
                None => continue,
                Some(Err(d)) => {
                    errors.push(Problem::Description(d));
                    continue;
                }
                Some(Ok(p)) => p,
            };
            for s in &prov.servers {
                plans.note_server(s, &ptr);
            }
            let security = tool
                .get("security")
                .or(root_security)
                .map(|s| schemes.alternatives(s));
            let plan = ToolPlan::build(
                doc,
                tool,
                &ptr,
                prov,
                &root_servers,
                base_override.as_deref(),
                security,
            );
            if let Some(why) = &plan.unusable {
                plans.warnings.push(warn(
                    "serve-tool-unusable",
                    &pointer::push(&ptr, mcpdesc_core::provenance::EXTENSION),
                    format!("tool `{name}` cannot be called through the gateway: {why}"),
                ));
            } else if let Err(why) = &plan.base {
                plans.warnings.push(warn(
                    "serve-tool-no-server",
                    &pointer::push(&ptr, mcpdesc_core::provenance::EXTENSION),
                    format!("tool `{name}`: {why}"),
                ));
            }
            plans.by_index[i] = Some(plan);
        }
        for unused in opts.credentials.keys().filter(|k| !schemes.contains(k)) {
            plans.warnings.push(warn(
                "serve-credential-unused",
                "/securitySchemes",
                format!("a credential is configured for `{unused}`, which is not a security scheme of the description"),
            ));
        }
        if errors.is_empty() {
            Ok(plans)
        } else {
            Err(errors)
        }
    }

    fn note_server(&mut self, s: &Server, ptr: &str) {
        let url = s.default_url();
        match Origin::of_url(&url) {
            Some(o) => {
                self.server_origins.insert(o);
            }
            None if url.contains("://") => self.warnings.push(warn(
                "serve-server-refused",
                ptr,
                format!("server `{url}` is not an http(s) URL; it is never used"),
            )),
            None => {}
        }
    }

    /// The plan of the tool declared at `tools[index]`.
    pub fn get(&self, index: usize) -> Option<&ToolPlan> {
        self.by_index.get(index)?.as_ref()
    }

    /// Non-fatal findings.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
}

/// A base URL: absolute http(s), no query or fragment, no trailing `/`.
pub fn normalize_base(url: &str) -> Result<String, String> {
    if Origin::of_url(url).is_none() {
        return Err("not an absolute http(s) URL".into());
    }
    if url.contains('?') || url.contains('#') {
        return Err("a base URL cannot have a query or fragment".into());
    }
    if url.contains('{') || url.contains('}') {
        return Err("the URL has an unexpanded server variable".into());
    }
    if url.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err("the URL contains spaces or control characters".into());
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// The first usable base URL of `servers` (variables from their defaults).
fn choose_server(servers: &[Server]) -> Result<String, String> {
    if servers.is_empty() {
        return Err(
            "the description records no server for it, and no base URL is configured".into(),
        );
    }
    let mut why = Vec::new();
    for s in servers {
        if let Server::Template(t) = s {
            if let Some((k, v)) = t.variables.iter().find(|(_, v)| {
                v.enumeration
                    .as_ref()
                    .is_some_and(|e| !e.contains(&v.default))
            }) {
                why.push(format!(
                    "`{}`: the default `{}` of variable `{k}` is not in its enum",
                    t.url, v.default
                ));
                continue;
            }
        }
        let url = s.default_url();
        match normalize_base(&url) {
            Ok(b) => return Ok(b),
            Err(e) => why.push(format!("`{url}`: {e}")),
        }
    }
    Err(format!(
        "no usable server ({}), and no base URL is configured",
        why.join("; ")
    ))
}

impl ToolPlan {
    #[allow(clippy::too_many_arguments)]
    fn build(
        doc: &Arc<Value>,
        tool: &Value,
        ptr: &str,
        prov: ToolProvenance,
        root_servers: &[Server],
        base_override: Option<&str>,
        security: Option<Vec<Alternative>>,
    ) -> ToolPlan {
        let input = tool
            .get("inputSchema")
            .and_then(|s| refs::resolve(doc, s, "schemas").ok())
            .map(|(s, _)| s);
        let props = input
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        let mut unusable = None;
        let mut params = Vec::new();
        let mut members = Vec::new();
        for (property, a) in &prov.arguments {
            let facts = props
                .and_then(|p| p.get(property))
                .map(|s| SchemaFacts::of(s, input.unwrap_or(&Value::Null), 0))
                .unwrap_or_default();
            let arg = ArgPlan {
                property: property.clone(),
                location: a.location,
                name: a.name.clone().unwrap_or_else(|| property.clone()),
                style: a.style(),
                explode: a.explode(),
                explicit_style: a.style.is_some()
                    || a.explode.is_some()
                    || a.allow_reserved.is_some(),
                allow_reserved: a.allow_reserved == Some(true),
                content_type: a.content_type.clone(),
                collection_format: a.collection_format.clone(),
                facts,
            };
            if a.location == Location::Header
                && ["accept", "content-type", "authorization"]
                    .contains(&arg.name.to_ascii_lowercase().as_str())
            {
                // OpenAPI: such header parameters SHALL be ignored.
                continue;
            }
            if let Some(why) = check_arg(&arg) {
                unusable.get_or_insert(format!("argument `{property}`: {why}"));
            }
            if a.location == Location::Body {
                members.push(arg);
            } else {
                params.push(arg);
            }
        }
        let body = match prov.request_body {
            Some(rb) => {
                let kind = BodyKind::of(&rb.content_type);
                let mut members = members;
                for m in &mut members {
                    if let Some(e) = rb.encoding.get(&m.name) {
                        if e.style.is_some() || e.explode.is_some() || e.allow_reserved.is_some() {
                            m.style = e.style.unwrap_or(Style::Form);
                            m.explode = e.explode.unwrap_or(m.style.default_explode());
                            m.allow_reserved = e.allow_reserved == Some(true);
                            m.explicit_style = true;
                        }
                    }
                }
                if rb.shape == BodyShape::Body && members.len() > 1 {
                    unusable.get_or_insert(
                        "`requestBody.as: body` with more than one `in: body` argument".into(),
                    );
                }
                Some(BodyPlan {
                    content_type: rb.content_type,
                    kind,
                    shape: rb.shape,
                    required: rb.required == Some(true),
                    members,
                    encoding: rb.encoding,
                })
            }
            None if !members.is_empty() => {
                unusable.get_or_insert(
                    "arguments go to the body but the provenance records no `requestBody`".into(),
                );
                None
            }
            None => None,
        };
        // Media types the gateway writes into header fields: the body's `Content-Type`,
        // each multipart part's `Content-Type`, `Accept`.
        let body_types = body.iter().flat_map(|b| {
            std::iter::once(("the request body's media type".to_string(), &b.content_type)).chain(
                b.encoding.iter().filter_map(|(member, e)| {
                    let what = format!("the media type of body member `{member}`");
                    e.content_type.as_ref().map(|ct| (what, ct))
                }),
            )
        });
        let response_type = prov
            .response
            .as_ref()
            .and_then(|r| r.content_type.as_ref())
            .map(|ct| ("the response's media type".to_string(), ct));
        if let Some(why) = body_types
            .chain(response_type)
            .find_map(|(what, ct)| media_type_problem(&what, ct))
        {
            unusable.get_or_insert(why);
        }
        let segments = match parse_path(&prov.path, &params) {
            Ok(s) => s,
            Err(why) => {
                unusable.get_or_insert(why);
                Vec::new()
            }
        };
        let base = match base_override {
            Some(b) => Ok(b.to_string()),
            None if !prov.servers.is_empty() => choose_server(&prov.servers),
            None => choose_server(root_servers),
        };
        // The schema is located now and read (and compiled) on the tool's first call:
        // copying every output schema at start cost the GitHub description a third of
        // its start-up.
        let output = tool.get("outputSchema").and_then(|s| {
            refs::resolve(doc, s, "schemas").ok().map(|(_, component)| {
                let at = component.unwrap_or_else(|| pointer::push(ptr, "outputSchema"));
                OutputCheck::new(Arc::clone(doc), at)
            })
        });
        let response = prov.response.as_ref();
        ToolPlan {
            method: prov.method,
            segments,
            params,
            body,
            base,
            accept: response.and_then(|r| r.content_type.clone()),
            result_wrapper: response.and_then(|r| r.result_wrapper.clone()),
            security,
            output,
            unusable,
        }
    }
}

/// A style used where OpenAPI does not define it, or a name that cannot be sent.
fn check_arg(a: &ArgPlan) -> Option<String> {
    let ok = match a.location {
        Location::Path => matches!(a.style, Style::Simple | Style::Label | Style::Matrix),
        Location::Query => matches!(
            a.style,
            Style::Form | Style::SpaceDelimited | Style::PipeDelimited | Style::DeepObject
        ),
        Location::Header => a.style == Style::Simple,
        Location::Cookie => a.style == Style::Form,
        Location::Body => true,
    };
    if !ok && a.content_type.is_none() && a.collection_format.is_none() {
        return Some(format!(
            "style `{}` is not defined for {} parameters",
            a.style, a.location
        ));
    }
    if matches!(a.location, Location::Header | Location::Cookie) && !is_token(&a.name) {
        return Some(format!(
            "`{}` is not a valid {} name (RFC 9110 token)",
            a.name, a.location
        ));
    }
    if a.location == Location::Header && super::wire::is_hop_by_hop(&a.name) {
        return Some(format!(
            "header `{}` is one the gateway sets itself (connection, framing or `Host`, RFC 9110 §7.6.1); an argument cannot set it",
            a.name
        ));
    }
    if let Some(cf) = &a.collection_format {
        if crate::serialize::CollectionFormat::parse(cf).is_none() {
            return Some(format!("unknown collectionFormat `{cf}`"));
        }
    }
    None
}

pub use mcpdesc_core::http::is_token;

/// What keeps a media type from being sent as a header field value (RFC 9110 §5.5): a
/// CR or LF in it would add header lines to the request or to a multipart part.
fn media_type_problem(what: &str, media_type: &str) -> Option<String> {
    if media_type.trim().is_empty() {
        return Some(format!("{what} is empty"));
    }
    mcpdesc_core::http::check_field_value(media_type)
        .err()
        .map(|e| {
            format!(
                "{what} `{}` cannot be sent: it {e}",
                media_type.escape_debug()
            )
        })
}

/// The segment's text when it is literal text only and a dot-segment.
fn literal_dot_segment(segment: &[Piece]) -> Option<String> {
    let mut text = String::new();
    for piece in segment {
        match piece {
            Piece::Literal(l) => text.push_str(l),
            Piece::Var { .. } => return None,
        }
    }
    super::serialize::is_dot_segment(&text).then_some(text)
}

/// Cuts a Paths Object key into segments of literal and `{var}` pieces. Literal text is
/// percent-encoded where it is not already a valid path character (`pchar` / `/`).
pub fn parse_path(path: &str, params: &[ArgPlan]) -> Result<Vec<Vec<Piece>>, String> {
    if !path.starts_with('/') {
        return Err(format!("path `{path}` does not start with `/`"));
    }
    let mut segments = Vec::new();
    for seg in path[1..].split('/') {
        let mut pieces = Vec::new();
        let mut rest = seg;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(open) => {
                    if open > 0 {
                        pieces.push(Piece::Literal(encode_literal(&rest[..open])?));
                    }
                    let close = rest[open..]
                        .find('}')
                        .map(|c| c + open)
                        .ok_or_else(|| format!("path `{path}` has an unclosed `{{`"))?;
                    let name = &rest[open + 1..close];
                    if name.is_empty() || name.contains('{') {
                        return Err(format!("path `{path}` has a malformed template expression"));
                    }
                    let arg = params
                        .iter()
                        .position(|a| a.location == Location::Path && a.name == name);
                    pieces.push(Piece::Var {
                        name: name.to_string(),
                        arg,
                    });
                    rest = &rest[close + 1..];
                }
                None => {
                    pieces.push(Piece::Literal(encode_literal(rest)?));
                    rest = "";
                }
            }
        }
        if let Some(dots) = literal_dot_segment(&pieces) {
            return Err(format!(
                "path `{path}` has the dot-segment `{dots}`: URL parsers remove it (RFC 3986 §5.2.4), so the request would address another resource than the path says, possibly outside the server's base path"
            ));
        }
        segments.push(pieces);
    }
    Ok(segments)
}

/// Literal path text: `pchar`s kept (RFC 3986 §3.3), valid `%XX` kept, the rest encoded.
fn encode_literal(s: &str) -> Result<String, String> {
    if s.contains('}') {
        return Err(format!("path text `{s}` has an unmatched `}}`"));
    }
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let pchar = super::serialize::is_unreserved(c)
            || matches!(
                c,
                b'!' | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        if super::serialize::is_pct_triplet(b, i) {
            out.push_str(&s[i..i + 3]);
            i += 3;
            continue;
        }
        if pchar {
            out.push(char::from(c));
        } else {
            // Byte by byte: a non-ASCII character is several `%XX`.
            super::serialize::push_pct(&mut out, c);
        }
        i += 1;
    }
    Ok(out)
}

impl SchemaFacts {
    /// Facts of a property schema; local `$ref` chains are followed within `root` (the
    /// tool's input schema, [`mcpdesc_core::local_ref::follow`]).
    pub fn of(schema: &Value, root: &Value, depth: usize) -> SchemaFacts {
        let schema = mcpdesc_core::local_ref::follow(root, schema).schema;
        let Some(m) = schema.as_object() else {
            return SchemaFacts::default();
        };
        let mut f = SchemaFacts {
            ty: first_type(m),
            content_encoding: m
                .get("contentEncoding")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase),
            content_media_type: m
                .get("contentMediaType")
                .and_then(Value::as_str)
                .map(String::from),
            items: None,
        };
        if f.ty.is_none() {
            // `anyOf`/`oneOf` of a type and `null` (how importers write nullable).
            for k in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alts)) = m.get(k) {
                    let non_null: Vec<&Value> = alts
                        .iter()
                        .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                        .collect();
                    if non_null.len() == 1 && depth < 8 {
                        return SchemaFacts::of(non_null[0], root, depth + 1);
                    }
                }
            }
        }
        if let Some(items) = m.get("items") {
            if depth < 8 {
                f.items = Some(Box::new(SchemaFacts::of(items, root, depth + 1)));
            }
        }
        f
    }

    /// The value is a base64 string to be decoded to bytes.
    pub fn is_binary(&self) -> bool {
        matches!(
            self.content_encoding.as_deref(),
            Some("base64" | "base64url")
        )
    }
}

fn first_type(m: &Map<String, Value>) -> Option<String> {
    match m.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(String::from),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arg(name: &str, loc: Location) -> ArgPlan {
        ArgPlan {
            property: name.into(),
            location: loc,
            name: name.into(),
            style: loc.default_style(),
            explode: loc.default_style().default_explode(),
            explicit_style: false,
            allow_reserved: false,
            content_type: None,
            collection_format: None,
            facts: SchemaFacts::default(),
        }
    }

    #[test]
    fn path_templates() {
        let params = [arg("id", Location::Path), arg("q", Location::Query)];
        let s = parse_path("/pets/{id}/x y{q}.json", &params).expect("ok");
        assert_eq!(s.len(), 3);
        assert_eq!(s[0], vec![Piece::Literal("pets".into())]);
        assert_eq!(
            s[1],
            vec![Piece::Var {
                name: "id".into(),
                arg: Some(0)
            }]
        );
        // `q` is a query argument: the path variable has no argument.
        assert_eq!(
            s[2],
            vec![
                Piece::Literal("x%20y".into()),
                Piece::Var {
                    name: "q".into(),
                    arg: None
                },
                Piece::Literal(".json".into())
            ]
        );
        assert!(parse_path("/a/{b", &params).is_err());
        assert!(parse_path("a", &params).is_err());
        assert!(parse_path("/a}", &params).is_err());
        // A segment whose literal text is a dot-segment, however the dots are written;
        // beside a variable the value decides (checked per call).
        for dots in ["/a/..", "/./a", "/a/%2e%2E/b", "/.%2E"] {
            assert!(parse_path(dots, &params).is_err(), "{dots}");
        }
        assert!(parse_path("/a/.../{id}./b..", &params).is_ok());
        // Non-ASCII template text is percent-encoded as UTF-8 (no slicing inside a char).
        assert_eq!(
            parse_path("/café/ü", &params).expect("ok"),
            vec![
                vec![Piece::Literal("caf%C3%A9".into())],
                vec![Piece::Literal("%C3%BC".into())]
            ]
        );
    }

    #[test]
    fn schema_facts_follow_local_refs_and_nullable() {
        let root = json!({"$defs": {"F": {"type": "string", "contentEncoding": "base64"}}});
        let f = SchemaFacts::of(&json!({"$ref": "#/$defs/F"}), &root, 0);
        assert!(f.is_binary());
        let f = SchemaFacts::of(&json!({"type": ["null", "integer"]}), &root, 0);
        assert_eq!(f.ty.as_deref(), Some("integer"));
        let f = SchemaFacts::of(
            &json!({"anyOf": [{"type": "array", "items": {"type": "object"}}, {"type": "null"}]}),
            &root,
            0,
        );
        assert_eq!(f.ty.as_deref(), Some("array"));
        assert_eq!(f.items.and_then(|i| i.ty).as_deref(), Some("object"));
    }

    #[test]
    fn base_urls() {
        assert_eq!(
            normalize_base("https://a.example/v1/").as_deref(),
            Ok("https://a.example/v1")
        );
        assert!(normalize_base("/v1").is_err());
        assert!(normalize_base("ftp://a.example").is_err());
        assert!(normalize_base("https://a.example/?x=1").is_err());
        let s: Vec<Server> = serde_json::from_value(json!([
            "/relative",
            {"url": "https://{r}.example", "variables": {"r": {"default": "xx", "enum": ["eu"]}}},
            {"url": "https://{r}.example/v2", "variables": {"r": {"default": "eu", "enum": ["eu"]}}}
        ]))
        .expect("servers");
        assert_eq!(choose_server(&s).as_deref(), Ok("https://eu.example/v2"));
    }
}
