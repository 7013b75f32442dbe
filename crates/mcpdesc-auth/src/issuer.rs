//! The authorization server as the gateway talks to it: metadata discovery (RFC 8414,
//! then OpenID Connect Discovery), the JWKS (cached; refetched on an unknown `kid`, at
//! most once per [`JWKS_REFETCH_INTERVAL`], concurrent refetches coalesced), RFC 7662
//! introspection and RFC 8693 token exchange with the gateway's own client credential.

use crate::jwt::{self, Checks, Claims, KeySet, Reject};
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The shortest time between two JWKS fetches caused by unknown `kid`s.
pub const JWKS_REFETCH_INTERVAL: Duration = Duration::from_secs(10);
/// Verified tokens (JWTs and introspection answers) are cached until the token's `exp`,
/// at most this long.
pub const INTROSPECTION_TTL: Duration = Duration::from_secs(60);
/// The most bytes read of an issuer's answer.
const MAX_BODY: usize = 1 << 20;
/// Entries a cache holds before it is emptied (bounds memory under a token flood).
const MAX_CACHE: usize = 10_000;
/// How long one issuer exchange may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Why the issuer could not be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum IssuerError {
    #[error("{0}")]
    Url(String),
    #[error("{url}: {why}")]
    Fetch { url: String, why: String },
    #[error("{0}")]
    Metadata(String),
}

/// The gateway's own `client_id:client_secret` at the issuer.
#[derive(Clone)]
pub struct ClientCredential {
    pub id: String,
    pub secret: String,
}

impl std::fmt::Debug for ClientCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredential")
            .field("id", &self.id)
            .field("secret", &"REDACTED")
            .finish()
    }
}

impl ClientCredential {
    /// `client_id:client_secret` (the secret may contain `:`).
    pub fn parse(s: &str) -> Option<ClientCredential> {
        let (id, secret) = s.split_once(':')?;
        (!id.is_empty() && !secret.is_empty()).then(|| ClientCredential {
            id: id.into(),
            secret: secret.into(),
        })
    }
}

/// What the server's metadata says (the members used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub issuer: String,
    pub jwks_uri: String,
    pub token_endpoint: Option<String>,
    pub introspection_endpoint: Option<String>,
    /// `introspection_endpoint_auth_methods_supported` rules out `client_secret_basic`
    /// but allows `client_secret_post`.
    pub introspection_post: bool,
    pub token_post: bool,
}

/// An issuer URL must be https, or http on a loopback host (tests, a local issuer).
pub fn check_url(u: &str) -> Result<url::Url, IssuerError> {
    let url = url::Url::parse(u).map_err(|e| IssuerError::Url(format!("`{u}`: {e}")))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => {
            return Err(IssuerError::Url(format!(
                "`{u}` must be an https URL (http only on a loopback host)"
            )));
        }
    }
    if url.fragment().is_some() || url.query().is_some() || !url.username().is_empty() {
        return Err(IssuerError::Url(format!(
            "`{u}`: an issuer URL has no query, fragment or user info"
        )));
    }
    Ok(url)
}

/// The metadata URLs to try, in order: RFC 8414 §3.1 (the well-known segment inserted
/// between host and path), then OpenID Connect Discovery (appended to the issuer).
pub fn discovery_urls(issuer: &str) -> Result<Vec<String>, IssuerError> {
    let url = check_url(issuer)?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    Ok(vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ])
}

