//! Arguments + plan + credentials → the HTTP request value (no network).

use super::Secret;
use super::auth::{self, OAuthNeed};
use super::body;
use super::plan::{ArgPlan, Piece, ToolPlan};
use super::serialize::{self, Encoding, SerError};
pub use super::wire::{Body, HeaderRule, is_hop_by_hop};
use mcpdesc_core::http::{FieldValueError, check_field_value};
use mcpdesc_core::provenance::{Location, Method};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One upstream request, ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    /// The full URL, secrets included.
    pub url: String,
    /// The URL for logs and messages: API-key query values replaced by `REDACTED`.
    pub log_url: String,
    /// Header fields in order (never logged).
    pub headers: Vec<(String, String)>,
    pub body: Option<Body>,
    /// Access tokens to fetch before sending (OAuth 2.0 client credentials).
    pub oauth: Vec<OAuthNeed>,
    /// Schemes whose token is an exchange of the caller's, made before sending
    /// (`auth::TokenExchange`).
    pub exchange: Vec<String>,
}

/// What the operator configured that goes on every request.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub credentials: &'a BTreeMap<String, Secret>,
    pub static_headers: &'a [(String, Secret)],
    pub forwarded: &'a [(String, String)],
    /// Schemes whose credential is exchanged per caller (`auth::TokenExchange`).
    pub exchanged: &'a [String],
}

/// Rejects what a header cannot carry (RFC 9110 §5.5, [`check_field_value`]): CR, LF,
/// NUL and every other control byte except an inner HTAB, and whitespace at either end
/// (which the recipient would strip, so the value would not arrive as given).
pub fn check_header_value(what: &str, v: &str) -> Result<(), String> {
    check_field_value(v).map_err(|e| header_value_message(what, e))
}

/// What is wrong with the value of header `what`.
pub(crate) fn header_value_message(what: &str, e: FieldValueError) -> String {
    match e {
        FieldValueError::Control(b) => format!(
            "{what} contains the control character 0x{b:02X} (CR, LF, NUL and other control characters cannot be sent in a header)"
        ),
        FieldValueError::OuterWhitespace => format!(
            "{what} starts or ends with a space or tab, which HTTP strips from a header value"
        ),
    }
}

fn arg_err(a: &ArgPlan, e: impl std::fmt::Display) -> String {
    format!(
        "argument `{}` ({} parameter `{}`): {e}",
        a.property, a.location, a.name
    )
}

/// Swagger 2.0 `collectionFormat` serialization of one value (the wire form of the
/// equivalent 3.x style): `(delimiter, encoded)` for joined arrays, repeated pairs for
/// `multi`.
fn collection_items(v: &Value) -> Result<Option<Vec<String>>, SerError> {
    match serialize::Shape::of(v)? {
        serialize::Shape::List(items) => Ok(Some(items)),
        serialize::Shape::Pairs(_) => {
            Err(SerError("Swagger 2.0 parameters cannot be objects".into()))
        }
        _ => Ok(None),
    }
}

/// A path parameter's expansion.
fn path_value(a: &ArgPlan, v: &Value) -> Result<String, String> {
    if let Some(ct) = &a.content_type {
        return Ok(serialize::encode(
            &serialize::content_text(ct, v),
            Encoding::Unreserved,
        ));
    }
    if let Some(cf) = &a.collection_format {
        if let Some(items) = collection_items(v).map_err(|e| arg_err(a, e))? {
            if cf == "multi" {
                return Err(arg_err(
                    a,
                    "collectionFormat `multi` is only valid in a query or form",
                ));
            }
            return Ok(items
                .iter()
                .map(|i| serialize::encode(i, Encoding::Unreserved))
                .collect::<Vec<_>>()
                .join(serialize::collection_delimiter(cf, true)));
        }
    }
    serialize::path_expansion(&a.name, a.style, a.explode, v).map_err(|e| arg_err(a, e))
}

