//! `--auth-issuer`: the HTTP transport as an OAuth 2.1 resource server (MCP
//! authorization; RFC 9728, RFC 6750, RFC 8707, RFC 9068). Token validation itself is
//! [`mcpdesc_auth`].
//!
//! - Protected Resource Metadata at `/.well-known/oauth-protected-resource<path>` for
//!   every served path, and at `/.well-known/oauth-protected-resource` for `/mcp`.
//! - A request without a valid token: 401 with `WWW-Authenticate: Bearer
//!   resource_metadata="…"` (and `error="invalid_token"` when one was sent); nothing
//!   of MCP runs. A token lacking `--auth-scopes`: 403 `insufficient_scope`.
//! - Scopes per tool: the oauth2/openIdConnect scopes of the tool's effective security
//!   requirement over Streamable HTTP (spec §7.5: tool-level, else the description's
//!   `streamable-http` transport's, else root; [`http_transport_security`];
//!   alternatives: any one satisfied is enough),
//!   or a `tool-scopes` glob. A `tools/call` (also through `call_tool`) lacking them is
//!   403 `insufficient_scope` with the step-up `scope`, and nothing is sent upstream;
//!   `tools/list` (`--auth-list permitted`) answers only the tools the caller's scopes
//!   permit. With several descriptions, the composed description carries each tool's
//!   own description's requirement and schemes ([`crate::compose`]).
//! - Fail closed: a tool whose requirement cannot be read (not an array, an entry that
//!   is not an object, a scheme that is not declared or has no readable `type`, scopes
//!   that are not strings) is permitted to no caller, listed to none, and refused with
//!   403 (unless a `tool-scopes` glob says what it needs).
//! - The caller's token is never logged, echoed or forwarded: [`Caller`] holds what the
//!   gateway learnt from it (subject, client, scopes), not the token.

use super::Server;
use super::catalog::ToolEntry;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Response, StatusCode};
use mcpdesc_auth::{ClientCredential, Issuer, IssuerOptions, SubjectToken};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

/// The well-known prefix of RFC 9728 metadata.
pub const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// Whether `tools/list` follows the caller's scopes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListMode {
    /// Only the tools the caller may call (the default).
    #[default]
    Permitted,
    /// Every tool; calls are still checked (403).
    All,
}

/// The `--auth-*` settings.
#[derive(Debug, Clone, Default)]
pub struct AuthOptions {
    /// `--auth-issuer`.
    pub issuer: String,
    /// `--auth-audience` (default: each path's resource identifier).
    pub audience: Option<String>,
    /// `--auth-scopes`: needed by every request.
    pub scopes: Vec<String>,
    /// `--auth-list`.
    pub list: ListMode,
    /// `--auth-client-credential`'s value (`client_id:client_secret`).
    pub client_credential: Option<ClientCredential>,
    /// `--upstream-token-exchange` schemes.
    pub token_exchange: Vec<String>,
    /// `tool-scopes`: (glob, scopes), the first matching glob wins.
    pub tool_scopes: Vec<(String, Vec<String>)>,
}

/// Who sent a request, as its verified access token says (never the token itself).
/// On the inbound request (`Inbound::caller`) of every authenticated HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The token's `sub`.
    pub sub: Option<String>,
    /// The token's `client_id` (else `azp`/`appid`).
    pub client_id: Option<String>,
    /// The granted scopes.
    pub scopes: BTreeSet<String>,
}

impl Caller {
    /// A stable key for per-caller budgets and log lines: `sub`, else `client:<id>`.
    pub fn key(&self) -> String {
        match (&self.sub, &self.client_id) {
            (Some(s), _) => s.clone(),
            (None, Some(c)) => format!("client:{c}"),
            (None, None) => "(anonymous)".into(),
        }
    }
}

type Resp = Response<Full<Bytes>>;