/// Reads the members used from a metadata document, which must name `issuer`.
pub fn parse_metadata(doc: &Value, issuer: &str) -> Result<Metadata, IssuerError> {
    let s = |k: &str| doc.get(k).and_then(Value::as_str).map(String::from);
    match s("issuer") {
        Some(i) if i == issuer => {}
        Some(i) => {
            return Err(IssuerError::Metadata(format!(
                "the metadata names issuer `{i}`, not `{issuer}` (RFC 8414 §3.3: they must be identical)"
            )));
        }
        None => return Err(IssuerError::Metadata("the metadata has no `issuer`".into())),
    }
    let Some(jwks_uri) = s("jwks_uri") else {
        return Err(IssuerError::Metadata(
            "the metadata has no `jwks_uri`".into(),
        ));
    };
    check_url(&jwks_uri)?;
    let endpoint = |k: &str| -> Result<Option<String>, IssuerError> {
        match s(k) {
            Some(u) => {
                check_url(&u)?;
                Ok(Some(u))
            }
            None => Ok(None),
        }
    };
    let post_only = |k: &str| {
        doc.get(k).and_then(Value::as_array).is_some_and(|a| {
            let has = |m: &str| a.iter().any(|x| x.as_str() == Some(m));
            !has("client_secret_basic") && has("client_secret_post")
        })
    };
    Ok(Metadata {
        issuer: issuer.into(),
        jwks_uri,
        token_endpoint: endpoint("token_endpoint")?,
        introspection_endpoint: endpoint("introspection_endpoint")?,
        introspection_post: post_only("introspection_endpoint_auth_methods_supported"),
        token_post: post_only("token_endpoint_auth_methods_supported"),
    })
}

/// The HTTP client for issuer calls (reqwest over rustls with ring, platform roots; no
/// redirects, no proxy).
fn client() -> Result<reqwest::Client, IssuerError> {
    let tls = crate::tls::client_config()
        .map_err(|e| IssuerError::Url(format!("TLS setup failed: {e}")))?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .no_proxy()
        .build()
        .map_err(|e| IssuerError::Url(format!("HTTP client setup failed: {e}")))
}

async fn read_json(resp: reqwest::Response, url: &str) -> Result<(u16, Value), IssuerError> {
    let status = resp.status().as_u16();
    let fail = |why: String| IssuerError::Fetch {
        url: url.into(),
        why,
    };
    let mut resp = resp;
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| fail(e.to_string()))? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BODY {
            return Err(fail(format!("the answer is larger than {MAX_BODY} bytes")));
        }
    }
    let v =
        serde_json::from_slice(&body).map_err(|e| fail(format!("HTTP {status}, not JSON: {e}")))?;
    Ok((status, v))
}

async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, IssuerError> {
    let resp = http
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| IssuerError::Fetch {
            url: url.into(),
            why: e.to_string(),
        })?;
    match read_json(resp, url).await? {
        (200, v) => Ok(v),
        (s, _) => Err(IssuerError::Fetch {
            url: url.into(),
            why: format!("HTTP {s}"),
        }),
    }
}

fn form(pairs: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

/// POSTs a form authenticated with the client credential (`client_secret_basic`,
/// or `client_secret_post` when `post`).
async fn post_form(
    http: &reqwest::Client,
    url: &str,
    cred: &ClientCredential,
    post: bool,
    pairs: &[(&str, &str)],
) -> Result<(u16, Value), IssuerError> {
    let mut all: Vec<(&str, &str)> = pairs.to_vec();
    let mut req = http
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json");
    if post {
        all.push(("client_id", &cred.id));
        all.push(("client_secret", &cred.secret));
    } else {
        // RFC 6749 §2.3.1: each part form-urlencoded, then Basic.
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        use base64::Engine as _;
        let basic = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            enc(&cred.id),
            enc(&cred.secret)
        ));
        req = req.header("authorization", format!("Basic {basic}"));
    }
    let resp = req
        .body(form(&all))
        .send()
        .await
        .map_err(|e| IssuerError::Fetch {
            url: url.into(),
            why: e.to_string(),
        })?;
    read_json(resp, url).await
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A token's cache key: its SHA-256 (the token itself is never kept as a key).
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// (caller-token hash, audience): the key of a verified token's cache entry (JWTs and
/// introspection answers alike).
type IntrospectionKey = ([u8; 32], String);

/// (caller-token hash, scheme, resource): an exchanged token's cache key.
type ExchangeKey = ([u8; 32], String, String);