/// A query parameter's pairs (`name=value`, encoded).
pub fn query_value(a: &ArgPlan, v: &Value) -> Result<Vec<String>, String> {
    let enc = if a.allow_reserved {
        Encoding::QueryReserved
    } else {
        Encoding::Unreserved
    };
    if let Some(ct) = &a.content_type {
        let mut s = serialize::encode(&a.name, Encoding::Unreserved);
        s.push('=');
        serialize::encode_into(
            &mut s,
            &serialize::content_text(ct, v),
            Encoding::Unreserved,
        );
        return Ok(vec![s]);
    }
    if let Some(cf) = &a.collection_format {
        if let Some(items) = collection_items(v).map_err(|e| arg_err(a, e))? {
            let n = serialize::encode(&a.name, Encoding::Unreserved);
            if cf == "multi" {
                return Ok(items
                    .iter()
                    .map(|i| format!("{n}={}", serialize::encode(i, enc)))
                    .collect());
            }
            let joined = items
                .iter()
                .map(|i| serialize::encode(i, enc))
                .collect::<Vec<_>>()
                .join(serialize::collection_delimiter(cf, true));
            return Ok(vec![format!("{n}={joined}")]);
        }
    }
    serialize::query_pairs(&a.name, a.style, a.explode, v, enc).map_err(|e| arg_err(a, e))
}

fn header_param(a: &ArgPlan, v: &Value) -> Result<String, String> {
    let text = if let Some(ct) = &a.content_type {
        serialize::content_text(ct, v)
    } else if let Some((cf, items)) = match &a.collection_format {
        Some(cf) => collection_items(v)
            .map_err(|e| arg_err(a, e))?
            .map(|items| (cf, items)),
        None => None,
    } {
        if cf == "multi" {
            return Err(arg_err(
                a,
                "collectionFormat `multi` is only valid in a query or form",
            ));
        }
        items.join(serialize::collection_delimiter(cf, false))
    } else {
        serialize::header_value(a.style, a.explode, v).map_err(|e| arg_err(a, e))?
    };
    check_header_value(&format!("argument `{}`", a.property), &text)?;
    Ok(text)
}

/// RFC 6265 §4.1.1 cookie-octet.
fn is_cookie_octet(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E)
}

fn cookie_param(a: &ArgPlan, v: &Value) -> Result<Vec<String>, String> {
    if let Some(ct) = &a.content_type {
        let text = serialize::content_text(ct, v);
        if let Some(b) = text.bytes().find(|b| !is_cookie_octet(*b)) {
            return Err(arg_err(
                a,
                format!("byte 0x{b:02X} cannot appear in a cookie value (RFC 6265 cookie-octet)"),
            ));
        }
        return Ok(vec![format!("{}={text}", a.name)]);
    }
    serialize::cookie_pairs(&a.name, a.style, a.explode, v).map_err(|e| arg_err(a, e))
}

