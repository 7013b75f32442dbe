//! The code-mode sandbox: runs a model-written script (the body of an async function with `api`
//! in scope) in a fresh QuickJS-ng runtime, with only ECMAScript built-ins, a frozen `api` whose
//! functions ask a [`Host`] to perform tool calls, and a captured `console`.
//!
//! Design (see ARCHITECTURE.md, `crates/mcpdesc-sandbox`):
//! - the engine runs on its own OS thread, one per execution, with a stack sized from
//!   [`Limits::stack_bytes`]; the runtime is created there and dropped there, so nothing is shared
//!   between executions and every byte the script allocated is freed when it ends;
//! - [`execute`] is `async`: it performs the host calls on the caller's tokio runtime (in a
//!   `JoinSet`, aborted when the execution ends) and hands results back to the engine thread over
//!   a channel, so a slow upstream never blocks an executor thread and the engine never needs a
//!   `Send` runtime;
//! - every limit ends the execution with a [`ScriptError`]; the interrupt handler stops code that
//!   never yields (wall time, or a limit hit inside an `api` call that the script caught).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::function::{Opt, Rest};
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Exception, Function, Object, Persistent, Promise, Runtime, Value};
use serde_json::Value as Json;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

/// A boxed, sendable future (the shape [`Host::call`] returns).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What `api.<name>(args)` does: the host validates and performs the call. `Err` carries the
/// tool error's text; the script sees it as a rejected promise with an `Error` of that message.
pub trait Host: Send + Sync {
    fn call(&self, tool: &str, args: Json) -> BoxFuture<'_, Result<Json, String>>;
}

/// The limits of one execution. Every one is enforced; hitting any ends the execution with a
/// [`ScriptError`] of the matching [`ErrorKind`].
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall time from the start of the execution to its end, host calls included.
    pub wall: Duration,
    /// The engine's heap limit (QuickJS `JS_SetMemoryLimit`). Unlike QuickJS, 0 is not
    /// "unlimited": there is no way to turn a limit off.
    pub memory_bytes: usize,
    /// The engine's stack limit (QuickJS `JS_SetMaxStackSize`); the engine thread gets this plus
    /// a fixed headroom for the Rust frames around it.
    pub stack_bytes: usize,
    /// `api` calls per execution; the host never sees more.
    pub max_calls: usize,
    /// `api` calls in flight at once; further calls wait in order.
    pub max_concurrent_calls: usize,
    /// Bytes of the returned value as JSON, and (separately) of all log lines together.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(10),
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 1024 * 1024,
            max_calls: 50,
            max_concurrent_calls: 8,
            max_output_bytes: 1024 * 1024,
        }
    }
}

/// Headroom on the engine thread's stack above `stack_bytes`, for the Rust and C frames that
/// QuickJS's own stack check does not count (our closures, serde_json, the allocator).
const STACK_HEADROOM: usize = 2 * 1024 * 1024;
/// After the wall time, how long `execute` waits for the engine thread to notice before it gives
/// up on it (the interrupt handler normally stops it within microseconds).
const GRACE: Duration = Duration::from_secs(2);
/// Engine threads still running after `execute` gave up on them (see [`stuck_engines`]).
static STUCK: AtomicUsize = AtomicUsize::new(0);
/// While this many engine threads are stuck, `execute` refuses to start another (fail closed:
/// each one may hold a core until its builtin ends).
pub const MAX_STUCK_ENGINES: usize = 2;

/// Engine threads that outlived their execution's wall time plus grace: QuickJS polls its
/// interrupt handler in the interpreter loop, not inside every builtin, so a builtin walking a
/// huge array-like without allocating (`Array.prototype.indexOf.call({length: 2**40}, 1)`)
/// runs on after `execute` has returned `Timeout`. Each thread is counted until it ends.
pub fn stuck_engines() -> usize {
    STUCK.load(Ordering::SeqCst)
}

/// Bytes of a thrown message kept in [`ScriptError::message`] (the rest is cut with a note).
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// The longest wall time honoured (a larger `Limits::wall` is cut to this).
const MAX_WALL: Duration = Duration::from_secs(24 * 60 * 60);

struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The file name the script's frames carry in stack traces.
const SCRIPT_FILE: &str = "script.js";
/// Lines the wrapper adds before the model's code (subtracted from reported lines).
const WRAPPER_LINES: u32 = 1;

/// One `api` call as the host performed it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    pub tool: String,
    /// The host returned `Err`, or the call was still running when the execution ended.
    pub is_error: bool,
    pub ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The script threw (or its promise rejected), or did not compile.
    Exception,
    Timeout,
    Memory,
    Stack,
    CallLimit,
    OutputLimit,
    /// The script's promise can never settle: nothing is queued and no call is in flight.
    Unsettled,
    /// The sandbox itself failed (engine or thread could not start).
    Internal,
}

