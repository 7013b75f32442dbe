//! The upstream HTTP client: reqwest (HTTP/1.1, pooled connections) over rustls with
//! the ring provider and the system's roots, no proxy. Enforces the outbound origin
//! allowlist on every request and redirect hop, follows at most
//! [`MAX_REDIRECTS`](super::MAX_REDIRECTS) same-origin redirects, bounds each exchange
//! by the timeout and each body by a byte limit, and bounds requests in flight.

use super::RestOptions;
use super::auth::{self, OAuthNeed};
use super::plan::Plans;
use super::request::HttpRequest;
use super::response::HttpResponse;
use mcpdesc_core::Diagnostic;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// An origin (RFC 6454): scheme, host (lower-case), port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// The origin of an absolute `http`/`https` URL; `None` for anything else.
    pub fn of_url(url: &str) -> Option<Origin> {
        let u = reqwest::Url::parse(url).ok()?;
        Origin::of(&u)
    }

    fn of(u: &reqwest::Url) -> Option<Origin> {
        if !matches!(u.scheme(), "http" | "https") {
            return None;
        }
        Some(Origin {
            scheme: u.scheme().to_string(),
            host: u.host_str()?.to_ascii_lowercase(),
            port: u.port_or_known_default()?,
        })
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// Which origins requests may go to.
#[derive(Debug, Clone, Default)]
pub struct Allowlist {
    origins: BTreeSet<Origin>,
    /// `--allow-host HOST`: any scheme and port.
    hosts: BTreeSet<String>,
    /// `--allow-host HOST:PORT`: either scheme.
    host_ports: BTreeSet<(String, u16)>,
}

impl Allowlist {
    /// Parses one `--allow-host` value.
    pub fn add_allow_host(&mut self, v: &str) -> Result<(), String> {
        if v.contains("://") {
            let o = Origin::of_url(v).ok_or_else(|| format!("`{v}` is not an http(s) origin"))?;
            self.origins.insert(o);
            return Ok(());
        }
        let bad = || format!("`{v}` is not HOST, HOST:PORT or an http(s) origin");
        let u = reqwest::Url::parse(&format!("http://{v}")).map_err(|_| bad())?;
        if u.path() != "/" || u.query().is_some() || !u.username().is_empty() {
            return Err(bad());
        }
        let host = u.host_str().ok_or_else(bad)?.to_ascii_lowercase();
        match u.port() {
            Some(p) => {
                self.host_ports.insert((host, p));
            }
            None if v.ends_with(":80") => {
                self.host_ports.insert((host, 80));
            }
            None => {
                self.hosts.insert(host);
            }
        }
        Ok(())
    }

    pub fn insert(&mut self, o: Origin) {
        self.origins.insert(o);
    }

    pub fn allows(&self, o: &Origin) -> bool {
        self.origins.contains(o)
            || self.hosts.contains(&o.host)
            || self.host_ports.contains(&(o.host.clone(), o.port))
    }
}

/// A failed exchange, worded for the model (no secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendError(pub String);

/// The upstream client and its rules.
pub struct Upstream {
    client: reqwest::Client,
    allowed: Allowlist,
    token_allowed: BTreeSet<Origin>,
    slots: Option<Arc<tokio::sync::Semaphore>>,
    max_response_bytes: usize,
    timeout: Duration,
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("allowed", &self.allowed)
            .field("token_allowed", &self.token_allowed)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Marker error of the redirect policy.
#[derive(Debug)]
struct RedirectRefused(String);

impl fmt::Display for RedirectRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RedirectRefused {}

/// How much of a non-2xx body is read (it is shown cut to the error budget anyway).
const ERROR_READ_LIMIT: usize = 256 * 1024;

impl Upstream {
    /// Builds the client. Fails on a bad `--allow-host` or when TLS cannot be set up.
    pub fn new(plans: &Plans, opts: &RestOptions) -> Result<Upstream, Diagnostic> {
        let mut allowed = Allowlist::default();
        for o in &plans.server_origins {
            allowed.insert(o.clone());
        }
        if let Some(b) = opts.base_url.as_deref().and_then(Origin::of_url) {
            allowed.insert(b);
        }
        for h in &opts.allow_hosts {
            allowed.add_allow_host(h).map_err(|e| {
                Diagnostic::error("serve-allow-host-invalid", format!("--allow-host {e}"))
            })?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|b| {
                use rustls_platform_verifier::BuilderVerifierExt as _;
                b.with_platform_verifier()
            })
            .map(|b| b.with_no_client_auth())
            .map_err(|e| Diagnostic::error("serve-tls", format!("TLS setup failed: {e}")))?;
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            let Some(first) = attempt.previous().first() else {
                return attempt.follow();
            };
            let from = Origin::of(first);
            let to = Origin::of(attempt.url());
            if to.is_none() || from != to {
                let to = to.map_or_else(|| attempt.url().scheme().to_string(), |o| o.to_string());
                let from = from.map_or_else(String::new, |o| o.to_string());
                return attempt.error(RedirectRefused(format!(
                    "the API redirected from {from} to {to}; only same-origin redirects are followed"
                )));
            }
            if attempt.previous().len() > super::MAX_REDIRECTS {
                return attempt.error(RedirectRefused(format!(
                    "the API redirected more than {} times",
                    super::MAX_REDIRECTS
                )));
            }
            attempt.follow()
        });
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .redirect(policy)
            .timeout(opts.timeout)
            .no_proxy()
            .referer(false)
            .user_agent(concat!("mcpdesc-serve/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                Diagnostic::error("serve-client", format!("HTTP client setup failed: {e}"))
            })?;
        Ok(Upstream {
            client,
            allowed,
            token_allowed: plans.token_origins.clone(),
            slots: opts
                .concurrency
                .map(|n| Arc::new(tokio::sync::Semaphore::new(n.max(1)))),
            max_response_bytes: opts.max_response_bytes,
            timeout: opts.timeout,
        })
    }

    /// Whether a request to `url` would be allowed.
    pub fn allows(&self, url: &str) -> bool {
        Origin::of_url(url).is_some_and(|o| self.allowed.allows(&o))
    }

    /// Sends one request (`bearer`: an OAuth access token to add) and reads the
    /// response within the limits.
    pub async fn send(
        &self,
        req: &HttpRequest,
        bearer: Option<&str>,
    ) -> Result<HttpResponse, SendError> {
        let origin = Origin::of_url(&req.url)
            .ok_or_else(|| SendError(format!("`{}` is not an http(s) URL", req.log_url)))?;
        if !self.allowed.allows(&origin) {
            return Err(SendError(format!(
                "{origin} is not an allowed upstream: requests go only to the description's servers, --base-url and --allow-host"
            )));
        }
        let _permit = match &self.slots {
            Some(s) => Some(
                s.acquire()
                    .await
                    .map_err(|_| SendError("the gateway is shutting down".into()))?,
            ),
            None => None,
        };
        let method = reqwest::Method::from_bytes(req.method.as_str().as_bytes())
            .map_err(|_| SendError("bad method".into()))?;
        let mut b = self.client.request(method, &req.url);
        for (n, v) in &req.headers {
            b = b.header(n.as_str(), v.as_str());
        }
        if let Some(t) = bearer {
            b = b.header("Authorization", format!("Bearer {t}"));
        }
        if let Some(body) = &req.body {
            b = b
                .header("Content-Type", body.content_type.as_str())
                .body(body.bytes.clone());
        }
        let resp = b.send().await.map_err(|e| self.describe(&e, &origin))?;
        let status = resp.status();
        let limit = if status.is_success() {
            self.max_response_bytes
        } else {
            self.max_response_bytes.min(ERROR_READ_LIMIT)
        };
        read(resp, limit, status.is_success())
            .await
            .map_err(|e| self.describe(&e, &origin))?
            .map_err(SendError)
    }

    /// Fetches a client-credentials token (RFC 6749 §4.4) from an allowed token endpoint.
    pub async fn fetch_token(
        &self,
        need: &OAuthNeed,
    ) -> Result<(super::Secret, Option<Duration>), String> {
        let origin = Origin::of_url(&need.token_url)
            .ok_or_else(|| format!("tokenUrl `{}` is not an http(s) URL", need.token_url))?;
        if !self.token_allowed.contains(&origin) {
            return Err(format!("{origin} is not a declared token endpoint"));
        }
        let (authorization, body) = auth::token_request_parts(need);
        let resp = self
            .client
            .post(&need.token_url)
            .header("Authorization", authorization)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| {
                format!(
                    "token request for scheme `{}` failed: {}",
                    need.scheme_name,
                    self.describe(&e, &origin).0
                )
            })?;
        let status = resp.status().as_u16();
        let r = read(resp, ERROR_READ_LIMIT, true)
            .await
            .map_err(|e| self.describe(&e, &origin).0)??;
        auth::parse_token_response(status, &r.body)
            .map_err(|e| format!("token request for scheme `{}`: {e}", need.scheme_name))
    }

    /// Words a transport failure (no URL: it may carry a query secret).
    fn describe(&self, e: &reqwest::Error, origin: &Origin) -> SendError {
        let mut cause = String::new();
        let mut tls = false;
        let mut src: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
        while let Some(s) = src {
            if let Some(r) = s.downcast_ref::<RedirectRefused>() {
                return SendError(r.0.clone());
            }
            tls |= s.downcast_ref::<rustls::Error>().is_some();
            cause = s.to_string();
            src = s.source();
        }
        if e.is_timeout() {
            return SendError(format!(
                "the API at {origin} did not answer within {} s (--timeout)",
                self.timeout.as_secs_f64()
            ));
        }
        if e.is_connect() {
            let lower = cause.to_ascii_lowercase();
            let what = if tls || lower.contains("tls") || lower.contains("certificate") {
                "TLS handshake failed with"
            } else if cause.contains("dns error") || cause.contains("lookup address") {
                "could not resolve"
            } else {
                "could not connect to"
            };
            return SendError(format!("{what} {origin}: {cause}"));
        }
        if e.is_redirect() {
            return SendError(format!("redirect from {origin} failed: {cause}"));
        }
        let base = e.to_string();
        let base = base.split(" for url (").next().unwrap_or(&base).to_string();
        SendError(if cause.is_empty() || base.contains(&cause) {
            format!("the request to {origin} failed: {base}")
        } else {
            format!("the request to {origin} failed: {base}: {cause}")
        })
    }
}

