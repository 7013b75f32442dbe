//! The builtins QuickJS does not interrupt (they loop in C without polling the interrupt
//! handler) and those that run into the heap limit inside one call: each answers within the wall
//! time plus 100 ms, measured from the call with no allowance for load, and its worker is killed
//! and reaped. Oracles: the wall clock, the kernel's process table (`/proc`: the worker is gone,
//! and every child left is an idle worker blocked in `read`, state `S`), and the scripts' own
//! arithmetic for the normal script after each. In its own test binary so that no other test's
//! workers are among this process's children.
#![allow(clippy::unwrap_used)]

mod common;
use common::{Echo, children};

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdesc_sandbox::{ErrorKind, Limits, Outcome, Pool, WorkerCommand};
use serde_json::json;

const WALL: Duration = Duration::from_millis(300);
/// The contract: the answer comes at most this long after the wall time.
const AFTER_WALL: Duration = Duration::from_millis(100);

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

/// Each script, and what it may end as.
const BUILTINS: &[(&str, &[ErrorKind])] = &[
    (
        "return Array.prototype.indexOf.call({length: 2 ** 40}, 1);",
        &[ErrorKind::Timeout],
    ),
    (
        "return Array.prototype.lastIndexOf.call({length: 2 ** 40}, 1);",
        &[ErrorKind::Timeout],
    ),
    (
        "return Array.prototype.includes.call({length: 2 ** 40}, 1);",
        &[ErrorKind::Timeout],
    ),
    (
        "return Array.prototype.fill.call({length: 2 ** 40}, 0);",
        &[ErrorKind::Timeout, ErrorKind::Memory],
    ),
    (
        "return Array.prototype.join.call({length: 2 ** 40}, 'x').length;",
        &[ErrorKind::Timeout, ErrorKind::Memory],
    ),
    (
        "const a = []; for (;;) a.push('y'.repeat(2 ** 20 - 1));",
        &[ErrorKind::Timeout, ErrorKind::Memory],
    ),
    (
        "const t = 'z'.repeat(2 ** 24); const k = []; for (;;) k.push(t.padStart(2 ** 25, 'ab'));",
        &[ErrorKind::Timeout, ErrorKind::Memory],
    ),
    (
        "let o = [0]; for (let i = 0; i < 40; i++) o = [o, o]; return JSON.stringify(o).length;",
        &[ErrorKind::Timeout, ErrorKind::Memory],
    ),
    (
        "const a = Array.from({length: 2 ** 12}, (_, i) => i); \
         function cmp(x, y) { [3, 2, 1].sort(cmp); return x - y; } a.sort(cmp);",
        &[ErrorKind::Timeout, ErrorKind::Stack],
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_builtin_ends_within_the_wall_time_and_its_worker_is_gone() {
    let Some(start) = children() else {
        eprintln!("no /proc: skipped");
        return;
    };
    assert!(start.is_empty(), "{start:?}");
    let pool = Pool::new(
        WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker")),
        4,
    );
    // Warm: the idle workers are started and ready.
    let (out, _) = timed(&pool, "return 0;").await;
    assert_eq!(out.result, Some(json!(0)), "{out:?}");
    let mut pids = Vec::new();
    for (code, kinds) in BUILTINS {
        let (out, took) = timed(&pool, code).await;
        let kind = out.error.as_ref().map(|e| e.kind);
        eprintln!("{took:?} {kind:?}: {code}");
        assert!(
            kind.is_some_and(|k| kinds.contains(&k)),
            "{code}: expected one of {kinds:?}, got {out:?}"
        );
        assert!(
            took <= WALL + AFTER_WALL,
            "{code}: answered after {took:?}, over the wall time {WALL:?} + {AFTER_WALL:?}"
        );
        let pid = out.worker.unwrap();
        // A worker killed at the hard stop has been reaped when the answer comes.
        if took > WALL + mcpdesc_sandbox::GRACE {
            assert!(gone(pid), "{code}: worker {pid} still exists");
        }
        pids.push(pid);
        // The next script runs normally, at once.
        let (ok, took) = timed(&pool, "return 1 + 1;").await;
        assert_eq!(ok.result, Some(json!(2)), "after {code}: {ok:?}");
        assert!(took < Duration::from_secs(1), "after {code}: {took:?}");
        pids.push(ok.worker.unwrap());
    }
    // No CPU is used on the scripts' behalf: their workers are gone (one that answered itself
    // exits just after and is reaped in the background), and every child left is an idle
    // worker blocked in `read`. A spare the pool forked just before may still be starting
    // (`R`unning its own set-up, once seen in a full run), so each must be asleep within a
    // second; a script's worker still computing would not be.
    for pid in &pids {
        let t0 = Instant::now();
        while !gone(*pid) {
            assert!(
                t0.elapsed() < Duration::from_secs(1),
                "worker {pid} lingers"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    let t0 = Instant::now();
    loop {
        let left = children().unwrap();
        assert!(left.len() <= 4, "{left:?}");
        if left.iter().all(|(_, s)| *s == 'S') {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(1), "{left:?}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}
