//! Prism behind the real `mcpdesc serve` binary (proofs 2 and 4):
//! - every tool of a bundled fixture, imported and served, is called with arguments
//!   generated from its inputSchema at 2025-06-18 (handshake) and 2026-07-28
//!   (stateless); Prism validates each request against the original OpenAPI document
//!   and none may be rejected (no tool of this fixture needs excluding for Prism 5.16's
//!   gaps: measured, `upload_photo`'s multipart body included); every result must validate (the workspace validator, as
//!   a named example of its tool; the Python SDK's result models);
//! - mcpdesc's generated Rust and TypeScript clients call the served description over
//!   both transports (stdio and Streamable HTTP) with Prism behind it.

use crate::harness::*;
use mcpdesc_core::ProtocolRevision::*;
use mcpdesc_tests::prism::{self, Prism};
use mcpdesc_tests::{check_config, fixture, mcpdesc_bin, missing, workspace_root};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

#[path = "../serve_rest/arguments.rs"]
#[allow(dead_code)]
pub(crate) mod arguments;

fn prism_ready() -> bool {
    if !prism::bin().exists() || !mcpdesc_bin().is_file() {
        missing("@stoplight/prism-cli (.deps/node) or the mcpdesc binary");
        return false;
    }
    true
}

fn work(name: &str) -> PathBuf {
    let d = workspace_root().join("target/serve-mcp-prism").join(name);
    std::fs::create_dir_all(&d).expect("work dir");
    d
}

/// `MCPDESC_CREDENTIAL_<SCHEME>` for every security scheme of `doc`, in its kind's form.
fn credential_env(doc: &Value) -> Vec<(String, String)> {
    doc.get("securitySchemes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, s)| {
            let v = credential_for(s);
            (mcpdesc_rest::credential_env_var(name), v.to_string())
        })
        .collect()
}

/// A credential Prism accepts for security scheme `s`, in its kind's form.
pub(crate) fn credential_for(s: &Value) -> &'static str {
    match (s["type"].as_str(), s["scheme"].as_str()) {
        (Some("http"), Some(sc)) if sc.eq_ignore_ascii_case("basic") => "user:pass",
        (Some("oauth2" | "openIdConnect"), _) => "token:prism-token",
        _ => "prism-credential",
    }
}

/// The offline copy of a bundled spec, its import (through the CLI) and Prism on it.
/// `test` names the caller's own folder: the tests run in parallel, and Prism reloads
/// a spec file that changes under it (a shared folder made one test's Prism restart
/// while another test rewrote the copy: "connection refused").
fn setup(spec: &str, test: &str) -> (PathBuf, Value, Prism) {
    behind_prism(spec, &work(&format!("{test}/{spec}")))
}

