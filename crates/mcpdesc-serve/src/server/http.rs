//! The Streamable HTTP transport at `/mcp` (hyper, HTTP/1.1), for every served revision
//! with [`Feature::StreamableHttp`] (2024-11-05 has only the older HTTP+SSE transport:
//! it is served over stdio only).
//!
//! # Handshake revisions (2025-03-26 … 2025-11-25)
//! `POST /mcp` with one JSON-RPC message (a batch where the session negotiated a
//! revision with [`Feature::JsonRpcBatch`]). `initialize` opens a session: the answer
//! carries `Mcp-Session-Id` (128 random bits), which every later request must send
//! (missing: 400, unknown or expired: 404). From [`Feature::ProtocolVersionHeader`] on,
//! an `MCP-Protocol-Version` header other than the negotiated revision is 400.
//! Requests are answered with `application/json`; notifications and responses with
//! 202. `notifications/cancelled` aborts the named call of that session, whose own
//! POST is then answered 202 without a body. `DELETE /mcp` ends a session; `GET /mcp`
//! is 405 (there are no server-initiated messages to stream).
//!
//! # The stateless revision (2026-07-28)
//! A POST whose `MCP-Protocol-Version` names a revision with
//! [`Feature::StatelessLifecycle`] (or, without a session, whose body carries the
//! envelope) is one self-contained exchange: no session; the routing headers
//! ([`Feature::RoutingHeaders`]) and `Mcp-Param-*` headers ([`Feature::McpHeader`]) must
//! equal the body (else -32020); errors map to HTTP status as the MCP 2026-07-28
//! transport table does (-32700/-32600/-32602/-32020/-32021/-32022 → 400, -32601 → 404);
//! notifications are 202. Cancelling is closing the connection.
//!
//! # Inbound security
//! - `Origin` (MCP transport security, against DNS rebinding): absent is allowed
//!   (non-browser clients); present, it must be a loopback origin when the server is
//!   bound to loopback, or the request's own `http://Host` otherwise; anything else is
//!   403. Bound to loopback, the `Host` header must name a loopback host too (403).
//! - Binding a non-loopback address requires `--inbound-token-env` (every request must
//!   send `Authorization: Bearer <token>`, compared in constant time; else 401 with
//!   `WWW-Authenticate`) or `--forward-header Authorization` with no credentials of the
//!   gateway's own (requests without `Authorization` are 401; the upstream
//!   authenticates each caller). `check_exposure` refuses anything else at start.
//! - Bodies are capped at [`MAX_MESSAGE_BYTES`]: larger is 413. Header reads time out
//!   (slow clients), and connections are capped at [`MAX_CONNECTIONS`].
//! - A client that disconnects mid-call cancels the call (its future is dropped).

use super::headers::{self, Headers, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};
use super::jsonrpc::{self, Message, RpcError};
use super::lifecycle::{self, Lifecycle, Reloaded};
use super::session_seal::{self, SessionState};
use super::stdio::start_call;
use super::{Era, Handled, Inbound, MAX_MESSAGE_BYTES, Server, Session, TransportKind};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use mcpdesc_core::meta::PROTOCOL_VERSION;
use mcpdesc_core::{Feature, ProtocolRevision};
use serde_json::Value;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 1024;
/// Sessions kept at once (each is tiny; the cap bounds memory under abuse).
pub const MAX_SESSIONS: usize = 4096;
/// A session unused this long may be dropped to make room.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// Calls pending at once over HTTP (all connections).
pub const MAX_PENDING_CALLS: usize = 4096;
/// How long a client may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The endpoint path.
pub const PATH: &str = "/mcp";

/// `--http` settings.
#[derive(Clone, Default)]
pub struct HttpOptions {
    /// `--inbound-token-env`'s value: the bearer token every request must send.
    pub inbound_token: Option<String>,
    /// `--forward-header` names (compared case-insensitively).
    pub forward_headers: Vec<String>,
    /// `--rate-limit`: every MCP request (`POST /mcp…`) is counted against its caller's
    /// budget (the transport's `ratelimit` module).
    pub rate_limit: Option<Arc<mcpdesc_ratelimit::Limiter>>,
    /// `--public-url`: the URL clients reach the server at (no trailing `/`); each
    /// path's resource identifier is `<public-url><path>`. Default `http://<bound address>`.
    pub public_url: Option<String>,
    /// `--auth-issuer` and its settings: OAuth 2.1 resource server (the `auth` module).
    pub auth: Option<Arc<super::auth::AuthOptions>>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field(
                "inbound_token",
                &self.inbound_token.as_ref().map(|_| "REDACTED"),
            )
            .field("forward_headers", &self.forward_headers)
            .field("rate_limit", &self.rate_limit)
            .field("public_url", &self.public_url)
            .field("auth", &self.auth)
            .finish()
    }
}

impl HttpOptions {
    fn forwards_authorization(&self) -> bool {
        self.forward_headers
            .iter()
            .any(|h| h.eq_ignore_ascii_case("authorization"))
    }
}

/// Why `check_exposure` refuses to serve (see [`prepare`](crate::prepare)). The texts name the settings, not the
/// flags: the CLI says which of its flags set them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExposureError {
    /// An inbound token and a forwarded `Authorization` header together.
    #[error(
        "the inbound token and a forwarded Authorization header both use the Authorization header: the inbound token would be sent upstream"
    )]
    TokenAndForwardedAuthorization,
    /// Off loopback, gated only by a forwarded `Authorization`, while the gateway holds
    /// credentials of its own.
    #[error(
        "{addr} is not a loopback address: with a forwarded Authorization header as its only gate the gateway must hold no credentials of its own, or any caller could use them"
    )]
    CredentialsBehindForwardedAuthorization { addr: SocketAddr },
    /// Off loopback without a gate.
    #[error(
        "{addr} is not a loopback address: an inbound token or a forwarded Authorization header must gate it"
    )]
    Ungated { addr: SocketAddr },
    /// OAuth validation and the static inbound token together.
    #[error(
        "OAuth token validation and an inbound token both use the Authorization header: use one of them"
    )]
    AuthAndInboundToken,
    /// OAuth validation and a forwarded `Authorization` header together.
    #[error(
        "with OAuth token validation a forwarded Authorization header would send the caller's token upstream (MCP forbids token passthrough)"
    )]
    AuthAndForwardedAuthorization,
}

