//! Code mode (issue 22): `--discovery code` serves `search_api` and `execute`.
//!
//! Oracles: hand-written expectations (the two tool names, which fields each revision
//! defines, the issue's hostile scripts and the limit each must hit), the server's own
//! direct `tools/call` (an `api` call must answer and send exactly what a direct call
//! does), and what a recording upstream received, byte for byte.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::*;
use mcpdesc_serve::CodeLimits as Limits;
use mcpdesc_serve::{CodeOptions, Discovery, ServeOptions};
use mcpdesc_tests::fixture;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The `mcpdesc` binary's hidden worker: this test binary is not one.
fn worker() -> mcpdesc_serve::CodeWorker {
    mcpdesc_serve::CodeWorker::new(mcpdesc_tests::mcpdesc_bin()).arg("__sandbox-worker")
}

fn petstore() -> Value {
    load(&fixture("../generated/petstore-3.0.mcpdesc.yaml"))
}

fn code_opts(limits: Limits) -> ServeOptions {
    ServeOptions {
        discovery: Discovery::Code(CodeOptions {
            limits,
            lexical: true,
            worker: worker(),
        }),
        ..ServeOptions::default()
    }
}

fn code_server(
    doc: &Value,
    backend: mcpdesc_serve::BackendOptions,
    limits: Limits,
) -> (Arc<mcpdesc_serve::Server>, Arc<Mutex<Vec<String>>>) {
    server_opts(doc, backend, code_opts(limits))
}

fn call(c: &mut Conn, env: &Option<Value>, name: &str, args: Value) -> Value {
    c.call(env, "tools/call", json!({"name": name, "arguments": args}))
}

fn execute(c: &mut Conn, env: &Option<Value>, code: &str) -> Value {
    call(c, env, "execute", json!({"code": code}))
}