/// The bundled OpenAPI document `spec` copied offline into `dir`, imported there through
/// the CLI (`served.mcpdesc.json`), and Prism on the copy.
pub(crate) fn behind_prism(spec: &str, dir: &Path) -> (PathBuf, Value, Prism) {
    let copy =
        prism::offline_copy(&fixture(&format!("openapi/{spec}")), dir).expect("offline copy");
    let desc = dir.join("served.mcpdesc.json");
    let o = Command::new(mcpdesc_bin())
        .args(["import", "openapi"])
        .arg(&copy)
        .arg("-o")
        .arg(&desc)
        .output()
        .expect("import");
    assert!(
        o.status.success(),
        "import: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc = load(&desc);
    let p = Prism::start(&copy).unwrap_or_else(|e| panic!("{e}"));
    (desc, doc, p)
}

/// A JSON-RPC line client on a `mcpdesc serve` child (its environment under test control).
struct Child2 {
    child: Child,
    stdin: std::process::ChildStdin,
    lines: Receiver<String>,
    log: Receiver<String>,
}

impl Child2 {
    fn spawn(args: &[String], env: &[(String, String)]) -> Child2 {
        let mut child = Command::new(mcpdesc_bin())
            .arg("serve")
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn serve");
        let stdin = child.stdin.take().expect("stdin");
        let lines = forward(child.stdout.take().expect("stdout"));
        let log = forward(child.stderr.take().expect("stderr"));
        Child2 {
            child,
            stdin,
            lines,
            log,
        }
    }

    /// The log line of the next `tools/call` of `tool` (one line per call; `tool` may
    /// carry its marker, e.g. `get_pet via execute`).
    fn call_log(&self, tool: &str) -> String {
        let want = format!("mcpdesc serve: tools/call {tool} [");
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let l = self
                .log
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("no log line for {tool}"));
            if l.starts_with(&want) {
                return l;
            }
        }
    }

    /// Opens the session at `rev` as its lifecycle says (`server/discover` for the
    /// stateless revision, else `initialize`); the `_meta` envelope every request then
    /// carries, if any. `id` is the caller's running request id.
    fn open_at(&mut self, rev: mcpdesc_core::ProtocolRevision, id: &mut i64) -> Option<Value> {
        *id += 1;
        if rev.has(mcpdesc_core::Feature::StatelessLifecycle) {
            let d = self.request(*id, "server/discover", json!({"_meta": envelope(rev)}));
            assert!(d.get("result").is_some(), "{d}");
            Some(envelope(rev))
        } else {
            let i = self.request(*id, "initialize", json!({"protocolVersion": rev.as_str(), "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
            assert_eq!(i["result"]["protocolVersion"], rev.as_str());
            None
        }
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").expect("write");
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let line = self
                .lines
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let v: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }
}

fn forward(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    rx
}

impl Drop for Child2 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn every_tool_through_the_binary_against_prism() {
    if !prism_ready() {
        return;
    }
    let (desc, doc, p) = setup("petstore-3.0.yaml", "every-tool");
    let mut oracle = ShapeOracle::default();
    let mut failures = Vec::new();
    let mut called = 0;
    let mut id = 0;
    for rev in [V2025_06_18, V2026_07_28] {
        // One connection per lifecycle (a connection keeps the era it opened with).
        let mut serve = Child2::spawn(
            &[
                desc.display().to_string(),
                "--base-url".into(),
                p.base(),
                "--timeout".into(),
                "20".into(),
            ],
            &credential_env(&doc),
        );
        let env = serve.open_at(rev, &mut id);
        let with_env = |mut params: Value| {
            if let Some(e) = &env {
                params["_meta"] = e.clone();
            }
            params
        };
        id += 1;
        let list = serve.request(id, "tools/list", with_env(json!({})));
        let tools = list["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(!tools.is_empty());
        let mut served = Vec::new();
        for t in &tools {
            let name = t["name"].as_str().unwrap_or_default().to_string();
            let args = match arguments::Gen::new(&t["inputSchema"]).arguments() {
                Ok(a) => a,
                Err(why) => {
                    failures.push(format!("{name} @ {rev}: no arguments: {why}"));
                    continue;
                }
            };
            id += 1;
            let r = serve.request(
                id,
                "tools/call",
                with_env(json!({"name": name, "arguments": args})),
            );
            called += 1;
            oracle.record("tools/call", rev, &r);
            let result = r["result"].clone();
            let text = result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if let Some(problem) = prism::rejection(&text) {
                failures.push(format!(
                    "{name} @ {rev}: Prism rejected the request: {problem}"
                ));
                continue;
            }
            // A tool error is fine here only when the request went out (Prism accepted
            // it; how a response maps is the response-mapping tests' business).
            let logged = serve.call_log(&name);
            if logged.contains("-> not sent upstream") {
                failures.push(format!("{name} @ {rev}: not sent: {text} ({logged})"));
                continue;
            }
            served.push((name, args, result));
        }
        // Every result, as a named example of its tool at this revision, validates.
        let mut view = mcpdesc_tests::project(&doc, rev).expect("projects");
        let vt = view["tools"].as_array_mut().expect("tools");
        for (name, args, result) in &served {
            if let Some(t) = vt.iter_mut().find(|t| t["name"] == json!(name)) {
                t["examples"] = json!({"served": {"input": args, "result": result}});
            }
        }
        for d in mcpdesc_validate::validate_value(&view) {
            if d.is_error() && d.pointer.contains("/examples/served") {
                failures.push(format!(
                    "@ {rev}: result invalid: {} {} ({})",
                    d.code, d.message, d.pointer
                ));
            }
        }
    }
    assert!(called >= 30, "only {called} calls");
    assert!(
        failures.is_empty(),
        "{} of {called} calls failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    oracle.check();
    drop(p);
}

/// Code mode against Prism (issue 22's behaviour proof): one `execute` script chains
/// three calls of the petstore's tools, with arguments generated from their input
/// schemas, at 2025-06-18 and 2026-07-28; Prism validates every request against the
/// original OpenAPI document and rejects none, and each call went upstream through the
/// direct call's path (its log line, marked `via execute`).
#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_missing_venv),
    ignore = "needs .deps/node and .deps/venv: cargo xtask deps"
)]
#[test]
fn code_mode_scripts_chain_calls_that_prism_accepts() {
    if !prism_ready() {
        return;
    }
    let (desc, doc, p) = setup("petstore-3.0.yaml", "code-mode");
    let mut id = 0;
    for rev in [V2025_06_18, V2026_07_28] {
        let list = mcpdesc_tests::export_tools_list(&doc, rev).expect("exports");
        let chain: Vec<(String, Value)> = list["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let args = arguments::Gen::new(&t["inputSchema"]).arguments().ok()?;
                Some((t["name"].as_str()?.to_string(), args))
            })
            .take(3)
            .collect();
        assert_eq!(chain.len(), 3, "three callable tools at {rev}");
        let mut serve = Child2::spawn(
            &[
                desc.display().to_string(),
                "--base-url".into(),
                p.base(),
                "--timeout".into(),
                "20".into(),
                "--discovery".into(),
                "code".into(),
                "--code-timeout".into(),
                "60".into(),
            ],
            &credential_env(&doc),
        );
        let env = serve.open_at(rev, &mut id);
        let script = format!(
            "const out = [];\n\
             for (const [name, args] of {}) {{\n\
               try {{ out.push({{name, ok: await api[name](args)}}); }}\n\
               catch (e) {{ out.push({{name, error: String(e.message)}}); }}\n\
             }}\n\
             return out;",
            Value::from(chain.iter().map(|(n, a)| json!([n, a])).collect::<Vec<_>>())
        );
        let mut params = json!({"name": "execute", "arguments": {"code": script}});
        if let Some(e) = &env {
            params["_meta"] = e.clone();
        }
        id += 1;
        let r = serve.request(id, "tools/call", params);
        let s = &r["result"]["structuredContent"];
        assert_eq!(r["result"].get("isError"), None, "{r}");
        let out = s["result"].as_array().cloned().unwrap_or_default();
        assert_eq!(out.len(), 3, "{r}");
        for o in &out {
            if let Some(e) = o["error"].as_str() {
                assert!(
                    prism::rejection(e).is_none(),
                    "Prism rejected {} at {rev}: {e}",
                    o["name"]
                );
            }
        }
        let called: Vec<&str> = s["calls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["tool"].as_str())
            .collect();
        let names: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(called, names, "{r}");
        for name in &names {
            let logged = serve.call_log(&format!("{name} via execute"));
            assert!(!logged.contains("-> not sent upstream"), "{logged}");
        }
    }
    drop(p);
}

/// Generates a client for `desc` at 2025-11-25 through the CLI: the revision the SDKs
/// under the generated clients negotiate (rmcp 3.11's `ClientConfig` default and the TS
/// SDK 1.32.2 both ask 2025-11-25 in `initialize`), so the client's types match what the
/// server sends there (e.g. wrapped `{result: …}` outputs before 2026-07-28).
fn generate(lang: &str, desc: &Path, out: &Path) {
    let _ = std::fs::remove_dir_all(out);
    let name_flag = if lang == "rust" {
        "--crate-name"
    } else {
        "--package-name"
    };
    let o = Command::new(mcpdesc_bin())
        .args(["generate", lang])
        .arg(desc)
        .args([
            "--protocol-version",
            "2025-11-25",
            name_flag,
            "petstore-client",
            "-o",
        ])
        .arg(out)
        .output()
        .expect("generate");
    assert!(
        o.status.success(),
        "generate {lang}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A program using the generated Rust client (rmcp 3.11) against `mcpdesc serve` over
/// stdio (a child it starts) and over Streamable HTTP (a server the test started; its
/// URL is the fourth argument).
const RUST_APP: &str = r#"
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let h = petstore_client::Client::connect_http(&a[3]).await?;
    let pet = h.get_pet(petstore_client::GetPetInput { id_path: 3, id_query: None }).await?;
    println!("{}", serde_json::json!({"http_get_pet": serde_json::to_value(&pet)?}));
    h.close().await?;
    let c = petstore_client::Client::connect_stdio(&a[0], ["serve", a[1].as_str(), "--base-url", a[2].as_str()]).await?;
    let pets = c
        .list_pets(petstore_client::ListPetsInput { limit: Some(5), x_request_id: "0f8fad5b-d9cb-469f-a165-70867728950e".into(), session: None })
        .await?;
    // Before 2026-07-28 an array output travels wrapped: `{result: [...]}`.
    println!("{}", serde_json::json!({"list_pets": pets.result.len()}));
    let pet = c.get_pet(petstore_client::GetPetInput { id_path: 7, id_query: None }).await?;
    println!("{}", serde_json::json!({"get_pet": serde_json::to_value(&pet)?}));
    c.close().await?;
    Ok(())
}
"#;

#[cfg_attr(
    any(mcpdesc_missing_node, mcpdesc_skip_generated_builds),
    ignore = "needs .deps/node (cargo xtask deps) and MCPDESC_SKIP_GENERATED_BUILDS unset"
)]
#[test]
fn generated_rust_client_with_prism_behind() {
    if !prism_ready() {
        return;
    }
    if std::env::var_os("MCPDESC_SKIP_GENERATED_BUILDS").is_some() {
        return missing("generated builds (MCPDESC_SKIP_GENERATED_BUILDS is set)");
    }
    let cfg = check_config();
    // Prism's folder is not the generated client's: `generate` replaces its output
    // folder whole, which deleted the spec under a running Prism (CI: a failed call).
    let (_, _, p) = setup("petstore-3.0.yaml", "rust-prism");
    let app = work("rust-app");
    let desc = workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    let client = work("rust-client");
    generate("rust", &desc, &client);
    std::fs::write(
        app.join("Cargo.toml"),
        format!(
            "[package]\nname = \"serve-e2e-app\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\npetstore-client = {{ path = {:?} }}\nserde_json = \"1\"\ntokio = {{ version = \"1\", features = [\"macros\", \"rt\"] }}\n\n[workspace]\n",
            client.display().to_string()
        ),
    )
    .expect("write");
    std::fs::create_dir_all(app.join("src")).expect("src");
    std::fs::write(app.join("src/main.rs"), RUST_APP).expect("write");
    // The description the client was generated from; its servers are replaced by Prism.
    let doc = load(&desc);
    let srv = ServeHttp::spawn_with_env(
        &[desc.display().to_string(), "--base-url".into(), p.base()],
        &credential_env(&doc),
    );
    let out = cfg
        .cargo()
        .args(["run", "--quiet", "--manifest-path"])
        .arg(app.join("Cargo.toml"))
        .arg("--")
        .arg(mcpdesc_bin())
        .arg(&desc)
        .arg(p.base())
        .arg(&srv.url)
        .envs(credential_env(&doc))
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The cause first: CI reports keep only a failure's first line.
    assert!(
        out.status.success(),
        "rust app {}: {}\n{stdout}\n{stderr}",
        out.status,
        stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
    );
    let lines: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0]["http_get_pet"]["id"].is_number(), "{stdout}");
    assert!(lines[1]["list_pets"].is_u64(), "{stdout}");
    assert!(lines[2]["get_pet"]["id"].is_number(), "{stdout}");
    // Both transports reached Prism through the gateway.
    assert!(srv.log().contains("tools/call get_pet"), "{}", srv.log());
}

