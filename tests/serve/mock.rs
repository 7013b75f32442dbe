//! `--mock`: answers from named examples (§9.3), by the documented policy, marked as
//! illustrative.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::*;
use mcpdesc_live::client::Transport as _;
use mcpdesc_tests::mcpdesc_bin;
use serde_json::{Value, json};
use std::sync::Arc;

fn call(
    c: &mut Conn,
    env: &Option<Value>,
    name: &str,
    args: Value,
    select: Option<Value>,
) -> Value {
    // The request `_meta`: the session's envelope (2026-07-28) plus the selection key.
    let mut meta = env.clone().unwrap_or_else(|| json!({}));
    if let (Some(m), Some(Value::Object(sel))) = (meta.as_object_mut(), select) {
        m.extend(sel);
    }
    let mut params = json!({"name": name, "arguments": args});
    if meta.as_object().is_some_and(|m| !m.is_empty()) {
        params["_meta"] = meta;
    }
    c.request("tools/call", params)
}

fn marker(r: &Value) -> String {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn examples_answer_by_the_documented_policy() {
    let rt = Arc::new(rt());
    let doc = every_revision();
    let (server, log) = server_with(&doc, mock(), None, 100);
    let mut oracle = ShapeOracle::default();
    let sel = |name: &str| Some(json!({"x-mcpdesc/mockExample": name}));

    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2025_06_18);
    // 1. The example whose input equals the arguments, with the marker first.
    let r = call(&mut c, &env, "echo", json!({"text": "hello"}), None);
    oracle.record("tools/call", V2025_06_18, &r);
    assert_eq!(
        r["result"],
        json!({
            "content": [
                {"type": "text", "text": "[mcpdesc mock] Illustrative result: named example `hello` of tool `echo` from the MCP Description, whose `input` equals these arguments. Not a live call; it does not predict what the real server returns."},
                {"type": "text", "text": "hello"}
            ],
            "structuredContent": {"echoed": "hello"}
        })
    );
    // 2. No match: the first example by name with a successful result (`empty-error`
    //    sorts first but is an error).
    let r = call(&mut c, &env, "echo", json!({"text": "zzz"}), None);
    oracle.record("tools/call", V2025_06_18, &r);
    assert!(
        marker(&r).contains("example `hello`") && marker(&r).contains("default policy"),
        "{r}"
    );
    // 3. Explicit selection by the request's _meta, even of an error example.
    let r = call(
        &mut c,
        &env,
        "echo",
        json!({"text": "hello"}),
        sel("empty-error"),
    );
    oracle.record("tools/call", V2025_06_18, &r);
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r["result"].get("structuredContent").is_none());
    assert!(marker(&r).contains("selected by the request"), "{r}");
    // An unknown name, a non-string selection, a tool without examples: tool errors.
    let r = call(&mut c, &env, "echo", json!({"text": "hello"}), sel("nope"));
    assert_eq!(r["result"]["isError"], true);
    assert!(
        marker(&r).contains("its examples are: empty-error, hello"),
        "{r}"
    );
    let r = call(
        &mut c,
        &env,
        "echo",
        json!({"text": "hello"}),
        Some(json!({"x-mcpdesc/mockExample": 3})),
    );
    assert_eq!(r["result"]["isError"], true);
    let r = call(&mut c, &env, "add", json!({"a": 1, "b": 2}), None);
    oracle.record("tools/call", V2025_06_18, &r);
    assert_eq!(r["result"]["isError"], true);
    assert!(marker(&r).contains("has no named examples"), "{r}");
    // Invalid arguments never reach the mock either.
    let r = call(&mut c, &env, "echo", json!({"text": ""}), None);
    assert!(marker(&r).contains("rule `minLength`"), "{r}");

    // 2026-07-28: the example of that variant (through a component reference), with its
    // resultType and the server's identity stamp.
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2026_07_28);
    let r = call(&mut c, &env, "echo", json!({"text": "hello"}), None);
    oracle.record("tools/call", V2026_07_28, &r);
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["structuredContent"], json!({"echoed": "hello"}));
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "serve-fixture"
    );
    let r = call(&mut c, &env, "list_words", json!({}), None);
    oracle.record("tools/call", V2026_07_28, &r);
    assert_eq!(r["result"]["structuredContent"], json!(["a", "b"]));

    // 2024-11-05: that variant's examples.
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2024_11_05);
    let r = call(
        &mut c,
        &env,
        "echo",
        json!({"text": "hi", "times": 2}),
        None,
    );
    oracle.record("tools/call", V2024_11_05, &r);
    assert_eq!(r["result"]["content"][1]["text"], "hi hi");
    assert!(r["result"].get("structuredContent").is_none());

    let lines = log.lock().map(|v| v.clone()).unwrap_or_default();
    assert!(
        lines.iter().any(|l| l.contains("tools/call echo [2025-06-18] -> not sent upstream; mock example `hello` (input matched)")),
        "{lines:?}"
    );
    oracle.check();
}