/// What [`Gate::authenticate`] learnt from a request's token: the caller and, with
/// `--upstream-token-exchange` only, the token itself as the subject of an RFC 8693
/// exchange (readable by the issuer alone: [`SubjectToken`]).
#[derive(Debug)]
pub(crate) struct Verified {
    pub caller: Arc<Caller>,
    pub subject: Option<Arc<SubjectToken>>,
}

/// A request's gate and verified caller: what the search facade and code mode ask
/// before they show a tool or call it (the rule `tools/call` and `tools/list` follow),
/// and what the REST gateway exchanges for an upstream token.
#[derive(Debug, Clone)]
pub(crate) struct Access {
    pub gate: Arc<Gate>,
    pub caller: Arc<Caller>,
    /// With `--upstream-token-exchange`: the caller's token, for the exchange only.
    pub subject: Option<Arc<SubjectToken>>,
}

impl Access {
    /// The per-call credential hook of the REST gateway: the schemes exchanged and the
    /// caller's token (`None` without `--upstream-token-exchange`).
    pub fn token_exchange(&self) -> Option<mcpdesc_rest::TokenExchange<'_>> {
        let subject = self.subject.as_deref()?;
        (!self.gate.opts.token_exchange.is_empty()).then_some(mcpdesc_rest::TokenExchange {
            issuer: &self.gate.issuer,
            schemes: &self.gate.opts.token_exchange,
            subject,
        })
    }

    /// Whether the caller may call `tool`; `Err` carries the scope alternative to ask for.
    pub fn permits(&self, server: &Server, tool: &ToolEntry) -> Result<(), BTreeSet<String>> {
        self.gate.permits(server, tool, &self.caller)
    }

    /// The log's key of the caller.
    pub fn key(&self) -> String {
        self.caller.key()
    }
}

/// The scopes of `s`, space-separated (as a `scope` parameter spells them).
pub(crate) fn scope_list(s: &BTreeSet<String>) -> String {
    join(s)
}

/// The running resource server.
#[derive(Debug)]
pub(crate) struct Gate {
    issuer: Issuer,
    /// The public URL without a trailing slash.
    base: String,
    opts: AuthOptions,
    tool_scopes: Vec<(globset::GlobMatcher, BTreeSet<String>)>,
}

impl Gate {
    /// Discovers the issuer (its metadata and JWKS); the public URL defaults to
    /// `http://<bound address>`.
    pub async fn start(
        opts: &AuthOptions,
        public_url: Option<&str>,
        local: SocketAddr,
    ) -> std::io::Result<Gate> {
        let err = |m: String| std::io::Error::other(m);
        let mut tool_scopes = Vec::new();
        for (glob, scopes) in &opts.tool_scopes {
            let m = globset::Glob::new(glob)
                .map_err(|e| err(format!("tool-scopes `{glob}`: {e}")))?
                .compile_matcher();
            tool_scopes.push((m, scopes.iter().cloned().collect()));
        }
        let issuer = Issuer::discover(IssuerOptions {
            issuer: opts.issuer.clone(),
            client_credential: opts.client_credential.clone(),
        })
        .await
        .map_err(|e| err(format!("the OAuth issuer {}: {e}", opts.issuer)))?;
        if !opts.token_exchange.is_empty() && issuer.metadata.token_endpoint.is_none() {
            return Err(err(format!(
                "the OAuth issuer {}: its metadata names no token_endpoint, where the upstream token exchange is made",
                opts.issuer
            )));
        }
        let base = public_url
            .map(|u| u.trim_end_matches('/').to_string())
            .unwrap_or_else(|| format!("http://{local}"));
        Ok(Gate {
            issuer,
            base,
            opts: opts.clone(),
            tool_scopes,
        })
    }

