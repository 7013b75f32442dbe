//! Proof 4: real MCP clients drive the real `mcpdesc serve` binary over stdio and
//! Streamable HTTP: the official TypeScript SDK client (1.32.2, up to 2025-11-25), the
//! Python `mcp` SDK client (2.3.0, every revision including 2026-07-28's stateless
//! lifecycle) and the MCP Inspector CLI (2.12.0). Each lists every tool (all pages) and
//! calls tools; the clients validate what they receive themselves (the SDKs check result
//! shapes, the TS SDK also `structuredContent` against `outputSchema`).

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::{self, *};
use mcpdesc_tests::{mcpdesc_bin, missing};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

fn fx() -> String {
    mcp_fixture("every-revision.mcpdesc.yaml")
        .display()
        .to_string()
}

/// The serve arguments for the hand-written description, mocked, small pages.
fn serve_args(revisions: Option<&str>) -> Vec<String> {
    let mut a = vec![fx(), "--mock".to_string(), "--page-size".into(), "2".into()];
    if let Some(r) = revisions {
        a.push("--protocol-versions".into());
        a.push(r.into());
    }
    a
}

/// A scratch folder under `target/` where the client scripts can import `.deps`; set up
/// once per process (the tests using it run in parallel: a per-test setup raced on the
/// symlink and could read a script another test was still copying).
fn work() -> PathBuf {
    static WORK: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    WORK.get_or_init(|| {
        let d = mcpdesc_tests::workspace_root().join("target/serve-mcp-clients");
        std::fs::create_dir_all(&d).expect("work dir");
        let link = d.join("node_modules");
        if !link.exists() {
            #[cfg(unix)]
            match std::os::unix::fs::symlink(node_modules(), &link) {
                Ok(()) => {}
                // Another test process made it meanwhile.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => panic!("symlink: {e}"),
            }
        }
        for f in ["ts_client.mjs", "py_client.py", "py_resources.py"] {
            std::fs::copy(mcp_fixture(&format!("clients/{f}")), d.join(f)).expect("copy");
        }
        d
    })
    .clone()
}

fn run_json(mut cmd: Command, what: &str) -> Value {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {stdout}"))
}

fn calls() -> String {
    json!([
        {"name": "echo", "arguments": {"text": "hello"}},
        {"name": "echo", "arguments": {"text": ""}},
        {"name": "add", "arguments": {"a": 1, "b": 2}}
    ])
    .to_string()
}

/// What every client must have seen at `rev`: the export's tools (as the SDK parses
/// them) and the three calls' results (hand-written from the fixture's examples).
fn check_session(who: &str, out: &Value, rev: ProtocolRevision, sdk_parse: bool) {
    assert_eq!(out["negotiated"], rev.as_str(), "{who}: {out}");
    let doc = every_revision();
    let exported = mcpdesc_tests::export_tools_list(&doc, rev).expect("exports");
    let want: Vec<Value> = exported["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            if sdk_parse {
                as_sdk_parses(t)
            } else {
                t.clone()
            }
        })
        .collect();
    let pages = want.len().div_ceil(2) as u64;
    assert_eq!(
        out["tools"],
        Value::Array(want),
        "{who} @ {rev}: tools/list"
    );
    assert_eq!(out["pages"], pages, "{who}: two tools per page");
    let r = &out["results"];
    assert_eq!(
        r[0]["result"]["content"][1]["text"], "hello",
        "{who} @ {rev}: {r}"
    );
    if rev.has(mcpdesc_core::Feature::StructuredContent) {
        assert_eq!(
            r[0]["result"]["structuredContent"],
            json!({"echoed": "hello"}),
            "{who} @ {rev}"
        );
    }
    let invalid = r[1]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        r[1]["result"]["isError"] == true && invalid.contains("rule `minLength`"),
        "{who}: {r}"
    );
    let no_examples = r[2]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(no_examples.contains("has no named examples"), "{who}: {r}");
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn typescript_sdk_client_over_stdio_and_http() {
    let sdk = node_modules().join("@modelcontextprotocol/sdk/package.json");
    if !sdk.is_file() || !mcpdesc_bin().is_file() {
        return missing("@modelcontextprotocol/sdk (.deps/node) or the mcpdesc binary");
    }
    let w = work();
    let node = |transport: &str, target: &[String]| {
        let mut c = Command::new("node");
        c.arg(w.join("ts_client.mjs"))
            .arg(transport)
            .args(target)
            .env("MCPDESC_CALLS", calls())
            .current_dir(&w);
        c
    };
    let bin = mcpdesc_bin().display().to_string();
    for rev in [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25] {
        let mut target = vec![bin.clone(), "serve".into()];
        target.extend(serve_args(Some(rev.as_str())));
        let out = run_json(node("stdio", &target), "ts sdk stdio");
        check_session("ts sdk (stdio)", &out, rev, true);
    }
    // Every revision served: the SDK asks for 2025-11-25, its newest.
    let mut target = vec![bin.clone(), "serve".into()];
    target.extend(serve_args(None));
    let out = run_json(node("stdio", &target), "ts sdk stdio");
    check_session("ts sdk (stdio)", &out, V2025_11_25, true);
    assert_eq!(out["serverInfo"]["name"], "serve-fixture");
    assert_eq!(
        out["capabilities"],
        json!({"tools": {}, "resources": {}, "prompts": {}})
    );
    for rev in [V2025_03_26, V2025_06_18, V2025_11_25] {
        let srv = ServeHttp::spawn(&serve_args(Some(rev.as_str())));
        let out = run_json(node("http", std::slice::from_ref(&srv.url)), "ts sdk http");
        check_session("ts sdk (http)", &out, rev, true);
        assert!(
            srv.log().contains(&format!("tools/call echo [{rev}]")),
            "{}",
            srv.log()
        );
    }
}

