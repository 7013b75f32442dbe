//! Hand-written expectations of what the gateway sends and answers: the exact URL,
//! header fields and body bytes a tool's provenance and arguments give (OpenAPI 3.1.1
//! §4.8.12.4 *Style Examples*, §4.8.15 Encoding Object, RFC 3986 percent-encoding,
//! RFC 7578 multipart), the Tool Result an HTTP response becomes, and the words a user
//! reads when something cannot be sent. Everything goes through the crate's public
//! entry points ([`RestBackend::build_request`], [`RestBackend::call`] with a scripted
//! [`HttpClient`]).

mod backend;
mod body;
mod client;
mod header_rule;
mod misc;
mod mutants;
mod options;
mod request;
mod response;
mod shapes;
mod style_examples;

use crate::call::ToolCall;
use crate::{
    BoxFuture, HttpClient, HttpRequest, HttpResponse, ReadLimits, RestBackend, RestOptions,
    SendError,
};
use mcpdesc_core::ProtocolRevision;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The server every test tool is served from.
pub(crate) const BASE: &str = "http://127.0.0.1:9/base";

/// A description with one tool `t` whose `x-mcpdesc-openapi` is `prov` (servers
/// default to [`BASE`]) and whose input properties are `props`.
pub(crate) fn doc(mut prov: Value, props: Value) -> Value {
    if prov.get("servers").is_none() {
        prov["servers"] = json!([BASE]);
    }
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "t", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [{
            "name": "t",
            "inputSchema": {"type": "object", "properties": props},
            "x-mcpdesc-openapi": prov
        }]
    })
}

/// `GET path` with these arguments' provenance.
pub(crate) fn get(path: &str, arguments: Value) -> Value {
    json!({"method": "GET", "path": path, "arguments": arguments})
}

pub(crate) fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object: {other}"),
    }
}

/// The request `doc`'s first tool sends for `arguments` (no forwarded headers).
pub(crate) fn request(doc: &Value, arguments: Value) -> Result<HttpRequest, String> {
    request_with(doc, RestOptions::default(), arguments, &[])
}

pub(crate) fn request_with(
    doc: &Value,
    opts: RestOptions,
    arguments: Value,
    forwarded: &[(String, String)],
) -> Result<HttpRequest, String> {
    let backend = RestBackend::new(doc, opts).expect("the gateway starts");
    let arguments = args(arguments);
    backend.build_request(&ToolCall {
        tool: &doc["tools"][0],
        index: 0,
        revision: ProtocolRevision::V2026_07_28,
        arguments: &arguments,
        forwarded_headers: forwarded,
        meta: None,
        token_exchange: None,
    })
}

/// The value of header `name` (case-insensitive), if sent.
pub(crate) fn header<'a>(r: &'a HttpRequest, name: &str) -> Option<&'a str> {
    r.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// An [`HttpClient`] that answers from a script, in order, and records every request
/// (with the bearer token the gateway added).
#[derive(Debug, Default)]
pub(crate) struct Scripted {
    answers: Mutex<VecDeque<Result<HttpResponse, SendError>>>,
    pub(crate) seen: Mutex<Vec<(HttpRequest, Option<String>, ReadLimits)>>,
}

impl Scripted {
    pub(crate) fn new(answers: Vec<Result<HttpResponse, SendError>>) -> Arc<Scripted> {
        Arc::new(Scripted {
            answers: Mutex::new(answers.into()),
            seen: Mutex::default(),
        })
    }

    pub(crate) fn seen(&self) -> Vec<(HttpRequest, Option<String>, ReadLimits)> {
        self.seen.lock().expect("lock").clone()
    }
}

impl HttpClient for Scripted {
    fn send<'a>(
        &'a self,
        req: &'a HttpRequest,
        bearer: Option<&'a str>,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<HttpResponse, SendError>> {
        self.seen
            .lock()
            .expect("lock")
            .push((req.clone(), bearer.map(String::from), limits));
        let next = self
            .answers
            .lock()
            .expect("lock")
            .pop_front()
            .expect("the script has an answer for every request");
        Box::pin(async move { next })
    }
}

/// A response with a body and its `Content-Type`.
pub(crate) fn response(status: u16, content_type: Option<&str>, body: &[u8]) -> HttpResponse {
    HttpResponse {
        status,
        reason: http_reason(status).map(String::from),
        content_type: content_type.map(String::from),
        body: body.to_vec(),
        truncated: false,
    }
}

fn http_reason(status: u16) -> Option<&'static str> {
    Some(match status {
        200 => "OK",
        204 => "No Content",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => return None,
    })
}

/// A backend over `client` for `doc`.
pub(crate) fn backend_with(doc: &Value, opts: RestOptions, client: Arc<Scripted>) -> RestBackend {
    RestBackend::with_client(Arc::new(doc.clone()), opts, client).expect("the gateway starts")
}

/// One call of `doc`'s first tool at `rev`.
pub(crate) async fn call(
    backend: &RestBackend,
    doc: &Value,
    rev: ProtocolRevision,
    arguments: Value,
) -> crate::call::CallOutcome {
    let arguments = args(arguments);
    backend
        .call(ToolCall {
            tool: &doc["tools"][0],
            index: 0,
            revision: rev,
            arguments: &arguments,
            forwarded_headers: &[],
            meta: None,
            token_exchange: None,
        })
        .await
}

/// The body `doc`'s first tool sends: its `Content-Type` and bytes as text.
pub(crate) fn body_text(doc: &Value, arguments: Value) -> (String, String) {
    let b = request(doc, arguments).expect("sent").body.expect("a body");
    (
        b.content_type,
        String::from_utf8(b.bytes).expect("a text body"),
    )
}
