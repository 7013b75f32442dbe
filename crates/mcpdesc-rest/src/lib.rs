//! # mcpdesc-rest
//!
//! The REST gateway of `mcpdesc serve`: a `tools/call` becomes the HTTP request its
//! tool's `x-mcpdesc-openapi` provenance describes, and the HTTP response becomes a
//! Tool Result. The MCP side (lifecycle, lists, transports) is `mcpdesc-serve`, which
//! depends on this crate; nothing here knows about it.
//!
//! Work is split so every rule is a pure function that tests can hold to a
//! hand-written expectation, and the network sits behind one trait:
//! - [`RestBackend::new`] reads every tool's provenance once (`plan`): the path
//!   template cut into literal and variable pieces, each argument's serializer, the
//!   server URL, the security alternatives, where the output schema is (compiled on the
//!   tool's first call). A malformed provenance refuses the whole description with
//!   located diagnostics ([`GatewayError`]).
//! - `request` turns arguments + plan + credentials into an [`HttpRequest`] value (no
//!   network), using [`serialize`] (OpenAPI parameter styles, RFC 3986
//!   percent-encoding) and `body` (JSON, forms, multipart, binary, text); `auth`
//!   chooses the security alternative and holds the OAuth 2.0 token cache; `origin`
//!   is the outbound allow-list. None of these does I/O or imports the client.
//! - An [`HttpClient`] sends the request ([`ReqwestClient`]: reqwest over rustls);
//!   [`RestBackend`] checks the origin first and bounds requests in flight.
//! - `response` maps the HTTP response to a Tool Result for the call's revision.
//!
//! # Serialization (OpenAPI 3.1.1 §4.8.12.4, 3.0.4 §4.7.12.4)
//! Each argument is serialized by the `style`/`explode` its provenance records
//! (defaults: `form`+explode for query and cookie, `simple` for path and header), as in
//! the specification's *Style Examples* table, including the 3.0.4/3.1.1 corrections
//! (label with `explode: false` joins with `,`; `|`, `[`, `]` and space are
//! percent-encoded as delimiters). `null` is RFC 6570's *undefined* column of that
//! table; an absent argument sends nothing. Combinations the table marks *n/a*
//! (`spaceDelimited`/`pipeDelimited` with a primitive or `explode: true`, `deepObject`
//! with anything but an object of primitives or with `explode: false`), nested arrays
//! and objects (RFC 6570 defines one level), and styles used outside their locations
//! are tool errors naming the argument, never a guess.
//!
//! Percent-encoding (RFC 3986 §2): every byte outside *unreserved*
//! (`A-Z a-z 0-9 - . _ ~`) is encoded as `%XX` of its UTF-8 bytes, in names and values.
//! - Path: a value can never add a segment, a query or a fragment (`/`, `?`, `#` are
//!   encoded), and a value that would make a whole segment `.` or `..` is a tool error
//!   (a dot-segment changes the addressed resource, and `%2E%2E` is no way out: WHATWG
//!   URL parsing, which reqwest's `url` implements, reads it as `..` as well, also when
//!   the template's own text puts the `%2E` beside the value). A template whose literal
//!   text is a dot-segment (`/a/../admin`, `/%2e%2e/x`) makes the tool unusable: it
//!   would climb out of the path it names, above the server's base path too.
//! - Query with `allowReserved: true`: RFC 3986 reserved characters pass unencoded,
//!   except `[`, `]`, `#` (not allowed in a query) and `&`, `=`, `+` (form meaning), as
//!   3.1.1 directs; `%XX` triples are kept. `allowReserved` applies to query only.
//! - Header (`simple`): values are sent without percent-encoding, as OpenAPI 3.2.0
//!   §4.15.1 makes explicit (3.1.1 Appendix D already calls RFC 6570's encoding
//!   inappropriate there). CR, LF, NUL and every other control byte is a tool error in
//!   any header value: parameters, API keys, `--header`, forwarded headers.
//! - Cookie (`form`): `name=value` percent-encoded, joined by `; ` into one `Cookie`
//!   header; `explode: true` with an array or object is a tool error (3.1.1 Appendix D:
//!   `form` cannot carry several cookie values).
//! - A parameter described by `content` is serialized as its media type (JSON text
//!   for JSON types, the string itself otherwise), then percent-encoded in path and
//!   query, sent as is in headers and cookies (cookie values must then be cookie-octets).
//! - Header parameters named `Accept`, `Content-Type` or `Authorization` are ignored,
//!   as OpenAPI says: media types come from the operation, auth from its security.
//!   Header parameters (and `apiKey` schemes in a header) named `Host`,
//!   `Content-Length`, `Transfer-Encoding` or another connection field make the tool
//!   unusable: an argument must not pick the virtual host or the framing of the
//!   request. An `apiKey` cookie name must be a token, or it could add cookies.
//! - Media types the description gives and the gateway writes into header fields (the
//!   body's and each multipart part's `Content-Type`, `Accept`) must be valid field
//!   values (RFC 9110 §5.5), or the tool is unusable: CR/LF would add header lines.
//! - Swagger 2.0 `collectionFormat` is honoured as recorded: `csv` `,`, `ssv` `%20`,
//!   `tsv` `%09`, `pipes` `%7C`, `multi` repeated, which is the wire form of the 3.x
//!   equivalent.
//!
//! # Bodies
//! - JSON and `+json`: the body argument (or the object of `in: body` members) as
//!   compact JSON with the recorded media type.
//! - `application/x-www-form-urlencoded` per Encoding Object: a member whose encoding
//!   sets `style`, `explode` or `allowReserved` (Swagger 2.0 `formData` records these
//!   too) is serialized like a query parameter; otherwise it is serialized as its
//!   `contentType` (the Encoding Object's, else 3.1.1's default for its schema:
//!   `application/json` for objects, `text/plain` for primitives, the base64 text
//!   itself for binary strings) and form-urlencoded (WHATWG: space → `+`). So a nested
//!   object is JSON only when its encoding (explicitly or by that default) says JSON.
//! - `multipart/form-data`: one part per member (an array: one part per item, same
//!   name), `Content-Type` per the Encoding Object or the same defaults (binary →
//!   `application/octet-stream`, decoded from base64, with a `filename`); `text/plain`
//!   parts carry no `Content-Type` (RFC 7578 §4.4 default).
//! - `application/octet-stream` and other binary media types: the base64 (or
//!   base64url, per the schema's `contentEncoding`) argument decoded; invalid base64 is
//!   a tool error. `text/*` and XML: the string as UTF-8.
//!
//! # Auth
//! The tool's effective `security` (the tool's, else the root's; §7.5 without a
//! transport): the first alternative, in order, whose schemes all have credentials; an
//! anonymous alternative (`{}`) is taken only when no other alternative can be met, so
//! configured credentials are used. None met: a tool error naming the missing schemes.
//! - `apiKey`: the credential as the named header, query parameter (redacted in logs)
//!   or cookie.
//! - `http` `bearer`: `Authorization: Bearer <credential>`; `basic`: the credential is
//!   `user:password`, sent base64-encoded; any other `http` scheme:
//!   `Authorization: <scheme> <credential>`.
//! - `oauth2` with a `clientCredentials` flow: the credential is
//!   `<client_id>:<client_secret>`, and a token is fetched from the flow's `tokenUrl`
//!   (RFC 6749 §4.4, client authenticated with HTTP Basic, the requirement's scopes),
//!   cached until 30 s before it expires, and fetched again once when the API answers
//!   401; or it is `token:<ACCESS_TOKEN>`, used as a bearer token.
//! - `oauth2` without one (implicit, authorization code, password: the gateway cannot
//!   run those flows): the credential is the access token itself, used as a bearer
//!   token (`token:` prefix optional), as a user's CLI prints it.
//! - `openIdConnect`: the credential is an access token (`token:` prefix optional).
//! - A scheme named in [`ToolCall::token_exchange`](crate::call::ToolCall) (serve's
//!   `--upstream-token-exchange`, for an authenticated caller): an RFC 8693 exchange of
//!   the caller's token at the issuer, `resource` the tool's base URL, sent as a bearer
//!   token before any configured credential of that scheme (cached per caller token,
//!   scheme and resource; exchanged again once when the API answers 401). A refused
//!   exchange is a tool error naming it; nothing is sent.
//! - A forwarded inbound header (`--forward-header`) that is the scheme's own
//!   location (`Authorization` for http/oauth2/openIdConnect, the header of a header
//!   `apiKey`) satisfies a scheme that has no configured credential.
//! - Header precedence, later replacing earlier of the same name: header parameters,
//!   `--header`, forwarded headers, credentials. Cookies from parameters and API keys
//!   are appended to a forwarded `Cookie`.
//!
//! Credentials come from the CLI as a map from security scheme name to secret
//! ([`RestOptions::credentials`]), gathered by [`credentials_from_env`]:
//! `--credential SCHEME=ENV_VAR`, else the variable [`credential_env_var`]`(SCHEME)` = `MCPDESC_CREDENTIAL_` + the scheme name upper-cased
//! with every character outside `A-Z0-9` replaced by `_` (`api-key` →
//! `MCPDESC_CREDENTIAL_API_KEY`).
//!
//! # Outbound safety
//! - Hosts: requests go only to origins (scheme, host, port) of the description's
//!   servers (tool and root provenance), `--base-url`, `--allow-host` and, for token
//!   requests only, the OAuth `tokenUrl`s. Every request and every redirect hop is
//!   checked. Servers that are not `http`/`https` URLs are never used.
//! - Redirects: same origin only, at most 5; anything else is a tool error (so
//!   credentials never follow a cross-origin hop).
//! - `--timeout` bounds a whole exchange, `--max-response-bytes` what is read.
//! - `Accept` is the recorded response media type, then `*/*;q=0.1`.
//! - Nothing from the inbound request is sent upstream except `--forward-header`
//!   headers; hop-by-hop headers are never forwarded. One rule ([`HeaderRule`], RFC 9110
//!   §7.6.1) decides for configured headers (refused), header parameters (refused) and
//!   forwarded ones (dropped, with any field a forwarded `Connection` names).
//! - Secrets (credentials, tokens, API-key query values, `Authorization`) never appear
//!   in a [`CallLog`], an error or a result.
//!
//! # Responses
//! - 2xx JSON (`application/json`, `+json`): `structuredContent` (wrapped as
//!   `{wrapper: body}` when the provenance records `resultWrapper`) where the revision
//!   has [`Feature::StructuredContent`](mcpdesc_core::Feature), plus a text block with
//!   the JSON; checked against `outputSchema` per `--validate-output` (`warn`: logged,
//!   data returned; `strict`: a tool error). Invalid JSON under a JSON type is a tool
//!   error.
//! - `text/*`: a text block. `image/*`: image content. `audio/*`: audio content where
//!   the revision has [`Feature::AudioContent`](mcpdesc_core::Feature), else like
//!   other binary: an embedded resource with a `blob`.
//! - An empty 2xx body (204): a short text block.
//! - Non-2xx: `isError: true`, the status line and the body (pretty JSON or text) cut
//!   to [`ERROR_BODY_BUDGET`] bytes; never `structuredContent`.
//! - Connect, DNS, TLS failures and timeouts: tool errors saying which.