/// The caller's access token, kept for one purpose: the subject of an RFC 8693 token
/// exchange ([`Issuer::exchange`]). It cannot be read outside this crate (no accessor,
/// no `Display`, a redacting `Debug`, no `Clone`), so a caller that holds one can pass it
/// to the issuer and nowhere else. It holds the token's SHA-256 (the exchange cache's
/// key), computed once.
pub struct SubjectToken {
    token: String,
    hash: [u8; 32],
}

impl SubjectToken {
    /// Takes a verified access token.
    pub fn new(token: &str) -> SubjectToken {
        SubjectToken {
            token: token.to_string(),
            hash: token_hash(token),
        }
    }
}

impl std::fmt::Debug for SubjectToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SubjectToken(REDACTED)")
    }
}

/// An access token the issuer issued to the gateway (an exchange's answer). `Debug`
/// redacts it; [`UpstreamToken::expose`] is for the one header it goes in.
#[derive(Clone, PartialEq, Eq)]
pub struct UpstreamToken(Arc<str>);

impl UpstreamToken {
    /// The token, for the upstream request's `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for UpstreamToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UpstreamToken(REDACTED)")
    }
}

/// Why a token exchange failed. The texts name the situation and the issuer's error
/// code, never a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// No client credential or no token endpoint.
    #[error("{0}")]
    Unavailable(String),
    /// The token endpoint could not be reached or answered something unreadable.
    #[error("the token exchange at {url} failed: {why}")]
    Fetch { url: String, why: String },
    /// The issuer refused (its RFC 6749 §5.2 `error` code).
    #[error("the issuer refused the token exchange: HTTP {status} {error}")]
    Refused { status: u16, error: String },
}

/// Skew subtracted from an exchanged token's `expires_in` before it is replaced.
pub const EXCHANGE_SKEW: Duration = Duration::from_secs(10);
/// The lifetime assumed for an exchanged token whose answer has no `expires_in`.
pub const EXCHANGE_DEFAULT_TTL: Duration = Duration::from_secs(60);

/// One exchange cache slot: concurrent calls for one key wait for one exchange.
type ExchangeSlot = Arc<tokio::sync::Mutex<Option<(Instant, UpstreamToken)>>>;

/// The settings of [`Issuer::discover`].
#[derive(Debug, Clone)]
pub struct IssuerOptions {
    pub issuer: String,
    pub client_credential: Option<ClientCredential>,
}

/// A discovered issuer: validates access tokens, introspects and exchanges.
#[derive(Debug)]
pub struct Issuer {
    http: reqwest::Client,
    pub metadata: Metadata,
    issuer: String,
    cred: Option<ClientCredential>,
    keys: RwLock<Arc<KeySet>>,
    /// When an unknown `kid` last refetched the JWKS; held across a refetch
    /// (coalescing). The first refetch after start is not delayed.
    refetch: tokio::sync::Mutex<Option<Instant>>,
    verified: Mutex<HashMap<IntrospectionKey, (Instant, Claims)>>,
    exchanged: Mutex<HashMap<ExchangeKey, ExchangeSlot>>,
    /// Exchanges sent to the token endpoint (for tests and metrics).
    exchanges: std::sync::atomic::AtomicU64,
}

impl Issuer {
    /// Discovers the metadata and fetches the JWKS.
    pub async fn discover(opts: IssuerOptions) -> Result<Issuer, IssuerError> {
        let http = client()?;
        let mut tried = Vec::new();
        let mut metadata = None;
        for url in discovery_urls(&opts.issuer)? {
            match get_json(&http, &url).await {
                Ok(doc) => {
                    metadata = Some(parse_metadata(&doc, &opts.issuer)?);
                    break;
                }
                Err(e) => tried.push(e.to_string()),
            }
        }
        let Some(metadata) = metadata else {
            return Err(IssuerError::Metadata(format!(
                "no authorization server metadata: {}",
                tried.join("; ")
            )));
        };
        let keys = KeySet::parse(&get_json(&http, &metadata.jwks_uri).await?)
            .map_err(IssuerError::Metadata)?;
        Ok(Issuer::with_keys(http, opts, metadata, keys))
    }

