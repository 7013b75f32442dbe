//! The gateway's side: a pool of worker processes ([`crate::worker`]), each running one script.
//!
//! - [`Pool::turn`] bounds the scripts running at once (the pool's size); idle workers are
//!   started ahead (as many as the size), so an execution finds one ready.
//! - An execution sends its script to a worker and then performs the worker's `api` requests
//!   on the caller's tokio runtime: the gateway checks each against the script's tool list and
//!   call limits, asks the [`Host`] (which validates, authorizes and performs it), and sends the
//!   result back. The worker holds no credential and reaches nothing but its pipes.
//! - At the wall time plus [`GRACE`], a worker that has not answered is killed (SIGKILL) and
//!   reaped, whatever it is doing: the answer is a `timeout`. A worker that dies on its own is
//!   a `crashed` error for that script only. Either way the next execution takes another worker.

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Semaphore, SemaphorePermit, mpsc};
use tokio::task::JoinSet;

use crate::limits::{MAX_WALL, timeout};
use crate::protocol::{error_from_json, frame, limits_to_json, take_frame};
use crate::worker::TEST_HOOKS_ENV;
use crate::{CallRecord, ErrorKind, Host, Limits, Outcome, ScriptError};

/// After the wall time, how long a worker has to report its own timeout (its interrupt handler
/// stops the engine within microseconds) before it is killed.
pub const GRACE: Duration = Duration::from_millis(25);
/// How long a new worker may take to say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// How to start a worker: a program and its arguments. The program must run
/// [`crate::worker::main`] (the `mcpdesc` binary does for `__sandbox-worker`; this crate's
/// `mcpdesc-sandbox-worker` binary is the whole of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    test_hooks: bool,
}

impl WorkerCommand {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        WorkerCommand {
            program: program.into(),
            args: Vec::new(),
            test_hooks: false,
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Lets a script's run message ask the worker for a test behaviour (crash, or try to open a
    /// file or a socket once confined). For this crate's tests only; a gateway never sets it.
    #[doc(hidden)]
    pub fn with_test_hooks(mut self) -> Self {
        self.test_hooks = true;
        self
    }
}

/// This executable re-executed as `<exe> __sandbox-worker` (the `mcpdesc` binary's hidden
/// worker entry point).
impl Default for WorkerCommand {
    fn default() -> Self {
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mcpdesc"));
        WorkerCommand::new(exe).arg("__sandbox-worker")
    }
}

/// A started worker, not yet given a script.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    frames: Frames,
    pid: Option<u32>,
}

/// The pool. Dropping it kills its idle workers.
pub struct Pool {
    command: WorkerCommand,
    size: usize,
    turns: Semaphore,
    idle: Mutex<VecDeque<Worker>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("command", &self.command)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// The right to run one script (a pool slot).
#[derive(Debug)]
pub struct Turn<'a> {
    pool: &'a Pool,
    _permit: SemaphorePermit<'a>,
}

impl Pool {
    /// A pool running at most `size` scripts at once (at least one). No worker starts until
    /// the first turn.
    pub fn new(command: WorkerCommand, size: usize) -> Pool {
        let size = size.max(1);
        Pool {
            command,
            size,
            turns: Semaphore::new(size),
            idle: Mutex::new(VecDeque::new()),
        }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Waits at most `wait` for a slot. Starts the idle workers on first use (needs a tokio
    /// runtime).
    pub async fn turn(&self, wait: Duration) -> Option<Turn<'_>> {
        tokio::runtime::Handle::try_current().ok()?;
        let permit = tokio::time::timeout(wait, self.turns.acquire())
            .await
            .ok()?
            .ok()?;
        Some(Turn {
            pool: self,
            _permit: permit,
        })
    }

    /// Runs one script, waiting for a slot as long as it takes. Never panics on any script.
    pub async fn execute(
        &self,
        code: &str,
        tools: &[String],
        host: Arc<dyn Host>,
        limits: &Limits,
    ) -> Outcome {
        if tokio::runtime::Handle::try_current().is_err() {
            return failed(
                ErrorKind::Internal,
                "execute must run inside a tokio runtime (workers and host calls run on it)",
                None,
            );
        }
        match self.turn(MAX_WALL).await {
            Some(turn) => turn.execute(code, tools, host, limits).await,
            None => failed(ErrorKind::Internal, "the sandbox pool is closed", None),
        }
    }

    fn spawn(&self) -> Result<Worker, String> {
        let mut cmd = Command::new(&self.command.program);
        cmd.args(&self.command.args)
            .env_clear()
            // A fixed time zone: the worker cannot read /etc/localtime once confined.
            .env("TZ", "UTC")
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        if self.command.test_hooks {
            cmd.env(TEST_HOOKS_ENV, "1");
        }
        let mut child = cmd.spawn().map_err(|e| {
            format!(
                "could not start the sandbox worker {}: {e}",
                self.command.program.display()
            )
        })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the sandbox worker has no pipes".to_owned());
        };
        Ok(Worker {
            pid: child.id(),
            child,
            stdin,
            frames: Frames::new(stdout),
        })
    }