mod auth;
mod body;
pub mod call;
mod client;
mod origin;
mod output;
mod plan;
mod request;
mod response;
pub mod serialize;
#[cfg(test)]
mod tests;
mod wire;

use crate::call::{CallLog, CallOutcome, ToolCall, UpstreamLog};
use mcpdesc_core::Diagnostic;
use mcpdesc_core::http::FieldValueError;
use origin::Allowlist;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use auth::{CredentialError, TokenExchange, check_exchange_scheme, credentials_from_env};
pub use client::trace;
pub use client::{BoxFuture, ClientError, HttpClient, ReadLimits, ReqwestClient, SendError};
pub use origin::Origin;
pub use request::{Body, HeaderRule, HttpRequest};
pub use response::HttpResponse;

/// How much of a non-2xx response (and of a token endpoint's answer) is read: it is
/// shown cut to [`ERROR_BODY_BUDGET`] anyway.
const ERROR_READ_LIMIT: usize = 256 * 1024;

/// Why [`RestBackend::new`] refused: every problem found, in the order found.
#[derive(Debug, thiserror::Error)]
#[error("the REST gateway cannot serve this description ({} problems)", .problems.len())]
pub struct GatewayError {
    pub problems: Vec<Problem>,
}

/// One reason the gateway cannot start.
#[derive(Debug)]
pub enum Problem {
    /// A finding about the description (malformed provenance, a credential that does
    /// not fit its security scheme), located by its pointer.
    Description(Diagnostic),
    /// An option value ([`RestOptions`]) that cannot work.
    Option(OptionError),
}

