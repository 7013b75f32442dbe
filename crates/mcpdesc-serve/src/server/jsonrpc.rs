//! JSON-RPC 2.0 framing (MCP "Base Protocol"): classifying inbound messages, building
//! responses, and the error codes `mcpdesc serve` answers with.
//!
//! Codes (JSON-RPC 2.0 §5.1 and MCP):
//!
//! | code | name | when |
//! |---:|---|---|
//! | -32700 | Parse error | the text is not JSON |
//! | -32600 | Invalid Request | not a request/notification object; an unexpected batch; the other lifecycle's request on a locked connection |
//! | -32601 | Method not found | a method the negotiated revision does not define, or one `serve` does not provide (`completion/complete`; `resources/read`, `prompts/get` without `--mock`, …) |
//! | -32602 | Invalid params | malformed params, unknown tool or prompt, bad cursor, a missing 2026-07-28 `_meta` envelope, a request before `initialize`, a mocked read no example answers, an unknown resource from 2026-07-28 |
//! | -32002 | Resource not found | `resources/read` of a URI no declaration reaches, through 2025-11-25 |
//! | -32603 | Internal error | a bug (never expected) |
//! | -32020 | Header mismatch | 2026-07-28 Streamable HTTP routing / `Mcp-Param-*` headers disagree with the body |
//! | -32022 | Unsupported protocol version | `data: {supported, requested}` |

use serde_json::{Map, Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP through 2025-11-25: `resources/read` of a URI the server does not have
/// ([`mcpdesc_core::Feature::ResourceNotFoundCode`]).
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// MCP 2026-07-28: HTTP headers do not match the request body.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP 2026-07-28: the request's protocol version is not served.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A JSON-RPC error object (`{code, message, data?}`).
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }
    pub fn method_not_found(method: &str, why: impl Into<String>) -> Self {
        Self::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", why.into()),
        )
        .with_data(json!({ "method": method }))
    }
    /// The error object as JSON.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), json!(self.code));
        m.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }
}

/// A request id: MCP allows strings and integers (never null).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    Number(String),
    Text(String),
}

impl RequestId {
    /// The id of a JSON value: a string, or an integer (kept as its text so any
    /// integer, however large, round-trips exactly).
    pub fn of(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::Text(s.clone())),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n.to_string())),
            _ => None,
        }
    }
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Text(s) => Value::String(s.clone()),
            RequestId::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        }
    }
}

/// One inbound JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Map<String, Value>>,
    },
    Notification {
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// A response (to a server request: `serve` sends none, so these are ignored).
    Response,
}

/// Classifies one decoded JSON-RPC message (not a batch). The error carries the id
/// when one could be read, so the answer can name it.
pub fn classify(v: Value) -> Result<Message, Box<(Option<RequestId>, RpcError)>> {
    classify_inner(v).map_err(Box::new)
}

// Boxed once by `classify`; inside, a tuple keeps the early returns short.
#[allow(clippy::result_large_err)]
fn classify_inner(v: Value) -> Result<Message, (Option<RequestId>, RpcError)> {
    let Value::Object(mut m) = v else {
        return Err((
            None,
            RpcError::new(
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message is an object",
            ),
        ));
    };
    let raw_id = m.get("id").cloned();
    let id = raw_id.as_ref().and_then(RequestId::of);
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((
            id,
            RpcError::new(
                INVALID_REQUEST,
                "Invalid Request: `jsonrpc` must be \"2.0\"",
            ),
        ));
    }
    let method = match m.remove("method") {
        Some(Value::String(s)) => s,
        Some(_) => {
            return Err((
                id,
                RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: `method` must be a string",
                ),
            ));
        }
        None => {
            if m.contains_key("result") || m.contains_key("error") {
                return Ok(Message::Response);
            }
            return Err((
                id,
                RpcError::new(INVALID_REQUEST, "Invalid Request: no `method`"),
            ));
        }
    };
    let params = match m.remove("params") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => {
            return Err((
                id,
                RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: MCP `params` must be an object",
                ),
            ));
        }
    };
    match raw_id {
        None => Ok(Message::Notification { method, params }),
        Some(raw) => match id {
            Some(id) => Ok(Message::Request { id, method, params }),
            None => Err((
                None,
                RpcError::new(
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: an MCP request id is a string or an integer, not {raw}"
                    ),
                ),
            )),
        },
    }
}

