//! `x-mcpdesc-openapi`: where a tool came from in an OpenAPI document, with enough to
//! turn a tool call back into the HTTP request that operation describes.
//!
//! One typed model, shared by the producer (the OpenAPI importer writes it) and the
//! consumers (`mcpdesc serve` builds requests from it; codegen reads component
//! identity; docs show method and path). It is an MCP Description specification
//! extension (§14): descriptions are untrusted input, so consumers read it with
//! [`ToolProvenance::of_tool`] / [`RootProvenance::of_document`], which report a bad
//! value as a [`Diagnostic`] with its JSON pointer instead of guessing.
//!
//! Shape (tool level, every member but `method` and `path` optional):
//!
//! ```yaml
//! x-mcpdesc-openapi:
//!   method: GET                      # one of the eight OpenAPI operation methods
//!   path: /pets/{id}                 # the Paths Object key (template, not encoded)
//!   operationId: getPet
//!   servers:                         # URLs with variables expanded from their defaults,
//!     - https://eu.pets.example.com/v1   # or objects {url, description, variables}
//!   requestBody:
//!     contentType: multipart/form-data
//!     as: properties                 # object members are tool arguments (in: body)
//!     required: true
//!     encoding:                      # OpenAPI Encoding Objects, by member name
//!       photo: {contentType: image/png}
//!       meta: {contentType: application/json}
//!   response:
//!     status: "200"
//!     contentType: application/json
//!     resultWrapper: result          # structuredContent = {result: <body>}
//!     component: Pet                 # the `$defs` name of the response's component
//!   arguments:                       # tool input property → where it goes
//!     id__path: {in: path, name: id, style: simple, explode: false}
//!     filter: {in: query, name: filter, style: deepObject, explode: true}
//!     q: {in: query, name: q, contentType: application/json}   # parameter `content`
//!   pointer: /paths/~1pets~1{id}/get # where the operation was in the source
//! ```
//!
//! Root level: `{openapi: "3.0.3", servers: [...], overlays: [...]}`, where `overlays`
//! lists the OpenAPI Overlays applied to the source before import, in order:
//!
//! ```yaml
//! x-mcpdesc-openapi:
//!   openapi: 3.0.3
//!   overlays:
//!     - file: curation.overlay.yaml      # as given on the command line
//!       overlay: 1.1.0                   # the Overlay Specification version it uses
//!       title: Curate the pet store      # its info.title
//!       version: 1.0.0                   # its info.version
//!       sha256: 9f86d081884c7d65…        # of its bytes, lower-case hex
//!       extends: ./petstore.yaml         # its `extends`, when it has one (informational)
//! ```
//!
//! Unknown members are kept (`other`) so a newer producer's additions survive a
//! read-modify-write by an older consumer.

use crate::{Diagnostic, pointer};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// The extension's property name, on the root and on every imported Tool.
pub const EXTENSION: &str = "x-mcpdesc-openapi";

/// Root-level provenance: the source document's version and servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootProvenance {
    /// The source's `openapi` / `swagger` version string (`"3.0.3"`, `"2.0"`).
    pub openapi: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<Server>,
    /// The OpenAPI Overlays applied to the source before import, in the order applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlays: Vec<AppliedOverlay>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One OpenAPI Overlay document applied to the source (`import openapi --overlay`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedOverlay {
    /// The file name as the user gave it.
    pub file: String,
    /// The document's `overlay` field: the Overlay Specification version (`1.0.0`, `1.1.0`).
    pub overlay: String,
    /// Its `info.title`.
    pub title: String,
    /// Its `info.version`.
    pub version: String,
    /// SHA-256 of the file's bytes, lower-case hex: which revision of the file was used.
    pub sha256: String,
    /// Its `extends`, as written (informational: the document it was written for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Tool-level provenance: one OpenAPI operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolProvenance {
    pub method: Method,
    /// The Paths Object key, e.g. `/pets/{id}`: a template, not percent-encoded.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// The operation's effective servers (operation, else path item, else root).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<Server>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RequestBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Response>,
    /// Tool input property name → where its value goes in the request.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub arguments: IndexMap<String, Argument>,
    /// JSON pointer of the operation in the source document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The eight operation methods of an OpenAPI Path Item Object, upper-case on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
}

