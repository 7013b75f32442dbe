//! The worker process: runs one script and exits. The gateway ([`crate::Pool`]) starts it as a
//! child with only two pipes (stdin, stdout; stderr is `/dev/null`) and an empty environment;
//! the worker then
//!
//! 1. hardens itself before it reads any script: no new privileges, not dumpable, no core
//!    files, and compiles its seccomp filter;
//! 2. says `ready`, and waits for its one `run` message;
//! 3. sets `RLIMIT_CPU` and `RLIMIT_AS` from the script's limits, allows no new file
//!    descriptor (`RLIMIT_NOFILE` 0), and installs the filter: from then on it can read fd 0,
//!    write fds 1 and 2, map anonymous non-executable memory, and little else (see
//!    SECURITY.md); every other system call fails with `EPERM`;
//! 4. runs the script in a fresh QuickJS runtime with the engine's own limits (heap, stack,
//!    interrupt at the wall time), sending `api` calls and console lines to the gateway as
//!    messages, and ends with a `done` message.
//!
//! It holds no credential, opens no socket or file, and is killed by the gateway if it has
//! not answered shortly after its wall time.

use std::io::{Read as _, Write as _};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};

use crate::bridge::{CallRequest, CallResponse, Link};
use crate::limits::MAX_WALL;
use crate::protocol::{error_to_json, frame, frame_len, limits_from_json};
use crate::runtime::run_engine;
use crate::{ErrorKind, Limits, ScriptError};

/// Set to `1` in a worker's environment by [`crate::WorkerCommand::with_test_hooks`]: only
/// then is a `run` message's `hook` honoured (the gateway never sets it).
pub(crate) const TEST_HOOKS_ENV: &str = "MCPDESC_SANDBOX_TEST_HOOKS";

/// The largest message the worker reads (a run message or an `api` result).
const MAX_READ: usize = 512 * 1024 * 1024;

/// The whole worker program: `fn main() -> ExitCode { mcpdesc_sandbox::worker::main() }`.
pub fn main() -> ExitCode {
    let hooks = std::env::var_os(TEST_HOOKS_ENV).is_some_and(|v| v == "1");
    let fds = os::open_fds();
    let prepared = os::prepare();
    if !send(&json!({"t": "ready", "pid": std::process::id(), "fds": fds})) {
        return ExitCode::from(3);
    }
    // EOF before a job: the gateway dropped this idle worker.
    let Some(msg) = read_frame() else {
        return ExitCode::SUCCESS;
    };
    let job = match Job::parse(&msg) {
        Some(j) => j,
        None => return finish(None, Some(internal("the run message is malformed"))),
    };
    let prepared = match prepared {
        Ok(p) => p,
        Err(e) => {
            return finish(
                None,
                Some(internal(&format!("could not harden the worker: {e}"))),
            );
        }
    };
    if let Err(e) = os::confine(prepared, &job.limits) {
        return finish(
            None,
            Some(internal(&format!("could not confine the worker: {e}"))),
        );
    }
    if hooks {
        if let Some(hook) = &job.hook {
            return finish(Some(run_hook(hook)), None);
        }
    }
    let deadline = Instant::now() + job.budget.min(job.limits.wall).min(MAX_WALL);
    let stop = Arc::new(AtomicBool::new(false));
    let out = run_engine(
        &job.code,
        &job.tools,
        &job.limits,
        deadline,
        &stop,
        Box::new(Pipe),
    );
    finish(out.result, out.error)
}

struct Job {
    code: String,
    tools: Vec<String>,
    limits: Limits,
    hook: Option<String>,
    /// What is left of the wall time when the gateway sent the script.
    budget: Duration,
}

impl Job {
    fn parse(msg: &Json) -> Option<Job> {
        if msg.get("t")?.as_str()? != "run" {
            return None;
        }
        Some(Job {
            code: msg.get("code")?.as_str()?.to_owned(),
            tools: msg
                .get("tools")?
                .as_array()?
                .iter()
                .map(|t| t.as_str().map(str::to_owned))
                .collect::<Option<_>>()?,
            limits: limits_from_json(msg.get("limits")?)?,
            hook: msg.get("hook").and_then(Json::as_str).map(str::to_owned),
            budget: Duration::from_millis(msg.get("budget_ms")?.as_u64()?),
        })
    }
}

fn internal(msg: &str) -> ScriptError {
    ScriptError::new(ErrorKind::Internal, msg)
}

fn finish(result: Option<Json>, error: Option<ScriptError>) -> ExitCode {
    let mut msg = json!({"t": "done"});
    if let Some(r) = result {
        msg["result"] = r;
    }
    if let Some(e) = &error {
        msg["error"] = error_to_json(e);
    }
    if send(&msg) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    }
}