#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn python_sdk_client_every_revision() {
    let py = venv_python();
    if !py.is_file() || !mcpdesc_bin().is_file() {
        return missing("the Python venv with mcp (.deps/venv) or the mcpdesc binary");
    }
    let w = work();
    let bin = mcpdesc_bin().display().to_string();
    let python = |transport: &str, mode: &str, target: &[String]| {
        let mut c = Command::new(&py);
        c.arg(w.join("py_client.py"))
            .arg(transport)
            .arg(mode)
            .args(target)
            .env("MCPDESC_CALLS", calls());
        c
    };
    // (mode, served, negotiated): the SDK's auto mode probes server/discover and falls
    // back to initialize (asking 2025-11-25) when 2026-07-28 is not served.
    let cases: [(&str, Option<&str>, ProtocolRevision); 6] = [
        ("auto", None, V2026_07_28),
        ("2026-07-28", None, V2026_07_28),
        ("legacy", None, V2025_11_25),
        ("legacy", Some("2025-06-18"), V2025_06_18),
        ("auto", Some("2024-11-05,2025-03-26"), V2025_03_26),
        ("auto", Some("2024-11-05"), V2024_11_05),
    ];
    for (mode, served, rev) in cases {
        let mut target = vec![bin.clone(), "serve".into()];
        target.extend(serve_args(served));
        let out = run_json(python("stdio", mode, &target), "python sdk stdio");
        check_session(&format!("python sdk (stdio, {mode})"), &out, rev, true);
        // A version pin adopts without asking the server, so there is no identity then.
        if mode != "2026-07-28" {
            assert_eq!(out["serverInfo"]["name"], "serve-fixture", "{mode}: {out}");
        }
        if rev.has(mcpdesc_core::Feature::StreamableHttp) {
            let srv = ServeHttp::spawn(&serve_args(served));
            let out = run_json(
                python("http", mode, std::slice::from_ref(&srv.url)),
                "python sdk http",
            );
            check_session(&format!("python sdk (http, {mode})"), &out, rev, true);
        }
    }
    // At 2026-07-28 over HTTP the SDK mirrors `x-mcp-header` inputs into Mcp-Param-*
    // headers, which the server checks against the body.
    let srv = ServeHttp::spawn(&serve_args(None));
    let mut c = python("http", "2026-07-28", std::slice::from_ref(&srv.url));
    c.env(
        "MCPDESC_CALLS",
        json!([{"name": "list_words", "arguments": {"region": "eu"}}]).to_string(),
    );
    let out = run_json(c, "python sdk http list_words");
    assert_eq!(
        out["results"][0]["result"]["structuredContent"],
        json!(["a", "b"]),
        "{out}"
    );
}

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn mcp_inspector_cli() {
    let bin_js = node_modules().join(".bin/mcp-inspector");
    if !bin_js.exists() || !mcpdesc_bin().is_file() {
        return missing("@modelcontextprotocol/inspector (.deps/node) or the mcpdesc binary");
    }
    let w = work();
    let bin = mcpdesc_bin().display().to_string();
    let inspector = |era: &str, target: &[String], method: &[&str]| {
        let mut c = Command::new(&bin_js);
        c.args(["--cli", "--protocol-era", era, "--format", "json"])
            .args(target)
            .args(method)
            .env("HOME", &w)
            .current_dir(&w);
        c
    };
    // The Inspector lists one page: serve everything on it.
    let args = vec![fx(), "--mock".to_string()];
    let mut stdio = vec![bin.clone(), "serve".into()];
    stdio.extend(args.clone());
    for (era, rev) in [("legacy", V2025_11_25), ("modern", V2026_07_28)] {
        let doc = every_revision();
        let exported = mcpdesc_tests::export_tools_list(&doc, rev).expect("exports");
        let names = tool_names(&exported);
        let out = run_json(
            inspector(era, &stdio, &["--method", "tools/list"]),
            "inspector tools/list",
        );
        let got = tool_names(&out["result"]);
        assert_eq!(got, names, "inspector {era}: {out}");
        let out = run_json(
            inspector(
                era,
                &stdio,
                &[
                    "--method",
                    "tools/call",
                    "--tool-name",
                    "echo",
                    "--tool-args-json",
                    "{\"text\":\"hello\"}",
                ],
            ),
            "inspector tools/call",
        );
        assert_eq!(
            out["result"]["structuredContent"],
            json!({"echoed": "hello"}),
            "inspector {era}: {out}"
        );
        let srv = ServeHttp::spawn(&args);
        let http = vec![srv.url.clone(), "--transport".into(), "http".into()];
        let out = run_json(
            inspector(era, &http, &["--method", "tools/list"]),
            "inspector http tools/list",
        );
        let got = tool_names(&out["result"]);
        assert_eq!(got, names, "inspector http {era}: {out}");
        assert!(srv.log().contains("serving serve-fixture"), "{}", srv.log());
    }
}