/// The start-up rules of inbound security: a gateway holding credentials is never open
/// to whoever can reach it. `holds_credentials`: the backend has credentials or static
/// headers of its own.
pub fn check_exposure(
    addr: SocketAddr,
    opts: &HttpOptions,
    holds_credentials: bool,
) -> Result<(), ExposureError> {
    if opts.auth.is_some() {
        if opts.inbound_token.is_some() {
            return Err(ExposureError::AuthAndInboundToken);
        }
        if opts.forwards_authorization() {
            return Err(ExposureError::AuthAndForwardedAuthorization);
        }
        return Ok(());
    }
    if opts.inbound_token.is_some() && opts.forwards_authorization() {
        return Err(ExposureError::TokenAndForwardedAuthorization);
    }
    if addr.ip().is_loopback() {
        return Ok(());
    }
    if opts.inbound_token.is_some() {
        return Ok(());
    }
    if opts.forwards_authorization() {
        if holds_credentials {
            return Err(ExposureError::CredentialsBehindForwardedAuthorization { addr });
        }
        return Ok(());
    }
    Err(ExposureError::Ungated { addr })
}

/// Serves `listener` until `shutdown` completes (then drains as a SIGTERM does; see
/// [`serve_with`]).
pub async fn serve(
    server: Arc<Server>,
    listener: TcpListener,
    opts: HttpOptions,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let lifecycle = Arc::new(Lifecycle::default());
    let served = serve_with(server, listener, opts, Arc::clone(&lifecycle));
    tokio::pin!(served);
    tokio::pin!(shutdown);
    tokio::select! {
        r = &mut served => return r,
        () = &mut shutdown => lifecycle.begin_drain(),
    }
    served.await
}

