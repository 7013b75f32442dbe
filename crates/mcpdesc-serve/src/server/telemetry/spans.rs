//! The span recorder: what a traced MCP request costs on its own path is a sampling
//! decision, two span ids, four clock readings and one small record per span, pushed
//! to the thread's buffer. Building the OpenTelemetry spans (names, attribute lists, `SpanData`) and
//! exporting them (the SDK's `BatchSpanProcessor` and the OTLP/HTTP exporter) happen on
//! the recorder's thread.
//!
//! Why not the SDK's tracer on the request path: each of its spans cost about 1,500–2,000
//! instructions there (builder, attribute list, `Arc`, end), and the span's memory,
//! allocated by a tokio worker, was freed by the exporter's thread, which the allocator
//! pays for again on the worker (PERFORMANCE.md, issue 29). Here a record holds only
//! what varies per request, its strings in place ([`InlineText`]) unless they are long;
//! everything else is built and freed on the recorder's thread.
//!
//! What stays the SDK's: the sampler (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`,
//! by default parent-based always-on), the random id generator, the batch span
//! processor with its `OTEL_BSP_*` settings, the resource (`OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`) and the OTLP encoding. The sampler is asked with the
//! parent context, the trace id, the method as the name and the SERVER kind; the
//! specification's samplers decide on the parent and the trace id alone.
//!
//! Records wait in a few buffers ([`Buffers`]), each a `Vec` behind a mutex of its own;
//! a thread always pushes to the same one. Together they hold as many spans as the batch
//! processor's queue; when a thread's buffer is full a span is dropped (counted, and
//! reported at shutdown), as the SDK's processor drops one. The recorder's thread swaps
//! each buffer for an empty one every [`TICK`], or when a buffer is half full.
//!
//! Why not a channel: a bounded channel's senders share its tail index and its slots, so
//! every record cost a request's thread a compare-and-swap and the cache lines another
//! core wrote last (`try_send` was the recorder's costliest symbol on a worker, about
//! 0.3 µs a record; PERFORMANCE.md, issue 29). A buffer of its own costs an uncontended
//! lock and a push onto memory the thread wrote itself.