    /// Keeps `size` idle workers started.
    fn refill(&self) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while idle.len() < self.size {
            match self.spawn() {
                Ok(w) => idle.push_back(w),
                Err(_) => break,
            }
        }
    }

    /// An idle worker that has said `ready` (a new one if none is idle, or if an idle one
    /// died); the idle set is refilled behind it.
    async fn ready_worker(&self) -> Result<Worker, String> {
        let mut last = String::new();
        for _ in 0..2 {
            let taken = self
                .idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front();
            let mut w = match taken {
                Some(w) => w,
                None => self.spawn()?,
            };
            self.refill();
            match tokio::time::timeout(START_TIMEOUT, w.frames.next(1 << 20)).await {
                Ok(Ok(Some(m))) if m.get("t").and_then(Json::as_str) == Some("ready") => {
                    return Ok(w);
                }
                Ok(Ok(_)) | Ok(Err(_)) => last = "the sandbox worker did not start".to_owned(),
                Err(_) => {
                    last = format!(
                        "the sandbox worker did not start within {} s",
                        START_TIMEOUT.as_secs()
                    )
                }
            }
            let _ = w.child.start_kill();
            let _ = w.child.wait().await;
        }
        Err(last)
    }
}

fn failed(kind: ErrorKind, message: impl Into<String>, worker: Option<u32>) -> Outcome {
    Outcome {
        error: Some(ScriptError::new(kind, message)),
        worker,
        ..Outcome::default()
    }
}

impl Turn<'_> {
    /// Runs `code` (the body of an async function; `api` and `console` in scope) in a worker
    /// and returns what it returned, logged and called. Never panics on any script.
    pub async fn execute(
        self,
        code: &str,
        tools: &[String],
        host: Arc<dyn Host>,
        limits: &Limits,
    ) -> Outcome {
        self.run(code, tools, host, limits, None).await
    }

    /// [`Turn::execute`], or a test behaviour of a worker started
    /// [`WorkerCommand::with_test_hooks`].
    #[doc(hidden)]
    pub async fn run(
        self,
        code: &str,
        tools: &[String],
        host: Arc<dyn Host>,
        limits: &Limits,
        hook: Option<&str>,
    ) -> Outcome {
        let start = Instant::now();
        let worker = match self.pool.ready_worker().await {
            Ok(w) => w,
            Err(e) => return failed(ErrorKind::Internal, e, None),
        };
        let mut run = json!({
            "t": "run",
            "code": code,
            "tools": tools,
            "limits": limits_to_json(limits),
        });
        if let Some(h) = hook {
            run["hook"] = json!(h);
        }
        // The worker's own deadline is the gateway's, not later: what is left of the wall time
        // once a worker is ready.
        let left = (start + limits.wall.min(MAX_WALL)).saturating_duration_since(Instant::now());
        run["budget_ms"] = json!(u64::try_from(left.as_millis()).unwrap_or(u64::MAX));
        Execution::new(tools, host, limits, start)
            .drive(worker, run)
            .await
    }
}

/// A host call's id and result.
type Answer = (u64, Result<Json, String>);

/// How the exchange with a worker ended.
enum End {
    Done(Json),
    /// Its stdout closed (it exited or died) before `done`.
    Gone,
    /// It broke the protocol or a gateway-side limit; the message says how.
    Refused(ScriptError),
    HardStop,
}

/// One script's exchange with its worker.
struct Execution<'a> {
    tools: &'a [String],
    host: Arc<dyn Host>,
    limits: &'a Limits,
    start: Instant,
    calls: Vec<CallRecord>,
    started: HashMap<u64, (usize, Instant)>,
    queue: VecDeque<(u64, String, Json)>,
    running: JoinSet<Answer>,
    tasks: HashMap<tokio::task::Id, u64>,
    logs: Vec<String>,
    log_bytes: usize,
}

