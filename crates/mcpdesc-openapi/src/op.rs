//! One OpenAPI operation → one tool (before naming and protocol variants).
//!
//! # inputSchema
//! Always an object root with `additionalProperties: false` (a REST call forwards
//! nothing it does not declare). Path, query, header and cookie parameters become
//! properties; path-level and operation-level parameters are merged on `(name, in)`,
//! the operation's winning. Header parameters `Accept`, `Content-Type` and
//! `Authorization` are ignored, as OpenAPI 3 specifies (they come from the media type
//! and the security scheme).
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
//! Name clashes: when several inputs share a name, body properties keep it and every
//! parameter with that name becomes `NAME__LOCATION` (`id__path`, `id__query`). The
//! rule depends only on the set of inputs, never on their order, and nothing is
//! overwritten. Provenance (`x-mcpdesc-openapi.arguments`) maps each property back.
//!
//! # outputSchema
//! The first success response, in the order 200, 201, 202, 203, 204, 2XX, then the
//! other 2xx codes ascending, that has a JSON media type with a schema; 204 ends the
//! search with no schema. A root `$ref` is inlined at the root (the target stays
//! available in `$defs` for recursion).

use crate::diag::Diags;
use crate::schema::{Direction, SchemaCx, push_token};
use crate::spec::{Spec, SpecVersion};
use crate::{ImportOptions, security};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The HTTP methods that are operations in a Path Item.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// An operation found in `paths`.
#[derive(Debug, Clone)]
pub struct OpSite<'a> {
    pub path: &'a str,
    pub method: &'static str,
    /// Document and pointer of the Path Item (after following a Path Item `$ref`).
    pub item_doc: usize,
    pub item: &'a Map<String, Value>,
    /// Pointer of the operation (in `item_doc`).
    pub op_ptr: String,
    pub op: &'a Map<String, Value>,
    /// Pointer of the operation as the user sees it: `/paths/~1pets/get` in the root doc.
    pub display_ptr: String,
}

impl OpSite<'_> {
    pub fn operation_id(&self) -> Option<&str> {
        self.op
            .get("operationId")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    }
    pub fn tags(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(Value::Array(a)) = self.op.get("tags") {
            for t in a.iter().filter_map(Value::as_str) {
                if !t.is_empty() && !out.iter().any(|x| x == t) {
                    out.push(t.to_string());
                }
            }
        }
        out
    }
    /// Method + path, the disambiguation key for names.
    pub fn key(&self) -> String {
        format!("{} {}", self.method.to_ascii_uppercase(), self.path)
    }
    /// Name source: `x-mcp.name`, operationId, or method + path.
    pub fn raw_name(&self) -> String {
        self.op
            .get("x-mcp")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .or_else(|| self.operation_id().map(String::from))
            .unwrap_or_else(|| format!("{} {}", self.method, self.path))
    }
}

/// A tool built from one operation, before naming.
#[derive(Debug)]
pub struct Built {
    /// Name source: `x-mcp.name`, operationId, or method + path.
    pub raw_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Value,
    pub output: Option<Output>,
    pub annotations: Map<String, Value>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    pub security: Option<Value>,
    pub provenance: Map<String, Value>,
    pub remote_refs: usize,
}

/// The chosen output schema.
#[derive(Debug)]
pub struct Output {
    pub schema: Value,
    /// Whether the root describes an object (valid before MCP 2026-07-28).
    pub object_root: bool,
}

/// One input of the tool, before clash resolution.
struct Input {
    name: String,
    loc: &'static str,
    required: bool,
    schema: Value,
    prov: Map<String, Value>,
}