    /// `<public-url><path>`.
    pub fn resource(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn metadata_url(&self, path: &str) -> String {
        format!("{}{METADATA_PREFIX}{path}", self.base)
    }

    fn audience(&self, path: &str) -> String {
        self.opts
            .audience
            .clone()
            .unwrap_or_else(|| self.resource(path))
    }

    /// The MCP path a metadata request is for (`None`: not a metadata request); the
    /// bare well-known URL is `main`'s (the transport's main path, `/mcp`).
    pub fn metadata_path<'a>(path: &'a str, main: &'a str) -> Option<&'a str> {
        match path.strip_prefix(METADATA_PREFIX)? {
            "" => Some(main),
            p if p.starts_with('/') => Some(p),
            _ => None,
        }
    }

    /// The RFC 9728 document of `path`, served by `server`.
    pub fn metadata(&self, path: &str, server: &Server) -> Resp {
        let mut scopes: BTreeSet<String> = self.opts.scopes.iter().cloned().collect();
        for view in server.catalog().views() {
            for t in view.tools() {
                for alt in self.needed(server, t).unwrap_or_default() {
                    scopes.extend(alt);
                }
            }
        }
        let doc = json!({
            "resource": self.resource(path),
            "authorization_servers": [self.issuer.issuer()],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
            "resource_name": server.catalog().server_info.get("name"),
        });
        let mut r = json_resp(StatusCode::OK, &doc);
        r.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
        r
    }

    /// Validates the request's bearer token for `path`.
    pub async fn authenticate(
        &self,
        path: &str,
        headers: &[(String, String)],
        server: &Server,
    ) -> Result<Verified, Resp> {
        let mut auths = headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"));
        let (first, second) = (auths.next(), auths.next());
        let Some((_, value)) = first else {
            return Err(self.unauthorized(path, None));
        };
        if second.is_some() {
            return Err(self.unauthorized(path, Some("more than one Authorization header")));
        }
        let token = match value.split_once(' ') {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim_start(),
            _ => return Err(self.unauthorized(path, Some("not a Bearer token"))),
        };
        if !is_b64token(token) {
            return Err(self.unauthorized(path, Some("not an RFC 6750 token")));
        }
        match self.issuer.verify(token, &self.audience(path)).await {
            Ok(c) => {
                let caller = Caller {
                    sub: c.sub,
                    client_id: c.client_id,
                    scopes: c.scopes,
                };
                let missing: Vec<&String> = self
                    .opts
                    .scopes
                    .iter()
                    .filter(|s| !caller.scopes.contains(*s))
                    .collect();
                if !missing.is_empty() {
                    let need: BTreeSet<String> = self.opts.scopes.iter().cloned().collect();
                    return Err(self.insufficient(path, &need));
                }
                // The token is kept only when an upstream credential is exchanged from it.
                let subject = (!self.opts.token_exchange.is_empty())
                    .then(|| Arc::new(SubjectToken::new(token)));
                Ok(Verified {
                    caller: Arc::new(caller),
                    subject,
                })
            }
            Err(why) => {
                server
                    .log()
                    .line(&format!("auth: refused a token for {path}: {why}"));
                Err(self.unauthorized(path, Some(&why.to_string())))
            }
        }
    }

    /// The scope alternatives `tool` needs (empty: nothing needed); `Err`: its
    /// requirement cannot be read, and no caller may call it.
    pub fn needed(
        &self,
        server: &Server,
        tool: &ToolEntry,
    ) -> Result<Vec<BTreeSet<String>>, String> {
        if let Some((_, s)) = self
            .tool_scopes
            .iter()
            .find(|(m, _)| m.is_match(&tool.name))
        {
            return Ok(if s.is_empty() {
                Vec::new()
            } else {
                vec![s.clone()]
            });
        }
        needed_scopes(&server.doc, tool.decl())
    }

    /// Whether `caller` may call `tool`; `Err` carries the alternative to ask for
    /// (empty when the tool's requirement cannot be read: no scope helps).
    pub fn permits(
        &self,
        server: &Server,
        tool: &ToolEntry,
        caller: &Caller,
    ) -> Result<(), BTreeSet<String>> {
        let Ok(alts) = self.needed(server, tool) else {
            return Err(BTreeSet::new());
        };
        if alts.is_empty() || alts.iter().any(|a| a.is_subset(&caller.scopes)) {
            return Ok(());
        }
        let best = alts
            .into_iter()
            .min_by_key(|a| a.difference(&caller.scopes).count())
            .unwrap_or_default();
        Err(best)
    }

    /// The 403 step-up answer for a `tools/call` (directly, or through the search
    /// facade's `call_tool`) of a tool `caller` may not call; `None` lets it through.
    pub fn check_calls(
        &self,
        server: &Server,
        path: &str,
        message: &Value,
        caller: &Caller,
    ) -> Option<Resp> {
        let items: Vec<&Value> = match message {
            Value::Array(a) => a.iter().collect(),
            v => vec![v],
        };
        for item in items {
            if item.get("method").and_then(Value::as_str) != Some("tools/call") {
                continue;
            }
            let params = item.get("params");
            let Some(mut name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
                continue;
            };
            if server.facade().is_some() && name == mcpdesc_catalog::facade::CALL_TOOL {
                match params
                    .and_then(|p| p.pointer("/arguments/name"))
                    .and_then(Value::as_str)
                {
                    Some(n) => name = n,
                    None => continue,
                }
            }
            let tool = server
                .catalog()
                .views()
                .iter()
                .find_map(|v| v.tool(name).cloned());
            let Some(tool) = tool else { continue };
            if let Err(why) = self.needed(server, &tool) {
                server.log().line(&format!(
                    "auth: refused tools/call {name} for {}: its security requirement cannot be read ({why})",
                    caller.key()
                ));
                return Some(self.unreadable(path));
            }
            if let Err(need) = self.permits(server, &tool, caller) {
                server.log().line(&format!(
                    "auth: {} lacks scope for tools/call {name}: needs {}",
                    caller.key(),
                    join(&need)
                ));
                let mut all: BTreeSet<String> = self.opts.scopes.iter().cloned().collect();
                all.extend(need);
                return Some(self.insufficient(path, &all));
            }
        }
        None
    }

    /// `tools/list` as `caller` may see it (`--auth-list permitted`): the tools it may
    /// not call are left out, in the same order.
    pub fn filter_list(&self, server: &Server, result: &mut Value, caller: &Caller) {
        if self.opts.list == ListMode::All {
            return;
        }
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return;
        };
        tools.retain(|t| {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                return false;
            };
            let tool = server
                .catalog()
                .views()
                .iter()
                .find_map(|v| v.tool(name).cloned());
            // Not a served tool (the facade's or code mode's own): always listed.
            tool.is_none_or(|tool| self.permits(server, &tool, caller).is_ok())
        });
    }

    fn unauthorized(&self, path: &str, error: Option<&str>) -> Resp {
        let meta = self.metadata_url(path);
        let challenge = match error {
            None => format!("Bearer resource_metadata=\"{meta}\""),
            Some(why) => format!(
                "Bearer error=\"invalid_token\", error_description=\"{}\", resource_metadata=\"{meta}\"",
                quoted_safe(why)
            ),
        };
        challenge_resp(
            StatusCode::UNAUTHORIZED,
            &challenge,
            "Unauthorized: send Authorization: Bearer <access token> from the issuer named in the resource metadata",
        )
    }

    /// 403 for a tool whose requirement cannot be read: no scope would help, so the
    /// challenge names none (a client must not loop on step-up).
    fn unreadable(&self, path: &str) -> Resp {
        let meta = self.metadata_url(path);
        challenge_resp(
            StatusCode::FORBIDDEN,
            &format!(
                "Bearer error=\"insufficient_scope\", error_description=\"the tool's security requirement cannot be read\", resource_metadata=\"{meta}\""
            ),
            "Forbidden: this tool's security requirement cannot be read, so it is not callable",
        )
    }

    fn insufficient(&self, path: &str, scopes: &BTreeSet<String>) -> Resp {
        let meta = self.metadata_url(path);
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{meta}\"",
            quoted_safe(&join(scopes))
        );
        challenge_resp(
            StatusCode::FORBIDDEN,
            &challenge,
            &format!(
                "Forbidden: this needs the scope(s) {}",
                quoted_safe(&join(scopes))
            ),
        )
    }
}

