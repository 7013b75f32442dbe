//! An operation's `inputSchema` and the provenance that maps each input property back
//! to its place in the HTTP request (`arguments`, `requestBody`).
//!
//! Always an object root with `additionalProperties: false` (a REST call forwards
//! nothing it does not declare). Path, query, header and cookie parameters become
//! properties; path-level and operation-level parameters are merged on `(name, in)`,
//! the operation's winning. Header parameters named `Accept`, `Content-Type` or
//! `Authorization` (any case, every flavor) are ignored, as OpenAPI specifies: media
//! types come from the operation and credentials from its security. A path-template
//! variable that no parameter declares (real specs forget them) becomes a required
//! string input, `in: path`, style `simple`, with a warning: otherwise the tool could
//! not build its URL.
//!
//! A parameter with `content` instead of `schema` takes the schema of its (first) media
//! type, and provenance records that media type as the argument's `contentType`.
//!
//! The request body (3.x `requestBody`, 2.0 `in: body` / `in: formData`) uses the
//! first media type in this order: `application/json`, other JSON (`*/*+json`,
//! `*json*`), `application/x-www-form-urlencoded`, `multipart/form-data`, then the
//! first declared. An object body (type object or properties, optionally through
//! `allOf` of objects, with no `oneOf`/`anyOf` and no open `additionalProperties`)
//! is flattened: its properties sit beside the parameters, required only when the
//! body is required. Any other body becomes one property `body`. Binary content
//! (octet-stream, images, `format: binary`, 2.0 `type: file`) is a base64 string with
//! `contentEncoding` (and `contentMediaType` when known).
//!
//! Form and multipart bodies record their Encoding Objects (`requestBody.encoding`:
//! `contentType`, `style`, `explode`, `allowReserved` per member). A multipart member
//! that carries binary content and declares no `contentType` is recorded with
//! OpenAPI's default for binary parts, `application/octet-stream`. Swagger 2.0
//! `formData` parameters give the same shape a 3.x form body would: members `in: body`,
//! `type: file` parameters binary parts, and array parameters their `collectionFormat`
//! as the equivalent Encoding style/explode.
//!
//! Name clashes: when several inputs share a name, body properties keep it and every
//! parameter with that name becomes `NAME__LOCATION` (`id__path`, `id__query`). The
//! rule depends only on the set of inputs, never on their order, and nothing is
//! overwritten.

use crate::diag::Diags;
use crate::schema::{SchemaCx, push_token};
use crate::site::{OpSite, Shared, object_form, op_list};
use crate::spec::{Spec, SpecVersion};
use indexmap::IndexMap;
use mcpdesc_core::media::{self, BodyKind};
use mcpdesc_core::provenance::{Argument, BodyShape, Encoding, Location, RequestBody, Style};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The tool input of one operation.
#[derive(Debug)]
pub(crate) struct ToolInput {
    pub schema: Value,
    /// Input property → where it goes (every property has one).
    pub arguments: IndexMap<String, Argument>,
    pub request_body: Option<RequestBody>,
}

/// One input of the tool, before clash resolution.
struct Input {
    name: String,
    loc: Location,
    required: bool,
    schema: Value,
    arg: Argument,
}

/// A parameter's `in`, as the flavor allows it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum In {
    /// path, query, header, cookie.
    At(Location),
    /// 2.0 `in: body`.
    Body,
    /// 2.0 `in: formData`.
    FormData,
    /// Anything else (reported and skipped).
    Unsupported(String),
}

impl In {
    fn parse(s: &str, version: SpecVersion) -> In {
        let swagger = version == SpecVersion::Swagger2;
        match s {
            "path" => In::At(Location::Path),
            "query" => In::At(Location::Query),
            "header" => In::At(Location::Header),
            "cookie" => In::At(Location::Cookie),
            "body" if swagger => In::Body,
            "formData" if swagger => In::FormData,
            other => In::Unsupported(other.to_string()),
        }
    }
}

struct Param<'a> {
    name: String,
    loc: In,
    doc: usize,
    ptr: String,
    obj: &'a Map<String, Value>,
}

/// An argument record with only a location and a name.
fn argument(location: Location, name: Option<String>) -> Argument {
    Argument {
        location,
        name,
        style: None,
        explode: None,
        allow_reserved: None,
        content_type: None,
        collection_format: None,
        other: Map::new(),
    }
}