/// An option value that cannot work. The texts name the value, not the option: the
/// caller knows what it calls the option (the CLI: `--header`, `--base-url`,
/// `--allow-host`) and says it first.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// [`RestOptions::static_headers`]: a name that is not an RFC 9110 token.
    #[error("`{name}`: not a valid header name")]
    HeaderName { name: String },
    /// [`RestOptions::static_headers`]: a hop-by-hop or framing header.
    #[error("`{name}`: hop-by-hop and framing headers cannot be set")]
    HeaderHopByHop { name: String },
    /// [`RestOptions::static_headers`]: a value a header cannot carry.
    #[error("{}", request::header_value_message(.name, *.error))]
    HeaderValue {
        name: String,
        error: FieldValueError,
    },
    /// [`RestOptions::base_url`] is not an absolute http(s) base URL.
    #[error("`{url}`: {why}")]
    BaseUrl { url: String, why: String },
    /// One of [`RestOptions::allow_hosts`] is not `HOST`, `HOST:PORT` or an origin.
    #[error("{why}")]
    AllowHost { value: String, why: String },
    /// The HTTP client could not be built.
    #[error(transparent)]
    Client(#[from] ClientError),
}

impl OptionError {
    /// The diagnostic code a caller reports it under.
    pub fn code(&self) -> &'static str {
        match self {
            OptionError::HeaderName { .. }
            | OptionError::HeaderHopByHop { .. }
            | OptionError::HeaderValue { .. } => "serve-header-invalid",
            OptionError::BaseUrl { .. } => "serve-base-url-invalid",
            OptionError::AllowHost { .. } => "serve-allow-host-invalid",
            OptionError::Client(ClientError::Tls(_)) => "serve-tls",
            OptionError::Client(ClientError::Client(_)) => "serve-client",
        }
    }
}