/// Stable, machine-readable ids (`structured_content`'s `error.kind`).
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Exception => "exception",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Memory => "memory",
            ErrorKind::Stack => "stack",
            ErrorKind::CallLimit => "call_limit",
            ErrorKind::OutputLimit => "output_limit",
            ErrorKind::Unsettled => "unsettled",
            ErrorKind::Internal => "internal",
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    pub kind: ErrorKind,
    pub message: String,
    /// 1-based line in the model's code (wrapper lines accounted for), when known.
    pub line: Option<u32>,
    /// 1-based column, when known.
    pub column: Option<u32>,
}

impl ScriptError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ScriptError {
            kind,
            message: message.into(),
            line: None,
            column: None,
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, " (line {l}:{c})")?;
        }
        Ok(())
    }
}

/// The result of one execution. `result` is the returned value as JSON (`None` on error, except
/// for [`ErrorKind::OutputLimit`], where it holds the cut JSON text with a note).
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub result: Option<Json>,
    pub logs: Vec<String>,
    pub calls: Vec<CallRecord>,
    pub error: Option<ScriptError>,
}

impl Outcome {
    /// The execution as the issue's `structuredContent`: `{"result", "logs", "calls": [{"tool",
    /// "isError", "ms"}]}`, plus `"error": {"kind", "message", "line", "column"}` when it failed
    /// (the caller sets the tool result's `isError` from [`Outcome::is_error`]).
    pub fn structured_content(&self) -> Json {
        let mut out = serde_json::Map::new();
        out.insert("result".into(), self.result.clone().unwrap_or(Json::Null));
        out.insert(
            "logs".into(),
            Json::Array(self.logs.iter().cloned().map(Json::String).collect()),
        );
        out.insert(
            "calls".into(),
            Json::Array(
                self.calls
                    .iter()
                    .map(|c| serde_json::json!({"tool": c.tool, "isError": c.is_error, "ms": c.ms}))
                    .collect(),
            ),
        );
        if let Some(e) = &self.error {
            out.insert(
                "error".into(),
                serde_json::json!({
                    "kind": e.kind.to_string(),
                    "message": e.message,
                    "line": e.line,
                    "column": e.column,
                }),
            );
        }
        Json::Object(out)
    }

    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }
}

struct CallRequest {
    id: u64,
    tool: String,
    args: Json,
}

struct CallResponse {
    id: u64,
    result: Result<Json, String>,
}

struct EngineOutcome {
    result: Option<Json>,
    error: Option<ScriptError>,
}

/// The log lines, shared with `execute` so that they survive an engine thread it abandons.
type Logs = Arc<Mutex<Vec<String>>>;