/// Serves `listener` as `lifecycle` says: `/healthz` and `/readyz`, until a drain
/// (SIGTERM/SIGINT with [`Lifecycle::with_signals`], or [`Lifecycle::begin_drain`]),
/// reloading on request (the `lifecycle` module).
pub async fn serve_with(
    server: Arc<Server>,
    listener: TcpListener,
    opts: HttpOptions,
    lifecycle: Arc<Lifecycle>,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    let auth = match &opts.auth {
        Some(a) => {
            // `/readyz` names this gate until the issuer's metadata and JWKS are fetched;
            // start-up fails when they cannot be (an unreachable issuer is not retried).
            let fetched = lifecycle.readiness().gate("auth-issuer");
            let gate = super::auth::Gate::start(a, opts.public_url.as_deref(), local).await?;
            fetched.open();
            Some(Arc::new(gate))
        }
        None => None,
    };
    let state = Arc::new(State {
        auth,
        routes: RwLock::new(Arc::new(Routes::new(server))),
        loopback: local.ip().is_loopback(),
        gate_authorization: !local.ip().is_loopback()
            && opts.inbound_token.is_none()
            && opts.forwards_authorization(),
        opts,
        sessions: Mutex::new(HashMap::new()),
        revoked: Mutex::new(HashMap::new()),
        pending: Arc::new(Semaphore::new(MAX_PENDING_CALLS)),
        lifecycle: Arc::clone(&lifecycle),
    });
    lifecycle.watch_signals()?;
    // The description is loaded and its indexes are built (the server exists).
    lifecycle.readiness().gate("serving").open();
    let reloader = tokio::spawn(reload_loop(Arc::downgrade(&state), local));
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let drain = lifecycle.drained_requested();
    tokio::pin!(drain);
    loop {
        let permit = tokio::select! {
            () = &mut drain => break,
            p = Arc::clone(&connections).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            () = &mut drain => break,
            a = listener.accept() => a,
        };
        let (stream, peer) = match accepted {
            Ok(x) => x,
            Err(e) => {
                // EMFILE and friends: wait a little instead of spinning.
                state.main().log().line(&format!("accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let st = Arc::clone(&state);
        let mut drain_rx = lifecycle.drain_watch();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |mut req: Request<Incoming>| {
                req.extensions_mut().insert(super::ratelimit::Peer(peer));
                let st = Arc::clone(&st);
                async move { Ok::<_, Infallible>(st.handle(req).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                () = async { let _ = drain_rx.wait_for(|d| *d).await; } => {
                    // Finish the request in flight (if any), then close.
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.as_mut().await;
                }
            }
            drop(permit);
        });
    }
    // Draining: stop accepting, let the connections finish (each was told to).
    drop(listener);
    reloader.abort();
    let log = state.main().log().clone();
    let open = MAX_CONNECTIONS - connections.available_permits();
    log.line(&format!(
        "draining: no longer accepting; {open} connections finishing (at most {} s)",
        lifecycle.timeout().as_secs()
    ));
    let all_closed = connections.acquire_many(MAX_CONNECTIONS as u32);
    match tokio::time::timeout(lifecycle.timeout(), all_closed).await {
        Ok(_) => log.line("drained: every connection closed"),
        Err(_) => log.line(&format!(
            "drain timeout: {} connections cut",
            MAX_CONNECTIONS - connections.available_permits()
        )),
    }
    lifecycle.flush();
    Ok(())
}

/// Reloads on each request of the lifecycle, for as long as the server runs.
async fn reload_loop(state: std::sync::Weak<State>, local: SocketAddr) {
    loop {
        let lifecycle = match state.upgrade() {
            Some(s) => Arc::clone(&s.lifecycle),
            None => return,
        };
        lifecycle.reload_requested().await;
        let Some(st) = state.upgrade() else { return };
        let log = st.main().log().clone();
        let Some(hook) = lifecycle.reload_hook() else {
            log.line("reload requested: nothing to reload (a description read from standard input cannot be read again)");
            continue;
        };
        log.line("reload requested: reading the configuration");
        match tokio::task::spawn_blocking(move || hook()).await {
            Ok(Ok(r)) => st.swap(r, local),
            Ok(Err(why)) => log.line(&format!(
                "reload failed, the running configuration keeps serving: {why}"
            )),
            Err(_) => log.line(
                "reload failed, the running configuration keeps serving: the reload panicked",
            ),
        }
    }
}

struct State {
    /// Swapped whole by a reload: a request holds the routes it started with.
    routes: RwLock<Arc<Routes>>,
    lifecycle: Arc<Lifecycle>,
    /// Sealed session ids ended here (`DELETE`), until their expiry (unix seconds).
    revoked: Mutex<HashMap<String, u64>>,
    opts: HttpOptions,
    loopback: bool,
    /// Non-loopback, gated by a forwarded `Authorization`: requests must carry one.
    gate_authorization: bool,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    pending: Arc<Semaphore>,
    /// `--auth-issuer`: the resource server ([`auth`](super::auth)).
    auth: Option<Arc<super::auth::Gate>>,
}

struct HttpSession {
    session: Arc<Session>,
    /// The path the session was opened on (a session answers on that path only; after
    /// a reload, on that path's new server).
    path: String,
    last_used: Mutex<Instant>,
}

type Resp = Response<Full<Bytes>>;

impl State {
    async fn handle(&self, mut req: Request<Incoming>) -> Resp {
        if let Some(probe) = self.probe(&req) {
            return probe;
        }
        let routes = self.routes();
        if let Some(meta) = self.resource_metadata(&req, &routes) {
            return meta;
        }
        let server = match routes.route(req.uri().path()) {
            Ok(s) => s,
            Err(resp) => return *resp,
        };
        let hdrs = header_pairs(req.headers());
        if let Some(denied) = self.check_host_origin(&hdrs) {
            return denied;
        }
        let (caller, subject) = match &self.auth {
            Some(gate) => {
                let at = req.uri().path().to_string();
                match gate.authenticate(&at, &hdrs, &server).await {
                    Ok(v) => (Some(v.caller), v.subject),
                    Err(denied) => return denied,
                }
            }
            None => (None, None),
        };
        if let Some(c) = &caller {
            req.extensions_mut().insert(Arc::clone(c));
        } else if let Some(denied) = self.check_auth(&hdrs) {
            return denied;
        }
        if *req.method() == Method::POST
            && let Some(limiter) = &self.opts.rate_limit
            && let Some(refused) = super::ratelimit::admit(limiter, &req, &server).await
        {
            return refused;
        }
        match *req.method() {
            Method::POST => self.post(&server, req, hdrs, caller, subject).await,
            Method::DELETE => {
                let path = req.uri().path().to_string();
                self.delete(&hdrs, &path)
            }
            _ => {
                let mut r = text(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "use POST (and DELETE to end a session); this server sends no server-initiated messages to stream",
                );
                r.headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("POST, DELETE"));
                r
            }
        }
    }

    /// With `--auth-issuer`: `GET /.well-known/oauth-protected-resource<path>` of a
    /// served path (RFC 9728), before any other check.
    fn resource_metadata(&self, req: &Request<Incoming>, routes: &Routes) -> Option<Resp> {
        let gate = self.auth.as_ref()?;
        let path = super::auth::Gate::metadata_path(req.uri().path(), PATH)?;
        if req.method() != Method::GET && req.method() != Method::HEAD {
            let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "use GET");
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Some(r);
        }
        Some(match routes.route(path) {
            Ok(server) => gate.metadata(path, &server),
            Err(resp) => *resp,
        })
    }

    /// A `tools/list` answer as the request's caller may see it (`--auth-list`).
    fn scoped(&self, server: &Server, inbound: &Inbound, mut v: Value) -> Value {
        if let (Some(gate), Some(c)) = (&self.auth, &inbound.caller)
            && let Some(result) = v.get_mut("result")
        {
            gate.filter_list(server, result, c);
        }
        v
    }

    /// The routes of now (a reload swaps them).
    fn routes(&self) -> Arc<Routes> {
        match self.routes.read() {
            Ok(r) => Arc::clone(&r),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// The main path's server of now.
    fn main(&self) -> Arc<Server> {
        Arc::clone(&self.routes().main)
    }

    /// `GET /healthz` and `GET /readyz` ([`lifecycle`](super::lifecycle)): before any
    /// other check, without auth.
    fn probe(&self, req: &Request<Incoming>) -> Option<Resp> {
        let path = req.uri().path();
        if path != "/healthz" && path != "/readyz" {
            return None;
        }
        if req.method() != Method::GET && req.method() != Method::HEAD {
            let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "use GET");
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Some(r);
        }
        let mut r = if path == "/healthz" {
            text(StatusCode::OK, "ok")
        } else {
            match self.lifecycle.readiness().check() {
                Ok(()) => text(StatusCode::OK, "ready"),
                Err(why) => text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!("not ready: {why}"),
                ),
            }
        };
        r.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        Some(r)
    }

    /// Takes over a reload's server: new requests are served by it; requests already
    /// running keep the routes they hold.
    fn swap(&self, r: Reloaded, local: SocketAddr) {
        let new_routes = Arc::new(Routes::new(r.server));
        let new_names = lifecycle::tool_names(&new_routes.main);
        let old = match self.routes.write() {
            Ok(mut g) => std::mem::replace(&mut *g, new_routes),
            Err(p) => std::mem::replace(&mut *p.into_inner(), new_routes),
        };
        let log = self.main().log().clone();
        let old_names = lifecycle::tool_names(&old.main);
        log.line(&format!(
            "reloaded: {}",
            lifecycle::describe_change(&old_names, &new_names)
        ));
        for n in &r.notes {
            log.line(&format!("reloaded: {n}"));
        }
        if let Some(addr) = r.addr
            && addr != local
            && !(addr.port() == 0 && addr.ip() == local.ip())
        {
            log.line(&format!(
                "reload: the listen address {addr} needs a restart; still serving at {local}"
            ));
        }
        for what in &r.restart_needed {
            log.line(&format!(
                "reload: {what} needs a restart; the running value stays"
            ));
        }
    }

    fn check_host_origin(&self, h: &Headers) -> Option<Resp> {
        let host = headers::one(h, "host").ok().flatten();
        let public = self
            .opts
            .public_url
            .as_deref()
            .and_then(lifecycle::public_origin);
        let is_public = |a: &str| {
            public
                .as_ref()
                .is_some_and(|(_, p)| authority_host(a).eq_ignore_ascii_case(p))
        };
        if self.loopback
            && let Some(host) = host
            && !is_loopback_host(authority_host(host))
            && !is_public(host)
        {
            return Some(text(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host header does not name this loopback server (DNS rebinding protection)",
            ));
        }
        let Ok(origin) = headers::one(h, "origin") else {
            return Some(text(
                StatusCode::FORBIDDEN,
                "Forbidden: more than one Origin header",
            ));
        };
        let origin = origin?;
        let allowed = match origin.split_once("://") {
            Some((scheme, authority))
                if (scheme.eq_ignore_ascii_case("http")
                    || scheme.eq_ignore_ascii_case("https"))
                    && !authority.contains('/') =>
            {
                if public
                    .as_ref()
                    .is_some_and(|(s, _)| s.eq_ignore_ascii_case(scheme))
                    && is_public(authority)
                {
                    true
                } else if self.loopback {
                    is_loopback_host(authority_host(authority))
                } else {
                    scheme.eq_ignore_ascii_case("http")
                        && host.is_some_and(|h| h.eq_ignore_ascii_case(authority))
                }
            }
            _ => false,
        };
        (!allowed).then(|| {
            text(
                StatusCode::FORBIDDEN,
                "Forbidden: Origin not allowed (MCP transport security: DNS rebinding protection)",
            )
        })
    }

    fn check_auth(&self, h: &Headers) -> Option<Resp> {
        let auth = headers::one(h, "authorization").ok().flatten();
        if let Some(token) = &self.opts.inbound_token {
            let presented = auth.and_then(|a| {
                let (scheme, rest) = a.split_once(' ')?;
                scheme
                    .eq_ignore_ascii_case("bearer")
                    .then(|| rest.trim_start_matches(' '))
            });
            let ok = presented.is_some_and(|p| constant_time_eq(p.as_bytes(), token.as_bytes()));
            if !ok {
                let challenge = if auth.is_some() {
                    "Bearer realm=\"mcpdesc serve\", error=\"invalid_token\""
                } else {
                    "Bearer realm=\"mcpdesc serve\""
                };
                return Some(unauthorized(challenge));
            }
        } else if self.gate_authorization && auth.is_none() {
            return Some(unauthorized("Bearer realm=\"mcpdesc serve\""));
        }
        None
    }

    fn forwarded(&self, h: &Headers) -> Vec<(String, String)> {
        h.iter()
            .filter(|(n, _)| {
                self.opts
                    .forward_headers
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(n))
            })
            .cloned()
            .collect()
    }

    async fn post(
        &self,
        server: &Arc<Server>,
        req: Request<Incoming>,
        h: Vec<(String, String)>,
        caller: Option<Arc<super::auth::Caller>>,
        subject: Option<Arc<mcpdesc_auth::SubjectToken>>,
    ) -> Resp {
        let at = req.uri().path().to_string();
        let ctype = headers::one(&h, "content-type")
            .ok()
            .flatten()
            .unwrap_or("");
        if !media_is(ctype, "application/json") {
            return text(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: POST a JSON-RPC message as application/json",
            );
        }
        if let Ok(Some(accept)) = headers::one(&h, "accept")
            && !accepts_json(accept)
        {
            return text(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: responses are application/json",
            );
        }
        let body = match Limited::new(req.into_body(), MAX_MESSAGE_BYTES)
            .collect()
            .await
        {
            Ok(b) => b.to_bytes(),
            Err(e) => {
                return if e
                    .downcast_ref::<http_body_util::LengthLimitError>()
                    .is_some()
                {
                    text(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        &format!(
                            "Payload Too Large: a message is at most {MAX_MESSAGE_BYTES} bytes"
                        ),
                    )
                } else {
                    text(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: the body could not be read",
                    )
                };
            }
        };
        let value: Value = match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => return json_status(StatusCode::BAD_REQUEST, &jsonrpc::parse_error(e)),
        };
        let header_version = headers::one(&h, MCP_PROTOCOL_VERSION).ok().flatten();
        let session_id = headers::one(&h, MCP_SESSION_ID).ok().flatten();
        let modern = header_version
            .and_then(ProtocolRevision::parse)
            .is_some_and(|r| r.has(Feature::StatelessLifecycle))
            || (session_id.is_none() && header_version.is_none() && enveloped(&value));
        if let (Some(gate), Some(c)) = (&self.auth, &caller)
            && let Some(denied) = gate.check_calls(server, &at, &value, c)
        {
            return denied;
        }
        let inbound = Inbound {
            forwarded_headers: self.forwarded(&h),
            trace: super::telemetry::TraceHeaders::of(&h),
            caller,
            gate: self.auth.clone(),
            subject,
        };
        if modern {
            self.modern(server, value, &h, inbound).await
        } else {
            self.legacy(server, &at, value, session_id, header_version, inbound)
                .await
        }
    }

    /// One 2026-07-28 exchange.
    async fn modern(
        &self,
        server: &Arc<Server>,
        value: Value,
        h: &Headers,
        inbound: Inbound,
    ) -> Resp {
        if value.is_array() {
            let e = RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: the body must be a single JSON-RPC request or notification",
            );
            return rpc_status(&jsonrpc::error_response(None, &e));
        }
        let msg = match jsonrpc::classify(value) {
            Ok(m) => m,
            Err(b) => return rpc_status(&jsonrpc::error_response(b.0.as_ref(), &b.1)),
        };
        let (id, method, params) = match msg {
            Message::Request { id, method, params } => (id, method, params),
            // No client-to-server notification means anything on this wire; cancelling
            // is closing the connection. Acknowledge it as the SDKs do.
            Message::Notification { .. } | Message::Response => return empty(StatusCode::ACCEPTED),
        };
        let params = params.unwrap_or_default();
        let meta = params.get("_meta").and_then(Value::as_object);
        let envelope_version = meta
            .and_then(|m| m.get(PROTOCOL_VERSION))
            .and_then(Value::as_str);
        // Ladder order as the SDKs run it: envelope present (the server answers -32602
        // when it is not), headers agree (-32020), version served (-32022).
        let complete = meta.is_some_and(|m| {
            m.contains_key(PROTOCOL_VERSION)
                && m.contains_key(mcpdesc_core::meta::CLIENT_CAPABILITIES)
        });
        if complete && let Err(why) = headers::check_routing(h, &method, &params, envelope_version)
        {
            let e = RpcError::new(jsonrpc::HEADER_MISMATCH, format!("Header mismatch: {why}"));
            return rpc_status(&jsonrpc::error_response(Some(&id), &e));
        }
        if method == "tools/call"
            && let Some(rev) = envelope_version.and_then(ProtocolRevision::parse)
            && rev.has(Feature::McpHeader)
            && let Some(view) = server.catalog().view(rev)
            && let Some(name) = params.get("name").and_then(Value::as_str)
            && let Some(tool) = view.tool(name)
        {
            let schema = tool.decl().get("inputSchema").unwrap_or(&Value::Null);
            if let Ok((schema, _)) =
                mcpdesc_core::refs::resolve(server.catalog().components(), schema, "schemas")
            {
                let ann = headers::param_headers(schema);
                let args = params
                    .get("arguments")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                if let Err(why) = headers::check_params(h, &ann, &args) {
                    let e =
                        RpcError::new(jsonrpc::HEADER_MISMATCH, format!("Header mismatch: {why}"));
                    return rpc_status(&jsonrpc::error_response(Some(&id), &e));
                }
            }
        }
        let session = Arc::new(Session::new(TransportKind::Http));
        let msg = Message::Request {
            id,
            method,
            params: Some(params),
        };
        match server.handle(&session, msg, &inbound) {
            Handled::Reply(v) => rpc_status(&self.scoped(server, &inbound, v)),
            Handled::Nothing => empty(StatusCode::ACCEPTED),
            Handled::Call(job) => match self.run(server, &session, job).await {
                Some(v) => rpc_status(&v),
                None => empty(StatusCode::ACCEPTED),
            },
        }
    }

    /// Runs a call on its own task; dropping this future (the client disconnected)
    /// aborts it. `None` when it was cancelled.
    async fn run(
        &self,
        server: &Arc<Server>,
        session: &Arc<Session>,
        job: super::CallJob,
    ) -> Option<Value> {
        let (tx, rx) = oneshot::channel();
        let id = job.id.clone();
        if let Err(resp) = start_call(server, session, &self.pending, job, move |v| async move {
            let _ = tx.send(v);
        })
        .await
        {
            return Some(resp);
        }
        let guard = CancelOnDrop {
            session: Arc::clone(session),
            id,
        };
        let out = rx.await.ok();
        drop(guard);
        out
    }

    /// A message of a handshake-revision session.
    async fn legacy(
        &self,
        server: &Arc<Server>,
        path: &str,
        value: Value,
        session_id: Option<&str>,
        header_version: Option<&str>,
        inbound: Inbound,
    ) -> Resp {
        let is_initialize = value.get("method").and_then(Value::as_str) == Some("initialize")
            && value.get("id").is_some();
        let hs = match session_id {
            Some(sid) => match self.lookup(path, sid) {
                Some(s) => s,
                None => {
                    let e = RpcError::new(
                        jsonrpc::INVALID_REQUEST,
                        "Session not found: it ended or expired; initialize a new one",
                    );
                    return json_status(StatusCode::NOT_FOUND, &jsonrpc::error_response(None, &e));
                }
            },
            None if is_initialize => match self.new_session(path) {
                Some(x) => x,
                None => {
                    return text(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Service Unavailable: too many open sessions",
                    );
                }
            },
            None => {
                let e = RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    format!(
                        "Bad Request: the {MCP_SESSION_ID} header is required (send `initialize` first)"
                    ),
                );
                return json_status(StatusCode::BAD_REQUEST, &jsonrpc::error_response(None, &e));
            }
        };
        let session = Arc::clone(&hs.session);
        if let (Era::Legacy(rev), Some(v)) = (session.era(), header_version)
            && v != rev.as_str()
        {
            let e = RpcError::new(
                jsonrpc::INVALID_REQUEST,
                format!(
                    "Bad Request: {MCP_PROTOCOL_VERSION} `{v}` is not this session's negotiated revision ({rev})"
                ),
            );
            return json_status(StatusCode::BAD_REQUEST, &jsonrpc::error_response(None, &e));
        }
        let mut resp = match value {
            Value::Array(items) => self.legacy_batch(server, &session, items, &inbound).await,
            v => {
                let handled = match jsonrpc::classify(v) {
                    Err(b) => Handled::Reply(jsonrpc::error_response(b.0.as_ref(), &b.1)),
                    Ok(msg) => server.handle(&session, msg, &inbound),
                };
                match handled {
                    Handled::Reply(v) => {
                        json_status(StatusCode::OK, &self.scoped(server, &inbound, v))
                    }
                    Handled::Nothing => empty(StatusCode::ACCEPTED),
                    Handled::Call(job) => match self.run(server, &session, job).await {
                        Some(v) => json_status(StatusCode::OK, &v),
                        None => empty(StatusCode::ACCEPTED),
                    },
                }
            }
        };
        if is_initialize
            && session_id.is_none()
            && let Era::Legacy(rev) = session.era()
        {
            let Some(sid) = self.keep(hs, rev) else {
                return text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Internal Server Error: no session id could be made",
                );
            };
            if let Ok(v) = HeaderValue::from_str(&sid) {
                resp.headers_mut().insert(MCP_SESSION_ID, v);
            }
        }
        resp
    }

    async fn legacy_batch(
        &self,
        server: &Arc<Server>,
        session: &Arc<Session>,
        items: Vec<Value>,
        inbound: &Inbound,
    ) -> Resp {
        match session.era() {
            Era::Legacy(r) if r.has(Feature::JsonRpcBatch) => {}
            era => {
                let why = match era {
                    Era::Legacy(r) => format!("JSON-RPC batches are not part of MCP {r}"),
                    _ => "JSON-RPC batches need an initialized session".to_string(),
                };
                let e = RpcError::new(jsonrpc::INVALID_REQUEST, format!("Invalid Request: {why}"));
                return json_status(StatusCode::BAD_REQUEST, &jsonrpc::error_response(None, &e));
            }
        }
        if items.is_empty() {
            let e = RpcError::new(jsonrpc::INVALID_REQUEST, "Invalid Request: an empty batch");
            return json_status(StatusCode::BAD_REQUEST, &jsonrpc::error_response(None, &e));
        }
        let mut replies = Vec::new();
        let mut jobs = Vec::new();
        for item in items {
            let handled = match jsonrpc::classify(item) {
                Err(b) => Handled::Reply(jsonrpc::error_response(b.0.as_ref(), &b.1)),
                Ok(msg) => server.handle(session, msg, inbound),
            };
            match handled {
                Handled::Reply(v) => replies.push(self.scoped(server, inbound, v)),
                Handled::Nothing => {}
                Handled::Call(job) => jobs.push(job),
            }
        }
        let runs: Vec<_> = jobs
            .into_iter()
            .map(|j| self.run(server, session, j))
            .collect();
        for r in runs {
            if let Some(v) = r.await {
                replies.push(v);
            }
        }
        if replies.is_empty() {
            empty(StatusCode::ACCEPTED)
        } else {
            json_status(StatusCode::OK, &Value::Array(replies))
        }
    }

    fn delete(&self, h: &Headers, path: &str) -> Resp {
        let Some(sid) = headers::one(h, MCP_SESSION_ID).ok().flatten() else {
            return text(
                StatusCode::BAD_REQUEST,
                "Bad Request: no Mcp-Session-Id to end",
            );
        };
        let removed = self.sessions.lock().ok().and_then(|mut m| {
            let on_this_path = m.get(sid).is_some_and(|s| s.path == path);
            if on_this_path { m.remove(sid) } else { None }
        });
        // A sealed id is ended here even when this replica never served it.
        let sealed = self.open_sealed(path, sid);
        if let Some(state) = &sealed {
            self.revoke(sid, state.created);
        }
        match removed {
            Some(s) => {
                s.session.cancel_all();
                empty(StatusCode::OK)
            }
            None if sealed.is_some() => empty(StatusCode::OK),
            None => text(StatusCode::NOT_FOUND, "Session not found"),
        }
    }

    /// The session `sid` on `path`: one this replica holds, else (with a session key)
    /// the one sealed in the id, taken in.
    fn lookup(&self, path: &str, sid: &str) -> Option<Arc<HttpSession>> {
        let held = self.sessions.lock().ok()?.get(sid).cloned();
        if let Some(s) = held {
            if s.path != path {
                return None;
            }
            if let Ok(mut t) = s.last_used.lock() {
                *t = Instant::now();
            }
            return Some(s);
        }
        let state = self.open_sealed(path, sid)?;
        let session = Session::new(TransportKind::Http);
        session.set_era(Era::Legacy(state.revision));
        let hs = Arc::new(HttpSession {
            session: Arc::new(session),
            path: path.to_string(),
            last_used: Mutex::new(Instant::now()),
        });
        // Kept for its in-flight calls (cancellation); when full of busy sessions it
        // is served without being kept.
        if let Ok(mut m) = self.sessions.lock() {
            if m.len() >= MAX_SESSIONS {
                m.retain(|_, s| s.last_used.lock().is_ok_and(|t| t.elapsed() < SESSION_IDLE));
            }
            if m.len() < MAX_SESSIONS {
                return Some(Arc::clone(m.entry(sid.to_string()).or_insert(hs)));
            }
        }
        Some(hs)
    }

    /// The state sealed in `sid` for `path`, unless it is foreign, expired, for
    /// another path or ended here.
    fn open_sealed(&self, path: &str, sid: &str) -> Option<SessionState> {
        let key = self.lifecycle.sealing()?;
        let state = key
            .open(
                sid,
                std::time::SystemTime::now(),
                session_seal::SESSION_MAX_AGE,
            )
            .ok()?;
        if state.path != path {
            return None;
        }
        if self.revoked.lock().ok()?.contains_key(sid) {
            return None;
        }
        Some(state)
    }

    /// Refuses the sealed `sid` here from now until its expiry.
    fn revoke(&self, sid: &str, created: u64) {
        let Ok(mut r) = self.revoked.lock() else {
            return;
        };
        let now = session_seal::unix_now();
        r.retain(|_, until| *until > now);
        if r.len() < MAX_SESSIONS * 4 {
            r.insert(
                sid.to_string(),
                created.saturating_add(session_seal::SESSION_MAX_AGE.as_secs()),
            );
        }
    }

    /// A new (not yet stored) session, if there is room; its id is given by [`State::keep`].
    fn new_session(&self, path: &str) -> Option<Arc<HttpSession>> {
        let mut m = self.sessions.lock().ok()?;
        if m.len() >= MAX_SESSIONS {
            m.retain(|_, s| s.last_used.lock().is_ok_and(|t| t.elapsed() < SESSION_IDLE));
        }
        if m.len() >= MAX_SESSIONS {
            return None;
        }
        Some(Arc::new(HttpSession {
            session: Arc::new(Session::new(TransportKind::Http)),
            path: path.to_string(),
            last_used: Mutex::new(Instant::now()),
        }))
    }

    /// Stores an initialized session under a new id (sealed with a session key: the
    /// id carries the session), and returns the id.
    fn keep(&self, s: Arc<HttpSession>, rev: ProtocolRevision) -> Option<String> {
        let sid = match self.lifecycle.sealing() {
            Some(key) => key.seal(&SessionState {
                revision: rev,
                path: s.path.clone(),
                created: session_seal::unix_now(),
            })?,
            None => session_id()?,
        };
        if let Ok(mut m) = self.sessions.lock() {
            m.insert(sid.clone(), s);
        }
        Some(sid)
    }
}