/// Test-only behaviours, run after the worker is confined: `abort` and `segv` crash it,
/// `open` and `connect` try to reach the file system and the network and report the errno.
fn run_hook(hook: &str) -> Json {
    let errno = |e: std::io::Error| json!({"errno": e.raw_os_error()});
    match hook {
        "abort" => std::process::abort(),
        "segv" => {
            os::raise_segv();
            std::process::abort()
        }
        "open" => match std::fs::File::open("/etc/passwd") {
            Ok(_) => json!({"opened": true}),
            Err(e) => errno(e),
        },
        "connect" => match std::net::TcpStream::connect(("127.0.0.1", 9)) {
            Ok(_) => json!({"connected": true}),
            Err(e) => errno(e),
        },
        other => json!({"unknown_hook": other}),
    }
}

fn send(msg: &Json) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(&frame(msg)).is_ok() && out.flush().is_ok()
}

fn read_frame() -> Option<Json> {
    let mut input = std::io::stdin().lock();
    let mut header = [0u8; 4];
    input.read_exact(&mut header).ok()?;
    let n = frame_len(header);
    if n > MAX_READ {
        return None;
    }
    let mut body = vec![0u8; n];
    input.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The engine's [`Link`] in a worker: messages on stdin and stdout.
struct Pipe;

impl Link for Pipe {
    fn call(&mut self, req: CallRequest) -> bool {
        send(&json!({"t": "call", "id": req.id, "tool": req.tool, "args": req.args}))
    }

    fn recv(&mut self) -> Option<CallResponse> {
        let msg = read_frame()?;
        let id = msg.get("id")?.as_u64()?;
        let result = match (msg.get("ok"), msg.get("err")) {
            (Some(v), None) => Ok(v.clone()),
            (None, Some(e)) => Err(e.as_str().unwrap_or("the call failed").to_owned()),
            _ => return None,
        };
        Some(CallResponse { id, result })
    }

    fn log(&mut self, line: String) {
        send(&json!({"t": "log", "line": line}));
    }
}

#[cfg(target_os = "linux")]
pub(crate) mod os {
    //! Linux: prctl, rlimits and the seccomp filter.

    use std::collections::BTreeMap;

    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op,
        SeccompCondition as Cond, SeccompFilter, SeccompRule,
    };

    use crate::Limits;
    use crate::limits::STACK_HEADROOM;

    pub(crate) struct Prepared {
        filter: BpfProgram,
    }

    /// The worker's open descriptors (before it reads a script; the pool's tests check that
    /// they are the three stdio ones).
    pub(crate) fn open_fds() -> Vec<u32> {
        let mut fds: Vec<u32> = std::fs::read_dir("/proc/self/fd")
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect();
        fds.sort_unstable();
        // read_dir's own descriptor is listed while it is open.
        fds.retain(|fd| *fd <= 2 || std::fs::read_link(format!("/proc/self/fd/{fd}")).is_ok());
        fds
    }

    pub(crate) fn prepare() -> Result<Prepared, String> {
        nix::sys::prctl::set_no_new_privs().map_err(|e| format!("no_new_privs: {e}"))?;
        nix::sys::prctl::set_dumpable(false).map_err(|e| format!("dumpable: {e}"))?;
        setrlimit(Resource::RLIMIT_CORE, 0, 0).map_err(|e| format!("RLIMIT_CORE: {e}"))?;
        Ok(Prepared { filter: filter()? })
    }

    /// The OS limits of one script, then the filter. Hard limits equal soft ones, so the
    /// script cannot raise them back.
    pub(crate) fn confine(p: Prepared, limits: &Limits) -> Result<(), String> {
        let wall_s = limits
            .wall
            .as_secs()
            .saturating_add(u64::from(limits.wall.subsec_nanos() > 0));
        // SIGXCPU one second of CPU after the wall time; SIGKILL a second later.
        let cpu = wall_s.saturating_add(1);
        setrlimit(Resource::RLIMIT_CPU, cpu, cpu.saturating_add(1))
            .map_err(|e| format!("RLIMIT_CPU: {e}"))?;
        let stack = limits.stack_bytes.saturating_add(STACK_HEADROOM) as u64;
        let (soft, hard) =
            getrlimit(Resource::RLIMIT_STACK).map_err(|e| format!("RLIMIT_STACK: {e}"))?;
        if soft < stack {
            // The main thread's stack grows up to the soft limit, read when it grows.
            setrlimit(Resource::RLIMIT_STACK, stack.min(hard), hard)
                .map_err(|e| format!("RLIMIT_STACK: {e}"))?;
        }
        let vm = vm_bytes().ok_or("cannot read /proc/self/statm")?;
        // What the process maps now, the engine heap, copies of a result or an argument as
        // JSON text and values, and the stack.
        let room = (limits.memory_bytes as u64)
            .saturating_mul(2)
            .saturating_add((limits.max_output_bytes as u64).saturating_mul(4))
            .saturating_add(stack)
            .saturating_add(256 << 20);
        let as_limit = vm.saturating_add(room);
        setrlimit(Resource::RLIMIT_AS, as_limit, as_limit)
            .map_err(|e| format!("RLIMIT_AS: {e}"))?;
        setrlimit(Resource::RLIMIT_NOFILE, 0, 0).map_err(|e| format!("RLIMIT_NOFILE: {e}"))?;
        seccompiler::apply_filter_all_threads(&p.filter).map_err(|e| format!("seccomp: {e}"))
    }

    fn vm_bytes() -> Option<u64> {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
        Some(pages.saturating_mul(page_size()))
    }

    fn page_size() -> u64 {
        nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
            .ok()
            .flatten()
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(4096)
    }

    /// Dies of SIGSEGV. Rust's runtime handles the first one (its stack-overflow handler sees
    /// no guard-page fault, restores the default action and returns); the second kills.
    pub(crate) fn raise_segv() {
        let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGSEGV);
        let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGSEGV);
    }

    /// What the interpreter and the pipe bridge need, and nothing else:
    /// - `read` on fd 0 and `write` on fds 1 and 2 only (any other descriptor, inherited or
    ///   not, is unusable);
    /// - memory: `brk`, `munmap`, `mremap`, `madvise`, and `mmap`/`mprotect` of anonymous,
    ///   never executable memory;
    /// - `futex`, `sched_yield`, the clocks, `getrandom`, signal returns and masks, `exit`;
    /// - `getpid`/`gettid`, and `tgkill` of this process only (what `abort` does).
    ///
    /// Everything else (`open*`, `socket`, `connect`, `execve`, `clone`, `fork`, `kill`,
    /// `ptrace`, `prlimit64`…) fails with `EPERM`: the engine's own fallbacks (e.g. time
    /// zone files) degrade instead of crashing.
    fn filter() -> Result<BpfProgram, String> {
        let e = |e: seccompiler::BackendError| e.to_string();
        let cond = |arg: u8, op: Op, v: u64| Cond::new(arg, Len::Dword, op, v).map_err(e);
        let rule = |c: Vec<Cond>| SeccompRule::new(c).map_err(e);
        let prot_exec = nix::sys::mman::ProtFlags::PROT_EXEC.bits() as u64;
        let pid = u64::from(std::process::id());
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        rules.insert(libc::SYS_read, vec![rule(vec![cond(0, Op::Eq, 0)?])?]);
        rules.insert(
            libc::SYS_write,
            vec![
                rule(vec![cond(0, Op::Eq, 1)?])?,
                rule(vec![cond(0, Op::Eq, 2)?])?,
            ],
        );
        rules.insert(
            libc::SYS_mmap,
            vec![rule(vec![
                cond(2, Op::MaskedEq(prot_exec), 0)?,
                cond(4, Op::Eq, u64::from(u32::MAX))?,
            ])?],
        );
        rules.insert(
            libc::SYS_mprotect,
            vec![rule(vec![cond(2, Op::MaskedEq(prot_exec), 0)?])?],
        );
        rules.insert(libc::SYS_tgkill, vec![rule(vec![cond(0, Op::Eq, pid)?])?]);
        for sys in [
            libc::SYS_brk,
            libc::SYS_munmap,
            libc::SYS_mremap,
            libc::SYS_madvise,
            libc::SYS_futex,
            libc::SYS_sched_yield,
            libc::SYS_clock_gettime,
            libc::SYS_clock_getres,
            libc::SYS_gettimeofday,
            libc::SYS_getrandom,
            libc::SYS_rt_sigreturn,
            libc::SYS_rt_sigprocmask,
            libc::SYS_rt_sigaction,
            libc::SYS_sigaltstack,
            libc::SYS_getpid,
            libc::SYS_gettid,
            libc::SYS_close,
            libc::SYS_exit,
            libc::SYS_exit_group,
        ] {
            rules.insert(sys, Vec::new());
        }
        let arch = std::env::consts::ARCH.try_into().map_err(e)?;
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Errno(libc::EPERM as u32),
            SeccompAction::Allow,
            arch,
        )
        .map_err(e)?;
        filter.try_into().map_err(e)
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) mod os {
    //! Elsewhere: the worker is a separate process the gateway kills at the limit, without
    //! the Linux confinement (see SECURITY.md).

    use crate::Limits;

    pub(crate) struct Prepared;

    pub(crate) fn open_fds() -> Vec<u32> {
        Vec::new()
    }

    pub(crate) fn prepare() -> Result<Prepared, String> {
        Ok(Prepared)
    }

    pub(crate) fn confine(_p: Prepared, _limits: &Limits) -> Result<(), String> {
        Ok(())
    }

    pub(crate) fn raise_segv() {}
}