fn take_logs(logs: &Logs) -> Vec<String> {
    std::mem::take(&mut *logs.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Runs `code` (the body of an async function; `api` and `console` in scope) and returns what it
/// returned, logged and called. Must be called within a tokio runtime (host calls are spawned on
/// it). Never panics on any script.
pub async fn execute(
    code: &str,
    tool_names: &[String],
    host: Arc<dyn Host>,
    limits: &Limits,
) -> Outcome {
    if tokio::runtime::Handle::try_current().is_err() {
        return Outcome {
            error: Some(ScriptError::new(
                ErrorKind::Internal,
                "execute must run inside a tokio runtime (host calls are spawned on it)",
            )),
            ..Outcome::default()
        };
    }
    let stuck = stuck_engines();
    if stuck >= MAX_STUCK_ENGINES {
        return Outcome {
            error: Some(ScriptError::new(
                ErrorKind::Internal,
                format!(
                    "code execution is paused: {stuck} earlier scripts are still running inside an engine builtin past their wall time"
                ),
            )),
            ..Outcome::default()
        };
    }
    let start = Instant::now();
    // `Instant + Duration` panics on overflow; no execution needs more than a day.
    let deadline = start + limits.wall.min(MAX_WALL);
    let stop = Arc::new(AtomicBool::new(false));
    // If the caller drops this future (a cancelled request), the engine stops at its next
    // interrupt poll instead of running to its wall time.
    let _stop_on_drop = StopOnDrop(stop.clone());
    // Set by whichever comes first: the engine thread ending, or `execute` abandoning it.
    let settled = Arc::new(AtomicBool::new(false));
    let (req_tx, mut req_rx) = mpsc::unbounded_channel::<CallRequest>();
    let (resp_tx, resp_rx) = std_mpsc::channel::<CallResponse>();
    let (done_tx, mut done_rx) = oneshot::channel::<EngineOutcome>();
    let logs: Logs = Arc::new(Mutex::new(Vec::new()));

    let spawned = {
        let code = code.to_owned();
        let tools = tool_names.to_vec();
        let limits = limits.clone();
        let stop = stop.clone();
        let settled = settled.clone();
        let logs = logs.clone();
        std::thread::Builder::new()
            .name("mcpdesc-sandbox".into())
            .stack_size(limits.stack_bytes.saturating_add(STACK_HEADROOM))
            .spawn(move || {
                let out = run_engine(
                    &code,
                    &tools,
                    &limits,
                    deadline,
                    &stop,
                    &logs,
                    (req_tx, resp_rx),
                );
                let _ = done_tx.send(out);
                if settled.swap(true, Ordering::SeqCst) {
                    // `execute` had abandoned this thread and counted it.
                    STUCK.fetch_sub(1, Ordering::SeqCst);
                }
            })
    };
    let thread = match spawned {
        Ok(t) => t,
        Err(e) => {
            return Outcome {
                error: Some(ScriptError::new(
                    ErrorKind::Internal,
                    format!("could not start the sandbox thread: {e}"),
                )),
                ..Outcome::default()
            };
        }
    };

    let mut calls: Vec<CallRecord> = Vec::new();
    let mut started: HashMap<u64, (usize, Instant)> = HashMap::new();
    let mut queue: VecDeque<CallRequest> = VecDeque::new();
    let mut running: JoinSet<(u64, Result<Json, String>)> = JoinSet::new();
    let mut tasks: HashMap<tokio::task::Id, u64> = HashMap::new();
    let max_concurrent = limits.max_concurrent_calls.max(1);
    let hard_stop = tokio::time::Instant::from_std(deadline + GRACE);

    let engine = loop {
        while running.len() < max_concurrent {
            let Some(req) = queue.pop_front() else { break };
            calls.push(CallRecord {
                tool: req.tool.clone(),
                is_error: true,
                ms: 0.0,
            });
            started.insert(req.id, (calls.len() - 1, Instant::now()));
            let host = host.clone();
            let id = req.id;
            let task = running.spawn(async move {
                let r = host.call(&req.tool, req.args).await;
                (req.id, r)
            });
            tasks.insert(task.id(), id);
        }
        tokio::select! {
            out = &mut done_rx => match out {
                Ok(out) => break Some(out),
                // The engine thread ended without an outcome: it panicked.
                Err(_) => break Some(EngineOutcome {
                    result: None,
                    error: Some(ScriptError::new(ErrorKind::Internal, "the sandbox engine thread failed")),
                }),
            },
            Some(req) = req_rx.recv() => queue.push_back(req),
            Some(joined) = running.join_next_with_id(), if !running.is_empty() => {
                let (id, result) = match joined {
                    Ok((task, v)) => {
                        tasks.remove(&task);
                        v
                    }
                    // A host future that panicked: that call failed; the script hears of it.
                    Err(e) => match tasks.remove(&e.id()) {
                        Some(id) => (id, Err("the host failed while performing this call".to_owned())),
                        None => continue,
                    },
                };
                if let Some((i, t0)) = started.remove(&id) {
                    calls[i].is_error = result.is_err();
                    calls[i].ms = t0.elapsed().as_secs_f64() * 1000.0;
                }
                let _ = resp_tx.send(CallResponse { id, result });
            }
            _ = tokio::time::sleep_until(hard_stop) => {
                stop.store(true, Ordering::SeqCst);
                STUCK.fetch_add(1, Ordering::SeqCst);
                if settled.swap(true, Ordering::SeqCst) {
                    // The thread ended just now: not stuck after all.
                    STUCK.fetch_sub(1, Ordering::SeqCst);
                }
                break None;
            }
        }
    };
    // Calls still running are abandoned (dropping the JoinSet aborts them).
    running.abort_all();
    for (i, t0) in started.values() {
        calls[*i].ms = t0.elapsed().as_secs_f64() * 1000.0;
    }
    if engine.is_some() {
        // The thread has sent its outcome and only exits now: wait for it (microseconds), so
        // that its malloc arena is free for the next execution's thread. Without this,
        // back-to-back executions overlapped and glibc gave the next one a new arena, which
        // kept the previous heap resident (+64 MiB of RSS, measured).
        let _ = thread.join();
    }
    match engine {
        Some(e) => Outcome {
            result: e.result,
            logs: take_logs(&logs),
            calls,
            error: e.error,
        },
        None => Outcome {
            calls,
            logs: take_logs(&logs),
            error: Some(ScriptError::new(
                ErrorKind::Timeout,
                format!(
                    "the script did not stop within {} ms of its {} ms wall-time limit",
                    GRACE.as_millis(),
                    limits.wall.as_millis()
                ),
            )),
            ..Outcome::default()
        },
    }
}

/// State the `api` and `console` functions share with the engine loop.
struct Shared {
    limits: Limits,
    req_tx: mpsc::UnboundedSender<CallRequest>,
    stop: Arc<AtomicBool>,
    next_id: u64,
    calls_made: usize,
    /// Promises waiting for the host: resolve, reject (an Error created at the call site, so its
    /// stack points at the script's line).
    pending: HashMap<u64, Waiting>,
    logs: Logs,
    log_bytes: usize,
    logs_cut: bool,
    /// A limit hit inside an `api` call: ends the execution even if the script catches it.
    fatal: Option<ScriptError>,
}

/// ECMA-262 (2025) properties of the global object, plus Annex B and the explicit-resource-
/// management additions; anything else the engine defines is deleted before the script runs.
/// `Atomics` and `SharedArrayBuffer` are absent on purpose (blocking waits, shared memory).
const ECMASCRIPT_GLOBALS: &[&str] = &[
    "globalThis",
    "Infinity",
    "NaN",
    "undefined",
    "eval",
    "isFinite",
    "isNaN",
    "parseFloat",
    "parseInt",
    "decodeURI",
    "decodeURIComponent",
    "encodeURI",
    "encodeURIComponent",
    "escape",
    "unescape",
    "AggregateError",
    "Array",
    "ArrayBuffer",
    "BigInt",
    "BigInt64Array",
    "BigUint64Array",
    "Boolean",
    "DataView",
    "Date",
    "Error",
    "EvalError",
    "FinalizationRegistry",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "Function",
    "Int8Array",
    "Int16Array",
    "Int32Array",
    "Iterator",
    "Map",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "RegExp",
    "Set",
    "String",
    "Symbol",
    "SyntaxError",
    "TypeError",
    "Uint8Array",
    "Uint8ClampedArray",
    "Uint16Array",
    "Uint32Array",
    "URIError",
    "WeakMap",
    "WeakRef",
    "WeakSet",
    "JSON",
    "Math",
    "Reflect",
    "DisposableStack",
    "AsyncDisposableStack",
    "SuppressedError",
];

/// The names the sandbox adds to the global object.
pub const SANDBOX_GLOBALS: &[&str] = &["api", "console"];

/// The ECMAScript global names the script may see (the crate's `ECMASCRIPT_GLOBALS` table).
pub fn ecmascript_globals() -> &'static [&'static str] {
    ECMASCRIPT_GLOBALS
}

/// Runs before the model's code: prunes the global object to ECMAScript, then defines `api` and
/// `console` as frozen, null-prototype objects on non-writable, non-configurable bindings.
const SETUP: &str = r#"(function (allowed, fns, log) {
  "use strict";
  const g = globalThis;
  for (const k of Reflect.ownKeys(g)) {
    if (typeof k !== "string" || !allowed.includes(k)) {
      if (!delete g[k]) throw new Error("cannot remove global " + String(k));
    }
  }
  const api = Object.create(null);
  for (const name of Object.keys(fns)) {
    const f = fns[name];
    Object.freeze(f);
    Object.defineProperty(api, name, { value: f, enumerable: true, writable: false, configurable: false });
  }
  Object.freeze(api);
  const console = Object.create(null);
  for (const m of ["log", "info", "warn", "error", "debug"]) {
    const f = (...args) => log(m, args);
    Object.freeze(f);
    Object.defineProperty(console, m, { value: f, enumerable: true, writable: false, configurable: false });
  }
  Object.freeze(console);
  Object.defineProperty(g, "api", { value: api, enumerable: false, writable: false, configurable: false });
  Object.defineProperty(g, "console", { value: console, enumerable: false, writable: false, configurable: false });
})"#;