/// The paths served, each a fixed server (the same description, backend, fitting and
/// discovery; another selection of tools):
/// - [`PATH`] (`/mcp`): the selection given at start;
/// - `/mcp/readonly`: that selection, read-only;
/// - `/mcp/x/{toolset}` and `/mcp/x/{toolset}/readonly`: one toolset (replacing
///   `--toolsets`/`--tools`; exclusions and read-only still apply), the segment
///   percent-decoded.
///
/// A path's server is built on its first request and kept; an unknown toolset is 404.
struct Routes {
    main: Arc<Server>,
    toolsets: std::collections::BTreeSet<String>,
    derived: Mutex<HashMap<RouteKey, Arc<Server>>>,
}

/// A derived path: its toolset (if any) and whether it is read-only.
type RouteKey = (Option<String>, bool);

impl Routes {
    fn new(main: Arc<Server>) -> Routes {
        let toolsets = mcpdesc_catalog::toolsets(main.catalog().components())
            .into_keys()
            .collect();
        Routes {
            main,
            toolsets,
            derived: Mutex::new(HashMap::new()),
        }
    }

    fn route(&self, path: &str) -> Result<Arc<Server>, Box<Resp>> {
        let not_found = || {
            Box::new(text(
                StatusCode::NOT_FOUND,
                &format!(
                    "not found: the MCP endpoints are {PATH}, {PATH}/readonly, {PATH}/x/{{toolset}} and {PATH}/x/{{toolset}}/readonly"
                ),
            ))
        };
        let Some(rest) = path.strip_prefix(PATH) else {
            return Err(not_found());
        };
        let (toolset, read_only) = match rest {
            "" => return Ok(Arc::clone(&self.main)),
            "/readonly" => (None, true),
            _ => {
                let Some(x) = rest.strip_prefix("/x/") else {
                    return Err(not_found());
                };
                let (seg, ro) = match x.strip_suffix("/readonly") {
                    Some(seg) => (seg, true),
                    None => (x, false),
                };
                if seg.is_empty() || seg.contains('/') {
                    return Err(not_found());
                }
                let name = mcpdesc_core::pointer::percent_decode(seg);
                if !self.toolsets.contains(&name) {
                    let shown: String = name.chars().take(80).collect();
                    return Err(Box::new(text(
                        StatusCode::NOT_FOUND,
                        &format!("not found: no tool is in toolset `{shown}`"),
                    )));
                }
                (Some(name), ro)
            }
        };
        let key = (toolset, read_only);
        if let Some(s) = self.derived.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(s);
        }
        let base = self.main.selection();
        let mut selection = match &key.0 {
            Some(t) => base.only_toolset(t),
            None => base.clone(),
        };
        if key.1 {
            selection = selection.read_only();
        }
        let built = self
            .main
            .with_selection(selection)
            .map_err(|e| e.to_string())
            .and_then(
                |(server, diags)| match diags.iter().find(|d| d.is_error()) {
                    Some(d) => Err(d.message.clone()),
                    None => Ok(server),
                },
            );
        match built {
            Ok(server) => {
                let server = Arc::new(server);
                let mut m = self.derived.lock().map_err(|_| {
                    Box::new(text(StatusCode::INTERNAL_SERVER_ERROR, "internal error"))
                })?;
                Ok(Arc::clone(m.entry(key).or_insert(server)))
            }
            Err(why) => Err(Box::new(text(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("this path's tool list cannot be served: {why}"),
            ))),
        }
    }
}