/// The generated TypeScript client against `mcpdesc serve` over Streamable HTTP (the
/// URL argument) and over stdio (the rest: a command line that starts it).
const TS_APP: &str = r#"
import { McpClient } from "./client/dist/index.js";
const [url, command, ...args] = process.argv.slice(2);
const c = await McpClient.connectHttp(url);
const pets = await c.listPets({ limit: 5, "X-Request-Id": "0f8fad5b-d9cb-469f-a165-70867728950e" });
const pet = await c.getPet({ id__path: 7 });
await c.close();
const s = await McpClient.connectStdio(command, args);
const stdioPet = await s.getPet({ id__path: 3 });
await s.close();
console.log(JSON.stringify({ pets: pets.result.length, pet, stdioPet }));
"#;

#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn generated_typescript_client_with_prism_behind() {
    if !prism_ready() {
        return;
    }
    let cfg = check_config();
    let Some(tsc) = cfg.tsc() else {
        return missing("typescript (.deps/node)");
    };
    let (_, _, p) = setup("petstore-3.0.yaml", "ts-prism");
    let app = work("ts-app");
    let client_dir = app.join("client");
    let desc = workspace_root().join("tests/generated/petstore-3.0.mcpdesc.yaml");
    generate("typescript", &desc, &client_dir);
    for d in [&client_dir, &app] {
        let link = d.join("node_modules");
        if !link.exists() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(node_modules(), &link).expect("symlink");
        }
    }
    let o = Command::new("node")
        .arg(&tsc)
        .arg("-p")
        .arg(client_dir.join("tsconfig.json"))
        .output()
        .expect("tsc");
    assert!(
        o.status.success(),
        "tsc: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::write(app.join("package.json"), "{\"type\": \"module\"}\n").expect("write");
    std::fs::write(app.join("app.mjs"), TS_APP).expect("write");
    let doc = load(&desc);
    let creds = credential_env(&doc);
    let srv = ServeHttp::spawn_with_env(
        &[desc.display().to_string(), "--base-url".into(), p.base()],
        &creds,
    );
    // The SDK's stdio transport passes a child only a default environment: env(1)
    // gives the gateway its credential.
    let stdio: Vec<String> = ["env".to_string()]
        .into_iter()
        .chain(creds.iter().map(|(k, v)| format!("{k}={v}")))
        .chain([
            mcpdesc_bin().display().to_string(),
            "serve".into(),
            desc.display().to_string(),
            "--base-url".into(),
            p.base(),
        ])
        .collect();
    let out = Command::new("node")
        .arg(app.join("app.mjs"))
        .arg(&srv.url)
        .args(&stdio)
        .current_dir(&app)
        .output()
        .expect("node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ts app:\n{stdout}\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        srv.log()
    );
    let v: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("json");
    assert!(v["pets"].is_u64() && v["pet"]["id"].is_number(), "{v}");
    assert!(v["stdioPet"]["id"].is_number(), "{v}");
}