fn text_of(r: &Value) -> String {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn tools_list_is_search_api_and_execute_at_every_revision() {
    let doc = every_revision();
    let (server, _) = code_server(&doc, mock(), Limits::default());
    let rt = Arc::new(rt());
    for rev in server.revisions().iter() {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let (tools, pages) = c.list_all(&env, "tools/list", "tools");
        assert_eq!(pages.len(), 1);
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["search_api", "execute"], "{rev}");
        // Fields per revision (title and outputSchema since 2025-06-18, annotations
        // since 2025-03-26).
        for t in &tools {
            assert_eq!(t.get("title").is_some(), rev >= V2025_06_18, "{rev}");
            assert_eq!(t.get("outputSchema").is_some(), rev >= V2025_06_18, "{rev}");
            assert_eq!(t.get("annotations").is_some(), rev >= V2025_03_26, "{rev}");
        }
        // The limits are stated in execute's description, from the options.
        let d = tools[1]["description"].as_str().unwrap_or_default();
        assert!(
            d.contains("10 s wall time, 64 MiB memory, 50 api calls (8 at once)"),
            "{d}"
        );
        // A served tool is not callable directly.
        let r = call(&mut c, &env, "add", json!({"a": 1, "b": 2}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
}

#[test]
fn search_api_declares_matches_and_pages_through_everything() {
    let doc = petstore();
    let (server, _) = code_server(&doc, mock(), Limits::default());
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2025_11_25);
    let r = call(
        &mut c,
        &env,
        "search_api",
        json!({"query": "get_pet", "limit": 3}),
    );
    let s = &r["result"]["structuredContent"];
    assert_eq!(s["tools"][0], "get_pet", "an exact name ranks first: {r}");
    let decls = s["declarations"].as_str().expect("declarations");
    assert!(decls.contains("declare const api: {"), "{decls}");
    assert!(
        decls.contains("  get_pet(args: GetPetInput): Promise<GetPetOutput>;\n"),
        "{decls}"
    );
    assert!(
        text_of(&r).starts_with(decls),
        "the text is the declarations"
    );

    // query "" pages through every tool served at the revision, in list order.
    let (direct, _) = server_opts(&doc, mock(), ServeOptions::default());
    let mut d = Conn::open(&rt, &direct);
    let denv = d.open_at(V2025_11_25);
    let (listed, _) = d.list_all(&denv, "tools/list", "tools");
    let want: Vec<Value> = listed.iter().map(|t| t["name"].clone()).collect();
    let mut got = Vec::new();
    let mut offset = json!(0);
    for _ in 0..want.len() {
        let r = call(
            &mut c,
            &env,
            "search_api",
            json!({"query": "", "limit": 4, "offset": offset}),
        );
        let s = &r["result"]["structuredContent"];
        assert_eq!(s["total"], want.len(), "{r}");
        got.extend(s["tools"].as_array().cloned().unwrap_or_default());
        match s.get("nextOffset") {
            Some(n) => offset = n.clone(),
            None => break,
        }
    }
    assert_eq!(got, want);

    // Hostile input is a tool error, and the server answers after it.
    let long = "pet ".repeat(1_000);
    for (args, expect) in [
        (json!({"query": "pet", "limit": 1_000_000}), "maximum"),
        (json!({"query": "pet", "offset": -1}), "minimum"),
        (json!({"query": long}), "maxLength"),
        (
            json!({"query": "pet", "surprise": 1}),
            "additionalProperties",
        ),
        (json!({}), "required"),
    ] {
        let r = call(&mut c, &env, "search_api", args.clone());
        assert_eq!(r["result"]["isError"], true, "{args}: {r}");
        assert!(text_of(&r).contains(expect), "{expect}: {}", text_of(&r));
    }
    let r = call(
        &mut c,
        &env,
        "search_api",
        json!({"query": "", "offset": 1_000_000}),
    );
    assert_eq!(r["result"]["structuredContent"]["tools"], json!([]), "{r}");
}

/// Scripts chaining two and three calls send the upstream exactly the requests the same
/// calls made directly send (heads and bodies, byte for byte), and resolve to the direct
/// results' structured content.
#[test]
fn chained_api_calls_send_what_direct_calls_send() {
    let doc = petstore();
    let rt = Arc::new(rt());
    let calls = [
        ("get_pet", json!({"id__path": 7, "id__query": "a b/ü"})),
        ("create_pet", json!({"name": "Rex", "tag": "dog"})),
        ("get_pet", json!({"id__path": 8})),
    ];
    for n in [2usize, 3] {
        // One upstream (the Host header names its port): the direct calls first, then
        // the script's.
        let up = Upstream::start(200, r#"{"id": 1, "name": "Rex"}"#, Duration::ZERO);
        let (direct, _) = server_opts(
            &doc,
            rest(Some(up.base_url()), &doc),
            ServeOptions::default(),
        );
        let (code, log) = code_server(&doc, rest(Some(up.base_url()), &doc), Limits::default());
        let mut d = Conn::open(&rt, &direct);
        let denv = d.open_at(V2025_11_25);
        let mut want = Vec::new();
        for (tool, args) in &calls[..n] {
            let r = call(&mut d, &denv, tool, args.clone());
            want.push(r["result"]["structuredContent"].clone());
        }
        let script: String = calls[..n]
            .iter()
            .enumerate()
            .map(|(i, (tool, args))| format!("const r{i} = await api.{tool}({args});\n"))
            .chain(std::iter::once(format!(
                "return [{}];",
                (0..n)
                    .map(|i| format!("r{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
            .collect();
        let mut c = Conn::open(&rt, &code);
        let env = c.open_at(V2025_11_25);
        let r = execute(&mut c, &env, &script);
        let s = &r["result"]["structuredContent"];
        assert_eq!(r["result"].get("isError"), None, "{r}");
        assert_eq!(s["result"], json!(want), "{r}");
        let tools: Vec<&str> = calls[..n].iter().map(|(t, _)| *t).collect();
        let called: Vec<&str> = s["calls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["tool"].as_str())
            .collect();
        assert_eq!(called, tools);
        let heads = up.request_heads();
        let bodies = up.bodies.lock().expect("bodies").clone();
        assert_eq!(heads.len(), 2 * n, "{heads:?}");
        assert_eq!(heads[n..], heads[..n], "heads, byte for byte");
        assert_eq!(bodies[n..], bodies[..n], "bodies, byte for byte");
        assert!(bodies.iter().any(|b| !b.is_empty()), "a body was sent");
        // Each api call has the direct call's log line, marked.
        let lines = log.lock().expect("log").clone();
        let via = lines.iter().filter(|l| l.contains("via execute")).count();
        assert_eq!(via, n, "{lines:?}");
    }
}

/// An `api` call with invalid arguments throws the direct call's message and sends
/// nothing; a caught tool error lets the script go on.
#[test]
fn invalid_api_arguments_throw_the_direct_message_and_send_nothing() {
    let doc = petstore();
    let rt = Arc::new(rt());
    let up = Upstream::start(200, r#"{"id": 1, "name": "Rex"}"#, Duration::ZERO);
    let (direct, _) = server_opts(
        &doc,
        rest(Some(up.base_url()), &doc),
        ServeOptions::default(),
    );
    let (code, _) = code_server(&doc, rest(Some(up.base_url()), &doc), Limits::default());
    let bad = json!({"id__path": "seven", "extra": true});
    let mut d = Conn::open(&rt, &direct);
    let denv = d.open_at(V2025_11_25);
    let straight = call(&mut d, &denv, "get_pet", bad.clone());
    let message = text_of(&straight);
    assert_eq!(straight["result"]["isError"], true);
    let mut c = Conn::open(&rt, &code);
    let env = c.open_at(V2025_11_25);
    let script = format!(
        "try {{ await api.get_pet({bad}); return 'sent'; }} catch (e) {{ return e.message; }}"
    );
    let r = execute(&mut c, &env, &script);
    assert_eq!(
        r["result"]["structuredContent"]["result"],
        json!(message),
        "{r}"
    );
    // Uncaught: the execution fails with the message and the script's line:column.
    let r = execute(&mut c, &env, &format!("\n  await api.get_pet({bad});"));
    assert_eq!(r["result"]["isError"], true, "{r}");
    let e = &r["result"]["structuredContent"]["error"];
    // The script's error is the thrown Error, named as JavaScript names it.
    assert_eq!(e["message"], json!(format!("Error: {message}")), "{r}");
    assert_eq!(e["line"], 2, "{r}");
    assert!(up.request_heads().is_empty(), "{:?}", up.request_heads());
}

/// Issue 34's report through serve: builtins that never poll the interrupt, run more often
/// than there are pool slots, each answer `isError` with kind `timeout` within the wall time
/// plus 100 ms (measured around the request, no allowance for load), and `return 1 + 1` is
/// answered at once after each: nothing pauses code mode.
#[test]
fn stuck_builtins_time_out_at_the_limit_and_never_pause_code_mode() {
    let doc = petstore();
    let rt = Arc::new(rt());
    let wall = Duration::from_millis(500);
    let limits = Limits {
        wall,
        ..Limits::default()
    };
    let (code, _) = code_server(
        &doc,
        mcpdesc_serve::BackendOptions::Mock(Default::default()),
        limits,
    );
    let mut c = Conn::open(&rt, &code);
    let env = c.open_at(V2025_11_25);
    // Warm the pool (its idle workers start on the first execute).
    let r = execute(&mut c, &env, "return 0;");
    assert_eq!(r["result"]["structuredContent"]["result"], 0, "{r}");
    for builtin in [
        "indexOf",
        "lastIndexOf",
        "includes",
        "indexOf",
        "includes",
        "lastIndexOf",
    ] {
        let script = format!("return Array.prototype.{builtin}.call({{length: 2 ** 40}}, 1);");
        let t0 = Instant::now();
        let r = execute(&mut c, &env, &script);
        let took = t0.elapsed();
        let res = &r["result"];
        assert_eq!(res["isError"], true, "{script}: {r:.500}");
        assert_eq!(
            res["structuredContent"]["error"]["kind"], "timeout",
            "{r:.500}"
        );
        assert!(
            took <= wall + Duration::from_millis(100),
            "{script}: {took:?}"
        );
        let t0 = Instant::now();
        let r = execute(&mut c, &env, "return 1 + 1;");
        assert_eq!(
            r["result"]["structuredContent"]["result"], 2,
            "after {script}: {r}"
        );
        assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    }
}

/// The issue's hostile scripts through serve: each ends in a clean `isError` within its
/// limit, the server answers the next request, and the upstream receives only the calls
/// the script was allowed to make.
#[test]
fn hostile_scripts_end_in_a_tool_error_and_the_server_goes_on() {
    let doc = petstore();
    let rt = Arc::new(rt());
    let up = Upstream::start(200, r#"{"id": 1, "name": "Rex"}"#, Duration::ZERO);
    let limits = Limits {
        wall: Duration::from_secs(3),
        memory_bytes: 32 * 1024 * 1024,
        max_calls: 5,
        ..Limits::default()
    };
    let (code, _) = code_server(&doc, rest(Some(up.base_url()), &doc), limits);
    let mut c = Conn::open(&rt, &code);
    let env = c.open_at(V2025_11_25);
    let cases: &[(&str, &str, &str)] = &[
        ("while(true){}", "timeout", ""),
        (
            "const a = []; for(;;) a.push(new Array(1e6).fill(1));",
            "memory|timeout",
            "",
        ),
        (
            "function f(n){ return f(n+1) + 1; } return f(0);",
            "stack",
            "",
        ),
        (
            "return 'x'.repeat(100 * 1024 * 1024);",
            "memory|output_limit",
            "",
        ),
        (
            "for (let i = 0; i < 10000; i++) await api.get_pet({id__path: i});",
            "call_limit",
            "",
        ),
        (
            "const g = globalThis.constructor.constructor('return this')(); return typeof g.process + typeof g.require;",
            "",
            "undefinedundefined",
        ),
        ("await import('os');", "exception", ""),
        ("require('fs');", "exception", "require"),
        ("await fetch('http://127.0.0.1:1/');", "exception", "fetch"),
        (
            "Object.defineProperty(api, 'get_pet', {value: () => 1});",
            "exception",
            "",
        ),
        (
            "Atomics.wait(new Int32Array(4), 0, 0);",
            "exception",
            "Atomics",
        ),
        (
            "new SharedArrayBuffer(8);",
            "exception",
            "SharedArrayBuffer",
        ),
        ("await new Promise(() => {});", "unsettled", ""),
    ];
    for (script, kind, says) in cases {
        let before = up.request_heads().len();
        let t0 = Instant::now();
        let r = execute(&mut c, &env, script);
        let took = t0.elapsed();
        let res = &r["result"];
        let s = &res["structuredContent"];
        if kind.is_empty() {
            // Not an error: the escape attempt reached only the sandbox's own globals.
            assert_eq!(s["result"], *says, "{script}: {r:.500}");
        } else {
            assert_eq!(res["isError"], true, "{script}: {r:.500}");
            let got = s["error"]["kind"].as_str().unwrap_or_default();
            assert!(
                kind.split('|').any(|k| k == got),
                "{script}: {kind}? {r:.500}"
            );
            let shown = r.to_string();
            assert!(
                shown.len() < 2 * 1024 * 1024,
                "{script}: {} bytes",
                shown.len()
            );
            assert!(
                text_of(&r).contains(says),
                "{script}: `{says}` not in {}",
                text_of(&r)
            );
        }
        assert!(took < Duration::from_secs(6), "{script}: {took:?}");
        let sent = up.request_heads().len() - before;
        let allowed = if script.contains("api.get_pet") { 5 } else { 0 };
        assert!(sent <= allowed, "{script}: {sent} requests upstream");
        // The server answers the next request.
        let r = execute(&mut c, &env, "return 1 + 1;");
        assert_eq!(
            r["result"]["structuredContent"]["result"], 2,
            "after {script}: {r}"
        );
    }
    // Prototype pollution does not reach the next execution.
    let r = execute(
        &mut c,
        &env,
        "Object.prototype.polluted = 1; return ({}).polluted;",
    );
    assert_eq!(r["result"]["structuredContent"]["result"], 1);
    let r = execute(&mut c, &env, "return typeof ({}).polluted;");
    assert_eq!(r["result"]["structuredContent"]["result"], "undefined");
}

/// `search_api`'s declarations at every revision name exactly the tools `execute` can
/// call there (a tool scoped to some revisions is declared only where it is served).
#[test]
fn declared_tools_are_the_callable_tools_per_revision() {
    let doc = every_revision();
    let (server, _) = code_server(&doc, mock(), Limits::default());
    let rt = Arc::new(rt());
    for rev in [V2025_06_18, V2025_11_25, V2026_07_28] {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let r = call(
            &mut c,
            &env,
            "search_api",
            json!({"query": "", "limit": 50}),
        );
        let s = &r["result"]["structuredContent"];
        let declared: Vec<String> = s["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect();
        let r = execute(&mut c, &env, "return Object.keys(api);");
        let callable = &r["result"]["structuredContent"]["result"];
        assert_eq!(callable, &json!(declared), "{rev}: {r}");
        if rev == V2026_07_28 {
            continue;
        }
        // The mock answers an api call as a direct call would.
        let r = execute(
            &mut c,
            &env,
            "const e = await api.echo({text: 'hello'}); return e;",
        );
        assert_eq!(
            r["result"]["structuredContent"]["result"],
            json!({"echoed": "hello"}),
            "{rev}: {r}"
        );
    }
}

/// The declarations `search_api` answers compile under `tsc --strict` with a script that
/// uses them (the type check is this test, not a runtime step), and the script, run by
/// `execute`, works.
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn search_api_declarations_compile_with_the_script_execute_runs() {
    let cfg = mcpdesc_tests::check_config();
    if cfg.tsc().is_none() {
        return mcpdesc_tests::missing("typescript in .deps/node");
    }
    let doc = petstore();
    let up = Upstream::start(
        200,
        r#"{"id": 1, "name": "Rex", "tag": "dog"}"#,
        Duration::ZERO,
    );
    let (code, _) = code_server(&doc, rest(Some(up.base_url()), &doc), Limits::default());
    let rt = Arc::new(rt());
    let mut c = Conn::open(&rt, &code);
    let env = c.open_at(V2025_11_25);
    let script = "const pets = await Promise.all([1, 2].map((id) => api.get_pet({ id__path: id })));\nconst dogs: string[] = pets.filter((p) => p.tag === \"dog\").map((p) => p.name);\nreturn dogs;";
    let js = script.replace(": string[]", "");
    for (query, limit) in [("get a pet", 3), ("", 50)] {
        let r = call(
            &mut c,
            &env,
            "search_api",
            json!({"query": query, "limit": limit}),
        );
        let decls = r["result"]["structuredContent"]["declarations"]
            .as_str()
            .expect("declarations")
            .to_string();
        let dir =
            mcpdesc_tests::workspace_root().join(format!("target/code-mode-tsc/serve-{limit}"));
        let report = mcpdesc_codegen_check::check_declarations("serve", &dir, &decls, script, &cfg);
        assert!(report.ok, "{query:?}: {}\n{decls}", report.output);
    }
    let r = execute(&mut c, &env, &js);
    assert_eq!(
        r["result"]["structuredContent"]["result"],
        json!(["Rex", "Rex"]),
        "{r}"
    );
}

/// The code-mode `tools/list` of the GitHub description (1,223 tools behind two) is at
/// most 4,000 bytes at every revision it declares.
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn github_code_mode_tools_list_is_small() {
    let Some(modules) = mcpdesc_tests::node_modules() else {
        return mcpdesc_tests::missing(".deps/node");
    };
    let spec = modules.join("@octokit/openapi/generated/api.github.com.json");
    if !spec.exists() {
        return mcpdesc_tests::missing("@octokit/openapi in .deps/node");
    }
    let doc = mcpdesc_tests::import_file(&spec, &Default::default())
        .expect("imports")
        .value;
    let (server, _) = code_server(&doc, mock(), Limits::default());
    let rt = Arc::new(rt());
    for rev in server.revisions().iter() {
        let mut c = Conn::open(&rt, &server);
        let env = c.open_at(rev);
        let r = c.call(&env, "tools/list", json!({}));
        let bytes = serde_json::to_vec(&r["result"]["tools"])
            .expect("json")
            .len();
        eprintln!("GitHub code-mode tools/list at {rev}: {bytes} bytes");
        assert!(bytes <= 4000, "{rev}: {bytes} bytes");
        let r = call(
            &mut c,
            &env,
            "search_api",
            json!({"query": "close an issue", "limit": 10}),
        );
        let n = r["result"]["structuredContent"]["tools"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(n, 10, "{r:.400}");
    }
}
