//! One `tools/call` as every backend sees it: the request ([`ToolCall`]), the answer
//! ([`CallOutcome`]: a Tool Result plus what to log) and the Tool Result frames every
//! backend builds ([`text_result`], [`complete`]).
//!
//! The REST gateway ([`RestBackend`](crate::RestBackend)) answers a [`ToolCall`] with
//! a [`CallOutcome`], and so does `mcpdesc-serve`'s mock; the MCP side
//! (`mcpdesc-serve`) validates the arguments first, logs [`CallLog`] and sends
//! [`CallOutcome::result`] as the `tools/call` result. These types live here, below the
//! server, because the gateway builds them: `mcpdesc-serve` depends on this crate and
//! never the reverse.

use mcpdesc_core::{Feature, ProtocolRevision};
use serde_json::{Map, Value, json};
use std::fmt;
use std::time::Duration;

/// One `tools/call`, after the MCP side validated `arguments` against the tool's
/// `inputSchema` at `revision`.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The Tool object of the negotiated revision's Effective Protocol View
    /// (`mcpdesc_scope::project`): its `outputSchema` and `x-mcpdesc-openapi` are that
    /// revision's.
    pub tool: &'a Value,
    /// The position of the tool's declaration in the description's `tools`: which
    /// protocol-scoped variant this is. The caller found it by (name, revision) in its
    /// own index; backends key what they prepared by it.
    pub index: usize,
    /// The negotiated protocol revision; the result must be valid there.
    pub revision: ProtocolRevision,
    /// `params.arguments` (an absent `arguments` is an empty map).
    pub arguments: &'a Map<String, Value>,
    /// Inbound HTTP headers the operator named with `--forward-header`, as received
    /// (name, value). Empty over stdio. The REST backend forwards exactly these.
    pub forwarded_headers: &'a [(String, String)],
    /// The request's `params._meta`, if any (the mock reads its example selection
    /// there).
    pub meta: Option<&'a Map<String, Value>>,
    /// With `--upstream-token-exchange`: the authenticated caller's token and the
    /// schemes whose upstream credential is exchanged from it. `None` over stdio, without
    /// OAuth, and without the flag: the configured credentials apply.
    pub token_exchange: Option<crate::TokenExchange<'a>>,
}

impl ToolCall<'_> {
    /// The tool's `name` (empty when the Tool object has none).
    pub fn tool_name(&self) -> &str {
        self.tool.get("name").and_then(Value::as_str).unwrap_or("")
    }
}

/// The answer to one [`ToolCall`].
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// A completed `CallToolResult` valid at the call's revision: `content`, and
    /// `structuredContent` / `isError` / `resultType` as that revision defines them.
    /// Tool execution errors are results with `isError: true`, never JSON-RPC errors.
    pub result: Value,
    /// What to log about the call (never a secret).
    pub log: CallLog,
}

impl CallOutcome {
    /// A tool execution error (`isError: true`) with `message` as its text, nothing sent
    /// upstream.
    pub fn tool_error(revision: ProtocolRevision, message: impl Into<String>) -> Self {
        let message = message.into();
        CallOutcome {
            result: error_result(revision, &message),
            log: CallLog {
                is_error: true,
                error: Some(message),
                ..CallLog::default()
            },
        }
    }
}

/// One log line's worth of facts about a call. No field ever holds a secret: URLs have
/// credential-bearing query parameters redacted, and no header value is kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallLog {
    /// The upstream request, when one was sent (`None` for the mock and for calls
    /// refused before anything was sent).
    pub upstream: Option<UpstreamLog>,
    /// Whether the result is a tool execution error.
    pub is_error: bool,
    /// Why the call failed, when it did (the same words the result shows the model).
    pub error: Option<String>,
    /// Non-fatal findings, e.g. an upstream response that does not match `outputSchema`
    /// under `--validate-output warn`.
    pub warnings: Vec<String>,
    /// Further facts for the log line (e.g. which mock example answered).
    pub notes: Vec<String>,
}

/// The upstream side of a call, for the log line.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamLog {
    /// Method token, e.g. `GET`.
    pub method: String,
    /// The request URL with secrets redacted (`api_key=REDACTED`).
    pub url: String,
    /// The final HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// From sending the first request to having read the response (retries and
    /// redirects included).
    pub latency: Duration,
    /// Requests sent for this call: 1, or 2 after an OAuth token refresh on 401.
    pub attempts: u8,
}

impl fmt::Display for CallLog {
    /// `GET https://api.example.com/pets/1 -> 200 (12.3 ms)`, then warnings/errors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.upstream {
            Some(u) => {
                write!(f, "{} {} -> ", u.method, u.url)?;
                match u.status {
                    Some(s) => write!(f, "{s}")?,
                    None => f.write_str("no response")?,
                }
                write!(f, " ({:.1} ms)", u.latency.as_secs_f64() * 1000.0)?;
            }
            None => f.write_str("not sent upstream")?,
        }
        if let Some(e) = &self.error {
            write!(f, "; error: {e}")?;
        }
        for w in &self.warnings {
            write!(f, "; warning: {w}")?;
        }
        for n in &self.notes {
            write!(f, "; {n}")?;
        }
        Ok(())
    }
}

/// Adds what a completed result needs at `revision` (`resultType: "complete"` where
/// [`Feature::ResultType`] is defined) and returns it as a value.
pub fn complete(revision: ProtocolRevision, mut result: Map<String, Value>) -> Value {
    if revision.has(Feature::ResultType) {
        result.insert("resultType".into(), json!("complete"));
    }
    Value::Object(result)
}

/// A text content block.
pub fn text_block(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

/// A successful result with one text block.
pub fn text_result(revision: ProtocolRevision, text: impl Into<String>) -> Value {
    let mut m = Map::new();
    m.insert("content".into(), json!([text_block(text)]));
    complete(revision, m)
}

/// A tool execution error (`isError: true`) with one text block and no
/// `structuredContent` (§9.3).
pub fn error_result(revision: ProtocolRevision, text: &str) -> Value {
    let mut m = Map::new();
    m.insert("content".into(), json!([text_block(text)]));
    m.insert("isError".into(), json!(true));
    complete(revision, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_type_only_where_defined() {
        let r = text_result(ProtocolRevision::V2026_07_28, "x");
        assert_eq!(r["resultType"], "complete");
        let r = text_result(ProtocolRevision::V2025_11_25, "x");
        assert!(r.get("resultType").is_none());
        let e = error_result(ProtocolRevision::V2024_11_05, "bad");
        assert_eq!(e["isError"], true);
        assert!(e.get("structuredContent").is_none());
    }

    #[test]
    fn log_line() {
        let l = CallLog {
            upstream: Some(UpstreamLog {
                method: "GET".into(),
                url: "https://a.example/x?k=REDACTED".into(),
                status: Some(200),
                latency: Duration::from_micros(12_300),
                attempts: 1,
            }),
            ..CallLog::default()
        };
        assert_eq!(
            l.to_string(),
            "GET https://a.example/x?k=REDACTED -> 200 (12.3 ms)"
        );
    }
}
