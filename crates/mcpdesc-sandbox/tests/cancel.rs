//! A cancelled request drops the execution's future: its worker process must be killed then,
//! not spin to its wall time. Oracle: the kernel's process table (`/proc/<pid>`): the worker
//! that is running the script is a child of this process in state `R`, and is gone once the
//! future is dropped. In its own test binary so no other test's workers are counted.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdesc_sandbox::{BoxFuture, Host, Limits, Pool, WorkerCommand};
use serde_json::Value;

struct Echo;

impl Host for Echo {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { Ok(args) })
    }
}

/// The pids and states (`R`, `S`, `Z`…) of this process's children.
fn children() -> Option<Vec<(u32, char)>> {
    let me = std::process::id();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").ok()? {
        let Ok(e) = e else { continue };
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
        let rest = &stat[stat.rfind(')')? + 2..];
        let mut it = rest.split_whitespace();
        let state = it.next()?.chars().next()?;
        let ppid: u32 = it.next()?.parse().ok()?;
        if ppid == me {
            out.push((pid, state));
        }
    }
    Some(out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_execution_kills_its_worker() {
    let Some(before) = children() else {
        eprintln!("no /proc: skipped");
        return;
    };
    assert!(before.is_empty(), "{before:?}");
    let pool = Pool::new(
        WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker")),
        1,
    );
    let host: Arc<dyn Host> = Arc::new(Echo);
    let limits = Limits {
        wall: Duration::from_secs(10),
        ..Limits::default()
    };
    let names = vec!["echo".to_owned()];
    let fut = pool.execute("await api.echo({}); for (;;) {}", &names, host, &limits);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), fut)
            .await
            .is_err()
    );
    // Dropped above: kill_on_drop sent SIGKILL; tokio reaps it. What remains is the idle
    // worker the pool started ahead, waiting in `read` (state S).
    let t0 = Instant::now();
    loop {
        let now = children().unwrap();
        if now.iter().all(|(_, s)| *s == 'S') && now.len() <= 1 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "a worker kept running after its execution was dropped: {now:?}"
        );
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
