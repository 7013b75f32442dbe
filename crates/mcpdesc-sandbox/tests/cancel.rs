//! A cancelled request drops the execution's future: its worker process must be killed then,
//! not spin to its wall time. Oracle: the kernel's process table (`/proc/<pid>`): the worker
//! that is running the script is a child of this process in state `R`, and is gone once the
//! future is dropped. In its own test binary so no other test's workers are counted.
#![allow(clippy::unwrap_used)]

mod common;
use common::{Echo, children};

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdesc_sandbox::{Host, Limits, Pool, WorkerCommand};

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
