//! The in-process driver: the engine on its own OS thread, host calls on the caller's tokio
//! runtime.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::bridge::{CallRequest, CallResponse};
use crate::limits::{MAX_WALL, STACK_HEADROOM};
use crate::runtime::run_engine;
use crate::{CallRecord, ErrorKind, Host, Limits, Outcome, ScriptError};

/// After the wall time, how long `execute` waits for the engine thread to notice before it gives
/// up on it (the interrupt handler normally stops it within microseconds).
pub(crate) const GRACE: Duration = Duration::from_secs(2);
/// Engine threads still running after `execute` gave up on them (see [`stuck_engines`]).
pub(crate) static STUCK: AtomicUsize = AtomicUsize::new(0);
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

pub(crate) struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

pub(crate) struct EngineOutcome {
    pub(crate) result: Option<Json>,
    pub(crate) error: Option<ScriptError>,
}

/// The log lines, shared with `execute` so that they survive an engine thread it abandons.
pub(crate) type Logs = Arc<Mutex<Vec<String>>>;

pub(crate) fn take_logs(logs: &Logs) -> Vec<String> {
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
