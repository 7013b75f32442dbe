//! The engine: a fresh QuickJS runtime and context per execution, the global object pruned to
//! ECMAScript plus `api` and `console`, and the loop that runs the script's jobs and settles its
//! `api` promises.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Function, Object, Promise, Runtime, Value};
use serde_json::Value as Json;

use crate::bridge::{Link, Waiting, api_function, settle};
use crate::console::{display, floor_char_boundary, push_log};
use crate::error::{exception, setup_exception};
use crate::limits::{check_stop, timeout};
use crate::{ErrorKind, Limits, ScriptError};

/// The file name the script's frames carry in stack traces.
pub(crate) const SCRIPT_FILE: &str = "script.js";
/// Lines the wrapper adds before the model's code (subtracted from reported lines).
pub(crate) const WRAPPER_LINES: u32 = 1;

/// State the `api` and `console` functions share with the engine loop.
pub(crate) struct Shared {
    pub(crate) limits: Limits,
    pub(crate) link: Box<dyn Link>,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) next_id: u64,
    pub(crate) calls_made: usize,
    /// Promises waiting for the host: resolve, reject (an Error created at the call site, so its
    /// stack points at the script's line).
    pub(crate) pending: HashMap<u64, Waiting>,
    pub(crate) log_bytes: usize,
    pub(crate) logs_cut: bool,
    /// A limit hit inside an `api` call: ends the execution even if the script catches it.
    pub(crate) fatal: Option<ScriptError>,
}

/// ECMA-262 (2025) properties of the global object, plus Annex B and the explicit-resource-
/// management additions; anything else the engine defines is deleted before the script runs.
/// `Atomics` and `SharedArrayBuffer` are absent on purpose (blocking waits, shared memory).
pub(crate) const ECMASCRIPT_GLOBALS: &[&str] = &[
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
pub(crate) const SETUP: &str = r#"(function (allowed, fns, log) {
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

pub(crate) fn run_engine(
    code: &str,
    tools: &[String],
    limits: &Limits,
    deadline: Instant,
    stop: &Arc<AtomicBool>,
    link: Box<dyn Link>,
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
        link,
        stop: stop.clone(),
        next_id: 0,
        calls_made: 0,
        pending: HashMap::new(),
        log_bytes: 0,
        logs_cut: false,
        fatal: None,
    }));
    let out = context.with(|ctx| {
        let (result, error) = match run_in_context(&ctx, code, tools, &shared, deadline) {
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

/// What the engine reports: the returned value (or the cut text of one over the output limit)
/// and the error that ended the execution.
pub(crate) struct EngineOutcome {
    pub(crate) result: Option<Json>,
    pub(crate) error: Option<ScriptError>,
}

pub(crate) struct Failure {
    pub(crate) error: ScriptError,
    pub(crate) partial: Option<Json>,
}

impl From<ScriptError> for Failure {
    fn from(error: ScriptError) -> Self {
        Failure {
            error,
            partial: None,
        }
    }
}

pub(crate) fn run_in_context<'js>(
    ctx: &Ctx<'js>,
    code: &str,
    tools: &[String],
    shared: &Rc<RefCell<Shared>>,
    deadline: Instant,
) -> Result<Option<Json>, Failure> {
    install_globals(ctx, tools, shared)?;
    let promise = start_script(ctx, code, shared)?;
    drive(ctx, &promise, shared, deadline)
}

/// Setup (trusted code; runs before the model's): prunes the global object and defines `api`
/// and `console`.
fn install_globals<'js>(
    ctx: &Ctx<'js>,
    tools: &[String],
    shared: &Rc<RefCell<Shared>>,
) -> Result<(), ScriptError> {
    let setup_err = |e: rquickjs::Error| {
        ScriptError::new(ErrorKind::Internal, format!("sandbox setup failed: {e}"))
    };
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
    Ok(())
}

/// Compiles the model's code as the body of an async function and calls it.
fn start_script<'js>(
    ctx: &Ctx<'js>,
    code: &str,
    shared: &Rc<RefCell<Shared>>,
) -> Result<Promise<'js>, Failure> {
    let wrapped = format!("(async function () {{\n{code}\n}})");
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.backtrace_barrier = true;
    options.filename = Some(SCRIPT_FILE.to_owned());
    let f: Function<'js> = ctx
        .eval_with_options(wrapped, options)
        .map_err(|e| exception(ctx, e, shared))?;
    Ok(f.call(()).map_err(|e| exception(ctx, e, shared))?)
}

/// Runs the script's jobs and settles its `api` promises until its promise settles or a limit
/// ends it.
fn drive<'js>(
    ctx: &Ctx<'js>,
    promise: &Promise<'js>,
    shared: &Rc<RefCell<Shared>>,
    deadline: Instant,
) -> Result<Option<Json>, Failure> {
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
        // No script code runs while the engine waits, so the borrow is not contended.
        let resp = shared.borrow_mut().link.recv();
        match resp {
            Some(resp) => settle(ctx, shared, resp),
            None => {
                // The gateway is gone or gave up (it kills this worker at its hard stop).
                return Err(check_stop(shared, deadline)
                    .unwrap_or_else(|| timeout(&shared.borrow().limits))
                    .into());
            }
        }
    }
}

/// The returned value as JSON, bounded by `max_output_bytes`.
pub(crate) fn to_json<'js>(
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
