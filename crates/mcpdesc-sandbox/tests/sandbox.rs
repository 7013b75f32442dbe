//! Hostile scripts and behaviour of the code-mode sandbox. Oracles: the scripts' own arithmetic,
//! the calls a recording host saw, ECMA-262's list of global-object properties, and the line and
//! column of the `throw` as written in each script.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpdesc_sandbox::{BoxFuture, ErrorKind, Host, Limits, Outcome, Pool, WorkerCommand};

/// One script in a worker of a one-slot pool of this crate's worker program (a pool per call:
/// each `#[tokio::test]` has its own runtime, and a worker's pipes belong to one).
async fn execute(code: &str, tools: &[String], host: Arc<dyn Host>, limits: &Limits) -> Outcome {
    let pool = Pool::new(
        WorkerCommand::new(env!("CARGO_BIN_EXE_mcpdesc-sandbox-worker")),
        1,
    );
    pool.execute(code, tools, host, limits).await
}
use serde_json::{Value, json};

/// Records every call exactly as the host received it. `echo` answers `{tool, args}`, `add`
/// answers `args.a + args.b`, `fail` answers Err, `hang` never answers, `slow` sleeps 20 ms.
#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<(String, Value)>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Host for Recorder {
    fn call(&self, tool: &str, args: Value) -> BoxFuture<'_, Result<Value, String>> {
        self.calls
            .lock()
            .unwrap()
            .push((tool.to_owned(), args.clone()));
        let tool = tool.to_owned();
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_in_flight.fetch_max(now, Ordering::SeqCst);
            let out = match tool.as_str() {
                "echo" => Ok(json!({"tool": tool, "args": args})),
                "add" => Ok(json!(
                    args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)
                )),
                "fail" => Err(format!("no such person: {}", args["id"])),
                "hang" => std::future::pending().await,
                "panic" => panic!("a host bug"),
                "slow" => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Ok(args)
                }
                _ => Err(format!("unknown tool {tool}")),
            };
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            out
        })
    }
}

