//! The pool and the worker against a peer that breaks the protocol's bounds (the
//! survivors of a 34-mutant sample of this crate, seed 3303). The pool must not trust
//! its worker: a fake worker (a Python script speaking the frame protocol: a 4-byte
//! big-endian length, then JSON) that ignores the call limit is still stopped at it. And
//! the real worker refuses a frame header over its read bound without waiting for the body.
#![allow(clippy::unwrap_used)]

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpdesc_sandbox::{BoxFuture, ErrorKind, Host, Limits, Pool, WorkerCommand};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Says ready, takes the run message, then asks for 60 `add` calls one after another,
/// each after the previous one's reply: a worker that does not count its calls.
const GREEDY_WORKER: &str = r#"
import json, struct, sys
def send(m):
    b = json.dumps(m).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(b)) + b)
    sys.stdout.buffer.flush()
def recv():
    h = sys.stdin.buffer.read(4)
    if len(h) < 4:
        sys.exit(0)
    return json.loads(sys.stdin.buffer.read(struct.unpack(">I", h)[0]))
send({"t": "ready", "pid": 0, "fds": []})
recv()
for i in range(60):
    send({"t": "call", "id": i, "tool": "add", "args": {"a": i}})
    recv()
"#;

#[derive(Default)]
struct Counter(AtomicUsize);

impl Host for Counter {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(args) })
    }
}

fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
}

#[tokio::test]
async fn a_worker_that_ignores_the_call_limit_is_stopped_at_it() {
    let Some(py) = python() else {
        panic!("no python3 for the fake worker");
    };
    let pool = Pool::new(WorkerCommand::new(py).arg("-c").arg(GREEDY_WORKER), 1);
    let host = Arc::new(Counter::default());
    let limits = Limits {
        wall: Duration::from_secs(20),
        ..Limits::default()
    };
    assert_eq!(limits.max_calls, 50, "the documented default");
    let out = pool
        .execute("return 0;", &["add".to_string()], host.clone(), &limits)
        .await;
    // Call 51 is refused, though every earlier call had already been answered.
    assert_eq!(
        out.error.as_ref().map(|e| e.kind),
        Some(ErrorKind::CallLimit),
        "{out:?}"
    );
    assert_eq!(host.0.load(Ordering::SeqCst), 50);
}

#[tokio::test]
async fn the_worker_refuses_a_frame_over_its_bound_without_reading_the_body() {
    // A header announcing 512 MiB + 1 bytes (the worker reads at most 512 MiB), and
    // stdin left open: the worker must give up on the header alone.
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker"))
        .env_clear()
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut header = [0u8; 4];
    stdout.read_exact(&mut header).await.unwrap();
    let mut ready = vec![0u8; u32::from_be_bytes(header) as usize];
    stdout.read_exact(&mut ready).await.unwrap();
    let ready: Value = serde_json::from_slice(&ready).unwrap();
    assert_eq!(ready["t"], "ready");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&(512u32 * 1024 * 1024 + 1).to_be_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();
    // The exit is awaited; the bound only keeps a regression from hanging the suite.
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("the worker exits with its stdin still open")
        .unwrap();
    assert!(status.success(), "{status:?}");
    drop(stdin);
}
