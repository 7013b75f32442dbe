//! Security (§7): the description's Security Scheme Objects, a tool's effective
//! requirement alternatives, choosing the one whose credentials are present, and the
//! OAuth 2.0 client-credentials token cache. See the [`crate`] docs for the
//! credential forms.

use super::Secret;
use crate::origin::Origin;
use mcpdesc_core::Diagnostic;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The prefix that marks an OAuth 2.0 / OpenID Connect credential as a ready access
/// token (`token:eyJ…`).
pub const TOKEN_PREFIX: &str = "token:";

/// How long before its expiry a fetched token is replaced.
pub const TOKEN_EXPIRY_MARGIN: Duration = Duration::from_secs(30);

/// A Security Scheme Object the gateway can apply.
#[derive(Debug, Clone, PartialEq)]
pub enum Scheme {
    ApiKey {
        name: String,
        location: KeyLocation,
    },
    /// `http` with its `scheme` (`bearer`, `basic`, …) as written.
    Http {
        scheme: String,
    },
    /// `oauth2`; `token_url` of its `clientCredentials` flow, when it has one.
    OAuth2 {
        token_url: Option<String>,
    },
    OpenIdConnect,
    /// A type the gateway cannot apply (kept so the error can say so).
    Unsupported(String),
}

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLocation {
    Header,
    Query,
    Cookie,
}

/// The description's `securitySchemes`.
#[derive(Debug, Clone, Default)]
pub struct Schemes(BTreeMap<String, Scheme>);