/// Aborts a call when the exchange waiting for it goes away.
struct CancelOnDrop {
    session: Arc<Session>,
    id: jsonrpc::RequestId,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.session.cancel(&self.id);
    }
}

/// 128 random bits, hex (MCP: globally unique, cryptographically secure).
fn session_id() -> Option<String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).ok()?;
    Some(b.iter().map(|x| format!("{x:02x}")).collect())
}

fn enveloped(v: &Value) -> bool {
    v.pointer("/params/_meta")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(PROTOCOL_VERSION))
}

fn header_pairs(h: &hyper::HeaderMap) -> Vec<(String, String)> {
    h.iter()
        .filter_map(|(n, v)| {
            v.to_str()
                .ok()
                .map(|v| (n.as_str().to_string(), v.to_string()))
        })
        .collect()
}

/// `host` of `host[:port]` / `[v6]:port`.
fn authority_host(a: &str) -> &str {
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    a.rsplit_once(':').map_or(a, |(h, _)| h)
}

fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn media_is(ctype: &str, want: &str) -> bool {
    ctype
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case(want))
}

fn accepts_json(accept: &str) -> bool {
    accept.split(',').any(|p| {
        let m = p.split(';').next().unwrap_or("").trim();
        m.eq_ignore_ascii_case("application/json")
            || m == "*/*"
            || m.eq_ignore_ascii_case("application/*")
    })
}