/// Lists the operations of the spec in document order.
pub fn collect_ops<'a>(spec: &'a Spec, opts: &ImportOptions, diags: &mut Diags) -> Vec<OpSite<'a>> {
    let mut out = Vec::new();
    let Some(paths) = spec.docs[0].value.get("paths") else {
        return out;
    };
    let Some(paths) = paths.as_object() else {
        diags.warn(
            0,
            "openapi-paths-invalid",
            "`paths` is not an object",
            "/paths",
        );
        return out;
    };
    for (path, item) in paths {
        let mut item_ptr = String::from("/paths");
        push_token(&mut item_ptr, path);
        if path.starts_with("x-") {
            continue;
        }
        let (item_doc, item_ptr2, item) = match spec.deref(0, &item_ptr, item, opts) {
            Ok(x) => x,
            Err(e) => {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    format!("path item cannot be resolved: {e}; its operations are skipped"),
                    item_ptr,
                );
                continue;
            }
        };
        let Some(item) = item.as_object() else {
            diags.warn(
                0,
                "openapi-operation-skipped",
                "path item is not an object; skipped",
                item_ptr,
            );
            continue;
        };
        for (k, v) in item {
            let lower = k.to_ascii_lowercase();
            let Some(method) = METHODS.iter().find(|m| **m == lower) else {
                continue;
            };
            let mut display_ptr = item_ptr.clone();
            push_token(&mut display_ptr, k);
            if *k != lower {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    format!("`{k}` is not an operation key (methods are lower case); skipped"),
                    display_ptr,
                );
                continue;
            }
            if spec.version == SpecVersion::Swagger2 && *method == "trace" {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    "Swagger 2.0 has no `trace` operations; skipped",
                    display_ptr,
                );
                continue;
            }
            let Some(op) = v.as_object() else {
                diags.warn(
                    0,
                    "openapi-operation-skipped",
                    "operation is not an object; skipped",
                    display_ptr,
                );
                continue;
            };
            let mut op_ptr = item_ptr2.clone();
            push_token(&mut op_ptr, k);
            out.push(OpSite {
                path,
                method,
                item_doc,
                item,
                op_ptr,
                op,
                display_ptr,
            });
        }
    }
    out
}

/// Context shared by every operation.
#[derive(Debug)]
pub struct Shared {
    pub root_servers: Vec<String>,
    pub schemes: security::SchemeNames,
    /// 2.0 root `consumes` / `produces`.
    pub consumes: Vec<String>,
    pub produces: Vec<String>,
    /// Converted component schemas, shared by all operations.
    pub defs: crate::schema::DefCache,
    /// Size budget of one tool's `$defs` per direction (JSON values).
    pub schema_budget: usize,
}