fn request_body_record(content_type: &str, shape: BodyShape, required: bool) -> RequestBody {
    RequestBody {
        content_type: content_type.to_string(),
        shape,
        required: required.then_some(true),
        encoding: IndexMap::new(),
        other: Map::new(),
    }
}

/// Builds the input schema and its provenance.
pub(crate) fn build(
    spec: &Spec,
    shared: &Shared,
    site: &OpSite<'_>,
    cx: &mut SchemaCx<'_>,
    diags: &mut Diags,
) -> ToolInput {
    let op = site.op;
    let mut inputs: Vec<Input> = Vec::new();
    let mut body: Option<RequestBody> = None;
    let params = merged_params(spec, site, diags);
    let mut form_params = Vec::new();
    for p in &params {
        match &p.loc {
            In::At(loc) => inputs.push(param_input(spec, cx, p, *loc, diags)),
            In::Body => {
                let consumes = op_list(op, "consumes").unwrap_or_else(|| shared.consumes.clone());
                let mt = consumes
                    .iter()
                    .find(|c| media::is_json(c))
                    .cloned()
                    .unwrap_or_else(|| "application/json".into());
                if let Some(schema) = p.obj.get("schema") {
                    let mut ptr = p.ptr.clone();
                    push_token(&mut ptr, "schema");
                    let media = Media {
                        content_type: &mt,
                        kind: BodyKind::Json,
                        required: p.obj.get("required").and_then(Value::as_bool) == Some(true),
                        description: p.obj.get("description"),
                        encoding: None,
                    };
                    body = Some(body_inputs(
                        cx,
                        p.doc,
                        &ptr,
                        schema,
                        &media,
                        &mut inputs,
                        diags,
                    ));
                }
            }
            In::FormData => form_params.push(p),
            In::Unsupported(other) => {
                diags.warn(
                    p.doc,
                    "openapi-parameter-skipped",
                    format!(
                        "parameter location `{other}` is not supported; the parameter is skipped"
                    ),
                    p.ptr.clone(),
                );
            }
        }
    }
    undeclared_path_variables(site, &params, &mut inputs, diags);
    if !form_params.is_empty() {
        body = Some(form_data(
            spec,
            shared,
            site,
            cx,
            &form_params,
            &mut inputs,
            diags,
        ));
    }
    if spec.version != SpecVersion::Swagger2 {
        if let Some(rb) = op.get("requestBody") {
            let mut ptr = site.op_ptr.clone();
            push_token(&mut ptr, "requestBody");
            match spec.deref(site.item_doc, &ptr, rb) {
                Ok((rdoc, rptr, rb)) => {
                    body = request_body(cx, rdoc, &rptr, rb, &mut inputs, diags).or(body);
                }
                Err(e) => diags.warn(
                    site.item_doc,
                    "openapi-body-skipped",
                    format!("request body cannot be resolved ({e}); it is not part of the input"),
                    ptr,
                ),
            }
        }
    }
    let (schema, arguments) = assemble_input(inputs, cx, diags);
    ToolInput {
        schema,
        arguments,
        request_body: body,
    }
}