impl Method {
    /// The eight methods, in Path Item Object order.
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// Upper-case method token (`"GET"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }

    /// Parses a Path Item Object key (`get`) or a method token (`GET`).
    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A server: a plain URL (variables already expanded from their defaults), or the
/// Server Object's template with its variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Server {
    Url(String),
    Template(ServerTemplate),
}

/// An OpenAPI Server Object whose URL has variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTemplate {
    /// The URL template, e.g. `https://{region}.example.com/{base}`.
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variables: IndexMap<String, ServerVariable>,
}

/// An OpenAPI Server Variable Object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerVariable {
    pub default: String,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enumeration: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Server {
    /// The URL with every variable replaced by its default (a plain URL as is).
    pub fn default_url(&self) -> String {
        match self {
            Server::Url(u) => u.clone(),
            Server::Template(t) => t.variables.iter().fold(t.url.clone(), |url, (k, v)| {
                url.replace(&format!("{{{k}}}"), &v.default)
            }),
        }
    }
}

/// Where an argument goes (OpenAPI Parameter Object `in`, plus `body`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Location {
    Path,
    Query,
    Header,
    Cookie,
    /// A request-body member (`requestBody.as: properties`) or the whole body
    /// (`as: body`). `formData`, which importers before 2026-12 wrote for Swagger 2.0
    /// form parameters, reads as `body`.
    #[serde(alias = "formData")]
    Body,
}

impl Location {
    pub const fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
            Location::Cookie => "cookie",
            Location::Body => "body",
        }
    }

    /// The style OpenAPI 3.x defaults to for this location (`form` for query and
    /// cookie, `simple` for path and header; body members: `form`, as Encoding Objects).
    pub const fn default_style(self) -> Style {
        match self {
            Location::Query | Location::Cookie | Location::Body => Style::Form,
            Location::Path | Location::Header => Style::Simple,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// OpenAPI 3.x serialization styles (Parameter Object `style`, Encoding Object `style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Style {
    Matrix,
    Label,
    Simple,
    Form,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

impl Style {
    pub const fn as_str(self) -> &'static str {
        match self {
            Style::Matrix => "matrix",
            Style::Label => "label",
            Style::Simple => "simple",
            Style::Form => "form",
            Style::SpaceDelimited => "spaceDelimited",
            Style::PipeDelimited => "pipeDelimited",
            Style::DeepObject => "deepObject",
        }
    }

    /// OpenAPI's default `explode`: true for `form`, false otherwise.
    pub const fn default_explode(self) -> bool {
        matches!(self, Style::Form)
    }
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where one tool input property goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    #[serde(rename = "in")]
    pub location: Location,
    /// The parameter's (or body member's) name in the OpenAPI document. Absent for the
    /// whole body (`requestBody.as: body`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<Style>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    /// Query parameters: reserved characters (RFC 3986 §2.2) are sent unencoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_reserved: Option<bool>,
    /// A parameter described by `content` instead of `schema`: its media type (the
    /// value is serialized as that media type, e.g. JSON text, then percent-encoded).
    /// For the whole body: the body's media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Swagger 2.0 `collectionFormat` (`csv`, `ssv`, `tsv`, `pipes`, `multi`), kept
    /// beside the equivalent 3.x style/explode; `tsv` has no 3.x equivalent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_format: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Argument {
    /// The effective style: the recorded one, else the location's default.
    pub fn style(&self) -> Style {
        self.style.unwrap_or(self.location.default_style())
    }
    /// The effective `explode`: the recorded one, else the style's default.
    pub fn explode(&self) -> bool {
        self.explode.unwrap_or(self.style().default_explode())
    }
}

/// How the tool's input maps to the request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestBody {
    /// The chosen media type (`application/json`, `multipart/form-data`, …).
    pub content_type: String,
    #[serde(rename = "as")]
    pub shape: BodyShape,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Encoding Objects of `application/x-www-form-urlencoded` and
    /// `multipart/form-data` bodies, by member name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub encoding: IndexMap<String, Encoding>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Whether the body's members are separate tool arguments or the body is one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BodyShape {
    /// An object body whose members are tool arguments with `in: body`.
    Properties,
    /// The whole body is the one argument with `in: body` and no `name`.
    Body,
}