/// `--discovery search` with Prism behind: every tool of the fixture is found by its
/// name (an exact name ranks first), described exactly as the export lists it, and
/// called through `call_tool` with arguments generated from that description; Prism
/// validates each request against the original OpenAPI document and rejects none, and
/// each call went upstream (the log line says `via call_tool`).
#[cfg_attr(mcpdesc_missing_node, ignore = "needs .deps/node: cargo xtask deps")]
#[test]
fn the_search_facade_against_prism() {
    if !prism_ready() {
        return;
    }
    let (desc, doc, p) = setup("petstore-3.0.yaml", "facade");
    let mut failures = Vec::new();
    let mut called = 0;
    let mut id = 0;
    for rev in [V2025_06_18, V2026_07_28] {
        let mut serve = Child2::spawn(
            &[
                desc.display().to_string(),
                "--base-url".into(),
                p.base(),
                "--timeout".into(),
                "20".into(),
                "--discovery".into(),
                "search".into(),
            ],
            &credential_env(&doc),
        );
        let env = serve.open_at(rev, &mut id);
        let with_env = |mut params: Value| {
            if let Some(e) = &env {
                params["_meta"] = e.clone();
            }
            params
        };
        id += 1;
        let list = serve.request(id, "tools/list", with_env(json!({})));
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["search_tools", "describe_tools", "call_tool"],
            "{rev}"
        );
        let exported = mcpdesc_tests::export_tools_list(&doc, rev).expect("exports");
        for t in exported["tools"].as_array().into_iter().flatten() {
            let name = t["name"].as_str().unwrap_or_default().to_string();
            id += 1;
            let found = serve.request(
                id,
                "tools/call",
                with_env(json!({"name": "search_tools", "arguments": {"query": name, "limit": 3}})),
            );
            let first = found["result"]["structuredContent"]["tools"][0]["name"].clone();
            if first != json!(name) {
                failures.push(format!(
                    "{name} @ {rev}: search for its name ranked {first} first"
                ));
            }
            id += 1;
            let described = serve.request(
                id,
                "tools/call",
                with_env(json!({"name": "describe_tools", "arguments": {"names": [name]}})),
            );
            let tool = &described["result"]["structuredContent"]["tools"][0];
            if tool != t {
                failures.push(format!(
                    "{name} @ {rev}: describe_tools differs from the export"
                ));
                continue;
            }
            let args = match arguments::Gen::new(&tool["inputSchema"]).arguments() {
                Ok(a) => a,
                Err(why) => {
                    failures.push(format!("{name} @ {rev}: no arguments: {why}"));
                    continue;
                }
            };
            id += 1;
            let r = serve.request(
                id,
                "tools/call",
                with_env(
                    json!({"name": "call_tool", "arguments": {"name": name, "arguments": args}}),
                ),
            );
            called += 1;
            let text = r["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if let Some(problem) = prism::rejection(&text) {
                failures.push(format!(
                    "{name} @ {rev}: Prism rejected the request: {problem}"
                ));
                continue;
            }
            let logged = serve.call_log(&format!("{name} via call_tool"));
            if logged.contains("-> not sent upstream") {
                failures.push(format!("{name} @ {rev}: not sent: {text} ({logged})"));
            }
        }
    }
    assert!(called >= 30, "only {called} calls");
    assert!(
        failures.is_empty(),
        "{} of {called} calls failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    drop(p);
}