    /// An issuer whose metadata and keys are already known (no network; benches and
    /// tests).
    pub fn from_parts(
        opts: IssuerOptions,
        metadata: Metadata,
        keys: KeySet,
    ) -> Result<Issuer, IssuerError> {
        Ok(Issuer::with_keys(client()?, opts, metadata, keys))
    }

    fn with_keys(
        http: reqwest::Client,
        opts: IssuerOptions,
        metadata: Metadata,
        keys: KeySet,
    ) -> Issuer {
        Issuer {
            http,
            issuer: opts.issuer,
            cred: opts.client_credential,
            keys: RwLock::new(Arc::new(keys)),
            refetch: tokio::sync::Mutex::new(None),
            verified: Mutex::new(HashMap::new()),
            exchanged: Mutex::new(HashMap::new()),
            exchanges: std::sync::atomic::AtomicU64::new(0),
            metadata,
        }
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    fn keys(&self) -> Arc<KeySet> {
        self.keys.read().map(|k| Arc::clone(&k)).unwrap_or_default()
    }

    /// Validates an access token: a JWT against the JWKS (refetched once, rate-limited,
    /// for an unknown `kid`), anything else by introspection when the gateway has a
    /// client credential. A token that passed is remembered (by its SHA-256 and the
    /// audience) until its `exp`, at most [`INTROSPECTION_TTL`]: a client sends one token
    /// many times, and the signature check is most of a request's auth cost.
    pub async fn verify(&self, token: &str, audience: &str) -> Result<Claims, Reject> {
        let checks = Checks {
            issuer: self.issuer.clone(),
            audience: audience.to_string(),
        };
        if !jwt::looks_like_jwt(token) {
            return self.introspect(token, &checks).await;
        }
        // A token seen before (same bytes, same audience) passed every check then: only
        // the clock can have changed, and the entry ends before `exp`.
        let key = (token_hash(token), checks.audience.clone());
        if let Some(c) = self.cached(&key) {
            return Ok(c);
        }
        let claims = match jwt::validate(token, &self.keys(), &checks) {
            Err(Reject::UnknownKey(kid)) => {
                self.refetch_for(&kid).await;
                jwt::validate(token, &self.keys(), &checks)
            }
            other => other,
        }?;
        self.remember(key, &claims);
        Ok(claims)
    }

    /// A verified token's claims, while its entry lasts.
    fn cached(&self, key: &IntrospectionKey) -> Option<Claims> {
        let m = self.verified.lock().ok()?;
        let (until, c) = m.get(key)?;
        (Instant::now() < *until).then(|| c.clone())
    }

    /// Keeps a verified token's claims until its `exp`, at most [`INTROSPECTION_TTL`]
    /// (so a key withdrawn from the JWKS, or a revoked opaque token, stops working within
    /// that time).
    fn remember(&self, key: IntrospectionKey, claims: &Claims) {
        let now = now_secs();
        let ttl = claims
            .exp
            .map_or(INTROSPECTION_TTL, |e| {
                Duration::from_secs(e.saturating_sub(now))
            })
            .min(INTROSPECTION_TTL);
        if ttl.is_zero() {
            return;
        }
        if let Ok(mut m) = self.verified.lock() {
            if m.len() >= MAX_CACHE {
                m.clear();
            }
            m.insert(key, (Instant::now() + ttl, claims.clone()));
        }
    }

    /// Refetches the JWKS unless it was fetched within [`JWKS_REFETCH_INTERVAL`]
    /// (waiters on a refetch in progress see its result).
    async fn refetch_for(&self, kid: &str) {
        let mut last = self.refetch.lock().await;
        if self.keys().has_kid(kid) || last.is_some_and(|t| t.elapsed() < JWKS_REFETCH_INTERVAL) {
            return;
        }
        *last = Some(Instant::now());
        if let Ok(doc) = get_json(&self.http, &self.metadata.jwks_uri).await
            && let Ok(keys) = KeySet::parse(&doc)
            && let Ok(mut k) = self.keys.write()
        {
            *k = Arc::new(keys);
        }
    }

    /// RFC 7662 introspection (cached until `exp`, at most [`INTROSPECTION_TTL`]).
    async fn introspect(&self, token: &str, checks: &Checks) -> Result<Claims, Reject> {
        let (Some(cred), Some(endpoint)) = (&self.cred, &self.metadata.introspection_endpoint)
        else {
            return Err(Reject::Malformed(
                "not a JWT (opaque tokens are introspected only when the gateway has its own client credential at the issuer and the issuer has an introspection endpoint)".into(),
            ));
        };
        let key = (token_hash(token), checks.audience.clone());
        if let Some(c) = self.cached(&key) {
            return Ok(c);
        }
        let pairs = [("token", token), ("token_type_hint", "access_token")];
        let (status, v) = post_form(
            &self.http,
            endpoint,
            cred,
            self.metadata.introspection_post,
            &pairs,
        )
        .await
        .map_err(|e| Reject::Invalid(format!("introspection failed: {e}")))?;
        if status != 200 {
            return Err(Reject::Invalid(format!(
                "introspection failed: HTTP {status}"
            )));
        }
        let claims = Self::check_introspection(&v, checks)?;
        self.remember(key, &claims);
        Ok(claims)
    }

    /// An introspection answer's checks: active, this issuer and audience when it
    /// names them, not expired.
    pub fn check_introspection(v: &Value, checks: &Checks) -> Result<Claims, Reject> {
        if v.get("active") != Some(&Value::Bool(true)) {
            return Err(Reject::Invalid("the token is not active".into()));
        }
        if let Some(iss) = v.get("iss").and_then(Value::as_str)
            && iss != checks.issuer
        {
            return Err(Reject::Invalid("the token is from another issuer".into()));
        }
        let aud_ok = match v.get("aud") {
            None => true,
            Some(Value::String(a)) => *a == checks.audience,
            Some(Value::Array(a)) => a
                .iter()
                .any(|x| x.as_str() == Some(checks.audience.as_str())),
            Some(_) => false,
        };
        if !aud_ok {
            return Err(Reject::Invalid("the token is for another audience".into()));
        }
        if let Some(t) = v.get("token_type").and_then(Value::as_str)
            && !t.eq_ignore_ascii_case("bearer")
            && !t.eq_ignore_ascii_case("access_token")
        {
            return Err(Reject::Invalid(
                "the token is not a bearer access token".into(),
            ));
        }
        let c = Claims::from_value(v);
        if c.exp.is_some_and(|e| e + jwt::LEEWAY_SECS < now_secs()) {
            return Err(Reject::Invalid("the token has expired".into()));
        }
        Ok(c)
    }

    /// RFC 8693: exchanges the caller's token for one whose audience is `resource`, at
    /// the token endpoint, authenticated with the gateway's client credential. Cached per
    /// (caller token, `scheme`, `resource`) until [`EXCHANGE_SKEW`] before its
    /// `expires_in`; concurrent calls for one key share one exchange; `refresh` drops the
    /// cached token first (the upstream answered 401). The caller's token goes to the
    /// issuer only.
    pub async fn exchange(
        &self,
        subject: &SubjectToken,
        scheme: &str,
        resource: &str,
        refresh: bool,
    ) -> Result<UpstreamToken, ExchangeError> {
        let (Some(cred), Some(endpoint)) = (&self.cred, &self.metadata.token_endpoint) else {
            return Err(ExchangeError::Unavailable(
                "token exchange needs the gateway's own client credential at the issuer and the issuer's token endpoint".into(),
            ));
        };
        let key = (subject.hash, scheme.to_string(), resource.to_string());
        let slot = match self.exchanged.lock() {
            Ok(mut m) => {
                if m.len() >= MAX_CACHE && !m.contains_key(&key) {
                    m.clear();
                }
                Arc::clone(m.entry(key).or_default())
            }
            Err(_) => ExchangeSlot::default(),
        };
        let mut cached = slot.lock().await;
        if refresh {
            *cached = None;
        }
        if let Some((until, t)) = cached.as_ref()
            && Instant::now() < *until
        {
            return Ok(t.clone());
        }
        let pairs = [
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("subject_token", subject.token.as_str()),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
            ("resource", resource),
        ];
        self.exchanges
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let fail = |why: String| ExchangeError::Fetch {
            url: endpoint.clone(),
            why,
        };
        let (status, v) = post_form(&self.http, endpoint, cred, self.metadata.token_post, &pairs)
            .await
            .map_err(|e| match e {
                IssuerError::Fetch { why, .. } => fail(why),
                other => fail(other.to_string()),
            })?;
        if status != 200 {
            let error = v
                .get("error")
                .and_then(Value::as_str)
                .filter(|e| e.bytes().all(|b| (0x20..0x7f).contains(&b)))
                .map(|e| e.chars().take(80).collect())
                .unwrap_or_else(|| "(no error code)".to_string());
            return Err(ExchangeError::Refused { status, error });
        }
        let token = v
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| fail("the answer has no access_token".into()))?;
        if token.bytes().any(|b| b < 0x21 || b == 0x7f) {
            return Err(fail(
                "the access_token has characters a header cannot carry".into(),
            ));
        }
        if let Some(t) = v.get("token_type").and_then(Value::as_str)
            && !t.eq_ignore_ascii_case("bearer")
        {
            return Err(fail(format!(
                "the issued token is of type `{}`, not a bearer token",
                t.chars().take(40).collect::<String>()
            )));
        }
        let ttl = v
            .get("expires_in")
            .and_then(Value::as_u64)
            .map_or(EXCHANGE_DEFAULT_TTL, Duration::from_secs)
            .saturating_sub(EXCHANGE_SKEW);
        let t = UpstreamToken(Arc::from(token));
        *cached = Some((Instant::now() + ttl, t.clone()));
        Ok(t)
    }

