//! The REST gateway's request builder (`mcpdesc-rest`, no network): for a tool whose
//! provenance, input properties, security schemes, credentials, forwarded headers and
//! call arguments all come from the fuzzer, the request it builds (if any) never leaves
//! what the description declared. The input is a JSON object:
//! `{"path", "method", "arguments", "requestBody", ...}` is the tool's
//! `x-mcpdesc-openapi` (its `servers` is always `http://127.0.0.1:9/base`), plus
//! `props` (input schema properties), `schemes` (root `securitySchemes`), `security`
//! (the tool's), `creds` (scheme → credential), `forwarded` (`[[name, value], ...]`)
//! and `args` (the call's arguments).
//!
//! Oracle, on every request built:
//! - the URL parses as reqwest parses it (WHATWG, the `url` crate); its scheme, host
//!   and port are the declared server's; no userinfo, no fragment;
//! - its path is sent exactly as built (the parser neither removes a dot-segment nor
//!   re-encodes anything), starts with the server's base path, and has exactly the
//!   template's number of segments: no value or template text adds, removes or climbs
//!   a segment;
//! - every header name is an RFC 9110 token that is not one the gateway must set
//!   itself (`Host`, framing, hop-by-hop), and every header value, the body's
//!   `Content-Type` included, is a valid field value (no CR, LF, NUL, ...).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::ProtocolRevision;
use mcpdesc_core::http::{check_field_value, is_token};
use mcpdesc_rest::call::ToolCall;
use mcpdesc_rest::{
    BoxFuture, HttpClient, HttpRequest, HttpResponse, ReadLimits, RestBackend, RestOptions,
    SendError,
};
use serde_json::{Map, Value, json};
use std::sync::Arc;

const SERVER: &str = "http://127.0.0.1:9/base";

/// The builder is pure; nothing is ever sent.
#[derive(Debug)]
struct NoNetwork;

impl HttpClient for NoNetwork {
    fn send<'a>(
        &'a self,
        _: &'a HttpRequest,
        _: Option<&'a str>,
        _: ReadLimits,
    ) -> BoxFuture<'a, Result<HttpResponse, SendError>> {
        Box::pin(async { Err(SendError("no network in the fuzz target".into())) })
    }
}

/// Headers the gateway sets itself (`mcpdesc_rest`'s hop-by-hop list, written out
/// here so the oracle does not take the code under test's word for it).
const GATEWAY_OWNED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(mut prov)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let props = prov.remove("props").unwrap_or_else(|| json!({}));
    let schemes = prov.remove("schemes");
    let security = prov.remove("security");
    let creds = prov.remove("creds");
    let forwarded = prov.remove("forwarded");
    let args = match prov.remove("args") {
        Some(Value::Object(a)) => a,
        None => Map::new(),
        Some(_) => return,
    };
    let Some(template) = prov.get("path").and_then(Value::as_str).map(String::from) else {
        return;
    };
    prov.insert("servers".into(), json!([SERVER]));
    let mut tool = json!({
        "name": "t",
        "inputSchema": {"type": "object", "properties": props},
        "x-mcpdesc-openapi": prov
    });
    if let Some(s) = security {
        tool["security"] = s;
    }
    let mut doc = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "fuzz", "version": "1"},
        "protocolVersions": ["2026-07-28"],
        "tools": [tool]
    });
    if let Some(s) = schemes {
        doc["securitySchemes"] = s;
    }
    let mut opts = RestOptions::default();
    if let Some(Value::Object(c)) = creds {
        for (k, v) in c {
            if let Value::String(v) = v {
                opts.credentials.insert(k, mcpdesc_core::Secret::new(v));
            }
        }
    }
    // Forwarded headers arrive as HTTP header fields: their names are tokens.
    let forwarded: Vec<(String, String)> = match forwarded {
        Some(Value::Array(pairs)) => pairs
            .iter()
            .filter_map(|p| Some((p.get(0)?.as_str()?, p.get(1)?.as_str()?)))
            .filter(|(n, _)| is_token(n))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        _ => Vec::new(),
    };
    let doc = Arc::new(doc);
    let backend = match RestBackend::with_client(doc.clone(), opts, Arc::new(NoNetwork)) {
        Ok(b) => b,
        Err(e) => {
            if std::env::var_os("FUZZ_SHOW").is_some() {
                eprintln!("refused: {e:?}");
            }
            return;
        }
    };
    let built = backend.build_request(&ToolCall {
        tool: &doc["tools"][0],
        index: 0,
        revision: ProtocolRevision::V2026_07_28,
        arguments: &args,
        forwarded_headers: &forwarded,
        meta: None,
        token_exchange: None,
    });
    // `FUZZ_SHOW=1 gateway_request FILE` shows what an input builds (seed triage).
    if std::env::var_os("FUZZ_SHOW").is_some() {
        eprintln!("{built:#?}");
    }
    if let Ok(req) = built {
        check(&req, &template);
    }
});

fn check(req: &HttpRequest, template: &str) {
    let url = url::Url::parse(&req.url)
        .unwrap_or_else(|e| panic!("the request URL `{}` does not parse: {e}", req.url));
    assert_eq!(url.scheme(), "http", "{}", req.url);
    assert_eq!(url.host_str(), Some("127.0.0.1"), "{}", req.url);
    assert_eq!(url.port(), Some(9), "{}", req.url);
    assert!(url.username().is_empty() && url.password().is_none(), "{}", req.url);
    assert_eq!(url.fragment(), None, "{}", req.url);
    let sent = &req.url["http://127.0.0.1:9".len()..];
    let sent_path = sent.split('?').next().unwrap_or(sent);
    assert_eq!(
        url.path(),
        sent_path,
        "the URL parser changed the path (a dot-segment or an unencoded character)"
    );
    assert!(sent_path.starts_with("/base/"), "{}", req.url);
    assert_eq!(
        sent_path.matches('/').count(),
        1 + template.matches('/').count(),
        "the path has another number of segments than template `{template}`: {}",
        req.url
    );
    let mut fields: Vec<(&str, &str)> = req
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    if let Some(b) = &req.body {
        fields.push(("Content-Type", b.content_type.as_str()));
    }
    for (name, value) in fields {
        assert!(is_token(name), "header name {name:?} is not a token");
        assert!(
            !GATEWAY_OWNED.contains(&name.to_ascii_lowercase().as_str()),
            "header {name:?} is one the gateway sets itself"
        );
        assert!(
            check_field_value(value).is_ok(),
            "header {name}: {value:?} is not a valid field value"
        );
    }
}