fn run_engine(
    code: &str,
    tools: &[String],
    limits: &Limits,
    deadline: Instant,
    stop: &Arc<AtomicBool>,
    logs: &Logs,
    (req_tx, resp_rx): (
        mpsc::UnboundedSender<CallRequest>,
        std_mpsc::Receiver<CallResponse>,
    ),
) -> EngineOutcome {
    let internal = |what: &str, e: rquickjs::Error| EngineOutcome {
        result: None,
        error: Some(ScriptError::new(
            ErrorKind::Internal,
            format!("{what}: {e}"),
        )),
    };
    let rt = match Runtime::new() {
        Ok(rt) => rt,
        Err(e) => return internal("could not create the engine", e),
    };
    // QuickJS reads 0 as "no limit"; here 0 is the smallest limit, never none.
    rt.set_memory_limit(limits.memory_bytes.max(1));
    rt.set_max_stack_size(limits.stack_bytes.max(1));
    {
        let stop = stop.clone();
        rt.set_interrupt_handler(Some(Box::new(move || {
            stop.load(Ordering::Relaxed) || Instant::now() >= deadline
        })));
    }
    use rquickjs::context::intrinsic as i;
    let context = match Context::custom::<(
        i::Date,
        i::Eval,
        i::RegExpCompiler,
        i::RegExp,
        i::Json,
        i::Proxy,
        i::MapSet,
        i::TypedArrays,
        i::Promise,
        i::BigInt,
        i::WeakRef,
    )>(&rt)
    {
        Ok(c) => c,
        Err(e) => return internal("could not create the engine context", e),
    };
    let shared = Rc::new(RefCell::new(Shared {
        limits: limits.clone(),
        req_tx,
        stop: stop.clone(),
        next_id: 0,
        calls_made: 0,
        pending: HashMap::new(),
        logs: logs.clone(),
        log_bytes: 0,
        logs_cut: false,
        fatal: None,
    }));
    let out = context.with(|ctx| {
        let (result, error) = match run_in_context(&ctx, code, tools, &shared, deadline, &resp_rx) {
            Ok(v) => (v, None),
            Err(e) => (e.partial, Some(e.error)),
        };
        // Drop every handle into the heap while the runtime is alive.
        shared.borrow_mut().pending.clear();
        (result, error)
    });
    let mut s = shared.borrow_mut();
    // A limit hit inside an `api` call outranks whatever the interrupted script reported.
    let error = s.fatal.take().or(out.1);
    drop(s);
    drop(context);
    drop(rt);
    EngineOutcome {
        result: out.0,
        error,
    }
}