fn merged_params<'a>(spec: &'a Spec, site: &OpSite<'a>, diags: &mut Diags) -> Vec<Param<'a>> {
    let mut out: Vec<Param<'a>> = Vec::new();
    let item_ptr = site
        .op_ptr
        .rsplit_once('/')
        .map(|x| x.0.to_string())
        .unwrap_or_default();
    for (owner, owner_ptr) in [(site.item, item_ptr), (site.op, site.op_ptr.clone())] {
        let Some(list) = owner.get("parameters") else {
            continue;
        };
        let mut lptr = owner_ptr.clone();
        push_token(&mut lptr, "parameters");
        let Some(list) = list.as_array() else {
            diags.warn(
                site.item_doc,
                "openapi-parameter-skipped",
                "`parameters` is not an array",
                lptr,
            );
            continue;
        };
        for (i, p) in list.iter().enumerate() {
            let mut ptr = lptr.clone();
            push_token(&mut ptr, i.to_string());
            let (pdoc, pptr, p) = match spec.deref(site.item_doc, &ptr, p) {
                Ok(x) => x,
                Err(e) => {
                    diags.warn(
                        site.item_doc,
                        "openapi-parameter-skipped",
                        format!("parameter cannot be resolved ({e}); skipped"),
                        ptr,
                    );
                    continue;
                }
            };
            let Some(obj) = p.as_object() else {
                diags.warn(
                    pdoc,
                    "openapi-parameter-skipped",
                    "parameter is not an object; skipped",
                    pptr,
                );
                continue;
            };
            let (Some(name), Some(loc)) = (
                obj.get("name").and_then(Value::as_str),
                obj.get("in").and_then(Value::as_str),
            ) else {
                diags.warn(
                    pdoc,
                    "openapi-parameter-skipped",
                    "parameter lacks `name` or `in`; skipped",
                    pptr,
                );
                continue;
            };
            let loc = In::parse(loc, spec.version);
            if loc == In::At(Location::Header)
                && ["accept", "content-type", "authorization"]
                    .contains(&name.to_ascii_lowercase().as_str())
            {
                continue;
            }
            let param = Param {
                name: name.to_string(),
                loc,
                doc: pdoc,
                ptr: pptr,
                obj,
            };
            // Operation-level parameters override path-level ones on (name, in).
            if let Some(pos) = out
                .iter()
                .position(|q| q.name == param.name && q.loc == param.loc)
            {
                out[pos] = param;
            } else {
                out.push(param);
            }
        }
    }
    out
}

/// The `{name}` variables of a path template, each once, in order.
pub(crate) fn template_variables(path: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = &after[..close];
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
        rest = &after[close + 1..];
    }
    out
}

