//! A builtin that loops without polling QuickJS's interrupt handler (and without allocating)
//! cannot be stopped inside the engine. Oracle: the wall-time contract of `execute` (it returns
//! by wall + its 2 s grace), and the stuck-engine accounting. In its own test binary because the
//! abandoned thread spins until the process exits.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdesc_sandbox::{
    BoxFuture, ErrorKind, Host, Limits, MAX_STUCK_ENGINES, execute, stuck_engines,
};
use serde_json::Value;

struct Echo;

impl Host for Echo {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { Ok(args) })
    }
}

#[tokio::test]
async fn a_builtin_that_never_polls_the_interrupt_is_abandoned_and_counted() {
    let limits = Limits {
        wall: Duration::from_millis(200),
        ..Limits::default()
    };
    let host: Arc<dyn Host> = Arc::new(Echo);
    assert_eq!(stuck_engines(), 0);
    for n in 1..=MAX_STUCK_ENGINES {
        let t0 = Instant::now();
        let out = execute(
            "console.log('stuck next'); return Array.prototype.indexOf.call({length: 2 ** 40}, 1);",
            &[],
            host.clone(),
            &limits,
        )
        .await;
        let took = t0.elapsed();
        assert_eq!(
            out.error.as_ref().map(|e| e.kind),
            Some(ErrorKind::Timeout),
            "{out:?}"
        );
        assert!(took < Duration::from_millis(200 + 2000 + 500), "{took:?}");
        assert_eq!(stuck_engines(), n);
        // The logs made before the builtin survive the abandoned thread.
        assert_eq!(out.logs, ["stuck next"]);
    }
    // Fail closed: no new engine while the limit of stuck ones is reached.
    let out = execute("return 1;", &[], host.clone(), &limits).await;
    let e = out.error.unwrap();
    assert_eq!(e.kind, ErrorKind::Internal);
    assert!(e.message.contains("paused"), "{e:?}");
}