/// One promise waiting for the host: its resolve and reject functions, and the Error to reject
/// it with (created at the call site, so that its stack names the script's line of the call).
struct Waiting {
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
    error: Persistent<Object<'static>>,
}

struct Failure {
    error: ScriptError,
    partial: Option<Json>,
}

impl From<ScriptError> for Failure {
    fn from(error: ScriptError) -> Self {
        Failure {
            error,
            partial: None,
        }
    }
}

fn run_in_context<'js>(
    ctx: &Ctx<'js>,
    code: &str,
    tools: &[String],
    shared: &Rc<RefCell<Shared>>,
    deadline: Instant,
    resp_rx: &std_mpsc::Receiver<CallResponse>,
) -> Result<Option<Json>, Failure> {
    let setup_err = |e: rquickjs::Error| {
        ScriptError::new(ErrorKind::Internal, format!("sandbox setup failed: {e}"))
    };
    // Setup (trusted code; runs before the model's).
    let fns = Object::new(ctx.clone()).map_err(setup_err)?;
    // Null prototype: a tool named `__proto__` (a valid MCP name) must be an own property.
    fns.set_prototype(None).map_err(setup_err)?;
    for name in tools {
        let f = api_function(ctx, name.clone(), shared.clone()).map_err(setup_err)?;
        fns.set(name.as_str(), f).map_err(setup_err)?;
    }
    let log = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, level: String, args: rquickjs::Array<'js>| {
                if shared.borrow().logs_cut {
                    return;
                }
                let parts: Vec<String> = args
                    .iter::<Value<'js>>()
                    .map(|v| v.map(|v| display(&ctx, v)).unwrap_or_default())
                    .collect();
                let line = if level == "log" || level == "info" {
                    parts.join(" ")
                } else {
                    format!("[{level}] {}", parts.join(" "))
                };
                push_log(&mut shared.borrow_mut(), line);
            },
        )
        .map_err(setup_err)?
    };
    let allowed = rquickjs::Array::new(ctx.clone()).map_err(setup_err)?;
    for (i, name) in ECMASCRIPT_GLOBALS.iter().enumerate() {
        allowed.set(i, *name).map_err(setup_err)?;
    }
    let setup: Function<'js> = ctx.eval(SETUP).map_err(|e| setup_exception(ctx, e))?;
    setup
        .call::<_, ()>((allowed, fns, log))
        .map_err(|e| setup_exception(ctx, e))?;

    // The model's code, as the body of an async function.
    let wrapped = format!("(async function () {{\n{code}\n}})");
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.backtrace_barrier = true;
    options.filename = Some(SCRIPT_FILE.to_owned());
    let f: Function<'js> = ctx
        .eval_with_options(wrapped, options)
        .map_err(|e| exception(ctx, e, shared))?;
    let promise: Promise<'js> = f.call(()).map_err(|e| exception(ctx, e, shared))?;

    loop {
        while ctx.execute_pending_job() {
            if shared.borrow().stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
                break;
            }
        }
        if let Some(e) = check_stop(shared, deadline) {
            return Err(e.into());
        }
        match promise.state() {
            PromiseState::Resolved => {
                let v: Value<'js> = match promise.result::<Value<'js>>() {
                    Some(Ok(v)) => v,
                    Some(Err(e)) => return Err(exception(ctx, e, shared).into()),
                    None => continue,
                };
                return to_json(ctx, v, shared);
            }
            PromiseState::Rejected => {
                let e = match promise.result::<Value<'js>>() {
                    Some(Err(e)) => e,
                    _ => rquickjs::Error::Exception,
                };
                return Err(exception(ctx, e, shared).into());
            }
            PromiseState::Pending => {}
        }
        if shared.borrow().pending.is_empty() {
            if ctx.execute_pending_job() {
                continue;
            }
            return Err(ScriptError::new(
                ErrorKind::Unsettled,
                "the script's promise can never settle: no api call is in flight and no job is queued (an `await` on a promise nothing resolves?)",
            )
            .into());
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match resp_rx.recv_timeout(wait) {
            Ok(resp) => settle(ctx, shared, resp),
            Err(std_mpsc::RecvTimeoutError::Timeout) => {
                return Err(timeout(&shared.borrow().limits).into());
            }
            Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                // The async side gave up (hard stop).
                return Err(check_stop(shared, deadline)
                    .unwrap_or_else(|| timeout(&shared.borrow().limits))
                    .into());
            }
        }
    }
}