/// Path-template variables no `in: path` parameter declares: required string inputs.
fn undeclared_path_variables(
    site: &OpSite<'_>,
    params: &[Param<'_>],
    inputs: &mut Vec<Input>,
    diags: &mut Diags,
) {
    for var in template_variables(site.path) {
        if params
            .iter()
            .any(|p| p.loc == In::At(Location::Path) && p.name == var)
        {
            continue;
        }
        diags.warn(
            site.item_doc,
            "openapi-path-parameter-undeclared",
            format!(
                "path variable `{var}` is declared by no parameter; it becomes a required string input"
            ),
            site.op_ptr.clone(),
        );
        let mut arg = argument(Location::Path, Some(var.to_string()));
        arg.style = Some(Style::Simple);
        arg.explode = Some(false);
        inputs.push(Input {
            name: var.to_string(),
            loc: Location::Path,
            required: true,
            schema: json!({"type": "string"}),
            arg,
        });
    }
}

/// Keys of a 2.0 non-body parameter that are schema keywords.
const V2_PARAM_SCHEMA_KEYS: [&str; 20] = [
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
    "x-nullable",
    "description",
    "title",
    "example",
];

/// The 3.x style and explode equivalent to a 2.0 `collectionFormat` at a location
/// (`tsv` has none: it is kept as `collectionFormat` beside form/false).
fn collection_style(cf: &str, loc: Location) -> (Style, bool) {
    match (cf, loc) {
        ("multi", _) => (Style::Form, true),
        ("ssv", _) => (Style::SpaceDelimited, false),
        ("pipes", _) => (Style::PipeDelimited, false),
        (_, Location::Path | Location::Header) => (Style::Simple, false),
        _ => (Style::Form, false),
    }
}

/// A parameter as a tool input (`loc` is its location; form parameters pass `Body`).
fn param_input(
    spec: &Spec,
    cx: &mut SchemaCx<'_>,
    p: &Param<'_>,
    loc: Location,
    diags: &mut Diags,
) -> Input {
    let mut arg = argument(loc, Some(p.name.clone()));
    let mut schema = if spec.version == SpecVersion::Swagger2 {
        let mut s = Map::new();
        for k in V2_PARAM_SCHEMA_KEYS {
            if let Some(v) = p.obj.get(k) {
                s.insert(k.to_string(), v.clone());
            }
        }
        // 2.0 serializes by `collectionFormat` (default `csv`); provenance states the
        // equivalent 3.x style/explode for every parameter, as for 3.x. Form members
        // get theirs as Encoding Objects instead (see `form_data`).
        if loc != Location::Body {
            let cf = p
                .obj
                .get("collectionFormat")
                .and_then(Value::as_str)
                .unwrap_or("csv");
            let (style, explode) = collection_style(cf, loc);
            arg.style = Some(style);
            arg.explode = Some(explode);
            arg.collection_format = Some(cf.to_string());
        }
        cx.convert(p.doc, &Value::Object(s), &mut p.ptr.clone(), diags)
    } else if let Some(s) = p.obj.get("schema") {
        let mut ptr = p.ptr.clone();
        push_token(&mut ptr, "schema");
        let style = match p.obj.get("style").and_then(Value::as_str) {
            None => loc.default_style(),
            Some(s) => parse_style(s).unwrap_or_else(|| {
                diags.warn(
                    p.doc,
                    "openapi-parameter-style-unknown",
                    format!(
                        "`style: {s}` is not an OpenAPI style; the default for `in: {loc}` ({}) is recorded",
                        loc.default_style()
                    ),
                    p.ptr.clone(),
                );
                loc.default_style()
            }),
        };
        let explode = p
            .obj
            .get("explode")
            .and_then(Value::as_bool)
            .unwrap_or(style.default_explode());
        arg.style = Some(style);
        arg.explode = Some(explode);
        if loc == Location::Query
            && p.obj.get("allowReserved").and_then(Value::as_bool) == Some(true)
        {
            arg.allow_reserved = Some(true);
        }
        cx.convert(p.doc, s, &mut ptr, diags)
    } else if let Some(Value::Object(content)) = p.obj.get("content") {
        match content.iter().next() {
            Some((mt, media)) => {
                arg.content_type = Some(mt.clone());
                let mut ptr = p.ptr.clone();
                push_token(&mut ptr, "content");
                push_token(&mut ptr, mt);
                push_token(&mut ptr, "schema");
                match media.get("schema") {
                    Some(s) => cx.convert(p.doc, s, &mut ptr, diags),
                    None => json!({}),
                }
            }
            None => json!({}),
        }
    } else {
        diags.warn(
            p.doc,
            "openapi-parameter-untyped",
            "parameter has neither `schema` nor `content`; any value is accepted",
            p.ptr.clone(),
        );
        json!({})
    };
    if let Value::Object(m) = &mut schema {
        if let Some(d) = p.obj.get("description").filter(|d| d.is_string()) {
            m.insert("description".into(), d.clone());
        }
        if p.obj.get("deprecated").and_then(Value::as_bool) == Some(true) {
            m.insert("deprecated".into(), json!(true));
        }
        if spec.version != SpecVersion::Swagger2 {
            if let Some(ex) = p.obj.get("example") {
                m.insert("examples".into(), json!([ex]));
            } else if let Some(Value::Object(exs)) = p.obj.get("examples") {
                let vals: Vec<Value> = exs
                    .values()
                    .filter_map(|e| e.get("value").cloned())
                    .collect();
                if !vals.is_empty() {
                    m.insert("examples".into(), Value::Array(vals));
                }
            }
        }
    }
    let required =
        loc == Location::Path || p.obj.get("required").and_then(Value::as_bool) == Some(true);
    Input {
        name: p.name.clone(),
        loc,
        required,
        schema,
        arg,
    }
}

/// An OpenAPI `style` value (None for anything else).
fn parse_style(s: &str) -> Option<Style> {
    Some(match s {
        "matrix" => Style::Matrix,
        "label" => Style::Label,
        "simple" => Style::Simple,
        "form" => Style::Form,
        "spaceDelimited" => Style::SpaceDelimited,
        "pipeDelimited" => Style::PipeDelimited,
        "deepObject" => Style::DeepObject,
        _ => return None,
    })
}

/// 2.0 `formData` parameters: the members of a form or multipart body.
fn form_data(
    spec: &Spec,
    shared: &Shared,
    site: &OpSite<'_>,
    cx: &mut SchemaCx<'_>,
    form_params: &[&Param<'_>],
    inputs: &mut Vec<Input>,
    diags: &mut Diags,
) -> RequestBody {
    let consumes = op_list(site.op, "consumes").unwrap_or_else(|| shared.consumes.clone());
    let is_file = |p: &Param<'_>| p.obj.get("type").and_then(Value::as_str) == Some("file");
    let multipart = form_params.iter().any(|p| is_file(p))
        || consumes
            .iter()
            .any(|c| c.starts_with("multipart/form-data"));
    let mt = if multipart {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let required = form_params
        .iter()
        .any(|p| p.obj.get("required").and_then(Value::as_bool) == Some(true));
    let mut body = request_body_record(mt, BodyShape::Properties, required);
    for p in form_params {
        let mut input = param_input(spec, cx, p, Location::Body, diags);
        let mut enc = Encoding::default();
        if is_file(p) {
            enc.content_type = Some(BINARY_PART.into());
        }
        if p.obj.get("type").and_then(Value::as_str) == Some("array") {
            let cf = p
                .obj
                .get("collectionFormat")
                .and_then(Value::as_str)
                .unwrap_or("csv");
            let (style, explode) = collection_style(cf, Location::Body);
            enc.style = Some(style);
            enc.explode = Some(explode);
            input.arg.collection_format = Some(cf.to_string());
        }
        if enc != Encoding::default() {
            body.encoding.insert(p.name.clone(), enc);
        }
        inputs.push(input);
    }
    body
}

/// OpenAPI's default content type of a binary multipart part.
const BINARY_PART: &str = "application/octet-stream";

/// Picks the request media type (see the module docs for the order) and how its body
/// is serialized (the gateway's classification: [`BodyKind::of`]).
fn choose_media(content: &Map<String, Value>) -> Option<(&str, &Value, BodyKind)> {
    let find = |pred: &dyn Fn(&str) -> bool| {
        content
            .iter()
            .find(|(k, _)| pred(&media::essence(k)))
            .map(|(k, v)| (k.as_str(), v, BodyKind::of(k)))
    };
    find(&|e| e == "application/json")
        .or_else(|| find(&media::is_json))
        .or_else(|| find(&|e| e == "application/x-www-form-urlencoded"))
        .or_else(|| find(&media::is_form_data))
        .or_else(|| find(&|_| true))
}

/// The chosen media type of a body and what is known about it.
struct Media<'a> {
    content_type: &'a str,
    kind: BodyKind,
    required: bool,
    description: Option<&'a Value>,
    /// 3.x Media Type Object `encoding`.
    encoding: Option<&'a Map<String, Value>>,
}

/// A 3.x Request Body Object (resolved). None when it adds nothing to the input.
fn request_body(
    cx: &mut SchemaCx<'_>,
    doc: usize,
    ptr: &str,
    rb: &Value,
    inputs: &mut Vec<Input>,
    diags: &mut Diags,
) -> Option<RequestBody> {
    let Some(Value::Object(content)) = rb.get("content") else {
        diags.warn(
            doc,
            "openapi-body-skipped",
            "request body has no `content`; it is not part of the input",
            ptr,
        );
        return None;
    };
    let (mt, media, kind) = choose_media(content)?;
    let mut mptr = ptr.to_string();
    push_token(&mut mptr, "content");
    push_token(&mut mptr, mt);
    let m = Media {
        content_type: mt,
        kind,
        required: rb.get("required").and_then(Value::as_bool) == Some(true),
        description: rb.get("description"),
        encoding: media.get("encoding").and_then(Value::as_object),
    };
    match media.get("schema") {
        Some(schema) => {
            push_token(&mut mptr, "schema");
            Some(body_inputs(cx, doc, &mptr, schema, &m, inputs, diags))
        }
        None => {
            let schema = if kind == BodyKind::Json || kind.is_form() {
                json!({})
            } else {
                other_body_schema(mt)
            };
            push_body(inputs, schema, &m);
            Some(body_record(&m, BodyShape::Body, inputs))
        }
    }
}

/// The body's provenance record: its media type, shape, whether it is required, and
/// for form and multipart bodies the Encoding Objects of its members.
fn body_record(m: &Media<'_>, shape: BodyShape, inputs: &[Input]) -> RequestBody {
    let mut body = request_body_record(m.content_type, shape, m.required);
    if !m.kind.is_form() {
        return body;
    }
    if let Some(declared) = m.encoding {
        for (name, e) in declared {
            let Some(e) = e.as_object() else { continue };
            body.encoding.insert(
                name.clone(),
                Encoding {
                    content_type: e
                        .get("contentType")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    style: e.get("style").and_then(Value::as_str).and_then(parse_style),
                    explode: e.get("explode").and_then(Value::as_bool),
                    allow_reserved: e.get("allowReserved").and_then(Value::as_bool),
                    other: Map::new(),
                },
            );
        }
    }
    if m.kind == BodyKind::Multipart && shape == BodyShape::Properties {
        for i in inputs.iter().filter(|i| i.loc == Location::Body) {
            let Some(name) = &i.arg.name else { continue };
            if is_binary(&i.schema) {
                let e = body.encoding.entry(name.clone()).or_default();
                if e.content_type.is_none() {
                    e.content_type = Some(BINARY_PART.into());
                }
            }
        }
    }
    body.encoding.retain(|_, e| *e != Encoding::default());
    body
}

/// A converted schema of binary content: a string with `contentEncoding`, or an array
/// of them (several files in one member).
fn is_binary(schema: &Value) -> bool {
    let one = |s: &Value| {
        s.get("contentEncoding").is_some()
            && match s.get("type") {
                Some(Value::String(t)) => t == "string",
                Some(Value::Array(a)) => a.iter().any(|t| t == "string"),
                _ => false,
            }
    };
    one(schema)
        || (schema.get("type").and_then(Value::as_str) == Some("array")
            && schema.get("items").is_some_and(one))
}

/// Whether a body of `kind` is a JSON value or form members (an object the importer
/// can flatten), not a string of text or bytes.
fn is_structured(kind: BodyKind) -> bool {
    kind == BodyKind::Json || kind.is_form()
}

fn other_body_schema(mt: &str) -> Value {
    let base = mt.split(';').next().unwrap_or(mt).trim();
    if BodyKind::of(mt) == BodyKind::Text {
        json!({"type": "string", "contentMediaType": base})
    } else {
        json!({"type": "string", "contentEncoding": "base64", "contentMediaType": base})
    }
}

/// The whole body as the one input `body`.
fn push_body(inputs: &mut Vec<Input>, schema: Value, m: &Media<'_>) {
    let mut schema = schema;
    if let (Value::Object(s), Some(d)) = (&mut schema, m.description.filter(|d| d.is_string())) {
        s.entry("description").or_insert_with(|| d.clone());
    }
    let mut arg = argument(Location::Body, None);
    arg.content_type = Some(m.content_type.to_string());
    inputs.push(Input {
        name: "body".into(),
        loc: Location::Body,
        required: m.required,
        schema,
        arg,
    });
}

/// The inputs of a body with a schema: its flattened members, or the one `body`.
fn body_inputs(
    cx: &mut SchemaCx<'_>,
    doc: usize,
    ptr: &str,
    schema: &Value,
    m: &Media<'_>,
    inputs: &mut Vec<Input>,
    diags: &mut Diags,
) -> RequestBody {
    if is_structured(m.kind) {
        let spec = cx.spec;
        if let Some(shape) = object_shape(spec, doc, ptr, schema, 0) {
            let first = inputs.len();
            for (name, pdoc, pptr, pschema) in shape.props {
                if cx.dropped_property(pdoc, &pptr, pschema) {
                    continue;
                }
                let mut p = pptr.clone();
                let conv = cx.convert(pdoc, pschema, &mut p, diags);
                let req = m.required && shape.required.contains(&name);
                inputs.push(Input {
                    arg: argument(Location::Body, Some(name.clone())),
                    name,
                    loc: Location::Body,
                    required: req,
                    schema: conv,
                });
            }
            return body_record(m, BodyShape::Properties, &inputs[first..]);
        }
    }
    let mut p = ptr.to_string();
    let mut conv = cx.convert(doc, schema, &mut p, diags);
    if !is_structured(m.kind) {
        let mt = m.content_type;
        if let Value::Object(s) = &mut conv {
            let is_string = s.get("type").and_then(Value::as_str) == Some("string");
            let base = mt.split(';').next().unwrap_or(mt).trim().to_string();
            if is_string && !s.contains_key("contentEncoding") && m.kind != BodyKind::Text {
                s.insert("contentEncoding".into(), json!("base64"));
            }
            if is_string {
                s.entry("contentMediaType").or_insert_with(|| json!(base));
            }
            if s.is_empty() {
                conv = other_body_schema(mt);
            }
        }
    }
    push_body(inputs, conv, m);
    body_record(m, BodyShape::Body, inputs)
}

pub(crate) struct Shape<'a> {
    props: Vec<(String, usize, String, &'a Value)>,
    required: Vec<String>,
}

/// The members of an object body that can be flattened, or None.
pub(crate) fn object_shape<'a>(
    spec: &'a Spec,
    doc: usize,
    ptr: &str,
    schema: &'a Value,
    depth: usize,
) -> Option<Shape<'a>> {
    if depth > 8 {
        return None;
    }
    let (doc, ptr, s) = spec.deref(doc, ptr, schema).ok()?;
    let m = s.as_object()?;
    if [
        "oneOf",
        "anyOf",
        "not",
        "if",
        "patternProperties",
        "discriminator",
    ]
    .iter()
    .any(|k| m.contains_key(*k))
    {
        return None;
    }
    match m.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        _ => return None,
    }
    let typed_object = match m.get("type") {
        None => false,
        Some(Value::String(t)) if t == "object" => true,
        Some(Value::Array(a)) if a.iter().any(|t| t == "object") => true,
        _ => return None,
    };
    let mut shape = Shape {
        props: Vec::new(),
        required: Vec::new(),
    };
    let mut any = typed_object;
    if let Some(Value::Object(props)) = m.get("properties") {
        any = true;
        for (k, v) in props {
            let mut p = ptr.clone();
            push_token(&mut p, "properties");
            push_token(&mut p, k);
            shape.props.push((k.clone(), doc, p, v));
        }
    }
    if let Some(Value::Array(req)) = m.get("required") {
        shape
            .required
            .extend(req.iter().filter_map(Value::as_str).map(String::from));
    }
    if let Some(Value::Array(all)) = m.get("allOf") {
        any = true;
        for (i, sub) in all.iter().enumerate() {
            let mut p = ptr.clone();
            push_token(&mut p, "allOf");
            push_token(&mut p, i.to_string());
            let inner = object_shape(spec, doc, &p, sub, depth + 1)?;
            for prop in inner.props {
                if !shape.props.iter().any(|x| x.0 == prop.0) {
                    shape.props.push(prop);
                }
            }
            shape.required.extend(inner.required);
        }
    }
    any.then_some(shape)
}