impl Schemes {
    /// Reads root `securitySchemes` (what the validator accepted; odd shapes become
    /// [`Scheme::Unsupported`]).
    pub fn read(doc: &Value) -> Schemes {
        let mut out = BTreeMap::new();
        let Some(map) = doc.get("securitySchemes").and_then(Value::as_object) else {
            return Schemes(out);
        };
        for (name, def) in map {
            let s = |k: &str| def.get(k).and_then(Value::as_str).map(String::from);
            let scheme = match s("type").as_deref() {
                Some("apiKey") => match (s("name"), s("in").as_deref()) {
                    (Some(n), Some("header"))
                        if !mcpdesc_core::http::is_token(&n) || crate::wire::is_hop_by_hop(&n) =>
                    {
                        Scheme::Unsupported(format!(
                            "apiKey in header `{n}`, which is not a header a credential can be sent in (not an RFC 9110 token, or one the gateway sets itself: connection, framing, `Host`)"
                        ))
                    }
                    (Some(n), Some("header")) => Scheme::ApiKey {
                        name: n,
                        location: KeyLocation::Header,
                    },
                    (Some(n), Some("query")) => Scheme::ApiKey {
                        name: n,
                        location: KeyLocation::Query,
                    },
                    (Some(n), Some("cookie")) if !mcpdesc_core::http::is_token(&n) => {
                        Scheme::Unsupported(format!(
                            "apiKey in cookie `{n}`, which is not a cookie name (an RFC 9110 token, RFC 6265 §4.1.1)"
                        ))
                    }
                    (Some(n), Some("cookie")) => Scheme::ApiKey {
                        name: n,
                        location: KeyLocation::Cookie,
                    },
                    _ => Scheme::Unsupported("apiKey without name/in".into()),
                },
                Some("http") => match s("scheme") {
                    Some(sc) => Scheme::Http { scheme: sc },
                    None => Scheme::Unsupported("http without scheme".into()),
                },
                Some("oauth2") => Scheme::OAuth2 {
                    token_url: def
                        .pointer("/flows/clientCredentials/tokenUrl")
                        .and_then(Value::as_str)
                        .map(String::from),
                },
                Some("openIdConnect") => Scheme::OpenIdConnect,
                other => Scheme::Unsupported(format!("type {}", other.unwrap_or("(none)"))),
            };
            out.insert(name.clone(), scheme);
        }
        Schemes(out)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&Scheme> {
        self.0.get(name)
    }

    /// Origins of the client-credentials token endpoints.
    pub fn token_origins(&self) -> Vec<Origin> {
        self.0
            .values()
            .filter_map(|s| match s {
                Scheme::OAuth2 { token_url: Some(u) } => Origin::of_url(u),
                _ => None,
            })
            .collect()
    }

    /// A Security Requirement array as alternatives (§7.3): each entry's schemes with
    /// their scopes. A name that is not a scheme keeps its place and can never be met.
    pub fn alternatives(&self, security: &Value) -> Vec<Alternative> {
        let Some(arr) = security.as_array() else {
            return Vec::new();
        };
        arr.iter()
            .filter_map(Value::as_object)
            .map(|req| Alternative {
                requirements: req
                    .iter()
                    .map(|(name, scopes)| Requirement {
                        scheme_name: name.clone(),
                        scheme: self.0.get(name).cloned(),
                        scopes: scopes
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(Value::as_str)
                                    .map(String::from)
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// One Security Requirement Object: every scheme is needed (AND).
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    pub requirements: Vec<Requirement>,
}

/// One scheme of an alternative.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    pub scheme_name: String,
    pub scheme: Option<Scheme>,
    pub scopes: Vec<String>,
}

/// Credential checks at start: a basic credential needs `user:password`; an OAuth 2.0
/// scheme with a client-credentials flow needs `client_id:client_secret` or
/// `token:ACCESS_TOKEN`; one without (implicit, authorization code, password) takes the
/// access token itself, the `token:` prefix optional.
pub fn check_credentials(schemes: &Schemes, creds: &BTreeMap<String, Secret>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, secret) in creds {
        let v = secret.expose();
        let bad = |why: String| {
            Diagnostic::error(
                "serve-credential-invalid",
                format!("the credential for security scheme `{name}` {why}"),
            )
            .at(mcpdesc_core::pointer::push("/securitySchemes", name))
        };
        // Whitespace at the ends is checked where the value becomes a header (a basic
        // credential is base64-encoded first).
        if let Err(mcpdesc_core::http::FieldValueError::Control(_)) =
            mcpdesc_core::http::check_field_value(v)
        {
            out.push(bad("contains control characters".into()));
            continue;
        }
        match schemes.get(name) {
            Some(Scheme::Http { scheme })
                if scheme.eq_ignore_ascii_case("basic") && !v.contains(':') =>
            {
                out.push(bad("must be `user:password` (http basic)".into()));
            }
            Some(Scheme::OAuth2 { token_url: None })
                if v.strip_prefix(TOKEN_PREFIX) == Some("") =>
            {
                out.push(bad(format!(
                    "is `{TOKEN_PREFIX}` with no access token after it"
                )));
            }
            Some(Scheme::OAuth2 { token_url: Some(_) })
                if !v.starts_with(TOKEN_PREFIX) && !v.contains(':') =>
            {
                out.push(bad(format!(
                    "must be `client_id:client_secret` (clientCredentials flow) or `{TOKEN_PREFIX}ACCESS_TOKEN`"
                )));
            }
            _ => {}
        }
    }
    out
}

/// Why [`credentials_from_env`] could not gather the credentials. The variants carry
/// what the caller needs to phrase the error in its own terms (flag names are the
/// CLI's, not this library's); none carries a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// Two explicit entries name one scheme.
    #[error("security scheme `{scheme}` is given a credential twice")]
    Repeated { scheme: String },
    /// The variable an explicit entry names is not set (or is not Unicode).
    #[error("environment variable `{var}` (credential of security scheme `{scheme}`) is not set")]
    Unset { scheme: String, var: String },
    /// The variable an explicit entry names is set but empty.
    #[error("environment variable `{var}` (credential of security scheme `{scheme}`) is empty")]
    Empty { scheme: String, var: String },
}

/// Security scheme name → secret, read through `env` (a lookup such as
/// `|v| std::env::var(v).ok()`): each `(scheme, variable)` of `given` first (the
/// variable must be set and non-empty), then, for every other scheme of the
/// description's `securitySchemes`, [`super::credential_env_var`]`(scheme)` when it is
/// set and non-empty (unset is not an error: the scheme simply has no credential, and a
/// tool that needs it says so when called). `given` may name a scheme the description
/// does not declare; `check_credentials` is where forms are judged.
pub fn credentials_from_env(
    doc: &Value,
    given: &[(String, String)],
    env: impl Fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, Secret>, CredentialError> {
    let mut out = BTreeMap::new();
    for (scheme, var) in given {
        if out.contains_key(scheme) {
            return Err(CredentialError::Repeated {
                scheme: scheme.clone(),
            });
        }
        let v = match env(var) {
            Some(v) if !v.is_empty() => v,
            Some(_) => {
                return Err(CredentialError::Empty {
                    scheme: scheme.clone(),
                    var: var.clone(),
                });
            }
            None => {
                return Err(CredentialError::Unset {
                    scheme: scheme.clone(),
                    var: var.clone(),
                });
            }
        };
        out.insert(scheme.clone(), Secret::new(v));
    }
    let declared = doc
        .get("securitySchemes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, _)| k);
    for scheme in declared {
        if out.contains_key(scheme) {
            continue;
        }
        if let Some(v) = env(&super::credential_env_var(scheme)).filter(|v| !v.is_empty()) {
            out.insert(scheme.clone(), Secret::new(v));
        }
    }
    Ok(out)
}

/// What an applied security alternative adds to a request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    pub headers: Vec<(String, String)>,
    /// Query pairs, already percent-encoded; their values are secrets (redacted in logs).
    pub query: Vec<(String, String)>,
    pub cookies: Vec<(String, String)>,
    /// Token fetches this request depends on (scheme name, scopes).
    pub oauth: Vec<OAuthNeed>,
    /// Schemes whose credential is an exchange of the caller's token ([`TokenExchange`]).
    pub exchange: Vec<String>,
}

/// An access token to fetch (or take from the cache) before sending.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthNeed {
    pub scheme_name: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: Secret,
    pub scopes: Vec<String>,
}

/// The per-call credential hook (`--upstream-token-exchange`): for the security schemes
/// named in `schemes`, the upstream credential is not the configured one but an RFC 8693
/// exchange of the authenticated caller's access token at the issuer, for the upstream
/// base URL the request goes to (`exchanged_token`). The MCP side builds one per
/// authenticated request; `subject` cannot be read here or anywhere but in the issuer
/// (see [`mcpdesc_auth::SubjectToken`]), and `Debug` shows the schemes only.
#[derive(Clone, Copy)]
pub struct TokenExchange<'a> {
    /// The issuer that verified the caller's token, holding the gateway's client
    /// credential and the exchange cache.
    pub issuer: &'a mcpdesc_auth::Issuer,
    /// The security schemes whose credential is exchanged.
    pub schemes: &'a [String],
    /// The caller's token.
    pub subject: &'a mcpdesc_auth::SubjectToken,
}

impl std::fmt::Debug for TokenExchange<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenExchange")
            .field("issuer", &self.issuer.issuer())
            .field("schemes", &self.schemes)
            .finish_non_exhaustive()
    }
}