/// Equal bytes, in time that depends only on the lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= usize::from(x ^ y);
    }
    diff == 0
}

fn text(status: StatusCode, msg: &str) -> Resp {
    let mut r = Response::new(Full::new(Bytes::from(format!("{msg}\n"))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn empty(status: StatusCode) -> Resp {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = status;
    r
}

fn unauthorized(challenge: &'static str) -> Resp {
    let mut r = text(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: send Authorization: Bearer <token>",
    );
    r.headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    r
}

fn json_status(status: StatusCode, v: &Value) -> Resp {
    let body = serde_json::to_vec(v).unwrap_or_default();
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// A 2026-07-28 answer: the HTTP status its error code maps to (200 for results).
fn rpc_status(v: &Value) -> Resp {
    let code = v.pointer("/error/code").and_then(Value::as_i64);
    let status = match code {
        None => StatusCode::OK,
        Some(jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            jsonrpc::PARSE_ERROR
            | jsonrpc::INVALID_REQUEST
            | jsonrpc::INVALID_PARAMS
            | jsonrpc::HEADER_MISMATCH
            | -32021
            | jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(_) => StatusCode::OK,
    };
    json_status(status, v)
}

#[cfg(test)]
#[path = "tests_mutants_http.rs"]
mod tests_mutants_http;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposure_with_auth() {
        let any: SocketAddr = "0.0.0.0:8080".parse().expect("addr");
        let lo: SocketAddr = "127.0.0.1:8080".parse().expect("addr");
        let auth = HttpOptions {
            auth: Some(Arc::new(super::super::auth::AuthOptions::default())),
            ..HttpOptions::default()
        };
        // A non-loopback bind is gated by OAuth, even with credentials of its own.
        assert_eq!(check_exposure(any, &auth, true), Ok(()));
        let token = HttpOptions {
            inbound_token: Some("t".into()),
            ..auth.clone()
        };
        assert_eq!(
            check_exposure(lo, &token, false),
            Err(ExposureError::AuthAndInboundToken)
        );
        let fwd = HttpOptions {
            forward_headers: vec!["authorization".into()],
            ..auth
        };
        assert_eq!(
            check_exposure(lo, &fwd, false),
            Err(ExposureError::AuthAndForwardedAuthorization)
        );
    }

    fn opts(token: bool, fwd_auth: bool) -> HttpOptions {
        HttpOptions {
            inbound_token: token.then(|| "s3cret".to_string()),
            forward_headers: if fwd_auth {
                vec!["Authorization".into()]
            } else {
                vec![]
            },
            ..HttpOptions::default()
        }
    }

    #[test]
    fn exposure_rules() {
        let lo: SocketAddr = "127.0.0.1:8080".parse().expect("addr");
        let any: SocketAddr = "0.0.0.0:8080".parse().expect("addr");
        let v6lo: SocketAddr = "[::1]:8080".parse().expect("addr");
        assert!(check_exposure(lo, &opts(false, false), true).is_ok());
        assert!(check_exposure(v6lo, &opts(false, false), true).is_ok());
        assert!(check_exposure(any, &opts(false, false), false).is_err());
        assert!(check_exposure(any, &opts(true, false), true).is_ok());
        assert!(check_exposure(any, &opts(false, true), false).is_ok());
        assert!(
            check_exposure(any, &opts(false, true), true).is_err(),
            "forwarding gate with own credentials"
        );
        assert!(
            check_exposure(lo, &opts(true, true), false).is_err(),
            "token would go upstream"
        );
    }

    #[test]
    fn hosts_and_media() {
        assert_eq!(authority_host("127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(authority_host("[::1]:8080"), "::1");
        assert_eq!(authority_host("localhost"), "localhost");
        assert!(
            is_loopback_host("LOCALHOST")
                && is_loopback_host("127.0.0.2")
                && is_loopback_host("::1")
        );
        assert!(!is_loopback_host("evil.example") && !is_loopback_host("10.0.0.1"));
        assert!(media_is(
            "application/json; charset=utf-8",
            "application/json"
        ));
        assert!(!media_is("text/plain", "application/json"));
        assert!(accepts_json("application/json, text/event-stream"));
        assert!(accepts_json("*/*") && !accepts_json("text/event-stream"));
    }

    #[test]
    fn constant_time_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"a"));
    }

    #[test]
    fn session_ids_are_random_hex() {
        let a = session_id().expect("random");
        let b = session_id().expect("random");
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