fn tools() -> Vec<String> {
    ["echo", "add", "fail", "hang", "slow", "panic"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn quick() -> Limits {
    Limits {
        wall: Duration::from_millis(700),
        ..Limits::default()
    }
}

/// For scripts that do real work before they hit their limit: on this shared 2-core machine a
/// 700 ms wall time can run out first.
fn roomy() -> Limits {
    Limits {
        wall: Duration::from_secs(5),
        ..Limits::default()
    }
}

async fn run_with(code: &str, limits: &Limits) -> (Outcome, Arc<Recorder>, Duration) {
    let host = Arc::new(Recorder::default());
    let t0 = Instant::now();
    let out = execute(code, &tools(), host.clone(), limits).await;
    (out, host, t0.elapsed())
}

async fn run(code: &str) -> (Outcome, Arc<Recorder>, Duration) {
    run_with(code, &quick()).await
}

fn kind(out: &Outcome) -> Option<ErrorKind> {
    out.error.as_ref().map(|e| e.kind)
}

/// After any hostile script, a fresh execution still works and sees pristine built-ins.
async fn next_execution_works() {
    let (out, host, _) =
        run("const r = await api.add({a: 2, b: 3}); return [r, ({}).polluted === undefined];")
            .await;
    assert_eq!(out.error, None);
    assert_eq!(out.result, Some(json!([5, true])));
    assert_eq!(host.calls.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_infinite_loop_ends_at_the_wall_time() {
    let (out, host, took) = run("while (true) {}").await;
    assert_eq!(kind(&out), Some(ErrorKind::Timeout), "{out:?}");
    assert!(took < Duration::from_millis(700 + 800), "{took:?}");
    // The deadline is armed by the sandbox a moment before the test reads its own clock
    // in `run` can: the final run saw 699.99 ms. 10 ms of slack keeps the "not early" check.
    assert!(took >= Duration::from_millis(690), "{took:?}");
    assert!(host.calls.lock().unwrap().is_empty());
    next_execution_works().await;
}

#[tokio::test]
async fn a_loop_that_catches_the_interrupt_still_ends() {
    let (out, _, took) = run("for (;;) { try { while (true) {} } catch (e) {} }").await;
    assert_eq!(kind(&out), Some(ErrorKind::Timeout), "{out:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[tokio::test]
async fn unbounded_allocation_hits_the_memory_limit() {
    let limits = Limits {
        wall: Duration::from_secs(5),
        memory_bytes: 32 * 1024 * 1024,
        ..Limits::default()
    };
    let (out, _, took) = run_with("const a = []; for (;;) a.push(new Array(1e6));", &limits).await;
    assert_eq!(kind(&out), Some(ErrorKind::Memory), "{out:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    next_execution_works().await;
}

#[tokio::test]
async fn catching_out_of_memory_does_not_escape_the_limits() {
    let limits = Limits {
        wall: Duration::from_millis(700),
        memory_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    };
    let code = "for (;;) { try { const a = []; for (;;) a.push(new Array(1e6)); } catch (e) {} }";
    let (out, _, took) = run_with(code, &limits).await;
    assert!(
        matches!(kind(&out), Some(ErrorKind::Timeout | ErrorKind::Memory)),
        "{out:?}"
    );
    assert!(took < Duration::from_millis(1500), "{took:?}");
    next_execution_works().await;
}

#[tokio::test]
async fn deep_recursion_hits_the_stack_limit() {
    let (out, _, _) = run("function f(n) { return f(n + 1) + 1; } return f(0);").await;
    assert_eq!(kind(&out), Some(ErrorKind::Stack), "{out:?}");
    let (out, _, _) =
        run("const o = {}; o.toString = function () { return String(this) }; return String(o);")
            .await;
    assert_eq!(kind(&out), Some(ErrorKind::Stack), "{out:?}");
    next_execution_works().await;
}

#[tokio::test]
async fn a_100_mb_string_is_refused() {
    let (out, _, _) = run("return 'x'.repeat(100 * 1024 * 1024);").await;
    assert!(
        matches!(kind(&out), Some(ErrorKind::Memory | ErrorKind::OutputLimit)),
        "{out:?}"
    );
    if let Some(Value::String(s)) = &out.result {
        assert!(s.len() < 1024 * 1024 + 200);
    }
    next_execution_works().await;
}

#[tokio::test]
async fn a_result_over_the_output_limit_is_cut_with_a_note() {
    let (out, _, _) = run("return 'é'.repeat(600 * 1024);").await; // 1.2 MB of UTF-8
    assert_eq!(kind(&out), Some(ErrorKind::OutputLimit), "{out:?}");
    let Some(Value::String(s)) = &out.result else {
        panic!("{out:?}")
    };
    assert!(s.len() <= 1024 * 1024 + 200, "{}", s.len());
    assert!(s.starts_with("\"éé"));
    assert!(
        s.ends_with("over the 1048576-byte limit]"),
        "{}",
        &s[s.len() - 100..]
    );
}

#[tokio::test]
async fn ten_thousand_calls_reach_the_host_at_most_max_calls_times() {
    let code = "const ps = []; for (let i = 0; i < 10000; i++) { try { ps.push(api.add({a: i, b: 0})); } catch (e) {} } await Promise.all(ps); return 'done';";
    let (out, host, _) = run_with(code, &roomy()).await;
    assert_eq!(kind(&out), Some(ErrorKind::CallLimit), "{out:?}");
    // The 51st call ends the script while earlier calls may still be on their way: the
    // ones the host was reached by are among the first 50, each once, never more.
    let seen = host.calls.lock().unwrap().clone();
    assert!(seen.len() <= 50, "{}", seen.len());
    let mut firsts: Vec<u64> = seen
        .iter()
        .map(|(tool, args)| {
            assert_eq!(tool, "add");
            assert_eq!(args["b"], json!(0));
            args["a"].as_u64().expect("a")
        })
        .collect();
    firsts.sort_unstable();
    firsts.dedup();
    assert_eq!(firsts.len(), seen.len(), "no call twice");
    assert!(firsts.iter().all(|&a| a < 50), "{firsts:?}");
    assert!(host.max_in_flight.load(Ordering::SeqCst) <= 8);
    next_execution_works().await;
}

#[tokio::test]
async fn sequential_calls_over_the_limit_end_the_execution() {
    let code = "let n = 0; for (;;) { try { await api.add({a: n, b: 1}); n++; } catch (e) {} }";
    let (out, host, took) = run_with(code, &roomy()).await;
    assert_eq!(kind(&out), Some(ErrorKind::CallLimit), "{out:?}");
    assert_eq!(host.calls.lock().unwrap().len(), 50);
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test]
async fn concurrent_calls_are_bounded_and_queued_in_order() {
    let limits = Limits {
        max_concurrent_calls: 3,
        ..quick()
    };
    let code = "const ps = []; for (let i = 0; i < 12; i++) ps.push(api.slow({i})); return (await Promise.all(ps)).map(r => r.i);";
    let (out, host, _) = run_with(code, &limits).await;
    assert_eq!(out.error, None);
    assert_eq!(
        out.result,
        Some(json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]))
    );
    assert_eq!(host.max_in_flight.load(Ordering::SeqCst), 3);
    let order: Vec<Value> = host
        .calls
        .lock()
        .unwrap()
        .iter()
        .map(|c| c.1["i"].clone())
        .collect();
    assert_eq!(order, (0..12).map(|i| json!(i)).collect::<Vec<_>>());
    assert_eq!(out.calls.len(), 12);
}

#[tokio::test]
async fn the_constructor_chain_reaches_only_the_js_global() {
    let code = r#"
        const g = globalThis.constructor.constructor('return this')();
        const names = Object.getOwnPropertyNames(g).sort();
        return { same: g === globalThis, names,
                 viaEval: typeof eval('this.require'), viaFn: typeof Function('return process')};
    "#;
    let (out, _, _) = run(code).await;
    // `Function('return process')` throws a ReferenceError only when called; typeof of the
    // function itself is "function".
    assert_eq!(out.error, None, "{out:?}");
    let r = out.result.unwrap();
    assert_eq!(r["same"], json!(true));
    assert_eq!(r["viaEval"], json!("undefined"));
    let allowed: Vec<&str> = mcpdesc_sandbox::ecmascript_globals()
        .iter()
        .chain(mcpdesc_sandbox::SANDBOX_GLOBALS)
        .copied()
        .collect();
    for name in r["names"].as_array().unwrap() {
        let name = name.as_str().unwrap();
        assert!(allowed.contains(&name), "global {name} is not ECMAScript");
    }
    for forbidden in [
        "require",
        "process",
        "Deno",
        "fetch",
        "XMLHttpRequest",
        "WebSocket",
        "std",
        "os",
        "Atomics",
        "SharedArrayBuffer",
        "queueMicrotask",
        "performance",
        "setTimeout",
    ] {
        assert!(
            !r["names"].as_array().unwrap().contains(&json!(forbidden)),
            "{forbidden}"
        );
    }
}

#[tokio::test]
async fn host_reaching_names_are_absent() {
    for (code, needle) in [
        ("return await import('os');", ""),
        ("return await import('std');", ""),
        ("return require('fs');", "require"),
        ("return await fetch('http://127.0.0.1:1');", "fetch"),
        ("return new XMLHttpRequest();", "XMLHttpRequest"),
        ("return new WebSocket('ws://127.0.0.1:1');", "WebSocket"),
        ("return process.env;", "process"),
        ("return Deno.readFile('x');", "Deno"),
        ("return Atomics.wait(new Int32Array(4), 0, 0);", "Atomics"),
        ("return new SharedArrayBuffer(8);", "SharedArrayBuffer"),
        ("return eval('std.open(\"/etc/passwd\")');", "std"),
    ] {
        let (out, host, took) = run(code).await;
        let e = out
            .error
            .clone()
            .unwrap_or_else(|| panic!("{code}: {out:?}"));
        assert_eq!(e.kind, ErrorKind::Exception, "{code}: {e:?}");
        assert!(e.message.contains(needle), "{code}: {e:?}");
        assert!(took < Duration::from_millis(700), "{code}: {took:?}");
        assert!(host.calls.lock().unwrap().is_empty());
    }
    next_execution_works().await;
}

#[tokio::test]
async fn api_is_frozen_and_unforgeable() {
    let code = r#"
        const tries = [];
        try { Object.defineProperty(api, 'echo', { value: () => 'forged' }); tries.push('defined'); } catch (e) { tries.push(e.name); }
        try { api.echo = () => 'forged'; tries.push('assigned'); } catch (e) { tries.push(e.name); }
        try { api.evil = () => 1; tries.push('added'); } catch (e) { tries.push(e.name); }
        try { api = {}; tries.push('rebound'); } catch (e) { tries.push(e.name); }
        try { delete globalThis.api; } catch (e) { tries.push(e.name); }
        try { Object.setPrototypeOf(api, { x: 1 }); tries.push('proto'); } catch (e) { tries.push(e.name); }
        Object.prototype.sneaky = () => 'polluted';
        const inherited = typeof api.sneaky;
        const r = await api.echo({ n: 1 });
        return { tries, r, inherited, isFrozen: Object.isFrozen(api) };
    "#;
    let (out, host, _) = run(code).await;
    assert_eq!(out.error, None, "{out:?}");
    let r = out.result.unwrap();
    // Every attempt fails (strict or not, a frozen object rejects defineProperty; assignment and
    // deletion are silently ignored in sloppy code, so their lines do not push).
    assert_eq!(
        r["tries"],
        json!(["TypeError", "assigned", "added", "rebound", "TypeError"])
    );
    assert_eq!(r["inherited"], json!("undefined"));
    assert_eq!(r["isFrozen"], json!(true));
    assert_eq!(r["r"], json!({"tool": "echo", "args": {"n": 1}}));
    assert_eq!(
        host.calls.lock().unwrap().clone(),
        vec![("echo".to_owned(), json!({"n": 1}))]
    );
    // The sloppy-mode "successes" changed nothing: the next line saw the real api.
    let (out, _, _) =
        run("'use strict'; try { api.echo = 1; return 'assigned'; } catch (e) { return e.name; }")
            .await;
    assert_eq!(out.result, Some(json!("TypeError")));
}

#[tokio::test]
async fn prototype_pollution_is_not_seen_by_the_next_execution() {
    let code = "Object.prototype.polluted = 1; Array.prototype.push = null; JSON.stringify = () => 'x'; globalThis.leak = 1; return ({}).polluted;";
    let (out, _, _) = run(code).await;
    assert_eq!(out.result, Some(json!(1)), "{out:?}");
    let (out, _, _) =
        run("const a = []; a.push(1); return [({}).polluted, typeof leak, JSON.stringify({a})];")
            .await;
    assert_eq!(out.error, None, "{out:?}");
    assert_eq!(out.result, Some(json!([null, "undefined", "{\"a\":[1]}"])));
}

#[tokio::test]
async fn a_promise_that_never_resolves_ends() {
    let (out, _, took) = run("await new Promise(() => {}); return 1;").await;
    assert_eq!(kind(&out), Some(ErrorKind::Unsettled), "{out:?}");
    assert!(took < Duration::from_millis(700));
    // One that waits on a host call that never answers ends at the wall time.
    let (out, host, took) = run("return await api.hang({});").await;
    assert_eq!(kind(&out), Some(ErrorKind::Timeout), "{out:?}");
    assert!(
        took >= Duration::from_millis(700) && took < Duration::from_millis(1500),
        "{took:?}"
    );
    assert_eq!(host.calls.lock().unwrap().len(), 1);
    assert_eq!(out.calls.len(), 1);
    assert!(out.calls[0].is_error);
    next_execution_works().await;
}

#[tokio::test]
async fn chained_calls_reach_the_host_exactly_as_written() {
    let code = r#"
        const a = await api.echo({ query: "Sofia Coppola", page: 1 });
        const b = await api.add({ a: a.args.page, b: 41 });
        return { a, b };
    "#;
    let (out, host, _) = run(code).await;
    assert_eq!(out.error, None, "{out:?}");
    assert_eq!(
        out.result,
        Some(
            json!({"a": {"tool": "echo", "args": {"query": "Sofia Coppola", "page": 1}}, "b": 42})
        )
    );
    assert_eq!(
        host.calls.lock().unwrap().clone(),
        vec![
            (
                "echo".to_owned(),
                json!({"query": "Sofia Coppola", "page": 1})
            ),
            ("add".to_owned(), json!({"a": 1, "b": 41})),
        ]
    );

    let code = r#"
        const x = await api.add({ a: 1, b: 2 });
        const y = await api.add({ a: x, b: 3.5 });
        const z = await api.echo({ list: [x, y], nested: { u: "ü\n", n: null } });
        return z;
    "#;
    let (out, host, _) = run(code).await;
    assert_eq!(out.error, None, "{out:?}");
    assert_eq!(
        host.calls.lock().unwrap().clone(),
        vec![
            ("add".to_owned(), json!({"a": 1, "b": 2})),
            ("add".to_owned(), json!({"a": 3, "b": 3.5})),
            (
                "echo".to_owned(),
                json!({"list": [3, 3], "nested": {"u": "ü\n", "n": null}})
            ),
        ]
    );
    assert_eq!(
        out.calls
            .iter()
            .map(|c| c.tool.as_str())
            .collect::<Vec<_>>(),
        ["add", "add", "echo"]
    );
    assert!(out.calls.iter().all(|c| !c.is_error));
}

#[tokio::test]
async fn a_tool_error_rejects_with_its_text_at_the_call_line() {
    let code = "const ok = await api.add({a: 1, b: 1});\nconsole.log('got', ok);\n  await api.fail({id: 7});\nreturn 'unreached';";
    let (out, _, _) = run(code).await;
    let e = out.error.clone().unwrap();
    assert_eq!(e.kind, ErrorKind::Exception);
    assert_eq!(e.message, "Error: no such person: 7");
    assert_eq!(e.line, Some(3), "{e:?}");
    assert_eq!(out.logs, vec!["got 2".to_owned()]);
    assert_eq!(out.calls.len(), 2);
    assert!(!out.calls[0].is_error && out.calls[1].is_error);

    let (out, _, _) = run(
        "try { await api.fail({id: 1}); } catch (e) { return [e instanceof Error, e.message]; }",
    )
    .await;
    assert_eq!(out.result, Some(json!([true, "no such person: 1"])));
}

#[tokio::test]
async fn exceptions_carry_the_scripts_line_and_column() {
    let (out, _, _) =
        run("const a = 1;\nconst b = 2;\n    throw new TypeError('bad ' + (a + b));").await;
    let e = out.error.unwrap();
    assert_eq!(e.kind, ErrorKind::Exception);
    assert_eq!(e.message, "TypeError: bad 3");
    // QuickJS-ng names the line and a column inside the `new TypeError(...)` expression (it
    // reports the call's position, which moves with the arguments), so the column is checked
    // against the expression's span in the line as written: columns 11..=41.
    assert_eq!(e.line, Some(3), "{e:?}");
    let col = e.column.unwrap();
    assert!((11..=41).contains(&col), "{e:?}");
    let (out, _, _) = run("\n  throw new Error();").await;
    let e = out.error.unwrap();
    assert_eq!(e.line, Some(2), "{e:?}");
    assert!((9..=19).contains(&e.column.unwrap()), "{e:?}");

    let (out, _, _) = run("let x = 1;\nx.y.z = 2;").await;
    let e = out.error.unwrap();
    assert!(e.message.starts_with("TypeError"), "{e:?}");
    assert_eq!(e.line, Some(2), "{e:?}");

    let (out, _, _) = run("const ok = 1;\nconst = 2;").await;
    let e = out.error.unwrap();
    assert!(e.message.starts_with("SyntaxError"), "{e:?}");
    assert_eq!(e.line, Some(2), "{e:?}");

    let (out, _, _) = run("throw 'plain';").await;
    let e = out.error.unwrap();
    assert_eq!(
        (e.kind, e.message.as_str(), e.line),
        (ErrorKind::Exception, "plain", None)
    );
}

#[tokio::test]
async fn logs_are_captured_and_bounded() {
    let (out, _, _) = run("console.log('a', 1, {b: [2]}, null); console.error('oops'); console.info(undefined); return 0;").await;
    assert_eq!(
        out.logs,
        vec!["a 1 {\"b\":[2]} null", "[error] oops", "undefined"]
    );
    let limits = Limits {
        max_output_bytes: 1000,
        ..quick()
    };
    let (out, _, _) = run_with(
        "for (let i = 0; i < 100000; i++) console.log('line ' + i); return 'ok';",
        &limits,
    )
    .await;
    assert_eq!(out.error, None);
    assert_eq!(out.result, Some(json!("ok")));
    let total: usize = out.logs.iter().map(|l| l.len()).sum();
    assert!(total < 1200, "{total}");
    assert_eq!(out.logs[0], "line 0");
    assert!(
        out.logs.last().unwrap().starts_with("[logs cut"),
        "{:?}",
        out.logs.last()
    );
}

#[tokio::test]
async fn results_convert_to_json() {
    let (out, _, _) = run("return undefined;").await;
    assert_eq!((out.result, out.error), (None, None));
    let (out, _, _) = run("return {n: 1.5, s: 'x', l: [true, null], d: new Date(0)};").await;
    assert_eq!(
        out.result,
        Some(json!({"n": 1.5, "s": "x", "l": [true, null], "d": "1970-01-01T00:00:00.000Z"}))
    );
    let (out, _, _) = run("const o = {}; o.o = o; return o;").await;
    assert_eq!(kind(&out), Some(ErrorKind::Exception));
    assert!(out.error.unwrap().message.contains("not JSON"));
}

#[tokio::test]
async fn a_host_that_panics_fails_only_that_call() {
    let (out, _, _) = run("try { await api.panic({}); } catch (e) { return [e.message, await api.add({a: 1, b: 1})]; }").await;
    assert_eq!(out.error, None, "{out:?}");
    assert_eq!(
        out.result,
        Some(json!(["the host failed while performing this call", 2]))
    );
    assert_eq!(out.calls.len(), 2);
    assert!(out.calls[0].is_error && !out.calls[1].is_error);
}

#[tokio::test]
async fn catastrophic_regex_backtracking_ends_at_the_wall_time() {
    let (out, _, took) = run("return /^(a+)+$/.test('a'.repeat(40) + 'b');").await;
    assert_eq!(kind(&out), Some(ErrorKind::Timeout), "{out:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[tokio::test]
async fn zero_limits_are_the_smallest_limits_not_none() {
    // QuickJS reads a 0 memory or stack limit as "unlimited"; the sandbox must not.
    let limits = Limits {
        memory_bytes: 0,
        ..quick()
    };
    let (out, _, took) = run_with("const a = []; for (;;) a.push(new Array(1e6));", &limits).await;
    assert!(
        matches!(kind(&out), Some(ErrorKind::Memory | ErrorKind::Internal)),
        "{out:?}"
    );
    assert!(took < Duration::from_millis(700), "{took:?}");
    let limits = Limits {
        stack_bytes: 0,
        ..quick()
    };
    let (out, _, _) = run_with(
        "function f(n) { return f(n + 1) + 1; } return f(0);",
        &limits,
    )
    .await;
    assert!(
        matches!(kind(&out), Some(ErrorKind::Stack | ErrorKind::Internal)),
        "{out:?}"
    );
    next_execution_works().await;
}

#[tokio::test]
async fn an_error_keeps_the_logs_and_calls_so_far() {
    let (out, _, _) = run("console.log('before'); await api.add({a: 1, b: 2}); console.log('spinning'); while (true) {}").await;
    assert_eq!(kind(&out), Some(ErrorKind::Timeout), "{out:?}");
    assert_eq!(out.logs, ["before", "spinning"]);
    assert_eq!(out.calls.len(), 1);
    assert_eq!(out.calls[0].tool, "add");
}

#[tokio::test]
async fn recursion_inside_builtins_is_a_clean_error() {
    // Native recursion (JSON, join, the result and argument conversions) must hit QuickJS's
    // stack check, never the thread's guard page.
    let nest = "let a = []; for (let i = 0; i < 2e5; i++) a = [a];";
    let cases: [(String, Result<Value, ErrorKind>); 9] = [
        (format!("{nest} return JSON.stringify(a).length;"), Err(ErrorKind::Stack)),
        (format!("{nest} return String(a).length;"), Err(ErrorKind::Stack)),
        ("return JSON.parse('['.repeat(1e6) + ']'.repeat(1e6));".into(), Err(ErrorKind::Stack)),
        ("return new RegExp('('.repeat(1e5) + ')'.repeat(1e5)).test('');".into(), Err(ErrorKind::Exception)),
        (format!("{nest} return a;"), Err(ErrorKind::Stack)),
        (format!("{nest} console.log(a); return 1;"), Ok(json!(1))),
        (format!("{nest} return await api.echo(a);"), Err(ErrorKind::Stack)),
        ("let p = Promise.resolve(); for (let i = 0; i < 1e4; i++) p = p.then(() => 1); return await p;".into(), Ok(json!(1))),
        // Deeper than serde_json's 128 levels, shallow for the engine: an output limit.
        ("let a = []; for (let i = 0; i < 200; i++) a = [a]; return a;".into(), Err(ErrorKind::OutputLimit)),
    ];
    for (code, want) in cases {
        let (out, _, took) = run_with(&code, &roomy()).await;
        assert!(took < Duration::from_secs(5), "{code}: {took:?}");
        match want {
            Ok(v) => assert_eq!((out.result, out.error), (Some(v), None), "{code}"),
            Err(k) => assert_eq!(kind(&out), Some(k), "{code}: {out:?}"),
        }
    }
    next_execution_works().await;
}

#[tokio::test]
async fn thrown_messages_are_bounded() {
    let (out, _, _) = run("throw new Error('x'.repeat(1e6));").await;
    let e = out.error.unwrap();
    assert!(e.message.len() < 4096 + 100, "{}", e.message.len());
    assert!(
        e.message.ends_with("[cut: the message is 1000007 bytes]"),
        "{}",
        &e.message[4000..]
    );
}

#[tokio::test]
async fn structured_content_has_the_issues_shape() {
    let (out, _, _) = run(
        "console.log('hi'); const r = await api.add({a: 1, b: 2});\nthrow new Error('after ' + r);",
    )
    .await;
    assert!(out.is_error());
    let mut v = out.structured_content();
    let ms = v["calls"][0]["ms"].take();
    assert!(ms.as_f64().unwrap() >= 0.0);
    assert_eq!(
        v,
        json!({
            "result": null,
            "logs": ["hi"],
            "calls": [{"tool": "add", "isError": false, "ms": null}],
            "error": {"kind": "exception", "message": "Error: after 3", "line": 2, "column": v["error"]["column"]},
        })
    );
    assert!(v["error"]["column"].as_u64().is_some());
    let (out, _, _) = run("return [await api.echo({})];").await;
    assert!(!out.is_error());
    assert_eq!(
        out.structured_content()["result"],
        json!([{"tool": "echo", "args": {}}])
    );
    assert!(out.structured_content().get("error").is_none());
}

#[tokio::test]
async fn stack_trace_hooks_reach_no_privileged_function() {
    // QuickJS-ng implements V8's Error.prepareStackTrace with CallSite objects; a script may use
    // getFunction() to grab the functions on the stack when an error is made inside a sandbox
    // function (console's native logger, an api call). Whatever it grabs, calling it with forged
    // arguments must not reach the host under a forged name.
    let code = r#"
        const grabbed = [];
        Error.prepareStackTrace = (e, sites) => {
            for (const s of sites) {
                const f = typeof s.getFunction === 'function' ? s.getFunction() : undefined;
                if (typeof f === 'function') grabbed.push(f);
            }
            return 'hooked';
        };
        console.log({ toJSON() { new Error('x').stack; return 1; } });
        await api.echo({ get x() { new Error('y').stack; return 2; } });
        let forged = 0;
        // The script's own functions are on those stacks too; calling them again is just the
        // script running itself, so only the sandbox's are tried.
        const sandboxes = grabbed.filter(f => !String(f).includes('new Error('));
        for (const f of sandboxes) {
            for (const args of [['forged', [1]], ['forged', {}], [{ a: 1 }]]) {
                try { const r = f(...args); if (r && typeof r.then === 'function') await r.catch(() => {}); forged++; } catch (e) {}
            }
        }
        return { sandboxes: sandboxes.map(String), forged };
    "#;
    let (out, host, _) = run(code).await;
    assert_eq!(out.error, None, "{out:?}");
    let r = out.result.unwrap();
    // What QuickJS-ng hands out: console's wrapper and native functions; both only log.
    for f in r["sandboxes"].as_array().unwrap() {
        let f = f.as_str().unwrap();
        assert!(
            f.contains("[native code]") || f.contains("=> log(m, args)"),
            "{f}"
        );
    }
    for (tool, _) in host.calls.lock().unwrap().iter() {
        assert!(
            tools().contains(tool),
            "the host saw a forged tool name {tool}"
        );
    }
    next_execution_works().await;
}

#[tokio::test]
async fn a_huge_wall_time_is_capped_not_a_panic() {
    let limits = Limits {
        wall: Duration::MAX,
        ..Limits::default()
    };
    let (out, _, _) = run_with("return await api.add({a: 20, b: 22});", &limits).await;
    assert_eq!((out.result, out.error), (Some(json!(42)), None));
}

#[tokio::test]
async fn tool_names_that_are_object_builtins_are_plain_tools() {
    let names: Vec<String> = ["__proto__", "constructor", "toString", "hasOwnProperty"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let host = Arc::new(Recorder::default());
    let code = "const out = []; for (const n of Object.keys(api)) { try { await api[n]({n}); } catch (e) { out.push(n + ': ' + e.message); } } return [Object.keys(api), out];";
    let out = execute(code, &names, host.clone(), &quick()).await;
    assert_eq!(out.error, None, "{out:?}");
    assert_eq!(
        out.result.unwrap()[0],
        json!(["__proto__", "constructor", "toString", "hasOwnProperty"])
    );
    let seen: Vec<String> = host
        .calls
        .lock()
        .unwrap()
        .iter()
        .map(|c| c.0.clone())
        .collect();
    assert_eq!(seen, names);
}

#[test]
fn outside_a_tokio_runtime_it_is_an_error_not_a_panic() {
    use std::future::Future;
    use std::task::{Context, Poll, Wake, Waker};
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = Waker::from(Arc::new(Noop));
    let names = tools();
    let limits = quick();
    let mut fut = Box::pin(execute(
        "return 1;",
        &names,
        Arc::new(Recorder::default()),
        &limits,
    ));
    let Poll::Ready(out) = fut.as_mut().poll(&mut Context::from_waker(&waker)) else {
        panic!("expected an immediate error")
    };
    assert_eq!(kind(&out), Some(ErrorKind::Internal));
}