impl TokenExchange<'_> {
    /// Whether scheme `name`'s credential is exchanged.
    pub fn covers(&self, name: &str) -> bool {
        self.schemes.iter().any(|s| s == name)
    }
}

/// Whether a scheme of this type can carry an exchanged token: `oauth2`,
/// `openIdConnect` or `http` `bearer` (the token goes in `Authorization: Bearer`).
fn exchangeable(scheme: &Scheme) -> bool {
    match scheme {
        Scheme::OAuth2 { .. } | Scheme::OpenIdConnect => true,
        Scheme::Http { scheme } => scheme.eq_ignore_ascii_case("bearer"),
        _ => false,
    }
}

/// Whether security scheme `name` of `doc` can carry an exchanged token: `Ok(true)` for
/// an `oauth2`, `openIdConnect` or `http` `bearer` scheme, `Ok(false)` when `doc`
/// declares no such scheme, `Err` naming the type otherwise.
pub fn check_exchange_scheme(doc: &Value, name: &str) -> Result<bool, String> {
    match Schemes::read(doc).get(name) {
        None => Ok(false),
        Some(s) if exchangeable(s) => Ok(true),
        Some(s) => Err(format!(
            "security scheme `{name}` is {}: an exchanged token is a bearer access token, for an oauth2, openIdConnect or http bearer scheme",
            match s {
                Scheme::ApiKey { .. } => "an apiKey scheme".to_string(),
                Scheme::Http { scheme } => format!("http `{scheme}`"),
                Scheme::Unsupported(why) => why.clone(),
                _ => "of another type".to_string(),
            }
        )),
    }
}

/// The one place the gateway exchanges: the upstream token for scheme `scheme` of a
/// request to `resource` (the tool's base URL), from the caller's token in `x`. Errors
/// are tool-error texts naming the situation, never a token.
pub async fn exchanged_token(
    x: &TokenExchange<'_>,
    scheme: &str,
    resource: &str,
    refresh: bool,
) -> Result<Secret, String> {
    x.issuer
        .exchange(x.subject, scheme, resource, refresh)
        .await
        .map(|t| Secret::new(t.expose()))
        .map_err(|e| {
            format!(
                "the upstream credential of security scheme `{scheme}` is an RFC 8693 exchange of the caller's access token, and it failed: {e}; nothing was sent upstream"
            )
        })
}