    /// How many token exchanges were sent to the token endpoint (cache misses).
    pub fn exchanges_sent(&self) -> u64 {
        self.exchanges.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn discovery_urls_follow_rfc8414_then_oidc() {
        assert_eq!(
            discovery_urls("https://as.example").expect("urls"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            discovery_urls("https://kc.example/realms/team/").expect("urls"),
            [
                "https://kc.example/.well-known/oauth-authorization-server/realms/team",
                "https://kc.example/realms/team/.well-known/openid-configuration"
            ]
        );
        assert!(discovery_urls("http://127.0.0.1:9000").is_ok());
        assert!(discovery_urls("http://localhost:9000/x").is_ok());
        assert!(discovery_urls("http://as.example").is_err());
        assert!(discovery_urls("https://as.example/?x=1").is_err());
        assert!(discovery_urls("not a url").is_err());
    }

    #[test]
    fn metadata_must_name_the_issuer() {
        let doc = json!({"issuer": "https://as.example", "jwks_uri": "https://as.example/jwks",
            "introspection_endpoint": "https://as.example/introspect",
            "introspection_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt"]});
        let m = parse_metadata(&doc, "https://as.example").expect("metadata");
        assert!(m.introspection_post && !m.token_post);
        assert!(parse_metadata(&doc, "https://as.example/").is_err());
        let mut d = doc.clone();
        d["jwks_uri"] = json!("http://as.example/jwks");
        assert!(parse_metadata(&d, "https://as.example").is_err());
        let mut d = doc;
        d["introspection_endpoint_auth_methods_supported"] =
            json!(["client_secret_basic", "client_secret_post"]);
        assert!(
            !parse_metadata(&d, "https://as.example")
                .expect("m")
                .introspection_post
        );
    }

    #[test]
    fn introspection_answers() {
        let checks = Checks {
            issuer: "https://as.example".into(),
            audience: "https://mcp.example/mcp".into(),
        };
        let ok = |v: Value| Issuer::check_introspection(&v, &checks);
        let c = ok(json!({"active": true, "sub": "bob", "scope": "a b", "client_id": "c"}))
            .expect("active");
        assert_eq!(c.sub.as_deref(), Some("bob"));
        assert_eq!(c.scopes.len(), 2);
        assert!(ok(json!({"active": false, "sub": "bob"})).is_err());
        assert!(ok(json!({"active": "true"})).is_err());
        assert!(ok(json!({"active": true, "iss": "https://evil.example"})).is_err());
        assert!(ok(json!({"active": true, "aud": "https://other.example/mcp"})).is_err());
        assert!(ok(json!({"active": true, "aud": ["x", "https://mcp.example/mcp"]})).is_ok());
        assert!(ok(json!({"active": true, "exp": 1000})).is_err());
        assert!(ok(json!({"active": true, "token_type": "refresh_token"})).is_err());
    }

    /// A verified JWT is remembered per audience: the same token again is answered
    /// without its signature check (the keys are gone here, so only the cache can answer),
    /// and the same token for another audience is checked anew (and refused).
    #[test]
    fn verified_tokens_are_remembered_per_audience() {
        let iss = "https://issuer.example";
        let aud = "https://mcp.example.com/mcp";
        let doc: Value = serde_json::from_str(include_str!("../testdata/jwks.json")).expect("jwks");
        let metadata = Metadata {
            issuer: iss.into(),
            jwks_uri: "https://issuer.example/jwks".into(),
            token_endpoint: None,
            introspection_endpoint: None,
            introspection_post: false,
            token_post: false,
        };
        let opts = IssuerOptions {
            issuer: iss.into(),
            client_credential: None,
        };
        let issuer =
            Issuer::from_parts(opts, metadata, KeySet::parse(&doc).expect("keys")).expect("issuer");
        let mut h = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        h.kid = Some("rsa1".into());
        h.typ = Some("at+jwt".into());
        let now = now_secs();
        let claims = json!({"iss": iss, "aud": aud, "sub": "alice", "exp": now + 300, "iat": now});
        let token = jsonwebtoken::encode(
            &h,
            &claims,
            &jsonwebtoken::EncodingKey::from_rsa_der(include_bytes!("../testdata/rsa1.der")),
        )
        .expect("sign");
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("rt");
        let first = rt.block_on(issuer.verify(&token, aud)).expect("valid");
        assert_eq!(first.sub.as_deref(), Some("alice"));
        // Rotate `rsa1` to another key's material: a signature check would now fail.
        let mut other = doc.clone();
        if let Some(keys) = other["keys"].as_array_mut() {
            keys.retain(|k| k["kid"] == "rsa2");
            keys[0]["kid"] = json!("rsa1");
        }
        if let Ok(mut k) = issuer.keys.write() {
            *k = Arc::new(KeySet::parse(&other).expect("keys"));
        }
        assert_eq!(rt.block_on(issuer.verify(&token, aud)), Ok(first));
        assert!(
            rt.block_on(issuer.verify(&token, "https://mcp.example.com/mcp/x/a"))
                .is_err()
        );
    }

    #[test]
    fn tokens_never_show_in_debug() {
        let t = SubjectToken::new("eyJ.secret-subject.sig");
        assert_eq!(format!("{t:?}"), "SubjectToken(REDACTED)");
        assert_eq!(t.hash, token_hash("eyJ.secret-subject.sig"));
        let u = UpstreamToken(Arc::from("secret-upstream"));
        assert!(!format!("{u:?}").contains("secret"));
        assert_eq!(u.expose(), "secret-upstream");
    }

    #[test]
    fn client_credential_parse_and_redaction() {
        let c = ClientCredential::parse("gw:s:e:Zq9").expect("cred");
        assert_eq!((c.id.as_str(), c.secret.as_str()), ("gw", "s:e:Zq9"));
        assert!(!format!("{c:?}").contains("Zq9"));
        assert!(ClientCredential::parse("nocolon").is_none());
        assert!(ClientCredential::parse(":x").is_none());
    }
}