/// `{"jsonrpc": "2.0", "id": …, "result": …}`.
pub fn response(id: &RequestId, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
}

/// `{"jsonrpc": "2.0", "id": … | null, "error": …}`.
pub fn error_response(id: Option<&RequestId>, err: &RpcError) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.map_or(Value::Null, RequestId::to_value),
        "error": err.to_value(),
    })
}

/// The parse-error answer (`id: null`).
pub fn parse_error(detail: impl std::fmt::Display) -> Value {
    error_response(
        None,
        &RpcError::new(PARSE_ERROR, format!("Parse error: {detail}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expectations from JSON-RPC 2.0 §4, §5 and MCP "Base Protocol" (ids: string or
    // integer, never null; params: an object).
    #[test]
    fn classifies_requests_notifications_responses_and_garbage() {
        assert_eq!(
            classify(json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})),
            Ok(Message::Request {
                id: RequestId::Number("7".into()),
                method: "ping".into(),
                params: None
            })
        );
        assert!(matches!(
            classify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Ok(Message::Notification { .. })
        ));
        assert_eq!(
            classify(json!({"jsonrpc": "2.0", "id": "a", "result": {}})),
            Ok(Message::Response)
        );
        let (id, e) =
            *classify(json!({"jsonrpc": "2.0", "id": null, "method": "x"})).expect_err("null id");
        assert_eq!((id, e.code), (None, INVALID_REQUEST));
        let (id, e) = *classify(json!({"jsonrpc": "2.0", "id": 1.5, "method": "x"}))
            .expect_err("fractional id");
        assert_eq!((id, e.code), (None, INVALID_REQUEST));
        let (id, e) =
            *classify(json!({"jsonrpc": "1.0", "id": "x", "method": "x"})).expect_err("version");
        assert_eq!(
            (id, e.code),
            (Some(RequestId::Text("x".into())), INVALID_REQUEST)
        );
        let (_, e) = *classify(json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]}))
            .expect_err("positional params");
        assert_eq!(e.code, INVALID_REQUEST);
        assert_eq!(
            classify(json!("ping")).expect_err("not an object").1.code,
            INVALID_REQUEST
        );
    }

    #[test]
    fn big_integer_ids_round_trip_exactly() {
        let raw = json!(18446744073709551615u64);
        let id = RequestId::of(&raw).expect("integer");
        assert_eq!(id.to_value(), raw);
        assert_eq!(
            response(&id, json!({})),
            json!({"jsonrpc": "2.0", "id": 18446744073709551615u64, "result": {}})
        );
    }
}

#[cfg(test)]
mod survivor_tests {
    use super::*;

    #[test]
    fn the_2026_07_28_error_codes_are_the_specifications() {
        // MCP 2026-07-28's new codes (SEP-2243 and the version negotiation):
        // -32020 HeaderMismatch, -32022 UnsupportedProtocolVersion; JSON-RPC 2.0 §5.1's
        // reserved ones.
        assert_eq!(HEADER_MISMATCH, -32020);
        assert_eq!(UNSUPPORTED_PROTOCOL_VERSION, -32022);
        assert_eq!(
            [
                INVALID_REQUEST,
                METHOD_NOT_FOUND,
                INVALID_PARAMS,
                INTERNAL_ERROR
            ],
            [-32600, -32601, -32602, -32603]
        );
    }

    #[test]
    fn an_error_response_is_the_json_rpc_error_object_with_its_id_or_null() {
        // JSON-RPC 2.0 §5: `id` is the request's, or null when it could not be read;
        // §5.1: `error` has `code` and `message`, `data` only when there is some.
        let e = RpcError::new(METHOD_NOT_FOUND, "no such method");
        assert_eq!(
            error_response(Some(&RequestId::Text("a".into())), &e),
            json!({"jsonrpc": "2.0", "id": "a",
                   "error": {"code": -32601, "message": "no such method"}})
        );
        assert_eq!(
            error_response(None, &e),
            json!({"jsonrpc": "2.0", "id": null,
                   "error": {"code": -32601, "message": "no such method"}})
        );
    }
}