/// Builds the request of one call. Errors are tool-error texts that name the argument
/// and the rule.
pub fn build(
    plan: &ToolPlan,
    args: &Map<String, Value>,
    cx: Context<'_>,
) -> Result<HttpRequest, String> {
    if let Some(why) = &plan.unusable {
        return Err(format!(
            "the tool cannot be called through the gateway: {why}"
        ));
    }
    let base = plan.base.as_ref().map_err(Clone::clone)?;
    // Path: segment by segment, so a value can never become a dot-segment.
    let mut url = base.clone();
    for seg in &plan.segments {
        url.push('/');
        let start = url.len();
        for piece in seg {
            match piece {
                Piece::Literal(l) => url.push_str(l),
                Piece::Var { name, arg } => {
                    let Some(a) = arg.and_then(|i| plan.params.get(i)) else {
                        return Err(format!(
                            "the path template has `{{{name}}}` but no argument is declared for it"
                        ));
                    };
                    let Some(v) = args.get(&a.property) else {
                        return Err(format!(
                            "argument `{}` is required: it is path parameter `{name}`",
                            a.property
                        ));
                    };
                    url.push_str(&path_value(a, v)?);
                }
            }
        }
        if serialize::is_dot_segment(&url[start..]) {
            // A dot-segment would move the request elsewhere, and `%2E` is no escape:
            // URL parsers (WHATWG, as reqwest's `url` implements it) read `%2E%2E` as
            // `..` too, including a `%2E` the template's own text puts beside the value
            // (`/{name}%2E` with `.`). So such a value is refused. (`parse_path` refuses
            // a template whose literal text alone is a dot-segment, so a value made it.)
            return Err(format!(
                "the path segment would be `{}`, a dot-segment that changes which resource is addressed; path values cannot be `.` or `..`",
                &url[start..]
            ));
        }
    }
    if plan.segments.is_empty() {
        url.push('/');
    }
    // Query, headers, cookies in provenance order.
    let mut query: Vec<String> = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut cookies: Vec<String> = Vec::new();
    for a in &plan.params {
        let Some(v) = args.get(&a.property) else {
            continue;
        };
        match a.location {
            Location::Query => query.extend(query_value(a, v)?),
            Location::Header => headers.push((a.name.clone(), header_param(a, v)?)),
            Location::Cookie => cookies.extend(cookie_param(a, v)?),
            Location::Path | Location::Body => {}
        }
    }
    for (n, v) in cx.static_headers {
        check_header_value(&format!("configured header {n}"), v.expose())?;
        set_header(&mut headers, n, v.expose());
    }
    // The one header rule (RFC 9110 §7.6.1): a hop-by-hop field, or one that a forwarded
    // `Connection` field names as a connection option, ends at this hop. A configured
    // header under the same rule is refused when the backend is built.
    let connection: Vec<&str> = cx
        .forwarded
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("connection"))
        .map(|(_, v)| v.as_str())
        .collect();
    for (n, v) in cx.forwarded {
        if !HeaderRule::in_message(n, connection.iter().copied()).passes() {
            continue;
        }
        check_header_value(&format!("forwarded header {n}"), v)?;
        set_header(&mut headers, n, v);
    }
    let applied = auth::apply(
        plan.security.as_deref(),
        cx.credentials,
        cx.forwarded,
        cx.exchanged,
    )?;
    for (n, v) in &applied.headers {
        check_header_value("a credential", v)?;
        set_header(&mut headers, n, v);
    }
    for (n, v) in &applied.cookies {
        if let Some(b) = v.bytes().find(|b| !is_cookie_octet(*b)) {
            return Err(format!(
                "the credential for cookie `{n}` has byte 0x{b:02X}, which a cookie value cannot carry"
            ));
        }
        cookies.push(format!("{n}={v}"));
    }
    if !cookies.is_empty() {
        let mine = cookies.join("; ");
        match headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case("cookie"))
        {
            Some((_, v)) => {
                v.push_str("; ");
                v.push_str(&mine);
            }
            None => headers.push(("Cookie".into(), mine)),
        }
    }
    if let Some(accept) = &plan.accept {
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("accept"))
        {
            // The recorded response type first; anything else still maps to a result.
            headers.push(("Accept".into(), format!("{accept}, */*;q=0.1")));
        }
    }
    let mut log_url = url.clone();
    let mut sep = '?';
    for q in &query {
        url.push(sep);
        url.push_str(q);
        log_url.push(sep);
        log_url.push_str(q);
        sep = '&';
    }
    for (n, v) in &applied.query {
        url.push(sep);
        url.push_str(n);
        url.push('=');
        url.push_str(v);
        log_url.push(sep);
        log_url.push_str(n);
        log_url.push_str("=REDACTED");
        sep = '&';
    }
    let body = match &plan.body {
        Some(b) => body::build(b, args)?,
        None => None,
    };
    if body.is_some() {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
    }
    Ok(HttpRequest {
        method: plan.method,
        url,
        log_url,
        headers,
        body,
        oauth: applied.oauth,
        exchange: applied.exchange,
    })
}

/// Sets a header, replacing an earlier one of the same name.
fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    headers.push((name.to_string(), value.to_string()));
}
