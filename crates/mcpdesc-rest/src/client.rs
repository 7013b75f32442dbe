//! The HTTP client behind the gateway: the [`HttpClient`] trait (one exchange, no
//! policy of its own beyond redirects and read limits) and [`ReqwestClient`], its
//! implementation on reqwest (HTTP/1.1, pooled connections) over rustls with the ring
//! provider and the system's roots, no proxy. The gateway ([`crate::RestBackend`])
//! checks every request's origin against the allow-list and bounds requests in flight
//! before it asks the client; the client follows at most
//! [`MAX_REDIRECTS`](crate::MAX_REDIRECTS) same-origin redirects, bounds the exchange
//! by its timeout and the body by [`ReadLimits`].

use crate::origin::Origin;
use crate::request::HttpRequest;
use crate::response::HttpResponse;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A boxed, `Send` future (what [`HttpClient`] returns, so the trait is object-safe).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How much of a response body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// A 2xx body longer than this is an error.
    pub success: usize,
    /// Any other body is cut at this many bytes (and marked truncated); `None`: the
    /// 2xx rule applies to every status.
    pub other: Option<usize>,
}

/// One HTTP exchange. The gateway has built the request (pure) and checked its origin;
/// the client sends it as it is: method, URL, header fields in order, then
/// `Authorization: Bearer <bearer>` when given, then the body with its
/// `Content-Type`. Redirects are followed on the same origin only, at most
/// [`MAX_REDIRECTS`](crate::MAX_REDIRECTS) times. Dropping the future aborts the
/// exchange. Errors are worded for the model and carry no secret (no URL).
///
/// [`ReqwestClient`] is the real one; tests may put a double behind
/// [`RestBackend::with_client`](crate::RestBackend::with_client).
pub trait HttpClient: Send + Sync + fmt::Debug {
    /// Sends `req` and reads the response within `limits`.
    fn send<'a>(
        &'a self,
        req: &'a HttpRequest,
        bearer: Option<&'a str>,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<HttpResponse, SendError>>;
}

/// A failed exchange, worded for the model (no secrets).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SendError(pub String);

/// The reqwest client and its settings.
pub struct ReqwestClient {
    client: reqwest::Client,
    timeout: Duration,
}

impl fmt::Debug for ReqwestClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReqwestClient")
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

/// Why the client could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// rustls could not be configured (no usable platform verifier, say).
    #[error("TLS setup failed: {0}")]
    Tls(String),
    /// reqwest refused the configuration.
    #[error("HTTP client setup failed: {0}")]
    Client(String),
}

