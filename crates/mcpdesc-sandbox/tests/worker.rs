//! Scripts run in worker processes that are killed at the limit. Oracles: the wall clock (each
//! answer within the wall time plus 100 ms, measured from the call, no allowance for load), the
//! kernel's process table (`/proc`: a timed-out or crashed script's worker is gone), the errno
//! the kernel returns to a confined worker, and the scripts' own arithmetic. The builtins that
//! never poll the interrupt are `tests/builtins.rs`.
#![allow(clippy::unwrap_used)]

mod common;
use common::Echo;

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdesc_sandbox::{ErrorKind, Limits, Outcome, Pool, WorkerCommand};
use serde_json::json;

const WALL: Duration = Duration::from_millis(300);
/// The contract: the answer comes at most this long after the wall time.
const AFTER_WALL: Duration = Duration::from_millis(100);

fn command() -> WorkerCommand {
    WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker"))
}

fn limits() -> Limits {
    Limits {
        wall: WALL,
        ..Limits::default()
    }
}

fn gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

async fn timed(pool: &Pool, code: &str) -> (Outcome, Duration) {
    let t0 = Instant::now();
    let out = pool.execute(code, &[], Arc::new(Echo), &limits()).await;
    (out, t0.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_stuck_scripts_at_once_do_not_pause_code_mode() {
    let pool = Pool::new(command(), 4);
    let _ = timed(&pool, "return 0;").await;
    let stuck = "return Array.prototype.includes.call({length: 2 ** 40}, 1);";
    for _round in 0..2 {
        let t0 = Instant::now();
        let (a, b, c, d) = tokio::join!(
            timed(&pool, stuck),
            timed(&pool, stuck),
            timed(&pool, stuck),
            timed(&pool, stuck)
        );
        for (out, took) in [a, b, c, d] {
            assert_eq!(out.error.map(|e| e.kind), Some(ErrorKind::Timeout));
            assert!(took <= WALL + AFTER_WALL, "{took:?}");
            assert!(gone(out.worker.unwrap()));
        }
        assert!(t0.elapsed() <= WALL + AFTER_WALL, "{:?}", t0.elapsed());
        let (ok, took) = timed(&pool, "return [1, 2, 3].map(x => x * 2);").await;
        assert_eq!(ok.result, Some(json!([2, 4, 6])), "{ok:?}");
        assert!(took < Duration::from_secs(1), "{took:?}");
    }
}

async fn hook(pool: &Pool, name: &str) -> Outcome {
    let turn = pool.turn(Duration::from_secs(5)).await.unwrap();
    turn.run(
        "return 'no hook';",
        &[],
        Arc::new(Echo),
        &limits(),
        Some(name),
    )
    .await
}

#[tokio::test]
async fn a_crashed_worker_is_an_error_for_its_script_only() {
    let pool = Pool::new(command().with_test_hooks(), 2);
    for (name, signal) in [("abort", "signal 6"), ("segv", "signal 11")] {
        let out = hook(&pool, name).await;
        let e = out.error.unwrap();
        assert_eq!(e.kind, ErrorKind::Crashed, "{name}: {e:?}");
        assert!(e.message.contains(signal), "{name}: {e:?}");
        assert!(gone(out.worker.unwrap()));
        let ok = pool
            .execute("return 6 * 7;", &[], Arc::new(Echo), &limits())
            .await;
        assert_eq!(ok.result, Some(json!(42)), "after {name}: {ok:?}");
    }
}

/// EPERM: the filter's answer to every system call it does not allow (`openat`, `socket`).
const EPERM: i64 = 1;

#[tokio::test]
async fn a_confined_worker_cannot_open_a_file_or_a_socket() {
    if !cfg!(target_os = "linux") {
        eprintln!("seccomp is Linux-only: skipped");
        return;
    }
    let pool = Pool::new(command().with_test_hooks(), 1);
    for name in ["open", "connect"] {
        let out = hook(&pool, name).await;
        assert!(out.error.is_none(), "{name}: {out:?}");
        assert_eq!(out.result, Some(json!({"errno": EPERM})), "{name}");
    }
}

#[tokio::test]
async fn hooks_are_ignored_unless_the_pool_enables_them() {
    let pool = Pool::new(command(), 1);
    let out = hook(&pool, "abort").await;
    assert_eq!(out.result, Some(json!("no hook")), "{out:?}");
}
