//! Criterion benches: a fresh sandbox running a trivial script (target <= 5 ms p50, a warm pool:
//! each script gets a worker process started ahead), and the per-`api`-call overhead, now a round
//! trip between processes: (20 calls through a script − the trivial script − 20 direct
//! `Host::call`s) / 20.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_sandbox::{BoxFuture, Host, Limits, Pool, WorkerCommand};
use serde_json::Value;

struct Instant;

impl Host for Instant {
    fn call(&self, _tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move { Ok(args) })
    }
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let host: Arc<dyn Host> = Arc::new(Instant);
    let tools = vec!["echo".to_owned()];
    let limits = Limits::default();
    let pool = Pool::new(
        WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker")),
        4,
    );
    let execute = |code: &'static str| pool.execute(code, &tools, host.clone(), &limits);
    c.bench_function("fresh sandbox + trivial script", |b| {
        b.iter(|| {
            let out = rt.block_on(execute("return 1 + 1;"));
            assert!(out.error.is_none());
        })
    });
    c.bench_function("20 direct host calls (baseline)", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut s = 0;
                for i in 0..20 {
                    let v = host
                        .call("echo", serde_json::json!({ "i": i }))
                        .await
                        .unwrap();
                    s += v["i"].as_i64().unwrap();
                }
                assert_eq!(s, 190);
            })
        })
    });
    c.bench_function("fresh sandbox + 20 sequential api calls", |b| {
        b.iter(|| {
            let out = rt.block_on(execute(
                "let s = 0; for (let i = 0; i < 20; i++) s += (await api.echo({i})).i; return s;",
            ));
            assert!(out.error.is_none());
        })
    });
}

criterion_group!(sandbox, benches);
criterion_main!(sandbox);