/// Default `--timeout`: one upstream exchange, redirects and token fetch included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `--max-response-bytes`: the most of one upstream response body that is read.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// How much of a non-2xx response body an error result shows.
pub const ERROR_BODY_BUDGET: usize = 8 * 1024;
/// Redirect hops followed (same origin only).
pub const MAX_REDIRECTS: usize = 5;

/// `--validate-output`: what to do when a 2xx JSON body does not validate against the
/// tool's `outputSchema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValidateOutput {
    /// Do not check.
    Off,
    /// Log a warning and return the data (real APIs break their own specs).
    #[default]
    Warn,
    /// Answer with a tool error naming the violation.
    Strict,
}

impl ValidateOutput {
    /// Every mode, in the order `--help` lists them.
    pub const ALL: [ValidateOutput; 3] = [
        ValidateOutput::Off,
        ValidateOutput::Warn,
        ValidateOutput::Strict,
    ];

    /// The mode's one spelling (`off`, `warn`, `strict`), which [`FromStr`] reads back.
    ///
    /// [`FromStr`]: std::str::FromStr
    pub fn name(self) -> &'static str {
        match self {
            ValidateOutput::Off => "off",
            ValidateOutput::Warn => "warn",
            ValidateOutput::Strict => "strict",
        }
    }
}

impl fmt::Display for ValidateOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ValidateOutput {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ValidateOutput::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = ValidateOutput::ALL.iter().map(|m| m.name()).collect();
                format!(
                    "`{s}` is not an output validation mode ({})",
                    all.join(", ")
                )
            })
    }
}

pub use mcpdesc_core::Secret;

/// The environment variable that holds the credential of security scheme `scheme` when
/// no `--credential SCHEME=ENV_VAR` names one: `MCPDESC_CREDENTIAL_` + the name
/// upper-cased, every character outside `A-Z0-9` replaced by `_`.
///
/// ```
/// use mcpdesc_rest::credential_env_var;
/// assert_eq!(credential_env_var("api-key"), "MCPDESC_CREDENTIAL_API_KEY");
/// assert_eq!(credential_env_var("petstore_auth"), "MCPDESC_CREDENTIAL_PETSTORE_AUTH");
/// assert_eq!(credential_env_var("oauth2.v1"), "MCPDESC_CREDENTIAL_OAUTH2_V1");
/// ```
pub fn credential_env_var(scheme: &str) -> String {
    let mut s = String::from("MCPDESC_CREDENTIAL_");
    s.extend(scheme.chars().map(|c| {
        let c = c.to_ascii_uppercase();
        if c.is_ascii_alphanumeric() { c } else { '_' }
    }));
    s
}