/// `--discovery search` driven by the MCP Inspector's CLI over stdio and Streamable
/// HTTP, in both of its protocol eras: the list is exactly the facade, and search →
/// describe → call reaches `echo` with the answer a direct call gives.
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn the_search_facade_with_the_inspector_cli() {
    let bin_js = node_modules().join(".bin/mcp-inspector");
    if !bin_js.exists() || !mcpdesc_bin().is_file() {
        return missing("@modelcontextprotocol/inspector (.deps/node) or the mcpdesc binary");
    }
    let w = work();
    let bin = mcpdesc_bin().display().to_string();
    let args: Vec<String> = [fx().as_str(), "--mock", "--discovery", "search"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut stdio = vec![bin, "serve".to_string()];
    stdio.extend(args.clone());
    let srv = ServeHttp::spawn(&args);
    let http = vec![srv.url.clone(), "--transport".into(), "http".into()];
    let call = |era: &str, target: &[String], tool: &str, json_args: &str| {
        let mut c = Command::new(&bin_js);
        c.args(["--cli", "--protocol-era", era, "--format", "json"])
            .args(target)
            .args(["--method", "tools/call", "--tool-name", tool])
            .args(["--tool-args-json", json_args])
            .env("HOME", &w)
            .current_dir(&w);
        run_json(c, &format!("inspector {era} {tool}"))
    };
    for (era, target) in [
        ("legacy", &stdio),
        ("modern", &stdio),
        ("legacy", &http),
        ("modern", &http),
    ] {
        let mut c = Command::new(&bin_js);
        c.args(["--cli", "--protocol-era", era, "--format", "json"])
            .args(target)
            .args(["--method", "tools/list"])
            .env("HOME", &w)
            .current_dir(&w);
        let out = run_json(c, "inspector tools/list");
        assert_eq!(
            tool_names(&out["result"]),
            [
                json!("search_tools"),
                json!("describe_tools"),
                json!("call_tool")
            ],
            "inspector {era}: {out}"
        );
        let out = call(
            era,
            target,
            "search_tools",
            r#"{"query":"echo the text back","limit":3}"#,
        );
        assert_eq!(
            out["result"]["structuredContent"]["tools"][0]["name"], "echo",
            "inspector {era}: {out}"
        );
        let out = call(era, target, "describe_tools", r#"{"names":["echo"]}"#);
        assert_eq!(
            out["result"]["structuredContent"]["tools"][0]["name"], "echo",
            "inspector {era}: {out}"
        );
        let out = call(
            era,
            target,
            "call_tool",
            r#"{"name":"echo","arguments":{"text":"hello"}}"#,
        );
        assert_eq!(
            out["result"]["structuredContent"],
            json!({"echoed": "hello"}),
            "inspector {era}: {out}"
        );
    }
    assert!(
        srv.log().contains("tools/call echo via call_tool"),
        "{}",
        srv.log()
    );
}

/// The `name`s of a `tools/list` result's tools, in order.
fn tool_names(list: &Value) -> Vec<Value> {
    list["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].clone())
        .collect()
}

/// `--discovery search` driven by the real SDK clients: the list is the facade, and
/// search → describe → call reaches the tool (the TS SDK checks search_tools' and
/// describe_tools' structuredContent against their outputSchemas itself).
#[test]
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
fn the_search_facade_with_real_clients() {
    let sdk = node_modules().join("@modelcontextprotocol/sdk/package.json");
    let py = venv_python();
    if !sdk.is_file() || !py.is_file() || !mcpdesc_bin().is_file() {
        return missing("@modelcontextprotocol/sdk (.deps/node), .deps/venv or the mcpdesc binary");
    }
    let args: Vec<String> = [fx().as_str(), "--mock", "--discovery", "search"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let calls = json!([
        {"name": "search_tools", "arguments": {"query": "echo the text back", "limit": 3}},
        {"name": "describe_tools", "arguments": {"names": ["echo"]}},
        {"name": "call_tool", "arguments": {"name": "echo", "arguments": {"text": "hello"}}}
    ])
    .to_string();
    let check = |who: &str, out: &Value| {
        let names: Vec<&str> = out["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["search_tools", "describe_tools", "call_tool"],
            "{who}: {out}"
        );
        let r = &out["results"];
        assert_eq!(
            r[0]["result"]["structuredContent"]["tools"][0]["name"], "echo",
            "{who}: {r}"
        );
        assert_eq!(
            r[1]["result"]["structuredContent"]["tools"][0]["name"], "echo",
            "{who}: {r}"
        );
        assert_eq!(r[2]["result"]["content"][1]["text"], "hello", "{who}: {r}");
        assert_eq!(
            r[2]["result"]["structuredContent"],
            json!({"echoed": "hello"}),
            "{who}: {r}"
        );
    };
    drive_real_clients(&args, &calls, check, "tools/call echo via call_tool");
}

/// Runs the TypeScript SDK client (stdio, HTTP) and the Python SDK client (auto and
/// legacy eras; stdio, HTTP) against `mcpdesc serve ARGS`, each making `calls`, and checks
/// each one's output with `check`; the HTTP server's log must contain `logged`.
fn drive_real_clients(args: &[String], calls: &str, check: impl Fn(&str, &Value), logged: &str) {
    let w = work();
    let py = venv_python();
    let bin = mcpdesc_bin().display().to_string();
    let mut stdio = vec![bin, "serve".into()];
    stdio.extend(args.iter().cloned());
    let mut ts = Command::new("node");
    ts.arg(w.join("ts_client.mjs"))
        .arg("stdio")
        .args(&stdio)
        .env("MCPDESC_CALLS", calls)
        .current_dir(&w);
    check("ts sdk (stdio)", &run_json(ts, "ts sdk stdio"));
    let srv = ServeHttp::spawn(args);
    let mut ts = Command::new("node");
    ts.arg(w.join("ts_client.mjs"))
        .arg("http")
        .arg(&srv.url)
        .env("MCPDESC_CALLS", calls)
        .current_dir(&w);
    check("ts sdk (http)", &run_json(ts, "ts sdk http"));
    assert!(srv.log().contains(logged), "{}", srv.log());
    for mode in ["auto", "legacy"] {
        let mut p = Command::new(&py);
        p.arg(w.join("py_client.py"))
            .arg("stdio")
            .arg(mode)
            .args(&stdio)
            .env("MCPDESC_CALLS", calls);
        check(
            &format!("python sdk (stdio, {mode})"),
            &run_json(p, "python stdio"),
        );
        let mut p = Command::new(&py);
        p.arg(w.join("py_client.py"))
            .arg("http")
            .arg(mode)
            .arg(&srv.url)
            .env("MCPDESC_CALLS", calls);
        check(
            &format!("python sdk (http, {mode})"),
            &run_json(p, "python http"),
        );
    }
}

/// `--discovery code` driven by the real SDK clients: the list is search_api and execute,
/// search_api declares the tool, and a script calling two tools returns their results
/// (the TS SDK checks both tools' structuredContent against their outputSchemas itself).
#[test]
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
fn code_mode_with_real_clients() {
    let sdk = node_modules().join("@modelcontextprotocol/sdk/package.json");
    if !sdk.is_file() || !venv_python().is_file() || !mcpdesc_bin().is_file() {
        return missing("@modelcontextprotocol/sdk (.deps/node), .deps/venv or the mcpdesc binary");
    }
    let args: Vec<String> = [fx().as_str(), "--mock", "--discovery", "code"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let script = "const e = await api.echo({text: 'hello'});\nlet bad = 'none';\ntry { await api.echo({text: ''}); } catch (err) { bad = err.message; }\nconsole.log('done');\nreturn {echoed: e.echoed, bad};";
    let calls = json!([
        {"name": "search_api", "arguments": {"query": "echo the text back", "limit": 3}},
        {"name": "execute", "arguments": {"code": script}}
    ])
    .to_string();
    let check = |who: &str, out: &Value| {
        let names: Vec<&str> = out["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["search_api", "execute"], "{who}: {out}");
        let r = &out["results"];
        let text = r[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains("declare const api: {") && text.contains("  echo(args"),
            "{who}: {r}"
        );
        // Revisions without structured content get the same JSON as text.
        let run = match r[1]["result"].get("structuredContent") {
            Some(s) => s.clone(),
            None => {
                let t = r[1]["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                serde_json::from_str(t).unwrap_or_else(|e| panic!("{who}: {e}: {t}"))
            }
        };
        assert_eq!(run["result"]["echoed"], "hello", "{who}: {r}");
        let bad = run["result"]["bad"].as_str().unwrap_or_default();
        assert!(bad.contains("rule `minLength`"), "{who}: {r}");
        assert_eq!(run["logs"], json!(["done"]), "{who}: {r}");
        let tools: Vec<&str> = run["calls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["tool"].as_str())
            .collect();
        assert_eq!(tools, ["echo", "echo"], "{who}: {r}");
    };
    drive_real_clients(&args, &calls, check, "tools/call echo via execute");
}

use crate::prism::arguments;

/// Issue 21's proof: three descriptions served together (the 2.0, 3.0 and 3.1 petstores,
/// each imported from its OpenAPI document and each behind its own Prism), from a gateway
/// configuration with each API's base URL and credentials, behind the search facade. The
/// TypeScript SDK over stdio (at 2025-06-18 and 2025-11-25), the Python SDK over stdio
/// (the same two) and over Streamable HTTP (2026-07-28) — every revision each speaks of
/// the ones the imports declare — search, describe the
/// three get-a-pet tools (one per description, named by prefix) and call each through
/// `call_tool`; every search result names its own description, and Prism, which validates
/// each request against the original OpenAPI document, rejects none of them. The MCP
/// Inspector's CLI does the same, one call per process, over stdio (its legacy era) and
/// Streamable HTTP (its modern era, 2026-07-28).
#[test]
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
fn three_descriptions_together_behind_the_facade_with_real_clients_and_prism() {
    use mcpdesc_tests::prism::{self, Prism};
    let sdk = node_modules().join("@modelcontextprotocol/sdk/package.json");
    let py = venv_python();
    let inspector = node_modules().join(".bin/mcp-inspector");
    if !sdk.is_file()
        || !py.is_file()
        || !prism::bin().exists()
        || !inspector.exists()
        || !mcpdesc_bin().is_file()
    {
        return missing(
            "@modelcontextprotocol/sdk, the Inspector and Prism (.deps/node), .deps/venv or the mcpdesc binary",
        );
    }
    let w = work();
    let root = w.join("three");
    let _ = std::fs::remove_dir_all(&root);
    // (OpenAPI document, its get-a-pet tool, that description's info.name)
    let apis = [
        ("petstore-2.0.json", "get_pet_by_id", "pet-store-2-0"),
        ("petstore-3.0.yaml", "get_pet", "pet-store-3-0"),
        ("petstore-3.1.yaml", "get_pet", "pet-store-3-1"),
    ];
    let mut prisms: Vec<Prism> = Vec::new();
    let mut entries = Vec::new();
    let mut env: Vec<(String, String)> = Vec::new();
    let mut wanted = Vec::new();
    for (i, (spec, tool, server)) in apis.iter().enumerate() {
        let dir = root.join(format!("api{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        let (desc, doc, p) = crate::prism::behind_prism(spec, &dir);
        let mut credential = serde_json::Map::new();
        for (scheme, s) in doc["securitySchemes"].as_object().into_iter().flatten() {
            let var = format!("THREE_{i}_{}", scheme.to_ascii_uppercase());
            credential.insert(scheme.clone(), json!(var));
            env.push((var, crate::prism::credential_for(s).to_string()));
        }
        entries.push(json!({"description": desc.display().to_string(),
            "base-url": p.base(), "timeout": 20, "credential": credential}));
        prisms.push(p);
        let list = mcpdesc_tests::export_tools_list(&doc, V2025_11_25).expect("exports");
        let schema = list["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == *tool)
            .map(|t| t["inputSchema"].clone())
            .unwrap_or_else(|| panic!("{tool} in {spec}"));
        let args = arguments::Gen::new(&schema).arguments().expect("arguments");
        let prefix = server.replace('-', "_");
        wanted.push((format!("{prefix}_{tool}"), server.to_string(), args));
    }
    let config = root.join("gateway.json");
    std::fs::write(
        &config,
        json!({"discovery": "search", "apis": entries}).to_string(),
    )
    .expect("write config");
    let names: Vec<&str> = wanted.iter().map(|(n, _, _)| n.as_str()).collect();
    let mut calls = vec![
        json!({"name": "search_tools", "arguments": {"query": "find a pet by its id", "limit": 50}}),
        json!({"name": "describe_tools", "arguments": {"names": names}}),
    ];
    for (name, _, args) in &wanted {
        calls.push(json!({"name": "call_tool", "arguments": {"name": name, "arguments": args}}));
    }
    // Last, the search narrowed to one description (issue 31's `servers`).
    let narrowed = wanted[1].1.clone();
    calls.push(
        json!({"name": "search_tools", "arguments": {"query": "find a pet by its id",
        "limit": 50, "servers": [narrowed]}}),
    );
    let calls_json = calls.clone();
    let calls = Value::from(calls).to_string();
    let check = |who: &str, out: &Value| {
        let r = &out["results"];
        let hits = r[0]["result"]["structuredContent"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (name, server, _) in &wanted {
            let hit = hits
                .iter()
                .find(|h| h["name"] == json!(name))
                .unwrap_or_else(|| panic!("{who}: {name} not found: {r}"));
            assert_eq!(hit["server"], json!(server), "{who}: {hit}");
        }
        let described: Vec<&str> = r[1]["result"]["structuredContent"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(described, names, "{who}: {r}");
        for (k, (name, _, _)) in wanted.iter().enumerate() {
            let res = &r[2 + k]["result"];
            let text = res["content"][0]["text"].as_str().unwrap_or_default();
            assert!(
                prism::rejection(text).is_none(),
                "{who}: Prism rejected {name}: {text}"
            );
            // A tool error is fine only when the request went out and Prism accepted
            // it (Prism 5.16 fails some of its own generated 3.1 responses: a 500 with
            // response-only violations, which `rejection` does not count).
            assert!(
                res["isError"] != json!(true) || text.starts_with("The API answered HTTP"),
                "{who}: {name} was not sent: {res}"
            );
        }
        // The descriptions the request is about, each one served (the TS SDK checks
        // the result against the outputSchema that lists `servers`).
        let ranked: Vec<&str> = r[0]["result"]["structuredContent"]["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["name"].as_str())
            .collect();
        assert!(
            !ranked.is_empty() && ranked.iter().all(|n| wanted.iter().any(|w| w.1 == *n)),
            "{who}: {r}"
        );
        let narrowed_hits = r[2 + wanted.len()]["result"]["structuredContent"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            !narrowed_hits.is_empty()
                && narrowed_hits.iter().all(|h| h["server"] == json!(narrowed)),
            "{who}: {r}"
        );
    };
    let bin = mcpdesc_bin().display().to_string();
    // Every revision each SDK speaks of the ones the imports declare (2025-06-18,
    // 2025-11-25, 2026-07-28): the server is held to one revision by `--protocol-versions`
    // beside `--config` (a server-wide flag), and the SDK must negotiate exactly it.
    // The SDKs hand a stdio child only a default environment: env(1) adds the credentials.
    let stdio_server = |rev: Option<ProtocolRevision>| {
        let mut argv: Vec<String> = vec!["env".into()];
        argv.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        argv.extend([bin.clone(), "serve".into(), "--config".into()]);
        argv.push(config.display().to_string());
        if let Some(rev) = rev {
            argv.extend(["--protocol-versions".into(), rev.to_string()]);
        }
        argv
    };
    let negotiated = |who: &str, out: &Value, rev: ProtocolRevision| {
        assert_eq!(out["negotiated"], json!(rev.as_str()), "{who}");
    };
    // The TypeScript SDK speaks up to 2025-11-25.
    for rev in [V2025_06_18, V2025_11_25] {
        let mut ts = Command::new("node");
        ts.arg(w.join("ts_client.mjs"))
            .arg("stdio")
            .args(stdio_server(Some(rev)))
            .env("MCPDESC_CALLS", &calls)
            .current_dir(&w);
        let who = format!("ts sdk (stdio, {rev})");
        let out = run_json(ts, &who);
        negotiated(&who, &out, rev);
        check(&who, &out);
    }
    // The Python SDK: its initialize handshake at the two older revisions (stdio), and
    // its 2026-07-28 lifecycle over Streamable HTTP (below).
    for rev in [V2025_06_18, V2025_11_25] {
        let mut p = Command::new(&py);
        p.arg(w.join("py_client.py"))
            .args(["stdio", "legacy"])
            .args(stdio_server(Some(rev)))
            .env("MCPDESC_CALLS", &calls);
        let who = format!("python sdk (stdio, {rev})");
        let out = run_json(p, &who);
        negotiated(&who, &out, rev);
        check(&who, &out);
    }
    let srv = ServeHttp::spawn_with_env(
        &["--config".to_string(), config.display().to_string()],
        &env,
    );
    let mut p = Command::new(&py);
    p.arg(w.join("py_client.py"))
        .arg("http")
        .arg("auto")
        .arg(&srv.url)
        .env("MCPDESC_CALLS", &calls);
    let out = run_json(p, "python http");
    negotiated("python sdk (http)", &out, V2026_07_28);
    check("python sdk (http)", &out);
    // The MCP Inspector's CLI, one tool call per process: search → describe → call of
    // each description's tool, over stdio (legacy era) and Streamable HTTP (modern).
    {
        // The Inspector reads `--config` itself: a script runs the server.
        let script = root.join("serve.sh");
        let quoted = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
        let mut line = String::from("#!/bin/sh\nexec env");
        for (k, v) in &env {
            line.push_str(&format!(" {}", quoted(&format!("{k}={v}"))));
        }
        line.push_str(&format!(
            " {} serve --config {}\n",
            quoted(&bin),
            quoted(&config.display().to_string())
        ));
        std::fs::write(&script, line).expect("write script");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        let stdio = vec![script.display().to_string()];
        let http = vec![srv.url.clone(), "--transport".into(), "http".into()];
        for (era, target) in [("legacy", &stdio), ("modern", &http)] {
            let call = |tool: &str, args: &Value| {
                let mut c = Command::new(&inspector);
                c.args(["--cli", "--protocol-era", era, "--format", "json"])
                    .args(target)
                    .args(["--method", "tools/call", "--tool-name", tool])
                    .args(["--tool-args-json", &args.to_string()])
                    .env("HOME", &w)
                    .current_dir(&w);
                // A tool error (Prism's own invalid 3.1 responses, which `check` allows)
                // makes the Inspector exit 5 after printing the result.
                let out = c.output().expect("runs the inspector");
                let stdout = String::from_utf8_lossy(&out.stdout);
                let result = stdout
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
                    .find_map(|v| v.get("result").cloned());
                match result {
                    Some(r) if out.status.success() || r["isError"] == true => {
                        json!({ "result": r })
                    }
                    _ => panic!(
                        "inspector {era} {tool} failed ({}):\n{stdout}\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    ),
                }
            };
            let mut results = vec![
                call("search_tools", &calls_json[0]["arguments"]),
                call("describe_tools", &calls_json[1]["arguments"]),
            ];
            for c in &calls_json[2..] {
                results.push(call(
                    c["name"].as_str().unwrap_or_default(),
                    &c["arguments"],
                ));
            }
            check(
                &format!("inspector cli ({era})"),
                &json!({ "results": results }),
            );
        }
    }
    drop(prisms);
}

/// Issue 21 §2 beyond tools, with the Python SDK client over stdio and Streamable HTTP at
/// 2026-07-28 and 2025-11-25: two mocked spec fixtures served together list each
/// other's resources under their own URIs and prompts under prefixed names, and each
/// `resources/read` / `prompts/get` is answered by its own description's examples
/// (expectations hand-written from the fixtures; the SDK validates every result shape).
#[cfg_attr(mcpdesc_missing_venv, ignore = "needs .deps/venv: cargo xtask deps")]
#[test]
fn resources_and_prompts_of_two_descriptions_with_the_python_sdk() {
    let py = venv_python();
    if !py.is_file() || !mcpdesc_bin().is_file() {
        return missing("the Python venv with mcp (.deps/venv) or the mcpdesc binary");
    }
    let w = work();
    let spec = |f: &str| {
        mcpdesc_tests::fixture(&format!("spec/fixtures/expected-valid/{f}"))
            .display()
            .to_string()
    };
    let serve = vec![
        spec("named-resource-examples.json"),
        spec("named-prompt-examples.json"),
        "--mock".to_string(),
        "--page-size".into(),
        "1".into(),
    ];
    let reads = json!({
        "uris": ["file:///project/src/", "chess://games/example-1234"],
        "prompts": [
            {"name": "prompt_example_fixture_greeting"},
            {"name": "prompt_example_fixture_city_briefing",
             "arguments": {"city": "Paris", "audience": "engineering"}}
        ]
    })
    .to_string();
    let check = |who: &str, out: &Value, rev: ProtocolRevision| {
        assert_eq!(out["negotiated"], rev.as_str(), "{who}: {out}");
        let strs = |list: &Value, key: &str| -> Vec<String> {
            list.as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v[key].as_str().map(String::from))
                .collect()
        };
        let modern = rev == V2026_07_28;
        let resources: &[&str] = if modern {
            &["file:///project/src/"]
        } else {
            &["file:///project/src/", "asset:///pixel.bin"]
        };
        assert_eq!(strs(&out["resources"], "uri"), resources, "{who}");
        let templates: &[&str] = if modern {
            &["chess://games/{game_id}"]
        } else {
            &[]
        };
        assert_eq!(strs(&out["templates"], "uriTemplate"), templates, "{who}");
        let prompts: &[&str] = if modern {
            &[
                "prompt_example_fixture_greeting",
                "prompt_example_fixture_city_briefing",
            ]
        } else {
            &["prompt_example_fixture_greeting"]
        };
        assert_eq!(strs(&out["prompts"], "name"), prompts, "{who}");
        let reads = &out["reads"];
        assert_eq!(
            reads[0]["result"]["contents"][1]["text"], "fn main() {}\n",
            "{who}: {reads}"
        );
        let gets = &out["gets"];
        assert_eq!(
            gets[0]["result"]["messages"][0]["content"]["text"], "Hello.",
            "{who}: {gets}"
        );
        if modern {
            assert_eq!(
                reads[1]["result"]["contents"][0]["text"],
                "{\"id\":\"example-1234\",\"result\":\"1-0\"}",
                "{who}: {reads}"
            );
            assert_eq!(
                gets[1]["result"]["description"], "Engineering briefing for Paris",
                "{who}: {gets}"
            );
        } else {
            // 2025-11-25 has neither the template nor the briefing prompt.
            for e in [&reads[1]["error"], &gets[1]["error"]] {
                assert!(
                    e.as_str()
                        .is_some_and(|e| e.contains("not found") || e.contains("Unknown prompt")),
                    "{who}: {out}"
                );
            }
        }
    };
    let bin = mcpdesc_bin().display().to_string();
    for (mode, rev) in [("auto", V2026_07_28), ("legacy", V2025_11_25)] {
        let mut c = Command::new(&py);
        c.arg(w.join("py_resources.py"))
            .arg("stdio")
            .arg(mode)
            .arg(&bin)
            .arg("serve")
            .args(&serve)
            .env("MCPDESC_READS", &reads);
        check(
            &format!("python sdk (stdio, {mode})"),
            &run_json(c, "python stdio"),
            rev,
        );
        let srv = ServeHttp::spawn(&serve);
        let mut c = Command::new(&py);
        c.arg(w.join("py_resources.py"))
            .arg("http")
            .arg(mode)
            .arg(&srv.url)
            .env("MCPDESC_READS", &reads);
        check(
            &format!("python sdk (http, {mode})"),
            &run_json(c, "python http"),
            rev,
        );
        let log = srv.log();
        assert!(
            log.contains(&format!(
                "prompts/get prompt_example_fixture_greeting [{rev}] -> mock example `default`"
            )),
            "{log}"
        );
    }
}
