//! The search facade's `call_tool` (issue 21) on the GitHub description, in process over
//! a stdio pipe: one server object with `--discovery search --pin repos_get` answers both
//! a direct `tools/call` of `repos_get` and `call_tool {name: "repos_get", …}` with the
//! same arguments, against a backend double that answers at once, so the difference of
//! the two medians is what the facade adds to a call (target ≤ 0.1 ms p50). Both paths
//! validate the arguments against the tool's `inputSchema` and run the same backend call;
//! the facade adds its own argument check, the name lookup and the move into the direct
//! call's job.
//!
//! Run: `cargo bench -p mcpdesc-bench --bench facade`.

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdesc_bench::{github_spec, import_description};
use mcpdesc_rest::BoxFuture;
use mcpdesc_rest::call::{CallOutcome, ToolCall, text_result};
use mcpdesc_serve::{Backend, Discovery, Log, SearchOptions, ServeOptions, Server};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

#[path = "common/pipe.rs"]
mod pipe;
use pipe::Client;

/// Answers every call at once with the same small result: the upstream is not what is
/// measured.
#[derive(Debug)]
struct Instant;

impl Backend for Instant {
    fn call<'a>(&'a self, call: ToolCall<'a>) -> BoxFuture<'a, CallOutcome> {
        Box::pin(std::future::ready(CallOutcome {
            result: text_result(call.revision, "{\"id\": 1}"),
            log: Default::default(),
        }))
    }
}

/// Arguments the tool's `inputSchema` accepts: every required property, a string or 1.
fn arguments(tool: &Value) -> Value {
    let schema = &tool["inputSchema"];
    let mut args = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let v = match schema["properties"][name]["type"].as_str() {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            _ => json!("octocat"),
        };
        args.insert(name.to_string(), v);
    }
    Value::Object(args)
}

fn benches(c: &mut Criterion) {
    let Some(spec) = github_spec() else {
        eprintln!("facade: the GitHub spec is missing (cargo xtask deps); skipped");
        return;
    };
    let doc = import_description(&spec).expect("imports");
    const TOOL: &str = "repos_get";
    let tool = doc["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == TOOL)
        .cloned()
        .expect("repos_get");
    let args = arguments(&tool);
    let (log, _) = Log::buffer();
    let opts = ServeOptions {
        log,
        discovery: Discovery::Search(SearchOptions {
            pins: vec![TOOL.to_string()],
            lexical: true,
        }),
        ..ServeOptions::default()
    };
    let doc = mcpdesc_validate::Validator::new()
        .check_owned(doc)
        .expect("the GitHub import is valid");
    let server = Arc::new(Server::new(&doc, Arc::new(Instant), &opts).expect("builds"));
    let rt = pipe::runtime();
    let mut client = Client::open(&rt, &server);
    let direct = client.call(TOOL, args.clone());
    let via = client.call("call_tool", json!({"name": TOOL, "arguments": args}));
    assert_eq!(direct, via, "call_tool returns the tool's own result");
    let mut g = c.benchmark_group("facade");
    g.bench_function("github/direct tools/call repos_get", |b| {
        b.iter(|| client.call(TOOL, args.clone()))
    });
    let wrapped = json!({"name": TOOL, "arguments": args});
    g.bench_function("github/call_tool repos_get", |b| {
        b.iter(|| client.call("call_tool", wrapped.clone()))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = facade;
    config = config();
    targets = benches
}
criterion_main!(facade);
