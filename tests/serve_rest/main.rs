//! The REST side of `mcpdesc serve` (issue 13), through `mcpdesc_rest`:
//! - [`exact`]: proof 3 — an in-test loopback recorder captures what the gateway sends
//!   (method, target, headers, cookies, body bytes); expectations are written by hand
//!   from OpenAPI 3.1.1, RFC 3986/6570/7578/6749.
//! - [`auth`]: every security scheme kind, OAuth 2.0 client credentials against a
//!   recorder token endpoint (cache, expiry, one refresh on 401).
//! - [`responses`]: HTTP responses → Tool Results per revision; every result is
//!   checked by the workspace validator as a named example of its tool.
//! - [`faults`]: the HTTP-side faults of proof 6.
//! - [`prism`]: proof 2 — Prism validates every request against the OpenAPI document.
//!
//! Descriptions are written by hand with provenance, so nothing here depends on the
//! importer's output except the Prism runs over imported specs.

mod arguments;
mod auth;
mod exact;
mod faults;
mod prism;
mod recorder;
mod responses;

use mcpdesc_core::ProtocolRevision;
use mcpdesc_rest::call::{CallOutcome, ToolCall};
use mcpdesc_rest::{RestBackend, RestOptions};
use serde_json::{Map, Value, json};

/// The three revisions with complete validation.
pub const REVS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// A description with `tools` (root `protocolVersions`: every revision) and extra root
/// members (`securitySchemes`, `security`, …).
pub fn doc(tools: Vec<Value>, extra: Value) -> Value {
    let mut d = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "serve-rest-tests", "version": "1.0.0"},
        "protocolVersions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
        "tools": tools,
    });
    if let (Some(m), Value::Object(e)) = (d.as_object_mut(), extra) {
        m.extend(e);
    }
    d
}

/// A tool: `name`, input properties (`{}` schemas unless given), provenance.
pub fn tool(name: &str, input: Value, prov: Value) -> Value {
    json!({
        "name": name,
        "inputSchema": input,
        "x-mcpdesc-openapi": prov,
    })
}

/// The gateway for `d` with `opts`.
pub fn gateway(d: &Value, opts: RestOptions) -> RestBackend {
    match RestBackend::new(d, opts) {
        Ok(b) => b,
        Err(e) => panic!("RestBackend::new refused the description: {e:#?}"),
    }
}

/// Options pointing every tool at `base`.
pub fn at(base: &str) -> RestOptions {
    RestOptions {
        base_url: Some(base.to_string()),
        ..RestOptions::default()
    }
}

/// One call of tool `name` at `rev`.
pub async fn call(
    b: &RestBackend,
    d: &Value,
    name: &str,
    args: Value,
    rev: ProtocolRevision,
) -> CallOutcome {
    call_with(b, d, name, args, rev, &[]).await
}

pub async fn call_with(
    b: &RestBackend,
    d: &Value,
    name: &str,
    args: Value,
    rev: ProtocolRevision,
    forwarded: &[(String, String)],
) -> CallOutcome {
    let view = mcpdesc_tests::project(d, rev).expect("the test description projects");
    let tool = view["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("tool {name} at {rev}"));
    let args: Map<String, Value> = match args {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    b.call(ToolCall {
        tool: &tool,
        index: declared_at(d, name, rev),
        revision: rev,
        arguments: &args,
        forwarded_headers: forwarded,
        meta: None,
        token_exchange: None,
    })
    .await
}

/// The position in `d`'s `tools` of the declaration of `name` that revision `rev`
/// lists (what the server's catalog finds and hands the backend as
/// [`ToolCall::index`]).
pub fn declared_at(d: &Value, name: &str, rev: ProtocolRevision) -> usize {
    let root = mcpdesc_core::decl::root_scope(d);
    d["tools"]
        .as_array()
        .and_then(|t| {
            t.iter().position(|t| {
                t["name"] == name && mcpdesc_core::decl::decl_scope(t, root).contains(rev)
            })
        })
        .unwrap_or_else(|| panic!("no declaration of {name} at {rev}"))
}

/// The validator's verdict on `result` as a named example of tool `name` at `rev`
/// (§9.3: the result shape of the revision, `outputSchema` compatibility). Returns the
/// error diagnostics at the example.
pub fn example_errors(
    d: &Value,
    name: &str,
    args: &Value,
    result: &Value,
    rev: ProtocolRevision,
) -> Vec<String> {
    let mut view = mcpdesc_tests::project(d, rev).expect("projects");
    let tools = view["tools"].as_array_mut().expect("tools");
    let (i, t) = tools
        .iter_mut()
        .enumerate()
        .find(|(_, t)| t["name"] == name)
        .expect("tool");
    t["examples"] = json!({"served": {"input": args, "result": result}});
    let prefix = format!("/tools/{i}/examples");
    mcpdesc_validate::validate_value(&view)
        .into_iter()
        .filter(|d| d.is_error() && d.pointer.starts_with(&prefix))
        .map(|d| format!("{}: {} ({})", d.code, d.message, d.pointer))
        .collect()
}

/// Asserts the result validates as an example of its tool at `rev`.
pub fn assert_valid(d: &Value, name: &str, args: &Value, result: &Value, rev: ProtocolRevision) {
    let e = example_errors(d, name, args, result, rev);
    assert!(
        e.is_empty(),
        "result of {name} at {rev} does not validate: {e:#?}\n{result:#}"
    );
}

/// The text of the first content block.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// Parses a `multipart/form-data` body into (part headers, body) by its boundary.
pub fn multipart_parts(content_type: &str, body: &[u8]) -> Vec<(Vec<String>, Vec<u8>)> {
    let boundary = content_type
        .split("boundary=")
        .nth(1)
        .expect("boundary")
        .trim_matches('"');
    let delim = format!("--{boundary}");
    let text = body;
    let mut parts = Vec::new();
    let positions: Vec<usize> = (0..text.len().saturating_sub(delim.len()) + 1)
        .filter(|&i| text[i..].starts_with(delim.as_bytes()))
        .collect();
    for w in positions.windows(2) {
        let chunk = &text[w[0] + delim.len()..w[1]];
        let chunk = chunk.strip_prefix(b"\r\n").expect("CRLF after boundary");
        let chunk = chunk.strip_suffix(b"\r\n").expect("CRLF before boundary");
        let split = chunk
            .windows(4)
            .position(|x| x == b"\r\n\r\n")
            .expect("header end");
        let headers = String::from_utf8_lossy(&chunk[..split])
            .split("\r\n")
            .map(String::from)
            .collect();
        parts.push((headers, chunk[split + 4..].to_vec()));
    }
    let last = positions.last().copied().expect("closing boundary");
    assert_eq!(
        &text[last..],
        format!("{delim}--\r\n").as_bytes(),
        "closing delimiter"
    );
    parts
}