impl<'a> Execution<'a> {
    fn new(tools: &'a [String], host: Arc<dyn Host>, limits: &'a Limits, start: Instant) -> Self {
        Execution {
            tools,
            host,
            limits,
            start,
            calls: Vec::new(),
            started: HashMap::new(),
            queue: VecDeque::new(),
            running: JoinSet::new(),
            tasks: HashMap::new(),
            logs: Vec::new(),
            log_bytes: 0,
        }
    }

    async fn drive(mut self, worker: Worker, run: Json) -> Outcome {
        let Worker {
            mut child,
            stdin,
            mut frames,
            pid,
        } = worker;
        let (tx, rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let writer = tokio::spawn(write_frames(stdin, rx));
        let _ = tx.send(frame(&run));
        let deadline = self.start + self.limits.wall.min(MAX_WALL);
        let hard_stop = tokio::time::Instant::from_std(deadline + GRACE);
        let max_frame = self
            .limits
            .memory_bytes
            .saturating_add(self.limits.max_output_bytes.saturating_mul(2))
            .saturating_add(1 << 20);
        let end = loop {
            self.start_queued();
            tokio::select! {
                msg = frames.next(max_frame) => match msg {
                    Ok(Some(msg)) => {
                        if let Some(end) = self.on_message(msg) {
                            break end;
                        }
                    }
                    Ok(None) => break End::Gone,
                    Err(e) => break End::Refused(ScriptError::new(
                        ErrorKind::Internal,
                        format!("the sandbox worker sent {e}"),
                    )),
                },
                Some(joined) = self.running.join_next_with_id(), if !self.running.is_empty() => {
                    if let Some(reply) = self.on_joined(joined) {
                        let _ = tx.send(frame(&reply));
                    }
                }
                _ = tokio::time::sleep_until(hard_stop) => break End::HardStop,
            }
        };
        // Calls still running are abandoned.
        self.running.abort_all();
        for (i, t0) in self.started.values() {
            self.calls[*i].ms = t0.elapsed().as_secs_f64() * 1000.0;
        }
        drop(tx);
        writer.abort();
        let error = match end {
            End::Done(msg) => {
                // The worker exits after `done`; it is reaped in the background.
                tokio::spawn(reap(child));
                return self.outcome(msg, pid);
            }
            End::HardStop => {
                kill(&mut child).await;
                timeout(self.limits)
            }
            End::Refused(e) => {
                kill(&mut child).await;
                e
            }
            End::Gone => {
                let status = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
                match status {
                    Ok(Ok(status)) => died(status, self.limits),
                    _ => {
                        kill(&mut child).await;
                        ScriptError::new(
                            ErrorKind::Crashed,
                            "the sandbox worker closed its output before answering",
                        )
                    }
                }
            }
        };
        Outcome {
            result: None,
            logs: self.logs,
            calls: self.calls,
            error: Some(error),
            worker: pid,
        }
    }

    /// Starts queued calls while fewer than `max_concurrent_calls` run.
    fn start_queued(&mut self) {
        let max = self.limits.max_concurrent_calls.max(1);
        while self.running.len() < max {
            let Some((id, tool, args)) = self.queue.pop_front() else {
                break;
            };
            self.calls.push(CallRecord {
                tool: tool.clone(),
                is_error: true,
                ms: 0.0,
            });
            self.started
                .insert(id, (self.calls.len() - 1, Instant::now()));
            let host = self.host.clone();
            let task = self.running.spawn(async move {
                let r = host.call(&tool, args).await;
                (id, r)
            });
            self.tasks.insert(task.id(), id);
        }
    }

    /// A message from the worker; `Some` when the exchange ends.
    fn on_message(&mut self, msg: Json) -> Option<End> {
        let refused = |m: String| Some(End::Refused(ScriptError::new(ErrorKind::Internal, m)));
        match msg.get("t").and_then(Json::as_str) {
            Some("done") => Some(End::Done(msg)),
            Some("log") => {
                let line = msg.get("line").and_then(Json::as_str).unwrap_or("");
                // The worker keeps its own budget; this one holds against a compromised one.
                let budget = self.limits.max_output_bytes.saturating_add(4096);
                if self.log_bytes + line.len() < budget {
                    self.log_bytes += line.len() + 1;
                    self.logs.push(line.to_owned());
                }
                None
            }
            Some("call") => {
                let (Some(id), Some(tool)) = (
                    msg.get("id").and_then(Json::as_u64),
                    msg.get("tool").and_then(Json::as_str),
                ) else {
                    return refused("the sandbox worker sent a malformed call".to_owned());
                };
                if !self.tools.iter().any(|t| t == tool) {
                    return refused(format!(
                        "the sandbox worker asked for a tool this script has no api function for: {tool}"
                    ));
                }
                if self.calls.len() + self.queue.len() >= self.limits.max_calls {
                    return Some(End::Refused(ScriptError::new(
                        ErrorKind::CallLimit,
                        format!("call limit: more than {} api calls", self.limits.max_calls),
                    )));
                }
                let args = msg.get("args").cloned().unwrap_or(Json::Null);
                self.queue.push_back((id, tool.to_owned(), args));
                None
            }
            _ => refused("the sandbox worker sent an unknown message".to_owned()),
        }
    }

    /// A finished host call: recorded, and the reply for the worker.
    fn on_joined(
        &mut self,
        joined: Result<(tokio::task::Id, Answer), tokio::task::JoinError>,
    ) -> Option<Json> {
        let (id, result) = match joined {
            Ok((task, v)) => {
                self.tasks.remove(&task);
                v
            }
            // A host future that panicked: that call failed; the script hears of it.
            Err(e) => (
                self.tasks.remove(&e.id())?,
                Err("the host failed while performing this call".to_owned()),
            ),
        };
        if let Some((i, t0)) = self.started.remove(&id) {
            self.calls[i].is_error = result.is_err();
            self.calls[i].ms = t0.elapsed().as_secs_f64() * 1000.0;
        }
        Some(match result {
            Ok(v) => json!({"t": "result", "id": id, "ok": v}),
            Err(e) => json!({"t": "result", "id": id, "err": e}),
        })
    }

    fn outcome(self, msg: Json, pid: Option<u32>) -> Outcome {
        Outcome {
            // Absent when the script returned `undefined` (or failed).
            result: msg.get("result").cloned(),
            error: msg.get("error").map(error_from_json),
            logs: self.logs,
            calls: self.calls,
            worker: pid,
        }
    }
}

/// Why a worker died on its own.
fn died(status: std::process::ExitStatus, limits: &Limits) -> ScriptError {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(sig) = status.signal() {
            // SIGXCPU (24 on Linux): RLIMIT_CPU.
            if sig == 24 {
                return ScriptError::new(
                    ErrorKind::Timeout,
                    format!(
                        "the script used more CPU time than its {} ms wall-time limit allows",
                        limits.wall.as_millis()
                    ),
                );
            }
            return ScriptError::new(
                ErrorKind::Crashed,
                format!("the sandbox worker running the script died of signal {sig}"),
            );
        }
    }
    let _ = limits;
    ScriptError::new(
        ErrorKind::Crashed,
        format!("the sandbox worker running the script exited before answering ({status})"),
    )
}