/// Where a credential comes from for one scheme.
fn credential_for<'a>(
    r: &Requirement,
    creds: &'a BTreeMap<String, Secret>,
    forwarded: &'a [(String, String)],
    exchanged: &[String],
) -> Option<Cred<'a>> {
    if exchanged.contains(&r.scheme_name) && r.scheme.as_ref().is_some_and(exchangeable) {
        return Some(Cred::Exchanged);
    }
    if let Some(s) = creds.get(&r.scheme_name) {
        return Some(Cred::Configured(s.expose()));
    }
    let header = match r.scheme.as_ref()? {
        Scheme::ApiKey {
            name,
            location: KeyLocation::Header,
        } => name.as_str(),
        Scheme::Http { .. } | Scheme::OAuth2 { .. } | Scheme::OpenIdConnect => "authorization",
        _ => return None,
    };
    forwarded
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(header))
        .map(|_| Cred::Forwarded)
}

enum Cred<'a> {
    Configured(&'a str),
    /// The inbound request's own header is forwarded as is.
    Forwarded,
    /// An exchange of the caller's token, made when sending.
    Exchanged,
}

/// Chooses and applies an alternative (see the module docs of [`crate`]): the
/// first non-anonymous one whose schemes all have credentials, else an anonymous one,
/// else an error naming what is missing. `None` security: nothing to apply.
pub fn apply(
    security: Option<&[Alternative]>,
    creds: &BTreeMap<String, Secret>,
    forwarded: &[(String, String)],
    exchanged: &[String],
) -> Result<Applied, String> {
    let Some(alts) = security else {
        return Ok(Applied::default());
    };
    if alts.is_empty() {
        return Ok(Applied::default());
    }
    let mut missing: Vec<String> = Vec::new();
    for alt in alts.iter().filter(|a| !a.requirements.is_empty()) {
        match apply_one(alt, creds, forwarded, exchanged) {
            Ok(a) => return Ok(a),
            Err(m) => missing.push(m),
        }
    }
    if alts.iter().any(|a| a.requirements.is_empty()) {
        return Ok(Applied::default());
    }
    Err(format!(
        "no security requirement of this tool can be met: {}",
        missing.join("; or ")
    ))
}

fn apply_one(
    alt: &Alternative,
    creds: &BTreeMap<String, Secret>,
    forwarded: &[(String, String)],
    exchanged: &[String],
) -> Result<Applied, String> {
    let mut out = Applied::default();
    let mut missing = Vec::new();
    for r in &alt.requirements {
        let Some(scheme) = &r.scheme else {
            missing.push(format!("`{}` is not a security scheme", r.scheme_name));
            continue;
        };
        if let Scheme::Unsupported(why) = scheme {
            missing.push(format!(
                "scheme `{}` ({why}) cannot be applied by the gateway",
                r.scheme_name
            ));
            continue;
        }
        let Some(cred) = credential_for(r, creds, forwarded, exchanged) else {
            missing.push(format!(
                "scheme `{}` has no credential (none is configured for it, and {} is not set)",
                r.scheme_name,
                super::credential_env_var(&r.scheme_name)
            ));
            continue;
        };
        let v = match cred {
            Cred::Configured(v) => v,
            Cred::Forwarded => continue, // the forwarded header carries it
            Cred::Exchanged => {
                out.exchange.push(r.scheme_name.clone());
                continue;
            }
        };
        match scheme {
            Scheme::ApiKey { name, location } => match location {
                KeyLocation::Header => out.headers.push((name.clone(), v.to_string())),
                KeyLocation::Query => out.query.push((
                    super::serialize::encode(name, super::serialize::Encoding::Unreserved),
                    super::serialize::encode(v, super::serialize::Encoding::Unreserved),
                )),
                KeyLocation::Cookie => out.cookies.push((name.clone(), v.to_string())),
            },
            Scheme::Http { scheme } if scheme.eq_ignore_ascii_case("bearer") => out
                .headers
                .push(("Authorization".into(), format!("Bearer {v}"))),
            Scheme::Http { scheme } if scheme.eq_ignore_ascii_case("basic") => out.headers.push((
                "Authorization".into(),
                format!("Basic {}", base64_std(v.as_bytes())),
            )),
            Scheme::Http { scheme } => out
                .headers
                .push(("Authorization".into(), format!("{scheme} {v}"))),
            Scheme::OpenIdConnect => out.headers.push((
                "Authorization".into(),
                format!("Bearer {}", v.strip_prefix(TOKEN_PREFIX).unwrap_or(v)),
            )),
            Scheme::OAuth2 { token_url } => match (v.strip_prefix(TOKEN_PREFIX), token_url) {
                (Some(t), _) => out
                    .headers
                    .push(("Authorization".into(), format!("Bearer {t}"))),
                // No clientCredentials flow to fetch a token with: the credential is
                // the access token (implicit, authorization code, password flows).
                (None, None) => out
                    .headers
                    .push(("Authorization".into(), format!("Bearer {v}"))),
                (None, Some(u)) => match v.split_once(':') {
                    Some((id, secret)) => out.oauth.push(OAuthNeed {
                        scheme_name: r.scheme_name.clone(),
                        token_url: u.clone(),
                        client_id: id.to_string(),
                        client_secret: Secret::new(secret),
                        scopes: r.scopes.clone(),
                    }),
                    None => missing.push(format!(
                        "the credential of scheme `{}` is neither `{TOKEN_PREFIX}ACCESS_TOKEN` nor `client_id:client_secret` for its clientCredentials flow",
                        r.scheme_name
                    )),
                },
            },
            Scheme::Unsupported(_) => {}
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing.join(", "))
    }
}