fn timeout(limits: &Limits) -> ScriptError {
    ScriptError::new(
        ErrorKind::Timeout,
        format!(
            "the script ran past its wall-time limit of {} ms",
            limits.wall.as_millis()
        ),
    )
}

fn check_stop(shared: &Rc<RefCell<Shared>>, deadline: Instant) -> Option<ScriptError> {
    let s = shared.borrow();
    if let Some(f) = &s.fatal {
        return Some(f.clone());
    }
    if Instant::now() >= deadline {
        return Some(timeout(&s.limits));
    }
    if s.stop.load(Ordering::Relaxed) {
        return Some(ScriptError::new(
            ErrorKind::Internal,
            "the execution was stopped by the sandbox (a host call failed to run)",
        ));
    }
    None
}

/// Resolves or rejects the promise a host response belongs to.
fn settle<'js>(ctx: &Ctx<'js>, shared: &Rc<RefCell<Shared>>, resp: CallResponse) {
    let Some(w) = shared.borrow_mut().pending.remove(&resp.id) else {
        return;
    };
    let (Ok(resolve), Ok(reject), Ok(error)) = (
        w.resolve.restore(ctx),
        w.reject.restore(ctx),
        w.error.restore(ctx),
    ) else {
        return;
    };
    let message = match resp.result {
        Ok(v) => match ctx.json_parse(v.to_string()) {
            Ok(js) => {
                let _ = resolve.call::<_, ()>((js,));
                return;
            }
            Err(_) => {
                let _ = ctx.catch();
                "the call's result does not fit in the sandbox's memory limit".to_owned()
            }
        },
        Err(msg) => msg,
    };
    let _ = error.set("message", message);
    let _ = reject.call::<_, ()>((error,));
}

/// `api.<name>`: checks the call limit, serialises the argument, and returns a promise that the
/// engine loop settles when the host answers.
fn api_function<'js>(
    ctx: &Ctx<'js>,
    name: String,
    shared: Rc<RefCell<Shared>>,
) -> rquickjs::Result<Function<'js>> {
    let f = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>,
              args: Opt<Value<'js>>,
              _rest: Rest<Value<'js>>|
              -> rquickjs::Result<Promise<'js>> {
            {
                let mut s = shared.borrow_mut();
                if s.calls_made >= s.limits.max_calls {
                    let msg = format!(
                        "call limit: api.{name} would be call {} of at most {} per execution",
                        s.calls_made + 1,
                        s.limits.max_calls
                    );
                    if s.fatal.is_none() {
                        s.fatal = Some(ScriptError::new(ErrorKind::CallLimit, msg.clone()));
                    }
                    s.stop.store(true, Ordering::SeqCst);
                    return Err(Exception::throw_range(&ctx, &msg));
                }
            }
            let args_json = match args.0 {
                None => Json::Object(Default::default()),
                Some(v) if v.is_undefined() => Json::Object(Default::default()),
                Some(v) => {
                    let text = match ctx.json_stringify(v)? {
                        Some(t) => t.to_string()?,
                        None => {
                            return Err(Exception::throw_type(
                                &ctx,
                                &format!(
                                    "api.{name}: the argument is not JSON (a function or symbol?)"
                                ),
                            ));
                        }
                    };
                    match serde_json::from_str::<Json>(&text) {
                        Ok(j) => j,
                        Err(e) => {
                            return Err(Exception::throw_type(
                                &ctx,
                                &format!("api.{name}: the argument is not JSON: {e}"),
                            ));
                        }
                    }
                }
            };
            let (promise, resolve, reject) = ctx.promise()?;
            // Created here so that its stack names the script's line of this call.
            let error = Exception::from_message(ctx.clone(), "")?.into_object();
            let mut s = shared.borrow_mut();
            let id = s.next_id;
            s.next_id += 1;
            s.calls_made += 1;
            if s.req_tx
                .send(CallRequest {
                    id,
                    tool: name.clone(),
                    args: args_json,
                })
                .is_err()
            {
                return Err(Exception::throw_internal(&ctx, "the sandbox host is gone"));
            }
            s.pending.insert(
                id,
                Waiting {
                    resolve: Persistent::save(&ctx, resolve),
                    reject: Persistent::save(&ctx, reject),
                    error: Persistent::save(&ctx, error),
                },
            );
            Ok(promise)
        },
    )?;
    Ok(f)
}

