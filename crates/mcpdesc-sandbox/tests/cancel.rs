//! A cancelled request drops `execute`'s future: the engine thread must stop at its next
//! interrupt poll, not spin to its wall time. Oracle: the process's threads named
//! `mcpdesc-sandbox` (Linux `/proc/self/task/*/comm`). In its own test binary so no other
//! test's engine threads are counted.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use mcpdesc_sandbox::{BoxFuture, Host, Limits, execute};
use serde_json::Value;

struct Echo;

impl Host for Echo {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { Ok(args) })
    }
}

fn engine_threads() -> Option<usize> {
    let mut n = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let comm = std::fs::read_to_string(task.ok()?.path().join("comm")).ok()?;
        if comm.trim_end() == "mcpdesc-sandbox" {
            n += 1;
        }
    }
    Some(n)
}

#[tokio::test]
async fn dropping_the_execution_stops_the_engine() {
    let Some(0) = engine_threads() else {
        eprintln!("no /proc/self/task (or engine threads already running): skipped");
        return;
    };
    let host: Arc<dyn Host> = Arc::new(Echo);
    let limits = Limits {
        wall: Duration::from_secs(10),
        ..Limits::default()
    };
    let names = vec!["echo".to_owned()];
    let fut = execute("await api.echo({}); for (;;) {}", &names, host, &limits);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), fut)
            .await
            .is_err()
    );
    assert_eq!(
        engine_threads(),
        Some(1),
        "the engine should still be spinning here"
    );
    // Dropped above; the interrupt handler sees the stop flag within milliseconds.
    let mut left = Some(1);
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        left = engine_threads();
        if left == Some(0) {
            break;
        }
    }
    assert_eq!(
        left,
        Some(0),
        "the engine kept running after its execution was dropped"
    );
}