/// On a composed declaration without `security` of its own ([`crate::compose`]): why
/// its description's inherited requirement could not be resolved (the gate then
/// refuses it, fail closed).
pub const UNRESOLVED_SECURITY: &str = "x-mcpdesc-security-unresolved";

/// The requirement a primitive without `security` of its own inherits when served over
/// Streamable HTTP (spec §7.5 steps 2–4): the `security` of the description's
/// `streamable-http` transport (§6.2.1: a transport is identified by its `type`), else
/// root `security`, else none (`Ok(None)`). No `streamable-http` entry (no `transports`,
/// or only stdio/sse ones): none is selected, so root. Several `streamable-http`
/// entries whose effective requirements (own, else root) are equal: that one. Several
/// that differ: `Err` (fail closed), since which one this gateway is cannot be told
/// and §7.6 forbids inventing a combined requirement.
pub fn http_transport_security(doc: &Value) -> Result<Option<&Value>, String> {
    let root = doc.get("security");
    let Some(transports) = doc.get("transports") else {
        return Ok(root);
    };
    let Some(transports) = transports.as_array() else {
        return Err("`transports` is not an array".into());
    };
    let mut chosen: Option<Option<&Value>> = None;
    for t in transports {
        let Some(t) = t.as_object() else {
            return Err("a transport is not an object".into());
        };
        if t.get("type").and_then(Value::as_str) != Some("streamable-http") {
            continue;
        }
        let effective = t.get("security").or(root);
        match chosen {
            None => chosen = Some(effective),
            Some(c) if c == effective => {}
            Some(_) => {
                return Err("the description's streamable-http transports declare different security requirements, and which one is served here cannot be told".into());
            }
        }
    }
    Ok(chosen.unwrap_or(root))
}

