//! Telemetry of `mcpdesc serve` (issue 29): Prometheus/OpenMetrics metrics
//! (`--metrics ADDR`, on a listener of its own) and OpenTelemetry traces exported over
//! OTLP/HTTP (`--otlp-endpoint URL`), both under the OpenTelemetry MCP semantic
//! conventions.
//!
//! [`Telemetry`] is a cheap handle (a static reference, or nothing when both are off)
//! the server and the transports share. Per MCP request the server asks it for a
//! [`RequestObs`] when the request arrives and finishes it with the outcome: one
//! observation of `mcp_server_operation_duration_seconds` and one SERVER span named
//! `{mcp.method.name} {target}`. The call runs under the span's [`TraceScope`] (a
//! task-local value), so the REST gateway's client (`mcpdesc_rest::trace`) opens its
//! CLIENT span under it and sends a `traceparent` naming that span. Spans are recorded
//! as small records and built and exported off the request path ([`spans`]); so are the
//! histograms' observations ([`Metrics`]). Both wait in per-thread [`buffers`].
//!
//! Label values are bounded: a method name is one of the MCP methods (else `_OTHER`),
//! a tool name is recorded only for a request that reached a tool (never for one
//! refused as unknown), a revision only when it is served, an auth failure reason is a
//! `&'static str`. Nothing from a request beyond those reaches a label or an attribute,
//! and URLs are the gateway's redacted ones.

use super::jsonrpc::RequestId;
use mcpdesc_core::ProtocolRevision;
use mcpdesc_core::meta::PROTOCOL_VERSION;
use mcpdesc_rest::trace::{InlineText, TraceScope};
use opentelemetry::Context;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::{EncodeLabel as _, EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

mod buffers;
mod spans;

use buffers::{Buffers, Pushed};

/// Histogram buckets (seconds): the MCP semantic conventions' advice
/// (0.01 … 300 s) with finer buckets below 10 ms, where a local gateway's calls land.
pub const DURATION_BUCKETS: [f64; 18] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0,
    120.0, 300.0,
];

/// The MCP methods a label or span name may carry; any other is `_OTHER`.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// The service name when `OTEL_SERVICE_NAME` is not set.
pub const DEFAULT_SERVICE_NAME: &str = "mcpdesc-serve";

/// The instrumentation scope of every span.
const SCOPE: &str = "mcpdesc-serve";