/// How the gateway runs. `Debug` redacts every secret (credentials and `--header`
/// values).
#[derive(Clone)]
pub struct RestOptions {
    /// `--base-url`: replaces every tool's server (scheme, host, port and base path).
    pub base_url: Option<String>,
    /// Security scheme name → credential (see the module docs for each scheme's form).
    pub credentials: BTreeMap<String, Secret>,
    /// `--header NAME:VALUE`, sent on every upstream request.
    pub static_headers: Vec<(String, Secret)>,
    /// `--allow-host`: `HOST` (any scheme and port), `HOST:PORT`, or an origin
    /// `http(s)://HOST[:PORT]`.
    pub allow_hosts: Vec<String>,
    /// `--timeout`.
    pub timeout: Duration,
    /// `--max-response-bytes`.
    pub max_response_bytes: usize,
    /// `--validate-output`.
    pub validate_output: ValidateOutput,
    /// `--concurrency`: upstream requests in flight at once (`None`: unbounded).
    pub concurrency: Option<usize>,
}

impl Default for RestOptions {
    fn default() -> Self {
        RestOptions {
            base_url: None,
            credentials: BTreeMap::new(),
            static_headers: Vec::new(),
            allow_hosts: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            validate_output: ValidateOutput::default(),
            concurrency: None,
        }
    }
}

impl fmt::Debug for RestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RestOptions")
            .field("base_url", &self.base_url)
            .field("credentials", &self.credentials.keys().collect::<Vec<_>>())
            .field(
                "static_headers",
                &self
                    .static_headers
                    .iter()
                    .map(|(n, _)| n)
                    .collect::<Vec<_>>(),
            )
            .field("allow_hosts", &self.allow_hosts)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("validate_output", &self.validate_output)
            .field("concurrency", &self.concurrency)
            .finish()
    }
}

/// The REST gateway for one description. Built once at start, shared by every call
/// (`Send + Sync`; the upstream connection pool and the OAuth token cache live here).
#[derive(Debug)]
pub struct RestBackend {
    plans: plan::Plans,
    client: Arc<dyn HttpClient>,
    allowed: Allowlist,
    token_allowed: BTreeSet<Origin>,
    slots: Option<Arc<tokio::sync::Semaphore>>,
    max_response_bytes: usize,
    tokens: auth::TokenCache,
    credentials: BTreeMap<String, Secret>,
    static_headers: Vec<(String, Secret)>,
    validate_output: ValidateOutput,
}

impl RestBackend {
    /// Reads every tool's provenance and the security schemes once. A description whose
    /// provenance is malformed (or options that cannot work: a bad base URL, allowed
    /// host or credential, a hop-by-hop or malformed static header) is refused with
    /// every problem. Tools without provenance are kept: calling them is a tool error.
    /// Findings that do not stop the gateway are in [`RestBackend::warnings`].
    ///
    /// Keeps a copy of `doc` (output schemas are compiled from it on a tool's first
    /// call); a caller that holds the document in an `Arc` already calls
    /// [`RestBackend::shared`].
    pub fn new(doc: &serde_json::Value, opts: RestOptions) -> Result<RestBackend, GatewayError> {
        RestBackend::shared(Arc::new(doc.clone()), opts)
    }

    /// [`RestBackend::new`] on a shared document (not copied), with the reqwest client.
    pub fn shared(
        doc: Arc<serde_json::Value>,
        opts: RestOptions,
    ) -> Result<RestBackend, GatewayError> {
        let client = ReqwestClient::new(opts.timeout)
            .map(|c| Arc::new(c) as Arc<dyn HttpClient>)
            .map_err(OptionError::from);
        Self::build(doc, opts, client)
    }

    /// [`RestBackend::shared`] sending through `client` (a test double, say). The
    /// origin and concurrency rules are the gateway's and apply to any client.
    pub fn with_client(
        doc: Arc<serde_json::Value>,
        opts: RestOptions,
        client: Arc<dyn HttpClient>,
    ) -> Result<RestBackend, GatewayError> {
        Self::build(doc, opts, Ok(client))
    }