/// The scope alternatives of a declaration's effective security requirement over
/// Streamable HTTP (spec §7.5: its own `security`, else the streamable-http transport's,
/// else root; [`http_transport_security`]): each alternative's oauth2/openIdConnect
/// scopes. Empty when nothing is declared, `security: []`, or an alternative needs no
/// scope. `Err` (fail closed) when the requirement cannot be read or resolved: the
/// declaration is not an object, it carries [`UNRESOLVED_SECURITY`], the transports
/// disagree, `security` is not an array, an entry is not an object, a scheme is not in
/// root `securitySchemes` or has no string `type`, or scopes are not strings.
pub fn needed_scopes(doc: &Value, decl: &Value) -> Result<Vec<BTreeSet<String>>, String> {
    let Some(decl) = decl.as_object() else {
        return Err("the declaration is not an object".into());
    };
    let security = match decl.get("security") {
        Some(own) => Some(own),
        None => {
            if let Some(why) = decl.get(UNRESOLVED_SECURITY) {
                return Err(why
                    .as_str()
                    .unwrap_or("its inherited requirement is unresolved")
                    .to_string());
            }
            http_transport_security(doc)?
        }
    };
    let Some(security) = security else {
        return Ok(Vec::new());
    };
    let Some(security) = security.as_array() else {
        return Err("`security` is not an array".into());
    };
    let scheme_type = |name: &str| {
        doc.pointer(&format!(
            "/securitySchemes/{}/type",
            mcpdesc_core::pointer::escape(name)
        ))
        .and_then(Value::as_str)
    };
    let mut alts = Vec::new();
    let mut anonymous = false;
    for req in security {
        let Some(req) = req.as_object() else {
            return Err("a security requirement is not an object".into());
        };
        let mut set = BTreeSet::new();
        for (scheme, scopes) in req {
            let Some(kind) = scheme_type(scheme) else {
                return Err(format!(
                    "security scheme `{}` is not declared",
                    quoted_safe(scheme)
                ));
            };
            let Some(scopes) = scopes.as_array() else {
                return Err(format!(
                    "the scopes of `{}` are not an array",
                    quoted_safe(scheme)
                ));
            };
            if matches!(kind, "oauth2" | "openIdConnect") {
                for s in scopes {
                    let Some(s) = s.as_str() else {
                        return Err(format!(
                            "a scope of `{}` is not a string",
                            quoted_safe(scheme)
                        ));
                    };
                    set.insert(s.to_string());
                }
            }
        }
        // An alternative without oauth scopes (e.g. `{}` or an API key only) needs none.
        anonymous |= set.is_empty();
        alts.push(set);
    }
    Ok(if anonymous { Vec::new() } else { alts })
}