/// What telemetry to run.
#[derive(Debug, Clone, Default)]
pub struct TelemetryOptions {
    /// Keep metrics (`--metrics`; the listener is [`Telemetry::serve_metrics`]'s).
    pub metrics: bool,
    /// `--otlp-endpoint URL`: export traces to `URL/v1/traces`. `None`: the
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` environment
    /// variables when set (the exporter's own rules), else no traces.
    pub otlp_endpoint: Option<String>,
}

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(String),
    #[error("the metrics listener could not start: {0}")]
    Listener(std::io::Error),
}

type Labels = Vec<(&'static str, String)>;
type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// The hasher that turns a label set into the one word its [`Hash`] feeds the family's
/// map: foldhash instead of SipHash for each field (several writes and a finish per
/// observation, twice per `tools/call`). Label values are bounded (see the module's
/// documentation), so collision resistance buys nothing here.
const ONE_WORD: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0);

/// A tool name as a label value, held in place (see [`InlineText`]): an observation
/// allocates nothing on the request's thread.
type ToolName = InlineText<{ spans::TOOL_NAME_INLINE }>;

/// The labels of one `mcp_server_operation_duration_seconds` series, encoded in this
/// order. Plain fields rather than a list of owned strings: an observation allocates
/// no label value and hashes one word ([`ONE_WORD`] of the fields; equal label sets
/// hash alike, as `Eq` needs).
#[derive(Clone, Debug, PartialEq, Eq)]
struct OperationLabels {
    method: &'static str,
    tool: Option<ToolName>,
    revision: Option<ProtocolRevision>,
    error_type: Option<Cow<'static, str>>,
}

impl std::hash::Hash for OperationLabels {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use std::hash::BuildHasher as _;
        state.write_u64(ONE_WORD.hash_one((
            self.method,
            self.tool.as_ref().map(InlineText::as_str),
            self.revision,
            self.error_type.as_deref(),
        )));
    }
}

impl EncodeLabelSet for OperationLabels {
    fn encode(&self, e: &mut LabelSetEncoder<'_>) -> fmt::Result {
        ("mcp_method_name", self.method).encode(e.encode_label())?;
        if let Some(t) = &self.tool {
            ("gen_ai_tool_name", t.as_str()).encode(e.encode_label())?;
        }
        if let Some(r) = self.revision {
            ("mcp_protocol_version", r.as_str()).encode(e.encode_label())?;
        }
        if let Some(t) = &self.error_type {
            ("error_type", &**t).encode(e.encode_label())?;
        }
        Ok(())
    }
}

/// The labels of one `http_client_request_duration_seconds` series: the tool, the
/// method and the status, encoded as `http_response_status_code` and, for a status of
/// 400 or more, `error_type` (`no_response` without a status). Hashed as one word, like
/// [`OperationLabels`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct UpstreamLabels {
    tool: ToolName,
    method: Cow<'static, str>,
    status: Option<u16>,
}

impl std::hash::Hash for UpstreamLabels {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use std::hash::BuildHasher as _;
        state.write_u64(ONE_WORD.hash_one((self.tool.as_str(), &self.method, self.status)));
    }
}

impl EncodeLabelSet for UpstreamLabels {
    fn encode(&self, e: &mut LabelSetEncoder<'_>) -> fmt::Result {
        ("gen_ai_tool_name", self.tool.as_str()).encode(e.encode_label())?;
        ("http_request_method", &*self.method).encode(e.encode_label())?;
        match self.status {
            Some(s) => {
                ("http_response_status_code", s).encode(e.encode_label())?;
                if s >= 400 {
                    ("error_type", s).encode(e.encode_label())?;
                }
            }
            None => ("error_type", "no_response").encode(e.encode_label())?,
        }
        Ok(())
    }
}

/// `mcp_server_requests_in_flight`: a gauge counted in per-thread slots (as
/// [`Buffers`] hands them out), each on its own cache lines, and summed when scraped.
/// One shared gauge took two atomic writes per request to one cache line from whichever
/// core ran it; here a thread mostly writes its own.
#[derive(Clone, Debug)]
struct InFlight(Arc<[Slot]>);

#[derive(Debug, Default)]
#[repr(align(128))]
struct Slot(AtomicI64);

impl InFlight {
    fn new() -> InFlight {
        let slots = 2 * std::thread::available_parallelism().map_or(1, usize::from);
        InFlight(
            (0..slots.min(buffers::MAX_BUFFERS))
                .map(|_| Slot::default())
                .collect(),
        )
    }

    fn add(&self, n: i64) {
        self.0[buffers::this_slot() % self.0.len()]
            .0
            .fetch_add(n, Ordering::Relaxed);
    }

    /// The sum of the slots. A request that ends on another thread than it started on
    /// leaves one slot above and one below zero, and a scrape reading the slots while it
    /// starts and ends could see only the second: never report less than none.
    fn get(&self) -> i64 {
        self.0
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum::<i64>()
            .max(0)
    }
}

impl prometheus_client::metrics::TypedMetric for InFlight {
    const TYPE: MetricType = MetricType::Gauge;
}

impl prometheus_client::encoding::EncodeMetric for InFlight {
    fn encode(&self, mut encoder: prometheus_client::encoding::MetricEncoder<'_>) -> fmt::Result {
        encoder.encode_gauge(&self.get())
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

fn histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// One duration observed on a request's thread, waiting to be applied to its
/// histogram ([`Metrics::observe`]).
#[derive(Debug)]
enum Observation {
    Operation(OperationLabels, Duration),
    Upstream(UpstreamLabels, Duration),
}

/// How many observations wait at most, over all the request threads' buffers (about
/// 130 bytes each). A thread whose buffer is full applies its observations itself.
const PENDING_OBSERVATIONS: usize = 4096;

/// How often the metrics thread applies the waiting observations when nothing wakes it.
const METRICS_TICK: Duration = Duration::from_millis(200);

/// The metrics. The two duration histograms are not observed on the request's thread:
/// a family's lookup and a histogram's observation there cost about 600 instructions
/// each, on code and data (the family's map and lock, the buckets) that a call's other
/// 185,000 instructions have evicted, while pushing the observation to the thread's own
/// buffer costs a few dozen (PERFORMANCE.md, issue 29). The metrics thread applies the
/// waiting observations every [`METRICS_TICK`], when a buffer is half full, and before
/// each scrape, so a scrape counts every request answered before it. None is lost: a
/// full buffer's thread applies its observation itself.
struct Metrics {
    registry: Registry,
    operation: Histograms<OperationLabels>,
    upstream: Histograms<UpstreamLabels>,
    in_flight: InFlight,
    rate_limited: Counter,
    auth_failures: Family<Labels, Counter>,
    /// Observations waiting to be applied, in the request threads' buffers.
    pending: Buffers<Observation>,
    /// The buffer a drain swaps in (its lock makes drains one at a time).
    spare: Mutex<Vec<Observation>>,
    /// Wakes the metrics thread when a buffer is half full.
    wake: tokio::sync::Notify,
}

impl Metrics {
    fn new() -> Metrics {
        let mut registry = Registry::default();
        let operation = Histograms::new_with_constructor(histogram as fn() -> Histogram);
        let upstream = Histograms::new_with_constructor(histogram as fn() -> Histogram);
        let in_flight = InFlight::new();
        let rate_limited = Counter::default();
        let auth_failures = Family::<Labels, Counter>::default();
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "Duration of MCP requests as the server saw them (OpenTelemetry mcp.server.operation.duration)",
            Unit::Seconds,
            operation.clone(),
        );
        registry.register_with_unit(
            "http_client_request_duration",
            "Duration of the gateway's upstream HTTP requests, by tool (OpenTelemetry http.client.request.duration)",
            Unit::Seconds,
            upstream.clone(),
        );
        registry.register(
            "mcp_server_requests_in_flight",
            "MCP requests being answered",
            in_flight.clone(),
        );
        registry.register(
            "mcpdesc_rate_limited_requests",
            "MCP requests refused by the rate limit (HTTP 429)",
            rate_limited.clone(),
        );
        registry.register(
            "mcpdesc_auth_failures",
            "Requests refused by inbound authentication, by reason",
            auth_failures.clone(),
        );
        Metrics {
            registry,
            operation,
            upstream,
            in_flight,
            rate_limited,
            auth_failures,
            pending: Buffers::for_this_machine(PENDING_OBSERVATIONS),
            spare: Mutex::new(Vec::new()),
            wake: tokio::sync::Notify::new(),
        }
    }

    /// Records `o`: in this thread's buffer for the metrics thread, or right here when
    /// the buffer is full.
    fn observe(&self, o: Observation) {
        match self.pending.try_push(o) {
            Ok(Pushed::Kept) => {}
            Ok(_) => self.wake.notify_one(),
            Err(o) => self.apply(o),
        }
    }

    fn apply(&self, o: Observation) {
        match o {
            Observation::Operation(labels, d) => self
                .operation
                .get_or_create(&labels)
                .observe(d.as_secs_f64()),
            Observation::Upstream(labels, d) => self
                .upstream
                .get_or_create(&labels)
                .observe(d.as_secs_f64()),
        }
    }

    /// Applies every waiting observation.
    fn apply_pending(&self) {
        let mut spare = self
            .spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.pending.drain(&mut spare, false, |o| self.apply(o));
    }
}

/// The metrics thread's task: applies the waiting observations every
/// [`METRICS_TICK`], or as soon as a buffer is half full.
async fn apply_observations(tel: Telemetry) {
    let Some(m) = tel.metrics() else { return };
    loop {
        let _ = tokio::time::timeout(METRICS_TICK, m.wake.notified()).await;
        m.apply_pending();
    }
}

struct Inner {
    metrics: Option<Metrics>,
    spans: Option<spans::Recorder>,
}

impl Inner {
    /// `inner`, for the rest of the process. A process starts its telemetry once (a
    /// reload keeps it, so counters go on) and stops its span recorder explicitly
    /// ([`Telemetry::shutdown`]), so nothing is lost by never dropping it; tests start a
    /// few. What is gained: every MCP request borrowed it through an `Arc` before, whose
    /// counter, written twice per request from whichever core ran it, shared a cache line
    /// with the fields every request reads (PERFORMANCE.md, issue 29).
    fn leak(inner: Inner) -> &'static Inner {
        Box::leak(Box::new(inner))
    }
}

/// The server's telemetry: metrics and traces, each on or off. Copies share it; the
/// default is off (nothing is recorded, and nothing costs more than a branch).
#[derive(Clone, Copy, Default)]
pub struct Telemetry(Option<&'static Inner>);

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry")
            .field(
                "metrics",
                &self.0.as_ref().is_some_and(|i| i.metrics.is_some()),
            )
            .field(
                "traces",
                &self.0.as_ref().is_some_and(|i| i.spans.is_some()),
            )
            .finish()
    }
}

impl Telemetry {
    /// Starts what `opts` asks for. With traces this builds the OTLP/HTTP exporter
    /// behind a batch span processor (its own thread) and the span recorder that feeds
    /// it (another; see the `spans` module). Call it outside an async runtime.
    pub fn start(opts: &TelemetryOptions) -> Result<Telemetry, TelemetryError> {
        let env_endpoint = [
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
        ]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
        let traces = opts.otlp_endpoint.is_some() || env_endpoint;
        if !opts.metrics && !traces {
            return Ok(Telemetry::default());
        }
        let spans = if traces {
            Some(tracing_pipeline(opts.otlp_endpoint.as_deref())?)
        } else {
            None
        };
        Ok(Telemetry(Some(Inner::leak(Inner {
            metrics: opts.metrics.then(Metrics::new),
            spans,
        }))))
    }

    /// Metrics only (tests and benches).
    pub fn metrics_only() -> Telemetry {
        Telemetry(Some(Inner::leak(Inner {
            metrics: Some(Metrics::new()),
            spans: None,
        })))
    }

    fn metrics(&self) -> Option<&Metrics> {
        self.0.as_ref().and_then(|i| i.metrics.as_ref())
    }

    /// The metrics in the OpenMetrics text format (`None` without metrics).
    pub fn encode_metrics(&self) -> Option<String> {
        let m = self.metrics()?;
        m.apply_pending();
        let mut out = String::new();
        encode(&mut out, &m.registry).ok()?;
        Some(out)
    }

    /// Serves `GET /metrics` on `listener` from a thread of its own (with its own
    /// single-threaded runtime), so scrapes never wait on MCP traffic and the
    /// listener lives as long as the process.
    pub fn serve_metrics(&self, listener: std::net::TcpListener) -> Result<(), TelemetryError> {
        listener
            .set_nonblocking(true)
            .map_err(TelemetryError::Listener)?;
        let me = *self;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(TelemetryError::Listener)?;
        std::thread::Builder::new()
            .name("mcpdesc-metrics".into())
            .spawn(move || {
                rt.block_on(async move {
                    tokio::spawn(apply_observations(me));
                    metrics_listener(me, listener).await;
                });
            })
            .map_err(TelemetryError::Listener)?;
        Ok(())
    }

    /// Counts one request refused by the rate limit.
    pub fn record_rate_limited(&self) {
        if let Some(m) = self.metrics() {
            m.rate_limited.inc();
        }
    }

    /// Counts one request refused by inbound authentication. `reason` is a fixed word
    /// (e.g. `missing_token`, `invalid_token`, `expired`, `insufficient_scope`), never
    /// anything from the request.
    pub fn record_auth_failure(&self, reason: &'static str) {
        if let Some(m) = self.metrics() {
            m.auth_failures
                .get_or_create(&vec![("reason", reason.to_string())])
                .inc();
        }
    }

    /// Exports the spans ended so far (blocks until the exporter has sent them).
    pub fn flush(&self) {
        if let Some(r) = self.recorder() {
            r.flush();
        }
    }

    fn recorder(&self) -> Option<&'static spans::Recorder> {
        self.0.as_ref().and_then(|i| i.spans.as_ref())
    }

    /// Flushes and stops the span exporter (drain calls it once the last request is
    /// answered; later spans are dropped). Call it outside an async runtime, or from a
    /// blocking thread. Returns how many spans were dropped because the recorder's
    /// buffers were full.
    pub fn shutdown(&self) -> u64 {
        self.recorder().map_or(0, |r| r.shutdown())
    }

    /// Starts observing one MCP request: `method`, its `id`, its `params` (the tool
    /// name, the 2026-07-28 envelope's revision, `_meta.traceparent`) and the HTTP
    /// request's `traceparent`/`tracestate` header values (`header_trace`).
    pub(crate) fn request(
        &self,
        method: &str,
        id: &RequestId,
        params: Option<&Map<String, Value>>,
        header_trace: Option<&TraceHeaders>,
    ) -> RequestObs {
        let Some(inner) = &self.0 else {
            return RequestObs::default();
        };
        let method = METHODS
            .iter()
            .find(|m| **m == method)
            .copied()
            .unwrap_or("_OTHER");
        let meta = params
            .and_then(|p| field(p, "_meta"))
            .and_then(Value::as_object);
        let target: Option<ToolName> = match method {
            "tools/call" | "prompts/get" => params
                .and_then(|p| field(p, "name"))
                .and_then(Value::as_str)
                .map(|s| InlineText::new(truncate(s, 128))),
            _ => None,
        };
        let revision = meta
            .and_then(|m| field(m, PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(ProtocolRevision::parse);
        if let Some(m) = &inner.metrics {
            m.in_flight.add(1);
        }
        let trace = inner.spans.as_ref().map(|recorder| {
            let started = recorder.start_server(&parent_context(meta, header_trace), method);
            let scope = TraceScope {
                context: started.context.clone(),
                spans: started
                    .recorded
                    .then_some(recorder as &'static dyn mcpdesc_rest::trace::ClientSpans),
            };
            let span = started.recorded.then(|| spans::ServerSpan {
                context: started.context,
                parent: started.parent,
                start: SystemTime::now(),
                end: SystemTime::UNIX_EPOCH,
                method,
                target: target.clone(),
                request_id: match id {
                    RequestId::Number(s) | RequestId::Text(s) => InlineText::new(truncate(s, 128)),
                },
                revision: None,
                error_type: None,
                sampler_attributes: started.sampler_attributes,
            });
            Trace {
                scope: Some(scope),
                span,
            }
        });
        RequestObs(Some(Box::new(Obs {
            inner,
            started: Instant::now(),
            method,
            tool: target.filter(|_| method == "tools/call"),
            revision,
            trace,
        })))
    }

    /// Records one upstream HTTP request of `tool` (the gateway's log of it).
    pub(crate) fn upstream(&self, tool: &str, up: &mcpdesc_rest::call::UpstreamLog) {
        let Some(m) = self.metrics() else { return };
        let method = mcpdesc_core::provenance::Method::ALL
            .iter()
            .map(|m| m.as_str())
            .find(|m| *m == up.method)
            .map_or_else(|| Cow::Owned(up.method.clone()), Cow::Borrowed);
        let labels = UpstreamLabels {
            tool: InlineText::new(tool),
            method,
            status: up.status,
        };
        m.observe(Observation::Upstream(labels, up.latency));
    }
}

/// The W3C Trace Context header values of an HTTP request.
#[derive(Debug, Clone, Default)]
pub(crate) struct TraceHeaders {
    pub traceparent: String,
    pub tracestate: Option<String>,
}

impl TraceHeaders {
    /// The `traceparent` (and `tracestate`) of an HTTP request's header fields.
    pub fn of(headers: &[(String, String)]) -> Option<TraceHeaders> {
        let find = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        Some(TraceHeaders {
            traceparent: find("traceparent")?,
            tracestate: find("tracestate"),
        })
    }
}

/// The caller's context: `params._meta.traceparent` (as the 2026-07-28 SDKs send it)
/// when present, else the HTTP request's header; an invalid one is ignored (a new
/// trace starts). The values are read in place (no carrier map is built per request).
fn parent_context(meta: Option<&Map<String, Value>>, header: Option<&TraceHeaders>) -> Context {
    let (traceparent, tracestate) = match meta
        .and_then(|m| field(m, "traceparent"))
        .and_then(Value::as_str)
    {
        Some(tp) => (
            tp,
            meta.and_then(|m| field(m, "tracestate"))
                .and_then(Value::as_str),
        ),
        None => match header {
            Some(h) => (h.traceparent.as_str(), h.tracestate.as_deref()),
            None => return Context::new(),
        },
    };
    struct Fields<'a>(&'a str, Option<&'a str>);
    impl opentelemetry::propagation::Extractor for Fields<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            match key {
                "traceparent" => Some(self.0),
                "tracestate" => self.1,
                _ => None,
            }
        }
        fn keys(&self) -> Vec<&str> {
            let mut k = vec!["traceparent"];
            if self.1.is_some() {
                k.push("tracestate");
            }
            k
        }
    }
    use opentelemetry::propagation::TextMapPropagator as _;
    opentelemetry_sdk::propagation::TraceContextPropagator::new()
        .extract_with_context(&Context::new(), &Fields(traceparent, tracestate))
}

/// One MCP request being observed (a box, or nothing when telemetry is off: a
/// [`super::CallJob`] carries it). Dropped without [`RequestObs::finish`] (the call was
/// cancelled or its client went away), it records `error_type="cancelled"`.
#[derive(Default)]
pub(crate) struct RequestObs(Option<Box<Obs>>);

struct Obs {
    inner: &'static Inner,
    started: Instant,
    method: &'static str,
    tool: Option<ToolName>,
    revision: Option<ProtocolRevision>,
    /// The SERVER span (with traces).
    trace: Option<Trace>,
}

/// A request's trace: the [`TraceScope`] its call runs under (until it runs) and its
/// SERVER span, when recorded (sampled).
struct Trace {
    scope: Option<TraceScope>,
    span: Option<spans::ServerSpan>,
}

impl fmt::Debug for RequestObs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.0.as_deref();
        f.debug_struct("RequestObs")
            .field("method", &o.map(|o| o.method))
            .field(
                "tool",
                &o.and_then(|o| o.tool.as_ref().map(InlineText::as_str)),
            )
            .finish_non_exhaustive()
    }
}

impl RequestObs {
    /// The revision, once the request is answered: the envelope's when `served`, else
    /// the session's (the handshake revisions).
    pub fn set_revision(
        &mut self,
        session: Option<ProtocolRevision>,
        served: impl Fn(ProtocolRevision) -> bool,
    ) {
        if let Some(o) = &mut self.0 {
            o.revision = o.revision.filter(|r| served(*r)).or(session);
        }
    }

    /// Forgets the tool name: the request did not reach a tool (an unknown name must
    /// not become a label).
    pub fn no_tool(&mut self) {
        if let Some(o) = &mut self.0 {
            o.tool = None;
        }
    }

    /// Runs `fut` under this request's [`TraceScope`] (with traces; once).
    pub async fn in_context<F: std::future::Future>(&mut self, fut: F) -> F::Output {
        match self
            .0
            .as_mut()
            .and_then(|o| o.trace.as_mut())
            .and_then(|t| t.scope.take())
        {
            Some(scope) => scope.run(fut).await,
            None => fut.await,
        }
    }

    /// Records the outcome: `error_type` is `None` on success, the JSON-RPC error code
    /// for an error response, `tool_error` for a result with `isError: true`.
    pub fn finish(mut self, error_type: Option<Cow<'static, str>>) {
        self.record(error_type);
    }

    fn record(&mut self, error_type: Option<Cow<'static, str>>) {
        let Some(o) = self.0.take() else { return };
        let o = *o;
        if let Some(m) = &o.inner.metrics {
            m.in_flight.add(-1);
            let labels = OperationLabels {
                method: o.method,
                tool: o.tool,
                revision: o.revision,
                error_type: error_type.clone(),
            };
            m.observe(Observation::Operation(labels, o.started.elapsed()));
        }
        if let Some(Trace {
            span: Some(mut span),
            ..
        }) = o.trace
            && let Some(recorder) = &o.inner.spans
        {
            span.end = SystemTime::now();
            span.revision = o.revision;
            span.error_type = error_type;
            recorder.server(span);
        }
    }
}

impl Drop for RequestObs {
    fn drop(&mut self) {
        self.record(Some(Cow::Borrowed("cancelled")));
    }
}

/// The trace id of the current [`TraceScope`]'s span, when it has a valid one (for log
/// lines).
pub(crate) fn current_trace_id() -> Option<String> {
    TraceScope::with_current(|s| spans::trace_id_of(&s.context))
        .flatten()
        .map(|t| t.to_string())
}

/// `map[key]`. A request's `params` and its `_meta` have a few members, and comparing
/// their keys costs a fraction of hashing `key` with the map's SipHash (about 230
/// instructions a lookup, on the request path); a larger map is looked up by its hash.
fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    const SCAN: usize = 8;
    if map.len() <= SCAN {
        map.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        map.get(key)
    }
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The span recorder, feeding a batch span processor that sends OTLP/HTTP protobuf to
/// `endpoint` + `/v1/traces` (or where the exporter's environment variables say).
/// The processor and its exporter are built on the recorder's thread, so the threads
/// they start (the batch processor's, the exporter's HTTP client's) run at its low
/// priority ([`spans::NICE`]).
fn tracing_pipeline(endpoint: Option<&str>) -> Result<spans::Recorder, TelemetryError> {
    let endpoint = endpoint.map(|url| format!("{}/v1/traces", url.trim_end_matches('/')));
    spans::Recorder::start(move || batch_processor(endpoint), queue_size())
        .map_err(TelemetryError::Exporter)
}

/// The SDK's batch span processor with its OTLP/HTTP protobuf exporter to `endpoint`
/// (else where the exporter's environment variables say) and the resource.
fn batch_processor(
    endpoint: Option<String>,
) -> Result<opentelemetry_sdk::trace::BatchSpanProcessor, String> {
    use opentelemetry_otlp::WithExportConfig as _;
    use opentelemetry_sdk::trace::SpanProcessor as _;
    // reqwest is built with rustls and no crypto provider of its own: the gateway's is
    // ring; make it the process default so the exporter's client can be built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
    if let Some(url) = endpoint {
        builder = builder.with_endpoint(url);
    }
    let exporter = builder.build().map_err(|e| e.to_string())?;
    let mut resource = opentelemetry_sdk::Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none_or(|v| v.is_empty()) {
        resource = resource.with_service_name(DEFAULT_SERVICE_NAME);
    }
    let mut processor = opentelemetry_sdk::trace::BatchSpanProcessor::builder(exporter)
        .with_batch_config(batch_config())
        .build();
    processor.set_resource(&resource.build());
    Ok(processor)
}

/// The batch processor's queue size (`OTEL_BSP_MAX_QUEUE_SIZE` when set, else
/// [`BATCH_QUEUE`]), which the recorder's buffers hold together.
fn queue_size() -> usize {
    std::env::var(opentelemetry_sdk::trace::OTEL_BSP_MAX_QUEUE_SIZE)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BATCH_QUEUE)
}

/// The batch span processor's settings: the `OTEL_BSP_*` environment variables when
/// set, else batches of up to 2,048 spans in a queue of 8,192, sent every 5 s. The SDK's
/// default batch (512) meant an export every 256 calls at a few thousand calls/s: the
/// exporter's thread woke that often to encode and post on cores the server needs.
fn batch_config() -> opentelemetry_sdk::trace::BatchConfig {
    use opentelemetry_sdk::trace::{
        BatchConfigBuilder, OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_MAX_QUEUE_SIZE,
    };
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    let mut b = BatchConfigBuilder::default();
    if !set(OTEL_BSP_MAX_QUEUE_SIZE) {
        b = b.with_max_queue_size(BATCH_QUEUE);
    }
    if !set(OTEL_BSP_MAX_EXPORT_BATCH_SIZE) {
        b = b.with_max_export_batch_size(BATCH_SIZE);
    }
    b.build()
}

/// The default batch span processor queue and batch sizes (see [`batch_config`]).
const BATCH_QUEUE: usize = 8192;
const BATCH_SIZE: usize = 2048;

/// `GET /metrics` until the process ends.
async fn metrics_listener(tel: Telemetry, listener: std::net::TcpListener) {
    use bytes::Bytes;
    use http_body_util::Full;
    use hyper::{Method, Response, StatusCode};
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(
                move |req: hyper::Request<hyper::body::Incoming>| async move {
                    let resp = if req.uri().path() != "/metrics" {
                        Response::builder()
                            .status(StatusCode::NOT_FOUND)
                            .body(Full::new(Bytes::from_static(
                                b"Not Found: metrics are at /metrics\n",
                            )))
                    } else if req.method() != Method::GET && req.method() != Method::HEAD {
                        Response::builder()
                            .status(StatusCode::METHOD_NOT_ALLOWED)
                            .header("Allow", "GET, HEAD")
                            .body(Full::new(Bytes::new()))
                    } else {
                        Response::builder()
                            .header(
                                "Content-Type",
                                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                            )
                            .body(Full::new(Bytes::from(
                                tel.encode_metrics().unwrap_or_default(),
                            )))
                    };
                    Ok::<_, std::convert::Infallible>(resp.unwrap_or_default())
                },
            );
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                .await;
        });
    }
}

#[cfg(test)]
mod tests_mutants;

#[cfg(test)]
mod tests {
    use super::*;

    /// Without `OTEL_BSP_*` in the environment (no test sets them), the batch span
    /// processor queues 8,192 spans and exports up to 2,048 at a time, not the SDK's
    /// 2,048 and 512.
    #[test]
    fn the_batch_processor_defaults_are_ours() {
        let config = format!("{:?}", batch_config());
        assert!(config.contains("max_queue_size: 8192"), "{config}");
        assert!(config.contains("max_export_batch_size: 2048"), "{config}");
    }

    #[test]
    fn methods_and_names_are_bounded() {
        let t = Telemetry::metrics_only();
        let id = RequestId::Number("1".into());
        let obs = t.request("x/".repeat(100).as_str(), &id, None, None);
        assert_eq!(obs.0.as_ref().map(|o| o.method), Some("_OTHER"));
        obs.finish(Some("-32601".into()));
        let text = t.encode_metrics().unwrap_or_default();
        assert!(text.contains("mcp_method_name=\"_OTHER\""), "{text}");
        assert!(!text.contains("x/x/"), "{text}");
        assert!(!text.contains("cancelled"), "{text}");
    }

    #[test]
    fn dropping_an_unfinished_request_counts_it_cancelled() {
        let t = Telemetry::metrics_only();
        let id = RequestId::Number("1".into());
        drop(t.request("ping", &id, None, None));
        let text = t.encode_metrics().unwrap_or_default();
        assert!(text.contains("error_type=\"cancelled\""), "{text}");
        assert!(text.contains("mcp_server_requests_in_flight 0"), "{text}");
    }

    /// The `_count` of the `tools/call` series of `tool` in `text`, and the upstream
    /// series' (hand-written label sets: what the OpenMetrics encoder must print).
    fn counts(text: &str, tool: &str) -> (Option<u64>, Option<u64>) {
        let find = |prefix: String| {
            text.lines()
                .find_map(|l| l.strip_prefix(prefix.as_str()))
                .and_then(|v| v.trim().parse().ok())
        };
        (
            find(format!(
                "mcp_server_operation_duration_seconds_count{{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"{tool}\"}} "
            )),
            find(format!(
                "http_client_request_duration_seconds_count{{gen_ai_tool_name=\"{tool}\",http_request_method=\"GET\",http_response_status_code=\"200\"}} "
            )),
        )
    }

    /// A scrape of `t` counts `n` calls of `tool`, in both histograms.
    fn assert_counted(t: Telemetry, tool: &str, n: usize) {
        let n = u64::try_from(n).ok();
        let text = t.encode_metrics().unwrap_or_default();
        assert_eq!(counts(&text, tool), (n, n), "{text}");
    }

    fn call(t: &Telemetry, tool: &str) {
        let id = RequestId::Number("1".into());
        let params = serde_json::json!({ "name": tool });
        t.request("tools/call", &id, params.as_object(), None)
            .finish(None);
        t.upstream(
            tool,
            &mcpdesc_rest::call::UpstreamLog {
                method: "GET".into(),
                status: Some(200),
                url: "http://127.0.0.1/pets".into(),
                latency: Duration::from_millis(3),
                attempts: 1,
            },
        );
    }

    /// Observations wait in the request threads' buffers; a scrape applies them first,
    /// so it counts every call made before it, from any thread, and more calls than the
    /// buffers hold (a full buffer's thread applies its own).
    #[test]
    fn a_scrape_counts_every_call_before_it() {
        let t = Telemetry::metrics_only();
        call(&t, "get_pet");
        assert_counted(t, "get_pet", 1);
        let n = PENDING_OBSERVATIONS + 100;
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| (0..n).for_each(|_| call(&t, "list_pets")));
            }
        });
        let m = t.metrics().expect("metrics");
        assert!(
            m.pending.waiting() > 0,
            "observations wait for the metrics thread"
        );
        assert_counted(t, "list_pets", 3 * n);
    }

    /// A buffer at half its capacity wakes the metrics thread, and its task applies what
    /// waits without a scrape.
    #[test]
    fn a_half_full_buffer_wakes_the_metrics_thread() {
        let t = Telemetry::metrics_only();
        let m = t.metrics().expect("metrics");
        let half = m.pending.capacity.div_ceil(2);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let woken =
                tokio::spawn(async move { t.metrics().expect("metrics").wake.notified().await });
            tokio::task::yield_now().await;
            // Each call pushes two observations from this thread.
            (0..half.div_ceil(2)).for_each(|_| call(&t, "get_pet"));
            tokio::time::timeout(Duration::from_secs(60), woken)
                .await
                .expect("woken at half full")
                .expect("task");
            let pending = || m.pending.waiting();
            assert!(pending() >= half);
            // The task, woken, applies them (a task of this thread: it runs as this
            // one yields).
            let task = tokio::spawn(apply_observations(t));
            m.wake.notify_one();
            for _ in 0..10_000 {
                if pending() == 0 {
                    break;
                }
                tokio::task::yield_now().await;
            }
            assert_eq!(pending(), 0, "applied by the metrics thread's task");
            task.abort();
        });
        assert_counted(t, "get_pet", half.div_ceil(2));
    }

    /// The in-flight gauge counts a request from its start to its end, whichever threads
    /// start and end it (each counts in its own slot; a scrape sums them).
    #[test]
    fn in_flight_counts_requests_started_and_ended_on_any_thread() {
        let t = Telemetry::metrics_only();
        let id = RequestId::Number("1".into());
        let gauge = || {
            let text = t.encode_metrics().unwrap_or_default();
            text.lines()
                .find_map(|l| l.strip_prefix("mcp_server_requests_in_flight "))
                .and_then(|v| v.trim().parse::<i64>().ok())
        };
        let here = t.request("ping", &id, None, None);
        let there = std::thread::scope(|s| {
            s.spawn(|| t.request("ping", &id, None, None))
                .join()
                .expect("a thread")
        });
        assert_eq!(gauge(), Some(2));
        there.finish(None);
        assert_eq!(gauge(), Some(1));
        let ended_elsewhere = std::thread::scope(|s| s.spawn(move || here.finish(None)).join());
        assert!(ended_elsewhere.is_ok());
        assert_eq!(gauge(), Some(0));
    }

    /// A member is found by scanning a small map and by hash in a large one, and a
    /// missing one is missing either way.
    #[test]
    fn a_field_is_found_in_small_and_large_maps() {
        for size in [0, 1, 8, 9, 40] {
            let mut m = Map::new();
            for i in 0..size {
                m.insert(format!("k{i}"), Value::from(i));
            }
            for i in 0..size {
                assert_eq!(field(&m, &format!("k{i}")), Some(&Value::from(i)), "{size}");
            }
            assert_eq!(field(&m, "k"), None);
            assert_eq!(field(&m, &format!("k{size}")), None);
        }
    }

    #[test]
    fn off_records_nothing() {
        let t = Telemetry::default();
        t.record_rate_limited();
        t.record_auth_failure("missing_token");
        assert!(t.encode_metrics().is_none());
    }
}