/// Resolves name clashes and builds the input root and the `arguments` map.
fn assemble_input(
    inputs: Vec<Input>,
    cx: &mut SchemaCx<'_>,
    diags: &mut Diags,
) -> (Value, IndexMap<String, Argument>) {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for i in &inputs {
        *counts.entry(i.name.as_str()).or_default() += 1;
    }
    let renamed: Vec<String> = inputs
        .iter()
        .map(|i| {
            if counts[i.name.as_str()] > 1 && i.loc != Location::Body {
                format!("{}__{}", i.name, i.loc)
            } else {
                i.name.clone()
            }
        })
        .collect();
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut arguments = IndexMap::new();
    for (i, mut name) in inputs.into_iter().zip(renamed) {
        while props.contains_key(&name) {
            name.push('_');
            name.push_str(i.loc.as_str());
        }
        if i.required {
            required.push(json!(name));
        }
        // Property schemas must be objects before 2025-11-25 (§9.2): the boolean
        // forms become their object equivalents.
        let schema = object_form(i.schema);
        props.insert(name.clone(), schema);
        arguments.insert(name, i.arg);
    }
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    if !props.is_empty() {
        root.insert("properties".into(), Value::Object(props));
    }
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    root.insert("additionalProperties".into(), json!(false));
    let mut root = Value::Object(root);
    if let Some(defs) = cx.finish_defs(&mut root, diags) {
        if let Value::Object(m) = &mut root {
            m.insert("$defs".into(), Value::Object(defs));
        }
    }
    (root, arguments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_variables_in_order_once() {
        assert_eq!(
            template_variables("/a/{id}/b/{name}.{ext}/{id}"),
            ["id", "name", "ext"]
        );
        assert!(template_variables("/a/{}/b{").is_empty());
    }

    #[test]
    fn collection_formats() {
        assert_eq!(
            collection_style("csv", Location::Query),
            (Style::Form, false)
        );
        assert_eq!(
            collection_style("csv", Location::Path),
            (Style::Simple, false)
        );
        assert_eq!(
            collection_style("multi", Location::Body),
            (Style::Form, true)
        );
        assert_eq!(
            collection_style("tsv", Location::Header),
            (Style::Simple, false)
        );
        assert_eq!(
            collection_style("pipes", Location::Query),
            (Style::PipeDelimited, false)
        );
    }
}