/// Standard base64 with padding.
pub fn base64_std(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// A cached access token.
#[derive(Debug, Clone)]
struct Cached {
    token: Secret,
    /// When to stop using it (`None`: no `expires_in` was given, use until a 401).
    until: Option<Instant>,
}

/// OAuth 2.0 access tokens fetched with the client-credentials flow, keyed by scheme,
/// client and scopes, kept until [`TOKEN_EXPIRY_MARGIN`] before they expire. One fetch
/// at a time per key: concurrent calls wait for the same token.
#[derive(Debug, Default)]
pub struct TokenCache {
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Cached>>>>>,
}

impl TokenCache {
    fn slot(&self, key: &str) -> Arc<tokio::sync::Mutex<Option<Cached>>> {
        let mut g = match self.slots.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.entry(key.to_string()).or_default().clone()
    }

    /// A valid token for `need`: the cached one, or a new one from `fetch` (which is
    /// called with the lock held, so concurrent callers share one fetch). `refresh`
    /// drops the cached token first (after a 401).
    pub async fn token<F, Fut>(
        &self,
        need: &OAuthNeed,
        refresh: bool,
        fetch: F,
    ) -> Result<Secret, String>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(Secret, Option<Duration>), String>>,
    {
        let mut scopes = need.scopes.clone();
        scopes.sort();
        let key = format!(
            "{}\u{0}{}\u{0}{}",
            need.scheme_name,
            need.client_id,
            scopes.join(" ")
        );
        let slot = self.slot(&key);
        let mut g = slot.lock().await;
        if refresh {
            *g = None;
        }
        if let Some(c) = g.as_ref() {
            if c.until.is_none_or(|u| Instant::now() < u) {
                return Ok(c.token.clone());
            }
        }
        let (token, expires_in) = fetch().await?;
        let until = expires_in.map(|d| Instant::now() + d.saturating_sub(TOKEN_EXPIRY_MARGIN));
        *g = Some(Cached {
            token: token.clone(),
            until,
        });
        Ok(token)
    }
}

/// The token request of RFC 6749 §4.4.2 for `need`, as a request value: `POST` to the
/// `tokenUrl` with the parts of [`token_request_parts`], asking for JSON.
pub fn token_request(need: &OAuthNeed) -> crate::HttpRequest {
    let (authorization, body) = token_request_parts(need);
    crate::HttpRequest {
        method: mcpdesc_core::provenance::Method::Post,
        url: need.token_url.clone(),
        log_url: need.token_url.clone(),
        headers: vec![
            ("Authorization".into(), authorization),
            ("Accept".into(), "application/json".into()),
        ],
        body: Some(crate::Body {
            content_type: "application/x-www-form-urlencoded".into(),
            bytes: body.into_bytes(),
        }),
        oauth: Vec::new(),
        exchange: Vec::new(),
    }
}

/// The token request of RFC 6749 §4.4.2: form body and the Basic client authentication
/// of §2.3.1 (id and secret form-urlencoded first).
pub fn token_request_parts(need: &OAuthNeed) -> (String, String) {
    let mut id = String::new();
    super::serialize::form_urlencode_into(&mut id, &need.client_id);
    let mut secret = String::new();
    super::serialize::form_urlencode_into(&mut secret, need.client_secret.expose());
    let authorization = format!("Basic {}", base64_std(format!("{id}:{secret}").as_bytes()));
    let mut body = String::from("grant_type=client_credentials");
    if !need.scopes.is_empty() {
        body.push_str("&scope=");
        super::serialize::form_urlencode_into(&mut body, &need.scopes.join(" "));
    }
    (authorization, body)
}

/// Reads a token response (RFC 6749 §5.1): `access_token`, `token_type` bearer,
/// optional `expires_in` seconds.
pub fn parse_token_response(
    status: u16,
    body: &[u8],
) -> Result<(Secret, Option<Duration>), String> {
    if !(200..300).contains(&status) {
        let v: Option<Value> = serde_json::from_slice(body).ok();
        let err = v
            .as_ref()
            .and_then(|v| v.get("error"))
            .and_then(Value::as_str)
            .unwrap_or("no error code");
        return Err(format!("the token endpoint answered HTTP {status} ({err})"));
    }
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| format!("the token endpoint's answer is not JSON: {e}"))?;
    let token = v
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("the token endpoint's answer has no `access_token`")?;
    if token.bytes().any(|b| b < 0x21 || b == 0x7f) {
        return Err(
            "the token endpoint's `access_token` has characters a header cannot carry".into(),
        );
    }
    match v.get("token_type").and_then(Value::as_str) {
        Some(t) if t.eq_ignore_ascii_case("bearer") => {}
        Some(t) => {
            return Err(format!(
                "the token endpoint issued a `{t}` token; only bearer tokens are supported"
            ));
        }
        None => return Err("the token endpoint's answer has no `token_type`".into()),
    }
    let expires = v
        .get("expires_in")
        .and_then(|e| {
            e.as_u64()
                .or_else(|| e.as_str().and_then(|s| s.parse().ok()))
        })
        .map(Duration::from_secs);
    Ok((Secret::new(token), expires))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"securitySchemes": {
            "key": {"type": "apiKey", "in": "query", "name": "api_key"},
            "hkey": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "basic": {"type": "http", "scheme": "basic"},
            "bearer": {"type": "http", "scheme": "bearer"},
            "oauth": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://auth.example/token", "scopes": {}}}},
            "oauth_code": {"type": "oauth2", "flows": {"authorizationCode": {"authorizationUrl": "https://a.example", "tokenUrl": "https://a.example/t", "scopes": {}}}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://a.example/.well-known/openid-configuration"}
        }})
    }

    fn creds(pairs: &[(&str, &str)]) -> BTreeMap<String, Secret> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Secret::new(*v)))
            .collect()
    }

    /// An API key may not go in a header the gateway sets itself or in a name that is
    /// no header name: the description cannot make the operator's credential pick the
    /// virtual host or the framing of the request.
    #[test]
    fn api_keys_in_headers_the_gateway_sets_are_unsupported() {
        for name in [
            "Host",
            "content-length",
            "Transfer-Encoding",
            "X Key",
            "X-Key\r\nX: y",
        ] {
            let s = Schemes::read(&json!({"securitySchemes": {
                "k": {"type": "apiKey", "in": "header", "name": name}
            }}));
            let alts = s.alternatives(&json!([{"k": []}]));
            let err =
                apply(Some(&alts), &creds(&[("k", "secret")]), &[], &[]).expect_err("refused");
            assert!(
                err.contains(&format!(
                    "scheme `k` (apiKey in header `{name}`, which is not a header a credential can be sent in"
                )),
                "{name}: {err}"
            );
        }
        // A cookie name that is no token could add cookies of its own (`a=b; admin`).
        for name in [" k", "a=b; admin", "k;x", ""] {
            let s = Schemes::read(&json!({"securitySchemes": {
                "c": {"type": "apiKey", "in": "cookie", "name": name}
            }}));
            let alts = s.alternatives(&json!([{"c": []}]));
            let err =
                apply(Some(&alts), &creds(&[("c", "secret")]), &[], &[]).expect_err("refused");
            assert!(
                err.contains(&format!(
                    "scheme `c` (apiKey in cookie `{name}`, which is not a cookie name"
                )),
                "{name:?}: {err}"
            );
        }
        // An ordinary header name is used as is.
        let s = Schemes::read(&json!({"securitySchemes": {
            "k": {"type": "apiKey", "in": "header", "name": "X-Host"}
        }}));
        let alts = s.alternatives(&json!([{"k": []}]));
        let a = apply(Some(&alts), &creds(&[("k", "secret")]), &[], &[]).expect("met");
        assert_eq!(a.headers, [("X-Host".to_string(), "secret".to_string())]);
    }

    #[test]
    fn first_satisfiable_alternative_and_anonymous_last() {
        let s = Schemes::read(&doc());
        let alts = s.alternatives(&json!([{}, {"bearer": []}, {"key": [], "hkey": []}]));
        // Anonymous is listed first but configured credentials are used.
        let a = apply(
            Some(&alts),
            &creds(&[("key", "k"), ("hkey", "h")]),
            &[],
            &[],
        )
        .expect("met");
        assert_eq!(a.headers, [("X-Key".to_string(), "h".to_string())]);
        assert_eq!(a.query, [("api_key".to_string(), "k".to_string())]);
        // Nothing configured: anonymous.
        assert_eq!(
            apply(Some(&alts), &creds(&[]), &[], &[]),
            Ok(Applied::default())
        );
        // No anonymous alternative: the error names every missing scheme.
        let alts = s.alternatives(&json!([{"bearer": []}, {"key": [], "hkey": []}]));
        let e = apply(Some(&alts), &creds(&[("key", "k")]), &[], &[]).expect_err("unmet");
        assert!(e.contains("`bearer`") && e.contains("`hkey`"), "{e}");
        assert!(!e.contains("`key` has"), "{e}");
        // `security: []` clears: nothing to apply.
        assert_eq!(
            apply(Some(&[]), &creds(&[]), &[], &[]),
            Ok(Applied::default())
        );
    }

    #[test]
    fn schemes_apply_their_credentials() {
        let s = Schemes::read(&doc());
        let one = |name: &str, v: &str| {
            apply(
                Some(&s.alternatives(&json!([{name: []}]))),
                &creds(&[(name, v)]),
                &[],
                &[],
            )
        };
        assert_eq!(
            one("basic", "Aladdin:open sesame").expect("basic").headers,
            [(
                "Authorization".into(),
                "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==".into()
            )]
        );
        assert_eq!(
            one("bearer", "t0k").expect("bearer").headers,
            [("Authorization".into(), "Bearer t0k".into())]
        );
        assert_eq!(
            one("oidc", "token:abc").expect("oidc").headers,
            [("Authorization".into(), "Bearer abc".into())]
        );
        assert_eq!(
            one("oauth_code", "token:abc").expect("oauth token").headers,
            [("Authorization".into(), "Bearer abc".into())]
        );
        // No clientCredentials flow: the value is the access token, the prefix optional
        // (a token may itself hold `:`).
        assert_eq!(
            one("oauth_code", "abc").expect("bare oauth token").headers,
            [("Authorization".into(), "Bearer abc".into())]
        );
        assert_eq!(
            one("oauth_code", "id:secret")
                .expect("a token with a colon")
                .headers,
            [("Authorization".into(), "Bearer id:secret".into())]
        );
        // With one, `token:` still names a ready token.
        assert_eq!(
            one("oauth", "token:abc").expect("cc token").headers,
            [("Authorization".into(), "Bearer abc".into())]
        );
        assert!(one("oauth", "x").is_err());
        let a = one("oauth", "id:se:cret").expect("cc");
        assert_eq!(a.oauth[0].client_id, "id");
        assert_eq!(a.oauth[0].client_secret.expose(), "se:cret");
        assert_eq!(a.oauth[0].token_url, "https://auth.example/token");
    }

    #[test]
    fn forwarded_authorization_meets_http_schemes() {
        let s = Schemes::read(&doc());
        let alts = s.alternatives(&json!([{"bearer": []}]));
        let fwd = [("authorization".to_string(), "Bearer user".to_string())];
        assert_eq!(
            apply(Some(&alts), &creds(&[]), &fwd, &[]),
            Ok(Applied::default())
        );
        assert!(apply(Some(&alts), &creds(&[]), &[], &[]).is_err());
    }

    /// A scheme named for token exchange is met by the exchange (made when sending),
    /// before a configured credential; only bearer-carrying schemes can be exchanged.
    #[test]
    fn exchanged_schemes_are_met_by_the_exchange() {
        let s = Schemes::read(&doc());
        let x = ["oauth".to_string(), "bearer".to_string(), "key".to_string()];
        for name in ["oauth", "bearer"] {
            let alts = s.alternatives(&json!([{name: []}]));
            let a =
                apply(Some(&alts), &creds(&[(name, "token:configured")]), &[], &x).expect("met");
            assert_eq!(a.exchange, [name.to_string()], "{name}");
            assert!(a.headers.is_empty() && a.oauth.is_empty(), "{name}: {a:?}");
        }
        // An apiKey scheme cannot carry an exchanged token: its credential applies.
        let alts = s.alternatives(&json!([{"key": []}]));
        let a = apply(Some(&alts), &creds(&[("key", "k")]), &[], &x).expect("met");
        assert!(a.exchange.is_empty());
        assert_eq!(a.query.len(), 1);
        assert_eq!(check_exchange_scheme(&doc(), "oauth"), Ok(true));
        assert_eq!(check_exchange_scheme(&doc(), "oidc"), Ok(true));
        assert_eq!(check_exchange_scheme(&doc(), "bearer"), Ok(true));
        assert_eq!(check_exchange_scheme(&doc(), "nope"), Ok(false));
        for bad in ["basic", "key", "hkey"] {
            let e = check_exchange_scheme(&doc(), bad).expect_err(bad);
            assert!(
                e.contains(&format!("`{bad}`")) && e.contains("bearer"),
                "{e}"
            );
        }
    }

    #[test]
    fn credential_forms_are_checked_at_start() {
        let s = Schemes::read(&doc());
        let d = check_credentials(
            &s,
            &creds(&[
                ("basic", "nocolon"),
                ("oauth_code", "token:"),
                ("oauth", "x"),
                ("bearer", "a\nb"),
            ]),
        );
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(d.iter().all(|d| d.code == "serve-credential-invalid"));
        for ok in [
            [("oauth", "id:s"), ("oauth_code", "token:t")],
            [("oauth", "token:t"), ("oauth_code", "eyJhbGciOi.x.y")],
            [("oauth", "id:s"), ("oauth_code", "id:secret")],
        ] {
            assert!(check_credentials(&s, &creds(&ok)).is_empty(), "{ok:?}");
        }
    }

    #[test]
    fn credentials_come_from_the_named_variables_then_the_default_ones() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let given = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let got = credentials_from_env(
            &doc(),
            &given(&[("basic", "MY_BASIC")]),
            env(&[
                ("MY_BASIC", "u:p"),
                // Named explicitly elsewhere: the default variable is not read.
                ("MCPDESC_CREDENTIAL_BASIC", "ignored"),
                ("MCPDESC_CREDENTIAL_OAUTH_CODE", "tok"),
                // Empty: no credential.
                ("MCPDESC_CREDENTIAL_BEARER", ""),
                // Not a scheme of the description: not read.
                ("MCPDESC_CREDENTIAL_OTHER", "x"),
            ]),
        )
        .expect("gathered");
        let shown: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.expose())).collect();
        assert_eq!(shown, [("basic", "u:p"), ("oauth_code", "tok")]);
        assert_eq!(
            credentials_from_env(&doc(), &given(&[("key", "NOPE")]), env(&[])),
            Err(CredentialError::Unset {
                scheme: "key".into(),
                var: "NOPE".into()
            })
        );
        assert_eq!(
            credentials_from_env(&doc(), &given(&[("key", "E")]), env(&[("E", "")])),
            Err(CredentialError::Empty {
                scheme: "key".into(),
                var: "E".into()
            })
        );
        assert_eq!(
            credentials_from_env(
                &doc(),
                &given(&[("key", "A"), ("key", "B")]),
                env(&[("A", "1"), ("B", "2")])
            ),
            Err(CredentialError::Repeated {
                scheme: "key".into()
            })
        );
        // No securitySchemes: only what was named.
        assert!(
            credentials_from_env(&json!({}), &[], env(&[]))
                .expect("empty")
                .is_empty()
        );
    }

    #[test]
    fn token_request_and_response() {
        let need = OAuthNeed {
            scheme_name: "oauth".into(),
            token_url: "https://auth.example/token".into(),
            client_id: "s6BhdRkqt3".into(),
            client_secret: Secret::new("gX1fBat3bV"),
            scopes: vec!["read".into(), "write".into()],
        };
        let (auth, body) = token_request_parts(&need);
        // RFC 6749 §2.3.1 example credentials.
        assert_eq!(auth, "Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW");
        assert_eq!(body, "grant_type=client_credentials&scope=read+write");
        let (t, e) = parse_token_response(
            200,
            br#"{"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"Bearer","expires_in":3600}"#,
        )
        .expect("ok");
        assert_eq!(t.expose(), "2YotnFZFEjr1zCsicMWpAA");
        assert_eq!(e, Some(Duration::from_secs(3600)));
        assert!(parse_token_response(200, br#"{"access_token":"x","token_type":"mac"}"#).is_err());
        assert!(
            parse_token_response(400, br#"{"error":"invalid_client"}"#)
                .expect_err("400")
                .contains("invalid_client")
        );
    }
}