    fn build(
        doc: Arc<serde_json::Value>,
        opts: RestOptions,
        client: Result<Arc<dyn HttpClient>, OptionError>,
    ) -> Result<RestBackend, GatewayError> {
        let mut problems = Vec::new();
        for (n, v) in &opts.static_headers {
            let e = if !plan::is_token(n) {
                Some(OptionError::HeaderName { name: n.clone() })
            } else if request::is_hop_by_hop(n) {
                Some(OptionError::HeaderHopByHop { name: n.clone() })
            } else {
                mcpdesc_core::http::check_field_value(v.expose())
                    .err()
                    .map(|error| OptionError::HeaderValue {
                        name: n.clone(),
                        error,
                    })
            };
            problems.extend(e.map(Problem::Option));
        }
        let plans = match plan::Plans::new(&doc, &opts) {
            Ok(p) => Some(p),
            Err(d) => {
                problems.extend(d);
                None
            }
        };
        let mut allowed = Allowlist::default();
        if let Some(p) = &plans {
            for o in &p.server_origins {
                allowed.insert(o.clone());
            }
            if let Some(b) = opts.base_url.as_deref().and_then(Origin::of_url) {
                allowed.insert(b);
            }
            for h in &opts.allow_hosts {
                if let Err(why) = allowed.add_allow_host(h) {
                    problems.push(Problem::Option(OptionError::AllowHost {
                        value: h.clone(),
                        why,
                    }));
                    break;
                }
            }
        }
        let client = match (client, plans.is_some()) {
            (Ok(c), _) => Some(c),
            (Err(e), true) => {
                problems.push(Problem::Option(e));
                None
            }
            (Err(_), false) => None,
        };
        match (plans, client) {
            (Some(plans), Some(client)) if problems.is_empty() => Ok(RestBackend {
                token_allowed: plans.token_origins.clone(),
                plans,
                client,
                allowed,
                slots: opts
                    .concurrency
                    .map(|n| Arc::new(tokio::sync::Semaphore::new(n.max(1)))),
                max_response_bytes: opts.max_response_bytes,
                tokens: auth::TokenCache::default(),
                credentials: opts.credentials,
                static_headers: opts.static_headers,
                validate_output: opts.validate_output,
            }),
            _ => Err(GatewayError { problems }),
        }
    }

    /// Warnings found by [`RestBackend::new`] (e.g. a tool with no usable server), for
    /// the start-up log.
    pub fn warnings(&self) -> &[Diagnostic] {
        self.plans.warnings()
    }

    /// The request a call would send, without sending it (no OAuth token yet: those are
    /// fetched when sending). Errors are the tool-error texts [`RestBackend::call`]
    /// would answer with.
    pub fn build_request(&self, call: &ToolCall<'_>) -> Result<HttpRequest, String> {
        let plan = self.plan(call)?;
        request::build(
            plan,
            call.arguments,
            request::Context {
                credentials: &self.credentials,
                static_headers: &self.static_headers,
                forwarded: call.forwarded_headers,
                exchanged: call.token_exchange.as_ref().map_or(&[], |x| x.schemes),
            },
        )
    }

    fn plan(&self, call: &ToolCall<'_>) -> Result<&plan::ToolPlan, String> {
        self.plans.get(call.index).ok_or_else(|| {
            format!(
                "tool `{}` has no x-mcpdesc-openapi provenance at MCP {}: the gateway cannot call an API for it (a mock can answer it from its examples)",
                call.tool_name(),
                call.revision
            )
        })
    }