/// An OpenAPI Encoding Object (one body member of a form or multipart body).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Encoding {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<Style>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_reserved: Option<bool>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The response the tool's output was taken from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// The status code or range key (`"200"`, `"2XX"`, `"default"`).
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// When the revision's `outputSchema` wraps a non-object body: the wrapper
    /// property (`structuredContent = {wrapper: body}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_wrapper: Option<String>,
    /// The `$defs` name of the component the response schema referenced (e.g. `Pet`),
    /// so consumers can give one component one identity across tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl ToolProvenance {
    /// Reads the provenance of a Tool object: `None` when it has none, an error
    /// diagnostic (`provenance-invalid`, pointer under `tool_ptr`) when it is malformed.
    pub fn of_tool(tool: &Value, tool_ptr: &str) -> Option<Result<ToolProvenance, Diagnostic>> {
        let raw = tool.get(EXTENSION)?;
        Some(read(raw, &pointer::push(tool_ptr, EXTENSION)))
    }

    /// The data-model form (what the importer writes).
    pub fn to_value(&self) -> Value {
        // Every member serializes to JSON (string keys, no floats).
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl RootProvenance {
    /// Reads the root provenance of a document (see [`ToolProvenance::of_tool`]).
    pub fn of_document(doc: &Value) -> Option<Result<RootProvenance, Diagnostic>> {
        let raw = doc.get(EXTENSION)?;
        Some(read(raw, &pointer::push("", EXTENSION)))
    }

    /// The data-model form.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

fn read<T: serde::de::DeserializeOwned>(raw: &Value, at: &str) -> Result<T, Diagnostic> {
    serde_path_to_error::deserialize::<_, T>(raw).map_err(|e| {
        let mut p = at.to_string();
        for seg in e.path().iter() {
            match seg {
                serde_path_to_error::Segment::Seq { index } => {
                    p = pointer::push(&p, index.to_string())
                }
                serde_path_to_error::Segment::Map { key } => p = pointer::push(&p, key),
                serde_path_to_error::Segment::Enum { .. }
                | serde_path_to_error::Segment::Unknown => {}
            }
        }
        Diagnostic::error(
            "provenance-invalid",
            format!("`{EXTENSION}` is malformed: {}", e.inner()),
        )
        .at(p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_the_importer_writes_today() {
        // A tool as committed in tests/generated/petstore-3.0.mcpdesc.yaml.
        let tool = json!({"name": "get_pet", "x-mcpdesc-openapi": {
            "method": "GET", "path": "/pets/{id}", "operationId": "getPet",
            "servers": ["https://eu.pets.example.com/v1"],
            "response": {"status": "200", "contentType": "application/json"},
            "arguments": {
                "id__path": {"in": "path", "name": "id", "style": "simple", "explode": false},
                "id__query": {"in": "query", "name": "id", "style": "form", "explode": true},
                "old": {"in": "query", "name": "old", "collectionFormat": "csv", "style": "form", "explode": false}
            },
            "pointer": "/paths/~1pets~1{id}/get"
        }});
        let p = ToolProvenance::of_tool(&tool, "/tools/3")
            .expect("present")
            .expect("valid");
        assert_eq!(p.method, Method::Get);
        assert_eq!(p.arguments["id__path"].location, Location::Path);
        assert_eq!(p.arguments["id__query"].style(), Style::Form);
        assert!(p.arguments["id__query"].explode());
        assert_eq!(p.servers[0].default_url(), "https://eu.pets.example.com/v1");
        // Lossless: writing it back gives the same JSON.
        assert_eq!(p.to_value(), tool["x-mcpdesc-openapi"]);
    }

    #[test]
    fn defaults_follow_openapi() {
        // OpenAPI 3.1.1 §4.8.12.4 (style defaults) and `explode` defaults.
        let a: Argument =
            serde_json::from_value(json!({"in": "header", "name": "X"})).expect("arg");
        assert_eq!((a.style(), a.explode()), (Style::Simple, false));
        let a: Argument =
            serde_json::from_value(json!({"in": "cookie", "name": "c"})).expect("arg");
        assert_eq!((a.style(), a.explode()), (Style::Form, true));
        let a: Argument =
            serde_json::from_value(json!({"in": "query", "name": "q", "style": "deepObject"}))
                .expect("arg");
        assert!(!a.explode());
    }

    #[test]
    fn server_templates_expand_defaults() {
        let s: Server = serde_json::from_value(json!({
            "url": "https://{region}.example.com/{base}",
            "variables": {"region": {"default": "eu", "enum": ["eu", "us"]}, "base": {"default": "v1"}}
        }))
        .expect("server");
        assert_eq!(s.default_url(), "https://eu.example.com/v1");
    }

    #[test]
    fn malformed_provenance_is_a_located_error() {
        let tool = json!({"x-mcpdesc-openapi": {"method": "FETCH", "path": "/"}});
        let d = ToolProvenance::of_tool(&tool, "/tools/0")
            .expect("present")
            .expect_err("bad method");
        assert_eq!(d.code, "provenance-invalid");
        assert_eq!(d.pointer, "/tools/0/x-mcpdesc-openapi/method");
        let tool = json!({"x-mcpdesc-openapi": {"method": "GET", "path": "/", "arguments": {"a": {"in": "body2"}}}});
        let d = ToolProvenance::of_tool(&tool, "/tools/1")
            .expect("present")
            .expect_err("bad in");
        assert_eq!(d.pointer, "/tools/1/x-mcpdesc-openapi/arguments/a/in");
        assert!(ToolProvenance::of_tool(&json!({"name": "t"}), "/tools/2").is_none());
    }

    #[test]
    fn root_overlays_round_trip_and_older_records_read() {
        let doc = json!({"x-mcpdesc-openapi": {
            "openapi": "3.0.3",
            "overlays": [{"file": "a.overlay.yaml", "overlay": "1.1.0", "title": "A",
                "version": "2", "sha256": "00ff", "x-later": true}]
        }});
        let p = RootProvenance::of_document(&doc)
            .expect("present")
            .expect("valid");
        assert_eq!(p.overlays[0].file, "a.overlay.yaml");
        assert_eq!(p.overlays[0].other["x-later"], json!(true));
        assert_eq!(p.to_value(), doc["x-mcpdesc-openapi"]);
        // A record written before overlays existed has none, and writes none back.
        let old = json!({"x-mcpdesc-openapi": {"openapi": "2.0"}});
        let p = RootProvenance::of_document(&old)
            .expect("present")
            .expect("valid");
        assert!(p.overlays.is_empty());
        assert_eq!(p.to_value(), old["x-mcpdesc-openapi"]);
        let bad = json!({"x-mcpdesc-openapi": {"openapi": "3.0.3", "overlays": [{"file": 1}]}});
        let d = RootProvenance::of_document(&bad)
            .expect("present")
            .expect_err("bad");
        assert_eq!(d.pointer, "/x-mcpdesc-openapi/overlays/0/file");
    }
}