/// RFC 6750 §2.1 `b64token`.
fn is_b64token(t: &str) -> bool {
    let body = t.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

fn join(s: &BTreeSet<String>) -> String {
    s.iter().map(String::as_str).collect::<Vec<_>>().join(" ")
}

/// Text safe inside a quoted-string (RFC 9110): printable ASCII without `"` and `\`.
fn quoted_safe(s: &str) -> String {
    s.chars()
        .filter(|c| (' '..='~').contains(c) && *c != '"' && *c != '\\')
        .take(200)
        .collect()
}

fn challenge_resp(status: StatusCode, challenge: &str, msg: &str) -> Resp {
    let mut r = Response::new(Full::new(Bytes::from(format!("{msg}\n"))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(challenge) {
        r.headers_mut().insert(WWW_AUTHENTICATE, v);
    }
    r
}

fn json_resp(status: StatusCode, v: &Value) -> Resp {
    let body = serde_json::to_vec(v).unwrap_or_default();
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_from_security_requirements() {
        let doc = json!({
            "securitySchemes": {
                "oauth": {"type": "oauth2"}, "oidc": {"type": "openIdConnect"},
                "key": {"type": "apiKey"}
            },
            "security": [{"oauth": ["read"]}]
        });
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
        let need = |decl: Value| needed_scopes(&doc, &decl).expect("readable");
        assert_eq!(need(json!({})), vec![s(&["read"])]);
        assert_eq!(
            need(json!({"security": [{"oauth": ["w"], "oidc": ["x"]}, {"oidc": ["admin"]}]})),
            vec![s(&["w", "x"]), s(&["admin"])]
        );
        // An alternative without oauth scopes (apiKey only, or `{}`) needs none.
        assert!(need(json!({"security": [{"oauth": ["w"]}, {}]})).is_empty());
        assert!(need(json!({"security": [{"key": []}]})).is_empty());
        assert!(need(json!({"security": []})).is_empty());
        assert_eq!(needed_scopes(&json!({}), &json!({})), Ok(Vec::new()));
    }

    #[test]
    fn a_requirement_that_cannot_be_read_fails_closed() {
        let doc = json!({
            "securitySchemes": {"oauth": {"type": "oauth2"}, "typeless": {}},
            "security": [{"oauth": ["read"]}]
        });
        for decl in [
            // A failed projection, a non-object declaration.
            Value::Null,
            json!("tool"),
            json!({"security": {"oauth": ["w"]}}),
            json!({"security": ["oauth"]}),
            // A scheme not declared (e.g. a composition that lost its schemes), even
            // beside an anonymous alternative.
            json!({"security": [{"other.oauth": ["w"]}]}),
            json!({"security": [{}, {"gone": []}]}),
            json!({"security": [{"typeless": []}]}),
            json!({"security": [{"oauth": "w"}]}),
            json!({"security": [{"oauth": [7]}]}),
        ] {
            assert!(needed_scopes(&doc, &decl).is_err(), "{decl}");
        }
        // The root requirement is read as strictly.
        let bad_root = json!({"securitySchemes": {"oauth": {"type": "oauth2"}},
            "security": [{"nope": ["read"]}]});
        assert!(needed_scopes(&bad_root, &json!({})).is_err());
    }

    /// Spec §6.4's table and §7.5's order, written out by hand.
    #[test]
    fn the_streamable_http_transport_comes_between_the_tool_and_the_root() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
        let doc = |transports: Value| {
            let mut d = json!({
                "securitySchemes": {"oauth": {"type": "oauth2"}},
                "security": [{"oauth": ["root"]}]
            });
            if !transports.is_null() {
                d["transports"] = transports;
            }
            d
        };
        let http = |security: Value| {
            let mut t = json!({"type": "streamable-http", "url": "https://x.example/mcp"});
            if !security.is_null() {
                t["security"] = security;
            }
            t
        };
        let stdio = json!({"type": "stdio", "command": "x", "security": [{"oauth": ["stdio"]}]});
        let own = json!({"security": [{"oauth": ["own"]}]});
        let inherit = json!({});
        let need = |d: &Value, decl: &Value| needed_scopes(d, decl);
        // Transport security replaces root; the tool's own replaces both.
        let d = doc(json!([stdio, http(json!([{"oauth": ["http"]}]))]));
        assert_eq!(need(&d, &inherit), Ok(vec![s(&["http"])]));
        assert_eq!(need(&d, &own), Ok(vec![s(&["own"])]));
        // `security: []` on the transport: explicitly no authentication.
        let d = doc(json!([http(json!([]))]));
        assert_eq!(need(&d, &inherit), Ok(Vec::new()));
        assert_eq!(need(&d, &own), Ok(vec![s(&["own"])]));
        // Transport security omitted: root. No streamable-http entry (only stdio): root,
        // never the stdio transport's.
        assert_eq!(
            need(&doc(json!([http(Value::Null)])), &inherit),
            Ok(vec![s(&["root"])])
        );
        assert_eq!(need(&doc(json!([stdio])), &inherit), Ok(vec![s(&["root"])]));
        // Root and transport omitted: nothing.
        let mut d = doc(json!([http(Value::Null)]));
        d.as_object_mut().map(|o| o.remove("security"));
        assert_eq!(need(&d, &inherit), Ok(Vec::new()));
        // Two streamable-http entries: equal effective requirements are one; different
        // ones cannot be told apart, so an inheriting tool fails closed.
        let d = doc(json!([
            http(Value::Null),
            http(json!([{"oauth": ["root"]}]))
        ]));
        assert_eq!(need(&d, &inherit), Ok(vec![s(&["root"])]));
        let d = doc(json!([http(json!([])), http(json!([{"oauth": ["http"]}]))]));
        assert!(need(&d, &inherit).is_err());
        assert_eq!(need(&d, &own), Ok(vec![s(&["own"])]));
        // A transport requirement is read as strictly as a tool's.
        let d = doc(json!([http(json!([{"gone": []}]))]));
        assert!(need(&d, &inherit).is_err());
        // A composed declaration whose inherited requirement is unresolved.
        let d = doc(Value::Null);
        assert!(need(&d, &json!({UNRESOLVED_SECURITY: "two transports"})).is_err());
        assert_eq!(
            need(&d, &json!({UNRESOLVED_SECURITY: "x", "security": []})),
            Ok(Vec::new())
        );
    }

    #[test]
    fn metadata_paths_and_tokens() {
        assert_eq!(Gate::metadata_path(METADATA_PREFIX, "/mcp"), Some("/mcp"));
        assert_eq!(
            Gate::metadata_path("/.well-known/oauth-protected-resource/mcp/x/a", "/mcp"),
            Some("/mcp/x/a")
        );
        assert_eq!(
            Gate::metadata_path("/.well-known/oauth-protected-resourcex", "/mcp"),
            None
        );
        assert_eq!(Gate::metadata_path("/mcp", "/mcp"), None);
        assert!(is_b64token("eyJ.abc-_~+/=="));
        assert!(!is_b64token("a b") && !is_b64token("\"x") && !is_b64token("=="));
        assert_eq!(quoted_safe("a\"b\\c\nd"), "abcd");
        let c = Caller {
            sub: None,
            client_id: Some("app".into()),
            scopes: BTreeSet::new(),
        };
        assert_eq!(c.key(), "client:app");
    }
}