/// Builds the tool of one operation.
pub fn build(
    spec: &Spec,
    opts: &ImportOptions,
    shared: &Shared,
    site: &OpSite<'_>,
    diags: &mut Diags,
) -> Built {
    let doc = site.item_doc;
    let op = site.op;
    let x_mcp = op.get("x-mcp").and_then(Value::as_object);
    let str_of = |m: Option<&Map<String, Value>>, k: &str| {
        m.and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };

    // ---- inputs
    let mut cx = SchemaCx::new(spec, opts, Direction::Input, &shared.defs)
        .with_budget(shared.schema_budget, &site.display_ptr);
    let mut inputs: Vec<Input> = Vec::new();
    let mut body_prov: Option<Map<String, Value>> = None;
    let params = merged_params(spec, opts, site, diags);
    let mut form_params = Vec::new();
    for p in &params {
        match p.loc.as_str() {
            "path" | "query" | "header" | "cookie" => {
                if let Some(i) = param_input(spec, opts, &mut cx, p, diags) {
                    inputs.push(i);
                }
            }
            "body" if spec.version == SpecVersion::Swagger2 => {
                let consumes = op_list(op, "consumes").unwrap_or_else(|| shared.consumes.clone());
                let mt = consumes
                    .iter()
                    .find(|c| is_json(c))
                    .cloned()
                    .unwrap_or_else(|| "application/json".into());
                if let Some(schema) = p.obj.get("schema") {
                    let mut ptr = p.ptr.clone();
                    push_token(&mut ptr, "schema");
                    let required = p.obj.get("required").and_then(Value::as_bool) == Some(true);
                    body_inputs(
                        &mut cx,
                        p.doc,
                        &ptr,
                        schema,
                        &mt,
                        BodyKind::Json,
                        required,
                        p.obj.get("description"),
                        &mut inputs,
                        &mut body_prov,
                        diags,
                    );
                }
            }
            "formData" if spec.version == SpecVersion::Swagger2 => form_params.push(p),
            other => {
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
    if !form_params.is_empty() {
        let consumes = op_list(op, "consumes").unwrap_or_else(|| shared.consumes.clone());
        let has_file = form_params
            .iter()
            .any(|p| p.obj.get("type").and_then(Value::as_str) == Some("file"));
        let mt = if has_file
            || consumes
                .iter()
                .any(|c| c.starts_with("multipart/form-data"))
        {
            "multipart/form-data"
        } else {
            "application/x-www-form-urlencoded"
        };
        for p in &form_params {
            if let Some(i) = param_input(spec, opts, &mut cx, p, diags) {
                inputs.push(Input { loc: "body", ..i });
            }
        }
        body_prov = Some(prov_body(mt, "properties"));
    }
    if spec.version != SpecVersion::Swagger2 {
        if let Some(rb) = op.get("requestBody") {
            let mut ptr = site.op_ptr.clone();
            push_token(&mut ptr, "requestBody");
            match spec.deref(doc, &ptr, rb, opts) {
                Ok((rdoc, rptr, rb)) => {
                    request_body(&mut cx, rdoc, &rptr, rb, &mut inputs, &mut body_prov, diags)
                }
                Err(e) => diags.warn(
                    doc,
                    "openapi-body-skipped",
                    format!("request body cannot be resolved ({e}); it is not part of the input"),
                    ptr,
                ),
            }
        }
    }
    let input_schema = assemble_input(inputs, &mut cx, diags, &mut body_prov);
    let (input_schema, arguments) = input_schema;
    let mut remote_refs = cx.remote_refs;

    // ---- output
    let mut ocx = SchemaCx::new(spec, opts, Direction::Output, &shared.defs)
        .with_budget(shared.schema_budget, &site.display_ptr);
    let (output, response_prov) = output_schema(spec, opts, shared, site, &mut ocx, diags);
    remote_refs += ocx.remote_refs;

    // ---- annotations
    let mut annotations = method_annotations(site.method);
    if let Some(Value::Object(a)) = x_mcp.and_then(|m| m.get("annotations")) {
        for (k, v) in a {
            annotations.insert(k.clone(), v.clone());
        }
    }

    // ---- text
    let summary = op
        .get("summary")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let long = op
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let title = str_of(x_mcp, "title")
        .or_else(|| summary.map(|s| s.lines().next().unwrap_or(s).trim().to_string()));
    let description = str_of(x_mcp, "description").or_else(|| match (summary, long) {
        (Some(s), Some(d)) if d.starts_with(s) => Some(d.to_string()),
        (Some(s), Some(d)) => Some(format!("{s}\n\n{d}")),
        (Some(s), None) => Some(s.to_string()),
        (None, Some(d)) => Some(d.to_string()),
        (None, None) => None,
    });
    let description = description.map(|d| match opts.description_max {
        Some(max) => truncate_description(&d, max),
        None => d,
    });
    let raw_name = site.raw_name();

    // ---- security
    let security = op.get("security").map(|s| {
        let mut ptr = site.op_ptr.clone();
        push_token(&mut ptr, "security");
        security::map_requirements(s, &shared.schemes, doc, &ptr, diags)
    });
    let security = security.flatten();

    // ---- provenance
    let mut prov = Map::new();
    prov.insert("method".into(), json!(site.method.to_ascii_uppercase()));
    prov.insert("path".into(), json!(site.path));
    if let Some(id) = site.operation_id() {
        prov.insert("operationId".into(), json!(id));
    }
    let servers = op_servers(spec, site).unwrap_or_else(|| shared.root_servers.clone());
    if !servers.is_empty() {
        prov.insert("servers".into(), json!(servers));
    }
    if let Some(b) = body_prov {
        prov.insert("requestBody".into(), Value::Object(b));
    }
    if let Some(r) = response_prov {
        prov.insert("response".into(), Value::Object(r));
    }
    if !arguments.is_empty() {
        prov.insert("arguments".into(), Value::Object(arguments));
    }
    prov.insert("pointer".into(), json!(site.display_ptr));

    Built {
        raw_name,
        title,
        description,
        input_schema,
        output,
        annotations,
        tags: site.tags(),
        deprecated: op.get("deprecated").and_then(Value::as_bool) == Some(true),
        security,
        provenance: prov,
        remote_refs,
    }
}

/// RFC 9110 method semantics as tool hints; `openWorldHint` is true because the tool
/// calls a remote API.
pub fn method_annotations(method: &str) -> Map<String, Value> {
    let (ro, destructive, idempotent) = match method {
        "get" | "head" | "options" | "trace" => (true, false, true),
        "put" => (false, true, true),
        "delete" => (false, true, true),
        "patch" => (false, true, false),
        _ => (false, false, false), // post
    };
    let mut m = Map::new();
    m.insert("readOnlyHint".into(), json!(ro));
    m.insert("destructiveHint".into(), json!(destructive));
    m.insert("idempotentHint".into(), json!(idempotent));
    m.insert("openWorldHint".into(), json!(true));
    m
}

/// Cuts a description to `max` characters, at a word boundary when one is near, and
/// marks the cut with `…` (counted).
pub fn truncate_description(d: &str, max: usize) -> String {
    if d.chars().count() <= max {
        return d.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let keep: String = d.chars().take(max - 1).collect();
    let cut = match keep.rfind(char::is_whitespace) {
        Some(i) if i >= keep.len() * 4 / 5 => keep[..i].trim_end().to_string(),
        _ => keep,
    };
    format!("{cut}…")
}

struct Param<'a> {
    name: String,
    loc: String,
    doc: usize,
    ptr: String,
    obj: &'a Map<String, Value>,
}

fn merged_params<'a>(
    spec: &'a Spec,
    opts: &ImportOptions,
    site: &OpSite<'a>,
    diags: &mut Diags,
) -> Vec<Param<'a>> {
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
            let (pdoc, pptr, p) = match spec.deref(site.item_doc, &ptr, p, opts) {
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
            if loc == "header"
                && ["accept", "content-type", "authorization"]
                    .contains(&name.to_ascii_lowercase().as_str())
            {
                continue;
            }
            let param = Param {
                name: name.to_string(),
                loc: loc.to_string(),
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

fn param_input(
    spec: &Spec,
    opts: &ImportOptions,
    cx: &mut SchemaCx<'_>,
    p: &Param<'_>,
    diags: &mut Diags,
) -> Option<Input> {
    let _ = opts;
    let mut prov = Map::new();
    prov.insert("in".into(), json!(p.loc));
    prov.insert("name".into(), json!(p.name));
    let mut schema = if spec.version == SpecVersion::Swagger2 {
        let mut s = Map::new();
        for k in V2_PARAM_SCHEMA_KEYS {
            if let Some(v) = p.obj.get(k) {
                s.insert(k.to_string(), v.clone());
            }
        }
        // 2.0 serializes by `collectionFormat` (default `csv`); provenance states
        // the equivalent 3.x style/explode for every parameter, as for 3.x.
        {
            let cf = p
                .obj
                .get("collectionFormat")
                .and_then(Value::as_str)
                .unwrap_or("csv");
            prov.insert("collectionFormat".into(), json!(cf));
            let (style, explode) = match (cf, p.loc.as_str()) {
                ("multi", _) => ("form", true),
                ("ssv", _) => ("spaceDelimited", false),
                ("pipes", _) => ("pipeDelimited", false),
                (_, "path" | "header") => ("simple", false),
                _ => ("form", false),
            };
            prov.insert("style".into(), json!(style));
            prov.insert("explode".into(), json!(explode));
        }
        cx.convert(p.doc, &Value::Object(s), &mut p.ptr.clone(), diags)
    } else if let Some(s) = p.obj.get("schema") {
        let mut ptr = p.ptr.clone();
        push_token(&mut ptr, "schema");
        let style = p
            .obj
            .get("style")
            .and_then(Value::as_str)
            .unwrap_or(match p.loc.as_str() {
                "query" | "cookie" => "form",
                _ => "simple",
            });
        let explode = p
            .obj
            .get("explode")
            .and_then(Value::as_bool)
            .unwrap_or(style == "form");
        prov.insert("style".into(), json!(style));
        prov.insert("explode".into(), json!(explode));
        if p.obj.get("allowReserved").and_then(Value::as_bool) == Some(true) {
            prov.insert("allowReserved".into(), json!(true));
        }
        cx.convert(p.doc, s, &mut ptr, diags)
    } else if let Some(Value::Object(content)) = p.obj.get("content") {
        match content.iter().next() {
            Some((mt, media)) => {
                prov.insert("contentType".into(), json!(mt));
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
    let required = p.loc == "path" || p.obj.get("required").and_then(Value::as_bool) == Some(true);
    Some(Input {
        name: p.name.clone(),
        loc: leak_loc(&p.loc),
        required,
        schema,
        prov,
    })
}

fn leak_loc(l: &str) -> &'static str {
    match l {
        "path" => "path",
        "query" => "query",
        "header" => "header",
        "cookie" => "cookie",
        _ => "body",
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Json,
    Form,
    Other,
}

fn is_json(mt: &str) -> bool {
    let mt = mt
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mt == "application/json" || mt.ends_with("+json") || mt.contains("json")
}

/// Picks the request media type (see the module docs for the order).
fn choose_media(content: &Map<String, Value>) -> Option<(&str, &Value, BodyKind)> {
    let find =
        |pred: &dyn Fn(&str) -> bool| content.iter().find(|(k, _)| pred(&k.to_ascii_lowercase()));
    if let Some((k, v)) = find(&|k| k.split(';').next().unwrap_or("").trim() == "application/json")
    {
        return Some((k, v, BodyKind::Json));
    }
    if let Some((k, v)) = find(&|k| is_json(k)) {
        return Some((k, v, BodyKind::Json));
    }
    if let Some((k, v)) = find(&|k| k.starts_with("application/x-www-form-urlencoded")) {
        return Some((k, v, BodyKind::Form));
    }
    if let Some((k, v)) = find(&|k| k.starts_with("multipart/form-data")) {
        return Some((k, v, BodyKind::Form));
    }
    content
        .iter()
        .next()
        .map(|(k, v)| (k.as_str(), v, BodyKind::Other))
}

fn prov_body(mt: &str, as_: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("contentType".into(), json!(mt));
    m.insert("as".into(), json!(as_));
    m
}

fn request_body(
    cx: &mut SchemaCx<'_>,
    doc: usize,
    ptr: &str,
    rb: &Value,
    inputs: &mut Vec<Input>,
    body_prov: &mut Option<Map<String, Value>>,
    diags: &mut Diags,
) {
    let required = rb.get("required").and_then(Value::as_bool) == Some(true);
    let Some(Value::Object(content)) = rb.get("content") else {
        diags.warn(
            doc,
            "openapi-body-skipped",
            "request body has no `content`; it is not part of the input",
            ptr,
        );
        return;
    };
    let Some((mt, media, kind)) = choose_media(content) else {
        return;
    };
    let mut mptr = ptr.to_string();
    push_token(&mut mptr, "content");
    push_token(&mut mptr, mt);
    let desc = rb.get("description");
    match media.get("schema") {
        Some(schema) => {
            push_token(&mut mptr, "schema");
            body_inputs(
                cx, doc, &mptr, schema, mt, kind, required, desc, inputs, body_prov, diags,
            );
        }
        None => {
            let schema = if kind == BodyKind::Json || kind == BodyKind::Form {
                json!({})
            } else {
                other_body_schema(mt)
            };
            push_body(inputs, schema, required, desc, mt);
            *body_prov = Some(prov_body(mt, "body"));
        }
    }
}

fn other_body_schema(mt: &str) -> Value {
    let base = mt.split(';').next().unwrap_or(mt).trim();
    if base.starts_with("text/") || base.ends_with("xml") {
        json!({"type": "string", "contentMediaType": base})
    } else {
        json!({"type": "string", "contentEncoding": "base64", "contentMediaType": base})
    }
}

fn push_body(
    inputs: &mut Vec<Input>,
    schema: Value,
    required: bool,
    desc: Option<&Value>,
    mt: &str,
) {
    let mut schema = schema;
    if let (Value::Object(m), Some(d)) = (&mut schema, desc.filter(|d| d.is_string())) {
        m.entry("description").or_insert_with(|| d.clone());
    }
    let mut prov = Map::new();
    prov.insert("in".into(), json!("body"));
    prov.insert("contentType".into(), json!(mt));
    inputs.push(Input {
        name: "body".into(),
        loc: "body",
        required,
        schema,
        prov,
    });
}

#[allow(clippy::too_many_arguments)]
fn body_inputs(
    cx: &mut SchemaCx<'_>,
    doc: usize,
    ptr: &str,
    schema: &Value,
    mt: &str,
    kind: BodyKind,
    required: bool,
    desc: Option<&Value>,
    inputs: &mut Vec<Input>,
    body_prov: &mut Option<Map<String, Value>>,
    diags: &mut Diags,
) {
    if kind != BodyKind::Other {
        let spec = cx.spec;
        let opts = cx.opts;
        if let Some(shape) = object_shape(spec, opts, doc, ptr, schema, 0) {
            for (name, pdoc, pptr, pschema) in shape.props {
                if cx.dropped_property(pdoc, &pptr, pschema) {
                    continue;
                }
                let mut p = pptr.clone();
                let conv = cx.convert(pdoc, pschema, &mut p, diags);
                let mut prov = Map::new();
                prov.insert("in".into(), json!("body"));
                prov.insert("name".into(), json!(name));
                let req = required && shape.required.contains(&name);
                inputs.push(Input {
                    name,
                    loc: "body",
                    required: req,
                    schema: conv,
                    prov,
                });
            }
            *body_prov = Some(prov_body(mt, "properties"));
            return;
        }
    }
    let mut p = ptr.to_string();
    let mut conv = cx.convert(doc, schema, &mut p, diags);
    if kind == BodyKind::Other {
        if let Value::Object(m) = &mut conv {
            let is_string = m.get("type").and_then(Value::as_str) == Some("string");
            let base = mt.split(';').next().unwrap_or(mt).trim().to_string();
            if is_string
                && !m.contains_key("contentEncoding")
                && !(base.starts_with("text/") || base.ends_with("xml"))
            {
                m.insert("contentEncoding".into(), json!("base64"));
            }
            if is_string {
                m.entry("contentMediaType").or_insert_with(|| json!(base));
            }
            if m.is_empty() {
                conv = other_body_schema(mt);
            }
        }
    }
    push_body(inputs, conv, required, desc, mt);
    *body_prov = Some(prov_body(mt, "body"));
}

struct Shape<'a> {
    props: Vec<(String, usize, String, &'a Value)>,
    required: Vec<String>,
}

/// The members of an object body that can be flattened, or None.
fn object_shape<'a>(
    spec: &'a Spec,
    opts: &ImportOptions,
    doc: usize,
    ptr: &str,
    schema: &'a Value,
    depth: usize,
) -> Option<Shape<'a>> {
    if depth > 8 {
        return None;
    }
    let (doc, ptr, s) = spec.deref(doc, ptr, schema, opts).ok()?;
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
            let inner = object_shape(spec, opts, doc, &p, sub, depth + 1)?;
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

/// The object form of a boolean schema (`true` → `{}`, `false` → `{"not": {}}`).
fn object_form(v: Value) -> Value {
    match v {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({"not": {}}),
        other => other,
    }
}

/// Resolves name clashes and builds the input root.
fn assemble_input(
    inputs: Vec<Input>,
    cx: &mut SchemaCx<'_>,
    diags: &mut Diags,
    _body_prov: &mut Option<Map<String, Value>>,
) -> (Value, Map<String, Value>) {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for i in &inputs {
        *counts.entry(i.name.as_str()).or_default() += 1;
    }
    let renamed: Vec<String> = inputs
        .iter()
        .map(|i| {
            if counts[i.name.as_str()] > 1 && i.loc != "body" {
                format!("{}__{}", i.name, i.loc)
            } else {
                i.name.clone()
            }
        })
        .collect();
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut arguments = Map::new();
    for (i, mut name) in inputs.into_iter().zip(renamed) {
        while props.contains_key(&name) {
            name.push('_');
            name.push_str(i.loc);
        }
        if i.required {
            required.push(json!(name));
        }
        // Property schemas must be objects before 2025-11-25 (§9.2): the boolean
        // forms become their object equivalents.
        let schema = object_form(i.schema);
        props.insert(name.clone(), schema);
        arguments.insert(name, Value::Object(i.prov));
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

fn op_list(op: &Map<String, Value>, k: &str) -> Option<Vec<String>> {
    op.get(k).and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect()
    })
}

/// Response status codes in selection order.
fn response_order(responses: &Map<String, Value>) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in ["200", "201", "202", "203", "204"] {
        if responses.contains_key(c) {
            out.push(c);
        }
    }
    for c in ["2XX", "2xx"] {
        if responses.contains_key(c) {
            out.push(c);
        }
    }
    let mut rest: Vec<&str> = responses
        .keys()
        .map(String::as_str)
        .filter(|k| {
            k.len() == 3
                && k.starts_with('2')
                && k.chars().all(|c| c.is_ascii_digit())
                && !out.contains(k)
        })
        .collect();
    rest.sort_unstable();
    out.extend(rest);
    out
}

fn output_schema(
    spec: &Spec,
    opts: &ImportOptions,
    shared: &Shared,
    site: &OpSite<'_>,
    cx: &mut SchemaCx<'_>,
    diags: &mut Diags,
) -> (Option<Output>, Option<Map<String, Value>>) {
    let Some(Value::Object(responses)) = site.op.get("responses") else {
        return (None, None);
    };
    let mut rptr = site.op_ptr.clone();
    push_token(&mut rptr, "responses");
    for code in response_order(responses) {
        let mut ptr = rptr.clone();
        push_token(&mut ptr, code);
        let Ok((doc, ptr, resp)) = spec.deref(site.item_doc, &ptr, &responses[code], opts) else {
            diags.warn(
                site.item_doc,
                "openapi-response-unresolved",
                format!("response `{code}` cannot be resolved; skipped"),
                ptr,
            );
            continue;
        };
        let mut prov = Map::new();
        prov.insert("status".into(), json!(code));
        if code == "204" {
            return (None, Some(prov));
        }
        let (mt, schema, sptr) = if spec.version == SpecVersion::Swagger2 {
            let produces = op_list(site.op, "produces").unwrap_or_else(|| shared.produces.clone());
            let json_mt = if produces.is_empty() {
                Some("application/json".to_string())
            } else {
                produces.iter().find(|p| is_json(p)).cloned()
            };
            match (json_mt, resp.get("schema")) {
                (Some(mt), Some(s)) => {
                    let mut p = ptr.clone();
                    push_token(&mut p, "schema");
                    (mt, s, p)
                }
                _ => continue,
            }
        } else {
            let Some(Value::Object(content)) = resp.get("content") else {
                continue;
            };
            let Some((mt, media)) = content
                .iter()
                .find(|(k, _)| {
                    k.split(';')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .eq_ignore_ascii_case("application/json")
                })
                .or_else(|| content.iter().find(|(k, _)| is_json(k)))
            else {
                continue;
            };
            let Some(s) = media.get("schema") else {
                continue;
            };
            let mut p = ptr.clone();
            push_token(&mut p, "content");
            push_token(&mut p, mt);
            push_token(&mut p, "schema");
            (mt.clone(), s, p)
        };
        prov.insert("contentType".into(), json!(mt));
        // Inline a root reference: the root must show its type.
        let (sdoc, sptr, target) = match spec.deref(doc, &sptr, schema, opts) {
            Ok(x) => x,
            Err(_) => (doc, sptr, schema),
        };
        let mut p = sptr.clone();
        let mut conv = cx.convert(sdoc, target, &mut p, diags);
        // 3.1: siblings of a root `$ref` apply too; keep the description the author
        // put next to it (the inlined target's own description otherwise).
        if spec.version == SpecVersion::OpenApi31 && !std::ptr::eq(target, schema) {
            if let (Value::Object(m), Some(d)) = (
                &mut conv,
                schema.get("description").filter(|d| d.is_string()),
            ) {
                m.insert("description".into(), d.clone());
            }
        }
        // Roots and root property schemas must be objects before 2025-11-25 (§9.2).
        let mut conv = object_form(conv);
        if let Some(Value::Object(props)) = conv.get_mut("properties") {
            for v in props.values_mut() {
                if v.is_boolean() {
                    *v = object_form(std::mem::take(v));
                }
            }
        }
        let object_root = is_object_root(spec, opts, sdoc, &sptr, target, &mut conv);
        let defs = cx.finish_defs(&mut conv, diags);
        if let (Value::Object(m), Some(defs)) = (&mut conv, defs) {
            m.insert("$defs".into(), Value::Object(defs));
        }
        return (
            Some(Output {
                schema: conv,
                object_root,
            }),
            Some(prov),
        );
    }
    (None, None)
}

/// Whether a converted schema describes objects only; adds the implied
/// `type: "object"` where the source left it out (properties without a type, or an
/// `allOf` with an object member).
fn is_object_root(
    spec: &Spec,
    opts: &ImportOptions,
    doc: usize,
    ptr: &str,
    src: &Value,
    conv: &mut Value,
) -> bool {
    let Value::Object(m) = conv else { return false };
    match m.get("type") {
        Some(Value::String(t)) => return t == "object",
        Some(_) => return false,
        None => {}
    }
    if m.contains_key("anyOf")
        || m.contains_key("oneOf")
        || m.contains_key("not")
        || m.contains_key("$ref")
    {
        return false;
    }
    let implied = m.contains_key("properties")
        || m.contains_key("additionalProperties")
        || m.contains_key("patternProperties")
        || object_shape(spec, opts, doc, ptr, src, 0).is_some_and(|_| m.contains_key("allOf"));
    if implied {
        m.insert("type".into(), json!("object"));
    }
    implied
}

/// Server URLs of an operation (3.x operation or path-item `servers`), None when
/// neither declares any.
fn op_servers(spec: &Spec, site: &OpSite<'_>) -> Option<Vec<String>> {
    if spec.version == SpecVersion::Swagger2 {
        return None;
    }
    for owner in [site.op, site.item] {
        if let Some(Value::Array(s)) = owner.get("servers") {
            let v = server_urls(s);
            if !v.is_empty() {
                return Some(v);
            }
        }
    }
    None
}

/// URLs of 3.x Server Objects, variables replaced by their defaults.
pub fn server_urls(servers: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for s in servers {
        let Some(url) = s.get("url").and_then(Value::as_str) else {
            continue;
        };
        let mut url = url.to_string();
        if let Some(Value::Object(vars)) = s.get("variables") {
            for (k, v) in vars {
                if let Some(d) = v
                    .get("default")
                    .and_then(|d| d.as_str().map(String::from).or_else(|| Some(d.to_string())))
                {
                    url = url.replace(&format!("{{{k}}}"), &d);
                }
            }
        }
        if !out.contains(&url) {
            out.push(url);
        }
    }
    out
}

/// 2.0: `schemes` × `host` + `basePath`.
pub fn swagger_urls(root: &Value) -> Vec<String> {
    let host = root.get("host").and_then(Value::as_str);
    let base = root.get("basePath").and_then(Value::as_str).unwrap_or("");
    let schemes: Vec<&str> = root
        .get("schemes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match host {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation() {
        assert_eq!(truncate_description("short", 10), "short");
        let t = truncate_description("hello wonderful world of apis", 20);
        assert!(t.chars().count() <= 20, "{t}");
        assert!(t.ends_with('…'));
        assert_eq!(truncate_description("abcdef", 4), "abc…");
    }

    #[test]
    fn order() {
        let m: Map<String, Value> = serde_json::from_value(
            json!({"default": {}, "299": {}, "2XX": {}, "201": {}, "206": {}}),
        )
        .unwrap_or_default();
        assert_eq!(response_order(&m), vec!["201", "2XX", "206", "299"]);
    }

    #[test]
    fn hints() {
        assert_eq!(method_annotations("get")["readOnlyHint"], json!(true));
        assert_eq!(method_annotations("patch")["idempotentHint"], json!(false));
        assert_eq!(method_annotations("delete")["destructiveHint"], json!(true));
        assert_eq!(method_annotations("post")["destructiveHint"], json!(false));
    }
}
