//! Code mode (issue 22) through `mcpdesc serve`, in process over a stdio pipe:
//! - a fresh sandbox per `execute` (`return 1 + 1`; target ≤ 5 ms);
//! - the per-`api`-call overhead over a direct `tools/call`: (an `execute` making 20
//!   calls − the trivial `execute` − 20 direct `tools/call`s) / 20 (target ≤ 0.2 ms), on
//!   the hand-written every-revision description's mocked `echo`;
//! - `search_api` answering 10 tools' declarations on the GitHub description (target
//!   ≤ 2 ms; the IR is lowered on the first `search_api`, before the timing);
//! - and, printed and checked once, the code-mode `tools/list` of the GitHub description
//!   (target ≤ 4,000 bytes).
//!
//! Run: `cargo bench -p mcpdesc-bench --bench code`.

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_bench::{github_spec, import_description, workspace_root};
use mcpdesc_serve::CodeLimits as Limits;
use mcpdesc_serve::{
    BackendOptions, CodeOptions, Discovery, Log, MockOptions, Options, ServeOptions, Server,
    Transport,
};
use serde_json::{Value, json};
use std::sync::Arc;

#[path = "common/pipe.rs"]
mod pipe;
use pipe::Client;

fn server(doc: Value, discovery: Discovery) -> Arc<Server> {
    let (log, _) = Log::buffer();
    let p = mcpdesc_serve::prepare(
        Arc::new(doc),
        Options {
            serve: ServeOptions {
                log,
                discovery,
                ..ServeOptions::default()
            },
            backend: BackendOptions::Mock(MockOptions::default()),
            transport: Transport::Stdio,
        },
    )
    .expect("prepares");
    Arc::clone(p.server())
}

fn code() -> Discovery {
    Discovery::Code(CodeOptions {
        limits: Limits::default(),
        lexical: true,
        worker: mcpdesc_serve::CodeWorker::new(env!("CARGO_BIN_EXE_sandbox_worker")),
    })
}

fn benches(c: &mut Criterion) {
    let rt = pipe::runtime();
    let path = workspace_root().join("tests/fixtures/serve/mcp/every-revision.mcpdesc.yaml");
    let bytes = std::fs::read(&path).expect("fixture");
    let doc = mcpdesc_core::decode_bytes(
        &bytes,
        mcpdesc_core::Format::Yaml,
        &mcpdesc_core::Limits::default(),
    )
    .expect("decodes")
    .value;
    let direct = server(doc.clone(), Discovery::Direct);
    let coded = server(doc, code());
    let mut d = Client::open(&rt, &direct);
    let mut k = Client::open(&rt, &coded);
    let echo = json!({"text": "hello"});
    c.bench_function("code/execute: fresh sandbox, return 1 + 1", |b| {
        b.iter(|| k.call("execute", json!({"code": "return 1 + 1;"})));
    });
    c.bench_function("code/20 direct tools/call of echo (baseline)", |b| {
        b.iter(|| {
            for _ in 0..20 {
                d.call("echo", echo.clone());
            }
        });
    });
    let script = "let n = 0; for (let i = 0; i < 20; i++) n += (await api.echo({text: 'hello'})).echoed.length; return n;";
    let r = k.call("execute", json!({ "code": script }));
    assert_eq!(r["structuredContent"]["result"], 100, "{r}");
    c.bench_function("code/execute: 20 api calls of echo", |b| {
        b.iter(|| k.call("execute", json!({ "code": script })));
    });

    let Some(spec) = github_spec() else {
        eprintln!("code: the GitHub spec is missing (cargo xtask deps); GitHub benches skipped");
        return;
    };
    let github = import_description(&spec).expect("imports");
    let coded = server(github, code());
    let mut g = Client::open(&rt, &coded);
    let list = g.request("tools/list", json!({}));
    let bytes = serde_json::to_vec(&list["result"]).expect("json").len();
    eprintln!("code/github tools/list: {bytes} bytes (target ≤ 4,000)");
    assert!(
        bytes <= 4000,
        "code-mode tools/list of GitHub: {bytes} bytes"
    );
    let query = json!({"query": "close the issue about the login bug", "limit": 10});
    let first = g.call("search_api", query.clone());
    let n = first["structuredContent"]["tools"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(n, 10, "{first}");
    eprintln!(
        "code/github search_api: {} bytes of declarations for 10 tools",
        first["structuredContent"]["declarations"]
            .as_str()
            .map_or(0, str::len)
    );
    c.bench_function("code/github search_api: 10 declarations", |b| {
        b.iter(|| g.call("search_api", query.clone()));
    });
}

criterion_group!(code_mode, benches);
criterion_main!(code_mode);