/// `console.*` argument display: strings as they are, other values as JSON where they have one,
/// else their `String()` form.
fn display<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default();
    }
    if v.is_object() && !v.is_function() {
        if let Ok(Some(s)) = ctx.json_stringify(v.clone()) {
            if let Ok(s) = s.to_string() {
                return s;
            }
        }
        let _ = ctx.catch();
    }
    match v.get::<rquickjs::convert::Coerced<String>>() {
        Ok(s) => s.0,
        Err(_) => {
            let _ = ctx.catch();
            "(unprintable)".to_owned()
        }
    }
}

fn push_log(s: &mut Shared, line: String) {
    if s.logs_cut {
        return;
    }
    let budget = s.limits.max_output_bytes;
    let cost = line.len() + 1;
    let mut logs = s.logs.lock().unwrap_or_else(|e| e.into_inner());
    if s.log_bytes + cost <= budget {
        logs.push(line);
        drop(logs);
        s.log_bytes += cost;
        return;
    }
    let room = budget.saturating_sub(s.log_bytes);
    let cut = floor_char_boundary(&line, room);
    if cut > 0 {
        logs.push(line[..cut].to_owned());
    }
    logs.push(format!(
        "[logs cut: over the {budget}-byte log limit; later lines dropped]"
    ));
    drop(logs);
    s.logs_cut = true;
}

fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The returned value as JSON, bounded by `max_output_bytes`.
fn to_json<'js>(
    ctx: &Ctx<'js>,
    v: Value<'js>,
    shared: &Rc<RefCell<Shared>>,
) -> Result<Option<Json>, Failure> {
    let max = shared.borrow().limits.max_output_bytes;
    let text = match ctx.json_stringify(v) {
        Ok(Some(s)) => s.to_string().map_err(|e| exception(ctx, e, shared))?,
        Ok(None) => return Ok(None),
        Err(e) => {
            let mut err = exception(ctx, e, shared);
            if err.kind == ErrorKind::Exception {
                err.message = format!("the returned value is not JSON: {}", err.message);
            }
            return Err(err.into());
        }
    };
    if text.len() > max {
        let cut = floor_char_boundary(&text, max);
        let note = format!(
            "{}… [cut: the returned value is {} bytes of JSON, over the {max}-byte limit]",
            &text[..cut],
            text.len()
        );
        return Err(Failure {
            error: ScriptError::new(
                ErrorKind::OutputLimit,
                format!(
                    "the returned value is {} bytes of JSON, over the {max}-byte output limit",
                    text.len()
                ),
            ),
            partial: Some(Json::String(note)),
        });
    }
    // serde_json refuses nesting deeper than 128 levels; anything else would be an engine bug.
    serde_json::from_str(&text).map(Some).map_err(|e| {
        let kind = if e.to_string().contains("recursion limit") {
            ErrorKind::OutputLimit
        } else {
            ErrorKind::Internal
        };
        ScriptError::new(
            kind,
            format!("the returned value could not be read as JSON: {e} (nesting is limited to 128 levels)"),
        )
        .into()
    })
}

fn setup_exception<'js>(ctx: &Ctx<'js>, e: rquickjs::Error) -> ScriptError {
    let detail = if matches!(e, rquickjs::Error::Exception) {
        let v = ctx.catch();
        v.as_object()
            .and_then(|o| Exception::from_object(o.clone()))
            .and_then(|x| x.message())
            .unwrap_or_else(|| e.to_string())
    } else {
        e.to_string()
    };
    ScriptError::new(
        ErrorKind::Internal,
        format!("sandbox setup failed: {detail}"),
    )
}