    /// One `tools/call`. `call.tool` is the Tool object of the negotiated revision's
    /// Effective Protocol View (its `outputSchema` and provenance are that revision's);
    /// its arguments are already validated against its `inputSchema`. Always answers
    /// with a Tool Result: failures are tool errors (`isError: true`). Dropping the
    /// future aborts the upstream request (cancellation).
    pub async fn call(&self, call: ToolCall<'_>) -> CallOutcome {
        let rev = call.revision;
        let (plan, req) = match self
            .plan(&call)
            .and_then(|p| self.build_request(&call).map(|r| (p, r)))
        {
            Ok(x) => x,
            Err(e) => return CallOutcome::tool_error(rev, e),
        };
        let started = Instant::now();
        let mut log = UpstreamLog {
            method: req.method.as_str().to_string(),
            url: req.log_url.clone(),
            status: None,
            latency: Duration::ZERO,
            attempts: 0,
        };
        let mut refresh = false;
        let outcome = loop {
            let token = match (req.exchange.first(), req.oauth.first()) {
                (Some(scheme), _) => match self.exchange(&call, plan, scheme, refresh).await {
                    Ok(t) => Some(t),
                    Err(e) => break Err(e),
                },
                (None, Some(need)) => match self
                    .tokens
                    .token(need, refresh, || self.fetch_token(need))
                    .await
                {
                    Ok(t) => Some(t),
                    Err(e) => break Err(e),
                },
                (None, None) => None,
            };
            log.attempts += 1;
            match self.send(&req, token.as_ref().map(Secret::expose)).await {
                Ok(r) if r.status == 401 && token.is_some() && !refresh => {
                    refresh = true;
                }
                Ok(r) => break Ok(r),
                Err(e) => break Err(e.0),
            }
        };
        log.latency = started.elapsed();
        match outcome {
            Ok(resp) => {
                log.status = Some(resp.status);
                let m = response::map(plan, rev, &resp, &req.log_url, self.validate_output);
                CallOutcome {
                    result: m.result,
                    log: CallLog {
                        upstream: Some(log),
                        is_error: m.is_error,
                        error: m.error,
                        warnings: m.warnings,
                        notes: Vec::new(),
                    },
                }
            }
            Err(e) => {
                let mut o = CallOutcome::tool_error(rev, e);
                o.log.upstream = Some(log);
                o
            }
        }
    }

    /// Sends one request (`bearer`: an OAuth access token to add) to an allowed origin,
    /// within the concurrency bound, and reads the response within the limits.
    async fn send(
        &self,
        req: &HttpRequest,
        bearer: Option<&str>,
    ) -> Result<HttpResponse, SendError> {
        let origin = Origin::of_url(&req.url)
            .ok_or_else(|| SendError(format!("`{}` is not an http(s) URL", req.log_url)))?;
        if !self.allowed.allows(&origin) {
            return Err(SendError(format!(
                "{origin} is not an allowed upstream: requests go only to the description's servers, the configured base URL and the allowed hosts"
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
        let limits = ReadLimits {
            success: self.max_response_bytes,
            other: Some(self.max_response_bytes.min(ERROR_READ_LIMIT)),
        };
        self.client.send(req, bearer, limits).await
    }

    /// The exchanged upstream token of `scheme` for this call (`auth::exchanged_token`),
    /// its `resource` the tool's base URL.
    async fn exchange(
        &self,
        call: &ToolCall<'_>,
        plan: &plan::ToolPlan,
        scheme: &str,
        refresh: bool,
    ) -> Result<Secret, String> {
        let (Some(x), Ok(base)) = (&call.token_exchange, &plan.base) else {
            return Err(format!(
                "security scheme `{scheme}`'s upstream credential is an exchange of the caller's access token, and this call has none"
            ));
        };
        auth::exchanged_token(x, scheme, base, refresh).await
    }

    /// Fetches a client-credentials token (RFC 6749 §4.4) from a declared token
    /// endpoint.
    async fn fetch_token(
        &self,
        need: &auth::OAuthNeed,
    ) -> Result<(Secret, Option<Duration>), String> {
        let origin = Origin::of_url(&need.token_url)
            .ok_or_else(|| format!("tokenUrl `{}` is not an http(s) URL", need.token_url))?;
        if !self.token_allowed.contains(&origin) {
            return Err(format!("{origin} is not a declared token endpoint"));
        }
        let req = auth::token_request(need);
        let limits = ReadLimits {
            success: ERROR_READ_LIMIT,
            other: None,
        };
        let r = self.client.send(&req, None, limits).await.map_err(|e| {
            format!(
                "token request for scheme `{}` failed: {e}",
                need.scheme_name
            )
        })?;
        auth::parse_token_response(r.status, &r.body)
            .map_err(|e| format!("token request for scheme `{}`: {e}", need.scheme_name))
    }
}