/// A description without provenance (the spec's named-example fixture, a captured
/// description) is served by the mock.
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn descriptions_without_provenance() {
    let rt = Arc::new(rt());
    let doc = load(&mcpdesc_tests::fixture(
        "spec/fixtures/expected-valid/named-tool-examples.json",
    ));
    let (server, _) = server_with(&doc, mock(), None, 100);
    let mut c = Conn::open(&rt, &server);
    let env = c.open_at(V2026_07_28);
    let r = call(&mut c, &env, "weather", json!({"city": "Paris"}), None);
    let content = r["result"]["content"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // The marker, then the example's five blocks (text, image, audio, resource, link).
    assert_eq!(content.len(), 6, "{r}");
    assert_eq!(content[2]["type"], "image");
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"temperature": 21.5})
    );
    let mut o = ShapeOracle::default();
    o.record("tools/call", V2026_07_28, &r);
    o.check();
}

/// `--mock-example TOOL=NAME` through the binary: it beats input matching, the request
/// `_meta` beats it; unknown selections are refused at start.
#[test]
fn mock_example_flag_through_the_cli() {
    let bin = mcpdesc_bin();
    if !bin.is_file() {
        return mcpdesc_tests::missing("the mcpdesc binary");
    }
    let fx = mcp_fixture("every-revision.mcpdesc.yaml");
    let fx = fx.display().to_string();
    let mut t = spawn_cli(&[
        &fx,
        "--mock",
        "--mock-example",
        "echo=empty-error",
        "--protocol-versions",
        "2025-06-18",
    ]);
    let init = rpc(
        &mut t,
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let r = rpc(
        &mut t,
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hello"}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(marker(&r).contains("selected by the server's configuration"));
    let r = rpc(
        &mut t,
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hello"}, "_meta": {"x-mcpdesc/mockExample": "hello"}}),
    );
    assert_eq!(r["result"]["structuredContent"], json!({"echoed": "hello"}));
    t.close();
    let log = t.stderr();
    assert!(
        log.contains("mock example `empty-error` (named by the server's configuration)"),
        "{log}"
    );

    for (args, code, needle) in [
        (
            vec!["--mock", "--mock-example", "echo=nope"],
            1,
            "mock-example-unknown",
        ),
        (
            vec!["--mock", "--mock-example", "ghost=x"],
            1,
            "mock-example-unknown-tool",
        ),
        (vec!["--mock-example", "echo=hello"], 2, "--mock"),
        (
            vec!["--mock", "--base-url", "http://127.0.0.1:1"],
            2,
            "cannot be used with",
        ),
        (
            vec!["--mock", "--protocol-versions", "2024-11-05,2099-01-01"],
            2,
            "unknown MCP protocol revision",
        ),
    ] {
        let out = std::process::Command::new(&bin)
            .arg("serve")
            .arg(&fx)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "nothing on stdout: {args:?}");
    }
}
