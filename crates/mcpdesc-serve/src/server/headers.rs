//! The MCP HTTP headers a server checks: the session and version headers of the
//! handshake revisions, and the 2026-07-28 routing headers (`Mcp-Method`, `Mcp-Name`,
//! [`Feature::RoutingHeaders`]) and `Mcp-Param-*` headers mirrored from `x-mcp-header`
//! inputs ([`Feature::McpHeader`]), each of which must equal the JSON-RPC body (else
//! error -32020, HTTP 400).
//!
//! Header values that are not plain printable ASCII travel base64-wrapped as
//! `=?base64?<payload>?=` (the SDKs' shared codec); a malformed wrapper never matches.
//!
//! [`Feature::RoutingHeaders`]: mcpdesc_core::Feature::RoutingHeaders
//! [`Feature::McpHeader`]: mcpdesc_core::Feature::McpHeader

use base64::Engine as _;
use serde_json::{Map, Value};

pub use mcpdesc_core::http::mcp::{
    METHOD as MCP_METHOD, NAME as MCP_NAME, PARAM_PREFIX as MCP_PARAM_PREFIX,
    PROTOCOL_VERSION as MCP_PROTOCOL_VERSION, SESSION_ID as MCP_SESSION_ID,
};

/// Request headers as (lower-cased name, value) pairs, in wire order.
pub type Headers = [(String, String)];

/// The values of header `name` (lower-case).
pub fn all<'a>(h: &'a Headers, name: &str) -> Vec<&'a str> {
    h.iter()
        .filter(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

/// The one value of header `name`; `Err` when it appears more than once.
pub fn one<'a>(h: &'a Headers, name: &str) -> Result<Option<&'a str>, String> {
    match all(h, name).as_slice() {
        [] => Ok(None),
        [v] => Ok(Some(v)),
        _ => Err(format!("the {name} header appears more than once")),
    }
}

/// Decodes a header value: verbatim, or the payload of a `=?base64?…?=` wrapper
/// (canonical base64 of UTF-8); `None` for a malformed wrapper.
pub fn decode_value(v: &str) -> Option<String> {
    let Some(payload) = v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Some(v.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .ok()?;
    if base64::engine::general_purpose::STANDARD.encode(&bytes) != payload {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The 2026-07-28 routing check of one request: `MCP-Protocol-Version` equals the
/// envelope's version, `Mcp-Method` the method, and for `tools/call` / `prompts/get` /
/// `resources/read`, `Mcp-Name` the `name` / `uri` parameter. `Err` names the header.
pub fn check_routing(
    h: &Headers,
    method: &str,
    params: &Map<String, Value>,
    envelope_version: Option<&str>,
) -> Result<(), String> {
    for name in [MCP_PROTOCOL_VERSION, MCP_METHOD, MCP_NAME] {
        one(h, name)?;
    }
    let version = one(h, MCP_PROTOCOL_VERSION)?;
    if version.is_none() || version != envelope_version {
        return Err(format!(
            "the {MCP_PROTOCOL_VERSION} header does not match the request envelope's protocol version"
        ));
    }
    if one(h, MCP_METHOD)? != Some(method) {
        return Err(format!(
            "the {MCP_METHOD} header does not match the request body's method"
        ));
    }
    let key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(key) = key
        && let Some(body) = params.get(key).and_then(Value::as_str)
    {
        let header = one(h, MCP_NAME)?.and_then(decode_value);
        if header.as_deref() != Some(body) {
            return Err(format!(
                "the {MCP_NAME} header does not match the request body's `{key}` parameter"
            ));
        }
    }
    Ok(())
}

/// One `x-mcp-header` input: its path of `properties` keys, header token and `type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    pub path: Vec<String>,
    pub token: String,
    pub ty: Option<String>,
}

/// The `x-mcp-header` annotations of an `inputSchema` reachable from its root through
/// `properties` chains (the only places §9.2 allows them; the validator rejects others).
pub fn param_headers(schema: &Value) -> Vec<ParamHeader> {
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<String>, &Value)> = vec![(Vec::new(), schema)];
    while let Some((path, node)) = stack.pop() {
        let Some(obj) = node.as_object() else {
            continue;
        };
        if !path.is_empty()
            && let Some(token) = obj.get("x-mcp-header").and_then(Value::as_str)
        {
            out.push(ParamHeader {
                path: path.clone(),
                token: token.to_string(),
                ty: obj.get("type").and_then(Value::as_str).map(str::to_string),
            });
        }
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                let mut p = path.clone();
                p.push(k.clone());
                stack.push((p, v));
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments: each
/// annotated input and its header are present together and equal (a `null` argument
/// counts as absent; an integer input compares numerically with a canonical decimal
/// header, `42` = `42.0`), and none appears twice.
pub fn check_params(
    h: &Headers,
    annotations: &[ParamHeader],
    arguments: &Map<String, Value>,
) -> Result<(), String> {
    for a in annotations {
        let name = format!("{MCP_PARAM_PREFIX}{}", a.token.to_ascii_lowercase());
        let shown = format!("Mcp-Param-{}", a.token);
        let raw =
            one(h, &name).map_err(|_| format!("the {shown} header appears more than once"))?;
        let value = value_at(arguments, &a.path).filter(|v| !v.is_null());
        let argument = a.path.join(".");
        let rendered = value.and_then(render);
        match (raw, rendered) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(format!(
                    "the {shown} header is present but the request body's `{argument}` argument is absent"
                ));
            }
            (None, Some(_)) => {
                return Err(format!(
                    "the {shown} header is missing but the request body's `{argument}` argument is present"
                ));
            }
            (Some(raw), Some(rendered)) => {
                let Some(decoded) = decode_value(raw) else {
                    return Err(format!(
                        "the {shown} header carries a malformed base64 value"
                    ));
                };
                let equal = match (a.ty.as_deref(), value) {
                    (Some("integer"), Some(v)) if is_canonical_decimal(&decoded) => {
                        integer_value(v).is_some_and(|n| decimal_equals_integer(&decoded, n))
                    }
                    _ => decoded == rendered,
                };
                if !equal {
                    return Err(format!(
                        "the {shown} header does not match the request body's `{argument}` argument"
                    ));
                }
            }
        }
    }
    Ok(())
}

fn value_at<'a>(args: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut cur = args.get(first)?;
    for k in rest {
        cur = cur.as_object()?.get(k)?;
    }
    Some(cur)
}