use super::buffers::{Buffers, Pushed};
use mcpdesc_core::ProtocolRevision;
use mcpdesc_rest::trace::{ClientSpan, ClientSpans, InlineText};
use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt as _, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{Context, InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::{
    IdGenerator, SamplingDecision, ShouldSample, SpanData, SpanEvents, SpanLinks, SpanProcessor,
};
use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How often the recorder's thread drains the buffers when nothing wakes it.
const TICK: Duration = Duration::from_millis(200);

/// The longest JSON-RPC request id a record holds in place (longer ones are boxed):
/// mostly a few digits.
pub(super) const REQUEST_ID_INLINE: usize = 30;
/// The longest tool or prompt name a record holds in place: a host-safe tool name has
/// at most 64 characters, and most have far fewer.
pub(super) const TOOL_NAME_INLINE: usize = 62;
/// How long [`Recorder::flush`] and [`Recorder::shutdown`] wait for the thread.
const WAIT: Duration = Duration::from_secs(10);

/// A SERVER span: one MCP request.
#[derive(Debug)]
pub(super) struct ServerSpan {
    pub context: SpanContext,
    /// The caller's span, when the request continued a trace.
    pub parent: Option<SpanId>,
    pub start: SystemTime,
    pub end: SystemTime,
    /// One of the MCP methods, or `_OTHER`.
    pub method: &'static str,
    /// The tool or prompt named (`tools/call`, `prompts/get`).
    pub target: Option<InlineText<TOOL_NAME_INLINE>>,
    pub request_id: InlineText<REQUEST_ID_INLINE>,
    pub revision: Option<ProtocolRevision>,
    pub error_type: Option<Cow<'static, str>>,
    /// Attributes the sampler added (none for the specification's samplers).
    pub sampler_attributes: Vec<KeyValue>,
}

/// A span as buffered: by value, not boxed. A box allocated by a tokio worker and freed
/// by the recorder's thread cost the worker's allocator a remote free and a cold block
/// per span (PERFORMANCE.md, issue 29); the buffers keep their capacity.
#[derive(Debug)]
enum Record {
    Server(ServerSpan),
    Client(ClientSpan),
}

enum Control {
    Wake,
    Flush(SyncSender<()>),
    Shutdown(SyncSender<()>),
}

/// The decision for a new SERVER span: its context (sampled or not) and whether it is
/// recorded.
pub(super) struct Started {
    pub context: SpanContext,
    pub parent: Option<SpanId>,
    pub recorded: bool,
    pub sampler_attributes: Vec<KeyValue>,
}

/// The recorder: the request path's side (sampling, ids, the buffers) and the handle of
/// its thread.
pub(super) struct Recorder {
    sampler: Box<dyn ShouldSample>,
    /// The sampler is the default one, or `always_on`: a request that continues no
    /// trace is sampled without asking it (what it would answer).
    roots_sampled: bool,
    ids: Box<dyn IdGenerator>,
    buffers: Arc<Buffers<Record>>,
    control: SyncSender<Control>,
    dropped: AtomicU64,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Recorder {
    /// Starts the recorder's thread at the lowest scheduling priority
    /// ([`lower_priority`]). There it builds the processor with `build` (so the threads
    /// the processor and its exporter start inherit that priority), owns it and hands it
    /// the spans; `queue` records wait at most. `build`'s error is returned.
    pub fn start<P: SpanProcessor + 'static>(
        build: impl FnOnce() -> Result<P, String> + Send + 'static,
        queue: usize,
    ) -> Result<Recorder, String> {
        Recorder::start_with(build, Buffers::for_this_machine(queue))
    }

    fn start_with<P: SpanProcessor + 'static>(
        build: impl FnOnce() -> Result<P, String> + Send + 'static,
        buffers: Buffers<Record>,
    ) -> Result<Recorder, String> {
        let config = opentelemetry_sdk::trace::Config::default();
        let buffers = Arc::new(buffers);
        let (control, control_rx) = std::sync::mpsc::sync_channel(16);
        let (built, built_rx) = std::sync::mpsc::sync_channel(1);
        let thread = {
            let buffers = Arc::clone(&buffers);
            std::thread::Builder::new()
                .name("mcpdesc-spans".into())
                .spawn(move || {
                    lower_priority();
                    match build() {
                        Ok(processor) => {
                            let _ = built.send(Ok(()));
                            run(&processor, &buffers, &control_rx);
                        }
                        Err(e) => {
                            let _ = built.send(Err(e));
                        }
                    }
                })
                .map_err(|e| e.to_string())?
        };
        built_rx
            .recv()
            .map_err(|_| "the span recorder's thread ended while starting".to_string())??;
        Ok(Recorder {
            sampler: config.sampler,
            roots_sampled: roots_always_sampled(std::env::var("OTEL_TRACES_SAMPLER").ok()),
            ids: config.id_generator,
            buffers,
            control,
            dropped: AtomicU64::new(0),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// A SERVER span's start under `parent` (the caller's context, or an empty one): the
    /// sampler's decision, as the SDK's tracer makes it.
    pub fn start_server(&self, parent: &Context, method: &'static str) -> Started {
        let psc = parent.span().span_context().clone();
        if self.roots_sampled && !psc.is_valid() {
            return Started {
                context: SpanContext::new(
                    self.ids.new_trace_id(),
                    self.ids.new_span_id(),
                    TraceFlags::SAMPLED,
                    false,
                    TraceState::NONE,
                ),
                parent: None,
                recorded: true,
                sampler_attributes: Vec::new(),
            };
        }
        let (trace_id, parent_id) = if psc.is_valid() {
            (psc.trace_id(), Some(psc.span_id()))
        } else {
            (self.ids.new_trace_id(), None)
        };
        let decision =
            self.sampler
                .should_sample(Some(parent), trace_id, method, &SpanKind::Server, &[], &[]);
        let sampled = decision.decision == SamplingDecision::RecordAndSample;
        let flags = if decision.decision == SamplingDecision::Drop {
            TraceFlags::default()
        } else {
            psc.trace_flags().with_sampled(sampled)
        };
        Started {
            context: SpanContext::new(
                trace_id,
                self.ids.new_span_id(),
                flags,
                false,
                decision.trace_state,
            ),
            parent: parent_id,
            // A span recorded but not sampled is never exported (the batch processor
            // skips it), so it is not recorded at all.
            recorded: sampled,
            sampler_attributes: decision.attributes,
        }
    }

    /// Hands a finished SERVER span to the recorder's thread.
    pub fn server(&self, span: ServerSpan) {
        self.push(Record::Server(span));
    }

    fn push(&self, record: Record) {
        match self.buffers.push(record) {
            Pushed::Kept => {}
            Pushed::KeptHalfFull => {
                let _ = self.control.try_send(Control::Wake);
            }
            Pushed::Dropped => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Exports the spans ended so far; returns once the exporter has sent them (or after
    /// [`WAIT`]).
    pub fn flush(&self) {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        if self.control.send(Control::Flush(tx)).is_ok() {
            let _ = rx.recv_timeout(WAIT);
        }
    }

    /// Exports what is left and stops the thread and the exporter; later spans are
    /// dropped. Returns how many spans were dropped over the recorder's life because a
    /// buffer was full.
    pub fn shutdown(&self) -> u64 {
        let Some(thread) = self.thread.lock().ok().and_then(|mut t| t.take()) else {
            return self.dropped.load(Ordering::Relaxed);
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        if self.control.send(Control::Shutdown(tx)).is_ok() && rx.recv_timeout(WAIT).is_ok() {
            let _ = thread.join();
        }
        self.dropped.load(Ordering::Relaxed)
    }
}

impl ClientSpans for Recorder {
    fn new_span_id(&self) -> SpanId {
        self.ids.new_span_id()
    }

    fn record(&self, span: ClientSpan) {
        self.push(Record::Client(span));
    }
}

/// The recorder's thread: drains the buffers into `processor` on each tick, wake-up,
/// flush and shutdown (closing them first: later records are dropped).
fn run(processor: &dyn SpanProcessor, buffers: &Buffers<Record>, control: &Receiver<Control>) {
    let scopes = Scopes {
        server: InstrumentationScope::builder(super::SCOPE).build(),
        client: InstrumentationScope::builder(CLIENT_SCOPE).build(),
    };
    let mut spare = Vec::new();
    loop {
        let message = control.recv_timeout(TICK);
        let close = matches!(
            message,
            Ok(Control::Shutdown(_)) | Err(RecvTimeoutError::Disconnected)
        );
        buffers.drain(&mut spare, close, |record| {
            processor.on_end(scopes.span_data(record));
        });
        match message {
            Ok(Control::Wake) | Err(RecvTimeoutError::Timeout) => {}
            Ok(Control::Flush(done)) => {
                let _ = processor.force_flush();
                let _ = done.send(());
            }
            Ok(Control::Shutdown(done)) => {
                let _ = processor.shutdown_with_timeout(Duration::from_secs(5));
                let _ = done.send(());
                return;
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = processor.shutdown_with_timeout(Duration::from_secs(5));
                return;
            }
        }
    }
}

/// Whether the sampler `OTEL_TRACES_SAMPLER` names (`var`) samples every span that
/// continues no trace, whatever its trace id: the default (unset, parent-based always
/// on), `parentbased_always_on` and `always_on`. Other values, including those the SDK
/// falls back from to the default, leave the decision to the sampler.
fn roots_always_sampled(var: Option<String>) -> bool {
    var.is_none_or(|v| matches!(v.as_str(), "parentbased_always_on" | "always_on"))
}

/// The nice value of the threads that build and export spans: the lowest priority.
pub(super) const NICE: i32 = 19;

/// Lowers the calling thread's scheduling priority to [`NICE`] (Linux, where the nice
/// value is a thread's own and threads it starts inherit it; elsewhere nothing). Span
/// building, OTLP encoding (the SDK's, about 12,000 instructions a span) and export
/// come in bursts of a whole batch. At the default priority a burst held a core for
/// milliseconds, and a request's thread woken on that core waited behind it; at nice
/// 19 the request's thread preempts it. When the CPU is saturated the exporter falls
/// behind: its queue fills and spans are dropped (counted, reported at shutdown), as
/// the batch processor drops them, instead of calls waiting for telemetry.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        let _ = rustix::process::setpriority_process(Some(tid), NICE);
    }
}

/// The instrumentation scope of the gateway's CLIENT spans (the REST client's).
const CLIENT_SCOPE: &str = "mcpdesc-rest";

struct Scopes {
    server: InstrumentationScope,
    client: InstrumentationScope,
}

impl Scopes {
    fn span_data(&self, record: Record) -> SpanData {
        match record {
            Record::Server(s) => self.server_data(s),
            Record::Client(c) => self.client_data(c),
        }
    }

    /// A SERVER span as the MCP semantic conventions name it: `{mcp.method.name}
    /// {target}`, with `mcp.method.name`, `jsonrpc.request.id`, for `tools/call`
    /// `gen_ai.operation.name` = `execute_tool` and `gen_ai.tool.name` (for `prompts/get`
    /// `gen_ai.prompt.name`), then `mcp.protocol.version` and `error.type` when known.
    fn server_data(&self, s: ServerSpan) -> SpanData {
        let name: Cow<'static, str> = match &s.target {
            Some(t) => Cow::Owned(format!("{} {}", s.method, t.as_str())),
            None => Cow::Borrowed(s.method),
        };
        let mut attributes = Vec::with_capacity(6 + s.sampler_attributes.len());
        attributes.extend([
            KeyValue::new("mcp.method.name", s.method),
            KeyValue::new("jsonrpc.request.id", s.request_id.as_str().to_owned()),
        ]);
        match (s.method, s.target) {
            ("tools/call", target) => {
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                if let Some(t) = target {
                    attributes.push(KeyValue::new("gen_ai.tool.name", t.as_str().to_owned()));
                }
            }
            ("prompts/get", Some(t)) => {
                attributes.push(KeyValue::new("gen_ai.prompt.name", t.as_str().to_owned()));
            }
            _ => {}
        }
        attributes.extend(s.sampler_attributes);
        if let Some(r) = s.revision {
            attributes.push(KeyValue::new("mcp.protocol.version", r.as_str()));
        }
        let status = match s.error_type {
            Some(e) => {
                attributes.push(KeyValue::new("error.type", e.clone()));
                Status::error(e)
            }
            None => Status::Unset,
        };
        SpanData {
            span_context: s.context,
            parent_span_id: s.parent.unwrap_or(SpanId::INVALID),
            parent_span_is_remote: s.parent.is_some(),
            span_kind: SpanKind::Server,
            name,
            start_time: s.start,
            end_time: s.end,
            attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status,
            instrumentation_scope: self.server.clone(),
        }
    }

    /// A CLIENT span (OpenTelemetry HTTP client conventions), named by its method.
    fn client_data(&self, c: ClientSpan) -> SpanData {
        let mut attributes = vec![
            KeyValue::new("http.request.method", c.method),
            KeyValue::new("url.full", c.url_full.as_str().to_owned()),
            KeyValue::new("server.address", c.server_address.as_str().to_owned()),
            KeyValue::new("server.port", i64::from(c.server_port)),
        ];
        let status = match c.status {
            Some(s) => {
                attributes.push(KeyValue::new("http.response.status_code", i64::from(s)));
                if s >= 400 {
                    attributes.push(KeyValue::new("error.type", s.to_string()));
                    Status::error("")
                } else {
                    Status::Unset
                }
            }
            None => {
                attributes.push(KeyValue::new("error.type", "no_response"));
                Status::error("no response")
            }
        };
        SpanData {
            span_context: c.context,
            parent_span_id: c.parent_span_id,
            parent_span_is_remote: false,
            span_kind: SpanKind::Client,
            name: Cow::Borrowed(c.method),
            start_time: c.start,
            end_time: c.end,
            attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status,
            instrumentation_scope: self.client.clone(),
        }
    }
}

/// The trace id a log line carries: the SERVER span's, when valid.
pub(super) fn trace_id_of(context: &SpanContext) -> Option<TraceId> {
    context.is_valid().then(|| context.trace_id())
}

#[cfg(test)]
mod tests {
    use super::super::buffers::MAX_BUFFERS;
    use super::*;
    use opentelemetry::Value;
    use opentelemetry::trace::{TraceFlags, TraceState};
    use opentelemetry_sdk::error::OTelSdkResult;

    /// A span processor that keeps what it is given.
    #[derive(Debug, Clone, Default)]
    struct Kept(Arc<Mutex<Vec<SpanData>>>);

    impl SpanProcessor for Kept {
        fn on_start(&self, _: &mut opentelemetry_sdk::trace::Span, _: &Context) {}
        fn on_end(&self, span: SpanData) {
            self.0.lock().expect("lock").push(span);
        }
        fn force_flush(&self) -> OTelSdkResult {
            Ok(())
        }
        fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
            Ok(())
        }
    }

    fn attrs(span: &SpanData) -> Vec<(String, Value)> {
        span.attributes
            .iter()
            .map(|kv| (kv.key.to_string(), kv.value.clone()))
            .collect()
    }

    fn remote(flags: TraceFlags) -> Context {
        Context::new().with_remote_span_context(SpanContext::new(
            TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128),
            SpanId::from(0x00f0_67aa_0ba9_02b7_u64),
            flags,
            true,
            TraceState::NONE,
        ))
    }

    /// The processor is built on the recorder's thread: what `build` returns is what the
    /// recorder owns, its error is `start`'s, and (Linux) it and the threads it starts
    /// run at nice 19 while the caller's priority stays as it was.
    #[test]
    fn the_processor_is_built_on_the_low_priority_thread() {
        let failed = Recorder::start(|| Err::<Kept, _>("no exporter".to_string()), 8);
        assert_eq!(failed.err(), Some("no exporter".to_string()));
        #[cfg(target_os = "linux")]
        {
            use rustix::process::getpriority_process;
            use rustix::thread::gettid;
            let nice = || getpriority_process(Some(gettid())).expect("getpriority");
            let caller = nice();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let r = Recorder::start(
                {
                    let seen = Arc::clone(&seen);
                    move || {
                        let child = std::thread::spawn(nice).join().expect("joins");
                        seen.lock().expect("lock").extend([nice(), child]);
                        Ok(Kept::default())
                    }
                },
                8,
            )
            .expect("starts");
            assert_eq!(*seen.lock().expect("lock"), [NICE, NICE]);
            assert_eq!(nice(), caller);
            r.shutdown();
        }
    }

    /// The default sampler (parent-based, always on; no `OTEL_TRACES_SAMPLER` is set in
    /// tests): a sampled caller's trace is continued and recorded, an unsampled one is
    /// continued and not recorded (flags `00`), and without a caller a new trace starts,
    /// recorded. Each gets a span id of its own.
    #[test]
    fn the_sampler_decides_as_the_sdks_tracer_does() {
        let r = Recorder::start(|| Ok(Kept::default()), 8).expect("starts");
        let sampled = r.start_server(&remote(TraceFlags::SAMPLED), "tools/call");
        assert!(sampled.recorded && sampled.context.is_sampled());
        assert_eq!(
            sampled.context.trace_id(),
            TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736_u128)
        );
        assert_eq!(
            sampled.parent,
            Some(SpanId::from(0x00f0_67aa_0ba9_02b7_u64))
        );
        assert_ne!(
            sampled.context.span_id(),
            SpanId::from(0x00f0_67aa_0ba9_02b7_u64)
        );
        let unsampled = r.start_server(&remote(TraceFlags::default()), "tools/call");
        assert!(!unsampled.recorded && !unsampled.context.is_sampled());
        assert!(unsampled.context.is_valid());
        let root = r.start_server(&Context::new(), "ping");
        assert!(root.recorded && root.context.is_valid() && root.parent.is_none());
        r.shutdown();
    }

    /// What reaches the processor: a SERVER span named `tools/call get_pet` under the
    /// caller's span (remote) with the MCP attributes in order and an error status, and a
    /// CLIENT span of a 404 named `GET` with the HTTP client attributes and `error.type`
    /// = `404` (OpenTelemetry HTTP semantic conventions: the status code as a string).
    #[test]
    fn spans_reach_the_processor_as_the_conventions_name_them() {
        let kept = Kept::default();
        let r = Recorder::start(
            {
                let kept = kept.clone();
                move || Ok(kept)
            },
            8,
        )
        .expect("starts");
        let started = r.start_server(&remote(TraceFlags::SAMPLED), "tools/call");
        let t0 = SystemTime::now();
        r.server(ServerSpan {
            context: started.context.clone(),
            parent: started.parent,
            start: t0,
            end: t0 + Duration::from_millis(3),
            method: "tools/call",
            target: Some("get_pet".into()),
            request_id: "7".into(),
            revision: ProtocolRevision::parse("2026-07-28"),
            error_type: Some(Cow::Borrowed("tool_error")),
            sampler_attributes: Vec::new(),
        });
        r.record(ClientSpan {
            context: SpanContext::new(
                started.context.trace_id(),
                SpanId::from(9),
                TraceFlags::SAMPLED,
                false,
                TraceState::NONE,
            ),
            parent_span_id: started.context.span_id(),
            start: t0,
            end: t0 + Duration::from_millis(1),
            method: "GET",
            url_full: "http://127.0.0.1:8080/pets/1".into(),
            server_address: "127.0.0.1".into(),
            server_port: 8080,
            status: Some(404),
        });
        r.flush();
        let spans = kept.0.lock().expect("lock").clone();
        let [server, client] = spans.as_slice() else {
            panic!("two spans, not {spans:#?}")
        };
        assert_eq!(server.name, "tools/call get_pet");
        assert_eq!(server.span_kind, SpanKind::Server);
        assert_eq!(
            server.parent_span_id,
            SpanId::from(0x00f0_67aa_0ba9_02b7_u64)
        );
        assert!(server.parent_span_is_remote);
        assert_eq!(server.instrumentation_scope.name(), "mcpdesc-serve");
        assert_eq!(server.status, Status::error("tool_error"));
        assert_eq!(
            attrs(server),
            [
                ("mcp.method.name", Value::from("tools/call")),
                ("jsonrpc.request.id", Value::from("7")),
                ("gen_ai.operation.name", Value::from("execute_tool")),
                ("gen_ai.tool.name", Value::from("get_pet")),
                ("mcp.protocol.version", Value::from("2026-07-28")),
                ("error.type", Value::from("tool_error")),
            ]
            .map(|(k, v)| (k.to_string(), v))
        );
        assert_eq!(client.name, "GET");
        assert_eq!(client.span_kind, SpanKind::Client);
        assert_eq!(client.parent_span_id, started.context.span_id());
        assert!(!client.parent_span_is_remote);
        assert_eq!(client.instrumentation_scope.name(), "mcpdesc-rest");
        assert_eq!(client.status, Status::error(""));
        assert_eq!(
            attrs(client),
            [
                ("http.request.method", Value::from("GET")),
                ("url.full", Value::from("http://127.0.0.1:8080/pets/1")),
                ("server.address", Value::from("127.0.0.1")),
                ("server.port", Value::from(8080_i64)),
                ("http.response.status_code", Value::from(404_i64)),
                ("error.type", Value::from("404")),
            ]
            .map(|(k, v)| (k.to_string(), v))
        );
        assert_eq!(r.shutdown(), 0);
    }

    /// A CLIENT span's outcome (OpenTelemetry HTTP semantic conventions): a status
    /// below 400 is the status code alone and leaves the status unset; no response is
    /// `error.type` = `no_response` and an error status, without a status code.
    #[test]
    fn a_client_spans_outcome_follows_the_http_conventions() {
        let scopes = Scopes {
            server: InstrumentationScope::builder("s").build(),
            client: InstrumentationScope::builder("c").build(),
        };
        let span = |status| ClientSpan {
            context: SpanContext::empty_context(),
            parent_span_id: SpanId::from(1),
            start: SystemTime::UNIX_EPOCH,
            end: SystemTime::UNIX_EPOCH,
            method: "POST",
            url_full: "https://api.example.com/x".into(),
            server_address: "api.example.com".into(),
            server_port: 443,
            status,
        };
        let ok = scopes.client_data(span(Some(201)));
        assert_eq!(ok.status, Status::Unset);
        assert_eq!(
            attrs(&ok)[4..],
            [(
                "http.response.status_code".to_string(),
                Value::from(201_i64)
            )]
        );
        let none = scopes.client_data(span(None));
        assert_eq!(none.status, Status::error("no response"));
        assert_eq!(
            attrs(&none)[4..],
            [("error.type".to_string(), Value::from("no_response"))]
        );
    }

    /// Without a trace to continue, the default sampler (and `always_on`) samples every
    /// span: the recorder decides so without asking it. Asking it gives the same answer.
    #[test]
    fn a_root_span_is_sampled_with_or_without_asking_the_sampler() {
        for (var, expected) in [
            (None, true),
            (Some("parentbased_always_on"), true),
            (Some("always_on"), true),
            (Some("parentbased_always_off"), false),
            (Some("always_off"), false),
            (Some("traceidratio"), false),
            (Some("parentbased_traceidratio"), false),
            (Some(""), false),
        ] {
            assert_eq!(
                roots_always_sampled(var.map(str::to_string)),
                expected,
                "{var:?}"
            );
        }
        let mut r = Recorder::start(|| Ok(Kept::default()), 8).expect("starts");
        for asked in [false, true] {
            r.roots_sampled = !asked;
            let root = r.start_server(&Context::new(), "tools/call");
            assert!(root.recorded && root.context.is_sampled(), "{asked}");
            assert!(root.context.is_valid() && root.parent.is_none(), "{asked}");
            assert!(!root.context.is_remote() && root.sampler_attributes.is_empty());
            assert_eq!(root.context.trace_state().header(), "");
        }
        r.shutdown();
    }

    fn record(id: &str) -> Record {
        Record::Server(ServerSpan {
            context: SpanContext::empty_context(),
            parent: None,
            start: SystemTime::UNIX_EPOCH,
            end: SystemTime::UNIX_EPOCH,
            method: "ping",
            target: None,
            request_id: id.into(),
            revision: None,
            error_type: None,
            sampler_attributes: Vec::new(),
        })
    }

    fn ids(buffers: &Buffers<Record>, close: bool) -> Vec<String> {
        let mut out = Vec::new();
        buffers.drain(&mut Vec::new(), close, |r| match r {
            Record::Server(s) => out.push(s.request_id.as_str().to_string()),
            Record::Client(_) => out.push("client".into()),
        });
        out
    }

    /// A buffer keeps its capacity's records in order, asks for a drain when it is half
    /// full (once), drops what comes when it is full, takes records again once drained,
    /// and none once closed.
    #[test]
    fn a_buffer_holds_its_share_and_drops_the_rest() {
        let buffers = Buffers::new(4, 1);
        let pushed: Vec<Pushed> = ["1", "2", "3", "4", "5"]
            .into_iter()
            .map(|id| buffers.push(record(id)))
            .collect();
        assert_eq!(
            pushed,
            [
                Pushed::Kept,
                Pushed::KeptHalfFull,
                Pushed::Kept,
                Pushed::Kept,
                Pushed::Dropped
            ]
        );
        assert_eq!(ids(&buffers, false), ["1", "2", "3", "4"]);
        assert_eq!(buffers.push(record("6")), Pushed::Kept);
        assert_eq!(ids(&buffers, true), ["6"]);
        assert_eq!(buffers.push(record("7")), Pushed::Dropped);
        assert!(ids(&buffers, false).is_empty());
    }

    /// The total is shared out over the buffers (rounded up, at least one record each,
    /// at least one buffer and at most [`MAX_BUFFERS`]), and a thread always pushes to
    /// the same buffer.
    #[test]
    fn buffers_share_out_the_total_and_a_thread_keeps_its_buffer() {
        for (total, count, buffers, capacity) in [
            (8192, 4, 4, 2048),
            (10, 4, 4, 3),
            (5, 0, 1, 5),
            (0, 2, 2, 1),
            (8192, 1000, MAX_BUFFERS, 128),
        ] {
            let b = Buffers::<Record>::new(total, count);
            assert_eq!((b.buffers.len(), b.capacity), (buffers, capacity));
        }
        let b = Arc::new(Buffers::new(160, 8));
        let fill = |b: Arc<Buffers<Record>>| {
            move || {
                for i in 0..5 {
                    assert_ne!(b.push(record(&i.to_string())), Pushed::Dropped);
                }
            }
        };
        std::thread::spawn(fill(Arc::clone(&b)))
            .join()
            .expect("joins");
        std::thread::spawn(fill(Arc::clone(&b)))
            .join()
            .expect("joins");
        let mut lengths: Vec<usize> = b
            .buffers
            .iter()
            .map(|x| Buffers::lock(x).items.len())
            .filter(|n| *n > 0)
            .collect();
        lengths.sort_unstable();
        // Each thread's five records in one buffer: two of five, or (slots eight
        // apart) one of ten.
        assert!(lengths == [5, 5] || lengths == [10], "{lengths:?}");
    }

    /// A buffer that turns half full asks the recorder's thread to drain it (once, not
    /// again for the records after it); a dropped record is counted.
    #[test]
    fn a_half_full_buffer_wakes_the_recorder_and_a_full_one_counts_drops() {
        let config = opentelemetry_sdk::trace::Config::default();
        let (control, woken) = std::sync::mpsc::sync_channel(16);
        let r = Recorder {
            sampler: config.sampler,
            roots_sampled: true,
            ids: config.id_generator,
            buffers: Arc::new(Buffers::new(4, 1)),
            control,
            dropped: AtomicU64::new(0),
            thread: Mutex::new(None),
        };
        r.server(match record("1") {
            Record::Server(s) => s,
            Record::Client(_) => unreachable!(),
        });
        assert!(woken.try_recv().is_err(), "woken after one record of four");
        for id in ["2", "3", "4", "5"] {
            if let Record::Server(s) = record(id) {
                r.server(s);
            }
        }
        assert!(matches!(woken.try_recv(), Ok(Control::Wake)));
        assert!(woken.try_recv().is_err(), "woken twice");
        assert_eq!(r.dropped.load(Ordering::Relaxed), 1);
    }

    /// Two buffers per core, at most [`MAX_BUFFERS`]; this machine's cores are the
    /// available parallelism.
    #[test]
    fn a_machine_gets_two_buffers_a_core() {
        for (cores, buffers) in [(1, 2), (3, 6), (32, 64), (48, 64)] {
            assert_eq!(
                Buffers::<Record>::for_cores(8192, cores).buffers.len(),
                buffers
            );
        }
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let b = Buffers::<Record>::for_this_machine(8192);
        assert_eq!(b.buffers.len(), (2 * cores).min(MAX_BUFFERS));
        assert_eq!(b.capacity, 8192_usize.div_ceil(b.buffers.len()));
    }

    /// A `prompts/get` SERVER span names its prompt (`gen_ai.prompt.name`) and no
    /// operation; a method without a target is named by the method alone.
    #[test]
    fn prompt_and_plain_server_spans_are_named_by_their_method() {
        let scopes = Scopes {
            server: InstrumentationScope::builder("s").build(),
            client: InstrumentationScope::builder("c").build(),
        };
        let span = |method, target: Option<&str>| ServerSpan {
            context: SpanContext::empty_context(),
            parent: None,
            start: SystemTime::UNIX_EPOCH,
            end: SystemTime::UNIX_EPOCH,
            method,
            target: target.map(InlineText::from),
            request_id: "1".into(),
            revision: None,
            error_type: None,
            sampler_attributes: Vec::new(),
        };
        let prompt = scopes.server_data(span("prompts/get", Some("review")));
        assert_eq!(prompt.name, "prompts/get review");
        assert_eq!(
            attrs(&prompt)[2..],
            [("gen_ai.prompt.name".to_string(), Value::from("review"))]
        );
        assert_eq!(prompt.status, Status::Unset);
        assert!(!prompt.parent_span_is_remote);
        let ping = scopes.server_data(span("ping", None));
        assert_eq!((ping.name.as_ref(), attrs(&ping).len()), ("ping", 2));
    }

    /// After shutdown a span has nowhere to go: it is counted as dropped, not queued.
    #[test]
    fn spans_after_shutdown_are_counted_dropped() {
        let r = Recorder::start(|| Ok(Kept::default()), 8).expect("starts");
        assert_eq!(r.shutdown(), 0);
        let started = r.start_server(&Context::new(), "ping");
        r.server(ServerSpan {
            context: started.context,
            parent: None,
            start: SystemTime::now(),
            end: SystemTime::now(),
            method: "ping",
            target: None,
            request_id: "1".into(),
            revision: None,
            error_type: None,
            sampler_attributes: Vec::new(),
        });
        assert_eq!(r.shutdown(), 1);
    }
}
