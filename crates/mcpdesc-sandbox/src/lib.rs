//! The code-mode sandbox: runs a model-written script (the body of an async function with `api`
//! in scope) in a fresh QuickJS-ng runtime, with only ECMAScript built-ins, a frozen `api` whose
//! functions ask a [`Host`] to perform tool calls, and a captured `console`.
//!
//! Design (SECURITY.md beside this crate says what runs where and why):
//! - every script runs in its own worker process ([`worker`]), taken from a [`Pool`] of workers
//!   started ahead; the worker creates the runtime, runs the script on its main thread and
//!   exits, so nothing is shared between executions and every byte the script allocated is
//!   freed when it ends;
//! - [`Turn::execute`] / [`Pool::execute`] are `async`: they perform the worker's `api`
//!   requests on the caller's tokio runtime (in a `JoinSet`, aborted when the execution ends)
//!   and send the results back as messages, so a slow upstream never blocks an executor thread;
//! - every limit ends the execution with a [`ScriptError`]: the engine's interrupt handler stops
//!   code that yields to it (wall time, or a limit hit inside an `api` call that the script
//!   caught), and the pool kills a worker that has not answered [`GRACE`] after the wall time.

mod bridge;
mod console;
mod error;
mod limits;
mod pool;
mod protocol;
mod runtime;
pub mod worker;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value as Json;

pub use limits::Limits;
pub use pool::{GRACE, Pool, Turn, WorkerCommand};
pub use runtime::{SANDBOX_GLOBALS, ecmascript_globals};

/// A boxed, sendable future (the shape [`Host::call`] returns).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What `api.<name>(args)` does: the host validates and performs the call. `Err` carries the
/// tool error's text; the script sees it as a rejected promise with an `Error` of that message.
pub trait Host: Send + Sync {
    fn call(&self, tool: &str, args: Json) -> BoxFuture<'_, Result<Json, String>>;
}

/// Bytes of a thrown message kept in [`ScriptError::message`] (the rest is cut with a note).
pub const MAX_MESSAGE_BYTES: usize = 4096;

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
    /// The sandbox itself failed (engine or worker could not start).
    Internal,
    /// The worker process died before answering (a crash of the engine: abort, segfault).
    Crashed,
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
            ErrorKind::Crashed => "crashed",
        })
    }
}

impl ErrorKind {
    const ALL: [ErrorKind; 9] = [
        ErrorKind::Exception,
        ErrorKind::Timeout,
        ErrorKind::Memory,
        ErrorKind::Stack,
        ErrorKind::CallLimit,
        ErrorKind::OutputLimit,
        ErrorKind::Unsettled,
        ErrorKind::Internal,
        ErrorKind::Crashed,
    ];

    /// The kind whose id (its `Display`) is `id`.
    pub fn from_id(id: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.to_string() == id)
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
    /// The pid of the worker process that ran the script (each worker runs one script; after
    /// a timeout or a crash it has been killed and reaped when the outcome is returned).
    pub worker: Option<u32>,
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