/// Turns an engine error (usually a pending exception) into a [`ScriptError`].
fn exception<'js>(ctx: &Ctx<'js>, e: rquickjs::Error, shared: &Rc<RefCell<Shared>>) -> ScriptError {
    {
        let s = shared.borrow();
        if let Some(f) = &s.fatal {
            let _ = ctx.catch();
            return f.clone();
        }
    }
    let thrown = match e {
        rquickjs::Error::Exception => ctx.catch(),
        other => {
            let kind = if matches!(other, rquickjs::Error::Allocation) {
                ErrorKind::Memory
            } else {
                ErrorKind::Exception
            };
            return ScriptError::new(kind, other.to_string());
        }
    };
    let limits = shared.borrow().limits.clone();
    // Reading the thrown value may run script code (getters); the interrupt handler still bounds it.
    let (name, message, stack) = match thrown
        .as_object()
        .and_then(|o| Exception::from_object(o.clone()))
    {
        Some(x) => {
            let name = x.get::<_, Option<String>>("name").ok().flatten();
            (name, x.message().unwrap_or_default(), x.stack())
        }
        None => {
            let m = if thrown.is_null() || thrown.is_undefined() {
                String::new()
            } else {
                display(ctx, thrown.clone())
            };
            (None, m, None)
        }
    };
    let _ = ctx.catch();
    let kind = if message == "interrupted" && name.as_deref() == Some("InternalError") {
        ErrorKind::Timeout
    } else if message == "out of memory" || (thrown.is_null() && name.is_none()) {
        ErrorKind::Memory
    } else if name.as_deref() == Some("RangeError") && message.contains("stack") {
        ErrorKind::Stack
    } else {
        ErrorKind::Exception
    };
    let message = match kind {
        ErrorKind::Timeout => return timeout(&limits),
        ErrorKind::Memory => format!(
            "the script ran out of its {} MiB memory limit",
            limits.memory_bytes / (1024 * 1024)
        ),
        ErrorKind::Stack => format!(
            "the script exceeded its {} KiB stack limit ({message})",
            limits.stack_bytes / 1024
        ),
        _ => match &name {
            Some(n) if !n.is_empty() && !message.is_empty() => format!("{n}: {message}"),
            Some(n) if !n.is_empty() => n.clone(),
            _ => message,
        },
    };
    let (line, column) = stack.as_deref().and_then(script_position).unzip();
    let message = if message.len() > MAX_MESSAGE_BYTES {
        let cut = floor_char_boundary(&message, MAX_MESSAGE_BYTES);
        format!(
            "{}… [cut: the message is {} bytes]",
            &message[..cut],
            message.len()
        )
    } else {
        message
    };
    ScriptError {
        kind,
        message,
        line,
        column,
    }
}

/// The first `script.js:L:C` in a QuickJS stack, with the wrapper lines taken off.
fn script_position(stack: &str) -> Option<(u32, u32)> {
    let needle = format!("{SCRIPT_FILE}:");
    let mut rest = stack;
    while let Some(at) = rest.find(&needle) {
        let tail = &rest[at + needle.len()..];
        let mut it = tail.splitn(3, |c: char| !c.is_ascii_digit());
        if let (Some(l), Some(c)) = (it.next(), it.next()) {
            if let (Ok(l), Ok(c)) = (l.parse::<u32>(), c.parse::<u32>()) {
                if l > WRAPPER_LINES {
                    return Some((l - WRAPPER_LINES, c));
                }
            }
        }
        rest = tail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_position_skips_the_wrapper_line() {
        let stack = "    at <anonymous> (script.js:4:11)\n    at <eval> (script.js:1:1)\n";
        assert_eq!(script_position(stack), Some((3, 11)));
        assert_eq!(script_position("    at f (<input>:1:2)\n"), None);
    }

    #[test]
    fn logs_are_cut_on_a_char_boundary_with_one_note() {
        let (tx, _rx) = mpsc::unbounded_channel();
        let mut s = Shared {
            limits: Limits {
                max_output_bytes: 10,
                ..Limits::default()
            },
            req_tx: tx,
            stop: Arc::new(AtomicBool::new(false)),
            next_id: 0,
            calls_made: 0,
            pending: HashMap::new(),
            logs: Arc::new(Mutex::new(Vec::new())),
            log_bytes: 0,
            logs_cut: false,
            fatal: None,
        };
        push_log(&mut s, "abc".into()); // 4 bytes
        push_log(&mut s, "ééé".into()); // 7 bytes: over by one; the line itself fits in the 6 left
        push_log(&mut s, "never".into());
        let logs = take_logs(&s.logs);
        assert_eq!(logs[0], "abc");
        assert_eq!(logs[1], "ééé");
        assert!(logs[2].starts_with("[logs cut"), "{logs:?}");
        assert_eq!(logs.len(), 3);
    }
}