async fn kill(child: &mut Child) {
    let _ = child.start_kill();
    let _ = child.wait().await;
}

async fn reap(mut child: Child) {
    if tokio::time::timeout(Duration::from_secs(1), child.wait())
        .await
        .is_err()
    {
        kill(&mut child).await;
    }
}

async fn write_frames(mut stdin: ChildStdin, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(f) = rx.recv().await {
        if stdin.write_all(&f).await.is_err() || stdin.flush().await.is_err() {
            return;
        }
    }
}

/// Frames read from a worker's stdout (cancel-safe: bytes read stay in the buffer).
struct Frames {
    out: ChildStdout,
    buf: Vec<u8>,
}

impl Frames {
    fn new(out: ChildStdout) -> Self {
        Frames {
            out,
            buf: Vec::with_capacity(8192),
        }
    }

    async fn next(&mut self, max: usize) -> Result<Option<Json>, String> {
        loop {
            if let Some(msg) = take_frame(&mut self.buf, max)? {
                return Ok(Some(msg));
            }
            self.buf.reserve(8192);
            match self.out.read_buf(&mut self.buf).await {
                Ok(0) => return Ok(None),
                Ok(_) => {}
                Err(e) => return Err(format!("an unreadable message: {e}")),
            }
        }
    }
}