/// How a client mirrors a scalar into a header.
fn render(v: &Value) -> Option<String> {
    match v {
        Value::Bool(b) => Some(b.to_string()),
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_canonical_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, frac) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// An integral JSON number as i128.
fn integer_value(v: &Value) -> Option<i128> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

fn decimal_equals_integer(s: &str, n: i128) -> bool {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    frac.bytes().all(|b| b == b'0') && whole.parse::<i128>().ok() == Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn base64_wrapped_values() {
        assert_eq!(decode_value("plain").as_deref(), Some("plain"));
        // "héllo" in UTF-8, base64.
        assert_eq!(
            decode_value("=?base64?aMOpbGxv?=").as_deref(),
            Some("héllo")
        );
        assert_eq!(decode_value("=?base64?!!?="), None);
        // Non-canonical (trailing bits set): "aGk" + "=" is "hi"; "aGl=" is not canonical.
        assert_eq!(decode_value("=?base64?aGl=?="), None);
    }

    #[test]
    fn routing_headers_must_equal_the_body() {
        let params = json!({"name": "get_pet"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let ok = h(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_pet"),
        ]);
        assert!(check_routing(&ok, "tools/call", &params, Some("2026-07-28")).is_ok());
        let wrong_name = h(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "delete_pet"),
        ]);
        assert!(check_routing(&wrong_name, "tools/call", &params, Some("2026-07-28")).is_err());
        let no_method = h(&[("mcp-protocol-version", "2026-07-28")]);
        assert!(check_routing(&no_method, "tools/list", &Map::new(), Some("2026-07-28")).is_err());
        let twice = h(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ]);
        assert!(check_routing(&twice, "tools/list", &Map::new(), Some("2026-07-28")).is_err());
    }

    #[test]
    fn param_headers_mirror_inputs() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "o": {"type": "object", "properties": {"deep": {"type": "boolean", "x-mcp-header": "Deep"}}}
        }});
        let ann = param_headers(&schema);
        assert_eq!(ann.len(), 3);
        let args = json!({"region": "eu", "n": 42, "o": {"deep": true}})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let good = h(&[
            ("mcp-param-region", "eu"),
            ("mcp-param-n", "42.0"),
            ("mcp-param-deep", "true"),
        ]);
        assert!(check_params(&good, &ann, &args).is_ok());
        let missing = h(&[("mcp-param-region", "eu"), ("mcp-param-n", "42")]);
        assert!(check_params(&missing, &ann, &args).is_err());
        let wrong = h(&[
            ("mcp-param-region", "us"),
            ("mcp-param-n", "42"),
            ("mcp-param-deep", "true"),
        ]);
        assert!(check_params(&wrong, &ann, &args).is_err());
        let extra = h(&[("mcp-param-region", "eu")]);
        let none = Map::new();
        assert!(check_params(&extra, &ann, &none).is_err());
        assert!(check_params(&[], &ann, &none).is_ok());
    }
}