impl ReqwestClient {
    /// Builds the client: `timeout` bounds each whole exchange (redirects included).
    pub fn new(timeout: Duration) -> Result<ReqwestClient, ClientError> {
        let tls =
            mcpdesc_auth::tls::client_config().map_err(|e| ClientError::Tls(e.to_string()))?;
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
            if attempt.previous().len() > crate::MAX_REDIRECTS {
                return attempt.error(RedirectRefused(format!(
                    "the API redirected more than {} times",
                    crate::MAX_REDIRECTS
                )));
            }
            attempt.follow()
        });
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .redirect(policy)
            .timeout(timeout)
            .no_proxy()
            .referer(false)
            .user_agent(concat!("mcpdesc-serve/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ClientError::Client(e.to_string()))?;
        Ok(ReqwestClient { client, timeout })
    }

    async fn exchange(
        &self,
        req: &HttpRequest,
        bearer: Option<&str>,
        limits: ReadLimits,
    ) -> Result<HttpResponse, SendError> {
        let not_http = || SendError(format!("`{}` is not an http(s) URL", req.log_url));
        let url = url::Url::parse(&req.url).map_err(|_| not_http())?;
        let origin = Origin::of(&url).ok_or_else(not_http)?;
        let method = reqwest::Method::from_bytes(req.method.as_str().as_bytes())
            .map_err(|_| SendError("bad method".into()))?;
        let traced = trace::Upstream::under_current(req, &origin);
        let mut b = self.client.request(method, url);
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
        if let Some((traceparent, tracestate)) = traced.as_ref().and_then(|t| t.inject(req)) {
            b = b.header(trace::TRACEPARENT, traceparent);
            if let Some(state) = tracestate {
                b = b.header(trace::TRACESTATE, state);
            }
        }
        let out = async {
            let resp = b.send().await.map_err(|e| self.describe(&e, &origin))?;
            read(resp, limits)
                .await
                .map_err(|e| self.describe(&e, &origin))?
                .map_err(SendError)
        }
        .await;
        if let Some(t) = traced {
            t.end(out.as_ref().map(|r| r.status));
        }
        out
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
                "the API at {origin} did not answer within {} s (the gateway's request timeout)",
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

impl HttpClient for ReqwestClient {
    fn send<'a>(
        &'a self,
        req: &'a HttpRequest,
        bearer: Option<&'a str>,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<HttpResponse, SendError>> {
        Box::pin(self.exchange(req, bearer, limits))
    }
}

/// The trace context of one upstream request. Under a [`TraceScope`](trace::TraceScope) that records (the
/// MCP request's sampled SERVER span, when `mcpdesc serve` exports traces) it is a CLIENT
/// span (OpenTelemetry HTTP client conventions) and the `traceparent` names it; under a
/// valid span context that is not recorded (a caller's unsampled trace) no span is made
/// and that context is passed on as it is (W3C Trace Context: sampled flag unset); with no
/// span context, nothing. The fields are W3C Trace Context's (`traceparent`, and
/// `tracestate` when the context has one), as the SDK's propagator writes them.
pub mod trace {
    use crate::origin::Origin;
    use crate::request::HttpRequest;
    use opentelemetry::Context;
    use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt as _, TraceFlags};
    use reqwest::header::HeaderName;
    use std::time::SystemTime;

    /// The W3C `traceparent` header field's name (a constant: not parsed per request).
    pub(super) const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
    /// The W3C `tracestate` header field's name.
    pub(super) const TRACESTATE: HeaderName = HeaderName::from_static("tracestate");

    /// The trace of the MCP request being answered, as the server records it. The server
    /// runs the call's future under it ([`TraceScope::run`]); the gateway's client opens
    /// its CLIENT span under `context` and hands the finished span to `spans`.
    ///
    /// A task-local value, not a value of the OpenTelemetry [`Context`]: a context value
    /// costs a map built per request and a context attached and detached on every poll,
    /// a task-local one a swap per poll. Outside any scope the client still follows the
    /// current OpenTelemetry context's span (a caller's own trace).
    #[derive(Clone)]
    pub struct TraceScope {
        /// The SERVER span's context (sampled or not).
        pub context: SpanContext,
        /// Where CLIENT spans go; `None` when the request is not recorded. A static
        /// reference (the recorder lives as long as the process), not an `Arc`: cloning an
        /// `Arc` per request and per upstream request wrote its counter's cache line from
        /// whichever core ran the call, so the next call's core read it back from the
        /// other's cache (PERFORMANCE.md, issue 29).
        pub spans: Option<&'static dyn ClientSpans>,
    }

    tokio::task_local! {
        /// The scope of the MCP request whose call is being polled.
        static SCOPE: TraceScope;
    }

    impl TraceScope {
        /// Runs `fut` under this scope: the upstream requests it sends are traced under
        /// it.
        pub async fn run<F: std::future::Future>(self, fut: F) -> F::Output {
            SCOPE.scope(self, fut).await
        }

        /// `f` of the scope `fut` runs under, when a [`TraceScope::run`] is being polled
        /// on this thread.
        pub fn with_current<R>(f: impl FnOnce(&TraceScope) -> R) -> Option<R> {
            SCOPE.try_with(f).ok()
        }
    }

    impl std::fmt::Debug for TraceScope {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("TraceScope")
                .field("context", &self.context)
                .field("recorded", &self.spans.is_some())
                .finish()
        }
    }

    /// Where the gateway's CLIENT spans are recorded (the server's span recorder).
    pub trait ClientSpans: Send + Sync {
        /// A new span id.
        fn new_span_id(&self) -> SpanId;
        /// Takes one finished CLIENT span. Called on the request path, so it only hands
        /// the span on; building and exporting it happen elsewhere.
        fn record(&self, span: ClientSpan);
    }

    /// One upstream HTTP request as a CLIENT span's data (OpenTelemetry HTTP client
    /// conventions): named by its method, with `http.request.method`, `url.full`
    /// (credentials redacted), `server.address`, `server.port` and, when it ended,
    /// `http.response.status_code` or `error.type`.
    #[derive(Debug, Clone)]
    pub struct ClientSpan {
        /// Its own context: the SERVER span's trace, flags and state, a new span id.
        pub context: SpanContext,
        /// The SERVER span's id.
        pub parent_span_id: SpanId,
        /// When the request was sent.
        pub start: SystemTime,
        /// When its response (or its failure) was in.
        pub end: SystemTime,
        /// The method (`GET`).
        pub method: &'static str,
        /// The URL as logged: query secrets and userinfo `REDACTED`.
        pub url_full: InlineText<URL_INLINE>,
        /// The host (lower-case, as the gateway's origin check reads it).
        pub server_address: InlineText<HOST_INLINE>,
        /// The port (the scheme's default when the URL names none).
        pub server_port: u16,
        /// The response's status, or `None` when no response came.
        pub status: Option<u16>,
    }

    /// The longest URL a CLIENT span holds in place (longer ones are boxed).
    pub const URL_INLINE: usize = 126;
    /// The longest host name a CLIENT span holds in place.
    pub const HOST_INLINE: usize = 62;

    /// Text of at most `N` bytes held in place, longer text boxed. A span record owns its
    /// strings, and the recorder's thread, not the request's, drops it: a heap block
    /// freed there costs the request thread's allocator a remote free and cold cache
    /// lines when it takes the block back (PERFORMANCE.md, issue 29). Held in place,
    /// the text is copied into the record and nothing is allocated.
    #[derive(Clone, PartialEq, Eq)]
    pub struct InlineText<const N: usize>(Repr<N>);

    #[derive(Clone, PartialEq, Eq)]
    enum Repr<const N: usize> {
        Inline { len: u8, bytes: [u8; N] },
        Boxed(Box<str>),
    }

    impl<const N: usize> InlineText<N> {
        /// Whether `N` fits the one-byte length (checked at compile time where used).
        const FITS: () = assert!(
            N <= u8::MAX as usize,
            "an InlineText holds 255 bytes at most"
        );

        /// `s`, in place when it fits.
        pub fn new(s: &str) -> InlineText<N> {
            let () = Self::FITS;
            match u8::try_from(s.len()) {
                Ok(len) if s.len() <= N => {
                    let mut bytes = [0; N];
                    bytes[..s.len()].copy_from_slice(s.as_bytes());
                    InlineText(Repr::Inline { len, bytes })
                }
                _ => InlineText(Repr::Boxed(s.into())),
            }
        }

        pub fn as_str(&self) -> &str {
            match &self.0 {
                // The bytes are a whole `str`'s, so they are UTF-8.
                Repr::Inline { len, bytes } => {
                    std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
                }
                Repr::Boxed(s) => s,
            }
        }

        /// Whether the text is held in place.
        pub fn is_inline(&self) -> bool {
            matches!(self.0, Repr::Inline { .. })
        }
    }

    impl<const N: usize> std::fmt::Debug for InlineText<N> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            std::fmt::Debug::fmt(self.as_str(), f)
        }
    }

    impl<const N: usize> From<&str> for InlineText<N> {
        fn from(s: &str) -> InlineText<N> {
            InlineText::new(s)
        }
    }

    /// What an upstream request is sent under.
    pub(super) enum Upstream {
        /// A CLIENT span of ours, handed to `spans` when the response is in.
        Recorded {
            spans: &'static dyn ClientSpans,
            span: Box<ClientSpan>,
        },
        /// A span context not recorded here, passed on as it is.
        Passed(SpanContext),
    }

    impl Upstream {
        /// The upstream context of `req` (to `origin`) under the current [`TraceScope`], else
        /// under the current OpenTelemetry context's span; `None` when neither has a valid
        /// span context.
        pub(super) fn under_current(req: &HttpRequest, origin: &Origin) -> Option<Upstream> {
            TraceScope::with_current(|scope| match scope {
                TraceScope {
                    context,
                    spans: Some(spans),
                } if context.is_sampled() => Some(Upstream::Recorded {
                    span: Box::new(client_span(context, spans.new_span_id(), req, origin)),
                    spans: *spans,
                }),
                scope => scope
                    .context
                    .is_valid()
                    .then(|| Upstream::Passed(scope.context.clone())),
            })
            .unwrap_or_else(|| {
                Context::map_current(|cx| {
                    let sc = cx.span().span_context().clone();
                    sc.is_valid().then_some(Upstream::Passed(sc))
                })
            })
        }

        /// The W3C Trace Context header values of the context: its `traceparent`, and its
        /// `tracestate` unless that is empty (W3C Trace Context §3.3.1.1: vendors MUST
        /// accept empty tracestate headers but SHOULD avoid sending them), unless the
        /// request already carries a `traceparent` (a forwarded inbound one). The
        /// `traceparent` is what the W3C propagator writes, formatted here without
        /// `format!` (see [`traceparent`]).
        pub(super) fn inject(&self, req: &HttpRequest) -> Option<(String, Option<String>)> {
            if req
                .headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("traceparent"))
            {
                return None;
            }
            let sc = match self {
                Upstream::Recorded { span, .. } => &span.context,
                Upstream::Passed(sc) => sc,
            };
            sc.is_valid().then(|| {
                let state = sc.trace_state().header();
                (traceparent(sc), (!state.is_empty()).then_some(state))
            })
        }

        /// Ends the CLIENT span (if one was made) with the response's status.
        pub(super) fn end(self, status: Result<u16, &super::SendError>) {
            let Upstream::Recorded { spans, mut span } = self else {
                return;
            };
            span.end = SystemTime::now();
            span.status = status.ok();
            spans.record(*span);
        }
    }

    /// The W3C `traceparent` of `sc` (version `00`, the trace and span ids in lower-case
    /// hex, the sampled flag alone), as `opentelemetry_sdk`'s `TraceContextPropagator`
    /// writes it, into one buffer of its fixed 55 bytes (the propagator's `format!` of
    /// the ids through `fmt` cost several times more per request).
    pub(super) fn traceparent(sc: &SpanContext) -> String {
        let mut out = *b"00-00000000000000000000000000000000-0000000000000000-00";
        hex(&sc.trace_id().to_bytes(), &mut out[3..35]);
        hex(&sc.span_id().to_bytes(), &mut out[36..52]);
        hex(
            &[(sc.trace_flags() & TraceFlags::SAMPLED).to_u8()],
            &mut out[53..],
        );
        // ASCII throughout, so never the empty fallback.
        std::str::from_utf8(&out).map_or_else(|_| String::new(), str::to_owned)
    }

    /// `bytes` in lower-case hex into `out` (twice as long).
    fn hex(bytes: &[u8], out: &mut [u8]) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        for (b, pair) in bytes.iter().zip(out.chunks_exact_mut(2)) {
            pair[0] = DIGITS[usize::from(b >> 4)];
            pair[1] = DIGITS[usize::from(b & 0xf)];
        }
    }

    /// A CLIENT span of `req` under `parent` (its trace, flags and state), with id `id`,
    /// started now.
    fn client_span(
        parent: &SpanContext,
        id: SpanId,
        req: &HttpRequest,
        origin: &Origin,
    ) -> ClientSpan {
        let start = SystemTime::now();
        ClientSpan {
            context: SpanContext::new(
                parent.trace_id(),
                id,
                parent.trace_flags(),
                false,
                parent.trace_state().clone(),
            ),
            parent_span_id: parent.span_id(),
            start,
            end: start,
            method: req.method.as_str(),
            url_full: redacted(&req.log_url),
            server_address: InlineText::new(&origin.host),
            server_port: origin.port,
            status: None,
        }
    }

    /// The log URL (query secrets already `REDACTED`) without user information. A URL
    /// without an `@` has none (the userinfo delimiter), so it is not parsed again.
    fn redacted(log_url: &str) -> InlineText<URL_INLINE> {
        if !log_url.contains('@') {
            return InlineText::new(log_url);
        }
        match url::Url::parse(log_url) {
            Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
                let _ = u.set_username("REDACTED");
                let _ = u.set_password(Some("REDACTED"));
                InlineText::new(u.as_str())
            }
            _ => InlineText::new(log_url),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use opentelemetry::trace::{SpanId, TraceId, TraceState};
        use std::str::FromStr as _;

        /// The `traceparent` as W3C Trace Context spells it: the specification's own
        /// example, an unsampled context with leading zeros, and flags whose bits other
        /// than sampled are not passed on.
        #[test]
        fn traceparent_is_w3c_trace_context() {
            for (trace, span, flags, expected) in [
                (
                    0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128,
                    0x00f0_67aa_0ba9_02b7_u64,
                    TraceFlags::SAMPLED,
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                ),
                (
                    1,
                    0x10,
                    TraceFlags::default(),
                    "00-00000000000000000000000000000001-0000000000000010-00",
                ),
                (
                    u128::MAX,
                    u64::MAX,
                    TraceFlags::new(0xff),
                    "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01",
                ),
            ] {
                let sc = SpanContext::new(
                    TraceId::from(trace),
                    SpanId::from(span),
                    flags,
                    true,
                    TraceState::default(),
                );
                assert_eq!(traceparent(&sc), expected);
            }
        }

        /// Text up to `N` bytes is held in place, longer text boxed; either reads back as
        /// it was, multi-byte characters included.
        #[test]
        fn inline_text_reads_back_as_it_was() {
            let thirty = "é".repeat(15);
            let long = "x".repeat(31);
            for (s, inline) in [
                ("", true),
                ("7", true),
                ("req-42", true),
                (thirty.as_str(), true),
                (long.as_str(), false),
            ] {
                let t = InlineText::<30>::new(s);
                assert_eq!(t.as_str(), s);
                assert_eq!(t.is_inline(), inline, "{s}");
                assert_eq!(format!("{t:?}"), format!("{s:?}"));
            }
            let full = "y".repeat(255);
            assert!(InlineText::<255>::new(&full).is_inline());
            assert_eq!(InlineText::<255>::new(&full).as_str(), full);
        }

        fn get(headers: &[(&str, &str)]) -> HttpRequest {
            HttpRequest {
                method: mcpdesc_core::provenance::Method::Get,
                url: "http://api.example.com/x".into(),
                log_url: "http://api.example.com/x".into(),
                headers: headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                body: None,
                oauth: Vec::new(),
                exchange: Vec::new(),
            }
        }

        /// A caller's context passed on (no span of ours): its `traceparent`, and its
        /// `tracestate` only when it has one. W3C Trace Context §3.3.1.1: "Vendors MUST
        /// accept empty tracestate headers but SHOULD avoid sending them." A request that
        /// already carries a `traceparent` (forwarded) gets neither.
        #[test]
        fn tracestate_is_sent_only_when_not_empty() {
            let upstream = |state: &str| {
                let sc = SpanContext::new(
                    TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128),
                    SpanId::from(0x00f0_67aa_0ba9_02b7_u64),
                    TraceFlags::SAMPLED,
                    true,
                    TraceState::from_str(state).expect("a valid tracestate"),
                );
                Upstream::Passed(sc)
            };
            let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".to_string();
            assert_eq!(upstream("").inject(&get(&[])), Some((tp.clone(), None)));
            assert_eq!(
                upstream("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7").inject(&get(&[])),
                Some((
                    tp,
                    Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7".to_string())
                ))
            );
            assert_eq!(
                upstream("rojo=1").inject(&get(&[("TraceParent", "00-1-2-01")])),
                None
            );
        }

        #[test]
        fn userinfo_is_redacted_and_other_urls_are_kept() {
            let long = format!("https://u:p@api.example.com/{}", "x".repeat(URL_INLINE));
            for (url, expected) in [
                (
                    "https://user:pw@api.example.com/x?key=REDACTED",
                    "https://REDACTED:REDACTED@api.example.com/x?key=REDACTED".to_string(),
                ),
                ("http:/user@h/x", "http://REDACTED:REDACTED@h/x".to_string()),
                (
                    "https://api.example.com/a@b?q=x@y",
                    "https://api.example.com/a@b?q=x@y".to_string(),
                ),
                (
                    "https://api.example.com/x",
                    "https://api.example.com/x".to_string(),
                ),
                (long.as_str(), long.replace("u:p@", "REDACTED:REDACTED@")),
            ] {
                assert_eq!(redacted(url).as_str(), expected);
            }
        }
    }
}

/// Reads a body within `limits`: over the limit, an error for a body the limits do not
/// cut, else the first bytes (marked truncated).
async fn read(
    mut resp: reqwest::Response,
    limits: ReadLimits,
) -> Result<Result<HttpResponse, String>, reqwest::Error> {
    let status = resp.status();
    let (limit, cut) = match limits.other {
        Some(other) if !status.is_success() => (other, true),
        _ => (limits.success, false),
    };
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = resp.chunk().await? {
        if body.len() + chunk.len() > limit {
            if !cut {
                return Ok(Err(format!(
                    "the API's response is larger than {limit} bytes (the gateway's response size limit)"
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