/// Reads a body up to `limit` bytes. Over the limit: an error for a success body, the
/// first `limit` bytes (marked truncated) otherwise.
async fn read(
    mut resp: reqwest::Response,
    limit: usize,
    success: bool,
) -> Result<Result<HttpResponse, String>, reqwest::Error> {
    let status = resp.status();
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = resp.chunk().await? {
        if body.len() + chunk.len() > limit {
            if success {
                return Ok(Err(format!(
                    "the API's response is larger than {limit} bytes (--max-response-bytes)"
                )));
            }
            body.extend_from_slice(&chunk[..limit - body.len()]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Ok(HttpResponse {
        status: status.as_u16(),
        reason: status.canonical_reason().map(String::from),
        content_type,
        body,
        truncated,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let o = Origin::of_url("HTTPS://API.Example.com/v1?x=1").expect("origin");
        assert_eq!(o.to_string(), "https://api.example.com:443");
        assert_eq!(
            Origin::of_url("http://[::1]:8080/").map(|o| o.port),
            Some(8080)
        );
        assert!(Origin::of_url("ftp://a.example/").is_none());
        assert!(Origin::of_url("/relative").is_none());
    }

    #[test]
    fn allow_host_forms() {
        let mut a = Allowlist::default();
        a.add_allow_host("api.example.com").expect("host");
        a.add_allow_host("127.0.0.1:9000").expect("host:port");
        a.add_allow_host("https://other.example:8443")
            .expect("origin");
        let o = |s: &str| Origin::of_url(s).expect("origin");
        assert!(a.allows(&o("http://api.example.com:81/")));
        assert!(a.allows(&o("https://api.example.com/")));
        assert!(a.allows(&o("http://127.0.0.1:9000/")));
        assert!(!a.allows(&o("http://127.0.0.1:9001/")));
        assert!(a.allows(&o("https://other.example:8443/x")));
        assert!(!a.allows(&o("http://other.example:8443/x")));
        assert!(a.add_allow_host("a.example/path").is_err());
        assert!(a.add_allow_host("ftp://a.example").is_err());
    }
}
