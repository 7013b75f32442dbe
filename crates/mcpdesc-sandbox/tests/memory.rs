//! Memory returns after every limit: each script runs in its own worker process, which exits
//! with it. Oracle: the gateway process's resident set (Linux `/proc/self/statm`) after ten
//! executions that each fill the 64 MiB heap limit grows by less than one execution's limit —
//! were any heap kept on this side (a result, a log), it would grow by ~640 MiB. In its own test
//! binary so no other test's allocations are counted.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use mcpdesc_sandbox::{BoxFuture, ErrorKind, Host, Limits, Pool, WorkerCommand};
use serde_json::Value;

struct Echo;

impl Host for Echo {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { Ok(args) })
    }
}

fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[tokio::test]
async fn memory_returns_after_the_memory_limit() {
    let limits = Limits {
        wall: Duration::from_secs(10),
        ..Limits::default()
    };
    let host: Arc<dyn Host> = Arc::new(Echo);
    let pool = Pool::new(
        WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker")),
        2,
    );
    let execute = |code: &'static str| pool.execute(code, &[], host.clone(), &limits);
    let hog = "const a = []; for (;;) a.push(new Array(1e6));";
    // Warm-up: the allocator's first arena and the engine's code pages.
    let out = execute(hog).await;
    assert_eq!(out.error.map(|e| e.kind), Some(ErrorKind::Memory));
    let Some(before) = rss_bytes() else {
        eprintln!("no /proc/self/statm: skipped");
        return;
    };
    for _ in 0..10 {
        let out = execute(hog).await;
        assert_eq!(out.error.map(|e| e.kind), Some(ErrorKind::Memory));
    }
    let out = execute("return 40 + 2;").await;
    assert_eq!(out.result, Some(serde_json::json!(42)));
    let after = rss_bytes().unwrap();
    let growth = after.saturating_sub(before);
    eprintln!("RSS before {before} after {after} growth {growth}");
    assert!(growth < 32 * 1024 * 1024, "RSS grew by {growth} bytes");
}
